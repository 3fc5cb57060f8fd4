//! Diagnostics: problems found in a rulebook, located in its file.
//!
//! Each [`Problem`] has a stable code (`check::unknown_name`), a message, and
//! a span in the TOML file, down to the name inside an expression string. The
//! checker collects all of them; [`Diagnostics`] renders them with miette.
//!
//! Rendering is linear in the problems shown: miette's own `SourceCode` for
//! text scans from the file's start for every span, so each file is given
//! to it through [`Indexed`], its line starts found once and each span read
//! from a window of the lines around it; and at most [`MAX_RENDERED`]
//! problems are drawn, the rest counted on one line.

use miette::{
    Diagnostic, GraphicalReportHandler, GraphicalTheme, LabeledSpan, MietteError,
    MietteSpanContents, NamedSource, SourceCode, SourceSpan, SpanContents,
};
use std::borrow::Cow;
use std::fmt;
use std::sync::Arc;

use crate::span::Span;

/// A source file: its display name and text.
#[derive(Clone)]
pub struct SourceFile {
    /// Path as the user gave it.
    pub name: String,
    /// Full text.
    pub text: Arc<str>,
}

/// Its name and size: the text itself would flood a `{:?}` of any error
/// that carries a file (a `LoadError` printed by `?` in a `main`).
impl fmt::Debug for SourceFile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SourceFile")
            .field("name", &self.name)
            .field("bytes", &self.text.len())
            .finish()
    }
}

impl SourceFile {
    /// 1-based line and column of a byte offset.
    pub fn line_col(&self, offset: usize) -> (usize, usize) {
        let offset = offset.min(self.text.len());
        let before = &self.text[..floor_char_boundary(&self.text, offset)];
        let line = before.matches('\n').count() + 1;
        let col = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
        (line, col)
    }
}

fn floor_char_boundary(text: &str, mut i: usize) -> usize {
    while i > 0 && !text.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// toml's message for an error in `text`, never empty: for some faults (a
/// control character in a comment) toml gives none, and a diagnostic with
/// no words was printed; those name the character at the error's place.
pub(crate) fn toml_message(e: &toml::de::Error, text: &str) -> String {
    let message = e.message().trim();
    // A table where a spanned text is read fails inside toml's span
    // protocol, which names the table's first key as a "string".
    if let Some(key) = message
        .strip_prefix("invalid type: string \"")
        .and_then(|m| m.strip_suffix("\", expected a borrowed string"))
    {
        return format!(
            "a table (with the key `{key}`) is written where text is expected: a dotted key such as `a.{key} = …` makes tables, so a name that holds a dot is quoted (`\"group.step\" = …`)"
        );
    }
    if !message.is_empty() {
        return message.to_string();
    }
    let found = e
        .span()
        .and_then(|span| text.get(span.start..))
        .and_then(|rest| rest.chars().next());
    match found {
        Some(c) if c.is_control() => format!(
            "the control character U+{:04X} is not allowed here (TOML allows only tab in text and comments)",
            u32::from(c)
        ),
        Some(c) => format!("{c:?} is not allowed here"),
        None => "the TOML is invalid here".to_string(),
    }
}

/// One problem in a rulebook.
#[derive(Clone, Debug)]
pub struct Problem {
    /// Stable code, e.g. `check::unknown_name`.
    pub code: &'static str,
    /// What is wrong, in one sentence.
    pub message: String,
    /// Where, in the file.
    pub span: Option<Span>,
    /// Text under the span.
    pub label: Option<String>,
    /// How to fix it.
    pub help: Option<String>,
    /// A warning (the rulebook works, but something in it is likely a
    /// mistake) rather than an error.
    pub warning: bool,
    source: Option<SourceFile>,
}

impl Problem {
    /// A problem with a code and a message, not yet located.
    pub fn new(code: &'static str, message: impl Into<String>) -> Self {
        Problem {
            code,
            message: message.into(),
            span: None,
            label: None,
            help: None,
            warning: false,
            source: None,
        }
    }

    /// The same problem, as a warning.
    pub fn as_warning(mut self) -> Self {
        self.warning = true;
        self
    }

    /// Located at `span` in the file, with a label.
    pub fn at(mut self, span: Span, label: impl Into<String>) -> Self {
        self.span = Some(span);
        self.label = Some(label.into());
        self
    }

    /// With a hint.
    pub fn help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }

    /// The name of the file the problem is in, once pushed.
    pub fn file(&self) -> Option<&str> {
        self.source.as_ref().map(|s| s.name.as_str())
    }

    /// The line and column (from 1) where the problem starts, once pushed
    /// and when it has a place: what an embedder shows beside the file.
    ///
    /// ```
    /// let problems = bareme::parse_rulebook("r.toml", "[rulebook]\nid = 3\n").unwrap_err();
    /// assert_eq!(problems.problems[0].line_column(), Some((2, 6)));
    /// ```
    pub fn line_column(&self) -> Option<(usize, usize)> {
        let (source, span) = (self.source.as_ref()?, self.span?);
        Some(source.line_col(span.start as usize))
    }

    /// `code line:col-line:col`, the compact form tests compare.
    pub fn location(&self) -> String {
        match (&self.source, self.span) {
            (Some(src), Some(span)) => {
                let (l1, c1) = src.line_col(span.start as usize);
                let (l2, c2) = src.line_col(span.end as usize);
                format!("{} {l1}:{c1}-{l2}:{c2}", self.code)
            }
            _ => self.code.to_string(),
        }
    }
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Problem {}

impl Diagnostic for Problem {
    fn code<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        Some(Box::new(self.code))
    }

    fn severity(&self) -> Option<miette::Severity> {
        Some(if self.warning {
            miette::Severity::Warning
        } else {
            miette::Severity::Error
        })
    }

    fn help<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        self.help
            .as_ref()
            .map(|h| Box::new(h) as Box<dyn fmt::Display>)
    }

    fn source_code(&self) -> Option<&dyn SourceCode> {
        self.source.as_ref().map(|s| &s.text as &dyn SourceCode)
    }

    fn labels(&self) -> Option<Box<dyn Iterator<Item = LabeledSpan> + '_>> {
        let span = self.span?;
        Some(Box::new(std::iter::once(LabeledSpan::new_with_span(
            self.label.clone(),
            span,
        ))))
    }
}

/// All problems found in one file, or in the files of one `extends` chain.
///
/// ```
/// let problems = bareme::parse_rulebook("broken.toml", "[rulebook]\nid = 3\n").unwrap_err();
/// assert!(problems.to_string().starts_with("broken.toml:2:6: error[load::toml]"), "{problems}");
/// // Rendered with its source lines and spans, as `bareme check` prints it:
/// let page = problems.render(80, false);
/// assert!(page.contains("broken.toml:2:6"), "{page}");
/// ```
#[derive(Clone, Debug)]
pub struct Diagnostics {
    /// The file they are in (for a chain: its files one after the other,
    /// the named file first, which is what spans index).
    pub source: SourceFile,
    /// The problems, in the order found.
    pub problems: Vec<Problem>,
    /// For a chain: where each file starts in `source`, and the file itself,
    /// so that a problem is shown in the file that wrote the item.
    parts: Vec<(usize, SourceFile)>,
}

/// One line per problem, `file:line:col: error[code]: message`, as a
/// list of findings reads in a log; [`Diagnostics::render`] draws them
/// with their source lines.
impl fmt::Display for Diagnostics {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, problem) in self.problems.iter().take(MAX_RENDERED).enumerate() {
            if i > 0 {
                writeln!(f)?;
            }
            let file = problem.source.as_ref().unwrap_or(&self.source);
            write!(f, "{}", file.name)?;
            if let Some(span) = problem.span {
                let (line, column) = file.line_col(span.start as usize);
                write!(f, ":{line}:{column}")?;
            }
            let level = if problem.warning { "warning" } else { "error" };
            write!(f, ": {level}[{}]: {}", problem.code, problem.message)?;
        }
        if let Some(more) = self
            .problems
            .len()
            .checked_sub(MAX_RENDERED)
            .filter(|&n| n > 0)
        {
            write!(f, "\n… and {more} more")?;
        }
        Ok(())
    }
}

impl std::error::Error for Diagnostics {}

impl Diagnostics {
    /// An empty list for a file.
    #[doc(hidden)] // built by the loaders; an embedder reads, never builds
    pub fn new(source: SourceFile) -> Self {
        Diagnostics {
            source,
            problems: Vec::new(),
            parts: Vec::new(),
        }
    }

    /// An empty list for files laid one after the other in `source`, each
    /// starting at its offset (in increasing order).
    #[doc(hidden)] // built by the loaders; an embedder reads, never builds
    pub fn of_parts(source: SourceFile, parts: Vec<(usize, SourceFile)>) -> Self {
        Diagnostics {
            source,
            problems: Vec::new(),
            parts,
        }
    }

    /// Adds a problem; in a chain, its span is moved into the file it falls in.
    #[doc(hidden)] // built by the loaders; an embedder reads, never builds
    pub fn push(&mut self, problem: Problem) {
        let placed = self.place(problem);
        self.problems.push(placed);
    }

    /// A problem placed as [`Diagnostics::push`] places it: in a chain, its
    /// span moved into the file it falls in, and that file named; a problem
    /// already placed in a file keeps it (a checked rulebook's warnings,
    /// placed when it was checked, shown later without the chain's parts).
    pub(crate) fn place(&self, mut problem: Problem) -> Problem {
        let part = problem.span.and_then(|span| {
            self.parts
                .iter()
                .rev()
                .find(|(start, _)| *start <= span.start as usize)
        });
        match (part, problem.span) {
            (Some((start, file)), Some(span)) => {
                let back = |n: u32| (n as usize).saturating_sub(*start);
                problem.span = Some(Span::new(back(span.start), back(span.end)));
                problem.source = Some(file.clone());
            }
            _ => {
                if problem.source.is_none() {
                    problem.source = Some(self.source.clone());
                }
            }
        }
        problem
    }

    /// Whether nothing was found.
    ///
    /// ```
    /// # let rb = bareme::load_rulebook("rulebooks/luma-payroll/v3".as_ref())?;
    /// assert!(rb.warnings().is_empty());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn is_empty(&self) -> bool {
        self.problems.is_empty()
    }

    /// Renders the first [`MAX_RENDERED`] problems as miette does, `width`
    /// columns wide, then a line counting the others
    /// (`… and 7 more problems`). Each file's lines are indexed once.
    ///
    /// ```
    /// let problems = bareme::parse_rulebook("r.toml", "[rulebook]\nid = 3\n").unwrap_err();
    /// let page = problems.render(80, false);
    /// assert!(page.contains("r.toml:2:6"), "{page}");
    /// ```
    pub fn render(&self, width: usize, color: bool) -> String {
        let theme = if color {
            GraphicalTheme::unicode()
        } else {
            GraphicalTheme::unicode_nocolor()
        };
        let handler = GraphicalReportHandler::new_themed(theme).with_width(width);
        let mut out = String::new();
        // One index per file: the problems of a chain are in at most a few.
        // Each keeps its file's text, to be found again, and the text
        // quoted, its control characters made inert.
        let mut indexed: Vec<(Arc<str>, Indexed)> = Vec::new();
        for problem in self.problems.iter().take(MAX_RENDERED) {
            let file = problem.source.as_ref().unwrap_or(&self.source);
            let at = match indexed
                .iter()
                .position(|(text, _)| Arc::ptr_eq(text, &file.text))
            {
                Some(at) => at,
                None => {
                    let quoted = match inert(&file.text) {
                        Cow::Borrowed(_) => file.text.clone(),
                        Cow::Owned(text) => Arc::from(text),
                    };
                    indexed.push((file.text.clone(), Indexed::new(quoted)));
                    indexed.len() - 1
                }
            };
            let indexed_at = &indexed[at].1;
            // A line too long to quote is named by its place instead: miette
            // pads to a column with a 16-bit width (a longer line panics in
            // its formatter), and 200 quotes of a 16 MiB line are no report.
            let snippet = problem.span.is_none_or(|span| {
                indexed_at.longest_line(span.start as usize, span.end as usize) <= MAX_QUOTED_LINE
            });
            let named = NamedProblem {
                problem,
                source: NamedSource::new(inert(&file.name), indexed_at.clone()),
                snippet,
            };
            if handler.render_report(&mut out, &named).is_err() {
                let message = inert(&problem.message);
                out.push_str(&format!("error[{}]: {message}\n", problem.code));
            }
            if let (false, Some(span)) = (snippet, problem.span) {
                let (line, column) = indexed_at.line_col(span.start as usize);
                out.push_str(&format!(
                    "  at {}:{line}:{column} (a line of over {MAX_QUOTED_LINE} bytes, not quoted)\n",
                    inert(&file.name)
                ));
            }
        }
        if let Some(more) = self
            .problems
            .len()
            .checked_sub(MAX_RENDERED)
            .filter(|&n| n > 0)
        {
            let what = if more == 1 { "problem" } else { "problems" };
            out.push_str(&format!("… and {more} more {what}\n"));
        }
        out
    }

    /// The compact `code line:col-line:col` of every problem.
    ///
    /// ```
    /// let problems = bareme::parse_rulebook("r.toml", "[rulebook]\nid = 3\n").unwrap_err();
    /// assert_eq!(problems.locations()[0], "load::toml 2:6-2:7");
    /// ```
    pub fn locations(&self) -> Vec<String> {
        self.problems.iter().map(Problem::location).collect()
    }
}

/// Longest line, in bytes, that [`Diagnostics::render`] quotes around a
/// problem; a problem on a longer line is given by file, line and column.
pub const MAX_QUOTED_LINE: usize = 4096;

/// Most problems [`Diagnostics::render`] draws; the others are counted on
/// one line. A hostile rulebook of 16 MiB can hold hundreds of thousands of
/// problems, and nobody reads past the first screens.
pub const MAX_RENDERED: usize = 200;

/// A file's text with the offset of each of its lines, for miette: a span is
/// read from the lines around it rather than from the file's start.
#[derive(Clone, Debug)]
struct Indexed {
    text: Arc<str>,
    /// The offset where each line starts, the first at 0; a line ends at
    /// `\n`, `\r\n` or a lone `\r`, as miette counts lines.
    starts: Arc<Vec<usize>>,
}

impl Indexed {
    fn new(text: Arc<str>) -> Self {
        let bytes = text.as_bytes();
        let mut starts = vec![0];
        let mut i = 0;
        while i < bytes.len() {
            match bytes[i] {
                b'\r' if bytes.get(i + 1) == Some(&b'\n') => {
                    i += 1;
                    starts.push(i + 1);
                }
                b'\r' | b'\n' => starts.push(i + 1),
                _ => {}
            }
            i += 1;
        }
        Indexed {
            text,
            starts: Arc::new(starts),
        }
    }

    /// The longest line, in bytes, from the line before the one holding
    /// `start` to the line after the one holding `end`: what miette quotes
    /// around a span with one line of context.
    fn longest_line(&self, start: usize, end: usize) -> usize {
        let first = self.line_of(start).saturating_sub(1);
        let last = self
            .line_of(end)
            .saturating_add(1)
            .min(self.starts.len() - 1);
        (first..=last)
            .map(|i| {
                let from = self.starts[i];
                let to = self.starts.get(i + 1).copied().unwrap_or(self.text.len());
                to.saturating_sub(from)
            })
            .max()
            .unwrap_or(0)
    }

    /// 1-based line and column (in characters) of a byte offset, found
    /// through the index rather than from the file's start.
    fn line_col(&self, offset: usize) -> (usize, usize) {
        let offset = floor_char_boundary(&self.text, offset.min(self.text.len()));
        let line = self.line_of(offset);
        let from = self.starts.get(line).copied().unwrap_or(0).min(offset);
        (line + 1, self.text[from..offset].chars().count() + 1)
    }

    /// The line holding byte `offset`, counted from 0.
    fn line_of(&self, offset: usize) -> usize {
        self.starts
            .partition_point(|&s| s <= offset)
            .saturating_sub(1)
    }
}

impl SourceCode for Indexed {
    /// miette's own reading of the span, run on a window of whole lines
    /// around it (a line more on each side than the context asks, so the
    /// window holds every line break miette's scan would meet), and moved
    /// back to file offsets and lines. miette's scan depends on what lies
    /// before the window only through the lines it counts there, which the
    /// index gives: the result is the one of the whole text.
    fn read_span<'a>(
        &'a self,
        span: &SourceSpan,
        context_lines_before: usize,
        context_lines_after: usize,
    ) -> Result<Box<dyn SpanContents<'a> + 'a>, MietteError> {
        let bytes = self.text.as_bytes();
        let first = self
            .line_of(span.offset())
            .saturating_sub(context_lines_before + 1);
        let last = self.line_of(span.offset() + span.len()) + context_lines_after + 3;
        let from = self.starts.get(first).copied().unwrap_or(0);
        let to = self.starts.get(last).copied().unwrap_or(bytes.len());
        let window = bytes.get(from..to).ok_or(MietteError::OutOfBounds)?;
        let inner = SourceSpan::new(span.offset().saturating_sub(from).into(), span.len());
        let found = window.read_span(&inner, context_lines_before, context_lines_after)?;
        let data: &'a [u8] = found.data();
        Ok(Box::new(MietteSpanContents::new(
            data,
            SourceSpan::new((found.span().offset() + from).into(), found.span().len()),
            found.line() + first,
            found.column(),
            found.line_count() + first,
        )))
    }
}

/// A problem shown with its file's name.
struct NamedProblem<'a> {
    problem: &'a Problem,
    source: NamedSource<Indexed>,
    /// Whether the lines around the span are quoted.
    snippet: bool,
}

impl fmt::Debug for NamedProblem<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.problem, f)
    }
}

impl fmt::Display for NamedProblem<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&inert(&self.problem.to_string()))
    }
}

impl std::error::Error for NamedProblem<'_> {}

impl Diagnostic for NamedProblem<'_> {
    fn code<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        self.problem.code()
    }
    fn severity(&self) -> Option<miette::Severity> {
        self.problem.severity()
    }
    fn help<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        let help = self.problem.help.as_deref()?;
        Some(Box::new(inert(help).into_owned()))
    }
    fn source_code(&self) -> Option<&dyn SourceCode> {
        self.snippet.then_some(&self.source as &dyn SourceCode)
    }
    fn labels(&self) -> Option<Box<dyn Iterator<Item = LabeledSpan> + '_>> {
        if !self.snippet {
            return None;
        }
        let span = self.problem.span?;
        let label = (self.problem.label.as_deref()).map(|l| inert(l).into_owned());
        Some(Box::new(std::iter::once(LabeledSpan::new_with_span(
            label, span,
        ))))
    }
}

/// Text with its control characters made inert for a terminal, each
/// replaced by a visible character of the same length in UTF-8 (so that
/// spans stay where they are): a C0 control but tab and line ends, and
/// DEL, by `?`; a C1 control by `¿`; a bidirectional control by U+FFFD.
/// A rulebook is untrusted, and a quoted line of it could otherwise
/// retitle the terminal, recolour it, or reorder what it shows.
fn inert(text: &str) -> Cow<'_, str> {
    let bad = |c: char| {
        (c.is_control() && !matches!(c, '\t' | '\n' | '\r'))
            || matches!(c, '\u{200E}' | '\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
    };
    if !text.chars().any(bad) {
        return Cow::Borrowed(text);
    }
    text.chars()
        .map(|c| match c {
            c if !bad(c) => c,
            '\u{80}'..='\u{9F}' => '¿',
            c if c.is_control() => '?',
            _ => '\u{FFFD}',
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A rulebook's bytes that steer a terminal (an OSC title, a colour, a
    /// bell, a C1 control, a bidirectional override) are shown inert, each
    /// by a character of its length, so a span past them still underlines
    /// what it names; a name in the message is made inert too.
    #[test]
    fn control_characters_of_a_file_are_shown_inert_where_they_stand() {
        let text = "title = \"\u{1b}]0;PWNED\u{7}\u{1b}[31mred\u{85}\u{202e}txet\"\nx = 1\n";
        assert_eq!(inert(text).len(), text.len());
        let at = text.find("x = 1").expect("x"); // ok: a test's assertion
        let mut diags = Diagnostics::new(SourceFile {
            name: "r\u{1b}[2J.toml".into(),
            text: Arc::from(text),
        });
        diags.push(
            Problem::new("check::probe", "unknown key `\u{1b}[31mk`")
                .at(Span::new(at, at + 1), "here \u{202e}"),
        );
        let shown = diags.render(100, false);
        assert!(
            !shown.chars().any(|c| c.is_control() && c != '\n'),
            "{shown:?}"
        );
        assert!(!shown.contains('\u{202e}'), "{shown}");
        assert!(
            shown.contains("title = \"?]0;PWNED??[31mred¿\u{FFFD}txet\""),
            "{shown}"
        );
        assert!(shown.contains("unknown key `?[31mk`"), "{shown}");
        assert!(shown.contains("r?[2J.toml:2:1"), "{shown}");
        assert_eq!(inert("plain\ttext\r\n"), Cow::Borrowed("plain\ttext\r\n"));
    }

    /// Every span of a text with each kind of line break reads as miette
    /// reads it from the whole text: the same bytes, offsets and lines.
    #[test]
    fn a_span_read_through_the_index_is_read_as_from_the_whole_text() {
        let text: Arc<str> = Arc::from("ab\ncd\r\nef\rgh\n\nij\r\n\r\nkl é m\nno");
        let indexed = Indexed::new(text.clone());
        let whole: &str = &text;
        let mut compared = 0;
        for start in 0..=text.len() {
            for len in 0..=(text.len() - start) {
                for (before, after) in [(0, 0), (1, 1), (2, 3), (0, 2)] {
                    let span = SourceSpan::new(start.into(), len);
                    let a = whole.read_span(&span, before, after);
                    let b = indexed.read_span(&span, before, after);
                    match (a, b) {
                        (Ok(a), Ok(b)) => {
                            assert_eq!(a.data(), b.data(), "{start}+{len} {before}/{after}");
                            assert_eq!(a.span(), b.span(), "{start}+{len} {before}/{after}");
                            assert_eq!(a.line(), b.line(), "{start}+{len} {before}/{after}");
                            assert_eq!(a.column(), b.column(), "{start}+{len}");
                            assert_eq!(a.line_count(), b.line_count(), "{start}+{len}");
                            compared += 1;
                        }
                        (Err(_), Err(_)) => {}
                        (a, b) => panic!("{start}+{len}: {:?} / {:?}", a.is_ok(), b.is_ok()), // ok: a test's assertion
                    }
                }
            }
        }
        assert!(compared > 1000, "{compared}");
    }
}
