//! Diagnostics as the command line prints them.

use x3dbake::Bake;
use x3dbake::diag::{MAX_KEPT, Severity};

/// The diagnostics as text: errors in full, warnings one line each (in
/// full with --verbose, none with --quiet).
pub fn rendered(bake: &Bake, quiet: bool, verbose: bool) -> String {
    let mut out = String::new();
    let diags = &bake.diags;
    for d in diags.list() {
        match d.severity {
            Severity::Error => out.push_str(&d.render(&bake.sources)),
            Severity::Warning if quiet => {}
            Severity::Warning if verbose => out.push_str(&d.render(&bake.sources)),
            Severity::Warning => {
                out.push_str(&d.headline(&bake.sources));
                out.push('\n');
            }
        }
    }
    // Past the ones kept, a count of what was found in all.
    let (errors, warnings) = diags.counts();
    let unlisted_errors = errors - diags.errors().count();
    let unlisted_warnings = warnings - diags.warnings().count();
    if unlisted_errors > 0 || (unlisted_warnings > 0 && !quiet) {
        let plural = |n: usize, what: &str| format!("{n} {what}{}", if n == 1 { "" } else { "s" });
        out.push_str(&format!(
            "note: {} and {} in all; the first {MAX_KEPT} of each are listed\n",
            plural(errors, "error"),
            plural(warnings, "warning"),
        ));
    }
    out
}
