//! The peers of one run: its options, and what its sessions (`peer_session`) share: how a
//! process is started and greeted, the numbering of messages, `--validate-protocol`, and the
//! supervision (`supervision.rs`: the restart budget, giving up, the stderr tails).

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use crate::peer::process::{Event, MAX_LINE, PeerCommand, PeerProcess};
use crate::peer::supervision::Supervision;
use crate::protocol::hello::Implementation;
use crate::protocol::runner::ToPeer;
use crate::protocol::schemas::ProtocolCheck;
use crate::protocol::wire::preview;

pub use crate::peer::supervision::Unusable;

/// How a peer run is carried out.
#[derive(Clone, Debug)]
pub struct PeerOptions {
    /// The command that starts a peer.
    pub command: PeerCommand,
    /// How long the peer may go without answering while checks are outstanding.
    pub timeout: Duration,
    /// How long a new process may take to answer the hello; `None` is [`PeerOptions::timeout`],
    /// 5 s at least (a peer may be slow to start).
    pub hello_timeout: Option<Duration>,
    /// How many peer processes run at once.
    pub jobs: usize,
    /// How many restarts (after timeouts, crashes and protocol errors) the run allows in all.
    pub max_restarts: usize,
    /// How many checks one process may have outstanding (pipelining).
    pub window: usize,
    /// Whether every message is checked against the protocol schemas.
    pub validate_protocol: bool,
}

impl PeerOptions {
    /// Defaults for everything but the command.
    pub fn new(command: PeerCommand) -> PeerOptions {
        PeerOptions {
            command,
            timeout: Duration::from_millis(5000),
            hello_timeout: None,
            jobs: 1,
            max_restarts: 10,
            window: 16,
            validate_protocol: false,
        }
    }
}

/// What the peer sessions of one run share.
#[derive(Debug)]
pub struct Peers<'o> {
    options: &'o PeerOptions,
    protocol: Option<ProtocolCheck>,
    next_seq: AtomicU64,
    supervision: Supervision,
}

/// How the peers of a run ended.
#[derive(Debug)]
pub struct Ended {
    /// Why the run gave up on the peer, if it did.
    pub unusable: Option<Unusable>,
    /// The last bytes the peers wrote to stderr.
    pub stderr: String,
    /// The runner's own protocol violations (`--validate-protocol`): a bug of this program.
    pub violations: Vec<String>,
}

impl<'o> Peers<'o> {
    /// The peers of a run; an error when the protocol schemas do not compile (a bug).
    pub fn new(options: &'o PeerOptions) -> Result<Peers<'o>, String> {
        let protocol = match options.validate_protocol {
            true => Some(ProtocolCheck::new()?),
            false => None,
        };
        Ok(Peers {
            options,
            protocol,
            next_seq: AtomicU64::new(1),
            supervision: Supervision::new("peer", options.max_restarts),
        })
    }

    /// The `seq` of the next message that needs an answer.
    pub(crate) fn next_seq(&self) -> u64 {
        self.next_seq.fetch_add(1, Ordering::Relaxed)
    }

    /// How long a peer may go without answering.
    pub(crate) fn timeout(&self) -> Duration {
        self.options.timeout
    }

    /// Takes one restart from the run's budget; the peer is unusable when there is none left.
    pub(crate) fn take_restart(&self) -> Result<(), Unusable> {
        self.supervision.take_restart()
    }

    /// Gives up on the peer: every session stops at its next request.
    pub fn give_up(&self, reason: Unusable) {
        self.supervision.give_up(reason);
    }

    /// Whether the run has given up on the peer.
    pub fn stopped(&self) -> bool {
        self.supervision.stopped()
    }

    /// How the run's peers ended, once every session has.
    pub fn end(self) -> Ended {
        let (unusable, stderr) = self.supervision.end();
        Ended {
            unusable,
            stderr,
            violations: self
                .protocol
                .map(|p| p.runner_violations())
                .unwrap_or_default(),
        }
    }

    /// Starts a process and exchanges hellos; the wait for its answer is the hello timeout, by
    /// default the timeout, 5 s at least.
    pub(crate) fn spawn(&self) -> Result<(PeerProcess, Implementation), Unusable> {
        let mut process = PeerProcess::spawn(&self.options.command).map_err(Unusable)?;
        self.send(&process, &ToPeer::Hello);
        let timeout = self
            .options
            .hello_timeout
            .unwrap_or_else(|| self.options.timeout.max(Duration::from_secs(5)));
        let line = match process.next_event(Instant::now() + timeout) {
            Ok(Event::Line(line)) => line,
            Ok(Event::Closed) => {
                let status = process.exit_status();
                process.kill();
                let tail = process.stderr_tail();
                let note = match tail.trim().is_empty() {
                    true => String::new(),
                    false => format!("; its stderr ends with:\n{}", tail.trim_end()),
                };
                return Err(Unusable(format!(
                    "the peer exited during the hello ({status}){note}"
                )));
            }
            Ok(Event::TooLong) => {
                process.kill();
                return Err(Unusable(format!(
                    "the peer answered the hello with a line over {MAX_LINE} bytes"
                )));
            }
            Ok(Event::NotUtf8(offset)) => {
                process.kill();
                return Err(Unusable(format!(
                    "bad hello from the peer: a line that is not UTF-8 (an invalid byte at offset {offset})"
                )));
            }
            Err(_) => {
                process.kill();
                return Err(Unusable(format!(
                    "the peer did not answer the hello within {} ms",
                    timeout.as_millis()
                )));
            }
        };
        match self
            .check_incoming(Implementation::SCHEMA, &line)
            .and_then(|()| Implementation::read_hello(&line))
        {
            Ok(hello) => Ok((process, hello)),
            Err(reason) => {
                process.kill();
                Err(Unusable(format!(
                    "bad hello from the peer: {reason}: {}",
                    preview(&line)
                )))
            }
        }
    }

    /// Writes one message (checked first with `--validate-protocol`).
    pub(crate) fn send(&self, process: &PeerProcess, message: &ToPeer<'_>) {
        let line = message.to_line();
        if let Some(protocol) = &self.protocol {
            protocol.check_outgoing(&format!("runner-{}", message.kind()), &line);
        }
        process.send(line);
    }

    /// With `--validate-protocol`, whether an incoming line follows the schema `stem`.
    pub(crate) fn check_incoming(&self, stem: &str, line: &str) -> Result<(), String> {
        match &self.protocol {
            Some(protocol) => protocol.check(stem, line),
            None => Ok(()),
        }
    }

    pub(crate) fn keep_stderr(&self, process: &PeerProcess) {
        self.supervision.keep_stderr(&process.stderr_tail());
    }
}
