//! `code-bench`: code mode against native tool calling.
//!
//! ```text
//! cargo build --release -p tool-code --bin tool-code-worker
//! cargo run --release -p bench-code [-- --rounds N] [--check]
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

mod args;
#[path = "../../report/src/meta.rs"]
mod meta;
#[path = "../../../tests/support/scripted_provider.rs"]
mod scripted_provider;
mod shop;
mod tracker;

use std::path::Path;
use std::time::Instant;

use scripted_provider::Script;
use serde_json::{Value, json};
use tool_agent::{Agent, Provider, ProviderConfig};
use tool_bundle as _;
use tool_code::worker::WorkerCommand;
use tool_code::{CodeMode, RUN_CODE, Sandbox};
use tool_core::context::ToolRoot;
use tool_core::{Executor, Registry, ToolContext, ToolOutput, registry::DynamicTool};

/// Which set a task belongs to.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Set {
    /// The shop's tasks: measured while code mode's guide and stubs were made shorter.
    Development,
    /// The tracker's tasks: written after that, measured as they were first written.
    HeldOut,
}

impl Set {
    fn name(self) -> &'static str {
        match self {
            Set::Development => "development",
            Set::HeldOut => "held-out",
        }
    }
}

/// A task: what is asked, the calls a model makes turn by turn, the script that makes them in
/// code mode, and the answer.
struct Task {
    set: Set,
    /// Registers the world's core tools.
    world: fn(&mut Registry),
    name: &'static str,
    prompt: &'static str,
    turns: Vec<Vec<(&'static str, Value)>>,
    /// One script a turn (a model that must first find its tools writes two).
    scripts: Vec<String>,
}

/// `core`'s tools (shown to the model), the bundled tools and the 327 tools of the test catalog
/// (deferred, found with `search_tools`), and `search_tools`.
pub fn registry(core: fn(&mut Registry)) -> Registry {
    let mut r = Registry::linked().expect("the bundled tools link");
    core(&mut r);
    let catalog: Vec<Value> =
        serde_json::from_str(include_str!("../../../tests/data/catalog/tools.json"))
            .expect("the test catalog is JSON");
    for t in catalog {
        let name = t["name"].as_str().unwrap_or_default().to_owned();
        let description = t["description"].as_str().unwrap_or_default().to_owned();
        let tool = DynamicTool::new(name.clone(), description, t["inputSchema"].clone());
        let _ = r.register(tracker::stripe_handler(&name, tool));
    }
    tool_catalog::install(&mut r).expect("search_tools installs");
    r
}

fn calls_of(turns: &[Vec<(&'static str, Value)>]) -> usize {
    turns.iter().map(Vec::len).sum()
}

fn tasks() -> Vec<Task> {
    use shop::*;
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
    let mut all = vec![
        Task {
            set: Set::Development,
            world: shop::register_shop,
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
            set: Set::Development,
            world: shop::register_shop,
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
            set: Set::Development,
            world: shop::register_shop,
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
            set: Set::Development,
            world: shop::register_shop,
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
            set: Set::Development,
            world: shop::register_shop,
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
            set: Set::Development,
            world: shop::register_shop,
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
            set: Set::Development,
            world: shop::register_shop,
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
    ];
    all.extend(held_out());
    all
}

/// The held-out set: a project tracker's tools (core), the test catalog's Stripe tools and the
/// bundled file tools (deferred, found with `search_tools` first).
fn held_out() -> Vec<Task> {
    use tracker::*;
    let tracker = tracker::register;
    let newest_first = |p: usize| {
        let mut ids: Vec<u64> = issue_ids(p).collect();
        ids.reverse();
        ids
    };
    let open = |p: usize| {
        newest_first(p)
            .into_iter()
            .filter(|i| issue_state(*i) == "open")
            .collect::<Vec<_>>()
    };
    let first_seen = |ids: Vec<&'static str>| {
        let mut out: Vec<&'static str> = Vec::new();
        for id in ids {
            if !out.contains(&id) {
                out.push(id);
            }
        }
        out
    };
    let (api, web, cli, docs) = (0, 1, 2, 3);
    let p0_owners = first_seen(
        open(api)
            .into_iter()
            .filter(|i| priority(*i) == "p0")
            .map(assignee)
            .collect(),
    );
    let web_failed = build_ids(web)
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .find(|b| branch(*b) == "main" && build_status(*b) == "failed")
        .expect("web has a failed build on main");
    let cli_bugs: Vec<u64> = open(cli)
        .into_iter()
        .filter(|i| labels(*i).contains(&"bug"))
        .collect();
    let mut counts: Vec<(&str, usize)> = Vec::new();
    for i in open(api).into_iter().chain(open(docs)) {
        match counts.iter_mut().find(|(u, _)| *u == assignee(i)) {
            Some((_, n)) => *n += 1,
            None => counts.push((assignee(i), 1)),
        }
    }
    let busiest = counts
        .iter()
        .fold(None::<(&str, usize)>, |top, &(u, n)| match top {
            Some((_, m)) if m >= n => top,
            _ => Some((u, n)),
        })
        .expect("api and docs have open issues")
        .0;
    let manager = USERS[(user_index(busiest).unwrap() + 2) % USERS.len()];
    let org_customers: Vec<String> = (0..STRIPE_CUSTOMERS)
        .filter(|c| stripe_email(*c).ends_with("@example.org"))
        .map(|c| format!("cus_N{c:05}"))
        .collect();
    let configs_with_port: Vec<String> = SERVICES
        .iter()
        .filter(|(_, port)| *port)
        .map(|(s, _)| format!("services/{s}/config.toml"))
        .collect();
    let task = |name, prompt, turns, scripts: Vec<&str>| Task {
        set: Set::HeldOut,
        world: tracker,
        name,
        prompt,
        turns,
        scripts: scripts.into_iter().map(str::to_owned).collect(),
    };
    vec![
        task(
            "owners of urgent issues",
            "Who owns the open P0 issues in api, and in which time zone is each?",
            vec![
                vec![("list_issues", json!({"project": "api", "state": "open"}))],
                p0_owners
                    .iter()
                    .map(|u| ("get_user", json!({"user": u})))
                    .collect(),
            ],
            vec![
                r#"import asyncio
issues = (await list_issues(project="api", state="open"))["issues"]
owners = []
for i in issues:
    if i["priority"] == "p0" and i["assignee"] not in owners:
        owners.append(i["assignee"])
for u in await asyncio.gather(*[get_user(user=o) for o in owners]):
    print(u["name"], u["timezone"])"#,
            ],
        ),
        task(
            "a failed build and its issue",
            "Why did web's last failed build on main fail, who started it, and is there an open issue about that step?",
            vec![
                vec![("list_builds", json!({"project": "web"}))],
                vec![("get_build", json!({"build_id": web_failed}))],
                vec![
                    ("get_user", json!({"user": triggered_by(web_failed)})),
                    ("list_issues", json!({"project": "web", "state": "open"})),
                ],
            ],
            vec![
                r#"import asyncio
builds = (await list_builds(project="web"))["builds"]
failed = [b for b in builds if b["branch"] == "main" and b["status"] == "failed"][0]
build = await get_build(build_id=failed["id"])
step = [s for s in build["steps"] if s["status"] == "failed"][0]
who, issues = await asyncio.gather(get_user(user=failed["triggered_by"]), list_issues(project="web", state="open"))
print("build", build["id"], "failed at", step["name"], "-", step["log_tail"][-1])
print("started by", who["name"])
for i in issues["issues"]:
    if step["name"] in i["title"]:
        print("issue", i["id"], i["title"])"#,
            ],
        ),
        task(
            "stale issues everywhere",
            "Which open issues in any project were last updated before October, and who has each?",
            vec![
                vec![("list_projects", json!({}))],
                PROJECTS
                    .iter()
                    .map(|p| ("list_issues", json!({"project": p, "state": "open"})))
                    .collect(),
            ],
            vec![
                r#"import asyncio
projects = (await list_projects())["projects"]
lists = await asyncio.gather(*[list_issues(project=p["id"], state="open") for p in projects])
for l in lists:
    for i in l["issues"]:
        if i["updated"] < "2026-10":
            print(i["project"], i["id"], i["assignee"], i["updated"][:10])"#,
            ],
        ),
        task(
            "what one person said",
            "What did Rosa last say on each open bug in cli?",
            vec![
                vec![("list_issues", json!({"project": "cli", "state": "open"}))],
                cli_bugs
                    .iter()
                    .map(|i| ("get_issue", json!({"issue_id": i})))
                    .collect(),
            ],
            vec![
                r#"import asyncio
issues = (await list_issues(project="cli", state="open"))["issues"]
bugs = [i["id"] for i in issues if "bug" in i["labels"]]
for issue in await asyncio.gather(*[get_issue(issue_id=i) for i in bugs]):
    said = [c for c in issue["comments"] if c["author"] == "rosa"]
    print(issue["id"], said[-1]["body"] if said else "(nothing)")"#,
            ],
        ),
        task(
            "the busiest person's manager",
            "Who has the most open issues in api and docs together, and who is their manager (with email)?",
            vec![
                vec![
                    ("list_issues", json!({"project": "api", "state": "open"})),
                    ("list_issues", json!({"project": "docs", "state": "open"})),
                ],
                vec![("get_user", json!({"user": busiest}))],
                vec![("get_user", json!({"user": manager}))],
            ],
            vec![
                r#"import asyncio
a, d = await asyncio.gather(list_issues(project="api", state="open"), list_issues(project="docs", state="open"))
count = {}
for i in a["issues"] + d["issues"]:
    count[i["assignee"]] = count.get(i["assignee"], 0) + 1
top = None
for u in count:
    if top is None or count[u] > count[top]:
        top = u
person = await get_user(user=top)
boss = await get_user(user=person["manager"])
print(person["name"], count[top], "open issues; manager", boss["name"], boss["email"])"#,
            ],
        ),
        task(
            "payments waiting (catalog tools)",
            "Which of our Stripe customers at example.org have a payment still waiting for a payment method, and for how much?",
            vec![
                vec![(
                    "search_tools",
                    json!({"query": "list Stripe customers and their payment intents"}),
                )],
                vec![("stripe__list_customers", json!({"limit": 100}))],
                org_customers
                    .iter()
                    .map(|c| ("stripe__list_payment_intents", json!({"customer": c})))
                    .collect(),
            ],
            vec![
                r#"found = await search_tools(query="list Stripe customers and their payment intents")
for m in found["matches"]:
    print(m["stub"])"#,
                r#"import asyncio
customers = (await stripe__list_customers(limit=100))["data"]
ours = [c for c in customers if c["email"].endswith("@example.org")]
intents = await asyncio.gather(*[stripe__list_payment_intents(customer=c["id"]) for c in ours])
for c, p in zip(ours, intents):
    for pi in p["data"]:
        if pi["status"] == "requires_payment_method":
            print(c["email"], pi["id"], pi["amount"] / 100, pi["currency"])"#,
            ],
        ),
        task(
            "ports in config files (bundled tools)",
            "Which services' config files set a port, which port, and how big is each file?",
            vec![
                vec![(
                    "search_tools",
                    json!({"query": "search files by content and check a file's size"}),
                )],
                vec![(
                    "search_files",
                    json!({"pattern": "services/*/config.toml", "content": "^port"}),
                )],
                configs_with_port
                    .iter()
                    .map(|p| ("get_file_info", json!({"path": p})))
                    .collect(),
            ],
            vec![
                r#"found = await search_tools(query="search files by content and check a file's size")
for m in found["matches"]:
    print(m["stub"])"#,
                r#"import asyncio
hits = (await search_files(pattern="services/*/config.toml", content="^port"))["matches"]
infos = await asyncio.gather(*[get_file_info(path=h["path"]) for h in hits])
for h, f in zip(hits, infos):
    print(h["path"], h["text"], f["size"], "bytes")"#,
            ],
        ),
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
    ctx: &ToolContext,
    prompt: &str,
    turns: Vec<Vec<Value>>,
) -> (Cost, Vec<String>) {
    script.reset(turns);
    let config = ProviderConfig::new(base, "scripted").api_key("bench");
    let answer = Agent::new(executor, Provider::OpenAi, config)
        .context(ctx.clone())
        .max_turns(16)
        .run(prompt)
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
    let mut check_only = false;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--rounds" => {
                rounds = args
                    .next()
                    .and_then(|n| n.parse().ok())
                    .expect("--rounds N")
            }
            "--check" => check_only = true,
            other => panic!("unknown argument {other}: usage: code-bench [--rounds N] [--check]"),
        }
    }
    let (base, script) = scripted_provider::serve(Vec::new()).await;
    // The file task's tree, the same on every run; every task's calls see it as their root.
    let tree = std::env::temp_dir().join(format!("code-bench-{}", std::process::id()));
    tracker::write_tree(&tree).expect("the file task's tree is written");
    let ctx = ToolContext::builder()
        .root(ToolRoot::new(&tree).expect("the tree is a directory"))
        .build();

    let tasks = tasks();
    // Checked before anything is measured: each task's size, that every script runs to its
    // end, and that a script searching for deferred tools prints the stubs of every tool the
    // task calls after it.
    for task in &tasks {
        let calls = calls_of(&task.turns);
        assert!((3..=10).contains(&calls), "{}: {calls} calls", task.name);
        let registry = registry(task.world);
        let deferred: Vec<&str> = task.turns[1..]
            .iter()
            .flatten()
            .map(|(name, _)| *name)
            .filter(|name| !registry.get(name).is_some_and(|t| t.is_core()))
            .collect();
        let code = CodeMode::new(Executor::new(registry));
        for (i, source) in task.scripts.iter().enumerate() {
            let run = code.run(source, &ctx).await;
            assert!(
                run.result.is_ok(),
                "{}: script {i} failed: {:?}",
                task.name,
                run.result
            );
            if i == 0 && task.scripts.len() > 1 {
                for name in &deferred {
                    assert!(
                        run.printed.contains(&format!("async def {name}(")),
                        "{}: the search did not find {name}: {}",
                        task.name,
                        run.printed
                    );
                }
            }
        }
    }

    if check_only {
        eprintln!("code-bench: {} tasks checked", tasks.len());
        let _ = std::fs::remove_dir_all(&tree);
        return;
    }

    let mut rows = Vec::new();
    let mut totals = Vec::new();
    println!(
        "| set | task | tool calls | native turns | native tokens | code turns | code tokens | code/native |"
    );
    println!("|---|---|---:|---:|---:|---:|---:|---:|");
    for task in &tasks {
        let native_executor = Executor::new(registry(task.world));
        let code_executor = CodeMode::new(native_executor.clone())
            .code_executor(RUN_CODE, &[])
            .unwrap();
        let calls = calls_of(&task.turns);
        let answer = format!("(the answer to: {})", task.prompt);
        let mut native_turns: Vec<Vec<Value>> = task
            .turns
            .iter()
            .enumerate()
            .map(|(i, t)| calls_turn(t, i))
            .collect();
        native_turns.push(text_turn(&answer));
        let run = |executor, turns| cost(&base, &script, executor, &ctx, task.prompt, turns);
        let (native, _) = run(native_executor, native_turns).await;
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
        let (coded, requests) = run(code_executor, code_turns).await;
        // Every script ran to its end: its output, not an error, went back to the model.
        let last: Value = serde_json::from_str(requests.last().unwrap()).unwrap();
        for result in last["messages"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|m| m["role"] == "tool")
        {
            let output = result["content"].as_str().unwrap_or_default();
            assert!(
                !output.contains("Error:"),
                "{}: a script failed: {output}",
                task.name
            );
        }
        let ratio = coded.tokens as f64 / native.tokens as f64;
        println!(
            "| {} | {} | {calls} | {} | {} | {} | {} | {ratio:.2} |",
            task.set.name(),
            task.name,
            native.turns,
            native.tokens,
            coded.turns,
            coded.tokens
        );
        match totals.iter_mut().find(|(set, _, _)| *set == task.set) {
            Some((_, n, c)) => {
                *n += native.tokens;
                *c += coded.tokens;
            }
            None => totals.push((task.set, native.tokens, coded.tokens)),
        }
        rows.push(json!({
            "set": task.set.name(),
            "task": task.name,
            "calls": calls,
            "native": {"turns": native.turns, "tokens": native.tokens},
            "code": {"turns": coded.turns, "tokens": coded.tokens},
            "ratio": ratio,
        }));
    }
    let _ = std::fs::remove_dir_all(&tree);
    let sets: Vec<Value> = totals
        .iter()
        .map(|(set, native, code)| {
            let ratio = *code as f64 / *native as f64;
            println!(
                "| {} | all | | | {native} | | {code} | {ratio:.2} |",
                set.name()
            );
            json!({"set": set.name(), "native_tokens": native, "code_tokens": code, "ratio": ratio})
        })
        .collect();

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
        "sets": sets,
        "timing": timing,
    });
    match meta::write_results(&root, "code", figures) {
        Ok(path) => eprintln!("code-bench: wrote {}", path.display()),
        Err(e) => eprintln!("code-bench: {e}"),
    }
}
