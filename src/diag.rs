//! Diagnostics: problems found in a rulebook, located in its file.
//!
//! Each [`Problem`] has a stable code (`check::unknown_name`), a message, and
//! a span in the TOML file, down to the name inside an expression string. The
//! checker collects all of them; [`Diagnostics`] renders them with miette.

use miette::{
    Diagnostic, GraphicalReportHandler, GraphicalTheme, LabeledSpan, NamedSource, SourceCode,
};
use std::fmt;
use std::sync::Arc;

use crate::span::Span;

/// A source file: its display name and text.
#[derive(Clone, Debug)]
pub struct SourceFile {
    /// Path as the user gave it.
    pub name: String,
    /// Full text.
    pub text: Arc<str>,
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

impl Diagnostics {
    /// An empty list for a file.
    pub fn new(source: SourceFile) -> Self {
        Diagnostics {
            source,
            problems: Vec::new(),
            parts: Vec::new(),
        }
    }

    /// An empty list for files laid one after the other in `source`, each
    /// starting at its offset (in increasing order).
    pub fn of_parts(source: SourceFile, parts: Vec<(usize, SourceFile)>) -> Self {
        Diagnostics {
            source,
            problems: Vec::new(),
            parts,
        }
    }

    /// Adds a problem; in a chain, its span is moved into the file it falls in.
    pub fn push(&mut self, mut problem: Problem) {
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
            _ => problem.source = Some(self.source.clone()),
        }
        self.problems.push(problem);
    }

    /// Whether nothing was found.
    pub fn is_empty(&self) -> bool {
        self.problems.is_empty()
    }

    /// Renders every problem as miette does, without colour, `width` columns wide.
    pub fn render(&self, width: usize, color: bool) -> String {
        let theme = if color {
            GraphicalTheme::unicode()
        } else {
            GraphicalTheme::unicode_nocolor()
        };
        let handler = GraphicalReportHandler::new_themed(theme).with_width(width);
        let mut out = String::new();
        for problem in &self.problems {
            let file = problem.source.as_ref().unwrap_or(&self.source);
            let named = NamedProblem {
                problem,
                source: NamedSource::new(&file.name, file.text.clone()),
            };
            if handler.render_report(&mut out, &named).is_err() {
                out.push_str(&format!("error[{}]: {}\n", problem.code, problem.message));
            }
        }
        out
    }

    /// The compact `code line:col-line:col` of every problem.
    pub fn locations(&self) -> Vec<String> {
        self.problems.iter().map(Problem::location).collect()
    }
}

/// A problem shown with its file's name.
struct NamedProblem<'a> {
    problem: &'a Problem,
    source: NamedSource<Arc<str>>,
}

impl fmt::Debug for NamedProblem<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.problem, f)
    }
}

impl fmt::Display for NamedProblem<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self.problem, f)
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
        self.problem.help()
    }
    fn source_code(&self) -> Option<&dyn SourceCode> {
        Some(&self.source)
    }
    fn labels(&self) -> Option<Box<dyn Iterator<Item = LabeledSpan> + '_>> {
        self.problem.labels()
    }
}
