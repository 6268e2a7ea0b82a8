//! `conform mcp` spoken to as an MCP client speaks to it: newline-delimited JSON-RPC over the
//! built binary's standard input and output, in a temporary root. Nothing reaches past
//! 127.0.0.1 (the one web call goes to the fixture server there).

mod common;

use std::io::{BufRead as _, BufReader, Write as _};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::Duration;

use serde_json::{Value, json};
use vvoc_harness::web::server::{Answer, Server};
use vvoc_reference::exec::web::{Host, execute_web};
use vvoc_reference::schema::published_schema;
use vvoc_reference::{Json, Tool, Verdict, one_line, validate_json};

use common::CONFORM;

/// How long an answer may take (the binary is a debug build on a shared machine).
const PATIENCE: Duration = Duration::from_secs(30);

/// A running `conform mcp`, initialized, its answers read by a thread of their own.
struct Client {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
}

impl Client {
    /// Starts `conform mcp` with `args` and makes the handshake.
    fn start(args: &[&str]) -> Client {
        let mut client = Client::spawn(args);
        let init = client.request(
            0,
            "initialize",
            json!({"protocolVersion": "2025-06-18", "capabilities": {},
                   "clientInfo": {"name": "mcp.rs", "version": "1"}}),
        );
        assert!(
            init["result"]["capabilities"]["tools"].is_object(),
            "{init}"
        );
        client.send_line(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
        client
    }

    fn spawn(args: &[&str]) -> Client {
        let mut child = Command::new(CONFORM)
            .arg("mcp")
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("conform mcp starts");
        let stdout = child.stdout.take().expect("its stdout");
        let (send, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if send.send(line).is_err() {
                    break;
                }
            }
        });
        let stdin = child.stdin.take();
        Client {
            child,
            stdin,
            lines,
        }
    }

    fn send_line(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().expect("stdin still open");
        writeln!(stdin, "{line}").expect("a line written");
        stdin.flush().expect("flushed");
    }

    /// The next line the server writes.
    fn next(&self) -> Value {
        let line = self
            .lines
            .recv_timeout(PATIENCE)
            .expect("an answer in time");
        serde_json::from_str(&line).expect("the server writes JSON")
    }

    fn request(&mut self, id: i64, method: &str, params: Value) -> Value {
        let line = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        self.send_line(&line.to_string());
        let answer = self.next();
        assert_eq!(
            answer["id"],
            json!(id),
            "answers come in order here: {answer}"
        );
        answer
    }

    /// A `tools/call`'s result (a JSON-RPC error fails the test).
    fn call(&mut self, id: i64, tool: &str, arguments: Value) -> Value {
        let answer = self.request(
            id,
            "tools/call",
            json!({"name": tool, "arguments": arguments}),
        );
        assert!(
            answer.get("result").is_some(),
            "a tools/call result: {answer}"
        );
        answer["result"].clone()
    }

    /// Closes the server's input and waits for it to exit; its exit code.
    fn finish(mut self) -> Option<i32> {
        drop(self.stdin.take());
        let status = self.child.wait().expect("conform mcp exits");
        status.code()
    }
}

impl Drop for Client {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The reference's one-line refusal of `input` (empty when it accepts it).
fn refusal(tool: Tool, input: &Value) -> String {
    match validate_json(tool, &Json::parse(&input.to_string()).expect("JSON")) {
        Verdict::Reject(issues) => one_line(&issues).to_string_lossy(),
        Verdict::Accept(_) => String::new(),
    }
}

/// A result's one text and whether it is an error.
fn text_of(result: &Value) -> (String, bool) {
    let content = result["content"].as_array().expect("content");
    assert_eq!(content.len(), 1, "{result}");
    (
        content[0]["text"].as_str().expect("a text").to_owned(),
        result["isError"] == json!(true),
    )
}

fn root_arg(dir: &Path) -> String {
    dir.to_str().expect("a UTF-8 temporary path").to_owned()
}

#[test]
fn tools_list_serves_the_nine_tools_with_their_published_schemas_and_hints() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let mut client = Client::start(&["--root", &root_arg(dir.path())]);
    let listed = client.request(1, "tools/list", json!({}));
    let tools = listed["result"]["tools"].as_array().expect("tools");
    let names: Vec<&str> = tools.iter().filter_map(|t| t["name"].as_str()).collect();
    assert_eq!(names, Tool::ALL.map(Tool::id));
    let published =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../implementation/published/schemas");
    for (tool, entry) in Tool::ALL.into_iter().zip(tools) {
        let file = published.join(format!("{}.json", tool.id()));
        let text = std::fs::read_to_string(&file).expect("the published schema");
        let schema: Value = serde_json::from_str(&text).expect("a JSON schema");
        assert_eq!(entry["inputSchema"], schema, "{}", tool.id());
        assert_eq!(
            entry["description"].as_str(),
            Some(tool.spec().description),
            "{}",
            tool.id()
        );
        let hints = &entry["annotations"];
        let read_only = matches!(tool, Tool::WorkItemList | Tool::WebSearch | Tool::WebFetch);
        let destructive = matches!(tool, Tool::HashlineEdit | Tool::StrReplaceEditor);
        assert_eq!(
            hints["readOnlyHint"] == json!(true),
            read_only,
            "{}: {hints}",
            tool.id()
        );
        assert_eq!(
            hints["destructiveHint"] == json!(true),
            destructive,
            "{}: {hints}",
            tool.id()
        );
    }
    // The same schema the library publishes, so the file and the code agree too.
    let from_code = published_schema(Tool::WebFetch).to_compact();
    assert_eq!(
        serde_json::from_str::<Value>(&from_code).expect("JSON"),
        tools[8]["inputSchema"]
    );
    assert_eq!(client.finish(), Some(0));
}

#[test]
fn a_refused_input_is_an_error_result_whose_text_is_the_one_line_refusal() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let mut client = Client::start(&["--root", &root_arg(dir.path())]);
    let input = json!({"query": "q", "count": 21});
    let expected = refusal(Tool::WebSearch, &input);
    assert!(expected.starts_with("INVALID_INPUT: "), "{expected}");
    let result = client.call(1, "web_search", input);
    assert_eq!(text_of(&result), (expected, true));
}

#[test]
fn str_replace_editor_creates_and_edits_a_real_file_inside_the_root() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let mut client = Client::start(&["--root", &root_arg(dir.path())]);
    let file = dir.path().join("notes.txt");
    let path = file.to_str().expect("UTF-8");
    let created = client.call(
        1,
        "str_replace_editor",
        json!({"command": "create", "path": path, "file_text": "one\ntwo\n"}),
    );
    assert!(!text_of(&created).1, "{created}");
    let edited = client.call(
        2,
        "str_replace_editor",
        json!({"command": "str_replace", "path": path, "old_str": "two", "new_str": "zwei"}),
    );
    assert!(!text_of(&edited).1, "{edited}");
    assert_eq!(
        std::fs::read_to_string(&file).expect("the file"),
        "one\nzwei\n"
    );
}

#[test]
fn hashline_edit_replaces_a_line_by_its_anchor_and_a_relative_path_is_inside_the_root() {
    let dir = common::files_folder(&[("a.ts", "function greet() {\n  return \"hi\";\n}\n")]);
    let mut client = Client::start(&["--root", &root_arg(dir.path())]);
    let view = vvoc_reference::exec::anchors(&dir.path().join("a.ts")).expect("anchors");
    let view = view.to_string_lossy();
    let line_two = view.lines().nth(1).expect("a second line");
    let anchor = line_two.split('|').next().expect("an anchor");
    let result = client.call(
        1,
        "hashline_edit",
        json!({"filePath": "a.ts", "edits": [
            {"op": "replace", "pos": anchor, "lines": ["  return \"hello\";"]}]}),
    );
    let (text, is_error) = text_of(&result);
    assert!(!is_error && text.starts_with("Updated "), "{result}");
    assert_eq!(
        std::fs::read_to_string(dir.path().join("a.ts")).expect("the file"),
        "function greet() {\n  return \"hello\";\n}\n"
    );
}

#[test]
fn a_path_outside_the_root_is_refused_naming_path_and_root_and_nothing_is_touched() {
    let outside = tempfile::tempdir().expect("a temporary folder");
    let root = tempfile::tempdir().expect("a temporary folder");
    let mut client = Client::start(&["--root", &root_arg(root.path())]);
    let target = outside.path().join("x.txt");
    let path = target.to_str().expect("UTF-8");
    let result = client.call(
        1,
        "str_replace_editor",
        json!({"command": "create", "path": path, "file_text": "x"}),
    );
    let (text, is_error) = text_of(&result);
    let canonical_root = std::fs::canonicalize(root.path()).expect("the root");
    assert!(is_error, "{result}");
    assert!(
        text.contains(path) && text.contains(canonical_root.to_str().expect("UTF-8")),
        "{text}"
    );
    assert!(!target.exists());
    // Through `..` below a directory that does not exist yet, too.
    let sneaky = format!("{}/new/../../x.txt", root_arg(root.path()));
    let result = client.call(
        2,
        "str_replace_editor",
        json!({"command": "create", "path": sneaky, "file_text": "x"}),
    );
    assert!(text_of(&result).1, "{result}");
    assert!(!root.path().join("new").exists());
}

#[test]
fn the_editors_own_answers_are_left_to_them_a_relative_editor_path_and_a_name_too_long() {
    let root = tempfile::tempdir().expect("a temporary folder");
    let mut client = Client::start(&["--root", &root_arg(root.path())]);
    // `..` leads outside the root, but str_replace_editor refuses a relative path itself and
    // touches nothing (execution.md §2.2): its own text, not the policy's.
    let result = client.call(
        1,
        "str_replace_editor",
        json!({"command": "view", "path": ".."}),
    );
    assert_eq!(
        text_of(&result),
        (
            "Error: The path .. is not an absolute path, it should start with `/`. Maybe you meant /..?"
                .to_owned(),
            false
        ),
        "{result}"
    );
    // A name too long to exist inside the root raises the runtime's error, as upstream's does.
    let long = format!("{}/{}.txt", root_arg(root.path()), "a".repeat(260));
    let result = client.call(
        2,
        "str_replace_editor",
        json!({"command": "create", "path": long, "file_text": "x"}),
    );
    let (text, is_error) = text_of(&result);
    assert!(is_error, "{result}");
    assert!(
        text.starts_with("ENAMETOOLONG: name too long, open '"),
        "{text}"
    );
    // A relative hashline_edit path is still checked: it resolves against the root.
    let result = client.call(
        3,
        "hashline_edit",
        json!({"filePath": "../escape.txt", "edits": [{"op": "append", "lines": ["x"]}]}),
    );
    let (text, is_error) = text_of(&result);
    assert!(
        is_error && text.starts_with("refused by the host policy"),
        "{text}"
    );
}

#[test]
fn a_symlink_inside_the_root_that_points_outside_is_refused() {
    let outside = tempfile::tempdir().expect("a temporary folder");
    let root = tempfile::tempdir().expect("a temporary folder");
    std::fs::write(outside.path().join("secret.txt"), "keep\n").expect("a file");
    std::os::unix::fs::symlink(outside.path(), root.path().join("door")).expect("a link");
    std::os::unix::fs::symlink(
        outside.path().join("gone.txt"),
        root.path().join("dangling"),
    )
    .expect("a link");
    let mut client = Client::start(&["--root", &root_arg(root.path())]);
    let through = root.path().join("door/secret.txt");
    let result = client.call(
        1,
        "hashline_edit",
        json!({"filePath": through.to_str().expect("UTF-8"), "delete": true, "edits": []}),
    );
    let (text, is_error) = text_of(&result);
    assert!(is_error && text.contains("symbolic link"), "{result}");
    assert_eq!(
        std::fs::read_to_string(outside.path().join("secret.txt")).expect("untouched"),
        "keep\n"
    );
    let dangling = root.path().join("dangling");
    let result = client.call(
        2,
        "str_replace_editor",
        json!({"command": "create", "path": dangling.to_str().expect("UTF-8"), "file_text": "x"}),
    );
    assert!(text_of(&result).1, "{result}");
    assert!(!outside.path().join("gone.txt").exists());
}

#[test]
fn validation_comes_before_the_root_an_invalid_input_outside_gets_its_refusal() {
    let root = tempfile::tempdir().expect("a temporary folder");
    let mut client = Client::start(&["--root", &root_arg(root.path())]);
    let input = json!({"command": "insert", "path": "/etc/hosts", "insert_line": -1});
    let expected = refusal(Tool::StrReplaceEditor, &input);
    assert!(expected.starts_with("INVALID_INPUT: "), "{expected}");
    let result = client.call(1, "str_replace_editor", input);
    assert_eq!(text_of(&result), (expected, true));
}

#[test]
fn tools_picks_what_is_served_and_an_unknown_tool_is_an_invalid_params_error() {
    let root = tempfile::tempdir().expect("a temporary folder");
    let mut client = Client::start(&[
        "--root",
        &root_arg(root.path()),
        "--tools",
        "web_fetch,str_replace_editor",
    ]);
    let listed = client.request(1, "tools/list", json!({}));
    let names: Vec<&str> = listed["result"]["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    assert_eq!(names, ["str_replace_editor", "web_fetch"]);
    for (id, name) in [(2, "hashline_edit"), (3, "bash")] {
        let answer = client.request(id, "tools/call", json!({"name": name, "arguments": {}}));
        assert_eq!(answer["error"]["code"], json!(-32602), "{answer}");
        let message = answer["error"]["message"].as_str().unwrap_or_default();
        assert!(message.contains(name), "{answer}");
    }
    assert_eq!(client.finish(), Some(0));
}

#[test]
fn an_unknown_name_in_tools_is_a_usage_error_naming_the_valid_ones() {
    let output = Command::new(CONFORM)
        .args(["mcp", "--tools", "hashline_edit,bash"])
        .stdin(Stdio::null())
        .output()
        .expect("conform runs");
    assert_eq!(output.status.code(), Some(1));
    let text = common::text(&output);
    assert!(
        text.contains("\"bash\"") && text.contains("work_checkpoint"),
        "{text}"
    );
}

#[test]
fn a_line_that_is_not_json_gets_a_parse_error_and_the_server_keeps_serving() {
    let root = tempfile::tempdir().expect("a temporary folder");
    let mut client = Client::start(&["--root", &root_arg(root.path())]);
    client.send_line("{\"jsonrpc\": \"2.0\", \"id\": 7, \"method\": ");
    let answer = client.next();
    assert_eq!(answer["error"]["code"], json!(-32700), "{answer}");
    client.send_line(r#"{"jsonrpc":"2.0","id":8,"method":"no/such/method"}"#);
    let answer = client.next();
    assert_eq!(
        (answer["id"].clone(), answer["error"]["code"].clone()),
        (json!(8), json!(-32601)),
        "{answer}"
    );
    client.send_line(r#"{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"web_fetch","arguments":[1]}}"#);
    let answer = client.next();
    assert_eq!(answer["error"]["code"], json!(-32602), "{answer}");
    let listed = client.request(10, "tools/list", json!({}));
    assert_eq!(listed["result"]["tools"].as_array().map(Vec::len), Some(9));
    assert_eq!(client.finish(), Some(0));
}

#[test]
fn arguments_serde_json_cannot_read_deep_ones_and_numbers_past_a_double_get_the_contracts_verdict_and_huge_ones_too()
 {
    let root = tempfile::tempdir().expect("a temporary folder");
    let mut client = Client::start(&["--root", &root_arg(root.path())]);
    let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
    let arguments = format!(r#"{{"query":{deep}}}"#);
    let expected = match validate_json(Tool::WebSearch, &Json::parse(&arguments).expect("JSON")) {
        Verdict::Reject(issues) => one_line(&issues).to_string_lossy(),
        Verdict::Accept(_) => String::new(),
    };
    assert!(expected.starts_with("INVALID_INPUT: "), "{expected}");
    client.send_line(&format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"web_search","arguments":{arguments}}}}}"#
    ));
    let answer = client.next();
    assert_eq!(answer["id"], json!(1), "{answer}");
    assert_eq!(text_of(&answer["result"]), (expected, true));

    // The deep call of a tool not served is still an unknown tool; another method's deep
    // params are still a parse error, with the request's id.
    client.send_line(&format!(
        r#"{{"jsonrpc":"2.0","id":"two","method":"tools/call","params":{{"name":"nope","arguments":{arguments}}}}}"#
    ));
    let answer = client.next();
    assert_eq!(
        (answer["id"].clone(), answer["error"]["code"].clone()),
        (json!("two"), json!(-32602)),
        "{answer}"
    );
    client.send_line(&format!(
        r#"{{"jsonrpc":"2.0","id":3,"method":"tools/list","params":{{"cursor":"c","x":{deep}}}}}"#
    ));
    let answer = client.next();
    assert_eq!(
        (answer["id"].clone(), answer["error"]["code"].clone()),
        (json!(3), json!(-32700)),
        "{answer}"
    );

    // A number past a double's range is JSON serde_json refuses too: a verdict as well.
    let far = r#"{"query":"q","count":1e400}"#;
    let expected = match validate_json(Tool::WebSearch, &Json::parse(far).expect("JSON")) {
        Verdict::Reject(issues) => one_line(&issues).to_string_lossy(),
        Verdict::Accept(_) => String::new(),
    };
    assert!(expected.starts_with("INVALID_INPUT: "), "{expected}");
    client.send_line(&format!(
        r#"{{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{{"name":"web_search","arguments":{far}}}}}"#
    ));
    let answer = client.next();
    assert_eq!(answer["id"], json!(5), "{answer}");
    assert_eq!(text_of(&answer["result"]), (expected, true));

    let huge = "x".repeat(4 << 20);
    let input = json!({"query": huge, "count": 0});
    let expected = refusal(Tool::WebSearch, &input);
    assert!(expected.starts_with("INVALID_INPUT: "), "{expected}");
    let result = client.call(4, "web_search", input);
    assert_eq!(text_of(&result), (expected, true));
    assert_eq!(client.finish(), Some(0));
}

#[test]
fn a_workflow_tool_answers_after_validation_that_the_reference_does_not_execute_it() {
    let root = tempfile::tempdir().expect("a temporary folder");
    let mut client = Client::start(&["--root", &root_arg(root.path())]);
    assert!(validate_json(Tool::WorkItemList, &Json::parse("{}").expect("JSON")).is_accept());
    let result = client.call(1, "work_item_list", json!({}));
    let (text, is_error) = text_of(&result);
    assert!(
        is_error && text.contains("work_item_list") && text.contains("does not execute"),
        "{text}"
    );
}

#[test]
fn web_fetch_of_a_loopback_page_gives_the_references_text_and_metadata() {
    let server = Server::start(vec![Answer {
        method: "GET".to_owned(),
        path: "/page".to_owned(),
        status: 200,
        headers: vec![(
            "Content-Type".to_owned(),
            "text/plain; charset=utf-8".to_owned(),
        )],
        body: b"hello from 127.0.0.1\n".to_vec(),
        delay: Duration::ZERO,
    }])
    .expect("the fixture server");
    let url = format!("{}/page", server.origin());
    let input = json!({"url": url, "format": "text"});
    let expected = execute_web(
        Tool::WebFetch,
        &Json::parse(&input.to_string()).expect("JSON"),
        &Host::default(),
    )
    .result
    .expect("the reference fetches the page");
    let root = tempfile::tempdir().expect("a temporary folder");
    let mut client = Client::start(&["--root", &root_arg(root.path()), "--host", "{}"]);
    let result = client.call(1, "web_fetch", input);
    let output = expected
        .as_object()
        .and_then(|o| o.get("output"))
        .and_then(Json::as_string);
    assert_eq!(
        text_of(&result),
        (output.expect("an output").to_string_lossy(), false)
    );
    let metadata = expected
        .as_object()
        .and_then(|o| o.get("metadata"))
        .expect("metadata");
    assert_eq!(
        result["structuredContent"],
        serde_json::from_str::<Value>(&metadata.to_compact()).expect("JSON")
    );
    assert_eq!(
        server.seen().len(),
        2,
        "the reference's fetch and the server's"
    );
}

#[test]
fn a_client_that_leaves_mid_call_gets_its_edit_written_whole_and_the_server_exits() {
    let root = tempfile::tempdir().expect("a temporary folder");
    let mut client = Client::start(&["--root", &root_arg(root.path())]);
    let file = root.path().join("big.txt");
    let text = "line\n".repeat(200_000);
    let call = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
        "name": "str_replace_editor",
        "arguments": {"command": "create", "path": file.to_str().expect("UTF-8"), "file_text": text}}});
    client.send_line(&call.to_string());
    assert_eq!(client.finish(), Some(0));
    assert_eq!(std::fs::read_to_string(&file).expect("the file"), text);
}
