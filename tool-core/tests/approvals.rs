//! A person's yes before a call runs: the executor checks the input, asks the context's
//! approver, audits the answer, and runs the tool only when approved; a denial, no one to ask,
//! a wait past the policy's timeout and a cancelled wait all leave the tool unrun. The wait
//! does not eat the tool's own time limit, calls tools make to tools ask too, and remembered
//! approvals cover only what the person chose.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};
use tool_core::exec::{ApprovalPolicy, ExecPolicy, Executor};
use tool_core::prelude::*;
use tool_core::{
    context::{
        ApprovalFuture, ApprovalRequest, Approver, AuditRecord, AuditSink, Decision, Remember,
        Remembering,
    },
    registry::DynamicTool,
    registry::ToolApproval,
};

tool_core::domain!(pub repo, "A code repository");

/// How often `delete_branch` ran, by branch: tests run in parallel, each with its own branch.
static DELETED: Mutex<Vec<String>> = Mutex::new(Vec::new());

fn deleted(branch: &str) -> usize {
    DELETED
        .lock()
        .unwrap()
        .iter()
        .filter(|b| *b == branch)
        .count()
}

/// Deletes a branch and returns its name.
#[tool(
    domain = repo,
    label = "Deleting a branch",
    hint = "Delete a branch",
    destructive,
    approval = "Delete the branch {branch} of {repo}?",
)]
fn delete_branch(branch: String, repo: String) -> String {
    DELETED.lock().unwrap().push(branch.clone());
    format!("{repo}:{branch}")
}

/// Merges a branch: destructive, but it declares no approval (the policy decides).
#[tool(domain = repo, label = "Merging", hint = "Merge a branch", destructive)]
fn merge_branch(branch: String) -> String {
    DELETED.lock().unwrap().push(format!("merged:{branch}"));
    branch
}

/// Deletes a branch through `delete_branch`.
#[tool(domain = repo, label = "Cleaning up", hint = "Clean up a branch", read_only = false)]
async fn clean_branch(ctx: &ToolContext, branch: String) -> Result<String, ToolError> {
    let out = ctx
        .call_tool("delete_branch", json!({"branch": branch, "repo": "tools"}))
        .await?;
    Ok(out.echo().into_owned())
}

/// Renames a branch: `idempotent` alone, which makes it a tool that writes.
#[tool(domain = repo, label = "Renaming", hint = "Rename a branch", idempotent)]
fn rename_branch(branch: String, to: String) -> String {
    DELETED.lock().unwrap().push(format!("renamed:{branch}"));
    to
}

/// A context value whose extraction panics.
struct Broken;

impl tool_core::context::FromContext for Broken {
    fn from_context(_: &ToolContext) -> Result<Self, ToolError> {
        panic!("the extractor broke")
    }
}

/// Needs approval, and a context value that cannot be taken.
#[tool(domain = repo, label = "Breaking", hint = "Breaks before it asks", approval)]
fn break_before_asking(#[ctx] _broken: Broken, branch: String) -> String {
    branch
}

/// Answers as scripted, counting the questions and keeping what it was shown.
struct Scripted {
    answer: Decision,
    /// Waits this long before answering.
    delay: Duration,
    asked: AtomicUsize,
    /// Told each time a person is asked.
    asking: tokio::sync::Notify,
    shown: Mutex<Vec<(String, String, Value)>>,
}

impl Scripted {
    fn new(answer: Decision) -> Arc<Self> {
        Arc::new(Self {
            answer,
            delay: Duration::ZERO,
            asked: AtomicUsize::new(0),
            asking: tokio::sync::Notify::new(),
            shown: Mutex::new(Vec::new()),
        })
    }

    fn slow(answer: Decision, delay: Duration) -> Arc<Self> {
        Arc::new(Self {
            delay,
            ..Arc::into_inner(Self::new(answer)).unwrap()
        })
    }
}

impl Approver for Scripted {
    fn approve<'a>(&'a self, request: &'a ApprovalRequest<'a>) -> ApprovalFuture<'a> {
        self.asked.fetch_add(1, Ordering::Relaxed);
        self.shown.lock().unwrap().push((
            request.tool.to_owned(),
            request.message.to_owned(),
            request.arguments.clone(),
        ));
        self.asking.notify_one();
        Box::pin(async move {
            tokio::time::sleep(self.delay).await;
            self.answer.clone()
        })
    }
}

#[derive(Default)]
struct Audit(Mutex<Vec<AuditRecord>>);

impl AuditSink for Audit {
    fn record(&self, record: &AuditRecord) {
        self.0.lock().unwrap().push(record.clone());
    }
}

fn context(approver: Option<Arc<dyn Approver>>, audit: &Arc<Audit>) -> ToolContext {
    let mut builder = ToolContext::builder().principal("ada").audit(audit.clone());
    if let Some(approver) = approver {
        builder = builder.approver(approver);
    }
    builder.build()
}

fn executor(policy: ApprovalPolicy) -> Executor {
    let exec = ExecPolicy::default().approval(policy);
    Executor::with_policy(Registry::linked().unwrap(), exec)
}

#[tokio::test]
async fn approved_runs_once_and_is_audited_with_what_the_person_saw() {
    let approver = Scripted::new(Decision::approved());
    let audit = Arc::new(Audit::default());
    let ctx = context(Some(approver.clone()), &audit);
    let out = executor(ApprovalPolicy::never())
        .call(
            "delete_branch",
            json!({"branch": "approved-1", "repo": "tools"}),
            &ctx,
        )
        .await
        .unwrap();
    assert_eq!(out.data(), Some(&json!("tools:approved-1")));
    assert_eq!(deleted("approved-1"), 1);
    let shown = approver.shown.lock().unwrap().clone();
    assert_eq!(
        shown,
        [(
            "delete_branch".to_owned(),
            "Delete the branch approved-1 of tools?".to_owned(),
            json!({"branch": "approved-1", "repo": "tools"}),
        )]
    );
    let records = audit.0.lock().unwrap().clone();
    assert_eq!(records.len(), 1);
    let record = &records[0];
    assert_eq!(record.approval.as_deref(), Some("approved"));
    assert_eq!(record.outcome, "ok");
    assert_eq!(record.principal.as_deref(), Some("ada"));
    assert_eq!(
        record.approval_message.as_deref(),
        Some("Delete the branch approved-1 of tools?")
    );
    assert!(record.input_digest.starts_with("sha256:"));
}

// Paused: the policy's 50 ms and the person's 60 s are virtual.
#[tokio::test(start_paused = true)]
async fn denied_unavailable_timed_out_and_cancelled_calls_never_run() {
    let audit = Arc::new(Audit::default());
    let exec = executor(ApprovalPolicy::never());
    let call = |branch: &str| json!({"branch": branch, "repo": "tools"});

    // Declined, with the person's reason in the error the model sees.
    let ctx = context(
        Some(Scripted::new(Decision::denied("not on Fridays".to_owned()))),
        &audit,
    );
    let err = exec
        .call("delete_branch", call("denied-1"), &ctx)
        .await
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::NotApproved);
    assert!(err.message().contains("declined"), "{err}");
    assert!(err.message().contains("not on Fridays"), "{err}");

    // No approver on the context: no one to ask.
    let ctx = context(None, &audit);
    let err = exec
        .call("delete_branch", call("nobody-1"), &ctx)
        .await
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::NotApproved);
    assert!(err.message().contains("no one can be asked"), "{err}");

    // Not answered within the policy's time: counts as denied.
    let mut quick = ApprovalPolicy::never();
    quick.timeout = Duration::from_millis(50);
    let ctx = context(
        Some(Scripted::slow(
            Decision::approved(),
            Duration::from_secs(60),
        )),
        &audit,
    );
    let err = executor(quick)
        .call("delete_branch", call("late-1"), &ctx)
        .await
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::NotApproved);
    assert!(err.message().contains("within 50 ms"), "{err}");

    // The caller cancels while the person thinks: the wait stops (had it not, the person's
    // yes after 60 s would run the tool).
    let thinking = Scripted::slow(Decision::approved(), Duration::from_secs(60));
    let ctx = context(Some(thinking.clone()), &audit);
    let cancel = ctx.cancellation().clone();
    let started = tokio::time::Instant::now();
    let (err, ()) = tokio::join!(
        exec.call("delete_branch", call("cancelled-1"), &ctx),
        async {
            thinking.asking.notified().await;
            cancel.cancel();
        }
    );
    assert_eq!(err.unwrap_err().kind(), ErrorKind::Cancelled);
    assert!(started.elapsed() < Duration::from_secs(60));

    for branch in ["denied-1", "nobody-1", "late-1", "cancelled-1"] {
        assert_eq!(deleted(branch), 0, "{branch} ran");
    }
    let words: Vec<Option<String>> = audit
        .0
        .lock()
        .unwrap()
        .iter()
        .map(|r| r.approval.clone())
        .collect();
    assert_eq!(
        words,
        ["denied", "unavailable", "timed_out", "cancelled"].map(|w| Some(w.to_owned()))
    );
}

#[tokio::test]
async fn the_input_is_checked_before_anyone_is_asked() {
    let approver = Scripted::new(Decision::approved());
    let audit = Arc::new(Audit::default());
    let ctx = context(Some(approver.clone()), &audit);
    let err = executor(ApprovalPolicy::never())
        .call("delete_branch", json!({"branch": 7}), &ctx)
        .await
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidInput);
    assert_eq!(approver.asked.load(Ordering::Relaxed), 0);
    // A tool built at run time is held to its input schema.
    let mut registry = Registry::empty();
    registry
        .register(
            DynamicTool::new(
                "drop_table",
                "Drops a table.",
                json!({"type": "object", "properties": {"table": {"type": "string"}}, "required": ["table"]}),
            )
            .approval(ToolApproval::new())
            .handler(|_, _| async { Ok(ToolOutput::new(json!("dropped"))) }),
        )
        .unwrap();
    let err = Executor::new(registry)
        .call("drop_table", json!({"table": ["t"]}), &ctx)
        .await
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidInput);
    assert_eq!(err.path(), Some("table"));
    assert_eq!(approver.asked.load(Ordering::Relaxed), 0);
}

#[tokio::test]
async fn the_policy_covers_tools_that_declare_nothing() {
    let approver = Scripted::new(Decision::denied(None));
    let audit = Arc::new(Audit::default());
    let ctx = context(Some(approver.clone()), &audit);
    // No policy: a destructive tool without a declaration runs unasked.
    executor(ApprovalPolicy::never())
        .call("merge_branch", json!({"branch": "p-1"}), &ctx)
        .await
        .unwrap();
    assert_eq!(approver.asked.load(Ordering::Relaxed), 0);
    for policy in ["destructive", "write", "merge_branch", "domain:repo"] {
        let err = executor(policy.parse().unwrap())
            .call("merge_branch", json!({"branch": "p-2"}), &ctx)
            .await
            .unwrap_err();
        assert_eq!(err.kind(), ErrorKind::NotApproved, "{policy}");
    }
    assert_eq!(deleted("merged:p-2"), 0);
    assert_eq!(approver.asked.load(Ordering::Relaxed), 4);
}

/// `idempotent` alone makes a tool that writes: audited, and asked about under `write`.
#[tokio::test]
async fn an_idempotent_tool_writes_so_it_is_audited_and_asked() {
    let registry = Registry::linked().unwrap();
    let annotations = registry.get("rename_branch").unwrap().annotations();
    assert!(!annotations.read_only && annotations.idempotent && !annotations.destructive);
    let approver = Scripted::new(Decision::approved());
    let audit = Arc::new(Audit::default());
    let ctx = context(Some(approver.clone()), &audit);
    executor(ApprovalPolicy::never())
        .call("rename_branch", json!({"branch": "i-1", "to": "i-2"}), &ctx)
        .await
        .unwrap();
    assert_eq!(approver.asked.load(Ordering::Relaxed), 0);
    assert_eq!(audit.0.lock().unwrap().len(), 1, "a write is audited");
    executor("write".parse().unwrap())
        .call("rename_branch", json!({"branch": "i-3", "to": "i-4"}), &ctx)
        .await
        .unwrap();
    assert_eq!(approver.asked.load(Ordering::Relaxed), 1);
    assert_eq!(deleted("renamed:i-3"), 1);
    let records = audit.0.lock().unwrap().clone();
    assert_eq!(records[1].approval.as_deref(), Some("approved"));
}

/// The person's time is not the tool's: a tool with a 200 ms limit runs after a longer wait.
/// On the real clock: the executor dates the tool's deadline with `std::time::Instant` once the
/// answer came, and on the paused clock, whose timers would by then be 400 ms ahead of it, the
/// deadline would have passed at once. The tool is still running after its first poll, so its
/// run races that deadline's timer (a deadline dated before the question would win at once).
#[tokio::test]
async fn the_time_limit_starts_after_the_answer() {
    let mut registry = Registry::empty();
    registry
        .register(
            DynamicTool::new("publish_post", "Publishes.", json!({"type": "object"}))
                .approval(ToolApproval::new())
                .handler(|_, _| async {
                    tokio::task::yield_now().await;
                    Ok(ToolOutput::new(json!("published")))
                }),
        )
        .unwrap();
    let exec = ExecPolicy::default().default_timeout(Duration::from_millis(200));
    let audit = Arc::new(Audit::default());
    let ctx = context(
        Some(Scripted::slow(
            Decision::approved(),
            Duration::from_millis(400),
        )),
        &audit,
    );
    let out = Executor::with_policy(registry, exec)
        .call("publish_post", json!({}), &ctx)
        .await
        .unwrap();
    assert_eq!(out.data(), Some(&json!("published")));
    let record = audit.0.lock().unwrap()[0].clone();
    assert!(record.duration_ms < 400, "{record:?}");
}

#[tokio::test]
async fn a_tool_calling_a_tool_that_needs_approval_asks_too() {
    let approver = Scripted::new(Decision::denied(None));
    let audit = Arc::new(Audit::default());
    let ctx = context(Some(approver.clone()), &audit);
    let err = executor(ApprovalPolicy::never())
        .call("clean_branch", json!({"branch": "nested-1"}), &ctx)
        .await
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::NotApproved, "{err}");
    assert_eq!(deleted("nested-1"), 0);
    assert_eq!(approver.shown.lock().unwrap()[0].0, "delete_branch");
}

/// Kept approvals cover the caller, the tool and the arguments the person chose, and no more.
#[tokio::test]
async fn remembered_approvals_are_bound_to_caller_tool_and_arguments() {
    let asked = |remember| {
        Arc::new(Remembering::new(Scripted::new(Decision::Approved {
            remember,
        })))
    };
    let exec = executor(ApprovalPolicy::never());
    let audit = Arc::new(Audit::default());
    let call = |branch: &str| json!({"branch": branch, "repo": "tools"});

    let same = asked(Remember::SameArguments);
    let ada = context(Some(same.clone()), &audit);
    for branch in ["r-1", "r-1", "r-2"] {
        exec.call("delete_branch", call(branch), &ada)
            .await
            .unwrap();
    }
    // Arguments in another order are the same arguments.
    exec.call(
        "delete_branch",
        json!({"repo": "tools", "branch": "r-1"}),
        &ada,
    )
    .await
    .unwrap();
    assert_eq!(
        same.inner().asked.load(Ordering::Relaxed),
        2,
        "r-1 once, r-2 once"
    );
    // Another caller is asked again.
    let bob = ToolContext::builder()
        .principal("bob")
        .approver(same.clone())
        .build();
    exec.call("delete_branch", call("r-1"), &bob).await.unwrap();
    assert_eq!(same.inner().asked.load(Ordering::Relaxed), 3);

    let any = asked(Remember::AnyArguments);
    let ada = context(Some(any.clone()), &audit);
    for branch in ["r-3", "r-4", "r-5"] {
        exec.call("delete_branch", call(branch), &ada)
            .await
            .unwrap();
    }
    assert_eq!(any.inner().asked.load(Ordering::Relaxed), 1);

    let once = asked(Remember::No);
    let ada = context(Some(once.clone()), &audit);
    for _ in 0..2 {
        exec.call("delete_branch", call("r-6"), &ada).await.unwrap();
    }
    assert_eq!(once.inner().asked.load(Ordering::Relaxed), 2);

    // A caller that cannot be told apart is never answered from memory.
    let nobody = ToolContext::builder().approver(any.clone()).build();
    exec.call("delete_branch", call("r-7"), &nobody)
        .await
        .unwrap();
    assert_eq!(any.inner().asked.load(Ordering::Relaxed), 2);
}

#[test]
fn the_policy_reads_its_words_and_refuses_others() {
    let policy = ApprovalPolicy::from_args(["destructive", "send_email"]).unwrap();
    assert!(policy.destructive && policy.tools == ["send_email"]);
    for bad in ["Send-Email", "domain:Bad Name", "writes"] {
        let err = ApprovalPolicy::from_args([bad]).unwrap_err().to_string();
        assert!(
            err.contains(bad) && err.contains("destructive, write, never"),
            "{err}"
        );
    }
    assert!(ApprovalPolicy::from_args(["never"]).unwrap().is_never());
}

#[tokio::test]
async fn the_person_is_told_which_call_and_how_long_they_have() {
    /// Keeps the call id each request carried, and how long it had left.
    struct Timed(Mutex<Vec<(String, Option<Duration>)>>);
    impl Approver for Timed {
        fn approve<'a>(&'a self, request: &'a ApprovalRequest<'a>) -> ApprovalFuture<'a> {
            let left = request
                .deadline
                .map(|d| d.saturating_duration_since(std::time::Instant::now()));
            let asked = (request.call_id.to_owned(), left);
            self.0.lock().unwrap().push(asked);
            Box::pin(async { Decision::denied(None) })
        }
    }
    let timed = Arc::new(Timed(Mutex::new(Vec::new())));
    let audit = Arc::new(Audit::default());
    let mut policy = ApprovalPolicy::never();
    policy.timeout = Duration::from_secs(42);
    let ctx = ToolContext::builder()
        .call_id("turn_1")
        .approver(timed.clone())
        .audit(audit.clone())
        .build();
    let call = json!({"branch": "timed-1", "repo": "tools"});
    let exec = executor(policy);
    // A batch's calls are asked about by their own ids, not by the batch's context's.
    let batch =
        ["m1", "m2"].map(|id| tool_core::exec::ToolCall::new(id, "delete_branch", call.clone()));
    let results = exec.call_batch(batch.to_vec(), &ctx).await;
    assert!(results.iter().all(Result::is_err));
    // A call a tool makes, by its nested id.
    let _ = exec
        .call(
            "clean_branch",
            json!({"branch": "timed-1"}),
            &ctx.for_call("m3"),
        )
        .await;
    let asked = timed.0.lock().unwrap().clone();
    let ids: Vec<&str> = asked.iter().map(|(id, _)| id.as_str()).collect();
    assert_eq!(ids, ["m1", "m2", "m3/delete_branch"]);
    for (id, left) in &asked {
        let left = left.unwrap_or_else(|| panic!("{id} has a deadline"));
        assert!(
            left <= Duration::from_secs(42) && left > Duration::from_secs(40),
            "{left:?}"
        );
    }
    // A request made outside the executor bounds nothing until its maker says so.
    let request = ApprovalRequest::new("delete_branch", &call, "Delete?", &ctx);
    assert_eq!(request.deadline, None);
    assert_eq!(deleted("timed-1"), 0);
}

/// What a model wrote in the arguments cannot hide from the person: a right-to-left override
/// is shown escaped, in the tool's message and in the default one.
#[test]
fn hidden_characters_in_the_arguments_are_shown() {
    let registry = Registry::linked().unwrap();
    let tool = registry.get("delete_branch").unwrap();
    let shown = tool_core::exec::approval_message(
        tool,
        &json!({"branch": "safe\u{202e}niam", "repo": "tools"}),
    );
    assert_eq!(shown, "Delete the branch safe\\u{202e}niam of tools?");
    let tool = registry.get("merge_branch").unwrap();
    let shown = tool_core::exec::approval_message(tool, &json!({"branch": "a\u{200b}b"}));
    assert!(shown.contains("a\\u{200b}b"), "{shown}");
}

/// The input is checked before a person is asked, and a panic there (in decoding or in taking
/// a context value) is the call's `internal` error, as in the run itself: no one is asked, the
/// caller goes on.
#[tokio::test]
async fn a_panic_while_checking_before_the_question_is_an_internal_error() {
    let approver = Scripted::new(Decision::approved());
    let audit = Arc::new(Audit::default());
    let ctx = context(Some(approver.clone()), &audit);
    let err = executor(ApprovalPolicy::never())
        .call("break_before_asking", json!({"branch": "b"}), &ctx)
        .await
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Internal);
    assert!(err.message().contains("panicked"), "{err}");
    assert_eq!(approver.asked.load(Ordering::Relaxed), 0);
}
