//! The input rules of a run's tools (the inventory's, rules of execution aside), each with its
//! index in the list the workers mark as fired.

use std::collections::HashMap;

use vvoc_reference::inventory::inventory;
use vvoc_reference::{RuleId, Tool};

/// The input rules of a run's tools, in inventory order.
#[derive(Debug)]
pub(crate) struct RuleList {
    rules: Vec<RuleId>,
    index: HashMap<RuleId, usize>,
}

impl RuleList {
    /// The input rules of `tools`.
    pub(crate) fn of(tools: &[Tool]) -> RuleList {
        let rules: Vec<RuleId> = inventory()
            .into_iter()
            .filter(|r| !r.is_exec() && tools.contains(&rule_tool(r)))
            .collect();
        let index = rules
            .iter()
            .enumerate()
            .map(|(i, r)| (r.clone(), i))
            .collect();
        RuleList { rules, index }
    }

    /// How many rules.
    pub(crate) fn len(&self) -> usize {
        self.rules.len()
    }

    /// The index of `rule`, if it is one of the list.
    pub(crate) fn index(&self, rule: &RuleId) -> Option<usize> {
        self.index.get(rule).copied()
    }

    /// The ids of the rules not marked in `fired`, in inventory order.
    pub(crate) fn never_fired(&self, fired: &[bool]) -> Vec<String> {
        self.rules
            .iter()
            .zip(fired)
            .filter(|(_, fired)| !**fired)
            .map(|(rule, _)| rule.to_string())
            .collect()
    }
}

/// The tool of a rule.
fn rule_tool(rule: &RuleId) -> Tool {
    match rule {
        RuleId::Structural { tool, .. }
        | RuleId::Branch { tool, .. }
        | RuleId::Exec { tool, .. } => *tool,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use vvoc_reference::Check;

    #[test]
    fn a_run_lists_the_input_rules_of_its_tools_and_names_those_that_never_fired() {
        let list = RuleList::of(&[Tool::WebSearch]);
        let count = RuleId::Structural {
            tool: Tool::WebSearch,
            pattern: "count".to_owned(),
            check: Check::Maximum,
        };
        let at = list
            .index(&count)
            .expect("count:maximum is an input rule of web_search");
        let mut fired = vec![true; list.len()];
        fired[at] = false;
        assert_eq!(list.never_fired(&fired), vec!["web_search:count:maximum"]);
        let other = RuleId::Structural {
            tool: Tool::WebFetch,
            pattern: "url".to_owned(),
            check: Check::Required,
        };
        assert_eq!(list.index(&other), None);
        // An editor's rules of execution are pinned by scenarios, not inputs: not in the list.
        let editor = RuleList::of(&[Tool::StrReplaceEditor]);
        let all = editor.never_fired(&vec![false; editor.len()]);
        assert!(
            !all.is_empty() && all.iter().all(|r| !r.contains(":exec:")),
            "{all:?}"
        );
    }
}
