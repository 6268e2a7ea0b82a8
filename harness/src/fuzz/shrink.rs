//! Shrinking a disagreement to a smallest input that still disagrees the same way (same class):
//! structure first (drop members and elements, hoist children), then shorter and plainer strings,
//! then simpler numbers. Greedy and deterministic: candidates are tried in a fixed order, the
//! first of the same class that is smaller by [`measure`] is taken, and the search starts over.

use std::cmp::Ordering;

use vvoc_reference::{JsString, Json, Object, Tool};

use super::class::Class;
use super::edit::{self, Change};

/// What tells the shrinker the class of candidate inputs (the reference and the peer).
pub trait Oracle {
    /// The class of each candidate's disagreement, `None` where the answers agree; `None` for
    /// all once the peer is gone.
    fn classes(&mut self, tool: Tool, candidates: &[Json]) -> Vec<Option<Class>>;
}

/// How many candidates go to the oracle at once (they are pipelined to a peer).
const BATCH: usize = 16;

/// Shrinks `input`, whose disagreement is of `class`, asking the oracle about at most `budget`
/// candidates; returns the smallest input found.
pub fn shrink(
    tool: Tool,
    input: &Json,
    class: &Class,
    oracle: &mut impl Oracle,
    budget: usize,
) -> Json {
    let mut current = input.clone();
    let mut asked = 0;
    'search: loop {
        let size = measure(&current);
        for phase in [structure, strings, numbers, names] {
            let candidates: Vec<Json> = phase(&current)
                .into_iter()
                .filter(|c| measure(c) < size)
                .collect();
            for batch in candidates.chunks(BATCH) {
                if asked >= budget {
                    break 'search;
                }
                let batch = &batch[..batch.len().min(budget - asked)];
                asked += batch.len();
                let classes = oracle.classes(tool, batch);
                if let Some(i) = classes.iter().position(|c| c.as_ref() == Some(class)) {
                    current = batch[i].clone();
                    continue 'search;
                }
            }
        }
        break;
    }
    current
}

/// The size an input is judged by, compared in order: nodes, UTF-16 units of strings and member
/// names, how plain those units are (`a` plainest), and how simple its numbers are.
pub fn measure(value: &Json) -> Size {
    let mut size = Size::default();
    add(value, &mut size);
    size
}

/// See [`measure`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
pub struct Size {
    nodes: usize,
    units: usize,
    plainness: usize,
    numbers: u64,
}

fn add(value: &Json, size: &mut Size) {
    size.nodes += 1;
    match value {
        Json::String(s) => text(s, size),
        Json::Number(n) => size.numbers += number_cost(*n),
        Json::Array(items) => items.iter().for_each(|item| add(item, size)),
        Json::Object(object) => {
            for (name, member) in object.iter() {
                text(name, size);
                add(member, size);
            }
        }
        Json::Null | Json::Bool(_) => {}
    }
}

fn text(s: &JsString, size: &mut Size) {
    size.units += s.len();
    size.plainness += s.units().iter().map(|&u| unit_rank(u)).sum::<usize>();
}

/// How plain a unit is: `a` 0, other lowercase letters and digits 1, space 2, other printable
/// ASCII 3, ASCII controls 4, other BMP characters 5, surrogates 6.
fn unit_rank(u: u16) -> usize {
    match u {
        0x61 => 0,
        0x62..=0x7A | 0x30..=0x39 => 1,
        0x20 => 2,
        0x21..=0x7E => 3,
        0x00..=0x1F | 0x7F => 4,
        0xD800..=0xDFFF => 6,
        _ => 5,
    }
}

/// 0 is simplest; then integers by magnitude (a negative one just after its positive), then
/// fractions, then infinities.
fn number_cost(n: f64) -> u64 {
    if n == 0.0 {
        return 0;
    }
    if n.is_infinite() {
        return u64::MAX;
    }
    // Exact below 2^50; beyond, a logarithmic tail keeps halving a step down.
    let limit = 2f64.powi(50);
    let magnitude = match n.abs() < limit {
        true => n.abs().trunc() as u64,
        false => limit as u64 + n.abs().log2() as u64,
    };
    let cost = magnitude * 2 + u64::from(n < 0.0);
    match n.fract() == 0.0 {
        true => cost,
        false => (1 << 60) + cost,
    }
}

/// Each member or element dropped, then each container replaced by one of its children.
fn structure(value: &Json) -> Vec<Json> {
    let size = edit::size(value);
    let mut out: Vec<Json> = (1..size)
        .map(|p| edit::change(value, p, |_| Change::Remove))
        .collect();
    for p in 0..size {
        let Some(node) = edit::get(value, p) else {
            continue;
        };
        for child in edit::children(node) {
            out.push(edit::change(value, p, |_| Change::Replace(child.clone())));
        }
    }
    out
}

/// Each string shortened (emptied, cut from either end by halves down to one unit, short ones
/// unit by unit), then made plainer (all `a`s, one unit at a time to `a` or a space).
fn strings(value: &Json) -> Vec<Json> {
    let mut out = Vec::new();
    for p in edit::positions(value, &|v| matches!(v, Json::String(_))) {
        let Some(Json::String(s)) = edit::get(value, p) else {
            continue;
        };
        for units in shorter(s.units()).into_iter().chain(plainer(s.units())) {
            let replacement = Json::String(JsString::from_units(units));
            out.push(edit::change(value, p, |_| Change::Replace(replacement)));
        }
    }
    out
}

fn shorter(units: &[u16]) -> Vec<Vec<u16>> {
    let n = units.len();
    let mut out = vec![Vec::new()];
    let mut cut = n / 2;
    while cut >= 1 {
        out.push(units[..n - cut].to_vec());
        out.push(units[cut..].to_vec());
        cut /= 2;
    }
    if n <= 64 {
        for i in 0..n {
            let mut fewer = units.to_vec();
            fewer.remove(i);
            out.push(fewer);
        }
    }
    out
}

fn plainer(units: &[u16]) -> Vec<Vec<u16>> {
    let a = u16::from(b'a');
    let mut out = vec![vec![a; units.len()]];
    if units.len() <= 64 {
        for (i, &u) in units.iter().enumerate() {
            for plain in [a, u16::from(b' ')] {
                if unit_rank(plain) < unit_rank(u) {
                    let mut simpler = units.to_vec();
                    simpler[i] = plain;
                    out.push(simpler);
                }
            }
        }
    }
    out
}

/// Member names shortened and made plainer like strings; last, since a declared name seldom
/// can change and every name has many candidates.
fn names(value: &Json) -> Vec<Json> {
    let mut out = Vec::new();
    for p in edit::positions(value, &|v| matches!(v, Json::Object(_))) {
        let Some(Json::Object(object)) = edit::get(value, p) else {
            continue;
        };
        for (i, (name, _)) in object.iter().enumerate() {
            for units in shorter(name.units())
                .into_iter()
                .chain(plainer(name.units()))
            {
                let renamed = Object::from_members(object.iter().enumerate().map(|(j, (k, v))| {
                    match i == j {
                        true => (JsString::from_units(units.clone()), v.clone()),
                        false => (k.clone(), v.clone()),
                    }
                }));
                out.push(edit::change(value, p, |_| {
                    Change::Replace(Json::Object(renamed))
                }));
            }
        }
    }
    out
}

/// Each number made simpler: 0, 1, -1, its integer part, then steps toward 0 of half its size,
/// a quarter, and so on down to 1 (so a bound is approached in a few rounds, not one by one).
fn numbers(value: &Json) -> Vec<Json> {
    let mut out = Vec::new();
    for p in edit::positions(value, &|v| matches!(v, Json::Number(_))) {
        let Some(&Json::Number(n)) = edit::get(value, p) else {
            continue;
        };
        let sign = match n.partial_cmp(&0.0) {
            Some(Ordering::Greater) => 1.0,
            Some(Ordering::Less) => -1.0,
            Some(Ordering::Equal) | None => 0.0,
        };
        let finite = |x: f64| if x.is_finite() { x } else { 0.0 };
        let mut simpler = vec![0.0, 1.0, -1.0, finite(n.trunc())];
        let mut step = finite((n.abs() / 2.0).trunc());
        while step >= 1.0 {
            simpler.push(finite((n - sign * step).trunc()));
            step = (step / 2.0).trunc();
        }
        simpler.push(finite(n - sign));
        for simpler in simpler {
            if number_cost(simpler) < number_cost(n) {
                out.push(edit::change(value, p, |_| {
                    Change::Replace(Json::Number(simpler))
                }));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fuzz::class::Kind;

    fn json(text: &str) -> Json {
        Json::parse(text).expect("JSON")
    }

    /// Disagrees (always in one class) whenever `count` is above 20 and `query` holds `q`.
    struct Planted {
        asked: usize,
    }

    impl Oracle for Planted {
        fn classes(&mut self, _: Tool, candidates: &[Json]) -> Vec<Option<Class>> {
            self.asked += candidates.len();
            candidates
                .iter()
                .map(|c| {
                    let object = c.as_object()?;
                    let count = object.get("count")?.as_f64()?;
                    let query = object.get("query")?.as_string()?.to_string();
                    (count > 20.0 && query.contains('q')).then(class)
                })
                .collect()
        }
    }

    fn class() -> Class {
        Class {
            tool: Tool::WebSearch,
            pattern: "count".to_owned(),
            rule: None,
            kind: Kind::Accepted,
        }
    }

    #[test]
    fn structure_strings_and_numbers_shrink_to_what_the_class_needs() {
        let input =
            json(r#"{"query":"  my query\u00a0","count":1e3,"freshness":"day","x":[1,{"y":"z"}]}"#);
        let mut oracle = Planted { asked: 0 };
        let shrunk = shrink(Tool::WebSearch, &input, &class(), &mut oracle, 10_000);
        assert_eq!(shrunk, json(r#"{"query":"q","count":21}"#));
    }

    #[test]
    fn shrinking_is_deterministic_and_stays_within_its_budget() {
        let input = json(r#"{"query":"qqqq","count":500,"freshness":"week"}"#);
        let mut first = Planted { asked: 0 };
        let a = shrink(Tool::WebSearch, &input, &class(), &mut first, 10_000);
        let mut second = Planted { asked: 0 };
        let b = shrink(Tool::WebSearch, &input, &class(), &mut second, 10_000);
        assert_eq!(a, b);
        assert_eq!(first.asked, second.asked);
        let mut tight = Planted { asked: 0 };
        let c = shrink(Tool::WebSearch, &input, &class(), &mut tight, 5);
        assert!(tight.asked <= 5);
        assert_eq!(
            c.as_object().and_then(|o| o.get("count")),
            Some(&Json::Number(500.0))
        );
    }

    #[test]
    fn a_smaller_measure_means_fewer_nodes_then_fewer_units_then_plainer_text() {
        assert!(measure(&json(r#"{"a":1}"#)) < measure(&json(r#"{"a":[1]}"#)));
        assert!(measure(&json(r#""ab""#)) < measure(&json(r#""abc""#)));
        assert!(measure(&json(r#""aa""#)) < measure(&json(r#""a ""#)));
        assert!(measure(&json("21")) < measure(&json("1e3")));
        assert!(measure(&json("2")) < measure(&json("0.5")));
    }
}
