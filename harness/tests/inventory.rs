//! The refusal inventory against the vectors: every issue names an inventory rule, and every
//! rule is produced by some reject vector.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::OnceLock;

use vvoc_harness::default_vectors_dir;
use vvoc_harness::load::suite::load_vectors;
use vvoc_reference::inventory::inventory;
use vvoc_reference::{RuleId, validate_traced};

/// Which rules each reject vector's issues come from, worked out once for every test of this file.
fn rules_by_vector() -> &'static BTreeMap<String, Vec<RuleId>> {
    static RULES: OnceLock<BTreeMap<String, Vec<RuleId>>> = OnceLock::new();
    RULES.get_or_init(|| {
        let vectors = load_vectors(&[default_vectors_dir()]).expect("the vectors load");
        vectors
            .iter()
            .filter(|v| !v.expected.is_accept())
            .map(|v| {
                (
                    v.name(),
                    validate_traced(v.tool, &v.input)
                        .1
                        .into_iter()
                        .map(|t| t.rule)
                        .collect(),
                )
            })
            .collect()
    })
}

#[test]
fn every_issue_of_every_vector_names_an_inventory_rule() {
    let known: BTreeSet<RuleId> = inventory().into_iter().filter(|r| !r.is_exec()).collect();
    let mut strays = Vec::new();
    for (vector, rules) in rules_by_vector() {
        for rule in rules.iter().filter(|r| !known.contains(r)) {
            strays.push(format!("{vector}: {rule}"));
        }
    }
    assert!(
        strays.is_empty(),
        "issues whose rule is not in the inventory:\n{}",
        strays.join("\n")
    );
}

#[test]
fn every_input_rule_of_the_inventory_is_produced_by_a_reject_vector() {
    let fired: BTreeSet<&RuleId> = rules_by_vector().values().flatten().collect();
    let missing: Vec<String> = inventory()
        .into_iter()
        .filter(|r| !r.is_exec() && !fired.contains(r))
        .map(|r| r.to_string())
        .collect();
    assert!(
        missing.is_empty(),
        "{} inventory rules have no reject vector:\n{}",
        missing.len(),
        missing.join("\n")
    );
}

#[test]
fn inventory_ids_are_unique() {
    let rules = inventory();
    let unique: BTreeSet<String> = rules.iter().map(ToString::to_string).collect();
    assert_eq!(unique.len(), rules.len());
}
