//! The structural phase (§2.1): the input walked against the catalog's shape, issues in order,
//! and the normalized output.

use std::cmp::Ordering;

use crate::catalog::{Count, Field, Limit, MAX_SAFE_INTEGER, Node, Range, StringKind};
use crate::collector::Collector;
use crate::issue::Code;
use crate::js_string::JsString;
use crate::js_text::{MESSAGE_ROOM, js, js_static, push_joined};
use crate::json::{Json, Object};
use crate::path::Path;
use crate::rule::Check;
use crate::text::{ELLIPSIS, push_json_escaped, trim};
use crate::to_number::to_number;

/// Checks `value` against a closed object of `fields`; returns the normalized object.
///
/// A normalized value is only ever used when its collector ends with no issue (the output of an
/// accepted input, or of a union's passing branch), so once `out` holds an issue the checks
/// build none: a refusal costs its issues, not a copy of the input.
pub(crate) fn check_object(
    fields: &'static [Field],
    value: Option<&Json>,
    path: &Path<'_>,
    out: &mut Collector,
) -> Option<Json> {
    let Some(Json::Object(object)) = value else {
        wrong_type(out, path, js_static!("object"), value);
        return None;
    };
    // Which member each field names, found in one pass over the members.
    let mut small = [None; 32];
    let mut large = Vec::new();
    let found: &mut [Option<&Json>] = if fields.len() <= small.len() {
        &mut small[..fields.len()]
    } else {
        large.resize(fields.len(), None);
        &mut large
    };
    let mut matched = 0;
    for (name, member) in object.iter() {
        if let Some(i) = fields.iter().position(|f| name.units() == f.key.units()) {
            found[i] = Some(member);
            matched += 1;
        }
    }
    let mut output = Object::with_capacity(fields.len());
    for (field, member) in fields.iter().zip(found.iter()) {
        let child = path.field(field.name);
        match *member {
            Some(member) => {
                if let Some(normalized) = check(&field.node, Some(member), &child, out)
                    && !out.any()
                {
                    output.push_new(field.key.share(), normalized);
                }
            }
            None if field.required => {
                check(&field.node, None, &child, out);
            }
            None => {
                if let Some(default) = &field.default
                    && !out.any()
                {
                    output.push_new(field.key.share(), default.value.to_json());
                }
            }
        }
    }
    // Names are unique, so when every member matched a field none is unknown.
    if matched == object.len() {
        return Some(Json::Object(output));
    }
    for (name, _) in object.iter() {
        if !fields.iter().any(|f| name.units() == f.key.units()) {
            out.unknown_key(path, &path.key(name), || unknown_key_message(name.units()));
        }
    }
    Some(Json::Object(output))
}

/// Checks `value` (`None` when the member is absent) against `node`; returns the normalized value.
pub(crate) fn check(
    node: &'static Node,
    value: Option<&Json>,
    path: &Path<'_>,
    out: &mut Collector,
) -> Option<Json> {
    match node {
        Node::Object(fields) => check_object(fields, value, path, out),
        Node::Array(element, count) => check_array(element, *count, value, path, out),
        Node::String(kind) => check_string(*kind, value, path, out),
        Node::Integer(range) => check_number(true, *range, value, path, out),
        Node::Number(range) => check_number(false, *range, value, path, out),
        Node::Boolean => match value {
            Some(Json::Bool(b)) => Some(Json::Bool(*b)),
            _ => wrong_type(out, path, js_static!("boolean"), value),
        },
        Node::Null => match value {
            Some(Json::Null) => Some(Json::Null),
            _ => wrong_type(out, path, js_static!("null"), value),
        },
        Node::Enum(values) => match value {
            Some(Json::String(s)) if values.iter().any(|v| s.eq_str(v)) => {
                Some(normalized(out, || Json::String(s.clone())))
            }
            _ => {
                let check = if value.is_none() {
                    Check::Required
                } else {
                    Check::Enum
                };
                // The values quoted and joined: `"a"|"b"` in the message, `"a" | "b"` expected.
                let joined = |mut text: JsString, separator: &str| {
                    push_joined(&mut text, values, separator, "\"");
                    text
                };
                out.structural(
                    check,
                    Code::InvalidValue,
                    path,
                    || joined(js!["Invalid option: expected one of "], "|"),
                    Some(joined(JsString::with_capacity(MESSAGE_ROOM), " | ")),
                );
                None
            }
        },
        Node::Literal(literal) => match value {
            Some(Json::String(s)) if s.eq_str(literal) => {
                Some(normalized(out, || Json::String(s.clone())))
            }
            _ => {
                let check = if value.is_none() {
                    Check::Required
                } else {
                    Check::Literal
                };
                let quoted = js!["\"", *literal, "\""];
                out.structural(
                    check,
                    Code::InvalidValue,
                    path,
                    || js!["Invalid input: expected ", &quoted],
                    Some(quoted.clone()),
                );
                None
            }
        },
        Node::Union(branches) => check_union(branches, value, path, out),
    }
}

fn check_array(
    element: &'static Node,
    count: Count,
    value: Option<&Json>,
    path: &Path<'_>,
    out: &mut Collector,
) -> Option<Json> {
    let Some(Json::Array(items)) = value else {
        wrong_type(out, path, js_static!("array"), value);
        length_after_wrong_type(count_bounds(count), value, path, out);
        return None;
    };
    let mut output = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        if let Some(normalized) = check(element, Some(item), &path.index(i), out)
            && !out.any()
        {
            output.push(normalized);
        }
    }
    let len = items.len();
    if let Some(min) = count.min().filter(|&min| len < min as usize) {
        out.structural(
            Check::MinItems,
            Code::TooSmall,
            path,
            || js!["Too small: expected array to have >=", min, " items"],
            None,
        );
    }
    if let Some(max) = count.max().filter(|&max| len > max as usize) {
        out.structural(
            Check::MaxItems,
            Code::TooBig,
            path,
            || js!["Too big: expected array to have <=", max, " items"],
            None,
        );
    }
    Some(Json::Array(output))
}

fn check_string(
    kind: StringKind,
    value: Option<&Json>,
    path: &Path<'_>,
    out: &mut Collector,
) -> Option<Json> {
    let (min, max) = kind.length();
    let Some(Json::String(s)) = value else {
        wrong_type(out, path, js_static!("string"), value);
        length_after_wrong_type(
            Bounds {
                min,
                max,
                exact: false,
            },
            value,
            path,
            out,
        );
        return None;
    };
    let text = if kind.trimmed() {
        trim(s.units())
    } else {
        s.units()
    };
    let len = text.len();
    if let Some(min) = min.filter(|&min| len < min as usize) {
        out.structural(
            Check::MinLength,
            Code::TooSmall,
            path,
            || js!["Too small: expected string to have >=", min, " characters"],
            None,
        );
    }
    if let Some(max) = max.filter(|&max| len > max as usize) {
        out.structural(
            Check::MaxLength,
            Code::TooBig,
            path,
            || js!["Too big: expected string to have <=", max, " characters"],
            None,
        );
    }
    Some(normalized(out, || Json::String(JsString::from_units(text))))
}

fn check_number(
    integer: bool,
    range: Range,
    value: Option<&Json>,
    path: &Path<'_>,
    out: &mut Collector,
) -> Option<Json> {
    let Some(&Json::Number(n)) = value else {
        return wrong_type(out, path, js_static!("number"), value);
    };
    if n.is_infinite() {
        out.infinite(path);
        return None;
    }
    if integer && n.fract() != 0.0 {
        out.structural(
            Check::Integer,
            Code::InvalidType,
            path,
            || js_static!("Invalid input: expected int, received number"),
            Some(js_static!("int")),
        );
        return None;
    }
    let safe = MAX_SAFE_INTEGER as f64;
    if integer && n > safe {
        out.structural(
            Check::SafeMax,
            Code::TooBig,
            path,
            || js!["Too big: expected int to be <", MAX_SAFE_INTEGER],
            None,
        );
    }
    if integer && n < -safe {
        out.structural(
            Check::SafeMin,
            Code::TooSmall,
            path,
            || js!["Too small: expected int to be >-", MAX_SAFE_INTEGER],
            None,
        );
    }
    match range.min {
        Some(Limit::Inclusive(min)) if n < min as f64 => {
            out.structural(
                Check::Minimum,
                Code::TooSmall,
                path,
                || js!["Too small: expected number to be >=", min],
                None,
            );
        }
        Some(Limit::Exclusive(min)) if n <= min as f64 => {
            out.structural(
                Check::Minimum,
                Code::TooSmall,
                path,
                || js!["Too small: expected number to be >", min],
                None,
            );
        }
        Some(Limit::Inclusive(_) | Limit::Exclusive(_)) | None => {}
    }
    match range.max {
        Some(Limit::Inclusive(max)) if n > max as f64 => {
            out.structural(
                Check::Maximum,
                Code::TooBig,
                path,
                || js!["Too big: expected number to be <=", max],
                None,
            );
        }
        Some(Limit::Exclusive(max)) if n >= max as f64 => {
            out.structural(
                Check::Maximum,
                Code::TooBig,
                path,
                || js!["Too big: expected number to be <", max],
                None,
            );
        }
        Some(Limit::Inclusive(_) | Limit::Exclusive(_)) | None => {}
    }
    // Adding zero turns -0 into 0, which is how the output writes it.
    Some(Json::Number(n + 0.0))
}

/// §2.1.10: the first passing branch's output, else the issues of the one branch that failed
/// only on bounds, else every branch's issues in branch order.
fn check_union(
    branches: &'static [Node],
    value: Option<&Json>,
    path: &Path<'_>,
    out: &mut Collector,
) -> Option<Json> {
    let mut failed = Vec::with_capacity(branches.len());
    for (i, branch) in branches.iter().enumerate() {
        let mut issues = out.fresh();
        let normalized = check(branch, value, &path.branch(i), &mut issues);
        if !issues.any() {
            return normalized;
        }
        failed.push(issues);
    }
    let bound_only: Vec<usize> = (0..failed.len())
        .filter(|&i| !failed[i].decisive())
        .collect();
    if let [only] = bound_only[..] {
        out.append(failed.swap_remove(only));
    } else {
        for issues in failed {
            out.append(issues);
        }
    }
    None
}

/// How many units of an unknown member's name its message shows.
const KEY_PREVIEW: usize = 48;

/// `unrecognized key <JSON-quote(truncate(name, 48))>`, quoted without a copy of the name.
fn unknown_key_message(name: &[u16]) -> JsString {
    let mut message = js!["unrecognized key \""];
    if name.len() <= KEY_PREVIEW {
        push_json_escaped(&mut message, name);
    } else {
        // What truncate keeps, `…` needing no escape.
        push_json_escaped(&mut message, &name[..KEY_PREVIEW - 1]);
        message.push_units(&[ELLIPSIS]);
    }
    message.push('"');
    message
}

/// The normalized value, or `null` in its place once `out` holds an issue and no output will be
/// used (see [`check_object`]).
fn normalized(out: &Collector, value: impl FnOnce() -> Json) -> Json {
    if out.any() { Json::Null } else { value() }
}

/// The issue of a value of the wrong JSON type (or of an absent required member).
fn wrong_type(
    out: &mut Collector,
    path: &Path<'_>,
    expected: JsString,
    value: Option<&Json>,
) -> Option<Json> {
    let (check, received) = match value {
        None => (Check::Required, "undefined"),
        Some(v) => (Check::Type, v.type_name()),
    };
    let message = || {
        js![
            "Invalid input: expected ",
            &expected,
            ", received ",
            received
        ]
    };
    out.structural(
        check,
        Code::InvalidType,
        path,
        message,
        Some(expected.clone()),
    );
    None
}

/// Length bounds of a node, for the length rule after a type failure.
#[derive(Clone, Copy)]
struct Bounds {
    min: Option<u32>,
    max: Option<u32>,
    exact: bool,
}

fn count_bounds(count: Count) -> Bounds {
    Bounds {
        min: count.min(),
        max: count.max(),
        exact: matches!(count, Count::Exactly(_)),
    }
}

/// §2.1.8: a wrong-typed value that has a length is still held to the node's length bounds.
fn length_after_wrong_type(
    bounds: Bounds,
    value: Option<&Json>,
    path: &Path<'_>,
    out: &mut Collector,
) {
    // `is_number`: the length is a number before any conversion, which the exact length's
    // equality (`===`, no conversion) requires; the bounds' comparisons convert.
    let (length, is_number, noun, unit) = match value {
        Some(Json::String(s)) => (s.len() as f64, true, "string", Some("characters")),
        Some(Json::Array(items)) => (items.len() as f64, true, "array", Some("items")),
        Some(Json::Object(o)) => match o.get("length") {
            Some(length) => (
                to_number(length),
                matches!(length, Json::Number(_)),
                "unknown",
                None,
            ),
            None => return,
        },
        Some(Json::Null | Json::Bool(_) | Json::Number(_)) | None => return,
    };
    let message = |lead: &str, relation: &str, bound: u32| match unit {
        Some(unit) => js![
            lead,
            "expected ",
            noun,
            " to have ",
            relation,
            bound,
            " ",
            unit
        ],
        None => js![lead, "expected ", noun, " to be ", relation, bound],
    };
    // A length that is not a number compares as `None`, so it fails every bound, except that an
    // exact length fails only as "too small". An exact length is met only by a length that is the
    // number itself: one that merely converts to it (`"2"`, `[2]`) is neither equal nor greater,
    // so it is "too small".
    let compare = |bound: u32| length.partial_cmp(&f64::from(bound));
    let (too_small, too_big) = match (bounds.exact, bounds.min) {
        (true, Some(n)) => match compare(n) {
            Some(Ordering::Equal) if is_number => (false, false),
            Some(Ordering::Greater) => (false, true),
            Some(Ordering::Less | Ordering::Equal) | None => (true, false),
        },
        _ => (
            bounds.min.is_some_and(|min| {
                !matches!(compare(min), Some(Ordering::Greater | Ordering::Equal))
            }),
            bounds
                .max
                .is_some_and(|max| !matches!(compare(max), Some(Ordering::Less | Ordering::Equal))),
        ),
    };
    if let (true, Some(min)) = (too_small, bounds.min) {
        out.structural(
            Check::WrongTypeMinLength,
            Code::TooSmall,
            path,
            || message("Too small: ", ">=", min),
            None,
        );
    }
    if let (true, Some(max)) = (too_big, bounds.max) {
        out.structural(
            Check::WrongTypeMaxLength,
            Code::TooBig,
            path,
            || message("Too big: ", "<=", max),
            None,
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::{json_quote, truncate};

    #[test]
    fn an_unknown_key_is_quoted_after_the_cut_as_json_quote_of_truncate_writes_it() {
        // Escapes and a surrogate pair on both sides of the cut at 48.
        for len in [0, 1, 46, 47, 48, 49, 50, 200] {
            for filler in [
                &[0x6B][..],
                &[0x22],
                &[0x0A],
                &[0x01],
                &[0xD83D, 0xDE00],
                &[0xDC00],
            ] {
                let name: Vec<u16> = filler.iter().copied().cycle().take(len).collect();
                let mut expected = JsString::from("unrecognized key ");
                expected.push_units(json_quote(truncate(&name, 48).units()).units());
                assert_eq!(unknown_key_message(&name), expected, "{filler:x?} x {len}");
            }
        }
    }
}
