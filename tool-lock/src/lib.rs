//! A lock file of tool definitions, and the review of today's definitions against it.
//!
//! [`Lock::of`] takes the definitions as they are served: each tool's MCP `Tool` object (with
//! its `scopes` and `examples` when it has them), each provider's rendering of its input schema
//! where it differs from the MCP one, and what each format costs in [`tokens`].
//! [`Lock::to_json`] writes it in a stable order and layout, meant to be committed
//! (`tools.lock.json`) so that its diffs read well in review; `toolctl lock` writes one.
//!
//! [`review`] compares today's definitions with a lock and classifies every difference with a
//! rule of [`RULES`]: *breaking* (a tool or a parameter removed, a parameter newly required, a
//! type, an enum or a bound narrowed, an output field removed, a scope added, a tool no longer
//! read-only...), *additive* (a tool or an optional parameter added, a bound widened...) or
//! *cosmetic* (descriptions, titles, hints, examples, icons). Breaking changes fail it unless
//! allowed by name ([`Allowance`]); token budgets fail it too. `toolctl check --baseline FILE`
//! runs it in CI, and [`LockTest`] in `cargo test`.
//!
//! ```
//! use serde_json::json;
//! use tool_lock::{Lock, ReviewOptions, review};
//! use tool_core::{registry::DynamicTool, Registry};
//!
//! let tool = |schema| DynamicTool::new("get_forecast", "Returns the forecast.", schema);
//! let mut before = Registry::empty();
//! before.register(tool(json!({"type": "object", "properties": {
//!     "city": {"type": "string"}, "units": {"type": "string", "enum": ["c", "f"]}}}))).unwrap();
//! let mut after = Registry::empty();
//! after.register(tool(json!({"type": "object", "properties": {
//!     "city": {"type": "string"}, "units": {"type": "string", "enum": ["c"]}}}))).unwrap();
//!
//! let baseline = Lock::parse(&Lock::of(&before).to_json(), "tools.lock.json").unwrap();
//! let review = review(Some(&baseline), &Lock::of(&after), &ReviewOptions::default());
//! assert!(review.fails());
//! assert_eq!(review.changes[0].rule, "input.enum.narrowed");
//! assert_eq!(review.changes[0].pointer, "/inputSchema/properties/units/enum");
//! assert_eq!(review.changes[0].message, "parameter `units` no longer takes \"f\"");
//! ```

mod assert;
mod file;
mod items;
mod review;
mod schema_diff;
pub mod tokens;

pub use assert::{LOCK_ENV, LockTest};
pub use file::{Lock, LockError, LockedTool, VERSION};
pub use items::LockedItem;
pub use review::{
    Allowance, AllowanceError, Budget, Change, Class, RULES, Review, ReviewOptions, RuleInfo,
    TokenCount, Tokens, review,
};

#[cfg(test)]
mod tests;
