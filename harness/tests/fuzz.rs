//! `conform fuzz` end to end: planted differences of the fake peer are found, shrunk and classed
//! the same way on every run and with any number of jobs; the reference as a peer disagrees with
//! nothing; a crashing peer is a finding, or unusable; usage errors exit 1.

mod common;

use std::process::{Command, Output};

use common::{CONFORM, code, fuzz, fuzz_classes, fuzz_report, text};
use vvoc_reference::Json;

const FAKE: &str = env!("CARGO_BIN_EXE_fake-peer");

/// Runs the fake peer with `plant` twice (one job, then two) and returns the report after
/// checking both runs found the same.
fn planted(plant: &str, tool: &str, count: &str) -> Json {
    let peer = format!("{FAKE} --plant {plant}");
    let mut reports = Vec::new();
    for jobs in ["1", "2"] {
        let dir = tempfile::tempdir().expect("a folder");
        let out = dir.path().to_str().expect("a UTF-8 path");
        let args = [
            "--peer", &peer, "--tool", tool, "--count", count, "--seed", "7",
        ];
        let output = fuzz(&[&args[..], &["--jobs", jobs, "--out", out]].concat());
        assert_eq!(code(&output), 2, "{}", text(&output));
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
fn an_off_by_one_bound_is_one_class_of_its_rule_shrunk_to_the_bound_alone() {
    let report = planted("off-by-one", "web_search", "3000");
    let found = fuzz_classes(&report);
    // The peer lacks the bound's issue whether or not the input earns others (a missing query
    // among them), so the smallest input of the class is the bound alone.
    assert_eq!(
        found,
        vec![(
            "web_search".to_owned(),
            "count:maximum".to_owned(),
            "accepted".to_owned(),
            r#"{"count":21}"#.to_owned()
        )]
    );
}

#[test]
fn a_wrong_message_is_found_shrunk_to_the_field_alone_and_classed() {
    let report = planted("wrong-message", "web_fetch", "3000");
    let found = fuzz_classes(&report);
    assert_eq!(
        found,
        vec![(
            "web_fetch".to_owned(),
            "timeout:maximum".to_owned(),
            "message".to_owned(),
            r#"{"timeout":121}"#.to_owned()
        )]
    );
}

#[test]
fn a_missing_trim_is_found_shrunk_to_one_padded_unit_and_classed() {
    let report = planted("missing-trim", "work_item_close", "3000");
    let found = fuzz_classes(&report);
    assert_eq!(found.len(), 1, "{found:?}");
    let (tool, pattern, kind, minimal) = &found[0];
    assert_eq!(
        (tool.as_str(), pattern.as_str(), kind.as_str()),
        ("work_item_close", "workItemId", "output")
    );
    // One member of the trimming set beside one plain unit is as small as the difference gets.
    let input = Json::parse(minimal).expect("JSON");
    let id = input
        .as_object()
        .and_then(|o| o.get("workItemId"))
        .and_then(Json::as_string);
    let id = id.expect("a workItemId").to_string();
    assert_eq!(id.chars().count(), 2, "{minimal}");
    assert!(id.contains('a') && id.trim() == "a", "{minimal}");
}

#[test]
fn a_trimming_bug_is_one_class_named_by_its_rule_whatever_other_fields_the_inputs_have() {
    let report = planted("trimmed-query", "web_search", "3000");
    let found = fuzz_classes(&report);
    // Blank queries come with bad counts, freshness values and stray members too; each of those
    // inputs is the same bug, found by the same rule.
    let count = report
        .as_object()
        .and_then(|o| o.get("findings"))
        .and_then(Json::as_f64);
    assert!(count.is_some_and(|n| n > 1.0), "{found:?}");
    assert_eq!(found.len(), 1, "{found:?}");
    let (tool, place, kind, minimal) = &found[0];
    assert_eq!(
        (tool.as_str(), place.as_str(), kind.as_str()),
        ("web_search", "query:min-length", "refused"),
        "{found:?}"
    );
    // One member of the trimming set is as small as a blank query gets.
    let input = Json::parse(minimal).expect("JSON");
    let query = input
        .as_object()
        .and_then(|o| o.get("query"))
        .and_then(Json::as_string)
        .map(|q| q.to_string());
    assert_eq!(query.as_deref().map(str::trim), Some(""), "{minimal}");
    assert_eq!(query.map(|q| q.chars().count()), Some(1), "{minimal}");
}

#[test]
fn the_reference_as_a_peer_disagrees_with_nothing() {
    let peer = format!("{CONFORM} peer");
    let output = fuzz(&["--peer", &peer, "--count", "20000", "--jobs", "2"]);
    assert_eq!(code(&output), 0, "{}", text(&output));
    assert!(
        text(&output).contains("0 findings in 0 classes"),
        "{}",
        text(&output)
    );
}

#[test]
fn a_peer_that_crashes_is_a_finding_until_it_has_used_up_its_restarts() {
    let peer = format!("{FAKE} --plant crash");
    let args = ["--peer", &peer, "--tool", "web_search", "--count", "600"];
    let patient = fuzz(&[&args[..], &["--max-restarts", "1000"]].concat());
    assert_eq!(code(&patient), 2, "{}", text(&patient));
    assert!(
        text(&patient).contains("web_search (root) crash"),
        "{}",
        text(&patient)
    );
    let strict = fuzz(&[&args[..], &["--max-restarts", "1"]].concat());
    assert_eq!(code(&strict), 3, "{}", text(&strict));
    assert!(
        text(&strict).contains("the peer is unusable"),
        "{}",
        text(&strict)
    );
    let silent = fuzz(&["--peer", &format!("{FAKE} --hello exit"), "--count", "10"]);
    assert_eq!(code(&silent), 3, "{}", text(&silent));
}

#[test]
fn usage_errors_exit_1() {
    for args in [
        &["--count", "10"][..],
        &["--dry-run", "--tool", "nope"],
        &["--dry-run", "--level", "most"],
        &["--dry-run", "--time-limit", "-1"],
        &["--dry-run", "--peer", "x"],
        &["--dry-run", "--jobs", "0"],
    ] {
        let output = fuzz(args);
        assert_eq!(code(&output), 1, "{args:?}: {}", text(&output));
    }
}

#[test]
fn the_help_explains_every_option_with_an_example() {
    let output = fuzz(&["--help"]);
    assert_eq!(code(&output), 0);
    let help = text(&output);
    for option in [
        "--peer",
        "--against",
        "--tool",
        "--count",
        "--seed",
        "--level",
        "--jobs",
        "--out",
        "--time-limit",
        "--dry-run",
    ] {
        assert!(help.contains(option), "{option} in:\n{help}");
    }
    assert!(
        help.contains("Examples:") && help.contains("conform fuzz --peer"),
        "{help}"
    );
}

#[test]
fn a_dry_run_reaches_every_rule_of_a_tool_and_is_the_same_for_a_seed() {
    let run = || {
        fuzz(&[
            "--dry-run",
            "--tool",
            "str_replace_editor",
            "--count",
            "20000",
        ])
    };
    let (a, b) = (run(), run());
    assert_eq!(code(&a), 0, "{}", text(&a));
    let stdout = |o: &Output| {
        String::from_utf8_lossy(&o.stdout)
            .lines()
            .skip(1)
            .collect::<Vec<_>>()
            .join("\n")
    };
    assert_eq!(stdout(&a), stdout(&b));
    assert!(
        stdout(&a).contains("rules: 37 of 37 input rules fired"),
        "{}",
        stdout(&a)
    );
}

#[test]
fn every_input_rule_of_the_inventory_fires_within_100000_generated_inputs() {
    let output = fuzz(&["--dry-run", "--count", "100000", "--jobs", "2"]);
    assert_eq!(code(&output), 0, "{}", text(&output));
    let stdout = String::from_utf8_lossy(&output.stdout);
    let line = stdout
        .lines()
        .find(|l| l.starts_with("rules: "))
        .unwrap_or_default();
    let (fired, of) = line
        .trim_start_matches("rules: ")
        .split_once(" of ")
        .expect("rules: N of M");
    let of = of.split_whitespace().next().unwrap_or_default();
    assert_eq!(fired, of, "{stdout}");
}

#[test]
fn a_second_peer_can_stand_in_for_the_reference() {
    let peer = format!("{FAKE} --plant wrong-message");
    let against = format!("{CONFORM} peer");
    let args = ["--peer", &peer, "--tool", "web_fetch", "--count", "3000"];
    let output = fuzz(&[&args[..], &["--against", &against]].concat());
    assert_eq!(code(&output), 2, "{}", text(&output));
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        stdout.contains("fake-peer 0 against vvoc-reference"),
        "{stdout}"
    );
    assert!(
        stdout.contains("web_fetch timeout:maximum message"),
        "{stdout}"
    );
    assert!(stdout.contains(r#"{"timeout":121}"#), "{stdout}");
}

#[test]
fn a_time_limit_stops_generation_and_says_so() {
    let output = fuzz(&["--dry-run", "--count", "1000000000", "--time-limit", "0.3"]);
    assert_eq!(code(&output), 0, "{}", text(&output));
    assert!(
        text(&output).contains("stopped by --time-limit after"),
        "{}",
        text(&output)
    );
}
