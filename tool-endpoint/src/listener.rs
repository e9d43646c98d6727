//! The listener every HTTP endpoint serves on.

/// `listener` with TCP_NODELAY set on every connection it accepts: without it, the last small
/// write of each answer (a JSON-RPC result, an SSE event) waits for the peer's delayed ACK,
/// about 40 ms on Linux.
///
/// ```no_run
/// # async fn demo() -> std::io::Result<()> {
/// let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
/// let app = axum::Router::new();
/// axum::serve(tool_endpoint::nodelay(listener), app).await?;
/// # Ok(()) }
/// ```
pub fn nodelay(
    listener: tokio::net::TcpListener,
) -> impl axum::serve::Listener<Addr = std::net::SocketAddr> {
    axum::serve::ListenerExt::tap_io(listener, |tcp| {
        if let Err(e) = tcp.set_nodelay(true) {
            tracing::debug!(error = %e, "cannot set TCP_NODELAY");
        }
    })
}
