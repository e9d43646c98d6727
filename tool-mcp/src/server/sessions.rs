//! The server's side of the Streamable HTTP sessions ([`crate::http_sessions`]): a session's
//! connection by its id, its request ids in progress, and the listing an HTTP request gets.

use std::sync::Arc;

use rmcp::model::RequestId;
use rmcp::service::RequestContext;
use rmcp::{ErrorData as McpError, RoleServer};
use tokio_util::sync::CancellationToken;

use super::{McpServer, lists_all};
use crate::http_sessions::IdClaim;
use crate::listing::Page;
use crate::request::Era;

impl McpServer {
    /// Keeps this connection as HTTP session `id`'s (and forgets the sessions that ended).
    pub(crate) fn keep_http_session(&self, id: &str) {
        self.shared.http_sessions.insert(id, &self.session);
    }

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
        self.session.ids.get_or_init(Arc::default).claim(id, token)
    }

    /// The client cancelled request `id` of this session.
    pub(crate) fn cancel_request(&self, id: &RequestId) {
        if let Some(ids) = self.session.ids.get() {
            ids.cancel(id);
        }
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
