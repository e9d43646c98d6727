//! The one door: every way tool-core offers to run a tool passes the executor's stages and the
//! application's layers, in the documented order. Layers rewrite arguments, redact results and
//! refuse calls; nested calls pass the same layers; a person approving a call reads the
//! arguments as a layer and a transform left them; a refused call is audited and runs nothing.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use serde_json::{Value, json};
use tool_core::exec::{Call, ExecPolicy, Executor, Layer, LayerFuture, Next, ToolCall, layer_fn};
use tool_core::prelude::*;
use tool_core::registry::transform::{ToolFilter, Transforms};
use tool_core::{
    context::{ApprovalFuture, ApprovalRequest, Approver, AuditRecord, AuditSink, Decision},
    registry::DynamicTool,
    registry::ToolApproval,
};

tool_core::domain!(pub vault, "Secrets kept for a team");

/// How often each tool of this file ran, by a key each test picks.
static RUNS: Mutex<Vec<String>> = Mutex::new(Vec::new());

fn runs(key: &str) -> usize {
    RUNS.lock().unwrap().iter().filter(|k| *k == key).count()
}

/// Reads a secret of a team; returns its value and who may see it.
#[tool(domain = vault, label = "Reading a secret", hint = "A team's secret")]
fn read_secret(team: String, name: String) -> Value {
    RUNS.lock().unwrap().push(format!("read:{name}"));
    json!({"team": team, "name": name, "value": "hunter2", "owner": "ada@example.com"})
}

/// Deletes a secret of a team.
#[tool(domain = vault, label = "Deleting a secret", hint = "Delete a secret", destructive,
       approval = "Delete the secret {name} of {team}?")]
fn delete_secret(team: String, name: String) -> String {
    RUNS.lock().unwrap().push(format!("delete:{name}"));
    format!("{team}/{name}")
}

/// Reads a secret through `read_secret`, as a tool that calls tools does.
#[tool(domain = vault, label = "Looking a secret up", hint = "Look a secret up")]
async fn look_up_secret(ctx: &ToolContext, name: String) -> Result<Value, ToolError> {
    let out = ctx
        .call_tool("read_secret", json!({"team": "core", "name": name}))
        .await?;
    Ok(out.into_data().unwrap_or_default())
}

/// Deletes a secret through `delete_secret`.
#[tool(domain = vault, label = "Cleaning up", hint = "Clean up a secret", read_only = false)]
async fn clean_secret(ctx: &ToolContext, name: String) -> Result<String, ToolError> {
    let out = ctx
        .call_tool("delete_secret", json!({"team": "core", "name": name}))
        .await?;
    Ok(out.echo().into_owned())
}

/// A team's secret, as a resource: its text names the value.
#[resource(uri = "vault://{team}/{name}", mime_type = "text/plain")]
fn secret_text(team: String, name: String) -> String {
    RUNS.lock().unwrap().push(format!("read:{name}"));
    format!("{team}/{name}: hunter2")
}

/// A prompt that hands the model a secret.
#[prompt]
fn use_secret(name: String) -> String {
    RUNS.lock().unwrap().push(format!("prompt:{name}"));
    format!("Log in as {name} with hunter2")
}

/// Every `value` in a result becomes `[redacted]`, and the secret in any text.
struct Redact;

impl Layer for Redact {
    fn call<'a>(&'a self, call: Call<'a>, next: Next<'a>) -> LayerFuture<'a> {
        Box::pin(async move {
            let mut out = next.run(call).await?;
            if let Some(Value::Object(data)) = out.data_mut()
                && data.contains_key("value")
            {
                data.insert("value".into(), json!("[redacted]"));
            }
            for text in out.texts_mut() {
                *text = text.replace("hunter2", "[redacted]");
            }
            Ok(out)
        })
    }
}

/// Puts every call that names a team in the team `core`, whatever the model asked.
fn pin_team() -> impl Layer {
    layer_fn(async |mut call, next| {
        if let Some(team) = call.input_mut().get_mut("team") {
            *team = json!("core");
        }
        next.run(call).await
    })
}

/// Refuses any call whose `name` starts with `prod_`.
fn no_prod() -> impl Layer {
    layer_fn(async |call, next| {
        let prod = call.input()["name"]
            .as_str()
            .is_some_and(|n| n.starts_with("prod_"));
        if prod {
            return Err(ToolError::refused("production secrets stay put"));
        }
        next.run(call).await
    })
}

/// Writes down the order layers see a call in and its result come back.
struct Trace {
    name: &'static str,
    seen: Arc<Mutex<Vec<String>>>,
}

impl Layer for Trace {
    fn call<'a>(&'a self, call: Call<'a>, next: Next<'a>) -> LayerFuture<'a> {
        self.seen
            .lock()
            .unwrap()
            .push(format!("{} in {}", self.name, call.item().name()));
        Box::pin(async move {
            let result = next.run(call).await;
            self.seen.lock().unwrap().push(format!("{} out", self.name));
            result
        })
    }
}

/// Answers yes, keeping what it was shown.
#[derive(Default)]
struct Yes {
    shown: Mutex<Vec<(String, Value)>>,
}

impl Approver for Yes {
    fn approve<'a>(&'a self, request: &'a ApprovalRequest<'a>) -> ApprovalFuture<'a> {
        self.shown
            .lock()
            .unwrap()
            .push((request.message.to_owned(), request.arguments.clone()));
        Box::pin(async { Decision::approved() })
    }
}

#[derive(Default)]
struct Audit(Mutex<Vec<AuditRecord>>);

impl AuditSink for Audit {
    fn record(&self, record: &AuditRecord) {
        self.0.lock().unwrap().push(record.clone());
    }
}

fn executor() -> Executor {
    Executor::builder(Registry::linked().unwrap())
        .layer(no_prod())
        .layer(pin_team())
        .layer(Redact)
        .build()
}

#[tokio::test]
async fn a_layer_rewrites_arguments_another_redacts_the_result() {
    let out = executor()
        .call(
            "read_secret",
            json!({"team": "other", "name": "rewrite_1"}),
            &ToolContext::new(),
        )
        .await
        .unwrap();
    let data = out.data().unwrap();
    assert_eq!(data["team"], "core", "the tool saw the rewritten team");
    assert_eq!(data["value"], "[redacted]");
    assert_eq!(runs("read:rewrite_1"), 1);
}

#[tokio::test]
async fn a_refusing_layer_leaves_the_tool_unrun_and_is_audited() {
    let audit = Arc::new(Audit::default());
    let approver = Arc::new(Yes::default());
    let ctx = ToolContext::builder()
        .audit(audit.clone())
        .approver(approver.clone())
        .build();
    let err = executor()
        .call(
            "delete_secret",
            json!({"team": "core", "name": "prod_db"}),
            &ctx,
        )
        .await
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Refused);
    assert_eq!(err.message(), "production secrets stay put");
    assert_eq!(runs("delete:prod_db"), 0);
    assert!(
        approver.shown.lock().unwrap().is_empty(),
        "no one is asked about a refused call"
    );
    let records = audit.0.lock().unwrap();
    assert_eq!(records.len(), 1);
    assert_eq!(records[0].outcome, "refused");
    assert_eq!(records[0].approval, None, "refused before anyone was asked");
}

#[tokio::test]
async fn the_person_reads_the_arguments_the_layers_left() {
    let approver = Arc::new(Yes::default());
    let ctx = ToolContext::builder().approver(approver.clone()).build();
    let out = executor()
        .call(
            "delete_secret",
            json!({"team": "other", "name": "asked_1"}),
            &ctx,
        )
        .await
        .unwrap();
    assert_eq!(out.echo(), "core/asked_1");
    let shown = approver.shown.lock().unwrap();
    assert_eq!(shown[0].0, "Delete the secret asked_1 of core?");
    assert_eq!(runs("delete:asked_1"), 1);
}

#[tokio::test]
async fn nested_calls_pass_the_same_layers() {
    let ex = executor();
    let out = ex
        .call(
            "look_up_secret",
            json!({"name": "nested_1"}),
            &ToolContext::new(),
        )
        .await
        .unwrap();
    assert_eq!(out.data().unwrap()["value"], "[redacted]");
    let err = ex
        .call(
            "look_up_secret",
            json!({"name": "prod_nested"}),
            &ToolContext::new(),
        )
        .await
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Refused, "{err}");
    assert_eq!(runs("read:prod_nested"), 0);
}

#[tokio::test]
async fn layers_see_calls_in_the_order_added_and_results_in_reverse() {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let trace = |name| Trace {
        name,
        seen: seen.clone(),
    };
    let ex = Executor::builder(Registry::linked().unwrap())
        .layer(trace("outer"))
        .layer(trace("inner"))
        .build();
    assert_eq!(ex.layers().count(), 2);
    ex.call(
        "read_secret",
        json!({"team": "a", "name": "order_1"}),
        &ToolContext::new(),
    )
    .await
    .unwrap();
    assert_eq!(
        *seen.lock().unwrap(),
        [
            "outer in read_secret",
            "inner in read_secret",
            "inner out",
            "outer out"
        ]
    );
}

#[tokio::test]
async fn scopes_come_before_any_layer() {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let mut registry = Registry::empty();
    registry
        .register(
            DynamicTool::new("close_issue", "Closes.", json!({"type": "object"})).scopes(["admin"]),
        )
        .unwrap();
    let ex = Executor::builder(registry)
        .layer(Trace {
            name: "t",
            seen: seen.clone(),
        })
        .build();
    let ctx = ToolContext::builder()
        .principal(tool_core::context::Principal::new("ada"))
        .build();
    let err = ex.call("close_issue", json!({}), &ctx).await.unwrap_err();
    assert_eq!(err.kind(), ErrorKind::PermissionDenied);
    assert!(seen.lock().unwrap().is_empty(), "no layer saw the call");
}

#[tokio::test]
async fn a_layers_rewrite_is_held_to_the_input_limits() {
    let grow = layer_fn(async |mut call, next| {
        *call.input_mut() = json!({"team": "x".repeat(2048), "name": "big"});
        next.run(call).await
    });
    let policy = ExecPolicy::default().max_input_bytes(1024);
    let ex = Executor::builder(Registry::linked().unwrap())
        .policy(policy)
        .layer(grow)
        .build();
    let err = ex
        .call("read_secret", json!({}), &ToolContext::new())
        .await
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidInput, "{err}");
    assert_eq!(runs("read:big"), 0);
}

/// Every public way tool-core has to run a tool asks before an approval tool runs: a call, a
/// call in a context of its own, a batch, a call from another tool, a dynamic tool renamed with
/// a hidden argument; with no one to ask, none of them runs it. (The registry and a tool have
/// no call of their own: `tests/ui-suite/ui/fail/bare_call.rs`.)
#[tokio::test]
async fn every_way_to_run_an_approval_tool_asks_first() {
    let mut registry = Registry::linked().unwrap();
    let ran = Arc::new(AtomicUsize::new(0));
    let counter = ran.clone();
    registry
        .register(
            DynamicTool::new(
                "drop_table",
                "Drops a table.",
                json!({"type": "object", "properties": {"table": {"type": "string"}},
                       "additionalProperties": false}),
            )
            .approval(ToolApproval::with_message("Drop {table}?"))
            .handler(move |_, _| {
                counter.fetch_add(1, Ordering::Relaxed);
                async { Ok(ToolOutput::text("dropped")) }
            }),
        )
        .unwrap();
    let registry = Transforms::new()
        .rename("drop_table", "drop_users_table")
        .hide("drop_users_table", "table", json!("users"))
        .apply(registry)
        .unwrap();
    let ex = Executor::new(registry);
    let asked = Arc::new(Yes::default());
    let with = ToolContext::builder().approver(asked.clone()).build();
    let without = ToolContext::new();

    type Way = (&'static str, &'static str, Value);
    let ways: [Way; 3] = [
        (
            "delete_secret",
            "delete:way_direct",
            json!({"team": "core", "name": "way_direct"}),
        ),
        (
            "clean_secret",
            "delete:way_nested",
            json!({"name": "way_nested"}),
        ),
        ("drop_users_table", "", json!({})),
    ];
    for (tool, key, input) in ways {
        let before = asked.shown.lock().unwrap().len();
        // Nobody to ask: refused, unrun, by every door.
        let direct = ex.call(tool, input.clone(), &without).await;
        let own = ex
            .call_in(tool, input.clone(), without.for_call("own"))
            .await;
        let batch = ex
            .call_batch(vec![ToolCall::new("b", tool, input.clone())], &without)
            .await;
        for result in [direct, own, batch.into_iter().next().unwrap()] {
            let err = result.unwrap_err();
            assert_eq!(err.kind(), ErrorKind::NotApproved, "{tool}: {err}");
        }
        if !key.is_empty() {
            assert_eq!(runs(key), 0, "{tool} ran unasked");
        }
        // Someone to ask: asked once, then run once.
        ex.call(tool, input, &with).await.unwrap();
        assert_eq!(asked.shown.lock().unwrap().len(), before + 1, "{tool}");
        if !key.is_empty() {
            assert_eq!(runs(key), 1, "{tool}");
        }
    }
    assert_eq!(ran.load(Ordering::Relaxed), 1);
    let shown = asked.shown.lock().unwrap();
    assert_eq!(shown[0].0, "Delete the secret way_direct of core?");
    assert_eq!(shown[1].0, "Delete the secret way_nested of core?");
    // The person read the hidden argument's value, filled in before they were asked.
    assert_eq!(shown[2].0, "Drop users?");
}

#[tokio::test]
async fn transforms_reach_listing_and_calls() {
    let registry = Transforms::new()
        .keep(ToolFilter::Domain("vault".into()))
        .prefix(ToolFilter::ReadOnly, "team_")
        .hide_from_context("team_read_secret", "team", |ctx| {
            ctx.headers()
                .get("x-team")
                .map(|t| json!(t))
                .ok_or_else(|| ToolError::permission_denied("no team header"))
        })
        .apply(Registry::linked().unwrap())
        .unwrap();
    let names: Vec<&str> = registry.tools().iter().map(|t| t.name()).collect();
    assert_eq!(
        names,
        [
            "clean_secret",
            "delete_secret",
            "team_look_up_secret",
            "team_read_secret"
        ]
    );
    let schema = registry.get("team_read_secret").unwrap().input_schema();
    assert_eq!(schema["required"], json!(["name"]));
    use tool_core::render::{Format, RenderOptions, render_all};
    for format in [
        Format::OpenAi,
        Format::Anthropic,
        Format::Gemini,
        Format::Mcp,
    ] {
        let rendered = render_all(registry.tools(), format, RenderOptions::default()).to_string();
        assert!(rendered.contains("\"team_read_secret\""), "{format:?}");
        assert!(!rendered.contains("\"read_secret\""), "{format:?}");
        assert!(!rendered.contains("x-team"), "{format:?}");
    }

    let ex = Executor::new(registry);
    let ctx = ToolContext::builder()
        .headers(tool_core::context::RequestHeaders::from_pairs([(
            "x-team", "blue",
        )]))
        .build();
    let out = ex
        .call(
            "team_read_secret",
            json!({"name": "hidden_1", "team": "red"}),
            &ctx,
        )
        .await
        .unwrap();
    assert_eq!(
        out.data().unwrap()["team"],
        "blue",
        "the context's team wins"
    );
    let err = ex
        .call(
            "team_read_secret",
            json!({"name": "hidden_2"}),
            &ToolContext::new(),
        )
        .await
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::PermissionDenied);
    assert_eq!(runs("read:hidden_2"), 0);
}

/// The audit's digest is of the input as it ran: the same for the call given as text (in any
/// key order, with any spacing) and as a value, and, for a call a layer rewrote, that of the
/// rewritten input.
#[tokio::test]
async fn the_audit_digest_is_of_the_input_as_it_ran() {
    let audit = Arc::new(Audit::default());
    let ctx = ToolContext::builder()
        .audit(audit.clone())
        .approver(Arc::new(Yes::default()))
        .build();
    let plain = Executor::new(Registry::linked().unwrap());
    let sha = |value: Value| {
        use sha2::Digest;
        let canonical = tool_core::exec::canonical_json(&value);
        let hex: String = sha2::Sha256::digest(&canonical)
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        format!("sha256:{hex}")
    };
    plain
        .call("clean_secret", json!({"name": "digest_1"}), &ctx)
        .await
        .unwrap();
    plain
        .call("clean_secret", "{ \"name\" :\"digest_1\" }", &ctx)
        .await
        .unwrap();
    // The layered way: `pin_team` rewrites the team, so the audit digests `core`.
    executor()
        .call(
            "delete_secret",
            r#"{"name": "digest_2", "team": "other"}"#,
            &ctx,
        )
        .await
        .unwrap();
    let records = audit.0.lock().unwrap().clone();
    let of = |tool: &str| -> Vec<String> {
        records
            .iter()
            .filter(|r| r.tool == tool)
            .map(|r| r.input_digest.clone())
            .collect()
    };
    let cleaned = of("clean_secret");
    assert_eq!(cleaned.len(), 2, "{records:?}");
    assert_eq!(cleaned[0], sha(json!({"name": "digest_1"})));
    assert_eq!(cleaned[0], cleaned[1], "text and value give one digest");
    let deleted = of("delete_secret");
    assert!(
        deleted.contains(&sha(json!({"team": "core", "name": "digest_2"}))),
        "{deleted:?}"
    );
    assert!(!deleted.contains(&sha(json!({"team": "other", "name": "digest_2"}))));
}

/// Reads, prompts and completions pass the same layers as calls: the redaction that hides a
/// tool's secret hides it in a read's contents and a prompt's messages; the layer that refuses
/// `prod_` names refuses a read of one (audited: the resource needs no scope, so not here) and
/// its reader never runs; a layer that rewrites a read's URI has the rewritten URI read.
#[tokio::test]
async fn reads_and_prompts_pass_the_same_layers() {
    let ctx = ToolContext::new();
    let read = executor()
        .read_resource("vault://core/layered_1", &ctx)
        .await
        .unwrap();
    assert_eq!(
        read[0].body,
        tool_core::resource::Body::Text("core/layered_1: [redacted]".into())
    );
    let args: tool_core::prompt::PromptArgs = [("name", "layered_2")].into_iter().collect();
    let got = executor()
        .get_prompt("use_secret", args, &ctx)
        .await
        .unwrap();
    assert_eq!(
        got.messages[0].content,
        tool_core::prompt::PromptContent::Text("Log in as layered_2 with [redacted]".into())
    );
    assert_eq!(runs("prompt:layered_2"), 1);

    let refuse_prod_reads = layer_fn(async |call, next| {
        let prod = call.input()["uri"]
            .as_str()
            .is_some_and(|u| u.contains("/prod_"));
        if prod {
            return Err(ToolError::refused("production secrets stay put"));
        }
        next.run(call).await
    });
    let refusing = Executor::builder(Registry::linked().unwrap())
        .layer(refuse_prod_reads)
        .build();
    let err = refusing
        .read_resource("vault://core/prod_db", &ctx)
        .await
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Refused);
    assert_eq!(runs("read:prod_db"), 0);

    // A layer sees which kind of item it has, and may point a read elsewhere.
    let seen = Arc::new(Mutex::new(Vec::new()));
    let kinds = seen.clone();
    let to_staging = layer_fn(async move |mut call, next| {
        kinds
            .lock()
            .unwrap()
            .push(format!("{} {}", call.item().kind(), call.item().name()));
        if let tool_core::exec::Item::Resource(_) = call.item() {
            call.input_mut()["uri"] = json!("vault://staging/layered_3");
        }
        next.run(call).await
    });
    let rewriting = Executor::builder(Registry::linked().unwrap())
        .layer(to_staging)
        .build();
    let read = rewriting
        .read_resource("vault://core/layered_3", &ctx)
        .await
        .unwrap();
    assert_eq!(
        read[0].body,
        tool_core::resource::Body::Text("staging/layered_3: hunter2".into())
    );
    assert_eq!(read[0].uri.as_deref(), Some("vault://staging/layered_3"));
    let completed = rewriting
        .complete(
            tool_core::exec::CompletionRef::Prompt("use_secret"),
            "name",
            "x",
            &ctx,
        )
        .await
        .unwrap();
    assert!(completed.is_empty());
    assert_eq!(
        *seen.lock().unwrap(),
        ["resource vault://{team}/{name}", "completion use_secret"]
    );
}

/// The caller's audience is checked at the door: a tool for views only is unknown to a model's
/// calls (and to the calls its tools make), and known to the application and to views.
#[tokio::test]
async fn a_tool_for_views_only_is_refused_to_a_models_calls() {
    use tool_core::context::Audience;
    use tool_core::definition::Visibility;
    let mut registry = Registry::empty();
    registry
        .register(
            DynamicTool::new(
                "press_button",
                "A card's button.",
                json!({"type": "object"}),
            )
            .visibility(Visibility::App)
            .handler(|_, _| async { Ok(ToolOutput::text("pressed")) }),
        )
        .unwrap();
    let executor = Executor::new(registry);
    let model = ToolContext::new().for_audience(Audience::Model);
    let err = executor
        .call("press_button", json!({}), &model)
        .await
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::UnknownTool);
    let err = executor
        .call_batch(vec![ToolCall::new("c1", "press_button", json!({}))], &model)
        .await
        .remove(0)
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::UnknownTool);
    // A context derived from the model's stays the model's.
    let derived = model.derive().audience(Audience::Any).build();
    assert!(
        executor
            .call("press_button", json!({}), &derived)
            .await
            .is_err()
    );
    for allowed in [Audience::Any, Audience::View] {
        let ctx = ToolContext::builder().audience(allowed).build();
        let out = executor
            .call("press_button", json!({}), &ctx)
            .await
            .unwrap();
        assert_eq!(out.echo(), "pressed");
    }
}

/// A layer hands typed values to what runs under it: the tool reads it as an extension of its
/// context, and so does a resource's reader.
#[tokio::test]
async fn a_layer_hands_a_typed_value_to_the_tool_and_the_reader() {
    use tool_core::resource::{Body, Resource, ResourceContent};
    struct Tenant(&'static str);
    let mut registry = Registry::empty();
    registry
        .register(
            DynamicTool::new(
                "show_tenant",
                "Shows the tenant.",
                json!({"type": "object"}),
            )
            .handler(|_, ctx| async move {
                let tenant = ctx.extension::<Tenant>().map_or("none", |t| t.0);
                Ok(ToolOutput::text(tenant))
            }),
        )
        .unwrap();
    registry
        .add_resource(
            Resource::new(
                "tenant://name",
                "tenant",
                "The tenant.",
                |_, ctx| async move {
                    let tenant = ctx.extension::<Tenant>().map_or("none", |t| t.0);
                    Ok(vec![ResourceContent::text(tenant)])
                },
            )
            .unwrap(),
        )
        .unwrap();
    let executor = Executor::builder(registry)
        .layer(layer_fn(async |mut call, next| {
            call.extension(Tenant("acme"));
            next.run(call).await
        }))
        .build();
    let ctx = ToolContext::new();
    let out = executor.call("show_tenant", json!({}), &ctx).await.unwrap();
    assert_eq!(out.echo(), "acme");
    let read = executor.read_resource("tenant://name", &ctx).await.unwrap();
    assert_eq!(read[0].body, Body::Text("acme".into()));
    assert!(
        ctx.extension::<Tenant>().is_none(),
        "the caller's context is untouched"
    );
}
