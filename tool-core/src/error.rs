//! What a tool call can fail with. (What building a registry can fail with is the registry's:
//! [`RegistryError`](crate::registry::RegistryError).)

pub mod sanitize;

use std::borrow::Cow;
use std::error::Error as StdError;
use std::fmt;

/// What kind of failure a [`ToolError`] is. Adapters map kinds onto their protocols (MCP puts
/// [`ErrorKind::UnknownTool`] in a protocol error and the rest in `isError` results); the executor
/// retries only [`ErrorKind::Unavailable`] and [`ErrorKind::Timeout`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum ErrorKind {
    /// The input did not match the tool's schema, or a value in it was unacceptable.
    InvalidInput,
    /// No tool has the requested name.
    UnknownTool,
    /// The thing the input names does not exist.
    NotFound,
    /// The input names something the tool may not touch, or the caller lacks an OAuth scope
    /// the tool needs ([`Tool::scopes`](crate::registry::Tool::scopes)).
    PermissionDenied,
    /// A dependency is unavailable for now; trying again may work.
    Unavailable,
    /// The call ran out of time.
    Timeout,
    /// The call was cancelled.
    Cancelled,
    /// The tool ran and reports a failure in its own terms.
    Failed,
    /// A bug or an unexpected condition inside the tool.
    Internal,
    /// The call needed a person's approval and did not get it (declined, not answered in
    /// time, or no one could be asked): it was not run.
    NotApproved,
    /// A layer around the call refused it (a guardrail, a policy of the application's): it
    /// was not run. See [`Layer`](crate::exec::Layer).
    Refused,
}

impl ErrorKind {
    /// The kind's snake_case name, as serialized.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::InvalidInput => "invalid_input",
            Self::UnknownTool => "unknown_tool",
            Self::NotFound => "not_found",
            Self::PermissionDenied => "permission_denied",
            Self::Unavailable => "unavailable",
            Self::Timeout => "timeout",
            Self::Cancelled => "cancelled",
            Self::Failed => "failed",
            Self::Internal => "internal",
            Self::NotApproved => "not_approved",
            Self::Refused => "refused",
        }
    }
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The error a tool call ends with: a kind, a short message written for the model, the JSON path
/// of the offending input (for input errors) and, for operators, the underlying cause.
///
/// ```
/// use tool_core::{error::ErrorKind, ToolError};
/// let e = ToolError::not_found("no file named notes.txt").with_path("path");
/// assert_eq!(e.kind(), ErrorKind::NotFound);
/// assert_eq!(e.to_string(), "path: no file named notes.txt");
/// ```
#[derive(Debug, thiserror::Error)]
pub struct ToolError {
    kind: ErrorKind,
    message: Cow<'static, str>,
    path: Option<String>,
    #[source]
    source: Option<Box<dyn StdError + Send + Sync>>,
}

impl fmt::Display for ToolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.path {
            Some(path) => write!(f, "{path}: {}", self.message),
            None => f.write_str(&self.message),
        }
    }
}

impl ToolError {
    /// An error of `kind` with a message for the model.
    pub fn new(kind: ErrorKind, message: impl Into<Cow<'static, str>>) -> Self {
        Self {
            kind,
            message: message.into(),
            path: None,
            source: None,
        }
    }

    /// The input is unacceptable; say what would be accepted.
    pub fn invalid_input(message: impl Into<Cow<'static, str>>) -> Self {
        Self::new(ErrorKind::InvalidInput, message)
    }

    /// What the input names does not exist.
    pub fn not_found(message: impl Into<Cow<'static, str>>) -> Self {
        Self::new(ErrorKind::NotFound, message)
    }

    /// What the input names may not be touched.
    pub fn permission_denied(message: impl Into<Cow<'static, str>>) -> Self {
        Self::new(ErrorKind::PermissionDenied, message)
    }

    /// A dependency is unavailable for now; the executor may retry.
    pub fn unavailable(message: impl Into<Cow<'static, str>>) -> Self {
        Self::new(ErrorKind::Unavailable, message)
    }

    /// What the tool waited on ran out of time (a backend's own deadline); the executor may
    /// retry, as it does when the call's own time limit ends it.
    pub fn timeout(message: impl Into<Cow<'static, str>>) -> Self {
        Self::new(ErrorKind::Timeout, message)
    }

    /// The tool ran and failed in its own terms.
    pub fn failed(message: impl Into<Cow<'static, str>>) -> Self {
        Self::new(ErrorKind::Failed, message)
    }

    /// The call stopped because it was cancelled (a tool that sees
    /// [`ctx.cancellation()`](crate::ToolContext::cancellation) fire and stops early).
    pub fn cancelled(message: impl Into<Cow<'static, str>>) -> Self {
        Self::new(ErrorKind::Cancelled, message)
    }

    /// A layer around the call refuses it, for `reason` (which the model reads).
    pub fn refused(reason: impl Into<Cow<'static, str>>) -> Self {
        Self::new(ErrorKind::Refused, reason)
    }

    /// An unexpected error; `cause` is kept for operators and its text becomes the message.
    pub fn internal(cause: impl Into<Box<dyn StdError + Send + Sync>>) -> Self {
        let cause = cause.into();
        Self {
            kind: ErrorKind::Internal,
            message: cause.to_string().into(),
            path: None,
            source: Some(cause),
        }
    }

    /// Attaches the JSON path (or input field) the error is about.
    pub fn with_path(mut self, path: impl Into<String>) -> Self {
        let path = path.into();
        self.path = (!path.is_empty()).then_some(path);
        self
    }

    /// Attaches the underlying cause, for operators.
    pub fn with_source(mut self, source: impl Into<Box<dyn StdError + Send + Sync>>) -> Self {
        self.source = Some(source.into());
        self
    }

    /// The kind of failure.
    pub fn kind(&self) -> ErrorKind {
        self.kind
    }

    /// The message for the model, without the path.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// The JSON path of the offending input, if any (`.`-separated, `[i]` for array items).
    pub fn path(&self) -> Option<&str> {
        self.path.as_deref()
    }

    /// Whether trying again may succeed.
    pub fn is_transient(&self) -> bool {
        matches!(self.kind, ErrorKind::Unavailable | ErrorKind::Timeout)
    }
}

impl serde::Serialize for ToolError {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let mut s = serializer.serialize_struct("ToolError", 3)?;
        s.serialize_field("kind", &self.kind)?;
        s.serialize_field("message", &self.message)?;
        if let Some(path) = &self.path {
            s.serialize_field("path", path)?;
        } else {
            s.skip_field("path")?;
        }
        s.end()
    }
}

impl From<std::io::Error> for ToolError {
    fn from(e: std::io::Error) -> Self {
        use std::io::ErrorKind as Io;
        let kind = match e.kind() {
            Io::NotFound => ErrorKind::NotFound,
            Io::PermissionDenied => ErrorKind::PermissionDenied,
            Io::TimedOut => ErrorKind::Timeout,
            Io::Interrupted
            | Io::ConnectionRefused
            | Io::ConnectionReset
            | Io::ConnectionAborted
            | Io::WouldBlock => ErrorKind::Unavailable,
            Io::InvalidInput | Io::InvalidData => ErrorKind::InvalidInput,
            _ => ErrorKind::Internal,
        };
        Self {
            kind,
            message: e.to_string().into(),
            path: None,
            source: Some(Box::new(e)),
        }
    }
}

impl From<serde_json::Error> for ToolError {
    fn from(e: serde_json::Error) -> Self {
        Self::internal(e)
    }
}

impl From<String> for ToolError {
    fn from(message: String) -> Self {
        Self::failed(message)
    }
}

impl From<&'static str> for ToolError {
    fn from(message: &'static str) -> Self {
        Self::failed(message)
    }
}

impl From<std::convert::Infallible> for ToolError {
    fn from(e: std::convert::Infallible) -> Self {
        match e {}
    }
}
