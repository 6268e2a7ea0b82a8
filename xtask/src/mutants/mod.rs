//! `cargo xtask mutants`: the mutation check.
//!
//! Every selected row is applied in a scratch copy of the workspace, never in the working tree;
//! the vector suite (`conform run`) runs there and must fail on the row's `caught_by` vectors.
//! Rows whose change is a Rust expression are compiled together into one switched build and run
//! one by one with `VVOC_MUTANT=<n>`; the rest are rebuilt alone in per-worker copies whose target
//! directories stay warm across rows and runs.

pub mod coverage;
pub mod outcome;
pub mod report;
pub mod rows;
pub mod scratch;
pub mod select;
pub mod suite;
pub mod switch;

use std::collections::{BTreeMap, VecDeque};
use std::io::IsTerminal as _;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use anyhow::{Context as _, Result};
use serde_json::Value;

use outcome::{MutantResult, RowOutcome, RowResult, classify, exit, exit_code};
use rows::Row;
use scratch::Scratch;
use select::Shard;
use suite::{Step, SuiteResult};
use switch::Region;

/// How a mutation run is carried out.
#[derive(Clone, Debug)]
pub struct Options {
    /// The workspace whose rows run.
    pub root: PathBuf,
    /// Parallel workers.
    pub jobs: usize,
    /// Only rows whose id contains one of these texts.
    pub rows: Vec<String>,
    /// List the selected rows instead of running them.
    pub list: bool,
    /// Only rows touched by the changes since this git revision.
    pub changed: Option<String>,
    /// Only this shard of the rows.
    pub shard: Option<Shard>,
    /// Compile switchable rows into one build.
    pub switch: bool,
    /// Where the report goes.
    pub report: PathBuf,
    /// The shortest time limit a suite run gets.
    pub timeout_floor: Duration,
    /// A fixed time limit for every suite run, instead of one derived from the baseline.
    pub suite_timeout: Option<Duration>,
}

impl Options {
    /// The defaults for the workspace at `root`.
    pub fn new(root: &Path) -> Options {
        Options {
            root: root.to_owned(),
            jobs: std::thread::available_parallelism().map_or(2, |n| n.get()),
            rows: Vec::new(),
            list: false,
            changed: None,
            shard: None,
            switch: true,
            report: root.join("reports").join("mutants"),
            timeout_floor: Duration::from_secs(20),
            suite_timeout: None,
        }
    }
}

/// Runs the mutation check; the exit code of interfaces.md §7.
pub fn run(options: &Options) -> Result<u8> {
    let all = match rows::load(&options.root) {
        Ok(rows) => rows,
        Err(error) => {
            eprintln!("error: {error}");
            return Ok(exit::USAGE);
        }
    };
    let Some((selected, why)) = select(options, &all)? else {
        return Ok(exit::USAGE);
    };
    if options.list {
        for row in &selected {
            let status = row
                .retired
                .as_ref()
                .map_or("active".to_owned(), |r| format!("retired: {r}"));
            println!("{}\t{}\t{status}", row.id, row.file);
        }
        return Ok(exit::OK);
    }
    if selected.is_empty() {
        println!("no mutation row selected ({why}); nothing to do");
        return Ok(exit::OK);
    }
    let started = Instant::now();
    let mut results: Vec<RowResult> = Vec::new();
    let mut runnable: Vec<Row> = Vec::new();
    for row in selected {
        if let Some(reason) = &row.retired {
            results.push(not_run(
                row.clone(),
                RowOutcome::Retired,
                format!("retired: {reason}"),
            ));
            continue;
        }
        let Ok(text) = std::fs::read_to_string(options.root.join(&row.file)) else {
            let detail = format!(
                "{} does not exist (or cannot be read); fix the row's `file`",
                row.file
            );
            results.push(not_run(row, RowOutcome::Stale, detail));
            continue;
        };
        match row.occurrences(&text) {
            1 => runnable.push(row),
            n => {
                let detail = format!(
                    "`find` occurs {n} times in {}; it must occur exactly once",
                    row.file
                );
                results.push(not_run(row, RowOutcome::Stale, detail));
            }
        }
    }
    // Rows that make the same change share one mutant.
    let mut mutants: BTreeMap<(String, String, String), Vec<Row>> = BTreeMap::new();
    for row in runnable {
        mutants
            .entry((row.file.clone(), row.find.clone(), row.replace.clone()))
            .or_default()
            .push(row);
    }
    let base = options.root.join("target").join("mutants");
    let worker_zero = Scratch::sync(&options.root, &base.join("worker-0"))?;
    eprintln!("building the baseline in {}", worker_zero.tree.display());
    let baseline_started = Instant::now();
    match suite::build(&worker_zero, Duration::from_secs(3600))? {
        Step::Done(Ok(_)) => {}
        Step::Done(Err(failure)) => {
            eprintln!("error: the baseline does not build:\n{}", failure.log);
            return Ok(exit::BASELINE);
        }
        Step::TimedOut => {
            eprintln!("error: the baseline build did not finish within an hour");
            return Ok(exit::BASELINE);
        }
    }
    let build_time = baseline_started.elapsed();
    let run_started = Instant::now();
    let baseline = suite::run(
        &worker_zero,
        &base.join("report-baseline"),
        Duration::from_secs(600),
        None,
        None,
    )?;
    let baseline_run = run_started.elapsed();
    match &baseline {
        Step::Done(result) if result.failures.is_empty() => {}
        Step::Done(result) => {
            eprintln!(
                "error: the baseline fails {} vectors; fix them before checking mutants:",
                result.failures.len()
            );
            for (vector, failure) in result.failures.iter().take(10) {
                eprintln!("  {vector}: {}", failure.what);
            }
            return Ok(exit::BASELINE);
        }
        Step::TimedOut => {
            eprintln!("error: the baseline suite did not finish within 10 minutes");
            return Ok(exit::BASELINE);
        }
    }
    let limits = Limits {
        build: (build_time * 10).max(Duration::from_secs(600)),
        run: options
            .suite_timeout
            .unwrap_or_else(|| (baseline_run * 20).max(options.timeout_floor)),
    };
    eprintln!(
        "baseline: built in {:.1} s, suite in {:.2} s; a mutant's suite run is stopped after {:.0} s",
        build_time.as_secs_f64(),
        baseline_run.as_secs_f64(),
        limits.run.as_secs_f64()
    );
    let total_rows: usize = mutants.values().map(Vec::len).sum();
    let progress = Progress::new(total_rows, options.jobs.max(1));
    let mut queue: Vec<Mutant> = mutants
        .into_iter()
        .map(|((file, find, replace), rows)| Mutant {
            file,
            find,
            replace,
            rows,
        })
        .collect();
    if options.switch {
        queue = run_switched(
            options,
            &worker_zero,
            &base,
            &limits,
            queue,
            &progress,
            &mut results,
        )?;
    }
    run_rebuilt(
        options,
        &base,
        worker_zero,
        &limits,
        build_time,
        queue,
        &progress,
        &mut results,
    )?;
    progress.finish();
    report::write(&options.report, &results, Some(baseline_run))?;
    let mut sorted: Vec<&RowResult> = results.iter().collect();
    sorted.sort_by(|a, b| a.row.id.cmp(&b.row.id));
    let json = report::to_json(&sorted, Some(baseline_run));
    for result in sorted.iter().filter(|r| r.outcome.is_problem()) {
        eprintln!(
            "{:<9} {} ({})",
            result.outcome.as_str(),
            result.row.id,
            first_line(&result.detail)
        );
    }
    println!("{}", report::summary_line(&json));
    println!(
        "{} rows in {:.1} s (report: {})",
        results.len(),
        started.elapsed().as_secs_f64(),
        options.report.join("mutants.md").display()
    );
    Ok(exit_code(results.iter().map(|r| r.outcome)))
}

/// The rows a run takes, and why, or `None` after a usage error was printed.
fn select(options: &Options, all: &[Row]) -> Result<Option<(Vec<Row>, String)>> {
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
                return Ok(None);
            }
        };
        selected.retain(|r| changed.contains(&r.id));
        why.push(format!("nothing changed since {base} touches a row"));
    }
    if let Some(shard) = options.shard {
        selected.retain(|r| shard.keeps(r));
        why.push(format!("shard {}/{}", shard.index, shard.count));
    }
    Ok(Some((
        selected,
        if why.is_empty() {
            "no rows".to_owned()
        } else {
            why.join("; ")
        },
    )))
}

/// The time limits of one mutant.
#[derive(Clone, Copy, Debug)]
struct Limits {
    build: Duration,
    run: Duration,
}

/// One change to build and run, with the rows that make it.
#[derive(Clone, Debug)]
struct Mutant {
    file: String,
    find: String,
    replace: String,
    rows: Vec<Row>,
}

impl Mutant {
    /// The vectors and scenarios that must fail for every row of this mutant to be caught.
    fn needed(&self) -> Vec<String> {
        self.rows
            .iter()
            .flat_map(|r| r.caught_by.iter().cloned())
            .collect()
    }
}

/// The switched phase, in worker 0's copy: one build for every mutant whose change is an
/// expression of the implementation crate; returns the mutants left for rebuilding, with the
/// copy put back as it was.
fn run_switched(
    options: &Options,
    scratch: &Scratch,
    base: &Path,
    limits: &Limits,
    queue: Vec<Mutant>,
    progress: &Progress,
    results: &mut Vec<RowResult>,
) -> Result<Vec<Mutant>> {
    let lib = "implementation/src/lib.rs";
    if !options.root.join(lib).is_file() {
        return Ok(queue);
    }
    let mut texts: BTreeMap<String, String> = BTreeMap::new();
    let mut switched: Vec<(u32, Mutant, Region)> = Vec::new();
    let mut rest = Vec::new();
    for mutant in queue {
        let text = texts
            .entry(mutant.file.clone())
            .or_insert_with(|| {
                std::fs::read_to_string(options.root.join(&mutant.file)).unwrap_or_default()
            })
            .clone();
        let region = mutant
            .file
            .starts_with("implementation/src/")
            .then(|| switch::region(&text, &mutant.find, &mutant.replace))
            .flatten();
        match region {
            // Overlapping regions cannot both be switched, unless they are the very same region.
            Some(region)
                if !switched.iter().any(|(_, m, r)| {
                    let same = (r.start, r.end) == (region.start, region.end);
                    m.file == mutant.file && r.start < region.end && region.start < r.end && !same
                }) =>
            {
                let id = switched.len() as u32 + 1;
                switched.push((id, mutant, region));
            }
            Some(_) | None => rest.push(mutant),
        }
    }
    if switched.is_empty() {
        return Ok(rest);
    }
    let lib_text = std::fs::read_to_string(options.root.join(lib))
        .with_context(|| format!("cannot read {lib}"))?;
    texts.entry(lib.to_owned()).or_insert(lib_text);
    // Whatever happens below, the copy is put back as it was for the rebuild phase.
    let _restore = Restore {
        scratch,
        files: texts.clone(),
    };
    let build_started = Instant::now();
    // Drop the mutants the compiler refuses, a few rounds at most; the dropped ones are rebuilt.
    for round in 0..12 {
        let mut by_file: BTreeMap<String, Vec<(u32, Region)>> = BTreeMap::new();
        for (id, mutant, region) in &switched {
            by_file
                .entry(mutant.file.clone())
                .or_default()
                .push((*id, region.clone()));
        }
        // Every file considered is written each round, so a file whose mutants were all dropped
        // goes back to its original text.
        for file in texts.keys() {
            by_file.entry(file.clone()).or_default();
        }
        let mut spans: BTreeMap<String, Vec<(u32, usize, usize)>> = BTreeMap::new();
        for (file, regions) in &by_file {
            let original = &texts[file];
            let regions: Vec<(u32, &Region)> = regions.iter().map(|(id, r)| (*id, r)).collect();
            let mut wrapped = switch::apply(original, &regions);
            spans.insert(file.clone(), wrapped_spans(original, &regions));
            if file == lib {
                wrapped.push_str(switch::MODULE);
            }
            scratch.write(file, &wrapped)?;
        }
        let errors = match suite::build_json(scratch, limits.build)? {
            Step::TimedOut => None,
            Step::Done(errors) => Some(errors),
        };
        let Some(errors) = errors else {
            rest.extend(switched.drain(..).map(|(_, m, _)| m));
            break;
        };
        if errors.is_empty() {
            break;
        }
        let mut dropped: Vec<u32> = Vec::new();
        let mut log = String::new();
        for (file, start, end, rendered) in &errors {
            log.push_str(&format!("{file}@{start}..{end}\n{rendered}\n"));
            let in_file = spans.get(file).map(Vec::as_slice).unwrap_or_default();
            let hits: Vec<u32> = in_file
                .iter()
                .filter(|(_, s, e)| s < end && start < e)
                .map(|(id, _, _)| *id)
                .collect();
            // An error outside every region says nothing about which mutant caused it: give up
            // switching in that file (or everywhere, if the file holds no mutant).
            let blamed: Vec<u32> = if !hits.is_empty() {
                hits
            } else if in_file.is_empty() {
                switched.iter().map(|(id, _, _)| *id).collect()
            } else {
                in_file.iter().map(|(id, _, _)| *id).collect()
            };
            dropped.extend(blamed);
        }
        let (keep, drop): (Vec<_>, Vec<_>) = switched
            .into_iter()
            .partition(|(id, _, _)| !dropped.contains(id));
        let located: Vec<String> = errors
            .iter()
            .take(3)
            .map(|(file, start, _, _)| format!("{file}@{start}"))
            .collect();
        let _ = std::fs::create_dir_all(&options.report);
        let _ = std::fs::write(
            options
                .report
                .join(format!("switch-round-{}.log", round + 1)),
            &log,
        );
        eprintln!(
            "switched build, round {}: the compiler refused {} of the switched changes (errors at {}, see switch-round-{}.log); they are rebuilt alone",
            round + 1,
            drop.len(),
            located.join(", "),
            round + 1
        );
        rest.extend(drop.into_iter().map(|(_, m, _)| m));
        switched = keep;
        if switched.is_empty() || round == 11 {
            rest.extend(switched.drain(..).map(|(_, m, _)| m));
            break;
        }
    }
    if switched.is_empty() {
        return Ok(rest);
    }
    let build_time = build_started.elapsed();
    // The switched build with no mutant active must still pass, or its results mean nothing.
    match suite::run(scratch, &base.join("report-switch"), limits.run, None, None)? {
        Step::Done(result) if result.failures.is_empty() => {}
        _ => {
            eprintln!(
                "warning: the switched build fails without a mutant; every row is rebuilt alone"
            );
            rest.extend(switched.into_iter().map(|(_, m, _)| m));
            return Ok(rest);
        }
    }
    eprintln!(
        "{} rows compiled into one switched build in {:.1} s; {} rows left to rebuild",
        switched.iter().map(|(_, m, _)| m.rows.len()).sum::<usize>(),
        build_time.as_secs_f64(),
        rest.iter().map(|m| m.rows.len()).sum::<usize>()
    );
    let work = Mutex::new(switched.into_iter().collect::<VecDeque<_>>());
    let done = Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for worker in 0..options.jobs.max(1) {
            let (work, done) = (&work, &done);
            scope.spawn(move || {
                let report = base.join(format!("report-switch-{worker}"));
                while let Some((id, mutant, _)) = work.lock().ok().and_then(|mut q| q.pop_front()) {
                    let started = Instant::now();
                    let needed = mutant.needed();
                    let result =
                        match suite::run(scratch, &report, limits.run, Some(id), Some(&needed)) {
                            Ok(Step::Done(suite)) => MutantResult::Ran(suite),
                            Ok(Step::TimedOut) => MutantResult::TimedOut,
                            Err(error) => MutantResult::Unviable(format!("{error:#}")),
                        };
                    let rows = finish(&mutant, &result, started.elapsed(), "switched");
                    progress.record(&rows);
                    if let Ok(mut done) = done.lock() {
                        done.extend(rows);
                    }
                }
            });
        }
    });
    results.extend(done.into_inner().unwrap_or_default());
    Ok(rest)
}

/// Puts files of a copy back to their original text when dropped.
struct Restore<'a> {
    scratch: &'a Scratch,
    files: BTreeMap<String, String>,
}

impl Drop for Restore<'_> {
    fn drop(&mut self) {
        for (file, text) in &self.files {
            if self.scratch.read(file).ok().as_deref() != Some(text.as_str()) {
                let _ = self.scratch.write(file, text);
            }
        }
    }
}

/// The rebuild phase: each worker applies a mutant to its own copy, builds, runs, restores.
#[allow(clippy::too_many_arguments)]
fn run_rebuilt(
    options: &Options,
    base: &Path,
    worker_zero: Scratch,
    limits: &Limits,
    baseline_build: Duration,
    queue: Vec<Mutant>,
    progress: &Progress,
    results: &mut Vec<RowResult>,
) -> Result<()> {
    if queue.is_empty() {
        return Ok(());
    }
    let work = Mutex::new(queue.into_iter().collect::<VecDeque<_>>());
    let done = Mutex::new(Vec::new());
    let failure: Mutex<Option<anyhow::Error>> = Mutex::new(None);
    let queued = work.lock().map(|w| w.len()).unwrap_or(1);
    // Another worker pays for its first build: it joins when its target directory is warm, or
    // when the queue (at about two seconds a mutant) outlasts a build as long as the baseline's.
    let useful = |worker: usize| {
        base.join(format!("worker-{worker}"))
            .join("target")
            .is_dir()
            || Duration::from_secs(2 * queued as u64) > baseline_build
    };
    let jobs = 1
        + (1..options.jobs.max(1).min(queued))
            .take_while(|&w| useful(w))
            .count();
    std::thread::scope(|scope| {
        for worker in 0..jobs {
            let (work, done, failure) = (&work, &done, &failure);
            let ready = (worker == 0).then(|| worker_zero.clone());
            scope.spawn(move || {
                let outcome = (|| -> Result<()> {
                    let scratch = match ready {
                        Some(scratch) => scratch,
                        None => {
                            // A first build of its own, so that no row's time includes it.
                            let scratch = Scratch::sync(
                                &options.root,
                                &base.join(format!("worker-{worker}")),
                            )?;
                            suite::build(&scratch, limits.build)?;
                            scratch
                        }
                    };
                    let report = base.join(format!("report-worker-{worker}"));
                    while let Some(mutant) = work.lock().ok().and_then(|mut q| q.pop_front()) {
                        let started = Instant::now();
                        let result = rebuild(&scratch, &report, limits, &mutant)?;
                        let rows = finish(&mutant, &result, started.elapsed(), "rebuilt");
                        progress.record(&rows);
                        if let Ok(mut done) = done.lock() {
                            done.extend(rows);
                        }
                    }
                    Ok(())
                })();
                if let (Err(error), Ok(mut failure)) = (outcome, failure.lock()) {
                    failure.get_or_insert(error);
                }
            });
        }
    });
    if let Some(error) = failure.into_inner().unwrap_or_default() {
        return Err(error);
    }
    results.extend(done.into_inner().unwrap_or_default());
    Ok(())
}

/// Applies one mutant to a copy, builds and runs it, and puts the file back.
fn rebuild(
    scratch: &Scratch,
    report: &Path,
    limits: &Limits,
    mutant: &Mutant,
) -> Result<MutantResult> {
    let original = scratch.read(&mutant.file)?;
    scratch.write(
        &mutant.file,
        &original.replacen(&mutant.find, &mutant.replace, 1),
    )?;
    let result = (|| -> Result<MutantResult> {
        Ok(match suite::build(scratch, limits.build)? {
            Step::TimedOut => MutantResult::TimedOut,
            Step::Done(Err(failure)) => MutantResult::Unviable(failure.log),
            Step::Done(Ok(_)) => {
                match suite::run(scratch, report, limits.run, None, Some(&mutant.needed()))? {
                    Step::Done(suite) => MutantResult::Ran(suite),
                    Step::TimedOut => MutantResult::TimedOut,
                }
            }
        })
    })();
    scratch.write(&mutant.file, &original)?;
    result
}

/// The row results of one mutant.
fn finish(
    mutant: &Mutant,
    result: &MutantResult,
    duration: Duration,
    mode: &'static str,
) -> Vec<RowResult> {
    let (failures, detail) = match result {
        MutantResult::Ran(SuiteResult { failures, vectors }) => (
            failures.clone(),
            format!(
                "{} of {vectors} vectors failed under the mutant\n",
                failures.len()
            ),
        ),
        MutantResult::Unviable(log) => (
            BTreeMap::new(),
            format!("the mutant does not build:\n{log}"),
        ),
        MutantResult::TimedOut => (
            BTreeMap::new(),
            "the build or the suite ran out of time".to_owned(),
        ),
    };
    mutant
        .rows
        .iter()
        .map(|row| RowResult {
            row: row.clone(),
            outcome: classify(row, result),
            duration,
            mode,
            failures: failures.clone(),
            detail: detail.clone(),
        })
        .collect()
}

fn not_run(row: Row, outcome: RowOutcome, detail: String) -> RowResult {
    RowResult {
        row,
        outcome,
        duration: Duration::ZERO,
        mode: "not run",
        failures: BTreeMap::new(),
        detail,
    }
}

/// Where each region ends up in the wrapped text: (mutant, start, end); mutants sharing a region
/// share its whole span.
fn wrapped_spans(original: &str, regions: &[(u32, &Region)]) -> Vec<(u32, usize, usize)> {
    let mut growth = 0usize;
    let mut spans = Vec::new();
    for (start, end, switches) in switch::chains(regions) {
        let wrapped = switch::wrap(&original[start..end], &switches).len();
        spans.extend(
            switches
                .iter()
                .map(|(id, _)| (*id, start + growth, start + growth + wrapped)),
        );
        growth += wrapped - (end - start);
    }
    spans
}

fn first_line(text: &str) -> &str {
    text.lines().next().unwrap_or_default()
}

/// Progress on a terminal (one updating line) or on CI (a plain line per mutant).
struct Progress {
    total: usize,
    jobs: usize,
    started: Instant,
    counts: Mutex<(usize, usize, usize)>,
    terminal: bool,
}

impl Progress {
    fn new(total: usize, jobs: usize) -> Progress {
        Progress {
            total,
            jobs,
            started: Instant::now(),
            counts: Mutex::new((0, 0, 0)),
            terminal: std::io::stderr().is_terminal(),
        }
    }

    fn record(&self, rows: &[RowResult]) {
        let Ok(mut counts) = self.counts.lock() else {
            return;
        };
        for row in rows {
            counts.0 += 1;
            match row.outcome {
                RowOutcome::Caught => counts.1 += 1,
                RowOutcome::Retired | RowOutcome::Stale => {}
                RowOutcome::Imprecise
                | RowOutcome::Missed
                | RowOutcome::Unviable
                | RowOutcome::Timeout => counts.2 += 1,
            }
        }
        let (done, caught, problems) = *counts;
        let elapsed = self.started.elapsed().as_secs_f64();
        let eta = elapsed / done.max(1) as f64 * (self.total - done.min(self.total)) as f64;
        if self.terminal {
            eprint!(
                "\r\x1b[2Krows {done}/{} · caught {caught} · problems {problems} · ETA {eta:.0} s ({} jobs)",
                self.total, self.jobs
            );
        } else if let Some(row) = rows.first() {
            eprintln!(
                "[{done}/{}] {:<9} {:>6.2} s  {}{}",
                self.total,
                row.outcome.as_str(),
                row.duration.as_secs_f64(),
                row.row.id,
                if rows.len() > 1 {
                    format!(" (+{} rows with the same change)", rows.len() - 1)
                } else {
                    String::new()
                }
            );
        }
    }

    fn finish(&self) {
        if self.terminal {
            eprintln!();
        }
    }
}

/// Reads a `mutants.json`.
pub fn read_report(path: &Path) -> Result<Value> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    serde_json::from_str(&text).with_context(|| format!("{} is not JSON", path.display()))
}
