//! The shrinking phase: each class's example shrunk on the workers' pairs (classes dealt out in
//! class order), both sides asked about candidates in pipelined batches, and once more about
//! the minimal input.

use vvoc_reference::{Json, Tool, validate_json};

use crate::compare::Level;
use crate::fuzz::class::Class;
use crate::fuzz::classify::Classifier;
use crate::fuzz::found::First;
use crate::fuzz::fuzzed::Finding;
use crate::fuzz::options::Options;
use crate::fuzz::pair::{Answered, Item, Pair};
use crate::fuzz::shrink::{Oracle, shrink};
use crate::outcome::Answer;
use crate::peer::options::Unusable;

/// Shrinks each class's example (on the workers' pairs, classes dealt out in order) and asks
/// both sides once more about the minimal input.
pub(crate) fn shrink_all(
    options: &Options,
    classifier: &Classifier,
    firsts: Vec<(Class, First)>,
    pairs: &mut [Pair<'_, '_>],
    give_up: &(dyn Fn(Unusable) + Sync),
) -> Vec<Finding> {
    if pairs.is_empty() {
        return firsts
            .into_iter()
            .map(|(class, first)| unshrunk(class, first))
            .collect();
    }
    let lanes = pairs.len();
    let mut dealt: Vec<Vec<(usize, Class, First)>> = (0..lanes).map(|_| Vec::new()).collect();
    for (i, (class, first)) in firsts.into_iter().enumerate() {
        dealt[i % lanes].push((i, class, first));
    }
    let mut found: Vec<(usize, Finding)> = std::thread::scope(|scope| {
        let handles: Vec<_> = pairs
            .iter_mut()
            .zip(dealt)
            .map(|(pair, work)| {
                scope.spawn(move || {
                    let mut oracle = PairOracle {
                        pair,
                        classifier,
                        level: options.level,
                        broken: false,
                        give_up,
                    };
                    work.into_iter()
                        .map(|(i, class, first)| (i, oracle.finding(class, first, options)))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap_or_default())
            .collect()
    });
    found.sort_by_key(|(i, _)| *i);
    found.into_iter().map(|(_, finding)| finding).collect()
}

fn unshrunk(class: Class, first: First) -> Finding {
    let reference = validate_json(class.tool, &first.input);
    Finding {
        class,
        count: first.count,
        first: first.index,
        original: first.input.clone(),
        minimal: first.input,
        expected: first.expected,
        received: first.received,
        reference,
    }
}

/// The shrinker's oracle: both sides of a pair, asked about candidates in one pipelined batch.
struct PairOracle<'a, 'p, 'o> {
    pair: &'a mut Pair<'p, 'o>,
    classifier: &'a Classifier,
    level: Level,
    /// Whether a peer became unusable (every later candidate then has no class).
    broken: bool,
    give_up: &'a (dyn Fn(Unusable) + Sync),
}

impl PairOracle<'_, '_, '_> {
    /// The finding of a class: its example shrunk (when its kind allows), and the answers to
    /// the minimal input.
    fn finding(&mut self, class: Class, first: First, options: &Options) -> Finding {
        if !class.kind.shrinkable() {
            return unshrunk(class, first);
        }
        let tool = class.tool;
        let minimal = shrink(tool, &first.input, &class, self, options.shrink_budget);
        let answers = match minimal == first.input {
            true => None,
            false => self.answers(tool, std::slice::from_ref(&minimal)).pop(),
        };
        let (expected, received) = match answers {
            Some(Some((expected, received))) => (expected, received),
            Some(None) | None => (first.expected.clone(), first.received.clone()),
        };
        let reference = validate_json(tool, &minimal);
        Finding {
            class,
            count: first.count,
            first: first.index,
            original: first.input,
            minimal,
            expected,
            received,
            reference,
        }
    }

    /// Both answers to each candidate (`None` where none came).
    fn answers(&mut self, tool: Tool, candidates: &[Json]) -> Vec<Option<(Answer, Answer)>> {
        let mut out: Vec<Option<(Answer, Answer)>> = vec![None; candidates.len()];
        if self.broken {
            return out;
        }
        let mut next = candidates.iter().enumerate();
        let source = || {
            let (i, input) = next.next()?;
            Some(Item {
                index: i as u64,
                tool,
                input: input.clone(),
                reference: validate_json(tool, input),
            })
        };
        let sink = |answered: Answered| {
            if let Some(slot) = out.get_mut(answered.item.index as usize) {
                *slot = Some((answered.expected, answered.received));
            }
        };
        if let Err(reason) = self.pair.run(source, sink) {
            self.broken = true;
            (self.give_up)(reason);
        }
        out
    }
}

impl Oracle for PairOracle<'_, '_, '_> {
    fn classes(&mut self, tool: Tool, candidates: &[Json]) -> Vec<Option<Class>> {
        let level = self.level;
        self.answers(tool, candidates)
            .into_iter()
            .zip(candidates)
            .map(|(answers, input)| {
                let (expected, received) = answers?;
                self.classifier
                    .classify(tool, input, &expected, &received, level)
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fuzz::class::Kind;
    use crate::outcome::Failure;

    #[test]
    fn without_pairs_each_class_keeps_its_first_input_and_gets_the_reference_verdict() {
        let input = Json::parse(r#"{"query":"q","count":21}"#).expect("JSON");
        let class = Class {
            tool: Tool::WebSearch,
            pattern: "(root)".to_owned(),
            rule: None,
            kind: Kind::Failed(Failure::Crash(String::new())),
        };
        let first = First {
            count: 4,
            index: 17,
            input: input.clone(),
            expected: Answer::Verdict(validate_json(Tool::WebSearch, &input)),
            received: Answer::Failed(Failure::Crash("gone".to_owned())),
        };
        let give_up = |_: Unusable| {};
        let found = shrink_all(
            &Options::new(1),
            &Classifier::new(&[]),
            vec![(class.clone(), first)],
            &mut [],
            &give_up,
        );
        assert_eq!(found.len(), 1);
        let finding = &found[0];
        assert_eq!(
            (&finding.class, finding.count, finding.first),
            (&class, 4, 17)
        );
        assert_eq!((&finding.minimal, &finding.original), (&input, &input));
        assert!(!finding.reference.is_accept());
    }
}
