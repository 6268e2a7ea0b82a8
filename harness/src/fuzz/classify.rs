//! Classes of disagreement: the tool, the path where the answers first differ (indexes as `[*]`,
//! member names the tool does not declare as `?`), and the kind of difference. A finding and its
//! shrunk input belong to the same class.

use std::collections::BTreeSet;
use std::fmt;

use vvoc_reference::catalog::{Node, Tool};
use vvoc_reference::{Issue, JsString, Json, Object, Verdict};

use crate::compare::{Level, matches};
use crate::outcome::Answer;

/// A class of disagreement.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Class {
    /// The tool.
    pub tool: Tool,
    /// Where the answers first differ, as a pattern (`items[*].title`, `(root)`).
    pub pattern: String,
    /// How they differ.
    pub kind: Kind,
}

impl fmt::Display for Class {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {} {}", self.tool, self.pattern, self.kind)
    }
}

/// How two answers differ; "expected" is the reference's (or `--against`'s) answer, "received"
/// the peer's.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Kind {
    /// Expected an acceptance, received a refusal.
    Refused,
    /// Expected a refusal, received an acceptance.
    Accepted,
    /// Both accept, with different normalized outputs.
    Output,
    /// The received refusal lacks an issue the expected one has.
    MissingIssue,
    /// The received refusal has an issue beyond the expected ones.
    ExtraIssue,
    /// The first differing issue differs in its code.
    Code,
    /// ... in its path.
    Path,
    /// ... in its message.
    Message,
    /// ... in its `expected` member.
    Expected,
    /// ... in its `received` member.
    Received,
    /// The peer gave no verdict.
    Failed(Failure),
    /// The `--against` peer gave no verdict.
    AgainstFailed(Failure),
}

/// An answer that is not a verdict.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Failure {
    /// An `error` answer.
    Error,
    /// No answer in time.
    Timeout,
    /// The peer died before answering.
    Crash,
    /// The answer broke the protocol.
    ProtocolError,
    /// The tool is not implemented.
    Unsupported,
}

impl Kind {
    /// The kind's name in summaries and reports.
    pub fn name(self) -> String {
        let failure = |f: Failure| match f {
            Failure::Error => "error",
            Failure::Timeout => "timeout",
            Failure::Crash => "crash",
            Failure::ProtocolError => "protocol-error",
            Failure::Unsupported => "unsupported",
        };
        match self {
            Kind::Refused => "refused".to_owned(),
            Kind::Accepted => "accepted".to_owned(),
            Kind::Output => "output".to_owned(),
            Kind::MissingIssue => "missing-issue".to_owned(),
            Kind::ExtraIssue => "extra-issue".to_owned(),
            Kind::Code => "code".to_owned(),
            Kind::Path => "path".to_owned(),
            Kind::Message => "message".to_owned(),
            Kind::Expected => "expected".to_owned(),
            Kind::Received => "received".to_owned(),
            Kind::Failed(f) => failure(f).to_owned(),
            Kind::AgainstFailed(f) => format!("against-{}", failure(f)),
        }
    }

    /// Whether a finding of this kind is shrunk: not when reproducing it costs a peer restart.
    pub fn shrinkable(self) -> bool {
        match self {
            Kind::Failed(f) | Kind::AgainstFailed(f) => matches!(f, Failure::Error),
            Kind::Refused
            | Kind::Accepted
            | Kind::Output
            | Kind::MissingIssue
            | Kind::ExtraIssue
            | Kind::Code
            | Kind::Path
            | Kind::Message
            | Kind::Expected
            | Kind::Received => true,
        }
    }
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name())
    }
}

/// Classifies the answers to one input of one tool.
#[derive(Debug)]
pub struct Classifier {
    /// The member names each tool declares, indexed by `Tool as usize`.
    declared: Vec<BTreeSet<&'static str>>,
}

impl Default for Classifier {
    fn default() -> Classifier {
        Classifier::new()
    }
}

impl Classifier {
    /// A classifier knowing every tool's declared names.
    pub fn new() -> Classifier {
        let declared = Tool::ALL
            .iter()
            .map(|tool| {
                let mut names = BTreeSet::new();
                for field in &tool.spec().fields {
                    names_below(&field.node, field.name, &mut names);
                }
                names
            })
            .collect();
        Classifier { declared }
    }

    /// The class of the disagreement between `expected` and `received` at `level`, or `None`
    /// when they agree.
    pub fn classify(
        &self,
        tool: Tool,
        expected: &Answer,
        received: &Answer,
        level: Level,
    ) -> Option<Class> {
        let (pattern, kind) = match (expected, received) {
            (Answer::Verdict(e), Answer::Verdict(r)) => {
                if matches(e, r, level) {
                    return None;
                }
                self.verdicts(tool, e, r, level)
            }
            (Answer::Verdict(_), other) => ("(root)".to_owned(), Kind::Failed(failure(other))),
            (other, _) => ("(root)".to_owned(), Kind::AgainstFailed(failure(other))),
        };
        Some(Class {
            tool,
            pattern,
            kind,
        })
    }

    fn verdicts(&self, tool: Tool, e: &Verdict, r: &Verdict, level: Level) -> (String, Kind) {
        let at = |issues: &[Issue], i: usize| {
            issues.get(i).map_or_else(
                || "(root)".to_owned(),
                |issue| self.pattern(tool, &issue.path),
            )
        };
        match (e, r) {
            (Verdict::Accept(_), Verdict::Reject(r)) => (at(r, 0), Kind::Refused),
            (Verdict::Reject(e), Verdict::Accept(_)) => (at(e, 0), Kind::Accepted),
            (Verdict::Accept(a), Verdict::Accept(b)) => {
                let mut pattern = String::new();
                self.output_difference(tool, a, b, &mut pattern);
                let pattern = match pattern.is_empty() {
                    true => "(root)".to_owned(),
                    false => pattern,
                };
                (pattern, Kind::Output)
            }
            (Verdict::Reject(e), Verdict::Reject(r)) => {
                let same = |a: &Issue, b: &Issue| match level {
                    Level::Exact => a == b,
                    Level::Verdict | Level::First | Level::Issues => {
                        a.code == b.code && a.path == b.path
                    }
                };
                let position = e
                    .iter()
                    .zip(r)
                    .position(|(a, b)| !same(a, b))
                    .unwrap_or(e.len().min(r.len()));
                match (e.get(position), r.get(position)) {
                    (Some(a), Some(b)) => (at(e, position), member_kind(a, b)),
                    (Some(_), None) => (at(e, position), Kind::MissingIssue),
                    (None, _) => (at(r, position), Kind::ExtraIssue),
                }
            }
        }
    }

    /// An issue path as a pattern: `[n]` as `[*]`, names the tool does not declare as `?`.
    pub fn pattern(&self, tool: Tool, path: &JsString) -> String {
        if path.eq_str("(root)") {
            return "(root)".to_owned();
        }
        let text = path.to_string_lossy();
        let mut out = String::new();
        let mut name = String::new();
        let mut chars = text.chars().peekable();
        let mut pending = false;
        while let Some(c) = chars.next() {
            match c {
                '\\' => {
                    name.extend(chars.next());
                    pending = true;
                }
                '.' => {
                    self.push_name(tool, &mut out, &name, pending);
                    name.clear();
                    pending = true;
                }
                '[' => {
                    self.push_name(tool, &mut out, &name, pending);
                    name.clear();
                    pending = false;
                    for d in chars.by_ref() {
                        if d == ']' {
                            break;
                        }
                    }
                    out.push_str("[*]");
                }
                other => {
                    name.push(other);
                    pending = true;
                }
            }
        }
        self.push_name(tool, &mut out, &name, pending);
        match out.is_empty() {
            true => "(root)".to_owned(),
            false => out,
        }
    }

    fn push_name(&self, tool: Tool, out: &mut String, name: &str, pending: bool) {
        if !pending {
            return;
        }
        if !out.is_empty() {
            out.push('.');
        }
        match self.declared[tool as usize].contains(name) {
            true => out.push_str(name),
            false => out.push('?'),
        }
    }

    /// The pattern of the first place where two outputs differ (empty: the root).
    fn output_difference(&self, tool: Tool, a: &Json, b: &Json, at: &mut String) -> bool {
        match (a, b) {
            (Json::Object(x), Json::Object(y)) => {
                for (name, value) in x.iter() {
                    let len = at.len();
                    let mut here = String::new();
                    self.push_name(tool, &mut here, &name.to_string_lossy(), true);
                    if !at.is_empty() {
                        at.push('.');
                    }
                    at.push_str(&here);
                    match member(y, name) {
                        Some(other) => {
                            if self.output_difference(tool, value, other, at) {
                                return true;
                            }
                        }
                        None => return true,
                    }
                    at.truncate(len);
                }
                if let Some((name, _)) = y.iter().find(|(name, _)| member(x, name).is_none()) {
                    if !at.is_empty() {
                        at.push('.');
                    }
                    let mut here = String::new();
                    self.push_name(tool, &mut here, &name.to_string_lossy(), true);
                    at.push_str(&here);
                    return true;
                }
                // The same members in another order: the object itself differs.
                !a.same_as(b)
            }
            (Json::Array(x), Json::Array(y)) => {
                let len = at.len();
                at.push_str("[*]");
                for (p, q) in x.iter().zip(y) {
                    if self.output_difference(tool, p, q, at) {
                        return true;
                    }
                }
                at.truncate(len);
                x.len() != y.len()
            }
            _ => !a.same_as(b),
        }
    }
}

/// Which member of two different issues differs first.
fn member_kind(a: &Issue, b: &Issue) -> Kind {
    if a.code != b.code {
        Kind::Code
    } else if a.path != b.path {
        Kind::Path
    } else if a.message != b.message {
        Kind::Message
    } else if a.expected != b.expected {
        Kind::Expected
    } else {
        Kind::Received
    }
}

fn failure(answer: &Answer) -> Failure {
    match answer {
        Answer::Error(_) => Failure::Error,
        Answer::Timeout => Failure::Timeout,
        Answer::Crash(_) => Failure::Crash,
        Answer::ProtocolError(_) => Failure::ProtocolError,
        Answer::Unsupported | Answer::Verdict(_) => Failure::Unsupported,
    }
}

fn member<'a>(object: &'a Object, name: &JsString) -> Option<&'a Json> {
    object.iter().find(|(k, _)| *k == name).map(|(_, v)| v)
}

fn names_below(node: &Node, name: &'static str, names: &mut BTreeSet<&'static str>) {
    names.insert(name);
    match node {
        Node::Object(fields) => fields
            .iter()
            .for_each(|f| names_below(&f.node, f.name, names)),
        Node::Array(element, _) => names_below(element, name, names),
        Node::Union(branches) => branches.iter().for_each(|b| names_below(b, name, names)),
        Node::String(_)
        | Node::Integer(_)
        | Node::Number(_)
        | Node::Boolean
        | Node::Enum(_)
        | Node::Literal(_)
        | Node::Null => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use vvoc_reference::Code;

    fn issue(code: Code, path: &str, message: &str) -> Issue {
        Issue {
            code,
            path: path.into(),
            message: message.into(),
            expected: None,
            received: None,
        }
    }

    fn accept(text: &str) -> Answer {
        Answer::Verdict(Verdict::Accept(Json::parse(text).expect("JSON")))
    }

    fn reject(issues: Vec<Issue>) -> Answer {
        Answer::Verdict(Verdict::Reject(issues))
    }

    #[test]
    fn indexes_become_stars_and_undeclared_names_question_marks() {
        let c = Classifier::new();
        let path = JsString::from("items[12].writeScope[0]");
        assert_eq!(
            c.pattern(Tool::WorkItemOpen, &path),
            "items[*].writeScope[*]"
        );
        let path = JsString::from("items[0].ty\\.po");
        assert_eq!(c.pattern(Tool::WorkItemOpen, &path), "items[*].?");
        let root = JsString::from("(root)");
        assert_eq!(c.pattern(Tool::WebSearch, &root), "(root)");
        assert_eq!(c.pattern(Tool::WebSearch, &JsString::from("")), "(root)");
    }

    #[test]
    fn agreeing_answers_have_no_class_and_a_flipped_verdict_is_named_by_the_refusal() {
        let c = Classifier::new();
        let refusal = reject(vec![issue(Code::TooBig, "count", "Too big")]);
        let ok = accept(r#"{"query":"q","count":21}"#);
        assert_eq!(c.classify(Tool::WebSearch, &ok, &ok, Level::Exact), None);
        let class = c.classify(Tool::WebSearch, &refusal, &ok, Level::Exact);
        assert_eq!(
            class.map(|c| c.to_string()),
            Some("web_search count accepted".to_owned())
        );
        let class = c.classify(Tool::WebSearch, &ok, &refusal, Level::Exact);
        assert_eq!(class.map(|c| c.kind), Some(Kind::Refused));
    }

    #[test]
    fn the_first_differing_issue_names_the_member_that_differs() {
        let c = Classifier::new();
        let a = reject(vec![
            issue(Code::TooBig, "count", "Too big: <=20"),
            issue(Code::InvalidValue, "freshness", "x"),
        ]);
        let wrong_message = reject(vec![
            issue(Code::TooBig, "count", "Too big: <20"),
            issue(Code::InvalidValue, "freshness", "x"),
        ]);
        let short = reject(vec![issue(Code::TooBig, "count", "Too big: <=20")]);
        let class = |r: &Answer, level| c.classify(Tool::WebSearch, &a, r, level);
        assert_eq!(
            class(&wrong_message, Level::Exact).map(|c| (c.pattern, c.kind)),
            Some(("count".to_owned(), Kind::Message))
        );
        assert_eq!(class(&wrong_message, Level::Issues), None);
        assert_eq!(
            class(&short, Level::Exact).map(|c| (c.pattern, c.kind)),
            Some(("freshness".to_owned(), Kind::MissingIssue))
        );
        assert_eq!(class(&short, Level::First), None);
    }

    #[test]
    fn an_output_difference_is_named_by_its_place_and_a_silent_peer_by_its_failure() {
        let c = Classifier::new();
        let a = accept(r#"{"workItemId":"a"}"#);
        let b = accept(r#"{"workItemId":" a"}"#);
        let class = c.classify(Tool::WorkItemClose, &a, &b, Level::Exact);
        assert_eq!(
            class.map(|c| c.to_string()),
            Some("work_item_close workItemId output".to_owned())
        );
        let items = |t: &str| accept(&format!(r#"{{"items":[{{"title":"{t}"}}]}}"#));
        let class = c.classify(Tool::WorkItemOpen, &items("a"), &items("b"), Level::Exact);
        assert_eq!(class.map(|c| c.pattern), Some("items[*].title".to_owned()));
        let crash = Answer::Crash("gone".to_owned());
        let class = c.classify(Tool::WebSearch, &a, &crash, Level::Verdict);
        assert_eq!(class.map(|c| c.kind.name()), Some("crash".to_owned()));
        let class = c.classify(Tool::WebSearch, &crash, &a, Level::Verdict);
        assert_eq!(
            class.map(|c| c.kind.name()),
            Some("against-crash".to_owned())
        );
    }
}
