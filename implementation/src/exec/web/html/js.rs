//! The JavaScript string semantics the ports need: `\s`, `trim()`, number conversion and writing.

use crate::js_string::JsString;
use crate::json::{Json, format_number};
use crate::text::is_trim_unit;
use crate::to_number::to_number;

/// Whether `c` matches JavaScript's `\s` (the set `String.prototype.trim` removes).
pub fn is_space(c: char) -> bool {
    u16::try_from(u32::from(c)).is_ok_and(is_trim_unit)
}

/// `s.trim()`.
pub fn trim(s: &str) -> &str {
    s.trim_matches(is_space)
}

/// `Number(s)`, for a string `s`.
pub fn number(s: &str) -> f64 {
    to_number(&Json::String(JsString::from(s)))
}

/// `String(n)`.
pub fn number_text(n: f64) -> String {
    if n.is_infinite() {
        return if n > 0.0 { "Infinity" } else { "-Infinity" }.to_owned();
    }
    format_number(n)
}
