//! Diagnostics: severity, message, span, notes, and their text rendering.

use crate::source::{Sources, Span};
use std::fmt::Write as _;

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
    /// did not name is shown), and the notes.
    pub fn render(&self, sources: &Sources) -> String {
        let mut out = self.headline(sources);
        out.push('\n');
        if let Some(span) = self.span.filter(|s| !sources.get(s.file).referenced) {
            let file = sources.get(span.file);
            let (line, col) = file.line_col(span.start as usize);
            let (end_line, end_col) = file.line_col(span.end as usize);
            let width = if end_line == line && end_col > col {
                end_col - col
            } else {
                1
            };
            // Of a very long line, only the bytes around the span: enough
            // for MAX_SHOWN characters each side, so the window below is the
            // same as over the whole line.
            let text = file.line_text(line);
            let at = (span.start as usize)
                .saturating_sub(file.line_start(line - 1))
                .min(text.len());
            let window = 8 * MAX_SHOWN;
            let from = text.floor_char_boundary(at.saturating_sub(window));
            let text = &text[from..text.ceil_char_boundary(at + window)];
            let col = text[..text.floor_char_boundary(at - from)].chars().count() + 1;
            let gutter = line.to_string().len();
            let chars: Vec<char> = text
                .chars()
                .map(|c| if c == '\t' { ' ' } else { c })
                .collect();
            // A long line is shown as a window around the span.
            let (from, to) = if chars.len() > MAX_SHOWN {
                let from = (col - 1)
                    .saturating_sub(MAX_SHOWN / 2)
                    .min(chars.len() - MAX_SHOWN);
                (from, from + MAX_SHOWN)
            } else {
                (0, chars.len())
            };
            let mut shown: String = chars[from..to].iter().collect();
            let mut pad = col - 1 - from.min(col - 1);
            if from > 0 {
                shown.insert(0, '…');
                pad += 1;
            }
            if to < chars.len() {
                shown.push('…');
            }
            let width = width.min(MAX_SHOWN);
            let _ = writeln!(out, "{:gutter$} |", "");
            let _ = writeln!(out, "{line} | {shown}");
            let _ = writeln!(out, "{:gutter$} | {:pad$}{}", "", "", "^".repeat(width));
        }
        for note in &self.notes {
            let _ = writeln!(out, "  = note: {note}");
        }
        out
    }
}

/// The most characters of a source line shown under a message.
const MAX_SHOWN: usize = 120;

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

    #[test]
    fn long_lines_show_a_window_around_the_span() {
        let mut s = Sources::new();
        let text = format!("{}BAD{}", "a".repeat(1000), "b".repeat(1000));
        let id = s.add("long.x3d", text);
        let d = Diagnostic::error("bad", Some(Span::new(id, 1000..1003)));
        let r = d.render(&s);
        let lines: Vec<&str> = r.lines().collect();
        assert!(
            lines[2].starts_with("1 | …") && lines[2].ends_with('…'),
            "{r}"
        );
        assert!(lines[2].chars().count() < 140);
        // The caret stands under BAD (counting characters: … is one).
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
            "t.x3d:2:12: error: bad number\n  |\n2 |   <B x='1 z'/>\n  |            ^\n  = note: SFVec3f wants 3 numbers\n"
        );
    }
}
