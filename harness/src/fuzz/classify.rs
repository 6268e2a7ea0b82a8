//! Classifying a disagreement: the issue that differs (looked for on both sides, so the other
//! issues an input earns do not move it) named by its rule, the output member that differs, or
//! the failure of a side that gave no verdict.

use std::collections::BTreeSet;

use vvoc_reference::catalog::{Node, Tool};
use vvoc_reference::rule::Pattern;
use vvoc_reference::{Issue, JsString, Json, Object, Verdict, one_line, validate_traced};

use crate::compare::{Level, ToolResult, matches, matches_mcp};
use crate::fuzz::align::{Difference, Member, difference};
use crate::fuzz::class::{Class, Kind};
use crate::fuzz::names::RuleNames;
use crate::outcome::{Answer, Failure};

/// Classifies the answers to one input of one tool.
#[derive(Debug)]
pub struct Classifier {
    /// The member names each tool declares, indexed by `Tool as usize`.
    declared: Vec<BTreeSet<&'static str>>,
    /// The rules behind issues, learnt from the vectors.
    names: RuleNames,
}

impl Classifier {
    /// A classifier knowing every tool's declared names and the rules the reference names for
    /// the issues of `vectors` (each input with its tool).
    pub fn new(vectors: &[(Tool, Json)]) -> Classifier {
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
        Classifier {
            declared,
            names: RuleNames::learn(vectors),
        }
    }

    /// The class of the disagreement between `expected` and `received` on `input` at `level`,
    /// or `None` when they agree.
    pub fn classify(
        &self,
        tool: Tool,
        input: &Json,
        expected: &Answer,
        received: &Answer,
        level: Level,
    ) -> Option<Class> {
        match (expected, received) {
            (Answer::Verdict(e), Answer::Verdict(r)) => {
                if matches(e, r, level) {
                    return None;
                }
                Some(self.verdicts(tool, input, e, r, level))
            }
            // Not sent to an MCP server (the reference accepts it, or it is no object).
            (Answer::Verdict(_), Answer::NotObservable(_)) => None,
            (Answer::Verdict(e), Answer::Mcp(r)) => match matches_mcp(e, r, level) {
                true => None,
                false => Some(self.mcp(tool, input, e, r)),
            },
            (Answer::Verdict(_), other) => {
                let kind = silent(other, Kind::Failed, Kind::Unsupported);
                Some(at_root(tool, kind))
            }
            (other, _) => {
                let kind = silent(other, Kind::AgainstFailed, Kind::AgainstUnsupported);
                Some(at_root(tool, kind))
            }
        }
    }

    /// The class of an MCP result that differs from the expected verdict: a refusal answered
    /// by a plain result is `accepted` at the refusal's first issue; an error result whose
    /// text differs is `text` at the first issue whose part of the one-line form the text does
    /// not carry, or at the root when it carries the whole form and more; an error result to an
    /// accepted input (never sent) is `refused` at the root.
    fn mcp(&self, tool: Tool, input: &Json, expected: &Verdict, received: &ToolResult) -> Class {
        let issues = match expected {
            Verdict::Reject(issues) => issues,
            Verdict::Accept(_) => return at_root(tool, Kind::Refused),
        };
        let text = received.single_text().map(JsString::units).unwrap_or(&[]);
        let (differing, kind) = match received.is_error {
            false => (issues.first(), Kind::Accepted),
            true => {
                let carried = |n: &usize| text.starts_with(one_line(&issues[..=*n]).units());
                let first = (0..issues.len()).find(|n| !carried(n));
                (first.map(|n| &issues[n]), Kind::Text)
            }
        };
        match differing {
            Some(issue) => self.by_issue(tool, input, issue, kind),
            None => at_root(tool, kind),
        }
    }

    /// An issue path as a pattern: `[n]` as `[]`, names the tool does not declare as `?`.
    pub fn pattern(&self, tool: Tool, path: &JsString) -> String {
        let declared = &self.declared[tool as usize];
        let text = path.to_string_lossy();
        Pattern::of_issue_path(&text, |name| match declared.contains(name) {
            true => name,
            false => "?",
        })
        .into_string()
    }

    fn verdicts(&self, tool: Tool, input: &Json, e: &Verdict, r: &Verdict, level: Level) -> Class {
        let (issues_e, issues_r) = match (e, r) {
            (Verdict::Accept(a), Verdict::Accept(b)) => {
                let mut pattern = Pattern::root();
                self.output_difference(tool, a, b, &mut pattern);
                return Class {
                    tool,
                    pattern: pattern.into_string(),
                    rule: None,
                    kind: Kind::Output,
                };
            }
            (Verdict::Accept(_), Verdict::Reject(r)) => (&[][..], &r[..]),
            (Verdict::Reject(e), Verdict::Accept(_)) => (&e[..], &[][..]),
            (Verdict::Reject(e), Verdict::Reject(r)) => (&e[..], &r[..]),
        };
        let (issue, kind) = match difference(issues_e, issues_r, level) {
            Some(Difference::Missing(issue)) => (issue, Kind::Accepted),
            Some(Difference::Extra(issue)) => (issue, Kind::Refused),
            Some(Difference::Member(issue, member)) => (issue, member_kind(member)),
            Some(Difference::Order(issue)) => (issue, Kind::Order),
            // The verdicts differ at the level, so some issue differs; this is never reached.
            None => return at_root(tool, Kind::Order),
        };
        self.by_issue(tool, input, issue, kind)
    }

    /// The class of an issue that differs: its place and its rule.
    fn by_issue(&self, tool: Tool, input: &Json, issue: &Issue, kind: Kind) -> Class {
        let (_, traced) = validate_traced(tool, input);
        Class {
            tool,
            pattern: self.pattern(tool, &issue.path),
            rule: self.names.rule(tool, issue, &traced),
            kind,
        }
    }

    /// Moves `at` to the first place where two outputs differ (the root when they differ as a
    /// whole), and says whether they differ.
    fn output_difference(&self, tool: Tool, a: &Json, b: &Json, at: &mut Pattern) -> bool {
        match (a, b) {
            (Json::Object(x), Json::Object(y)) => {
                for (name, value) in x.iter() {
                    let here = self.field(tool, at, name);
                    match member(y, name) {
                        Some(other) => {
                            let mut below = here;
                            if self.output_difference(tool, value, other, &mut below) {
                                *at = below;
                                return true;
                            }
                        }
                        None => {
                            *at = here;
                            return true;
                        }
                    }
                }
                if let Some((name, _)) = y.iter().find(|(name, _)| member(x, name).is_none()) {
                    *at = self.field(tool, at, name);
                    return true;
                }
                // The same members in another order: the object itself differs.
                !a.same_as(b)
            }
            (Json::Array(x), Json::Array(y)) => {
                let mut element = at.element();
                for (p, q) in x.iter().zip(y) {
                    if self.output_difference(tool, p, q, &mut element) {
                        *at = element;
                        return true;
                    }
                    element = at.element();
                }
                x.len() != y.len()
            }
            _ => !a.same_as(b),
        }
    }

    /// The pattern of member `name` below `at`, `?` when the tool does not declare it.
    fn field(&self, tool: Tool, at: &Pattern, name: &JsString) -> Pattern {
        let name = name.to_string_lossy();
        match self.declared[tool as usize].contains(name.as_str()) {
            true => at.field(&name),
            false => at.field("?"),
        }
    }
}

/// A class at the root: an answer that is no verdict.
fn at_root(tool: Tool, kind: Kind) -> Class {
    Class {
        tool,
        pattern: Pattern::ROOT.to_owned(),
        rule: None,
        kind,
    }
}

fn member_kind(member: Member) -> Kind {
    match member {
        Member::Code => Kind::Code,
        Member::Path => Kind::Path,
        Member::Message => Kind::Message,
        Member::Expected => Kind::Expected,
        Member::Received => Kind::Received,
    }
}

/// The kind of a side's answer that is no verdict (the failure without its text: one class
/// whatever each failure said).
fn silent(answer: &Answer, failed: fn(Failure) -> Kind, unsupported: Kind) -> Kind {
    match answer {
        Answer::Failed(failure) => failed(failure.without_text()),
        Answer::Verdict(_) | Answer::Mcp(_) | Answer::Unsupported | Answer::NotObservable(_) => {
            unsupported
        }
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
    use vvoc_reference::{Check, Code, RuleId};

    fn issue(code: Code, path: &str, message: &str) -> Issue {
        Issue {
            code,
            path: path.into(),
            message: message.into(),
            expected: None,
            received: None,
        }
    }

    fn parse(text: &str) -> Json {
        Json::parse(text).expect("JSON")
    }

    fn accept(text: &str) -> Answer {
        Answer::Verdict(Verdict::Accept(parse(text)))
    }

    fn reject(issues: Vec<Issue>) -> Answer {
        Answer::Verdict(Verdict::Reject(issues))
    }

    /// The reference's answer to an input of `web_search`, and the input.
    fn reference(text: &str) -> (Json, Answer) {
        let input = parse(text);
        let verdict = vvoc_reference::validate_json(Tool::WebSearch, &input);
        (input, Answer::Verdict(verdict))
    }

    #[test]
    fn indexes_become_elements_and_undeclared_names_question_marks() {
        let c = Classifier::new(&[]);
        let path = JsString::from("items[12].writeScope[0]");
        assert_eq!(c.pattern(Tool::WorkItemOpen, &path), "items[].writeScope[]");
        let path = JsString::from("items[0].ty\\.po");
        assert_eq!(c.pattern(Tool::WorkItemOpen, &path), "items[].?");
        let root = JsString::from("(root)");
        assert_eq!(c.pattern(Tool::WebSearch, &root), "(root)");
    }

    #[test]
    fn agreeing_answers_have_no_class_and_a_missing_refusal_is_named_by_its_rule() {
        let c = Classifier::new(&[]);
        let (input, refusal) = reference(r#"{"query":"q","count":21}"#);
        let ok = accept(r#"{"query":"q","count":21}"#);
        assert_eq!(
            c.classify(Tool::WebSearch, &input, &ok, &ok, Level::Exact),
            None
        );
        let class = c.classify(Tool::WebSearch, &input, &refusal, &ok, Level::Exact);
        assert_eq!(
            class.map(|c| c.to_string()),
            Some("web_search count:maximum accepted".to_owned())
        );
    }

    #[test]
    fn an_extra_issue_is_one_class_whatever_other_issues_the_input_earns() {
        let vectors = [(Tool::WebSearch, parse(r#"{"query":""}"#))];
        let c = Classifier::new(&vectors);
        let blank = issue(
            Code::TooSmall,
            "query",
            "Too small: expected string to have >=1 characters",
        );
        let mut classes = BTreeSet::new();
        for text in [
            r#"{"query":" "}"#,
            r#"{"query":" ","count":21}"#,
            r#"{"query":" ","freshness":0}"#,
            r#"{"query":" ","typo":1}"#,
        ] {
            let (input, expected) = reference(text);
            let mut received = match &expected {
                Answer::Verdict(Verdict::Reject(issues)) => issues.clone(),
                _ => Vec::new(),
            };
            received.insert(0, blank.clone());
            let class = c.classify(
                Tool::WebSearch,
                &input,
                &expected,
                &reject(received),
                Level::Exact,
            );
            classes.insert(class.map(|c| c.to_string()));
        }
        let one: BTreeSet<_> = [Some("web_search query:min-length refused".to_owned())].into();
        assert_eq!(classes, one);
    }

    #[test]
    fn an_issue_that_differs_in_a_member_is_named_by_the_expected_rule_and_the_member() {
        let c = Classifier::new(&[]);
        let (input, expected) = reference(r#"{"query":"q","count":21,"freshness":"x"}"#);
        let issues = match &expected {
            Answer::Verdict(Verdict::Reject(issues)) => Some(issues),
            _ => None,
        };
        let issues = issues.expect("the reference refuses a count of 21");
        let mut worded = issues.clone();
        worded[0].message = "Too big: <20".into();
        let class = c.classify(
            Tool::WebSearch,
            &input,
            &expected,
            &reject(worded),
            Level::Exact,
        );
        let rule = RuleId::Structural {
            tool: Tool::WebSearch,
            pattern: "count".to_owned(),
            check: Check::Maximum,
        };
        assert_eq!(
            class.map(|c| (c.pattern, c.rule, c.kind)),
            Some(("count".to_owned(), Some(rule), Kind::Message))
        );
        let mut short = issues.clone();
        short.pop();
        let class = c.classify(
            Tool::WebSearch,
            &input,
            &expected,
            &reject(short.clone()),
            Level::Exact,
        );
        assert_eq!(class.map(|c| c.place()), Some("freshness:enum".to_owned()));
        assert_eq!(
            c.classify(
                Tool::WebSearch,
                &input,
                &expected,
                &reject(short),
                Level::First
            ),
            None
        );
    }

    #[test]
    fn an_output_difference_is_named_by_its_place_and_a_silent_peer_by_its_failure() {
        let c = Classifier::new(&[]);
        let input = parse("{}");
        let a = accept(r#"{"workItemId":"a"}"#);
        let b = accept(r#"{"workItemId":" a"}"#);
        let class = c.classify(Tool::WorkItemClose, &input, &a, &b, Level::Exact);
        assert_eq!(
            class.map(|c| c.to_string()),
            Some("work_item_close workItemId output".to_owned())
        );
        let items = |t: &str| accept(&format!(r#"{{"items":[{{"title":"{t}"}}]}}"#));
        let class = c.classify(
            Tool::WorkItemOpen,
            &input,
            &items("a"),
            &items("b"),
            Level::Exact,
        );
        assert_eq!(class.map(|c| c.pattern), Some("items[].title".to_owned()));
        let extra = accept(r#"{"workItemId":"a","typo":1}"#);
        let class = c.classify(Tool::WorkItemClose, &input, &a, &extra, Level::Exact);
        assert_eq!(class.map(|c| c.pattern), Some("?".to_owned()));
        let crash = Answer::Failed(Failure::Crash("gone".to_owned()));
        let class = c.classify(Tool::WebSearch, &input, &a, &crash, Level::Verdict);
        assert_eq!(
            class.map(|c| c.to_string()),
            Some("web_search (root) crash".to_owned())
        );
        let class = c.classify(Tool::WebSearch, &input, &crash, &a, Level::Verdict);
        assert_eq!(
            class.map(|c| c.kind.name()),
            Some("against-crash".to_owned())
        );
    }

    #[test]
    fn an_mcp_result_is_classed_by_the_first_issue_its_text_lacks_or_at_the_root() {
        use crate::compare::Content;
        let c = Classifier::new(&[]);
        let (input, expected) = reference(r#"{"count":21}"#);
        let issues = match &expected {
            Answer::Verdict(Verdict::Reject(issues)) => issues.clone(),
            _ => Vec::new(),
        };
        let result = |is_error: bool, text: JsString| {
            Answer::Mcp(ToolResult {
                is_error,
                content: vec![Content::Text(text)],
            })
        };
        let class = |received: &Answer, level| {
            c.classify(Tool::WebSearch, &input, &expected, received, level)
                .map(|c| c.to_string())
        };
        let exact = result(true, one_line(&issues));
        assert_eq!(class(&exact, Level::Text), None);
        let first = result(true, one_line(&issues[..1]));
        assert_eq!(
            class(&first, Level::Text),
            Some("web_search count:maximum text".to_owned())
        );
        assert_eq!(class(&first, Level::Verdict), None);
        let mut longer = one_line(&issues);
        longer.push_str(" (planted)");
        assert_eq!(
            class(&result(true, longer), Level::Text),
            Some("web_search (root) text".to_owned())
        );
        let plain = result(false, JsString::from("searched"));
        assert_eq!(
            class(&plain, Level::Verdict),
            Some("web_search query:required accepted".to_owned())
        );
        let unsent = Answer::NotObservable("accepted".to_owned());
        assert_eq!(class(&unsent, Level::Text), None);
    }
}
