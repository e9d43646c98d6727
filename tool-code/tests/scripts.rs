//! Scripts against real executors: tools called through the whole pipeline, errors caught,
//! calls batched, and every limit reached.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use serde_json::json;
use tool_code::worker::WorkerCommand;
use tool_code::{CodeLimits, CodeMode, Limit, Sandbox, ScriptError};
use tool_core::context::{ApprovalFuture, ApprovalRequest, Approver, Decision, Remember};
use tool_core::{Executor, Registry, ToolContext, ToolError, ToolOutput, registry::DynamicTool};

/// A registry of small tools, and how many times each kind ran.
/// A shop's tools, counting their runs in `runs`; each executor gets a registry of its own
/// (`Shop::registry`), all counting in the one `runs`.
struct Shop {
    runs: Arc<AtomicUsize>,
}

fn shop() -> Shop {
    Shop {
        runs: Arc::new(AtomicUsize::new(0)),
    }
}

impl Shop {
    fn registry(&self) -> Registry {
        shop_registry(&self.runs)
    }
}

fn shop_registry(runs: &Arc<AtomicUsize>) -> Registry {
    let mut registry = Registry::empty();
    let r = runs.clone();
    registry
        .register(
            DynamicTool::new(
                "list_orders",
                "Lists a customer's orders.",
                json!({
                    "type": "object",
                    "properties": {"customer": {"type": "string"}},
                    "required": ["customer"],
                    "additionalProperties": false
                }),
            )
            .core(true)
            .handler(move |input, _| {
                r.fetch_add(1, Ordering::SeqCst);
                async move {
                    match input["customer"].as_str() {
                        Some("ada") => Ok(ToolOutput::new(json!([
                            {"id": 1, "total": 30},
                            {"id": 2, "total": 120},
                            {"id": 3, "total": 75}
                        ]))),
                        _ => Err(ToolError::not_found("no such customer")),
                    }
                }
            }),
        )
        .unwrap();
    let r = runs.clone();
    registry
        .register(
            DynamicTool::new(
                "get_order",
                "One order's lines.",
                json!({
                    "type": "object",
                    "properties": {"id": {"type": "integer"}},
                    "required": ["id"],
                    "additionalProperties": false
                }),
            )
            .handler(move |input, _| {
                r.fetch_add(1, Ordering::SeqCst);
                async move {
                    let id = input["id"].as_i64().ok_or_else(|| {
                        ToolError::invalid_input("expected an integer").with_path("id")
                    })?;
                    if id == 3 {
                        return Err(ToolError::unavailable("the warehouse is offline"));
                    }
                    Ok(ToolOutput::new(json!({"id": id, "lines": id * 2})))
                }
            }),
        )
        .unwrap();
    let r = runs.clone();
    registry
        .register(
            DynamicTool::new(
                "refund_order",
                "Refunds an order.",
                json!({
                    "type": "object",
                    "properties": {"id": {"type": "integer"}},
                    "required": ["id"]
                }),
            )
            .approval(tool_core::registry::ToolApproval::new())
            .handler(move |input, _| {
                r.fetch_add(1, Ordering::SeqCst);
                async move { Ok(ToolOutput::text(format!("refunded {}", input["id"]))) }
            }),
        )
        .unwrap();
    let r = runs.clone();
    registry
        .register(
            DynamicTool::new("read_secrets", "Reads secrets.", json!({"type": "object"}))
                .scopes(["secrets:read"])
                .handler(move |_, _| {
                    r.fetch_add(1, Ordering::SeqCst);
                    async { Ok(ToolOutput::text("hunter2")) }
                }),
        )
        .unwrap();
    let r = runs.clone();
    registry
        .register(
            DynamicTool::new("count_up", "Counts.", json!({"type": "object"})).handler(
                move |_, _| {
                    let n = r.fetch_add(1, Ordering::SeqCst);
                    async move { Ok(ToolOutput::new(json!(n))) }
                },
            ),
        )
        .unwrap();
    registry
}

fn code(shop: &Shop) -> CodeMode {
    CodeMode::new(Executor::new(shop.registry()))
}

/// Answers every approval request the same way, and counts them.
struct Answer {
    approve: bool,
    asked: AtomicUsize,
}

impl Approver for Answer {
    fn approve<'a>(&'a self, _request: &'a ApprovalRequest<'a>) -> ApprovalFuture<'a> {
        self.asked.fetch_add(1, Ordering::SeqCst);
        let approve = self.approve;
        Box::pin(async move {
            if approve {
                Decision::Approved {
                    remember: Remember::No,
                }
            } else {
                Decision::Denied {
                    reason: Some("not today".into()),
                }
            }
        })
    }
}

fn worker() -> Sandbox {
    Sandbox::Worker(WorkerCommand::new(env!("CARGO_BIN_EXE_tool-code-worker")))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_script_loops_over_tools_catches_an_error_and_returns_a_summary() {
    for sandbox in [Sandbox::InProcess, worker()] {
        loops_catches_and_summarises(sandbox).await;
    }
}

async fn loops_catches_and_summarises(sandbox: Sandbox) {
    let shop = shop();
    let script = r#"
orders = await list_orders(customer="ada")
lines = 0
failed = []
for order in orders:
    try:
        detail = await get_order(id=order["id"])
        lines += detail["lines"]
    except OSError as e:
        failed.append((order["id"], str(e)))
try:
    await list_orders(customer="bob")
except LookupError as e:
    print("bob:", e)
{"orders": len(orders), "lines": lines, "failed": failed}
"#;
    let run = code(&shop)
        .sandbox(sandbox)
        .run(script, &ToolContext::new())
        .await;
    assert_eq!(
        run.result,
        Ok(json!({
            "orders": 3,
            "lines": 6,
            "failed": [[3, "unavailable: the warehouse is offline"]]
        }))
    );
    assert_eq!(run.printed, "bob: not_found: no such customer\n");
    assert_eq!(run.tool_calls, 5);
    assert_eq!(shop.runs.load(Ordering::SeqCst), 5);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn calls_awaited_together_run_as_one_concurrent_batch() {
    // Each call waits until both are in flight: run one after the other, they would wait out
    // the wall time.
    let barrier = Arc::new(tokio::sync::Barrier::new(2));
    let mut registry = Registry::empty();
    registry
        .register(
            DynamicTool::new(
                "wait_both",
                "Waits for its twin.",
                json!({"type": "object", "properties": {"n": {"type": "integer"}}}),
            )
            .handler(move |input, _| {
                let barrier = barrier.clone();
                async move {
                    barrier.wait().await;
                    Ok(ToolOutput::new(input["n"].clone()))
                }
            }),
        )
        .unwrap();
    let code = CodeMode::new(Executor::new(registry))
        .limits(CodeLimits::default().wall_time(Duration::from_secs(10)));
    let script =
        "import asyncio\na, b = await asyncio.gather(wait_both(n=1), wait_both(n=2))\n[a, b]";
    let run = code.run(script, &ToolContext::new()).await;
    assert_eq!(run.result, Ok(json!([1, 2])));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_from_a_script_asks_for_approval_like_any_other() {
    let shop = shop();
    for approve in [true, false] {
        let answer = Arc::new(Answer {
            approve,
            asked: AtomicUsize::new(0),
        });
        let ctx = ToolContext::builder()
            .approver(answer.clone() as Arc<dyn Approver>)
            .build();
        let script = r#"
try:
    out = await refund_order(id=7)
except PermissionError as e:
    out = str(e)
out
"#;
        let run = code(&shop).run(script, &ctx).await;
        assert_eq!(answer.asked.load(Ordering::SeqCst), 1);
        let text = run.result.unwrap();
        if approve {
            assert_eq!(text, json!("refunded 7"));
        } else {
            assert!(
                text.as_str().unwrap().starts_with("not_approved: "),
                "{text}"
            );
        }
    }
    // Approved once, declined once: the tool ran once.
    assert_eq!(shop.runs.load(Ordering::SeqCst), 1);
    // No approver at all: not run, and the script is told.
    let run = code(&shop)
        .run("await refund_order(id=1)", &ToolContext::new())
        .await;
    let Err(ScriptError::Raised { exception, .. }) = &run.result else {
        panic!("{:?}", run.result)
    };
    assert_eq!(exception, "PermissionError");
    assert_eq!(shop.runs.load(Ordering::SeqCst), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_callers_scopes_hold_inside_a_script() {
    let shop = shop();
    let run = code(&shop)
        .run(
            "try:\n    await read_secrets()\nexcept PermissionError as e:\n    print(e)",
            &ToolContext::builder().principal("ada").build(),
        )
        .await;
    assert!(run.printed.starts_with("permission_denied: "), "{run:?}");
    assert_eq!(shop.runs.load(Ordering::SeqCst), 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn arguments_are_checked_by_the_tools_schema() {
    let shop = shop();
    let code = code(&shop);
    let ctx = ToolContext::new();
    let run = code.run("await get_order(id=\"seven\")", &ctx).await;
    let Err(ScriptError::Raised {
        exception, message, ..
    }) = &run.result
    else {
        panic!("{:?}", run.result)
    };
    assert_eq!(exception, "ValueError");
    assert!(message.starts_with("invalid_input: "), "{message}");
    let run = code.run("await get_order(7)", &ctx).await;
    let Err(ScriptError::Raised {
        exception, message, ..
    }) = &run.result
    else {
        panic!("{:?}", run.result)
    };
    assert_eq!(exception, "TypeError");
    assert!(message.contains("keyword arguments only"), "{message}");
    let run = code.run("await get_order(id={1, 2})", &ctx).await;
    let Err(ScriptError::Raised {
        exception, message, ..
    }) = &run.result
    else {
        panic!("{:?}", run.result)
    };
    assert_eq!(exception, "TypeError");
    assert!(
        message.contains("set is not JSON serializable"),
        "{message}"
    );
    // The first call reached the tool, whose decoding refused it; the others never left the
    // script.
    assert_eq!(shop.runs.load(Ordering::SeqCst), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_never_awaited_never_runs() {
    let shop = shop();
    let run = code(&shop)
        .run("c = count_up()\n'done'", &ToolContext::new())
        .await;
    assert_eq!(run.result, Ok(json!("done")));
    assert_eq!(shop.runs.load(Ordering::SeqCst), 0);
}

/// A model's commonest slip: the call's coroutine returned or passed on in place of its
/// result. The error names the call and the fix, wherever the coroutine is.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unawaited_call_is_named_with_its_fix() {
    let shop = shop();
    let fix =
        "the call count_up(...) was never awaited, so it never ran: write `await count_up(...)`";
    for (script, at) in [
        ("count_up()", "$"),
        ("c = count_up()\n{'counts': [1, c]}", "$.counts[1]"),
    ] {
        let run = code(&shop).run(script, &ToolContext::new()).await;
        let Err(ScriptError::Result(e)) = &run.result else {
            panic!("{script}: {:?}", run.result)
        };
        assert_eq!((e.path.as_str(), e.reason.as_str()), (at, fix), "{script}");
    }
    // Passed to another tool, it is the argument's error.
    let run = code(&shop)
        .run("await get_order(id=count_up())", &ToolContext::new())
        .await;
    let Err(ScriptError::Raised { message, .. }) = &run.result else {
        panic!("{:?}", run.result)
    };
    assert!(message.contains(fix), "{message}");
    assert_eq!(shop.runs.load(Ordering::SeqCst), 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_name_that_is_not_a_tool_is_a_name_error() {
    let shop = shop();
    let run = code(&shop)
        .run("await delete_everything()", &ToolContext::new())
        .await;
    let Err(ScriptError::Raised { exception, .. }) = &run.result else {
        panic!("{:?}", run.result)
    };
    assert_eq!(exception, "NameError");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cancelled_context_cancels_the_script() {
    let shop = shop();
    let ctx = ToolContext::new();
    ctx.cancellation().cancel();
    let run = code(&shop).run("while True:\n    pass", &ctx).await;
    assert_eq!(run.result, Err(ScriptError::Cancelled));
}

/// A script that must end with `expected`'s limit, having run no tool more than `max_runs`
/// times.
fn limited(script: &str) -> (CodeMode, Shop, String) {
    let shop = shop();
    let code = code(&shop).limits(
        CodeLimits::default()
            .cpu_time(Duration::from_millis(500))
            .wall_time(Duration::from_secs(20))
            .max_tool_calls(10)
            .max_output(1000)
            .max_result(1000)
            .max_memory(1 << 20)
            .max_recursion(50)
            .max_script(10_000),
    );
    (code, shop, script.to_owned())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_limit_ends_the_script_with_its_own_error() {
    let cases: &[(&str, Limit)] = &[
        ("while True:\n    pass", Limit::CpuTime),
        ("x = 'x' * 10**9", Limit::Memory),
        ("def f(n):\n    return f(n + 1)\nf(0)", Limit::Recursion),
        (
            "for i in range(100):\n    await count_up()",
            Limit::ToolCalls,
        ),
        (
            "for i in range(100):\n    try:\n        await count_up()\n    except Exception:\n        pass",
            Limit::ToolCalls,
        ),
        ("print('x' * 5000)", Limit::Output),
        ("for i in range(100):\n    print('x' * 50)", Limit::Output),
        ("'x' * 5000", Limit::Result),
        ("'x' * 20000", Limit::Result),
    ];
    for (script, expected) in cases {
        let (code, shop, script) = limited(script);
        let run = code.run(&script, &ToolContext::new()).await;
        assert_eq!(
            run.result.as_ref().err().and_then(ScriptError::limit),
            Some(*expected),
            "{script}: {run:?}"
        );
        assert!(run.printed.len() <= 1000);
        assert!(shop.runs.load(Ordering::SeqCst) <= 10, "{script}");
        let text = run.to_text();
        assert!(text.contains(expected.as_str()), "{text}");
    }
    let (code, _, _) = limited("");
    let run = code.run(&"x = 1\n".repeat(2000), &ToolContext::new()).await;
    assert_eq!(run.result.unwrap_err().limit(), Some(Limit::Script));
}

#[tokio::test(start_paused = true)]
async fn the_wall_clock_counts_the_time_tools_take() {
    let mut registry = Registry::empty();
    registry
        .register(
            DynamicTool::new("wait_long", "Waits.", json!({"type": "object"})).handler(
                |_, _| async {
                    tokio::time::sleep(Duration::from_secs(3600)).await;
                    Ok(ToolOutput::text("late"))
                },
            ),
        )
        .unwrap();
    let code = CodeMode::new(Executor::new(registry))
        .limits(CodeLimits::default().wall_time(Duration::from_millis(200)));
    let run = code.run("await wait_long()", &ToolContext::new()).await;
    assert_eq!(run.result.unwrap_err().limit(), Some(Limit::WallTime));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_run_reads_as_its_output_then_its_result() {
    let shop = shop();
    let code = code(&shop);
    let ctx = ToolContext::new();
    let run = code.run("print('hi')\n{'a': 1}", &ctx).await;
    assert_eq!(run.to_text(), "hi\nResult: {\"a\":1}");
    let run = code.run("print('hi', end='')", &ctx).await;
    assert_eq!(run.to_text(), "hi\n");
    let run = code.run("print('before')\n1 / 0", &ctx).await;
    let text = run.to_text();
    assert!(text.starts_with("before\nError: Traceback"), "{text}");
    assert!(
        text.ends_with("ZeroDivisionError: division by zero"),
        "{text}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_worker_that_cannot_start_or_dies_is_an_interpreter_error() {
    let shop = shop();
    for program in ["/nonexistent/tool-code-worker", "/bin/true"] {
        let run = code(&shop)
            .sandbox(Sandbox::Worker(WorkerCommand::new(program)))
            .run("1", &ToolContext::new())
            .await;
        let Err(ScriptError::Interpreter(message)) = &run.result else {
            panic!("{program}: {:?}", run.result)
        };
        assert!(message.contains("worker"), "{message}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_script_finds_a_deferred_tool_and_calls_it() {
    let mut registry = Registry::empty();
    registry
        .register(
            DynamicTool::new(
                "convert_currency",
                "Converts an amount between currencies at today's rate.",
                json!({
                    "type": "object",
                    "properties": {
                        "amount": {"type": "number"},
                        "to": {"type": "string", "description": "ISO 4217 code"}
                    },
                    "required": ["amount", "to"]
                }),
            )
            .handler(|input, _| async move {
                Ok(ToolOutput::new(json!(
                    input["amount"].as_f64().unwrap_or_default() * 2.0
                )))
            }),
        )
        .unwrap();
    tool_catalog::install(&mut registry).unwrap();
    let code = CodeMode::new(Executor::new(registry));
    // The model is shown search_tools, not the deferred tool.
    let shown = code.shown_stubs();
    assert!(shown.contains("async def search_tools("), "{shown}");
    assert!(!shown.contains("convert_currency"), "{shown}");
    let script = r#"
found = await search_tools(query="convert money to another currency")
top = found["matches"][0]
print(top["stub"].splitlines()[0])
await convert_currency(amount=10, to="EUR")
"#;
    let run = code.run(script, &ToolContext::new()).await;
    assert_eq!(run.result, Ok(json!(20.0)));
    assert_eq!(
        run.printed,
        "async def convert_currency(*, amount: float, to: str):\n"
    );
}

/// A run that a call's question ends (as a 2026-07-28 MCP call's does) keeps the results of the
/// calls made before it; the call's next run replays them and makes only the rest.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_paused_script_resumes_without_making_its_calls_again() {
    use tool_core::context::Rerun;
    let shop = shop();
    let answered = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let mut registry = shop.registry();
    let a = answered.clone();
    registry
        .register(
            DynamicTool::new("ask_person", "Asks a person.", json!({"type": "object"})).handler(
                move |_, ctx| {
                    let a = a.clone();
                    async move {
                        if a.load(Ordering::SeqCst) {
                            return Ok(ToolOutput::new(json!("yes")));
                        }
                        // What an adapter's question does: mark the run, end the call.
                        if let Some(rerun) = ctx.extension::<Rerun>() {
                            rerun.set_waiting();
                        }
                        Err(ToolError::failed("waiting for the answer"))
                    }
                },
            ),
        )
        .unwrap();
    let code = CodeMode::new(Executor::new(registry));
    let script = "import asyncio\nn = await count_up()\nm, o = await asyncio.gather(count_up(), count_up())\nanswer = await ask_person()\n[n, sorted([m, o]), answer, await count_up()]";
    let first = Rerun::carrying(None);
    let ctx = ToolContext::builder().extension(first.clone()).build();
    let run = code.run(script, &ctx).await;
    assert_eq!(run.result, Err(ScriptError::Paused));
    assert_eq!(shop.runs.load(Ordering::SeqCst), 3);
    // The answer comes; the call runs again with what the first run kept.
    answered.store(true, Ordering::SeqCst);
    let second = Rerun::carrying(first.kept());
    let ctx = ToolContext::builder().extension(second.clone()).build();
    let run = code.run(script, &ctx).await;
    assert_eq!(run.result, Ok(json!([0, [1, 2], "yes", 3])));
    // The three calls before the pause ran once; only the one after it ran now.
    assert_eq!(shop.runs.load(Ordering::SeqCst), 4);
    assert_eq!(run.tool_calls, 5);
}

/// A script's calls are made for a model: a tool for views only is no function of a script,
/// and a tool the script calls cannot reach one either (the executor refuses it to the script's
/// audience, whoever asks). And they are calls within the script's call: the depth limit holds.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_scripts_calls_are_a_models_and_nested_in_its_own() {
    use tool_core::definition::Visibility;
    let pressed = Arc::new(AtomicUsize::new(0));
    let mut registry = Registry::empty();
    let p = pressed.clone();
    registry
        .register(
            DynamicTool::new(
                "press_button",
                "A card's button.",
                json!({"type": "object"}),
            )
            .visibility(Visibility::App)
            .handler(move |_, _| {
                p.fetch_add(1, Ordering::SeqCst);
                async { Ok(ToolOutput::text("pressed")) }
            }),
        )
        .unwrap();
    registry
        .register(
            DynamicTool::new(
                "press_for_me",
                "Presses the button.",
                json!({"type": "object"}),
            )
            .handler(|_, ctx| async move { ctx.call_tool("press_button", json!({})).await }),
        )
        .unwrap();
    let application = Executor::new(registry);
    let code = CodeMode::new(application.clone());
    let ctx = ToolContext::new();
    let run = code.run("await press_button()", &ctx).await;
    let Err(ScriptError::Raised { exception, .. }) = &run.result else {
        panic!("{:?}", run.result)
    };
    assert_eq!(exception, "NameError");
    let run = code.run("await press_for_me()", &ctx).await;
    let Err(ScriptError::Raised {
        exception, message, ..
    }) = &run.result
    else {
        panic!("{:?}", run.result)
    };
    assert_eq!(exception, "NameError", "{message}");
    assert!(
        message.contains("no tool is named `press_button`"),
        "{message}"
    );
    assert_eq!(pressed.load(Ordering::SeqCst), 0);
    // The application itself may press it.
    application
        .call("press_for_me", json!({}), &ctx)
        .await
        .unwrap();
    assert_eq!(pressed.load(Ordering::SeqCst), 1);

    // The script's call is one level deep: no deeper is allowed here, so it is refused, and
    // a script one level down (its call made by a tool) meets the limit one call sooner.
    let shop = shop();
    let shallow = tool_core::exec::ExecPolicy::default().max_call_depth(0);
    let code = CodeMode::new(Executor::with_policy(shop.registry(), shallow));
    let run = code.run("await count_up()", &ctx).await;
    let Err(ScriptError::Raised { message, .. }) = &run.result else {
        panic!("{:?}", run.result)
    };
    assert!(message.contains("levels deep"), "{message}");
    assert_eq!(shop.runs.load(Ordering::SeqCst), 0);
    let one = tool_core::exec::ExecPolicy::default().max_call_depth(1);
    let code = CodeMode::new(Executor::with_policy(shop.registry(), one));
    let run = code.run("await count_up()", &ctx).await;
    assert_eq!(run.result, Ok(json!(0)));
}

/// A person who says yes and keeps what they were shown.
#[derive(Default)]
struct Shown(std::sync::Mutex<Vec<(String, serde_json::Value)>>);

impl Approver for Shown {
    fn approve<'a>(&'a self, request: &'a ApprovalRequest<'a>) -> ApprovalFuture<'a> {
        self.0
            .lock()
            .unwrap()
            .push((request.tool.to_owned(), request.arguments.clone()));
        Box::pin(async {
            Decision::Approved {
                remember: Remember::No,
            }
        })
    }
}

/// Under `--approval destructive` a script is judged by its calls, not by what it might
/// reach: the code tool is not asked about, so a script that reads, then deletes, runs its
/// read for a caller no one can ask and stops at the delete; with someone to ask, the one
/// question is the delete's, with its arguments. Naming the code tool asks about the script.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_script_is_judged_by_its_calls() {
    use tool_core::definition::Annotations;
    use tool_core::exec::{ApprovalPolicy, ExecPolicy};
    let (reads, deletes) = (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0)));
    let registry = || {
        let mut registry = Registry::empty();
        let r = reads.clone();
        let d = deletes.clone();
        registry
            .register_all([
                DynamicTool::new(
                    "count_records",
                    "Counts records.",
                    json!({"type": "object"}),
                )
                .core(true)
                .vouched(true)
                .handler(move |_, _| {
                    r.fetch_add(1, Ordering::SeqCst);
                    async { Ok(ToolOutput::new(json!(3))) }
                }),
                DynamicTool::new(
                    "delete_record",
                    "Deletes a record.",
                    json!({"type": "object"}),
                )
                .core(true)
                .annotations(Annotations::default().read_only(false).destructive(true))
                .vouched(true)
                .handler(move |_, _| {
                    d.fetch_add(1, Ordering::SeqCst);
                    async { Ok(ToolOutput::text("deleted")) }
                }),
            ])
            .unwrap();
        registry
    };
    let script = "n = await count_records()\nawait delete_record(id=n)\n'done'";
    let under = |policy: &str| {
        let policy = ExecPolicy::default().approval(policy.parse::<ApprovalPolicy>().unwrap());
        let code = CodeMode::new(Executor::with_policy(registry(), policy));
        code.code_executor(tool_code::EXECUTE_CODE, &[]).unwrap()
    };
    let executor = under("destructive");
    // The listing says what a script may reach; the policy does not ask about the script.
    let code_tool = executor.registry().get(tool_code::EXECUTE_CODE).unwrap();
    assert!(code_tool.annotations().destructive);
    let input = json!({ "code": script });

    // No one to ask: the read runs, the delete is refused, the script says why.
    let out = executor
        .call(tool_code::EXECUTE_CODE, input.clone(), &ToolContext::new())
        .await
        .unwrap();
    assert!(out.echo().contains("PermissionError"), "{}", out.echo());
    assert_eq!(
        (reads.load(Ordering::SeqCst), deletes.load(Ordering::SeqCst)),
        (1, 0)
    );

    // Someone to ask: one question, the delete's, with its arguments.
    let person = Arc::new(Shown::default());
    let ctx = ToolContext::builder()
        .approver(person.clone() as Arc<dyn Approver>)
        .build();
    let out = executor
        .call(tool_code::EXECUTE_CODE, input.clone(), &ctx)
        .await
        .unwrap();
    assert!(out.echo().contains("done"), "{}", out.echo());
    assert_eq!(
        *person.0.lock().unwrap(),
        [("delete_record".to_owned(), json!({"id": 3}))]
    );
    assert_eq!(
        (reads.load(Ordering::SeqCst), deletes.load(Ordering::SeqCst)),
        (2, 1)
    );

    // Naming the code tool asks about the script first.
    let named = under(&format!("destructive {}", tool_code::EXECUTE_CODE));
    let err = named
        .call(tool_code::EXECUTE_CODE, input, &ToolContext::new())
        .await
        .unwrap_err();
    assert_eq!(
        err.kind(),
        tool_core::error::ErrorKind::NotApproved,
        "{err}"
    );
    assert_eq!(reads.load(Ordering::SeqCst), 2, "the script never started");
}
