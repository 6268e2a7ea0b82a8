//! The generation phase's work, shared by the workers: chunks of input indexes taken from one
//! counter, each input generated, checked by the reference (naming the rules it fires until
//! this worker has seen them all) and sent to both sides of the worker's pair, each pair of
//! answers classified.

use std::ops::Range;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Instant;

use vvoc_reference::{validate_json, validate_traced};

use crate::fuzz::classify::Classifier;
use crate::fuzz::found::Found;
use crate::fuzz::generate::Generator;
use crate::fuzz::options::{Options, Progress};
use crate::fuzz::pair::{Answered, Item, Pair, Side};
use crate::fuzz::rules::RuleList;
use crate::outcome::Answer;

/// How many indexes a worker takes at once.
const CHUNK: u64 = 64;

/// How many inputs a worker answers between two updates of the shared counts.
const TALLY: u64 = 256;

/// What the workers of a run share.
pub(crate) struct Work<'a> {
    options: &'a Options,
    generator: &'a Generator,
    classifier: &'a Classifier,
    rules: &'a RuleList,
    /// The next index no worker has taken.
    next: AtomicU64,
    inputs: AtomicU64,
    findings: AtomicU64,
    start: Instant,
    timed_out: AtomicBool,
    /// Whether a peer has become unusable, which ends the run.
    stopped: &'a (dyn Fn() -> bool + Sync),
}

impl<'a> Work<'a> {
    /// The work of a run started at `start`.
    pub(crate) fn new(
        options: &'a Options,
        generator: &'a Generator,
        classifier: &'a Classifier,
        rules: &'a RuleList,
        start: Instant,
        stopped: &'a (dyn Fn() -> bool + Sync),
    ) -> Work<'a> {
        Work {
            options,
            generator,
            classifier,
            rules,
            next: AtomicU64::new(0),
            inputs: AtomicU64::new(0),
            findings: AtomicU64::new(0),
            start,
            timed_out: AtomicBool::new(false),
            stopped,
        }
    }

    /// Generates, checks and compares chunks of indexes on `pair` until none is left.
    pub(crate) fn work(&self, pair: &mut Pair<'_, '_>) -> Found {
        let mut found = Found::new(self.rules.len());
        let mut marks = Marks::new(self.rules.len());
        let mut chunk = 0..0;
        let mut source = || {
            if chunk.is_empty() {
                chunk = self.next_chunk()?;
            }
            let index = chunk.next()?;
            Some(self.item(index, &mut marks))
        };
        let mut unreported = 0;
        let mut sink = |answered: Option<Answered>| {
            found.inputs += 1;
            if let Some(Answer::NotObservable(_)) = answered.as_ref().map(|a| &a.received) {
                found.not_observable += 1;
            }
            let class = answered.as_ref().and_then(|a| {
                let (tool, input) = (a.item.tool, &a.item.input);
                let level = self.options.level;
                self.classifier
                    .classify(tool, input, &a.expected, &a.received, level)
            });
            if let (Some(class), Some(answered)) = (class, answered) {
                unreported += 1;
                found.record(class, answered);
            }
            if found.inputs.is_multiple_of(TALLY) {
                self.tally(TALLY, std::mem::take(&mut unreported));
            }
        };
        let dry = matches!(
            (&pair.expected, &pair.received),
            (Side::Reference, Side::Reference)
        );
        let result = match dry {
            // The reference against itself: nothing to ask, nothing to compare.
            true => {
                while source().is_some() {
                    sink(None);
                }
                Ok(())
            }
            false => pair.run(&mut source, |answered| sink(Some(answered))),
        };
        self.tally(found.inputs % TALLY, unreported);
        found.fired = marks.fired;
        found.unusable = result.err();
        found
    }

    /// Whether `--time-limit` ended generation.
    pub(crate) fn timed_out(&self) -> bool {
        self.timed_out.load(Ordering::Relaxed)
    }

    /// Where the run is.
    pub(crate) fn progress(&self, shrinking: bool) -> Progress {
        Progress {
            inputs: self.inputs.load(Ordering::Relaxed),
            findings: self.findings.load(Ordering::Relaxed),
            elapsed: self.start.elapsed(),
            shrinking,
        }
    }

    /// The next chunk of indexes, none once the count is reached, a peer is gone or the time
    /// is up.
    fn next_chunk(&self) -> Option<Range<u64>> {
        if (self.stopped)() || self.past_deadline() {
            return None;
        }
        let start = self.next.fetch_add(CHUNK, Ordering::Relaxed);
        let count = self.options.count;
        (start < count).then(|| start..(start + CHUNK).min(count))
    }

    /// Input `index` with the reference's verdict on it, marking the rules it fires.
    fn item(&self, index: u64, marks: &mut Marks) -> Item {
        let (tool, input) = self.generator.input(self.options.seed, index);
        // Once this worker has seen every rule fire, naming the rules is no longer needed.
        let reference = match marks.unfired {
            0 => validate_json(tool, &input),
            _ => {
                let (reference, traced) = validate_traced(tool, &input);
                for t in &traced {
                    if let Some(i) = self.rules.index(&t.rule) {
                        marks.mark(i);
                    }
                }
                reference
            }
        };
        Item {
            index,
            tool,
            input,
            reference,
        }
    }

    fn tally(&self, inputs: u64, findings: u64) {
        self.inputs.fetch_add(inputs, Ordering::Relaxed);
        self.findings.fetch_add(findings, Ordering::Relaxed);
    }

    fn past_deadline(&self) -> bool {
        let limit = self.options.time_limit;
        let past = limit.is_some_and(|limit| self.start.elapsed() >= limit);
        if past {
            self.timed_out.store(true, Ordering::Relaxed);
        }
        past
    }
}

impl std::fmt::Debug for Work<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Work")
            .field("next", &self.next)
            .field("inputs", &self.inputs)
            .finish_non_exhaustive()
    }
}

/// The rules one worker has seen fire.
struct Marks {
    fired: Vec<bool>,
    unfired: usize,
}

impl Marks {
    fn new(rules: usize) -> Marks {
        Marks {
            fired: vec![false; rules],
            unfired: rules,
        }
    }

    fn mark(&mut self, i: usize) {
        if !self.fired[i] {
            self.fired[i] = true;
            self.unfired -= 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;
    use vvoc_reference::Tool;

    /// A dry run's work of `options` on one worker.
    fn dry(options: &Options, stopped: bool) -> (Found, bool, Progress) {
        let tools = [Tool::WebSearch];
        let generator = Generator::new(&tools, &[]);
        let classifier = Classifier::new(&[]);
        let rules = RuleList::of(&tools);
        let stop = move || stopped;
        let work = Work::new(
            options,
            &generator,
            &classifier,
            &rules,
            Instant::now(),
            &stop,
        );
        let mut pair = Pair {
            expected: Side::Reference,
            received: Side::Reference,
            window: 1,
        };
        let found = work.work(&mut pair);
        (found, work.timed_out(), work.progress(false))
    }

    #[test]
    fn a_dry_worker_takes_every_index_and_marks_the_rules_its_inputs_fire() {
        let (found, timed_out, progress) = dry(&Options::new(1000), false);
        assert_eq!((found.inputs, found.findings, timed_out), (1000, 0, false));
        assert_eq!(progress.inputs, 1000);
        let rules = RuleList::of(&[Tool::WebSearch]);
        let never = rules.never_fired(&found.fired);
        assert!(never.len() < rules.len() / 2, "{never:?}");
    }

    #[test]
    fn a_time_limit_or_a_stopped_peer_ends_the_work_before_the_count() {
        let mut options = Options::new(1000);
        options.time_limit = Some(Duration::ZERO);
        let (found, timed_out, _) = dry(&options, false);
        assert_eq!((found.inputs, timed_out), (0, true));
        let (found, timed_out, _) = dry(&Options::new(1000), true);
        assert_eq!((found.inputs, timed_out), (0, false));
    }
}
