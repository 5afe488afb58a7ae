//! Diagnostics: severity, message, span, notes, and their text rendering.

use crate::source::{Sources, Span};
use annotate_snippets::{AnnotationKind, Group, Level, Renderer, Snippet};

/// How bad a diagnostic is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Severity {
    /// The output is still written.
    Warning,
    /// Nothing is written.
    Error,
}

/// One problem found in the input, with where it is.
#[derive(Clone, Debug, PartialEq)]
pub struct Diagnostic {
    /// Error or warning.
    pub severity: Severity,
    /// What is wrong, naming the X3D nodes and fields as written.
    pub message: String,
    /// Where (none for problems of the whole run).
    pub span: Option<Span>,
    /// Further lines shown below the source line.
    pub notes: Vec<String>,
}

impl Diagnostic {
    /// An error.
    pub fn error(message: impl Into<String>, span: Option<Span>) -> Diagnostic {
        Diagnostic {
            severity: Severity::Error,
            message: message.into(),
            span,
            notes: Vec::new(),
        }
    }

    /// A warning.
    pub fn warning(message: impl Into<String>, span: Option<Span>) -> Diagnostic {
        Diagnostic {
            severity: Severity::Warning,
            message: message.into(),
            span,
            notes: Vec::new(),
        }
    }

    /// The same with a note added.
    pub fn with_note(mut self, note: impl Into<String>) -> Diagnostic {
        self.notes.push(note.into());
        self
    }

    /// `file:line:col: severity: message` only, for one-line output.
    pub fn headline(&self, sources: &Sources) -> String {
        let sev = match self.severity {
            Severity::Warning => "warning",
            Severity::Error => "error",
        };
        match self.span {
            Some(span) => {
                let file = sources.get(span.file);
                let (line, col) = file.line_col(span.start as usize);
                format!("{}:{line}:{col}: {sev}: {}", file.name, self.message)
            }
            None => format!("{sev}: {}", self.message),
        }
    }

    /// The full rendering: headline, the source line with a caret under the
    /// span (not of a file a scene referenced: no text of a file the user
    /// did not name is shown), and the notes; the source line and notes laid
    /// out by annotate-snippets (rustc's renderer), a long line cut to a
    /// window around the span.
    pub fn render(&self, sources: &Sources) -> String {
        let mut out = self.headline(sources);
        out.push('\n');
        let level = match self.severity {
            Severity::Warning => Level::WARNING,
            Severity::Error => Level::ERROR,
        };
        let mut group = Group::with_level(level);
        let shown = self
            .span
            .filter(|s| !sources.get(s.file).referenced)
            .map(|span| shown_line(sources, span));
        if let Some((line, text, at)) = &shown {
            group = group.element(
                Snippet::source(text.as_str())
                    .line_start(*line)
                    .annotation(AnnotationKind::Primary.span(at.clone())),
            );
        }
        for note in &self.notes {
            group = group.element(Level::NOTE.message(note.as_str()));
        }
        if shown.is_some() || !self.notes.is_empty() {
            out.push_str(&Renderer::plain().term_width(SHOWN_WIDTH).render(&[group]));
            out.push('\n');
        }
        out
    }
}

/// The line of a span, as shown: its number, its text (of a very long line
/// only the bytes around the span: enough for the renderer's window, so
/// that a line of megabytes costs no more than a short one), and the span
/// within that text (to the line's end at most; one character when empty).
fn shown_line(sources: &Sources, span: Span) -> (usize, String, std::ops::Range<usize>) {
    let file = sources.get(span.file);
    let (line, _) = file.line_col(span.start as usize);
    let text = file.line_text(line);
    let line_start = file.line_start(line - 1);
    let at = (span.start as usize)
        .saturating_sub(line_start)
        .min(text.len());
    let window = 8 * SHOWN_WIDTH;
    let from = text.floor_char_boundary(at.saturating_sub(window));
    let text = &text[from..text.ceil_char_boundary(at + window)];
    let start = text.floor_char_boundary(at - from);
    let end = (span.end as usize).saturating_sub(line_start + from);
    let end = text.ceil_char_boundary(end.min(text.len()));
    let end = match end > start {
        true => end,
        false => text.ceil_char_boundary(start + 1),
    };
    (line, text.to_string(), start..end)
}

/// The widest source line shown under a message, in columns.
const SHOWN_WIDTH: usize = 140;

/// The most errors kept, and the most warnings; the rest are only counted
/// (so that an error is not lost behind many warnings). A file of millions
/// of unknown nodes or bad values otherwise kept a message for each (8
/// million unknown nodes: 1.2 GB more memory and 600 MB of messages) when
/// the first thousand say what is wrong.
pub const MAX_KEPT: usize = 1000;

/// Warnings and errors collected during one stage: the first [`MAX_KEPT`]
/// of each, and how many of each there were in all.
#[derive(Debug, Default)]
pub struct Diagnostics {
    list: Vec<Diagnostic>,
    errors: usize,
    warnings: usize,
}

impl Diagnostics {
    /// Adds a diagnostic (kept within the first [`MAX_KEPT`] of its severity, counted in any case).
    pub fn push(&mut self, d: Diagnostic) {
        let n = match d.severity {
            Severity::Error => &mut self.errors,
            Severity::Warning => &mut self.warnings,
        };
        *n += 1;
        if *n <= MAX_KEPT {
            self.list.push(d);
        }
    }

    /// Adds a diagnostic found later where it would have been pushed when
    /// the list was `at` long: kept if it is among the first [`MAX_KEPT`] of
    /// its severity in that order (the last kept one then may go). Returns
    /// where it went and where one went out, for the places of others
    /// still to come.
    pub fn insert(&mut self, at: usize, d: Diagnostic) -> (Option<usize>, Option<usize>) {
        let n = match d.severity {
            Severity::Error => &mut self.errors,
            Severity::Warning => &mut self.warnings,
        };
        *n += 1;
        let at = at.min(self.list.len());
        if *n <= MAX_KEPT {
            self.list.insert(at, d);
            return (Some(at), None);
        }
        // Past the limit: it takes the place of the last one kept of its
        // severity if that one came after it.
        match self.list.iter().rposition(|k| k.severity == d.severity) {
            Some(last) if last >= at => {
                self.list.remove(last);
                self.list.insert(at, d);
                (Some(at), Some(last))
            }
            _ => (None, None),
        }
    }

    /// Adds an error.
    pub fn error(&mut self, message: impl Into<String>, span: Option<Span>) {
        self.push(Diagnostic::error(message, span));
    }

    /// Adds a warning.
    pub fn warning(&mut self, message: impl Into<String>, span: Option<Span>) {
        self.push(Diagnostic::warning(message, span));
    }

    /// The diagnostics kept, in the order they were found.
    pub fn list(&self) -> &[Diagnostic] {
        &self.list
    }

    /// Whether any error was found.
    pub fn has_errors(&self) -> bool {
        self.errors > 0
    }

    /// How many errors and warnings there were, kept or not.
    pub fn counts(&self) -> (usize, usize) {
        (self.errors, self.warnings)
    }

    /// The errors kept.
    pub fn errors(&self) -> impl Iterator<Item = &Diagnostic> {
        self.list.iter().filter(|d| d.severity == Severity::Error)
    }

    /// The warnings kept.
    pub fn warnings(&self) -> impl Iterator<Item = &Diagnostic> {
        self.list.iter().filter(|d| d.severity == Severity::Warning)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A diagnostic found later and put where it would have been pushed
    /// makes the list pushing them in order makes: kept among the first
    /// `MAX_KEPT` of its severity (the last kept one then going out), only
    /// counted past them.
    #[test]
    fn a_diagnostic_put_in_its_place_keeps_what_pushing_in_order_keeps() {
        let w = |n: usize| Diagnostic::warning(format!("w{n}"), None);
        let list = |d: &Diagnostics| {
            d.list()
                .iter()
                .map(|d| d.message.clone())
                .collect::<Vec<_>>()
        };
        for (late, total) in [(5, 20), (5, MAX_KEPT + 20), (MAX_KEPT + 3, MAX_KEPT + 20)] {
            let mut in_order = Diagnostics::default();
            let mut later = Diagnostics::default();
            in_order.error("e", None);
            later.error("e", None);
            for n in 0..total {
                in_order.push(w(n));
                if n != late {
                    later.push(w(n));
                }
            }
            // The place it would have had: after the error and `late`
            // warnings, or at the end once they are past the limit.
            let at = (1 + late).min(1 + MAX_KEPT);
            let (went, out) = later.insert(at, w(late));
            assert_eq!(list(&later), list(&in_order), "{late} of {total}");
            assert_eq!(later.counts(), in_order.counts());
            assert_eq!(went.is_some(), late < MAX_KEPT);
            assert_eq!(out.is_some(), late < MAX_KEPT && total > MAX_KEPT);
        }
    }

    #[test]
    fn long_lines_show_a_window_around_the_span() {
        let mut s = Sources::new();
        let text = format!("{}BAD{}", "a".repeat(1000), "b".repeat(1000));
        let id = s.add("long.x3d", text);
        let d = Diagnostic::error("bad", Some(Span::new(id, 1000..1003)));
        let r = d.render(&s);
        let lines: Vec<&str> = r.lines().collect();
        assert!(
            lines[2].starts_with("1 | ...") && lines[2].ends_with("..."),
            "{r}"
        );
        assert!(lines[2].chars().count() <= 140);
        // The caret stands under BAD.
        let caret = lines[3].chars().position(|c| c == '^').unwrap();
        let shown: String = lines[2].chars().skip(caret).take(3).collect();
        assert_eq!(shown, "BAD", "{r}");
    }

    #[test]
    fn renders_line_and_caret_under_span() {
        let mut s = Sources::new();
        let id = s.add("t.x3d", "<a>\n  <B x='1 z'/>\n</a>".to_string());
        let d = Diagnostic::error("bad number", Some(Span::new(id, 15..16)))
            .with_note("SFVec3f wants 3 numbers");
        assert_eq!(
            d.render(&s),
            "t.x3d:2:12: error: bad number\n  |\n2 |   <B x='1 z'/>\n  |            ^\n  |\n  = note: SFVec3f wants 3 numbers\n"
        );
    }
}
