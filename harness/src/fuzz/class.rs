//! Classes of disagreement: the tool, the rule whose issue differs (or the output member, or the
//! root for an answer that is no verdict), and how it differs. One bug is one class, whatever
//! other fields the inputs that show it happen to have.

use std::fmt;

use vvoc_reference::{RuleId, Tool};

use crate::outcome::Failure;

/// A class of disagreement.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Class {
    /// The tool.
    pub tool: Tool,
    /// Where the answers differ, as a pattern of the inventory's grammar (`items[].title`,
    /// `(root)`; member names the tool does not declare as `?`): the differing issue's path, or
    /// the first output member that differs.
    pub pattern: String,
    /// The rule whose issue differs, when the reference knows one that emits it.
    pub rule: Option<RuleId>,
    /// How the answers differ.
    pub kind: Kind,
}

impl Class {
    /// The class's place in summaries and vector ids: the rule's id without its tool
    /// (`query:min-length`, `branch:matrix-view`), else the pattern.
    pub fn place(&self) -> String {
        match &self.rule {
            Some(rule) => {
                let id = rule.to_string();
                let prefix = format!("{}:", self.tool.id());
                id.strip_prefix(&prefix).map_or(id.clone(), str::to_owned)
            }
            None => self.pattern.clone(),
        }
    }
}

impl fmt::Display for Class {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {} {}", self.tool, self.place(), self.kind)
    }
}

/// How two answers differ; "expected" is the reference's (or `--against`'s) answer, "received"
/// the peer's.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Kind {
    /// The peer refuses by an issue the expected answer does not have (whether or not the
    /// expected answer refuses for another reason).
    Refused,
    /// The peer lacks an issue of the expected refusal (whether or not it refuses for another
    /// reason).
    Accepted,
    /// Both accept, with different normalized outputs.
    Output,
    /// Both have an issue at one place (or with one message); they differ in its code.
    Code,
    /// ... in its path.
    Path,
    /// ... in its message.
    Message,
    /// ... in its `expected` member.
    Expected,
    /// ... in its `received` member.
    Received,
    /// Both have the same issues, in another order.
    Order,
    /// An MCP server refused, but the text of its error result differs from the one-line form
    /// of the expected refusal from this issue on (or it is no single text).
    Text,
    /// The peer gave no verdict: how it failed (without the failure's text).
    Failed(Failure),
    /// The `--against` peer gave no verdict.
    AgainstFailed(Failure),
    /// The peer does not implement the tool.
    Unsupported,
    /// The `--against` peer does not implement the tool.
    AgainstUnsupported,
}

impl Kind {
    /// The kind's name in summaries and reports.
    pub fn name(&self) -> String {
        match self {
            Kind::Refused => "refused".to_owned(),
            Kind::Accepted => "accepted".to_owned(),
            Kind::Output => "output".to_owned(),
            Kind::Code => "code".to_owned(),
            Kind::Path => "path".to_owned(),
            Kind::Message => "message".to_owned(),
            Kind::Expected => "expected".to_owned(),
            Kind::Received => "received".to_owned(),
            Kind::Order => "order".to_owned(),
            Kind::Text => "text".to_owned(),
            Kind::Failed(f) => f.outcome().as_str().to_owned(),
            Kind::AgainstFailed(f) => format!("against-{}", f.outcome()),
            Kind::Unsupported => "unsupported".to_owned(),
            Kind::AgainstUnsupported => "against-unsupported".to_owned(),
        }
    }

    /// Whether a finding of this kind is shrunk: not when reproducing it costs a peer restart,
    /// nor when a side has no answers to shrink by.
    pub fn shrinkable(&self) -> bool {
        match self {
            Kind::Failed(f) | Kind::AgainstFailed(f) => !f.breaks_process(),
            Kind::Unsupported | Kind::AgainstUnsupported => false,
            Kind::Refused
            | Kind::Accepted
            | Kind::Output
            | Kind::Code
            | Kind::Path
            | Kind::Message
            | Kind::Expected
            | Kind::Received
            | Kind::Order
            | Kind::Text => true,
        }
    }
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use vvoc_reference::Check;

    #[test]
    fn a_class_is_shown_by_its_rule_without_the_tool_else_by_its_pattern() {
        let rule = RuleId::Structural {
            tool: Tool::WebSearch,
            pattern: "query".to_owned(),
            check: Check::MinLength,
        };
        let named = Class {
            tool: Tool::WebSearch,
            pattern: "query".to_owned(),
            rule: Some(rule),
            kind: Kind::Refused,
        };
        assert_eq!(named.to_string(), "web_search query:min-length refused");
        let unnamed = Class {
            rule: None,
            kind: Kind::Failed(Failure::ProtocolError(String::new())),
            ..named
        };
        assert_eq!(unnamed.to_string(), "web_search query protocol-error");
        assert_eq!(
            Kind::AgainstFailed(Failure::Timeout).name(),
            "against-timeout"
        );
        assert_eq!(Kind::AgainstUnsupported.name(), "against-unsupported");
        assert!(!Kind::Failed(Failure::Crash(String::new())).shrinkable());
        assert!(Kind::Failed(Failure::Error(String::new())).shrinkable());
        assert!(Kind::Order.shrinkable());
    }
}
