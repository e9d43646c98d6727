//! The one writer of a connection: whole lines, in the order they are queued, each byte
//! written once, and a count of what waits so the reader can stop reading while the client
//! does not read.

use std::io;
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};

use tokio::io::AsyncWrite;
use tokio::sync::Notify;

use crate::sync::lock;

type Writer = Pin<Box<dyn AsyncWrite + Send>>;

/// Bytes waiting to be written beyond which the reader stops taking requests: their answers
/// would only wait too. One large answer may go past it; the reader then waits for all but
/// this much to leave.
pub(super) const HIGH_WATER: usize = 1 << 20;

/// The largest buffer kept once empty: enough for the usual message, not for a rare large one.
const KEEP: usize = 64 * 1024;

/// Every message of a connection goes out through one writer, whole lines at a time. A sender
/// queues its line, then takes the writer in turn and writes everything queued until nothing
/// is: under load one write carries many answers, and a sender that finds its line already
/// written has nothing left to do.
pub(super) struct Output {
    queued: Mutex<Vec<u8>>,
    writer: tokio::sync::Mutex<Batch>,
    /// Bytes queued or in the batch, not yet written.
    pending: AtomicUsize,
    /// Told when `pending` falls below [`HIGH_WATER`].
    drained: Arc<Notify>,
}

/// What the writer is writing: `bytes[written..]` is left.
struct Batch {
    writer: Writer,
    bytes: Vec<u8>,
    written: usize,
}

impl Output {
    /// An output over `writer` that tells `drained` when the backlog falls below the mark.
    pub(super) fn new(writer: Writer, drained: Arc<Notify>) -> Self {
        Self {
            queued: Mutex::new(Vec::new()),
            writer: tokio::sync::Mutex::new(Batch {
                writer,
                bytes: Vec::new(),
                written: 0,
            }),
            pending: AtomicUsize::new(0),
            drained,
        }
    }

    pub(super) fn queue(&self, message: &impl serde::Serialize) -> io::Result<()> {
        self.queue_with(|line| serde_json::to_writer(line, message))
    }

    /// Queues the line `write` appends (its newline added here), or nothing if it fails.
    pub(super) fn queue_with(
        &self,
        write: impl FnOnce(&mut Vec<u8>) -> serde_json::Result<()>,
    ) -> io::Result<()> {
        let mut queued = lock(&self.queued);
        let start = queued.len();
        if let Err(error) = write(&mut queued) {
            queued.truncate(start);
            return Err(error.into());
        }
        queued.push(b'\n');
        self.pending
            .fetch_add(queued.len() - start, Ordering::Relaxed);
        Ok(())
    }

    /// Queues bytes that are whole lines already.
    #[cfg(test)]
    pub(super) fn queue_bytes(&self, bytes: &[u8]) {
        lock(&self.queued).extend_from_slice(bytes);
        self.pending.fetch_add(bytes.len(), Ordering::Relaxed);
    }

    /// More waits to be written than the reader should add to.
    pub(super) fn is_backed_up(&self) -> bool {
        self.pending.load(Ordering::Relaxed) >= HIGH_WATER
    }

    /// Bytes waiting to be written.
    #[cfg(test)]
    pub(super) fn pending(&self) -> usize {
        self.pending.load(Ordering::Relaxed)
    }

    /// Writes everything queued, after whatever an earlier sender is writing, until nothing is.
    pub(super) async fn flush(&self) -> io::Result<()> {
        let mut batch = self.writer.lock().await;
        let written = std::future::poll_fn(|cx| self.poll_drain(&mut batch, cx)).await;
        if written.is_err() {
            // The client is gone: what is left will never be written.
            let left =
                batch.bytes.len() - batch.written + std::mem::take(&mut *lock(&self.queued)).len();
            batch.bytes.clear();
            batch.written = 0;
            self.release(left);
        }
        written
    }

    /// Writes everything queued if that needs no waiting: the writer is free and takes it all
    /// now. False if something is left for [`flush`](Self::flush) (which also meets and
    /// reports an error this one saw).
    pub(super) fn try_write(&self) -> bool {
        let Ok(mut batch) = self.writer.try_lock() else {
            return false;
        };
        let mut cx = Context::from_waker(std::task::Waker::noop());
        matches!(self.poll_drain(&mut batch, &mut cx), Poll::Ready(Ok(())))
    }

    /// Writes the batch from where the last write stopped, then whatever was queued meanwhile,
    /// until nothing is left: each byte is written once, so a backlog costs its size, not its
    /// size times the number of writes. A pending or cancelled write leaves its place in the
    /// batch for the next.
    fn poll_drain(&self, batch: &mut Batch, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        loop {
            if batch.written == batch.bytes.len() {
                let mut queued = lock(&self.queued);
                batch.bytes.clear();
                batch.written = 0;
                if queued.is_empty() {
                    drop(queued);
                    // Neither buffer stays large once a large answer has left.
                    if batch.bytes.capacity() > KEEP {
                        batch.bytes = Vec::new();
                    }
                    return batch.writer.as_mut().poll_flush(cx);
                }
                // Swapped with the spare buffer: neither is reallocated once both have grown.
                std::mem::swap(&mut batch.bytes, &mut *queued);
                if queued.capacity() > KEEP {
                    *queued = Vec::new();
                }
            }
            let left = &batch.bytes[batch.written..];
            match std::task::ready!(batch.writer.as_mut().poll_write(cx, left))? {
                0 => return Poll::Ready(Err(io::ErrorKind::WriteZero.into())),
                n => {
                    batch.written += n;
                    self.release(n);
                }
            }
        }
    }

    /// `n` bytes are no longer waiting.
    fn release(&self, n: usize) {
        let before = self.pending.fetch_sub(n, Ordering::Relaxed);
        if before >= HIGH_WATER && before - n < HIGH_WATER {
            self.drained.notify_one();
        }
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use tokio::io::AsyncReadExt as _;

    use super::*;

    fn output(writer: impl AsyncWrite + Send + 'static) -> Arc<Output> {
        Arc::new(Output::new(Box::pin(writer), Arc::new(Notify::new())))
    }

    /// What the client's end cannot take at once is left, in order, for a flush that waits;
    /// nothing is written twice.
    #[tokio::test]
    async fn answers_the_client_cannot_take_now_are_written_when_it_can() {
        let (mut client, served) = tokio::io::duplex(16);
        let out = output(served);
        out.queue_bytes(b"short\n");
        assert!(out.try_write(), "6 bytes fit in 16");
        out.queue_bytes(b"0123456789abcdefghijklmnopqrstuvwxyz\n");
        assert!(!out.try_write(), "37 bytes do not fit in the 10 left");
        out.queue_bytes(b"next\n");
        // While another sender holds the writer, nothing is written here, and nothing is lost.
        let held = out.writer.try_lock().unwrap();
        assert!(!out.try_write());
        drop(held);
        let flushing = tokio::spawn({
            let out = out.clone();
            async move { out.flush().await }
        });
        let expected = b"short\n0123456789abcdefghijklmnopqrstuvwxyz\nnext\n";
        let mut got = Vec::new();
        while got.len() < expected.len() {
            let mut buf = [0; 64];
            let n = tokio::time::timeout(Duration::from_secs(5), client.read(&mut buf))
                .await
                .expect("the rest is written")
                .unwrap();
            got.extend_from_slice(&buf[..n]);
        }
        flushing.await.unwrap().unwrap();
        assert_eq!(
            String::from_utf8_lossy(&got),
            String::from_utf8_lossy(expected)
        );
        assert!(out.try_write(), "nothing is left");
        assert_eq!(out.pending(), 0);
    }

    #[tokio::test]
    async fn a_large_answer_leaves_no_large_buffer_behind() {
        let (_client, served) = tokio::io::duplex(4 << 20);
        let out = output(served);
        for _ in 0..2 {
            let mut line = vec![b' '; 1 << 20];
            line.push(b'\n');
            out.queue_bytes(&line);
            out.flush().await.unwrap();
        }
        assert!(lock(&out.queued).capacity() <= KEEP);
        assert!(out.writer.lock().await.bytes.capacity() <= KEEP);
    }

    /// The backlog is counted, and the reader is told when it falls below the mark. (How fast
    /// a backlog drains is measured by `mcp-backlog` in benchmarks/mcp.)
    #[tokio::test]
    async fn a_backlog_is_counted_and_the_reader_told_when_it_drains() {
        let (mut client, served) = tokio::io::duplex(4096);
        let drained = Arc::new(Notify::new());
        let out = Arc::new(Output::new(Box::pin(served), drained.clone()));
        let line = vec![b'x'; 4095];
        let lines = (4 * HIGH_WATER) / 4096;
        for _ in 0..lines {
            out.queue_with(|l| {
                l.extend_from_slice(&line);
                Ok(())
            })
            .unwrap();
        }
        assert_eq!(out.pending(), lines * 4096);
        assert!(out.is_backed_up());
        let flushing = tokio::spawn({
            let out = out.clone();
            async move { out.flush().await }
        });
        let notified = drained.notified();
        let mut total = 0;
        let mut buf = vec![0; 1 << 16];
        while total < lines * 4096 {
            total += client.read(&mut buf).await.unwrap();
        }
        flushing.await.unwrap().unwrap();
        notified.await;
        assert!(!out.is_backed_up());
        assert_eq!(out.pending(), 0);
    }
}
