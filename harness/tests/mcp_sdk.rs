//! The official TypeScript MCP SDK (`@modelcontextprotocol/sdk`, pinned below) as a real client
//! of `conform mcp`: `tests/mcp/sdk_client.mjs` lists the tools, creates a file and edits it
//! through `hashline_edit` in a scratch directory. The SDK is found in `VVOC_MCP_CLIENTS`, else
//! in `target/mcp-clients` of the workspace (`npm install --no-save --no-package-lock
//! @modelcontextprotocol/sdk@<pin>` there, as `.ci/run` does), and run with `node`. Without
//! them the test prints that it skipped, and passes; with `CI` set it fails.

mod common;

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{Value, json};
use vvoc_reference::{Json, Tool, Verdict, one_line, validate_json};

use common::CONFORM;

/// The variable naming the folder whose `node_modules` holds the SDK.
const CLIENTS_VARIABLE: &str = "VVOC_MCP_CLIENTS";

/// The SDK version the check runs (the newest when it was written).
const SDK_VERSION: &str = "1.32.2";

#[test]
fn the_official_typescript_sdk_lists_the_tools_and_edits_a_file_through_hashline_edit() {
    let clients = match find_clients() {
        Ok(clients) => clients,
        Err(why) => {
            let how = format!(
                "set {CLIENTS_VARIABLE}, or run `npm install --no-save --no-package-lock \
                 @modelcontextprotocol/sdk@{SDK_VERSION}` in target/mcp-clients"
            );
            assert!(
                std::env::var_os("CI").is_none(),
                "mcp_sdk: CI is set and {why}: {how}"
            );
            // Written past the test harness's capture, so that a skip is seen in every run.
            let _ = writeln!(std::io::stderr(), "mcp_sdk: skipped: {why} ({how})");
            return;
        }
    };
    let scratch = tempfile::tempdir().expect("a temporary folder");
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/mcp/sdk_client.mjs");
    let output = Command::new("node")
        .arg(&script)
        .arg(&clients)
        .arg(CONFORM)
        .arg(scratch.path())
        .output()
        .expect("node runs");
    assert!(output.status.success(), "{}", common::text(&output));
    let seen: Value = serde_json::from_slice(&output.stdout).expect("the script's JSON line");

    assert_eq!(seen["server"]["name"], json!("conform"));
    let tools = seen["tools"].as_array().expect("tools");
    let names: Vec<&str> = tools.iter().filter_map(|t| t["name"].as_str()).collect();
    assert_eq!(names, Tool::ALL.map(Tool::id));
    let published =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../implementation/published/schemas");
    for (tool, entry) in Tool::ALL.into_iter().zip(tools) {
        let text = std::fs::read_to_string(published.join(format!("{}.json", tool.id())))
            .expect("the published schema");
        let schema: Value = serde_json::from_str(&text).expect("JSON");
        assert_eq!(entry["inputSchema"], schema, "{}", tool.id());
    }
    assert_eq!(
        tools[5]["annotations"]["destructiveHint"],
        json!(true),
        "hashline_edit"
    );

    assert_eq!(
        seen["created"]["isError"],
        json!(false),
        "{}",
        seen["created"]
    );
    let edited = seen["edited"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default();
    assert_eq!(
        seen["edited"]["isError"],
        json!(false),
        "{}",
        seen["edited"]
    );
    assert!(edited.starts_with("Updated "), "{edited}");
    assert_eq!(
        std::fs::read_to_string(scratch.path().join("greet.ts")).expect("the file"),
        "function greet() {\n  return \"hello\";\n}\n"
    );

    let refused = match validate_json(
        Tool::WebSearch,
        &Json::parse(r#"{"query":"q","count":21}"#).expect("JSON"),
    ) {
        Verdict::Reject(issues) => one_line(&issues).to_string_lossy(),
        Verdict::Accept(_) => String::new(),
    };
    assert!(refused.starts_with("INVALID_INPUT: "), "{refused}");
    assert_eq!(seen["refused"]["isError"], json!(true));
    assert_eq!(seen["refused"]["content"][0]["text"], json!(refused));
}

/// The folder holding the pinned SDK, and `node` to run it, or why not.
fn find_clients() -> Result<PathBuf, String> {
    let clients = match std::env::var_os(CLIENTS_VARIABLE) {
        Some(dir) => PathBuf::from(dir),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/mcp-clients"),
    };
    let package = clients.join("node_modules/@modelcontextprotocol/sdk/package.json");
    let text = std::fs::read_to_string(&package)
        .map_err(|_| format!("the SDK is not installed at {}", clients.display()))?;
    let version = serde_json::from_str::<Value>(&text)
        .ok()
        .and_then(|p| p["version"].as_str().map(str::to_owned))
        .unwrap_or_default();
    if version != SDK_VERSION {
        return Err(format!(
            "the SDK at {} is {version:?}, not {SDK_VERSION}",
            clients.display()
        ));
    }
    match Command::new("node").arg("--version").output() {
        Ok(output) if output.status.success() => Ok(clients),
        _ => Err("node is not found".to_owned()),
    }
}
