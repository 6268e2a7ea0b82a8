//! The mutation rows, checked without building anything: ids unique, files present, each `find`
//! occurring exactly once, `caught_by` naming real vectors or scenarios, and one row or more per
//! inventory rule.

use std::collections::{BTreeMap, BTreeSet};

use vvoc_harness::load::suite::load_suite;
use vvoc_reference::inventory::inventory;
use xtask::mutants::rows::{self, Row};
use xtask::workspace_root;

fn all_rows() -> Vec<Row> {
    rows::load(&workspace_root()).expect("the rows load, ids unique")
}

#[test]
fn every_row_finds_its_text_exactly_once_in_an_existing_file() {
    let mut problems = Vec::new();
    let mut texts: BTreeMap<String, String> = BTreeMap::new();
    for row in all_rows().iter().filter(|r| r.retired.is_none()) {
        let text = texts.entry(row.file.clone()).or_insert_with(|| {
            std::fs::read_to_string(workspace_root().join(&row.file)).unwrap_or_default()
        });
        match row.occurrences(text) {
            1 => {}
            n => problems.push(format!(
                "{} ({}): `find` occurs {n} times in {}",
                row.id, row.source, row.file
            )),
        }
    }
    assert!(problems.is_empty(), "stale rows:\n{}", problems.join("\n"));
}

#[test]
fn caught_by_names_existing_vectors() {
    let vectors: BTreeSet<String> = load_suite(&[workspace_root().join("vectors")])
        .expect("the vectors and scenarios load")
        .names
        .into_iter()
        .collect();
    let mut problems = Vec::new();
    for row in all_rows() {
        if row.caught_by.is_empty() && row.retired.is_none() {
            problems.push(format!("{}: no caught_by vector", row.id));
        }
        for name in row.caught_by.iter().filter(|n| !vectors.contains(*n)) {
            problems.push(format!(
                "{} ({}): caught_by names {name}, which is no vector or scenario",
                row.id, row.source
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn every_inventory_rule_has_a_row_and_every_row_names_a_rule() {
    let rules: BTreeSet<String> = inventory().iter().map(ToString::to_string).collect();
    let rows = all_rows();
    let named: BTreeSet<&str> = rows.iter().map(Row::rule).collect();
    let without: Vec<&String> = rules
        .iter()
        .filter(|r| !named.contains(r.as_str()))
        .collect();
    assert!(
        without.is_empty(),
        "{} rules have no row: {without:#?}",
        without.len()
    );
    let strays: Vec<&str> = rows
        .iter()
        .filter(|r| !rules.contains(r.rule()))
        .map(|r| r.id.as_str())
        .collect();
    assert!(
        strays.is_empty(),
        "rows naming no inventory rule: {strays:#?}"
    );
}

#[test]
fn a_row_names_its_rule_before_the_last_colon_and_space() {
    let row = |id: &str| Row {
        id: id.to_owned(),
        file: String::new(),
        find: String::new(),
        replace: String::new(),
        caught_by: Vec::new(),
        retired: None,
        source: String::new(),
    };
    assert_eq!(
        row("web_search:count:maximum: upper bound shifted to 21").rule(),
        "web_search:count:maximum"
    );
    assert_eq!(
        row("work_item_open:branch:execution-and-runid: the rule removed").rule(),
        "work_item_open:branch:execution-and-runid"
    );
}
