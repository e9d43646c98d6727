//! Newline framing: bytes in, whole lines out, none longer than [`MAX_LINE`].

use tokio::io::{AsyncRead, AsyncReadExt as _};

/// The longest line read, as the SDK's codec allows. A longer one is refused whole.
pub(super) const MAX_LINE: usize = 16 * 1024 * 1024;

/// The largest buffer kept once empty: enough for the usual message, not for a rare large one.
const KEEP: usize = 64 * 1024;

/// One frame of the input.
#[derive(Debug, PartialEq)]
pub(super) enum Frame<'a> {
    /// A line, without its newline.
    Line(&'a [u8]),
    /// A line longer than [`MAX_LINE`]: its bytes are dropped as they come.
    TooLong,
}

/// Bytes read and not yet split into lines.
#[derive(Default)]
pub(super) struct Frames {
    /// The unfinished line is at the front, and its first `scanned` bytes hold no newline: a
    /// long line is searched once, not once per read.
    buf: Vec<u8>,
    scanned: usize,
    /// Dropping the rest of a line longer than [`MAX_LINE`].
    discarding: bool,
}

impl Frames {
    /// Reads more bytes; false at the end of the stream (or on an error, logged). Cancel-safe:
    /// a read that does not finish takes nothing.
    pub(super) async fn fill(&mut self, read: &mut (impl AsyncRead + Unpin)) -> bool {
        const CHUNK: usize = 8 * 1024;
        self.buf.reserve(CHUNK);
        match read.read_buf(&mut self.buf).await {
            Ok(0) => false,
            Ok(_) => true,
            Err(error) => {
                tracing::error!(%error, "reading the MCP client's messages failed");
                false
            }
        }
    }

    /// Calls `each` with every whole line read so far.
    pub(super) fn split(&mut self, mut each: impl FnMut(Frame<'_>)) {
        let mut start = 0;
        while let Some(end) = memchr::memchr(b'\n', &self.buf[start + self.scanned..]) {
            let end = start + self.scanned + end;
            let line = &self.buf[start..end];
            start = end + 1;
            self.scanned = 0;
            if std::mem::take(&mut self.discarding) {
                continue;
            }
            if line.len() > MAX_LINE {
                each(Frame::TooLong);
            } else {
                each(Frame::Line(line));
            }
        }
        self.buf.drain(..start);
        self.scanned = self.buf.len();
        // The unfinished line is refused as soon as it is too long, not when it ends.
        if self.buf.len() > MAX_LINE {
            if !self.discarding {
                each(Frame::TooLong);
            }
            self.buf.clear();
            self.scanned = 0;
            self.discarding = true;
        }
        // A large request's buffer is not kept for the rest of the connection.
        if self.buf.is_empty() && self.buf.capacity() > KEEP {
            self.buf = Vec::new();
        }
    }

    /// At the end of the stream: the last line, if it had no newline.
    pub(super) fn finish(&mut self, each: impl FnOnce(Frame<'_>)) {
        if !std::mem::take(&mut self.discarding) && !self.buf.is_empty() {
            each(Frame::Line(&self.buf));
        }
        self.buf = Vec::new();
        self.scanned = 0;
    }

    #[cfg(test)]
    pub(super) fn push(&mut self, bytes: &[u8]) {
        self.buf.extend_from_slice(bytes);
    }

    #[cfg(test)]
    pub(super) fn capacity(&self) -> usize {
        self.buf.capacity()
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    fn frames(frames: &mut Frames) -> Vec<String> {
        let mut out = Vec::new();
        frames.split(|f| {
            out.push(match f {
                Frame::Line(line) => String::from_utf8_lossy(line).into_owned(),
                Frame::TooLong => "<too long>".into(),
            })
        });
        out
    }

    #[test]
    fn a_line_too_long_is_refused_once_and_the_next_one_read() {
        let mut f = Frames::default();
        // Refused as soon as the buffer holds more than a line may, before its end comes.
        f.push(&vec![b' '; MAX_LINE + 10]);
        assert_eq!(frames(&mut f), ["<too long>"]);
        f.push(b"  still the long line\n{\"next\":1}\n");
        assert_eq!(frames(&mut f), [r#"{"next":1}"#]);
        // A whole long line read at once.
        let mut long = vec![b' '; MAX_LINE + 1];
        long.extend_from_slice(b"\nnext\n");
        f.push(&long);
        assert_eq!(frames(&mut f), ["<too long>", "next"]);
    }

    #[test]
    fn a_large_line_leaves_no_large_buffer_behind() {
        let mut f = Frames::default();
        let mut big = vec![b'x'; 1 << 20];
        big.push(b'\n');
        f.push(&big);
        assert_eq!(frames(&mut f)[0].len(), 1 << 20);
        assert!(f.capacity() <= KEEP, "{}", f.capacity());
    }

    #[test]
    fn the_last_line_needs_no_newline() {
        let mut f = Frames::default();
        f.push(b"a\nb");
        assert_eq!(frames(&mut f), ["a"]);
        let mut last = Vec::new();
        f.finish(|frame| last.push(format!("{frame:?}")));
        assert_eq!(last, [format!("{:?}", Frame::Line(b"b"))]);
    }

    proptest! {
        /// However the input is cut into reads, the same lines come out.
        #[test]
        fn lines_do_not_depend_on_how_the_input_is_cut(
            lines in proptest::collection::vec("[a-z{}\":, \r]{0,40}", 0..20),
            cuts in proptest::collection::vec(0usize..1000, 0..10),
        ) {
            let input: String = lines.iter().map(|l| format!("{l}\n")).collect();
            let mut cuts: Vec<usize> = cuts.into_iter().map(|c| c % (input.len() + 1)).collect();
            cuts.sort_unstable();
            let mut f = Frames::default();
            let mut seen = Vec::new();
            let mut from = 0;
            for cut in cuts.into_iter().chain([input.len()]) {
                f.push(&input.as_bytes()[from..cut]);
                seen.extend(frames(&mut f));
                from = cut;
            }
            prop_assert_eq!(seen, lines);
        }
    }
}
