//! `hashline_edit`: edits addressed by anchored line references (`execution.md` §1).

pub mod anchors;
mod canonical;

use crate::js_string::JsString;
use crate::json::Object;

/// Runs one accepted call and returns its text (`hashline_edit` never raises).
pub(super) fn run(_input: &Object) -> JsString {
    JsString::from("Error: not implemented yet")
}
