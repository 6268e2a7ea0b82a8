//! `conform fuzz`: generate inputs, compare the peer's answers with the reference's (or another
//! peer's), shrink and class the disagreements, print the summary, write the reports.

use std::io::IsTerminal as _;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use anyhow::{Context as _, Result, bail};
use clap::Args;
use vvoc_harness::Level;
use vvoc_harness::fuzz::error::FuzzError;
use vvoc_harness::fuzz::options::{Options, Progress};
use vvoc_harness::fuzz::report;
use vvoc_harness::fuzz::run::fuzz;
use vvoc_harness::load::sources::Source;
use vvoc_harness::load::suite::load_sources;
use vvoc_harness::mcp_client::servers::{McpOptions, McpServer};
use vvoc_harness::peer::options::PeerOptions;
use vvoc_harness::peer::process::PeerCommand;
use vvoc_harness::scenario::scratch::default_parent;
use vvoc_reference::{Json, Tool};

use super::{FAILED, OK, UNUSABLE, write_out};

/// The options of `conform fuzz`.
#[derive(Args, Debug)]
#[command(after_long_help = "Examples:\n  \
    conform fuzz --peer \"python3 my_peer.py\" --count 100000 --out reports/fuzz\n  \
    conform fuzz --peer \"./my-impl\" --tool web_fetch --level verdict --seed 7\n  \
    conform fuzz --peer \"./new-impl\" --against \"./old-impl\" --jobs 2 --time-limit 60\n  \
    conform fuzz --mcp \"conform mcp --root {root}\" --count 10000   # refusals as tools/calls\n  \
    conform fuzz --dry-run --count 100000          # generation alone: rate, rules that never fire\n\n\
    Exit codes: 0 no finding; 2 findings; 1 usage error; 3 a peer is unusable.")]
pub(crate) struct FuzzArgs {
    /// The implementation under test: a command speaking the JSON Lines peer protocol (split
    /// into words like a shell would, run without a shell), e.g. "python3 my_peer.py".
    #[arg(long, value_name = "CMD", required_unless_present_any = ["dry_run", "mcp"])]
    peer: Option<String>,
    /// Test an MCP server started by this command instead of a peer ("{root}" is replaced by
    /// a scratch directory of its own): the inputs the reference refuses are sent to it as
    /// tools/calls, the ones it accepts are not observable (a call would execute the tool).
    #[arg(long, value_name = "CMD", conflicts_with_all = ["peer", "against", "dry_run"])]
    mcp: Option<String>,
    /// Compare with this second peer instead of the reference in process, e.g. an older
    /// version of the implementation.
    #[arg(long, value_name = "CMD")]
    against: Option<String>,
    /// Only inputs of this tool (repeatable; default: every tool both sides implement).
    #[arg(long = "tool", value_name = "TOOL")]
    tools: Vec<String>,
    /// How many inputs to generate.
    #[arg(long, default_value_t = 100_000, value_name = "N")]
    count: u64,
    /// The seed: the same seed and count give the same inputs and findings, whatever --jobs.
    #[arg(long, default_value_t = 1, value_name = "S")]
    seed: u64,
    /// How much of an answer must match: verdict, first, issues or exact (default exact);
    /// over --mcp verdict or text (default text).
    #[arg(long, value_name = "LEVEL")]
    level: Option<Level>,
    /// How many peer processes (and workers) run at once.
    #[arg(long, default_value_t = 1, value_name = "N", value_parser = clap::value_parser!(u64).range(1..=64))]
    jobs: u64,
    /// Write fuzz.json, summary.md and vectors/<tool>/fuzz-seed-<S>.json (the minimal examples,
    /// with the reference's verdict as expectation) into this folder.
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// Stop generating after this many seconds (the findings are then no longer determined by
    /// the seed alone).
    #[arg(long, value_name = "SECS")]
    time_limit: Option<f64>,
    /// How long a peer may go without answering.
    #[arg(long, default_value_t = 5000, value_name = "MS", value_parser = clap::value_parser!(u64).range(1..))]
    timeout_ms: u64,
    /// How many peer restarts (after a timeout, crash or protocol error) before the peer counts
    /// as unusable.
    #[arg(long, default_value_t = 10, value_name = "N")]
    max_restarts: usize,
    /// How many candidates the shrinker may try for each class.
    #[arg(long, default_value_t = 4000, value_name = "N")]
    shrink_budget: usize,
    /// Check every protocol message, both ways, against the protocol schemas.
    #[arg(long)]
    validate_protocol: bool,
    /// No peer: generate and check with the reference alone, to measure the rate and see which
    /// rules the inputs reach.
    #[arg(long, conflicts_with_all = ["peer", "against"])]
    dry_run: bool,
}

/// `conform fuzz`.
pub(crate) fn run(args: FuzzArgs) -> Result<u8> {
    let tools = args
        .tools
        .iter()
        .map(|t| t.parse::<Tool>())
        .collect::<Result<Vec<_>, _>>()?;
    let time_limit = match args.time_limit {
        Some(secs) if !(secs.is_finite() && secs > 0.0) => {
            bail!("--time-limit must be a positive number of seconds")
        }
        secs => secs.map(Duration::from_secs_f64),
    };
    let peer_options = |command: &String| -> Result<PeerOptions> {
        let mut options =
            PeerOptions::new(PeerCommand::parse(command).map_err(anyhow::Error::msg)?);
        options.timeout = Duration::from_millis(args.timeout_ms);
        options.jobs = args.jobs as usize;
        options.max_restarts = args.max_restarts;
        options.validate_protocol = args.validate_protocol;
        options.window = 64;
        Ok(options)
    };
    let mcp = args.mcp.as_ref().map(|command| McpOptions {
        timeout: Duration::from_millis(args.timeout_ms),
        jobs: args.jobs as usize,
        max_restarts: args.max_restarts,
        ..McpOptions::new(McpServer::Command(command.clone()), default_parent())
    });
    let options = Options {
        peer: args.peer.as_ref().map(peer_options).transpose()?,
        against: args.against.as_ref().map(peer_options).transpose()?,
        mcp,
        tools,
        count: args.count,
        seed: args.seed,
        level: level_of(&args)?,
        jobs: args.jobs as usize,
        time_limit,
        shrink_budget: args.shrink_budget,
    };
    let vectors: Vec<(Tool, Json)> = load_sources(&[Source::Builtin])
        .context("cannot load the built-in vectors")?
        .vectors
        .into_iter()
        .map(|v| (v.tool, v.input))
        .collect();
    let mut line = ProgressLine::new();
    let fuzzed = match fuzz(&options, &vectors, &mut |p| line.show(p)) {
        Ok(fuzzed) => fuzzed,
        Err(FuzzError::Unusable(reason)) => {
            line.clear();
            eprintln!("error: the peer is unusable: {reason}");
            return Ok(UNUSABLE);
        }
        Err(error @ (FuzzError::NoTools { .. } | FuzzError::RunnerProtocol(_))) => {
            line.clear();
            bail!("{error}")
        }
    };
    line.clear();
    write_out(&report::summary(&fuzzed));
    if let Some(dir) = &args.out {
        report::write(dir, &fuzzed)
            .with_context(|| format!("cannot write the reports into {}", dir.display()))?;
        write_out(&format!("reports written to {}\n", dir.display()));
    }
    if let Some(reason) = &fuzzed.unusable {
        eprintln!("error: the peer is unusable: {reason}");
        if !fuzzed.stderr_tail.trim().is_empty() {
            eprintln!("its stderr ends with:\n{}", fuzzed.stderr_tail.trim_end());
        }
        return Ok(UNUSABLE);
    }
    Ok(match fuzzed.findings {
        0 => OK,
        _ => FAILED,
    })
}

/// The run's level: `--level`, by default `exact`, or over MCP `text`; over MCP only `verdict`
/// and `text` can be observed.
fn level_of(args: &FuzzArgs) -> Result<Level> {
    match (args.mcp.is_some(), args.level) {
        (false, None) => Ok(Level::Exact),
        (true, None) => Ok(Level::Text),
        (true, Some(level @ (Level::First | Level::Issues | Level::Exact))) => bail!(
            "--level {level}: an MCP result shows a refusal as one text, not its issues one by one; the levels over MCP are verdict and text"
        ),
        (_, Some(level)) => Ok(level),
    }
}

/// The progress line on stderr: rewritten in place on a terminal, a line every few seconds
/// otherwise.
struct ProgressLine {
    terminal: bool,
    last: Option<Instant>,
    shown: bool,
}

/// How often a progress line is written when stderr is not a terminal.
const EVERY: Duration = Duration::from_secs(5);

impl ProgressLine {
    fn new() -> ProgressLine {
        ProgressLine {
            terminal: std::io::stderr().is_terminal(),
            last: None,
            shown: false,
        }
    }

    fn show(&mut self, p: Progress) {
        let now = Instant::now();
        let due = match self.terminal {
            true => true,
            false => self.last.is_none_or(|last| now - last >= EVERY),
        };
        if !due || (!self.terminal && p.elapsed < EVERY) {
            return;
        }
        self.last = Some(now);
        let rate = p.inputs as f64 / p.elapsed.as_secs_f64().max(1e-9);
        let phase = match p.shrinking {
            true => ", shrinking",
            false => "",
        };
        let text = format!(
            "fuzz: {} inputs, {:.0} inputs/s, {} findings{phase}",
            p.inputs, rate, p.findings
        );
        match self.terminal {
            true => {
                eprint!("\r\x1b[2K{text}");
                self.shown = true;
            }
            false => eprintln!("{text}"),
        }
    }

    fn clear(&mut self) {
        if self.shown {
            eprint!("\r\x1b[2K");
            self.shown = false;
        }
    }
}
