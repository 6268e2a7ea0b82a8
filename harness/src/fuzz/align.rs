//! Where two lists of issues differ: each issue of one side is looked for among the other's
//! (at the comparison's level, wherever it stands), so an issue that only one side has is found
//! whatever other issues the input also earns, and the first of those differences names the
//! class.

use vvoc_reference::Issue;

use crate::compare::Level;

/// The first difference between an expected and a received list of issues.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Difference<'a> {
    /// The expected side has this issue and the received side nothing like it.
    Missing(&'a Issue),
    /// The received side has this issue and the expected side nothing like it.
    Extra(&'a Issue),
    /// Both sides have an issue at one place (or one issue at two places): they differ in this
    /// member; the expected side's issue names it.
    Member(&'a Issue, Member),
    /// Both sides have the same issues in another order: the expected side's first issue out
    /// of place.
    Order(&'a Issue),
}

/// A member of an issue.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Member {
    /// `code`.
    Code,
    /// `path`.
    Path,
    /// `message`.
    Message,
    /// `expected`.
    Expected,
    /// `received`.
    Received,
}

/// The first difference between `expected` and `received` at `level`, `None` when each issue
/// has its like at the same place on the other side. Issues that only one side has come first
/// by their place in their own list, the expected side's first on a tie, so an issue the peer
/// adds early is not hidden behind one it pushed past the cut of eight.
pub fn difference<'a>(
    expected: &'a [Issue],
    received: &'a [Issue],
    level: Level,
) -> Option<Difference<'a>> {
    let same = |a: &Issue, b: &Issue| match level {
        Level::Exact | Level::Text => a == b,
        Level::Verdict | Level::First | Level::Issues => a.code == b.code && a.path == b.path,
    };
    let mut taken = vec![false; received.len()];
    let mut lone = Vec::new();
    for (i, issue) in expected.iter().enumerate() {
        match (0..received.len()).find(|&j| !taken[j] && same(issue, &received[j])) {
            Some(j) => taken[j] = true,
            None => lone.push(i),
        }
    }
    if lone.is_empty() && taken.iter().all(|t| *t) {
        let at = expected
            .iter()
            .zip(received)
            .position(|(a, b)| !same(a, b))?;
        return Some(Difference::Order(&expected[at]));
    }
    let mut first_expected = None;
    for &i in &lone {
        let issue = &expected[i];
        // Its like: the received issue at the same place, or else the same issue at another.
        let like = (0..received.len())
            .find(|&j| !taken[j] && received[j].path == issue.path)
            .or_else(|| {
                (0..received.len()).find(|&j| {
                    !taken[j]
                        && received[j].code == issue.code
                        && received[j].message == issue.message
                })
            });
        let found = match like {
            Some(j) => {
                taken[j] = true;
                Difference::Member(issue, member(issue, &received[j]))
            }
            None => Difference::Missing(issue),
        };
        first_expected.get_or_insert((i, found));
    }
    let first_received = (0..received.len())
        .find(|&j| !taken[j])
        .map(|j| (j, Difference::Extra(&received[j])));
    match (first_expected, first_received) {
        (Some((i, e)), Some((j, _))) if i <= j => Some(e),
        (_, Some((_, r))) => Some(r),
        (e, None) => e.map(|(_, e)| e),
    }
}

/// The first member in which two issues differ (`received` when they are equal, which
/// [`difference`] never asks).
fn member(a: &Issue, b: &Issue) -> Member {
    if a.code != b.code {
        Member::Code
    } else if a.path != b.path {
        Member::Path
    } else if a.message != b.message {
        Member::Message
    } else if a.expected != b.expected {
        Member::Expected
    } else {
        Member::Received
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use vvoc_reference::Code;

    fn issue(code: Code, path: &str, message: &str) -> Issue {
        Issue {
            code,
            path: path.into(),
            message: message.into(),
            expected: None,
            received: None,
        }
    }

    #[test]
    fn an_issue_only_the_peer_has_is_found_before_or_after_the_issues_both_have() {
        let count = issue(Code::TooBig, "count", "Too big");
        let query = issue(Code::TooSmall, "query", "Too small");
        let both = [query.clone(), count.clone()];
        let found = difference(std::slice::from_ref(&count), &both, Level::Exact);
        assert_eq!(found, Some(Difference::Extra(&both[0])));
        let found = difference(&[], std::slice::from_ref(&query), Level::Exact);
        assert_eq!(found, Some(Difference::Extra(&query)));
        let found = difference(&both, std::slice::from_ref(&query), Level::Issues);
        assert_eq!(found, Some(Difference::Missing(&both[1])));
        assert_eq!(difference(&both, &both, Level::Exact), None);
    }

    #[test]
    fn issues_at_one_place_differ_in_a_member_and_the_expected_one_names_it() {
        let right = issue(Code::TooBig, "timeout", "Too big: <=120");
        let wrong = issue(Code::TooBig, "timeout", "Too big: <120");
        let wrong = [wrong];
        let found = difference(std::slice::from_ref(&right), &wrong, Level::Exact);
        assert_eq!(found, Some(Difference::Member(&right, Member::Message)));
        assert_eq!(
            difference(std::slice::from_ref(&right), &wrong, Level::Issues),
            None
        );
        let typed = issue(Code::InvalidType, "timeout", "Invalid input");
        let typed = [typed];
        let found = difference(std::slice::from_ref(&right), &typed, Level::First);
        assert_eq!(found, Some(Difference::Member(&right, Member::Code)));
        let moved = issue(Code::TooBig, "items[0].timeout", "Too big: <=120");
        let moved = [moved];
        let found = difference(std::slice::from_ref(&right), &moved, Level::Exact);
        assert_eq!(found, Some(Difference::Member(&right, Member::Path)));
    }

    #[test]
    fn the_same_issues_in_another_order_are_an_order_difference() {
        let a = issue(Code::TooBig, "count", "a");
        let b = issue(Code::InvalidValue, "freshness", "b");
        let (expected, received) = ([a.clone(), b.clone()], [b, a.clone()]);
        let found = difference(&expected, &received, Level::Exact);
        assert_eq!(found, Some(Difference::Order(&a)));
    }

    #[test]
    fn an_issue_the_peer_adds_early_comes_before_one_it_pushed_past_the_cut() {
        let expected: Vec<Issue> = (0..8)
            .map(|i| issue(Code::TooBig, &format!("a{i}"), "x"))
            .collect();
        let mut received = vec![issue(Code::TooSmall, "query", "y")];
        received.extend(expected[..7].iter().cloned());
        let found = difference(&expected, &received, Level::Exact);
        assert_eq!(found, Some(Difference::Extra(&received[0])));
    }
}
