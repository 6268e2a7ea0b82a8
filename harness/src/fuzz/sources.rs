//! Where generated and mutated values come from: the catalog's member names and vocabularies,
//! members of the vectors to graft, values of any type, hard strings from the dictionaries,
//! deeply nested values. Generation and mutation both draw from it.

use vvoc_reference::catalog::Node;
use vvoc_reference::{JsString, Json, Object, Tool};

use crate::fuzz::dictionary::{self, ABSOLUTE, ANCHORS, KEYS, NUMBERS, WORDS};
use crate::fuzz::edit;
use crate::fuzz::rng::Rng;

/// The sources of values of a run.
#[derive(Debug)]
pub(crate) struct Sources {
    /// Every declared member name of every tool, for grafts and unknown keys.
    names: Vec<&'static str>,
    /// Every vocabulary value of every tool.
    vocabulary: Vec<&'static str>,
    /// Members of the vectors' objects, of every tool, to graft into others.
    grafts: Vec<(JsString, Json)>,
}

/// How many nodes a member of a vector may have to be grafted elsewhere.
const MAX_GRAFT: usize = 200;

/// How deep the nested-value mutation nests: around the depth where readers give up.
const DEEP: [usize; 4] = [511, 512, 513, 600];

impl Sources {
    /// The names and vocabularies of every tool, and the members of `vectors` to graft.
    pub(crate) fn new<'a>(vectors: impl IntoIterator<Item = &'a Json>) -> Sources {
        let mut names = Vec::new();
        let mut vocabulary = Vec::new();
        for tool in Tool::ALL {
            for field in &tool.spec().fields {
                gather(&field.node, field.name, &mut names, &mut vocabulary);
            }
        }
        names.sort_unstable();
        names.dedup();
        vocabulary.sort_unstable();
        vocabulary.dedup();
        let mut grafts = Vec::new();
        for input in vectors {
            members_of(input, &mut grafts);
        }
        Sources {
            names,
            vocabulary,
            grafts,
        }
    }

    /// A value of some vocabulary (of any tool).
    pub(crate) fn word(&self, rng: &mut Rng) -> JsString {
        JsString::from(*rng.pick(&self.vocabulary).unwrap_or(&""))
    }

    /// A member name to add where it is not declared: a host-sensitive or odd name, a name
    /// declared elsewhere in the catalog, or a word.
    pub(crate) fn stray_name(&self, rng: &mut Rng) -> JsString {
        match rng.below(3) {
            0 => JsString::from(*rng.pick(KEYS).unwrap_or(&"typo")),
            1 => JsString::from(*rng.pick(&self.names).unwrap_or(&"typo")),
            _ => JsString::from(*rng.pick(WORDS).unwrap_or(&"x")),
        }
    }

    /// A member of some vector's object, to graft elsewhere.
    pub(crate) fn graft(&self, rng: &mut Rng) -> Option<(JsString, Json)> {
        rng.pick(&self.grafts).cloned()
    }

    /// A value of any type, small, often hard.
    pub(crate) fn any_value(&self, rng: &mut Rng) -> Json {
        match rng.below(9) {
            0 => Json::Null,
            1 => Json::Bool(rng.percent(50)),
            2 => Json::Number(*rng.pick(NUMBERS).unwrap_or(&0.0)),
            3 => Json::String(self.hard_string(rng)),
            4 => Json::str(rng.pick(&self.vocabulary).unwrap_or(&"view")),
            5 => Json::Array(Vec::new()),
            6 => Json::Array(vec![Json::str(rng.pick(WORDS).unwrap_or(&"a"))]),
            7 => Json::Object(Object::new()),
            _ => length_object(rng, &[0, 1, 2]),
        }
    }

    /// A string from the dictionaries: a URL, a workspace path, an anchor, a hard character, a
    /// padded or blank text.
    pub(crate) fn hard_string(&self, rng: &mut Rng) -> JsString {
        match rng.below(8) {
            0 => dictionary::url(rng),
            1 => dictionary::workspace_path(rng),
            2 => JsString::from(*rng.pick(ANCHORS).unwrap_or(&"")),
            3 => JsString::from(*rng.pick(ABSOLUTE).unwrap_or(&"/a")),
            4 => {
                let mut text = JsString::from(*rng.pick(WORDS).unwrap_or(&"a"));
                dictionary::pad(rng, &mut text);
                text
            }
            5 => blank(rng),
            6 => {
                let mut text = JsString::new();
                dictionary::hard_char(rng, &mut text);
                text
            }
            _ => {
                let units = *rng
                    .pick(&[0usize, 1, 127, 128, 129, 511, 513])
                    .unwrap_or(&1);
                of_length(rng, units)
            }
        }
    }

    /// A value nested `depth` arrays (or objects) deep.
    pub(crate) fn deep_value(&self, rng: &mut Rng) -> Json {
        let depth = DEEP[rng.below(DEEP.len())];
        let objects = rng.percent(30);
        let mut value = Json::Array(Vec::new());
        for _ in 0..depth {
            value = match objects {
                true => Json::Object(Object::from_members([(JsString::from("a"), value)])),
                false => Json::Array(vec![value]),
            };
        }
        value
    }
}

/// `{"length": ...}`, now and then with another member.
pub(crate) fn length_object(rng: &mut Rng, bounds: &[u32]) -> Json {
    let mut members = vec![(
        JsString::from("length"),
        dictionary::length_value(rng, bounds),
    )];
    if rng.percent(20) {
        members.push((JsString::from("0"), Json::str("a")));
    }
    Json::Object(Object::from_members(members))
}

/// A text of trimming-set members only (sometimes empty).
pub(crate) fn blank(rng: &mut Rng) -> JsString {
    let mut text = JsString::new();
    for _ in 0..rng.below(3) {
        text.push(*rng.pick(dictionary::TRIM).unwrap_or(&' '));
    }
    text
}

/// A text of exactly `units` UTF-16 units, none of them trimmed: `a`s, sometimes ending in an
/// astral character or mixing combining marks in.
pub(crate) fn of_length(rng: &mut Rng, units: usize) -> JsString {
    let mut out: Vec<u16> = Vec::with_capacity(units);
    match rng.below(3) {
        0 if units >= 2 => {
            out.resize(units - 2, u16::from(b'a'));
            out.extend([0xD83D, 0xDE00]);
        }
        1 => {
            for i in 0..units {
                out.push(match i % 2 {
                    0 => u16::from(b'e'),
                    _ => 0x0301,
                });
            }
        }
        _ => out.resize(units, u16::from(b'a')),
    }
    JsString::from_units(out)
}

/// Every member name and vocabulary value below a node.
fn gather(
    node: &Node,
    name: &'static str,
    names: &mut Vec<&'static str>,
    vocabulary: &mut Vec<&'static str>,
) {
    names.push(name);
    match node {
        Node::Object(fields) => {
            for field in fields {
                gather(&field.node, field.name, names, vocabulary);
            }
        }
        Node::Array(element, _) => gather(element, name, names, vocabulary),
        Node::Union(branches) => branches
            .iter()
            .for_each(|b| gather(b, name, names, vocabulary)),
        Node::Enum(values) => vocabulary.extend(values.iter().copied()),
        Node::Literal(value) => vocabulary.push(value),
        Node::String(_) | Node::Integer(_) | Node::Number(_) | Node::Boolean | Node::Null => {}
    }
}

/// Every member of every object inside `value` whose value is small enough to graft.
fn members_of(value: &Json, out: &mut Vec<(JsString, Json)>) {
    let mut stack = vec![value];
    while let Some(value) = stack.pop() {
        match value {
            Json::Object(object) => {
                for (name, member) in object.iter() {
                    if edit::size(member) <= MAX_GRAFT {
                        out.push((name.clone(), member.clone()));
                    }
                    stack.push(member);
                }
            }
            Json::Array(items) => stack.extend(items.iter()),
            Json::Null | Json::Bool(_) | Json::Number(_) | Json::String(_) => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grafts_are_the_small_members_of_the_vectors_at_any_depth() {
        let vector = Json::parse(r#"{"a":{"b":1},"c":[{"d":"x"}]}"#).expect("JSON");
        let sources = Sources::new([&vector]);
        let names: Vec<String> = sources.grafts.iter().map(|(k, _)| k.to_string()).collect();
        assert_eq!(names.len(), 4, "{names:?}");
        for name in ["a", "b", "c", "d"] {
            assert!(names.iter().any(|n| n == name), "{name} in {names:?}");
        }
        assert!(Sources::new([]).graft(&mut Rng::for_input(1, 1)).is_none());
    }

    #[test]
    fn a_deep_value_nests_past_the_depth_readers_allow() {
        let sources = Sources::new([]);
        let mut rng = Rng::for_input(3, 9);
        let value = sources.deep_value(&mut rng);
        let mut depth = 0;
        let mut at = &value;
        while let Some(next) = at
            .as_array()
            .and_then(|a| a.first())
            .or_else(|| at.as_object().and_then(|o| o.get("a")))
        {
            depth += 1;
            at = next;
        }
        assert!(DEEP.contains(&depth), "{depth}");
    }
}
