//! The refusal inventory: every rule the implementation can refuse an input by, with a stable id.
//!
//! Structural rules come from walking the catalog (one per check a node makes, at its field
//! pattern); branch rules come from each tool's rule files. Every issue `validate_traced` reports
//! names one of these rules. Rules of execution (`execution.md`) close each editor's list.

use crate::catalog::{Field, Node, StringKind, Tool};
use crate::rule::{Check, Pattern, RuleId};

/// Every rule of every tool, in document order, structural rules before branch rules.
pub fn inventory() -> Vec<RuleId> {
    Tool::ALL.into_iter().flat_map(tool_inventory).collect()
}

/// Every rule of one tool.
pub fn tool_inventory(tool: Tool) -> Vec<RuleId> {
    let mut rules = Vec::new();
    let mut add = |pattern: &Pattern, check: Check| {
        rules.push(RuleId::Structural {
            tool,
            pattern: pattern.as_str().to_owned(),
            check,
        });
    };
    add(&Pattern::root(), Check::Type);
    add(&Pattern::root(), Check::UnknownKey);
    fields(&tool.spec().fields, &Pattern::root(), &mut add);
    rules.extend(
        crate::rules::names(tool)
            .into_iter()
            .map(|name| RuleId::Branch { tool, name }),
    );
    rules.extend(
        crate::exec::exec_rules()
            .into_iter()
            .filter(|rule| rule.tool == tool)
            .map(|rule| RuleId::Exec {
                tool,
                name: rule.name.to_owned(),
            }),
    );
    rules
}

fn fields(fields: &[Field], base: &Pattern, add: &mut impl FnMut(&Pattern, Check)) {
    for field in fields {
        node(&field.node, &base.field(field.name), field.required, add);
    }
}

/// The checks of one node; `required` adds the check of an absent member where it is reported.
fn node(node: &Node, pattern: &Pattern, required: bool, add: &mut impl FnMut(&Pattern, Check)) {
    // An absent union is reported by each branch, at the branch's pattern.
    if required && !matches!(node, Node::Union(_)) {
        add(pattern, Check::Required);
    }
    match node {
        Node::Object(members) => {
            add(pattern, Check::Type);
            add(pattern, Check::UnknownKey);
            fields(members, pattern, add);
        }
        Node::Array(element, count) => {
            add(pattern, Check::Type);
            length_checks(
                pattern,
                count.min(),
                count.max(),
                Check::MinItems,
                Check::MaxItems,
                add,
            );
            self::node(element, &pattern.element(), false, add);
        }
        Node::String(kind) => {
            add(pattern, Check::Type);
            let (min, max) = StringKind::length(*kind);
            length_checks(pattern, min, max, Check::MinLength, Check::MaxLength, add);
        }
        Node::Integer(range) | Node::Number(range) => {
            add(pattern, Check::Type);
            add(pattern, Check::Finite);
            if let Node::Integer(_) = node {
                add(pattern, Check::Integer);
                add(pattern, Check::SafeMax);
                add(pattern, Check::SafeMin);
            }
            if range.min.is_some() {
                add(pattern, Check::Minimum);
            }
            if range.max.is_some() {
                add(pattern, Check::Maximum);
            }
        }
        Node::Boolean | Node::Null => add(pattern, Check::Type),
        Node::Enum(_) => add(pattern, Check::Enum),
        Node::Literal(_) => add(pattern, Check::Literal),
        Node::Union(branches) => {
            for (i, branch) in branches.iter().enumerate() {
                self::node(branch, &pattern.branch(i), required, add);
            }
        }
    }
}

fn length_checks(
    pattern: &Pattern,
    min: Option<u32>,
    max: Option<u32>,
    too_short: Check,
    too_long: Check,
    add: &mut impl FnMut(&Pattern, Check),
) {
    if min.is_some() {
        add(pattern, too_short);
        add(pattern, Check::WrongTypeMinLength);
    }
    if max.is_some() {
        add(pattern, too_long);
        add(pattern, Check::WrongTypeMaxLength);
    }
}
