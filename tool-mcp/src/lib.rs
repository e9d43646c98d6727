//! Tools over MCP, through the official Rust SDK (`rmcp`): its protocol types, its service loop,
//! its Streamable HTTP transport and (feature `mount`) its client. The stdio transport is this
//! crate's own: every line is checked against JSON-RPC 2.0 there, and a `tools/call` or
//! `tools/list` is answered there, with the SDK's types and the same handler. Over Streamable
//! HTTP, the endpoint answers the calls and listings the SDK would accept and that need no
//! stream itself, as one JSON body, and passes the rest to the SDK's service.
//!
//! - [`McpServer`] answers `tools/list` in the MCP renderer's form (paginated; each page built
//!   when asked for, not kept) and runs `tools/call` through the [`Executor`](tool_core::exec::Executor): input limits, time
//!   limits, cancellation, sanitised errors. Progress and log messages a tool sends through its
//!   [`ToolContext`](tool_core::ToolContext) become MCP notifications; a change to the tool set
//!   ([`McpServer::update`]) sends `notifications/tools/list_changed`.
//! - [`serve_stdio`] (or [`serve_io`] on any byte stream, whose docs say what the stdio
//!   transport guarantees) and [`serve_http`] (feature `http`, on by default) put a server on a
//!   transport; [`HttpOptions`] holds the HTTP security settings (loopback Host and Origin
//!   checks, optional bearer-token auth, which request headers reach the tools). A stdio server
//!   turns default features off and compiles no HTTP server.
//! - The module `oauth` (feature `oauth`) makes the Streamable HTTP endpoint an OAuth 2.1 resource
//!   server: access tokens checked against an issuer's keys, protected resource metadata,
//!   the caller as a [`Principal`](tool_core::context::Principal) in every call's context, `tools/list`
//!   showing each caller the tools it may call.
//! - `mount` (feature `mount`, which brings the SDK's client and an HTTP client) connects to
//!   another MCP server (a command on stdio, or a Streamable HTTP URL) and turns its tools into
//!   [`DynamicTool`](tool_core::registry::DynamicTool)s named `NAME__tool`, so one registry, catalog and
//!   executor offer local and remote tools alike.
//!
//! ```no_run
//! # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
//! use tool_core::exec::Executor;
//! use tool_mcp::{McpServer, serve_stdio};
//! use tool_core::Registry;
//! let server = McpServer::new(Executor::new(Registry::linked()?));
//! serve_stdio(server, Default::default()).await?;
//! # Ok(()) }
//! ```

#![warn(missing_docs)]
// docs.rs (`--cfg docsrs`, see Cargo.toml) marks each item with the features it needs.
#![cfg_attr(docsrs, feature(doc_cfg))]
// MCP logging (`logging/setLevel`, `notifications/message`) is deprecated upstream by SEP-2577
// but still part of every protocol version clients speak today, so it is served.
#![allow(deprecated)]

mod approve;
mod ask;
#[cfg(feature = "http")]
mod direct;
#[cfg(feature = "http")]
mod drain;
mod error;
#[cfg(feature = "http")]
mod http_sessions;
mod level;
mod listing;
#[cfg(feature = "mount")]
mod mount;
mod mount_spec;
mod notify;
#[cfg(feature = "oauth")]
pub mod oauth;
mod options;
mod request;
mod result;
#[cfg(feature = "http")]
mod serve;
mod server;
mod signal;
mod stdio;
mod stream;
mod sync;
#[cfg(feature = "tasks")]
mod tasks;
pub mod views;
// tool-core's generator of random JSON for property tests, shared rather than copied.
#[cfg(test)]
#[path = "../../tool-core/src/test_json.rs"]
mod test_json;

pub use approve::ElicitApprover;
pub use ask::McpPeer;
pub use error::ServeError;
#[cfg(feature = "mount")]
pub use mount::{Mounted, mount};
pub use mount_spec::{MountError, MountSpec, MountTarget};
pub use options::{DeferredTools, ServerOptions};
#[cfg(feature = "http")]
pub use serve::{HttpOptions, http_router, serve_http};
pub use server::McpServer;
pub use signal::shutdown_on_signal;
pub use stdio::{serve_io, serve_stdio};
pub use stream::CallStream;
#[cfg(feature = "tasks")]
pub use tasks::TaskOptions;
#[cfg(feature = "tasks")]
pub use tool_tasks;

/// The MCP SDK this crate is built on, for its protocol types.
pub use rmcp;
