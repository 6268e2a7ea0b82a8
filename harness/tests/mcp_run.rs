//! `conform run --mcp CMD`: the suite against MCP servers over stdio: `conform mcp` itself, and
//! a misbehaving one (`tests/mcp/fake_server.py`, a relay around `conform mcp` that plants
//! differences, never answers, or crashes once).

mod common;

use std::process::Command;
use std::time::{Duration, Instant};

use common::{CONFORM, fake_mcp_server, python3, text};

/// The run's `conformance.json` as plain JSON.
fn report(dir: &tempfile::TempDir) -> serde_json::Value {
    common::conformance_report(dir.path())
}

#[test]
fn conform_mcp_passes_every_reject_vector_at_text_and_every_editor_scenario() {
    let dir = tempfile::tempdir().expect("a report folder");
    let output = Command::new(CONFORM)
        .args(["run", "--failures", "5", "--mcp"])
        .arg(format!("{CONFORM} mcp --root {{root}}"))
        .arg("--report")
        .arg(dir.path())
        .output()
        .expect("conform runs");
    let said = text(&output);
    assert_eq!(output.status.code(), Some(0), "{said}");
    assert!(said.contains("the run is judged at text"), "{said}");
    assert!(said.contains("cannot be observed over MCP"), "{said}");
    let report = report(&dir);
    assert_eq!(report["level"], "text");
    for (tool, schema) in report["mcp"]["schemas"].as_object().expect("schemas") {
        assert_eq!(schema["outcome"], "equal", "{tool}");
    }
    for result in report["results"].as_array().expect("results") {
        let accept = result["expected"].get("accept").is_some();
        let outcome = result["outcome"].as_str();
        assert!(
            matches!(outcome, Some("not-observable" | "pass")),
            "{result}"
        );
        if accept {
            assert_eq!(result["outcome"], "not-observable", "{result}");
        }
    }
    let scenarios = &report["scenarios"]["totals"];
    assert!(scenarios["pass"].as_u64() > Some(400), "{scenarios}");
    assert_eq!(scenarios["fail"], 0);
}

#[test]
fn a_planted_schema_difference_and_a_changed_refusal_text_fail_the_run_naming_them() {
    if !python3() {
        eprintln!("python3 not found: skipped");
        return;
    }
    let dir = tempfile::tempdir().expect("a report folder");
    let command = format!(
        "python3 {} plant {CONFORM} {{root}}",
        fake_mcp_server().display()
    );
    let output = Command::new(CONFORM)
        .args([
            "run",
            "--only",
            "vectors",
            "--failures",
            "1",
            "--mcp",
            &command,
        ])
        .args(["--tool", "web_search", "--tool", "web_fetch"])
        .arg("--report")
        .arg(dir.path())
        .output()
        .expect("conform runs");
    let said = text(&output);
    assert_eq!(output.status.code(), Some(2), "{said}");
    assert!(
        said.contains("web_search: differs at /properties/count/maximum"),
        "{said}"
    );
    assert!(said.contains("web_fetch: equal"), "{said}");
    assert!(said.contains("(planted)\""), "{said}");
    let report = report(&dir);
    let schemas = &report["mcp"]["schemas"];
    assert_eq!(
        schemas["web_search"]["paths"][0],
        "/properties/count/maximum"
    );
    let failing: Vec<&str> = report["results"]
        .as_array()
        .expect("results")
        .iter()
        .filter(|r| r["outcome"] == "fail")
        .map(|r| r["vector"].as_str().expect("a name"))
        .collect();
    assert!(!failing.is_empty());
    assert!(
        failing.iter().all(|v| v.starts_with("web_fetch:")),
        "{failing:?}"
    );
}

#[test]
fn a_server_that_never_answers_initialize_is_unusable_within_its_timeout_and_is_gone() {
    if !python3() {
        eprintln!("python3 not found: skipped");
        return;
    }
    let marker = format!("silent-{}", std::process::id());
    let command = format!(
        "python3 {} silent {CONFORM} {marker}",
        fake_mcp_server().display()
    );
    let began = Instant::now();
    let output = Command::new(CONFORM)
        .args(["run", "--only", "vectors", "--tool", "web_search"])
        .args(["--hello-timeout-ms", "300", "--mcp", &command])
        .output()
        .expect("conform runs");
    let said = text(&output);
    assert_eq!(output.status.code(), Some(3), "{said}");
    assert!(began.elapsed() < Duration::from_secs(10), "{said}");
    assert!(
        said.contains("the server is unusable: the server did not answer initialize within 300 ms"),
        "{said}"
    );
    assert!(
        !common::still_running_after(&marker, Duration::from_secs(2)),
        "the silent server outlived the run"
    );
}

#[test]
fn a_server_that_crashes_mid_call_is_a_crash_and_is_restarted_for_the_rest() {
    if !python3() {
        eprintln!("python3 not found: skipped");
        return;
    }
    let scratch = tempfile::tempdir().expect("a folder");
    let marker = scratch.path().join("crashed");
    let command = format!(
        "python3 {} crash {CONFORM} {{root}} {}",
        fake_mcp_server().display(),
        marker.display()
    );
    let dir = tempfile::tempdir().expect("a report folder");
    let output = Command::new(CONFORM)
        .args(["run", "--only", "vectors", "--tool", "work_item_close"])
        .args(["--failures", "none", "--mcp", &command])
        .arg("--report")
        .arg(dir.path())
        .output()
        .expect("conform runs");
    let said = text(&output);
    assert_eq!(output.status.code(), Some(2), "{said}");
    let report = report(&dir);
    let totals = &report["totals"];
    assert_eq!(totals["crash"], 1, "{totals}");
    assert_eq!(totals["fail"], 0, "{totals}");
    let crashed = report["results"]
        .as_array()
        .expect("results")
        .iter()
        .find(|r| r["outcome"] == "crash")
        .expect("the crash");
    assert!(
        crashed["what"]
            .as_str()
            .is_some_and(|w| w.contains("closed its output before answering")),
        "{crashed}"
    );
    // Every reject vector after it was answered by a restarted server.
    assert!(totals["pass"].as_u64() > Some(100), "{totals}");
}

#[test]
fn a_server_that_lists_badly_or_talks_unasked_is_classified_without_a_hang_and_is_gone() {
    if !python3() {
        eprintln!("python3 not found: skipped");
        return;
    }
    // (mode, exit code, what the run says)
    let cases: [(&str, i32, &str); 4] = [
        (
            "missing",
            0,
            "371 vectors of tools the implementation does not claim are counted apart (unsupported)",
        ),
        ("not-object", 2, "web_search: differs at (root)"),
        ("notify", 0, "verdict 394/394, text 394/394"),
        (
            "list-error",
            3,
            "the server is unusable: the server answered tools/list with an error: JSON-RPC error -32603: the tools are out to lunch",
        ),
    ];
    for (mode, code, says) in cases {
        let marker = format!("{mode}-{}", std::process::id());
        let command = format!(
            "python3 {} {mode} {CONFORM} {{root}} {marker}",
            fake_mcp_server().display()
        );
        let began = Instant::now();
        let output = Command::new(CONFORM)
            .args(["run", "--only", "vectors", "--failures", "none"])
            .args([
                "--tool",
                "web_search",
                "--tool",
                "web_fetch",
                "--mcp",
                &command,
            ])
            .output()
            .expect("conform runs");
        let said = text(&output);
        assert_eq!(output.status.code(), Some(code), "{mode}: {said}");
        assert!(said.contains(says), "{mode}: {said}");
        assert!(began.elapsed() < Duration::from_secs(60), "{mode}: {said}");
        assert!(
            !common::still_running_after(&marker, Duration::from_secs(2)),
            "{mode}: the server outlived the run"
        );
    }
}
