//! How serving ends, on any transport.

/// Why a server stopped.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ServeError {
    /// The client's `initialize` failed.
    #[error("the MCP session could not start: {0}")]
    Initialize(#[from] Box<rmcp::service::ServerInitializeError>),
    /// The server's task ended abnormally.
    #[error("the MCP server stopped abnormally: {0}")]
    Task(#[from] tokio::task::JoinError),
    /// Binding or serving the socket failed.
    #[error("the HTTP server failed: {0}")]
    Io(#[from] std::io::Error),
}
