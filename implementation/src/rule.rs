//! Rule ids: every issue the implementation emits names the one rule that produced it.

use std::fmt;

use crate::catalog::Tool;

/// The rule that produced an issue: a structural check of one catalog node, or a branch rule.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum RuleId {
    /// A check of the structural phase on the node at a field pattern (`items[].mode`).
    Structural {
        /// The tool.
        tool: Tool,
        /// The field pattern (`(root)` for the input object itself).
        pattern: String,
        /// The check.
        check: Check,
    },
    /// A rule of the branch-rule phase.
    Branch {
        /// The tool.
        tool: Tool,
        /// The rule's name within its tool.
        name: String,
    },
    /// A rule of what a valid call does (`execution.md`), pinned by scenarios.
    Exec {
        /// The tool.
        tool: Tool,
        /// The rule's name within its tool.
        name: String,
    },
}

impl RuleId {
    /// Whether the rule is one of execution, pinned by scenarios rather than reject vectors.
    pub fn is_exec(&self) -> bool {
        matches!(self, RuleId::Exec { .. })
    }
}

/// The name of a branch rule, as the collector takes it: rule files make one only where they
/// declare it (`rules!` in `rules/mod.rs`), so every name an issue can carry is in the inventory.
///
/// It holds the name's parts, joined only when a rule is named (tracing, the inventory): a
/// validation makes rules for every field it checks and names none of them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct BranchRule {
    prefix: &'static str,
    /// Members after the prefix, each written after a dash; an empty one is not written.
    members: [&'static str; 2],
}

impl BranchRule {
    /// A rule of one fixed name.
    pub(crate) const fn declared(name: &'static str) -> BranchRule {
        BranchRule {
            prefix: name,
            members: ["", ""],
        }
    }

    /// A member of a family of rules: `<prefix>-<member>`, such as `execution-forbids-rationale`.
    pub(crate) const fn member(prefix: &'static str, member: &'static str) -> BranchRule {
        BranchRule {
            prefix,
            members: [member, ""],
        }
    }

    /// A member of a family within a family: `<prefix>-<family>-<member>`, the member's words
    /// joined by dashes (`write-scope-malformed-empty-path`).
    pub(crate) const fn nested(
        prefix: &'static str,
        family: &'static str,
        member: &'static str,
    ) -> BranchRule {
        BranchRule {
            prefix,
            members: [family, member],
        }
    }

    /// The name.
    pub(crate) fn into_name(self) -> String {
        let mut name = self.prefix.to_owned();
        for member in self.members.into_iter().filter(|m| !m.is_empty()) {
            name.push('-');
            name.extend(member.chars().map(|c| if c == ' ' { '-' } else { c }));
        }
        name
    }
}

/// The checks of the structural phase (§2.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Check {
    /// A required member is absent.
    Required,
    /// The value has the wrong JSON type.
    Type,
    /// A member whose name the object does not declare.
    UnknownKey,
    /// A number too large for a double.
    Finite,
    /// A fraction where an integer is declared.
    Integer,
    /// An integer above 2^53 − 1.
    SafeMax,
    /// An integer below −(2^53 − 1).
    SafeMin,
    /// A number under its lower bound.
    Minimum,
    /// A number over its upper bound.
    Maximum,
    /// A string shorter than its minimum (after trimming, for trimmed kinds).
    MinLength,
    /// A string longer than its maximum (after trimming, for trimmed kinds).
    MaxLength,
    /// An array with fewer elements than its minimum.
    MinItems,
    /// An array with more elements than its maximum.
    MaxItems,
    /// A wrong-typed value whose length is under the node's minimum (§2.1.8).
    WrongTypeMinLength,
    /// A wrong-typed value whose length is over the node's maximum (§2.1.8).
    WrongTypeMaxLength,
    /// A value outside the enum.
    Enum,
    /// A value other than the literal.
    Literal,
}

impl Check {
    /// The check's name in rule ids.
    pub const fn name(self) -> &'static str {
        match self {
            Check::Required => "required",
            Check::Type => "type",
            Check::UnknownKey => "unknown-key",
            Check::Finite => "finite",
            Check::Integer => "integer",
            Check::SafeMax => "safe-max",
            Check::SafeMin => "safe-min",
            Check::Minimum => "minimum",
            Check::Maximum => "maximum",
            Check::MinLength => "min-length",
            Check::MaxLength => "max-length",
            Check::MinItems => "min-items",
            Check::MaxItems => "max-items",
            Check::WrongTypeMinLength => "wrong-type-min-length",
            Check::WrongTypeMaxLength => "wrong-type-max-length",
            Check::Enum => "enum",
            Check::Literal => "literal",
        }
    }
}

/// `web_search:count:maximum` for a structural rule, `work_item_open:branch:execution-and-runid`
/// for a branch rule.
impl fmt::Display for RuleId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RuleId::Structural {
                tool,
                pattern,
                check,
            } => write!(f, "{tool}:{pattern}:{}", check.name()),
            RuleId::Branch { tool, name } => write!(f, "{tool}:branch:{name}"),
            RuleId::Exec { tool, name } => write!(f, "{tool}:exec:{name}"),
        }
    }
}
