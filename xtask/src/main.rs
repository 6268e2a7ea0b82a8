//! `cargo xtask`: project tasks (see `cargo xtask --help`).

use std::process::ExitCode;

use anyhow::Result;
use clap::{Parser, Subcommand};

#[derive(Parser, Debug)]
#[command(
    name = "cargo xtask",
    about = "Project tasks of the vvoc contract workspace"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Generate the reference document and the published schemas from the catalog and vectors.
    Docs {
        /// Write nothing; fail with a diff when a generated file differs from its sources.
        #[arg(long)]
        check: bool,
    },
    /// The mutation check: apply each row in a scratch copy and require its vectors to fail.
    ///
    /// Exit codes: 0 every run row caught; 1 usage error; 2 missed, imprecise or unviable rows;
    /// 3 timeouts; 4 the baseline fails; 5 stale rows.
    Mutants(MutantsArgs),
    /// Run every check the project has (format, clippy, tests, generated files, file lint,
    /// inventory coverage, the mutation check, the suite through conform peer, workflow lint),
    /// one line each (PASS, FAIL or SKIP), then a count. Exit code 1 when a check failed.
    Check {
        /// Only the checks that the paths changed since this git revision can affect (and the
        /// mutation rows those changes touch); the others are listed as skipped, with why.
        #[arg(long, value_name = "BASE")]
        changed: Option<String>,
        /// Do not run this check (repeatable), e.g. `--skip tests` when they already ran.
        #[arg(long, value_name = "NAME")]
        skip: Vec<String>,
        /// The workspace to check (default: this one).
        #[arg(long, value_name = "DIR")]
        workspace: Option<std::path::PathBuf>,
    },
    /// Measure checks per second: in process, through conform peer (1 and N processes), and
    /// with one process started per check.
    Bench {
        /// How many peer processes the parallel measurement uses.
        #[arg(long, default_value_t = 2)]
        jobs: usize,
        /// How many vectors the process-per-check measurement runs.
        #[arg(long, default_value_t = 500)]
        sample: usize,
        /// Only the MCP row: `tools/call` refusals through `conform mcp` over stdio, pipelined.
        #[arg(long)]
        mcp: bool,
    },
}

#[derive(clap::Args, Debug)]
#[command(args_conflicts_with_subcommands = true)]
struct MutantsArgs {
    #[command(subcommand)]
    merge: Option<MutantsCommand>,
    /// Only rows whose id contains this text (repeatable).
    #[arg(long = "row", value_name = "TEXT")]
    rows: Vec<String>,
    /// List the selected rows and exit.
    #[arg(long)]
    list: bool,
    /// Only rows touched since this git revision: their file changed, their caught_by vectors
    /// changed, or they were added.
    #[arg(long, value_name = "BASE")]
    changed: Option<String>,
    /// Only shard K of N (a stable split by row id), such as 1/4.
    #[arg(long, value_name = "K/N")]
    shard: Option<xtask::mutants::select::Shard>,
    /// Parallel workers (default: the number of cores).
    #[arg(long, value_name = "N")]
    jobs: Option<usize>,
    /// List every inventory rule with its reject vectors and rows; fail if one lacks either.
    #[arg(long)]
    coverage: bool,
    /// Rebuild every row alone instead of compiling switchable rows into one build.
    #[arg(long)]
    no_switch: bool,
    /// A fixed time limit for each mutant's suite run (default: 20 times the baseline's, at
    /// least 20 seconds).
    #[arg(long, value_name = "SECONDS")]
    suite_timeout: Option<f64>,
    /// The workspace to check (default: this one).
    #[arg(long, value_name = "DIR")]
    workspace: Option<std::path::PathBuf>,
    /// Where to write mutants.json, mutants.md and rows/ (default: reports/mutants).
    #[arg(long, value_name = "DIR")]
    report: Option<std::path::PathBuf>,
}

#[derive(Subcommand, Debug)]
enum MutantsCommand {
    /// Join shard reports (folders holding mutants.json) into one report.
    Merge {
        /// The shard report folders.
        #[arg(required = true, value_name = "DIR")]
        dirs: Vec<std::path::PathBuf>,
        /// Where the joined report goes (default: reports/mutants).
        #[arg(long, value_name = "DIR")]
        into: Option<std::path::PathBuf>,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    use xtask::mutants::interrupt;
    // Their own handler: what they run is asked to stop (a mutation run then writes a partial
    // report), and they say what ran.
    let grace = match cli.command {
        Command::Mutants(_) => Some(interrupt::TERM_GRACE),
        Command::Check { .. } => Some(interrupt::CHECK_TERM_GRACE),
        _ => None,
    };
    if let Some(grace) = grace {
        if let Err(error) = interrupt::install(grace) {
            eprintln!("warning: cannot handle interrupts ({error}); an interrupt kills the run");
        }
    } else {
        vvoc_harness::peer::child::kill_children_on_interrupt();
    }
    match run(cli) {
        Ok(code) => code,
        Err(error) => {
            eprintln!("error: {error:#}");
            ExitCode::from(1)
        }
    }
}

fn run(cli: Cli) -> Result<ExitCode> {
    match cli.command {
        Command::Docs { check } => {
            let summary = xtask::docs::generate(&xtask::workspace_root(), check)?;
            println!("{summary}");
            Ok(if summary.stale().next().is_some() {
                ExitCode::from(1)
            } else {
                ExitCode::SUCCESS
            })
        }
        Command::Mutants(args) => mutants(args),
        Command::Check {
            changed,
            skip,
            workspace,
        } => {
            let known: Vec<&str> = xtask::check::CHECKS.iter().map(|c| c.name).collect();
            if let Some(unknown) = skip.iter().find(|s| !known.contains(&s.as_str())) {
                anyhow::bail!(
                    "--skip {unknown}: no such check; the checks are {}",
                    known.join(", ")
                );
            }
            let root = workspace.unwrap_or_else(xtask::workspace_root);
            let ending = xtask::check::run(&root, changed.as_deref(), &skip)?;
            Ok(match ending {
                xtask::check::Ending::Passed => ExitCode::SUCCESS,
                xtask::check::Ending::Failed => ExitCode::from(1),
                xtask::check::Ending::Interrupted => ExitCode::from(130),
            })
        }
        Command::Bench { jobs, sample, mcp } => {
            let root = xtask::workspace_root();
            let measurements = match mcp {
                true => vec![xtask::bench_mcp::mcp_refusals(
                    &xtask::bench::release_conform(&root)?,
                    &root.join("vectors"),
                    xtask::bench_mcp::ROUNDS,
                )?],
                false => xtask::bench::bench(&root, jobs, sample)?,
            };
            print!("{}", xtask::bench::table(&measurements));
            Ok(ExitCode::SUCCESS)
        }
    }
}

fn mutants(args: MutantsArgs) -> Result<ExitCode> {
    use xtask::mutants::{self, report};
    let root = args.workspace.unwrap_or_else(xtask::workspace_root);
    if let Some(MutantsCommand::Merge { dirs, into }) = args.merge {
        let reports = dirs
            .iter()
            .map(|d| mutants::read_report(&d.join("mutants.json")))
            .collect::<Result<Vec<_>>>()?;
        let merged = report::merge(&reports)?;
        let into = into.unwrap_or_else(|| root.join("reports").join("mutants"));
        std::fs::create_dir_all(&into)?;
        std::fs::write(
            into.join("mutants.json"),
            format!("{}\n", serde_json::to_string_pretty(&merged)?),
        )?;
        std::fs::write(into.join("mutants.md"), report::markdown(&merged))?;
        println!("{}", report::summary_line(&merged));
        return Ok(ExitCode::from(report::exit_code_of(&merged)));
    }
    if args.coverage {
        let rows = match mutants::rows::load(&root) {
            Ok(rows) => rows,
            Err(error) => {
                eprintln!("error: {error}");
                return Ok(ExitCode::from(1));
            }
        };
        let complete = mutants::coverage::report(&root, &rows)?;
        return Ok(if complete {
            ExitCode::SUCCESS
        } else {
            ExitCode::from(2)
        });
    }
    let mut options = mutants::Options::new(&root);
    options.rows = args.rows;
    options.list = args.list;
    options.changed = args.changed;
    options.shard = args.shard;
    options.switch = !args.no_switch;
    if let Some(jobs) = args.jobs {
        options.jobs = jobs.max(1);
    }
    if let Some(report) = args.report {
        options.report = report;
    }
    options.suite_timeout = args.suite_timeout.map(std::time::Duration::from_secs_f64);
    Ok(ExitCode::from(mutants::run(&options)?))
}
