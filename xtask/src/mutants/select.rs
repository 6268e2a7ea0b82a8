//! Choosing rows: by id text, by what changed since a git revision, and by shard.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context as _, Result, bail};
use vvoc_harness::load::suite::parse_vector_file;

use super::rows::{Row, RowText, resolve};
use super::workspace::{ROWS, VECTORS};

/// A stable split of the rows: shard `index` (1-based) of `count`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    /// Which shard, from 1.
    pub index: u64,
    /// How many shards.
    pub count: u64,
}

impl std::str::FromStr for Shard {
    type Err = String;

    fn from_str(s: &str) -> Result<Shard, String> {
        let (k, n) = s
            .split_once('/')
            .ok_or_else(|| format!("--shard takes K/N, such as 1/4, not {s:?}"))?;
        let (index, count): (u64, u64) = (
            k.parse().map_err(|_| format!("bad shard index {k:?}"))?,
            n.parse().map_err(|_| format!("bad shard count {n:?}"))?,
        );
        if count == 0 || index == 0 || index > count {
            return Err(format!("--shard K/N needs 1 <= K <= N, not {s}"));
        }
        Ok(Shard { index, count })
    }
}

impl Shard {
    /// Whether the row belongs to this shard: decided by a hash of its id alone, so adding or
    /// removing other rows never moves a row to another shard.
    pub fn keeps(&self, row: &Row) -> bool {
        fnv1a(row.id.as_bytes()) % self.count == self.index - 1
    }
}

/// The rows touched by the changes since `base`: rows whose file changed, rows whose
/// `caught_by` vectors changed, and rows added or edited since `base` (a row's change is compared
/// resolved, so editing a named mutant touches every row naming it). Paths are those of the
/// workspace, also when it lies in a subfolder of its repository.
pub fn changed_since(root: &Path, base: &str, rows: &[Row]) -> Result<BTreeSet<String>> {
    let changed: BTreeSet<String> = git(root, &["diff", "--name-only", "--relative", base, "--"])?
        .lines()
        .map(str::to_owned)
        .collect();
    let untracked: BTreeSet<String> = git(root, &["ls-files", "--others", "--exclude-standard"])?
        .lines()
        .map(str::to_owned)
        .collect();
    let changed: BTreeSet<String> = changed.union(&untracked).cloned().collect();
    // The rows as they were at `base`, by id.
    let old_rows: BTreeMap<String, Row> = rows_at(root, base)?
        .into_iter()
        .map(|r| (r.id.clone(), r))
        .collect();
    // Vectors whose definition differs from `base` (or is new).
    let mut changed_vectors = BTreeSet::new();
    for file in changed.iter().filter(|f| {
        f.strip_prefix(VECTORS).is_some_and(|f| f.starts_with('/')) && f.ends_with(".json")
    }) {
        let now = std::fs::read_to_string(root.join(file))
            .map(|t| definitions(file, &t))
            .unwrap_or_default();
        let before = git(root, &["show", &format!("{base}:./{file}")])
            .map(|t| definitions(file, &t))
            .unwrap_or_default();
        for (name, definition) in &now {
            if before.get(name) != Some(definition) {
                changed_vectors.insert(name.clone());
            }
        }
    }
    let mut selected = BTreeSet::new();
    for row in rows {
        let edited = old_rows
            .get(&row.id)
            .is_none_or(|old| !same_definition(old, row));
        if edited
            || changed.contains(&row.file)
            || row.caught_by.iter().any(|v| changed_vectors.contains(v))
        {
            selected.insert(row.id.clone());
        }
    }
    Ok(selected)
}

/// The rows as they were at `base`, each with its change (a row naming a mutant takes the
/// mutant's change at `base`). When the files at `base` do not load together, the rows of each
/// file that loads on its own; rows that load at no point count as added.
fn rows_at(root: &Path, base: &str) -> Result<Vec<Row>> {
    let mut texts = Vec::new();
    for file in git(root, &["ls-tree", "-r", "--name-only", base, "--", ROWS])?
        .lines()
        .filter(|f| f.ends_with(".json"))
    {
        texts.push(RowText {
            path: PathBuf::from(file),
            source: file.to_owned(),
            text: git(root, &["show", &format!("{base}:./{file}")])?,
        });
    }
    Ok(match resolve(&texts) {
        Ok(set) => set.rows,
        Err(_) => texts
            .iter()
            .filter_map(|t| resolve(std::slice::from_ref(t)).ok())
            .flat_map(|set| set.rows)
            .collect(),
    })
}

/// Whether two rows make the same change with the same expectations (their source may differ).
fn same_definition(a: &Row, b: &Row) -> bool {
    (&a.file, &a.find, &a.replace, &a.caught_by, &a.retired)
        == (&b.file, &b.find, &b.replace, &b.caught_by, &b.retired)
}

/// Each vector of a file's text by name, with its input and expectation as compact JSON.
fn definitions(file: &str, text: &str) -> BTreeMap<String, String> {
    parse_vector_file(Path::new(file), text)
        .map(|vectors| {
            vectors
                .into_iter()
                .map(|v| {
                    (
                        v.name(),
                        format!(
                            "{} {}",
                            v.input.to_compact(),
                            v.expected.to_json().to_compact()
                        ),
                    )
                })
                .collect()
        })
        .unwrap_or_default()
}

fn git(root: &Path, args: &[&str]) -> Result<String> {
    let output = Command::new("git")
        .current_dir(root)
        .args(args)
        .output()
        .context("cannot run git")?;
    if !output.status.success() {
        bail!(
            "git {} failed: {}",
            args.join(" "),
            String::from_utf8_lossy(&output.stderr).trim()
        );
    }
    Ok(String::from_utf8_lossy(&output.stdout).into_owned())
}

/// FNV-1a, 64 bits: a hash that is the same on every machine and every run.
pub(crate) fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |hash, b| {
        (hash ^ u64::from(*b)).wrapping_mul(0x0100_0000_01b3)
    })
}
