//! Standard output of the stdio server, written by a thread of its own: a message's flush hands its bytes over without waiting, and messages that come together leave in one write.
//!
//! tokio's `Stdout` runs every write and flush on its blocking pool and waits for it, so a
//! server answering a pipelined client paid a thread handoff per message; here a flush only
//! sends the message's bytes down a channel.

use std::io::{self, Write as _};
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Sender, channel};
use std::task::{Context, Poll};
use std::thread::JoinHandle;

use tokio::io::AsyncWrite;

use super::exact::ExactTexts;

/// Standard output behind a writer thread; dropping it waits until everything is written.
#[derive(Debug)]
pub struct ThreadedStdout {
    /// Texts with lone surrogates, put back into each message as it is sent.
    exact: ExactTexts,
    /// The bytes of the message being written, sent at the next flush.
    buffer: Vec<u8>,
    sender: Option<Sender<Vec<u8>>>,
    /// Set by the writer thread once a write failed (the client closed its end).
    failed: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl ThreadedStdout {
    /// Starts the writer thread.
    ///
    /// # Errors
    ///
    /// The thread cannot be started.
    pub fn start(exact: ExactTexts) -> io::Result<ThreadedStdout> {
        let (sender, receiver) = channel::<Vec<u8>>();
        let failed = Arc::new(AtomicBool::new(false));
        let failing = Arc::clone(&failed);
        let thread = std::thread::Builder::new()
            .name("mcp-stdout".to_owned())
            .spawn(move || {
                let mut out = io::stdout().lock();
                while let Ok(mut bytes) = receiver.recv() {
                    // Whatever else is waiting goes out in the same write.
                    while let Ok(more) = receiver.try_recv() {
                        bytes.extend_from_slice(&more);
                    }
                    if out.write_all(&bytes).and_then(|()| out.flush()).is_err() {
                        failing.store(true, Ordering::SeqCst);
                        return;
                    }
                }
            })?;
        Ok(ThreadedStdout {
            exact,
            buffer: Vec::new(),
            sender: Some(sender),
            failed,
            thread: Some(thread),
        })
    }

    fn closed() -> io::Error {
        io::Error::new(io::ErrorKind::BrokenPipe, "standard output is closed")
    }
}

impl AsyncWrite for ThreadedStdout {
    fn poll_write(
        self: Pin<&mut Self>,
        _cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        if this.failed.load(Ordering::SeqCst) {
            return Poll::Ready(Err(ThreadedStdout::closed()));
        }
        this.buffer.extend_from_slice(buf);
        Poll::Ready(Ok(buf.len()))
    }

    fn poll_flush(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        if this.buffer.is_empty() {
            return Poll::Ready(Ok(()));
        }
        let bytes = this.exact.restore(std::mem::take(&mut this.buffer));
        let sent = this.sender.as_ref().is_some_and(|s| s.send(bytes).is_ok());
        Poll::Ready(match sent && !this.failed.load(Ordering::SeqCst) {
            true => Ok(()),
            false => Err(ThreadedStdout::closed()),
        })
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let flushed = self.as_mut().poll_flush(cx);
        self.get_mut().sender = None;
        flushed
    }
}

impl Drop for ThreadedStdout {
    fn drop(&mut self) {
        if !self.buffer.is_empty()
            && let Some(sender) = self.sender.as_ref()
        {
            let _ = sender.send(self.exact.restore(std::mem::take(&mut self.buffer)));
        }
        // The thread ends once the channel is closed and drained.
        self.sender = None;
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}
