//! MCP tasks on three instances that share a PostgreSQL store, behind HAProxy (the shipped
//! `deploy/haproxy.cfg`, its stateless front door): `task-server serve --http --stateless
//! --tasks postgres://...`, each run of a tool logged with the process that ran it.
//!
//! - 200 calls through the balancer become tasks, and every one is followed to its end with
//!   `tasks/get` through the balancer, so each is answered by whichever instance the proxy
//!   picks. One instance is killed (SIGKILL) while the tasks run: its idempotent tasks are run
//!   again by the survivors and complete, its other tasks fail with the error that says its
//!   instance stopped; no task is lost, and no call that is not idempotent runs twice.
//! - A rolling restart: one instance gets SIGTERM while its tasks run; it finishes them within
//!   its grace period and exits, and every task completes, each run once.
//!
//! Needs HAProxy (`scripts/haproxy-env`) and PostgreSQL (`scripts/postgres-env`, or
//! `TOOL_TASKS_POSTGRES`); a missing one is a failure, never a skip. Each test works in a
//! schema of its own.

#[path = "../../tests/support/haproxy.rs"]
mod haproxy;
#[path = "../../tests/support/mcp.rs"]
mod mcp_support;
#[path = "../../tests/support/validators.rs"]
mod py_support;

use std::collections::{BTreeMap, HashMap};
use std::fs::File;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;
use std::time::{Duration, Instant};

use haproxy::{Cluster, Conn, Log, serial};
use serde_json::{Value, json};

const TASK_SERVER: &str = env!("CARGO_BIN_EXE_task-server");
const MODERN: &str = "2026-07-28";
const CLIENTS: usize = 8;

/// A schema of its own on the test server, dropped at the end.
struct Schema {
    base: String,
    name: String,
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

async fn admin(url: &str) -> tokio_postgres::Client {
    let (client, connection) = tokio_postgres::connect(url, tokio_postgres::NoTls)
        .await
        .unwrap_or_else(|e| {
            panic!(
                "this test needs a PostgreSQL server at {url} ({e}); start one with \
                 `scripts/postgres-env` (as root it installs Debian's postgresql), or set \
                 TOOL_TASKS_POSTGRES to another server's connection string"
            )
        });
    tokio::spawn(connection);
    client
}

impl Schema {
    fn new(label: &str) -> Self {
        let base = std::env::var("TOOL_TASKS_POSTGRES")
            .unwrap_or_else(|_| "postgres://tool_tasks@127.0.0.1:54329/tool_tasks".to_owned());
        let name = format!("cluster_{label}_{}", std::process::id());
        runtime().block_on(async {
            admin(&base)
                .await
                .batch_execute(&format!(
                    "DROP SCHEMA IF EXISTS {name} CASCADE; CREATE SCHEMA {name}"
                ))
                .await
                .unwrap();
        });
        Self { base, name }
    }

    /// The store's connection string: the test server, in this schema.
    fn url(&self) -> String {
        let sep = if self.base.contains('?') { '&' } else { '?' };
        format!("{}{sep}options=-csearch_path%3D{}", self.base, self.name)
    }

    /// Every task the store holds: id -> (status, attempts).
    fn tasks(&self) -> HashMap<String, (String, i32)> {
        runtime().block_on(async {
            let rows = admin(&self.base)
                .await
                .query(
                    &format!("SELECT id, status, attempts FROM {}.tool_tasks", self.name),
                    &[],
                )
                .await
                .unwrap();
            rows.iter()
                .map(|r| (r.get(0), (r.get(1), r.get(2))))
                .collect()
        })
    }
}

impl Drop for Schema {
    fn drop(&mut self) {
        let (base, name) = (self.base.clone(), self.name.clone());
        let _ = std::thread::spawn(move || {
            runtime().block_on(async {
                let _ = admin(&base)
                    .await
                    .batch_execute(&format!("DROP SCHEMA IF EXISTS {name} CASCADE"))
                    .await;
            });
        })
        .join();
    }
}

/// Where the servers log their runs: a named pipe, read as they write, so that a line arriving
/// tells the test a run began (a file says nothing when it grows).
struct RunLog {
    path: PathBuf,
    lines: Arc<Log>,
    /// The test's own end of the pipe, kept open (so it never ends, and opening it to write
    /// never waits for a reader), for the marks it writes.
    mark: File,
}

impl RunLog {
    fn new(dir: &Path) -> Self {
        let path = dir.join("runs.fifo");
        let made = Command::new("mkfifo")
            .arg(&path)
            .status()
            .expect("mkfifo runs");
        assert!(made.success(), "mkfifo {}", path.display());
        // Read and write: opening does not wait for the other end, and reading never ends.
        let mark = File::options().read(true).write(true).open(&path).unwrap();
        let lines = Arc::new(Log::default());
        haproxy::collect(mark.try_clone().unwrap(), &lines);
        Self { path, lines, mark }
    }

    /// Waits until at least `n` runs have begun, for `within` at most: how many have.
    fn began(&self, n: usize, within: Duration) -> usize {
        let lines = self.lines.until(within, |lines| lines.len() >= n);
        lines.len()
    }

    /// Every run logged so far: the test writes a mark through the pipe and waits for it, so
    /// every line the servers wrote before is in.
    fn runs(&mut self) -> BTreeMap<String, Vec<u32>> {
        let mark = format!("mark {}", self.lines.lines().len());
        writeln!(self.mark, "{mark}").unwrap();
        let lines = self
            .lines
            .until(Duration::from_secs(10), |lines| lines.contains(&mark));
        assert!(lines.contains(&mark), "the run log's reader is stuck");
        runs(&lines)
    }
}

/// Three task servers on `schema`'s store behind HAProxy; each run logged to `log`.
fn cluster(schema: &Schema, log: &Path, grace: &str) -> Cluster {
    let url = schema.url();
    let args = [
        "--stateless",
        "--tasks",
        url.as_str(),
        "--task-after",
        "0",
        "--task-lease",
        "2",
        "--shutdown-grace",
        grace,
    ];
    let log = log.to_str().unwrap();
    Cluster::start_with(TASK_SERVER, &args, &[("TASK_RUN_LOG", log)])
}

fn meta() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientCapabilities": {
            "extensions": {"io.modelcontextprotocol/tasks": {}},
        },
        "io.modelcontextprotocol/clientInfo": {"name": "cluster-test", "version": "1"},
    })
}

/// One request through the proxy, with the 2026-07-28 routing headers; its result.
fn request(conn: &mut Conn, id: usize, method: &str, name: &str, params: Value) -> Value {
    let body = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
    let headers = [
        ("MCP-Protocol-Version", MODERN),
        ("Mcp-Method", method),
        ("Mcp-Name", name),
    ];
    // A request is sent once: a connection that failed is a failure of the test.
    let reply = conn
        .post_with(&body.to_string(), &headers)
        .unwrap_or_else(|e| panic!("{method} {name}: {e}"));
    let text = String::from_utf8_lossy(&reply.body);
    assert_eq!(reply.status, 200, "{method} {name}: {text}");
    let answer: Value = serde_json::from_slice(&reply.body)
        .unwrap_or_else(|e| panic!("{method} {name}: not JSON ({e}): {text}"));
    assert_eq!(answer["id"], json!(id), "{text}");
    answer
        .get("result")
        .cloned()
        .unwrap_or_else(|| panic!("{method} {name}: {text}"))
}

/// Call `i`: `build_report` (idempotent) when even, `send_message` when odd.
fn tool(i: usize) -> &'static str {
    if i.is_multiple_of(2) {
        "build_report"
    } else {
        "send_message"
    }
}

/// Starts `calls` tasks of `seconds` each through the proxy, from `CLIENTS` clients; their ids.
fn start_tasks(cluster: &Cluster, calls: usize, seconds: f64) -> Vec<String> {
    let mut ids = vec![String::new(); calls];
    std::thread::scope(|scope| {
        let clients: Vec<_> = (0..CLIENTS)
            .map(|c| {
                scope.spawn(move || {
                    let mut conn = Conn::new(&cluster.stateless_front);
                    (c..calls)
                        .step_by(CLIENTS)
                        .map(|i| {
                            let params = json!({
                                "name": tool(i),
                                "arguments": {"key": format!("k{i}"), "seconds": seconds},
                                "_meta": meta(),
                            });
                            let created = request(&mut conn, i, "tools/call", tool(i), params);
                            assert_eq!(created["resultType"], "task", "call {i}: {created}");
                            (i, created["taskId"].as_str().unwrap().to_owned())
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        for client in clients {
            for (i, id) in client.join().expect("a client thread panicked") {
                ids[i] = id;
            }
        }
    });
    ids
}

/// Follows every task to its end through the proxy; the last `tasks/get` result of each. A task
/// tells no client when it changes (the servers send no `notifications/tasks/status`): each
/// client asks again every 200 ms, as the protocol has it.
fn follow_tasks(cluster: &Cluster, ids: &[String]) -> Vec<Value> {
    let deadline = Instant::now() + Duration::from_secs(90);
    let mut ended = vec![Value::Null; ids.len()];
    std::thread::scope(|scope| {
        let clients: Vec<_> = (0..CLIENTS)
            .map(|c| {
                scope.spawn(move || {
                    let mut conn = Conn::new(&cluster.stateless_front);
                    let mut mine: Vec<usize> = (c..ids.len()).step_by(CLIENTS).collect();
                    let mut done = Vec::new();
                    let mut n = 1_000_000 * (c + 1);
                    while !mine.is_empty() {
                        assert!(
                            Instant::now() < deadline,
                            "{} tasks did not end within 90 s: {:?}",
                            mine.len(),
                            &mine[..mine.len().min(5)]
                        );
                        mine.retain(|&i| {
                            n += 1;
                            let params = json!({"taskId": ids[i], "_meta": meta()});
                            let task = request(&mut conn, n, "tasks/get", &ids[i], params);
                            let terminal = matches!(
                                task["status"].as_str(),
                                Some("completed" | "failed" | "cancelled")
                            );
                            if terminal {
                                done.push((i, task));
                            }
                            !terminal
                        });
                        std::thread::sleep(Duration::from_millis(200));
                    }
                    done
                })
            })
            .collect();
        for client in clients {
            for (i, task) in client.join().expect("a client thread panicked") {
                ended[i] = task;
            }
        }
    });
    ended
}

/// The log's runs (its marks left out): key -> the process ids that ran it, in order.
fn runs(lines: &[String]) -> BTreeMap<String, Vec<u32>> {
    let mut runs: BTreeMap<String, Vec<u32>> = BTreeMap::new();
    for line in lines.iter().filter(|l| !l.starts_with("mark ")) {
        let run: Value = serde_json::from_str(line).unwrap();
        let pid = u32::try_from(run["pid"].as_u64().unwrap()).unwrap();
        runs.entry(run["key"].as_str().unwrap().to_owned())
            .or_default()
            .push(pid);
    }
    runs
}

#[test]
fn tasks_survive_a_killed_instance_with_nothing_lost_and_nothing_run_twice() {
    let _serial = serial();
    let schema = Schema::new("kill");
    let dir = tempfile::tempdir().unwrap();
    let mut log = RunLog::new(dir.path());
    let mut cluster = cluster(&schema, &log.path, "5");
    const TASKS: usize = 200;
    const VICTIM: usize = 1;

    let started = Instant::now();
    let ids = start_tasks(&cluster, TASKS, 4.0);
    let created = started.elapsed();
    let victim = cluster.stateless[VICTIM].take().expect("the instance runs");
    let victim_pid = victim.id();
    // Mid-run: every task has begun (its run is logged first thing), none has finished. The
    // log's lines are the signal.
    let began = log.began(TASKS, Duration::from_secs(30));
    assert!(began >= TASKS, "only {began} of {TASKS} tasks began");
    let before_kill = log.runs();
    drop(victim);

    let ended = follow_tasks(&cluster, &ids);
    let runs = log.runs();
    let store = schema.tasks();
    let (mut rerun, mut failed, mut plain) = (0, 0, 0);
    for (i, task) in ended.iter().enumerate() {
        let key = format!("k{i}");
        let ran = runs.get(&key).cloned().unwrap_or_default();
        let first = *ran
            .first()
            .unwrap_or_else(|| panic!("task {i} never ran: {task}"));
        assert!(
            before_kill.contains_key(&key),
            "task {i} had not begun when the instance was killed"
        );
        let attempts = store[&ids[i]].1;
        if first != victim_pid {
            assert_eq!(task["status"], "completed", "task {i}: {task}");
            assert_eq!(ran.len(), 1, "task {i} ran {ran:?}");
            assert_eq!(task["result"]["structuredContent"]["pid"], first, "{task}");
            assert_eq!(attempts, 1, "task {i}");
            plain += 1;
        } else if tool(i) == "build_report" {
            // Idempotent: run again by a survivor, which answered.
            assert_eq!(task["status"], "completed", "task {i}: {task}");
            assert_eq!(ran.len(), 2, "task {i} ran {ran:?}");
            assert_ne!(ran[1], victim_pid);
            assert_eq!(task["result"]["structuredContent"]["pid"], ran[1], "{task}");
            assert_eq!(attempts, 2, "task {i}");
            rerun += 1;
        } else {
            // Not idempotent: never run again, failed with the reason.
            assert_eq!(task["status"], "failed", "task {i}: {task}");
            assert_eq!(ran.len(), 1, "task {i} ran {ran:?}: never twice");
            let message = task["error"]["message"].as_str().unwrap_or_default();
            assert!(
                message.contains("stopped before it finished")
                    && message.contains("`send_message` is not marked idempotent"),
                "task {i}: {task}"
            );
            failed += 1;
        }
    }
    // Not one run of a call that is not idempotent beyond its first.
    let twice: Vec<_> = runs
        .iter()
        .filter(|(key, ran)| ran.len() > 1 && tool(key[1..].parse().unwrap()) == "send_message")
        .collect();
    assert!(twice.is_empty(), "sent twice: {twice:?}");
    assert_eq!(
        store.len(),
        TASKS,
        "one task per call, none lost or doubled"
    );

    let stats = cluster.stats();
    let answered = stats.per_server("mcp_stateless", "hrsp_2xx");
    eprintln!(
        "tasks: {TASKS} created through HAProxy in {:.2} s; the killed instance ran {} \
         ({rerun} run again elsewhere, {failed} failed with the reason), the others {plain}; \
         answers per instance {answered:?}",
        created.as_secs_f64(),
        rerun + failed
    );
    assert!(
        rerun > 0 && failed > 0,
        "the killed instance ran no task of one kind ({rerun} idempotent, {failed} others): the \
         test proved nothing"
    );
    assert!(
        answered
            .iter()
            .enumerate()
            .all(|(n, &count)| n == VICTIM || count > 0),
        "every surviving instance answers: {answered:?}"
    );
}

#[test]
fn a_rolling_restart_loses_no_task() {
    let _serial = serial();
    let schema = Schema::new("term");
    let dir = tempfile::tempdir().unwrap();
    let mut log = RunLog::new(dir.path());
    let mut cluster = cluster(&schema, &log.path, "20");
    const TASKS: usize = 60;
    const VICTIM: usize = 1;

    let ids = start_tasks(&cluster, TASKS, 2.0);
    let mut victim = cluster.stateless[VICTIM].take().expect("the instance runs");
    let victim_pid = victim.id();
    let signalled = Command::new("kill")
        .args(["-TERM", &victim_pid.to_string()])
        .status()
        .unwrap();
    assert!(signalled.success());
    // Polled through the proxy while the instance drains: it takes no new connection, so the
    // others answer for its tasks.
    let ended = follow_tasks(&cluster, &ids);
    let status = victim
        .exit_within(Duration::from_secs(30))
        .expect("the instance exits after SIGTERM");
    assert!(status.success(), "the instance exited with {status}");

    let runs = log.runs();
    let mut by_victim = 0;
    for (i, task) in ended.iter().enumerate() {
        assert_eq!(task["status"], "completed", "task {i}: {task}");
        let ran = &runs[&format!("k{i}")];
        assert_eq!(ran.len(), 1, "task {i} ran {ran:?}");
        assert_eq!(task["result"]["structuredContent"]["pid"], ran[0], "{task}");
        by_victim += usize::from(ran[0] == victim_pid);
    }
    eprintln!("rolling restart: {TASKS} tasks, {by_victim} finished by the stopping instance");
    assert!(
        by_victim > 0,
        "the stopping instance ran no task: the test proved nothing"
    );
}
