//! A fuzz run from start to end: the two sides opened and greeted, the tools both implement,
//! the generation phase on `--jobs` workers (each with a pair of sides of its own), the classes
//! merged and shrunk on the workers' pairs, and the sides closed. With `--mcp` the received
//! side is an MCP server (`fuzz/mcp_side.rs`), asked about the inputs the reference refuses.

use std::sync::Mutex;
use std::time::{Duration, Instant};

use vvoc_reference::{Json, Tool};

use crate::fuzz::classify::Classifier;
use crate::fuzz::error::FuzzError;
use crate::fuzz::found::Found;
use crate::fuzz::fuzzed::{Fuzzed, Rules};
use crate::fuzz::generate::Generator;
use crate::fuzz::mcp_side::McpSide;
use crate::fuzz::options::{Options, Progress};
use crate::fuzz::oracle::shrink_all;
use crate::fuzz::pair::{Pair, Side};
use crate::fuzz::rules::RuleList;
use crate::fuzz::work::Work;
use crate::mcp_client::servers::Servers;
use crate::peer::options::{PeerOptions, Peers, Unusable};
use crate::peer::session::PeerSession;
use crate::protocol::hello::Implementation;

/// How often the progress callback is called, at most.
const PROGRESS: Duration = Duration::from_millis(100);

/// Runs a fuzz campaign: `vectors` are the inputs to mutate (each with its tool); `progress` is
/// called from this thread a few times a second.
pub fn fuzz(
    options: &Options,
    vectors: &[(Tool, Json)],
    progress: &mut dyn FnMut(Progress),
) -> Result<Fuzzed, FuzzError> {
    let start = Instant::now();
    let sides = Peered {
        received: peers(options.peer.as_ref())?,
        expected: peers(options.against.as_ref())?,
        mcp: options.mcp.as_ref().map(Servers::new),
    };
    let (first, greeted) = sides.greet(options)?;
    let generator = Generator::new(&greeted.tools, vectors);
    let classifier = Classifier::new(vectors);
    let rules = RuleList::of(&greeted.tools);
    let stopped = || sides.stopped();
    let work = Work::new(options, &generator, &classifier, &rules, start, &stopped);
    let outcomes = sides.generate(options, &work, first, progress);
    let elapsed = start.elapsed();
    let mut found = Found::new(rules.len());
    let mut pairs = Vec::new();
    for (worked, pair) in outcomes {
        found.merge(worked);
        pairs.extend(pair);
    }
    progress(work.progress(true));
    let shrink_start = Instant::now();
    let firsts = std::mem::take(&mut found.classes).into_iter().collect();
    let give_up = |reason: Unusable| sides.give_up(reason);
    let classes = shrink_all(options, &classifier, firsts, &mut pairs, &give_up);
    let shrink_elapsed = shrink_start.elapsed();
    let timed_out = work.timed_out();
    sides.finish(pairs);
    let closed = sides.end(found.unusable.take())?;
    Ok(Fuzzed {
        seed: options.seed,
        count: options.count,
        level: options.level,
        peer: greeted.peer,
        against: greeted.against,
        tools: greeted.tools,
        inputs: found.inputs,
        findings: found.findings,
        not_observable: found.not_observable,
        over_mcp: options.mcp.is_some(),
        classes,
        rules: Rules {
            inventory: rules.len(),
            never_fired: rules.never_fired(&found.fired),
        },
        elapsed,
        shrink_elapsed,
        timed_out,
        unusable: closed.unusable,
        stderr_tail: closed.stderr_tail,
    })
}

/// The peers of the two sides (`None` for a side that is the reference), and the MCP servers
/// that are the received side instead of a peer (`--mcp`).
struct Peered<'o> {
    received: Option<Peers<'o>>,
    expected: Option<Peers<'o>>,
    mcp: Option<Servers<'o>>,
}

/// What the first sessions said: the two hellos and the tools both sides implement.
struct Greeted {
    peer: Implementation,
    against: Implementation,
    tools: Vec<Tool>,
}

/// How the sides ended: why a peer became unusable, if one did, and their stderr tails.
struct Closed {
    unusable: Option<String>,
    stderr_tail: String,
}

/// The first pair of sides, for the first worker (the second side the expected one).
type Firsts<'p, 'o> = (Side<'p, 'o>, Side<'p, 'o>);

impl<'o> Peered<'o> {
    /// Starts the first session of each side and finds the tools both sides implement among the
    /// selected ones.
    fn greet(&self, options: &Options) -> Result<(Firsts<'_, 'o>, Greeted), FuzzError> {
        let mut received = self.received_session()?;
        let mut expected = match session(self.expected.as_ref()) {
            Ok(expected) => expected,
            Err(error) => {
                received.finish();
                return Err(error);
            }
        };
        let (peer, against) = match (hello(&mut received), hello(&mut expected)) {
            (Ok(peer), Ok(against)) => (peer, against),
            (Err(reason), _) | (_, Err(reason)) => {
                received.finish();
                expected.finish();
                return Err(FuzzError::Unusable(reason));
            }
        };
        let tools: Vec<Tool> = Tool::ALL
            .into_iter()
            .filter(|t| options.tools.is_empty() || options.tools.contains(t))
            .filter(|t| peer.tools.iter().any(|p| p == t.id()))
            .filter(|t| against.tools.iter().any(|p| p == t.id()))
            .collect();
        if tools.is_empty() {
            received.finish();
            expected.finish();
            return Err(FuzzError::NoTools {
                peer: peer.tools.clone(),
            });
        }
        let greeted = Greeted {
            peer,
            against,
            tools,
        };
        Ok(((expected, received), greeted))
    }

    /// The generation phase: `--jobs` workers, the first on the first sessions, the others on
    /// sessions of their own, while this thread reports progress. Each worker's findings come
    /// back with its pair, for the shrinking.
    fn generate<'p>(
        &'p self,
        options: &Options,
        work: &Work<'_>,
        first: Firsts<'p, 'o>,
        progress: &mut dyn FnMut(Progress),
    ) -> Vec<(Found, Option<Pair<'p, 'o>>)> {
        let window = options.peer.as_ref().map_or(1, |o| o.window.max(1));
        let first = Mutex::new(Some(first));
        std::thread::scope(|scope| {
            let handles: Vec<_> = (0..options.jobs.max(1))
                .map(|_| {
                    let first = &first;
                    scope.spawn(move || {
                        let sides = first.lock().ok().and_then(|mut f| f.take());
                        self.worker(work, sides, window)
                    })
                })
                .collect();
            let mut last = Instant::now();
            while !handles.iter().all(|h| h.is_finished()) {
                std::thread::sleep(Duration::from_millis(20));
                if last.elapsed() >= PROGRESS {
                    last = Instant::now();
                    progress(work.progress(false));
                }
            }
            handles
                .into_iter()
                .map(|h| h.join().unwrap_or_else(|_| (Found::new(0), None)))
                .collect()
        })
    }

    /// One worker: its pair of sides (the first one, or new sessions), worked until the work is
    /// done; a side that cannot be started or becomes unusable gives the whole run up.
    fn worker<'p>(
        &'p self,
        work: &Work<'_>,
        first: Option<Firsts<'p, 'o>>,
        window: usize,
    ) -> (Found, Option<Pair<'p, 'o>>) {
        let sides = match first {
            Some(sides) => Ok(sides),
            None => session(self.expected.as_ref())
                .and_then(|expected| Ok((expected, self.received_session()?))),
        };
        let mut pair = match sides {
            Ok((expected, received)) => Pair {
                expected,
                received,
                window,
            },
            Err(error) => {
                if let FuzzError::Unusable(reason) = error {
                    self.give_up(reason);
                }
                return (Found::new(0), None);
            }
        };
        let found = work.work(&mut pair);
        if let Some(reason) = &found.unusable {
            self.give_up(reason.clone());
        }
        (found, Some(pair))
    }

    /// Says bye to every session, or kills them when a peer became unusable.
    fn finish(&self, pairs: Vec<Pair<'_, 'o>>) {
        let gone = self.stopped();
        for pair in pairs {
            for side in [pair.expected, pair.received] {
                match gone {
                    true => side.abandon(),
                    false => side.finish(),
                }
            }
        }
    }

    /// Ends the peers and gathers what they left: protocol violations of this runner, why a
    /// peer became unusable (`during`: as a worker found it), the stderr tails.
    fn end(self, during: Option<Unusable>) -> Result<Closed, FuzzError> {
        let mut violations = Vec::new();
        let mut unusable = during.map(|u| u.0);
        let mut stderr_tail = String::new();
        for peers in [self.received, self.expected].into_iter().flatten() {
            let ended = peers.end();
            violations.extend(ended.violations);
            if unusable.is_none() {
                unusable = ended.unusable.map(|u| u.0);
            }
            stderr_tail.push_str(&ended.stderr);
        }
        if let Some(servers) = self.mcp {
            let (gone, stderr) = servers.end();
            if unusable.is_none() {
                unusable = gone.map(|u| u.0);
            }
            stderr_tail.push_str(&stderr);
        }
        match violations.is_empty() {
            true => Ok(Closed {
                unusable,
                stderr_tail,
            }),
            false => Err(FuzzError::RunnerProtocol(violations)),
        }
    }

    /// Whether a peer of either side became unusable.
    fn stopped(&self) -> bool {
        self.received.as_ref().is_some_and(Peers::stopped)
            || self.expected.as_ref().is_some_and(Peers::stopped)
            || self.mcp.as_ref().is_some_and(Servers::stopped)
    }

    /// Gives up both sides' peers: the run ends.
    fn give_up(&self, reason: Unusable) {
        for peers in [&self.received, &self.expected].into_iter().flatten() {
            peers.give_up(reason.clone());
        }
        if let Some(servers) = &self.mcp {
            servers.give_up(reason);
        }
    }

    /// A session of the received side: an MCP server's, a peer's, or the reference.
    fn received_session(&self) -> Result<Side<'_, 'o>, FuzzError> {
        match &self.mcp {
            Some(servers) => McpSide::start(servers)
                .map(|side| Side::Mcp(Box::new(side)))
                .map_err(FuzzError::Unusable),
            None => session(self.received.as_ref()),
        }
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

/// What a side said in its hello (the reference's own, in process; an MCP server's
/// `initialize` and `tools/list`).
fn hello(side: &mut Side<'_, '_>) -> Result<Implementation, Unusable> {
    match side {
        Side::Reference => Ok(Implementation::reference()),
        Side::Peer(session) => Ok(session.hello().clone()),
        Side::Mcp(side) => side.hello(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_dry_run_checks_every_input_and_finds_the_same_with_any_number_of_jobs() {
        let vectors = [(
            Tool::WebSearch,
            Json::parse(r#"{"query":"q","count":3}"#).expect("JSON"),
        )];
        let run = |jobs| {
            let mut options = Options::new(3000);
            options.tools = vec![Tool::WebSearch, Tool::WorkItemClose];
            options.jobs = jobs;
            fuzz(&options, &vectors, &mut |_| {}).expect("a dry run runs")
        };
        let (one, two) = (run(1), run(2));
        assert_eq!((one.inputs, one.findings, one.classes.len()), (3000, 0, 0));
        // In the order of the tools, whatever the order asked for.
        assert_eq!(one.tools, vec![Tool::WorkItemClose, Tool::WebSearch]);
        assert_eq!(one.peer.name, Implementation::reference().name);
        assert_eq!((one.timed_out, one.unusable.as_deref()), (false, None));
        assert_eq!(one.rules, two.rules);
        assert!(
            one.rules.never_fired.len() < one.rules.inventory,
            "{:?}",
            one.rules
        );
    }

    #[test]
    fn a_time_limit_ends_a_dry_run_early_and_says_so() {
        let mut options = Options::new(1_000_000_000);
        options.time_limit = Some(Duration::from_millis(50));
        let run = fuzz(&options, &[], &mut |_| {}).expect("a dry run runs");
        assert!(
            run.timed_out && run.inputs < run.count,
            "{} inputs",
            run.inputs
        );
    }
}
