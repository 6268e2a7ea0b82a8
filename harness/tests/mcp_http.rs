//! `conform mcp --listen`: MCP Streamable HTTP on a loopback address, spoken to with plain HTTP/1.1
//! over a socket (POST with `Accept: application/json, text/event-stream`, answers as
//! server-sent events), and its refusal of any other address.

mod common;
#[path = "common/mcp_clients.rs"]
mod mcp_clients;

use std::ffi::OsStr;
use std::io::{Read as _, Write as _};
use std::net::TcpStream;
use std::process::Command;
use std::time::Duration;

use serde_json::{Value, json};
use vvoc_reference::{Json, Tool, Verdict, one_line, validate_json};

use common::CONFORM;
use mcp_clients::Listening;

/// One HTTP answer: its status, its headers (names in lower case) and its body, de-chunked.
struct Answer {
    status: u16,
    headers: Vec<(String, String)>,
    body: String,
}

impl Answer {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    /// The JSON-RPC messages of an event stream (its `data:` lines that hold JSON).
    fn messages(&self) -> Vec<Value> {
        self.body
            .lines()
            .filter_map(|line| line.strip_prefix("data:"))
            .filter_map(|data| serde_json::from_str(data.trim()).ok())
            .collect()
    }
}

/// Sends one request on a connection of its own (`Connection: close`) and reads the answer whole.
fn request(url: &str, method: &str, path: &str, headers: &[(&str, &str)], body: &str) -> Answer {
    let authority = url
        .strip_prefix("http://")
        .and_then(|rest| rest.split('/').next())
        .expect("an http URL");
    let mut stream = TcpStream::connect(authority).expect("the server accepts");
    stream
        .set_read_timeout(Some(Duration::from_secs(60)))
        .expect("a timeout");
    let mut head = format!(
        "{method} {path} HTTP/1.1\r\nHost: {authority}\r\nConnection: close\r\n\
         Content-Length: {}\r\n",
        body.len()
    );
    for (name, value) in headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str("\r\n");
    stream
        .write_all(format!("{head}{body}").as_bytes())
        .expect("the request written");
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw).expect("the answer read");
    let raw = String::from_utf8(raw).expect("UTF-8");
    let (head, body) = raw.split_once("\r\n\r\n").expect("a head and a body");
    let mut lines = head.split("\r\n");
    let status = lines
        .next()
        .and_then(|line| line.split(' ').nth(1))
        .and_then(|code| code.parse().ok())
        .expect("a status line");
    let headers: Vec<(String, String)> = lines
        .filter_map(|line| line.split_once(':'))
        .map(|(n, v)| (n.trim().to_ascii_lowercase(), v.trim().to_owned()))
        .collect();
    let chunked = headers
        .iter()
        .any(|(n, v)| n == "transfer-encoding" && v.contains("chunked"));
    let body = if chunked {
        dechunk(body)
    } else {
        body.to_owned()
    };
    Answer {
        status,
        headers,
        body,
    }
}

/// The body of a chunked transfer.
fn dechunk(mut rest: &str) -> String {
    let mut body = String::new();
    while let Some((size, after)) = rest.split_once("\r\n") {
        let size = usize::from_str_radix(size.trim(), 16).expect("a chunk size");
        if size == 0 {
            break;
        }
        body.push_str(&after[..size]);
        rest = after[size..].strip_prefix("\r\n").unwrap_or(&after[size..]);
    }
    body
}

/// A JSON-RPC POST to the endpoint, in `session` when given, as a Streamable HTTP client sends it.
fn post(url: &str, session: Option<&str>, message: &Value) -> Answer {
    let mut headers = vec![
        ("Content-Type", "application/json"),
        ("Accept", "application/json, text/event-stream"),
        ("MCP-Protocol-Version", "2025-06-18"),
    ];
    if let Some(session) = session {
        headers.push(("Mcp-Session-Id", session));
    }
    request(url, "POST", "/mcp", &headers, &message.to_string())
}

/// The one answer of a request posted in `session`.
fn call(url: &str, session: &str, id: u32, method: &str, params: Value) -> Value {
    let answer = post(
        url,
        Some(session),
        &json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}),
    );
    assert_eq!(answer.status, 200, "{}", answer.body);
    let messages = answer.messages();
    messages
        .into_iter()
        .find(|m| m["id"] == json!(id))
        .ok_or_else(|| format!("no answer to {method}: {}", answer.body))
        .expect("the answer")
}

#[test]
fn over_streamable_http_a_client_initializes_lists_the_nine_tools_and_edits_a_file_in_the_root() {
    let root = tempfile::tempdir().expect("a temporary root");
    let server = Listening::start(&[OsStr::new("--root"), root.path().as_os_str()]);
    let url = server.url.as_str();

    let init = post(
        url,
        None,
        &json!({"jsonrpc": "2.0", "id": 0, "method": "initialize",
                "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                           "clientInfo": {"name": "mcp_http.rs", "version": "1"}}}),
    );
    assert_eq!(init.status, 200, "{}", init.body);
    assert_eq!(init.header("content-type"), Some("text/event-stream"));
    let session = init.header("mcp-session-id").expect("a session").to_owned();
    let initialized = init.messages();
    assert_eq!(initialized.len(), 1, "{}", init.body);
    assert_eq!(
        initialized[0]["result"]["serverInfo"]["name"],
        json!("conform")
    );
    assert!(initialized[0]["result"]["capabilities"]["tools"].is_object());
    let notified = post(
        url,
        Some(&session),
        &json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
    );
    assert_eq!(notified.status, 202, "{}", notified.body);

    let listed = call(url, &session, 1, "tools/list", json!({}));
    let names: Vec<&str> = listed["result"]["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    assert_eq!(names, Tool::ALL.map(Tool::id));

    let file = root.path().join("made.txt");
    let made = call(
        url,
        &session,
        2,
        "tools/call",
        json!({"name": "str_replace_editor",
               "arguments": {"command": "create", "path": file, "file_text": "over HTTP\n"}}),
    );
    assert_eq!(made["result"]["isError"], json!(false), "{made}");
    assert_eq!(
        std::fs::read_to_string(&file).expect("the file"),
        "over HTTP\n"
    );

    let input = r#"{"query":"q","count":21}"#;
    let refused = call(
        url,
        &session,
        3,
        "tools/call",
        json!({"name": "web_search", "arguments": serde_json::from_str::<Value>(input).expect("JSON")}),
    );
    let expected = match validate_json(Tool::WebSearch, &Json::parse(input).expect("JSON")) {
        Verdict::Reject(issues) => one_line(&issues).to_string_lossy(),
        Verdict::Accept(_) => String::new(),
    };
    assert!(expected.starts_with("INVALID_INPUT: "), "{expected}");
    assert_eq!(refused["result"]["isError"], json!(true));
    assert_eq!(refused["result"]["content"][0]["text"], json!(expected));

    let elsewhere = request(url, "GET", "/", &[], "");
    assert_eq!(elsewhere.status, 404, "{}", elsewhere.body);
}

#[test]
fn over_streamable_http_a_request_naming_another_host_is_refused() {
    let root = tempfile::tempdir().expect("a temporary root");
    let server = Listening::start(&[OsStr::new("--root"), root.path().as_os_str()]);
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize",
                      "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                                 "clientInfo": {"name": "mcp_http.rs", "version": "1"}}})
    .to_string();
    let mut stream = TcpStream::connect(
        server
            .url
            .trim_start_matches("http://")
            .trim_end_matches("/mcp"),
    )
    .expect("the server accepts");
    write!(
        stream,
        "POST /mcp HTTP/1.1\r\nHost: evil.example.com\r\nConnection: close\r\n\
         Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n\
         Content-Length: {}\r\n\r\n{init}",
        init.len()
    )
    .expect("written");
    let mut answer = String::new();
    stream.read_to_string(&mut answer).expect("the answer");
    assert!(answer.starts_with("HTTP/1.1 403"), "{answer}");
}

#[test]
fn a_server_listening_on_another_loopback_address_accepts_that_address_as_the_host() {
    let root = tempfile::tempdir().expect("a temporary root");
    let server = Listening::start_at(
        "127.0.0.2:0",
        &[OsStr::new("--root"), root.path().as_os_str()],
    );
    let init = post(
        &server.url,
        None,
        &json!({"jsonrpc": "2.0", "id": 0, "method": "initialize",
                "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                           "clientInfo": {"name": "mcp_http.rs", "version": "1"}}}),
    );
    assert_eq!(init.status, 200, "{}", init.body);
    assert!(init.header("mcp-session-id").is_some(), "{}", init.body);
}

#[test]
fn listen_refuses_an_address_that_is_not_loopback_naming_it_and_why() {
    for (address, said) in [
        (
            "0.0.0.0:8080",
            "--listen 0.0.0.0:8080: 0.0.0.0 is not a loopback address; the reference serves only on loopback",
        ),
        (
            "[::]:0",
            "--listen [::]:0: :: is not a loopback address; the reference serves only on loopback",
        ),
        (
            "192.0.2.1:80",
            "--listen 192.0.2.1:80: 192.0.2.1 is not a loopback address",
        ),
        (
            "localhost:8080",
            "--listen \"localhost:8080\": expected a loopback IP address and a port",
        ),
    ] {
        let output = Command::new(CONFORM)
            .args(["mcp", "--listen", address])
            .output()
            .expect("conform runs");
        assert_eq!(output.status.code(), Some(1), "{}", common::text(&output));
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.contains(said), "{address}: {stderr}");
        assert!(output.stdout.is_empty(), "nothing was served");
    }
}
