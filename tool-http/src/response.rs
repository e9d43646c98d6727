//! The response: [`HttpResponse`], a response whose body has been read, and the content-type
//! helpers [`media_type`] and [`is_text_content_type`].

use std::fmt;

use reqwest::StatusCode;
use reqwest::Url;
use reqwest::header::HeaderMap;

use super::text::{excerpt, host_label};
use tool_core::error::ToolError;

/// A response whose body has been read.
#[derive(Clone)]
pub struct HttpResponse {
    pub(super) status: StatusCode,
    pub(super) url: Url,
    pub(super) headers: HeaderMap,
    pub(super) body: Vec<u8>,
    pub(super) truncated: bool,
}

impl fmt::Debug for HttpResponse {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HttpResponse")
            .field("status", &self.status.as_u16())
            .field("host", &host_label(&self.url))
            .field("content_type", &self.content_type())
            .field("bytes", &self.body.len())
            .field("truncated", &self.truncated)
            .finish()
    }
}

impl HttpResponse {
    /// The status code.
    pub fn status(&self) -> u16 {
        self.status.as_u16()
    }

    /// The final URL, after redirects.
    pub fn url(&self) -> &str {
        self.url.as_str()
    }

    /// The `content-type` header as sent.
    pub fn content_type(&self) -> Option<&str> {
        self.header("content-type")
    }

    /// The media type alone, lowercased (`text/html` for `text/html; charset=utf-8`).
    pub fn media_type(&self) -> Option<String> {
        self.content_type().map(media_type)
    }

    /// A response header.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name)?.to_str().ok()
    }

    /// The body, as read (see [`truncated`](Self::truncated)).
    pub fn bytes(&self) -> &[u8] {
        &self.body
    }

    /// The body, owned.
    pub fn into_bytes(self) -> Vec<u8> {
        self.body
    }

    /// The body as text (invalid UTF-8 replaced).
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }

    /// The body decoded from JSON.
    pub fn json<T: serde::de::DeserializeOwned>(&self) -> Result<T, ToolError> {
        serde_json::from_slice(&self.body).map_err(|e| {
            ToolError::failed(format!(
                "{} did not send the expected JSON: {}",
                host_label(&self.url),
                excerpt(&e.to_string())
            ))
        })
    }

    /// Whether the body was cut at the cap (only when truncation was asked for).
    pub fn truncated(&self) -> bool {
        self.truncated
    }
}

/// `text/html` from `Text/HTML; charset=utf-8`.
pub fn media_type(content_type: &str) -> String {
    content_type
        .split(';')
        .next()
        .unwrap_or_default()
        .trim()
        .to_ascii_lowercase()
}

/// Whether a content type is text a person or a model can read: `text/*`, JSON, XML, YAML,
/// JavaScript, form data, and their `+json`/`+xml` variants.
pub fn is_text_content_type(content_type: &str) -> bool {
    let media = media_type(content_type);
    media.starts_with("text/")
        || media.ends_with("+json")
        || media.ends_with("+xml")
        || matches!(
            media.as_str(),
            "application/json"
                | "application/xml"
                | "application/xhtml+xml"
                | "application/javascript"
                | "application/ecmascript"
                | "application/x-javascript"
                | "application/yaml"
                | "application/x-yaml"
                | "application/toml"
                | "application/x-www-form-urlencoded"
                | "application/x-ndjson"
                | "application/graphql"
                | "application/sql"
        )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn content_types() {
        for t in [
            "text/html; charset=utf-8",
            "Text/Plain",
            "application/json",
            "application/ld+json",
            "image/svg+xml",
        ] {
            assert!(is_text_content_type(t), "{t}");
        }
        for t in [
            "image/png",
            "application/octet-stream",
            "application/pdf",
            "video/mp4",
            "application/zip",
        ] {
            assert!(!is_text_content_type(t), "{t}");
        }
    }
}
