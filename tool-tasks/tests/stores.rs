//! Every store keeps the same rules: the same suite runs on each, and a property test holds the
//! SQLite store (SQL run by SQLite) to the memory store (the rules written out in Rust) over
//! generated sequences of operations from several instances.

use std::sync::Arc;

use proptest::prelude::*;
use serde_json::json;
use tool_tasks::{
    Ending, ListFilter, MemoryStore, NewTask, Renewal, SqliteStore, TaskStatus, TaskStore,
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

#[test]
fn memory_store_keeps_the_rules() {
    runtime().block_on(suite(&MemoryStore::new()));
}

#[test]
fn sqlite_store_keeps_the_rules() {
    let (_dir, store) = sqlite();
    runtime().block_on(suite(&store));
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

/// Instances claiming at once never take the same task.
#[test]
fn concurrent_claims_take_each_task_once() {
    let (_dir, store) = sqlite();
    let store = Arc::new(store);
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .build()
        .unwrap();
    rt.block_on(async {
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
        (id, holder).prop_map(|(id, holder)| Op::Release { id, holder }),
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

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn sqlite_answers_as_the_memory_store_does(ops in proptest::collection::vec(op(), 1..60)) {
        let rt = runtime();
        let memory = MemoryStore::new();
        let (_dir, sqlite) = sqlite();
        let mut now = 1_000u64;
        for op in &ops {
            if let Op::Tick { ms } = op {
                now += u64::from(*ms);
                continue;
            }
            let expected = rt.block_on(apply(&memory, op, now));
            let got = rt.block_on(apply(&sqlite, op, now));
            prop_assert_eq!(got, expected, "after {:?} at {}", op, now);
        }
    }
}
