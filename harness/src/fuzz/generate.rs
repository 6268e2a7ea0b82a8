//! Inputs grown from the catalog: every tool's shape walked, each value drawn valid most of the
//! time (so inputs reach the branch rules) and otherwise at or past an edge of its node (bounds in
//! UTF-16 units, the trimming set, vocabularies, wrong types, `length` members); or a built-in
//! vector mutated (`mutate.rs`). Input `i` of a seed is the same whoever generates it.

use vvoc_reference::catalog::{Count, Limit, Node, PathKind, Range, StringKind};
use vvoc_reference::inventory::tool_inventory;
use vvoc_reference::{JsString, Json, Object, Tool};

use super::dictionary::{self, ABSOLUTE, ANCHORS, KEYS, NUMBERS, WIDE, WORDS};
use super::mutate;
use super::rng::Rng;

/// Generates the inputs of a run.
#[derive(Debug)]
pub struct Generator {
    tools: Vec<ToolShape>,
    /// Every declared member name of every tool, for grafts and unknown keys.
    names: Vec<&'static str>,
    /// Every vocabulary value of every tool.
    vocabulary: Vec<&'static str>,
    /// Members of the vectors' objects, of every tool, to graft into others.
    grafts: Vec<(JsString, Json)>,
}

/// One tool: its shape, its selector matrix, and the inputs of its vectors.
#[derive(Debug)]
struct ToolShape {
    tool: Tool,
    members: Vec<Member>,
    /// The selector field and, per value, the fields it consumes.
    matrix: Option<(&'static str, Vec<Row>)>,
    vectors: Vec<Json>,
    /// How often it is chosen, relative to the others.
    weight: u32,
}

/// A selector value and the fields it consumes.
type Row = (&'static str, &'static [&'static str]);

/// A member of an object shape.
#[derive(Debug)]
struct Member {
    name: &'static str,
    required: bool,
    shape: Shape,
    /// Whether it is a list of workspace paths.
    paths: bool,
}

/// The catalog's node, with the role each string plays.
#[derive(Debug)]
enum Shape {
    Object(Vec<Member>),
    Array(Box<Shape>, Count),
    Text(StringKind, Role),
    Integer(Range),
    Number(Range),
    Boolean,
    Enum(&'static [&'static str]),
    Literal(&'static str),
    Null,
    Union(Vec<Shape>),
}

/// What a string stands for, which decides the hard cases it is drawn from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Role {
    Plain,
    Url,
    ExactFile,
    Directory,
    Absolute,
    Anchor,
}

/// How often, in percent, a generated value is taken past an edge of its node.
const RATES: [u32; 5] = [0, 3, 6, 12, 25];

/// How deep a vector may nest to be mutated.
const MAX_VECTOR_DEPTH: usize = 64;

/// How many nodes a member of a vector may have to be grafted elsewhere.
const MAX_GRAFT: usize = 200;

/// How deep the nested-value mutation nests: around the depth where readers give up.
const DEEP: [usize; 4] = [511, 512, 513, 600];

impl Generator {
    /// A generator for `tools`, mutating the given vector inputs (each with its tool).
    pub fn new(tools: &[Tool], vectors: &[(Tool, Json)]) -> Generator {
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
        // Vectors nested deeper than generated inputs are left out: the walks of mutation and
        // shrinking recurse, and deep values are generated on their own (`deep_value`).
        let vectors: Vec<&(Tool, Json)> = vectors
            .iter()
            .filter(|(_, input)| depth(input) <= MAX_VECTOR_DEPTH)
            .collect();
        let mut grafts = Vec::new();
        for (_, input) in &vectors {
            members_of(input, &mut grafts);
        }
        let tools = tools
            .iter()
            .map(|&tool| {
                let spec = tool.spec();
                let roles: Vec<(&str, PathKind)> =
                    spec.path_kinds.iter().map(|d| (d.field, d.kind)).collect();
                let members = spec.fields.iter().map(|f| member(f, "", &roles)).collect();
                let matrix = spec.matrix.as_ref().map(|m| {
                    let rows = m.rows.iter().map(|r| (r.value, r.consumes)).collect();
                    (m.selector, rows)
                });
                let vectors = vectors
                    .iter()
                    .filter(|(t, _)| *t == tool)
                    .map(|(_, input)| input.clone())
                    .collect();
                let rules = tool_inventory(tool).iter().filter(|r| !r.is_exec()).count();
                ToolShape {
                    tool,
                    members,
                    matrix,
                    vectors,
                    weight: 4 + (rules as f64).sqrt().round() as u32,
                }
            })
            .collect();
        Generator {
            tools,
            names,
            vocabulary,
            grafts,
        }
    }

    /// Input `index` of the run seeded with `seed`.
    pub fn input(&self, seed: u64, index: u64) -> (Tool, Json) {
        let mut rng = Rng::for_input(seed, index);
        let Some(shape) = self.pick_tool(&mut rng) else {
            return (Tool::WorkItemList, Json::Object(Object::new()));
        };
        let rate = RATES[rng.below(RATES.len())];
        let mut grow = Grow {
            rng: &mut rng,
            rate,
            optional: [15, 40, 70][index as usize % 3],
            generator: self,
        };
        let input = match (grow.rng.below(1000), grow.rng.pick(&shape.vectors)) {
            (0..450, Some(vector)) => mutate::mutate(self, grow.rng, vector),
            (450..453, _) => grow.deep_input(shape),
            _ => grow.root(shape),
        };
        (shape.tool, input)
    }

    /// A tool, chosen with a weight that grows with the number of its rules (4 plus the square
    /// root of the count), so the tools with many rules get more inputs and none starves.
    fn pick_tool(&self, rng: &mut Rng) -> Option<&ToolShape> {
        let total: u32 = self.tools.iter().map(|t| t.weight).sum();
        let mut at = rng.below(total as usize) as u32;
        self.tools.iter().find(|t| match at < t.weight {
            true => true,
            false => {
                at -= t.weight;
                false
            }
        })
    }

    /// A member name to add where it is not declared: a host-sensitive or odd name, a name
    /// declared elsewhere in the catalog, or a word.
    pub fn stray_name(&self, rng: &mut Rng) -> JsString {
        match rng.below(3) {
            0 => JsString::from(*rng.pick(KEYS).unwrap_or(&"typo")),
            1 => JsString::from(*rng.pick(&self.names).unwrap_or(&"typo")),
            _ => JsString::from(*rng.pick(WORDS).unwrap_or(&"x")),
        }
    }

    /// A member of some vector's object, to graft elsewhere.
    pub fn graft(&self, rng: &mut Rng) -> Option<(JsString, Json)> {
        rng.pick(&self.grafts).cloned()
    }

    /// A value of any type, small, often hard.
    pub fn any_value(&self, rng: &mut Rng) -> Json {
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
    pub fn hard_string(&self, rng: &mut Rng) -> JsString {
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
    pub fn deep_value(&self, rng: &mut Rng) -> Json {
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

/// One input being grown: its random stream and how hard it leans on edges.
struct Grow<'a> {
    rng: &'a mut Rng,
    /// Percent of values taken past an edge.
    rate: u32,
    /// Percent of optional members present (outside a selector's matrix).
    optional: u32,
    generator: &'a Generator,
}

impl Grow<'_> {
    fn perturb(&mut self) -> bool {
        self.rng.percent(self.rate)
    }

    /// The input object of a tool: with a selector matrix, the fields the chosen value consumes
    /// are mostly present and the others mostly absent, so the requirements and the matrix both
    /// get their turn.
    fn root(&mut self, tool: &ToolShape) -> Json {
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
    fn deep_input(&mut self, tool: &ToolShape) -> Json {
        let valid = self.root(tool);
        let deep = self.generator.deep_value(self.rng);
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
            true => self.generator.graft(self.rng),
            false => None,
        };
        let entry = entry.unwrap_or_else(|| {
            let name = self.generator.stray_name(self.rng);
            (name, self.generator.any_value(self.rng))
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
                        let name = self.generator.stray_name(self.rng);
                        let at = self.rng.below(out.len() + 1);
                        out.insert(at, (name, self.generator.any_value(self.rng)));
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
            Shape::Null => self.generator.any_value(self.rng),
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
            0 => JsString::from(*self.rng.pick(&self.generator.vocabulary).unwrap_or(&"")),
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
            _ => self.generator.any_value(self.rng),
        }
    }
}

/// The length bounds of a node, where it has any (0 and 2 otherwise, as starting points).
fn length_bounds(shape: &Shape) -> Vec<u32> {
    let (min, max) = match shape {
        Shape::Text(kind, _) => kind.length(),
        Shape::Array(_, count) => (count.min(), count.max()),
        Shape::Object(_)
        | Shape::Integer(_)
        | Shape::Number(_)
        | Shape::Boolean
        | Shape::Enum(_)
        | Shape::Literal(_)
        | Shape::Null
        | Shape::Union(_) => (None, None),
    };
    let found: Vec<u32> = min.into_iter().chain(max).collect();
    match found.is_empty() {
        true => vec![0, 2],
        false => found,
    }
}

/// `{"length": ...}`, now and then with another member.
fn length_object(rng: &mut Rng, bounds: &[u32]) -> Json {
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
fn blank(rng: &mut Rng) -> JsString {
    let mut text = JsString::new();
    for _ in 0..rng.below(3) {
        text.push(*rng.pick(dictionary::TRIM).unwrap_or(&' '));
    }
    text
}

/// A text of exactly `units` UTF-16 units, none of them trimmed: `a`s, sometimes ending in an
/// astral character or mixing combining marks in.
fn of_length(rng: &mut Rng, units: usize) -> JsString {
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

/// The shape of a catalog field, its strings given the roles of the tool's path kinds.
fn member(
    field: &vvoc_reference::catalog::Field,
    base: &str,
    roles: &[(&str, PathKind)],
) -> Member {
    let pattern = match base.is_empty() {
        true => field.name.to_owned(),
        false => format!("{base}.{}", field.name),
    };
    let shape = shape(&field.node, &pattern, field.name, roles);
    let paths = matches!(&shape, Shape::Array(element, _)
        if matches!(**element, Shape::Text(_, Role::ExactFile | Role::Directory)));
    Member {
        name: field.name,
        required: field.required,
        shape,
        paths,
    }
}

fn shape(node: &Node, pattern: &str, name: &str, roles: &[(&str, PathKind)]) -> Shape {
    match node {
        Node::Object(fields) => {
            Shape::Object(fields.iter().map(|f| member(f, pattern, roles)).collect())
        }
        Node::Array(element, count) => {
            let inner = format!("{pattern}[]");
            Shape::Array(Box::new(shape(element, &inner, name, roles)), *count)
        }
        Node::String(kind) => Shape::Text(*kind, role(pattern, name, roles)),
        Node::Integer(range) => Shape::Integer(*range),
        Node::Number(range) => Shape::Number(*range),
        Node::Boolean => Shape::Boolean,
        Node::Enum(values) => Shape::Enum(values),
        Node::Literal(value) => Shape::Literal(value),
        Node::Null => Shape::Null,
        Node::Union(branches) => Shape::Union(
            branches
                .iter()
                .map(|b| shape(b, pattern, name, roles))
                .collect(),
        ),
    }
}

/// The role of the string at `pattern`: a declared path kind, an anchor, or a name that reads
/// as a workspace path.
fn role(pattern: &str, name: &str, roles: &[(&str, PathKind)]) -> Role {
    let declared = roles.iter().find(|(field, _)| *field == pattern);
    match declared.map(|(_, kind)| *kind) {
        Some(PathKind::Url) => Role::Url,
        Some(PathKind::ExactFile) => Role::ExactFile,
        Some(PathKind::DirectorySubtree) => Role::Directory,
        Some(PathKind::AbsoluteFile) => Role::Absolute,
        None if matches!(name, "pos" | "end") => Role::Anchor,
        None if name.ends_with("Path")
            || matches!(name, "scope" | "fileBoundary" | "files" | "directories") =>
        {
            Role::ExactFile
        }
        None => Role::Plain,
    }
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
                    if crate::fuzz::edit::size(member) <= MAX_GRAFT {
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

/// How deep a value nests (1 for a scalar), walked without recursion.
fn depth(value: &Json) -> usize {
    let mut deepest = 0;
    let mut stack = vec![(value, 1)];
    while let Some((value, level)) = stack.pop() {
        deepest = deepest.max(level);
        match value {
            Json::Object(object) => stack.extend(object.iter().map(|(_, v)| (v, level + 1))),
            Json::Array(items) => stack.extend(items.iter().map(|v| (v, level + 1))),
            Json::Null | Json::Bool(_) | Json::Number(_) | Json::String(_) => {}
        }
    }
    deepest
}

#[cfg(test)]
mod tests {
    use super::*;

    fn generator(tools: &[Tool]) -> Generator {
        let vectors = vec![
            (
                Tool::WebSearch,
                Json::parse(r#"{"query":"q","count":3}"#).expect("JSON"),
            ),
            (
                Tool::WorkItemClose,
                Json::parse(r#"{"workItemId":"w"}"#).expect("JSON"),
            ),
        ];
        Generator::new(tools, &vectors)
    }

    #[test]
    fn an_input_is_named_by_its_seed_and_index_alone() {
        let (a, b) = (generator(&Tool::ALL), generator(&Tool::ALL));
        for index in [0, 1, 17, 99_999] {
            assert_eq!(a.input(5, index), b.input(5, index));
        }
        // Asked for in another order, the same inputs.
        let forward: Vec<_> = (0..50).map(|i| a.input(5, i)).collect();
        let backward: Vec<_> = (0..50).rev().map(|i| b.input(5, i)).collect();
        assert!(forward.iter().eq(backward.iter().rev()));
        assert_ne!(a.input(5, 3), a.input(6, 3));
    }

    #[test]
    fn only_the_selected_tools_get_inputs_and_each_of_them_does() {
        let g = generator(&[Tool::WebSearch, Tool::WebFetch]);
        let tools: Vec<Tool> = (0..400).map(|i| g.input(1, i).0).collect();
        assert!(
            tools
                .iter()
                .all(|t| matches!(t, Tool::WebSearch | Tool::WebFetch))
        );
        assert!(tools.contains(&Tool::WebSearch) && tools.contains(&Tool::WebFetch));
    }

    #[test]
    fn vectors_nested_deeper_than_the_limit_are_not_mutated() {
        let mut deep = Json::Array(Vec::new());
        for _ in 0..MAX_VECTOR_DEPTH + 1 {
            deep = Json::Array(vec![deep]);
        }
        let input = Json::Object(Object::from_members([(JsString::from("x"), deep)]));
        let g = Generator::new(&[Tool::WebSearch], &[(Tool::WebSearch, input)]);
        assert!(g.tools.iter().all(|t| t.vectors.is_empty()));
        assert!(g.grafts.iter().all(|(name, _)| !name.eq_str("x")));
        assert_eq!(depth(&Json::Null), 1);
    }
}
