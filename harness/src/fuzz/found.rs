//! What the workers find: each class with how many inputs fell in it and the first of them
//! (the one of the lowest index, whichever worker met it), the rules that fired, and whether a
//! peer became unusable.

use std::collections::BTreeMap;

use vvoc_reference::Json;

use crate::fuzz::class::Class;
use crate::fuzz::pair::Answered;
use crate::outcome::Answer;
use crate::peer::options::Unusable;

/// The first input of a class and its answers.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct First {
    /// How many inputs fell in the class.
    pub(crate) count: u64,
    /// The lowest index among them.
    pub(crate) index: u64,
    /// That input.
    pub(crate) input: Json,
    /// The expected side's answer to it.
    pub(crate) expected: Answer,
    /// The peer's answer to it.
    pub(crate) received: Answer,
}

/// What one worker found, or all of them once merged.
#[derive(Debug)]
pub(crate) struct Found {
    /// How many inputs both sides answered.
    pub(crate) inputs: u64,
    /// How many of them disagree.
    pub(crate) findings: u64,
    /// How many of them an MCP server was not asked about (not observable over MCP).
    pub(crate) not_observable: u64,
    /// The classes, each with its first input.
    pub(crate) classes: BTreeMap<Class, First>,
    /// Which of the run's rules fired, by their index in the run's rule list.
    pub(crate) fired: Vec<bool>,
    /// Why a peer became unusable, if one did.
    pub(crate) unusable: Option<Unusable>,
}

impl Found {
    /// Nothing yet, of a run of `rules` rules.
    pub(crate) fn new(rules: usize) -> Found {
        Found {
            inputs: 0,
            findings: 0,
            not_observable: 0,
            classes: BTreeMap::new(),
            fired: vec![false; rules],
            unusable: None,
        }
    }

    /// Adds another worker's results; each class keeps its lowest index.
    pub(crate) fn merge(&mut self, other: Found) {
        self.inputs += other.inputs;
        self.findings += other.findings;
        self.not_observable += other.not_observable;
        for (class, first) in other.classes {
            self.keep(class, first);
        }
        for (mine, theirs) in self.fired.iter_mut().zip(other.fired) {
            *mine |= theirs;
        }
        if self.unusable.is_none() {
            self.unusable = other.unusable;
        }
    }

    /// Counts one disagreement of `class`.
    pub(crate) fn record(&mut self, class: Class, answered: Answered) {
        self.findings += 1;
        let Answered {
            item,
            expected,
            received,
        } = answered;
        let first = First {
            count: 1,
            index: item.index,
            input: item.input,
            expected,
            received,
        };
        self.keep(class, first);
    }

    /// Adds `first`'s inputs to its class, whose example becomes `first`'s if its index is lower.
    fn keep(&mut self, class: Class, first: First) {
        match self.classes.get_mut(&class) {
            Some(kept) => {
                let count = kept.count + first.count;
                if first.index < kept.index {
                    *kept = first;
                }
                kept.count = count;
            }
            None => {
                self.classes.insert(class, first);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fuzz::class::Kind;
    use crate::fuzz::pair::Item;
    use crate::outcome::Failure;
    use vvoc_reference::{Tool, Verdict};

    fn class(pattern: &str) -> Class {
        Class {
            tool: Tool::WebSearch,
            pattern: pattern.to_owned(),
            rule: None,
            kind: Kind::Output,
        }
    }

    fn answered(index: u64) -> Answered {
        let input = Json::Number(index as f64);
        Answered {
            item: Item {
                index,
                tool: Tool::WebSearch,
                input: input.clone(),
                reference: Verdict::Accept(input),
            },
            expected: Answer::Failed(Failure::Timeout),
            received: Answer::Failed(Failure::Error(format!("input {index}"))),
        }
    }

    #[test]
    fn a_class_counts_every_input_and_keeps_the_lowest_as_its_example() {
        let mut found = Found::new(0);
        for index in [7, 3, 9] {
            found.record(class("count"), answered(index));
        }
        let first = &found.classes[&class("count")];
        assert_eq!((first.count, first.index, found.findings), (3, 3, 3));
        let error = Failure::Error("input 3".to_owned());
        assert_eq!(first.received, Answer::Failed(error));
    }

    #[test]
    fn merged_workers_find_what_one_worker_would_have() {
        let (mut a, mut b, mut alone) = (Found::new(2), Found::new(2), Found::new(2));
        for index in [5, 1, 8, 2] {
            let worker = match index % 2 {
                0 => &mut a,
                _ => &mut b,
            };
            worker.record(class("query"), answered(index));
            alone.record(class("query"), answered(index));
        }
        a.fired[0] = true;
        b.fired[1] = true;
        b.unusable = Some(Unusable("gone".to_owned()));
        a.merge(b);
        assert_eq!(a.classes, alone.classes);
        assert_eq!(a.findings, 4);
        assert_eq!(a.fired, vec![true, true]);
        assert_eq!(a.unusable.map(|u| u.0), Some("gone".to_owned()));
    }
}
