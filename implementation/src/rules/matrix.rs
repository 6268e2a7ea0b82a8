//! The field matrix (§4.4, §4.5, §4.7): every present field, in declared order, that the
//! selector's value does not consume is refused. Its rules, `matrix-<value>`, are the catalog's
//! matrix rows.

use super::input::Input;
use crate::catalog::{Matrix, Tool};
use crate::collector::Collector;
use crate::issue::Code;
use crate::js_string::JsString;
use crate::js_text::{js, push_joined};
use crate::path::Path;
use crate::rule::BranchRule;

/// The rule of one row of a field matrix.
fn rule(value: &'static str) -> BranchRule {
    BranchRule::member("matrix", value)
}

/// The names of the matrix rules of `tool`, one per row, in the catalog's order.
pub(super) fn names(tool: Tool) -> impl Iterator<Item = String> {
    let rows = tool.spec().matrix.iter().flat_map(|m| &m.rows);
    rows.map(|row| rule(row.value).into_name())
}

/// Refuses the present fields the selector's value does not consume; nothing for a tool without
/// a matrix.
pub(super) fn check(tool: Tool, input: Input<'_>, out: &mut Collector) {
    let spec = tool.spec();
    let Some(Matrix { selector, rows }) = &spec.matrix else {
        return;
    };
    let Some(chosen) = input.string(selector) else {
        return;
    };
    let Some(row) = rows.iter().find(|row| chosen.eq_str(row.value)) else {
        return;
    };
    // The output holds each present field once, in declared order: its names are the fields to
    // check, in the order their issues are reported, fewer than the declared ones.
    let present = input.names().filter(|name| {
        !name.eq_str(selector) && !row.consumes.iter().any(|field| name.eq_str(field))
    });
    // Built at the first refused field: most inputs consume every field they have.
    let mut expected: Option<JsString> = None;
    for name in present {
        let Some(field) = spec.fields.iter().find(|field| field.key == *name) else {
            continue;
        };
        let value = row.value;
        let message = js![field.name, " is not consumed by ", *selector, " ", value];
        let expected = expected.get_or_insert_with(|| {
            let mut text = js!["only "];
            push_joined(&mut text, row.consumes, ", ", "");
            text
        });
        out.branch(
            rule(value),
            Code::InvalidValue,
            &Path::ROOT.field(field.name),
            message,
            expected.clone(),
        );
    }
}
