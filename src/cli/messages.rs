//! Diagnostics as the command line prints them.

use std::borrow::Cow;
use std::io::Write as _;
use x3dbake::Bake;

/// The diagnostics as text (see [`Bake::messages`]).
pub fn rendered(bake: &Bake, quiet: bool, verbose: bool) -> String {
    bake.messages(quiet, verbose)
}

/// Text as it is safe to show on a terminal: every control character but
/// newline and tab (ESC, BEL, CR, backspace, DEL, the C1 set) written as an
/// escape (`\x1b`, `\u{9b}`), so that names and lines from a file cannot
/// move the cursor, ring the bell or recolour the terminal.
pub fn printable(text: &str) -> Cow<'_, str> {
    let unsafe_char = |c: char| c.is_control() && c != '\n' && c != '\t';
    // Control characters are U+0000 to U+001F, U+007F and U+0080 to U+009F
    // (each of the last begins with the byte 0xC2): a text without those
    // bytes is looked at no further (a pass over bytes, not characters).
    let maybe = |b: u8| (b < 0x20 && b != b'\n' && b != b'\t') || b == 0x7f || b == 0xc2;
    if !text.bytes().any(maybe) || !text.chars().any(unsafe_char) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        match c {
            c if !unsafe_char(c) => out.push(c),
            c if (c as u32) < 0x80 => out.push_str(&format!("\\x{:02x}", c as u32)),
            c => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
        }
    }
    Cow::Owned(out)
}

/// Writes text to standard error, made [`printable`] and [`painted`]:
/// anstream keeps the colours on a terminal and strips them elsewhere
/// (a file, a pipe), with NO_COLOR or TERM=dumb (CLICOLOR_FORCE keeps
/// them), and turns them into console calls on older Windows consoles.
pub fn eprint(text: &str) {
    let _ = anstream::stderr()
        .lock()
        .write_all(painted(&printable(text)).as_bytes());
}

/// Diagnostics text (made [`printable`] first: no escape of its own is
/// left) with terminal colours as rustc has them: the severity of each
/// headline, the gutter, the carets under a span, notes.
pub fn painted(text: &str) -> String {
    use anstyle::{AnsiColor, Style};
    let bold = Style::new().bold();
    let color = |c: AnsiColor| bold.fg_color(Some(c.into()));
    let (error, warning, blue) = (
        color(AnsiColor::Red),
        color(AnsiColor::Yellow),
        color(AnsiColor::Blue),
    );
    let mut out = String::with_capacity(text.len() + text.len() / 8);
    // The carets take the colour of the last headline's severity.
    let mut carets = error;
    for line in text.split_inclusive('\n') {
        let severity = [("error", error), ("warning", warning), ("note", bold)]
            .into_iter()
            .find_map(|(word, style)| {
                let at = match line.strip_prefix(&format!("{word}: ")) {
                    Some(_) => 0,
                    None => line.find(&format!(": {word}: "))? + 2,
                };
                Some((at, word.len(), style))
            });
        if let Some((at, len, style)) = severity {
            if style != bold {
                carets = style;
            }
            let (head, rest) = line.split_at(at);
            let (word, rest) = rest.split_at(len);
            out.push_str(&format!("{head}{style}{word}{style:#}{rest}"));
            continue;
        }
        // A source line or the lines around it: `12 | text`, `   |   ^^^`,
        // `   = note: …`.
        let gutter = line
            .char_indices()
            .find(|&(_, c)| c != ' ' && !c.is_ascii_digit())
            .filter(|&(_, c)| c == '|' || c == '=');
        let Some((bar, mark)) = gutter else {
            out.push_str(line);
            continue;
        };
        let (head, rest) = line.split_at(bar + 1);
        out.push_str(&format!("{blue}{head}{blue:#}"));
        let body = rest.trim_end();
        if mark == '|' && !body.is_empty() && body.trim_start().chars().all(|c| c == '^') {
            out.push_str(&format!("{carets}{rest}{carets:#}"));
        } else if let Some(note) = rest.strip_prefix(" note:") {
            out.push_str(&format!(" {bold}note{bold:#}:{note}"));
        } else {
            out.push_str(rest);
        }
    }
    out
}

/// An error of the run (not of a line of the input): `error: …`.
pub fn error(message: impl std::fmt::Display) {
    eprint(&format!("error: {message}\n"));
}

/// A usage error, as clap gives its own (`error: …`, the usage line, a
/// pointer to --help): exit 2.
pub fn usage(message: &str) {
    use clap::CommandFactory as _;
    let e = super::args::Cli::command()
        .error(clap::error::ErrorKind::ArgumentConflict, printable(message));
    let _ = e.print();
}

#[cfg(test)]
mod tests {
    use super::printable;

    #[test]
    fn control_characters_are_escaped_and_text_kept() {
        assert_eq!(printable("plain\tline\n"), "plain\tline\n");
        assert_eq!(
            printable("a\x1b[31mred\x07\r\x7f\u{9b}é"),
            "a\\x1b[31mred\\x07\\x0d\\x7f\\u{9b}é"
        );
        // Each alone (the first pass looks at bytes).
        assert_eq!(printable("a\u{85}b"), "a\\u{85}b");
        assert_eq!(printable("a\x7f"), "a\\x7f");
        assert_eq!(printable("\x00"), "\\x00");
        assert_eq!(printable("é\u{a0}ü"), "é\u{a0}ü");
    }

    /// Colours go on the severity, the gutter, the carets and notes, and
    /// nowhere else: stripped, the text is what it was.
    #[test]
    fn painting_colours_the_frame_and_keeps_the_text() {
        let text = "a.x3d:2:12: error: bad | value: error: x\n  |\n2 | <B x='1 = z'/>\n  |    ^^^\n  |\n  = note: SFVec3f\nwarning: w\n";
        let painted = super::painted(text);
        let stripped: String = anstream::adapter::strip_str(&painted).to_string();
        assert_eq!(stripped, text);
        let red = "\x1b[1m\x1b[31m";
        assert!(painted.starts_with(&format!(
            "a.x3d:2:12: {red}error\x1b[0m: bad | value: error: x"
        )));
        assert!(painted.contains(&format!("{red}    ^^^")), "{painted:?}");
        assert!(painted.contains("2 |\x1b[0m <B x='1 = z'/>"), "{painted:?}");
        assert!(
            painted.contains("\x1b[1mnote\x1b[0m: SFVec3f"),
            "{painted:?}"
        );
        assert!(painted.contains("\x1b[33mwarning\x1b[0m: w"), "{painted:?}");
    }
}
