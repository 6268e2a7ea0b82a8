//! Reading a report whose embedded values are nested deeper than serde can follow: `serde_json`
//! deserializes one call per level, so a failing vector's input a million levels deep would
//! overflow the stack. Before serde runs, every container below [`DEPTH`] levels is set aside
//! and a mark stands in its place; an embedded value puts its parts back as it is read.

use std::cell::RefCell;

use serde_json::Value;

use crate::json::bridge::dismantle;

/// How deep serde is let go: deeper than any member of a report, shallow enough for any stack.
pub const DEPTH: usize = 64;

/// The text of a mark: a NUL no report text holds, then the index of the value set aside.
const MARK: &str = "\u{0}vvoc-set-aside:";

thread_local! {
    static SET_ASIDE: RefCell<Vec<Value>> = const { RefCell::new(Vec::new()) };
}

/// Runs `read` on `value` with its containers below [`DEPTH`] set aside, and takes apart what no
/// embedded value took back.
pub fn shallow<T>(mut value: Value, read: impl FnOnce(Value) -> T) -> T {
    set_aside(&mut value);
    let read = read(value);
    let left = SET_ASIDE.with(|s| std::mem::take(&mut *s.borrow_mut()));
    left.into_iter().for_each(dismantle);
    read
}

/// Puts back into `value` every part [`shallow`] set aside within it.
pub fn restore(value: &mut Value) {
    let mut stack = vec![value];
    while let Some(value) = stack.pop() {
        let index = match &*value {
            Value::String(text) => text
                .strip_prefix(MARK)
                .and_then(|n| n.parse::<usize>().ok()),
            Value::Null
            | Value::Bool(_)
            | Value::Number(_)
            | Value::Array(_)
            | Value::Object(_) => None,
        };
        if let Some(index) = index {
            let part = SET_ASIDE.with(|s| s.borrow_mut().get_mut(index).map(std::mem::take));
            if let Some(part) = part {
                *value = part;
            }
            continue;
        }
        match value {
            Value::Array(items) => stack.extend(items.iter_mut()),
            Value::Object(map) => stack.extend(map.values_mut()),
            Value::Null | Value::Bool(_) | Value::Number(_) | Value::String(_) => {}
        }
    }
}

fn set_aside(value: &mut Value) {
    let mut stack = vec![(value, 0)];
    while let Some((value, depth)) = stack.pop() {
        match value {
            Value::Array(_) | Value::Object(_) if depth >= DEPTH => {
                let part = std::mem::replace(value, Value::Null);
                let index = SET_ASIDE.with(|s| {
                    let mut s = s.borrow_mut();
                    s.push(part);
                    s.len() - 1
                });
                *value = Value::String(format!("{MARK}{index}"));
            }
            Value::Array(items) => stack.extend(items.iter_mut().map(|v| (v, depth + 1))),
            Value::Object(map) => stack.extend(map.values_mut().map(|v| (v, depth + 1))),
            Value::Null | Value::Bool(_) | Value::Number(_) | Value::String(_) => {}
        }
    }
}
