//! Plain-text tables for people: the first column left-aligned, the others
//! (numbers) right-aligned, two spaces between columns.

/// A cell as it may be shown on a terminal: control characters (a line
/// break, an escape sequence) and the marks that reorder text written as
/// their escapes. Cells can come from outside (a reply's `strategy`): one
/// holding `\n` or `\x1b[31m` broke the table's rows or coloured the
/// terminal.
fn shown(cell: &str) -> String {
    let bidi = |c: char| matches!(c, '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}');
    let mut out = String::with_capacity(cell.len());
    for c in cell.chars() {
        if c.is_control() || bidi(c) {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    out
}

/// The table as lines, its header first.
pub(super) fn render(header: &[String], rows: &[Vec<String>]) -> String {
    let header: Vec<String> = header.iter().map(|c| shown(c)).collect();
    let rows: Vec<Vec<String>> = (rows.iter())
        .map(|r| r.iter().map(|c| shown(c)).collect())
        .collect();
    let (header, rows) = (&header[..], &rows[..]);
    let columns = header.len();
    let mut widths: Vec<usize> = header.iter().map(|h| h.chars().count()).collect();
    for row in rows {
        for (i, cell) in row.iter().enumerate().take(columns) {
            widths[i] = widths[i].max(cell.chars().count());
        }
    }
    let line = |cells: &[String]| {
        let mut text = String::new();
        for (i, cell) in cells.iter().enumerate().take(columns) {
            let pad = widths[i].saturating_sub(cell.chars().count());
            if i == 0 {
                text.push_str(cell);
                text.push_str(&" ".repeat(pad));
            } else {
                text.push_str("  ");
                text.push_str(&" ".repeat(pad));
                text.push_str(cell);
            }
        }
        text.trim_end().to_string()
    };
    let mut out = line(header);
    for row in rows {
        out.push('\n');
        out.push_str(&line(row));
    }
    out
}

/// A mean as printed in a table: at most four places.
pub(super) fn mean(d: rust_decimal::Decimal) -> String {
    d.round_dp(4).normalize().to_string()
}

/// The table as Markdown, cells with `|` escaped.
pub(super) fn markdown(header: &[String], rows: &[Vec<String>]) -> String {
    let row = |cells: &[String]| {
        let cells: Vec<String> = cells.iter().map(|c| shown(c).replace('|', "\\|")).collect();
        format!("| {} |", cells.join(" | "))
    };
    let mut out = row(header);
    out.push('\n');
    out.push_str(&format!("|{}", "---|".repeat(header.len())));
    for r in rows {
        out.push('\n');
        out.push_str(&row(r));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::{markdown, render};

    #[test]
    fn a_cell_from_outside_cannot_break_a_row_nor_reach_the_terminal() {
        let header = vec!["strategy".to_string(), "rubric-8".to_string()];
        let rows = vec![vec![
            "a\nb\x1b[31mred\u{202e}".to_string(),
            "0.5".to_string(),
        ]];
        assert_eq!(
            render(&header, &rows),
            "strategy                   rubric-8\na\\nb\\u{1b}[31mred\\u{202e}       0.5"
        );
        assert_eq!(
            markdown(&header, &rows),
            "| strategy | rubric-8 |\n|---|---|\n| a\\nb\\u{1b}[31mred\\u{202e} | 0.5 |"
        );
    }
}
