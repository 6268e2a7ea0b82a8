//! `conform peer`: the reference implementation served over the peer protocol: verdicts, and the
//! execution of scenarios with one editing session (and one workflow plugin) per session id.

use std::collections::HashMap;
use std::io::{BufRead, BufReader, BufWriter, Read, Write};
use std::sync::mpsc;

use vvoc_reference::exec::{self, Session};
use vvoc_reference::{JsString, Json, Tool, validate_json};

use crate::peer::process::MAX_LINE;
use crate::protocol::hello::Implementation;
use crate::protocol::result::{CheckAnswer, PeerResult, StepAnswer};
use crate::protocol::runner::{ToPeer, Unreadable, inexact_seq_answer, recover_seq};
use crate::protocol::wire::Seq;
use crate::scenario::model::Reply;
use crate::serve_workflow::WorkflowSessions;

/// The size of the input and output buffers: a few hundred messages.
const BUFFER: usize = 1 << 16;

/// Answers every message of `input` on `output` until `bye` or the end of the input.
///
/// Three stages overlap: a thread reads lines into batches, two threads parse the batches in turn,
/// and this one checks and answers them in order. Parsing costs more than checking (and than
/// reading), so on two cores the two parsers and the checker share the machine between them,
/// whichever is behind. A line that cannot be read still gets an `error` result when its `seq`
/// can be found, so a client never waits for an answer that will not come.
pub fn serve(input: impl Read + Send + 'static, output: impl Write) -> std::io::Result<()> {
    let mut to_parse = Vec::with_capacity(PARSERS);
    let mut parsed = Vec::with_capacity(PARSERS);
    let mut spent = Vec::with_capacity(PARSERS);
    for _ in 0..PARSERS {
        let (lines, lines_received) = mpsc::sync_channel(BATCHES_AHEAD);
        let (messages, messages_received) = mpsc::sync_channel(BATCHES_AHEAD);
        let (answered, to_drop) = mpsc::channel();
        // Not joined: a parser ends when its lines or its answerer are gone.
        std::thread::spawn(move || parse_batches(&lines_received, &messages, &to_drop));
        to_parse.push(lines);
        parsed.push(messages_received);
        spent.push(answered);
    }
    // Not scoped: when answering stops first (a write fails), the reader may be blocked in a read
    // that never returns, and the process must still end.
    let reader = std::thread::spawn(move || read_lines(input, &to_parse));
    let answered = answer_messages(&parsed, output, &spent);
    // A reader or parser waiting to hand over a batch gives up once nobody receives it.
    drop(parsed);
    // Answering ends well only at `bye` or at the end of the input, where the reader has stopped
    // too, so joining it cannot wait; after a failed write it may be blocked, and is left.
    answered?;
    reader.join().unwrap_or(Ok(()))
}

/// A message as a parser read it.
type Incoming = Result<ToPeer<'static>, Unreadable>;

/// How many threads parse batches, each every `PARSERS`-th batch.
const PARSERS: usize = 2;

/// How many batches the reader and each parser may be ahead.
const BATCHES_AHEAD: usize = 4;

/// The most messages in one batch.
const BATCH: usize = 256;

/// Lines read and not yet parsed: their text, one after the other, and where each ends.
#[derive(Debug, Default)]
struct Lines {
    text: String,
    ends: Vec<usize>,
    /// The lines that were not UTF-8 (each held in its lossy form): their index, and the byte
    /// offset of the first invalid byte.
    not_utf8: Vec<(usize, usize)>,
}

impl Lines {
    fn push(&mut self, line: &str) {
        self.text.push_str(line);
        self.ends.push(self.text.len());
    }

    /// The offset of the first invalid byte of line `index`, if it was not UTF-8.
    fn not_utf8(&self, index: usize) -> Option<usize> {
        self.not_utf8
            .iter()
            .find(|(i, _)| *i == index)
            .map(|(_, offset)| *offset)
    }

    fn len(&self) -> usize {
        self.ends.len()
    }

    fn iter(&self) -> impl Iterator<Item = &str> {
        let starts = std::iter::once(0).chain(self.ends.iter().copied());
        starts
            .zip(&self.ends)
            .map(|(start, &end)| &self.text[start..end])
    }
}

/// Reads lines into batches, handed to the parsers in turn. A batch is sent when full, at `bye`,
/// at the end of the input, and before a read that could wait: a client that waits for an answer
/// gets it.
fn read_lines(input: impl Read, parsers: &[mpsc::SyncSender<Lines>]) -> std::io::Result<()> {
    let mut input = BufReader::with_capacity(BUFFER, input);
    let mut bytes = Vec::new();
    let mut batch = Lines::default();
    let mut next = (0..parsers.len()).cycle();
    let mut send = |batch: &mut Lines| {
        let full = std::mem::take(batch);
        // A closed channel means answering has stopped: nothing more to read for.
        next.next()
            .and_then(|i| parsers.get(i))
            .is_some_and(|parser| parser.send(full).is_ok())
    };
    loop {
        if batch.len() > 0 && !input.buffer().contains(&b'\n') && !send(&mut batch) {
            return Ok(());
        }
        bytes.clear();
        let read = input
            .by_ref()
            .take(MAX_LINE)
            .read_until(b'\n', &mut bytes)?;
        if read == 0 {
            send(&mut batch);
            return Ok(());
        }
        if read as u64 == MAX_LINE && bytes.last() != Some(&b'\n') {
            // The runner's own cap: a longer line is no message; the rest of it is skipped.
            eprintln!("conform peer: skipping a line longer than {MAX_LINE} bytes");
            skip_line(&mut input)?;
            continue;
        }
        // Valid UTF-8, the usual case, is checked by the faster `from_utf8`.
        let (line, not_utf8) = match std::str::from_utf8(&bytes) {
            Ok(text) => (std::borrow::Cow::Borrowed(text), None),
            Err(error) => (String::from_utf8_lossy(&bytes), Some(error.valid_up_to())),
        };
        let line = line.trim_end_matches(['\n', '\r']);
        if line.trim().is_empty() {
            continue;
        }
        if let Some(offset) = not_utf8 {
            batch.not_utf8.push((batch.len(), offset));
        }
        batch.push(line);
        // The reader stops at `bye`, which it must recognize without parsing every line: a `bye`
        // line holds the word, or a backslash when it is spelled with escapes, and only such a
        // line is parsed here too.
        let maybe_bye = line.contains("bye") || line.contains('\\');
        let bye = maybe_bye && matches!(ToPeer::read(line), Ok(ToPeer::Bye));
        if bye || batch.len() == BATCH {
            let sent = send(&mut batch);
            if bye || !sent {
                return Ok(());
            }
        }
    }
}

/// Parses each batch of lines it receives into messages, in order.
///
/// Answered batches come back in `to_drop`: the values were allocated on this thread, and freeing
/// them here costs the allocator less than freeing them on the answering thread, the busier one.
fn parse_batches(
    batches: &mpsc::Receiver<Lines>,
    parsed: &mpsc::SyncSender<Vec<Incoming>>,
    to_drop: &mpsc::Receiver<Vec<Incoming>>,
) {
    for lines in batches {
        to_drop.try_iter().for_each(drop);
        let messages = lines
            .iter()
            .enumerate()
            .map(|(i, line)| match lines.not_utf8(i) {
                None => ToPeer::read(line),
                Some(offset) => Err(Unreadable::NotJson {
                    error: format!("the line is not UTF-8 (an invalid byte at offset {offset})"),
                    seq: recover_seq(line),
                }),
            })
            .collect();
        if parsed.send(messages).is_err() {
            return;
        }
    }
}

/// Answers the messages of each batch in order until `bye` or the end of the input. Answers wait
/// in the output's buffer while the next batch is ready, and go out before waiting for one.
fn answer_messages(
    parsers: &[mpsc::Receiver<Vec<Incoming>>],
    output: impl Write,
    spent: &[mpsc::Sender<Vec<Incoming>>],
) -> std::io::Result<()> {
    let mut output = BufWriter::with_capacity(BUFFER, output);
    let mut answer = String::new();
    let mut sessions: HashMap<String, Session> = HashMap::new();
    let mut workflows = WorkflowSessions::default();
    // Batch k comes from parser k mod PARSERS, as the reader handed them out.
    for (batches, spent) in parsers.iter().zip(spent).cycle() {
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
                    host: None,
                    workflow: None,
                }) => {
                    let session = sessions.entry(session.to_string()).or_default();
                    execute_step(seq.clone(), *tool, input, session).to_line()
                }
                Ok(ToPeer::Exec {
                    seq,
                    session,
                    tool,
                    input,
                    host: None,
                    workflow: Some(workflow),
                }) => workflows
                    .call(seq.clone(), session, *tool, input, workflow)
                    .to_line(),
                Ok(ToPeer::Workflow(message)) => workflows.step(message).to_line(),
                // A web call holds up the answers after it for as long as it waits on its
                // server; a runner plays one scenario at a time per peer process.
                Ok(ToPeer::Exec {
                    seq,
                    tool,
                    input,
                    host: Some(host),
                    ..
                }) => web_step(seq.clone(), *tool, input, host).to_line(),
                Ok(ToPeer::Anchors { seq, path, .. }) => anchors_step(seq.clone(), path).to_line(),
                Ok(ToPeer::End { session }) => {
                    sessions.remove(session.as_ref());
                    workflows.end(session);
                    continue;
                }
                Ok(ToPeer::Bye) => return output.flush(),
                Err(unreadable) => match unreadable_answer(unreadable) {
                    Some(answer) => answer,
                    None => continue,
                },
            };
            output.write_all(reply.as_bytes())?;
            output.write_all(b"\n")?;
        }
        // When its parser has ended, the batch is freed here instead.
        let _ = spent.send(batch);
    }
    output.flush()
}

/// The answer to a line that cannot be taken as a message, when it has one (its `seq` was
/// found); said on stderr either way.
fn unreadable_answer(unreadable: &Unreadable) -> Option<String> {
    match unreadable {
        Unreadable::NotJson { error, seq } => {
            eprintln!("conform peer: cannot read a line ({error})");
            seq.as_ref()
                .map(|seq| error_result(seq.clone(), format!("cannot read the check: {error}")))
        }
        Unreadable::NotObject(kind) => {
            eprintln!("conform peer: ignoring a message that is not an object but {kind}");
            None
        }
        Unreadable::UnknownType(kind) => {
            eprintln!("conform peer: ignoring a message of unknown type {kind:?}");
            None
        }
        Unreadable::InexactSeq(text) => Some(inexact_seq_answer(text)),
        Unreadable::Refused { seq, reason } => Some(error_result(seq.clone(), reason.clone())),
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

/// Runs one web call with its host configuration (formats.md, "Web scenario file").
fn web_step(seq: Seq, tool: Tool, input: &Json, host: &Json) -> PeerResult<StepAnswer> {
    if !crate::web::is_web(tool) {
        let answer = StepAnswer::Error(format!(
            "a host configuration goes only with web_fetch and web_search, not {}",
            tool.id()
        ));
        return PeerResult { seq, answer };
    }
    let answer = match crate::web::play::reference_call(tool, input, host) {
        Ok(call) => StepAnswer::Web {
            reply: call.result,
            asks: call.asks,
        },
        Err(refused) => StepAnswer::Error(refused),
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

/// Reads and drops the rest of a line, in the reader's own buffer.
fn skip_line(input: &mut impl BufRead) -> std::io::Result<()> {
    loop {
        let buffer = input.fill_buf()?;
        if buffer.is_empty() {
            return Ok(());
        }
        match buffer.iter().position(|&b| b == b'\n') {
            Some(at) => {
                input.consume(at + 1);
                return Ok(());
            }
            None => {
                let all = buffer.len();
                input.consume(all);
            }
        }
    }
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
    fn checks_spread_over_both_parsers_are_answered_in_their_order() {
        // Ten batches and a part, so each parser reads several, interleaved.
        let count = 10 * super::BATCH + 7;
        let input: String = (1..=count)
            .map(|seq| {
                let query = if seq % 3 == 0 { "" } else { "q" };
                format!(
                    "{{\"type\":\"check\",\"seq\":{seq},\"tool\":\"web_search\",\"input\":{{\"query\":\"{query}\"}}}}\n"
                )
            })
            .collect();
        let out = answers(input.as_bytes());
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines.len(), count, "one answer per check");
        for (i, line) in lines.iter().enumerate() {
            let seq = i + 1;
            let verdict = if seq % 3 == 0 { "reject" } else { "accept" };
            let start = format!("{{\"type\":\"result\",\"seq\":{seq},\"{verdict}\":");
            assert!(line.starts_with(&start), "answer {seq}: {line}");
        }
    }

    #[test]
    fn lines_after_bye_are_not_answered_however_bye_is_spelled() {
        let check = "{\"type\":\"check\",\"seq\":1,\"tool\":\"web_search\",\"input\":{\"query\":\"bye\"}}\n";
        for bye in [
            r#"{"type":"bye"}"#,
            r#"{"type":"b\u0079e"}"#,
            r#"{"t\u0079pe":"bye"}"#,
        ] {
            let out = answers(format!("{check}{bye}\n{check}").as_bytes());
            assert_eq!(out.lines().count(), 1, "{bye}: {out}");
        }
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
    fn a_check_that_is_not_utf8_gets_an_error_naming_the_offset_of_its_first_invalid_byte() {
        let out = answers(
            b"{\"type\":\"check\",\"seq\":3,\"tool\":\"web_search\",\"input\":{\"query\":\"\xff\"}}\n",
        );
        assert_eq!(
            out,
            "{\"type\":\"result\",\"seq\":3,\"error\":\"cannot read the check: the line is not UTF-8 (an invalid byte at offset 62)\"}\n"
        );
    }

    #[test]
    fn a_line_over_the_cap_is_skipped_and_the_next_is_answered() {
        let mut input =
            vec![b'x'; usize::try_from(crate::peer::process::MAX_LINE).unwrap_or(usize::MAX) + 10];
        input.extend_from_slice(b"\n{\"type\":\"hello\",\"protocol\":1}\n");
        let out = answers(&input);
        assert!(
            out.starts_with("{\"type\":\"hello\",\"protocol\":1,"),
            "{}",
            &out[..out.len().min(200)]
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
