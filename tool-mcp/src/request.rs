//! Who is asking, and what can be asked of them: the era a request speaks, the log level it
//! wants, and how a tool could reach its client. Read once per request, from the request's own
//! `_meta` and the connection it came on, by the one rule both the stdio transport and the
//! SDK's service loop follow.

use rmcp::model::{ErrorData, ProtocolVersion, RequestMetaObject};
use tool_core::context::LogLevel;

use super::level::from_mcp_level;

/// The era of one request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Era {
    /// A protocol before 2026-07-28, in a session begun with `initialize` (or a stateless
    /// HTTP request of that protocol): the session's log level, results without
    /// `resultType`.
    Session,
    /// Protocol 2026-07-28 or later: the request's own `_meta` names its version, the
    /// client's capabilities and the log level it wants, and the server sends the client no
    /// requests.
    Modern,
}

impl Era {
    /// The era of a request made with `meta`, on a connection that began with `initialize`
    /// (`initialized`) or not, to a server that speaks `supported`; or the error its answer is,
    /// as the SDK gives it: -32022 for a version the server does not speak, -32602 for a
    /// request that must say who is asking (every request of a connection without
    /// `initialize`, and every one that names 2026-07-28 or later) and does not.
    pub(crate) fn of(
        meta: &RequestMetaObject,
        initialized: bool,
        supported: &[ProtocolVersion],
    ) -> Result<Self, ErrorData> {
        let version = meta.protocol_version();
        if let Some(version) = &version
            && !supported.contains(version)
        {
            return Err(ErrorData::unsupported_protocol_version(
                version.clone(),
                supported,
            ));
        }
        let modern = version
            .as_ref()
            .is_some_and(|v| *v >= ProtocolVersion::V_2026_07_28);
        if !initialized || modern {
            let missing = meta.missing_required_keys(&ProtocolVersion::V_2026_07_28);
            if !missing.is_empty() {
                return Err(missing_metadata(&missing));
            }
        }
        Ok(if modern { Self::Modern } else { Self::Session })
    }

    /// The era of a request the SDK's loop already checked: `protocol` is the version it was
    /// made in (its own, or the session's).
    pub(crate) fn of_checked(protocol: Option<&ProtocolVersion>) -> Self {
        if protocol.is_some_and(|v| *v >= ProtocolVersion::V_2026_07_28) {
            Self::Modern
        } else {
            Self::Session
        }
    }

    /// The lowest level of log message the request gets, or `None` for none: a 2026-07-28
    /// request gets logs only when its `_meta` names a level (the spec: a server MUST NOT log
    /// to a request that did not opt in); a session's requests get what `logging/setLevel`
    /// last said (`session`).
    pub(crate) fn log_level(self, meta: &RequestMetaObject, session: LogLevel) -> Option<LogLevel> {
        match self {
            Self::Modern => meta.log_level().map(from_mcp_level),
            Self::Session => Some(meta.log_level().map_or(session, from_mcp_level)),
        }
    }
}

/// The SDK's answer to a request without the metadata its protocol requires.
fn missing_metadata(missing: &[&str]) -> ErrorData {
    ErrorData::invalid_params(
        format!(
            "request _meta is missing or has malformed required fields: {}",
            missing.join(", ")
        ),
        None,
    )
}

#[cfg(test)]
mod tests {
    use rmcp::model::{ClientCapabilities, ErrorCode, LoggingLevel};

    use super::*;

    fn meta(
        version: Option<&str>,
        capabilities: bool,
        level: Option<LoggingLevel>,
    ) -> RequestMetaObject {
        let mut meta = RequestMetaObject::new();
        if let Some(version) = version {
            meta.insert(
                "io.modelcontextprotocol/protocolVersion".into(),
                version.into(),
            );
        }
        if capabilities {
            meta.set_client_capabilities(ClientCapabilities::default());
        }
        if let Some(level) = level {
            meta.set_log_level(level);
        }
        meta
    }

    fn supported() -> Vec<ProtocolVersion> {
        vec![
            ProtocolVersion::V_2025_06_18,
            ProtocolVersion::V_2025_11_25,
            ProtocolVersion::V_2026_07_28,
        ]
    }

    #[test]
    fn a_session_request_needs_no_metadata() {
        let era = Era::of(&meta(None, false, None), true, &supported());
        assert_eq!(era, Ok(Era::Session));
        let era = Era::of(&meta(Some("2025-06-18"), false, None), true, &supported());
        assert_eq!(era, Ok(Era::Session));
    }

    #[test]
    fn a_version_the_server_does_not_speak_is_refused_with_the_list() {
        let error = Era::of(&meta(Some("2027-01-01"), true, None), true, &supported()).unwrap_err();
        assert_eq!(error.code, ErrorCode::UNSUPPORTED_PROTOCOL_VERSION);
        let data = error.data.unwrap();
        assert_eq!(data["requested"], "2027-01-01");
        assert_eq!(data["supported"].as_array().unwrap().len(), 3);
    }

    #[test]
    fn a_modern_request_must_say_who_is_asking() {
        let error =
            Era::of(&meta(Some("2026-07-28"), false, None), true, &supported()).unwrap_err();
        assert_eq!(error.code, ErrorCode::INVALID_PARAMS);
        assert!(
            error.message.contains("clientCapabilities"),
            "{}",
            error.message
        );
        // Without `initialize`, every request must.
        let error = Era::of(&meta(None, false, None), false, &supported()).unwrap_err();
        assert!(
            error.message.contains("protocolVersion"),
            "{}",
            error.message
        );
        let era = Era::of(&meta(Some("2026-07-28"), true, None), false, &supported());
        assert_eq!(era, Ok(Era::Modern));
    }

    #[test]
    fn a_modern_request_gets_logs_only_when_it_names_a_level() {
        let quiet = meta(Some("2026-07-28"), true, None);
        assert_eq!(Era::Modern.log_level(&quiet, LogLevel::Debug), None);
        let warned = meta(Some("2026-07-28"), true, Some(LoggingLevel::Warning));
        assert_eq!(
            Era::Modern.log_level(&warned, LogLevel::Debug),
            Some(LogLevel::Warning)
        );
        assert_eq!(
            Era::Session.log_level(&quiet, LogLevel::Notice),
            Some(LogLevel::Notice)
        );
    }
}
