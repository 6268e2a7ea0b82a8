//! The rounds of the switched build: every candidate mutant written into the copy behind its
//! switch, then built; the mutants a refused round's errors blame move to their next larger
//! region, or, with none left, to the rebuilt phase.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::Path;
use std::time::Duration;

use anyhow::Result;

use super::plan::Mutant;
use super::region::{Region, Source};
use super::scratch::Scratch;
use super::suite::{self, CompileError, Step};
use super::switch::{self, Rendered};
use super::workspace::{MUTATED_LIB, Workspace};

/// The most builds the rounds try; if the compiler still refuses the last one, every mutant is
/// rebuilt alone.
pub const MAX_ROUNDS: usize = 12;

/// How many error locations a round's line names.
const NAMED_ERRORS: usize = 3;

/// A mutant with its regions, smallest first, and the one it is switched at.
#[derive(Debug)]
pub struct Candidate {
    /// The mutant.
    pub mutant: Mutant,
    /// Its regions, smallest first.
    regions: Vec<Region>,
    /// The region it is at.
    level: usize,
}

impl Candidate {
    fn region(&self) -> &Region {
        &self.regions[self.level]
    }
}

/// The mutants still to be switched, and those left for rebuilding.
#[derive(Debug)]
pub struct Pending {
    /// The mutants to switch.
    pub candidates: Vec<Candidate>,
    /// The mutants to rebuild.
    pub rest: Vec<Mutant>,
}

impl Pending {
    /// The mutants with a region in the mutated crate's sources as candidates, the others left.
    pub fn of(workspace: &Workspace, mutants: Vec<Mutant>) -> Pending {
        let mut sources: BTreeMap<String, Option<Source>> = BTreeMap::new();
        let mut pending = Pending {
            candidates: Vec::new(),
            rest: Vec::new(),
        };
        for mutant in mutants {
            let regions = if Workspace::is_mutated_source(&mutant.file) {
                sources
                    .entry(mutant.file.clone())
                    .or_insert_with(|| {
                        std::fs::read_to_string(workspace.path(&mutant.file))
                            .ok()
                            .and_then(Source::parse)
                    })
                    .as_ref()
                    .map(|source| source.regions(&mutant.find, &mutant.replace))
                    .unwrap_or_default()
            } else {
                Vec::new()
            };
            if regions.is_empty() {
                pending.rest.push(mutant);
            } else {
                pending.candidates.push(Candidate {
                    mutant,
                    regions,
                    level: 0,
                });
            }
        }
        pending
    }

    /// Moves the blamed mutants: to their next larger region, or to `rest` when they have none
    /// (or are `dropped`); how many went each way.
    fn apply(&mut self, blamed: &Blamed) -> (usize, usize) {
        let (mut moved, mut left) = (0, 0);
        for mut candidate in std::mem::take(&mut self.candidates) {
            let id = candidate.mutant.id;
            let widen = blamed.widened.contains(&id);
            if blamed.dropped.contains(&id)
                || (widen && candidate.level + 1 == candidate.regions.len())
            {
                left += 1;
                self.rest.push(candidate.mutant);
                continue;
            }
            if widen {
                moved += 1;
                candidate.level += 1;
            }
            self.candidates.push(candidate);
        }
        (moved, left)
    }

    /// Moves to `rest` each candidate whose region overlaps another's without being inside it
    /// or around it (regions are syntax nodes, so this does not happen; a switch there would not
    /// nest).
    fn set_aside_overlaps(&mut self) {
        fn order(c: &Candidate) -> (&str, usize, std::cmp::Reverse<usize>, u32) {
            let r = c.region();
            (
                c.mutant.file.as_str(),
                r.start,
                std::cmp::Reverse(r.end),
                c.mutant.id,
            )
        }
        self.candidates.sort_by(|a, b| order(a).cmp(&order(b)));
        let mut open: Vec<(String, usize)> = Vec::new();
        for candidate in std::mem::take(&mut self.candidates) {
            let region = candidate.region();
            while open
                .last()
                .is_some_and(|(file, end)| *file != candidate.mutant.file || *end <= region.start)
            {
                open.pop();
            }
            if open.last().is_some_and(|(_, end)| region.end > *end) {
                self.rest.push(candidate.mutant);
            } else {
                open.push((candidate.mutant.file.clone(), region.end));
                self.candidates.push(candidate);
            }
        }
    }
}

/// The rounds of the switched build, in a copy whose `files` are rewritten each round.
#[derive(Debug)]
pub struct Rounds<'a> {
    /// The copy.
    pub scratch: &'a Scratch,
    /// The files that may hold switches, with their original text.
    pub files: &'a BTreeMap<String, String>,
    /// How long a build may take.
    pub limit: Duration,
    /// Where the rounds' logs go.
    pub log_dir: &'a Path,
}

/// What a refused round blames: mutants to move to a larger region, and mutants to drop.
#[derive(Debug, Default)]
struct Blamed {
    widened: BTreeSet<u32>,
    dropped: BTreeSet<u32>,
}

impl Rounds<'_> {
    /// Builds round after round until the compiler accepts the switched copy; whether it did.
    pub fn run(&self, pending: &mut Pending) -> Result<bool> {
        for round in 1..=MAX_ROUNDS {
            pending.set_aside_overlaps();
            let rendered = self.write(&pending.candidates)?;
            let Step::Done(errors) = suite::build_located(self.scratch, self.limit)? else {
                return Ok(false);
            };
            if errors.is_empty() {
                return Ok(true);
            }
            let (moved, left) = pending.apply(&blame(&errors, &rendered, &pending.candidates));
            self.log(round, &errors, moved, left);
            if pending.candidates.is_empty() {
                return Ok(false);
            }
        }
        Ok(false)
    }

    /// Writes every file with its candidates switched (a file whose candidates all left goes
    /// back to its text), the switch module in the library root; each file as rendered.
    fn write(&self, candidates: &[Candidate]) -> Result<BTreeMap<&str, Rendered>> {
        let mut rendered = BTreeMap::new();
        self.scratch.mark_mutating()?;
        for (file, text) in self.files {
            let regions: Vec<(u32, &Region)> = candidates
                .iter()
                .filter(|c| c.mutant.file == *file)
                .map(|c| (c.mutant.id, c.region()))
                .collect();
            let mut switched = switch::render(text, &regions);
            if file == MUTATED_LIB {
                switched.text.push_str(switch::MODULE);
            }
            self.scratch.write(file, &switched.text)?;
            rendered.insert(file.as_str(), switched);
        }
        Ok(rendered)
    }

    /// Says what a refused round did, with the compiler's errors in `switch-round-<n>.log`.
    fn log(&self, round: usize, errors: &[CompileError], moved: usize, left: usize) {
        let mut log = String::new();
        for error in errors {
            let _ = writeln!(log, "{}\n{}", located(error), error.rendered);
        }
        let log_name = format!("switch-round-{round}.log");
        let _ = std::fs::create_dir_all(self.log_dir);
        let _ = std::fs::write(self.log_dir.join(&log_name), &log);
        let located: Vec<String> = errors.iter().take(NAMED_ERRORS).map(located).collect();
        eprintln!(
            "switched build, round {round}: the compiler refused {} of the switched changes (errors at {}, see {log_name}); {moved} move to a larger region, {left} are rebuilt alone",
            moved + left,
            located.join(", "),
        );
    }
}

/// The mutants the compiler's errors blame. An error blames the switches its primary places lie
/// in, else those its other places (labels on a cause) lie in; they move to a larger region. An
/// error outside every switch says nothing about which mutant caused it: switching stops in its
/// files (or everywhere, if it points at no file with a mutant).
fn blame(
    errors: &[CompileError],
    rendered: &BTreeMap<&str, Rendered>,
    candidates: &[Candidate],
) -> Blamed {
    let mut blamed = Blamed::default();
    for error in errors {
        let in_switches = |primary: bool| -> Vec<u32> {
            error
                .spans
                .iter()
                .filter(|s| s.primary == primary)
                .filter_map(|s| rendered.get(s.file.as_str())?.blame(&s.range))
                .flatten()
                .collect()
        };
        let hits = match in_switches(true) {
            hits if hits.is_empty() => in_switches(false),
            hits => hits,
        };
        if !hits.is_empty() {
            blamed.widened.extend(hits);
            continue;
        }
        let in_files: Vec<u32> = candidates
            .iter()
            .filter(|c| error.spans.iter().any(|s| s.file == c.mutant.file))
            .map(|c| c.mutant.id)
            .collect();
        if in_files.is_empty() {
            blamed
                .dropped
                .extend(candidates.iter().map(|c| c.mutant.id));
        } else {
            blamed.dropped.extend(in_files);
        }
    }
    blamed
}

/// Where an error is, as `file@start..end`.
fn located(error: &CompileError) -> String {
    error.spans.first().map_or("@0..0".to_owned(), |s| {
        format!("{}@{}..{}", s.file, s.range.start, s.range.end)
    })
}
