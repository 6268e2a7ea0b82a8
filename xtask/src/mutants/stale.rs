//! Stale mutants: a named mutant whose `find` no longer occurs exactly once in its file is reported
//! once, with every row it affects; a row that spells out its own change is its own mutant and is
//! reported alone, as before.

use super::outcome::{RowOutcome, RowResult};
use super::rows::RowSet;

/// One problem of a run, as it is reported: a row, or a stale named mutant with its rows.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Problem<'a, T> {
    /// A problem row (of any outcome but stale, or a stale row of its own change).
    Row(&'a T),
    /// A stale named mutant, with its rows in report order.
    Stale {
        /// The mutant's name.
        mutant: &'a str,
        /// Its rows.
        rows: Vec<&'a T>,
    },
}

/// The problems among `items`, each stale named mutant once (where its first row stands), given
/// each item's outcome and the named mutant it names.
pub fn problems<'a, T>(
    items: &'a [T],
    outcome: impl Fn(&T) -> RowOutcome,
    mutant: impl Fn(&T) -> Option<&str>,
) -> Vec<Problem<'a, T>> {
    let mut problems: Vec<Problem<'a, T>> = Vec::new();
    for item in items.iter().filter(|i| outcome(i).is_problem()) {
        let named = mutant(item).filter(|_| outcome(item) == RowOutcome::Stale);
        let Some(name) = named else {
            problems.push(Problem::Row(item));
            continue;
        };
        let earlier = problems.iter_mut().find_map(|p| match p {
            Problem::Stale { mutant, rows } if *mutant == name => Some(rows),
            _ => None,
        });
        match earlier {
            Some(rows) => rows.push(item),
            None => problems.push(Problem::Stale {
                mutant: mutant(item).unwrap_or_default(),
                rows: vec![item],
            }),
        }
    }
    problems
}

/// The problems of a run as terminal lines: a row per line (outcome, id, why), a stale named
/// mutant as one line followed by its rows.
pub fn problem_lines(results: &[RowResult]) -> Vec<String> {
    let first_line = |r: &RowResult| r.detail.lines().next().unwrap_or_default().to_owned();
    let mut lines = Vec::new();
    for problem in problems(results, |r| r.outcome, |r| r.mutant.as_deref()) {
        match problem {
            Problem::Row(r) => lines.push(format!(
                "{:<9} {} ({})",
                r.outcome.as_str(),
                r.row.id,
                first_line(r)
            )),
            Problem::Stale { mutant, rows } => {
                lines.push(format!(
                    "{:<9} mutant {mutant} ({}); {} rows:",
                    RowOutcome::Stale.as_str(),
                    rows.first().map(|r| first_line(r)).unwrap_or_default(),
                    rows.len()
                ));
                lines.extend(rows.iter().map(|r| format!("{:<9} {}", "", r.row.id)));
            }
        }
    }
    lines
}

/// Why a change is stale, if it is: its file is missing, or its `find` does not occur exactly
/// once in it. `mutant` is the named mutant making it, whose declaration is where to fix it.
pub fn why_stale(
    text: Option<&str>,
    file: &str,
    find: &str,
    mutant: Option<(&str, &RowSet)>,
) -> Option<String> {
    let fix = |what: &str| match mutant {
        Some((name, set)) => {
            let source = set.mutants.get(name).map_or("", |m| m.source.as_str());
            let rows = set.names.values().filter(|n| *n == name).count();
            format!(
                "; fix the {what} of the mutant {name} in {source}, and the {rows} rows naming it follow"
            )
        }
        None if what == "`file`" => "; fix the row's `file`".to_owned(),
        None => String::new(),
    };
    let Some(text) = text else {
        return Some(format!(
            "{file} does not exist (or cannot be read){}",
            fix("`file`")
        ));
    };
    match text.matches(find).count() {
        1 => None,
        n => Some(format!(
            "`find` occurs {n} times in {file}; it must occur exactly once{}",
            fix("`find`")
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mutants::rows::{Row, RowText, resolve};

    fn result(id: &str, mutant: Option<&str>, outcome: RowOutcome, detail: &str) -> RowResult {
        let row = Row {
            id: id.to_owned(),
            file: "a.rs".to_owned(),
            find: "n".to_owned(),
            replace: "m".to_owned(),
            caught_by: Vec::new(),
            retired: None,
            source: "mutants/r.json".to_owned(),
        };
        RowResult::not_run(row, mutant.map(str::to_owned), outcome, detail.to_owned())
    }

    #[test]
    fn a_stale_named_mutant_is_reported_once_with_every_row_it_affects() {
        let results = [
            result(
                "a: one",
                Some("lib:x"),
                RowOutcome::Stale,
                "`find` occurs 0 times",
            ),
            result(
                "b: missed",
                Some("lib:y"),
                RowOutcome::Missed,
                "0 of 9 vectors failed",
            ),
            result("c: own", None, RowOutcome::Stale, "`find` occurs 2 times"),
            result("d: fine", Some("lib:z"), RowOutcome::Caught, ""),
            result(
                "e: two",
                Some("lib:x"),
                RowOutcome::Stale,
                "`find` occurs 0 times",
            ),
            result(
                "f: retired",
                Some("lib:x"),
                RowOutcome::Retired,
                "retired: old",
            ),
        ];
        assert_eq!(
            problem_lines(&results),
            [
                "stale     mutant lib:x (`find` occurs 0 times); 2 rows:",
                "          a: one",
                "          e: two",
                "missed    b: missed (0 of 9 vectors failed)",
                "stale     c: own (`find` occurs 2 times)",
            ]
        );
    }

    #[test]
    fn a_stale_change_says_where_to_fix_it() {
        let set = resolve(&[RowText {
            path: "m.json".into(),
            source: "mutants/mutants.json".to_owned(),
            text: r#"{"mutants": {"lib:x": {"file": "a.rs", "find": "n", "replace": "m"}},
                "rows": [{"id": "a: x", "mutant": "lib:x"}, {"id": "b: x", "mutant": "lib:x"}]}"#
                .to_owned(),
        }])
        .expect("resolved");
        let named = Some(("lib:x", &set));
        assert_eq!(
            why_stale(Some("n + n"), "a.rs", "n", None),
            Some("`find` occurs 2 times in a.rs; it must occur exactly once".to_owned())
        );
        assert_eq!(
            why_stale(Some(""), "a.rs", "n", named),
            Some("`find` occurs 0 times in a.rs; it must occur exactly once; fix the `find` of the mutant lib:x in mutants/mutants.json, and the 2 rows naming it follow".to_owned())
        );
        assert_eq!(
            why_stale(None, "a.rs", "n", named),
            Some("a.rs does not exist (or cannot be read); fix the `file` of the mutant lib:x in mutants/mutants.json, and the 2 rows naming it follow".to_owned())
        );
        assert_eq!(
            why_stale(None, "a.rs", "n", None),
            Some("a.rs does not exist (or cannot be read); fix the row's `file`".to_owned())
        );
        assert_eq!(why_stale(Some("n"), "a.rs", "n", named), None);
    }
}
