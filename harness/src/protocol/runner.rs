//! The runner's messages (interfaces.md §4, §9.2): `hello`, `check`, `exec`, `anchors`, the
//! workflow messages (`task`, `event`, `restart`), `end`, `bye`; written by the runner, read by
//! peers (`conform peer`, the fake peer).

use std::borrow::Cow;

use vvoc_reference::{JsString, Json, Object, Tool};

use crate::protocol::wire::{PROTOCOL, Seq, message_type};
use crate::protocol::workflow::{TYPES as WORKFLOW_TYPES, WorkflowMessage};

/// A message from the runner to the peer.
#[derive(Clone, Debug, PartialEq)]
pub enum ToPeer<'a> {
    /// The opening message.
    Hello,
    /// One input to check.
    Check {
        /// The runner's number for this check; the answer echoes it.
        seq: Seq,
        /// The tool.
        tool: Tool,
        /// The input.
        input: Cow<'a, Json>,
    },
    /// One step of a scenario: a call of `tool`.
    Exec {
        /// The runner's number for this step; the answer echoes it.
        seq: Seq,
        /// The scenario's session.
        session: Cow<'a, str>,
        /// The tool.
        tool: Tool,
        /// The input, `{root}` (or `{server}`) substituted.
        input: Cow<'a, Json>,
        /// For a web tool, the host configuration (formats.md, "Web scenario file"), `{server}`
        /// substituted; `None` for an editor.
        host: Option<Cow<'a, Json>>,
        /// For a workflow tool, the host, the step's context and the clock
        /// (`crate::workflow::wire`); `None` for an editor or a web tool.
        workflow: Option<Cow<'a, Json>>,
    },
    /// A step of a workflow scenario that is not a call: a `task`, an `event`, a `restart`.
    Workflow(WorkflowMessage<'a>),
    /// One step of a scenario: the anchored view of a file.
    Anchors {
        /// The runner's number for this step; the answer echoes it.
        seq: Seq,
        /// The scenario's session.
        session: Cow<'a, str>,
        /// The absolute path of the file.
        path: Cow<'a, JsString>,
    },
    /// The scenario is over; the peer may forget the session (no answer).
    End {
        /// The scenario's session.
        session: Cow<'a, str>,
    },
    /// The closing message.
    Bye,
}

/// Why a peer cannot take a line as a runner's message.
#[derive(Clone, Debug, PartialEq)]
pub enum Unreadable {
    /// Not JSON; the `seq` found in its text, if any (`"seq": 12`).
    NotJson {
        /// The parser's complaint.
        error: String,
        /// The `seq` the text seems to carry.
        seq: Option<Seq>,
    },
    /// JSON, but not an object: the JSON type it is.
    NotObject(&'static str),
    /// An object of no known `type` (empty when it has none).
    UnknownType(String),
    /// A message whose `seq` is a number of magnitude 2^53 or more, which a double may have
    /// rounded: it is refused with an answer that echoes the `seq`'s own text
    /// ([`inexact_seq_answer`]), never a rounded value.
    InexactSeq(String),
    /// A check or step that cannot be carried out, and why; it still gets an `error` answer.
    Refused {
        /// Its `seq`.
        seq: Seq,
        /// Why.
        reason: String,
    },
}

impl ToPeer<'_> {
    /// The message as one line of JSON, without the newline.
    pub fn to_line(&self) -> String {
        // A check, the message sent most, is written straight from its parts: building the object
        // first would copy the input.
        if let ToPeer::Check { seq, tool, input } = self {
            let mut line = String::from("{\"type\":\"check\",\"seq\":");
            seq.0.write_compact(&mut line);
            line.push_str(",\"tool\":\"");
            line.push_str(tool.id());
            line.push_str("\",\"input\":");
            input.write_compact(&mut line);
            line.push('}');
            return line;
        }
        let mut o = Object::new();
        o.insert("type", Json::str(self.kind()));
        match self {
            ToPeer::Hello => o.insert("protocol", Json::Number(f64::from(PROTOCOL))),
            ToPeer::Check { seq, tool, input } => {
                o.insert("seq", seq.0.clone());
                o.insert("tool", Json::str(tool.id()));
                o.insert("input", input.as_ref().clone());
            }
            ToPeer::Exec {
                seq,
                session,
                tool,
                input,
                host,
                workflow,
            } => {
                o.insert("seq", seq.0.clone());
                o.insert("session", Json::str(session));
                o.insert("tool", Json::str(tool.id()));
                o.insert("input", input.as_ref().clone());
                if let Some(host) = host {
                    o.insert("host", host.as_ref().clone());
                }
                if let Some(workflow) = workflow {
                    o.insert("workflow", workflow.as_ref().clone());
                }
            }
            ToPeer::Workflow(message) => message.write(&mut o),
            ToPeer::Anchors { seq, session, path } => {
                o.insert("seq", seq.0.clone());
                o.insert("session", Json::str(session));
                o.insert("path", Json::String(path.as_ref().clone()));
            }
            ToPeer::End { session } => o.insert("session", Json::str(session)),
            ToPeer::Bye => {}
        }
        Json::Object(o).to_compact()
    }

    /// The message's `type`.
    pub const fn kind(&self) -> &'static str {
        match self {
            ToPeer::Hello => "hello",
            ToPeer::Check { .. } => "check",
            ToPeer::Exec { .. } => "exec",
            ToPeer::Anchors { .. } => "anchors",
            ToPeer::Workflow(message) => message.kind(),
            ToPeer::End { .. } => "end",
            ToPeer::Bye => "bye",
        }
    }

    /// Reads a runner's line, as a peer: leniently, so that every check and step that carries a
    /// `seq` gets an answer, and a session may be named by any JSON value.
    pub fn read(line: &str) -> Result<ToPeer<'static>, Unreadable> {
        let mut message = match Json::parse(line) {
            Ok(json) => {
                let kind = json.type_name();
                json.into_object().ok_or(Unreadable::NotObject(kind))?
            }
            Err(error) => {
                return Err(Unreadable::NotJson {
                    error: error.to_string(),
                    seq: recover_seq(line),
                });
            }
        };
        // The input is moved out, not copied: it may be large and deep.
        let input = message.remove("input");
        let host = message.remove("host");
        let workflow = message.remove("workflow");
        let seq = Seq(message.get("seq").cloned().unwrap_or(Json::Null));
        if let Json::Number(n) = seq.0
            && n.abs() >= EXACT_LIMIT
        {
            return Err(Unreadable::InexactSeq(
                seq_text(line).unwrap_or("null").to_owned(),
            ));
        }
        let session = || {
            Cow::Owned(match message.get("session") {
                Some(Json::String(name)) => name.to_string_lossy(),
                Some(other) => other.to_compact(),
                None => String::new(),
            })
        };
        let refused = |seq: &Seq, reason: String| Unreadable::Refused {
            seq: seq.clone(),
            reason,
        };
        // The tool and the type are found without a copy of their text: this runs per line.
        let tool = |seq: &Seq| {
            let name = message.get("tool").and_then(Json::as_string);
            match name.and_then(|name| Tool::ALL.into_iter().find(|t| name.eq_str(t.id()))) {
                Some(tool) => Ok(tool),
                None => {
                    let name = name.map(JsString::to_string_lossy).unwrap_or_default();
                    name.parse::<Tool>()
                        .map_err(|unknown| refused(seq, unknown.to_string()))
                }
            }
        };
        let input = |seq: &Seq, kind: &str| {
            input
                .map(Cow::Owned)
                .ok_or_else(|| refused(seq, format!("the {kind} has no input")))
        };
        let kind = message.get("type").and_then(Json::as_string);
        let kind = KINDS
            .into_iter()
            .find(|k| kind.is_some_and(|kind| kind.eq_str(k)));
        match kind.unwrap_or_default() {
            "hello" => Ok(ToPeer::Hello),
            "check" => Ok(ToPeer::Check {
                tool: tool(&seq)?,
                input: input(&seq, "check")?,
                seq,
            }),
            "exec" => Ok(ToPeer::Exec {
                tool: tool(&seq)?,
                input: input(&seq, "exec")?,
                session: session(),
                host: host.map(Cow::Owned),
                workflow: workflow.map(Cow::Owned),
                seq,
            }),
            kind @ ("task" | "event" | "restart") => {
                WorkflowMessage::read(kind, &message, workflow, seq.clone(), session())
                    .map(ToPeer::Workflow)
                    .map_err(|reason| refused(&seq, reason))
            }
            "anchors" => match message.get("path").and_then(Json::as_string) {
                Some(path) => Ok(ToPeer::Anchors {
                    path: Cow::Owned(path.clone()),
                    session: session(),
                    seq,
                }),
                None => Err(refused(&seq, "the anchors step has no path".to_owned())),
            },
            "end" => Ok(ToPeer::End { session: session() }),
            "bye" => Ok(ToPeer::Bye),
            _ => Err(Unreadable::UnknownType(message_type(&message))),
        }
    }
}

/// Every message type a runner sends.
const KINDS: [&str; 9] = [
    "hello",
    "check",
    "exec",
    "anchors",
    WORKFLOW_TYPES[0],
    WORKFLOW_TYPES[1],
    WORKFLOW_TYPES[2],
    "end",
    "bye",
];

/// The answer to a message refused as [`Unreadable::InexactSeq`]: an `error` result whose `seq`
/// is the message's own number text, so that it is echoed exactly.
pub fn inexact_seq_answer(text: &str) -> String {
    let why = format!(
        "the seq {text} is beyond 2^53, where a number may be rounded: number messages with \
         integers below 9007199254740992"
    );
    format!(
        "{{\"type\":\"result\",\"seq\":{text},\"error\":{}}}",
        Json::str(&why).to_compact()
    )
}

/// 2^53: from here on, not every integer has a double of its own.
const EXACT_LIMIT: f64 = 9_007_199_254_740_992.0;

/// The text of the top-level member `seq` of `line`, an object that has parsed; the last one
/// when the name repeats, as the parser keeps the last.
fn seq_text(line: &str) -> Option<&str> {
    let bytes = line.as_bytes();
    let (mut depth, mut i, mut found) = (0usize, 0usize, None);
    while i < bytes.len() {
        match bytes[i] {
            b'{' | b'[' => depth += 1,
            b'}' | b']' => depth = depth.saturating_sub(1),
            b'"' => {
                let end = string_end(bytes, i);
                let after = line[end..].trim_start();
                if depth == 1 && after.starts_with(':') {
                    let name = Json::parse(&line[i..end]).ok();
                    if name
                        .as_ref()
                        .and_then(Json::as_string)
                        .is_some_and(|n| n.eq_str("seq"))
                    {
                        let value = after[1..].trim_start();
                        let len = value
                            .find(|c: char| c == ',' || c == '}' || c.is_ascii_whitespace())
                            .unwrap_or(value.len());
                        found = Some(&value[..len]);
                    }
                }
                i = end;
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    found
}

/// The index just past the string that starts at `start` (a `"`).
fn string_end(bytes: &[u8], start: usize) -> usize {
    let mut i = start + 1;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 2,
            b'"' => return i + 1,
            _ => i += 1,
        }
    }
    bytes.len()
}

/// The `seq` of a line that is not valid JSON, found by its text (`"seq": 12`); none when it is
/// too long to be echoed exactly (the line then gets no answer, as one without a `seq`).
pub(crate) fn recover_seq(line: &str) -> Option<Seq> {
    let after = &line[line.find("\"seq\"")? + 5..];
    let digits: String = after
        .trim_start()
        .strip_prefix(':')?
        .trim_start()
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    let n = digits.parse::<f64>().ok()?;
    (n < EXACT_LIMIT).then_some(Seq(Json::Number(n)))
}

#[cfg(test)]
mod tests {
    use std::borrow::Cow;

    use vvoc_reference::{Json, Tool};

    use super::{ToPeer, Unreadable};
    use crate::protocol::wire::Seq;

    #[test]
    fn a_check_line_is_its_object_written_compactly() {
        let input =
            Json::parse(r#"{"query":"q\ud800\n","x":[1.5,-0.0,1e400,{"a":null}]}"#).expect("JSON");
        let check = ToPeer::Check {
            seq: Seq(Json::Number(12.0)),
            tool: Tool::WorkItemOpen,
            input: Cow::Borrowed(&input),
        };
        let mut object = vvoc_reference::Object::new();
        object.insert("type", Json::str("check"));
        object.insert("seq", Json::Number(12.0));
        object.insert("tool", Json::str("work_item_open"));
        object.insert("input", input.clone());
        assert_eq!(check.to_line(), Json::Object(object).to_compact());
    }

    #[test]
    fn what_the_runner_writes_a_peer_reads_back() {
        let input = Json::parse(r#"{"query":"q"}"#).expect("JSON");
        let messages = [
            ToPeer::Hello,
            ToPeer::Check {
                seq: Seq::from(7),
                tool: Tool::WebSearch,
                input: Cow::Borrowed(&input),
            },
            ToPeer::Exec {
                seq: Seq::from(8),
                session: Cow::Borrowed("s"),
                tool: Tool::StrReplaceEditor,
                input: Cow::Borrowed(&input),
                host: None,
                workflow: None,
            },
            ToPeer::Exec {
                seq: Seq::from(10),
                session: Cow::Borrowed("w"),
                tool: Tool::WebFetch,
                input: Cow::Borrowed(&input),
                host: Some(Cow::Owned(
                    Json::parse(r#"{"fetch":{"provider":"native"}}"#).expect("JSON"),
                )),
                workflow: None,
            },
            ToPeer::Anchors {
                seq: Seq::from(9),
                session: Cow::Borrowed("s"),
                path: Cow::Owned("/tmp/a".into()),
            },
            ToPeer::End {
                session: Cow::Borrowed("s"),
            },
            ToPeer::Bye,
        ];
        for message in messages {
            assert_eq!(ToPeer::read(&message.to_line()), Ok(message));
        }
    }

    #[test]
    fn a_seq_past_two_to_the_53_is_refused_with_its_own_text_echoed() {
        for (line, text) in [
            (
                r#"{"type":"check","seq":9007199254740993,"tool":"web_search","input":{}}"#,
                "9007199254740993",
            ),
            (
                r#"{"seq" : 1e400 ,"type":"exec","tool":"web_search","input":{}}"#,
                "1e400",
            ),
            (
                r#"{"seq":1,"input":{"seq":2},"type":"check","s\u0065q":-9007199254740992}"#,
                "-9007199254740992",
            ),
        ] {
            assert_eq!(
                ToPeer::read(line),
                Err(Unreadable::InexactSeq(text.to_owned())),
                "{line}"
            );
        }
        let answer = Json::parse(&super::inexact_seq_answer("9007199254740993")).expect("JSON");
        assert!(super::inexact_seq_answer("9007199254740993").starts_with(
            r#"{"type":"result","seq":9007199254740993,"error":"the seq 9007199254740993 is beyond 2^53"#
        ));
        assert!(answer.as_object().is_some_and(|o| o.get("error").is_some()));
        let largest = r#"{"type":"check","seq":9007199254740991,"tool":"web_search","input":{}}"#;
        assert!(
            matches!(ToPeer::read(largest), Ok(ToPeer::Check { .. })),
            "2^53 - 1 is exact"
        );
    }

    #[test]
    fn a_check_that_cannot_be_carried_out_keeps_its_seq() {
        let refused = |line: &str| match ToPeer::read(line) {
            Err(Unreadable::Refused { seq, reason }) => Some((seq, reason)),
            _ => None,
        };
        let no_input = refused(r#"{"type":"check","seq":"x","tool":"web_search"}"#);
        assert_eq!(
            no_input,
            Some((Seq(Json::str("x")), "the check has no input".to_owned()))
        );
        let unknown = refused(r#"{"type":"check","seq":1,"tool":"nope","input":{}}"#);
        assert!(unknown.is_some_and(|(_, reason)| reason.starts_with("unknown tool \"nope\"")),);
        assert!(matches!(
            ToPeer::read(r#"{"type":"check","seq": 3,"input":NaN}"#),
            Err(Unreadable::NotJson {
                seq: Some(Seq(Json::Number(3.0))),
                ..
            })
        ));
        assert_eq!(ToPeer::read("[1]"), Err(Unreadable::NotObject("array")));
        assert!(
            matches!(
                ToPeer::read(r#"{"type":"check","seq":9007199254740993,"input":NaN}"#),
                Err(Unreadable::NotJson { seq: None, .. })
            ),
            "a seq past 2^53 in a line that is not JSON is not guessed"
        );
        assert_eq!(
            ToPeer::read(r#"{"type":"wave"}"#),
            Err(Unreadable::UnknownType("wave".to_owned()))
        );
    }
}
