//! A peer process: started without a shell, greeted, fed checks by a writer thread and read by a
//! reader thread, so that neither full pipe can deadlock the runner; its stderr tail is kept.

use std::collections::VecDeque;
use std::io::{BufRead as _, BufReader, Read, Write as _};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use crate::protocol::{ProtocolCheck, ToPeer, parse_hello, preview};
use crate::run::Implementation;

/// How much of the peer's stderr is kept for reports.
pub const STDERR_TAIL: usize = 4096;

/// The longest line the runner reads from a peer (16 MiB).
pub const MAX_LINE: u64 = 16 * 1024 * 1024;

/// How long a peer may take to exit after `bye` before it is killed.
const GRACE: Duration = Duration::from_millis(500);

/// Why a peer cannot be used at all (exit code 3).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unusable(pub String);

impl std::fmt::Display for Unusable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Unusable {}

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
}

/// A running, greeted peer.
#[derive(Debug)]
pub struct Session {
    child: Child,
    writer: Option<Sender<String>>,
    events: Receiver<Event>,
    stderr: Arc<Mutex<VecDeque<u8>>>,
    /// What the peer said in its hello.
    pub hello: Implementation,
    protocol: Option<Arc<ProtocolCheck>>,
}

impl Session {
    /// Starts the peer and exchanges hellos; `hello_timeout` bounds the wait for its answer.
    pub fn start(
        command: &PeerCommand,
        hello_timeout: Duration,
        protocol: Option<Arc<ProtocolCheck>>,
    ) -> Result<Session, Unusable> {
        let mut child = crate::child::spawn(
            Command::new(&command.program)
                .args(&command.args)
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped()),
        )
        .map_err(|e| {
            Unusable(format!(
                "cannot start the peer `{}`: {e}",
                command.display()
            ))
        })?;
        let (stdin, stdout, stderr) =
            match (child.stdin.take(), child.stdout.take(), child.stderr.take()) {
                (Some(i), Some(o), Some(e)) => (i, o, e),
                _ => return Err(Unusable("the peer's pipes could not be opened".to_owned())),
            };
        let writer = spawn_writer(stdin);
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
                        let text = String::from_utf8_lossy(&line)
                            .trim_end_matches(['\n', '\r'])
                            .to_owned();
                        if event_tx.send(Event::Line(text)).is_err() {
                            return;
                        }
                    }
                }
            }
        });
        let tail = Arc::new(Mutex::new(VecDeque::with_capacity(STDERR_TAIL)));
        let keep = Arc::clone(&tail);
        thread::spawn(move || {
            let mut stderr = stderr;
            let mut buf = [0u8; 4096];
            while let Ok(n @ 1..) = stderr.read(&mut buf) {
                if let Ok(mut tail) = keep.lock() {
                    tail.extend(&buf[..n]);
                    let excess = tail.len().saturating_sub(STDERR_TAIL);
                    tail.drain(..excess);
                }
            }
        });
        let mut session = Session {
            child,
            writer: Some(writer),
            events,
            stderr: tail,
            hello: Implementation::default(),
            protocol,
        };
        session.send(&ToPeer::Hello);
        let answer = match session.events.recv_timeout(hello_timeout) {
            Ok(Event::Line(line)) => line,
            Ok(Event::Closed) => {
                let status = session.exit_status();
                session.kill();
                return Err(Unusable(format!(
                    "the peer exited during the hello ({status}){}",
                    session.stderr_note()
                )));
            }
            Ok(Event::TooLong) => {
                session.kill();
                return Err(Unusable(format!(
                    "the peer answered the hello with a line over {MAX_LINE} bytes"
                )));
            }
            Err(_) => {
                session.kill();
                return Err(Unusable(format!(
                    "the peer did not answer the hello within {} ms",
                    hello_timeout.as_millis()
                )));
            }
        };
        match session
            .check_incoming("peer-hello", &answer)
            .and_then(|()| parse_hello(&answer))
        {
            Ok(hello) => session.hello = hello,
            Err(reason) => {
                session.kill();
                return Err(Unusable(format!(
                    "bad hello from the peer: {reason}: {}",
                    preview(&answer)
                )));
            }
        }
        Ok(session)
    }

    /// Queues one message to the peer (the writer thread writes it).
    pub fn send(&mut self, message: &ToPeer<'_>) {
        let line = message.to_line();
        if let Some(protocol) = &self.protocol {
            protocol.check_outgoing(message, &line);
        }
        if let Some(writer) = &self.writer {
            let _ = writer.send(line);
        }
    }

    /// With protocol validation on, whether an incoming line follows the schema `stem`.
    pub fn check_incoming(&self, stem: &str, line: &str) -> Result<(), String> {
        match &self.protocol {
            Some(protocol) => protocol.check(stem, line),
            None => Ok(()),
        }
    }

    /// The next event, waiting until `deadline` at most.
    pub fn next_event(&self, deadline: Instant) -> Result<Event, RecvTimeoutError> {
        self.events
            .recv_timeout(deadline.saturating_duration_since(Instant::now()))
    }

    /// The last bytes the peer wrote to stderr.
    pub fn stderr_tail(&self) -> String {
        self.stderr
            .lock()
            .map(|t| String::from_utf8_lossy(&t.iter().copied().collect::<Vec<u8>>()).into_owned())
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
    fn wait_until(&mut self, deadline: Instant) -> Option<std::process::ExitStatus> {
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

    /// Kills the peer at once.
    pub fn kill(&mut self) {
        self.writer = None;
        crate::child::kill(&mut self.child);
    }

    /// Says bye, closes stdin, and waits a short grace period before killing.
    pub fn finish(mut self) {
        self.send(&ToPeer::Bye);
        self.writer = None;
        match self.wait_until(Instant::now() + GRACE) {
            // Whatever the peer started (a shell's children, say) goes with it.
            Some(_) => crate::child::reap(&self.child),
            None => self.kill(),
        }
    }

    fn stderr_note(&self) -> String {
        let tail = self.stderr_tail();
        if tail.trim().is_empty() {
            String::new()
        } else {
            format!("; its stderr ends with:\n{}", tail.trim_end())
        }
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        match self.child.try_wait() {
            Ok(None) | Err(_) => self.kill(),
            Ok(Some(_)) => crate::child::reap(&self.child),
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
