//! The inputs of a run: a tool chosen by weight, then an input grown from its catalog shape
//! (`grow.rs`) or one of its vectors mutated (`mutate.rs`). Input `i` of a seed is the same
//! whoever generates it.

use vvoc_reference::inventory::tool_inventory;
use vvoc_reference::{Json, Object, Tool};

use crate::fuzz::grow::Grow;
use crate::fuzz::mutate::mutate;
use crate::fuzz::rng::Rng;
use crate::fuzz::shape::ToolShape;
use crate::fuzz::sources::Sources;

/// Generates the inputs of a run.
#[derive(Debug)]
pub struct Generator {
    tools: Vec<Candidate>,
    sources: Sources,
}

/// A tool that gets inputs: its shape, the inputs of its vectors, and its weight.
#[derive(Debug)]
struct Candidate {
    shape: ToolShape,
    vectors: Vec<Json>,
    /// How often it is chosen, relative to the others.
    weight: u32,
}

/// How often, in percent, a generated value is taken past an edge of its node.
const RATES: [u32; 5] = [0, 3, 6, 12, 25];

/// How deep a vector may nest to be mutated.
const MAX_VECTOR_DEPTH: usize = 64;

impl Generator {
    /// A generator for `tools`, mutating the given vector inputs (each with its tool).
    pub fn new(tools: &[Tool], vectors: &[(Tool, Json)]) -> Generator {
        // Vectors nested deeper than generated inputs are left out: the walks of mutation and
        // shrinking recurse, and deep values are generated on their own (`deep_value`).
        let vectors: Vec<&(Tool, Json)> = vectors
            .iter()
            .filter(|(_, input)| depth(input) <= MAX_VECTOR_DEPTH)
            .collect();
        let sources = Sources::new(vectors.iter().map(|(_, input)| input));
        let tools = tools
            .iter()
            .map(|&tool| {
                let vectors = vectors
                    .iter()
                    .filter(|(t, _)| *t == tool)
                    .map(|(_, input)| input.clone())
                    .collect();
                let rules = tool_inventory(tool).iter().filter(|r| !r.is_exec()).count();
                Candidate {
                    shape: ToolShape::of(tool),
                    vectors,
                    weight: 4 + (rules as f64).sqrt().round() as u32,
                }
            })
            .collect();
        Generator { tools, sources }
    }

    /// Input `index` of the run seeded with `seed`.
    pub fn input(&self, seed: u64, index: u64) -> (Tool, Json) {
        let mut rng = Rng::for_input(seed, index);
        let Some(tool) = self.pick_tool(&mut rng) else {
            return (Tool::WorkItemList, Json::Object(Object::new()));
        };
        let rate = RATES[rng.below(RATES.len())];
        let optional = [15, 40, 70][index as usize % 3];
        let input = match (rng.below(1000), rng.pick(&tool.vectors)) {
            (0..450, Some(vector)) => mutate(&self.sources, &mut rng, vector),
            (450..453, _) => {
                Grow::new(&mut rng, rate, optional, &self.sources).deep_input(&tool.shape)
            }
            _ => Grow::new(&mut rng, rate, optional, &self.sources).root(&tool.shape),
        };
        (tool.shape.tool, input)
    }

    /// A tool, chosen with a weight that grows with the number of its rules (4 plus the square
    /// root of the count), so the tools with many rules get more inputs and none starves.
    fn pick_tool(&self, rng: &mut Rng) -> Option<&Candidate> {
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
    use vvoc_reference::JsString;

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
        assert!(g.sources.graft(&mut Rng::for_input(1, 1)).is_none());
        assert_eq!(depth(&Json::Null), 1);
    }
}
