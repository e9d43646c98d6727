//! Stopping a server the way terminals and service managers ask.

use tokio_util::sync::CancellationToken;

/// A token that is cancelled on Ctrl-C or, on Unix, SIGTERM (how containers and service
/// managers stop a process): pass it as the `shutdown` of [`serve_stdio`](crate::serve_stdio)
/// or [`serve_http`](crate::serve_http), which then answer the calls in flight and return.
///
/// Call it inside a Tokio runtime: it spawns the task that waits for the signal.
///
/// ```no_run
/// # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
/// let server = tool_mcp::McpServer::new(tool_core::exec::Executor::new(tool_core::Registry::linked()?));
/// tool_mcp::serve_stdio(server, tool_mcp::shutdown_on_signal()).await?;
/// # Ok(()) }
/// ```
pub fn shutdown_on_signal() -> CancellationToken {
    let token = CancellationToken::new();
    let on_signal = token.clone();
    tokio::spawn(async move {
        signalled().await;
        on_signal.cancel();
    });
    token
}

async fn signalled() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        if let Ok(mut term) = signal(SignalKind::terminate()) {
            tokio::select! {
                _ = tokio::signal::ctrl_c() => {}
                _ = term.recv() => {}
            }
            return;
        }
    }
    // Without a SIGTERM handler, Ctrl-C alone; if even that cannot be watched, never.
    if tokio::signal::ctrl_c().await.is_err() {
        std::future::pending::<()>().await;
    }
}
