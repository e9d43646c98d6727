//! The command-line front end: `serve`, `list`, `show`, `call`, `export` and
//! `check` over a registry, plus the tools of `--defs` files and `--mount`ed MCP servers.
//!
//! `toolctl` is a thin `main` over [`main`]; any agent binary can mount the same subcommands by
//! flattening [`ToolArgs`] into its own clap parser and calling [`ToolArgs::run`].
//!
//! Exit codes: 0 on success, 1 when a tool call fails or `check` finds errors, 2 on usage errors
//! (bad arguments, an unknown tool, input that is not JSON, a registry that cannot be built).

use std::io::{Read, Write};
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand};
use serde_json::{Value, json};

use tool_core::catalog::{Catalog, SearchOptions};
use tool_core::check::{self, CheckOptions};
use tool_core::exec::Executor;
use tool_core::render::{self, Format, RenderOptions};
use tool_core::schema::Severity;
use tool_core::{
    ErrorKind, Registry, RegistryError, Tool, ToolContext, ToolOutput, ToolRoot, defs,
};
use tool_mcp::{self as mcp, DeferredTools, HttpOptions, McpServer, MountSpec, ServerOptions};

/// The subcommands and the options they share.
#[derive(Debug, Args)]
pub struct ToolArgs {
    /// Directory that tools touching files work under (default: the current directory).
    #[arg(long, global = true, value_name = "DIR")]
    pub root: Option<PathBuf>,
    /// Also load the tools of a JSON array of MCP Tool objects (definitions only; repeatable).
    #[arg(long, global = true, value_name = "FILE")]
    pub defs: Vec<PathBuf>,
    /// Also offer the tools of an MCP server, named NAME__tool: a command speaking MCP on stdio
    /// (run with `sh -c`) or a Streamable HTTP URL (repeatable).
    #[arg(long, global = true, value_name = "NAME=COMMAND|URL")]
    pub mount: Vec<MountSpec>,
    #[command(subcommand)]
    pub command: Command,
}

/// What to do.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Serve every tool over MCP: on stdio, or Streamable HTTP.
    Serve(ServeArgs),
    /// List every tool.
    List {
        /// Print a JSON array of full definitions instead of a table.
        #[arg(long)]
        json: bool,
        /// Only tools of this domain.
        #[arg(long, value_name = "DOMAIN")]
        domain: Option<String>,
    },
    /// Print one tool's definition as JSON.
    Show {
        /// The tool's name.
        name: String,
    },
    /// Print every tool's definition in a provider's format, as a JSON array.
    Export {
        /// openai, openai-responses, anthropic, gemini, gemini-openapi or mcp.
        #[arg(long)]
        format: Format,
        /// Use the provider's strict mode (OpenAI, Anthropic).
        #[arg(long)]
        strict: bool,
    },
    /// Check every definition against every rule; exit 1 on errors.
    Check {
        /// Only these formats' rules (repeatable; default all).
        #[arg(long = "format")]
        formats: Vec<Format>,
        /// Hold definitions to the strict modes too.
        #[arg(long)]
        strict: bool,
        /// Print the findings as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Search the tools for a task, as `search_tools` does (core tools included).
    Search {
        /// What to find, in your own words.
        #[arg(required_unless_present = "queries")]
        query: Option<String>,
        /// How many matches (1 to 100).
        #[arg(long, default_value_t = 5, value_name = "K", value_parser = clap::value_parser!(u16).range(1..=100))]
        top: u16,
        /// Only tools of this domain.
        #[arg(long, value_name = "DOMAIN")]
        domain: Option<String>,
        /// Print the matches as JSON.
        #[arg(long)]
        json: bool,
        /// Answer many queries: JSON lines `{"query": "..."}` in, JSON lines
        /// `{"query": "...", "results": ["name", ...]}` out, in order (`-` for stdin).
        #[arg(long, value_name = "FILE", conflicts_with = "query")]
        queries: Option<PathBuf>,
    },
    /// Call a tool and print the result as JSON.
    Call {
        /// The tool's name.
        name: String,
        /// The input, a JSON object; `-` reads it from standard input.
        #[arg(long, default_value = "{}", value_name = "JSON")]
        input: String,
    },
}

/// How `serve` listens.
#[derive(Debug, Args)]
pub struct ServeArgs {
    /// Speak MCP on stdin and stdout (how MCP clients start a local server).
    #[arg(long, conflicts_with = "http", required_unless_present = "http")]
    pub stdio: bool,
    /// Serve Streamable HTTP at this address, endpoint `/mcp` (alone: 127.0.0.1:8080; port 0
    /// picks a free port).
    #[arg(long, value_name = "ADDR", num_args = 0..=1, default_missing_value = "127.0.0.1:8080")]
    pub http: Option<SocketAddr>,
    /// HTTP without sessions: any instance behind a load balancer can answer any request.
    #[arg(long, requires = "http")]
    pub stateless: bool,
    /// Require `Authorization: Bearer <token>`, the token read from this environment variable.
    #[arg(long, requires = "http", value_name = "VAR")]
    pub token_env: Option<String>,
    /// Accept this browser Origin besides loopback ones (repeatable; `:*` for any port).
    #[arg(long, requires = "http", value_name = "ORIGIN")]
    pub allow_origin: Vec<String>,
    /// Accept this Host besides loopback names, when serving beyond this machine (repeatable).
    #[arg(long, requires = "http", value_name = "HOST")]
    pub allow_host: Vec<String>,
    /// Pass this request header to the tools, to forward downstream (repeatable; default
    /// `authorization`).
    #[arg(long, requires = "http", value_name = "NAME")]
    pub forward_header: Vec<String>,
    /// List only `core` tools; the others stay callable by name.
    #[arg(long)]
    pub hide_deferred: bool,
    /// Serve a non-loopback address without `--token-env` (only behind a proxy that
    /// authenticates: otherwise anyone who reaches the port can call every tool).
    #[arg(long, requires = "http")]
    pub allow_unauthenticated: bool,
    /// Serve stdio through the MCP SDK's own transport and loop alone.
    #[arg(long, requires = "stdio")]
    pub sdk_transport: bool,
    /// Seconds the calls in flight may take to finish once stdin closes (or on SIGTERM) before
    /// they are cancelled.
    #[arg(long, value_name = "SECS", default_value_t = 5.0, value_parser = grace)]
    pub shutdown_grace: f64,
}

fn grace(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(secs) if secs.is_finite() && (0.0..=3600.0).contains(&secs) => Ok(secs),
        _ => Err(format!(
            "`{text}` is not a number of seconds from 0 to 3600"
        )),
    }
}

#[derive(Debug, Parser)]
#[command(
    name = "toolctl",
    about = "List, inspect and call the tools linked into this binary"
)]
struct Cli {
    #[command(flatten)]
    args: ToolArgs,
}

/// Parses the process's arguments and runs them against every linked tool.
pub fn main() -> ExitCode {
    let cli = Cli::parse();
    let registry = match Registry::linked() {
        Ok(registry) => registry,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    // Unlocked handles: `serve --stdio` writes to stdout from another thread, which a lock
    // held here for the whole run would block forever.
    cli.args
        .run(&registry, &mut std::io::stdout(), &mut std::io::stderr())
}

/// Where a command's output goes.
type Out<'a> = &'a mut dyn Write;

/// A failed command: its exit code; the message was already written.
struct Exit(u8);

impl ToolArgs {
    /// Runs the command against `registry`, writing results to `out` and messages to `err`, on
    /// a runtime of its own. From async code, use [`run_async`](Self::run_async).
    pub fn run(&self, registry: &Registry, out: Out, err: Out) -> ExitCode {
        // Serving uses every core; one-shot commands need no worker threads.
        let runtime = match &self.command {
            Command::Serve(_) => tokio::runtime::Builder::new_multi_thread()
                .enable_all()
                .build(),
            _ => tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build(),
        };
        match runtime {
            Ok(runtime) => runtime.block_on(self.run_async(registry, out, err)),
            Err(e) => ExitCode::from(usage(err, format!("cannot start the async runtime: {e}")).0),
        }
    }

    /// [`run`](Self::run) on the caller's runtime (`serve` wants a multi-threaded one).
    pub async fn run_async(&self, registry: &Registry, out: Out<'_>, err: Out<'_>) -> ExitCode {
        match self.run_in(registry, out, err).await {
            Ok(()) => ExitCode::SUCCESS,
            Err(Exit(code)) => ExitCode::from(code),
        }
    }

    async fn run_in(&self, registry: &Registry, out: Out<'_>, err: Out<'_>) -> Result<(), Exit> {
        let (registry, clashes) = self.with_sources(registry, err).await?;
        let registry = &registry;
        match &self.command {
            Command::Serve(args) => self.serve(registry.clone(), args, err).await,
            Command::List { json, domain } => list(registry, *json, domain.as_deref(), out, err),
            Command::Show { name } => show(registry, name, out, err),
            Command::Call { name, input } => self.call(registry, name, input, out, err).await,
            Command::Search {
                query,
                top,
                domain,
                json,
                queries,
            } => {
                let mut options = SearchOptions::limit(usize::from(*top));
                options.domain = domain.clone();
                let catalog = Catalog::new(registry);
                if let Some(domain) = domain {
                    catalog
                        .check_domain(domain)
                        .map_err(|e| usage(err, e.to_string()))?;
                }
                match (queries, query) {
                    (Some(path), _) => search_batch(&catalog, &options, path, out, err),
                    (None, Some(query)) => search(&catalog, &options, query, *json, out, err),
                    (None, None) => Err(usage(err, "give a QUERY or --queries FILE".into())),
                }
            }
            Command::Export { format, strict } => {
                let options = RenderOptions { strict: *strict };
                print_json(out, &render::render_all(registry.tools(), *format, options));
                Ok(())
            }
            Command::Check {
                formats,
                strict,
                json,
            } => self::check(registry, clashes, formats, *strict, *json, out),
        }
    }

    /// The registry plus the tools of every `--defs` file and `--mount`ed server; names that
    /// clash are set aside and returned, for `check` to report.
    async fn with_sources(
        &self,
        registry: &Registry,
        err: Out<'_>,
    ) -> Result<(Registry, Vec<RegistryError>), Exit> {
        let mut registry = registry.clone();
        let mut clashes = Vec::new();
        let mut add = |registry: &mut Registry, tool, err: Out| {
            if let Err(e) = registry.register(tool) {
                if !matches!(self.command, Command::Check { .. }) {
                    let _ = writeln!(err, "warning: {e}");
                }
                clashes.push(e);
            }
        };
        for path in &self.defs {
            let origin = path.display().to_string();
            let text = std::fs::read_to_string(path)
                .map_err(|e| usage(err, format!("--defs {origin}: {e}")))?;
            let tools =
                defs::parse(&text, &origin).map_err(|e| usage(err, format!("--defs: {e}")))?;
            for tool in tools {
                add(&mut registry, tool, err);
            }
        }
        for spec in &self.mount {
            let mounted = mcp::mount(spec)
                .await
                .map_err(|e| usage(err, format!("--mount {e}")))?;
            for tool in mounted.into_tools() {
                add(&mut registry, tool, err);
            }
        }
        Ok((registry, clashes))
    }

    /// The context every call starts from: the `--root`, when given.
    fn base_context(&self, err: Out) -> Result<ToolContext, Exit> {
        let mut ctx = ToolContext::builder();
        if let Some(dir) = &self.root {
            let root = ToolRoot::new(dir)
                .map_err(|e| usage(err, format!("--root {}: {e}", dir.display())))?;
            ctx = ctx.root(root);
        }
        Ok(ctx.build())
    }

    async fn serve(
        &self,
        mut registry: Registry,
        args: &ServeArgs,
        err: Out<'_>,
    ) -> Result<(), Exit> {
        // Deferred tools are found through `search_tools` (and, unless hidden, listed too).
        let catalog = tool_core::catalog::install(&mut registry)
            .map_err(|e| usage(err, format!("cannot add search_tools: {e}")))?;
        let mut options = ServerOptions::named("toolctl", env!("CARGO_PKG_VERSION"));
        if args.hide_deferred {
            options.deferred = DeferredTools::Hidden;
        }
        options.sdk_transport = args.sdk_transport;
        options.shutdown_grace = std::time::Duration::from_secs_f64(args.shutdown_grace);
        if !args.forward_header.is_empty() {
            options.forward_headers = args
                .forward_header
                .iter()
                .map(|h| h.to_ascii_lowercase())
                .collect();
        }
        let server = McpServer::with_options(Executor::new(registry), options)
            .with_base_context(self.base_context(err)?)
            .with_catalog(catalog);
        let shutdown = tokio_util::sync::CancellationToken::new();
        let on_signal = shutdown.clone();
        tokio::spawn(async move {
            stopped().await;
            on_signal.cancel();
        });
        let Some(addr) = args.http else {
            // SIGTERM ends input as the end of stdin does: calls in flight are answered first.
            return mcp::serve_stdio(server, shutdown)
                .await
                .map_err(|e| failed(err, e.to_string()));
        };
        let mut http = HttpOptions::default();
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
        if !addr.ip().is_loopback() && http.bearer_token.is_none() && !args.allow_unauthenticated {
            return Err(usage(
                err,
                format!(
                    "--http {addr} is reachable from other machines: add --token-env VAR to \
                     require a bearer token (or --allow-unauthenticated behind a proxy that \
                     authenticates)"
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

    async fn call(
        &self,
        registry: &Registry,
        name: &str,
        input: &str,
        out: Out<'_>,
        err: Out<'_>,
    ) -> Result<(), Exit> {
        let tool = find(registry, name, err)?;
        let text = if input == "-" {
            let mut text = String::new();
            std::io::stdin().read_to_string(&mut text).map_err(|e| {
                usage(
                    err,
                    format!("cannot read the input from standard input: {e}"),
                )
            })?;
            text
        } else {
            input.to_owned()
        };
        let executor = Executor::new(registry.clone());
        let input: Value = executor
            .policy()
            .parse(&text)
            .map_err(|e| usage(err, format!("--input: {}", e.message())))?;
        let ctx = self.base_context(err)?;
        // The full pipeline: limits, time limit, isolation, retries, sanitised errors, audit.
        match executor.call(tool.name(), input, &ctx).await {
            Ok(output) => {
                print_json(out, &output_json(&output));
                Ok(())
            }
            Err(e) => {
                print_json(out, &json!({ "ok": false, "error": e }));
                let _ = writeln!(err, "error: {name}: {e}");
                Err(Exit(1))
            }
        }
    }
}

fn search(
    catalog: &Catalog,
    options: &SearchOptions,
    query: &str,
    as_json: bool,
    out: Out,
    err: Out,
) -> Result<(), Exit> {
    let found = catalog.search(query, options);
    if as_json {
        print_json(out, &serde_json::to_value(&found).unwrap_or_default());
        return Ok(());
    }
    let width = found.iter().map(|m| m.name.len()).max().unwrap_or(0);
    let domain_width = found.iter().map(|m| m.domain.len()).max().unwrap_or(0);
    for m in &found {
        let _ = writeln!(
            out,
            "{:width$}  {:domain_width$}  {:6.2}  {}",
            m.name, m.domain, m.score, m.hint
        );
    }
    if found.is_empty() {
        let _ = writeln!(err, "no tool matches `{query}`");
    }
    Ok(())
}

/// `--queries FILE`: one JSON object per line in, one per line out, in order. A line that is not
/// `{"query": "..."}` is an error naming the line.
fn search_batch(
    catalog: &Catalog,
    options: &SearchOptions,
    path: &std::path::Path,
    out: Out,
    err: Out,
) -> Result<(), Exit> {
    let text = if path.as_os_str() == "-" {
        let mut text = String::new();
        std::io::stdin()
            .read_to_string(&mut text)
            .map_err(|e| usage(err, format!("--queries -: {e}")))?;
        text
    } else {
        std::fs::read_to_string(path)
            .map_err(|e| usage(err, format!("--queries {}: {e}", path.display())))?
    };
    #[derive(serde::Deserialize)]
    struct Line {
        query: String,
    }
    for (n, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let Line { query } = serde_json::from_str(line).map_err(|e| {
            usage(
                err,
                format!(
                    "--queries {} line {}: expected {{\"query\": \"...\"}}: {e}",
                    path.display(),
                    n + 1
                ),
            )
        })?;
        let results: Vec<&str> = catalog
            .search(&query, options)
            .iter()
            .map(|m| m.name)
            .collect();
        let _ = writeln!(out, "{}", json!({"query": query, "results": results}));
    }
    Ok(())
}

fn check(
    registry: &Registry,
    clashes: Vec<RegistryError>,
    formats: &[Format],
    strict: bool,
    as_json: bool,
    out: Out,
) -> Result<(), Exit> {
    let options = CheckOptions {
        formats: if formats.is_empty() {
            Format::ALL.to_vec()
        } else {
            formats.to_vec()
        },
        strict,
    };
    let mut report = check::check_registry(registry, &options);
    for clash in clashes {
        if let RegistryError::DuplicateName { name, .. } = &clash {
            report.diagnostics.insert(
                0,
                check::Diagnostic {
                    severity: Severity::Error,
                    tool: name.clone(),
                    format: None,
                    pointer: "/name".into(),
                    rule: "name.unique".into(),
                    message: clash.to_string(),
                    fix: "rename one of them".into(),
                },
            );
        }
    }
    if as_json {
        print_json(out, &serde_json::to_value(&report).unwrap_or_default());
    } else {
        let _ = writeln!(out, "{report}");
    }
    if report.has_errors() {
        Err(Exit(1))
    } else {
        Ok(())
    }
}

fn list(
    registry: &Registry,
    as_json: bool,
    domain: Option<&str>,
    out: Out,
    err: Out,
) -> Result<(), Exit> {
    let tools: Vec<&Tool> = match domain {
        Some(d) => registry.in_domain(d).collect(),
        None => registry.tools().iter().collect(),
    };
    if let (Some(d), true) = (domain, tools.is_empty()) {
        let known: Vec<_> = registry
            .domains()
            .iter()
            .map(|d| d.name.to_string())
            .collect();
        return Err(usage(
            err,
            format!(
                "no domain is named `{d}`; the domains are: {}",
                known.join(", ")
            ),
        ));
    }
    if as_json {
        print_json(
            out,
            &Value::Array(tools.iter().map(|t| definition_json(t)).collect()),
        );
        return Ok(());
    }
    let width = tools.iter().map(|t| t.name().len()).max().unwrap_or(0);
    let domain_width = tools
        .iter()
        .map(|t| t.domain().name.len())
        .max()
        .unwrap_or(0);
    for t in tools {
        let offered = if t.is_core() { "core" } else { "deferred" };
        let _ = writeln!(
            out,
            "{:width$}  {:domain_width$}  {:8}  {}",
            t.name(),
            t.domain().name,
            offered,
            t.hint()
        );
    }
    Ok(())
}

fn show(registry: &Registry, name: &str, out: Out, err: Out) -> Result<(), Exit> {
    let tool = find(registry, name, err)?;
    print_json(out, &definition_json(tool));
    Ok(())
}

fn find<'r>(registry: &'r Registry, name: &str, err: Out) -> Result<&'r Tool, Exit> {
    registry.get(name).ok_or_else(|| {
        let e = tool_core::exec::unknown_tool(name, &registry.suggest(name));
        debug_assert_eq!(e.kind(), ErrorKind::UnknownTool);
        usage(err, e.to_string())
    })
}

fn usage(err: Out, message: String) -> Exit {
    let _ = writeln!(err, "error: {message}");
    Exit(2)
}

/// Resolves on Ctrl-C, or on SIGTERM (how containers and service managers stop a server).
async fn stopped() {
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
    let _ = tokio::signal::ctrl_c().await;
}

fn failed(err: Out, message: String) -> Exit {
    let _ = writeln!(err, "error: {message}");
    Exit(1)
}

/// A tool's full definition, as `list --json` and `show` print it.
pub fn definition_json(tool: &Tool) -> Value {
    let mut def = json!({
        "name": tool.name(),
        "description": tool.description(),
        "domain": tool.domain().name,
        "label": tool.label(),
        "hint": tool.hint(),
        "core": tool.is_core(),
        "annotations": tool.annotations(),
        "voiced": tool.voiced(),
        "feeds_back": tool.feeds_back(),
        "examples": tool.examples(),
        "input_schema": tool.input_schema(),
    });
    if let Value::Object(map) = &mut def {
        if let Some(schema) = tool.output_schema() {
            map.insert("output_schema".into(), schema.clone());
        }
        if let Some(source) = tool.source() {
            map.insert("source".into(), source.into());
        }
        if let Some(timeout) = tool.timeout() {
            map.insert("timeout_ms".into(), (timeout.as_millis() as u64).into());
        }
        if tool.retries() > 0 {
            map.insert("retries".into(), tool.retries().into());
        }
    }
    def
}

fn output_json(output: &ToolOutput) -> Value {
    let media: Vec<Value> = output
        .media()
        .iter()
        .map(|m| json!({ "kind": m.kind, "mime_type": m.mime_type, "bytes": m.data.len() }))
        .collect();
    let mut result = json!({ "ok": true, "data": output.data() });
    if let Value::Object(map) = &mut result {
        // The echo is shown only where it says more than the data's own JSON.
        let echo = output.echo();
        if output.data().is_none_or(|d| d.to_string() != echo) {
            map.insert("echo".into(), echo.into());
        }
        if let Some(event) = output.event() {
            map.insert("event".into(), event.into());
        }
        if !media.is_empty() {
            map.insert("media".into(), media.into());
        }
    }
    result
}

fn print_json(out: Out, value: &Value) {
    // A closed pipe (`toolctl list --json | head`) is not an error worth reporting.
    let _ = serde_json::to_writer_pretty(&mut *out, value);
    let _ = writeln!(out);
}

#[cfg(test)]
mod tests {
    use super::*;
    use tool_core::{DynamicTool, ToolError};

    fn registry() -> Registry {
        let mut r = Registry::empty();
        r.register(
            DynamicTool::new("echo_text", "Echoes.", json!({"type": "object"}))
                .domain("text", "Text")
                .hint("Echoes text")
                .handler(|input, _| async move {
                    match input.get("fail") {
                        Some(_) => Err(ToolError::invalid_input("asked to fail").with_path("fail")),
                        None => Ok(ToolOutput::new(input)),
                    }
                }),
        )
        .unwrap();
        r
    }

    fn run(args: &[&str]) -> (u8, String, String) {
        let cli =
            Cli::try_parse_from(std::iter::once("toolctl").chain(args.iter().copied())).unwrap();
        let (mut out, mut err) = (Vec::new(), Vec::new());
        let code = cli.args.run(&registry(), &mut out, &mut err);
        let code = if code == ExitCode::SUCCESS {
            0
        } else if code == ExitCode::from(1) {
            1
        } else {
            2
        };
        (
            code,
            String::from_utf8(out).unwrap(),
            String::from_utf8(err).unwrap(),
        )
    }

    #[test]
    fn call_prints_the_result_and_exit_codes_follow_the_outcome() {
        let (code, out, _) = run(&["call", "echo_text", "--input", r#"{"a": 1}"#]);
        assert_eq!(code, 0);
        let v: Value = serde_json::from_str(&out).unwrap();
        assert_eq!(v["data"], json!({"a": 1}));
        let (code, out, err) = run(&["call", "echo_text", "--input", r#"{"fail": 1}"#]);
        assert_eq!(code, 1);
        assert!(err.contains("fail: asked to fail"), "{err}");
        let v: Value = serde_json::from_str(&out).unwrap();
        assert_eq!(v["error"]["kind"], "invalid_input");
        let (code, _, err) = run(&["call", "echo_txt"]);
        assert_eq!(code, 2);
        assert!(err.contains("did you mean `echo_text`"), "{err}");
        let (code, _, err) = run(&["call", "echo_text", "--input", "{oops"]);
        assert_eq!(code, 2);
        assert!(
            err.contains("--input: the input is not valid JSON"),
            "{err}"
        );
    }

    #[test]
    fn list_and_show() {
        let (code, out, _) = run(&["list"]);
        assert_eq!(code, 0);
        assert!(
            out.contains("echo_text") && out.contains("deferred"),
            "{out}"
        );
        let (_, out, _) = run(&["list", "--json"]);
        let v: Value = serde_json::from_str(&out).unwrap();
        assert_eq!(v[0]["name"], "echo_text");
        let (code, _, err) = run(&["list", "--domain", "nope"]);
        assert_eq!(code, 2);
        assert!(err.contains("the domains are: text"), "{err}");
        let (code, out, _) = run(&["show", "echo_text"]);
        assert_eq!(code, 0);
        assert!(out.contains("\"input_schema\""));
    }

    #[test]
    fn export_and_check_cover_defs_files() {
        let (code, out, _) = run(&["export", "--format", "openai", "--strict"]);
        assert_eq!(code, 0);
        let v: Value = serde_json::from_str(&out).unwrap();
        assert_eq!(v[0]["function"]["strict"], true);
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("bad.json");
        std::fs::write(
            &file,
            r#"[{"name": "Bad Tool", "description": "x", "inputSchema": {"type": "string"}},
            {"name": "echo_text", "inputSchema": {"type": "object"}}]"#,
        )
        .unwrap();
        let (code, out, _) = run(&["check", "--defs", file.to_str().unwrap()]);
        assert_eq!(code, 1, "{out}");
        assert!(out.contains("error[name.pattern] Bad Tool"), "{out}");
        assert!(out.contains("error[schema.root] Bad Tool"), "{out}");
        assert!(out.contains("error[name.unique] echo_text"), "{out}");
        let (code, out, _) = run(&[
            "check",
            "--json",
            "--format",
            "mcp",
            "--defs",
            file.to_str().unwrap(),
        ]);
        assert_eq!(code, 1);
        let v: Value = serde_json::from_str(&out).unwrap();
        assert!(
            v["diagnostics"]
                .as_array()
                .unwrap()
                .iter()
                .any(|d| d["rule"] == "schema.root")
        );
        let (code, _, err) = run(&["list", "--defs", "/no/such.json"]);
        assert_eq!(code, 2);
        assert!(err.contains("--defs /no/such.json"), "{err}");
    }

    #[test]
    fn a_bad_root_is_a_usage_error() {
        let (code, _, err) = run(&["call", "echo_text", "--root", "/no/such/dir"]);
        assert_eq!(code, 2);
        assert!(err.contains("--root /no/such/dir"), "{err}");
    }
}
