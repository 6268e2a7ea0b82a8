//! The vectors over MCP: each reject vector of a served tool is a `tools/call` (the tool's id,
//! the vector's input as `arguments`), `--jobs` servers taking them from one queue, one request
//! at a time each; a server that timed out, crashed or broke the protocol is restarted within
//! the run's budget. Accept vectors, and inputs that are not objects, are not observable.

use std::collections::{BTreeMap, VecDeque};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use vvoc_reference::{Json, Verdict};

use crate::load::vector::Vector;
use crate::mcp_client::servers::{Server, Servers};
use crate::outcome::Answer;

/// Why an accept vector is not observable over MCP.
pub const ACCEPT_NOT_OBSERVABLE: &str = "an accept vector: an MCP result does not show the normalized input, and the call would execute the tool";

/// Why a vector whose input is no object is not observable over MCP.
pub const NOT_AN_OBJECT: &str =
    "the input is not a JSON object, and MCP sends a call's arguments as an object";

/// What a vector gets without being sent: unsupported (its tool is not served), not observable
/// (an accept vector, an input that is not an object), or `None`: it is sent.
pub fn unsent(vector: &Vector, served: &[String]) -> Option<Answer> {
    if !served.iter().any(|t| t == vector.tool.id()) {
        return Some(Answer::Unsupported);
    }
    if let Verdict::Accept(_) = vector.expected {
        return Some(Answer::NotObservable(ACCEPT_NOT_OBSERVABLE.to_owned()));
    }
    match vector.input {
        Json::Object(_) => None,
        Json::Null | Json::Bool(_) | Json::Number(_) | Json::String(_) | Json::Array(_) => {
            Some(Answer::NotObservable(NOT_AN_OBJECT.to_owned()))
        }
    }
}

/// Sends the vectors at `sent` (positions in `vectors`) to servers, `jobs` at once, the first
/// of them `first`; the answers by position, with how long each took.
pub fn call_vectors(
    vectors: &[Vector],
    sent: VecDeque<usize>,
    servers: &Servers<'_>,
    first: Server,
) -> BTreeMap<usize, (Answer, Duration)> {
    let work = Work {
        vectors,
        queue: Mutex::new(sent),
        answers: Mutex::new(BTreeMap::new()),
    };
    std::thread::scope(|scope| {
        let mut first = Some(first);
        for _ in 0..servers.options.jobs.max(1) {
            let server = first.take();
            let work = &work;
            scope.spawn(move || work.run(servers, server));
        }
    });
    work.answers.into_inner().unwrap_or_default()
}

/// The vectors to send, shared by the workers.
struct Work<'a> {
    vectors: &'a [Vector],
    queue: Mutex<VecDeque<usize>>,
    answers: Mutex<BTreeMap<usize, (Answer, Duration)>>,
}

impl Work<'_> {
    /// One worker: a server (the first one, or a new one), fed from the queue until it is empty.
    fn run(&self, servers: &Servers<'_>, server: Option<Server>) {
        let mut server = match server.map_or_else(|| servers.start(None), Ok) {
            Ok(server) => server,
            Err(reason) => return servers.give_up(reason),
        };
        while !servers.stopped() {
            let Some(index) = self.queue.lock().ok().and_then(|mut q| q.pop_front()) else {
                break;
            };
            let Some(vector) = self.vectors.get(index) else {
                continue;
            };
            let began = Instant::now();
            let answer = match server.session.call_tool(vector.tool.id(), &vector.input) {
                Ok(result) => Answer::Mcp(result),
                Err(failure) => Answer::Failed(failure),
            };
            crate::progress::vector_done();
            // After an interrupt, a call whose server was killed did not fail: it was not run.
            if server.session.broken() && crate::progress::stopping() {
                break;
            }
            if let Ok(mut answers) = self.answers.lock() {
                answers.insert(index, (answer, began.elapsed()));
            }
            if server.session.broken() {
                servers.finish(server);
                let restarted = servers.take_restart().and_then(|()| servers.start(None));
                server = match restarted {
                    Ok(server) => server,
                    Err(reason) => return servers.give_up(reason),
                };
            }
        }
        servers.finish(server);
    }
}
