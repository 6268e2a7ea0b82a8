//! `conform fuzz`: generative differential conformance. Inputs grown from the catalog and from
//! mutated vectors go to the peer and to the reference in process (or a second peer), the
//! answers are compared at a level, each disagreement is classed, and one example per class is
//! shrunk to a smallest input that disagrees the same way.
//!
//! Input `i` of a seed is the same input whatever the number of jobs, and each class keeps the
//! input of its lowest `i` as its example, so a run of `--count N` finds the same classes, counts
//! and minimal examples with one job or several.

pub mod align;
pub mod class;
pub mod classify;
pub mod dictionary;
pub mod edit;
pub mod generate;
pub(crate) mod grow;
pub mod mutate;
pub mod names;
pub mod pair;
pub mod report;
pub mod rng;
pub(crate) mod shape;
pub mod shrink;
pub(crate) mod sources;

use std::collections::{BTreeMap, HashMap};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use vvoc_reference::inventory::inventory;
use vvoc_reference::{Json, RuleId, Tool, Verdict, validate_json, validate_traced};

use crate::compare::Level;
use crate::outcome::Answer;
use crate::peer::options::{PeerOptions, Peers, Unusable};
use crate::peer::session::PeerSession;
use crate::protocol::hello::Implementation;
use class::Class;
use classify::Classifier;
use generate::Generator;
use pair::{Answered, Item, Pair, Side};
use shrink::{Oracle, shrink};

/// How a fuzz run is carried out.
#[derive(Clone, Debug)]
pub struct Options {
    /// The implementation under test; `None` is the reference itself (a dry run: it measures
    /// generation and which rules fire, and finds nothing by construction).
    pub peer: Option<PeerOptions>,
    /// What the peer is compared against; `None` is the reference in process.
    pub against: Option<PeerOptions>,
    /// Only these tools (all the peers implement when empty).
    pub tools: Vec<Tool>,
    /// How many inputs.
    pub count: u64,
    /// The seed that names the inputs.
    pub seed: u64,
    /// How much of an answer must match.
    pub level: Level,
    /// How many workers (each with its own peer processes).
    pub jobs: usize,
    /// Stop generating after this long (the run is then no longer determined by its seed).
    pub time_limit: Option<Duration>,
    /// How many candidates the shrinker may try per class.
    pub shrink_budget: usize,
}

impl Options {
    /// A dry run of `count` inputs of every tool at level `exact`, seed 1, one job.
    pub fn new(count: u64) -> Options {
        Options {
            peer: None,
            against: None,
            tools: Vec::new(),
            count,
            seed: 1,
            level: Level::Exact,
            jobs: 1,
            time_limit: None,
            shrink_budget: 4000,
        }
    }
}

/// Where a run is, for a progress line.
#[derive(Clone, Copy, Debug)]
pub struct Progress {
    /// Inputs answered by both sides.
    pub inputs: u64,
    /// Of those, how many disagree.
    pub findings: u64,
    /// Since the start.
    pub elapsed: Duration,
    /// Whether the run is shrinking its findings (generation is over).
    pub shrinking: bool,
}

/// One class of disagreement, with its example.
#[derive(Clone, Debug)]
pub struct Finding {
    /// The class.
    pub class: Class,
    /// How many inputs fell in it.
    pub count: u64,
    /// The index of the first of them (its example).
    pub first: u64,
    /// That input, as generated.
    pub original: Json,
    /// The smallest input found that disagrees the same way (the original when not shrunk).
    pub minimal: Json,
    /// The expected side's answer to the minimal input.
    pub expected: Answer,
    /// The peer's answer to the minimal input.
    pub received: Answer,
    /// The reference's verdict on the minimal input (the expectation of its vector).
    pub reference: Verdict,
}

/// Which inventory rules the reference's verdicts named.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rules {
    /// How many input rules the selected tools have in the inventory (rules of execution aside).
    pub inventory: usize,
    /// The rules no verdict named, in inventory order.
    pub never_fired: Vec<String>,
}

/// A finished fuzz run.
#[derive(Clone, Debug)]
pub struct Fuzzed {
    /// The options' seed, count and level.
    pub seed: u64,
    /// How many inputs were asked for.
    pub count: u64,
    /// The level that judged.
    pub level: Level,
    /// The peer's hello (the reference's in a dry run).
    pub peer: Implementation,
    /// The other side's hello.
    pub against: Implementation,
    /// The tools generated for.
    pub tools: Vec<Tool>,
    /// How many inputs both sides answered.
    pub inputs: u64,
    /// How many of them disagree.
    pub findings: u64,
    /// The classes, in class order.
    pub classes: Vec<Finding>,
    /// Which rules fired.
    pub rules: Rules,
    /// Time spent generating and comparing.
    pub elapsed: Duration,
    /// Time spent shrinking.
    pub shrink_elapsed: Duration,
    /// Whether `--time-limit` ended generation before the count.
    pub timed_out: bool,
    /// Why a peer became unusable, if one did (exit 3).
    pub unusable: Option<String>,
    /// The last bytes the peers wrote to stderr.
    pub stderr_tail: String,
}

impl Fuzzed {
    /// Inputs per second of the generation phase.
    pub fn rate(&self) -> f64 {
        self.inputs as f64 / self.elapsed.as_secs_f64().max(1e-9)
    }
}

/// Why a run could not be carried out.
#[derive(Debug)]
pub enum FuzzError {
    /// A peer could not be started or greeted.
    Unusable(Unusable),
    /// No selected tool is implemented by both sides.
    NoTools {
        /// What the peer implements.
        peer: Vec<String>,
    },
    /// The runner broke the protocol (`--validate-protocol`): a bug of this program.
    RunnerProtocol(Vec<String>),
}

impl std::fmt::Display for FuzzError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FuzzError::Unusable(reason) => write!(f, "the peer is unusable: {reason}"),
            FuzzError::NoTools { peer } => write!(
                f,
                "the peer implements none of the selected tools (its hello lists: {})",
                peer.join(", ")
            ),
            FuzzError::RunnerProtocol(violations) => write!(
                f,
                "this runner broke the protocol (a bug, please report it):\n{}",
                violations.join("\n")
            ),
        }
    }
}

impl std::error::Error for FuzzError {}

/// How many indexes a worker takes at once.
const CHUNK: u64 = 64;

/// Runs a fuzz campaign: `vectors` are the inputs to mutate (each with its tool); `progress` is
/// called from this thread a few times a second.
pub fn fuzz(
    options: &Options,
    vectors: &[(Tool, Json)],
    progress: &mut dyn FnMut(Progress),
) -> Result<Fuzzed, FuzzError> {
    let start = Instant::now();
    let received_peers = peers(options.peer.as_ref())?;
    let expected_peers = peers(options.against.as_ref())?;
    let first_received = session(received_peers.as_ref())?;
    let first_expected = session(expected_peers.as_ref())?;
    let hello = |side: &Side<'_, '_>| match side {
        Side::Reference => Implementation::reference(),
        Side::Peer(session) => session.hello().clone(),
    };
    let (peer, against) = (hello(&first_received), hello(&first_expected));
    let tools: Vec<Tool> = Tool::ALL
        .into_iter()
        .filter(|t| options.tools.is_empty() || options.tools.contains(t))
        .filter(|t| peer.tools.iter().any(|p| p == t.id()))
        .filter(|t| against.tools.iter().any(|p| p == t.id()))
        .collect();
    if tools.is_empty() {
        first_received.finish();
        first_expected.finish();
        return Err(FuzzError::NoTools {
            peer: peer.tools.clone(),
        });
    }
    let generator = Generator::new(&tools, vectors);
    let classifier = Classifier::new(vectors);
    let rule_ids: Vec<RuleId> = inventory()
        .into_iter()
        .filter(|r| !r.is_exec() && tools.contains(&rule_tool(r)))
        .collect();
    let rule_index: HashMap<&RuleId, usize> =
        rule_ids.iter().enumerate().map(|(i, r)| (r, i)).collect();
    let stopped = || {
        received_peers.as_ref().is_some_and(Peers::stopped)
            || expected_peers.as_ref().is_some_and(Peers::stopped)
    };
    let shared = Shared {
        options,
        generator: &generator,
        classifier: &classifier,
        rules: &rule_index,
        rule_count: rule_ids.len(),
        next: AtomicU64::new(0),
        inputs: AtomicU64::new(0),
        findings: AtomicU64::new(0),
        deadline: options.time_limit.map(|limit| start + limit),
        timed_out: AtomicBool::new(false),
        stopped: &stopped,
    };
    let jobs = options.jobs.max(1);
    let window = options.peer.as_ref().map_or(1, |o| o.window.max(1));
    let give_up = |reason: Unusable| {
        for peers in [&received_peers, &expected_peers].into_iter().flatten() {
            peers.give_up(reason.clone());
        }
    };
    let firsts = Mutex::new(Some((first_expected, first_received)));
    let outcomes: Vec<(Worked, Option<Pair<'_, '_>>)> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..jobs)
            .map(|_| {
                let (shared, firsts, give_up) = (&shared, &firsts, &give_up);
                let (received_peers, expected_peers) = (&received_peers, &expected_peers);
                scope.spawn(move || {
                    let first = firsts.lock().ok().and_then(|mut f| f.take());
                    let pair = match first {
                        Some((expected, received)) => Ok((expected, received)),
                        None => session(expected_peers.as_ref()).and_then(|expected| {
                            session(received_peers.as_ref()).map(|received| (expected, received))
                        }),
                    };
                    let mut pair = match pair {
                        Ok((expected, received)) => Pair {
                            expected,
                            received,
                            window,
                        },
                        Err(FuzzError::Unusable(reason)) => {
                            give_up(reason);
                            return (Worked::new(shared.rule_count), None);
                        }
                        Err(_) => return (Worked::new(shared.rule_count), None),
                    };
                    let worked = shared.work(&mut pair);
                    if let Some(reason) = &worked.unusable {
                        give_up(reason.clone());
                    }
                    (worked, Some(pair))
                })
            })
            .collect();
        let mut last = Instant::now();
        while !handles.iter().all(|h| h.is_finished()) {
            std::thread::sleep(Duration::from_millis(20));
            if last.elapsed() >= Duration::from_millis(100) {
                last = Instant::now();
                progress(shared.progress(start, false));
            }
        }
        handles
            .into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or_else(|_| (Worked::new(shared.rule_count), None))
            })
            .collect()
    });
    let elapsed = start.elapsed();
    let mut merged = Worked::new(rule_ids.len());
    let mut pairs = Vec::new();
    for (worked, pair) in outcomes {
        merged.merge(worked);
        pairs.extend(pair);
    }
    progress(shared.progress(start, true));
    let shrink_start = Instant::now();
    let firsts: Vec<(Class, First)> = merged.classes.into_iter().collect();
    let classes = shrink_all(options, &classifier, firsts, &mut pairs, &give_up);
    let shrink_elapsed = shrink_start.elapsed();
    let unusable_during = merged.unusable.clone();
    let gone = stopped();
    let timed_out = shared.timed_out.load(Ordering::Relaxed);
    for pair in pairs {
        for side in [pair.expected, pair.received] {
            match gone {
                true => side.abandon(),
                false => side.finish(),
            }
        }
    }
    let mut violations = Vec::new();
    let mut unusable = unusable_during.map(|u| u.0);
    let mut stderr_tail = String::new();
    for peers in [received_peers, expected_peers].into_iter().flatten() {
        let ended = peers.end();
        violations.extend(ended.violations);
        if unusable.is_none() {
            unusable = ended.unusable.map(|u| u.0);
        }
        stderr_tail.push_str(&ended.stderr);
    }
    if !violations.is_empty() {
        return Err(FuzzError::RunnerProtocol(violations));
    }
    let never_fired = rule_ids
        .iter()
        .zip(&merged.fired)
        .filter(|(_, fired)| !**fired)
        .map(|(rule, _)| rule.to_string())
        .collect();
    Ok(Fuzzed {
        seed: options.seed,
        count: options.count,
        level: options.level,
        peer,
        against,
        tools,
        inputs: merged.inputs,
        findings: merged.findings,
        classes,
        rules: Rules {
            inventory: rule_ids.len(),
            never_fired,
        },
        elapsed,
        shrink_elapsed,
        timed_out,
        unusable,
        stderr_tail,
    })
}

/// The tool of a rule.
fn rule_tool(rule: &RuleId) -> Tool {
    match rule {
        RuleId::Structural { tool, .. }
        | RuleId::Branch { tool, .. }
        | RuleId::Exec { tool, .. } => *tool,
    }
}

/// The peers of one side, if it is a peer.
fn peers(options: Option<&PeerOptions>) -> Result<Option<Peers<'_>>, FuzzError> {
    options
        .map(|o| Peers::new(o).map_err(|e| FuzzError::RunnerProtocol(vec![e])))
        .transpose()
}

/// A side: a started peer session, or the reference.
fn session<'p, 'o>(peers: Option<&'p Peers<'o>>) -> Result<Side<'p, 'o>, FuzzError> {
    match peers {
        None => Ok(Side::Reference),
        Some(peers) => PeerSession::start(peers)
            .map(|session| Side::Peer(Box::new(session)))
            .map_err(FuzzError::Unusable),
    }
}

/// The first input of a class and its answers.
#[derive(Clone, Debug)]
struct First {
    count: u64,
    index: u64,
    input: Json,
    expected: Answer,
    received: Answer,
}

/// What one worker found.
#[derive(Debug)]
struct Worked {
    inputs: u64,
    findings: u64,
    classes: BTreeMap<Class, First>,
    fired: Vec<bool>,
    unusable: Option<Unusable>,
}

impl Worked {
    fn new(rules: usize) -> Worked {
        Worked {
            inputs: 0,
            findings: 0,
            classes: BTreeMap::new(),
            fired: vec![false; rules],
            unusable: None,
        }
    }

    /// Adds another worker's results; each class keeps its lowest index.
    fn merge(&mut self, other: Worked) {
        self.inputs += other.inputs;
        self.findings += other.findings;
        for (class, first) in other.classes {
            match self.classes.get_mut(&class) {
                Some(kept) => {
                    kept.count += first.count;
                    if first.index < kept.index {
                        let count = kept.count;
                        *kept = First { count, ..first };
                    }
                }
                None => {
                    self.classes.insert(class, first);
                }
            }
        }
        for (mine, theirs) in self.fired.iter_mut().zip(other.fired) {
            *mine |= theirs;
        }
        if self.unusable.is_none() {
            self.unusable = other.unusable;
        }
    }

    fn record(&mut self, class: Class, answered: Answered) {
        self.findings += 1;
        let Answered {
            item,
            expected,
            received,
        } = answered;
        match self.classes.get_mut(&class) {
            Some(first) => {
                first.count += 1;
                if item.index < first.index {
                    first.index = item.index;
                    first.input = item.input;
                    first.expected = expected;
                    first.received = received;
                }
            }
            None => {
                let first = First {
                    count: 1,
                    index: item.index,
                    input: item.input,
                    expected,
                    received,
                };
                self.classes.insert(class, first);
            }
        }
    }
}

/// What the workers of a run share.
struct Shared<'a> {
    options: &'a Options,
    generator: &'a Generator,
    classifier: &'a Classifier,
    rules: &'a HashMap<&'a RuleId, usize>,
    rule_count: usize,
    /// The next index no worker has taken.
    next: AtomicU64,
    inputs: AtomicU64,
    findings: AtomicU64,
    deadline: Option<Instant>,
    timed_out: AtomicBool,
    stopped: &'a (dyn Fn() -> bool + Sync),
}

impl Shared<'_> {
    /// Generates, checks and compares chunks of indexes until none is left.
    fn work(&self, pair: &mut Pair<'_, '_>) -> Worked {
        let mut worked = Worked::new(self.rule_count);
        let mut fired = vec![false; self.rule_count];
        let mut unfired = self.rule_count;
        let mut chunk = 0..0;
        let (mut inputs, mut findings) = (0u64, 0u64);
        let mut source = || {
            if chunk.is_empty() {
                if (self.stopped)() || self.past_deadline() {
                    return None;
                }
                let start = self.next.fetch_add(CHUNK, Ordering::Relaxed);
                if start >= self.options.count {
                    return None;
                }
                chunk = start..(start + CHUNK).min(self.options.count);
            }
            let index = chunk.next()?;
            let (tool, input) = self.generator.input(self.options.seed, index);
            // Once this worker has seen every rule fire, naming the rules is no longer needed.
            let reference = match unfired {
                0 => validate_json(tool, &input),
                _ => {
                    let (reference, traced) = validate_traced(tool, &input);
                    for t in &traced {
                        if let Some(&i) = self.rules.get(&t.rule)
                            && !fired[i]
                        {
                            fired[i] = true;
                            unfired -= 1;
                        }
                    }
                    reference
                }
            };
            Some(Item {
                index,
                tool,
                input,
                reference,
            })
        };
        let level = self.options.level;
        let mut sink = |answered: Option<Answered>| {
            inputs += 1;
            let class = answered.as_ref().and_then(|a| {
                let tool = a.item.tool;
                self.classifier
                    .classify(tool, &a.item.input, &a.expected, &a.received, level)
            });
            if let (Some(class), Some(answered)) = (class, answered) {
                findings += 1;
                worked.record(class, answered);
            }
            if inputs % 256 == 0 {
                self.inputs.fetch_add(256, Ordering::Relaxed);
                self.findings.fetch_add(findings, Ordering::Relaxed);
                findings = 0;
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
        self.inputs.fetch_add(inputs % 256, Ordering::Relaxed);
        self.findings.fetch_add(findings, Ordering::Relaxed);
        worked.inputs = inputs;
        worked.fired = fired;
        worked.unusable = result.err();
        worked
    }

    fn past_deadline(&self) -> bool {
        let past = self.deadline.is_some_and(|d| Instant::now() >= d);
        if past {
            self.timed_out.store(true, Ordering::Relaxed);
        }
        past
    }

    fn progress(&self, start: Instant, shrinking: bool) -> Progress {
        Progress {
            inputs: self.inputs.load(Ordering::Relaxed),
            findings: self.findings.load(Ordering::Relaxed),
            elapsed: start.elapsed(),
            shrinking,
        }
    }
}

/// Shrinks each class's example (on the workers' pairs, classes dealt out in order) and asks
/// both sides once more about the minimal input.
fn shrink_all(
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
