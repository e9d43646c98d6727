//! Why a run of the agent loop stopped without an answer.

/// Why a run stopped without an answer.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum AgentError {
    /// The HTTP client could not be set up.
    #[error("cannot set up the HTTP client: {0}")]
    Setup(#[source] tool_http::HttpConfigError),
    /// The request could not be sent or read.
    #[error("cannot reach the model: {0}")]
    Http(#[source] reqwest::Error),
    /// The provider answered with an error status.
    #[error("the provider answered {status}: {body}")]
    Provider {
        /// The HTTP status.
        status: u16,
        /// The start of the body.
        body: String,
    },
    /// The stream could not be read.
    #[error("the provider's stream is malformed: {0}")]
    Stream(String),
    /// The model was still calling tools at the turn limit.
    #[error("no answer after {0} turns (the model kept calling tools)")]
    TurnLimit(usize),
}
