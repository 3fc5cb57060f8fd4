//! Plain-text tables for people: the first column left-aligned, the others
//! (numbers) right-aligned, two spaces between columns.

/// The table as lines, its header first.
pub(super) fn render(header: &[String], rows: &[Vec<String>]) -> String {
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
        let cells: Vec<String> = cells.iter().map(|c| c.replace('|', "\\|")).collect();
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
