//! The store behind tasks: one trait, whatever keeps the records.

use std::future::Future;
use std::pin::Pin;

use crate::record::{Answered, Ending, Input, ListFilter, NewTask, Renewal, TaskRecord};

/// What a store's operations return: a boxed future, so that a server holds any store as
/// `Arc<dyn TaskStore>`.
pub type StoreFuture<'a, T> = Pin<Box<dyn Future<Output = Result<T, StoreError>> + Send + 'a>>;

/// Keeps tasks where every instance of a server finds them.
///
/// Every change is conditional, so that instances sharing a store agree without talking to each
/// other: only a task's holder renews its lease or ends it, a terminal task never changes, and a
/// task whose lease ran out is taken over by exactly one instance
/// ([`claim_expired`](Self::claim_expired)). Times are milliseconds since the Unix epoch, passed
/// in, so that every instance reads the same clock rules and tests can move time.
pub trait TaskStore: Send + Sync + 'static {
    /// A short name for messages (`memory`, `sqlite`, `postgres`).
    fn kind(&self) -> &'static str;

    /// Keeps a new task. Once this returns, [`get`](Self::get) finds it on every instance.
    fn create(&self, task: NewTask) -> StoreFuture<'_, ()>;

    /// The task with `id`, unless there is none or it is past its time to live at `now_ms`.
    fn get<'a>(&'a self, id: &'a str, now_ms: u64) -> StoreFuture<'a, Option<TaskRecord>>;

    /// The tasks `filter` admits, newest first, leaving out those past their time to live.
    fn list(&self, filter: ListFilter, now_ms: u64) -> StoreFuture<'_, Vec<TaskRecord>>;

    /// Renews `holder`'s lease on a running task until `lease_until_ms`, and sets its status
    /// message when one is given (then `updated_ms` is `now_ms` if the message changed).
    fn renew<'a>(
        &'a self,
        id: &'a str,
        holder: &'a str,
        lease_until_ms: u64,
        status_message: Option<String>,
        now_ms: u64,
    ) -> StoreFuture<'a, Renewal>;

    /// Ends a running task held by `holder`; `false` (and no change) if the task is not running
    /// or not held by `holder`.
    fn finish<'a>(&'a self, id: &'a str, holder: &'a str, ending: Ending) -> StoreFuture<'a, bool>;

    /// Puts a running task held by `holder` in `input_required`: its run ended asking the
    /// client `input.requests`. Nothing runs it while it waits: it has no holder and no lease,
    /// until [`answer`](Self::answer) resumes it. `false` (and no change) if the task is not
    /// running or not held by `holder`.
    fn wait_for_input<'a>(
        &'a self,
        id: &'a str,
        holder: &'a str,
        input: Input,
    ) -> StoreFuture<'a, bool>;

    /// Gives a task waiting for input the client's `responses` (MCP's `tasks/update`). Answers
    /// to outstanding questions are kept, others ignored; once every question has its answer,
    /// the task is `working` again, held by `holder` until `lease_until_ms`, for that instance to run the call again with the answers. Two instances
    /// answering at once never both resume it.
    fn answer<'a>(
        &'a self,
        id: &'a str,
        responses: &'a serde_json::Map<String, serde_json::Value>,
        holder: &'a str,
        lease_until_ms: u64,
        now_ms: u64,
    ) -> StoreFuture<'a, Answered>;

    /// Asks for a task to be cancelled: a running one's holder sees it at its next renewal; a
    /// task waiting for input, which nothing runs, is cancelled at once. `false` if the task is
    /// unknown or over.
    fn request_cancel<'a>(&'a self, id: &'a str, now_ms: u64) -> StoreFuture<'a, bool>;

    /// Takes over at most `limit` working tasks whose lease ran out before `now_ms`: each
    /// becomes `holder`'s until `lease_until_ms`, with one more attempt counted, and is
    /// returned as it is now. Two instances calling it at once never take the same task.
    fn claim_expired<'a>(
        &'a self,
        holder: &'a str,
        now_ms: u64,
        lease_until_ms: u64,
        limit: usize,
    ) -> StoreFuture<'a, Vec<TaskRecord>>;

    /// Gives up `holder`'s lease on a running task at once (an instance that stops), so
    /// another instance takes it over at its next [`claim_expired`](Self::claim_expired).
    fn release<'a>(&'a self, id: &'a str, holder: &'a str) -> StoreFuture<'a, bool>;

    /// Removes every task past its time to live at `now_ms`; how many went.
    fn purge(&self, now_ms: u64) -> StoreFuture<'_, u64>;
}

/// A store that failed to do what was asked.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StoreError {
    /// The store's backend refused or failed (I/O, SQL, connection).
    #[error("task store ({store}): {message}")]
    Backend {
        /// Which store.
        store: &'static str,
        /// What the backend said.
        message: String,
    },
    /// A record the store holds cannot be read back.
    #[error("task store ({store}): task {id}: {what}")]
    Corrupt {
        /// Which store.
        store: &'static str,
        /// The task.
        id: String,
        /// What is wrong with it.
        what: String,
    },
    /// A task with this id exists already.
    #[error("task store ({store}): a task {id} exists already")]
    Duplicate {
        /// Which store.
        store: &'static str,
        /// The id.
        id: String,
    },
}
