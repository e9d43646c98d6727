//! The incoming request's headers that tools may forward downstream.

use std::fmt;
use std::sync::Arc;

/// Headers of the incoming request that tools may forward downstream (a tenant id, a trace
/// header; the MCP server never puts the caller's `authorization` here). Names are compared
/// case-insensitively; values never appear in `Debug`.
#[derive(Clone, Default)]
pub struct RequestHeaders {
    pairs: Arc<[(String, String)]>,
}

impl RequestHeaders {
    /// Headers from name/value pairs; names are lowercased.
    pub fn from_pairs<N: AsRef<str>, V: Into<String>>(
        pairs: impl IntoIterator<Item = (N, V)>,
    ) -> Self {
        let pairs: Vec<(String, String)> = pairs
            .into_iter()
            .map(|(n, v)| (n.as_ref().to_ascii_lowercase(), v.into()))
            .collect();
        Self {
            pairs: pairs.into(),
        }
    }

    /// The first value of `name`, compared case-insensitively.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.pairs
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// Every (name, value) pair, names lowercased.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &str)> {
        self.pairs.iter().map(|(n, v)| (n.as_str(), v.as_str()))
    }

    /// Whether there are no headers.
    pub fn is_empty(&self) -> bool {
        self.pairs.is_empty()
    }
}

impl fmt::Debug for RequestHeaders {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list()
            .entries(self.pairs.iter().map(|(n, _)| format!("{n}: <redacted>")))
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headers_are_case_insensitive_and_redacted() {
        let h = RequestHeaders::from_pairs([("X-Api-Key", "secret")]);
        assert_eq!(h.get("x-api-key"), Some("secret"));
        assert_eq!(h.get("X-API-KEY"), Some("secret"));
        assert!(!format!("{h:?}").contains("secret"));
    }
}
