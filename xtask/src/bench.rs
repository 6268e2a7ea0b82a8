//! `cargo xtask bench`: checks and scenarios per second in process, through `conform peer` with
//! one and with several processes, and checks with one process started per check (the way
//! toml-test runs decoders); `conform fuzz` inputs per second, in process and against
//! `conform peer`; and `tools/call` refusals per second through `conform mcp` (`bench_mcp.rs`).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use anyhow::{Context as _, Result, bail};
use vvoc_harness::load::suite::load_vectors;
use vvoc_harness::outcome::Answer;
use vvoc_harness::peer::options::{PeerOptions, Peers};
use vvoc_harness::peer::process::PeerCommand;
use vvoc_harness::peer::session::{Next, PeerSession};

/// What a measurement counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unit {
    /// Vectors checked.
    Checks,
    /// Scenarios run, every step and the final directory compared.
    Scenarios,
    /// Inputs of `conform fuzz`: generated, checked and compared.
    Inputs,
}

impl Unit {
    /// The unit's name in the table.
    pub fn as_str(self) -> &'static str {
        match self {
            Unit::Checks => "checks",
            Unit::Scenarios => "scenarios",
            Unit::Inputs => "inputs",
        }
    }
}

/// One measured way of running the vectors or the scenarios.
#[derive(Debug)]
pub struct Measurement {
    /// What was measured.
    pub mode: String,
    /// What `checks` counts.
    pub unit: Unit,
    /// How many checks or scenarios.
    pub checks: usize,
    /// How long they took.
    pub elapsed: Duration,
}

impl Measurement {
    /// Checks per second.
    pub fn rate(&self) -> f64 {
        self.checks as f64 / self.elapsed.as_secs_f64().max(1e-9)
    }
}

/// Builds the release `conform`, measures every mode, and returns the measurements in order.
pub fn bench(root: &Path, jobs: usize, per_check_sample: usize) -> Result<Vec<Measurement>> {
    let conform = release_conform(root)?;
    let vectors = root.join("vectors");
    let mut measurements = conform_run(&conform, &vectors, None, "in process (reference)")?;
    let peer = format!("{} peer", conform.display());
    measurements.extend(conform_run(
        &conform,
        &vectors,
        Some((&peer, 1)),
        "conform peer, 1 process",
    )?);
    measurements.extend(conform_run(
        &conform,
        &vectors,
        Some((&peer, jobs)),
        &format!("conform peer, {jobs} processes"),
    )?);
    measurements.extend(web_runs(&conform, &vectors, &peer, jobs)?);
    measurements.push(process_per_check(&peer, &vectors, per_check_sample)?);
    measurements.extend(conform_bench(&conform, &peer)?);
    measurements.push(crate::bench_mcp::mcp_refusals(
        &conform,
        &vectors,
        crate::bench_mcp::ROUNDS,
    )?);
    for (peer, jobs, count) in [
        (None, 1, 300_000),
        (None, jobs, 300_000),
        (Some(&peer), jobs, 100_000),
    ] {
        measurements.push(fuzz(&conform, peer.map(String::as_str), jobs, count)?);
    }
    // Checks first, then scenarios, then fuzz inputs, each in the order measured.
    measurements.sort_by_key(|m| match m.unit {
        Unit::Checks => 0,
        Unit::Scenarios => 1,
        Unit::Inputs => 2,
    });
    Ok(measurements)
}

/// Builds the release `conform` of the workspace at `root` and returns its path.
pub fn release_conform(root: &Path) -> Result<PathBuf> {
    let output = crate::child::command(env!("CARGO"))
        .current_dir(root)
        .args([
            "build",
            "--release",
            "--quiet",
            "--message-format=json-render-diagnostics",
            "-p",
            "vvoc-harness",
            "--bin",
            "conform",
        ])
        .stderr(std::process::Stdio::inherit())
        .output()
        .context("cannot run cargo build")?;
    if !output.status.success() {
        bail!("building the release conform failed");
    }
    crate::child::executable(&String::from_utf8_lossy(&output.stdout), "conform")
        .map(PathBuf::from)
        .context("cargo build of the release conform named no executable")
}

/// The table `cargo xtask bench` prints.
pub fn table(measurements: &[Measurement]) -> String {
    let mut out = format!(
        "{:<36} {:>10} {:>8} {:>9} {:>10}\n",
        "mode", "unit", "count", "seconds", "per second"
    );
    for m in measurements {
        out.push_str(&format!(
            "{:<36} {:>10} {:>8} {:>9.3} {:>10.0}\n",
            m.mode,
            m.unit.as_str(),
            m.checks,
            m.elapsed.as_secs_f64(),
            m.rate()
        ));
    }
    let find = |mode: &str| {
        measurements
            .iter()
            .find(|m| m.unit == Unit::Checks && m.mode == mode)
    };
    if let (Some(persistent), Some(per_check)) = (
        find("conform peer, 1 process"),
        find("one process per check"),
    ) {
        out.push_str(&format!(
            "the persistent protocol (1 process) is {:.0} times faster than one process per check\n",
            persistent.rate() / per_check.rate()
        ));
    }
    out
}

/// Runs `conform run` (in process, or against a peer with `jobs` processes) and reads its timings:
/// the vectors', and the scenarios' when the summary has them.
fn conform_run(
    conform: &Path,
    vectors: &Path,
    peer: Option<(&str, usize)>,
    mode: &str,
) -> Result<Vec<Measurement>> {
    let mut command = Command::new(conform);
    command.arg("run").arg("--vectors").arg(vectors);
    if let Some((peer, jobs)) = peer {
        command.args(["--peer", peer, "--jobs", &jobs.to_string()]);
    }
    if peer.is_none() {
        // In process, `--jobs` sets how many scenarios run at once.
        command.args(["--jobs", "2"]);
    }
    let output = command
        .output()
        .with_context(|| format!("cannot run {}", conform.display()))?;
    let stdout = String::from_utf8_lossy(&output.stdout);
    let mut measurements = vec![
        timing(&stdout, Unit::Checks, mode)?
            .with_context(|| format!("no timing of the checks in:\n{stdout}"))?,
    ];
    measurements.extend(timing(&stdout, Unit::Scenarios, mode)?);
    Ok(measurements)
}

/// The web scenarios without the few that wait on a route's delay (timeouts, slow routes), run
/// in process and through `conform peer` with `jobs` processes: their own figures, since a
/// delayed route's waiting says nothing about the tool's speed.
fn web_runs(conform: &Path, vectors: &Path, peer: &str, jobs: usize) -> Result<Vec<Measurement>> {
    let quick = tempfile::tempdir().context("cannot make a temporary folder")?;
    for tool in ["web_fetch", "web_search"] {
        let dir = vectors.join(tool);
        let entries =
            std::fs::read_dir(&dir).with_context(|| format!("cannot list {}", dir.display()))?;
        let mut names: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
        names.sort();
        for path in names {
            let text = std::fs::read_to_string(&path)
                .with_context(|| format!("cannot read {}", path.display()))?;
            let mut file: serde_json::Value = serde_json::from_str(&text)
                .with_context(|| format!("{} is not JSON", path.display()))?;
            let Some(scenarios) = file.get_mut("scenarios").and_then(|s| s.as_array_mut()) else {
                continue;
            };
            scenarios.retain(|s| {
                let routes = s.get("routes").and_then(|r| r.as_array());
                !routes.is_some_and(|r| r.iter().any(|r| r.get("delay_ms").is_some_and(|d| d != 0)))
            });
            let name = format!(
                "{tool}-{}",
                path.file_name()
                    .map(|n| n.to_string_lossy())
                    .unwrap_or_default()
            );
            std::fs::write(quick.path().join(name), file.to_string())
                .context("cannot write a web scenario file")?;
        }
    }
    let mut measurements = Vec::new();
    for (peer, jobs, mode) in [
        (None, 2, "web, in process (reference)".to_owned()),
        (
            Some(peer),
            jobs,
            format!("web, conform peer, {jobs} processes"),
        ),
    ] {
        let mut command = Command::new(conform);
        command
            .args([
                "run",
                "--no-builtin",
                "--only",
                "scenarios",
                "--jobs",
                &jobs.to_string(),
            ])
            .arg("--vectors")
            .arg(quick.path());
        if let Some(peer) = peer {
            command.args(["--peer", peer]);
        }
        let output = command
            .output()
            .with_context(|| format!("cannot run {}", conform.display()))?;
        let stdout = String::from_utf8_lossy(&output.stdout);
        measurements.push(
            timing(&stdout, Unit::Scenarios, &mode)?
                .with_context(|| format!("no timing of the web scenarios in:\n{stdout}"))?,
        );
    }
    Ok(measurements)
}

/// The timing line of one unit in a summary: "<count> <unit> in <seconds> s: ...".
fn timing(stdout: &str, unit: Unit, mode: &str) -> Result<Option<Measurement>> {
    let marker = format!(" {} in ", unit.as_str());
    let Some(line) = stdout.lines().find(|l| l.contains(&marker)) else {
        return Ok(None);
    };
    measured(line, unit, mode).map(Some)
}

/// A measurement read from "<count> <unit> in <seconds> s...".
fn measured(line: &str, unit: Unit, mode: &str) -> Result<Measurement> {
    let mut words = line.split_whitespace();
    let checks: usize = words
        .next()
        .and_then(|w| w.parse().ok())
        .with_context(|| format!("no count in {line:?}"))?;
    let seconds: f64 = words
        .nth(2)
        .and_then(|w| w.parse().ok())
        .with_context(|| format!("no seconds in {line:?}"))?;
    Ok(Measurement {
        mode: mode.to_owned(),
        unit,
        checks,
        elapsed: Duration::from_secs_f64(seconds),
    })
}

/// Runs `conform fuzz` (a dry run in process, or against a peer with `jobs` processes) and reads
/// its timing: inputs generated, checked by the reference and compared, per second.
fn fuzz(conform: &Path, peer: Option<&str>, jobs: usize, count: usize) -> Result<Measurement> {
    let mut command = Command::new(conform);
    command.args([
        "fuzz",
        "--count",
        &count.to_string(),
        "--jobs",
        &jobs.to_string(),
    ]);
    let mode = match peer {
        Some(peer) => {
            command.args(["--peer", peer]);
            format!("fuzz, conform peer, {jobs} processes")
        }
        None => {
            command.arg("--dry-run");
            let plural = if jobs == 1 { "" } else { "s" };
            format!("fuzz, in process, {jobs} job{plural}")
        }
    };
    let output = command
        .output()
        .with_context(|| format!("cannot run {}", conform.display()))?;
    let stdout = String::from_utf8_lossy(&output.stdout);
    timing(&stdout, Unit::Inputs, &mode)?
        .with_context(|| format!("no timing of the inputs in:\n{stdout}"))
}

/// `conform bench --peer "<conform> peer"`: the reference alone, and `conform peer` fed the bench
/// stream (every vector's check, 100 times, pipelined), each a line "<what>: <n> checks in <s> s:
/// <rate> checks per second".
fn conform_bench(conform: &Path, peer: &str) -> Result<Vec<Measurement>> {
    let output = Command::new(conform)
        .args(["bench", "--jobs", "2", "--peer", peer])
        .output()
        .with_context(|| format!("cannot run {} bench", conform.display()))?;
    let stdout = String::from_utf8_lossy(&output.stdout);
    if !output.status.success() {
        bail!(
            "conform bench failed:\n{stdout}{}",
            String::from_utf8_lossy(&output.stderr)
        );
    }
    bench_lines(&stdout)
}

/// The two measurements of `conform bench`'s output.
fn bench_lines(stdout: &str) -> Result<Vec<Measurement>> {
    let mut measurements = Vec::new();
    for (what, mode) in [
        ("reference alone", "reference alone (validate_json)"),
        ("reference alone, 2 threads", "reference alone, 2 threads"),
        ("peer, bench stream", "conform peer, bench stream"),
    ] {
        let line = stdout
            .lines()
            .find_map(|l| l.strip_prefix(what).and_then(|l| l.strip_prefix(": ")))
            .with_context(|| format!("no {what:?} line in:\n{stdout}"))?;
        measurements.push(measured(line, Unit::Checks, mode)?);
    }
    Ok(measurements)
}

/// Starts a fresh `conform peer` for each of the first `sample` vectors.
fn process_per_check(peer: &str, vectors: &Path, sample: usize) -> Result<Measurement> {
    let mut options = PeerOptions::new(PeerCommand::parse(peer).map_err(anyhow::Error::msg)?);
    options.timeout = Duration::from_secs(10);
    let peers = Peers::new(&options).map_err(anyhow::Error::msg)?;
    let vectors = load_vectors(&[PathBuf::from(vectors)])?;
    let started = Instant::now();
    let mut checks = 0;
    for (index, vector) in vectors.iter().take(sample).enumerate() {
        let mut session = PeerSession::start(&peers)?;
        session.check(index, vector.tool, &vector.input);
        match session.next_answer() {
            Some(Next::Answer(_, Answer::Verdict(_), _)) => checks += 1,
            other => bail!("unexpected answer for {}: {other:?}", vector.name()),
        }
        session.finish();
    }
    Ok(Measurement {
        mode: "one process per check".to_owned(),
        unit: Unit::Checks,
        checks,
        elapsed: started.elapsed(),
    })
}

#[cfg(test)]
mod tests {
    use super::bench_lines;

    #[test]
    fn the_lines_of_conform_bench_give_counts_and_times() {
        let out = "reference alone: 1000 checks in 0.002 s: 500000 checks per second\n\
                   reference alone, 2 threads: 1000 checks in 0.001 s: 1000000 checks per second\n\
                   peer, bench stream: 1000 checks in 0.010 s: 100000 checks per second\n";
        let measured = bench_lines(out).expect("three measurements");
        assert_eq!(measured.len(), 3);
        assert_eq!(measured[0].mode, "reference alone (validate_json)");
        assert_eq!(measured[1].mode, "reference alone, 2 threads");
        assert_eq!(measured[2].checks, 1000);
        assert!((measured[2].rate() - 100_000.0).abs() < 1.0);
    }

    #[test]
    fn a_missing_line_of_conform_bench_is_an_error_that_shows_the_output() {
        let error = bench_lines(
            "reference alone: 5 checks in 0.1 s: 50 checks per second\n\
             reference alone, 2 threads: 5 checks in 0.1 s: 50 checks per second\n",
        )
        .expect_err("the peer line is missing");
        assert!(
            error.to_string().contains("no \"peer, bench stream\" line"),
            "{error}"
        );
    }
}
