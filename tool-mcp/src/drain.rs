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
use axum::extract::{Request, State};
use axum::http::Method;
use axum::middleware::Next;
use axum::response::Response;
use http_body::{Frame, SizeHint};
use tokio::sync::Notify;

/// The POSTs whose answers have not been sent yet.
#[derive(Default)]
pub(crate) struct InFlight {
    count: AtomicUsize,
    idle: Notify,
}

impl InFlight {
    /// Waits until no POST is in flight, or `grace` has passed; whether none is.
    pub(crate) async fn idle_within(&self, grace: Duration) -> bool {
        let deadline = tokio::time::Instant::now() + grace;
        loop {
            let idle = self.idle.notified();
            tokio::pin!(idle);
            idle.as_mut().enable();
            if self.count.load(Ordering::Acquire) == 0 {
                return true;
            }
            tokio::select! {
                () = idle => {}
                () = tokio::time::sleep_until(deadline) => {
                    return self.count.load(Ordering::Acquire) == 0;
                }
            }
        }
    }

    fn enter(self: &Arc<Self>) -> Counted {
        self.count.fetch_add(1, Ordering::AcqRel);
        Counted(self.clone())
    }
}

/// One POST in flight, until dropped.
struct Counted(Arc<InFlight>);

impl Drop for Counted {
    fn drop(&mut self) {
        if self.0.count.fetch_sub(1, Ordering::AcqRel) == 1 {
            self.0.idle.notify_waiters();
        }
    }
}

/// Middleware: counts each POST until its answer's body has been sent (or dropped).
pub(crate) async fn count_posts(
    State(flight): State<Arc<InFlight>>,
    request: Request,
    next: Next,
) -> Response {
    if request.method() != Method::POST {
        return next.run(request).await;
    }
    let counted = flight.enter();
    let response = next.run(request).await;
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

    #[tokio::test]
    async fn idle_once_every_counted_post_is_dropped() {
        let flight = Arc::new(InFlight::default());
        assert!(flight.idle_within(Duration::ZERO).await);
        let first = flight.enter();
        let second = flight.enter();
        assert!(!flight.idle_within(Duration::from_millis(10)).await);
        drop(first);
        let waiting = tokio::spawn({
            let flight = flight.clone();
            async move { flight.idle_within(Duration::from_secs(5)).await }
        });
        tokio::time::sleep(Duration::from_millis(20)).await;
        drop(second);
        assert!(waiting.await.unwrap());
    }
}
