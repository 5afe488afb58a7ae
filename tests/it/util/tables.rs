//! Reading the tables the binary prints.

use super::stdout;

pub fn lines(o: &std::process::Output) -> Vec<String> {
    stdout(o).lines().map(String::from).collect()
}

/// The `--timeline` CSV row of NODE,field (`what`) at time `t`.
pub fn timeline_row(rows: &[String], t: &str, what: &str) -> String {
    rows.iter()
        .find(|r| r.starts_with(&format!("timeline,{t},{what},")))
        .unwrap_or_else(|| panic!("no {what} at {t}: {rows:#?}"))
        .clone()
}

/// Component `c` of that row's value, as a number.
pub fn timeline_number(rows: &[String], t: &str, what: &str, c: usize) -> f64 {
    let row = timeline_row(rows, t, what);
    row.split(',').nth(5 + c).unwrap().parse().unwrap()
}
