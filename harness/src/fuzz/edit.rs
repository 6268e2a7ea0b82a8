//! Positions in a JSON value (its nodes in pre-order, the root at 0) and copies of a value with
//! the node at one position replaced or removed: what mutations and the shrinker act through.

use vvoc_reference::{Json, Object};

/// What becomes of the node at the chosen position.
#[derive(Clone, Debug, PartialEq)]
pub enum Change {
    /// It stays as it is.
    Keep,
    /// It is replaced by this value.
    Replace(Json),
    /// It is removed from its object or array (the root is kept instead).
    Remove,
}

/// How many nodes the value has, itself included.
pub fn size(value: &Json) -> usize {
    1 + match value {
        Json::Array(items) => items.iter().map(size).sum(),
        Json::Object(object) => object.iter().map(|(_, v)| size(v)).sum(),
        Json::Null | Json::Bool(_) | Json::Number(_) | Json::String(_) => 0,
    }
}

/// The node at `position`, if the value has that many.
pub fn get(value: &Json, position: usize) -> Option<&Json> {
    find(value, position, &mut 0)
}

/// The positions of the nodes `keep` selects, in pre-order.
pub fn positions(value: &Json, keep: &impl Fn(&Json) -> bool) -> Vec<usize> {
    let mut found = Vec::new();
    collect(value, keep, &mut 0, &mut found);
    found
}

/// The children of an array or object, in order (none for other values).
pub fn children(value: &Json) -> Vec<&Json> {
    match value {
        Json::Array(items) => items.iter().collect(),
        Json::Object(object) => object.iter().map(|(_, v)| v).collect(),
        Json::Null | Json::Bool(_) | Json::Number(_) | Json::String(_) => Vec::new(),
    }
}

/// A copy of `value` with the node at `position` changed by `change` (an unchanged copy when
/// there is no such node).
pub fn change(value: &Json, position: usize, change: impl FnOnce(&Json) -> Change) -> Json {
    let mut change = Some(change);
    rebuild(value, position, &mut 0, &mut change).unwrap_or_else(|| value.clone())
}

fn collect(value: &Json, keep: &impl Fn(&Json) -> bool, at: &mut usize, found: &mut Vec<usize>) {
    if keep(value) {
        found.push(*at);
    }
    *at += 1;
    match value {
        Json::Array(items) => items.iter().for_each(|item| collect(item, keep, at, found)),
        Json::Object(object) => object.iter().for_each(|(_, v)| collect(v, keep, at, found)),
        Json::Null | Json::Bool(_) | Json::Number(_) | Json::String(_) => {}
    }
}

fn find<'a>(value: &'a Json, position: usize, at: &mut usize) -> Option<&'a Json> {
    if *at == position {
        return Some(value);
    }
    *at += 1;
    match value {
        Json::Array(items) => items.iter().find_map(|item| find(item, position, at)),
        Json::Object(object) => object.iter().find_map(|(_, v)| find(v, position, at)),
        Json::Null | Json::Bool(_) | Json::Number(_) | Json::String(_) => None,
    }
}

/// The node rebuilt with the change applied at `position` (counting from `at`, which the walk
/// advances node by node until the change is made); `None` when the node itself is removed.
/// One walk in pre-order: a copy is made anyway, so nothing is measured.
fn rebuild<F: FnOnce(&Json) -> Change>(
    value: &Json,
    position: usize,
    at: &mut usize,
    change: &mut Option<F>,
) -> Option<Json> {
    let here = *at;
    *at += 1;
    if here == position {
        return match change.take().map(|f| f(value)) {
            Some(Change::Replace(replacement)) => Some(replacement),
            Some(Change::Remove) => None,
            Some(Change::Keep) | None => Some(value.clone()),
        };
    }
    // Once the change is made, the positions that follow no longer matter: the rest is copied.
    if change.is_none() {
        return Some(value.clone());
    }
    Some(match value {
        Json::Array(items) => Json::Array(
            items
                .iter()
                .filter_map(|item| rebuild(item, position, at, change))
                .collect(),
        ),
        Json::Object(object) => {
            Json::Object(Object::from_members(object.iter().filter_map(
                |(name, v)| rebuild(v, position, at, change).map(|v| (name.clone(), v)),
            )))
        }
        Json::Null | Json::Bool(_) | Json::Number(_) | Json::String(_) => value.clone(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn json(text: &str) -> Json {
        Json::parse(text).expect("JSON")
    }

    #[test]
    fn positions_count_nodes_in_pre_order() {
        let value = json(r#"{"a":[1,{"b":2}],"c":"x"}"#);
        assert_eq!(size(&value), 6);
        assert_eq!(get(&value, 3), Some(&json(r#"{"b":2}"#)));
        assert_eq!(get(&value, 5), Some(&Json::str("x")));
        assert_eq!(get(&value, 6), None);
        assert_eq!(positions(&value, &|v| v.as_object().is_some()), vec![0, 3]);
    }

    #[test]
    fn a_change_rebuilds_only_its_node() {
        let value = json(r#"{"a":[1,{"b":2}],"c":"x"}"#);
        let removed = change(&value, 2, |_| Change::Remove);
        assert_eq!(removed, json(r#"{"a":[{"b":2}],"c":"x"}"#));
        let replaced = change(&value, 4, |_| Change::Replace(Json::Null));
        assert_eq!(replaced, json(r#"{"a":[1,{"b":null}],"c":"x"}"#));
        assert_eq!(change(&value, 0, |_| Change::Remove), value);
        assert_eq!(change(&value, 9, |_| Change::Remove), value);
    }
}
