//! Helpers several test binaries of the harness share (each binary uses what it needs).

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use vvoc_reference::{Json, Object};

/// The `conform` binary under test.
pub const CONFORM: &str = env!("CARGO_BIN_EXE_conform");

/// A command's standard output followed by its standard error.
pub fn text(output: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

/// A temporary folder holding `files` (relative path, text), subfolders created.
pub fn files_folder(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("a temporary folder");
    for (name, text) in files {
        let path = dir.path().join(name);
        std::fs::create_dir_all(path.parent().expect("a parent")).expect("a subfolder");
        std::fs::write(path, text).expect("a written file");
    }
    dir
}

/// A vectors folder: one `web_search` vector, and the scenarios of `tool` given as (id, the JSON
/// members after the id).
pub fn scenario_folder<S: AsRef<str>>(tool: &str, scenarios: &[(&str, S)]) -> tempfile::TempDir {
    let items: Vec<String> = scenarios
        .iter()
        .map(|(id, body)| format!(r#"{{"id": "{id}", {}}}"#, body.as_ref()))
        .collect();
    let scenarios = format!(
        r#"{{"tool": "{tool}", "scenarios": [{}]}}"#,
        items.join(",\n")
    );
    files_folder(&[
        (
            "v.json",
            r#"{"tool": "web_search", "vectors": [{"id": "plain", "input": {"query": "q"}, "accept": {"query": "q", "count": 8}}]}"#,
        ),
        ("exec.json", &scenarios),
    ])
}

/// Whether some process's command line still contains `marker` after `grace` (checked every
/// 10 ms, so a process that is gone sooner ends the wait).
pub fn still_running_after(marker: &str, grace: Duration) -> bool {
    let started = Instant::now();
    while process_running(marker) {
        if started.elapsed() >= grace {
            return true;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    false
}

/// Whether some process's command line contains `marker`.
pub fn process_running(marker: &str) -> bool {
    std::fs::read_dir("/proc")
        .into_iter()
        .flatten()
        .flatten()
        .any(|entry| {
            std::fs::read(entry.path().join("cmdline")).is_ok_and(|cmdline| {
                String::from_utf8_lossy(&cmdline)
                    .replace('\0', " ")
                    .contains(marker)
            })
        })
}

/// `conform fuzz` with `args`.
pub fn fuzz(args: &[&str]) -> Output {
    Command::new(CONFORM)
        .arg("fuzz")
        .args(args)
        .output()
        .expect("conform runs")
}

/// The exit code (-1 for a signal).
pub fn code(output: &Output) -> i32 {
    output.status.code().unwrap_or(-1)
}

/// `fuzz.json` without its timings (the only members that change from run to run).
pub fn fuzz_report(dir: &Path) -> Json {
    let text = std::fs::read_to_string(dir.join("fuzz.json")).expect("fuzz.json");
    let json = Json::parse(&text).expect("fuzz.json is JSON");
    let object = json.as_object().expect("an object");
    let timings = ["seconds", "inputs_per_second", "shrink_seconds"];
    Json::Object(Object::from_members(
        object
            .iter()
            .filter(|(k, _)| !timings.iter().any(|t| k.eq_str(t)))
            .map(|(k, v)| (k.clone(), v.clone())),
    ))
}

/// The classes of a report: (tool, place, kind, minimal input as compact JSON), the place being
/// the rule's id without its tool where the class has a rule, else its pattern.
pub fn fuzz_classes(report: &Json) -> Vec<(String, String, String, String)> {
    let member = |o: &Object, name: &str| o.get(name).map(Json::to_compact).unwrap_or_default();
    report
        .as_object()
        .and_then(|o| o.get("classes"))
        .and_then(Json::as_array)
        .expect("classes")
        .iter()
        .filter_map(Json::as_object)
        .map(|c| {
            let name = |n: &str| c.get(n).and_then(Json::as_string).map(|s| s.to_string());
            let tool = name("tool").unwrap_or_default();
            let rule = name("rule").map(|r| r.trim_start_matches(&format!("{tool}:")).to_owned());
            (
                tool,
                rule.or_else(|| name("pattern")).unwrap_or_default(),
                name("kind").unwrap_or_default(),
                member(c, "minimal"),
            )
        })
        .collect()
}

/// Whether `python3` can be run (the MCP relay is a Python script).
pub fn python3() -> bool {
    Command::new("python3").arg("--version").output().is_ok()
}

/// The misbehaving MCP server of the tests, a relay around `conform mcp`.
pub fn fake_mcp_server() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/mcp/fake_server.py")
}

/// The `conformance.json` in `dir` as plain JSON, read as `cargo xtask mutants` reads it, its
/// inputs left out (they may nest deeper than serde_json walks).
pub fn conformance_report(dir: &Path) -> serde_json::Value {
    let text = std::fs::read_to_string(dir.join("conformance.json")).expect("a report");
    let mut report =
        vvoc_harness::report::conformance::Conformance::read(&text).expect("a conformance report");
    for detail in report.results.iter_mut().filter_map(|r| r.detail.as_mut()) {
        detail.input = vvoc_harness::json::ser::Embedded(Json::Null);
    }
    serde_json::to_value(&report).expect("JSON")
}
