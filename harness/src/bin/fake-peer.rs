//! `fake-peer`: a deliberately misbehaving peer for the runner's own tests.
//!
//! It answers like the reference, except where told otherwise. Whole-run behaviour comes from
//! the arguments; per-check behaviour from the input: an input object with a member
//! `"fake": "<mode>"` triggers that mode for that check alone, so it follows the vector across
//! restarts.
//!
//! Arguments: `--all accept|reject|wrong-issues|error`, `--hello ok|bad|exit|silent`,
//! `--tools t1,t2`, `--scenarios t1,t2|none` (default: both editors), `--flood-stderr`,
//! `--slow-ms N`, `--extra-member`; any other argument is ignored (tests use one as a marker).
//! Per-check modes: `crash`, `hang`, `garbage`, `wrong-seq`, `error`, `split`.
//!
//! Scenario steps are executed like the reference, one session per session id. An `exec` input
//! with `"fake": "<mode>"` (the member is removed before the call runs) misbehaves: `hang`,
//! `crash` (before running the call), `crash-after-write` (after running it, so its files are
//! written), `wrong-seq`, `verdict` (answers with an accept), `garbage`, `error`.

use std::collections::HashMap;
use std::io::BufRead as _;
use std::path::Path;
use std::time::Duration;

use vvoc_harness::protocol::message_type;
use vvoc_reference::exec::{Outcome, Session, anchors, execute};
use vvoc_reference::{Issue, Json, Object, Tool, Verdict, validate_json};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let option = |name: &str| {
        args.iter()
            .position(|a| a == name)
            .and_then(|i| args.get(i + 1))
            .cloned()
    };
    let flag = |name: &str| args.iter().any(|a| a == name);
    let all = option("--all");
    let hello = option("--hello").unwrap_or_else(|| "ok".to_owned());
    let tools: Vec<String> = option("--tools")
        .map(|t| t.split(',').map(str::to_owned).collect())
        .unwrap_or_else(|| Tool::ALL.iter().map(|t| t.id().to_owned()).collect());
    let scenarios: Vec<String> = match option("--scenarios").as_deref() {
        Some("none") => Vec::new(),
        Some(list) => list.split(',').map(str::to_owned).collect(),
        None => vec!["hashline_edit".to_owned(), "str_replace_editor".to_owned()],
    };
    let mut sessions: HashMap<String, Session> = HashMap::new();
    let slow = option("--slow-ms")
        .and_then(|n| n.parse().ok())
        .map(Duration::from_millis);
    let mut out = std::io::stdout().lock();
    for line in std::io::stdin().lock().lines() {
        let Ok(line) = line else { return };
        let Ok(Json::Object(message)) = Json::parse(&line) else {
            continue;
        };
        let kind = message_type(&message);
        match kind.as_str() {
            "hello" => match hello.as_str() {
                "bad" => send(&mut out, r#"{"type":"hello","protocol":2}"#),
                "exit" => {
                    eprintln!("fake-peer: exiting during the hello");
                    std::process::exit(2);
                }
                "silent" => std::thread::sleep(Duration::from_secs(3600)),
                _ => send(&mut out, &hello_line(&tools, &scenarios)),
            },
            "check" => {
                if flag("--flood-stderr") {
                    eprintln!("{}", "fake-peer floods stderr. ".repeat(4000));
                }
                if let Some(delay) = slow {
                    std::thread::sleep(delay);
                }
                check(&mut out, &message, all.as_deref(), flag("--extra-member"));
            }
            "exec" => exec(&mut out, &message, &mut sessions),
            "anchors" => {
                let seq = message.get("seq").and_then(Json::as_f64).unwrap_or(0.0);
                let path = message
                    .get("path")
                    .and_then(Json::as_string)
                    .map(|p| p.to_string())
                    .unwrap_or_default();
                let mut reply = result(seq);
                match anchors(Path::new(&path)) {
                    Ok(view) => reply.insert("output", Json::String(view)),
                    Err(error) => reply.insert("error", Json::str(&error.to_string())),
                }
                send(&mut out, &Json::Object(reply).to_compact());
            }
            "end" => {
                if let Some(session) = message.get("session") {
                    sessions.remove(&session.to_compact());
                }
            }
            "bye" => return,
            _ => {}
        }
    }
}

fn check(out: &mut impl std::io::Write, message: &Object, all: Option<&str>, extra: bool) {
    let seq = message.get("seq").and_then(Json::as_f64).unwrap_or(0.0);
    let input = message.get("input").cloned().unwrap_or(Json::Null);
    let tool: Option<Tool> = message
        .get("tool")
        .and_then(Json::as_string)
        .and_then(|t| t.to_string().parse().ok());
    let fake = input
        .as_object()
        .and_then(|o| o.get("fake"))
        .and_then(Json::as_string)
        .map(|m| m.to_string());
    let mut reply = Object::new();
    reply.insert("type", Json::str("result"));
    reply.insert("seq", Json::Number(seq));
    match (fake.as_deref(), all, tool) {
        (Some("crash"), _, _) => {
            eprintln!("fake-peer: crashing on check {seq}");
            std::process::exit(1);
        }
        (Some("hang"), _, _) => std::thread::sleep(Duration::from_secs(3600)),
        (Some("garbage"), _, _) => return send(out, "this is not JSON"),
        (Some("wrong-seq"), _, _) => reply.insert("seq", Json::Number(seq + 1000.0)),
        (Some("error"), _, _) | (_, Some("error"), _) => {
            reply.insert("error", Json::str("fake-peer cannot evaluate this"))
        }
        (_, Some("accept"), _) => reply.insert("accept", input.clone()),
        (_, Some("reject"), _) => reply.insert("reject", Json::Array(vec![root_issue()])),
        (_, _, None) => reply.insert("error", Json::str("unknown tool")),
        (_, _, Some(tool)) => match validate_json(tool, &input) {
            Verdict::Accept(output) => reply.insert("accept", output),
            Verdict::Reject(mut issues) => {
                if all == Some("wrong-issues") {
                    for issue in &mut issues {
                        issue.message = "a wrong message".into();
                    }
                }
                reply.insert(
                    "reject",
                    Json::Array(issues.iter().map(Issue::to_json).collect()),
                );
            }
        },
    }
    if extra {
        reply.insert("extra", Json::Bool(true));
    }
    let line = Json::Object(reply).to_compact();
    if fake.as_deref() == Some("split") {
        // One answer in three writes, with pauses: the runner must reassemble the line.
        let (a, rest) = line.split_at(line.len() / 3);
        let (b, c) = rest.split_at(rest.len() / 2);
        for part in [a, b] {
            let _ = out.write_all(part.as_bytes());
            let _ = out.flush();
            std::thread::sleep(Duration::from_millis(20));
        }
        return send(out, c);
    }
    send(out, &line);
}

/// One scenario step: the call runs for real (without its `fake` member), unless the mode says
/// otherwise.
fn exec(out: &mut impl std::io::Write, message: &Object, sessions: &mut HashMap<String, Session>) {
    let seq = message.get("seq").and_then(Json::as_f64).unwrap_or(0.0);
    let input = message.get("input").cloned().unwrap_or(Json::Null);
    let fake = input
        .as_object()
        .and_then(|o| o.get("fake"))
        .and_then(Json::as_string)
        .map(|m| m.to_string());
    let input = match &input {
        Json::Object(o) => Json::Object(Object::from_members(
            o.iter()
                .filter(|(k, _)| !k.eq_str("fake"))
                .map(|(k, v)| (k.clone(), v.clone())),
        )),
        other => other.clone(),
    };
    let tool: Option<Tool> = message
        .get("tool")
        .and_then(Json::as_string)
        .and_then(|t| t.to_string().parse().ok());
    match fake.as_deref() {
        Some("hang") => std::thread::sleep(Duration::from_secs(3600)),
        Some("crash") => {
            eprintln!("fake-peer: crashing on exec {seq}");
            std::process::exit(1);
        }
        Some("garbage") => return send(out, "this is not JSON either"),
        _ => {}
    }
    let session = sessions
        .entry(
            message
                .get("session")
                .map(Json::to_compact)
                .unwrap_or_default(),
        )
        .or_default();
    let mut reply = result(seq);
    match tool.map(|t| execute(t, &input, session)) {
        Some(Ok(Outcome::Output(text))) => reply.insert("output", Json::String(text)),
        Some(Ok(Outcome::Throws(text))) => reply.insert("throws", Json::String(text)),
        Some(Err(not_executed)) => reply.insert("error", Json::str(&not_executed.to_string())),
        None => reply.insert("error", Json::str("unknown tool")),
    }
    match fake.as_deref() {
        Some("crash-after-write") => {
            eprintln!("fake-peer: crashing after running exec {seq}");
            std::process::exit(1);
        }
        Some("wrong-seq") => reply.insert("seq", Json::Number(seq + 1000.0)),
        Some("verdict") => {
            reply = result(seq);
            reply.insert("accept", input);
        }
        Some("error") => {
            reply = result(seq);
            reply.insert("error", Json::str("fake-peer cannot run this"));
        }
        _ => {}
    }
    send(out, &Json::Object(reply).to_compact());
}

fn result(seq: f64) -> Object {
    let mut reply = Object::new();
    reply.insert("type", Json::str("result"));
    reply.insert("seq", Json::Number(seq));
    reply
}

fn hello_line(tools: &[String], scenarios: &[String]) -> String {
    let list = |ids: &[String]| {
        ids.iter()
            .map(|t| format!("{t:?}"))
            .collect::<Vec<_>>()
            .join(",")
    };
    let scenarios = match scenarios.is_empty() {
        true => String::new(),
        false => format!(r#","scenarios":[{}]"#, list(scenarios)),
    };
    format!(
        r#"{{"type":"hello","protocol":1,"implementation":{{"name":"fake-peer","version":"0","language":"rust"}},"tools":[{}]{scenarios}}}"#,
        list(tools)
    )
}

fn root_issue() -> Json {
    let mut issue = Object::new();
    issue.insert("code", Json::str("invalid_type"));
    issue.insert("path", Json::str("(root)"));
    issue.insert("message", Json::str("fake-peer refuses everything"));
    Json::Object(issue)
}

fn send(out: &mut impl std::io::Write, line: &str) {
    let _ = writeln!(out, "{line}");
    let _ = out.flush();
}
