//! `conform bench`: checks per second of the reference alone, and of a peer fed the bench stream
//! (every vector's check, repeated, written as fast as the peer reads).

use std::borrow::Cow;
use std::io::{BufRead as _, BufReader, Write as _};
use std::process::Stdio;
use std::time::{Duration, Instant};

use vvoc_reference::validate_json;

use crate::load::vector::Vector;
use crate::peer::process::PeerCommand;
use crate::protocol::runner::ToPeer;
use crate::protocol::wire::Seq;

/// How many checks took how long.
#[derive(Clone, Copy, Debug)]
pub struct Throughput {
    /// Checks answered.
    pub checks: usize,
    /// The time they took.
    pub elapsed: Duration,
}

impl Throughput {
    /// Checks per second.
    pub fn rate(&self) -> f64 {
        self.checks as f64 / self.elapsed.as_secs_f64().max(1e-9)
    }
}

/// Why a peer could not be measured.
#[derive(Debug)]
pub enum BenchError {
    /// The peer did not start.
    Start(String, std::io::Error),
    /// Writing the stream or reading the answers failed.
    Pipe(String, std::io::Error),
    /// The peer answered fewer checks than it was sent, or exited with a failure.
    Short {
        /// The peer command.
        peer: String,
        /// Results read.
        answered: usize,
        /// Checks sent.
        sent: usize,
    },
}

impl std::fmt::Display for BenchError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            BenchError::Start(peer, error) => write!(f, "cannot start the peer `{peer}`: {error}"),
            BenchError::Pipe(peer, error) => {
                write!(f, "the bench stream to `{peer}` broke: {error}")
            }
            BenchError::Short {
                peer,
                answered,
                sent,
            } => write!(
                f,
                "the peer `{peer}` answered {answered} of the {sent} checks of the bench stream; \
                 run `conform run --peer` on it first to see why"
            ),
        }
    }
}

impl std::error::Error for BenchError {}

/// The reference alone: `validate_json` on every vector's parsed input, `rounds` times, the
/// rounds shared among `threads` threads (validation is pure, so they share nothing); nothing
/// read, written or compared.
pub fn reference_alone(vectors: &[Vector], rounds: usize, threads: usize) -> Throughput {
    let threads = threads.clamp(1, rounds.max(1));
    let started = Instant::now();
    std::thread::scope(|scope| {
        for thread in 0..threads {
            // Thread t runs rounds t, t + threads, ...: every round once in all.
            let mine = (thread..rounds).step_by(threads).count();
            scope.spawn(move || {
                let mut accepted = 0usize;
                for _ in 0..mine {
                    for vector in vectors {
                        let verdict =
                            validate_json(vector.tool, std::hint::black_box(&vector.input));
                        accepted += usize::from(verdict.is_accept());
                    }
                }
                std::hint::black_box(accepted);
            });
        }
    });
    Throughput {
        checks: rounds * vectors.len(),
        elapsed: started.elapsed(),
    }
}

/// The bench stream: a hello, a check of every vector `rounds` times (seq 1, 2, ...), and a bye,
/// one message per line.
pub fn bench_stream(vectors: &[Vector], rounds: usize) -> (Vec<u8>, usize) {
    let mut stream = b"{\"type\":\"hello\",\"protocol\":1}\n".to_vec();
    let mut seq = 0u64;
    for _ in 0..rounds {
        for vector in vectors {
            seq += 1;
            let message = ToPeer::Check {
                seq: Seq::from(seq),
                tool: vector.tool,
                input: Cow::Borrowed(&vector.input),
            };
            stream.extend_from_slice(message.to_line().as_bytes());
            stream.push(b'\n');
        }
    }
    stream.extend_from_slice(b"{\"type\":\"bye\"}\n");
    (stream, rounds * vectors.len())
}

/// Starts the peer, writes the whole stream to it from one thread while this one reads its
/// answers, and times it from the start to the peer's exit.
pub fn peer_stream(
    command: &PeerCommand,
    stream: &[u8],
    checks: usize,
) -> Result<Throughput, BenchError> {
    let peer = command.display();
    let started = Instant::now();
    let mut child = command
        .to_command()
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| BenchError::Start(peer.clone(), e))?;
    let (Some(mut stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
        return Err(BenchError::Start(
            peer,
            std::io::Error::other("its pipes could not be opened"),
        ));
    };
    let answered = std::thread::scope(|scope| {
        let writer = scope.spawn(move || stdin.write_all(stream));
        // One buffer for every line: the measuring side shares the cores with the peer, so it
        // should cost as little as it can.
        let mut answered = 0usize;
        let mut reader = BufReader::with_capacity(1 << 16, stdout);
        let mut line = Vec::new();
        loop {
            line.clear();
            let read = reader
                .read_until(b'\n', &mut line)
                .map_err(|e| BenchError::Pipe(peer.clone(), e))?;
            if read == 0 {
                break;
            }
            answered += usize::from(line.starts_with(b"{\"type\":\"result\""));
        }
        match writer.join() {
            Ok(written) => written.map_err(|e| BenchError::Pipe(peer.clone(), e))?,
            Err(_) => {
                return Err(BenchError::Pipe(
                    peer.clone(),
                    std::io::Error::other("the writer thread panicked"),
                ));
            }
        }
        Ok(answered)
    })?;
    let status = child
        .wait()
        .map_err(|e| BenchError::Pipe(peer.clone(), e))?;
    let elapsed = started.elapsed();
    if !status.success() || answered != checks {
        return Err(BenchError::Short {
            peer,
            answered,
            sent: checks,
        });
    }
    Ok(Throughput {
        checks: answered,
        elapsed,
    })
}
