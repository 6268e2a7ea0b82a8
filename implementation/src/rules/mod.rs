//! The branch-rule phase (§2.2): each tool's rules, run in their fixed order on the normalized output.

/// Declares the rule names of a file as constants, and `NAMES`, the list of them all.
macro_rules! rule_names {
    ($($name:ident = $text:literal;)*) => {
        $(const $name: &str = $text;)*
        /// The fixed rule names of this file.
        const NAMES: &[&str] = &[$($name),*];
    };
}

/// Declares the enum of a selector field's values (`Decision`, `Action`, ...): the variants, `ALL`
/// in the catalog's order, `as_str`, and `parse`. A test checks the values against the catalog.
macro_rules! selector {
    ($(#[$doc:meta])* $name:ident { $($variant:ident = $text:literal,)* }) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub(crate) enum $name {
            $($variant,)*
        }

        impl $name {
            /// Every value, in the catalog's order.
            pub(crate) const ALL: &[$name] = &[$($name::$variant,)*];

            /// The value as the input spells it.
            pub(crate) const fn as_str(self) -> &'static str {
                match self {
                    $($name::$variant => $text,)*
                }
            }

            /// The value an input string names, if any.
            fn parse(value: &crate::js_string::JsString) -> Option<$name> {
                $name::ALL.iter().copied().find(|v| value.eq_str(v.as_str()))
            }
        }
    };
}

mod hashline_edit;
mod items;
mod str_replace_editor;
mod web_fetch;
mod work_checkpoint;
mod work_item_decide;
mod work_item_open;

use crate::catalog::{Matrix, Tool};
use crate::collector::Collector;
use crate::issue::Code;
use crate::js_string::JsString;
use crate::json::{Json, Object};
use crate::path::Path;

/// Runs the branch rules of `tool` on the normalized output of the structural phase.
pub(crate) fn run(tool: Tool, input: &Object, out: &mut Collector) {
    let input = Input(input);
    match tool {
        Tool::WorkItemOpen => work_item_open::run(&input, out),
        Tool::WorkItemDecide => work_item_decide::run(&input, out),
        Tool::WorkCheckpoint => work_checkpoint::run(&input, out),
        Tool::HashlineEdit => hashline_edit::run(&input, out),
        Tool::StrReplaceEditor => str_replace_editor::run(&input, out),
        Tool::WebFetch => web_fetch::run(&input, out),
        // `work_item_close` has one rule, a non-blank id, which can never fire after the
        // structural phase (§2.2); the other two tools have no rules.
        Tool::WorkItemList | Tool::WorkItemClose | Tool::WebSearch => {}
    }
}

/// The names of every branch rule of `tool`, as issues of the branch phase name them.
pub(crate) fn names(tool: Tool) -> Vec<String> {
    let mut names: Vec<String> = match tool {
        Tool::WorkItemOpen => work_item_open::names(),
        Tool::WorkItemDecide => work_item_decide::names(),
        Tool::WorkCheckpoint => work_checkpoint::names(),
        Tool::HashlineEdit => hashline_edit::names(),
        Tool::StrReplaceEditor => str_replace_editor::names(),
        Tool::WebFetch => web_fetch::names(),
        Tool::WorkItemList | Tool::WorkItemClose | Tool::WebSearch => Vec::new(),
    };
    if let Some(matrix) = &tool.spec().matrix {
        names.extend(matrix.rows.iter().map(|row| matrix_rule(row.value)));
    }
    names
}

/// The rule name of one row of a field matrix.
fn matrix_rule(value: &str) -> String {
    format!("matrix-{value}")
}

/// The rule name of one field of a loop over fields, such as `execution-forbids-rationale`.
pub(crate) fn per_field(prefix: &str, field: &str) -> String {
    format!("{prefix}-{field}")
}

/// Read access to a normalized object, where "present" means "in the output".
#[derive(Clone, Copy, Debug)]
pub(crate) struct Input<'a>(&'a Object);

impl<'a> Input<'a> {
    pub(crate) fn has(self, name: &str) -> bool {
        self.0.contains(name)
    }

    pub(crate) fn string(self, name: &str) -> Option<&'a JsString> {
        self.0.get(name).and_then(Json::as_string)
    }

    pub(crate) fn list(self, name: &str) -> Option<&'a [Json]> {
        self.0.get(name).and_then(Json::as_array)
    }

    pub(crate) fn is_true(self, name: &str) -> bool {
        matches!(self.0.get(name), Some(Json::Bool(true)))
    }

    /// Whether the member is absent or an empty array.
    pub(crate) fn absent_or_empty(self, name: &str) -> bool {
        self.list(name).is_none_or(<[Json]>::is_empty)
    }

    /// The objects of an array member, each with its index.
    pub(crate) fn objects(self, name: &str) -> impl Iterator<Item = (usize, Input<'a>)> {
        self.list(name)
            .unwrap_or_default()
            .iter()
            .enumerate()
            .filter_map(|(i, item)| item.as_object().map(|o| (i, Input(o))))
    }

    pub(crate) fn object(self, name: &str) -> Option<Input<'a>> {
        self.0.get(name).and_then(Json::as_object).map(Input)
    }
}

/// The field matrix (§4.4, §4.5, §4.7): every present field, in declared order, that the
/// selector's value does not consume is refused.
pub(crate) fn matrix(tool: Tool, input: Input<'_>, out: &mut Collector) {
    let spec = tool.spec();
    let Some(Matrix { selector, .. }) = &spec.matrix else {
        return;
    };
    let Some(value) = input.string(selector).map(JsString::to_string_lossy) else {
        return;
    };
    let Some(row) = spec.matrix.as_ref().and_then(|m| m.row(&value)) else {
        return;
    };
    let expected = format!("only {}", row.consumes.join(", "));
    for field in &spec.fields {
        if field.name != *selector && input.has(field.name) && !row.consumes.contains(&field.name) {
            let message = format!("{} is not consumed by {selector} {value}", field.name);
            out.branch(
                matrix_rule(&value),
                Code::InvalidValue,
                &Path::ROOT.field(field.name),
                message,
                expected.as_str(),
            );
        }
    }
}

/// "Require `<f>`": an absent field is a missing non-empty string.
pub(crate) fn require(rule: &str, input: Input<'_>, field: &str, out: &mut Collector) {
    if !input.has(field) {
        let message = format!("{field} must be a non-empty string");
        out.branch(
            rule,
            Code::MissingValue,
            &Path::ROOT.field(field),
            message,
            format!("a non-empty {field}"),
        );
    }
}

/// "Require list `<f>`": an absent or empty field is a missing non-empty array.
pub(crate) fn require_list(rule: &str, input: Input<'_>, field: &str, out: &mut Collector) {
    if input.absent_or_empty(field) {
        let message = format!("{field} must be a non-empty array");
        out.branch(
            rule,
            Code::MissingValue,
            &Path::ROOT.field(field),
            message,
            format!("at least one {field} entry"),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::hashline_edit::Op;
    use super::items::Mode;
    use super::str_replace_editor::Command;
    use super::work_checkpoint::Action;
    use super::work_item_decide::Decision;
    use crate::catalog::{Tool, vocabulary};

    fn catalog(tool: Tool, pattern: &str) -> Vec<&'static str> {
        vocabulary(tool.spec(), pattern)
    }

    #[test]
    fn selector_enums_spell_exactly_the_catalogs_values() {
        assert_eq!(
            Decision::ALL.iter().map(|v| v.as_str()).collect::<Vec<_>>(),
            catalog(Tool::WorkItemDecide, "decision")
        );
        assert_eq!(
            Action::ALL.iter().map(|v| v.as_str()).collect::<Vec<_>>(),
            catalog(Tool::WorkCheckpoint, "action")
        );
        assert_eq!(
            Command::ALL.iter().map(|v| v.as_str()).collect::<Vec<_>>(),
            catalog(Tool::StrReplaceEditor, "command")
        );
        assert_eq!(
            Op::ALL.iter().map(|v| v.as_str()).collect::<Vec<_>>(),
            catalog(Tool::HashlineEdit, "edits[].op")
        );
        assert_eq!(
            Mode::ALL.iter().map(|v| v.as_str()).collect::<Vec<_>>(),
            catalog(Tool::WorkItemOpen, "items[].mode")
        );
    }

    #[test]
    fn every_matrix_row_names_a_selector_value_and_declared_fields() {
        for tool in Tool::ALL {
            let spec = tool.spec();
            let Some(matrix) = &spec.matrix else { continue };
            let values = catalog(tool, matrix.selector);
            let rows: Vec<&str> = matrix.rows.iter().map(|r| r.value).collect();
            assert_eq!(
                rows, values,
                "{tool}: one matrix row per selector value, in order"
            );
            for row in &matrix.rows {
                for field in row.consumes {
                    assert!(
                        spec.fields.iter().any(|f| f.name == *field),
                        "{tool}: {} consumes undeclared {field}",
                        row.value
                    );
                }
            }
        }
    }
}
