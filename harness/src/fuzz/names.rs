//! The rule an issue belongs to, for either side's issues: the reference's own rule when it
//! emits the same issue on the same input, else the rule the reference names for such an issue
//! on the vectors (same place, code and message, or the one rule at that place with that code).

use std::collections::BTreeMap;

use vvoc_reference::rule::Pattern;
use vvoc_reference::{Code, Issue, JsString, Json, RuleId, Tool, Traced, validate_traced};

/// What the reference's verdicts on the vectors say about the rules behind issues.
#[derive(Debug, Default)]
pub struct RuleNames {
    /// The rule of an issue by its tool, pattern, code and message.
    exact: BTreeMap<(Tool, String, Code, JsString), RuleId>,
    /// The rule of an issue by its tool, pattern and code, `None` where several rules emit it.
    by_place: BTreeMap<(Tool, String, Code), Option<RuleId>>,
}

impl RuleNames {
    /// What the vectors' issues say (each input with its tool).
    pub fn learn(vectors: &[(Tool, Json)]) -> RuleNames {
        let mut names = RuleNames::default();
        for (tool, input) in vectors {
            for Traced { issue, rule } in validate_traced(*tool, input).1 {
                let pattern = pattern(&issue);
                let place = (*tool, pattern.clone(), issue.code);
                let key = (*tool, pattern, issue.code, issue.message);
                names.exact.entry(key).or_insert_with(|| rule.clone());
                let entry = names
                    .by_place
                    .entry(place)
                    .or_insert_with(|| Some(rule.clone()));
                if entry.as_ref() != Some(&rule) {
                    *entry = None;
                }
            }
        }
        names
    }

    /// The rule of `issue` of `tool`, given the reference's traced issues on the same input.
    pub fn rule(&self, tool: Tool, issue: &Issue, traced: &[Traced]) -> Option<RuleId> {
        let same_place = |t: &&Traced| t.issue.code == issue.code && t.issue.path == issue.path;
        if let Some(t) = traced.iter().find(same_place) {
            return Some(t.rule.clone());
        }
        let pattern = pattern(issue);
        let key = (tool, pattern, issue.code, issue.message.clone());
        if let Some(rule) = self.exact.get(&key) {
            return Some(rule.clone());
        }
        let (tool, pattern, code, _) = key;
        self.by_place.get(&(tool, pattern, code)).cloned().flatten()
    }
}

/// The pattern of an issue's path, names as they are.
fn pattern(issue: &Issue) -> String {
    Pattern::of_issue_path(&issue.path.to_string_lossy(), |name| name).into_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use vvoc_reference::Check;

    fn parse(text: &str) -> Json {
        Json::parse(text).expect("JSON")
    }

    fn structural(pattern: &str, check: Check) -> RuleId {
        RuleId::Structural {
            tool: Tool::WebSearch,
            pattern: pattern.to_owned(),
            check,
        }
    }

    #[test]
    fn an_issue_the_reference_does_not_emit_is_named_by_the_vectors() {
        let names = RuleNames::learn(&[(Tool::WebSearch, parse(r#"{"query":""}"#))]);
        let (_, traced) = validate_traced(Tool::WebSearch, &parse(r#"{"query":""}"#));
        let blank = traced[0].issue.clone();
        assert_eq!(
            names.rule(Tool::WebSearch, &blank, &[]),
            Some(structural("query", Check::MinLength))
        );
        // Another message at the same place with the same code: the one rule that has them.
        let reworded = Issue {
            message: "too short".into(),
            ..blank.clone()
        };
        assert_eq!(
            names.rule(Tool::WebSearch, &reworded, &[]),
            Some(structural("query", Check::MinLength))
        );
        let elsewhere = Issue {
            path: "count".into(),
            ..blank
        };
        assert_eq!(names.rule(Tool::WebSearch, &elsewhere, &[]), None);
    }

    #[test]
    fn an_issue_the_reference_emits_on_the_same_input_is_named_by_its_trace() {
        let names = RuleNames::default();
        let (_, traced) = validate_traced(Tool::WebSearch, &parse(r#"{"query":"q","count":99}"#));
        let issue = traced[0].issue.clone();
        assert_eq!(
            names.rule(Tool::WebSearch, &issue, &traced),
            Some(structural("count", Check::Maximum))
        );
    }
}
