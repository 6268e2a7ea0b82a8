//! Mutations of vector inputs: one to three of drop, add, retype, swap, graft (a member of another
//! vector, often of another tool), `length` objects, dictionary strings and numbers, duplicated
//! elements, reordered members, and values nested past the depth readers tend to allow.

use vvoc_reference::{JsString, Json, Object};

use crate::fuzz::dictionary::{self, NUMBERS};
use crate::fuzz::edit::{self, Change};
use crate::fuzz::rng::Rng;
use crate::fuzz::sources::Sources;

/// `input` with one to three mutations.
pub(crate) fn mutate(sources: &Sources, rng: &mut Rng, input: &Json) -> Json {
    let mut value = once(sources, rng, input);
    for _ in 0..rng.below(3) {
        value = once(sources, rng, &value);
    }
    value
}

/// One mutation at a random place.
fn once(sources: &Sources, rng: &mut Rng, value: &Json) -> Json {
    let size = edit::size(value);
    // The root is changed only by the mutations that add to it.
    let at = 1 + rng.below(size.saturating_sub(1).max(1));
    match rng.below(20) {
        0..3 => edit::change(value, at, |_| Change::Remove),
        3..6 => into_object(rng, value, |rng, members| {
            let name = sources.stray_name(rng);
            let at = rng.below(members.len() + 1);
            members.insert(at, (name, sources.any_value(rng)));
        }),
        6..8 => edit::change(value, at, |_| Change::Replace(sources.any_value(rng))),
        8..10 => into_object(rng, value, |rng, members| {
            if let Some(member) = sources.graft(rng) {
                let at = rng.below(members.len() + 1);
                members.insert(at, member);
            }
        }),
        10 => edit::change(value, at, |_| {
            let members = [(
                JsString::from("length"),
                dictionary::length_value(rng, &[0, 1, 2, 128, 2000]),
            )];
            Change::Replace(Json::Object(Object::from_members(members)))
        }),
        11..14 => edit::change(value, at, |old| {
            Change::Replace(Json::String(string_like(sources, rng, old)))
        }),
        14..16 => edit::change(value, at, |old| {
            Change::Replace(Json::Number(number_like(rng, old)))
        }),
        16 => into_object(rng, value, |rng, members| {
            // Two members trade values (or, with one member, the order is kept).
            if members.len() >= 2 {
                let (i, j) = (rng.below(members.len()), rng.below(members.len()));
                let (a, b) = (members[i].1.clone(), members[j].1.clone());
                members[i].1 = b;
                members[j].1 = a;
            }
        }),
        17 => into_object(rng, value, |_, members| members.reverse()),
        18 => into_array(rng, value, |rng, items| {
            if let Some(item) = rng.pick(items).cloned() {
                let at = rng.below(items.len() + 1);
                items.insert(at, item);
            }
        }),
        _ => match rng.percent(10) {
            true => edit::change(value, at, |_| Change::Replace(sources.deep_value(rng))),
            false => edit::change(value, at, |_| Change::Replace(Json::Null)),
        },
    }
}

/// A string in place of `old`: a dictionary string, or `old` padded or with a hard character.
fn string_like(sources: &Sources, rng: &mut Rng, old: &Json) -> JsString {
    match (old, rng.below(3)) {
        (Json::String(text), 0) => {
            let mut text = text.clone();
            dictionary::pad(rng, &mut text);
            text
        }
        (Json::String(text), 1) => {
            let mut text = text.clone();
            dictionary::sprinkle(rng, &mut text);
            text
        }
        _ => sources.hard_string(rng),
    }
}

/// A number in place of `old`: its neighbours, half-steps and sign change, or an edge number.
fn number_like(rng: &mut Rng, old: &Json) -> f64 {
    match (old, rng.below(2)) {
        (Json::Number(n), 0) => {
            let steps = [1.0, -1.0, 0.5, -0.5];
            match rng.percent(20) {
                true => -n,
                false => n + steps[rng.below(steps.len())],
            }
        }
        _ => *rng.pick(NUMBERS).unwrap_or(&0.0),
    }
}

/// `value` with one of its objects (at random) changed through its member list.
fn into_object(
    rng: &mut Rng,
    value: &Json,
    change: impl FnOnce(&mut Rng, &mut Vec<(JsString, Json)>),
) -> Json {
    let objects = edit::positions(value, &|v| v.as_object().is_some());
    let Some(&at) = rng.pick(&objects) else {
        return value.clone();
    };
    edit::change(value, at, |old| {
        let mut members: Vec<(JsString, Json)> = old
            .as_object()
            .map(|o| o.iter().map(|(k, v)| (k.clone(), v.clone())).collect())
            .unwrap_or_default();
        change(rng, &mut members);
        Change::Replace(Json::Object(Object::from_members(members)))
    })
}

/// `value` with one of its arrays (at random) changed through its elements.
fn into_array(rng: &mut Rng, value: &Json, change: impl FnOnce(&mut Rng, &mut Vec<Json>)) -> Json {
    let arrays = edit::positions(value, &|v| v.as_array().is_some());
    let Some(&at) = rng.pick(&arrays) else {
        return value.clone();
    };
    edit::change(value, at, |old| {
        let mut items = old.as_array().map(<[Json]>::to_vec).unwrap_or_default();
        change(rng, &mut items);
        Change::Replace(Json::Array(items))
    })
}
