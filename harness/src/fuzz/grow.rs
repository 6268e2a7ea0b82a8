//! One input grown from the catalog: each value drawn valid most of the time (so inputs reach
//! the branch rules) and otherwise at or past an edge of its node: bounds in UTF-16 units, the
//! trimming set, vocabularies, wrong types, `length` members; a selector's matrix respected.

use vvoc_reference::catalog::{Count, Limit, Range, StringKind};
use vvoc_reference::{JsString, Json, Object};

use crate::fuzz::dictionary::{self, ABSOLUTE, ANCHORS, NUMBERS, WIDE, WORDS};
use crate::fuzz::rng::Rng;
use crate::fuzz::shape::{Member, Role, Shape, ToolShape, length_bounds};
use crate::fuzz::sources::{Sources, blank, length_object, of_length};

/// One input being grown: its random stream and how hard it leans on edges.
#[derive(Debug)]
pub(crate) struct Grow<'a> {
    rng: &'a mut Rng,
    /// Percent of values taken past an edge.
    rate: u32,
    /// Percent of optional members present (outside a selector's matrix).
    optional: u32,
    sources: &'a Sources,
}

impl<'a> Grow<'a> {
    /// An input grown from `rng`, taking `rate` percent of its values past an edge and
    /// `optional` percent of its optional members.
    pub(crate) fn new(
        rng: &'a mut Rng,
        rate: u32,
        optional: u32,
        sources: &'a Sources,
    ) -> Grow<'a> {
        Grow {
            rng,
            rate,
            optional,
            sources,
        }
    }

    fn perturb(&mut self) -> bool {
        self.rng.percent(self.rate)
    }

    /// The input object of a tool: with a selector matrix, the fields the chosen value consumes
    /// are mostly present and the others mostly absent, so the requirements and the matrix both
    /// get their turn.
    pub(crate) fn root(&mut self, tool: &ToolShape) -> Json {
        let row = tool.matrix.as_ref().and_then(|(selector, rows)| {
            let (value, consumes) = *self.rng.pick(rows)?;
            Some((*selector, value, consumes))
        });
        let mut members = Object::new();
        for member in &tool.members {
            let present = match row {
                Some((selector, value, _)) if member.name == selector => {
                    if !self.perturb() {
                        members.insert(selector, Json::str(value));
                        continue;
                    }
                    true
                }
                Some((_, _, consumes)) if !member.required => match consumes.contains(&member.name)
                {
                    true => self.rng.percent(70),
                    false => self.rng.percent(4),
                },
                _ => self.present(member),
            };
            if present {
                let value = self.value(&member.shape, 0);
                members.insert(member.name, value);
            }
        }
        self.stray(members)
    }

    /// An input with one value nested deeper than readers tend to allow.
    pub(crate) fn deep_input(&mut self, tool: &ToolShape) -> Json {
        let valid = self.root(tool);
        let deep = self.sources.deep_value(self.rng);
        let mut members: Vec<(JsString, Json)> = valid
            .as_object()
            .map(|o| o.iter().map(|(k, v)| (k.clone(), v.clone())).collect())
            .unwrap_or_default();
        let name = match (self.rng.percent(50), tool.members.first()) {
            (true, Some(member)) => JsString::from(member.name),
            _ => JsString::from("x"),
        };
        members.push((name, deep));
        Json::Object(Object::from_members(members))
    }

    fn present(&mut self, member: &Member) -> bool {
        match member.required {
            true => !self.perturb(),
            // Lists of workspace paths carry many rules each: present at least half the time.
            false if member.paths => self.rng.percent(self.optional.max(50)),
            false => self.rng.percent(self.optional),
        }
    }

    /// The object of the declared members, now and then with a member it does not declare
    /// (read as the host reads it: an array-index name moves first, a repeated name keeps its
    /// first place and its last value).
    fn stray(&mut self, declared: Object) -> Json {
        if !self.perturb() {
            return Json::Object(declared);
        }
        let entry = match self.rng.percent(30) {
            true => self.sources.graft(self.rng),
            false => None,
        };
        let entry = entry.unwrap_or_else(|| {
            let name = self.sources.stray_name(self.rng);
            (name, self.sources.any_value(self.rng))
        });
        let mut members: Vec<(JsString, Json)> = declared
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        let at = self.rng.below(members.len() + 1);
        members.insert(at, entry);
        Json::Object(Object::from_members(members))
    }

    /// A value of `shape`: valid, or past one of its edges.
    fn value(&mut self, shape: &Shape, depth: usize) -> Json {
        match self.perturb() {
            true => self.edge(shape, depth),
            false => self.valid(shape, depth),
        }
    }

    fn valid(&mut self, shape: &Shape, depth: usize) -> Json {
        match shape {
            Shape::Object(members) => {
                let mut out = Object::new();
                for member in members {
                    if self.present(member) {
                        let value = self.value(&member.shape, depth + 1);
                        out.insert(member.name, value);
                    }
                }
                self.stray(out)
            }
            Shape::Array(element, count) => {
                let n = self.count(*count, depth);
                let mut items: Vec<Json> = Vec::with_capacity(n);
                for _ in 0..n {
                    // A repeated element now and then, for the uniqueness rules.
                    match (items.last(), self.rng.percent(12)) {
                        (Some(last), true) => items.push(last.clone()),
                        _ => items.push(self.value(element, depth + 1)),
                    }
                }
                Json::Array(items)
            }
            Shape::Text(kind, role) => Json::String(self.text(*kind, *role)),
            Shape::Integer(range) => Json::Number(self.number_inside(*range, true)),
            Shape::Number(range) => Json::Number(self.number_inside(*range, false)),
            Shape::Boolean => Json::Bool(self.rng.percent(50)),
            Shape::Enum(values) => Json::str(self.rng.pick(values).unwrap_or(&"")),
            Shape::Literal(value) => Json::str(value),
            Shape::Null => Json::Null,
            Shape::Union(branches) => match self.rng.pick(branches) {
                Some(branch) => self.valid(branch, depth),
                None => Json::Null,
            },
        }
    }

    /// A count within the bounds, small, sometimes at a bound.
    fn count(&mut self, count: Count, depth: usize) -> usize {
        let min = count.min().unwrap_or(0) as usize;
        let max = count.max().map_or(usize::MAX, |m| m as usize);
        let small = if depth > 2 { 1 } else { 3 };
        match (self.rng.percent(5), max <= 64) {
            (true, true) => max,
            _ => self.rng.between(min, min.max(small).min(max)),
        }
    }

    /// A valid string of a kind and role.
    fn text(&mut self, kind: StringKind, role: Role) -> JsString {
        let mut text = match role {
            Role::Url => dictionary::url(self.rng),
            Role::Directory if self.rng.percent(10) => {
                JsString::from(*self.rng.pick(dictionary::DIRECTORIES).unwrap_or(&"/"))
            }
            Role::ExactFile | Role::Directory => dictionary::workspace_path(self.rng),
            Role::Absolute => JsString::from(*self.rng.pick(ABSOLUTE).unwrap_or(&"/a")),
            Role::Anchor => JsString::from(*self.rng.pick(ANCHORS).unwrap_or(&"1#AB#c")),
            Role::Plain => match self.rng.below(20) {
                0 => return blank(self.rng),
                1 | 2 => {
                    let (min, max) = kind.length();
                    let bound = match (self.rng.percent(50), max) {
                        (true, Some(max)) => max as usize,
                        _ => min.unwrap_or(1).max(1) as usize,
                    };
                    return self.sized(bound, kind.trimmed());
                }
                3 => JsString::from(*self.rng.pick(WIDE).unwrap_or(&"é")),
                _ => JsString::from(*self.rng.pick(WORDS).unwrap_or(&"a")),
            },
        };
        if self.rng.percent(12) {
            dictionary::pad(self.rng, &mut text);
        }
        if self.rng.percent(6) {
            dictionary::sprinkle(self.rng, &mut text);
        }
        text
    }

    /// A text of exactly `units` UTF-16 units once trimmed: plain, ending in an astral
    /// character, or (for trimmed kinds) padded with the trimming set.
    fn sized(&mut self, units: usize, trimmed: bool) -> JsString {
        let mut text = of_length(self.rng, units);
        if trimmed && units > 0 && self.rng.percent(30) {
            dictionary::pad(self.rng, &mut text);
        }
        text
    }

    fn number_inside(&mut self, range: Range, integer: bool) -> f64 {
        let low = lower(range.min, integer);
        let high = upper(range.max, integer);
        let mut candidates = Vec::with_capacity(6);
        if let Some(low) = low {
            candidates.extend([low, low + 1.0]);
        }
        if let Some(high) = high {
            candidates.extend([high, high - 1.0]);
        }
        let base = low.unwrap_or(if high.is_some() { -5.0 } else { -2.0 });
        candidates.push(base + self.rng.below(8) as f64);
        if !integer {
            candidates.push(low.unwrap_or(0.0) + 0.5);
        }
        let pick = *self.rng.pick(&candidates).unwrap_or(&1.0);
        match (low, high) {
            (Some(l), _) if pick < l => l,
            (_, Some(h)) if pick > h => h,
            _ => pick,
        }
    }

    /// A value past an edge of `shape`.
    fn edge(&mut self, shape: &Shape, depth: usize) -> Json {
        if self.rng.percent(30) {
            return self.wrong_type(shape);
        }
        match shape {
            Shape::Object(members) => {
                let valid = self.valid(shape, depth);
                let mut out: Vec<(JsString, Json)> = valid
                    .as_object()
                    .map(|o| o.iter().map(|(k, v)| (k.clone(), v.clone())).collect())
                    .unwrap_or_default();
                match self.rng.below(3) {
                    0 => {
                        let required: Vec<&str> = members
                            .iter()
                            .filter(|m| m.required)
                            .map(|m| m.name)
                            .collect();
                        if let Some(name) = self.rng.pick(&required) {
                            out.retain(|(k, _)| !k.eq_str(name));
                        }
                    }
                    1 => {
                        let name = self.sources.stray_name(self.rng);
                        let at = self.rng.below(out.len() + 1);
                        out.insert(at, (name, self.sources.any_value(self.rng)));
                    }
                    _ => out.clear(),
                }
                Json::Object(Object::from_members(out))
            }
            Shape::Array(element, count) => {
                let n = match self.rng.below(3) {
                    0 => count.min().map_or(0, |m| (m as usize).saturating_sub(1)),
                    1 => count.max().map_or(4, |m| m as usize + 1),
                    _ => self.count(*count, depth),
                };
                let hostile = n <= 4 && self.rng.percent(50);
                let items = (0..n.min(80))
                    .map(|_| match hostile {
                        true => self.edge(element, depth + 1),
                        false => self.valid(element, depth + 1),
                    })
                    .collect();
                Json::Array(items)
            }
            Shape::Text(kind, role) => Json::String(self.text_edge(*kind, *role)),
            Shape::Integer(range) => Json::Number(self.number_edge(*range, true)),
            Shape::Number(range) => Json::Number(self.number_edge(*range, false)),
            Shape::Boolean => match self.rng.below(4) {
                0 => Json::str("true"),
                1 => Json::Number(1.0),
                2 => Json::Number(0.0),
                _ => Json::Null,
            },
            Shape::Enum(values) => Json::String(self.word_edge(values)),
            Shape::Literal(value) => Json::String(self.word_edge(&[value])),
            Shape::Null => self.sources.any_value(self.rng),
            Shape::Union(branches) => match self.rng.pick(branches) {
                Some(branch) => self.edge(branch, depth),
                None => Json::Null,
            },
        }
    }

    /// A string past a length bound (in units once trimmed), blank, or with a hard character.
    fn text_edge(&mut self, kind: StringKind, role: Role) -> JsString {
        let (min, max) = kind.length();
        match self.rng.below(5) {
            0 => match min {
                Some(min) if min > 1 => self.sized(min as usize - 1, kind.trimmed()),
                _ => blank(self.rng),
            },
            1 | 2 => match max {
                Some(max) => self.sized(max as usize + 1, kind.trimmed()),
                None => self.sized(2001, kind.trimmed()),
            },
            3 => blank(self.rng),
            _ => {
                let mut text = self.text(kind, role);
                dictionary::sprinkle(self.rng, &mut text);
                text
            }
        }
    }

    fn number_edge(&mut self, range: Range, integer: bool) -> f64 {
        let mut candidates: Vec<f64> = Vec::with_capacity(8);
        for (limit, step) in [(range.min, -1.0), (range.max, 1.0)] {
            if let Some(Limit::Inclusive(n) | Limit::Exclusive(n)) = limit {
                let n = n as f64;
                candidates.extend([n, n + step, n + step / 2.0]);
            }
        }
        if integer {
            candidates.extend([0.5, 9_007_199_254_740_992.0, -9_007_199_254_740_992.0]);
        }
        match self.rng.percent(60) {
            true => *self.rng.pick(&candidates).unwrap_or(&0.5),
            false => *self.rng.pick(NUMBERS).unwrap_or(&0.0),
        }
    }

    /// A string close to, but not, one of `values`: another vocabulary's value, a case or
    /// padding change, a prefix, the empty string.
    fn word_edge(&mut self, values: &[&str]) -> JsString {
        let value = *self.rng.pick(values).unwrap_or(&"");
        match self.rng.below(6) {
            0 => self.sources.word(self.rng),
            1 => JsString::from(value.to_uppercase()),
            2 => {
                let mut text = JsString::from(value);
                dictionary::pad(self.rng, &mut text);
                text
            }
            3 => {
                let half = value.chars().count() / 2;
                JsString::from(value.chars().take(half).collect::<String>())
            }
            4 => JsString::new(),
            _ => {
                let mut text = JsString::from(value);
                dictionary::sprinkle(self.rng, &mut text);
                text
            }
        }
    }

    /// A value of another JSON type, often one that has a length: a string or an array of a
    /// length near the node's bounds, or an object with a `length` member.
    fn wrong_type(&mut self, shape: &Shape) -> Json {
        let bounds = length_bounds(shape);
        match self.rng.below(6) {
            0 => {
                let n = *self.rng.pick(&bounds).unwrap_or(&1) as usize;
                let units = (n + self.rng.below(3)).saturating_sub(1);
                Json::String(of_length(self.rng, units))
            }
            1 => {
                let n = *self.rng.pick(&bounds).unwrap_or(&1) as usize;
                let n = (n + self.rng.below(3)).saturating_sub(1).min(130);
                Json::Array(vec![Json::Null; n])
            }
            2 | 3 => length_object(self.rng, &bounds),
            _ => self.sources.any_value(self.rng),
        }
    }
}

fn lower(limit: Option<Limit>, integer: bool) -> Option<f64> {
    match limit? {
        Limit::Inclusive(n) => Some(n as f64),
        Limit::Exclusive(n) if integer => Some(n as f64 + 1.0),
        Limit::Exclusive(n) => Some(n as f64 + 1e-7),
    }
}

fn upper(limit: Option<Limit>, integer: bool) -> Option<f64> {
    match limit? {
        Limit::Inclusive(n) => Some(n as f64),
        Limit::Exclusive(n) if integer => Some(n as f64 - 1.0),
        Limit::Exclusive(n) => Some(n as f64 - 1e-7),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use vvoc_reference::Tool;

    #[test]
    fn without_edges_most_grown_inputs_are_accepted() {
        // Valid draws still include blank texts now and then, and the branch rules of the tools
        // with many refuse most of what the catalog alone allows: tools with few rules here.
        let sources = Sources::new([]);
        for tool in [Tool::WebSearch, Tool::WorkItemClose, Tool::WorkItemList] {
            let shape = ToolShape::of(tool);
            let accepted = (0..100)
                .filter(|&index| {
                    let mut rng = Rng::for_input(2, index);
                    let input = Grow::new(&mut rng, 0, 40, &sources).root(&shape);
                    vvoc_reference::validate_json(tool, &input).is_accept()
                })
                .count();
            assert!(accepted >= 60, "{tool}: {accepted} of 100");
        }
    }

    #[test]
    fn always_past_an_edge_a_grown_input_is_refused() {
        let sources = Sources::new([]);
        let shape = ToolShape::of(Tool::WebSearch);
        let refused = (0..50)
            .filter(|&index| {
                let mut rng = Rng::for_input(2, index);
                let input = Grow::new(&mut rng, 100, 40, &sources).root(&shape);
                !vvoc_reference::validate_json(Tool::WebSearch, &input).is_accept()
            })
            .count();
        assert_eq!(refused, 50);
    }
}
