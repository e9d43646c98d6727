//! Tasks in this process's memory: for tests, and for a server whose tasks need not outlive it.

use std::collections::HashMap;
use std::sync::{Mutex, MutexGuard, PoisonError};

use serde_json::{Map, Value};

use crate::record::{
    Answered, Ending, Input, ListFilter, NewTask, Renewal, TaskRecord, TaskStatus,
};
use crate::store::{StoreError, StoreFuture, TaskStore};

/// A [`TaskStore`] in memory: the rules of the durable stores, lost with the process.
///
/// ```
/// use tool_tasks::{MemoryStore, NewTask, TaskStore, TaskStatus};
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// let store = MemoryStore::new();
/// store.create(NewTask {
///     id: "t1".into(), owner: None, tool: "wait_duration".into(),
///     arguments: serde_json::json!({"seconds": 5}), origin: serde_json::Value::Null,
///     idempotent: true, status_message: None, now_ms: 1_000, ttl_ms: Some(60_000),
///     poll_interval_ms: None, holder: "a".into(), lease_until_ms: 16_000,
/// }).await?;
/// assert_eq!(store.get("t1", 2_000).await?.unwrap().status, TaskStatus::Working);
/// assert!(store.get("t1", 61_000).await?.is_none()); // past its time to live
/// # Ok::<_, tool_tasks::StoreError>(()) }).unwrap();
/// ```
#[derive(Debug, Default)]
pub struct MemoryStore {
    tasks: Mutex<HashMap<String, TaskRecord>>,
}

impl MemoryStore {
    /// An empty store.
    pub fn new() -> Self {
        Self::default()
    }

    fn tasks(&self) -> MutexGuard<'_, HashMap<String, TaskRecord>> {
        self.tasks.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// The status message of a task cancelled while it waited for input.
pub(crate) const CANCELLED_WAITING: &str = "cancelled while it waited for input";

fn ready<'a, T: Send + 'a>(value: Result<T, StoreError>) -> StoreFuture<'a, T> {
    Box::pin(std::future::ready(value))
}

/// Whether `task` runs, held by `holder`.
fn held_by(task: &TaskRecord, holder: &str) -> bool {
    !task.status.is_terminal() && task.holder.as_deref() == Some(holder)
}

impl TaskStore for MemoryStore {
    fn kind(&self) -> &'static str {
        "memory"
    }

    fn create(&self, task: NewTask) -> StoreFuture<'_, ()> {
        let mut tasks = self.tasks();
        if tasks.contains_key(&task.id) {
            return ready(Err(StoreError::Duplicate {
                store: "memory",
                id: task.id,
            }));
        }
        tasks.insert(task.id.clone(), task.into_record());
        ready(Ok(()))
    }

    fn get<'a>(&'a self, id: &'a str, now_ms: u64) -> StoreFuture<'a, Option<TaskRecord>> {
        let task = self.tasks().get(id).filter(|t| !t.expired(now_ms)).cloned();
        ready(Ok(task))
    }

    fn list(&self, filter: ListFilter, now_ms: u64) -> StoreFuture<'_, Vec<TaskRecord>> {
        let mut found: Vec<TaskRecord> = self
            .tasks()
            .values()
            .filter(|t| !t.expired(now_ms) && filter.admits(t))
            .cloned()
            .collect();
        found.sort_by(|a, b| b.created_ms.cmp(&a.created_ms).then(a.id.cmp(&b.id)));
        if let Some(limit) = filter.limit {
            found.truncate(limit);
        }
        ready(Ok(found))
    }

    fn renew<'a>(
        &'a self,
        id: &'a str,
        holder: &'a str,
        lease_until_ms: u64,
        status_message: Option<String>,
        now_ms: u64,
    ) -> StoreFuture<'a, Renewal> {
        let mut tasks = self.tasks();
        let Some(task) = tasks.get_mut(id).filter(|t| held_by(t, holder)) else {
            return ready(Ok(Renewal::Lost));
        };
        task.lease_until_ms = lease_until_ms;
        if let Some(message) = status_message
            && task.status_message.as_deref() != Some(message.as_str())
        {
            task.status_message = Some(message);
            task.updated_ms = now_ms;
        }
        ready(Ok(Renewal::Held {
            cancel_requested: task.cancel_requested,
        }))
    }

    fn finish<'a>(&'a self, id: &'a str, holder: &'a str, ending: Ending) -> StoreFuture<'a, bool> {
        let mut tasks = self.tasks();
        let Some(task) = tasks.get_mut(id).filter(|t| held_by(t, holder)) else {
            return ready(Ok(false));
        };
        task.status = ending.status;
        if ending.status_message.is_some() {
            task.status_message = ending.status_message;
        }
        task.outcome = ending.outcome;
        task.updated_ms = ending.now_ms;
        task.holder = None;
        ready(Ok(true))
    }

    fn wait_for_input<'a>(
        &'a self,
        id: &'a str,
        holder: &'a str,
        input: Input,
    ) -> StoreFuture<'a, bool> {
        let mut tasks = self.tasks();
        let Some(task) = tasks.get_mut(id).filter(|t| held_by(t, holder)) else {
            return ready(Ok(false));
        };
        task.status = TaskStatus::InputRequired;
        task.input_requests = input.requests;
        task.answers = input.answers;
        if input.status_message.is_some() {
            task.status_message = input.status_message;
        }
        task.updated_ms = input.now_ms;
        task.holder = None;
        task.lease_until_ms = 0;
        ready(Ok(true))
    }

    fn answer<'a>(
        &'a self,
        id: &'a str,
        responses: &'a Map<String, Value>,
        holder: &'a str,
        lease_until_ms: u64,
        now_ms: u64,
    ) -> StoreFuture<'a, Answered> {
        let mut tasks = self.tasks();
        let Some(task) = tasks.get_mut(id).filter(|t| !t.expired(now_ms)) else {
            return ready(Ok(Answered::NotWaiting));
        };
        let Some((answers, outstanding)) = task.with_responses(responses) else {
            return ready(Ok(Answered::NotWaiting));
        };
        task.answers = answers;
        if !outstanding.is_empty() {
            let keys = outstanding.keys().cloned().collect();
            task.input_requests = outstanding;
            return ready(Ok(Answered::Partial { outstanding: keys }));
        }
        task.input_requests = Map::new();
        task.status = TaskStatus::Working;
        task.updated_ms = now_ms;
        task.holder = Some(holder.to_owned());
        task.lease_until_ms = lease_until_ms;
        ready(Ok(Answered::Resumed(Box::new(task.clone()))))
    }

    fn request_cancel<'a>(&'a self, id: &'a str, now_ms: u64) -> StoreFuture<'a, bool> {
        let mut tasks = self.tasks();
        let Some(task) = tasks
            .get_mut(id)
            .filter(|t| !t.status.is_terminal() && !t.expired(now_ms))
        else {
            return ready(Ok(false));
        };
        task.cancel_requested = true;
        if task.status == TaskStatus::InputRequired {
            // Nothing runs it to see the request: it ends here.
            task.status = TaskStatus::Cancelled;
            task.status_message = Some(CANCELLED_WAITING.to_owned());
            task.input_requests = Map::new();
            task.updated_ms = now_ms;
        }
        ready(Ok(true))
    }

    fn claim_expired<'a>(
        &'a self,
        holder: &'a str,
        now_ms: u64,
        lease_until_ms: u64,
        limit: usize,
    ) -> StoreFuture<'a, Vec<TaskRecord>> {
        let mut tasks = self.tasks();
        let mut due: Vec<&mut TaskRecord> = tasks
            .values_mut()
            .filter(|t| t.status == TaskStatus::Working && t.lease_until_ms < now_ms)
            .collect();
        // Oldest first, as the SQL stores take them.
        due.sort_by(|a, b| a.created_ms.cmp(&b.created_ms).then(a.id.cmp(&b.id)));
        let claimed = due
            .into_iter()
            .take(limit)
            .map(|task| {
                task.holder = Some(holder.to_owned());
                task.lease_until_ms = lease_until_ms;
                task.attempts = task.attempts.saturating_add(1);
                task.clone()
            })
            .collect();
        ready(Ok(claimed))
    }

    fn release<'a>(&'a self, id: &'a str, holder: &'a str) -> StoreFuture<'a, bool> {
        let mut tasks = self.tasks();
        let Some(task) = tasks.get_mut(id).filter(|t| held_by(t, holder)) else {
            return ready(Ok(false));
        };
        task.lease_until_ms = 0;
        ready(Ok(true))
    }

    fn purge(&self, now_ms: u64) -> StoreFuture<'_, u64> {
        let mut tasks = self.tasks();
        let before = tasks.len();
        tasks.retain(|_, t| !t.expired(now_ms));
        ready(Ok((before - tasks.len()) as u64))
    }
}
