//! The failures `conform run` prints before its summary, rendered from the typed report: what
//! fails the run, the first ones in full as `cargo test` prints a failing test, then one line
//! each.

use std::fmt::Write as _;
use std::path::Path;
use std::str::FromStr;

use crate::report::conformance::Conformance;
use crate::report::failures::failures;

/// How many one-line entries follow the ones in full before the rest are only counted.
pub(crate) const LINES: usize = 100;

/// How many failures `conform run` shows in full (`--failures`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shown {
    /// Every failure, in full.
    All,
    /// None: the summary alone.
    None,
    /// This many in full, then up to [`LINES`] in one line each.
    First(usize),
}

impl Default for Shown {
    fn default() -> Shown {
        Shown::First(20)
    }
}

impl FromStr for Shown {
    type Err = String;

    fn from_str(text: &str) -> Result<Shown, String> {
        match text {
            "all" => Ok(Shown::All),
            "none" => Ok(Shown::None),
            n => n.parse().map(Shown::First).map_err(|_| {
                format!("{n:?} is not a count of failures: give a number, all or none")
            }),
        }
    }
}

/// The failures of a report as the console shows them, or nothing when all passed; `dir` is
/// where the reports go (`--report`), named where the list is cut.
pub fn failures_text(report: &Conformance, shown: Shown, dir: Option<&Path>) -> String {
    // What fails the run, as `cargo test` lists its failures; a known failure that still fails
    // is expected, and the reports list it.
    let failures: Vec<_> = failures(report)
        .into_iter()
        .filter(|f| f.outcome().fails_run())
        .collect();
    let (in_full, in_lines) = match shown {
        Shown::None => return String::new(),
        Shown::All => (failures.len(), 0),
        Shown::First(n) => {
            let n = n.min(failures.len());
            (n, (failures.len() - n).min(LINES))
        }
    };
    if failures.is_empty() {
        return String::new();
    }
    let mut out = String::from("failures:\n");
    for failure in &failures[..in_full] {
        let _ = write!(
            out,
            "\n---- {} ({}) ----\n{}",
            failure.name(),
            failure.outcome(),
            failure.story()
        );
    }
    if in_lines > 0 {
        out.push('\n');
    }
    for failure in &failures[in_full..in_full + in_lines] {
        let _ = writeln!(out, "  {}", failure.one_line());
    }
    let left = failures.len() - in_full - in_lines;
    if left > 0 {
        let see = match dir {
            Some(dir) => format!("see {}", dir.join("conformance.md").display()),
            None => "see --report DIR, or --failures all".to_owned(),
        };
        let _ = writeln!(out, "\n… and {left} more: {see}");
    }
    out.push('\n');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_failures_flag_reads_a_count_all_or_none_and_refuses_anything_else() {
        assert_eq!("all".parse(), Ok(Shown::All));
        assert_eq!("none".parse(), Ok(Shown::None));
        assert_eq!("5".parse(), Ok(Shown::First(5)));
        assert_eq!(
            "some".parse::<Shown>(),
            Err("\"some\" is not a count of failures: give a number, all or none".to_owned())
        );
        assert_eq!("-1".parse::<Shown>().map_err(|_| ()), Err(()));
    }
}
