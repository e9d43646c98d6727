//! `tasks-bench`: what MCP tasks cost, on each store.
//!
//! ```text
//! cargo run --release -p bench-tasks -- [--stores memory,sqlite,postgres] [--calls N] [--rounds R]
//! ```
//!
//! For each store (the memory store, SQLite in a temporary file, PostgreSQL on the server
//! `scripts/postgres-env` starts or `TOOL_TASKS_POSTGRES` names, in a schema of its own):
//!
//! - **the store alone**: `create`, `get` and `renew`, one at a time and 32 at once;
//! - **over MCP** (`serve_io` on an in-process pipe, protocol 2026-07-28 with the extension):
//!   `tools/call` answered with a task (`TaskOptions::after` zero: the task is in the store
//!   before the answer is written), and `tasks/get` of finished tasks, one at a time and 32 in
//!   flight.
//!
//! Then **the cost on plain calls**: `tools/call` of a tool not marked `task`, sequential and 64
//! in flight, on a server with tasks (the memory store) beside the same server without, rounds
//! interleaved; the ratio is with/without. (A server built without the feature `tasks`
//! compiles none of it.)
//!
//! Figures are medians over the rounds. The table goes to stdout, the figures to
//! `target/bench/tasks.json` for `bench-report`.

#[path = "../../report/src/meta.rs"]
mod meta;

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt as _, AsyncWriteExt as _, BufReader};
use tool_core::exec::Executor;
use tool_core::{Registry, ToolOutput, registry::DynamicTool};
use tool_mcp::{McpServer, ServerOptions, TaskOptions, serve_io};
use tool_tasks::{MemoryStore, NewTask, PostgresStore, SqliteStore, TaskStore};

const MODERN: &str = "2026-07-28";

struct Args {
    stores: Vec<String>,
    calls: usize,
    rounds: usize,
}

fn args() -> Result<Args, String> {
    let mut args = Args {
        stores: vec!["memory".into(), "sqlite".into(), "postgres".into()],
        calls: 2_000,
        rounds: 3,
    };
    let mut it = std::env::args().skip(1);
    while let Some(arg) = it.next() {
        let mut value = || it.next().ok_or(format!("{arg} needs a value"));
        match arg.as_str() {
            "--stores" => args.stores = value()?.split(',').map(str::to_owned).collect(),
            "--calls" => args.calls = value()?.parse().map_err(|e| format!("--calls: {e}"))?,
            "--rounds" => args.rounds = value()?.parse().map_err(|e| format!("--rounds: {e}"))?,
            _ => {
                return Err(
                    "usage: tasks-bench [--stores memory,sqlite,postgres] [--calls N] [--rounds R]"
                        .into(),
                );
            }
        }
    }
    for store in &args.stores {
        if !["memory", "sqlite", "postgres"].contains(&store.as_str()) {
            return Err(format!("--stores: no store {store}"));
        }
    }
    Ok(args)
}

fn main() -> std::process::ExitCode {
    let args = match args() {
        Ok(args) => args,
        Err(e) => {
            eprintln!("{e}");
            return std::process::ExitCode::from(2);
        }
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a runtime");
    let figures = runtime.block_on(run(&args));
    let root = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."));
    match meta::write_results(root, "tasks", figures) {
        Ok(path) => eprintln!("figures written to {}", path.display()),
        Err(e) => {
            eprintln!("cannot write the figures: {e}");
            return std::process::ExitCode::FAILURE;
        }
    }
    std::process::ExitCode::SUCCESS
}

async fn run(args: &Args) -> Value {
    let mut stores = Vec::new();
    println!(
        "| store | create/s | get/s | renew/s | create/s, 32 at once | tools/call → task/s, 32 in flight | tasks/get/s | tasks/get/s, 32 in flight |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|---:|");
    for kind in &args.stores {
        let mut rounds = Vec::new();
        for _ in 0..args.rounds {
            let (store, keep) = open(kind).await;
            rounds.push(measure_store(store, args.calls).await);
            keep.clean().await;
        }
        let row = median_of(&rounds);
        println!(
            "| {kind} | {} | {} | {} | {} | {} | {} | {} |",
            rate(&row["store_create"]),
            rate(&row["store_get"]),
            rate(&row["store_renew"]),
            rate(&row["store_create_32"]),
            rate(&row["mcp_create_32"]),
            rate(&row["mcp_get"]),
            rate(&row["mcp_get_32"]),
        );
        stores.push(json!({"store": kind, "per_second": row}));
    }

    let cost = plain_call_cost(args.rounds.max(3)).await;
    println!();
    println!(
        "plain tools/call with tasks on / off: sequential {:.3}x, 64 in flight {:.3}x",
        cost["sequential_ratio"].as_f64().unwrap_or(0.0),
        cost["in_flight_ratio"].as_f64().unwrap_or(0.0)
    );
    json!({
        "calls": args.calls,
        "rounds": args.rounds,
        "stores": stores,
        "plain_calls": cost,
    })
}

fn rate(v: &Value) -> String {
    let n = v.as_f64().unwrap_or(0.0);
    if n >= 10_000.0 {
        format!("{:.1}k", n / 1000.0)
    } else {
        format!("{n:.0}")
    }
}

/// The median of each field over the rounds.
fn median_of(rounds: &[serde_json::Map<String, Value>]) -> serde_json::Map<String, Value> {
    let mut out = serde_json::Map::new();
    for key in rounds[0].keys() {
        let mut values: Vec<f64> = rounds.iter().filter_map(|r| r[key].as_f64()).collect();
        values.sort_by(f64::total_cmp);
        out.insert(key.clone(), json!(values[values.len() / 2].round()));
    }
    out
}

/// What keeps a store's backing alive, and cleans it up at the end of a round.
enum Keep {
    Nothing,
    Dir(#[allow(dead_code)] tempfile::TempDir),
    Schema { base: String, name: String },
}

impl Keep {
    async fn clean(self) {
        if let Keep::Schema { base, name } = self {
            admin(&base)
                .await
                .batch_execute(&format!("DROP SCHEMA IF EXISTS {name} CASCADE"))
                .await
                .expect("the schema dropped");
        }
    }
}

async fn open(kind: &str) -> (Arc<dyn TaskStore>, Keep) {
    match kind {
        "memory" => (Arc::new(MemoryStore::new()), Keep::Nothing),
        "sqlite" => {
            let dir = tempfile::tempdir().expect("a temporary directory");
            let store = SqliteStore::open(dir.path().join("tasks.sqlite3")).expect("SQLite");
            (Arc::new(store), Keep::Dir(dir))
        }
        _ => {
            let base = std::env::var("TOOL_TASKS_POSTGRES")
                .unwrap_or_else(|_| "postgres://tool_tasks@127.0.0.1:54329/tool_tasks".into());
            let name = format!(
                "bench_{}_{}",
                std::process::id(),
                &tool_tasks::new_task_id()[..8]
            );
            admin(&base)
                .await
                .batch_execute(&format!("CREATE SCHEMA {name}"))
                .await
                .expect("the schema");
            let sep = if base.contains('?') { '&' } else { '?' };
            let url = format!("{base}{sep}options=-csearch_path%3D{name}");
            let store = PostgresStore::connect(&url).await.expect("the store");
            (Arc::new(store), Keep::Schema { base, name })
        }
    }
}

async fn admin(url: &str) -> tokio_postgres::Client {
    let (client, connection) = tokio_postgres::connect(url, tokio_postgres::NoTls)
        .await
        .unwrap_or_else(|e| {
            panic!(
                "{url}: {e}: start the server with scripts/postgres-env, or set TOOL_TASKS_POSTGRES"
            )
        });
    tokio::spawn(connection);
    client
}

fn new_task(i: usize, now: u64) -> NewTask {
    NewTask {
        id: format!("t{i:06}-{}", tool_tasks::new_task_id()),
        owner: Some("[\"issuer\",\"bench\"]".into()),
        tool: "hold_task".into(),
        arguments: json!({"n": i}),
        origin: json!({"subject": "bench"}),
        idempotent: true,
        status_message: None,
        now_ms: now,
        ttl_ms: Some(3_600_000),
        poll_interval_ms: Some(1_000),
        holder: "bench".into(),
        lease_until_ms: now + 15_000,
    }
}

fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0)
}

fn per_second(n: usize, elapsed: Duration) -> Value {
    json!(n as f64 / elapsed.as_secs_f64())
}

async fn measure_store(store: Arc<dyn TaskStore>, calls: usize) -> serde_json::Map<String, Value> {
    let mut out = serde_json::Map::new();
    let now = now_ms();
    let tasks: Vec<NewTask> = (0..calls).map(|i| new_task(i, now)).collect();
    let ids: Vec<String> = tasks.iter().map(|t| t.id.clone()).collect();

    let started = Instant::now();
    for task in tasks {
        store.create(task).await.expect("create");
    }
    out.insert("store_create".into(), per_second(calls, started.elapsed()));

    let started = Instant::now();
    for id in &ids {
        store.get(id, now).await.expect("get").expect("the task");
    }
    out.insert("store_get".into(), per_second(calls, started.elapsed()));

    let started = Instant::now();
    for id in &ids {
        store
            .renew(id, "bench", now + 30_000, Some("half way".into()), now + 1)
            .await
            .expect("renew");
    }
    out.insert("store_renew".into(), per_second(calls, started.elapsed()));

    let started = Instant::now();
    let semaphore = Arc::new(tokio::sync::Semaphore::new(32));
    let mut joins = Vec::with_capacity(calls);
    for i in 0..calls {
        let permit = semaphore.clone().acquire_owned().await.expect("open");
        let store = store.clone();
        joins.push(tokio::spawn(async move {
            store
                .create(new_task(calls + i, now))
                .await
                .expect("create");
            drop(permit);
        }));
    }
    for join in joins {
        join.await.expect("joined");
    }
    out.insert(
        "store_create_32".into(),
        per_second(calls, started.elapsed()),
    );

    // Over MCP, on the same store.
    let server = server(Some(store.clone()));
    let mut client = Client::connect(server);
    let creates: Vec<String> = (0..calls).map(|i| call_request(i, "hold_task")).collect();
    let started = Instant::now();
    let answers = client.drive(&creates, 32).await;
    out.insert("mcp_create_32".into(), per_second(calls, started.elapsed()));
    let task_ids: Vec<String> = answers
        .iter()
        .map(|a| {
            assert_eq!(a["result"]["resultType"], "task", "{a}");
            a["result"]["taskId"].as_str().expect("an id").to_owned()
        })
        .collect();
    // Every task ends 50 ms after it began; then their results are read.
    tokio::time::sleep(Duration::from_millis(500)).await;
    let gets: Vec<String> = task_ids
        .iter()
        .enumerate()
        .map(|(n, id)| get_request(calls + n, id))
        .collect();
    let started = Instant::now();
    let answers = client.drive(&gets, 1).await;
    out.insert("mcp_get".into(), per_second(calls, started.elapsed()));
    assert!(
        answers.iter().all(|a| a["result"]["status"] == "completed"),
        "every task completed"
    );
    let started = Instant::now();
    client.drive(&gets, 32).await;
    out.insert("mcp_get_32".into(), per_second(calls, started.elapsed()));
    client.close().await;
    out
}

/// A server with one tool marked `task` (it takes 50 ms) and one that is not, and tasks on
/// `store` (none: no tasks).
fn server(store: Option<Arc<dyn TaskStore>>) -> McpServer {
    let mut registry = Registry::empty();
    registry
        .register_all([
            DynamicTool::new("hold_task", "Holds.", json!({"type": "object"}))
                .task(true)
                .handler(|_, _| async {
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    Ok(ToolOutput::new(json!({"held": true})))
                }),
            DynamicTool::new("add_numbers", "Adds.", json!({"type": "object"})).handler(
                |input, _| async move {
                    let sum = input["a"].as_i64().unwrap_or(0) + input["b"].as_i64().unwrap_or(0);
                    Ok(ToolOutput::new(json!(sum)))
                },
            ),
        ])
        .expect("the tools");
    let mut options = ServerOptions::named("bench", "1");
    options.tasks = store.map(|store| {
        let mut tasks = TaskOptions::new(store);
        tasks.after = Duration::ZERO;
        tasks
    });
    McpServer::with_options(Executor::new(registry), options)
}

fn meta() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientCapabilities": {
            "extensions": {"io.modelcontextprotocol/tasks": {}},
        },
        "io.modelcontextprotocol/clientInfo": {"name": "bench", "version": "1"},
    })
}

fn call_request(id: usize, tool: &str) -> String {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {
        "name": tool, "arguments": {"a": id, "b": 1}, "_meta": meta()}})
    .to_string()
}

fn get_request(id: usize, task: &str) -> String {
    json!({"jsonrpc": "2.0", "id": id, "method": "tasks/get",
           "params": {"taskId": task, "_meta": meta()}})
    .to_string()
}

/// A client on an in-process pipe to `serve_io`.
struct Client {
    read: BufReader<tokio::io::ReadHalf<tokio::io::DuplexStream>>,
    write: tokio::io::WriteHalf<tokio::io::DuplexStream>,
    serving: tokio::task::JoinHandle<()>,
}

impl Client {
    fn connect(server: McpServer) -> Self {
        let (client, served) = tokio::io::duplex(1 << 20);
        let (read, write) = tokio::io::split(served);
        let serving = tokio::spawn(async move {
            let _ = serve_io(server, read, write, Default::default()).await;
        });
        let (read, write) = tokio::io::split(client);
        Self {
            read: BufReader::new(read),
            write,
            serving,
        }
    }

    /// Sends `requests` with at most `window` unanswered at a time; the answers, in the order
    /// they came.
    async fn drive(&mut self, requests: &[String], window: usize) -> Vec<Value> {
        let mut answers = Vec::with_capacity(requests.len());
        let mut sent = 0;
        let mut line = String::new();
        while answers.len() < requests.len() {
            while sent < requests.len() && sent - answers.len() < window {
                self.write
                    .write_all(format!("{}\n", requests[sent]).as_bytes())
                    .await
                    .expect("the server reads");
                sent += 1;
            }
            line.clear();
            let n = self
                .read
                .read_line(&mut line)
                .await
                .expect("the server writes");
            assert!(n > 0, "the server ended early");
            let answer: Value = serde_json::from_str(&line).expect("JSON");
            if answer.get("id").is_some() {
                assert!(answer.get("error").is_none(), "{answer}");
                answers.push(answer);
            }
        }
        answers
    }

    async fn close(mut self) {
        let _ = self.write.shutdown().await;
        let _ = self.serving.await;
    }
}

/// Plain calls on a server with tasks beside one without: rates and ratios.
async fn plain_call_cost(rounds: usize) -> Value {
    const SEQUENTIAL: usize = 5_000;
    const IN_FLIGHT: usize = 20_000;
    let sequential: Vec<String> = (0..SEQUENTIAL)
        .map(|i| call_request(i, "add_numbers"))
        .collect();
    let in_flight: Vec<String> = (0..IN_FLIGHT)
        .map(|i| call_request(i, "add_numbers"))
        .collect();
    let mut rates: [[Vec<f64>; 2]; 2] = Default::default();
    for round in 0..rounds {
        // Which runs first alternates, so neither gains from the other's warm caches.
        let order = if round.is_multiple_of(2) {
            [1, 0]
        } else {
            [0, 1]
        };
        for on in order {
            let store = (on == 1).then(|| Arc::new(MemoryStore::new()) as Arc<dyn TaskStore>);
            let mut client = Client::connect(server(store));
            // Warm-up.
            client.drive(&sequential[..500], 1).await;
            let started = Instant::now();
            client.drive(&sequential, 1).await;
            rates[on][0].push(SEQUENTIAL as f64 / started.elapsed().as_secs_f64());
            let started = Instant::now();
            client.drive(&in_flight, 64).await;
            rates[on][1].push(IN_FLIGHT as f64 / started.elapsed().as_secs_f64());
            client.close().await;
        }
    }
    let median = |v: &mut Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    let [mut off, mut on] = rates;
    let (off_seq, off_64) = (median(&mut off[0]), median(&mut off[1]));
    let (on_seq, on_64) = (median(&mut on[0]), median(&mut on[1]));
    json!({
        "rounds": rounds,
        "off": {"sequential": off_seq.round(), "in_flight_64": off_64.round()},
        "on": {"sequential": on_seq.round(), "in_flight_64": on_64.round()},
        "sequential_ratio": on_seq / off_seq,
        "in_flight_ratio": on_64 / off_64,
    })
}
