//! The MCP Inspector's command line (`@modelcontextprotocol/inspector-cli`, pinned in
//! `common/mcp_clients.rs`) as a real client of `conform mcp` over stdio: `--cli --method
//! tools/list` shows the nine tools with their published schemas, and `--method tools/call`
//! creates a file through `str_replace_editor` in a scratch root, views it, and is refused a path
//! outside the root. The CLI mode starts the server itself and opens no browser, proxy or port.
//! Where the package is found, and the skip without it (a failure with `CI` set):
//! `common/mcp_clients.rs`.

mod common;
#[path = "common/mcp_clients.rs"]
mod mcp_clients;

use std::path::Path;
use std::process::Command;

use serde_json::{Value, json};
use vvoc_reference::Tool;

use common::CONFORM;
use mcp_clients::{INSPECTOR_CLI, package_or_skip};

/// Runs the Inspector's command line with `--cli` against `conform mcp --root <root>` and the
/// method `options`, and reads the JSON it prints.
///
/// Inspector 1.0.3 finds its own `package.json` (its name and version, which it sends as the
/// client's) by a path relative to the working directory, so it runs in its `build` folder.
fn inspector(package: &Path, root: &Path, options: &[&str]) -> Value {
    let output = Command::new("node")
        .current_dir(package.join("build"))
        .arg(package.join("build/cli.js"))
        .arg("--cli")
        .arg(CONFORM)
        .args(["mcp", "--root"])
        .arg(root)
        .args(options)
        .output()
        .expect("node runs");
    assert!(output.status.success(), "{}", common::text(&output));
    serde_json::from_slice(&output.stdout)
        .map_err(|error| format!("{error}: {}", common::text(&output)))
        .expect("the Inspector's JSON")
}

#[test]
fn the_mcp_inspector_cli_lists_the_nine_tools_with_their_published_schemas() {
    let Some(package) = package_or_skip("mcp_inspector", INSPECTOR_CLI) else {
        return;
    };
    let root = tempfile::tempdir().expect("a temporary folder");
    let listed = inspector(&package, root.path(), &["--method", "tools/list"]);

    let tools = listed["tools"].as_array().expect("tools");
    let names: Vec<&str> = tools.iter().filter_map(|t| t["name"].as_str()).collect();
    assert_eq!(names, Tool::ALL.map(Tool::id));
    let published = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../implementation/published/schemas/str_replace_editor.json");
    let schema: Value =
        serde_json::from_str(&std::fs::read_to_string(published).expect("the published schema"))
            .expect("JSON");
    let editor = tools
        .iter()
        .find(|t| t["name"] == json!("str_replace_editor"))
        .expect("str_replace_editor");
    assert_eq!(editor["inputSchema"], schema);
    assert_eq!(editor["annotations"]["destructiveHint"], json!(true));
}

#[test]
fn the_mcp_inspector_cli_creates_and_views_a_file_through_str_replace_editor_inside_the_root_only()
{
    let Some(package) = package_or_skip("mcp_inspector", INSPECTOR_CLI) else {
        return;
    };
    let root = tempfile::tempdir().expect("a temporary folder");
    let file = root.path().join("notes.txt");
    let path = format!("path={}", file.display());
    let call = |command: &str, more: &[&str]| {
        let mut options = vec![
            "--method",
            "tools/call",
            "--tool-name",
            "str_replace_editor",
            "--tool-arg",
            command,
        ];
        options.extend_from_slice(more);
        inspector(&package, root.path(), &options)
    };

    let created = call("command=create", &[&path, "file_text=first line\nsecond"]);
    assert_eq!(created["isError"], json!(false), "{created}");
    assert_eq!(
        created["content"][0]["text"],
        json!(format!(
            "New file created successfully at: {}",
            file.display()
        ))
    );
    assert_eq!(
        std::fs::read_to_string(&file).expect("the created file"),
        "first line\nsecond"
    );

    let viewed = call("command=view", &[&path]);
    assert_eq!(viewed["isError"], json!(false), "{viewed}");
    assert_eq!(
        viewed["content"][0]["text"],
        json!(format!(
            "Here's the content of {} with line numbers (which has a total of 2 lines):\n     1  first line\n     2  second\n",
            file.display()
        ))
    );

    let outside = tempfile::tempdir().expect("a second temporary folder");
    let stray = outside.path().join("stray.txt");
    let refused = call(
        "command=create",
        &[&format!("path={}", stray.display()), "file_text=x"],
    );
    assert_eq!(refused["isError"], json!(true), "{refused}");
    let text = refused["content"][0]["text"].as_str().unwrap_or_default();
    assert!(text.starts_with("refused by the host policy: "), "{text}");
    assert!(!stray.exists(), "nothing was written outside the root");
}
