//! Tasks in one SQLite file: the embedded store, which needs no server and outlives the process.
//!
//! SQLite is compiled in (rusqlite's `bundled`), so no system library is needed. Every operation
//! is one SQL statement, run on Tokio's blocking pool over one connection; processes sharing the
//! file are kept apart by SQLite's own locking (WAL, with a busy timeout), which makes each
//! conditional update atomic across them too.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use rusqlite::{Connection, OptionalExtension, Row, TransactionBehavior, params};
use serde_json::{Map, Value};

use crate::columns::{ms, object_text, read_json, read_object, unsigned};
use crate::memory::CANCELLED_WAITING;
use crate::record::{
    Answered, Ending, Input, ListFilter, NewTask, Renewal, TaskRecord, TaskStatus,
};
use crate::store::{StoreError, StoreFuture, TaskStore};

/// The store's name in messages.
const STORE: &str = "sqlite";

/// The schema's version, in `PRAGMA user_version`: a file from a newer schema is refused, one
/// from an older one is brought up to date (version 2 added the columns of tasks that wait for
/// input, and the revision that makes answering them a compare-and-set).
const SCHEMA_VERSION: i64 = 2;

/// From version 1 to 2.
const MIGRATE_1_TO_2: &str = "
ALTER TABLE tasks ADD COLUMN input_requests TEXT;
ALTER TABLE tasks ADD COLUMN answers TEXT;
ALTER TABLE tasks ADD COLUMN revision INTEGER NOT NULL DEFAULT 0;
";

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS tasks (
    id               TEXT PRIMARY KEY,
    owner            TEXT,
    tool             TEXT NOT NULL,
    arguments        TEXT NOT NULL,
    origin           TEXT NOT NULL,
    idempotent       INTEGER NOT NULL,
    status           TEXT NOT NULL,
    status_message   TEXT,
    created_ms       INTEGER NOT NULL,
    updated_ms       INTEGER NOT NULL,
    ttl_ms           INTEGER,
    poll_interval_ms INTEGER,
    outcome          TEXT,
    cancel_requested INTEGER NOT NULL DEFAULT 0,
    holder           TEXT,
    lease_until_ms   INTEGER NOT NULL,
    attempts         INTEGER NOT NULL DEFAULT 1,
    input_requests   TEXT,
    answers          TEXT,
    revision         INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS tasks_running ON tasks (lease_until_ms)
    WHERE status IN ('working', 'input_required');
CREATE INDEX IF NOT EXISTS tasks_created ON tasks (created_ms);
";

const COLUMNS: &str = "id, owner, tool, arguments, origin, idempotent, status, status_message, \
     created_ms, updated_ms, ttl_ms, poll_interval_ms, outcome, cancel_requested, holder, \
     lease_until_ms, attempts, input_requests, answers";

/// Running, in SQL.
const RUNNING: &str = "status IN ('working', 'input_required')";

/// Not past its time to live at `?now`, in SQL.
const ALIVE: &str = "(ttl_ms IS NULL OR created_ms + ttl_ms > :now)";

/// A [`TaskStore`] in a SQLite file.
///
/// ```
/// use tool_tasks::{SqliteStore, TaskStore};
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// let dir = tempfile::tempdir().unwrap();
/// let store = SqliteStore::open(dir.path().join("tasks.sqlite3"))?;
/// assert_eq!(store.kind(), "sqlite");
/// assert!(store.get("no-such-task", 0).await?.is_none());
/// # Ok::<_, tool_tasks::StoreError>(()) }).unwrap();
/// ```
#[derive(Debug, Clone)]
pub struct SqliteStore {
    /// `None` until opened (see [`SqliteStore::open_lazily`]).
    conn: Arc<Mutex<Option<Connection>>>,
    path: Arc<Path>,
}

fn backend(error: impl std::fmt::Display) -> StoreError {
    StoreError::Backend {
        store: "sqlite",
        message: error.to_string(),
    }
}

impl SqliteStore {
    /// Opens (creating it and its directory when missing) the store in the file at `path`.
    pub fn open(path: impl Into<PathBuf>) -> Result<Self, StoreError> {
        let path: PathBuf = path.into();
        let conn = Self::connect(&path)?;
        Ok(Self {
            conn: Arc::new(Mutex::new(Some(conn))),
            path: path.into(),
        })
    }

    /// The store in the file at `path`, opened at its first operation (on the blocking pool):
    /// a server starts without waiting for the file. A file that cannot be opened fails each
    /// operation with the reason, until it can.
    pub fn open_lazily(path: impl Into<PathBuf>) -> Self {
        Self {
            conn: Arc::new(Mutex::new(None)),
            path: path.into().into(),
        }
    }

    fn connect(path: &Path) -> Result<Connection, StoreError> {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(|e| StoreError::Backend {
                store: "sqlite",
                message: format!("cannot create {}: {e}", dir.display()),
            })?;
        }
        let conn = Connection::open(path)
            .map_err(|e| backend(format!("cannot open {}: {e}", path.display())))?;
        Self::prepare(&conn).map_err(|e| backend(format!("{}: {e}", path.display())))?;
        Ok(conn)
    }

    /// The file the store is in.
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn prepare(conn: &Connection) -> Result<(), String> {
        conn.busy_timeout(Duration::from_secs(5))
            .map_err(|e| e.to_string())?;
        // WAL lets readers go on while one process writes; `normal` sync is durable across a
        // process crash (which is what a task must survive), and costs far less than `full`.
        conn.pragma_update(None, "journal_mode", "wal")
            .map_err(|e| e.to_string())?;
        conn.pragma_update(None, "synchronous", "normal")
            .map_err(|e| e.to_string())?;
        // One process at a time reads the version and brings the file up to date.
        let tx = rusqlite::Transaction::new_unchecked(conn, TransactionBehavior::Immediate)
            .map_err(|e| e.to_string())?;
        let version: i64 = tx
            .pragma_query_value(None, "user_version", |row| row.get(0))
            .map_err(|e| e.to_string())?;
        if version > SCHEMA_VERSION {
            return Err(format!(
                "the file holds tasks of schema version {version}, newer than this program's \
                 {SCHEMA_VERSION}"
            ));
        }
        if version == 1 {
            tx.execute_batch(MIGRATE_1_TO_2)
                .map_err(|e| format!("bringing the file from schema 1 to 2: {e}"))?;
        }
        tx.execute_batch(SCHEMA).map_err(|e| e.to_string())?;
        tx.pragma_update(None, "user_version", SCHEMA_VERSION)
            .map_err(|e| e.to_string())?;
        tx.commit().map_err(|e| e.to_string())?;
        Ok(())
    }

    /// Runs `work` on the connection, on the blocking pool.
    fn with<'a, T, F>(&'a self, work: F) -> StoreFuture<'a, T>
    where
        T: Send + 'static,
        F: FnOnce(&Connection) -> Result<T, StoreError> + Send + 'static,
    {
        let (conn, path) = (self.conn.clone(), self.path.clone());
        Box::pin(async move {
            tokio::task::spawn_blocking(move || {
                let mut conn = conn.lock().unwrap_or_else(PoisonError::into_inner);
                if conn.is_none() {
                    *conn = Some(Self::connect(&path)?);
                }
                match conn.as_ref() {
                    Some(conn) => work(conn),
                    None => Err(backend("the connection is not open")),
                }
            })
            .await
            .map_err(backend)?
        })
    }
}

fn sql(error: rusqlite::Error) -> StoreError {
    backend(error)
}

/// A row's columns, before the JSON and the status are checked.
struct RawRow {
    id: String,
    owner: Option<String>,
    tool: String,
    arguments: String,
    origin: String,
    idempotent: bool,
    status: String,
    status_message: Option<String>,
    created_ms: i64,
    updated_ms: i64,
    ttl_ms: Option<i64>,
    poll_interval_ms: Option<i64>,
    outcome: Option<String>,
    cancel_requested: bool,
    holder: Option<String>,
    lease_until_ms: i64,
    attempts: i64,
    input_requests: Option<String>,
    answers: Option<String>,
}

fn raw(row: &Row<'_>) -> rusqlite::Result<RawRow> {
    Ok(RawRow {
        id: row.get(0)?,
        owner: row.get(1)?,
        tool: row.get(2)?,
        arguments: row.get(3)?,
        origin: row.get(4)?,
        idempotent: row.get(5)?,
        status: row.get(6)?,
        status_message: row.get(7)?,
        created_ms: row.get(8)?,
        updated_ms: row.get(9)?,
        ttl_ms: row.get(10)?,
        poll_interval_ms: row.get(11)?,
        outcome: row.get(12)?,
        cancel_requested: row.get(13)?,
        holder: row.get(14)?,
        lease_until_ms: row.get(15)?,
        attempts: row.get(16)?,
        input_requests: row.get(17)?,
        answers: row.get(18)?,
    })
}

impl RawRow {
    fn record(self) -> Result<TaskRecord, StoreError> {
        let status = TaskStatus::parse(&self.status).ok_or_else(|| StoreError::Corrupt {
            store: "sqlite",
            id: self.id.clone(),
            what: format!("status {:?} is none of MCP's", self.status),
        })?;
        Ok(TaskRecord {
            arguments: read_json(STORE, &self.id, "arguments", Some(self.arguments))?
                .unwrap_or(Value::Null),
            origin: read_json(STORE, &self.id, "origin", Some(self.origin))?.unwrap_or(Value::Null),
            outcome: read_json(STORE, &self.id, "outcome", self.outcome)?,
            input_requests: read_object(STORE, &self.id, "input_requests", self.input_requests)?,
            answers: read_object(STORE, &self.id, "answers", self.answers)?,
            id: self.id,
            owner: self.owner,
            tool: self.tool,
            idempotent: self.idempotent,
            status,
            status_message: self.status_message,
            created_ms: unsigned(self.created_ms),
            updated_ms: unsigned(self.updated_ms),
            ttl_ms: self.ttl_ms.map(unsigned),
            poll_interval_ms: self.poll_interval_ms.map(unsigned),
            cancel_requested: self.cancel_requested,
            holder: self.holder,
            lease_until_ms: unsigned(self.lease_until_ms),
            attempts: u32::try_from(self.attempts).unwrap_or(u32::MAX),
        })
    }
}

fn records(rows: Vec<RawRow>) -> Result<Vec<TaskRecord>, StoreError> {
    rows.into_iter().map(RawRow::record).collect()
}

impl TaskStore for SqliteStore {
    fn kind(&self) -> &'static str {
        "sqlite"
    }

    fn create(&self, task: NewTask) -> StoreFuture<'_, ()> {
        self.with(move |conn| {
            let record = task.into_record();
            let inserted = conn
                .execute(
                    "INSERT INTO tasks (id, owner, tool, arguments, origin, idempotent, status, \
                     status_message, created_ms, updated_ms, ttl_ms, poll_interval_ms, holder, \
                     lease_until_ms, attempts) \
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?9, ?10, ?11, ?12, ?13, 1) \
                     ON CONFLICT (id) DO NOTHING",
                    params![
                        record.id,
                        record.owner,
                        record.tool,
                        record.arguments.to_string(),
                        record.origin.to_string(),
                        record.idempotent,
                        record.status.as_str(),
                        record.status_message,
                        ms(record.created_ms),
                        record.ttl_ms.map(ms),
                        record.poll_interval_ms.map(ms),
                        record.holder,
                        ms(record.lease_until_ms),
                    ],
                )
                .map_err(sql)?;
            if inserted == 0 {
                return Err(StoreError::Duplicate {
                    store: "sqlite",
                    id: record.id,
                });
            }
            Ok(())
        })
    }

    fn get<'a>(&'a self, id: &'a str, now_ms: u64) -> StoreFuture<'a, Option<TaskRecord>> {
        let id = id.to_owned();
        self.with(move |conn| {
            let row = conn
                .query_row(
                    &format!("SELECT {COLUMNS} FROM tasks WHERE id = :id AND {ALIVE}"),
                    rusqlite::named_params! {":id": id, ":now": ms(now_ms)},
                    raw,
                )
                .optional()
                .map_err(sql)?;
            row.map(RawRow::record).transpose()
        })
    }

    fn list(&self, filter: ListFilter, now_ms: u64) -> StoreFuture<'_, Vec<TaskRecord>> {
        self.with(move |conn| {
            let mut statement = conn
                .prepare(&format!(
                    "SELECT {COLUMNS} FROM tasks WHERE {ALIVE} ORDER BY created_ms DESC, id"
                ))
                .map_err(sql)?;
            let rows = statement
                .query_map(rusqlite::named_params! {":now": ms(now_ms)}, raw)
                .map_err(sql)?;
            let mut found = Vec::new();
            for row in rows {
                let record = row.map_err(sql)?.record()?;
                if filter.admits(&record) {
                    found.push(record);
                    if filter.limit.is_some_and(|limit| found.len() >= limit) {
                        break;
                    }
                }
            }
            Ok(found)
        })
    }

    fn renew<'a>(
        &'a self,
        id: &'a str,
        holder: &'a str,
        lease_until_ms: u64,
        status_message: Option<String>,
        now_ms: u64,
    ) -> StoreFuture<'a, Renewal> {
        let (id, holder) = (id.to_owned(), holder.to_owned());
        self.with(move |conn| {
            let cancel: Option<bool> = conn
                .query_row(
                    &format!(
                        "UPDATE tasks SET lease_until_ms = :lease, revision = revision + 1, \
                         updated_ms = CASE WHEN :message IS NOT NULL \
                             AND :message IS NOT status_message THEN :now ELSE updated_ms END, \
                         status_message = COALESCE(:message, status_message) \
                         WHERE id = :id AND holder = :holder AND {RUNNING} \
                         RETURNING cancel_requested"
                    ),
                    rusqlite::named_params! {
                        ":lease": ms(lease_until_ms),
                        ":message": status_message,
                        ":now": ms(now_ms),
                        ":id": id,
                        ":holder": holder,
                    },
                    |row| row.get(0),
                )
                .optional()
                .map_err(sql)?;
            Ok(match cancel {
                Some(cancel_requested) => Renewal::Held { cancel_requested },
                None => Renewal::Lost,
            })
        })
    }

    fn finish<'a>(&'a self, id: &'a str, holder: &'a str, ending: Ending) -> StoreFuture<'a, bool> {
        let (id, holder) = (id.to_owned(), holder.to_owned());
        self.with(move |conn| {
            let changed = conn
                .execute(
                    &format!(
                        "UPDATE tasks SET status = :status, \
                         status_message = COALESCE(:message, status_message), \
                         outcome = :outcome, updated_ms = :now, holder = NULL, \
                         revision = revision + 1 \
                         WHERE id = :id AND holder = :holder AND {RUNNING}"
                    ),
                    rusqlite::named_params! {
                        ":status": ending.status.as_str(),
                        ":message": ending.status_message,
                        ":outcome": ending.outcome.map(|o| o.to_string()),
                        ":now": ms(ending.now_ms),
                        ":id": id,
                        ":holder": holder,
                    },
                )
                .map_err(sql)?;
            Ok(changed == 1)
        })
    }

    fn wait_for_input<'a>(
        &'a self,
        id: &'a str,
        holder: &'a str,
        input: Input,
    ) -> StoreFuture<'a, bool> {
        let (id, holder) = (id.to_owned(), holder.to_owned());
        self.with(move |conn| {
            let changed = conn
                .execute(
                    &format!(
                        "UPDATE tasks SET status = 'input_required', input_requests = :requests, \
                         answers = :answers, status_message = COALESCE(:message, status_message), \
                         updated_ms = :now, holder = NULL, lease_until_ms = 0, \
                         revision = revision + 1 \
                         WHERE id = :id AND holder = :holder AND {RUNNING}"
                    ),
                    rusqlite::named_params! {
                        ":requests": object_text(&input.requests),
                        ":answers": object_text(&input.answers),
                        ":message": input.status_message,
                        ":now": ms(input.now_ms),
                        ":id": id,
                        ":holder": holder,
                    },
                )
                .map_err(sql)?;
            Ok(changed == 1)
        })
    }

    fn answer<'a>(
        &'a self,
        id: &'a str,
        responses: &'a Map<String, Value>,
        holder: &'a str,
        lease_until_ms: u64,
        now_ms: u64,
    ) -> StoreFuture<'a, Answered> {
        let (id, holder, responses) = (id.to_owned(), holder.to_owned(), responses.clone());
        self.with(move |conn| {
            // Read, decide in Rust, write if nothing changed in between (the revision), and
            // read again if something did: other processes may answer the same task.
            loop {
                let row = conn
                    .query_row(
                        &format!(
                            "SELECT {COLUMNS}, revision FROM tasks WHERE id = :id AND {ALIVE}"
                        ),
                        rusqlite::named_params! {":id": id, ":now": ms(now_ms)},
                        |row| Ok((raw(row)?, row.get::<_, i64>(19)?)),
                    )
                    .optional()
                    .map_err(sql)?;
                let Some((row, revision)) = row else {
                    return Ok(Answered::NotWaiting);
                };
                let record = row.record()?;
                let Some((answers, outstanding)) = record.with_responses(&responses) else {
                    return Ok(Answered::NotWaiting);
                };
                let resumed = outstanding.is_empty();
                let changed = conn
                    .execute(
                        "UPDATE tasks SET answers = :answers, input_requests = :requests, \
                         status = CASE WHEN :resumed THEN 'working' ELSE status END, \
                         updated_ms = CASE WHEN :resumed THEN :now ELSE updated_ms END, \
                         holder = CASE WHEN :resumed THEN :holder ELSE holder END, \
                         lease_until_ms = CASE WHEN :resumed THEN :lease ELSE lease_until_ms END, \
                         revision = revision + 1 \
                         WHERE id = :id AND revision = :revision",
                        rusqlite::named_params! {
                            ":answers": object_text(&answers),
                            ":requests": object_text(&outstanding),
                            ":resumed": resumed,
                            ":now": ms(now_ms),
                            ":holder": holder,
                            ":lease": ms(lease_until_ms),
                            ":id": id,
                            ":revision": revision,
                        },
                    )
                    .map_err(sql)?;
                if changed == 0 {
                    continue;
                }
                if !resumed {
                    return Ok(Answered::Partial {
                        outstanding: outstanding.keys().cloned().collect(),
                    });
                }
                let mut record = record;
                record.status = TaskStatus::Working;
                record.answers = answers;
                record.input_requests = Map::new();
                record.updated_ms = now_ms;
                record.holder = Some(holder);
                record.lease_until_ms = lease_until_ms;
                return Ok(Answered::Resumed(Box::new(record)));
            }
        })
    }

    fn request_cancel<'a>(&'a self, id: &'a str, now_ms: u64) -> StoreFuture<'a, bool> {
        let id = id.to_owned();
        self.with(move |conn| {
            // A task waiting for input has no holder to see the request: it ends here.
            let changed = conn
                .execute(
                    &format!(
                        "UPDATE tasks SET cancel_requested = 1, revision = revision + 1, \
                         status = CASE WHEN status = 'input_required' THEN 'cancelled' \
                             ELSE status END, \
                         status_message = CASE WHEN status = 'input_required' THEN :message \
                             ELSE status_message END, \
                         input_requests = CASE WHEN status = 'input_required' THEN NULL \
                             ELSE input_requests END, \
                         updated_ms = CASE WHEN status = 'input_required' THEN :now \
                             ELSE updated_ms END \
                         WHERE id = :id AND {RUNNING} AND {ALIVE}"
                    ),
                    rusqlite::named_params! {
                        ":id": id,
                        ":now": ms(now_ms),
                        ":message": CANCELLED_WAITING,
                    },
                )
                .map_err(sql)?;
            Ok(changed == 1)
        })
    }

    fn claim_expired<'a>(
        &'a self,
        holder: &'a str,
        now_ms: u64,
        lease_until_ms: u64,
        limit: usize,
    ) -> StoreFuture<'a, Vec<TaskRecord>> {
        let holder = holder.to_owned();
        self.with(move |conn| {
            // One statement: SQLite's write lock makes the choice and the take-over one step,
            // for every process on the file.
            let mut statement = conn
                .prepare(&format!(
                    "UPDATE tasks SET holder = :holder, lease_until_ms = :lease, \
                     attempts = attempts + 1, revision = revision + 1 \
                     WHERE id IN (SELECT id FROM tasks WHERE {RUNNING} AND status = 'working' \
                                  AND lease_until_ms < :now \
                                  ORDER BY created_ms, id LIMIT :limit) \
                     RETURNING {COLUMNS}"
                ))
                .map_err(sql)?;
            let rows = statement
                .query_map(
                    rusqlite::named_params! {
                        ":holder": holder,
                        ":lease": ms(lease_until_ms),
                        ":now": ms(now_ms),
                        ":limit": i64::try_from(limit).unwrap_or(i64::MAX),
                    },
                    raw,
                )
                .map_err(sql)?
                .collect::<rusqlite::Result<Vec<_>>>()
                .map_err(sql)?;
            let mut claimed = records(rows)?;
            // RETURNING gives rows in no set order.
            claimed.sort_by(|a, b| a.created_ms.cmp(&b.created_ms).then(a.id.cmp(&b.id)));
            Ok(claimed)
        })
    }

    fn release<'a>(&'a self, id: &'a str, holder: &'a str) -> StoreFuture<'a, bool> {
        let (id, holder) = (id.to_owned(), holder.to_owned());
        self.with(move |conn| {
            let changed = conn
                .execute(
                    &format!(
                        "UPDATE tasks SET lease_until_ms = 0, revision = revision + 1 \
                         WHERE id = :id AND holder = :holder AND {RUNNING}"
                    ),
                    rusqlite::named_params! {":id": id, ":holder": holder},
                )
                .map_err(sql)?;
            Ok(changed == 1)
        })
    }

    fn purge(&self, now_ms: u64) -> StoreFuture<'_, u64> {
        self.with(move |conn| {
            let removed = conn
                .execute(
                    "DELETE FROM tasks WHERE ttl_ms IS NOT NULL AND created_ms + ttl_ms <= :now",
                    rusqlite::named_params! {":now": ms(now_ms)},
                )
                .map_err(sql)?;
            Ok(removed as u64)
        })
    }
}
