//! The official MCP conformance suite (`@modelcontextprotocol/conformance`, pinned in
//! `common/mcp_clients.rs`) against `conform mcp --listen 127.0.0.1:0`: the suite tests a server
//! only over Streamable HTTP, at a URL. Every server scenario the suite lists is run (`server
//! --suite all`, one run) and must end as [`SCENARIOS`] says: the ones that apply to a
//! tools-only server pass (warnings are printed), and each other one fails for the reason given
//! there; a scenario that passes where a failure is expected fails the check (move it), and so
//! does one the table does not name (classify it).
//!
//! The suite runs on Bun 1.3.8 (installed by `.ci/run` for `bun_urls.rs`), not on Node: version
//! 0.1.16 imports `fs.globSync`, which Node 20 (this machine's) lacks. Nothing it does reaches
//! past 127.0.0.1. Where the packages are found, and the skip without them (a failure with `CI`
//! set): `common/mcp_clients.rs`.

mod common;
#[path = "common/mcp_clients.rs"]
mod mcp_clients;

use std::ffi::OsStr;
use std::io::Write as _;
use std::path::Path;
use std::process::Command;

use serde_json::Value;

use mcp_clients::{CONFORMANCE, Listening, find_bun, package_or_skip};

/// How a scenario of the suite must end against `conform mcp`.
enum Expect {
    /// It applies to a tools-only server and passes (no check fails).
    Passes,
    /// It does not apply, or fails for a known reason: a check fails with a message holding
    /// `because`.
    Fails {
        reason: &'static str,
        because: &'static str,
    },
}

use Expect::{Fails, Passes};

const NO_LOGGING: &str = "the server declares no logging capability (the reference logs nothing)";
const NO_COMPLETIONS: &str = "the server has no prompts or resource templates to complete";
const NO_RESOURCES: &str = "the server serves tools only, no resources";
const NO_PROMPTS: &str = "the server serves tools only, no prompts";
const SUITE_TOOL: &str = "it calls a test tool of the suite's own (test_simple_text and the like), \
                          which a server of the nine tools does not have";
const NO_ELICITATION: &str =
    "it calls a suite tool that asks the client for input (elicitation); the reference never does";
const NO_SAMPLING: &str =
    "it calls a suite tool that asks the client's model (sampling); the reference never does";

/// Every server scenario of conformance 0.1.16 (`conformance list --server`), in its order.
const SCENARIOS: &[(&str, Expect)] = &[
    ("server-initialize", Passes),
    (
        "logging-set-level",
        Fails {
            reason: NO_LOGGING,
            because: "-32601: logging/setLevel",
        },
    ),
    ("ping", Passes),
    (
        "completion-complete",
        Fails {
            reason: NO_COMPLETIONS,
            because: "-32601: completion/complete",
        },
    ),
    ("tools-list", Passes),
    (
        "tools-call-simple-text",
        Fails {
            reason: SUITE_TOOL,
            because: "unknown tool \"test_simple_text\"",
        },
    ),
    (
        "tools-call-image",
        Fails {
            reason: SUITE_TOOL,
            because: "unknown tool \"test_image_content\"",
        },
    ),
    (
        "tools-call-audio",
        Fails {
            reason: SUITE_TOOL,
            because: "unknown tool \"test_audio_content\"",
        },
    ),
    (
        "tools-call-embedded-resource",
        Fails {
            reason: SUITE_TOOL,
            because: "unknown tool \"test_embedded_resource\"",
        },
    ),
    (
        "tools-call-mixed-content",
        Fails {
            reason: SUITE_TOOL,
            because: "unknown tool \"test_multiple_content_types\"",
        },
    ),
    (
        "tools-call-with-logging",
        Fails {
            reason: NO_LOGGING,
            because: "-32601: logging/setLevel",
        },
    ),
    (
        "tools-call-error",
        Fails {
            reason: SUITE_TOOL,
            because: "unknown tool \"test_error_handling\"",
        },
    ),
    (
        "tools-call-with-progress",
        Fails {
            reason: SUITE_TOOL,
            because: "unknown tool \"test_tool_with_progress\"",
        },
    ),
    (
        "tools-call-sampling",
        Fails {
            reason: NO_SAMPLING,
            because: "unknown tool \"test_sampling\"",
        },
    ),
    (
        "tools-call-elicitation",
        Fails {
            reason: NO_ELICITATION,
            because: "unknown tool \"test_elicitation\"",
        },
    ),
    (
        "json-schema-2020-12",
        Fails {
            reason: SUITE_TOOL,
            because: "Tool 'json_schema_2020_12_tool' not found",
        },
    ),
    (
        "elicitation-sep1034-defaults",
        Fails {
            reason: NO_ELICITATION,
            because: "unknown tool \"test_elicitation_sep1034_defaults\"",
        },
    ),
    ("server-sse-polling", Passes),
    ("server-sse-multiple-streams", Passes),
    (
        "elicitation-sep1330-enums",
        Fails {
            reason: NO_ELICITATION,
            because: "unknown tool \"test_elicitation_sep1330_enums\"",
        },
    ),
    (
        "resources-list",
        Fails {
            reason: NO_RESOURCES,
            because: "-32601: resources/list",
        },
    ),
    (
        "resources-read-text",
        Fails {
            reason: NO_RESOURCES,
            because: "-32601: resources/read",
        },
    ),
    (
        "resources-read-binary",
        Fails {
            reason: NO_RESOURCES,
            because: "-32601: resources/read",
        },
    ),
    (
        "resources-templates-read",
        Fails {
            reason: NO_RESOURCES,
            because: "-32601: resources/read",
        },
    ),
    (
        "resources-subscribe",
        Fails {
            reason: NO_RESOURCES,
            because: "-32601: resources/subscribe",
        },
    ),
    (
        "resources-unsubscribe",
        Fails {
            reason: NO_RESOURCES,
            because: "-32601: resources/subscribe",
        },
    ),
    (
        "prompts-list",
        Fails {
            reason: NO_PROMPTS,
            because: "-32601: prompts/list",
        },
    ),
    (
        "prompts-get-simple",
        Fails {
            reason: NO_PROMPTS,
            because: "-32601: prompts/get",
        },
    ),
    (
        "prompts-get-with-args",
        Fails {
            reason: NO_PROMPTS,
            because: "-32601: prompts/get",
        },
    ),
    (
        "prompts-get-embedded-resource",
        Fails {
            reason: NO_PROMPTS,
            because: "-32601: prompts/get",
        },
    ),
    (
        "prompts-get-with-image",
        Fails {
            reason: NO_PROMPTS,
            because: "-32601: prompts/get",
        },
    ),
    ("dns-rebinding-protection", Passes),
];

/// What one scenario's run ended with: its checks that are not `INFO`, as (id, status, message).
type Checks = Vec<(String, String, String)>;

#[test]
fn the_official_conformance_suite_passes_every_server_scenario_that_applies_to_a_tools_only_server()
{
    let Some(package) = package_or_skip("mcp_conformance", CONFORMANCE) else {
        return;
    };
    let bun = match find_bun() {
        Ok(bun) => bun,
        Err(why) => {
            assert!(
                std::env::var_os("CI").is_none(),
                "mcp_conformance: CI is set and {why}"
            );
            let _ = writeln!(std::io::stderr(), "mcp_conformance: skipped: {why}");
            return;
        }
    };
    let suite = package.join("dist/index.js");
    let listed = list_server_scenarios(&bun, &suite);
    let named: Vec<&str> = SCENARIOS.iter().map(|(name, _)| *name).collect();
    assert_eq!(
        listed, named,
        "the suite's server scenarios and this check's table differ: classify each one"
    );

    let root = tempfile::tempdir().expect("a temporary root");
    let server = Listening::start(&[OsStr::new("--root"), root.path().as_os_str()]);
    let out = tempfile::tempdir().expect("a results folder");
    run_suite(&bun, &suite, &server.url, out.path());

    let mut wrong = Vec::new();
    let mut report = String::from("mcp_conformance: @modelcontextprotocol/conformance 0.1.16\n");
    for (name, expect) in SCENARIOS {
        let checks = scenario_checks(out.path(), name);
        let failed: Vec<&(String, String, String)> = checks
            .iter()
            .filter(|(_, status, _)| status == "FAILURE")
            .collect();
        let warnings: Vec<String> = checks
            .iter()
            .filter(|(_, status, _)| status == "WARNING")
            .map(|(id, _, message)| format!("{id}: {message}"))
            .collect();
        let line = match expect {
            Passes if failed.is_empty() && !checks.is_empty() => {
                let ids: Vec<&str> = checks.iter().map(|(id, _, _)| id.as_str()).collect();
                format!("passed (checks {})", ids.join(", "))
            }
            Passes => {
                wrong.push(format!("{name} was expected to pass: {checks:?}"));
                format!("FAILED: {failed:?}")
            }
            Fails { reason, because } => {
                if failed
                    .iter()
                    .any(|(_, _, message)| message.contains(because))
                {
                    format!("not applicable, fails as expected: {reason}")
                } else {
                    wrong.push(format!(
                        "{name} was expected to fail with {because:?} ({reason}); it ended \
                         {checks:?}: if it passes now, it applies, so mark it Passes"
                    ));
                    format!("UNEXPECTED: {checks:?}")
                }
            }
        };
        report.push_str(&format!("  {name}: {line}\n"));
        for warning in warnings {
            report.push_str(&format!("    warning: {warning}\n"));
        }
    }
    // Written past the test harness's capture, so that every run shows what ran and passed.
    let _ = std::io::stderr().write_all(report.as_bytes());
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// The names of `conformance list --server`, in its order.
fn list_server_scenarios(bun: &Path, suite: &Path) -> Vec<String> {
    let output = Command::new(bun)
        .arg(suite)
        .args(["list", "--server"])
        .output()
        .expect("bun runs the suite");
    assert!(output.status.success(), "{}", common::text(&output));
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .filter_map(|line| line.trim().strip_prefix("- "))
        .filter_map(|rest| rest.split_whitespace().next())
        .map(str::to_owned)
        .collect()
}

/// Runs every server scenario against `url`, its results written under `out` (the suite exits
/// 1 when any scenario fails, which the inapplicable ones do: its exit code is not read).
fn run_suite(bun: &Path, suite: &Path, url: &str, out: &Path) {
    let output = Command::new(bun)
        .arg(suite)
        .args(["server", "--suite", "all", "--url", url, "--output-dir"])
        .arg(out)
        .env("NO_COLOR", "1")
        .output()
        .expect("bun runs the suite");
    assert!(
        String::from_utf8_lossy(&output.stdout).contains("=== SUMMARY ==="),
        "{}",
        common::text(&output)
    );
}

/// The checks one scenario wrote (`server-<name>-<time>/checks.json` under `out`), except
/// `INFO` ones.
fn scenario_checks(out: &Path, name: &str) -> Checks {
    let prefix = format!("server-{name}-");
    let folder = std::fs::read_dir(out)
        .expect("the results folder")
        .filter_map(Result::ok)
        .map(|entry| entry.file_name().to_string_lossy().into_owned())
        .find(|folder| {
            folder
                .strip_prefix(&prefix)
                .is_some_and(|time| time.starts_with(|c: char| c.is_ascii_digit()))
        });
    let Some(folder) = folder else {
        return Vec::new();
    };
    let text = std::fs::read_to_string(out.join(folder).join("checks.json")).expect("checks.json");
    let checks: Value = serde_json::from_str(&text).expect("JSON");
    checks
        .as_array()
        .into_iter()
        .flatten()
        .filter(|check| check["status"] != "INFO")
        .map(|check| {
            let text = |key: &str| check[key].as_str().unwrap_or_default().to_owned();
            (text("id"), text("status"), text("errorMessage"))
        })
        .collect()
}
