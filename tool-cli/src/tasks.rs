//! `tasks`: an operator's view of a task store (every caller's tasks), and opening the stores
//! `serve --tasks` and `tasks --store` name.

use std::sync::Arc;

use serde_json::{Value, json};
use tool_tasks::{ListFilter, MemoryStore, TaskRecord, TaskStore};

use crate::args::{TaskStoreArg, TasksArgs, TasksCommand};
use crate::exit::{Exit, Out, failed, print_json, usage};

/// The store `store` names, opened (or connected) at its first operation, so that a server
/// starts without waiting for a file or a database; `None` for `off`.
pub(crate) fn open_lazily(store: &TaskStoreArg) -> Result<Option<Arc<dyn TaskStore>>, String> {
    Ok(Some(match store {
        TaskStoreArg::Off => return Ok(None),
        TaskStoreArg::Memory => Arc::new(MemoryStore::new()),
        #[cfg(feature = "sqlite")]
        TaskStoreArg::Sqlite(path) => Arc::new(tool_tasks::SqliteStore::open_lazily(path)),
        #[cfg(not(feature = "sqlite"))]
        TaskStoreArg::Sqlite(_) => return Err(crate::exit::not_built("sqlite:PATH", "sqlite")),
        #[cfg(feature = "postgres")]
        TaskStoreArg::Postgres(url) => {
            Arc::new(tool_tasks::PostgresStore::connect_lazily(url).map_err(|e| e.to_string())?)
        }
        #[cfg(not(feature = "postgres"))]
        TaskStoreArg::Postgres(_) => return Err(crate::args::NO_POSTGRES.into()),
    }))
}

/// Runs `tasks ...`.
pub(crate) async fn run(
    args: &TasksArgs,
    identity: &crate::Identity,
    out: Out<'_>,
    err: Out<'_>,
) -> Result<(), Exit> {
    let store = open(args.store.as_ref(), identity, err).await?;
    let now = now_ms();
    match &args.command {
        TasksCommand::List {
            status,
            tool,
            limit,
            json,
        } => {
            let filter = ListFilter {
                statuses: status.clone(),
                tool: tool.clone(),
                limit: Some(*limit),
            };
            let tasks = store
                .list(filter, now)
                .await
                .map_err(|e| failed(err, e.to_string()))?;
            if *json {
                print_json(out, &Value::Array(tasks.iter().map(record_json).collect()));
            } else {
                table(&tasks, out);
            }
            Ok(())
        }
        TasksCommand::Show { id } => {
            let task = find(&*store, id, now, err).await?;
            print_json(out, &record_json(&task));
            Ok(())
        }
        TasksCommand::Cancel { id } => {
            let task = find(&*store, id, now, err).await?;
            if task.status.is_terminal() {
                let _ = writeln!(err, "task {id} had already ended: {}", task.status);
                return Ok(());
            }
            store
                .request_cancel(id, now)
                .await
                .map_err(|e| failed(err, e.to_string()))?;
            let _ = writeln!(
                err,
                "{}",
                if task.holder.is_some() {
                    "cancellation asked for: the instance running it stops it at its next lease \
                     renewal"
                } else {
                    "cancelled"
                }
            );
            Ok(())
        }
    }
}

/// The store to read, opened now: a file that is not there is an error, not a new store.
async fn open(
    store: Option<&TaskStoreArg>,
    identity: &crate::Identity,
    err: Out<'_>,
) -> Result<Arc<dyn TaskStore>, Exit> {
    let store = match store {
        Some(store) => store.clone(),
        None if !cfg!(feature = "sqlite") => {
            return Err(usage(
                err,
                crate::exit::not_built("the default store (SQLite)", "sqlite")
                    + "; name a store with --store",
            ));
        }
        None => match identity.task_file() {
            Some(path) => TaskStoreArg::Sqlite(path),
            None => {
                return Err(usage(
                    err,
                    "neither XDG_DATA_HOME nor HOME is set: name the store with --store".into(),
                ));
            }
        },
    };
    match &store {
        TaskStoreArg::Sqlite(path) if !path.exists() => {
            return Err(failed(
                err,
                format!(
                    "no task store at {}: `serve` has kept no tasks there (give --store)",
                    path.display()
                ),
            ));
        }
        TaskStoreArg::Memory | TaskStoreArg::Off => {
            return Err(usage(
                err,
                "--store must be a store that outlives a process: sqlite:PATH or postgres://..."
                    .into(),
            ));
        }
        _ => {}
    }
    match open_lazily(&store) {
        Ok(Some(store)) => Ok(store),
        Ok(None) => Err(usage(err, "no store to read".into())),
        Err(message) => Err(usage(err, message)),
    }
}

async fn find(store: &dyn TaskStore, id: &str, now: u64, err: Out<'_>) -> Result<TaskRecord, Exit> {
    match store.get(id, now).await {
        Ok(Some(task)) => Ok(task),
        Ok(None) => Err(failed(
            err,
            format!("no task {id} in the store (or it is past its time to live)"),
        )),
        Err(e) => Err(failed(err, e.to_string())),
    }
}

/// A task as `tasks show` and `tasks list --json` print it.
fn record_json(task: &TaskRecord) -> Value {
    json!({
        "id": task.id,
        "status": task.status.as_str(),
        "statusMessage": task.status_message,
        "tool": task.tool,
        "arguments": task.arguments,
        "owner": task.owner.as_deref().and_then(|o| serde_json::from_str::<Value>(o).ok()),
        "createdAt": timestamp(task.created_ms),
        "lastUpdatedAt": timestamp(task.updated_ms),
        "ttlMs": task.ttl_ms,
        "pollIntervalMs": task.poll_interval_ms,
        "idempotent": task.idempotent,
        "attempts": task.attempts,
        "holder": task.holder,
        "leaseUntil": task.holder.as_ref().map(|_| timestamp(task.lease_until_ms)),
        "cancelRequested": task.cancel_requested,
        "inputRequests": (!task.input_requests.is_empty()).then(|| task.input_requests.clone()),
        "outcome": task.outcome,
    })
}

fn table(tasks: &[TaskRecord], out: Out) {
    let _ = writeln!(
        out,
        "{:<32}  {:<14}  {:<24}  {:<24}  {:>8}  MESSAGE",
        "ID", "STATUS", "TOOL", "UPDATED", "ATTEMPTS"
    );
    for task in tasks {
        let _ = writeln!(
            out,
            "{:<32}  {:<14}  {:<24}  {:<24}  {:>8}  {}",
            task.id,
            task.status.as_str(),
            task.tool,
            timestamp(task.updated_ms),
            task.attempts,
            task.status_message.as_deref().unwrap_or("")
        );
    }
}

fn timestamp(ms: u64) -> String {
    let ms = i64::try_from(ms).unwrap_or(i64::MAX);
    jiff::Timestamp::from_millisecond(ms)
        .unwrap_or(jiff::Timestamp::UNIX_EPOCH)
        .to_string()
}

fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
        .unwrap_or(0)
}
