//! `conform peer`: the reference implementation served over the peer protocol: verdicts, and the
//! execution of scenarios with one editing session per session id.

use std::collections::HashMap;
use std::io::{BufRead as _, BufReader, BufWriter, Read, Write};
use std::sync::mpsc;

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
/// Reading and parsing the lines happen on a thread of their own, a batch of messages ahead of
/// checking and answering them, so on two cores the two halves of the work overlap. A line that
/// cannot be read still gets an `error` result when its `seq` can be found, so a client never
/// waits for an answer that will not come.
pub fn serve(input: impl Read + Send + 'static, output: impl Write) -> std::io::Result<()> {
    let (batches, received) = mpsc::sync_channel(BATCHES_AHEAD);
    let (spent, to_drop) = mpsc::channel();
    // Not scoped: when answering stops first (a write fails), the reader may be blocked in a read
    // that never returns, and the process must still end.
    let reader = std::thread::spawn(move || read_messages(input, &batches, &to_drop));
    let answered = answer_messages(&received, output, &spent);
    // A reader waiting to hand over a batch gives up once nobody receives it.
    drop(received);
    // Answering ends well only at `bye` or at the end of the input, where the reader has stopped
    // too, so joining it cannot wait; after a failed write it may be blocked, and is left.
    answered?;
    reader.join().unwrap_or(Ok(()))
}

/// A message as the reader read it.
type Incoming = Result<ToPeer<'static>, Unreadable>;

/// How many batches the reader may be ahead.
const BATCHES_AHEAD: usize = 4;

/// The most messages in one batch.
const BATCH: usize = 256;

/// Reads and parses lines into batches. A batch is sent when full, at `bye`, at the end of the
/// input, and before a read that could wait: a client that waits for an answer gets it.
///
/// Answered batches come back in `to_drop`: the values were allocated on this thread, and freeing
/// them here costs the allocator less than freeing them on the answering thread, the busier one.
fn read_messages(
    input: impl Read,
    batches: &mpsc::SyncSender<Vec<Incoming>>,
    to_drop: &mpsc::Receiver<Vec<Incoming>>,
) -> std::io::Result<()> {
    let mut input = BufReader::with_capacity(BUFFER, input);
    let mut bytes = Vec::new();
    let mut batch = Vec::with_capacity(BATCH);
    let send = |batch: &mut Vec<Incoming>| {
        to_drop.try_iter().for_each(drop);
        let full = std::mem::replace(batch, Vec::with_capacity(BATCH));
        // A closed channel means answering has stopped: nothing more to read for.
        batches.send(full).is_ok()
    };
    loop {
        if !batch.is_empty() && !input.buffer().contains(&b'\n') && !send(&mut batch) {
            return Ok(());
        }
        bytes.clear();
        if input.read_until(b'\n', &mut bytes)? == 0 {
            send(&mut batch);
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
        let message = ToPeer::read(line);
        let bye = matches!(message, Ok(ToPeer::Bye));
        batch.push(message);
        if bye || batch.len() == BATCH {
            let sent = send(&mut batch);
            if bye || !sent {
                return Ok(());
            }
        }
    }
}

/// Answers the messages of each batch in order until `bye` or the end of the input. Answers wait
/// in the output's buffer while the next batch is ready, and go out before waiting for one.
fn answer_messages(
    batches: &mpsc::Receiver<Vec<Incoming>>,
    output: impl Write,
    spent: &mpsc::Sender<Vec<Incoming>>,
) -> std::io::Result<()> {
    let mut output = BufWriter::with_capacity(BUFFER, output);
    let mut answer = String::new();
    let mut sessions: HashMap<String, Session> = HashMap::new();
    loop {
        let batch = match batches.try_recv() {
            Ok(batch) => batch,
            Err(mpsc::TryRecvError::Empty) => {
                output.flush()?;
                match batches.recv() {
                    Ok(batch) => batch,
                    Err(mpsc::RecvError) => return output.flush(),
                }
            }
            Err(mpsc::TryRecvError::Disconnected) => return output.flush(),
        };
        for message in &batch {
            let reply = match message {
                Ok(ToPeer::Hello) => Implementation::reference().hello_line(),
                Ok(ToPeer::Check { seq, tool, input }) => {
                    answer.clear();
                    check(seq.clone(), *tool, input).write_line(&mut answer);
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
                    let session = sessions.entry(session.to_string()).or_default();
                    execute_step(seq.clone(), *tool, input, session).to_line()
                }
                Ok(ToPeer::Anchors { seq, path, .. }) => anchors_step(seq.clone(), path).to_line(),
                Ok(ToPeer::End { session }) => {
                    sessions.remove(session.as_ref());
                    continue;
                }
                Ok(ToPeer::Bye) => return output.flush(),
                Err(Unreadable::NotJson { error, seq }) => {
                    eprintln!("conform peer: cannot read a line ({error})");
                    match seq {
                        Some(seq) => {
                            error_result(seq.clone(), format!("cannot read the check: {error}"))
                        }
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
                Err(Unreadable::Refused { seq, reason }) => {
                    error_result(seq.clone(), reason.clone())
                }
            };
            output.write_all(reply.as_bytes())?;
            output.write_all(b"\n")?;
        }
        // When the reader has ended, the batch is freed here instead.
        let _ = spent.send(batch);
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
        serve(std::io::Cursor::new(input.to_vec()), &mut out).expect("served");
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
