//! A planted difference in an MCP server written with the official TypeScript SDK is caught
//! and named (issue 21, item 3): `tests/mcp/planted_server.mjs` is the SDK's `Server` relaying
//! to a real `conform mcp` through the SDK's `Client`, with web_search's `count` maximum 25
//! instead of 20 in its `tools/list` schema and in its behaviour. The same relay without the
//! plant (`unplanted`) is run too, so that what the relay through the SDK changes by itself is
//! told apart from the plant. Offline: the relayed `conform mcp` has no credential and its
//! providers' endpoints on a closed loopback port. Where the SDK is found, and the skip without
//! it (a failure with `CI` set): `common/mcp_clients.rs`.

mod common;
#[path = "common/mcp_clients.rs"]
mod mcp_clients;

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;

use common::{CONFORM, text};
use mcp_clients::{SDK, clients_dir, package_or_skip};

/// What one run of web_search's vectors against the SDK server gave: its exit code, what it
/// said, the schema comparison of web_search, and the vectors that did not pass (or could not
/// be observed).
struct Seen {
    code: Option<i32>,
    said: String,
    schema: serde_json::Value,
    failing: BTreeSet<String>,
}

fn run_against_the_sdk_server(mode: &str) -> Seen {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/mcp/planted_server.mjs");
    let command = format!(
        "node {} {} {CONFORM} {{root}} {mode}",
        shell_words::quote(&script.to_string_lossy()),
        shell_words::quote(&clients_dir().to_string_lossy()),
    );
    let dir = tempfile::tempdir().expect("a report folder");
    let output = Command::new(CONFORM)
        .args(["run", "--only", "vectors", "--tool", "web_search"])
        .args(["--failures", "all", "--mcp", &command, "--report"])
        .arg(dir.path())
        .output()
        .expect("conform runs");
    let said = text(&output);
    assert!(
        dir.path().join("conformance.json").is_file(),
        "a report: {said}"
    );
    let report = common::conformance_report(dir.path());
    let failing = report["results"]
        .as_array()
        .expect("results")
        .iter()
        .filter(|r| !matches!(r["outcome"].as_str(), Some("pass" | "not-observable")))
        .map(|r| r["vector"].as_str().expect("a name").to_owned())
        .collect();
    Seen {
        code: output.status.code(),
        said,
        schema: report["mcp"]["schemas"]["web_search"].clone(),
        failing,
    }
}

#[test]
fn a_wrong_count_bound_in_a_typescript_sdk_server_is_caught_in_its_schema_and_its_refusals() {
    if package_or_skip("mcp_planted", SDK).is_none() {
        return;
    }
    let planted = run_against_the_sdk_server("planted");
    let unplanted = run_against_the_sdk_server("unplanted");

    assert_eq!(planted.code, Some(2), "{}", planted.said);
    assert!(
        planted
            .said
            .contains("web_search: differs at /properties/count/maximum"),
        "{}",
        planted.said
    );
    assert_eq!(
        planted.schema["paths"],
        serde_json::json!(["/properties/count/maximum"])
    );
    assert_eq!(unplanted.schema["outcome"], "equal", "{}", unplanted.said);

    // What fails with the plant and not without it is the plant's doing: vectors of count.
    let caught: Vec<&String> = planted.failing.difference(&unplanted.failing).collect();
    for name in [
        "web_search:reject-count-high",
        "web_search:reject-freshness-and-count-both",
        "web_search:reject-count-max-safe-integer",
    ] {
        assert!(caught.iter().any(|c| *c == name), "{name}: {caught:?}");
        assert!(
            planted.said.contains(&format!("{name} (fail")),
            "{name} is named: {}",
            planted.said
        );
    }
    assert!(
        caught.iter().all(|c| c.contains("count")),
        "only vectors of count fail for the plant: {caught:?}"
    );
    assert!(
        planted.said.contains("expected number to be <=25"),
        "{}",
        planted.said
    );
    // Nothing the relay broke by itself went away with the plant.
    assert!(
        unplanted.failing.is_subset(&planted.failing),
        "{:?} against {:?}",
        unplanted.failing,
        planted.failing
    );
}
