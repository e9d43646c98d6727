//! `code-bench`: code mode against native tool calling.
//!
//! ```text
//! cargo build --release -p tool-code --bin tool-code-worker
//! cargo run --release -p bench-code [-- --rounds N]
//! ```
//!
//! **Tokens and turns.** Seven multi-step tasks (3 to 10 tool calls each): six over a shop's
//! tools (core), one over the bundled time tools (deferred, found with `search_tools` first),
//! beside the 327 tools of the test catalog (deferred), each done twice by a scripted model
//! through the real agent loop (`tool_agent::Agent`, OpenAI's streamed format, a provider on
//! 127.0.0.1 that records every request): with native calls, the calls a model makes turn by
//! turn (parallel where they do not depend on each other), and in code mode, `run_code`
//! scripts that make the same calls and print what the answer needs. What the model reads is
//! every request's body (system prompt, tools, conversation), counted in o200k_base tokens; the
//! turns are the requests. No task was changed after it was measured (docs/benchmarks.md).
//!
//! **Time.** A direct `Executor::call` of a tool that does nothing, a script's start (`1`) and
//! a script that makes that one call, in this process and in a worker process (when
//! `tool-code-worker` is beside this binary); medians over the rounds, in microseconds.
//!
//! The table goes to stdout, the figures to `target/bench/code.json` for `bench-report`.

#[path = "../../report/src/meta.rs"]
mod meta;
#[path = "../../../tests/support/scripted_provider.rs"]
mod scripted_provider;
mod world;

use std::path::Path;
use std::time::Instant;

use scripted_provider::Script;
use serde_json::{Value, json};
use tool_agent::{Agent, Provider, ProviderConfig};
use tool_code::worker::WorkerCommand;
use tool_code::{CodeMode, RUN_CODE, Sandbox};
use tool_core::{DynamicTool, Executor, Registry, ToolContext, ToolOutput};

/// A task: what is asked, the calls a model makes turn by turn, the script that makes them in
/// code mode, and the answer.
struct Task {
    name: &'static str,
    prompt: &'static str,
    turns: Vec<Vec<(&'static str, Value)>>,
    /// One script a turn (a model that must first find its tools writes two).
    scripts: Vec<String>,
}

fn calls_of(turns: &[Vec<(&'static str, Value)>]) -> usize {
    turns.iter().map(Vec::len).sum()
}

fn tasks() -> Vec<Task> {
    use world::*;
    let orders = |c: usize| order_ids(c).collect::<Vec<_>>();
    let with = |c: usize, s: &str| {
        orders(c)
            .into_iter()
            .filter(|id| status(*id) == s)
            .collect::<Vec<_>>()
    };
    let ada_late = with(0, "delayed");
    let bob_newest = *orders(1).last().unwrap();
    let north: Vec<usize> = (0..CUSTOMERS.len())
        .filter(|i| region(*i) == "north")
        .collect();
    let cleo_delivered = with(2, "delivered");
    let dan_total: f64 = orders(3).iter().map(|id| total(*id)).sum();
    let eve_failed = with(4, "failed");
    vec![
        Task {
            name: "late shipments",
            prompt: "Which of Ada's orders are delayed, and where is each now?",
            turns: vec![
                vec![("list_orders", json!({"customer": "ada"}))],
                ada_late.iter().map(|id| ("get_shipment", json!({"order_id": id}))).collect(),
            ],
            scripts: vec![r#"import asyncio
orders = (await list_orders(customer="ada"))["orders"]
late = [o["id"] for o in orders if o["status"] == "delayed"]
for s in await asyncio.gather(*[get_shipment(order_id=i) for i in late]):
    last = s["events"][-1]
    print(s["order_id"], s["carrier"], last["event"], last["at"])"#.to_owned()],
        },
        Task {
            name: "stock of an order",
            prompt: "Is every item of Bob's newest order in stock somewhere?",
            turns: vec![
                vec![("list_orders", json!({"customer": "bob"}))],
                vec![("get_order", json!({"order_id": bob_newest}))],
                skus(bob_newest).into_iter().map(|sku| ("get_stock", json!({"sku": sku}))).collect(),
            ],
            scripts: vec![r#"import asyncio
newest = (await list_orders(customer="bob"))["orders"][0]
order = await get_order(order_id=newest["id"])
stocks = await asyncio.gather(*[get_stock(sku=l["sku"]) for l in order["lines"]])
for s in stocks:
    free = sum(w["on_hand"] - w["reserved"] for w in s["warehouses"])
    print(s["sku"], "free:", free)"#.to_owned()],
        },
        Task {
            name: "big open orders by region",
            prompt: "Which northern customers have an open order over 500 EUR?",
            turns: vec![
                vec![("list_customers", json!({"region": "north"}))],
                north.iter().map(|c| ("list_orders", json!({"customer": CUSTOMERS[*c]}))).collect(),
            ],
            scripts: vec![r#"import asyncio
customers = (await list_customers(region="north"))["customers"]
lists = await asyncio.gather(*[list_orders(customer=c["id"]) for c in customers])
for c, l in zip(customers, lists):
    big = [o["id"] for o in l["orders"] if o["status"] == "open" and o["total"] > 500]
    if big:
        print(c["name"], big)"#.to_owned()],
        },
        Task {
            name: "delivered orders",
            prompt: "When were Cleo's delivered orders delivered, and by whom?",
            turns: vec![
                vec![("list_orders", json!({"customer": "cleo"}))],
                cleo_delivered.iter().map(|id| ("get_shipment", json!({"order_id": id}))).collect(),
            ],
            scripts: vec![r#"import asyncio
orders = (await list_orders(customer="cleo"))["orders"]
done = [o["id"] for o in orders if o["status"] == "delivered"]
for s in await asyncio.gather(*[get_shipment(order_id=i) for i in done]):
    print(s["order_id"], s["carrier"], s["events"][-1]["at"])"#.to_owned()],
        },
        Task {
            name: "spend in own currency",
            prompt: "How much has Dan spent in all, in his own currency?",
            turns: vec![
                vec![
                    ("get_customer", json!({"customer": "dan"})),
                    ("list_orders", json!({"customer": "dan"})),
                ],
                vec![("convert_currency", json!({"amount": dan_total, "to": "GBP"}))],
            ],
            scripts: vec![r#"import asyncio
me, orders = await asyncio.gather(get_customer(customer="dan"), list_orders(customer="dan"))
spent = sum(o["total"] for o in orders["orders"])
money = await convert_currency(amount=spent, to=me["currency"])
print(money["converted"], money["to"])"#.to_owned()],
        },
        Task {
            name: "failed orders and a tool to report them",
            prompt: "How were Eve's failed orders paid, and which tool would open a GitHub issue about them?",
            turns: vec![
                vec![
                    ("search_tools", json!({"query": "open an issue on GitHub"})),
                    ("list_orders", json!({"customer": "eve"})),
                ],
                eve_failed.iter().map(|id| ("get_order", json!({"order_id": id}))).collect(),
            ],
            scripts: vec![r#"import asyncio
found, orders = await asyncio.gather(search_tools(query="open an issue on GitHub"), list_orders(customer="eve"))
failed = [o["id"] for o in orders["orders"] if o["status"] == "failed"]
for o in await asyncio.gather(*[get_order(order_id=i) for i in failed]):
    print(o["id"], o["payment"]["brand"], o["payment"]["last4"])
print("tool:", found["matches"][0]["name"])"#.to_owned()],
        },
        // The bundled time tools are deferred: a model finds them with `search_tools` first, in
        // either mode (in code mode, a first script prints what it found).
        Task {
            name: "meeting across zones (bundled tools)",
            prompt: "What time is it in Tokyo and in Oslo, and when is 09:00 in Oslo in Tokyo?",
            turns: vec![
                vec![("search_tools", json!({"query": "current time in a time zone"}))],
                vec![
                    ("get_current_time", json!({"timezone": "Asia/Tokyo"})),
                    ("get_current_time", json!({"timezone": "Europe/Oslo"})),
                ],
                vec![(
                    "convert_time",
                    json!({"time": "09:00", "from_timezone": "Europe/Oslo", "to_timezone": "Asia/Tokyo"}),
                )],
            ],
            scripts: vec![
                r#"found = await search_tools(query="current time in a time zone")
for m in found["matches"][:3]:
    print(m["stub"])"#
                    .to_owned(),
                r#"import asyncio
tokyo, oslo = await asyncio.gather(get_current_time(timezone="Asia/Tokyo"), get_current_time(timezone="Europe/Oslo"))
meeting = await convert_time(time="09:00", from_timezone="Europe/Oslo", to_timezone="Asia/Tokyo")
print("Tokyo", tokyo["datetime"], "Oslo", oslo["datetime"], "09:00 Oslo is", meeting["target"]["datetime"], "in Tokyo")"#
                    .to_owned(),
            ],
        },
    ]
}

fn calls_turn(calls: &[(&str, Value)], turn: usize) -> Vec<Value> {
    let mut chunks = Vec::new();
    for (i, (name, args)) in calls.iter().enumerate() {
        chunks.push(json!({"choices": [{"index": 0, "delta": {"tool_calls": [
            {"index": i, "id": format!("call_{turn}_{i}"), "type": "function",
             "function": {"name": name, "arguments": args.to_string()}}]}}]}));
    }
    chunks.push(json!({"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]}));
    chunks
}

fn text_turn(text: &str) -> Vec<Value> {
    vec![
        json!({"choices": [{"index": 0, "delta": {"role": "assistant", "content": text}}]}),
        json!({"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}),
    ]
}

/// What one way of doing a task cost the model.
struct Cost {
    tokens: usize,
    turns: usize,
    calls: usize,
}

/// Runs `turns` (then an answer) through an agent over `executor`; what its requests held.
async fn cost(
    base: &str,
    script: &Script,
    executor: Executor,
    turns: Vec<Vec<Value>>,
) -> (Cost, Vec<String>) {
    script.reset(turns);
    let config = ProviderConfig::new(base, "scripted").api_key("bench");
    let answer = Agent::new(executor, Provider::OpenAi, config)
        .max_turns(16)
        .run("")
        .await
        .expect("the scripted run ends with an answer");
    let requests = script.bodies();
    let tokens = requests.iter().map(|r| tool_lock::tokens::count(r)).sum();
    (
        Cost {
            tokens,
            turns: answer.turns,
            calls: answer.calls,
        },
        requests,
    )
}

fn median(mut samples: Vec<f64>) -> f64 {
    samples.sort_by(f64::total_cmp);
    samples[samples.len() / 2]
}

/// Median microseconds of `f` over `rounds` runs.
async fn micros<F, Fut>(rounds: usize, mut f: F) -> f64
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = ()>,
{
    for _ in 0..rounds.min(20) {
        f().await;
    }
    let mut samples = Vec::with_capacity(rounds);
    for _ in 0..rounds {
        let start = Instant::now();
        f().await;
        samples.push(start.elapsed().as_secs_f64() * 1e6);
    }
    median(samples)
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let mut rounds = 300;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--rounds" => {
                rounds = args
                    .next()
                    .and_then(|n| n.parse().ok())
                    .expect("--rounds N")
            }
            other => panic!("unknown argument {other}: usage: code-bench [--rounds N]"),
        }
    }
    let (base, script) = scripted_provider::serve(Vec::new()).await;

    let registry = world::registry();
    let native_executor = Executor::new(registry.clone());
    let code = CodeMode::new(Executor::new(registry));
    let code_executor = code.code_executor(RUN_CODE, &[]).unwrap();
    let mut rows = Vec::new();
    let (mut native_total, mut code_total) = (0, 0);
    println!(
        "| task | tool calls | native turns | native tokens | code turns | code tokens | code/native |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|");
    for task in tasks() {
        let calls = calls_of(&task.turns);
        assert!((3..=10).contains(&calls), "{}: {calls} calls", task.name);
        let answer = format!("(the answer to: {})", task.prompt);
        let mut native_turns: Vec<Vec<Value>> = task
            .turns
            .iter()
            .enumerate()
            .map(|(i, t)| calls_turn(t, i))
            .collect();
        native_turns.push(text_turn(&answer));
        let (native, _) = cost(&base, &script, native_executor.clone(), native_turns).await;
        assert_eq!(
            native.calls, calls,
            "{}: the native run made every call",
            task.name
        );
        let mut code_turns: Vec<Vec<Value>> = task
            .scripts
            .iter()
            .enumerate()
            .map(|(i, script)| calls_turn(&[(RUN_CODE, json!({"code": script}))], i))
            .collect();
        code_turns.push(text_turn(&answer));
        let (coded, requests) = cost(&base, &script, code_executor.clone(), code_turns).await;
        // The script ran to its end: its output, not an error, went back to the model.
        let last: Value = serde_json::from_str(requests.last().unwrap()).unwrap();
        let result = last["messages"]
            .as_array()
            .unwrap()
            .iter()
            .rev()
            .find(|m| m["role"] == "tool")
            .unwrap();
        let output = result["content"].as_str().unwrap_or_default();
        assert!(
            !output.contains("Error:"),
            "{}: the script failed: {output}",
            task.name
        );
        let ratio = coded.tokens as f64 / native.tokens as f64;
        println!(
            "| {} | {calls} | {} | {} | {} | {} | {ratio:.2} |",
            task.name, native.turns, native.tokens, coded.turns, coded.tokens
        );
        native_total += native.tokens;
        code_total += coded.tokens;
        rows.push(json!({
            "task": task.name,
            "calls": calls,
            "native": {"turns": native.turns, "tokens": native.tokens},
            "code": {"turns": coded.turns, "tokens": coded.tokens},
            "ratio": ratio,
        }));
    }
    let total_ratio = code_total as f64 / native_total as f64;
    println!("| all | | | {native_total} | | {code_total} | {total_ratio:.2} |");

    // Time: a direct call, a script's start, a script with that one call.
    let mut noop = Registry::empty();
    noop.register(
        DynamicTool::new("do_nothing", "Does nothing.", json!({"type": "object"}))
            .handler(|_, _| async { Ok(ToolOutput::new(Value::Null)) }),
    )
    .unwrap();
    let executor = Executor::new(noop);
    let ctx = ToolContext::new();
    let direct = micros(rounds * 10, || async {
        executor.call("do_nothing", json!({}), &ctx).await.unwrap();
    })
    .await;
    let mut sandboxes = vec![("in process", Sandbox::InProcess)];
    if let Some(worker) = WorkerCommand::beside_current_exe() {
        sandboxes.push(("worker process", Sandbox::Worker(worker)));
    } else {
        eprintln!(
            "code-bench: no tool-code-worker beside this binary: the worker rows are left out"
        );
    }
    let mut timing = Vec::new();
    println!("\n| sandbox | direct call (µs) | script start (µs) | script with one call (µs) |");
    println!("|---|---:|---:|---:|");
    for (name, sandbox) in sandboxes {
        let code = CodeMode::new(executor.clone()).sandbox(sandbox);
        let n = if name == "in process" {
            rounds
        } else {
            rounds / 10 + 1
        };
        let start = micros(n, || async {
            code.run("1", &ctx).await.result.unwrap();
        })
        .await;
        let one = micros(n, || async {
            code.run("await do_nothing()", &ctx).await.result.unwrap();
        })
        .await;
        println!("| {name} | {direct:.1} | {start:.1} | {one:.1} |");
        timing.push(json!({"sandbox": name, "direct_us": direct, "start_us": start, "one_call_us": one, "rounds": n}));
    }

    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let figures = json!({
        "tokenizer": tool_lock::tokens::TOKENIZER,
        "tasks": rows,
        "native_tokens": native_total,
        "code_tokens": code_total,
        "ratio": total_ratio,
        "timing": timing,
    });
    match meta::write_results(&root, "code", figures) {
        Ok(path) => eprintln!("code-bench: wrote {}", path.display()),
        Err(e) => eprintln!("code-bench: {e}"),
    }
}
