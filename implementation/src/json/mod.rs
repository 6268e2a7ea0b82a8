//! `Json`: the JSON value model of the contract, with its parser (`parse.rs`) and writers.
//!
//! Inputs are read the way the contract's JavaScript host reads them (§2.1.3, §6.5): numbers are
//! doubles (`1e400` is infinite, `1.0` is the integer 1), strings are UTF-16 and may hold lone
//! surrogates, a repeated member name keeps its first position and its last value, and members
//! whose name is an array index come first in ascending order. `serde_json` refuses infinite
//! numbers and lone surrogates, so the parser is written here (`parse.rs`). Values nest as deep
//! as their text allows: parsing, writing, cloning, comparing and dropping never recurse
//! (`walk.rs`).

mod parse;
mod walk;

use std::collections::HashMap;
use std::fmt;

pub use parse::ParseError;
use walk::{Children, fold_tree};

use crate::catalog::MAX_SAFE_INTEGER;
use crate::js_string::JsString;
use crate::text::push_json_escaped_utf8;

/// A JSON value, of any depth. `Clone`, `PartialEq`, `Debug` (the compact text) and `Drop` are
/// written without recursion (`walk.rs`).
pub enum Json {
    /// `null`.
    Null,
    /// `true` or `false`.
    Bool(bool),
    /// A number, as an IEEE-754 double (possibly infinite when the text overflowed).
    Number(f64),
    /// A string of UTF-16 units.
    String(JsString),
    /// An array.
    Array(Vec<Json>),
    /// An object.
    Object(Object),
}

/// A JSON object: members in the host's order, each name once.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Object {
    members: Vec<(JsString, Json)>,
}

impl Json {
    /// A string value.
    pub fn str(s: &str) -> Json {
        Json::String(JsString::from(s))
    }

    /// The name of the value's JSON type as the contract's messages write it (§3.1).
    pub fn type_name(&self) -> &'static str {
        match self {
            Json::Null => "null",
            Json::Bool(_) => "boolean",
            Json::Number(_) => "number",
            Json::String(_) => "string",
            Json::Array(_) => "array",
            Json::Object(_) => "object",
        }
    }

    /// The object, when the value is one.
    pub fn as_object(&self) -> Option<&Object> {
        match self {
            Json::Object(o) => Some(o),
            _ => None,
        }
    }

    /// The object itself, when the value is one. (`Json` has a `Drop`, so a pattern cannot
    /// move the object out.)
    pub fn into_object(mut self) -> Option<Object> {
        match &mut self {
            Json::Object(o) => Some(std::mem::take(o)),
            _ => None,
        }
    }

    /// The array, when the value is one.
    pub fn as_array(&self) -> Option<&[Json]> {
        match self {
            Json::Array(a) => Some(a),
            _ => None,
        }
    }

    /// The string, when the value is one.
    pub fn as_string(&self) -> Option<&JsString> {
        match self {
            Json::String(s) => Some(s),
            _ => None,
        }
    }

    /// The number, when the value is one.
    pub fn as_f64(&self) -> Option<f64> {
        match self {
            Json::Number(n) => Some(*n),
            _ => None,
        }
    }

    /// The compact JSON text (no whitespace; strings quoted as in §6.4; numbers as in §1.7).
    pub fn to_compact(&self) -> String {
        let mut out = String::new();
        self.write_compact(&mut out);
        out
    }

    /// Appends the compact JSON text to `out` (what [`Json::to_compact`] returns).
    pub fn write_compact(&self, out: &mut String) {
        write_value(out, self, None, 0);
    }

    /// The pretty JSON text of §8.5: two-space indentation, members in the value's own order.
    pub fn to_pretty(&self) -> String {
        self.to_pretty_to_depth(usize::MAX)
    }

    /// JSON text indented two spaces per level down to `depth` levels of containers, and compact
    /// below them: what [`Json::to_pretty`] gives for a shallow value, in linear size for a deep
    /// one (fully indented, a million levels would take half a million million spaces).
    pub fn to_pretty_to_depth(&self, depth: usize) -> String {
        let mut out = String::new();
        write_value(&mut out, self, Some("  "), depth);
        out
    }

    /// Equality with numbers compared by value (`1` equals `1.0`), as vectors compare outputs.
    pub fn same_as(&self, other: &Json) -> bool {
        walk::equal(self, other, |a, b| a == b || (a.is_nan() && b.is_nan()))
    }
}

/// Up to this many members, an object's names are compared with each other in place.
const SMALL: usize = 16;

impl Object {
    /// An object of the given members, read as the host reads them: a repeated name keeps its
    /// first position and its last value, and array-index names move first in ascending order.
    pub fn from_members(members: impl IntoIterator<Item = (JsString, Json)>) -> Object {
        Object::from_vec(members.into_iter().collect())
    }

    /// [`Object::from_members`] on members already gathered: the parser's case, where most
    /// objects are small, with distinct names and none an array index, and keep their vector.
    pub(crate) fn from_vec(members: Vec<(JsString, Json)>) -> Object {
        let plain = |members: &[(JsString, Json)]| {
            members.iter().enumerate().all(|(i, (name, _))| {
                array_index(name.units()).is_none() && members[..i].iter().all(|(k, _)| k != name)
            })
        };
        if members.len() <= SMALL && plain(&members) {
            return Object { members };
        }
        // An index of names is built only for a large object, which a repeated name could
        // otherwise make quadratic.
        let mut out: Vec<(JsString, Json)> = Vec::with_capacity(members.len());
        let mut index: HashMap<JsString, usize> = HashMap::new();
        for (name, value) in members {
            let seen = if out.len() <= SMALL {
                out.iter().position(|(k, _)| *k == name)
            } else {
                if index.is_empty() {
                    index.extend(out.iter().enumerate().map(|(i, (k, _))| (k.clone(), i)));
                }
                index.get(&name).copied()
            };
            match seen {
                Some(i) => out[i].1 = value,
                None => {
                    if !index.is_empty() {
                        index.insert(name.clone(), out.len());
                    }
                    out.push((name, value));
                }
            }
        }
        if out
            .iter()
            .any(|(name, _)| array_index(name.units()).is_some())
        {
            // A stable sort keeps the text order among the other names.
            out.sort_by_key(|(name, _)| array_index(name.units()).map_or((1, 0), |i| (0, i)));
        }
        Object { members: out }
    }

    /// An empty object.
    pub fn new() -> Object {
        Object::default()
    }

    /// Sets the member `name`: replaces its value when present, else appends it. Meant for
    /// building outputs, whose names are declared names (never array indexes).
    pub fn insert(&mut self, name: &str, value: Json) {
        match self.members.iter_mut().find(|(k, _)| k.eq_str(name)) {
            Some((_, v)) => *v = value,
            None => self.members.push((JsString::from(name), value)),
        }
    }

    /// Removes the member `name`, giving its value.
    pub fn remove(&mut self, name: &str) -> Option<Json> {
        let at = self.members.iter().position(|(k, _)| k.eq_str(name))?;
        Some(self.members.remove(at).1)
    }

    /// An empty object with room for `members` members (an output, at most one per field).
    pub(crate) fn with_capacity(members: usize) -> Object {
        Object {
            members: Vec::with_capacity(members),
        }
    }

    /// Appends the member `name`, which the caller knows is not there yet (an output's declared
    /// names are distinct), without looking for it as [`Object::insert`] does.
    pub(crate) fn push_new(&mut self, name: JsString, value: Json) {
        self.members.push((name, value));
    }

    /// The value of the member `name`.
    pub fn get(&self, name: &str) -> Option<&Json> {
        self.members
            .iter()
            .find(|(k, _)| k.eq_str(name))
            .map(|(_, v)| v)
    }

    /// The value of the member `name`, to change in place.
    pub fn get_mut(&mut self, name: &str) -> Option<&mut Json> {
        self.members
            .iter_mut()
            .find(|(k, _)| k.eq_str(name))
            .map(|(_, v)| v)
    }

    /// Whether a member `name` is present (whatever its value, `null` included).
    pub fn contains(&self, name: &str) -> bool {
        self.get(name).is_some()
    }

    /// The members in order.
    pub fn iter(&self) -> impl Iterator<Item = (&JsString, &Json)> {
        self.members.iter().map(|(k, v)| (k, v))
    }

    /// The number of members.
    pub fn len(&self) -> usize {
        self.members.len()
    }

    /// Whether the object has no members.
    pub fn is_empty(&self) -> bool {
        self.members.is_empty()
    }
}

/// The index an array-index name stands for: the canonical decimal form of 0 to 4294967294.
fn array_index(name: &[u16]) -> Option<u32> {
    if name.is_empty() || name.len() > 10 || (name.len() > 1 && name[0] == u16::from(b'0')) {
        return None;
    }
    let mut value: u64 = 0;
    for &u in name {
        let digit = u.checked_sub(u16::from(b'0')).filter(|d| *d <= 9)?;
        value = value * 10 + u64::from(digit);
    }
    u32::try_from(value).ok().filter(|v| *v <= 4_294_967_294)
}

/// Writes a number the way the host prints it (`1.0` → `1`, `-0` → `0`, `1e-9`, `1e+21`).
///
/// An infinite value (only ever an input) is written `1e400`, a text that reads back as infinite.
pub fn format_number(n: f64) -> String {
    if n.is_nan() {
        return "NaN".to_owned();
    }
    if n.is_infinite() {
        return if n > 0.0 {
            "1e400".to_owned()
        } else {
            "-1e400".to_owned()
        };
    }
    if n == 0.0 {
        return "0".to_owned();
    }
    // `{:e}` gives the shortest digits that read back to the same double.
    let sci = format!("{:e}", n.abs());
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    let exp: i32 = exp.parse().unwrap_or(0);
    let k = digits.len() as i32;
    let n_pos = exp + 1;
    let mut out = String::new();
    if n < 0.0 {
        out.push('-');
    }
    if k <= n_pos && n_pos <= 21 {
        out.push_str(&digits);
        out.extend(std::iter::repeat_n('0', (n_pos - k) as usize));
    } else if 0 < n_pos && n_pos <= 21 {
        out.push_str(&digits[..n_pos as usize]);
        out.push('.');
        out.push_str(&digits[n_pos as usize..]);
    } else if -6 < n_pos && n_pos <= 0 {
        out.push_str("0.");
        out.extend(std::iter::repeat_n('0', (-n_pos) as usize));
        out.push_str(&digits);
    } else {
        out.push_str(&digits[..1]);
        if k > 1 {
            out.push('.');
            out.push_str(&digits[1..]);
        }
        out.push('e');
        out.push(if n_pos - 1 < 0 { '-' } else { '+' });
        out.push_str(&(n_pos - 1).abs().to_string());
    }
    out
}

/// Writes `value` with a stack of the open arrays and objects, not one call per level.
///
/// The text is UTF-8 written directly: every lone surrogate is escaped, so nothing is lost.
fn write_value(out: &mut String, value: &Json, indent: Option<&str>, depth: usize) {
    // Each open container: its remaining children, and whether one was written yet.
    let mut open: Vec<(Children<'_>, bool)> = Vec::new();
    let mut next = value;
    loop {
        match next {
            Json::Null => out.push_str("null"),
            Json::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            Json::Number(n) => push_number(out, *n),
            Json::String(s) => {
                out.push('"');
                push_json_escaped_utf8(out, s.units());
                out.push('"');
            }
            Json::Array(items) if items.is_empty() => out.push_str("[]"),
            Json::Object(o) if o.is_empty() => out.push_str("{}"),
            Json::Array(_) => {
                out.push('[');
                open.push((Children::of(next), false));
            }
            Json::Object(_) => {
                out.push('{');
                open.push((Children::of(next), false));
            }
        }
        // Write the separator and name before the next child; close the containers that end.
        loop {
            let level = open.len();
            let Some((children, started)) = open.last_mut() else {
                return;
            };
            let indent = indent.filter(|_| level <= depth);
            let closing = if matches!(children, Children::Array(_)) {
                ']'
            } else {
                '}'
            };
            match children.next() {
                Some((name, child)) => {
                    if *started {
                        out.push(',');
                    }
                    *started = true;
                    newline(out, indent, level);
                    if let Some(name) = name {
                        out.push('"');
                        push_json_escaped_utf8(out, name.units());
                        out.push_str(if indent.is_some() { "\": " } else { "\":" });
                    }
                    next = child;
                    break;
                }
                None => {
                    open.pop();
                    newline(out, indent, level - 1);
                    out.push(closing);
                }
            }
        }
    }
}

/// Appends a number as [`format_number`] writes it; a safe integer, the common case, without an
/// allocation.
fn push_number(out: &mut String, n: f64) {
    if n.fract() == 0.0 && n.abs() <= MAX_SAFE_INTEGER as f64 {
        // `n + 0.0` is never -0 here: `as i64` of -0.0 is 0, written "0" as format_number does.
        use std::fmt::Write as _;
        let _ = write!(out, "{}", n as i64);
    } else {
        out.push_str(&format_number(n));
    }
}

fn newline(out: &mut String, indent: Option<&str>, level: usize) {
    if let Some(indent) = indent {
        out.push('\n');
        for _ in 0..level {
            out.push_str(indent);
        }
    }
}

/// Shows the compact JSON text.
impl fmt::Display for Json {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_compact())
    }
}

/// Reads a `serde_json` value of any depth (its objects as the host reads them).
impl From<&serde_json::Value> for Json {
    fn from(value: &serde_json::Value) -> Json {
        fold_tree(
            value,
            |leaf| match leaf {
                serde_json::Value::Null => Json::Null,
                serde_json::Value::Bool(b) => Json::Bool(*b),
                serde_json::Value::Number(n) => Json::Number(n.as_f64().unwrap_or(f64::NAN)),
                serde_json::Value::String(s) => Json::str(s),
                // Containers come to `array` and `object`, never here.
                serde_json::Value::Array(_) | serde_json::Value::Object(_) => Json::Null,
            },
            Json::Array,
            |members| {
                Json::Object(Object::from_members(
                    members.into_iter().map(|(k, v)| (JsString::from(k), v)),
                ))
            },
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(s: &str) -> Json {
        Json::parse(s).expect("valid JSON")
    }

    #[test]
    fn numbers_are_written_like_the_host_writes_them() {
        for (n, s) in [
            (1.0, "1"),
            (-0.0, "0"),
            (0.5, "0.5"),
            (1e-9, "1e-9"),
            (120.0, "120"),
            (-1.0, "-1"),
            (9007199254740991.0, "9007199254740991"),
            (1e21, "1e+21"),
            (1e20, "100000000000000000000"),
            (1.5e-7, "1.5e-7"),
            (0.000001, "0.000001"),
            (123.456, "123.456"),
        ] {
            assert_eq!(format_number(n), s, "{n}");
        }
    }

    #[test]
    fn pretty_printing_follows_the_reference_document() {
        let v = parse(r#"{"a":[],"b":{},"c":[1,{"d":"x"}],"e":0.5}"#);
        assert_eq!(
            v.to_pretty(),
            "{\n  \"a\": [],\n  \"b\": {},\n  \"c\": [\n    1,\n    {\n      \"d\": \"x\"\n    }\n  ],\n  \"e\": 0.5\n}"
        );
    }

    #[test]
    fn pretty_printing_to_a_depth_writes_deeper_containers_compactly() {
        let v = parse(r#"{"a":[1,[2]],"b":{"c":{"d":3}}}"#);
        assert_eq!(
            v.to_pretty_to_depth(1),
            "{\n  \"a\": [1,[2]],\n  \"b\": {\"c\":{\"d\":3}}\n}"
        );
        assert_eq!(
            v.to_pretty_to_depth(2),
            "{\n  \"a\": [\n    1,\n    [2]\n  ],\n  \"b\": {\n    \"c\": {\"d\":3}\n  }\n}"
        );
        assert_eq!(v.to_pretty_to_depth(0), v.to_compact());
        assert_eq!(v.to_pretty_to_depth(9), v.to_pretty());
        // A million levels deep stays linear: the brackets, and a line break and indentation
        // around each of the first eight levels' children (1 + 2L before, 1 + 2(L - 1) after).
        let deep = parse(&format!(
            "{}{}",
            "[".repeat(1_000_000),
            "]".repeat(1_000_000)
        ));
        let indented: usize = (1..=8).map(|level| 4 * level).sum();
        assert_eq!(deep.to_pretty_to_depth(8).len(), 2_000_000 + indented);
    }

    #[test]
    fn outputs_compare_numbers_by_value() {
        assert!(parse(r#"{"a":[1.0]}"#).same_as(&parse(r#"{"a":[1]}"#)));
        assert!(!parse(r#"{"a":1,"b":2}"#).same_as(&parse(r#"{"b":2,"a":1}"#)));
    }
}
