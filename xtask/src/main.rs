//! `cargo xtask`: project tasks (see `cargo xtask --help`).

use std::process::ExitCode;

use anyhow::Result;
use clap::{Parser, Subcommand};

#[derive(Parser, Debug)]
#[command(name = "cargo xtask", about = "Project tasks of the vvoc contract workspace")]
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
    /// Measure checks per second: in process, through conform peer (1 and N processes), and
    /// with one process started per check.
    Bench {
        /// How many peer processes the parallel measurement uses.
        #[arg(long, default_value_t = 2)]
        jobs: usize,
        /// How many vectors the process-per-check measurement runs.
        #[arg(long, default_value_t = 500)]
        sample: usize,
    },
}

fn main() -> ExitCode {
    match run(Cli::parse()) {
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
            Ok(if summary.stale().next().is_some() { ExitCode::from(1) } else { ExitCode::SUCCESS })
        }
        Command::Bench { jobs, sample } => {
            let measurements = xtask::bench::bench(&xtask::workspace_root(), jobs, sample)?;
            print!("{}", xtask::bench::table(&measurements));
            Ok(ExitCode::SUCCESS)
        }
    }
}
