//! The structural phase (§2.1): the input walked against the catalog's shape, issues in order,
//! and the normalized output.

use std::cmp::Ordering;
use std::fmt::Write as _;

use crate::catalog::{Count, Field, Limit, MAX_SAFE_INTEGER, Node, Range, StringKind};
use crate::collector::Collector;
use crate::issue::Code;
use crate::js_string::{JsString, units_eq_str};
use crate::json::{Json, Object};
use crate::path::Path;
use crate::rule::Check;
use crate::text::{json_quote, trim, truncate};
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
        wrong_type(out, path, "object", value);
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
        if let Some(i) = fields.iter().position(|f| names(name.units(), f.name)) {
            found[i] = Some(member);
            matched += 1;
        }
    }
    let mut output = Object::new();
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
        if !fields.iter().any(|f| name.eq_str(f.name)) {
            out.unknown_key(path, &path.key(name), || {
                let mut message = JsString::from("unrecognized key ");
                message.push_units(json_quote(truncate(name.units(), 48).units()).units());
                message
            });
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
            _ => wrong_type(out, path, "boolean", value),
        },
        Node::Null => match value {
            Some(Json::Null) => Some(Json::Null),
            _ => wrong_type(out, path, "null", value),
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
                let joined = |separator: &str| {
                    let mut text = String::new();
                    for (i, v) in values.iter().enumerate() {
                        let separator = if i == 0 { "" } else { separator };
                        let _ = write!(text, "{separator}\"{v}\"");
                    }
                    text
                };
                out.structural(
                    check,
                    Code::InvalidValue,
                    path,
                    || {
                        let mut message = JsString::from("Invalid option: expected one of ");
                        message.push_str(&joined("|"));
                        message
                    },
                    Some(&joined(" | ")),
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
                let quoted = format!("\"{literal}\"");
                let message = format!("Invalid input: expected {quoted}");
                out.structural(
                    check,
                    Code::InvalidValue,
                    path,
                    || message.into(),
                    Some(&quoted),
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
        wrong_type(out, path, "array", value);
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
        let message = format!("Too small: expected array to have >={min} items");
        out.structural(
            Check::MinItems,
            Code::TooSmall,
            path,
            || message.into(),
            None,
        );
    }
    if let Some(max) = count.max().filter(|&max| len > max as usize) {
        let message = format!("Too big: expected array to have <={max} items");
        out.structural(Check::MaxItems, Code::TooBig, path, || message.into(), None);
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
        wrong_type(out, path, "string", value);
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
        let message = format!("Too small: expected string to have >={min} characters");
        out.structural(
            Check::MinLength,
            Code::TooSmall,
            path,
            || message.into(),
            None,
        );
    }
    if let Some(max) = max.filter(|&max| len > max as usize) {
        let message = format!("Too big: expected string to have <={max} characters");
        out.structural(
            Check::MaxLength,
            Code::TooBig,
            path,
            || message.into(),
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
        return wrong_type(out, path, "number", value);
    };
    if n.is_infinite() {
        out.infinite(path);
        return None;
    }
    if integer && n.fract() != 0.0 {
        let message = "Invalid input: expected int, received number";
        out.structural(
            Check::Integer,
            Code::InvalidType,
            path,
            || message.into(),
            Some("int"),
        );
        return None;
    }
    let safe = MAX_SAFE_INTEGER as f64;
    if integer && n > safe {
        let message = format!("Too big: expected int to be <{MAX_SAFE_INTEGER}");
        out.structural(Check::SafeMax, Code::TooBig, path, || message.into(), None);
    }
    if integer && n < -safe {
        let message = format!("Too small: expected int to be >-{MAX_SAFE_INTEGER}");
        out.structural(
            Check::SafeMin,
            Code::TooSmall,
            path,
            || message.into(),
            None,
        );
    }
    match range.min {
        Some(Limit::Inclusive(min)) if n < min as f64 => {
            let message = format!("Too small: expected number to be >={min}");
            out.structural(
                Check::Minimum,
                Code::TooSmall,
                path,
                || message.into(),
                None,
            );
        }
        Some(Limit::Exclusive(min)) if n <= min as f64 => {
            let message = format!("Too small: expected number to be >{min}");
            out.structural(
                Check::Minimum,
                Code::TooSmall,
                path,
                || message.into(),
                None,
            );
        }
        Some(Limit::Inclusive(_) | Limit::Exclusive(_)) | None => {}
    }
    match range.max {
        Some(Limit::Inclusive(max)) if n > max as f64 => {
            let message = format!("Too big: expected number to be <={max}");
            out.structural(Check::Maximum, Code::TooBig, path, || message.into(), None);
        }
        Some(Limit::Exclusive(max)) if n >= max as f64 => {
            let message = format!("Too big: expected number to be <{max}");
            out.structural(Check::Maximum, Code::TooBig, path, || message.into(), None);
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

/// Whether an input member's name is the declared name `field`. Declared names start with an
/// ASCII letter, so most are told apart by length or first unit before a full comparison.
#[inline]
fn names(units: &[u16], field: &str) -> bool {
    match (units.first(), field.as_bytes().first()) {
        (Some(&unit), Some(&byte)) if byte.is_ascii() && unit != u16::from(byte) => false,
        _ => units_eq_str(units, field),
    }
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
    expected: &str,
    value: Option<&Json>,
) -> Option<Json> {
    let (check, received) = match value {
        None => (Check::Required, "undefined"),
        Some(v) => (Check::Type, v.type_name()),
    };
    // Written straight into UTF-16, and only when the issue is kept.
    let message = || {
        let mut text = JsString::from("Invalid input: expected ");
        text.push_str(expected);
        text.push_str(", received ");
        text.push_str(received);
        text
    };
    out.structural(check, Code::InvalidType, path, message, Some(expected));
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
    let message = |relation: &str, bound: u32| match unit {
        Some(unit) => format!("expected {noun} to have {relation}{bound} {unit}"),
        None => format!("expected {noun} to be {relation}{bound}"),
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
        let text = format!("Too small: {}", message(">=", min));
        out.structural(
            Check::WrongTypeMinLength,
            Code::TooSmall,
            path,
            || text.into(),
            None,
        );
    }
    if let (true, Some(max)) = (too_big, bounds.max) {
        let text = format!("Too big: {}", message("<=", max));
        out.structural(
            Check::WrongTypeMaxLength,
            Code::TooBig,
            path,
            || text.into(),
            None,
        );
    }
}
