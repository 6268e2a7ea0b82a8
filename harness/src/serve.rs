//! `conform peer`: the reference implementation served over the peer protocol: verdicts, and the
//! execution of scenarios with one editing session per session id.

use std::collections::HashMap;
use std::io::{BufRead, Write};

use vvoc_reference::exec::{self, Session};
use vvoc_reference::{Issue, Json, Object, Tool, Verdict, validate_json};

use crate::protocol::{PROTOCOL, message_type};

/// Answers every message of `input` on `output` until `bye` or the end of the input.
///
/// A line that cannot be read still gets an `error` result when its `seq` can be found, so a
/// client never waits for an answer that will not come.
pub fn serve(mut input: impl BufRead, mut output: impl Write) -> std::io::Result<()> {
    let mut bytes = Vec::new();
    let mut sessions: HashMap<String, Session> = HashMap::new();
    loop {
        bytes.clear();
        if input.read_until(b'\n', &mut bytes)? == 0 {
            return Ok(());
        }
        let line = String::from_utf8_lossy(&bytes);
        let line = line.trim_end_matches(['\n', '\r']);
        if line.trim().is_empty() {
            continue;
        }
        let message = match Json::parse(line) {
            Ok(Json::Object(message)) => message,
            Ok(other) => {
                eprintln!(
                    "conform peer: ignoring a message that is not an object but {}",
                    other.type_name()
                );
                continue;
            }
            Err(error) => {
                eprintln!("conform peer: cannot read a line ({error})");
                if let Some(seq) = recover_seq(line) {
                    let reply = result(
                        seq,
                        "error",
                        Json::str(&format!("cannot read the check: {error}")),
                    );
                    writeln!(output, "{}", reply.to_compact())?;
                    output.flush()?;
                }
                continue;
            }
        };
        let kind = message_type(&message);
        let reply = match kind.as_str() {
            "hello" => hello(),
            "check" => check(&message),
            "exec" => execute_step(&message, &mut sessions),
            "anchors" => anchors_step(&message),
            "end" => {
                if let Some(session) = message.get("session") {
                    sessions.remove(&session.to_compact());
                }
                continue;
            }
            "bye" => return Ok(()),
            other => {
                eprintln!("conform peer: ignoring a message of unknown type {other:?}");
                continue;
            }
        };
        writeln!(output, "{}", reply.to_compact())?;
        output.flush()?;
    }
}

/// The `seq` of a line that is not valid JSON, found by its text (`"seq": 12`).
fn recover_seq(line: &str) -> Option<Json> {
    let after = &line[line.find("\"seq\"")? + 5..];
    let digits: String = after
        .trim_start()
        .strip_prefix(':')?
        .trim_start()
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    digits.parse::<f64>().ok().map(Json::Number)
}

fn result(seq: Json, answer: &str, value: Json) -> Json {
    let mut reply = Object::new();
    reply.insert("type", Json::str("result"));
    reply.insert("seq", seq);
    reply.insert(answer, value);
    Json::Object(reply)
}

fn hello() -> Json {
    let mut implementation = Object::new();
    implementation.insert("name", Json::str("vvoc-reference"));
    implementation.insert("version", Json::str(env!("CARGO_PKG_VERSION")));
    implementation.insert("language", Json::str("rust"));
    let mut hello = Object::new();
    hello.insert("type", Json::str("hello"));
    hello.insert("protocol", Json::Number(f64::from(PROTOCOL)));
    hello.insert("implementation", Json::Object(implementation));
    hello.insert(
        "tools",
        Json::Array(Tool::ALL.iter().map(|t| Json::str(t.id())).collect()),
    );
    hello.insert(
        "scenarios",
        Json::Array(
            Tool::ALL
                .iter()
                .filter(|t| exec::executes(**t))
                .map(|t| Json::str(t.id()))
                .collect(),
        ),
    );
    Json::Object(hello)
}

fn check(message: &Object) -> Json {
    let seq = message.get("seq").cloned().unwrap_or(Json::Null);
    let tool = message
        .get("tool")
        .and_then(Json::as_string)
        .map(|t| t.to_string())
        .unwrap_or_default();
    match (tool.parse::<Tool>(), message.get("input")) {
        (Ok(tool), Some(input)) => match validate_json(tool, input) {
            Verdict::Accept(output) => result(seq, "accept", output),
            Verdict::Reject(issues) => result(
                seq,
                "reject",
                Json::Array(issues.iter().map(Issue::to_json).collect()),
            ),
        },
        (Err(unknown), _) => result(seq, "error", Json::str(&unknown.to_string())),
        (Ok(_), None) => result(seq, "error", Json::str("the check has no input")),
    }
}

/// Runs one call in the session the message names (created on first use).
fn execute_step(message: &Object, sessions: &mut HashMap<String, Session>) -> Json {
    let seq = message.get("seq").cloned().unwrap_or(Json::Null);
    let tool = message
        .get("tool")
        .and_then(Json::as_string)
        .map(|t| t.to_string())
        .unwrap_or_default();
    let key = message
        .get("session")
        .map(Json::to_compact)
        .unwrap_or_default();
    match (tool.parse::<Tool>(), message.get("input")) {
        (Ok(tool), _) if !exec::executes(tool) => result(
            seq,
            "error",
            Json::str(&exec::NotExecuted(tool).to_string()),
        ),
        (Ok(tool), Some(input)) => {
            let session = sessions.entry(key).or_default();
            match exec::execute(tool, input, session) {
                Ok(exec::Outcome::Output(text)) => result(seq, "output", Json::String(text)),
                Ok(exec::Outcome::Throws(text)) => result(seq, "throws", Json::String(text)),
                Err(not_executed) => result(seq, "error", Json::str(&not_executed.to_string())),
            }
        }
        (Err(unknown), _) => result(seq, "error", Json::str(&unknown.to_string())),
        (Ok(_), None) => result(seq, "error", Json::str("the exec has no input")),
    }
}

/// The anchored view of the file the message names.
fn anchors_step(message: &Object) -> Json {
    let seq = message.get("seq").cloned().unwrap_or(Json::Null);
    let path = message
        .get("path")
        .and_then(Json::as_string)
        .and_then(|p| p.to_str());
    match path {
        Some(path) => match exec::anchors(std::path::Path::new(&path)) {
            Ok(view) => result(seq, "output", Json::String(view)),
            Err(error) => result(seq, "error", Json::str(&error.to_string())),
        },
        None => result(seq, "error", Json::str("the anchors step has no path")),
    }
}

#[cfg(test)]
mod tests {
    use super::serve;

    fn answers(input: &[u8]) -> String {
        let mut out = Vec::new();
        serve(input, &mut out).expect("served");
        String::from_utf8(out).expect("UTF-8")
    }

    #[test]
    fn a_check_gets_its_verdict() {
        let out = answers(
            b"{\"type\":\"check\",\"seq\":3,\"tool\":\"web_search\",\"input\":{\"query\":\"q\"}}\n",
        );
        assert_eq!(
            out,
            "{\"type\":\"result\",\"seq\":3,\"accept\":{\"query\":\"q\",\"count\":8}}\n"
        );
    }

    #[test]
    fn an_unreadable_check_with_a_seq_gets_an_error_result() {
        let out =
            answers(b"{\"type\":\"check\",\"seq\": 9,\"tool\":\"web_search\",\"input\":NaN}\n");
        assert!(
            out.starts_with("{\"type\":\"result\",\"seq\":9,\"error\":\"cannot read the check: "),
            "{out}"
        );
    }

    #[test]
    fn invalid_utf8_and_blank_lines_do_not_stop_the_peer() {
        let out = answers(b"\xff\xfe\n\n{\"type\":\"bye\"}\n{\"type\":\"hello\",\"protocol\":1}\n");
        assert_eq!(out, "", "nothing to answer before bye, nothing after it");
        let out = answers(b"\xff\n{\"type\":\"hello\",\"protocol\":1}\n");
        assert!(
            out.starts_with("{\"type\":\"hello\",\"protocol\":1,"),
            "{out}"
        );
    }

    #[test]
    fn scenarios_run_in_one_session_per_id_until_end() {
        let dir = tempfile::tempdir().expect("a folder");
        let path = dir.path().join("a.txt");
        std::fs::write(&path, "x\n").expect("written");
        let path = path.display().to_string();
        let view = format!(
            r#"{{"type":"exec","seq":1,"session":"s","tool":"str_replace_editor","input":{{"command":"view","path":"{path}"}}}}"#
        );
        let edit = |seq: u32, session: &str| {
            format!(
                r#"{{"type":"exec","seq":{seq},"session":"{session}","tool":"str_replace_editor","input":{{"command":"str_replace","path":"{path}","old_str":"x","new_str":"y"}}}}"#
            )
        };
        let lines = [
            view,
            // Another program changes the file: it must not count for a new session.
            edit(2, "other"),
            edit(3, "s"),
            r#"{"type":"end","session":"s"}"#.to_owned(),
            format!(r#"{{"type":"anchors","seq":4,"session":"t","path":"{path}"}}"#),
            r#"{"type":"anchors","seq":5,"session":"t","path":"/no/such/file"}"#.to_owned(),
            r#"{"type":"exec","seq":6,"session":"t","tool":"web_search","input":{}}"#.to_owned(),
        ];
        let out = answers(format!("{}\n", lines.join("\n")).as_bytes());
        let got: Vec<&str> = out.lines().collect();
        assert_eq!(got.len(), 6, "end has no answer: {out}");
        assert!(
            got[0].starts_with(r#"{"type":"result","seq":1,"output":"Here's the content of "#),
            "{out}"
        );
        assert!(
            got[1].ends_with(r#"has been edited successfully."}"#),
            "{out}"
        );
        assert!(
            got[2].contains("has changed since it was last viewed"),
            "{out}"
        );
        assert!(
            got[3].starts_with(r#"{"type":"result","seq":4,"output":"1#"#),
            "{out}"
        );
        assert!(
            got[4].starts_with(r#"{"type":"result","seq":5,"error":"#),
            "{out}"
        );
        assert!(got[5].contains("does not execute web_search"), "{out}");
    }
}
