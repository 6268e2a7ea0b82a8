//! The issue collector: keeps the first eight issues with their rules, and what unions need to know.

use crate::catalog::Tool;
use crate::issue::{Code, Issue, MAX_ISSUES, MAX_MESSAGE};
use crate::js_string::JsString;
use crate::js_text::js_static;
use crate::path::Path;
use crate::rule::{BranchRule, Check, RuleId};
use crate::text::truncate;

/// An issue with the rule that produced it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Traced {
    /// The issue.
    pub issue: Issue,
    /// Its rule.
    pub rule: RuleId,
}

/// Collects issues in order, keeping the first eight, and when tracing the rule of each.
#[derive(Debug)]
pub(crate) struct Collector {
    tool: Tool,
    kept: Vec<Issue>,
    /// The rule of each kept issue; `None` when not tracing, so a plain validation names no rule
    /// (naming one allocates its pattern).
    rules: Option<Vec<RuleId>>,
    total: usize,
    decisive: bool,
}

impl Collector {
    /// A collector of the issues of `tool`; with `trace`, of their rules too.
    pub(crate) fn new(tool: Tool, trace: bool) -> Collector {
        Collector {
            tool,
            kept: Vec::new(),
            rules: trace.then(Vec::new),
            total: 0,
            decisive: false,
        }
    }

    /// An empty collector like this one (a union branch's).
    pub(crate) fn fresh(&self) -> Collector {
        Collector::new(self.tool, self.rules.is_some())
    }

    /// Whether any issue was produced.
    pub(crate) fn any(&self) -> bool {
        self.total > 0
    }

    /// Whether some issue was not a bound issue (§2.1.10).
    pub(crate) fn decisive(&self) -> bool {
        self.decisive
    }

    /// The issues kept, in order.
    pub(crate) fn into_issues(self) -> Vec<Issue> {
        self.kept
    }

    /// The issues kept with their rules, in order (none without tracing).
    pub(crate) fn into_traced(self) -> Vec<Traced> {
        let rules = self.rules.unwrap_or_default();
        self.kept
            .into_iter()
            .zip(rules)
            .map(|(issue, rule)| Traced { issue, rule })
            .collect()
    }

    /// Appends an issue of the structural phase.
    pub(crate) fn structural(
        &mut self,
        check: Check,
        code: Code,
        path: &Path<'_>,
        message: impl FnOnce() -> JsString,
        expected: Option<JsString>,
    ) {
        self.count(code);
        if self.kept.len() < MAX_ISSUES {
            let tool = self.tool;
            let rule = || RuleId::Structural {
                tool,
                pattern: path.pattern(),
                check,
            };
            self.keep(rule, code, path.render(), message(), expected, None);
        }
    }

    /// Appends an issue about an unknown member of the object at `object`.
    pub(crate) fn unknown_key(
        &mut self,
        object: &Path<'_>,
        key: &Path<'_>,
        message: impl FnOnce() -> JsString,
    ) {
        self.count(Code::UnrecognizedKeys);
        if self.kept.len() < MAX_ISSUES {
            let tool = self.tool;
            let rule = || RuleId::Structural {
                tool,
                pattern: object.pattern(),
                check: Check::UnknownKey,
            };
            let expected = Some(js_static!("a known property of this request object"));
            self.keep(
                rule,
                Code::UnrecognizedKeys,
                key.render(),
                message(),
                expected,
                None,
            );
        }
    }

    /// Appends the issue of an infinite number, the one issue that carries `received`.
    pub(crate) fn infinite(&mut self, path: &Path<'_>) {
        self.count(Code::InvalidType);
        if self.kept.len() < MAX_ISSUES {
            let tool = self.tool;
            let rule = || RuleId::Structural {
                tool,
                pattern: path.pattern(),
                check: Check::Finite,
            };
            let message = js_static!("Invalid input: expected number, received number");
            let expected = Some(js_static!("number"));
            self.keep(
                rule,
                Code::InvalidType,
                path.render(),
                message,
                expected,
                Some(js_static!("Infinity")),
            );
        }
    }

    /// Appends an issue of the branch-rule phase.
    pub(crate) fn branch(
        &mut self,
        rule: BranchRule,
        code: Code,
        path: &Path<'_>,
        message: impl Into<JsString>,
        expected: impl Into<JsString>,
    ) {
        self.count(code);
        if self.kept.len() < MAX_ISSUES {
            let tool = self.tool;
            let rule = || RuleId::Branch {
                tool,
                name: rule.into_name(),
            };
            self.keep(
                rule,
                code,
                path.render(),
                message.into(),
                Some(expected.into()),
                None,
            );
        }
    }

    /// Appends issues another collector kept (a union branch's).
    pub(crate) fn append(&mut self, other: Collector) {
        self.total += other.total;
        self.decisive |= other.decisive;
        let room = MAX_ISSUES.saturating_sub(self.kept.len());
        self.kept.extend(other.kept.into_iter().take(room));
        if let (Some(rules), Some(theirs)) = (&mut self.rules, other.rules) {
            rules.extend(theirs.into_iter().take(room));
        }
    }

    fn count(&mut self, code: Code) {
        self.total += 1;
        self.decisive |= !code.is_bound();
    }

    fn keep(
        &mut self,
        rule: impl FnOnce() -> RuleId,
        code: Code,
        path: JsString,
        message: JsString,
        expected: Option<JsString>,
        received: Option<JsString>,
    ) {
        let issue = Issue {
            code,
            path,
            message: cut(message),
            expected: expected.map(cut),
            received,
        };
        // Room for every issue kept at the first, instead of growing four times.
        if self.kept.is_empty() {
            self.kept.reserve_exact(MAX_ISSUES);
        }
        self.kept.push(issue);
        if let Some(rules) = &mut self.rules {
            rules.push(rule());
        }
    }
}

/// The text cut to the longest message (§1.4); a text that fits is kept as it is, not copied.
fn cut(text: JsString) -> JsString {
    if text.len() <= MAX_MESSAGE {
        text
    } else {
        truncate(text.units(), MAX_MESSAGE)
    }
}
