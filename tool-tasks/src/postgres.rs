//! Tasks on a PostgreSQL server: the store several instances of a server share.
//!
//! A few connections per store, each opened at its first use and opened again after it breaks,
//! taken in turn: one connection runs its statements one after another, each commit waiting for
//! its own flush to disk, while commits on several connections share flushes (PostgreSQL's
//! group commit), so a burst of new tasks is written several times faster. Every operation is
//! one prepared statement,
//! so each conditional update is atomic on its own and the take-over of expired leases
//! (`FOR UPDATE SKIP LOCKED`) never gives one task to two instances. The connection has no TLS:
//! run the server on the same host or a private network, or put a TLS tunnel in between.

use std::sync::Arc;

use serde_json::{Map, Value};
use tokio::sync::Mutex;
use tokio_postgres::{Client, NoTls, Row, Statement};

use crate::columns::{ms, object_text, read_json, read_object, unsigned};
use crate::memory::CANCELLED_WAITING;
use crate::record::{
    Answered, Ending, Input, ListFilter, NewTask, Renewal, TaskRecord, TaskStatus,
};
use crate::store::{StoreError, StoreFuture, TaskStore};

/// How many connections a store opens at most.
const CONNECTIONS: usize = 4;

/// The store's name in messages.
const STORE: &str = "postgres";

/// The schema's version, kept in `tool_tasks_schema`: a database of a newer schema is refused.
const SCHEMA_VERSION: i32 = 1;

/// Any number, the same on every instance: the advisory lock that keeps two instances from
/// creating the schema at once.
const SCHEMA_LOCK: i64 = 0x746f_6f6c_7461_736b;

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS tool_tasks_schema (version INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS tool_tasks (
    id               TEXT PRIMARY KEY,
    owner            TEXT,
    tool             TEXT NOT NULL,
    arguments        TEXT NOT NULL,
    origin           TEXT NOT NULL,
    idempotent       BOOLEAN NOT NULL,
    status           TEXT NOT NULL,
    status_message   TEXT,
    created_ms       BIGINT NOT NULL,
    updated_ms       BIGINT NOT NULL,
    ttl_ms           BIGINT,
    poll_interval_ms BIGINT,
    outcome          TEXT,
    cancel_requested BOOLEAN NOT NULL DEFAULT FALSE,
    holder           TEXT,
    lease_until_ms   BIGINT NOT NULL,
    attempts         INTEGER NOT NULL DEFAULT 1,
    input_requests   TEXT,
    answers          TEXT,
    revision         BIGINT NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS tool_tasks_running ON tool_tasks (lease_until_ms)
    WHERE status IN ('working', 'input_required');
CREATE INDEX IF NOT EXISTS tool_tasks_created ON tool_tasks (created_ms);
";

const COLUMNS: &str = "id, owner, tool, arguments, origin, idempotent, status, status_message, \
     created_ms, updated_ms, ttl_ms, poll_interval_ms, outcome, cancel_requested, holder, \
     lease_until_ms, attempts, input_requests, answers";

/// Running, in SQL.
const RUNNING: &str = "status IN ('working', 'input_required')";

/// A [`TaskStore`] on a PostgreSQL server, in the table `tool_tasks` (created when missing) of
/// the database the connection string names.
///
/// The connection string is libpq's, either as a URL (`postgres://user:secret@host:5432/db`)
/// or as `key=value` pairs (`host=/run/postgresql dbname=tasks`).
///
/// ```no_run
/// use tool_tasks::{PostgresStore, TaskStore};
/// # async fn run() -> Result<(), tool_tasks::StoreError> {
/// let store = PostgresStore::connect("postgres://tasks@127.0.0.1/tasks").await?;
/// assert_eq!(store.kind(), "postgres");
/// assert!(store.get("no-such-task", 0).await?.is_none());
/// # Ok(()) }
/// ```
#[derive(Clone)]
pub struct PostgresStore {
    config: Arc<tokio_postgres::Config>,
    /// The connections, each `None` until connected and again after it broke.
    pool: Arc<[Mutex<Option<Arc<Connection>>>]>,
    /// The next connection to use.
    next: Arc<std::sync::atomic::AtomicUsize>,
    /// The connection string with any password left out, for messages.
    shown: Arc<str>,
}

impl std::fmt::Debug for PostgresStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PostgresStore")
            .field("server", &self.shown)
            .finish_non_exhaustive()
    }
}

/// A connection with the store's statements prepared on it.
struct Connection {
    client: Client,
    create: Statement,
    get: Statement,
    list: Statement,
    renew: Statement,
    finish: Statement,
    wait: Statement,
    read_revision: Statement,
    answer: Statement,
    cancel: Statement,
    claim: Statement,
    release: Statement,
    purge: Statement,
}

fn backend(message: impl Into<String>) -> StoreError {
    StoreError::Backend {
        store: "postgres",
        message: message.into(),
    }
}

/// What the server said, with its SQLSTATE, rather than tokio-postgres's bare "db error".
fn pg(error: tokio_postgres::Error) -> StoreError {
    match error.as_db_error() {
        Some(db) => backend(format!("{} (SQLSTATE {})", db.message(), db.code().code())),
        None => {
            let mut message = error.to_string();
            let mut source = std::error::Error::source(&error);
            while let Some(cause) = source {
                message.push_str(": ");
                message.push_str(&cause.to_string());
                source = cause.source();
            }
            backend(message)
        }
    }
}

impl PostgresStore {
    /// Connects to the server `url` names, creating the store's table when missing: fails
    /// with the reason when the server cannot be reached or refuses.
    pub async fn connect(url: &str) -> Result<Self, StoreError> {
        let store = Self::connect_lazily(url)?;
        store.connection().await?;
        Ok(store)
    }

    /// The store on the server `url` names, connected at its first operation: a server starts
    /// without waiting for the database. Only a connection string that cannot be read fails
    /// here; a server that cannot be reached fails each operation with the reason, until it
    /// can be.
    pub fn connect_lazily(url: &str) -> Result<Self, StoreError> {
        let config: tokio_postgres::Config = url
            .parse()
            .map_err(|e| backend(format!("cannot read the connection string: {e}")))?;
        Ok(Self {
            shown: shown(&config).into(),
            config: Arc::new(config),
            pool: (0..CONNECTIONS).map(|_| Mutex::new(None)).collect(),
            next: Arc::default(),
        })
    }

    /// The server and database, as messages show them (no password).
    pub fn server(&self) -> &str {
        &self.shown
    }

    /// The next connection in turn, opened when there is none or it broke.
    async fn connection(&self) -> Result<Arc<Connection>, StoreError> {
        let at = self.next.fetch_add(1, std::sync::atomic::Ordering::Relaxed) % self.pool.len();
        let mut conn = self.pool[at].lock().await;
        if let Some(open) = conn.as_ref().filter(|c| !c.client.is_closed()) {
            return Ok(open.clone());
        }
        let open = Arc::new(Connection::open(&self.config).await.map_err(|e| match e {
            StoreError::Backend { message, .. } => backend(format!("{}: {message}", self.shown)),
            other => other,
        })?);
        *conn = Some(open.clone());
        Ok(open)
    }

    /// Runs `work` on the connection.
    fn with<'a, T, F, Fut>(&'a self, work: F) -> StoreFuture<'a, T>
    where
        T: Send + 'a,
        F: FnOnce(Arc<Connection>) -> Fut + Send + 'a,
        Fut: Future<Output = Result<T, StoreError>> + Send + 'a,
    {
        Box::pin(async move { work(self.connection().await?).await })
    }
}

/// `user@host:port/dbname` of a connection string.
fn shown(config: &tokio_postgres::Config) -> String {
    use tokio_postgres::config::Host;
    let host = match config.get_hosts().first() {
        Some(Host::Tcp(host)) => host.clone(),
        Some(Host::Unix(path)) => path.display().to_string(),
        None => "localhost".to_owned(),
    };
    let port = config.get_ports().first().copied().unwrap_or(5432);
    format!(
        "postgres://{}@{host}:{port}/{}",
        config.get_user().unwrap_or(""),
        config.get_dbname().unwrap_or("")
    )
}

impl Connection {
    async fn open(config: &tokio_postgres::Config) -> Result<Self, StoreError> {
        let (mut client, connection) = config.connect(NoTls).await.map_err(pg)?;
        // The connection's I/O runs on its own task; it ends (and the client reports closed)
        // when the server goes away, and the next operation connects again.
        tokio::spawn(connection);
        Self::prepare_schema(&mut client).await?;
        let alive = "(ttl_ms IS NULL OR created_ms + ttl_ms > $2)";
        let running = RUNNING;
        let prepare = async |sql: String| client.prepare(&sql).await.map_err(pg);
        Ok(Self {
            create: prepare(
                "INSERT INTO tool_tasks (id, owner, tool, arguments, origin, idempotent, status, \
                 status_message, created_ms, updated_ms, ttl_ms, poll_interval_ms, holder, \
                 lease_until_ms, attempts) \
                 VALUES ($1, $2, $3, $4, $5, $6, 'working', $7, $8, $8, $9, $10, $11, $12, 1) \
                 ON CONFLICT (id) DO NOTHING"
                    .to_owned(),
            )
            .await?,
            get: prepare(format!(
                "SELECT {COLUMNS} FROM tool_tasks WHERE id = $1 AND {alive}"
            ))
            .await?,
            list: prepare(format!(
                "SELECT {COLUMNS} FROM tool_tasks WHERE \
                 (ttl_ms IS NULL OR created_ms + ttl_ms > $1) \
                 AND (cardinality($2::text[]) = 0 OR status = ANY($2::text[])) \
                 AND ($3::text IS NULL OR tool = $3::text) \
                 ORDER BY created_ms DESC, id COLLATE \"C\" LIMIT $4::bigint"
            ))
            .await?,
            renew: prepare(format!(
                "UPDATE tool_tasks SET lease_until_ms = $3, revision = revision + 1, \
                 updated_ms = CASE WHEN $4::text IS NOT NULL \
                     AND $4::text IS DISTINCT FROM status_message THEN $5 ELSE updated_ms END, \
                 status_message = COALESCE($4::text, status_message) \
                 WHERE id = $1 AND holder = $2 AND {running} \
                 RETURNING cancel_requested"
            ))
            .await?,
            finish: prepare(format!(
                "UPDATE tool_tasks SET status = $3, \
                 status_message = COALESCE($4::text, status_message), \
                 outcome = $5, updated_ms = $6, holder = NULL, revision = revision + 1 \
                 WHERE id = $1 AND holder = $2 AND {running}"
            ))
            .await?,
            wait: prepare(format!(
                "UPDATE tool_tasks SET status = 'input_required', input_requests = $3, \
                 answers = $4, status_message = COALESCE($5::text, status_message), \
                 updated_ms = $6, holder = NULL, lease_until_ms = 0, revision = revision + 1 \
                 WHERE id = $1 AND holder = $2 AND {running}"
            ))
            .await?,
            read_revision: prepare(format!(
                "SELECT {COLUMNS}, revision FROM tool_tasks WHERE id = $1 AND {alive}"
            ))
            .await?,
            answer: prepare(
                "UPDATE tool_tasks SET answers = $3, input_requests = $4, \
                 status = CASE WHEN $5 THEN 'working' ELSE status END, \
                 updated_ms = CASE WHEN $5 THEN $6 ELSE updated_ms END, \
                 holder = CASE WHEN $5 THEN $7 ELSE holder END, \
                 lease_until_ms = CASE WHEN $5 THEN $8 ELSE lease_until_ms END, \
                 revision = revision + 1 \
                 WHERE id = $1 AND revision = $2"
                    .to_owned(),
            )
            .await?,
            // A task waiting for input has no holder to see the request: it ends here.
            cancel: prepare(format!(
                "UPDATE tool_tasks SET cancel_requested = TRUE, revision = revision + 1, \
                 status = CASE WHEN status = 'input_required' THEN 'cancelled' ELSE status END, \
                 status_message = CASE WHEN status = 'input_required' THEN $3 \
                     ELSE status_message END, \
                 input_requests = CASE WHEN status = 'input_required' THEN NULL \
                     ELSE input_requests END, \
                 updated_ms = CASE WHEN status = 'input_required' THEN $2 ELSE updated_ms END \
                 WHERE id = $1 AND {running} AND {alive}"
            ))
            .await?,
            // SKIP LOCKED: two instances claiming at once each take other rows, and a row a
            // holder is renewing right now is left for the next sweep. The choice is a
            // materialised CTE: as `id IN (subquery)`, PostgreSQL may run the subquery again
            // and take more than `limit` rows.
            claim: prepare(format!(
                "WITH due AS MATERIALIZED (\
                     SELECT id AS due_id FROM tool_tasks \
                     WHERE {running} AND status = 'working' AND lease_until_ms < $2 \
                     ORDER BY created_ms, id COLLATE \"C\" LIMIT $4 FOR UPDATE SKIP LOCKED) \
                 UPDATE tool_tasks SET holder = $1, lease_until_ms = $3, \
                 attempts = attempts + 1, revision = revision + 1 \
                 FROM due WHERE id = due.due_id \
                 RETURNING {COLUMNS}"
            ))
            .await?,
            release: prepare(format!(
                "UPDATE tool_tasks SET lease_until_ms = 0, revision = revision + 1 \
                 WHERE id = $1 AND holder = $2 AND {running}"
            ))
            .await?,
            purge: prepare(
                "DELETE FROM tool_tasks WHERE ttl_ms IS NOT NULL AND created_ms + ttl_ms <= $1"
                    .to_owned(),
            )
            .await?,
            client,
        })
    }

    /// Creates the tables when missing, under an advisory lock (instances starting together
    /// would otherwise race in `CREATE TABLE IF NOT EXISTS`), and refuses a newer schema.
    async fn prepare_schema(client: &mut Client) -> Result<(), StoreError> {
        let tx = client.transaction().await.map_err(pg)?;
        tx.execute("SELECT pg_advisory_xact_lock($1)", &[&SCHEMA_LOCK])
            .await
            .map_err(pg)?;
        tx.batch_execute(SCHEMA).await.map_err(pg)?;
        let version: Option<i32> = tx
            .query_opt("SELECT max(version) FROM tool_tasks_schema", &[])
            .await
            .map_err(pg)?
            .and_then(|row| row.get(0));
        match version {
            Some(version) if version > SCHEMA_VERSION => {
                return Err(backend(format!(
                    "the database holds tasks of schema version {version}, newer than this \
                     program's {SCHEMA_VERSION}"
                )));
            }
            Some(_) => {}
            None => {
                tx.execute(
                    "INSERT INTO tool_tasks_schema (version) VALUES ($1)",
                    &[&SCHEMA_VERSION],
                )
                .await
                .map_err(pg)?;
            }
        }
        tx.commit().await.map_err(pg)
    }
}

fn record(row: &Row) -> Result<TaskRecord, StoreError> {
    let id: String = row.try_get(0).map_err(pg)?;
    let status: String = row.try_get(6).map_err(pg)?;
    let status = TaskStatus::parse(&status).ok_or_else(|| StoreError::Corrupt {
        store: "postgres",
        id: id.clone(),
        what: format!("status {status:?} is none of MCP's"),
    })?;
    let text = |i: usize| row.try_get::<_, Option<String>>(i).map_err(pg);
    let big = |i: usize| row.try_get::<_, Option<i64>>(i).map_err(pg);
    let bool_at = |i: usize| row.try_get::<_, bool>(i).map_err(pg);
    Ok(TaskRecord {
        owner: text(1)?,
        tool: row.try_get(2).map_err(pg)?,
        arguments: read_json(STORE, &id, "arguments", text(3)?)?.unwrap_or(Value::Null),
        origin: read_json(STORE, &id, "origin", text(4)?)?.unwrap_or(Value::Null),
        idempotent: bool_at(5)?,
        status,
        status_message: text(7)?,
        created_ms: big(8)?.map_or(0, unsigned),
        updated_ms: big(9)?.map_or(0, unsigned),
        ttl_ms: big(10)?.map(unsigned),
        poll_interval_ms: big(11)?.map(unsigned),
        outcome: read_json(STORE, &id, "outcome", text(12)?)?,
        input_requests: read_object(STORE, &id, "input_requests", text(17)?)?,
        answers: read_object(STORE, &id, "answers", text(18)?)?,
        cancel_requested: bool_at(13)?,
        holder: text(14)?,
        lease_until_ms: big(15)?.map_or(0, unsigned),
        attempts: u32::try_from(row.try_get::<_, i32>(16).map_err(pg)?).unwrap_or(0),
        id,
    })
}

impl TaskStore for PostgresStore {
    fn kind(&self) -> &'static str {
        "postgres"
    }

    fn create(&self, task: NewTask) -> StoreFuture<'_, ()> {
        self.with(async move |conn| {
            let inserted = conn
                .client
                .execute(
                    &conn.create,
                    &[
                        &task.id,
                        &task.owner,
                        &task.tool,
                        &task.arguments.to_string(),
                        &task.origin.to_string(),
                        &task.idempotent,
                        &task.status_message,
                        &ms(task.now_ms),
                        &task.ttl_ms.map(ms),
                        &task.poll_interval_ms.map(ms),
                        &task.holder,
                        &ms(task.lease_until_ms),
                    ],
                )
                .await
                .map_err(pg)?;
            if inserted == 0 {
                return Err(StoreError::Duplicate {
                    store: "postgres",
                    id: task.id,
                });
            }
            Ok(())
        })
    }

    fn get<'a>(&'a self, id: &'a str, now_ms: u64) -> StoreFuture<'a, Option<TaskRecord>> {
        self.with(async move |conn| {
            let row = conn
                .client
                .query_opt(&conn.get, &[&id, &ms(now_ms)])
                .await
                .map_err(pg)?;
            row.as_ref().map(record).transpose()
        })
    }

    fn list(&self, filter: ListFilter, now_ms: u64) -> StoreFuture<'_, Vec<TaskRecord>> {
        self.with(async move |conn| {
            let statuses: Vec<&str> = filter.statuses.iter().map(|s| s.as_str()).collect();
            let limit = filter.limit.map(|l| i64::try_from(l).unwrap_or(i64::MAX));
            let rows = conn
                .client
                .query(&conn.list, &[&ms(now_ms), &statuses, &filter.tool, &limit])
                .await
                .map_err(pg)?;
            rows.iter().map(record).collect()
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
        self.with(async move |conn| {
            let row = conn
                .client
                .query_opt(
                    &conn.renew,
                    &[
                        &id,
                        &holder,
                        &ms(lease_until_ms),
                        &status_message,
                        &ms(now_ms),
                    ],
                )
                .await
                .map_err(pg)?;
            Ok(match row {
                Some(row) => Renewal::Held {
                    cancel_requested: row.try_get(0).map_err(pg)?,
                },
                None => Renewal::Lost,
            })
        })
    }

    fn finish<'a>(&'a self, id: &'a str, holder: &'a str, ending: Ending) -> StoreFuture<'a, bool> {
        self.with(async move |conn| {
            let changed = conn
                .client
                .execute(
                    &conn.finish,
                    &[
                        &id,
                        &holder,
                        &ending.status.as_str(),
                        &ending.status_message,
                        &ending.outcome.map(|o| o.to_string()),
                        &ms(ending.now_ms),
                    ],
                )
                .await
                .map_err(pg)?;
            Ok(changed == 1)
        })
    }

    fn wait_for_input<'a>(
        &'a self,
        id: &'a str,
        holder: &'a str,
        input: Input,
    ) -> StoreFuture<'a, bool> {
        self.with(async move |conn| {
            let changed = conn
                .client
                .execute(
                    &conn.wait,
                    &[
                        &id,
                        &holder,
                        &object_text(&input.requests),
                        &object_text(&input.answers),
                        &input.status_message,
                        &ms(input.now_ms),
                    ],
                )
                .await
                .map_err(pg)?;
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
        self.with(async move |conn| {
            // Read, decide in Rust, write if nothing changed in between (the revision), and
            // read again if something did: other instances may answer the same task.
            loop {
                let row = conn
                    .client
                    .query_opt(&conn.read_revision, &[&id, &ms(now_ms)])
                    .await
                    .map_err(pg)?;
                let Some(row) = row else {
                    return Ok(Answered::NotWaiting);
                };
                let revision: i64 = row.try_get(19).map_err(pg)?;
                let mut record = record(&row)?;
                let Some((answers, outstanding)) = record.with_responses(responses) else {
                    return Ok(Answered::NotWaiting);
                };
                let resumed = outstanding.is_empty();
                let changed = conn
                    .client
                    .execute(
                        &conn.answer,
                        &[
                            &id,
                            &revision,
                            &object_text(&answers),
                            &object_text(&outstanding),
                            &resumed,
                            &ms(now_ms),
                            &holder,
                            &ms(lease_until_ms),
                        ],
                    )
                    .await
                    .map_err(pg)?;
                if changed == 0 {
                    continue;
                }
                if !resumed {
                    return Ok(Answered::Partial {
                        outstanding: outstanding.keys().cloned().collect(),
                    });
                }
                record.status = TaskStatus::Working;
                record.answers = answers;
                record.input_requests = Map::new();
                record.updated_ms = now_ms;
                record.holder = Some(holder.to_owned());
                record.lease_until_ms = lease_until_ms;
                return Ok(Answered::Resumed(Box::new(record)));
            }
        })
    }

    fn request_cancel<'a>(&'a self, id: &'a str, now_ms: u64) -> StoreFuture<'a, bool> {
        self.with(async move |conn| {
            let changed = conn
                .client
                .execute(&conn.cancel, &[&id, &ms(now_ms), &CANCELLED_WAITING])
                .await
                .map_err(pg)?;
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
        self.with(async move |conn| {
            let limit = i64::try_from(limit).unwrap_or(i64::MAX);
            let rows = conn
                .client
                .query(
                    &conn.claim,
                    &[&holder, &ms(now_ms), &ms(lease_until_ms), &limit],
                )
                .await
                .map_err(pg)?;
            let mut claimed = rows.iter().map(record).collect::<Result<Vec<_>, _>>()?;
            // RETURNING gives rows in no set order.
            claimed.sort_by(|a, b| a.created_ms.cmp(&b.created_ms).then(a.id.cmp(&b.id)));
            Ok(claimed)
        })
    }

    fn release<'a>(&'a self, id: &'a str, holder: &'a str) -> StoreFuture<'a, bool> {
        self.with(async move |conn| {
            let changed = conn
                .client
                .execute(&conn.release, &[&id, &holder])
                .await
                .map_err(pg)?;
            Ok(changed == 1)
        })
    }

    fn purge(&self, now_ms: u64) -> StoreFuture<'_, u64> {
        self.with(async move |conn| {
            conn.client
                .execute(&conn.purge, &[&ms(now_ms)])
                .await
                .map_err(pg)
        })
    }
}
