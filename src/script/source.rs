//! Where a Script's program is: its `sourceCode` (the text inside the
//! element in XML) or the first `url` entry written inline with a
//! language prefix; and which file line a line of it stands on.

use crate::scene::{NodeId, Scene};
use crate::source::{Sources, Span};

/// The language of a Script's program.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Language {
    /// `ecmascript:`, `javascript:`, or a program with no prefix.
    EcmaScript,
    /// Any other (`castlescript:`, `vrmlscript:` is ECMAScript's old name
    /// and counts as it).
    Other,
}

/// A Script's program as x3dbake found it.
#[derive(Clone, Debug, PartialEq)]
pub enum ScriptSource {
    /// Written in the file.
    Inline {
        /// Its language.
        language: Language,
        /// The language prefix, as written (`ecmascript`), when given.
        prefix: Option<String>,
        /// The program text, without the prefix.
        code: String,
        /// The field (sourceCode or url) that holds it.
        span: Span,
    },
    /// Only in files (`url "move.js"`), which x3dbake does not fetch.
    External(Vec<String>),
    /// No program at all.
    Empty,
}

impl ScriptSource {
    /// The program of a Script node.
    pub fn of(scene: &Scene, node: NodeId) -> ScriptSource {
        let written = |field: &str| {
            let set = scene.node(node).values.get(field)?;
            Some((set.value.strings().to_vec(), set.span))
        };
        let inline = written("sourceCode")
            .into_iter()
            .chain(written("url"))
            .flat_map(|(texts, span)| texts.into_iter().map(move |t| (t, span)))
            .find_map(|(text, span)| inline(&text, span));
        if let Some(found) = inline {
            return found;
        }
        match written("url") {
            Some((urls, _)) if !urls.is_empty() => ScriptSource::External(urls),
            _ => ScriptSource::Empty,
        }
    }
}

/// A program written inline: with a language prefix, or (sourceCode) a
/// program of several lines with none. `None` for a file name.
fn inline(text: &str, span: Span) -> Option<ScriptSource> {
    let body = text.trim_start();
    let prefix = body
        .split_once(':')
        .map(|(p, _)| p)
        .filter(|p| !p.is_empty() && p.chars().all(|c| c.is_ascii_alphanumeric()));
    let (language, code) = match prefix {
        Some(p) => {
            let known = ["ecmascript", "javascript", "vrmlscript"];
            let language = if known.iter().any(|k| k.eq_ignore_ascii_case(p)) {
                Language::EcmaScript
            } else if ["http", "https", "file", "urn", "data"]
                .iter()
                .any(|k| k.eq_ignore_ascii_case(p))
            {
                return None; // a URL
            } else {
                Language::Other
            };
            (language, &body[p.len() + 1..])
        }
        None if body.contains('\n') || body.contains("function") => (Language::EcmaScript, body),
        None => return None,
    };
    Some(ScriptSource::Inline {
        language,
        prefix: prefix.map(str::to_string),
        code: code.to_string(),
        span,
    })
}

/// The name a Script's program is run under, which its stack frames show.
pub const FILE_NAME: &str = "x3d-script";

/// The span of a line of a program whose field starts at `span`: its
/// first line is the field's line (the program follows its prefix there).
pub fn line_span(sources: &Sources, span: Span, line: u32) -> Span {
    let file = sources.get(span.file);
    let (first, _) = file.line_col(span.start as usize);
    let last = file.line_col(usize::MAX).0;
    let target = (first + line.max(1) as usize - 1).min(last);
    if target == first {
        return span;
    }
    let start = file.line_start(target - 1);
    Span::new(span.file, start..start + 1)
}

/// The line of the Script's source in an exception's stack: the first
/// frame `x3d-script:LINE` or `x3d-script:LINE:COL`.
pub fn script_line(stack: &str) -> Option<u32> {
    let at = stack.find(FILE_NAME)? + FILE_NAME.len() + 1;
    let digits: String = stack[at..]
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    digits.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::FileId;

    fn span() -> Span {
        Span::new(FileId(0), 0..1)
    }

    #[test]
    fn prefixes_name_the_language() {
        let Some(ScriptSource::Inline { language, code, .. }) =
            inline("\n  ecmascript: function f() {}", span())
        else {
            panic!("inline")
        };
        assert_eq!(
            (language, code.as_str()),
            (Language::EcmaScript, " function f() {}")
        );
        let Some(ScriptSource::Inline { language, .. }) = inline("castlescript: x := 1", span())
        else {
            panic!("inline")
        };
        assert_eq!(language, Language::Other);
        assert_eq!(inline("move.js", span()), None);
        assert_eq!(inline("https://example.org/a.js", span()), None);
    }

    #[test]
    fn a_stack_names_the_script_line() {
        assert_eq!(
            script_line("    at f (x3d-script:12:3)\n    at <eval>"),
            Some(12)
        );
        assert_eq!(script_line("    at <eval> (eval_script:1)"), None);
    }
}
