//! Comparing a received verdict with the expected one at a level, and describing the difference.

use std::fmt;
use std::str::FromStr;

use vvoc_reference::{Issue, Verdict};

/// How much of a verdict must match, weakest first (interfaces.md §4).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Level {
    /// Accept versus reject.
    Verdict,
    /// The verdict, and for a reject the first issue's code and path.
    First,
    /// The verdict, and for a reject every issue's code and path, in order.
    Issues,
    /// Everything: issues with messages and `expected`, or the normalized output.
    Exact,
}

impl Level {
    /// Every level, weakest first.
    pub const ALL: [Level; 4] = [Level::Verdict, Level::First, Level::Issues, Level::Exact];

    /// The level's name on the command line and in reports.
    pub const fn as_str(self) -> &'static str {
        match self {
            Level::Verdict => "verdict",
            Level::First => "first",
            Level::Issues => "issues",
            Level::Exact => "exact",
        }
    }
}

impl fmt::Display for Level {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Level {
    type Err = String;

    fn from_str(s: &str) -> Result<Level, String> {
        Level::ALL
            .into_iter()
            .find(|l| l.as_str() == s)
            .ok_or_else(|| format!("unknown level {s:?}: expected verdict, first, issues or exact"))
    }
}

/// Whether `received` matches `expected` at `level`.
pub fn matches(expected: &Verdict, received: &Verdict, level: Level) -> bool {
    match (expected, received) {
        (Verdict::Accept(e), Verdict::Accept(r)) => level < Level::Exact || e.same_as(r),
        (Verdict::Reject(e), Verdict::Reject(r)) => match level {
            Level::Verdict => true,
            Level::First => e.first().map(code_and_path) == r.first().map(code_and_path),
            Level::Issues => e.len() == r.len() && e.iter().zip(r).all(|(a, b)| code_and_path(a) == code_and_path(b)),
            Level::Exact => e == r,
        },
        (Verdict::Accept(_), Verdict::Reject(_)) | (Verdict::Reject(_), Verdict::Accept(_)) => false,
    }
}

/// The strongest level at which `received` matches, if any.
pub fn strongest_match(expected: &Verdict, received: &Verdict) -> Option<Level> {
    Level::ALL.into_iter().rev().find(|&level| matches(expected, received, level))
}

/// One line on what differs, such as `expected reject at count, received accept`.
pub fn describe(expected: &Verdict, received: &Verdict) -> String {
    let side = |v: &Verdict| match v {
        Verdict::Accept(_) => "accept".to_owned(),
        Verdict::Reject(issues) => match issues.first() {
            Some(first) => format!("reject at {}", first.path),
            None => "reject".to_owned(),
        },
    };
    match (expected, received) {
        (Verdict::Reject(e), Verdict::Reject(r)) => {
            let position = e.iter().zip(r).position(|(a, b)| a != b).unwrap_or(e.len().min(r.len()));
            let show = |issues: &[Issue]| {
                issues
                    .get(position)
                    .map_or("nothing".to_owned(), |i| format!("{} at {}: {}", i.code, i.path, i.message))
            };
            format!("issue {} differs: expected {}, received {}", position + 1, show(e), show(r))
        }
        (Verdict::Accept(_), Verdict::Accept(_)) => "expected and received accept different outputs".to_owned(),
        _ => format!("expected {}, received {}", side(expected), side(received)),
    }
}

fn code_and_path(issue: &Issue) -> (vvoc_reference::Code, &vvoc_reference::JsString) {
    (issue.code, &issue.path)
}
