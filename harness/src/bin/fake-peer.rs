//! `fake-peer`: a deliberately misbehaving peer for the runner's own tests.
//!
//! It answers like the reference, except where told otherwise. Whole-run behaviour comes from
//! the arguments (`fake-peer --help`; an unknown one is refused); per-check behaviour from the
//! input: an input object with a member `"fake": "<mode>"` triggers that mode for that check
//! alone, so it follows the vector across restarts. Check modes: `crash`, `hang`, `garbage`,
//! `wrong-seq`, `error`, `split`.
//!
//! Scenario steps are executed like the reference, one session per session id. An `exec` input
//! with `"fake": "<mode>"` (the member is removed before the call runs) misbehaves: `hang`,
//! `crash` (before running the call), `crash-after-write` (after running it, so its files are
//! written), `wrong-seq`, `verdict` (answers with an accept), `garbage`, `error`.

use std::collections::HashMap;
use std::io::{BufRead as _, Write};
use std::path::Path;
use std::process::exit;
use std::thread::sleep;
use std::time::Duration;

use clap::{Parser, ValueEnum};
use vvoc_harness::protocol::hello::Implementation;
use vvoc_harness::protocol::result::{CheckAnswer, PeerResult, StepAnswer};
use vvoc_harness::protocol::runner::{ToPeer, Unreadable, inexact_seq_answer};
use vvoc_harness::protocol::wire::Seq;
use vvoc_harness::scenario::model::Reply;
use vvoc_reference::exec::{Outcome, Session, anchors, execute};
use vvoc_reference::text::is_blank;
use vvoc_reference::{Code, Issue, Json, Object, Tool, Verdict, validate_json};

/// A deliberately misbehaving peer for the runner's own tests.
#[derive(Debug, Parser)]
#[command(name = "fake-peer")]
struct Args {
    /// Answer every check this way instead of with the reference's verdict.
    #[arg(long, value_enum)]
    all: Option<All>,
    /// How to answer the hello.
    #[arg(long, value_enum, default_value = "ok")]
    hello: Hello,
    /// The tools the hello lists, comma-separated, any text (default: all nine).
    #[arg(long, value_delimiter = ',')]
    tools: Option<Vec<String>>,
    /// The tools the hello lists as executed, comma-separated, any text, or `none` (default:
    /// both editors).
    #[arg(long, value_delimiter = ',')]
    scenarios: Option<Vec<String>>,
    /// Write 96 KB to stderr before each check.
    #[arg(long)]
    flood_stderr: bool,
    /// Wait this long before each check.
    #[arg(long, value_name = "MS")]
    slow_ms: Option<u64>,
    /// Add a member `"extra": true` to each answer of a check.
    #[arg(long)]
    extra_member: bool,
    /// Ignored: a text a test finds the process by.
    #[arg(long)]
    marker: Option<String>,
    /// Answer like the reference except for one planted difference (for `conform fuzz`'s tests).
    #[arg(long, value_enum)]
    plant: Option<Plant>,
}

/// A difference from the reference, each in one rule.
#[derive(Clone, Copy, Debug, ValueEnum)]
enum Plant {
    /// `web_search` takes 21 as the upper bound of `count` (the reference's is 20).
    OffByOne,
    /// `web_fetch`'s `timeout` maximum says `<120` instead of `<=120`.
    WrongMessage,
    /// `work_item_close` leaves `workItemId` untrimmed in its output.
    MissingTrim,
    /// `web_search` trims `query` (a verbatim line) before its length check, so it refuses a
    /// query of trimming-set units alone; its output keeps the query as it came.
    TrimmedQuery,
    /// Exits on a `web_search` input whose `count` is 20.
    Crash,
}

/// How every check is answered.
#[derive(Clone, Copy, Debug, ValueEnum)]
enum All {
    /// Accept, the input as the normalized output.
    Accept,
    /// Reject with one issue at the root.
    Reject,
    /// The reference's verdict, every issue with a wrong message.
    WrongIssues,
    /// An `error` answer.
    Error,
}

/// How the hello is answered.
#[derive(Clone, Copy, Debug, ValueEnum)]
enum Hello {
    /// A good hello.
    Ok,
    /// A hello of protocol 2.
    Bad,
    /// Exit instead.
    Exit,
    /// Never answer.
    Silent,
}

fn main() {
    let args = Args::parse();
    let mut sessions: HashMap<String, Session> = HashMap::new();
    let mut out = std::io::stdout().lock();
    for line in std::io::stdin().lock().lines() {
        let Ok(line) = line else { return };
        let message = match ToPeer::read(&line) {
            Ok(message) => message,
            Err(Unreadable::Refused { seq, reason }) => {
                let answer = CheckAnswer::Error(reason);
                send(&mut out, &PeerResult { seq, answer }.to_line());
                continue;
            }
            Err(Unreadable::InexactSeq(text)) => {
                send(&mut out, &inexact_seq_answer(&text));
                continue;
            }
            Err(
                Unreadable::NotJson { .. } | Unreadable::NotObject(_) | Unreadable::UnknownType(_),
            ) => {
                continue;
            }
        };
        match message {
            ToPeer::Hello => hello(&mut out, &args),
            ToPeer::Check { seq, tool, input } => {
                if args.flood_stderr {
                    eprintln!("{}", "fake-peer floods stderr. ".repeat(4000));
                }
                if let Some(ms) = args.slow_ms {
                    sleep(Duration::from_millis(ms));
                }
                check(&mut out, seq, tool, &input, &args);
            }
            ToPeer::Exec {
                seq,
                session,
                tool,
                input,
                host: _,
                workflow: _,
            } => {
                let session = sessions.entry(session.into_owned()).or_default();
                exec(&mut out, seq, tool, &input, session);
            }
            ToPeer::Anchors { seq, path, .. } => {
                let answer = match anchors(Path::new(&path.to_string())) {
                    Ok(view) => StepAnswer::Reply(Reply::Output(view)),
                    Err(error) => StepAnswer::Error(error.to_string()),
                };
                send(&mut out, &PeerResult { seq, answer }.to_line());
            }
            ToPeer::Workflow(message) => {
                let answer = StepAnswer::Error("the fake peer plays no workflow step".to_owned());
                let seq = message.seq().clone();
                send(&mut out, &PeerResult { seq, answer }.to_line());
            }
            ToPeer::End { session } => {
                sessions.remove(session.as_ref());
            }
            ToPeer::Bye => return,
        }
    }
}

fn hello(out: &mut impl Write, args: &Args) {
    match args.hello {
        // Deliberately no hello of this protocol: only the version is there.
        Hello::Bad => send(out, r#"{"type":"hello","protocol":2}"#),
        Hello::Exit => {
            eprintln!("fake-peer: exiting during the hello");
            exit(2);
        }
        Hello::Silent => sleep(Duration::from_secs(3600)),
        Hello::Ok => {
            let scenarios = match args.scenarios.as_deref() {
                Some([none]) if none == "none" => Vec::new(),
                Some(ids) => ids.to_vec(),
                None => vec!["hashline_edit".to_owned(), "str_replace_editor".to_owned()],
            };
            let implementation = Implementation {
                name: "fake-peer".to_owned(),
                version: "0".to_owned(),
                language: "rust".to_owned(),
                tools: args
                    .tools
                    .clone()
                    .unwrap_or_else(|| Tool::ALL.iter().map(|t| t.id().to_owned()).collect()),
                scenarios,
            };
            send(out, &implementation.hello_line());
        }
    }
}

/// The `fake` member of an input object.
fn fake_mode(input: &Json) -> Option<String> {
    let mode = input.as_object()?.get("fake")?.as_string()?;
    Some(mode.to_string())
}

fn check(out: &mut impl Write, seq: Seq, tool: Tool, input: &Json, args: &Args) {
    let fake = fake_mode(input);
    let verdict = match args.plant {
        Some(plant) => planted(plant, tool, input),
        None => validate_json(tool, input),
    };
    let mut result = PeerResult {
        seq: seq.clone(),
        answer: CheckAnswer::Verdict(verdict),
    };
    match (fake.as_deref(), args.all) {
        (Some("crash"), _) => {
            eprintln!("fake-peer: crashing on check {}", seq.0.to_compact());
            exit(1);
        }
        (Some("hang"), _) => sleep(Duration::from_secs(3600)),
        (Some("garbage"), _) => return send(out, "this is not JSON"),
        (Some("wrong-seq"), _) => result.seq = later(&seq),
        (Some("error"), _) | (_, Some(All::Error)) => {
            result.answer = CheckAnswer::Error("fake-peer cannot evaluate this".to_owned());
        }
        (_, Some(All::Accept)) => {
            result.answer = CheckAnswer::Verdict(Verdict::Accept(input.clone()))
        }
        (_, Some(All::Reject)) => {
            result.answer = CheckAnswer::Verdict(Verdict::Reject(vec![root_issue()]))
        }
        (_, Some(All::WrongIssues)) => {
            if let CheckAnswer::Verdict(Verdict::Reject(issues)) = &mut result.answer {
                for issue in issues {
                    issue.message = "a wrong message".into();
                }
            }
        }
        (_, None) => {}
    }
    let mut reply = result.to_object();
    if args.extra_member {
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
            sleep(Duration::from_millis(20));
        }
        return send(out, c);
    }
    send(out, &line);
}

/// The reference's verdict, with the planted difference where its rule applies.
fn planted(plant: Plant, tool: Tool, input: &Json) -> Verdict {
    let member = |name: &str| input.as_object().and_then(|o| o.get(name));
    match (plant, tool) {
        (Plant::OffByOne, Tool::WebSearch) if member("count") == Some(&Json::Number(21.0)) => {
            // Checked as if it were 20, and kept as 21 in the output.
            let at_bound = with_input_member(input, "count", Json::Number(20.0));
            let verdict = validate_json(tool, &at_bound);
            with_output_member(verdict, "count", Json::Number(21.0))
        }
        (Plant::WrongMessage, Tool::WebFetch) => match validate_json(tool, input) {
            Verdict::Reject(mut issues) => {
                for issue in &mut issues {
                    if issue.message.eq_str("Too big: expected number to be <=120") {
                        issue.message = "Too big: expected number to be <120".into();
                    }
                }
                Verdict::Reject(issues)
            }
            accept => accept,
        },
        (Plant::MissingTrim, Tool::WorkItemClose) => {
            let verdict = validate_json(tool, input);
            match member("workItemId") {
                Some(raw) => with_output_member(verdict, "workItemId", raw.clone()),
                None => verdict,
            }
        }
        (Plant::TrimmedQuery, Tool::WebSearch) => match member("query").and_then(Json::as_string) {
            Some(query) if !query.is_empty() && is_blank(query.units()) => {
                validate_json(tool, &with_input_member(input, "query", Json::str("")))
            }
            _ => validate_json(tool, input),
        },
        (Plant::Crash, Tool::WebSearch) if member("count") == Some(&Json::Number(20.0)) => {
            eprintln!("fake-peer: a planted crash on count 20");
            exit(1);
        }
        _ => validate_json(tool, input),
    }
}

/// The input object with its member `name` set to `value` (in its place).
fn with_input_member(input: &Json, name: &str, value: Json) -> Json {
    let mut object = input.as_object().cloned().unwrap_or_default();
    object.insert(name, value);
    Json::Object(object)
}

/// An acceptance with one member of its output set to `value`; a refusal as it is.
fn with_output_member(verdict: Verdict, name: &str, value: Json) -> Verdict {
    match &verdict {
        Verdict::Accept(Json::Object(output)) => {
            let mut output = output.clone();
            output.insert(name, value);
            Verdict::Accept(Json::Object(output))
        }
        Verdict::Accept(_) | Verdict::Reject(_) => verdict,
    }
}

/// One scenario step: the call runs for real (without its `fake` member), unless the mode says
/// otherwise.
fn exec(out: &mut impl Write, seq: Seq, tool: Tool, input: &Json, session: &mut Session) {
    let fake = fake_mode(input);
    let input = match input {
        Json::Object(o) => Json::Object(Object::from_members(
            o.iter()
                .filter(|(k, _)| !k.eq_str("fake"))
                .map(|(k, v)| (k.clone(), v.clone())),
        )),
        other => other.clone(),
    };
    match fake.as_deref() {
        Some("hang") => sleep(Duration::from_secs(3600)),
        Some("crash") => {
            eprintln!("fake-peer: crashing on exec {}", seq.0.to_compact());
            exit(1);
        }
        Some("garbage") => return send(out, "this is not JSON either"),
        _ => {}
    }
    let answer = match execute(tool, &input, session) {
        Ok(Outcome::Output(text)) => StepAnswer::Reply(Reply::Output(text)),
        Ok(Outcome::Throws(text)) => StepAnswer::Reply(Reply::Throws(text)),
        Err(not_executed) => StepAnswer::Error(not_executed.to_string()),
    };
    let line = match fake.as_deref() {
        Some("crash-after-write") => {
            eprintln!(
                "fake-peer: crashing after running exec {}",
                seq.0.to_compact()
            );
            exit(1);
        }
        Some("wrong-seq") => PeerResult {
            seq: later(&seq),
            answer,
        }
        .to_line(),
        Some("verdict") => PeerResult {
            seq,
            answer: CheckAnswer::Verdict(Verdict::Accept(input)),
        }
        .to_line(),
        Some("error") => PeerResult {
            seq,
            answer: StepAnswer::Error("fake-peer cannot run this".to_owned()),
        }
        .to_line(),
        _ => PeerResult { seq, answer }.to_line(),
    };
    send(out, &line);
}

/// A `seq` no message carried: 1000 past the one read.
fn later(seq: &Seq) -> Seq {
    Seq(Json::Number(seq.0.as_f64().unwrap_or(0.0) + 1000.0))
}

fn root_issue() -> Issue {
    Issue {
        code: Code::InvalidType,
        path: "(root)".into(),
        message: "fake-peer refuses everything".into(),
        expected: None,
        received: None,
    }
}

fn send(out: &mut impl Write, line: &str) {
    let _ = writeln!(out, "{line}");
    let _ = out.flush();
}
