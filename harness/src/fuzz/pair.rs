//! The two sides a fuzz run compares, each the in-process reference or a peer session, fed the
//! same inputs: pipelined up to a window, answers matched by tag, and what a failed peer process
//! left unanswered sent again after its restart (as `conform run` does).

use std::collections::{HashMap, VecDeque};

use vvoc_reference::{Json, Tool, Verdict};

use crate::outcome::Answer;
use crate::peer::options::Unusable;
use crate::peer::session::{Next, PeerSession};

/// One side: the reference in process, or a peer.
#[derive(Debug)]
pub enum Side<'p, 'o> {
    /// The reference, in this process.
    Reference,
    /// A peer session (boxed: a side is moved between threads, the reference's is nothing).
    Peer(Box<PeerSession<'p, 'o>>),
}

impl Side<'_, '_> {
    /// Says bye to a peer.
    pub fn finish(self) {
        match self {
            Side::Reference => {}
            Side::Peer(session) => session.finish(),
        }
    }

    /// Kills a peer at once (the run gave up on it).
    pub fn abandon(self) {
        match self {
            Side::Reference => {}
            Side::Peer(session) => session.abandon(),
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

/// An item in flight and the answers it has so far.
struct Slot {
    item: Item,
    answers: [Option<Answer>; 2],
}

impl<'p, 'o> Pair<'p, 'o> {
    /// Feeds the pair every item `source` gives (until it gives `None`), handing each to `sink`
    /// once both sides answered it; an error when a peer became unusable.
    pub fn run(
        &mut self,
        mut source: impl FnMut() -> Option<Item>,
        mut sink: impl FnMut(Answered),
    ) -> Result<(), Unusable> {
        let mut flight: HashMap<usize, Slot> = HashMap::new();
        let mut resend: [VecDeque<usize>; 2] = [VecDeque::new(), VecDeque::new()];
        let mut next_tag = 0;
        let mut exhausted = false;
        loop {
            while !exhausted && flight.len() < self.window.max(1) {
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
                for (i, side) in self.sides().into_iter().enumerate() {
                    match side {
                        Side::Reference => {
                            slot.answers[i] = Some(Answer::Verdict(slot.item.reference.clone()));
                        }
                        Side::Peer(session) => session.check(tag, slot.item.tool, &slot.item.input),
                    }
                }
                match slot.answers {
                    [Some(_), Some(_)] => sink(complete(slot)),
                    _ => {
                        flight.insert(tag, slot);
                    }
                }
            }
            for (i, side) in self.sides().into_iter().enumerate() {
                if let Side::Peer(session) = side {
                    while let Some(tag) = resend[i].pop_front() {
                        if let Some(slot) = flight.get(&tag) {
                            session.check(tag, slot.item.tool, &slot.item.input);
                        }
                    }
                }
            }
            if flight.is_empty() {
                match exhausted {
                    true => return Ok(()),
                    false => continue,
                }
            }
            for (i, side) in self.sides().into_iter().enumerate() {
                let Side::Peer(session) = side else { continue };
                if session.outstanding() == 0 {
                    continue;
                }
                let (tag, answer) = match session.next_answer() {
                    None => continue,
                    Some(Next::Answer(tag, answer, _)) => (tag, answer),
                    Some(Next::Failed {
                        blamed,
                        resend: more,
                    }) => {
                        resend[i].extend(more);
                        session.restart()?;
                        (blamed.0, blamed.1)
                    }
                };
                if let Some(slot) = flight.get_mut(&tag) {
                    slot.answers[i] = Some(answer);
                    if slot.answers.iter().all(Option::is_some)
                        && let Some(slot) = flight.remove(&tag)
                    {
                        sink(complete(slot));
                    }
                }
            }
        }
    }

    fn sides(&mut self) -> [&mut Side<'p, 'o>; 2] {
        [&mut self.expected, &mut self.received]
    }
}

fn complete(slot: Slot) -> Answered {
    let [expected, received] = slot.answers;
    Answered {
        item: slot.item,
        expected: expected.unwrap_or(Answer::Unsupported),
        received: received.unwrap_or(Answer::Unsupported),
    }
}
