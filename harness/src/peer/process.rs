//! A peer process: started without a shell in its own process group, written to by a writer
//! thread and read by a reader thread, so that neither full pipe can deadlock the runner; the
//! last bytes of its stderr are kept. What the lines mean is `peer`'s business.

use std::collections::VecDeque;
use std::io::{BufRead as _, BufReader, Read, Write as _};
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::sync::{Arc, Condvar, Mutex};
use std::thread;
use std::time::{Duration, Instant};

/// How much of the peer's stderr is kept for reports.
pub const STDERR_TAIL: usize = 4096;

/// How long the tail waits, once the process is gone, for the last bytes of its stderr (what the
/// process group wrote before it was killed is still in the pipe; something that escaped the
/// group may hold the pipe open, so the wait is bounded).
const STDERR_DRAIN: Duration = Duration::from_millis(250);

/// The longest line the runner reads from a peer (16 MiB).
pub const MAX_LINE: u64 = 16 * 1024 * 1024;

/// The command that starts a peer, split into words like a shell would, but run without one.
#[derive(Clone, Debug)]
pub struct PeerCommand {
    program: String,
    args: Vec<String>,
}

impl PeerCommand {
    /// Splits `text` into a program and its arguments.
    pub fn parse(text: &str) -> Result<PeerCommand, String> {
        let words = shell_words::split(text)
            .map_err(|e| format!("cannot split the peer command {text:?}: {e}"))?;
        let (program, args) = words
            .split_first()
            .ok_or_else(|| "the peer command is empty".to_owned())?;
        Ok(PeerCommand {
            program: program.clone(),
            args: args.to_vec(),
        })
    }

    /// The program with its arguments, ready to be given pipes and started.
    pub fn to_command(&self) -> Command {
        let mut command = Command::new(&self.program);
        command.args(&self.args);
        command
    }

    /// The command as it would be typed.
    pub fn display(&self) -> String {
        shell_words::join(std::iter::once(&self.program).chain(&self.args))
    }
}

/// What the reader thread saw.
#[derive(Debug)]
pub enum Event {
    /// One line, without its newline.
    Line(String),
    /// The peer closed its stdout (it exited or crashed).
    Closed,
    /// The peer wrote a line longer than [`MAX_LINE`].
    TooLong,
    /// The peer wrote a line that is not UTF-8: the byte offset of its first invalid byte.
    NotUtf8(usize),
}

/// A running peer process.
#[derive(Debug)]
pub struct PeerProcess {
    child: Child,
    writer: Option<Sender<String>>,
    events: Receiver<Event>,
    stderr: Arc<StderrTail>,
}

/// The last bytes of a peer's stderr, filled by its reader thread.
#[derive(Debug, Default)]
struct StderrTail {
    /// The bytes, and whether the reader reached the end of the pipe.
    state: Mutex<(VecDeque<u8>, bool)>,
    /// Notified when the reader reaches the end.
    ended: Condvar,
}

impl PeerProcess {
    /// Starts the peer with its three pipes and their threads.
    pub fn spawn(command: &PeerCommand) -> Result<PeerProcess, String> {
        let mut child = crate::peer::child::spawn(
            command
                .to_command()
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped()),
        )
        .map_err(|e| format!("cannot start the peer `{}`: {e}", command.display()))?;
        let (stdin, stdout, stderr) =
            match (child.stdin.take(), child.stdout.take(), child.stderr.take()) {
                (Some(i), Some(o), Some(e)) => (i, o, e),
                _ => return Err("the peer's pipes could not be opened".to_owned()),
            };
        Ok(PeerProcess {
            child,
            writer: Some(spawn_writer(stdin)),
            events: spawn_reader(stdout),
            stderr: spawn_stderr(stderr),
        })
    }

    /// Queues one line (without its newline) for the writer thread.
    pub fn send(&self, line: String) {
        if let Some(writer) = &self.writer {
            let _ = writer.send(line);
        }
    }

    /// The next event, waiting until `deadline` at most.
    pub fn next_event(&self, deadline: Instant) -> Result<Event, RecvTimeoutError> {
        self.events
            .recv_timeout(deadline.saturating_duration_since(Instant::now()))
    }

    /// The last bytes the peer wrote to stderr. Call it once the process is gone (killed, or
    /// closed): it waits a little for the reader to drain the pipe, so what the peer wrote just
    /// before it exited is there.
    pub fn stderr_tail(&self) -> String {
        let Ok(state) = self.stderr.state.lock() else {
            return String::new();
        };
        let drained = self
            .stderr
            .ended
            .wait_timeout_while(state, STDERR_DRAIN, |(_, ended)| !*ended)
            .map(|(state, _)| state);
        drained
            .map(|state| {
                String::from_utf8_lossy(&state.0.iter().copied().collect::<Vec<u8>>()).into_owned()
            })
            .unwrap_or_default()
    }

    /// How the peer exited, as far as known.
    pub fn exit_status(&mut self) -> String {
        match self.wait_until(Instant::now() + Duration::from_millis(200)) {
            Some(status) => status.to_string(),
            None => "still running".to_owned(),
        }
    }

    /// Waits for the peer to exit until `deadline`, polling at first often, then less.
    fn wait_until(&mut self, deadline: Instant) -> Option<ExitStatus> {
        let mut pause = Duration::from_micros(50);
        loop {
            if let Ok(Some(status)) = self.child.try_wait() {
                return Some(status);
            }
            if Instant::now() >= deadline {
                return None;
            }
            thread::sleep(pause);
            pause = (pause * 2).min(Duration::from_millis(5));
        }
    }

    /// Kills the peer's process group at once.
    pub fn kill(&mut self) {
        self.writer = None;
        crate::peer::child::kill(&mut self.child);
    }

    /// Closes the peer's stdin after what is queued, and gives it `grace` to exit before it is
    /// killed; whatever it started goes with it either way.
    pub fn close(&mut self, grace: Duration) {
        self.writer = None;
        match self.wait_until(Instant::now() + grace) {
            Some(_) => crate::peer::child::reap(&self.child),
            None => self.kill(),
        }
    }
}

impl Drop for PeerProcess {
    fn drop(&mut self) {
        match self.child.try_wait() {
            Ok(None) | Err(_) => self.kill(),
            Ok(Some(_)) => crate::peer::child::reap(&self.child),
        }
    }
}

/// A thread that writes queued lines to the peer; it ends when the queue or the pipe closes.
fn spawn_writer(stdin: ChildStdin) -> Sender<String> {
    let (tx, rx) = mpsc::channel::<String>();
    thread::spawn(move || {
        let mut stdin = std::io::BufWriter::new(stdin);
        while let Ok(line) = rx.recv() {
            // Flushed line by line, so a peer never waits on a buffered check.
            let written = stdin
                .write_all(line.as_bytes())
                .and_then(|()| stdin.write_all(b"\n"))
                .and_then(|()| stdin.flush());
            if written.is_err() {
                return;
            }
        }
    });
    tx
}

/// A thread that reads the peer's lines into events; it ends at the end of the output.
fn spawn_reader(stdout: impl Read + Send + 'static) -> Receiver<Event> {
    let (event_tx, events) = mpsc::channel();
    thread::spawn(move || {
        let mut reader = BufReader::new(stdout);
        let mut line = Vec::new();
        loop {
            line.clear();
            match reader.by_ref().take(MAX_LINE).read_until(b'\n', &mut line) {
                Ok(0) | Err(_) => {
                    let _ = event_tx.send(Event::Closed);
                    return;
                }
                Ok(n) if n as u64 == MAX_LINE && line.last() != Some(&b'\n') => {
                    // A line this long is no answer; the runner restarts the peer.
                    let _ = event_tx.send(Event::TooLong);
                    return;
                }
                Ok(_) => {
                    // A line that is not UTF-8 is no message: a peer that writes raw bytes
                    // where text belongs must not pass for one that wrote U+FFFD.
                    let event = match String::from_utf8(std::mem::take(&mut line)) {
                        Ok(text) => Event::Line(text.trim_end_matches(['\n', '\r']).to_owned()),
                        Err(error) => Event::NotUtf8(error.utf8_error().valid_up_to()),
                    };
                    if event_tx.send(event).is_err() {
                        return;
                    }
                }
            }
        }
    });
    events
}

/// A thread that keeps the last [`STDERR_TAIL`] bytes of the peer's stderr, and says when the
/// pipe has ended.
fn spawn_stderr(mut stderr: impl Read + Send + 'static) -> Arc<StderrTail> {
    let tail = Arc::new(StderrTail::default());
    let keep = Arc::clone(&tail);
    thread::spawn(move || {
        let mut buf = [0u8; 4096];
        while let Ok(n @ 1..) = stderr.read(&mut buf) {
            if let Ok(mut state) = keep.state.lock() {
                let bytes = &mut state.0;
                bytes.extend(&buf[..n]);
                let excess = bytes.len().saturating_sub(STDERR_TAIL);
                bytes.drain(..excess);
            }
        }
        if let Ok(mut state) = keep.state.lock() {
            state.1 = true;
        }
        keep.ended.notify_all();
    });
    tail
}

/// Appends `more` to a stderr tail, keeping its last [`STDERR_TAIL`] bytes.
pub fn keep_tail(tail: &mut String, more: &str) {
    tail.push_str(more);
    let excess = tail.len().saturating_sub(STDERR_TAIL);
    let cut = (excess..=tail.len())
        .find(|&i| tail.is_char_boundary(i))
        .unwrap_or(tail.len());
    tail.drain(..cut);
}
