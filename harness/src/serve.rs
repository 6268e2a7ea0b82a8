//! `conform peer`: the reference implementation served over the peer protocol.

use std::io::{BufRead, Write};

use vvoc_reference::{Issue, Json, Object, Tool, Verdict, validate_json};

use crate::protocol::PROTOCOL;

/// Answers every message of `input` on `output` until `bye` or the end of the input.
pub fn serve(input: impl BufRead, mut output: impl Write) -> std::io::Result<()> {
    for line in input.lines() {
        let line = line?;
        if line.trim().is_empty() {
            continue;
        }
        let Some(message) = Json::parse(&line).ok().and_then(|m| m.as_object().cloned()) else {
            eprintln!("conform peer: ignoring a line that is not a JSON object: {line:?}");
            continue;
        };
        let kind = message.get("type").and_then(Json::as_string).map(|t| t.to_string()).unwrap_or_default();
        let reply = match kind.as_str() {
            "hello" => hello(),
            "check" => check(&message),
            "bye" => return Ok(()),
            other => {
                eprintln!("conform peer: ignoring a message of unknown type {other:?}");
                continue;
            }
        };
        writeln!(output, "{}", reply.to_compact())?;
        output.flush()?;
    }
    Ok(())
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
    hello.insert("tools", Json::Array(Tool::ALL.iter().map(|t| Json::str(t.id())).collect()));
    Json::Object(hello)
}

fn check(message: &Object) -> Json {
    let mut reply = Object::new();
    reply.insert("type", Json::str("result"));
    reply.insert("seq", message.get("seq").cloned().unwrap_or(Json::Null));
    let tool = message.get("tool").and_then(Json::as_string).map(|t| t.to_string()).unwrap_or_default();
    match (tool.parse::<Tool>(), message.get("input")) {
        (Ok(tool), Some(input)) => match validate_json(tool, input) {
            Verdict::Accept(output) => reply.insert("accept", output),
            Verdict::Reject(issues) => reply.insert("reject", Json::Array(issues.iter().map(Issue::to_json).collect())),
        },
        (Err(unknown), _) => reply.insert("error", Json::str(&unknown.to_string())),
        (Ok(_), None) => reply.insert("error", Json::str("the check has no input")),
    }
    Json::Object(reply)
}
