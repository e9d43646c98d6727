//! `serve`: every tool over MCP, on stdio or Streamable HTTP, until the input ends or a signal
//! stops it.

use tool_core::{Registry, ToolContext};
use tool_mcp::{self as mcp, DeferredTools, McpServer, ServerOptions};

use crate::OAuthSetupError;
use crate::args::{ServeArgs, TaskStoreArg, ToolArgs};
use crate::exit::{Exit, Out, failed, usage};

/// Serves `registry` (plus `search_tools`) as `args` say, each call's context derived from
/// `base`.
pub(crate) async fn serve(
    tools: &ToolArgs,
    mut registry: Registry,
    args: &ServeArgs,
    mut base: ToolContext,
    err: Out<'_>,
) -> Result<(), Exit> {
    if let Some(problem) = args
        .approval
        .problem()
        .or_else(|| args.approval.unknown(&registry))
    {
        return Err(usage(err, problem));
    }
    if let Some(path) = &args.audit {
        let audit = tool_core::context::JsonLinesAudit::append(path)
            .map_err(|e| usage(err, format!("--audit {}: {e}", path.display())))?;
        base = base.derive().audit(std::sync::Arc::new(audit)).build();
    }
    if args.http.is_none() && args.oauth.enabled() {
        // Refused before a model loads. clap's `requires` does not hold once `--stdio`, which
        // conflicts with `--http`, is given.
        return Err(usage(
            err,
            "--oauth-issuer needs --http: over stdio the client that starts the server is its \
             only caller"
                .to_owned(),
        ));
    }
    // The issuer's keys, before a model loads: a bad key set is reported in a moment.
    let oauth = crate::oauth::load(&args.oauth).await.map_err(|e| match e {
        OAuthSetupError::NotBuilt { .. } => usage(err, e.to_string()),
        OAuthSetupError::Load(_) => failed(err, e.to_string()),
    })?;
    // Deferred tools are found through `search_tools` (and, unless hidden, listed too).
    let embedding = args.embed.embedding_or_exit(err)?;
    let hybrid = embedding.is_some();
    let catalog = tool_catalog::install_with(&mut registry, embedding)
        .map_err(|e| usage(err, format!("cannot add search_tools: {e}")))?;
    if hybrid {
        // Embedding the tools takes seconds when the cache is cold: do it now, beside serving,
        // not inside the first `search_tools` call. (The lexical index alone stays lazy.)
        let warm = catalog.clone();
        tokio::task::spawn_blocking(move || warm.read(|_| ()));
    }
    let mut options = ServerOptions::named(tools.identity.name(), tools.identity.version());
    options.title = tools.identity.title().map(str::to_owned);
    if args.hide_deferred {
        options.deferred = DeferredTools::Hidden;
    }
    options.sdk_transport = args.sdk_transport;
    options.cards = args.views;
    options.shutdown_grace = std::time::Duration::from_secs_f64(args.shutdown_grace);
    // Lowercased, and refused if never forwarded, by the argument's parser.
    options.forward_headers = args.forward_header.clone();
    if let Some(var) = &args.request_state_key_env {
        let key = std::env::var(var).map_err(|_| {
            usage(
                err,
                format!("--request-state-key-env {var}: the variable is not set"),
            )
        })?;
        let codec = mcp::rmcp::model::RequestStateCodec::try_new(key.into_bytes())
            .map_err(|e| usage(err, format!("--request-state-key-env {var}: {e}")))?;
        options.request_state = Some(codec);
    }
    options.tasks = task_options(args, &tools.identity, err)?;
    let policy = tool_core::exec::ExecPolicy::default().approval(args.approval.policy());
    let executor = tools.executor(registry, policy);
    let executor = crate::code::offered(&args.code, executor, !args.hide_deferred, err)?;
    let server = McpServer::with_options(executor, options)
        .with_base_context(base)
        .with_catalog(catalog);
    for hook in &tools.server_hooks.0 {
        hook(&server);
    }
    let shutdown = mcp::shutdown_on_signal();
    let Some(addr) = args.http else {
        // SIGTERM ends input as the end of stdin does: calls in flight are answered first.
        return mcp::serve_stdio(server, shutdown)
            .await
            .map_err(|e| failed(err, e.to_string()));
    };
    serve_http(server, addr, args, oauth, shutdown, err).await
}

/// Type of the OAuth checker `serve_http` is handed (nothing, without the feature).
type OAuth = Option<crate::oauth::Checker>;

/// `serve --http`: Streamable HTTP at `addr` until `shutdown`.
#[cfg(feature = "http")]
async fn serve_http(
    server: McpServer,
    addr: std::net::SocketAddr,
    args: &ServeArgs,
    oauth: OAuth,
    shutdown: tokio_util::sync::CancellationToken,
    err: Out<'_>,
) -> Result<(), Exit> {
    let mut http = mcp::HttpOptions::default();
    http.stateless = args.stateless;
    http.allowed_origins
        .extend(args.allow_origin.iter().cloned());
    http.allowed_hosts.extend(args.allow_host.iter().cloned());
    if let Some(var) = &args.token_env {
        let token = std::env::var(var)
            .ok()
            .map(|t| t.trim().to_owned())
            .filter(|t| !t.is_empty())
            .ok_or_else(|| usage(err, format!("--token-env {var}: the variable is not set")))?;
        http.bearer_token = Some(token);
    }
    let authenticated = http.bearer_token.is_some() || oauth.is_some();
    #[cfg(feature = "oauth")]
    if let Some(oauth) = oauth {
        http = http.with_oauth(oauth);
    }
    if !addr.ip().is_loopback() && !authenticated && !args.allow_unauthenticated {
        return Err(usage(
            err,
            format!(
                "--http {addr} is reachable from other machines: add --oauth-issuer URL (with \
                 --oauth-audience and --oauth-jwks) to require access tokens, or --token-env \
                 VAR to require one bearer token (or --allow-unauthenticated behind a proxy \
                 that authenticates)"
            ),
        ));
    }
    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .map_err(|e| usage(err, format!("--http {addr}: {e}")))?;
    let local = listener.local_addr().unwrap_or(addr);
    let _ = writeln!(
        err,
        "serving {} tools over MCP at http://{local}{} ({})",
        server.executor().registry().len(),
        http.path,
        if http.stateless {
            "stateless"
        } else {
            "sessions"
        }
    );
    mcp::serve_http(server, listener, &http, shutdown)
        .await
        .map_err(|e| failed(err, e.to_string()))
}

#[cfg(not(feature = "http"))]
async fn serve_http(
    _: McpServer,
    _: std::net::SocketAddr,
    _: &ServeArgs,
    _: OAuth,
    _: tokio_util::sync::CancellationToken,
    err: Out<'_>,
) -> Result<(), Exit> {
    Err(usage(err, crate::exit::not_built("--http", "http")))
}

/// The tasks `serve` offers: the store `--tasks` names, by default the embedded one.
fn task_options(
    args: &ServeArgs,
    identity: &crate::Identity,
    err: Out,
) -> Result<Option<mcp::TaskOptions>, Exit> {
    use std::time::Duration;
    let store = match &args.tasks {
        Some(store) => store.clone(),
        None if !cfg!(feature = "sqlite") => TaskStoreArg::Memory,
        None => match identity.task_file() {
            Some(path) => TaskStoreArg::Sqlite(path),
            None => {
                let _ = writeln!(
                    err,
                    "warning: neither XDG_DATA_HOME nor HOME is set: tasks are kept in memory"
                );
                TaskStoreArg::Memory
            }
        },
    };
    let Some(store) = crate::tasks::open_lazily(&store).map_err(|e| usage(err, e))? else {
        return Ok(None);
    };
    let mut tasks = mcp::TaskOptions::new(store);
    tasks.after = Duration::from_secs_f64(args.task_after);
    tasks.lease = Duration::from_secs_f64(args.task_lease);
    tasks.ttl = Some(Duration::from_secs_f64(args.task_ttl));
    Ok(Some(tasks))
}
