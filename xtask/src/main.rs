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
    }
}
