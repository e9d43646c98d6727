//! Who is asking, and what can be asked of them: the era a request speaks, the log level it
//! wants, and how a tool could reach its client. Read once per request, from the request's own
//! `_meta` and the connection it came on, by the one rule both the stdio transport and the
//! SDK's service loop follow.

use rmcp::model::{
    ClientCapabilities, ErrorData, LoggingLevel, ProgressToken, ProtocolVersion, RequestMetaObject,
};
use serde::Deserialize as _;
use serde_json::Value;
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

/// The `_meta` keys of who is asking (SEP-2575), and the progress token's.
const PROTOCOL_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
const CLIENT_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";
const LOG_LEVEL: &str = "io.modelcontextprotocol/logLevel";
const PROGRESS_TOKEN: &str = "progressToken";

/// The value of `key` in a request's `meta`, found by comparing keys: the map (an `IndexMap`,
/// serde_json's `preserve_order` being on in the build) hashes the key of every lookup
/// (SipHash, some 500 instructions for these long keys), where a request's `_meta` holds a
/// few entries.
fn meta_value<'a>(meta: &'a RequestMetaObject, key: &str) -> Option<&'a Value> {
    meta.iter().find(|(k, _)| k.as_str() == key).map(|(_, v)| v)
}

/// The client capabilities a 2026-07-28 request's `meta` carries, undecoded.
pub(crate) fn client_capabilities(meta: &RequestMetaObject) -> Option<&Value> {
    meta_value(meta, CLIENT_CAPABILITIES)
}

/// What a request's `_meta` says of who is asking, read in one pass: the SDK's accessors
/// hash the key and decode its value anew at every call, and a request's route and its call
/// ask for the version, the progress token and the log level more than once.
#[derive(Clone, Debug, Default)]
pub(crate) struct Asking<'a> {
    /// The protocol version it names.
    pub(crate) version: Option<ProtocolVersion>,
    /// The client capabilities it carries, undecoded (see [`Self::era`]).
    capabilities: Option<&'a Value>,
    /// The progress token it carries.
    pub(crate) progress: Option<ProgressToken>,
    /// The log level it names.
    pub(crate) log_level: Option<LoggingLevel>,
}

impl<'a> Asking<'a> {
    /// Reads `meta`, each value decoded as the SDK's accessors decode it, so a value the SDK
    /// would not decode (a number for the version, say) reads here as absent too.
    pub(crate) fn read(meta: &'a RequestMetaObject) -> Self {
        fn decode<T: serde::de::DeserializeOwned>(value: &Value) -> Option<T> {
            T::deserialize(value).ok()
        }
        let mut asking = Self::default();
        for (key, value) in meta.iter() {
            match key.as_str() {
                PROTOCOL_VERSION => asking.version = decode(value),
                CLIENT_CAPABILITIES => asking.capabilities = Some(value),
                LOG_LEVEL => asking.log_level = decode(value),
                PROGRESS_TOKEN => asking.progress = decode(value),
                _ => {}
            }
        }
        asking
    }

    /// The era of this request, on a connection that began with `initialize` (`initialized`)
    /// or not, to a server that speaks `supported`; or the error its answer is, as the SDK
    /// gives it: -32022 for a version the server does not speak, -32602 for a request that
    /// must say who is asking (every request of a connection without `initialize`, and every
    /// one that names 2026-07-28 or later) and does not.
    pub(crate) fn era(
        &self,
        initialized: bool,
        supported: &[ProtocolVersion],
    ) -> Result<Era, ErrorData> {
        if let Some(version) = &self.version
            && !supported.contains(version)
        {
            return Err(ErrorData::unsupported_protocol_version(
                version.clone(),
                supported,
            ));
        }
        let modern = self
            .version
            .as_ref()
            .is_some_and(|v| *v >= ProtocolVersion::V_2026_07_28);
        if !initialized || modern {
            // The SDK's `missing_required_keys` for 2026-07-28: the capabilities count only
            // if they decode as its type.
            let capabilities = self
                .capabilities
                .is_some_and(|c| ClientCapabilities::deserialize(c).is_ok());
            let missing: Vec<&str> = [
                (self.version.is_none(), PROTOCOL_VERSION),
                (!capabilities, CLIENT_CAPABILITIES),
            ]
            .into_iter()
            .filter_map(|(missing, key)| missing.then_some(key))
            .collect();
            if !missing.is_empty() {
                return Err(missing_metadata(&missing));
            }
        }
        Ok(if modern { Era::Modern } else { Era::Session })
    }
}

impl Era {
    /// The era of a request made with `meta` ([`Asking::era`]).
    pub(crate) fn of(
        meta: &RequestMetaObject,
        initialized: bool,
        supported: &[ProtocolVersion],
    ) -> Result<Self, ErrorData> {
        Asking::read(meta).era(initialized, supported)
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
    pub(crate) fn log_level(
        self,
        asked: Option<LoggingLevel>,
        session: LogLevel,
    ) -> Option<LogLevel> {
        match self {
            Self::Modern => asked.map(from_mcp_level),
            Self::Session => Some(asked.map_or(session, from_mcp_level)),
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
        let quiet = Asking::read(&quiet).log_level;
        assert_eq!(Era::Modern.log_level(quiet, LogLevel::Debug), None);
        let warned = meta(Some("2026-07-28"), true, Some(LoggingLevel::Warning));
        assert_eq!(
            Era::Modern.log_level(Asking::read(&warned).log_level, LogLevel::Debug),
            Some(LogLevel::Warning)
        );
        assert_eq!(
            Era::Session.log_level(quiet, LogLevel::Notice),
            Some(LogLevel::Notice)
        );
    }

    /// The SDK's own reading of a request's `_meta` (the rule `Asking` reads once): the
    /// reference the property below holds it to.
    fn era_by_the_sdk(
        meta: &RequestMetaObject,
        initialized: bool,
        supported: &[ProtocolVersion],
    ) -> Result<Era, ErrorData> {
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
        Ok(if modern { Era::Modern } else { Era::Session })
    }

    /// A value for one of the keys `Asking` reads: valid ones and the wrong types the SDK
    /// reads as absent.
    fn value() -> impl proptest::strategy::Strategy<Value = serde_json::Value> {
        use proptest::prelude::*;
        use serde_json::json;
        prop_oneof![
            Just(json!("2024-11-05")),
            Just(json!("2025-06-18")),
            Just(json!("2026-07-28")),
            Just(json!("2027-01-01")),
            Just(json!("warning")),
            Just(json!("loud")),
            Just(json!(7)),
            Just(json!("tok")),
            Just(json!(null)),
            Just(json!({})),
            Just(json!({"sampling": {}})),
            Just(json!({"roots": "yes"})),
            Just(json!({"extensions": {"io.modelcontextprotocol/ui": {}}})),
            Just(json!([1, 2])),
        ]
    }

    proptest::proptest! {
        /// Each key read once gives the era, the error (message and data included), the
        /// progress token and the log level that the SDK's accessors give.
        #[test]
        fn asking_reads_meta_as_the_sdk_does(
            entries in proptest::collection::vec(
                (proptest::sample::select(vec![
                    "io.modelcontextprotocol/protocolVersion",
                    "io.modelcontextprotocol/clientCapabilities",
                    "io.modelcontextprotocol/logLevel",
                    "io.modelcontextprotocol/clientInfo",
                    "progressToken",
                    "other",
                ]), value()),
                0..6,
            ),
            initialized: bool,
        ) {
            let mut meta = RequestMetaObject::new();
            for (key, value) in entries {
                meta.insert(key.to_owned(), value);
            }
            let asking = Asking::read(&meta);
            let supported = supported();
            proptest::prop_assert_eq!(
                asking.era(initialized, &supported),
                era_by_the_sdk(&meta, initialized, &supported)
            );
            proptest::prop_assert_eq!(asking.progress, meta.get_progress_token());
            proptest::prop_assert_eq!(asking.log_level, meta.log_level());
            proptest::prop_assert_eq!(asking.version, meta.protocol_version());
            proptest::prop_assert_eq!(
                meta_value(&meta, CLIENT_CAPABILITIES),
                meta.get(CLIENT_CAPABILITIES)
            );
        }
    }
}
