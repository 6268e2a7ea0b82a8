//! `conform run --mcp-url URL`: the suite against an MCP server over Streamable HTTP, here
//! `conform mcp --listen 127.0.0.1:0`; and a URL where nothing listens, or where nothing
//! answers. Every address is 127.0.0.1.

mod common;
#[path = "common/mcp_clients.rs"]
mod mcp_clients;

use std::net::TcpListener;
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use common::{CONFORM, text};
use mcp_clients::Listening;

/// `conform run --mcp-url URL` with more arguments, its report in `dir`.
fn run(url: &str, args: &[&str], dir: &tempfile::TempDir) -> Output {
    Command::new(CONFORM)
        .args(["run", "--mcp-url", url, "--report"])
        .arg(dir.path())
        .args(args)
        .output()
        .expect("conform runs")
}

/// The run's `conformance.json` as plain JSON.
fn report(dir: &tempfile::TempDir) -> serde_json::Value {
    common::conformance_report(dir.path())
}

/// A free port of 127.0.0.1, nothing listening on it any more.
fn closed_port() -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").expect("a port");
    listener.local_addr().expect("its address").port()
}

#[test]
fn conform_mcp_over_http_passes_every_reject_vector_at_text() {
    let root = tempfile::tempdir().expect("a root");
    let server = Listening::start(&["--root".as_ref(), root.path().as_os_str()]);
    let dir = tempfile::tempdir().expect("a report folder");
    let output = run(&server.url, &["--only", "vectors", "--failures", "5"], &dir);
    let said = text(&output);
    assert_eq!(output.status.code(), Some(0), "{said}");
    assert!(said.contains("the run is judged at text"), "{said}");
    let report = report(&dir);
    assert_eq!(report["level"], "text");
    let schemas = report["mcp"]["schemas"].as_object().expect("schemas");
    assert_eq!(schemas.len(), 9);
    for (tool, schema) in schemas {
        assert_eq!(schema["outcome"], "equal", "{tool}");
    }
    let results = report["results"].as_array().expect("results");
    let mut passed = 0;
    for result in results {
        let outcome = result["outcome"].as_str();
        assert!(
            matches!(outcome, Some("not-observable" | "pass")),
            "{result}"
        );
        if result["expected"].get("accept").is_some() {
            assert_eq!(outcome, Some("not-observable"), "{result}");
        }
        passed += usize::from(outcome == Some("pass"));
    }
    assert!(passed > 1900, "{passed} passed");
}

#[test]
fn editor_scenarios_over_a_url_are_not_observable_for_want_of_a_root_of_their_own() {
    let root = tempfile::tempdir().expect("a root");
    let server = Listening::start(&["--root".as_ref(), root.path().as_os_str()]);
    let dir = tempfile::tempdir().expect("a report folder");
    let output = run(
        &server.url,
        &["--only", "scenarios", "--tool", "str_replace_editor"],
        &dir,
    );
    let said = text(&output);
    assert_eq!(output.status.code(), Some(0), "{said}");
    let report = report(&dir);
    let totals = &report["scenarios"]["totals"];
    assert!(totals["not-observable"].as_u64() > Some(100), "{totals}");
    assert_eq!(totals["pass"], 0, "{totals}");
    let first = &report["scenarios"]["results"][0];
    assert!(
        first["what"]
            .as_str()
            .is_some_and(|w| w.contains("over --mcp-url the server's root is its own")),
        "{first}"
    );
    // Nothing was written into the server's root.
    let written = std::fs::read_dir(root.path()).expect("the root").count();
    assert_eq!(written, 0);
}

#[test]
fn a_url_where_nothing_listens_is_unusable_at_once_and_named() {
    let url = format!("http://127.0.0.1:{}/mcp", closed_port());
    let dir = tempfile::tempdir().expect("a report folder");
    let began = Instant::now();
    let output = run(&url, &["--only", "vectors", "--tool", "web_search"], &dir);
    let said = text(&output);
    assert_eq!(output.status.code(), Some(3), "{said}");
    assert!(began.elapsed() < Duration::from_secs(10), "{said}");
    assert!(
        said.contains(&format!("the server is unusable: cannot connect to {url}")),
        "{said}"
    );
}

#[test]
fn a_url_that_accepts_and_never_answers_is_unusable_within_the_initialize_timeout() {
    let listener = TcpListener::bind("127.0.0.1:0").expect("a port");
    let url = format!("http://{}/mcp", listener.local_addr().expect("its address"));
    // Connections are taken and held, unanswered, until the test ends.
    std::thread::spawn(move || {
        let held: Vec<_> = listener.incoming().collect();
        drop(held);
    });
    let dir = tempfile::tempdir().expect("a report folder");
    let began = Instant::now();
    let output = run(
        &url,
        &["--hello-timeout-ms", "300", "--only", "vectors"],
        &dir,
    );
    let said = text(&output);
    assert_eq!(output.status.code(), Some(3), "{said}");
    assert!(began.elapsed() < Duration::from_secs(10), "{said}");
    assert!(
        said.contains("the server is unusable: the server did not answer initialize within 300 ms"),
        "{said}"
    );
}
