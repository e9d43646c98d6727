//! The `main` of the rmcp servers: stdio (`stdio()` by default, `stdio_pipes()` with `--best`)
//! or Streamable HTTP with sessions (`--http ADDR`), on a multi-threaded runtime like
//! `toolctl serve`.

use std::process::ExitCode;
use std::sync::Arc;

use rmcp::ServerHandler;
use rmcp::ServiceExt as _;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};

/// Runs the server the arguments choose: `[--best] [--http ADDR]`.
pub fn main<D, B>(default: fn() -> D, best: fn() -> B) -> ExitCode
where
    D: ServerHandler + Clone + Send + Sync + 'static,
    B: ServerHandler + Clone + Send + Sync + 'static,
{
    let args: Vec<String> = std::env::args().skip(1).collect();
    let is_best = args.iter().any(|a| a == "--best");
    let http = args
        .iter()
        .position(|a| a == "--http")
        .and_then(|i| args.get(i + 1).cloned());
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(e) => {
            eprintln!("error: cannot start the runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    let result = runtime.block_on(async move {
        match (http, is_best) {
            (Some(addr), false) => serve_http(addr, false, default).await,
            (Some(addr), true) => {
                // Built once; every session gets a clone of the ready router.
                let server = best();
                serve_http(addr, true, move || server.clone()).await
            }
            (None, false) => {
                let running = default().serve(rmcp::transport::stdio()).await?;
                running.waiting().await?;
                Ok(())
            }
            (None, true) => {
                let running = best().serve(rmcp::transport::stdio_pipes()).await?;
                running.waiting().await?;
                Ok(())
            }
        }
    });
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

type Error = Box<dyn std::error::Error + Send + Sync>;

/// Streamable HTTP with sessions at `/mcp`, served by axum as rmcp's examples do; `nodelay`
/// (the best configuration) sets TCP_NODELAY on every connection, so a response's last small
/// write does not wait for the client's delayed ACK (about 40 ms on Linux).
async fn serve_http<S, F>(addr: String, nodelay: bool, make: F) -> Result<(), Error>
where
    S: ServerHandler + Send + Sync + 'static,
    F: Fn() -> S + Send + Sync + 'static,
{
    let service = StreamableHttpService::new(
        move || Ok(make()),
        Arc::new(LocalSessionManager::default()),
        StreamableHttpServerConfig::default(),
    );
    let router = axum::Router::new().route_service("/mcp", service);
    let listener = tokio::net::TcpListener::bind(&addr).await?;
    if nodelay {
        use axum::serve::ListenerExt as _;
        let listener = listener.tap_io(|tcp| {
            let _ = tcp.set_nodelay(true);
        });
        axum::serve(listener, router).await?;
    } else {
        axum::serve(listener, router).await?;
    }
    Ok(())
}
