//! `conform peer`: the reference implementation served over the peer protocol: verdicts, and the
//! execution of scenarios with one editing session per session id.

use std::collections::HashMap;
use std::io::{BufRead as _, BufReader, BufWriter, Read, Write};

use vvoc_reference::exec::{self, Session};
use vvoc_reference::{JsString, Json, Tool, validate_json};

use crate::protocol::Seq;
use crate::protocol_hello::Implementation;
use crate::protocol_result::{CheckAnswer, PeerResult, StepAnswer};
use crate::protocol_runner::{ToPeer, Unreadable};
use crate::scenarios::Reply;

/// The size of the input and output buffers: a few hundred messages.
const BUFFER: usize = 1 << 16;

/// Answers every message of `input` on `output` until `bye` or the end of the input.
///
/// A line that cannot be read still gets an `error` result when its `seq` can be found, so a
/// client never waits for an answer that will not come.
pub fn serve(input: impl Read, output: impl Write) -> std::io::Result<()> {
    let mut input = BufReader::with_capacity(BUFFER, input);
    let mut output = BufWriter::with_capacity(BUFFER, output);
    let mut bytes = Vec::new();
    let mut answer = String::new();
    let mut sessions: HashMap<String, Session> = HashMap::new();
    loop {
        bytes.clear();
        // Answers wait in `output`'s buffer while more messages are already read in; they go out
        // before the peer would block for more, so a client that waits for an answer gets it, and a
        // pipelining one gets them in a few large writes instead of one per check.
        if !input.buffer().contains(&b'\n') {
            output.flush()?;
        }
        if input.read_until(b'\n', &mut bytes)? == 0 {
            output.flush()?;
            return Ok(());
        }
        // Valid UTF-8, the usual case, is checked by the faster `from_utf8`.
        let line = match std::str::from_utf8(&bytes) {
            Ok(text) => std::borrow::Cow::Borrowed(text),
            Err(_) => String::from_utf8_lossy(&bytes),
        };
        let line = line.trim_end_matches(['\n', '\r']);
        if line.trim().is_empty() {
            continue;
        }
        let reply = match ToPeer::read(line) {
            Ok(ToPeer::Hello) => Implementation::reference().hello_line(),
            Ok(ToPeer::Check { seq, tool, input }) => {
                answer.clear();
                check(seq, tool, &input).write_line(&mut answer);
                answer.push('\n');
                output.write_all(answer.as_bytes())?;
                continue;
            }
            Ok(ToPeer::Exec {
                seq,
                session,
                tool,
                input,
            }) => {
                let session = sessions.entry(session.into_owned()).or_default();
                execute_step(seq, tool, &input, session).to_line()
            }
            Ok(ToPeer::Anchors { seq, path, .. }) => anchors_step(seq, &path).to_line(),
            Ok(ToPeer::End { session }) => {
                sessions.remove(session.as_ref());
                continue;
            }
            Ok(ToPeer::Bye) => return output.flush(),
            Err(Unreadable::NotJson { error, seq }) => {
                eprintln!("conform peer: cannot read a line ({error})");
                match seq {
                    Some(seq) => error_result(seq, format!("cannot read the check: {error}")),
                    None => continue,
                }
            }
            Err(Unreadable::NotObject(kind)) => {
                eprintln!("conform peer: ignoring a message that is not an object but {kind}");
                continue;
            }
            Err(Unreadable::UnknownType(kind)) => {
                eprintln!("conform peer: ignoring a message of unknown type {kind:?}");
                continue;
            }
            Err(Unreadable::Refused { seq, reason }) => error_result(seq, reason),
        };
        output.write_all(reply.as_bytes())?;
        output.write_all(b"\n")?;
    }
}

/// An `error` result (the same for a check and a step).
fn error_result(seq: Seq, text: String) -> String {
    let answer = CheckAnswer::Error(text);
    PeerResult { seq, answer }.to_line()
}

fn check(seq: Seq, tool: Tool, input: &Json) -> PeerResult<CheckAnswer> {
    let answer = CheckAnswer::Verdict(validate_json(tool, input));
    PeerResult { seq, answer }
}

/// Runs one call in the message's session; a tool the reference does not execute is an error
/// whatever the input.
fn execute_step(
    seq: Seq,
    tool: Tool,
    input: &Json,
    session: &mut Session,
) -> PeerResult<StepAnswer> {
    if !exec::executes(tool) {
        let answer = StepAnswer::Error(exec::NotExecuted(tool).to_string());
        return PeerResult { seq, answer };
    }
    let answer = match exec::execute(tool, input, session) {
        Ok(exec::Outcome::Output(text)) => StepAnswer::Reply(Reply::Output(text)),
        Ok(exec::Outcome::Throws(text)) => StepAnswer::Reply(Reply::Throws(text)),
        Err(not_executed) => StepAnswer::Error(not_executed.to_string()),
    };
    PeerResult { seq, answer }
}

/// The anchored view of the file the message names.
fn anchors_step(seq: Seq, path: &JsString) -> PeerResult<StepAnswer> {
    let answer = match path.to_str() {
        Some(path) => match exec::anchors(std::path::Path::new(&path)) {
            Ok(view) => StepAnswer::Reply(Reply::Output(view)),
            Err(error) => StepAnswer::Error(error.to_string()),
        },
        None => StepAnswer::Error("the anchors step has no path".to_owned()),
    };
    PeerResult { seq, answer }
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
