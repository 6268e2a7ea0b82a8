//! Planning a run, before anything is built: which rows it takes (`--row`, `--changed`,
//! `--shard`), which of them cannot run (retired, stale: each change checked once), and the
//! mutants the others make (rows making the same change share one).

use std::collections::BTreeMap;

use super::Options;
use super::outcome::{RowOutcome, RowResult};
use super::rows::{Row, RowSet};
use super::select;
use super::stale::why_stale;
use super::workspace::Workspace;

/// One change to build and run, with the rows that make it.
#[derive(Clone, Debug)]
pub struct Mutant {
    /// Its number, from 1; a switched build activates it with `VVOC_MUTANT=<id>`.
    pub id: u32,
    /// The name it is declared by, if its rows name one.
    pub name: Option<String>,
    /// The workspace-relative file it changes.
    pub file: String,
    /// The text it replaces (once in the file).
    pub find: String,
    /// The text it puts there.
    pub replace: String,
    /// The rows making this change.
    pub rows: Vec<Row>,
}

impl Mutant {
    /// The vectors and scenarios that must fail for every row of this mutant to be caught.
    pub fn needed(&self) -> Vec<String> {
        self.rows
            .iter()
            .flat_map(|r| r.caught_by.iter().cloned())
            .collect()
    }
}

/// What a run will do.
#[derive(Debug)]
pub struct Plan {
    /// The selected rows (for `--list`).
    pub selected: Vec<Row>,
    /// Why these rows, for the line printed when none is selected.
    pub why: String,
    /// The rows that are not run, with their outcome.
    pub not_run: Vec<RowResult>,
    /// The mutants to build and run.
    pub mutants: Vec<Mutant>,
}

impl Plan {
    /// How many rows the mutants hold.
    pub fn rows_to_run(&self) -> usize {
        self.mutants.iter().map(|m| m.rows.len()).sum()
    }
}

/// The plan of a run over the rows of `set`, or `None` after a usage error was printed.
pub fn plan(options: &Options, set: &RowSet) -> Option<Plan> {
    let (selected, why) = selection(options, &set.rows)?;
    let workspace = Workspace::new(&options.root);
    let name = |row: &Row| set.names.get(&row.id).cloned();
    let mut not_run = Vec::new();
    let mut changes: BTreeMap<(String, String, String), Vec<Row>> = BTreeMap::new();
    for row in &selected {
        match &row.retired {
            Some(reason) => not_run.push(RowResult::not_run(
                row.clone(),
                name(row),
                RowOutcome::Retired,
                format!("retired: {reason}"),
            )),
            None => changes
                .entry((row.file.clone(), row.find.clone(), row.replace.clone()))
                .or_default()
                .push(row.clone()),
        }
    }
    let mut mutants = Vec::new();
    let mut texts: BTreeMap<String, Option<String>> = BTreeMap::new();
    for ((file, find, replace), rows) in changes {
        // The rows of one change name the same mutant, or none (`named.rs` sees to that).
        let mutant = rows.first().and_then(name);
        let text = texts
            .entry(file.clone())
            .or_insert_with(|| std::fs::read_to_string(workspace.path(&file)).ok());
        let named = mutant.as_deref().map(|m| (m, set));
        match why_stale(text.as_deref(), &file, &find, named) {
            Some(detail) => not_run.extend(rows.into_iter().map(|row| {
                RowResult::not_run(row, mutant.clone(), RowOutcome::Stale, detail.clone())
            })),
            None => mutants.push(Mutant {
                id: u32::try_from(mutants.len() + 1).unwrap_or(u32::MAX),
                name: mutant,
                file,
                find,
                replace,
                rows,
            }),
        }
    }
    Some(Plan {
        selected,
        why,
        not_run,
        mutants,
    })
}

/// The rows a run takes, and why, or `None` after a usage error was printed.
fn selection(options: &Options, all: &[Row]) -> Option<(Vec<Row>, String)> {
    let mut why = Vec::new();
    let mut selected: Vec<Row> = all.to_vec();
    if !options.rows.is_empty() {
        selected.retain(|r| options.rows.iter().any(|t| r.id.contains(t.as_str())));
        why.push(format!("--row {}", options.rows.join(", ")));
    }
    if let Some(base) = &options.changed {
        let changed = match select::changed_since(&options.root, base, all) {
            Ok(changed) => changed,
            Err(error) => {
                eprintln!("error: --changed {base}: {error:#}");
                return None;
            }
        };
        selected.retain(|r| changed.contains(&r.id));
        why.push(format!("nothing changed since {base} touches a row"));
    }
    if let Some(shard) = options.shard {
        selected.retain(|r| shard.keeps(r));
        why.push(format!("shard {}/{}", shard.index, shard.count));
    }
    let why = if why.is_empty() {
        "no rows".to_owned()
    } else {
        why.join("; ")
    };
    Some((selected, why))
}
