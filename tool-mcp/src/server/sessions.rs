//! What the Streamable HTTP endpoint keeps of each session, beside the SDK's session manager:
//! which connection a session id names (so the endpoint can answer a call of the session
//! itself, [`crate::direct`]), and which request ids of the session are in progress (so a
//! second request with the id of one in progress is refused, not answered on the wrong stream
//! or left without an answer).

use std::collections::HashMap;
use std::sync::{Arc, Mutex, RwLock, Weak};

use rmcp::model::RequestId;
use tokio_util::sync::CancellationToken;

use rmcp::service::RequestContext;
use rmcp::{ErrorData as McpError, RoleServer};

use super::{McpServer, Session, lists_all};
use crate::listing::Page;
use crate::request::Era;
use crate::sync::{lock, read, write};

impl McpServer {
    /// The connection of HTTP session `id`, while its client is connected.
    pub(crate) fn http_session(&self, id: &str) -> Option<McpServer> {
        let session = self.shared.http_sessions.get(id)?;
        if session.peer.get()?.is_transport_closed() {
            return None;
        }
        Some(McpServer {
            shared: self.shared.clone(),
            session,
        })
    }

    /// Marks request `id` of this session in progress until the claim is dropped (`token`
    /// cancels it, when this endpoint runs it); `None` if it already is.
    pub(crate) fn claim_request_id(
        &self,
        id: &RequestId,
        token: Option<CancellationToken>,
    ) -> Option<IdClaim> {
        self.session.ids.claim(id, token)
    }

    /// The client cancelled request `id` of this session.
    pub(crate) fn cancel_request(&self, id: &RequestId) {
        self.session.ids.cancel(id);
    }

    /// The page of `tools/list` an HTTP request asks for, as
    /// [`list_tools`](rmcp::ServerHandler::list_tools) builds it: for the request's caller,
    /// in the session of the caller that began it.
    pub(crate) fn http_list_page(
        &self,
        cx: &RequestContext<RoleServer>,
        cursor: Option<&str>,
        era: Era,
    ) -> Result<Page, McpError> {
        self.check_owner(cx)?;
        let views = self.views_for(cx, era);
        self.list_page_for(cursor, self.caller(cx), lists_all(cx), era, views)
    }
}

/// Session ids to the connections the SDK serves them on. Looked up under a read lock; written
/// once per session.
#[derive(Default)]
pub(super) struct HttpSessions {
    by_id: RwLock<HashMap<Box<str>, Weak<Session>>>,
}

impl HttpSessions {
    /// Keeps `session` under `id`, and forgets the sessions that have ended.
    pub(super) fn insert(&self, id: &str, session: &Arc<Session>) {
        let mut by_id = write(&self.by_id);
        by_id.retain(|_, s| s.strong_count() > 0);
        by_id.insert(id.into(), Arc::downgrade(session));
    }

    /// The session `id` names, while its connection lives.
    pub(super) fn get(&self, id: &str) -> Option<Arc<Session>> {
        read(&self.by_id).get(id)?.upgrade()
    }
}

/// The ids of a session's requests in progress: those the endpoint answers itself, with the
/// token that cancels each, and those the SDK answers.
#[derive(Default)]
pub(super) struct RequestIds {
    running: Mutex<HashMap<RequestId, Option<CancellationToken>>>,
}

impl RequestIds {
    /// Marks `id` in progress until the claim is dropped; `None` if it already is.
    pub(super) fn claim(
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
    pub(super) fn cancel(&self, id: &RequestId) {
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
        let live = Arc::new(Session::default());
        sessions.insert("a", &live);
        {
            let gone = Arc::new(Session::default());
            sessions.insert("b", &gone);
        }
        assert!(sessions.get("a").is_some());
        assert!(sessions.get("b").is_none());
        sessions.insert("c", &live);
        assert_eq!(read(&sessions.by_id).len(), 2);
    }
}
