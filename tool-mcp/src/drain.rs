//! A graceful end for Streamable HTTP: the POSTs in flight when the server is told to stop are
//! counted until their answer has been sent (a call's answer may be a stream that ends with
//! it), so the server waits for them, within its grace period, before it ends what is still
//! open: sessions, standalone streams, calls that did not finish.

use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::task::{Context, Poll};
use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::http::{StatusCode, header};
use axum::response::Response;
use http_body::{Frame, SizeHint};
use tokio::sync::Notify;

/// The POSTs whose answers have not been sent yet, and whether the server still takes new ones.
#[derive(Default)]
pub(crate) struct InFlight {
    /// The count, with [`CLOSED`] set once no new POST is taken: one word, so that closing
    /// when the count is zero and counting a POST that arrives at that moment cannot cross.
    count: AtomicUsize,
    idle: Notify,
}

/// Set in [`InFlight::count`] once the server takes no new POST.
const CLOSED: usize = 1 << (usize::BITS - 1);

impl InFlight {
    /// Waits until no POST is in flight, or `grace` has passed, then takes no new one (each is
    /// refused as [`stopping`] would answer it, before anything of it runs); whether none was
    /// in flight.
    pub(crate) async fn close_within(&self, grace: Duration) -> bool {
        let deadline = tokio::time::Instant::now() + grace;
        loop {
            let idle = self.idle.notified();
            tokio::pin!(idle);
            idle.as_mut().enable();
            if self
                .count
                .compare_exchange(0, CLOSED, Ordering::AcqRel, Ordering::Acquire)
                .is_ok()
            {
                return true;
            }
            tokio::select! {
                () = idle => {}
                () = tokio::time::sleep_until(deadline) => {
                    return self.count.fetch_or(CLOSED, Ordering::AcqRel) & !CLOSED == 0;
                }
            }
        }
    }

    /// Counts a POST; `None` once the server takes no new one.
    pub(crate) fn enter(self: &Arc<Self>) -> Option<Counted> {
        if self.count.fetch_add(1, Ordering::AcqRel) & CLOSED != 0 {
            self.count.fetch_sub(1, Ordering::AcqRel);
            return None;
        }
        Some(Counted(self.clone()))
    }
}

/// One POST in flight, until dropped.
pub(crate) struct Counted(Arc<InFlight>);

impl Drop for Counted {
    fn drop(&mut self) {
        if self.0.count.fetch_sub(1, Ordering::AcqRel) & !CLOSED == 1 {
            self.0.idle.notify_waiters();
        }
    }
}

/// The answer to a POST that arrives once the server has stopped taking them (its sessions and
/// handlers are ending, so the SDK could only answer 500): 503 with the connection closed,
/// before anything of the request ran, so that a load balancer may send it to another
/// instance (deploy/haproxy.cfg retries 503).
pub(crate) fn stopping() -> Response {
    Response::builder()
        .status(StatusCode::SERVICE_UNAVAILABLE)
        .header(header::CONNECTION, "close")
        .header(header::RETRY_AFTER, "1")
        .body(Body::from("the server is stopping: send the request again"))
        .unwrap_or_default()
}

/// `response`, its POST still counted until its body has been sent (or dropped).
pub(crate) fn counted(response: Response, counted: Counted) -> Response {
    response.map(|body| {
        Body::new(CountedBody {
            body,
            _counted: counted,
        })
    })
}

/// A body that keeps its POST counted while it is sent.
struct CountedBody {
    body: Body,
    _counted: Counted,
}

impl http_body::Body for CountedBody {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, axum::Error>>> {
        Pin::new(&mut self.get_mut().body).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.body.size_hint()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // Paused: the 5 s grace would end the wait at once, and the test fail, were the
    // drops not seen.
    #[tokio::test(start_paused = true)]
    async fn closed_once_every_counted_post_is_dropped_and_later_ones_are_refused() {
        let flight = Arc::new(InFlight::default());
        let first = flight.enter().unwrap();
        let second = flight.enter().unwrap();
        let mut waiting = std::pin::pin!(flight.close_within(Duration::from_secs(5)));
        drop(first);
        // Polled once: it waits, as one POST is still in flight.
        let once = std::future::poll_fn(|cx| Poll::Ready(waiting.as_mut().poll(cx))).await;
        assert!(once.is_pending());
        // Still open while one is in flight.
        let third = flight.enter().unwrap();
        drop(second);
        drop(third);
        let started = tokio::time::Instant::now();
        assert!(waiting.await);
        assert!(
            started.elapsed() < Duration::from_secs(5),
            "closed before the grace ran out"
        );
        assert!(
            flight.enter().is_none(),
            "a POST after the close is refused"
        );
    }

    #[tokio::test(start_paused = true)]
    async fn the_grace_ends_the_wait_and_closes_all_the_same() {
        let flight = Arc::new(InFlight::default());
        let running = flight.enter().unwrap();
        assert!(!flight.close_within(Duration::from_millis(10)).await);
        assert!(flight.enter().is_none());
        drop(running);
    }

    #[test]
    fn a_refused_post_is_a_503_that_closes_its_connection() {
        let response = stopping();
        assert_eq!(response.status(), StatusCode::SERVICE_UNAVAILABLE);
        assert_eq!(response.headers()[header::CONNECTION], "close");
    }
}
