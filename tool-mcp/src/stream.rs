//! A call's own SSE response stream over Streamable HTTP, which its tool may end early
//! (SEP-1699: a server may close the connection mid-call; the client reconnects with
//! `Last-Event-ID` and receives the rest, the result included, on the resumed stream).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::task::Waker;

use tool_core::{ToolContext, ToolError, context::FromContext};

use super::sync::lock;

/// The switch between a tool and the body of its POST's SSE response. `armed` once the
/// response is an SSE stream of a session (whose events the session keeps for a reconnecting
/// client); a stream it cannot resume is never cut.
#[derive(Clone, Default)]
pub(crate) struct StreamCut(Arc<Cut>);

#[derive(Default)]
struct Cut {
    armed: AtomicBool,
    cut: AtomicBool,
    waker: Mutex<Option<Waker>>,
}

impl StreamCut {
    /// The response is a resumable SSE stream: a cut may end it.
    #[cfg(feature = "http")]
    pub(crate) fn arm(&self) {
        self.0.armed.store(true, Ordering::Release);
    }

    /// Whether the tool asked for the stream to end.
    #[cfg(feature = "http")]
    pub(crate) fn is_cut(&self) -> bool {
        self.0.cut.load(Ordering::Acquire)
    }

    /// Wakes `waker` when the stream is cut.
    #[cfg(feature = "http")]
    pub(crate) fn register(&self, waker: &Waker) {
        let mut slot = lock(&self.0.waker);
        if !slot.as_ref().is_some_and(|w| w.will_wake(waker)) {
            *slot = Some(waker.clone());
        }
    }

    fn cut(&self) -> bool {
        if !self.0.armed.load(Ordering::Acquire) {
            return false;
        }
        self.0.cut.store(true, Ordering::Release);
        if let Some(waker) = lock(&self.0.waker).take() {
            waker.wake();
        }
        true
    }
}

/// The SSE stream a call's result travels on, when it has one it can end: a tool takes it as
/// `#[ctx] stream: CallStream`.
///
/// [`close`](Self::close) ends the stream now (after the events already sent, the first of
/// which carries an event id), as SEP-1699 lets a server do to a long call: the client
/// reconnects with `Last-Event-ID` after the `retry` the stream gave, and the session sends it
/// what followed, the result included. Only over Streamable HTTP with sessions, whose events
/// are kept for a client that comes back; elsewhere (stdio, stateless HTTP, a JSON response)
/// there is no stream to end and `close` says so.
///
/// ```
/// use tool_core::{context::FromContext, ToolContext};
/// use tool_mcp::CallStream;
/// // Outside an MCP call over HTTP there is no stream.
/// let stream = CallStream::from_context(&ToolContext::default()).unwrap();
/// assert!(!stream.close());
/// ```
#[derive(Clone, Default)]
pub struct CallStream(Option<StreamCut>);

impl CallStream {
    pub(crate) fn new(cut: StreamCut) -> Self {
        Self(Some(cut))
    }

    /// Ends the call's SSE stream, to be resumed by the client; `false` (and nothing done)
    /// when the call has no stream that can be resumed.
    pub fn close(&self) -> bool {
        self.0.as_ref().is_some_and(StreamCut::cut)
    }
}

impl std::fmt::Debug for CallStream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CallStream")
            .field(
                "resumable",
                &self
                    .0
                    .as_ref()
                    .is_some_and(|c| c.0.armed.load(Ordering::Acquire)),
            )
            .finish()
    }
}

impl FromContext for CallStream {
    /// The call's stream; one that cannot be closed when the call has none.
    fn from_context(ctx: &ToolContext) -> Result<Self, ToolError> {
        Ok(ctx.extension::<CallStream>().cloned().unwrap_or_default())
    }
}
