//! The two sides a fuzz run compares, each the in-process reference or a peer session, fed the
//! same inputs: pipelined up to a window, answers matched by tag, each peer side pumped as
//! `conform run` pumps its peers (a failed process restarted, what it left sent again); an MCP
//! side (`conform fuzz --mcp`) is asked one input at a time.

use std::collections::{HashMap, VecDeque};

use vvoc_reference::{Json, Tool, Verdict};

use crate::fuzz::mcp_side::McpSide;
use crate::outcome::Answer;
use crate::peer::options::Unusable;
use crate::peer::pump::Pump;
use crate::peer::session::PeerSession;

/// One side: the reference in process, or a peer.
#[derive(Debug)]
pub enum Side<'p, 'o> {
    /// The reference, in this process.
    Reference,
    /// A peer session (boxed: a side is moved between threads, the reference's is nothing).
    Peer(Box<PeerSession<'p, 'o>>),
    /// An MCP server, asked about the inputs the reference refuses.
    Mcp(Box<McpSide<'p, 'o>>),
}

impl Side<'_, '_> {
    /// Says bye to a peer.
    pub fn finish(self) {
        match self {
            Side::Reference => {}
            Side::Peer(session) => session.finish(),
            Side::Mcp(side) => side.finish(),
        }
    }

    /// Kills a peer at once (the run gave up on it).
    pub fn abandon(self) {
        match self {
            Side::Reference => {}
            Side::Peer(session) => session.abandon(),
            Side::Mcp(side) => side.finish(),
        }
    }
}

/// One input for both sides, with the reference's verdict on it.
#[derive(Debug)]
pub struct Item {
    /// The caller's number for it.
    pub index: u64,
    /// The tool.
    pub tool: Tool,
    /// The input.
    pub input: Json,
    /// The reference's verdict (the answer of a [`Side::Reference`]).
    pub reference: Verdict,
}

/// An item with both answers.
#[derive(Debug)]
pub struct Answered {
    /// The item.
    pub item: Item,
    /// The expected side's answer.
    pub expected: Answer,
    /// The received side's answer.
    pub received: Answer,
}

/// The expected side (the reference, or `--against`) and the received side (the peer).
#[derive(Debug)]
pub struct Pair<'p, 'o> {
    /// What the answers are compared against.
    pub expected: Side<'p, 'o>,
    /// What is being tested.
    pub received: Side<'p, 'o>,
    /// How many items may be in flight at once.
    pub window: usize,
}

/// An item in flight and the answers it has so far (the expected side's first).
struct Slot {
    item: Item,
    answers: [Option<Answer>; 2],
}

impl<'p, 'o> Pair<'p, 'o> {
    /// Feeds the pair every item `source` gives (until it gives `None`), handing each to `sink`
    /// once both sides answered it; an error when a peer became unusable. Each peer side is
    /// pumped (`peer/pump.rs`): a failed process is restarted and what it left sent again.
    pub fn run(
        &mut self,
        mut source: impl FnMut() -> Option<Item>,
        mut sink: impl FnMut(Answered),
    ) -> Result<(), Unusable> {
        let window = self.window.max(1);
        let mut pumps = [&mut self.expected, &mut self.received].map(|side| match side {
            Side::Reference => Driver::Reference,
            Side::Peer(session) => Driver::Pump(Pump::new(session, window)),
            Side::Mcp(side) => Driver::Mcp(side),
        });
        let mut flight: HashMap<usize, Slot> = HashMap::new();
        // The tags each peer side has yet to be sent for the first time.
        let mut fresh: [VecDeque<usize>; 2] = [VecDeque::new(), VecDeque::new()];
        let mut next_tag = 0;
        let mut exhausted = false;
        loop {
            while !exhausted && flight.len() < window {
                let Some(item) = source() else {
                    exhausted = true;
                    break;
                };
                let tag = next_tag;
                next_tag += 1;
                let mut slot = Slot {
                    item,
                    answers: [None, None],
                };
                for (i, pump) in pumps.iter_mut().enumerate() {
                    match pump {
                        Driver::Reference => {
                            slot.answers[i] = Some(Answer::Verdict(slot.item.reference.clone()))
                        }
                        Driver::Mcp(side) => {
                            let Item {
                                tool,
                                input,
                                reference,
                                ..
                            } = &slot.item;
                            slot.answers[i] = Some(side.answer(*tool, input, reference)?)
                        }
                        Driver::Pump(_) => fresh[i].push_back(tag),
                    }
                }
                match slot.answers {
                    [Some(_), Some(_)] => sink(complete(slot)),
                    _ => {
                        flight.insert(tag, slot);
                    }
                }
            }
            let check = |tag: usize| flight.get(&tag).map(|s| (s.item.tool, &s.item.input));
            for (pump, fresh) in pumps.iter_mut().zip(&mut fresh) {
                if let Driver::Pump(pump) = pump {
                    pump.fill(|| fresh.pop_front(), check);
                }
            }
            if flight.is_empty() {
                match exhausted {
                    true => return Ok(()),
                    false => continue,
                }
            }
            for (i, pump) in pumps.iter_mut().enumerate() {
                let Driver::Pump(pump) = pump else { continue };
                pump.step(|tag, answer, _| {
                    if let Some(slot) = flight.get_mut(&tag) {
                        slot.answers[i] = Some(answer);
                        if slot.answers.iter().all(Option::is_some)
                            && let Some(slot) = flight.remove(&tag)
                        {
                            sink(complete(slot));
                        }
                    }
                })?;
            }
        }
    }
}

/// How one side of a run is asked: answered in process, pumped, or asked synchronously.
enum Driver<'s, 'p, 'o> {
    Reference,
    Pump(Pump<'s, 'p, 'o>),
    Mcp(&'s mut McpSide<'p, 'o>),
}

fn complete(slot: Slot) -> Answered {
    let [expected, received] = slot.answers;
    Answered {
        item: slot.item,
        expected: expected.unwrap_or(Answer::Unsupported),
        received: received.unwrap_or(Answer::Unsupported),
    }
}
