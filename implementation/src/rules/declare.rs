//! What a rule file declares with `rules!`: single rules, requirements, and families of rules,
//! each listing its own names for the inventory; and `Rules`, a tool's checks with those names.

use super::input::Input;
use crate::collector::Collector;
use crate::issue::Code;
use crate::js_text::js;
use crate::path::Path;
use crate::path_kind::PathReason;
use crate::rule::BranchRule;

/// A tool's branch rules: its checks, and the names of every rule they can emit.
#[derive(Clone, Copy)]
pub(crate) struct Rules {
    /// Runs the checks, in their fixed order.
    pub(crate) run: fn(Input<'_>, &mut Collector),
    /// Lists the rule names, in inventory order (the function `rules!` declares).
    pub(crate) names: fn(&mut Vec<String>),
}

/// A declaration of `rules!`: the names of the rules it stands for.
pub(crate) trait Declared {
    /// Appends the rule names, in inventory order.
    fn list(&self, names: &mut Vec<String>);
}

impl Declared for BranchRule {
    fn list(&self, names: &mut Vec<String>) {
        names.push(self.into_name());
    }
}

/// What a requirement needs of its field.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Needs {
    /// "Require `<f>`": an absent field is a missing non-empty string.
    Present(&'static str),
    /// "Require list `<f>`": an absent or empty field is a missing non-empty array.
    NonEmpty(&'static str),
}

/// Requirements on the fields of an input, checked in order: each is a rule name and what it
/// needs of the one field it reads.
#[derive(Debug)]
pub(crate) struct Requirements(pub(crate) &'static [(&'static str, Needs)]);

impl Requirements {
    /// Reports each requirement the input does not meet, in order.
    pub(crate) fn check(&self, input: Input<'_>, out: &mut Collector) {
        for &(rule, needs) in self.0 {
            let rule = BranchRule::declared(rule);
            match needs {
                Needs::Present(field) => {
                    if !input.has(field) {
                        out.branch(
                            rule,
                            Code::MissingValue,
                            &Path::ROOT.field(field),
                            js![field, " must be a non-empty string"],
                            js!["a non-empty ", field],
                        );
                    }
                }
                Needs::NonEmpty(field) => {
                    if input.absent_or_empty(field) {
                        out.branch(
                            rule,
                            Code::MissingValue,
                            &Path::ROOT.field(field),
                            js![field, " must be a non-empty array"],
                            js!["at least one ", field, " entry"],
                        );
                    }
                }
            }
        }
    }
}

impl Declared for Requirements {
    fn list(&self, names: &mut Vec<String>) {
        names.extend(self.0.iter().map(|(rule, _)| (*rule).to_owned()));
    }
}

/// One rule per field of a list, `<prefix>-<field>` (`execution-forbids-rationale`); the fields
/// are checked in the list's order.
#[derive(Debug)]
pub(crate) struct PerField {
    /// The rule names' prefix.
    pub(crate) prefix: &'static str,
    /// The fields.
    pub(crate) fields: &'static [&'static str],
}

impl PerField {
    /// Each field with its rule, in order.
    pub(crate) fn each(&self) -> impl Iterator<Item = (&'static str, BranchRule)> + '_ {
        self.fields
            .iter()
            .map(|field| (*field, BranchRule::member(self.prefix, field)))
    }
}

impl Declared for PerField {
    fn list(&self, names: &mut Vec<String>) {
        names.extend(self.each().map(|(_, rule)| rule.into_name()));
    }
}

/// The rules of a list of declared paths that a path-kind rule refuses (§5):
/// `<prefix>-malformed-<reason>` (`write-scope-malformed-absolute-path`), one per reason the
/// list's entries can meet.
#[derive(Debug)]
pub(crate) struct Malformed {
    /// The rule names' prefix (`write-scope`, `boundary-files`).
    pub(crate) prefix: &'static str,
    /// Whether an entry can normalize to an empty path. A non-blank exact file cannot; a
    /// directory `/` can.
    pub(crate) can_be_empty: bool,
}

impl Malformed {
    /// The rule of one reason.
    pub(crate) fn rule(&self, reason: PathReason) -> BranchRule {
        BranchRule::nested(self.prefix, "malformed", reason.as_str())
    }
}

impl Declared for Malformed {
    fn list(&self, names: &mut Vec<String>) {
        let reasons = PathReason::ALL
            .into_iter()
            .filter(|r| self.can_be_empty || *r != PathReason::EmptyPath);
        names.extend(reasons.map(|r| self.rule(r).into_name()));
    }
}
