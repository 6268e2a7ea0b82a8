//! What the JavaScript engine (Bun 1.3.8, JavaScriptCore) does with the values upstream's loader
//! reads from a parsed state file without checking their type first.
//!
//! Upstream's validators read many members straight away (`attempt.attempt`,
//! `delegated.reworkHistory.some(…)`, `excerpt.text.length`, `${recovery.recoveryId}`, …). On a
//! wrongly typed file the engine raises a `TypeError` there; the loader does not catch it, so it
//! becomes the message of the tool call or hook that hydrated (`execution-workflow.md` §2.8). The
//! helpers here say, for one kind of read each, which values raise and with which message. The
//! quoted source texts in the messages are Bun's transpiled text of upstream's expressions, as
//! the oracle shows them; callers pass them.
//!
//! A value is `Option<&Json>`: `None` is `undefined` (a member the file does not have).

use std::borrow::Cow;

use super::super::js::number_text;
use crate::js_string::JsString;
use crate::json::Json;
use crate::to_number::to_number;

/// A value as upstream's code holds it: `None` is `undefined`.
pub(crate) type Value<'a> = Option<&'a Json>;

/// The outcome of a step that may raise: `Err` holds the engine's message.
pub(crate) type Raised<T> = Result<T, JsString>;

/// `value.name` for the members the loader reads: an object's member. Arrays, strings, numbers
/// and booleans have none of them (the one built-in member the loader reads, `length`, is
/// [`length`]; built-in methods are [`callable`]).
pub(super) fn get<'a>(value: Value<'a>, name: &str) -> Value<'a> {
    match value {
        Some(Json::Object(o)) => o.get(name),
        _ => None,
    }
}

/// `typeof value === "object" && value !== null`: an object or an array.
pub(super) fn is_object(value: Value) -> bool {
    matches!(value, Some(Json::Object(_) | Json::Array(_)))
}

/// Reading any member of `value`, where upstream's source text of the read is `expr`: `null` and
/// `undefined` have no members, and the engine raises
/// `null is not an object (evaluating '<expr>')` (`undefined …` likewise).
pub(super) fn readable(value: Value, expr: &str) -> Raised<()> {
    let what = match value {
        None => "undefined",
        Some(Json::Null) => "null",
        Some(_) => return Ok(()),
    };
    Err(JsString::from(format!(
        "{what} is not an object (evaluating '{expr}')"
    )))
}

/// `value.length` of a value [`readable`] accepts: a string's UTF-16 units, an array's elements,
/// an object's `length` member; numbers and booleans have none.
pub(super) fn length(value: &Json) -> Option<Json> {
    match value {
        Json::String(s) => Some(Json::Number(s.len() as f64)),
        Json::Array(items) => Some(Json::Number(items.len() as f64)),
        Json::Object(o) => o.get("length").cloned(),
        Json::Null | Json::Bool(_) | Json::Number(_) => None,
    }
}

/// A built-in method the loader calls on a value it has not checked.
#[derive(Clone, Copy)]
pub(super) enum Method {
    Some,
    Filter,
    Map,
    Includes,
    Trim,
}

impl Method {
    fn name(self) -> &'static str {
        match self {
            Method::Some => "some",
            Method::Filter => "filter",
            Method::Map => "map",
            Method::Includes => "includes",
            Method::Trim => "trim",
        }
    }

    /// Whether `value` has the method built in (`Array.prototype`, `String.prototype`).
    fn built_in(self, value: &Json) -> bool {
        match value {
            Json::Array(_) => !matches!(self, Method::Trim),
            Json::String(_) => matches!(self, Method::Includes | Method::Trim),
            _ => false,
        }
    }
}

/// Calling `value.method(…)`, where upstream's source text of the callee is `callee` and of the
/// whole call `call`: on `null`/`undefined` the read raises as [`readable`] says (evaluating the
/// callee); a value without that method built in raises
/// `<callee> is not a function. (In '<call>', '<callee>' is <its member of that name>)`, the
/// member described as [`describe`] says (`undefined` when it has none, as a number has).
pub(super) fn callable(value: Value, method: Method, callee: &str, call: &str) -> Raised<()> {
    readable(value, callee)?;
    if value.is_some_and(|v| method.built_in(v)) {
        return Ok(());
    }
    let mut message = JsString::from(format!(
        "{callee} is not a function. (In '{call}', '{callee}' is "
    ));
    message.push_units(describe(get(value, method.name())).units());
    message.push(')');
    Err(message)
}

/// How the engine shows a value that is not a function: `undefined`, `null`, `true`, a number as
/// `String(n)` writes it, a string in double quotes as it is (no escaping, no cut),
/// `an instance of Array`, `an instance of Object`.
fn describe(value: Value) -> JsString {
    match value {
        None => JsString::from("undefined"),
        Some(Json::Null) => JsString::from("null"),
        Some(Json::Bool(b)) => JsString::from(if *b { "true" } else { "false" }),
        Some(Json::Number(n)) => JsString::from(number_text(*n)),
        Some(Json::String(s)) => {
            let mut out = JsString::with_capacity(s.len() + 2);
            out.push('"');
            out.push_units(s.units());
            out.push('"');
            out
        }
        Some(Json::Array(_)) => JsString::from("an instance of Array"),
        Some(Json::Object(_)) => JsString::from("an instance of Object"),
    }
}

/// The message of a value that has no primitive value (see [`string`]).
const NO_DEFAULT_VALUE: &str = "No default value";

/// `String(value)`, as a template literal's `${value}` and `String(…)` convert: `undefined`,
/// `null`, `true`, a number as `String(n)` writes it, a string as it is, `[object Object]`, an
/// array's elements converted and joined with `,` (`null` as empty), however deep (the arrays
/// being joined are kept on a stack, not in calls).
///
/// An object with a member named `toString` (in a parsed file never a function) has no primitive
/// value: the engine skips the member, the built-in `valueOf` gives the object itself, and the
/// conversion raises `No default value`, wherever in an array the object is.
pub(crate) fn string(value: Value) -> Raised<JsString> {
    let Some(value) = value else {
        return Ok(JsString::from("undefined"));
    };
    let Json::Array(items) = value else {
        return leaf_string(value);
    };
    let mut out = JsString::new();
    // Each array being joined: its remaining elements, and whether one was written yet.
    let mut open = vec![(items.iter(), false)];
    while let Some((elements, started)) = open.last_mut() {
        let Some(item) = elements.next() else {
            open.pop();
            continue;
        };
        if *started {
            out.push(',');
        }
        *started = true;
        match item {
            Json::Null => {}
            Json::Array(inner) => open.push((inner.iter(), false)),
            other => out.push_units(leaf_string(other)?.units()),
        }
    }
    Ok(out)
}

/// [`string`] of a value that is not an array.
fn leaf_string(value: &Json) -> Raised<JsString> {
    Ok(match value {
        Json::Null => JsString::from("null"),
        Json::Bool(b) => JsString::from(if *b { "true" } else { "false" }),
        Json::Number(n) => JsString::from(number_text(*n)),
        Json::String(s) => s.clone(),
        Json::Object(o) if o.contains("toString") => return Err(JsString::from(NO_DEFAULT_VALUE)),
        Json::Object(_) => JsString::from("[object Object]"),
        // Not reached: `string` joins arrays itself.
        Json::Array(_) => JsString::new(),
    })
}

/// [`string`] as Rust text, for the validation errors the loader collects.
pub(super) fn text(value: Value) -> Raised<String> {
    Ok(string(value)?.to_string_lossy())
}

/// A value converted to a primitive for arithmetic or a comparison (`ToPrimitive`): objects and
/// arrays become their [`string`] (and raise as it does), the rest stay.
enum Primitive<'a> {
    Undefined,
    Other(&'a Json),
    Text(JsString),
}

fn primitive<'a>(value: Value<'a>) -> Raised<Primitive<'a>> {
    Ok(match value {
        None => Primitive::Undefined,
        Some(v @ (Json::Object(_) | Json::Array(_))) => Primitive::Text(string(Some(v))?),
        Some(v) => Primitive::Other(v),
    })
}

fn primitive_number(p: &Primitive) -> f64 {
    match p {
        Primitive::Undefined => f64::NAN,
        Primitive::Other(v) => to_number(v),
        Primitive::Text(s) => to_number(&Json::String(s.clone())),
    }
}

/// `value` as a number for arithmetic (`right.attempt - left.attempt`): raises as [`string`]
/// for an object without a primitive value.
pub(super) fn number(value: Value) -> Raised<f64> {
    Ok(primitive_number(&primitive(value)?))
}

/// `x < y` as the engine compares (`IsLessThan`): both converted to primitives (either may raise,
/// with the same message), two strings compared by UTF-16 units, anything else as numbers;
/// `None` when a number is `NaN`.
fn less_than(x: Value, y: Value) -> Raised<Option<bool>> {
    let (px, py) = (primitive(x)?, primitive(y)?);
    let string_of = |p: &Primitive| match p {
        Primitive::Text(s) => Some(s.units().to_vec()),
        Primitive::Other(Json::String(s)) => Some(s.units().to_vec()),
        _ => None,
    };
    if let (Some(a), Some(b)) = (string_of(&px), string_of(&py)) {
        return Ok(Some(a < b));
    }
    let (a, b) = (primitive_number(&px), primitive_number(&py));
    if a.is_nan() || b.is_nan() {
        return Ok(None);
    }
    Ok(Some(a < b))
}

/// `a > b`.
pub(super) fn greater(a: Value, b: Value) -> Raised<bool> {
    Ok(less_than(b, a)? == Some(true))
}

/// `a <= b`.
pub(super) fn less_or_equal(a: Value, b: Value) -> Raised<bool> {
    Ok(less_than(b, a)? == Some(false))
}

/// `a === b` of two values read from the file (and `Set.has`, `Array.includes`, which compare
/// the same way here): primitives by value; an object or array is only ever equal to itself,
/// and the loader never compares one with itself.
pub(super) fn same(a: Value, b: Value) -> bool {
    match (a, b) {
        (None, None) => true,
        (Some(Json::Null), Some(Json::Null)) => true,
        (Some(Json::Bool(x)), Some(Json::Bool(y))) => x == y,
        (Some(Json::Number(x)), Some(Json::Number(y))) => x == y,
        (Some(Json::String(x)), Some(Json::String(y))) => x == y,
        _ => false,
    }
}

/// The elements `for (const x of value)` visits: an array's elements, or a string's code points
/// (each a string). Anything else is not iterable, and the engine raises `number is not
/// iterable`, `true is not iterable`, `false is not iterable`, or, for any object,
/// `{} is not iterable`. `null` has its own message where the loader can meet it (see [`pair`]).
pub(super) fn iterate(value: &Json) -> Raised<Cow<'_, [Json]>> {
    match value {
        Json::Array(items) => Ok(Cow::Borrowed(items)),
        Json::String(s) => Ok(Cow::Owned(code_points(s))),
        Json::Number(_) => Err(JsString::from("number is not iterable")),
        Json::Bool(b) => Err(JsString::from(if *b {
            "true is not iterable"
        } else {
            "false is not iterable"
        })),
        Json::Object(_) => Err(JsString::from("{} is not iterable")),
        Json::Null => Err(JsString::from("null is not iterable")),
    }
}

/// A string's code points, each as a string (a surrogate pair is one, a lone surrogate too).
fn code_points(s: &JsString) -> Vec<Json> {
    let units = s.units();
    let mut out = Vec::with_capacity(units.len());
    let mut i = 0;
    while i < units.len() {
        let pair = (0xD800..0xDC00).contains(&units[i])
            && units
                .get(i + 1)
                .is_some_and(|u| (0xDC00..0xE000).contains(u));
        let n = if pair { 2 } else { 1 };
        out.push(Json::String(JsString::from_units(&units[i..i + n])));
        i += n;
    }
    out
}

/// `const [first, second] of list` for one element of `list`, where upstream's source text of
/// the loop head is `head`: the first two elements [`iterate`] gives (`undefined` past the end).
/// `null` raises `null is not an object (evaluating '<head>')`; what is not iterable raises as
/// [`iterate`] says.
pub(super) fn pair(element: &Json, head: &str) -> Raised<(Option<Json>, Option<Json>)> {
    readable(Some(element), head)?;
    let items = iterate(element)?;
    Ok((items.first().cloned(), items.get(1).cloned()))
}

/// `[...value]`: arrays and strings spread; `null` and `undefined` raise
/// `Spread syntax requires ...iterable not be null or undefined`, anything else
/// `Spread syntax requires ...iterable[Symbol.iterator] to be a function`.
pub(super) fn spreadable(value: Value) -> Raised<()> {
    match value {
        Some(Json::Array(_) | Json::String(_)) => Ok(()),
        None | Some(Json::Null) => Err(JsString::from(
            "Spread syntax requires ...iterable not be null or undefined",
        )),
        Some(_) => Err(JsString::from(
            "Spread syntax requires ...iterable[Symbol.iterator] to be a function",
        )),
    }
}

/// One entry of `new Map(entries)`: only an object (an array included) is one; anything else
/// raises `Type error`.
pub(super) fn map_entry(entry: &Json) -> Raised<()> {
    if is_object(Some(entry)) {
        Ok(())
    } else {
        Err(JsString::from("Type error"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Json {
        Json::parse(text).expect("the test input is JSON")
    }

    #[test]
    fn an_object_with_a_to_string_member_has_no_primitive_value() {
        let plain = parse(r#"[1, null, [2, [true, "x"]], {"a": 1}, -0]"#);
        assert_eq!(
            string(Some(&plain)).expect("no toString member"),
            "1,,2,true,x,[object Object],0"
        );
        let nested = parse(r#"[[[{"toString": 1}]]]"#);
        assert_eq!(
            string(Some(&nested)).expect_err("a toString member"),
            "No default value"
        );
        let deep = (0..100_000).fold(parse("[]"), |inner, _| Json::Array(vec![inner]));
        assert_eq!(string(Some(&deep)).expect("no object"), "");
    }

    #[test]
    fn comparisons_convert_as_the_engine_does() {
        let v = |t: &str| parse(t);
        assert!(greater(Some(&v("10")), Some(&v("9"))).expect("numbers"));
        assert!(!greater(Some(&v(r#""10""#)), Some(&v(r#""9""#))).expect("strings"));
        assert!(greater(Some(&v(r#""10""#)), Some(&v("9"))).expect("mixed"));
        assert!(!greater(None, Some(&v("0"))).expect("undefined"));
        assert!(greater(Some(&v("[5]")), Some(&v("null"))).expect("array"));
        assert!(less_or_equal(Some(&v("2")), Some(&v(r#""2""#))).expect("mixed"));
        assert!(!less_or_equal(Some(&v("2")), None).expect("undefined"));
        assert!(greater(Some(&v(r#"{"toString": 1}"#)), Some(&v("1"))).is_err());
    }

    #[test]
    fn a_call_on_a_value_without_the_method_names_its_member() {
        let o = parse(r#"{"some": "a\"b"}"#);
        let message =
            callable(Some(&o), Method::Some, "x.some", "x.some(f)").expect_err("not a function");
        assert_eq!(
            message,
            "x.some is not a function. (In 'x.some(f)', 'x.some' is \"a\"b\")"
        );
        assert!(callable(Some(&parse(r#""s""#)), Method::Trim, "e.trim", "e.trim()").is_ok());
        assert_eq!(
            callable(None, Method::Map, "d.tasks.map", "d.tasks.map(f)").expect_err("undefined"),
            "undefined is not an object (evaluating 'd.tasks.map')"
        );
    }

    #[test]
    fn strings_iterate_by_code_points() {
        let s = Json::String(JsString::from("a😀"));
        let items = iterate(&s).expect("a string is iterable");
        assert_eq!(items.len(), 2);
        assert_eq!(
            iterate(&parse("{}")).expect_err("an object"),
            "{} is not iterable"
        );
    }
}
