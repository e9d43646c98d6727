//! What the Streamable HTTP endpoint keeps of each session, beside the SDK's session manager:
//! which connection a session id names (so the endpoint can answer a call of the session
//! itself, [`crate::direct`]), and which request ids of the session are in progress (so a
//! second request with the id of one in progress is refused, not answered on the wrong stream
//! or left without an answer). A leaf: the server's connection state is `S` here.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock, RwLock, Weak};

use rmcp::model::RequestId;
use tokio_util::sync::CancellationToken;

use crate::sync::{lock, read, write};

/// Put in the extensions of a POST that may begin a session (one without a session id): the
/// connection the SDK's `initialize` handler ran on, once it has, so the endpoint can keep it
/// under the id the SDK's answer carries before the client has that answer.
pub(crate) struct Begun<C>(Arc<OnceLock<C>>);

impl<C> Clone for Begun<C> {
    fn clone(&self) -> Self {
        Self(self.0.clone())
    }
}

impl<C> Default for Begun<C> {
    fn default() -> Self {
        Self(Arc::default())
    }
}

impl<C> Begun<C> {
    /// The handler ran on `connection`.
    pub(crate) fn set(&self, connection: C) {
        let _ = self.0.set(connection);
    }

    /// The connection the handler ran on, if it did.
    pub(crate) fn get(&self) -> Option<&C> {
        self.0.get()
    }
}

/// Session ids to the connections the SDK serves them on. Looked up under a read lock; written
/// once per session.
pub(crate) struct HttpSessions<S> {
    by_id: RwLock<HashMap<Box<str>, Weak<S>>>,
}

impl<S> Default for HttpSessions<S> {
    fn default() -> Self {
        Self {
            by_id: RwLock::default(),
        }
    }
}

impl<S> HttpSessions<S> {
    /// Keeps `session` under `id`, and forgets the sessions that have ended.
    pub(crate) fn insert(&self, id: &str, session: &Arc<S>) {
        let mut by_id = write(&self.by_id);
        by_id.retain(|_, s| s.strong_count() > 0);
        by_id.insert(id.into(), Arc::downgrade(session));
    }

    /// The session `id` names, while its connection lives.
    pub(crate) fn get(&self, id: &str) -> Option<Arc<S>> {
        read(&self.by_id).get(id)?.upgrade()
    }
}

/// The ids of a session's requests in progress: those the endpoint answers itself, with the
/// token that cancels each, and those the SDK answers.
#[derive(Default)]
pub(crate) struct RequestIds {
    running: Mutex<HashMap<RequestId, Option<CancellationToken>>>,
}

impl RequestIds {
    /// Marks `id` in progress until the claim is dropped; `None` if it already is.
    pub(crate) fn claim(
        self: &Arc<Self>,
        id: &RequestId,
        token: Option<CancellationToken>,
    ) -> Option<IdClaim> {
        let mut running = lock(&self.running);
        if running.contains_key(id) {
            return None;
        }
        running.insert(id.clone(), token);
        Some(IdClaim {
            ids: self.clone(),
            id: id.clone(),
        })
    }

    /// The client cancelled request `id`: a call the endpoint runs stops.
    pub(crate) fn cancel(&self, id: &RequestId) {
        if let Some(Some(token)) = lock(&self.running).get(id) {
            token.cancel();
        }
    }
}

/// A request id in progress in its session, until dropped.
pub(crate) struct IdClaim {
    ids: Arc<RequestIds>,
    id: RequestId,
}

impl Drop for IdClaim {
    fn drop(&mut self) {
        lock(&self.ids.running).remove(&self.id);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_id_is_claimed_once_until_released() {
        let ids = Arc::new(RequestIds::default());
        let one = RequestId::Number(1);
        let claim = ids.claim(&one, None).expect("free");
        assert!(ids.claim(&one, None).is_none());
        assert!(ids.claim(&RequestId::String("1".into()), None).is_some());
        drop(claim);
        assert!(ids.claim(&one, None).is_some());
    }

    #[test]
    fn cancelling_an_id_cancels_its_call() {
        let ids = Arc::new(RequestIds::default());
        let token = CancellationToken::new();
        let _claim = ids.claim(&RequestId::Number(7), Some(token.clone()));
        ids.cancel(&RequestId::Number(8));
        assert!(!token.is_cancelled());
        ids.cancel(&RequestId::Number(7));
        assert!(token.is_cancelled());
    }

    #[test]
    fn ended_sessions_are_forgotten() {
        let sessions = HttpSessions::default();
        let live = Arc::new(1);
        sessions.insert("a", &live);
        {
            let gone = Arc::new(2);
            sessions.insert("b", &gone);
        }
        assert!(sessions.get("a").is_some());
        assert!(sessions.get("b").is_none());
        sessions.insert("c", &live);
        assert_eq!(read(&sessions.by_id).len(), 2);
    }
}
