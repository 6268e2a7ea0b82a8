//! `str_replace_editor`: view, create, str_replace and insert on real files (`execution.md` §2).

use super::{Outcome, Session};
use crate::js_string::JsString;
use crate::json::Object;

/// Runs one accepted call of the editor.
pub(super) fn run(_input: &Object, _session: &mut Session) -> Outcome {
    Outcome::Output(JsString::from("Error: not implemented yet"))
}
