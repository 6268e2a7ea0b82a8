//! `conform fuzz --mcp CMD`: the inputs the reference refuses go to an MCP server as
//! `tools/call`s and its refusal texts are compared with the one-line form; `conform mcp` itself
//! disagrees with nothing, and a relay around it that plants a difference
//! (`tests/mcp/fake_server.py`) is found, classed and shrunk the same way with any number of
//! jobs. The inputs the reference accepts are counted apart, never sent.

mod common;

use std::process::Command;

use common::{CONFORM, code, fake_mcp_server, fuzz, fuzz_classes, fuzz_report, python3, text};
use vvoc_reference::Json;

fn number(report: &Json, name: &str) -> f64 {
    report
        .as_object()
        .and_then(|o| o.get(name))
        .and_then(Json::as_f64)
        .unwrap_or(-1.0)
}

/// Fuzzes the relay in `mode` around `conform mcp` for `tool`, with one job and with two, and
/// returns the report after checking both found the same and exited 2.
fn planted(mode: &str, tool: &str, count: &str) -> Json {
    let server = format!(
        "python3 {} {mode} {CONFORM} {{root}}",
        fake_mcp_server().display()
    );
    let mut reports = Vec::new();
    for jobs in ["1", "2"] {
        let dir = tempfile::tempdir().expect("a folder");
        let out = dir.path().to_str().expect("a UTF-8 path");
        let args = ["--mcp", &server, "--tool", tool, "--count", count];
        let output = fuzz(&[&args[..], &["--jobs", jobs, "--out", out]].concat());
        assert_eq!(code(&output), 2, "{}", text(&output));
        assert!(
            text(&output).contains("not observable"),
            "{}",
            text(&output)
        );
        reports.push((fuzz_report(dir.path()), dir));
    }
    assert_eq!(
        reports[0].0, reports[1].0,
        "one job and two found the same classes, counts and examples"
    );
    let (report, dir) = reports.swap_remove(0);
    let lint = Command::new(CONFORM)
        .args(["lint", "--no-builtin", "--vectors"])
        .arg(dir.path().join("vectors"))
        .output()
        .expect("conform lint runs");
    assert_eq!(code(&lint), 0, "the vector files lint: {}", text(&lint));
    report
}

#[test]
fn conform_mcp_over_mcp_disagrees_with_nothing_and_its_accepted_inputs_are_counted_apart() {
    let dir = tempfile::tempdir().expect("a folder");
    let out = dir.path().to_str().expect("a UTF-8 path");
    let server = format!("{CONFORM} mcp --root {{root}}");
    let args = ["--mcp", &server, "--count", "1500", "--jobs", "2"];
    let output = fuzz(&[&args[..], &["--out", out]].concat());
    let said = text(&output);
    assert_eq!(code(&output), 0, "{said}");
    assert!(said.contains("level text"), "{said}");
    let report = fuzz_report(dir.path());
    assert_eq!(
        (number(&report, "inputs"), number(&report, "findings")),
        (1500.0, 0.0)
    );
    let unsent = number(&report, "not_observable");
    assert!(unsent > 0.0 && unsent < 1500.0, "{unsent} not observable");
    assert!(
        said.contains(&format!("over MCP: {unsent} inputs not observable")),
        "{said}"
    );
}

#[test]
fn a_server_whose_count_bound_is_21_is_one_text_class_of_the_bound_shrunk_to_the_bound_alone() {
    if !python3() {
        eprintln!("python3 not found: skipped");
        return;
    }
    let report = planted("bound", "web_search", "3000");
    assert_eq!(
        fuzz_classes(&report),
        vec![(
            "web_search".to_owned(),
            "count:maximum".to_owned(),
            "text".to_owned(),
            r#"{"count":21}"#.to_owned()
        )]
    );
}

#[test]
fn a_refusal_text_with_something_after_the_one_line_form_is_one_text_class_at_the_root() {
    if !python3() {
        eprintln!("python3 not found: skipped");
        return;
    }
    let report = planted("plant", "web_fetch", "400");
    assert_eq!(
        fuzz_classes(&report),
        vec![(
            "web_fetch".to_owned(),
            "(root)".to_owned(),
            "text".to_owned(),
            "{}".to_owned()
        )]
    );
}

#[test]
fn mcp_beside_a_peer_or_at_a_level_of_issues_is_a_usage_error_naming_the_conflict() {
    let output = fuzz(&["--mcp", "conform mcp", "--peer", "conform peer"]);
    assert_eq!(code(&output), 1, "{}", text(&output));
    let said = text(&output);
    assert!(said.contains("--mcp") && said.contains("--peer"), "{said}");
    let output = fuzz(&["--mcp", "conform mcp", "--against", "conform peer"]);
    assert_eq!(code(&output), 1, "{}", text(&output));
    assert!(text(&output).contains("--against"), "{}", text(&output));
    let output = fuzz(&["--mcp", "conform mcp", "--level", "exact"]);
    assert_eq!(code(&output), 1, "{}", text(&output));
    assert!(
        text(&output).contains("the levels over MCP are verdict and text"),
        "{}",
        text(&output)
    );
}
