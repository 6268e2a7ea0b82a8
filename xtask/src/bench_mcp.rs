//! `cargo xtask bench`'s MCP row: `tools/call` refusals through `conform mcp` over stdio,
//! pipelined (every request written before the answers are awaited, as a busy client would).

use std::collections::HashSet;
use std::io::{BufRead as _, BufReader, BufWriter, Write as _};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

use anyhow::{Context as _, Result, bail};
use vvoc_harness::load::suite::load_vectors;
use vvoc_reference::Json;

use crate::bench::{Measurement, Unit};

/// How many times the reject vectors are sent.
pub const ROUNDS: usize = 20;

/// The mode's name in the table.
pub const MODE: &str = "conform mcp, tools/call refusals";

/// Sends every reject vector whose input is an object (MCP arguments are objects) that
/// `serde_json` reads (not nested past 128 levels, no lone surrogate: the inputs about the JSON
/// text itself, which an MCP SDK's parser refuses before any tool sees them) `rounds` times
/// as a `tools/call` to one `conform mcp`, and times them from the first request to the last
/// answer; every answer must be a result with `isError: true`.
pub fn mcp_refusals(conform: &Path, vectors: &Path, rounds: usize) -> Result<Measurement> {
    let vectors = load_vectors(&[PathBuf::from(vectors)])?;
    let calls: Vec<(String, String)> = vectors
        .iter()
        .filter(|v| !v.expected.is_accept() && v.input.as_object().is_some())
        .map(|v| (v.tool.id().to_owned(), v.input.to_compact()))
        .filter(|(_, input)| serde_json::from_str::<serde_json::Value>(input).is_ok())
        .collect();
    if calls.is_empty() {
        bail!("no reject vector with an object input to send");
    }
    let root = std::env::temp_dir();
    let mut child = Command::new(conform)
        .arg("mcp")
        .arg("--root")
        .arg(&root)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .with_context(|| format!("cannot start {} mcp", conform.display()))?;
    let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
        bail!("conform mcp has no pipes");
    };
    let mut reader = BufReader::new(stdout);
    let mut writer = BufWriter::new(stdin);
    writeln!(
        writer,
        r#"{{"jsonrpc":"2.0","id":0,"method":"initialize","params":{{"protocolVersion":"2025-06-18","capabilities":{{}},"clientInfo":{{"name":"xtask-bench","version":"0"}}}}}}"#
    )?;
    writer.flush()?;
    let mut line = String::new();
    reader.read_line(&mut line)?;
    if !line.contains(r#""id":0"#) {
        bail!("conform mcp did not answer initialize: {line}");
    }
    writeln!(
        writer,
        r#"{{"jsonrpc":"2.0","method":"notifications/initialized"}}"#
    )?;
    let total = calls.len() * rounds;
    let started = Instant::now();
    // The writer comes back once it has written everything, so that standard input stays open
    // until the last answer is read (a server may stop at the end of its input).
    let sender = std::thread::spawn(move || -> std::io::Result<_> {
        let mut id = 0;
        for _ in 0..rounds {
            for (tool, input) in &calls {
                id += 1;
                writeln!(
                    writer,
                    r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"{tool}","arguments":{input}}}}}"#
                )?;
            }
        }
        writer.flush()?;
        Ok(writer)
    });
    let mut answered = HashSet::with_capacity(total);
    while answered.len() < total {
        line.clear();
        if reader.read_line(&mut line)? == 0 {
            bail!(
                "conform mcp closed its output after {} of {total} answers",
                answered.len()
            );
        }
        // The project's own reader: a refusal's message may be cut inside a surrogate pair, as
        // upstream cuts it, and the answer then holds a lone surrogate (valid JSON text, which
        // serde_json refuses).
        let message = Json::parse(line.trim_end())
            .map_err(|error| anyhow::anyhow!("{error}"))
            .with_context(|| format!("conform mcp wrote a line that is not JSON: {line}"))?;
        let member = |value: Option<&Json>, name: &str| {
            value
                .and_then(Json::as_object)
                .and_then(|o| o.get(name))
                .cloned()
        };
        let id = member(Some(&message), "id")
            .and_then(|id| id.as_f64())
            .filter(|id| id.fract() == 0.0 && *id >= 0.0)
            .map(|id| id as u64)
            .context("an answer without a request's id")?;
        let refused = member(member(Some(&message), "result").as_ref(), "isError");
        if refused != Some(Json::Bool(true)) {
            bail!("call {id} was not refused: {line}");
        }
        answered.insert(id);
    }
    let elapsed = started.elapsed();
    let writer = sender
        .join()
        .map_err(|_| anyhow::anyhow!("the request writer panicked"))??;
    drop(writer);
    let _ = child.kill();
    let _ = child.wait();
    Ok(Measurement {
        mode: MODE.to_owned(),
        unit: Unit::Checks,
        checks: total,
        elapsed,
    })
}
