//! What the HTTP endpoints of tool-core's crates share, so each rule is written once: who may
//! be answered ([`Guard`]: the `Host` a request names, against DNS rebinding, and a browser's
//! `Origin`), the loopback defaults ([`loopback_hosts`], [`loopback_origins`]), and the
//! listener they serve on ([`nodelay`]). `tool-mcp`'s Streamable HTTP endpoint and
//! `tool-presence`'s page use it; it is not meant for direct use.
//!
//! ```
//! use axum::http::{HeaderMap, HeaderValue, Uri, header};
//! use tool_endpoint::{Guard, Refusal, loopback_hosts, loopback_origins};
//!
//! let guard = Guard::new(&loopback_hosts(), &loopback_origins());
//! let mut headers = HeaderMap::new();
//! headers.insert(header::HOST, HeaderValue::from_static("127.0.0.1:8080"));
//! assert_eq!(guard.check(&Uri::from_static("/mcp"), &headers), Ok(()));
//! // A name that resolves to 127.0.0.1 is still a foreign name.
//! headers.insert(header::HOST, HeaderValue::from_static("127.0.0.1.nip.io:8080"));
//! assert_eq!(guard.check(&Uri::from_static("/mcp"), &headers), Err(Refusal::ForeignHost));
//! ```

#![warn(missing_docs)]

mod guard;
mod listener;

pub use guard::{Guard, Refusal, loopback_hosts, loopback_origins, refuse_foreign};
pub use listener::nodelay;
