//! Walks over `Json` values that never recurse, so a value nested as deep as its text allows is
//! cloned, compared, folded and dropped in a bounded amount of stack.
//!
//! The host reads JSON of any depth (upstream answers a verdict for a million levels), so the
//! reference must too; a derived `Clone`, `PartialEq` or drop would recurse once per level and
//! overflow the stack long before the input's size ran out.

use std::cell::Cell;
use std::fmt;
use std::mem;
use std::slice;

use super::{Json, Object};
use crate::js_string::JsString;

impl Json {
    /// Rebuilds the value bottom-up, however deep it nests: `leaf` maps every null, boolean,
    /// number and string; `array` and `object` build a container from its elements or members,
    /// already mapped, in order.
    pub fn fold<'a, T>(
        &'a self,
        leaf: impl FnMut(&'a Json) -> T,
        array: impl FnMut(Vec<T>) -> T,
        object: impl FnMut(Vec<(&'a JsString, T)>) -> T,
    ) -> T {
        fold_tree(self, leaf, array, object)
    }
}

/// A tree of JSON values that [`fold_tree`] walks: `Json`, and `serde_json::Value` read into it.
pub(super) trait Tree: Sized {
    /// A member's name.
    type Name<'a>
    where
        Self: 'a;
    /// The elements or members of a container, in order; nothing for other values.
    type Children<'a>: Iterator<Item = (Option<Self::Name<'a>>, &'a Self)>
    where
        Self: 'a;
    /// The children of the value.
    fn children(&self) -> Self::Children<'_>;
    /// Whether the value is an array, an object, or neither.
    fn container(&self) -> Option<Container>;
}

/// The two kinds of value that hold others.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Container {
    /// An array.
    Array,
    /// An object.
    Object,
}

/// [`Json::fold`] over any [`Tree`], with a stack of its own instead of one call per level.
pub(super) fn fold_tree<'a, N: Tree, T>(
    root: &'a N,
    mut leaf: impl FnMut(&'a N) -> T,
    mut array: impl FnMut(Vec<T>) -> T,
    mut object: impl FnMut(Vec<(N::Name<'a>, T)>) -> T,
) -> T {
    // The mapped elements and member names of every open container, in one stack each; a
    // container's start in `done` is kept in its frame.
    let mut done: Vec<T> = Vec::new();
    let mut names: Vec<N::Name<'a>> = Vec::new();
    let mut frames: Vec<(N::Children<'a>, Container, usize)> = Vec::new();
    let mut node = root;
    loop {
        // Open containers down to the first leaf or empty container.
        let mut value = loop {
            let mut children = node.children();
            match (node.container(), children.next()) {
                (Some(kind), Some((name, first))) => {
                    names.extend(name);
                    frames.push((children, kind, done.len()));
                    node = first;
                }
                (Some(Container::Array), None) => break array(Vec::new()),
                (Some(Container::Object), None) => break object(Vec::new()),
                (None, _) => break leaf(node),
            }
        };
        // Hand the value to its container; build each container that ends here.
        loop {
            let Some((mut children, kind, start)) = frames.pop() else {
                return value;
            };
            done.push(value);
            if let Some((name, next)) = children.next() {
                names.extend(name);
                frames.push((children, kind, start));
                node = next;
                break;
            }
            let items = done.split_off(start);
            value = match kind {
                Container::Array => array(items),
                Container::Object => {
                    let names = names.split_off(names.len() - items.len());
                    object(names.into_iter().zip(items).collect())
                }
            };
        }
    }
}

impl Tree for Json {
    type Name<'a> = &'a JsString;
    type Children<'a> = Children<'a>;

    fn children(&self) -> Children<'_> {
        Children::of(self)
    }

    fn container(&self) -> Option<Container> {
        match self {
            Json::Array(_) => Some(Container::Array),
            Json::Object(_) => Some(Container::Object),
            Json::Null | Json::Bool(_) | Json::Number(_) | Json::String(_) => None,
        }
    }
}

impl Tree for serde_json::Value {
    type Name<'a> = &'a String;
    type Children<'a> = SerdeChildren<'a>;

    fn children(&self) -> SerdeChildren<'_> {
        match self {
            serde_json::Value::Array(items) => SerdeChildren::Array(items.iter()),
            serde_json::Value::Object(map) => SerdeChildren::Object(map.iter()),
            _ => SerdeChildren::Array([].iter()),
        }
    }

    fn container(&self) -> Option<Container> {
        match self {
            serde_json::Value::Array(_) => Some(Container::Array),
            serde_json::Value::Object(_) => Some(Container::Object),
            _ => None,
        }
    }
}

/// The elements or members of a `serde_json` value.
#[derive(Debug)]
pub(super) enum SerdeChildren<'a> {
    /// An array's elements.
    Array(slice::Iter<'a, serde_json::Value>),
    /// An object's members.
    Object(serde_json::map::Iter<'a>),
}

impl<'a> Iterator for SerdeChildren<'a> {
    type Item = (Option<&'a String>, &'a serde_json::Value);

    fn next(&mut self) -> Option<Self::Item> {
        match self {
            SerdeChildren::Array(items) => items.next().map(|v| (None, v)),
            SerdeChildren::Object(members) => members.next().map(|(k, v)| (Some(k), v)),
        }
    }
}

/// Equality of two values, numbers compared by `same_number`.
pub(super) fn equal(a: &Json, b: &Json, same_number: fn(f64, f64) -> bool) -> bool {
    let mut pending: Vec<(&Json, &Json)> = Vec::new();
    let (mut a, mut b) = (a, b);
    loop {
        let same = match (a, b) {
            (Json::Null, Json::Null) => true,
            (Json::Bool(x), Json::Bool(y)) => x == y,
            (Json::Number(x), Json::Number(y)) => same_number(*x, *y),
            (Json::String(x), Json::String(y)) => x == y,
            (Json::Array(x), Json::Array(y)) => {
                pending.extend(x.iter().zip(y));
                x.len() == y.len()
            }
            (Json::Object(x), Json::Object(y)) => {
                let mut pairs = x.members.iter().zip(&y.members);
                pending.extend(pairs.clone().map(|((_, x), (_, y))| (x, y)));
                x.len() == y.len() && pairs.all(|((m, _), (n, _))| m == n)
            }
            (
                Json::Null
                | Json::Bool(_)
                | Json::Number(_)
                | Json::String(_)
                | Json::Array(_)
                | Json::Object(_),
                _,
            ) => false,
        };
        if !same {
            return false;
        }
        match pending.pop() {
            Some((x, y)) => (a, b) = (x, y),
            None => return true,
        }
    }
}

impl Clone for Json {
    fn clone(&self) -> Json {
        self.fold(Json::clone_scalar, Json::Array, |members| {
            let members = members.into_iter().map(|(k, v)| (k.clone(), v)).collect();
            // The members of a value are already in the host's order, each name once.
            Json::Object(Object { members })
        })
    }
}

impl Json {
    /// A copy of a null, boolean, number or string (the fold never gives it a container; one
    /// would come back empty).
    fn clone_scalar(&self) -> Json {
        match self {
            Json::Null => Json::Null,
            Json::Bool(b) => Json::Bool(*b),
            Json::Number(n) => Json::Number(*n),
            Json::String(s) => Json::String(s.clone()),
            Json::Array(_) => Json::Array(Vec::new()),
            Json::Object(_) => Json::Object(Object::default()),
        }
    }
}

/// Numbers compare as doubles: `NaN` differs from itself, `-0` equals `0`.
impl PartialEq for Json {
    fn eq(&self, other: &Json) -> bool {
        equal(self, other, |x, y| x == y)
    }
}

/// Shows the compact JSON text (`{"a":[1]}`), which a derived form could not reach at depth.
impl fmt::Debug for Json {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_compact())
    }
}

/// Drops a value's children in calls one level deeper each, as far as [`DROP_DEPTH`] levels, and
/// what nests deeper from a stack of its own, not one call per level.
///
/// Almost every value (a tool's input, an output) is a few levels deep and drops by calls alone,
/// each child looked at once; only a value deeper than that pays for the stack.
impl Drop for Json {
    fn drop(&mut self) {
        // Leaves and empty containers have nothing to drop first.
        let filled = match self {
            Json::Array(items) => !items.is_empty(),
            Json::Object(object) => !object.members.is_empty(),
            Json::Null | Json::Bool(_) | Json::Number(_) | Json::String(_) => false,
        };
        if !filled {
            return;
        }
        let depth = DROPPING.get();
        if depth < DROP_DEPTH {
            DROPPING.set(depth + 1);
            drop_children(self);
            DROPPING.set(depth);
            return;
        }
        let mut nested = Vec::new();
        take_nested(self, &mut nested);
        while let Some(mut value) = nested.pop() {
            take_nested(&mut value, &mut nested);
            // What is left in `value` holds nothing nested, so it drops here in a call or two.
            drop_children(&mut value);
        }
    }
}

/// Drops the elements or members of a container here, leaving it empty.
fn drop_children(value: &mut Json) {
    match value {
        Json::Array(items) => drop(mem::take(items)),
        Json::Object(object) => drop(mem::take(&mut object.members)),
        Json::Null | Json::Bool(_) | Json::Number(_) | Json::String(_) => {}
    }
}

/// How many levels of drops may run inside one another on a thread before the rest of a value is
/// taken apart from a stack: a few kilobytes of the thread's stack.
const DROP_DEPTH: u32 = 64;

thread_local! {
    /// How many drops of containers run inside one another on this thread.
    static DROPPING: Cell<u32> = const { Cell::new(0) };
}

/// Moves out of a container every element or member that holds a non-empty container, leaving
/// null in its place. What stays is at most two levels deep, so dropping it cannot go deeper,
/// and a value that is flat (the usual input) is dropped without allocating.
fn take_nested(value: &mut Json, into: &mut Vec<Json>) {
    let mut take = |item: &mut Json| {
        if holds_container(item) {
            into.push(mem::replace(item, Json::Null));
        }
    };
    match value {
        Json::Array(items) => items.iter_mut().for_each(take),
        Json::Object(object) => object.members.iter_mut().for_each(|(_, item)| take(item)),
        Json::Null | Json::Bool(_) | Json::Number(_) | Json::String(_) => {}
    }
}

/// Whether some element or member of `value` is a container with something in it.
fn holds_container(value: &Json) -> bool {
    let filled = |child: &Json| match child {
        Json::Array(items) => !items.is_empty(),
        Json::Object(object) => !object.members.is_empty(),
        Json::Null | Json::Bool(_) | Json::Number(_) | Json::String(_) => false,
    };
    match value {
        Json::Array(items) => items.iter().any(filled),
        Json::Object(object) => object.members.iter().any(|(_, child)| filled(child)),
        Json::Null | Json::Bool(_) | Json::Number(_) | Json::String(_) => false,
    }
}

/// The elements of an array or the members of an object, in order; nothing for other values.
#[derive(Clone, Debug)]
pub(super) enum Children<'a> {
    /// An array's elements.
    Array(slice::Iter<'a, Json>),
    /// An object's members.
    Object(slice::Iter<'a, (JsString, Json)>),
}

impl<'a> Children<'a> {
    /// The children of `value`.
    pub(super) fn of(value: &'a Json) -> Children<'a> {
        match value {
            Json::Array(items) => Children::Array(items.iter()),
            Json::Object(object) => Children::Object(object.members.iter()),
            Json::Null | Json::Bool(_) | Json::Number(_) | Json::String(_) => {
                Children::Array([].iter())
            }
        }
    }
}

impl<'a> Iterator for Children<'a> {
    /// The member's name (none for an element), and the value.
    type Item = (Option<&'a JsString>, &'a Json);

    fn next(&mut self) -> Option<Self::Item> {
        match self {
            Children::Array(items) => items.next().map(|v| (None, v)),
            Children::Object(members) => members.next().map(|(k, v)| (Some(k), v)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A million levels: arrays and objects in turn, each with a sibling before the deeper value.
    const DEPTH: usize = 1_000_000;

    /// The text of a value `depth` levels deep whose innermost value is `bottom`.
    fn deep_text(depth: usize, bottom: &str) -> String {
        let mut text = String::with_capacity(depth * 6);
        for level in 0..depth {
            text.push_str(if level % 2 == 0 {
                "[0,"
            } else {
                r#"{"a":1,"k":"#
            });
        }
        text.push_str(bottom);
        for level in (0..depth).rev() {
            text.push(if level % 2 == 0 { ']' } else { '}' });
        }
        text
    }

    /// Runs `f` on a thread with a 256 KiB stack, which one call per level would overflow
    /// within a few thousand levels (the whole test program then dies).
    fn on_small_stack(f: impl FnOnce() + Send + 'static) {
        std::thread::Builder::new()
            .stack_size(256 * 1024)
            .spawn(f)
            .expect("a thread")
            .join()
            .expect("the checks passed on a small stack");
    }

    /// How deep a value nests, by a fold.
    fn depth_of(value: &Json) -> usize {
        let deepest = |items: Vec<usize>| items.into_iter().max().unwrap_or(0) + 1;
        value.fold(
            |_| 0,
            deepest,
            |members| deepest(members.into_iter().map(|(_, d)| d).collect()),
        )
    }

    #[test]
    fn a_value_a_million_levels_deep_is_parsed_printed_and_dropped_on_a_small_stack() {
        on_small_stack(|| {
            let text = deep_text(DEPTH, r#""x""#);
            let value = Json::parse(&text).expect("any depth is read");
            assert_eq!(depth_of(&value), DEPTH);
            assert_eq!(value.to_compact(), text);
            assert_eq!(format!("{value:?}"), text);
            drop(value);
        });
    }

    #[test]
    fn a_value_a_million_levels_deep_is_cloned_and_compared_on_a_small_stack() {
        on_small_stack(|| {
            let value = Json::parse(&deep_text(DEPTH, "1")).expect("read");
            let copy = value.clone();
            assert!(copy == value && copy.same_as(&value));
            let other = Json::parse(&deep_text(DEPTH, "1.5")).expect("read");
            assert!(other != value && !other.same_as(&value));
            let nan = Json::parse(&deep_text(DEPTH, "1")).expect("read").fold(
                |leaf| match leaf {
                    Json::Number(n) if *n == 1.0 => Json::Number(f64::NAN),
                    other => other.clone(),
                },
                Json::Array,
                |members| {
                    Json::Object(Object::from_members(
                        members.into_iter().map(|(k, v)| (k.clone(), v)),
                    ))
                },
            );
            assert!(nan != nan.clone() && nan.same_as(&nan.clone()), "NaN");
        });
    }

    #[test]
    fn a_value_of_only_objects_or_only_arrays_nested_deep_drops_on_a_small_stack() {
        // Each kind of container on its own must keep the drop's calls bounded.
        on_small_stack(|| {
            const LEVELS: usize = 200_000;
            for (open, close) in [(r#"{"a":"#, "}"), ("[", "]")] {
                let text = format!("{}1{}", open.repeat(LEVELS), close.repeat(LEVELS));
                let value = Json::parse(&text).expect("read");
                assert_eq!(depth_of(&value), LEVELS);
                drop(value);
            }
        });
    }

    #[test]
    fn a_pretty_deep_value_reads_back_as_itself() {
        // Pretty text grows with the square of the depth, so a few thousand levels do.
        on_small_stack(|| {
            let value = Json::parse(&deep_text(3_000, "null")).expect("read");
            let pretty = value.to_pretty();
            assert_eq!(Json::parse(&pretty).as_ref(), Ok(&value));
            assert!(pretty.ends_with("\n    ]\n  }\n]"), "{pretty:.100}");
        });
    }

    #[test]
    fn many_deep_siblings_and_serde_values_are_dropped_on_a_small_stack() {
        on_small_stack(|| {
            let one = deep_text(10_000, "[]");
            let text = format!("[{}]", vec![one.as_str(); 100].join(","));
            let value = Json::parse(&text).expect("read");
            assert_eq!(value.as_array().map(<[Json]>::len), Some(100));
            drop(value);
            // `serde_json` values of any depth cross into the model too.
            let mut deep = serde_json::Value::Null;
            for _ in 0..100_000 {
                deep = serde_json::Value::Array(vec![deep]);
            }
            let crossed = Json::from(&deep);
            assert_eq!(depth_of(&crossed), 100_000);
            // A `serde_json` value drops one call per level; this one is taken apart here.
            while let serde_json::Value::Array(mut items) = deep {
                deep = items.pop().unwrap_or_default();
            }
        });
    }
}
