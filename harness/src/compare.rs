//! Comparing a received verdict with the expected one at a level, and describing the difference.

use std::fmt;
use std::str::FromStr;

use vvoc_reference::{Issue, JsString, Json, Object, Verdict, one_line};

use crate::preview::quoted;

/// How much of a verdict must match, weakest first (interfaces.md §4).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Level {
    /// Accept versus reject.
    Verdict,
    /// The verdict, and for a reject the first issue's code and path.
    First,
    /// The verdict, and for a reject every issue's code and path, in order.
    Issues,
    /// Everything: issues with messages and `expected`, or the normalized output.
    Exact,
    /// Over MCP (`conform run --mcp`): the refusal's one-line form (behaviour.md §1.6) is the
    /// result's single text content, byte for byte, in an error result. Between verdicts, the
    /// one-line forms equal (an accept: the output, as at `exact`).
    Text,
}

impl Level {
    /// Every level, weakest first.
    pub const ALL: [Level; 4] = [Level::Verdict, Level::First, Level::Issues, Level::Exact];

    /// The levels a run over MCP can observe, weakest first: an MCP result shows whether the
    /// call was refused and its text, never the issues one by one.
    pub const MCP: [Level; 2] = [Level::Verdict, Level::Text];

    /// Every level by name, for reading reports.
    const NAMED: [Level; 5] = [
        Level::Verdict,
        Level::First,
        Level::Issues,
        Level::Exact,
        Level::Text,
    ];

    /// The level's name on the command line and in reports.
    pub const fn as_str(self) -> &'static str {
        match self {
            Level::Verdict => "verdict",
            Level::First => "first",
            Level::Issues => "issues",
            Level::Exact => "exact",
            Level::Text => "text",
        }
    }
}

impl fmt::Display for Level {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl serde::Serialize for Level {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> serde::Deserialize<'de> for Level {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Level, D::Error> {
        crate::json::ser::by_name(deserializer, &Level::NAMED, Level::as_str)
    }
}

impl FromStr for Level {
    type Err = String;

    fn from_str(s: &str) -> Result<Level, String> {
        Level::NAMED
            .into_iter()
            .find(|l| l.as_str() == s)
            .ok_or_else(|| {
                format!(
                    "unknown level {s:?}: expected verdict, first, issues or exact (over MCP: verdict or text)"
                )
            })
    }
}

/// Whether `received` matches `expected` at `level`.
pub fn matches(expected: &Verdict, received: &Verdict, level: Level) -> bool {
    match (expected, received) {
        (Verdict::Accept(e), Verdict::Accept(r)) => level < Level::Exact || e.same_as(r),
        (Verdict::Reject(e), Verdict::Reject(r)) => match level {
            Level::Verdict => true,
            Level::First => e.first().map(code_and_path) == r.first().map(code_and_path),
            Level::Issues => {
                e.len() == r.len()
                    && e.iter()
                        .zip(r)
                        .all(|(a, b)| code_and_path(a) == code_and_path(b))
            }
            Level::Exact => e == r,
            Level::Text => one_line(e) == one_line(r),
        },
        (Verdict::Accept(_), Verdict::Reject(_)) | (Verdict::Reject(_), Verdict::Accept(_)) => {
            false
        }
    }
}

/// What an MCP server returned for one `tools/call` (a result, not a JSON-RPC error).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ToolResult {
    /// The result's `isError` (absent is `false`).
    pub is_error: bool,
    /// Its content blocks, in order.
    pub content: Vec<Content>,
}

/// One content block of a [`ToolResult`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Content {
    /// A `text` block's text.
    Text(JsString),
    /// A block of another type (its `type`).
    Other(String),
}

impl ToolResult {
    /// The text, when the content is exactly one text block.
    pub fn single_text(&self) -> Option<&JsString> {
        match self.content.as_slice() {
            [Content::Text(text)] => Some(text),
            _ => None,
        }
    }

    /// The content as words: `content of N blocks (text, image, ...)`.
    pub fn blocks(&self) -> String {
        let kinds: Vec<&str> = self
            .content
            .iter()
            .map(|c| match c {
                Content::Text(_) => "text",
                Content::Other(kind) => kind.as_str(),
            })
            .collect();
        format!("content of {} blocks ({})", kinds.len(), kinds.join(", "))
    }

    /// The result as JSON: `{"isError": B, "content": [{"type": T, "text": S}, ...]}` (a block
    /// of another type without its data).
    pub fn to_json(&self) -> Json {
        let blocks = self.content.iter().map(|block| {
            let mut o = Object::new();
            match block {
                Content::Text(text) => {
                    o.insert("type", Json::str("text"));
                    o.insert("text", Json::String(text.clone()));
                }
                Content::Other(kind) => o.insert("type", Json::str(kind)),
            }
            Json::Object(o)
        });
        let mut o = Object::new();
        o.insert("isError", Json::Bool(self.is_error));
        o.insert("content", Json::Array(blocks.collect()));
        Json::Object(o)
    }
}

/// Whether an MCP result matches `expected` at `level`: at `verdict`, an error result for a
/// refusal and a plain one for an acceptance; at `text`, for a refusal also its one-line form
/// as the single text content. The other levels read issues one by one, which an MCP result
/// does not show: nothing matches there.
pub fn matches_mcp(expected: &Verdict, received: &ToolResult, level: Level) -> bool {
    let verdict = received.is_error != expected.is_accept();
    match (level, expected) {
        (Level::Verdict, _) => verdict,
        (Level::Text, Verdict::Reject(issues)) => {
            verdict && received.single_text() == Some(&one_line(issues))
        }
        (Level::Text, Verdict::Accept(_)) => verdict,
        (Level::First | Level::Issues | Level::Exact, _) => false,
    }
}

/// One line on how an MCP result differs from `expected`.
pub fn describe_mcp(expected: &Verdict, received: &ToolResult) -> String {
    let text = |s: &JsString| quoted(&Json::String(s.clone()).to_compact());
    let shown = match (received.single_text(), received.content.is_empty()) {
        (Some(t), _) => format!("the text {}", text(t)),
        (None, true) => "no content".to_owned(),
        (None, false) => received.blocks(),
    };
    let kind = match received.is_error {
        true => "an error result",
        false => "a result",
    };
    match expected {
        Verdict::Reject(issues) => format!(
            "expected an error result with the text {}, received {kind} with {shown}",
            text(&one_line(issues))
        ),
        Verdict::Accept(_) => {
            format!("expected a result, not an error, received {kind} with {shown}")
        }
    }
}

/// The strongest level at which `received` matches, if any.
pub(crate) fn strongest_match(expected: &Verdict, received: &Verdict) -> Option<Level> {
    Level::ALL
        .into_iter()
        .rev()
        .find(|&level| matches(expected, received, level))
}

/// One line on what differs, such as `expected reject at count, received accept`.
pub fn describe(expected: &Verdict, received: &Verdict) -> String {
    let side = |v: &Verdict| match v {
        Verdict::Accept(_) => "accept".to_owned(),
        Verdict::Reject(issues) => match issues.first() {
            Some(first) => format!("reject at {}", quoted(&first.path.to_string())),
            None => "reject".to_owned(),
        },
    };
    match (expected, received) {
        (Verdict::Reject(e), Verdict::Reject(r)) => {
            let position = e
                .iter()
                .zip(r)
                .position(|(a, b)| a != b)
                .unwrap_or(e.len().min(r.len()));
            match (e.get(position), r.get(position)) {
                (Some(a), Some(b)) => member_difference(position, a, b),
                (a, b) => {
                    let show = |issue: Option<&Issue>| {
                        issue.map_or("nothing".to_owned(), |i| {
                            format!(
                                "{} at {}: {}",
                                i.code,
                                quoted(&i.path.to_string()),
                                quoted(&i.message.to_string())
                            )
                        })
                    };
                    format!(
                        "issue {} differs: expected {}, received {}",
                        position + 1,
                        show(a),
                        show(b)
                    )
                }
            }
        }
        (Verdict::Accept(e), Verdict::Accept(r)) => match first_difference(e, r) {
            Some((at, expected, received)) => {
                let at = if at.is_empty() {
                    "(root)".to_owned()
                } else {
                    quoted(&at)
                };
                format!(
                    "accepted, but the output differs at {at}: expected {expected}, received {received}"
                )
            }
            None => "accepted with the expected output".to_owned(),
        },
        _ => format!("expected {}, received {}", side(expected), side(received)),
    }
}

/// Two issues at the same position that differ: the first member (in the order an issue is
/// written: `code`, `path`, `message`, `expected`, `received`) that differs, with both values,
/// so a difference in `received` alone is named rather than hidden behind two equal lines.
fn member_difference(position: usize, expected: &Issue, received: &Issue) -> String {
    let text = |s: &JsString| Json::String(s.clone()).to_compact();
    let optional = |s: &Option<JsString>| s.as_ref().map_or("absent".to_owned(), text);
    let members = [
        (
            "code",
            format!("\"{}\"", expected.code),
            format!("\"{}\"", received.code),
        ),
        ("path", text(&expected.path), text(&received.path)),
        ("message", text(&expected.message), text(&received.message)),
        (
            "expected",
            optional(&expected.expected),
            optional(&received.expected),
        ),
        (
            "received",
            optional(&expected.received),
            optional(&received.received),
        ),
    ];
    let (member, e, r) = members.into_iter().find(|(_, e, r)| e != r).unwrap_or((
        "(none)",
        String::new(),
        String::new(),
    ));
    format!(
        "issue {} ({} at {}) differs in {member}: expected {}, received {}",
        position + 1,
        expected.code,
        quoted(&expected.path.to_string()),
        quoted(&e),
        quoted(&r)
    )
}

/// The first place (a path such as `items[0].title`) where two outputs differ, with both values
/// there (`absent` where a member is missing). The walk keeps its own stack, so outputs of any
/// depth compare without recursion.
fn first_difference(expected: &Json, received: &Json) -> Option<(String, String, String)> {
    let show = |v: Option<&Json>| v.map_or("absent".to_owned(), |v| quoted(&v.to_compact()));
    // The path of the value being compared; each task keeps the length of its parent's path.
    let mut at = String::new();
    let mut tasks = vec![Task::Compare {
        expected: Some(expected),
        received: Some(received),
        parent: 0,
        step: String::new(),
    }];
    while let Some(task) = tasks.pop() {
        match task {
            Task::Compare {
                expected,
                received,
                parent,
                step,
            } => {
                at.truncate(parent);
                at.push_str(&step);
                let (Some(expected), Some(received)) = (expected, received) else {
                    return Some((at, show(expected), show(received)));
                };
                let here = at.len();
                // Pushed in reverse, so members and elements are compared in order, each whole
                // before the next, and the order or length last.
                match (expected, received) {
                    (Json::Object(e), Json::Object(r)) => {
                        tasks.push(Task::Order(e, r, here));
                        let names: Vec<&JsString> = e
                            .iter()
                            .map(|(k, _)| k)
                            .chain(r.iter().map(|(k, _)| k))
                            .collect();
                        for name in names.into_iter().rev() {
                            tasks.push(Task::Compare {
                                expected: member(e, name),
                                received: member(r, name),
                                parent: here,
                                step: if at.is_empty() {
                                    name.to_string()
                                } else {
                                    format!(".{name}")
                                },
                            });
                        }
                    }
                    (Json::Array(e), Json::Array(r)) => {
                        tasks.push(Task::Length(e.len(), r.len(), here));
                        for (i, (x, y)) in e.iter().zip(r).enumerate().rev() {
                            tasks.push(Task::Compare {
                                expected: Some(x),
                                received: Some(y),
                                parent: here,
                                step: format!("[{i}]"),
                            });
                        }
                    }
                    _ => {
                        if !expected.same_as(received) {
                            let (e, r) = (expected.to_compact(), received.to_compact());
                            return Some((at, quoted(&e), quoted(&r)));
                        }
                    }
                }
            }
            Task::Order(e, r, here) => {
                let (e_order, r_order): (Vec<_>, Vec<_>) = (
                    e.iter().map(|(k, _)| k).collect(),
                    r.iter().map(|(k, _)| k).collect(),
                );
                if e_order != r_order {
                    at.truncate(here);
                    return Some((at, order(&e_order), order(&r_order)));
                }
            }
            Task::Length(e, r, here) => {
                if e != r {
                    at.truncate(here);
                    return Some((at, format!("{e} elements"), format!("{r} elements")));
                }
            }
        }
    }
    None
}

/// One step of [`first_difference`].
enum Task<'a> {
    /// Compare two values (absent when a member is missing); their path is the parent's (its
    /// length) followed by `step`.
    Compare {
        expected: Option<&'a Json>,
        received: Option<&'a Json>,
        parent: usize,
        step: String,
    },
    /// After an object's members: the order of its names (the length of its path).
    Order(&'a Object, &'a Object, usize),
    /// After an array's elements: their counts (the length of its path).
    Length(usize, usize, usize),
}

fn member<'a>(object: &'a Object, name: &JsString) -> Option<&'a Json> {
    object.iter().find(|(k, _)| *k == name).map(|(_, v)| v)
}

fn order(names: &[&JsString]) -> String {
    format!(
        "members in the order {}",
        names
            .iter()
            .map(|n| n.to_string())
            .collect::<Vec<_>>()
            .join(", ")
    )
}

fn code_and_path(issue: &Issue) -> (vvoc_reference::Code, &JsString) {
    (issue.code, &issue.path)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn accept(text: &str) -> Verdict {
        Verdict::Accept(Json::parse(text).expect("JSON"))
    }

    #[test]
    fn an_output_difference_is_named_by_its_path() {
        let said = describe(
            &accept(r#"{"items":[{"title":"a"}]}"#),
            &accept(r#"{"items":[{"title":"b"}]}"#),
        );
        assert_eq!(
            said,
            r#"accepted, but the output differs at items[0].title: expected "a", received "b""#
        );
        let said = describe(
            &accept(r#"{"query":"q","count":8}"#),
            &accept(r#"{"query":"q"}"#),
        );
        assert_eq!(
            said,
            "accepted, but the output differs at count: expected 8, received absent"
        );
        let said = describe(&accept(r#"{"a":1,"b":2}"#), &accept(r#"{"b":2,"a":1}"#));
        assert_eq!(
            said,
            "accepted, but the output differs at (root): expected members in the order a, b, received members in the order b, a"
        );
    }

    #[test]
    fn outputs_of_any_depth_are_compared_on_a_small_stack() {
        std::thread::Builder::new()
            .stack_size(256 * 1024)
            .spawn(|| {
                let depth = 100_000;
                let deep = |inner: &str| {
                    format!(
                        r#"{{"a":{}{inner}{}}}"#,
                        "[".repeat(depth),
                        "]".repeat(depth)
                    )
                };
                let said = describe(&accept(&deep("1,2")), &accept(&deep("1,3")));
                // The path is a one-line reason's quote, cut.
                let at = quoted(&format!("a{}[1]", "[0]".repeat(depth - 1)));
                assert_eq!(
                    said,
                    format!("accepted, but the output differs at {at}: expected 2, received 3")
                );
                let said = describe(&accept(&deep("1")), &accept(&deep("1,2")));
                assert!(
                    said.ends_with(" more characters): expected 1 elements, received 2 elements")
                );
                let said = describe(&accept(&deep("1")), &accept(&deep("1")));
                assert_eq!(said, "accepted with the expected output");
            })
            .expect("a thread")
            .join()
            .expect("compared on a small stack");
    }

    #[test]
    fn an_issue_difference_names_the_member_that_differs() {
        let issue = |message: &str, received: Option<&str>| Issue {
            code: vvoc_reference::Code::TooBig,
            path: "count".into(),
            message: message.into(),
            expected: None,
            received: received.map(Into::into),
        };
        let e = Verdict::Reject(vec![issue("m", Some("Infinity"))]);
        let r = Verdict::Reject(vec![issue("m", None)]);
        assert_eq!(
            describe(&e, &r),
            r#"issue 1 (too_big at count) differs in received: expected "Infinity", received absent"#
        );
        let r = Verdict::Reject(vec![issue("n", Some("Infinity"))]);
        assert_eq!(
            describe(&e, &r),
            r#"issue 1 (too_big at count) differs in message: expected "m", received "n""#
        );
        let r = Verdict::Reject(vec![issue("m", Some("Infinity")), issue("m", None)]);
        assert_eq!(
            describe(&e, &r),
            "issue 2 differs: expected nothing, received too_big at count: m"
        );
    }

    #[test]
    fn a_verdict_difference_names_the_first_issue() {
        let reject = Verdict::Reject(vec![Issue {
            code: vvoc_reference::Code::TooSmall,
            path: "count".into(),
            message: "m".into(),
            expected: None,
            received: None,
        }]);
        assert_eq!(
            describe(&reject, &accept("{}")),
            "expected reject at count, received accept"
        );
        assert_eq!(
            describe(&accept("{}"), &reject),
            "expected accept, received reject at count"
        );
    }
}
