//! Durable records of long-running tool calls: the store behind MCP tasks.
//!
//! A server that answers a long call with a task (MCP's `io.modelcontextprotocol/tasks`) keeps
//! the task here, so that the client's later `tasks/get` finds it on whichever instance it
//! reaches, after a restart too. [`TaskStore`] is the one interface; [`MemoryStore`] keeps tasks
//! in memory, `SqliteStore` (feature `sqlite`) in a file, and `PostgresStore` (feature
//! `postgres`) on a PostgreSQL server that several instances share.
//!
//! Instances sharing a store coordinate by leases alone: the instance running a task renews its
//! lease while the call runs ([`TaskStore::renew`], which also tells it of a cancellation asked
//! for elsewhere), and ends it with a conditional write ([`TaskStore::finish`]), so a task ends
//! once. An instance that stops renews nothing; when its lease runs out, another instance takes
//! the task over ([`TaskStore::claim_expired`]) and either runs the call again (when it is
//! idempotent) or fails it. The store keeps no protocol: results and errors are JSON the server
//! wrote, and [`TaskRecord::origin`] is whatever the server needs to run a call again.
//!
//! ```
//! use tool_tasks::{Ending, MemoryStore, NewTask, Renewal, TaskStatus, TaskStore};
//! # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
//! let store = MemoryStore::new();
//! let id = tool_tasks::new_task_id();
//! store.create(NewTask {
//!     id: id.clone(), owner: Some("user-7".into()), tool: "build_report".into(),
//!     arguments: serde_json::json!({}), origin: serde_json::Value::Null, idempotent: false,
//!     status_message: None, now_ms: 0, ttl_ms: Some(3_600_000), poll_interval_ms: Some(1_000),
//!     holder: "instance-a".into(), lease_until_ms: 15_000,
//! }).await?;
//! // Instance a renews its lease while the tool runs...
//! let renewal = store.renew(&id, "instance-a", 30_000, Some("half done".into()), 10_000).await?;
//! assert_eq!(renewal, Renewal::Held { cancel_requested: false });
//! // ...and ends the task, once.
//! let ending = Ending {
//!     status: TaskStatus::Completed, status_message: None,
//!     outcome: Some(serde_json::json!({"content": []})), now_ms: 20_000,
//! };
//! assert!(store.finish(&id, "instance-a", ending.clone()).await?);
//! assert!(!store.finish(&id, "instance-a", ending).await?);
//! assert_eq!(store.get(&id, 21_000).await?.unwrap().status, TaskStatus::Completed);
//! # Ok::<_, tool_tasks::StoreError>(()) }).unwrap();
//! ```

// docs.rs (`--cfg docsrs`, see Cargo.toml) marks each item with the features it needs.
#![cfg_attr(docsrs, feature(doc_cfg))]

// How a record sits in SQL columns, shared by the SQL stores.
#[cfg(any(feature = "sqlite", feature = "postgres"))]
mod columns;
mod id;
mod memory;
#[cfg(feature = "postgres")]
mod postgres;
mod record;
#[cfg(feature = "sqlite")]
mod sqlite;
mod store;

pub use id::new_task_id;
pub use memory::MemoryStore;
#[cfg(feature = "postgres")]
pub use postgres::PostgresStore;
pub use record::{Answered, Ending, Input, ListFilter, NewTask, Renewal, TaskRecord, TaskStatus};
#[cfg(feature = "sqlite")]
pub use sqlite::SqliteStore;
pub use store::{StoreError, StoreFuture, TaskStore};
