//! The official TypeScript MCP SDK (`@modelcontextprotocol/sdk`, pinned in
//! `common/mcp_clients.rs`) as a real client of `conform mcp`: `tests/mcp/sdk_client.mjs` lists
//! the tools, creates a file and edits it through `hashline_edit` in a scratch directory. Where
//! the SDK is found, and the skip without it (a failure with `CI` set): `common/mcp_clients.rs`.

mod common;
#[path = "common/mcp_clients.rs"]
mod mcp_clients;

use std::path::Path;
use std::process::Command;

use serde_json::{Value, json};
use vvoc_reference::{Json, Tool, Verdict, one_line, validate_json};

use common::CONFORM;
use mcp_clients::{SDK, clients_dir, package_or_skip};

#[test]
fn the_official_typescript_sdk_lists_the_tools_and_edits_a_file_through_hashline_edit() {
    if package_or_skip("mcp_sdk", SDK).is_none() {
        return;
    }
    let clients = clients_dir();
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
