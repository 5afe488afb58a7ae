//! Diagnostics as text, as the command line prints them (and the web
//! page shows them).

use crate::Bake;
use crate::diag::{Diagnostic, MAX_KEPT, Severity};
use crate::source::Sources;

/// Lines of a repeated warning listed after its first.
const MORE_LINES: usize = 8;

impl Bake {
    /// The diagnostics as text: errors in full; warnings one line each
    /// (in full with `verbose`, none with `quiet`), the same warning given
    /// once with the lines it repeats at; and a last line counting them,
    /// when there are any.
    pub fn messages(&self, quiet: bool, verbose: bool) -> String {
        let mut out = String::new();
        let diags = &self.diags;
        // Errors, and warnings with one text at the place of their first.
        let mut groups: Vec<(&str, Vec<&Diagnostic>)> = Vec::new();
        let mut order: Vec<Result<usize, &Diagnostic>> = Vec::new();
        for d in diags.list() {
            match d.severity {
                Severity::Error => order.push(Err(d)),
                Severity::Warning if quiet => {}
                Severity::Warning => match groups.iter_mut().find(|(m, _)| *m == d.message) {
                    Some((_, same)) => same.push(d),
                    None => {
                        order.push(Ok(groups.len()));
                        groups.push((&d.message, vec![d]));
                    }
                },
            }
        }
        for item in order {
            let same = match item {
                Err(error) => {
                    out.push_str(&error.render(&self.sources));
                    continue;
                }
                Ok(g) => &groups[g].1,
            };
            let first = same[0];
            if verbose {
                out.push_str(&first.render(&self.sources));
            } else {
                out.push_str(&first.headline(&self.sources));
                out.push('\n');
            }
            if same.len() > 1 {
                out.push_str(&repeated(&same[1..], &self.sources));
            }
        }
        let (errors, warnings) = diags.counts();
        let unlisted_errors = errors - diags.errors().count();
        let unlisted_warnings = warnings - diags.warnings().count();
        let plural = |n: usize, what: &str| format!("{n} {what}{}", if n == 1 { "" } else { "s" });
        if unlisted_errors > 0 || (unlisted_warnings > 0 && !quiet) {
            out.push_str(&format!(
                "note: {} and {} in all; the first {MAX_KEPT} of each are listed\n",
                plural(errors, "error"),
                plural(warnings, "warning"),
            ));
        }
        if warnings > 0 && !quiet {
            let name = &self.sources.get(self.file).name;
            out.push_str(&format!(
                "{name}: {} ({} different), {}\n",
                plural(warnings, "warning"),
                groups.len(),
                plural(errors, "error")
            ));
        }
        out
    }
}

/// The note under a warning repeated: how many more times, and where.
fn repeated(more: &[&Diagnostic], sources: &Sources) -> String {
    let mut lines: Vec<usize> = more
        .iter()
        .filter_map(|d| {
            let span = d.span?;
            Some(sources.get(span.file).line_col(span.start as usize).0)
        })
        .collect();
    lines.dedup();
    let rest = if lines.len() > MORE_LINES {
        ", …"
    } else {
        ""
    };
    let lines: Vec<String> = lines
        .iter()
        .take(MORE_LINES)
        .map(|l| l.to_string())
        .collect();
    let at = if lines.is_empty() {
        String::new()
    } else {
        format!(", at lines {}{rest}", lines.join(", "))
    };
    let times = if more.len() == 1 { "time" } else { "times" };
    format!("  … and {} more {times}{at}\n", more.len())
}
