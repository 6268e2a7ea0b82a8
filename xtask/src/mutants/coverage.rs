//! `cargo xtask mutants --coverage`: every inventory rule with its reject vectors (scenarios, for
//! a rule of execution) and its rows.

use std::collections::BTreeMap;
use std::path::Path;

use anyhow::Result;
use vvoc_harness::load::suite::load_vectors;
use vvoc_reference::inventory::inventory;
use vvoc_reference::{RuleId, validate_traced};

use super::rows::Row;
use super::workspace::VECTORS;

/// What covers one rule.
#[derive(Clone, Debug, Default)]
pub struct RuleCoverage {
    /// Reject vectors with an issue from the rule; for a rule of execution, the scenarios its
    /// rows must be caught by (the mutation run proves that they fail when the rule breaks).
    pub vectors: Vec<String>,
    /// Rows that break the rule.
    pub rows: Vec<String>,
}

/// Every inventory rule (in inventory order) with what covers it, and the rows naming no rule.
#[derive(Clone, Debug, Default)]
pub struct Coverage {
    /// Each rule id with its vectors and rows.
    pub rules: Vec<(String, RuleCoverage)>,
    /// Rows whose id names no rule of the inventory.
    pub strays: Vec<String>,
}

/// The coverage of the inventory by the vectors under `root/vectors` and by `rows`.
pub fn coverage(root: &Path, rows: &[Row]) -> Result<Coverage> {
    let vectors = load_vectors(&[root.join(VECTORS)])?;
    let mut by_rule: BTreeMap<String, RuleCoverage> = inventory()
        .into_iter()
        .map(|r| (r.to_string(), RuleCoverage::default()))
        .collect();
    for vector in vectors.iter().filter(|v| !v.expected.is_accept()) {
        for traced in validate_traced(vector.tool, &vector.input).1 {
            if let Some(entry) = by_rule.get_mut(&traced.rule.to_string())
                && !entry.vectors.contains(&vector.name())
            {
                entry.vectors.push(vector.name());
            }
        }
    }
    let exec_rules: Vec<String> = inventory()
        .into_iter()
        .filter(RuleId::is_exec)
        .map(|r| r.to_string())
        .collect();
    let mut strays = Vec::new();
    for row in rows {
        match by_rule.get_mut(row.rule()) {
            Some(entry) => {
                entry.rows.push(row.id.clone());
                if exec_rules.iter().any(|r| r == row.rule()) {
                    for scenario in &row.caught_by {
                        if !entry.vectors.contains(scenario) {
                            entry.vectors.push(scenario.clone());
                        }
                    }
                }
            }
            None => strays.push(row.id.clone()),
        }
    }
    let ordered = inventory().into_iter().map(|r| r.to_string()).map(|id| {
        let entry = by_rule.remove(&id).unwrap_or_default();
        (id, entry)
    });
    Ok(Coverage {
        rules: ordered.collect(),
        strays,
    })
}

/// Prints the coverage table; whether every rule has a reject vector and a row.
pub fn report(root: &Path, rows: &[Row]) -> Result<bool> {
    let Coverage { rules, strays } = coverage(root, rows)?;
    println!(
        "{:<80} {:>7} {:>4}  first vector / first row",
        "rule", "vectors", "rows"
    );
    let mut complete = true;
    for (rule, entry) in &rules {
        let missing = entry.vectors.is_empty() || entry.rows.is_empty();
        complete &= !missing;
        println!(
            "{:<80} {:>7} {:>4}  {} / {}{}",
            rule,
            entry.vectors.len(),
            entry.rows.len(),
            entry.vectors.first().map_or("-", String::as_str),
            entry.rows.first().map_or("-", String::as_str),
            if missing { "   <- MISSING" } else { "" }
        );
    }
    for stray in &strays {
        println!("row {stray:?} names no rule of the inventory");
    }
    let covered = rules
        .iter()
        .filter(|(_, e)| !e.vectors.is_empty() && !e.rows.is_empty())
        .count();
    println!(
        "{covered} of {} rules have a reject vector and a row",
        rules.len()
    );
    Ok(complete && strays.is_empty())
}
