//! What a fuzz run tells: the summary printed on stdout, and with `--out DIR` the files
//! `fuzz.json`, `summary.md` and one vector file per tool (`vectors/<tool>/fuzz-seed-<S>.json`)
//! of the minimal examples, the reference's verdict as their expectation.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

use vvoc_reference::{Json, Object, Tool};

use crate::compare::{describe, describe_mcp};
use crate::fuzz::fuzzed::{Finding, Fuzzed};
use crate::outcome::{Answer, Failure};
use crate::protocol::hello::Implementation;

/// How many units of an example the stdout table shows.
const SHOWN: usize = 100;

/// How many never-fired rules stdout lists (the files list them all).
const LISTED: usize = 20;

/// The summary printed on stdout. Its first line holds the timing; the rest depends only on the
/// seed, the count, the level and the implementations.
pub fn summary(run: &Fuzzed) -> String {
    let mut out = format!(
        "{} inputs in {:.3} s: {:.0} inputs per second (generated, checked and compared); \
         shrinking took {:.3} s\n",
        run.inputs,
        run.elapsed.as_secs_f64(),
        run.rate(),
        run.shrink_elapsed.as_secs_f64()
    );
    let _ = writeln!(
        out,
        "conform fuzz: {} inputs of {} (seed {}, level {}), {} against {}",
        run.inputs,
        tools(run.tools.len()),
        run.seed,
        run.level,
        who(&run.peer),
        who(&run.against)
    );
    if run.timed_out {
        let _ = writeln!(
            out,
            "stopped by --time-limit after {} of {} inputs",
            run.inputs, run.count
        );
    }
    let _ = writeln!(out, "{}", findings(run));
    if run.over_mcp {
        let _ = writeln!(out, "{}", not_observable(run));
    }
    if !run.classes.is_empty() {
        let width = run
            .classes
            .iter()
            .map(|f| f.class.to_string().chars().count())
            .max()
            .unwrap_or(0)
            .max(5);
        let _ = writeln!(out, "{:<width$} {:>8}  minimal example", "class", "count");
        for finding in &run.classes {
            let example = cut(&finding.minimal.to_compact(), SHOWN);
            let class = finding.class.to_string();
            let _ = writeln!(out, "{class:<width$} {:>8}  {example}", finding.count);
        }
    }
    let fired = run.rules.inventory - run.rules.never_fired.len();
    let _ = writeln!(
        out,
        "rules: {fired} of {} input rules fired",
        run.rules.inventory
    );
    if !run.rules.never_fired.is_empty() {
        let shown: Vec<&str> = run
            .rules
            .never_fired
            .iter()
            .take(LISTED)
            .map(String::as_str)
            .collect();
        let more = match run.rules.never_fired.len().saturating_sub(LISTED) {
            0 => String::new(),
            n => format!(" (and {n} more)"),
        };
        let _ = writeln!(out, "never fired: {}{more}", shown.join(", "));
    }
    out
}

/// Writes `fuzz.json`, `summary.md` and the vector files into `dir` (created if missing).
pub fn write(dir: &Path, run: &Fuzzed) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    std::fs::write(dir.join("fuzz.json"), json(run).to_pretty() + "\n")?;
    std::fs::write(dir.join("summary.md"), markdown(run))?;
    for (path, text) in vector_files(run) {
        let file = dir.join(path);
        if let Some(parent) = file.parent() {
            std::fs::create_dir_all(parent)?;
        }
        std::fs::write(file, text)?;
    }
    Ok(())
}

/// `fuzz.json`.
pub fn json(run: &Fuzzed) -> Json {
    let mut o = Object::new();
    o.insert("format", Json::Number(1.0));
    o.insert("seed", Json::Number(run.seed as f64));
    o.insert("count", Json::Number(run.count as f64));
    o.insert("level", Json::str(run.level.as_str()));
    o.insert("peer", hello(&run.peer));
    o.insert("against", hello(&run.against));
    let tools = run.tools.iter().map(|t| Json::str(t.id())).collect();
    o.insert("tools", Json::Array(tools));
    o.insert("inputs", Json::Number(run.inputs as f64));
    o.insert("findings", Json::Number(run.findings as f64));
    if run.over_mcp {
        o.insert("not_observable", Json::Number(run.not_observable as f64));
    }
    o.insert("timed_out", Json::Bool(run.timed_out));
    o.insert(
        "unusable",
        run.unusable.as_deref().map_or(Json::Null, Json::str),
    );
    o.insert(
        "seconds",
        Json::Number(thousandths(run.elapsed.as_secs_f64())),
    );
    o.insert("inputs_per_second", Json::Number(run.rate().round()));
    o.insert(
        "shrink_seconds",
        Json::Number(thousandths(run.shrink_elapsed.as_secs_f64())),
    );
    let classes = run.classes.iter().map(class_json).collect();
    o.insert("classes", Json::Array(classes));
    let mut rules = Object::new();
    rules.insert("inventory", Json::Number(run.rules.inventory as f64));
    let fired = run.rules.inventory - run.rules.never_fired.len();
    rules.insert("fired", Json::Number(fired as f64));
    let never = run.rules.never_fired.iter().map(|r| Json::str(r)).collect();
    rules.insert("never_fired", Json::Array(never));
    o.insert("rules", Json::Object(rules));
    o.insert("stderr_tail", Json::str(&run.stderr_tail));
    Json::Object(o)
}

/// `summary.md`: the table of classes, then each class with its minimal example and both answers.
pub fn markdown(run: &Fuzzed) -> String {
    let mut out = String::from("# Fuzz report\n\n");
    let _ = writeln!(
        out,
        "`conform fuzz`, seed {}, {} inputs of {} at level `{}`: **{}**.",
        run.seed,
        run.inputs,
        tools(run.tools.len()),
        run.level,
        findings(run)
    );
    let _ = writeln!(
        out,
        "Peer: {}; compared against: {}.\n",
        who(&run.peer),
        who(&run.against)
    );
    if run.over_mcp {
        let _ = writeln!(out, "{}\n", not_observable(run));
    }
    if let Some(reason) = &run.unusable {
        let _ = writeln!(out, "The run stopped: the peer is unusable: {reason}\n");
    }
    if !run.classes.is_empty() {
        out.push_str("| tool | where | kind | count | first input | what |\n");
        out.push_str("| --- | --- | --- | ---: | ---: | --- |\n");
        for f in &run.classes {
            let _ = writeln!(
                out,
                "| `{}` | `{}` | {} | {} | {} | {} |",
                f.class.tool,
                f.class.place(),
                f.class.kind,
                f.count,
                f.first,
                what(f).replace('|', "\\|")
            );
        }
        out.push('\n');
    }
    for f in &run.classes {
        let _ = writeln!(
            out,
            "## `{}` `{}` {} ({})\n",
            f.class.tool,
            f.class.place(),
            f.class.kind,
            f.count
        );
        let _ = writeln!(out, "{}\n", what(f));
        let _ = writeln!(out, "Minimal input (from input {}):\n", f.first);
        let _ = writeln!(out, "```json\n{}\n```\n", f.minimal.to_compact());
        let _ = writeln!(
            out,
            "Expected:\n\n```json\n{}\n```\n",
            answer(&f.expected).to_compact()
        );
        let _ = writeln!(
            out,
            "Received:\n\n```json\n{}\n```\n",
            answer(&f.received).to_compact()
        );
    }
    let fired = run.rules.inventory - run.rules.never_fired.len();
    let _ = writeln!(
        out,
        "## Rules\n\n{fired} of {} input rules fired.",
        run.rules.inventory
    );
    if !run.rules.never_fired.is_empty() {
        out.push_str("\nNever fired:\n\n");
        for rule in &run.rules.never_fired {
            let _ = writeln!(out, "- `{rule}`");
        }
    }
    out
}

/// One vector file per tool with findings, `vectors/<tool>/fuzz-seed-<S>.json`, each minimal
/// example a vector whose expectation is the reference's verdict (interfaces.md §3).
pub fn vector_files(run: &Fuzzed) -> Vec<(String, String)> {
    let mut by_tool: BTreeMap<Tool, Vec<&Finding>> = BTreeMap::new();
    for finding in &run.classes {
        by_tool.entry(finding.class.tool).or_default().push(finding);
    }
    by_tool
        .into_iter()
        .map(|(tool, findings)| {
            let mut used: Vec<String> = Vec::new();
            let vectors = findings
                .into_iter()
                .map(|f| {
                    let id = unique_id(run.seed, &f.class.place(), &f.class.kind.name(), &mut used);
                    let mut v = Object::new();
                    v.insert("id", Json::str(&id));
                    let note = format!(
                        "found by conform fuzz (seed {}, input {}, {} inputs in the class): {}; \
                         the expectation is the reference's verdict",
                        run.seed,
                        f.first,
                        f.count,
                        what(f)
                    );
                    v.insert("note", Json::str(&note));
                    v.insert("input", f.minimal.clone());
                    if let Json::Object(verdict) = &f.reference.to_json() {
                        for (name, value) in verdict.iter() {
                            v.insert(&name.to_string(), value.clone());
                        }
                    }
                    Json::Object(v)
                })
                .collect();
            let mut file = Object::new();
            file.insert("tool", Json::str(tool.id()));
            file.insert("vectors", Json::Array(vectors));
            let path = format!("vectors/{}/fuzz-seed-{}.json", tool.id(), run.seed);
            (path, Json::Object(file).to_pretty() + "\n")
        })
        .collect()
}

/// One line on how the answers to the minimal input differ.
pub fn what(finding: &Finding) -> String {
    match (&finding.expected, &finding.received) {
        (Answer::Verdict(e), Answer::Verdict(r)) => describe(e, r),
        (Answer::Verdict(e), Answer::Mcp(r)) => format!("the MCP server: {}", describe_mcp(e, r)),
        (Answer::Verdict(_), other) => format!("the peer {}", failure(other)),
        (other, _) => format!("the --against peer {}", failure(other)),
    }
}

fn failure(answer: &Answer) -> String {
    match answer {
        Answer::Verdict(_) => "answered a verdict".to_owned(),
        Answer::Failed(Failure::Error(text)) => format!("answered error: {text}"),
        Answer::Failed(Failure::Timeout) => "did not answer in time".to_owned(),
        Answer::Failed(Failure::Crash(text)) => format!("crashed: {text}"),
        Answer::Failed(Failure::ProtocolError(text)) => format!("broke the protocol: {text}"),
        Answer::Unsupported => "does not implement the tool".to_owned(),
        Answer::Mcp(_) => "answered an MCP result".to_owned(),
        Answer::NotObservable(why) => format!("cannot be observed: {why}"),
    }
}

/// An answer as `conformance.json` writes one.
fn answer(answer: &Answer) -> Json {
    let mut o = Object::new();
    match answer {
        Answer::Verdict(verdict) => return verdict.to_json(),
        Answer::Failed(Failure::Error(text)) => o.insert("error", Json::str(text)),
        Answer::Failed(Failure::Timeout) => o.insert("timeout", Json::Bool(true)),
        Answer::Failed(Failure::Crash(text)) => o.insert("crash", Json::str(text)),
        Answer::Failed(Failure::ProtocolError(text)) => o.insert("protocol_error", Json::str(text)),
        Answer::Unsupported => o.insert("unsupported", Json::Bool(true)),
        Answer::Mcp(result) => return result.to_json(),
        Answer::NotObservable(why) => o.insert("not_observable", Json::str(why)),
    }
    Json::Object(o)
}

fn class_json(f: &Finding) -> Json {
    let mut o = Object::new();
    o.insert("tool", Json::str(f.class.tool.id()));
    o.insert("pattern", Json::str(&f.class.pattern));
    let rule = f.class.rule.as_ref().map(|r| Json::str(&r.to_string()));
    o.insert("rule", rule.unwrap_or(Json::Null));
    o.insert("kind", Json::str(&f.class.kind.name()));
    o.insert("count", Json::Number(f.count as f64));
    o.insert("first_input", Json::Number(f.first as f64));
    o.insert("what", Json::str(&what(f)));
    o.insert("minimal", f.minimal.clone());
    o.insert("expected", answer(&f.expected));
    o.insert("received", answer(&f.received));
    o.insert("reference", f.reference.to_json());
    o.insert("original", f.original.clone());
    Json::Object(o)
}

fn hello(implementation: &Implementation) -> Json {
    let mut o = Object::new();
    o.insert("name", Json::str(&implementation.name));
    o.insert("version", Json::str(&implementation.version));
    o.insert("language", Json::str(&implementation.language));
    Json::Object(o)
}

/// The line on the inputs an MCP server was not asked about.
fn not_observable(run: &Fuzzed) -> String {
    format!(
        "over MCP: {} not observable and not sent (the reference accepts them, and a call would \
         execute the tool; or they are no JSON object); {} sent as tools/call",
        count(run.not_observable, "input", "inputs"),
        run.inputs.saturating_sub(run.not_observable)
    )
}

fn tools(n: usize) -> String {
    count(n as u64, "tool", "tools")
}

/// `3 findings in 2 classes`.
fn findings(run: &Fuzzed) -> String {
    format!(
        "{} in {}",
        count(run.findings, "finding", "findings"),
        count(run.classes.len() as u64, "class", "classes")
    )
}

fn count(n: u64, one: &str, many: &str) -> String {
    match n {
        1 => format!("1 {one}"),
        n => format!("{n} {many}"),
    }
}

fn who(implementation: &Implementation) -> String {
    format!("{} {}", implementation.name, implementation.version)
}

/// A vector id from a class: `fuzz-<seed>-<place>-<kind>`, lowercase letters, digits and
/// dashes, made unique within its file (the seed keeps files of two runs apart in `vectors/`).
fn unique_id(seed: u64, place: &str, kind: &str, used: &mut Vec<String>) -> String {
    let mut slug = String::new();
    for c in format!("{place}-{kind}").chars() {
        match c.to_ascii_lowercase() {
            l @ ('a'..='z' | '0'..='9') => slug.push(l),
            _ if !slug.ends_with('-') => slug.push('-'),
            _ => {}
        }
    }
    let base = format!("fuzz-{seed}-{}", slug.trim_matches('-'));
    let mut id = base.clone();
    let mut n = 2;
    while used.contains(&id) {
        id = format!("{base}-{n}");
        n += 1;
    }
    used.push(id.clone());
    id
}

/// `text` cut to `n` characters, with an ellipsis when cut.
fn cut(text: &str, n: usize) -> String {
    match text.chars().count() > n {
        true => text.chars().take(n - 1).chain(['…']).collect(),
        false => text.to_owned(),
    }
}

fn thousandths(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_slugs_made_unique() {
        let mut used = Vec::new();
        assert_eq!(
            unique_id(3, "items[].title:min-length", "accepted", &mut used),
            "fuzz-3-items-title-min-length-accepted"
        );
        assert_eq!(
            unique_id(3, "items.title:min-length", "accepted", &mut used),
            "fuzz-3-items-title-min-length-accepted-2"
        );
        assert_eq!(
            unique_id(3, "(root)", "crash", &mut used),
            "fuzz-3-root-crash"
        );
    }
}
