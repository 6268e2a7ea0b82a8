//! `cargo xtask mutants`: the mutation check.
//!
//! A run is planned first (`plan.rs`: which rows, which are stale or retired, which share a
//! mutant), then carried out in scratch copies of the workspace, never in the working tree: the
//! baseline must build and pass (`baseline.rs`; its suite runs on a frozen copy of its runner
//! while the switched build compiles), the mutants whose change is a Rust node of the
//! implementation are compiled into one switched build and run one by one with
//! `VVOC_MUTANT=<n>` (`switched.rs`), and the rest are rebuilt alone in per-worker copies whose
//! builds stay warm across rows and runs (`rebuilt.rs`); the copies compile in the workspace's
//! build directory, their own crates named apart (`naming.rs`). Both run on one pool of
//! workers (`execute.rs`); every row's suite (`conform run`) must fail on its `caught_by`
//! vectors.

pub mod baseline;
pub mod change;
pub mod coverage;
pub mod execute;
pub mod interrupt;
pub mod markdown;
pub mod named;
pub mod naming;
pub mod outcome;
pub mod plan;
pub mod pool;
pub mod progress;
pub mod rebuilt;
pub mod region;
pub mod report;
pub mod rounds;
pub mod row_file;
pub mod rows;
pub mod rows_error;
pub mod scratch;
pub mod select;
pub mod stale;
pub mod suite;
pub mod switch;
pub mod switched;
pub mod syntax;
pub mod tokens;
pub mod workspace;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::Result;

use execute::execute;
use outcome::exit;
use progress::Progress;
use rebuilt::Rebuilt;
use report::Report;
use select::Shard;
use workspace::Workspace;

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
            report: Workspace::new(root).report(),
            timeout_floor: Duration::from_secs(20),
            suite_timeout: None,
        }
    }
}

/// Runs the mutation check; the exit code of interfaces.md §7.
pub fn run(options: &Options) -> Result<u8> {
    let all = match rows::load_set(&options.root) {
        Ok(set) => set,
        Err(error) => {
            eprintln!("error: {error}");
            return Ok(exit::USAGE);
        }
    };
    let Some(plan) = plan::plan(options, &all) else {
        return Ok(exit::USAGE);
    };
    if options.list {
        for row in &plan.selected {
            let status = row
                .retired
                .as_ref()
                .map_or("active".to_owned(), |r| format!("retired: {r}"));
            println!("{}\t{}\t{status}", row.id, row.file);
        }
        return Ok(exit::OK);
    }
    if plan.selected.is_empty() {
        println!("no mutation row selected ({}); nothing to do", plan.why);
        return Ok(exit::OK);
    }
    let started = Instant::now();
    let workspace = Workspace::new(&options.root);
    let built = match baseline::build(&workspace) {
        Ok(Ok(built)) => built,
        Ok(Err(code)) => return Ok(code),
        Err(error) => return baseline_error(error, options),
    };
    let rows_to_run = plan.rows_to_run();
    let mut left = plan.mutants;
    // While the switched build compiles, the baseline's suite runs on a frozen copy of its
    // runner: most of that run waits on one scenario's timer (30 s), and the build needs only
    // the baseline's build time for its limit.
    let (checked, compiled) = if options.switch {
        let frozen = built.scratch.frozen("baseline-runner")?;
        std::thread::scope(|scope| {
            let check = scope.spawn(|| baseline::check(&workspace, &built, &frozen, options));
            let compiled = switched::compile(
                &workspace,
                &built.scratch,
                built.build_limit(),
                std::mem::take(&mut left),
                &options.report,
            );
            let checked = check
                .join()
                .unwrap_or_else(|_| Err(anyhow::anyhow!("the baseline's suite run panicked")));
            (checked, Some(compiled))
        })
    } else {
        let checked = baseline::check(&workspace, &built, &built.scratch, options);
        (checked, None)
    };
    let baseline = match checked {
        Ok(Ok(baseline)) => baseline,
        Ok(Err(code)) => {
            // The copy is put back before its mark goes.
            drop(compiled);
            scratch::clear_marks(&workspace.scratch())?;
            return Ok(code);
        }
        Err(error) => {
            drop(compiled);
            return baseline_error(error, options);
        }
    };
    let jobs = options.jobs.max(1);
    let selected = plan.selected.len();
    let progress = Progress::new(rows_to_run, jobs);
    let mut results = plan.not_run;
    let phases = (|| -> Result<()> {
        if let Some(compiled) = compiled {
            let switching = switched::finish(compiled?, baseline.limits)?;
            results.extend(execute(
                &switching.run,
                jobs,
                switching.switched,
                &progress,
            )?);
            left = switching.rest;
        }
        if interrupt::stopping() {
            return Err(interrupt::Interrupted.into());
        }
        let rebuilt = Rebuilt::new(&workspace, &baseline);
        let workers = rebuilt.workers(jobs, left.len());
        results.extend(execute(&rebuilt, workers, left, &progress)?);
        if interrupt::stopping() {
            return Err(interrupt::Interrupted.into());
        }
        scratch::clear_marks(&workspace.scratch())
    })();
    let interrupted = match phases {
        Ok(()) => false,
        Err(error) if interrupt::is(&error) => true,
        Err(error) => return Err(error),
    };
    progress.finish();
    results.sort_by(|a, b| a.row.id.cmp(&b.row.id));
    let mut report = Report::new(&results, Some(baseline.run_time));
    if interrupted {
        report = report.interrupted(selected.saturating_sub(results.len()));
    }
    report::write(&options.report, &report, &results)?;
    for line in stale::problem_lines(&results) {
        eprintln!("{line}");
    }
    println!("{}", report.summary_line());
    if interrupted {
        println!("{}", interrupted_line(&report));
        interrupt::end();
    }
    println!(
        "{} rows in {:.1} s (report: {})",
        results.len(),
        started.elapsed().as_secs_f64(),
        options.report.join("mutants.md").display()
    );
    Ok(report.exit_code())
}

/// The end of a run whose baseline raised `error`: an interrupt ends it with its exit code, and
/// keeps the previous report; anything else is returned.
fn baseline_error(error: anyhow::Error, options: &Options) -> Result<u8> {
    if !interrupt::is(&error) {
        return Err(error);
    }
    eprintln!(
        "\ninterrupted during the baseline: no row ran; {} is kept as it was",
        options.report.display()
    );
    interrupt::end();
    Ok(exit::INTERRUPTED)
}

/// What an interrupted run did, in one line: rows done, caught, missed, not run.
fn interrupted_line(report: &Report) -> String {
    use outcome::RowOutcome;
    let done = report.rows.len();
    let caught = report.totals.get(RowOutcome::Caught);
    let missed = report.totals.get(RowOutcome::Missed);
    let other = done - caught - missed;
    format!(
        "interrupted: {done} rows done ({caught} caught, {missed} missed, {other} other), {} not \
         run; the report says it is partial (\"partial\": true); run again for a whole verdict",
        report.not_run
    )
}

/// Reads a `mutants.json`.
pub fn read_report(path: &Path) -> Result<Report> {
    Report::read(path)
}
