//! Every store keeps the same rules: the same suite runs on each, and a property test holds the
//! SQLite store and the PostgreSQL store (SQL run by each) to the memory store (the rules
//! written out in Rust) over generated sequences of operations from several instances.
//!
//! The PostgreSQL tests (feature `postgres`) need a server: `scripts/postgres-env` starts one
//! on 127.0.0.1:54329, or `TOOL_TASKS_POSTGRES` names another. Each test works in a schema of
//! its own, so tests run side by side and a run leaves the database as it found it.

use std::sync::Arc;

use proptest::prelude::*;
use serde_json::json;
use serde_json::{Map, Value};
use tool_tasks::{
    Answered, Ending, Input, ListFilter, MemoryStore, NewTask, Renewal, SqliteStore, TaskStatus,
    TaskStore,
};

fn new_task(id: &str, holder: &str, now_ms: u64, ttl_ms: Option<u64>, idempotent: bool) -> NewTask {
    NewTask {
        id: id.into(),
        owner: Some(format!("owner-of-{id}")),
        tool: if idempotent {
            "wait_duration"
        } else {
            "send_mail"
        }
        .into(),
        arguments: json!({"id": id, "n": [1, 2.5, null, "é"]}),
        origin: json!({"subject": "user-7", "scopes": ["a", "b"]}),
        idempotent,
        status_message: None,
        now_ms,
        ttl_ms,
        poll_interval_ms: Some(500),
        holder: holder.into(),
        lease_until_ms: now_ms + 1_000,
    }
}

fn ending(status: TaskStatus, now_ms: u64) -> Ending {
    Ending {
        status,
        status_message: Some(format!("ended {status}")),
        outcome: match status {
            TaskStatus::Completed => Some(json!({"content": [{"type": "text", "text": "ok"}]})),
            TaskStatus::Failed => Some(json!({"code": -32603, "message": "it broke"})),
            _ => None,
        },
        now_ms,
    }
}

fn sqlite() -> (tempfile::TempDir, SqliteStore) {
    let dir = tempfile::tempdir().unwrap();
    let store = SqliteStore::open(dir.path().join("nested/dir/tasks.sqlite3")).unwrap();
    (dir, store)
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

/// The rules every store keeps.
async fn suite(store: &dyn TaskStore) {
    store
        .create(new_task("a", "one", 1_000, Some(10_000), true))
        .await
        .unwrap();
    let dup = store
        .create(new_task("a", "two", 1_000, None, true))
        .await
        .unwrap_err();
    assert!(dup.to_string().contains("exists already"), "{dup}");

    let got = store.get("a", 1_500).await.unwrap().unwrap();
    assert_eq!(got.status, TaskStatus::Working);
    assert_eq!(got.holder.as_deref(), Some("one"));
    assert_eq!(got.arguments, json!({"id": "a", "n": [1, 2.5, null, "é"]}));
    assert_eq!(got.attempts, 1);
    assert_eq!(got.updated_ms, 1_000);

    // Only the holder renews; a message changes updated_ms, the same message again does not.
    assert_eq!(
        store.renew("a", "two", 9_999, None, 1_600).await.unwrap(),
        Renewal::Lost
    );
    assert_eq!(
        store
            .renew("a", "one", 3_000, Some("half".into()), 1_700)
            .await
            .unwrap(),
        Renewal::Held {
            cancel_requested: false
        }
    );
    store
        .renew("a", "one", 3_000, Some("half".into()), 1_800)
        .await
        .unwrap();
    let got = store.get("a", 1_900).await.unwrap().unwrap();
    assert_eq!(
        (
            got.status_message.as_deref(),
            got.updated_ms,
            got.lease_until_ms
        ),
        (Some("half"), 1_700, 3_000)
    );

    // Cancellation is seen at the next renewal.
    assert!(store.request_cancel("a", 2_000).await.unwrap());
    assert!(!store.request_cancel("nope", 2_000).await.unwrap());
    assert_eq!(
        store.renew("a", "one", 4_000, None, 2_100).await.unwrap(),
        Renewal::Held {
            cancel_requested: true
        }
    );

    // One ending, by the holder only.
    assert!(
        !store
            .finish("a", "two", ending(TaskStatus::Completed, 2_200))
            .await
            .unwrap()
    );
    assert!(
        store
            .finish("a", "one", ending(TaskStatus::Cancelled, 2_200))
            .await
            .unwrap()
    );
    assert!(
        !store
            .finish("a", "one", ending(TaskStatus::Completed, 2_300))
            .await
            .unwrap()
    );
    let got = store.get("a", 2_400).await.unwrap().unwrap();
    assert_eq!(got.status, TaskStatus::Cancelled);
    assert_eq!(got.holder, None);
    assert_eq!(got.outcome, None);
    assert!(!store.request_cancel("a", 2_500).await.unwrap());
    assert_eq!(
        store.renew("a", "one", 9_000, None, 2_500).await.unwrap(),
        Renewal::Lost
    );

    // Expired leases are taken over once, oldest first; released ones at once.
    store
        .create(new_task("b", "one", 3_000, None, true))
        .await
        .unwrap();
    store
        .create(new_task("c", "one", 3_100, None, false))
        .await
        .unwrap();
    store
        .create(new_task("d", "two", 3_200, None, false))
        .await
        .unwrap();
    assert!(
        store
            .claim_expired("three", 3_500, 9_000, 10)
            .await
            .unwrap()
            .is_empty()
    );
    let claimed = store
        .claim_expired("three", 4_150, 9_000, 10)
        .await
        .unwrap();
    let ids: Vec<&str> = claimed.iter().map(|t| t.id.as_str()).collect();
    assert_eq!(ids, ["b", "c"]);
    assert!(
        claimed
            .iter()
            .all(|t| t.attempts == 2 && t.holder.as_deref() == Some("three"))
    );
    assert!(
        store
            .claim_expired("four", 4_150, 9_000, 10)
            .await
            .unwrap()
            .is_empty()
    );
    assert!(store.release("d", "two").await.unwrap());
    assert!(!store.release("d", "one").await.unwrap());
    let claimed = store.claim_expired("four", 4_160, 9_000, 1).await.unwrap();
    assert_eq!(claimed.len(), 1);
    assert_eq!(claimed[0].id, "d");
    // The old holder has lost it.
    assert_eq!(
        store.renew("d", "two", 9_000, None, 4_200).await.unwrap(),
        Renewal::Lost
    );
    assert!(
        store
            .finish("c", "three", ending(TaskStatus::Failed, 4_300))
            .await
            .unwrap()
    );
    let failed = store.get("c", 4_400).await.unwrap().unwrap();
    assert_eq!(
        failed.outcome,
        Some(json!({"code": -32603, "message": "it broke"}))
    );

    // Listing: newest first, filtered, limited.
    let all = store.list(ListFilter::default(), 5_000).await.unwrap();
    let ids: Vec<&str> = all.iter().map(|t| t.id.as_str()).collect();
    assert_eq!(ids, ["d", "c", "b", "a"]);
    let running = store
        .list(
            ListFilter {
                statuses: vec![TaskStatus::Working],
                tool: None,
                limit: Some(1),
            },
            5_000,
        )
        .await
        .unwrap();
    assert_eq!(running.len(), 1);
    assert_eq!(running[0].id, "d");

    // Past its time to live, a task is gone from get and list, and purge removes it.
    assert!(store.get("a", 11_000).await.unwrap().is_none());
    assert_eq!(
        store
            .list(ListFilter::default(), 11_000)
            .await
            .unwrap()
            .len(),
        3
    );
    assert_eq!(store.purge(11_000).await.unwrap(), 1);
    assert_eq!(store.purge(11_000).await.unwrap(), 0);
}

fn object(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(map) => map,
        other => panic!("not an object: {other}"),
    }
}

/// A task whose run asks the client, and the answers that bring it back.
async fn input_suite(store: &dyn TaskStore) {
    store
        .create(new_task("q", "one", 1_000, Some(100_000), false))
        .await
        .unwrap();
    let asked = Input {
        requests: object(json!({
            "elicitation-1": {"method": "elicitation/create", "params": {"message": "Name?"}},
            "sampling-2": {"method": "sampling/createMessage", "params": {"maxTokens": 9}},
        })),
        answers: object(json!({"elicitation-0": {"action": "accept", "content": {"n": 1}}})),
        status_message: Some("waiting for the name".into()),
        now_ms: 1_500,
    };
    // Only the holder puts it to wait.
    assert!(
        !store
            .wait_for_input("q", "two", asked.clone())
            .await
            .unwrap()
    );
    assert!(
        store
            .wait_for_input("q", "one", asked.clone())
            .await
            .unwrap()
    );
    assert!(
        !store
            .wait_for_input("q", "one", asked.clone())
            .await
            .unwrap()
    );
    let got = store.get("q", 1_600).await.unwrap().unwrap();
    assert_eq!(got.status, TaskStatus::InputRequired);
    assert_eq!(got.input_requests, asked.requests);
    assert_eq!(got.answers, asked.answers);
    assert_eq!(got.status_message.as_deref(), Some("waiting for the name"));
    assert_eq!((got.holder, got.updated_ms), (None, 1_500));
    // Nothing runs it: no renewal, no ending, no take-over however late.
    assert_eq!(
        store.renew("q", "one", 9_000, None, 1_700).await.unwrap(),
        Renewal::Lost
    );
    assert!(
        !store
            .finish("q", "one", ending(TaskStatus::Completed, 1_700))
            .await
            .unwrap()
    );
    assert!(
        store
            .claim_expired("three", 90_000, 99_000, 10)
            .await
            .unwrap()
            .is_empty()
    );

    // Answers to other keys are ignored; a partial answer keeps the task waiting.
    let partial = object(json!({
        "elicitation-1": {"action": "accept", "content": {"name": "Ada"}},
        "never-asked": 1,
    }));
    assert_eq!(
        store
            .answer("q", &partial, "two", 9_000, 2_000)
            .await
            .unwrap(),
        Answered::Partial {
            outstanding: vec!["sampling-2".into()]
        }
    );
    let got = store.get("q", 2_100).await.unwrap().unwrap();
    assert_eq!(got.status, TaskStatus::InputRequired);
    assert_eq!(
        got.input_requests.keys().collect::<Vec<_>>(),
        ["sampling-2"]
    );
    assert_eq!(got.answers.len(), 2);
    assert_eq!(got.updated_ms, 1_500);
    // The last answer resumes it, held by the instance that gave it.
    let rest = object(json!({"sampling-2": {"role": "assistant"}}));
    let Answered::Resumed(resumed) = store.answer("q", &rest, "two", 9_000, 2_200).await.unwrap()
    else {
        panic!("every question has its answer");
    };
    assert_eq!(resumed.status, TaskStatus::Working);
    assert_eq!(resumed.holder.as_deref(), Some("two"));
    assert_eq!((resumed.lease_until_ms, resumed.updated_ms), (9_000, 2_200));
    assert!(resumed.input_requests.is_empty());
    assert_eq!(
        resumed.answers.keys().collect::<Vec<_>>(),
        ["elicitation-0", "elicitation-1", "sampling-2"]
    );
    assert_eq!(*resumed, store.get("q", 2_300).await.unwrap().unwrap());
    // A late answer finds it running.
    assert_eq!(
        store
            .answer("q", &rest, "three", 9_000, 2_400)
            .await
            .unwrap(),
        Answered::NotWaiting
    );
    assert_eq!(
        store
            .answer("nope", &rest, "three", 9_000, 2_400)
            .await
            .unwrap(),
        Answered::NotWaiting
    );

    // Cancelling a waiting task ends it at once.
    assert!(store.wait_for_input("q", "two", asked).await.unwrap());
    assert!(store.request_cancel("q", 2_500).await.unwrap());
    let got = store.get("q", 2_600).await.unwrap().unwrap();
    assert_eq!(got.status, TaskStatus::Cancelled);
    assert!(got.input_requests.is_empty());
    assert_eq!(got.updated_ms, 2_500);
    assert!(!store.request_cancel("q", 2_700).await.unwrap());
}

#[test]
fn memory_store_keeps_the_rules() {
    runtime().block_on(suite(&MemoryStore::new()));
    runtime().block_on(input_suite(&MemoryStore::new()));
}

#[test]
fn sqlite_store_keeps_the_rules() {
    let (_dir, store) = sqlite();
    runtime().block_on(suite(&store));
    let (_dir, store) = sqlite();
    runtime().block_on(input_suite(&store));
}

/// A file of schema 1 (before tasks waited for input) is brought up to date, its tasks kept.
#[test]
fn sqlite_brings_a_file_of_schema_1_up_to_date() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("tasks.sqlite3");
    let conn = rusqlite::Connection::open(&path).unwrap();
    conn.execute_batch(
        "CREATE TABLE tasks (id TEXT PRIMARY KEY, owner TEXT, tool TEXT NOT NULL, \
         arguments TEXT NOT NULL, origin TEXT NOT NULL, idempotent INTEGER NOT NULL, \
         status TEXT NOT NULL, status_message TEXT, created_ms INTEGER NOT NULL, \
         updated_ms INTEGER NOT NULL, ttl_ms INTEGER, poll_interval_ms INTEGER, outcome TEXT, \
         cancel_requested INTEGER NOT NULL DEFAULT 0, holder TEXT, \
         lease_until_ms INTEGER NOT NULL, attempts INTEGER NOT NULL DEFAULT 1); \
         INSERT INTO tasks VALUES ('old', NULL, 'wait_duration', '{}', 'null', 1, 'working', \
         NULL, 1000, 1000, NULL, 500, NULL, 0, 'gone', 2000, 1); \
         PRAGMA user_version = 1;",
    )
    .unwrap();
    drop(conn);
    let store = SqliteStore::open(&path).unwrap();
    runtime().block_on(async {
        let old = store.get("old", 3_000).await.unwrap().unwrap();
        assert_eq!(
            (old.tool.as_str(), old.status),
            ("wait_duration", TaskStatus::Working)
        );
        assert!(old.answers.is_empty());
        // Its writer is gone: taken over as any task of schema 2 would be.
        let claimed = store.claim_expired("new", 3_000, 9_000, 10).await.unwrap();
        assert_eq!(claimed.len(), 1);
        assert!(
            store
                .finish("old", "new", ending(TaskStatus::Completed, 3_100))
                .await
                .unwrap()
        );
        input_suite(&store).await;
    });
    let version: i64 = rusqlite::Connection::open(&path)
        .unwrap()
        .pragma_query_value(None, "user_version", |row| row.get(0))
        .unwrap();
    assert_eq!(version, 2);
}

#[test]
fn sqlite_tasks_outlive_the_store_that_wrote_them() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("tasks.sqlite3");
    let rt = runtime();
    rt.block_on(async {
        let store = SqliteStore::open(&path).unwrap();
        store
            .create(new_task("kept", "gone", 1_000, None, true))
            .await
            .unwrap();
        store
            .create(new_task("done", "gone", 1_000, None, true))
            .await
            .unwrap();
        store
            .finish("done", "gone", ending(TaskStatus::Completed, 1_100))
            .await
            .unwrap();
    });
    rt.block_on(async {
        let store = SqliteStore::open(&path).unwrap();
        assert_eq!(
            store.get("done", 2_000).await.unwrap().unwrap().status,
            TaskStatus::Completed
        );
        // The writer stopped: its running task is found by its expired lease.
        let claimed = store.claim_expired("next", 2_001, 5_000, 10).await.unwrap();
        assert_eq!(claimed.len(), 1);
        assert_eq!(claimed[0].id, "kept");
    });
}

#[test]
fn sqlite_refuses_a_file_from_a_newer_schema_and_one_that_is_no_database() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("tasks.sqlite3");
    drop(SqliteStore::open(&path).unwrap());
    rusqlite::Connection::open(&path)
        .unwrap()
        .pragma_update(None, "user_version", 99)
        .unwrap();
    let error = SqliteStore::open(&path).unwrap_err().to_string();
    assert!(error.contains("schema version 99"), "{error}");
    assert!(error.contains("tasks.sqlite3"), "{error}");

    // Opened lazily, the same refusal comes with the first operation.
    let lazy = SqliteStore::open_lazily(&path);
    let error = runtime()
        .block_on(lazy.get("x", 0))
        .unwrap_err()
        .to_string();
    assert!(error.contains("schema version 99"), "{error}");

    let junk = dir.path().join("junk.sqlite3");
    std::fs::write(
        &junk,
        b"this is not a database, it is a text file\n".repeat(100),
    )
    .unwrap();
    let error = SqliteStore::open(&junk).unwrap_err().to_string();
    assert!(error.contains("junk.sqlite3"), "{error}");
}

/// A PostgreSQL store in a schema of its own, dropped with it.
#[cfg(feature = "postgres")]
mod pg {
    use std::sync::atomic::{AtomicUsize, Ordering};

    use tool_tasks::PostgresStore;

    /// The server the tests use.
    pub fn url() -> String {
        std::env::var("TOOL_TASKS_POSTGRES")
            .unwrap_or_else(|_| "postgres://tool_tasks@127.0.0.1:54329/tool_tasks".to_owned())
    }

    pub struct Schema {
        name: String,
    }

    impl Schema {
        pub fn name(&self) -> &str {
            &self.name
        }
    }

    async fn admin() -> tokio_postgres::Client {
        let url = url();
        let (client, connection) = match tokio_postgres::connect(&url, tokio_postgres::NoTls).await
        {
            Ok(pair) => pair,
            Err(error) => panic!(
                "these tests need a PostgreSQL server at {url} ({error}); start one with \
                 `scripts/postgres-env` (it installs Debian's postgresql as root), or set \
                 TOOL_TASKS_POSTGRES to another server's connection string"
            ),
        };
        tokio::spawn(connection);
        client
    }

    /// A store on the test server, in a new schema.
    pub async fn store() -> (Schema, PostgresStore) {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let name = format!(
            "test_{}_{}_{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed),
            tool_tasks::new_task_id()[..8].to_ascii_lowercase()
        );
        admin()
            .await
            .batch_execute(&format!("CREATE SCHEMA {name}"))
            .await
            .unwrap();
        let url = url();
        let sep = if url.contains('?') { '&' } else { '?' };
        let store = PostgresStore::connect(&format!("{url}{sep}options=-csearch_path%3D{name}"))
            .await
            .unwrap();
        (Schema { name }, store)
    }

    impl Drop for Schema {
        fn drop(&mut self) {
            let name = self.name.clone();
            // Drop runs outside any runtime: a thread of its own with one.
            let _ = std::thread::spawn(move || {
                let rt = tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                    .unwrap();
                rt.block_on(async {
                    let _ = admin()
                        .await
                        .batch_execute(&format!("DROP SCHEMA {name} CASCADE"))
                        .await;
                });
            })
            .join();
        }
    }
}

#[cfg(feature = "postgres")]
#[test]
fn postgres_store_keeps_the_rules() {
    runtime().block_on(async {
        let (_schema, store) = pg::store().await;
        suite(&store).await;
        let (_schema, store) = pg::store().await;
        input_suite(&store).await;
    });
}

/// Tasks written through one connection are there for another (another instance), and a
/// server that is not there fails each operation with a message that names it.
#[cfg(feature = "postgres")]
#[test]
fn postgres_tasks_are_shared_and_an_absent_server_is_named() {
    runtime().block_on(async {
        let (schema, store) = pg::store().await;
        store
            .create(new_task("shared", "one", 1_000, None, true))
            .await
            .unwrap();
        let url = pg::url();
        let sep = if url.contains('?') { '&' } else { '?' };
        let other = tool_tasks::PostgresStore::connect_lazily(&format!(
            "{url}{sep}options=-csearch_path%3D{}",
            schema.name()
        ))
        .unwrap();
        let got = other.get("shared", 1_100).await.unwrap().unwrap();
        assert_eq!(got.holder.as_deref(), Some("one"));

        let absent = tool_tasks::PostgresStore::connect_lazily(
            "postgres://nobody:secret@127.0.0.1:9/none?connect_timeout=2",
        )
        .unwrap();
        let error = absent.get("x", 0).await.unwrap_err().to_string();
        assert!(
            error.contains("postgres://nobody@127.0.0.1:9/none"),
            "{error}"
        );
        assert!(!error.contains("secret"), "the password stays out: {error}");
        let error = tool_tasks::PostgresStore::connect_lazily("postgres://[::1")
            .unwrap_err()
            .to_string();
        assert!(error.contains("connection string"), "{error}");
    });
}

/// Instances claiming at once never take the same task.
async fn claims_race(store: Arc<dyn TaskStore>) {
    for i in 0..200u64 {
        store
            .create(new_task(&format!("t{i:03}"), "dead", i, None, true))
            .await
            .unwrap();
    }
    let claimers: Vec<_> = (0..4)
        .map(|n| {
            let store = store.clone();
            tokio::spawn(async move {
                let mut mine = Vec::new();
                loop {
                    let got = store
                        .claim_expired(&format!("i{n}"), 10_000, 99_000, 7)
                        .await
                        .unwrap();
                    if got.is_empty() {
                        return mine;
                    }
                    mine.extend(got.into_iter().map(|t| t.id));
                }
            })
        })
        .collect();
    let mut all = Vec::new();
    for claimer in claimers {
        all.extend(claimer.await.unwrap());
    }
    all.sort();
    let before = all.len();
    all.dedup();
    assert_eq!((before, all.len()), (200, 200));
}

/// Instances answering a waiting task at once resume it once.
async fn answers_race(store: Arc<dyn TaskStore>) {
    for i in 0..20u64 {
        let id = format!("w{i:02}");
        store
            .create(new_task(&id, "a", i, None, true))
            .await
            .unwrap();
        let input = Input {
            requests: object(json!({"k1": {}, "k2": {}})),
            answers: Map::new(),
            status_message: None,
            now_ms: i,
        };
        assert!(store.wait_for_input(&id, "a", input).await.unwrap());
    }
    let answerers: Vec<_> = (0..4)
        .map(|n| {
            let store = store.clone();
            tokio::spawn(async move {
                let responses = object(json!({"k1": n, "k2": n}));
                let mut resumed = Vec::new();
                for i in 0..20u64 {
                    let id = format!("w{i:02}");
                    if let Answered::Resumed(task) = store
                        .answer(&id, &responses, &format!("i{n}"), 99_000, 1_000)
                        .await
                        .unwrap()
                    {
                        assert_eq!(task.holder, Some(format!("i{n}")));
                        resumed.push(id);
                    }
                }
                resumed
            })
        })
        .collect();
    let mut all = Vec::new();
    for answerer in answerers {
        all.extend(answerer.await.unwrap());
    }
    all.sort();
    let before = all.len();
    all.dedup();
    assert_eq!((before, all.len()), (20, 20));
}

fn multi_thread() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
}

#[test]
fn concurrent_claims_and_answers_take_each_task_once() {
    let rt = multi_thread();
    let (_dir, store) = sqlite();
    rt.block_on(claims_race(Arc::new(store)));
    let (_dir, store) = sqlite();
    rt.block_on(answers_race(Arc::new(store)));
    rt.block_on(answers_race(Arc::new(MemoryStore::new())));
}

#[cfg(feature = "postgres")]
#[test]
fn postgres_claims_and_answers_take_each_task_once() {
    let rt = multi_thread();
    rt.block_on(async {
        let (_schema, store) = pg::store().await;
        claims_race(Arc::new(store)).await;
        let (_schema, store) = pg::store().await;
        answers_race(Arc::new(store)).await;
    });
}

#[derive(Debug, Clone)]
enum Op {
    Create {
        id: u8,
        holder: u8,
        ttl: Option<u16>,
        idempotent: bool,
    },
    Get {
        id: u8,
    },
    Renew {
        id: u8,
        holder: u8,
        message: Option<u8>,
    },
    Finish {
        id: u8,
        holder: u8,
        status: u8,
    },
    Cancel {
        id: u8,
    },
    Claim {
        holder: u8,
        limit: u8,
    },
    Release {
        id: u8,
        holder: u8,
    },
    Wait {
        id: u8,
        holder: u8,
    },
    Answer {
        id: u8,
        holder: u8,
        which: u8,
    },
    List {
        status: Option<u8>,
        limit: Option<u8>,
    },
    Purge,
    Tick {
        ms: u16,
    },
}

fn op() -> impl Strategy<Value = Op> {
    let id = 0u8..6;
    let holder = 0u8..3;
    prop_oneof![
        (
            id.clone(),
            holder.clone(),
            proptest::option::of(1u16..5_000),
            any::<bool>()
        )
            .prop_map(|(id, holder, ttl, idempotent)| Op::Create {
                id,
                holder,
                ttl,
                idempotent
            }),
        id.clone().prop_map(|id| Op::Get { id }),
        (id.clone(), holder.clone(), proptest::option::of(0u8..3)).prop_map(
            |(id, holder, message)| Op::Renew {
                id,
                holder,
                message
            }
        ),
        (id.clone(), holder.clone(), 2u8..5).prop_map(|(id, holder, status)| Op::Finish {
            id,
            holder,
            status
        }),
        id.clone().prop_map(|id| Op::Cancel { id }),
        (holder.clone(), 1u8..4).prop_map(|(holder, limit)| Op::Claim { holder, limit }),
        (id.clone(), holder.clone()).prop_map(|(id, holder)| Op::Release { id, holder }),
        (id.clone(), holder.clone()).prop_map(|(id, holder)| Op::Wait { id, holder }),
        (id, holder, 0u8..4).prop_map(|(id, holder, which)| Op::Answer { id, holder, which }),
        (proptest::option::of(0u8..5), proptest::option::of(1u8..4))
            .prop_map(|(status, limit)| Op::List { status, limit }),
        Just(Op::Purge),
        (1u16..2_500).prop_map(|ms| Op::Tick { ms }),
    ]
}

/// Runs `op` on `store` at `now`, returning what it answered, as text to compare.
async fn apply(store: &dyn TaskStore, op: &Op, now: u64) -> String {
    let lease = now + 1_000;
    match op {
        Op::Create {
            id,
            holder,
            ttl,
            idempotent,
        } => {
            let mut task = new_task(
                &format!("t{id}"),
                &format!("h{holder}"),
                now,
                ttl.map(u64::from),
                *idempotent,
            );
            task.lease_until_ms = lease;
            format!(
                "{:?}",
                store
                    .create(task)
                    .await
                    .map_err(|e| e.to_string().replace(store.kind(), ""))
            )
        }
        Op::Get { id } => format!("{:?}", store.get(&format!("t{id}"), now).await.unwrap()),
        Op::Renew {
            id,
            holder,
            message,
        } => format!(
            "{:?}",
            store
                .renew(
                    &format!("t{id}"),
                    &format!("h{holder}"),
                    lease,
                    message.map(|m| format!("m{m}")),
                    now
                )
                .await
                .unwrap()
        ),
        Op::Finish { id, holder, status } => format!(
            "{:?}",
            store
                .finish(
                    &format!("t{id}"),
                    &format!("h{holder}"),
                    ending(TaskStatus::ALL[usize::from(*status)], now)
                )
                .await
                .unwrap()
        ),
        Op::Cancel { id } => format!(
            "{:?}",
            store.request_cancel(&format!("t{id}"), now).await.unwrap()
        ),
        Op::Claim { holder, limit } => format!(
            "{:?}",
            store
                .claim_expired(&format!("h{holder}"), now, lease, usize::from(*limit))
                .await
                .unwrap()
        ),
        Op::Release { id, holder } => format!(
            "{:?}",
            store
                .release(&format!("t{id}"), &format!("h{holder}"))
                .await
                .unwrap()
        ),
        Op::Wait { id, holder } => {
            let input = Input {
                requests: object(json!({"k1": {"method": "elicitation/create"}, "k2": {"n": now}})),
                answers: object(json!({"k0": [now]})),
                status_message: now.is_multiple_of(2).then(|| format!("asked at {now}")),
                now_ms: now,
            };
            format!(
                "{:?}",
                store
                    .wait_for_input(&format!("t{id}"), &format!("h{holder}"), input)
                    .await
                    .unwrap()
            )
        }
        Op::Answer { id, holder, which } => {
            let responses = object(match which {
                0 => json!({"k1": {"action": "accept"}}),
                1 => json!({"k2": now}),
                2 => json!({"k1": 1, "k2": [2]}),
                _ => json!({"unknown": true}),
            });
            format!(
                "{:?}",
                store
                    .answer(
                        &format!("t{id}"),
                        &responses,
                        &format!("h{holder}"),
                        lease,
                        now
                    )
                    .await
                    .unwrap()
            )
        }
        Op::List { status, limit } => {
            let filter = ListFilter {
                statuses: status
                    .map(|s| vec![TaskStatus::ALL[usize::from(s)]])
                    .unwrap_or_default(),
                tool: None,
                limit: limit.map(usize::from),
            };
            format!("{:?}", store.list(filter, now).await.unwrap())
        }
        Op::Purge => format!("{:?}", store.purge(now).await.unwrap()),
        Op::Tick { .. } => String::new(),
    }
}

/// Runs `ops` on the memory store and on `other`, and fails at the first answer that differs.
fn same_answers(other: &dyn TaskStore, ops: &[Op]) -> Result<(), TestCaseError> {
    let rt = runtime();
    let memory = MemoryStore::new();
    let mut now = 1_000u64;
    for op in ops {
        if let Op::Tick { ms } = op {
            now += u64::from(*ms);
            continue;
        }
        let expected = rt.block_on(apply(&memory, op, now));
        let got = rt.block_on(apply(other, op, now));
        prop_assert_eq!(got, expected, "after {:?} at {}", op, now);
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn sqlite_answers_as_the_memory_store_does(ops in proptest::collection::vec(op(), 1..60)) {
        let (_dir, sqlite) = sqlite();
        same_answers(&sqlite, &ops)?;
    }
}

#[cfg(feature = "postgres")]
proptest! {
    #![proptest_config(ProptestConfig { cases: 32, ..ProptestConfig::default() })]

    #[test]
    fn postgres_answers_as_the_memory_store_does(ops in proptest::collection::vec(op(), 1..60)) {
        let (_schema, store) = runtime().block_on(pg::store());
        same_answers(&store, &ops)?;
    }
}
