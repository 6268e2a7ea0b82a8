//! The branch-rule phase (§2.2): each tool's rules, run in their fixed order on the normalized output.

/// Declares the branch rules of a rule file, in inventory order, and the function `$set` that
/// lists their names. Each entry is one declaration:
///
/// - `NAME = "name";` a rule of one name, reported where the file's checks say;
/// - `NAME: Type = value;` a group or family of rules that knows its names and, for
///   requirements and per-field rules, its check (built at run time, like the catalog, so that a
///   mutation row can switch one of its entries);
/// - `include path;` the rules of a set another file declares (the items', the recovery's).
///
/// The collector takes only a `BranchRule`, and rule files make one only through these
/// declarations, so the inventory lists every rule a tool's checks can emit.
macro_rules! rules {
    ($(#[$doc:meta])* $vis:vis fn $set:ident { $($body:tt)* }) => {
        rules!(@declare $($body)*);
        $(#[$doc])*
        $vis fn $set(names: &mut Vec<String>) {
            rules!(@list names; $($body)*);
        }
    };
    (@declare) => {};
    (@declare include $set:path; $($rest:tt)*) => {
        rules!(@declare $($rest)*);
    };
    (@declare $(#[$meta:meta])* $vis:vis $name:ident = $text:literal; $($rest:tt)*) => {
        $(#[$meta])*
        $vis const $name: crate::rule::BranchRule = crate::rule::BranchRule::declared($text);
        rules!(@declare $($rest)*);
    };
    (@declare $(#[$meta:meta])* $vis:vis $name:ident: $ty:ty = $value:expr; $($rest:tt)*) => {
        $(#[$meta])*
        $vis static $name: std::sync::LazyLock<$ty> = std::sync::LazyLock::new(|| $value);
        rules!(@declare $($rest)*);
    };
    (@list $names:ident;) => {};
    (@list $names:ident; include $set:path; $($rest:tt)*) => {
        $set($names);
        rules!(@list $names; $($rest)*);
    };
    (@list $names:ident; $(#[$meta:meta])* $vis:vis $name:ident = $text:literal; $($rest:tt)*) => {
        $crate::rules::declare::Declared::list(&$name, $names);
        rules!(@list $names; $($rest)*);
    };
    (@list $names:ident; $(#[$meta:meta])* $vis:vis $name:ident: $ty:ty = $value:expr; $($rest:tt)*) => {
        $crate::rules::declare::Declared::list(&*$name, $names);
        rules!(@list $names; $($rest)*);
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

mod declare;
mod hashline_edit;
mod input;
mod items;
mod matrix;
mod recovery;
mod str_replace_editor;
mod web_fetch;
mod work_checkpoint;
mod work_item_decide;
mod work_item_open;

use crate::catalog::Tool;
use crate::collector::Collector;
use crate::json::Object;
use declare::Rules;
use input::Input;

/// The branch rules of `tool`, if it has any besides its field matrix.
fn tool_rules(tool: Tool) -> Option<Rules> {
    match tool {
        Tool::WorkItemOpen => Some(work_item_open::RULES),
        Tool::WorkItemDecide => Some(work_item_decide::RULES),
        Tool::WorkCheckpoint => Some(work_checkpoint::RULES),
        Tool::HashlineEdit => Some(hashline_edit::RULES),
        Tool::StrReplaceEditor => Some(str_replace_editor::RULES),
        Tool::WebFetch => Some(web_fetch::RULES),
        // `work_item_close` has one rule, a non-blank id, which can never fire after the
        // structural phase (§2.2); the other two tools have no rules.
        Tool::WorkItemList | Tool::WorkItemClose | Tool::WebSearch => None,
    }
}

/// Runs the branch rules of `tool` on the normalized output of the structural phase: the field
/// matrix first (for the tools that have one), then the tool's own rules.
pub(crate) fn run(tool: Tool, input: &Object, out: &mut Collector) {
    let input = Input::new(input);
    matrix::check(tool, input, out);
    if let Some(rules) = tool_rules(tool) {
        (rules.run)(input, out);
    }
}

/// The names of every branch rule of `tool`, as issues of the branch phase name them.
pub(crate) fn names(tool: Tool) -> Vec<String> {
    let mut names = Vec::new();
    if let Some(rules) = tool_rules(tool) {
        (rules.names)(&mut names);
    }
    names.extend(matrix::names(tool));
    names
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use super::hashline_edit::Op;
    use super::items::Mode;
    use super::names;
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

    #[test]
    fn no_tool_declares_a_rule_name_twice() {
        for tool in Tool::ALL {
            let names = names(tool);
            let unique: BTreeSet<&String> = names.iter().collect();
            assert_eq!(unique.len(), names.len(), "{tool}: {names:?}");
        }
    }

    #[test]
    fn the_recovery_requirements_are_one_declaration_both_tools_list() {
        let mut recovery = Vec::new();
        super::recovery::names(&mut recovery);
        assert_eq!(recovery.len(), 4);
        for tool in [Tool::WorkItemDecide, Tool::WorkCheckpoint] {
            let names = names(tool);
            let at = names
                .iter()
                .position(|n| *n == recovery[0])
                .expect("the recovery rules are listed");
            assert_eq!(names[at..at + recovery.len()], recovery[..], "{tool}");
        }
    }
}
