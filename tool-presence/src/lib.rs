//! Presence for UIs: the executor's tool events as Server-Sent Events on a
//! small loopback HTTP endpoint, with a page that shows one card per call while it runs.
//!
//! A [`Presence`] is an [`EventSink`](tool_core::context::EventSink): give it to the context the calls run
//! in, and serve it with [`Presence::start`] (or mount [`Presence::router`] in an axum app of
//! your own).
//!
//! ```no_run
//! # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
//! use std::sync::Arc;
//! use tool_presence::{Presence, PresenceOptions};
//! use tool_core::ToolContext;
//!
//! let presence = Presence::new();
//! let server = presence.start("127.0.0.1:0", PresenceOptions::default()).await?;
//! eprintln!("tool activity at {}", server.url());
//! let ctx = ToolContext::builder().events(Arc::new(presence.clone())).build();
//! // ... run calls with `ctx` through an Executor or an Agent ...
//! presence.finish(); // the run is over: pages keep their cards, streams end
//! server.shutdown().await?; // stop serving
//! # Ok(()) }
//! ```
//!
//! | path | what it serves |
//! |---|---|
//! | `GET /` | the page: one HTML file, inline CSS and JS, no external assets |
//! | `GET /events` | `text/event-stream`: `event: tool` per [`PresenceEvent`] (JSON, `id:` = its `seq`); `event: approval` per [`ApprovalEvent`] (a call waiting for a person's yes, and what became of it); `event: reset` when a new run begins (pages clear their cards); `event: end`, the stream's last, with `{"reason": "finished"}` after [`Presence::finish`] or `{"reason": "shutdown"}` when the server stops; comments as keep-alives |
//! | `POST /approvals/{id}` | the page's answer to a waiting call (`{"decision": "approve", "remember": "once"}`, `{"decision": "deny", "reason": "..."}`), with the page's secret; see [`PresenceApprover`] |
//!
//! A page that connects late first gets the current run's recent events (at most
//! [`Presence::with_replay`] of them, 256 by default), so it still shows the cards; a page that
//! reconnects with `Last-Event-ID` gets only what it missed.
//!
//! Requests must name a loopback host in `Host` (DNS-rebinding protection), and a browser
//! `Origin`, when sent, must be a loopback origin: other sites cannot read the events (403).
//! An answer must also carry the secret the page was served with, from the page's own script.
//!
//! With a [`PresenceApprover`] on the calls' context, a call that needs a person's yes waits
//! as a card with Approve and Deny until the person answers on the page, or the call stops
//! waiting (timed out, cancelled), which the card then says.

#![warn(missing_docs)]

mod approval;
mod guard;
mod hub;
#[cfg(test)]
mod lifecycle;
mod question;
mod serve;

pub use approval::PresenceApprover;
pub use hub::{Phase, Presence, PresenceEvent};
pub use question::{AnswerError, ApprovalEvent, ApprovalState};
pub use serve::{PresenceError, PresenceOptions, PresenceServer};
