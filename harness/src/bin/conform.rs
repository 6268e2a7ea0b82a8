//! `conform`: runs the vvoc contract vectors against the reference implementation or any peer.

use std::collections::HashSet;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context as _, Result, bail};
use clap::{Args, CommandFactory as _, FromArgMatches as _, Parser, Subcommand};
use vvoc_harness::Level;
use vvoc_harness::load::builtin;
use vvoc_harness::load::error::{LoadError, VectorProblem};
use vvoc_harness::load::lint::{Violation, ViolationKind, lint_folder, lint_source};
use vvoc_harness::load::sources::{Source, sources};
use vvoc_harness::load::suite::{Suite, load_sources};
use vvoc_harness::meta_schema;
use vvoc_harness::scenario::model::ScenarioProblem;
use vvoc_harness::serve::serve;
use vvoc_reference::exec::anchors;
use vvoc_reference::{Json, Tool, Verdict, one_line, validate_json};

/// Every check allocates its normalized output and issues; mimalloc's small-object paths take
/// about a third of the time of the system allocator's on the bench stream.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Exit code: nothing failed.
const OK: u8 = 0;
/// Exit code: bad arguments, or an unreadable or invalid vector file.
const USAGE: u8 = 1;
/// Exit code: some vectors failed (or `check` refused the input).
const FAILED: u8 = 2;
/// Exit code: the peer is unusable (cannot start, bad hello, or too many restarts).
const UNUSABLE: u8 = 3;
/// Exit code: an interrupt stopped the run (as a shell reports an interrupted command).
const INTERRUPTED: u8 = 130;

#[derive(Parser, Debug)]
#[command(
    name = "conform",
    version,
    about = "Conformance runner for the vvoc agent tool input contracts 1.6.0",
    long_about = "Conformance runner for the vvoc agent tool input contracts 1.6.0.\n\n\
        Runs the accept and reject vectors (vectors/**/*.json) and the scenarios of the two editors \
        (vectors/<tool>/exec-*.json, run in scratch directories) against the in-process reference \
        implementation, or against any implementation that speaks the JSON Lines peer protocol. \
        The vector and scenario files are built in (embedded when conform was built; --version \
        names their digest), so it runs from any directory; --vectors DIR adds folders, \
        --no-builtin leaves the built-in set out, and `conform vectors export DIR` writes it out.\n\n\
        Exit codes: 0 nothing failed; 1 usage or input error; 2 some vectors or scenarios failed \
        (or `check` refused its input, or `exec` returned an error); 3 the peer is unusable."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Run the vectors and scenarios against the reference (or a peer with --peer) and print a
    /// summary per tool.
    Run(RunArgs),
    /// Serve the reference implementation over the peer protocol on stdin and stdout.
    Peer,
    /// Hunt disagreements: generate inputs from the catalog and from mutated vectors, compare a
    /// peer's answers with the reference's (or another peer's), shrink each disagreement to a
    /// minimal input and group them into classes.
    ///
    /// Example: conform fuzz --peer "python3 my_peer.py" --count 100000 --out reports/fuzz
    Fuzz(fuzz_command::FuzzArgs),
    /// Measure checks per second: the reference alone, and with --peer an implementation fed the
    /// bench stream (every vector's check, --rounds times, pipelined).
    ///
    /// Example: conform bench --peer "python3 my_peer.py" --rounds 10
    Bench(BenchArgs),
    /// Validate one input with the reference and print the verdict as JSON (exit 0 accept, 2 reject).
    Check {
        /// The tool, such as web_search.
        tool: String,
        /// The input as JSON text; read from standard input when absent.
        input: Option<String>,
    },
    /// Print the anchored view of a file, as hashline_edit's read side shows it (execution.md §1.3).
    Anchors {
        /// The file.
        file: PathBuf,
    },
    /// Run one call of a tool and print what it returns: an editor in the current directory, or a
    /// web tool over the network.
    ///
    /// THIS CHANGES FILES: an editor's call really edits, creates, renames or deletes them,
    /// exactly as the tool would for a model. hashline_edit resolves a relative path against the
    /// current directory; str_replace_editor takes absolute paths only and refuses a relative
    /// one, as its contract says (behaviour.md §5).
    ///
    /// A WEB CALL IS REAL: web_fetch fetches the URL and web_search asks the configured provider,
    /// over the network, with the host configuration of --host (execution-web.md §1.1; credentials
    /// go in its "env" or "apiKey"; nothing is read from this process's environment). The result
    /// object is printed as JSON.
    ///
    /// Exit 0 for a success text or a web result, 2 for an `Error: ...` text or a raised error
    /// (printed to stderr).
    #[command(
        about = "Run one call of a tool and print what it returns (an editor changes files; a web tool really goes to the network)"
    )]
    Exec {
        /// The tool: hashline_edit, str_replace_editor, web_fetch or web_search.
        tool: String,
        /// The input as JSON text; read from standard input when absent.
        input: Option<String>,
        /// For web_fetch and web_search: the host configuration as JSON text, such as
        /// '{"search":{"provider":"brave"},"env":{"BRAVE_API_KEY":"..."}}' (default: {}, which
        /// fetches natively and searches with Exa, without a credential).
        #[arg(long, value_name = "JSON")]
        host: Option<String>,
    },
    /// Serve the reference as an MCP server (Model Context Protocol) on standard input and
    /// output: the nine tools with their published 1.6.0 input schemas; every call validated
    /// first (a refusal is an error result with the INVALID_INPUT line); the editors really
    /// edit files, confined to --root; the web tools really fetch and search; the workflow
    /// tools validate only.
    #[command(after_long_help = mcp_command::EXAMPLE)]
    Mcp(mcp_command::McpArgs),
    /// List the vector and scenario names (`<tool>:<id>`), one per line, in file order; --tool,
    /// --filter and --only select as for `run`.
    List(ListArgs),
    /// Check the vector and scenario files (and mutation-row files) against their schemas and
    /// rules, running nothing.
    Lint(LintArgs),
    /// The built-in vector and scenario files.
    #[command(subcommand)]
    Vectors(VectorsCommand),
}

#[derive(Subcommand, Debug)]
enum VectorsCommand {
    /// Write the built-in vector and scenario files into DIR, at their relative paths, byte for
    /// byte (a file already there with other content stops the export, unless --force).
    Export {
        /// The folder (created if missing).
        dir: PathBuf,
        /// Overwrite files that are there with other content.
        #[arg(long)]
        force: bool,
    },
}

#[derive(Args, Debug)]
struct VectorArgs {
    /// A folder of vector and scenario files to add to the built-in set (repeatable; ids stay
    /// unique per tool across all). A folder that holds exactly the built-in files (an export,
    /// the repository's vectors/) stands for the built-in set.
    #[arg(long = "vectors", value_name = "DIR")]
    vectors: Vec<PathBuf>,
    /// Leave the built-in set out: only the --vectors folders.
    #[arg(long)]
    no_builtin: bool,
}

#[derive(Args, Debug)]
struct LintArgs {
    #[command(flatten)]
    vectors: VectorArgs,
    /// A folder of mutation-row files (default: the `mutants` folder beside the first --vectors
    /// folder, or else ./mutants, if there is one).
    #[arg(long = "mutants", value_name = "DIR")]
    mutants: Option<PathBuf>,
}

#[derive(Args, Debug)]
struct BenchArgs {
    #[command(flatten)]
    vectors: VectorArgs,
    /// Also measure this implementation: a command speaking the peer protocol, given the whole
    /// stream at once and timed from its start to its exit.
    #[arg(long, value_name = "CMD")]
    peer: Option<String>,
    /// How many times every vector is checked.
    #[arg(long, default_value_t = 100, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    rounds: u64,
    /// Also measure the reference alone on this many threads, the rounds shared among them
    /// (1: only the single thread; at most 4 × the cores).
    #[arg(long, default_value_t = 1, value_name = "N", value_parser = jobs_value)]
    jobs: usize,
}

/// Which vectors and scenarios `run` and `list` take.
#[derive(Args, Debug)]
struct SelectArgs {
    /// Only vectors and scenarios of this tool (repeatable).
    #[arg(long = "tool", value_name = "TOOL")]
    tools: Vec<String>,
    /// Only vectors and scenarios whose name (`<tool>:<id>`) contains this text.
    #[arg(long, value_name = "TEXT")]
    filter: Option<String>,
    /// Only the vector or scenario of exactly this name (`<tool>:<id>`; repeatable).
    #[arg(long = "name", value_name = "TOOL:ID")]
    names: Vec<String>,
    /// Only the vectors, or only the scenarios (default: both).
    #[arg(long, value_enum, value_name = "KIND")]
    only: Option<vvoc_harness::run::selection::Kind>,
}

impl SelectArgs {
    /// The selection, each `--tool` read as a tool.
    fn selection(&self) -> Result<vvoc_harness::run::selection::Selection> {
        Ok(vvoc_harness::run::selection::Selection {
            tools: self
                .tools
                .iter()
                .map(|t| t.parse::<Tool>())
                .collect::<Result<Vec<_>, _>>()?,
            filter: self.filter.clone(),
            names: self.names.clone(),
            only: self.only,
        })
    }
}

#[derive(Args, Debug)]
struct ListArgs {
    #[command(flatten)]
    vectors: VectorArgs,
    #[command(flatten)]
    select: SelectArgs,
}

#[derive(Args, Debug)]
struct RunArgs {
    #[command(flatten)]
    vectors: VectorArgs,
    #[command(flatten)]
    select: SelectArgs,
    /// How much must match: verdict, first, issues or exact [default: exact]; with --mcp,
    /// verdict or text [default: text].
    #[arg(long, value_name = "LEVEL")]
    level: Option<Level>,
    /// Run against this implementation: a command speaking the JSON Lines peer protocol
    /// (split into words like a shell would, run without a shell), e.g. "python3 my_peer.py".
    #[arg(long, value_name = "CMD")]
    peer: Option<String>,
    /// Run against an MCP server over stdio, started by this command; `{root}` in it is a
    /// scratch directory (a scenario's own), e.g. "conform mcp --root {root}".
    #[arg(long, value_name = "CMD", conflicts_with = "peer")]
    mcp: Option<String>,
    /// Run against an MCP server over Streamable HTTP at this URL, e.g.
    /// http://127.0.0.1:8765/mcp (its editor scenarios are not observable: its root is its own).
    #[arg(long, value_name = "URL", conflicts_with_all = ["peer", "mcp"])]
    mcp_url: Option<String>,
    /// Vectors and scenarios known to fail, {"known_failures": [{"vector": "<tool>:<id>",
    /// "reason": "..."}]}; a listed one that passes is `fixed` and fails the run.
    #[arg(long, value_name = "FILE")]
    known_failures: Option<PathBuf>,
    /// Write the run's failures as a known-failure file (a starting list).
    #[arg(long, value_name = "FILE")]
    write_known_failures: Option<PathBuf>,
    /// How long the peer may go without answering a check.
    #[arg(long, default_value_t = 5000, value_name = "MS", value_parser = clap::value_parser!(u64).range(1..))]
    timeout_ms: u64,
    /// How long a peer process may take to answer the hello [default: --timeout-ms, 5000 at
    /// least].
    #[arg(long, value_name = "MS", value_parser = clap::value_parser!(u64).range(1..))]
    hello_timeout_ms: Option<u64>,
    /// Write conformance.json, conformance.md and junit.xml into this folder.
    #[arg(long, value_name = "DIR")]
    report: Option<PathBuf>,
    /// How many failing vectors and scenarios to print in full before the summary (the next
    /// 100 get a line each): a number, `all`, or `none`.
    #[arg(long, default_value = "20", value_name = "N|all|none")]
    failures: vvoc_harness::report::console::Shown,
    /// The most characters conformance.md may have (a pull-request comment takes 65,536):
    /// failures past it get one line each, or only a count.
    #[arg(long, default_value_t = vvoc_harness::report::markdown::DEFAULT_LIMIT, value_name = "CHARS")]
    md_limit: usize,
    /// How many peer processes to run at once (in process: how many scenarios run at once); 1
    /// to 4 × the cores.
    #[arg(long, default_value_t = 1, value_name = "N", value_parser = jobs_value)]
    jobs: usize,
    /// How many peer restarts (after a timeout, crash or protocol error) before the peer counts as unusable.
    #[arg(long, default_value_t = 10, value_name = "N")]
    max_restarts: usize,
    /// Check every protocol message, both ways, against the protocol schemas.
    #[arg(long)]
    validate_protocol: bool,
    /// The folder in which each scenario gets its scratch directory (default /dev/shm where it
    /// exists, else /tmp). Each directory's path is exactly 40 characters, so the folder's path
    /// must be short; a peer must be able to read and write there.
    #[arg(long, value_name = "DIR")]
    scratch: Option<PathBuf>,
}

/// The most `--jobs` takes: 4 × the cores `std::thread::available_parallelism` counts (1 when
/// it cannot tell). Each job is a peer process (or a thread) of its own, so more only queue for
/// the cores and multiply the processes a run starts.
fn max_jobs() -> (usize, usize) {
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    (cores.saturating_mul(4), cores)
}

/// Reads a `--jobs` value: a whole number from 1 to [`max_jobs`].
fn jobs_value(text: &str) -> Result<usize, String> {
    let (max, cores) = max_jobs();
    let jobs: usize = text.parse().map_err(|_| {
        format!("--jobs takes a whole number from 1 to {max} (4 × the {cores} cores here)")
    })?;
    match jobs {
        0 => Err(
            "--jobs must be at least 1 (one peer process, or one scenario at a time)".to_owned(),
        ),
        n if n > max => Err(format!(
            "--jobs is at most {max} (4 × the {cores} cores here); more jobs only wait for a core"
        )),
        n => Ok(n),
    }
}

/// Writes a line to standard output; a closed pipe (`conform list | head`) ends the program
/// quietly instead of panicking.
macro_rules! say {
    ($($arg:tt)*) => {
        write_out(&format!("{}\n", format_args!($($arg)*)))
    };
}

/// `conform bench`: one line per measurement, "<what>: <checks> checks in <s> s: <rate> checks
/// per second".
fn bench(args: &BenchArgs) -> Result<u8> {
    use vvoc_harness::bench::{Throughput, bench_stream, peer_stream, reference_alone};
    let vectors = load_all(&args.vectors)?.vectors;
    let rounds = usize::try_from(args.rounds).context("--rounds is too large")?;
    let line = |what: &str, t: Throughput| {
        say!(
            "{what}: {} checks in {:.3} s: {:.0} checks per second",
            t.checks,
            t.elapsed.as_secs_f64(),
            t.rate()
        )
    };
    line("reference alone", reference_alone(&vectors, rounds, 1));
    if args.jobs > 1 {
        let what = format!("reference alone, {} threads", args.jobs);
        line(&what, reference_alone(&vectors, rounds, args.jobs));
    }
    if let Some(peer) = &args.peer {
        let command =
            vvoc_harness::peer::process::PeerCommand::parse(peer).map_err(anyhow::Error::msg)?;
        let (stream, checks) = bench_stream(&vectors, rounds);
        match peer_stream(&command, &stream, checks) {
            Ok(throughput) => line("peer, bench stream", throughput),
            Err(error) => {
                eprintln!("error: {error}");
                return Ok(UNUSABLE);
            }
        }
    }
    Ok(OK)
}

#[path = "conform/run_command.rs"]
mod run_command;

#[path = "conform/fuzz_command.rs"]
mod fuzz_command;

#[path = "conform/exec_command.rs"]
mod exec_command;

#[path = "conform/mcp_command.rs"]
mod mcp_command;

fn main() -> ExitCode {
    vvoc_harness::peer::child::kill_children_on_interrupt();
    let parsed = Cli::command()
        .version(version())
        .try_get_matches()
        .and_then(|matches| Cli::from_arg_matches(&matches));
    let cli = match parsed {
        Ok(cli) => cli,
        // Help and --version are printed to stdout and exit 0; a usage error exits 1 (not
        // clap's 2, which means "some vectors failed" here).
        Err(error) => {
            let _ = error.print();
            return ExitCode::from(if error.use_stderr() { USAGE } else { OK });
        }
    };
    let code = match execute(cli.command) {
        Ok(code) => code,
        Err(error) => {
            eprintln!("error: {error:#}");
            USAGE
        }
    };
    ExitCode::from(vvoc_harness::peer::child::unless_interrupted(code))
}

fn execute(command: Command) -> Result<u8> {
    match command {
        Command::Run(args) => run_command::run(args),
        Command::Fuzz(args) => fuzz_command::run(args),
        Command::Peer => {
            serve(std::io::stdin(), std::io::stdout().lock())
                .context("cannot serve the peer protocol")?;
            Ok(OK)
        }
        Command::Bench(args) => bench(&args),
        Command::Check { tool, input } => check(&tool, input),
        Command::Anchors { file } => match anchors(&file) {
            Ok(view) => {
                say!("{view}");
                Ok(OK)
            }
            Err(error) => bail!("{error}"),
        },
        Command::Exec { tool, input, host } => exec_command::exec_once(&tool, input, host),
        Command::Mcp(args) => mcp_command::run(args),
        Command::List(args) => {
            let selection = args.select.selection()?;
            let suite = load_all(&args.vectors)?;
            let vectors = suite.vectors.iter().filter(|v| selection.keeps(v));
            let scenarios = (suite.scenarios.iter().map(|s| (s.tool, s.name())))
                .chain(suite.web.iter().map(|s| (s.tool, s.name())))
                .chain(suite.workflow.iter().map(|s| (s.tool, s.name())))
                .filter(|(tool, name)| selection.keeps_scenario_named(*tool, name));
            let kept: HashSet<String> = vectors
                .map(|v| v.name())
                .chain(scenarios.map(|(_, name)| name))
                .collect();
            for name in suite.names.iter().filter(|n| kept.contains(*n)) {
                say!("{name}");
            }
            Ok(OK)
        }
        Command::Lint(args) => lint(&args),
        Command::Vectors(VectorsCommand::Export { dir, force }) => {
            let done = builtin::export(&dir, force)?;
            say!(
                "{} files of the built-in vectors (sha256:{}) in {}: {} written, {} already there",
                builtin::files().len(),
                builtin::short_digest(),
                dir.display(),
                done.written,
                done.unchanged
            );
            Ok(OK)
        }
    }
}

/// What `conform --version` prints after the name: the program's version, the contract's, and
/// the built-in vector set's digest.
fn version() -> &'static str {
    let text = format!(
        "{} (contract {}, vectors sha256:{}, {} files)",
        env!("CARGO_PKG_VERSION"),
        vvoc_reference::catalog::CONTRACT_VERSION,
        builtin::short_digest(),
        builtin::files().len()
    );
    Box::leak(text.into_boxed_str())
}

fn lint(args: &LintArgs) -> Result<u8> {
    let sources = vector_sources(&args.vectors)?;
    let mut violations = Vec::new();
    for source in &sources {
        let found = lint_source(source)?;
        let scenarios = match found.scenario_files {
            0 => String::new(),
            n => format!(", {n} scenario files against the scenario-file schema"),
        };
        say!(
            "{}: {} vector files checked against the vector-file schema{scenarios}",
            source.name(),
            found.vector_files
        );
        violations.extend(found.violations);
    }
    let mutants = args.mutants.clone().or_else(|| {
        let beside = match args.vectors.vectors.first() {
            Some(dir) => dir.parent()?.join("mutants"),
            None => PathBuf::from("mutants"),
        };
        beside.is_dir().then_some(beside)
    });
    if let Some(dir) = &mutants {
        let (files, found) = lint_folder(dir, &meta_schema::mutation_rows())?;
        say!(
            "{}: {files} row files checked against the mutation-row schema",
            dir.display()
        );
        violations.extend(found);
    }
    if !violations.is_empty() {
        for violation in &violations {
            eprintln!("{violation}");
        }
        bail!("{}", violation_counts(&violations));
    }
    let suite = load_all(&args.vectors)?;
    let files: HashSet<&PathBuf> = suite.vectors.iter().map(|v| &v.file).collect();
    let scenario_files: HashSet<&PathBuf> = suite
        .scenarios
        .iter()
        .map(|s| &s.file)
        .chain(suite.web.iter().map(|s| &s.file))
        .chain(suite.workflow.iter().map(|s| &s.file))
        .collect();
    let scenarios = match scenario_files.len() {
        0 => String::new(),
        n => format!(
            ", {} scenarios in {n} files",
            suite.scenarios.len() + suite.web.len() + suite.workflow.len()
        ),
    };
    say!(
        "ok: {} vectors in {} files{scenarios}",
        suite.vectors.len(),
        files.len()
    );
    Ok(OK)
}

/// `1 file not valid JSON, 2 schema violations`: the files that are not JSON apart from the
/// violations of a schema, each part only when there are some.
fn violation_counts(violations: &[Violation]) -> String {
    let count = |kind| violations.iter().filter(|v| v.kind == kind).count();
    let (not_json, schema) = (count(ViolationKind::NotJson), count(ViolationKind::Schema));
    let s = |n: usize| if n == 1 { "" } else { "s" };
    let parts = [
        (not_json > 0).then(|| format!("{not_json} file{} not valid JSON", s(not_json))),
        (schema > 0).then(|| format!("{schema} schema violation{}", s(schema))),
    ];
    parts.into_iter().flatten().collect::<Vec<_>>().join(", ")
}

fn check(tool: &str, input: Option<String>) -> Result<u8> {
    let tool: Tool = tool.parse()?;
    let input =
        Json::parse(&exec_command::input_text(input)?).context("the input is not valid JSON")?;
    let verdict = validate_json(tool, &input);
    say!("{}", verdict.to_json().to_pretty());
    match &verdict {
        Verdict::Accept(_) => Ok(OK),
        Verdict::Reject(issues) => {
            eprintln!("{}", one_line(issues));
            Ok(FAILED)
        }
    }
}

fn write_out(text: &str) {
    use std::io::Write as _;
    let mut out = std::io::stdout().lock();
    if let Err(error) = out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        if error.kind() == std::io::ErrorKind::BrokenPipe {
            std::process::exit(i32::from(OK));
        }
        eprintln!("error: cannot write to standard output: {error}");
        std::process::exit(i32::from(USAGE));
    }
}

/// The vectors and scenarios of the built-in set and the given folders.
fn load_all(args: &VectorArgs) -> Result<Suite> {
    load_sources(&vector_sources(args)?).map_err(|error| {
        let hint = match builtin_duplicate(&error) {
            true => "\n(the built-in vectors are loaded too; --no-builtin runs only the --vectors folders)",
            false => "",
        };
        anyhow::anyhow!("cannot load the vectors: {error}{hint}")
    })
}

/// Whether the error is an id of a given folder that the built-in set already uses.
fn builtin_duplicate(error: &LoadError) -> bool {
    let builtin = |file: &PathBuf| file.starts_with(builtin::PREFIX);
    matches!(error, LoadError::Vector {
        problem: VectorProblem::DuplicateId { first_file, .. },
        ..
    } if builtin(first_file))
        || matches!(error, LoadError::Scenario { problem, .. } if matches!(
            problem.as_ref(),
            ScenarioProblem::DuplicateId { first_file, .. } if builtin(first_file)
        ))
}

/// The built-in set (unless --no-builtin) and the --vectors folders.
fn vector_sources(args: &VectorArgs) -> Result<Vec<Source>> {
    if args.no_builtin && args.vectors.is_empty() {
        bail!("--no-builtin leaves no vectors: give the folders to run with --vectors DIR");
    }
    Ok(sources(&args.vectors, !args.no_builtin))
}
