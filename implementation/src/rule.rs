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

/// A field pattern, the middle part of a structural rule id: member names joined by `.`, `[]`
/// for every element of an array, `#k` for the k-th branch of a union (from 1), and `(root)` for
/// the input itself (`items[].mode`, `execution.source#2.reference`).
///
/// The grammar's one definition: the inventory, the rules an issue is traced to, the rules page
/// and `conform fuzz` all write patterns through it, so their patterns cannot drift apart.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Pattern(String);

impl Pattern {
    /// The pattern of the input itself, as written.
    pub const ROOT: &'static str = "(root)";

    /// The input itself.
    pub const fn root() -> Pattern {
        Pattern(String::new())
    }

    /// The member `name` of the object here.
    pub fn field(&self, name: &str) -> Pattern {
        let mut pattern = self.clone();
        pattern.push_field(name);
        pattern
    }

    /// Every element of the array here.
    pub fn element(&self) -> Pattern {
        let mut pattern = self.clone();
        pattern.push_element();
        pattern
    }

    /// Branch `i` (0-based) of the union here, written from 1.
    pub fn branch(&self, i: usize) -> Pattern {
        let mut pattern = self.clone();
        pattern.push_branch(i);
        pattern
    }

    /// Goes down to the member `name`.
    pub fn push_field(&mut self, name: &str) {
        if !self.0.is_empty() {
            self.0.push('.');
        }
        self.0.push_str(name);
    }

    /// Goes down to every element.
    pub fn push_element(&mut self) {
        self.0.push_str("[]");
    }

    /// Goes down to branch `i` (0-based).
    pub fn push_branch(&mut self, i: usize) {
        self.0.push('#');
        self.0.push_str(&(i + 1).to_string());
    }

    /// The pattern of an issue path as issues render it (`items[3].mode` is `items[].mode`):
    /// each index `[n]` is `[]`, and each member name, as rendered (escapes kept), is what
    /// `name` makes of it (itself, for `|n| n`). Issue paths do not show union branches, so
    /// neither does the result; a `[` that opens no index (a path cut at its last unit) stays
    /// part of its name.
    pub fn of_issue_path<'a>(path: &'a str, mut name: impl FnMut(&'a str) -> &'a str) -> Pattern {
        let mut pattern = Pattern::root();
        if path == Pattern::ROOT {
            return pattern;
        }
        // The name being read starts at `start`; `open` says whether one is being read (after
        // an index, a name starts only at the next dot).
        let (mut start, mut open) = (0, true);
        let mut at = 0;
        let bytes = path.as_bytes();
        while at < bytes.len() {
            match bytes[at] {
                b'\\' => at += 2,
                b'.' => {
                    if open {
                        pattern.push_field(name(&path[start..at]));
                    }
                    (start, open) = (at + 1, true);
                    at += 1;
                }
                b'[' => match index_end(&bytes[at + 1..]) {
                    Some(len) => {
                        if open {
                            pattern.push_field(name(&path[start..at]));
                        }
                        pattern.push_element();
                        at += len + 2;
                        (start, open) = (at, false);
                    }
                    None => at += 1,
                },
                _ => at += 1,
            }
        }
        if open {
            pattern.push_field(name(&path[start.min(path.len())..]));
        }
        pattern
    }

    /// The pattern as rule ids write it.
    pub fn as_str(&self) -> &str {
        match self.0.is_empty() {
            true => Pattern::ROOT,
            false => &self.0,
        }
    }

    /// The pattern as rule ids write it, owned.
    pub fn into_string(self) -> String {
        match self.0.is_empty() {
            true => Pattern::ROOT.to_owned(),
            false => self.0,
        }
    }
}

impl fmt::Display for Pattern {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
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

/// The length of the digits of an index whose `[` comes just before `rest`, when `rest` starts
/// with one or more digits and a `]`.
fn index_end(rest: &[u8]) -> Option<usize> {
    let digits = rest.iter().take_while(|b| b.is_ascii_digit()).count();
    match (digits, rest.get(digits)) {
        (1.., Some(b']')) => Some(digits),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pattern_joins_members_with_dots_and_writes_elements_and_branches() {
        let items = Pattern::root().field("items").element();
        assert_eq!(items.field("mode").as_str(), "items[].mode");
        let source = Pattern::root().field("execution").field("source").branch(1);
        assert_eq!(
            source.field("reference").to_string(),
            "execution.source#2.reference"
        );
        assert_eq!(Pattern::root().as_str(), "(root)");
        assert_eq!(Pattern::root().into_string(), "(root)");
    }

    #[test]
    fn an_issue_path_reads_as_a_pattern_with_indexes_as_elements() {
        let same = |n| n;
        let of = |path| Pattern::of_issue_path(path, same).into_string();
        assert_eq!(of("items[12].edits[0].pos"), "items[].edits[].pos");
        assert_eq!(of("(root)"), "(root)");
        assert_eq!(of("count"), "count");
        assert_eq!(of("writeScope[3]"), "writeScope[]");
        // Escaped dots and brackets belong to their name; a bracket that opens no index stays.
        assert_eq!(of("items[0].ty\\.po"), "items[].ty\\.po");
        assert_eq!(of("a\\[1\\]"), "a\\[1\\]");
        assert_eq!(of("a[b]"), "a[b]");
        assert_eq!(of("k[12…"), "k[12…");
        assert_eq!(of("items[0]."), "items[].");
        assert_eq!(of("a..b"), "a..b");
    }

    #[test]
    fn an_issue_path_names_each_member_as_the_caller_says() {
        let declared = |n: &str| matches!(n, "items" | "mode");
        let pattern = Pattern::of_issue_path("items[2].typo.mode", |n| match declared(n) {
            true => n,
            false => "?",
        });
        assert_eq!(pattern.as_str(), "items[].?.mode");
    }
}
