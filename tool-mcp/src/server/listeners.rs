//! Who is told of changes: open `subscriptions/listen` requests (2026-07-28) and the ones
//! about to open, and the sessions subscribed to resources' updates.
//!
//! The SDK acknowledges a listen before it hands the stream to the server, and a client may
//! act on the acknowledgment at once: on stdio a `tools/call` skips the SDK's loop and can
//! change a resource before the stream is registered. So a listen is expected from the moment
//! its filter is accepted, and a notification waits (at most a second) until every expected
//! stream is registered before it picks its recipients.

use std::sync::Mutex;
use std::time::Duration;

use rmcp::service::SubscriptionSink;
use rmcp::{Peer, RoleServer};
use tokio::sync::Notify;
use tokio::time::Instant;

use super::lock;

/// How long a notification waits for a listen the SDK has acknowledged to be registered: a
/// listen whose acknowledgment failed is never registered, and holds nothing up for longer.
const SETTLE: Duration = Duration::from_secs(1);

#[derive(Default)]
pub(super) struct Listeners {
    open: Mutex<Vec<(u64, SubscriptionSink)>>,
    /// When each expected, not yet registered, listen was accepted.
    expected: Mutex<Vec<Instant>>,
    registered: Notify,
}

impl Listeners {
    /// Those of `other` (a server being replaced): the open streams move over.
    pub(super) fn take_from(other: &Listeners) -> Self {
        Self {
            open: Mutex::new(std::mem::take(&mut *lock(&other.open))),
            ..Self::default()
        }
    }

    /// A listen's filter was accepted: its stream is about to be registered.
    pub(super) fn expect(&self) {
        lock(&self.expected).push(Instant::now());
    }

    /// Registers a listen's stream under `key`.
    pub(super) fn add(&self, key: u64, sink: SubscriptionSink) {
        lock(&self.open).push((key, sink));
        let mut expected = lock(&self.expected);
        if !expected.is_empty() {
            expected.remove(0);
        }
        drop(expected);
        self.registered.notify_waiters();
    }

    pub(super) fn remove(&self, key: u64) {
        lock(&self.open).retain(|(k, _)| *k != key);
    }

    /// The open streams, once every expected one is registered (or a second has passed).
    pub(super) async fn settled(&self) -> Vec<SubscriptionSink> {
        loop {
            let registered = self.registered.notified();
            let deadline = {
                let mut expected = lock(&self.expected);
                expected.retain(|at| at.elapsed() < SETTLE);
                expected.first().map(|at| *at + SETTLE)
            };
            let Some(deadline) = deadline else { break };
            let _ = tokio::time::timeout_at(deadline, registered).await;
        }
        lock(&self.open).iter().map(|(_, s)| s.clone()).collect()
    }
}

/// Clients subscribed to a resource's updates (`resources/subscribe`, sessions only): each
/// connection's client with the URIs it watches.
#[derive(Default)]
pub(super) struct Watchers {
    pub(in crate::server) watching: Mutex<Vec<Watcher>>,
}

impl Watchers {
    /// Those of `other` (a server being replaced).
    pub(super) fn take_from(other: &Watchers) -> Self {
        Self {
            watching: Mutex::new(std::mem::take(&mut *lock(&other.watching))),
        }
    }
}

pub(in crate::server) struct Watcher {
    /// The connection, by its session's address: a client subscribes and unsubscribes on one.
    pub(in crate::server) session: usize,
    pub(in crate::server) peer: Peer<RoleServer>,
    pub(in crate::server) uris: std::collections::BTreeSet<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(start_paused = true)]
    async fn with_nothing_expected_the_open_streams_are_at_hand() {
        let listeners = Listeners::default();
        assert!(listeners.settled().await.is_empty());
    }

    #[tokio::test(start_paused = true)]
    async fn an_expected_stream_that_never_comes_holds_a_notification_a_second_at_most() {
        let listeners = Listeners::default();
        listeners.expect();
        let started = tokio::time::Instant::now();
        assert!(listeners.settled().await.is_empty());
        assert!(started.elapsed() <= SETTLE + Duration::from_millis(10));
        // Expired: the next notification does not wait.
        let again = tokio::time::Instant::now();
        listeners.settled().await;
        assert_eq!(again.elapsed(), Duration::ZERO);
    }
}
