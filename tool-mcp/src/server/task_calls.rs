//! The server's side of tasks: a call that becomes one, the instance that follows it to its
//! end, the sweep that takes over a stopped instance's tasks, and `tasks/get`, `tasks/update`
//! and `tasks/cancel` for their owner only.

use std::sync::Arc;
use std::sync::atomic::Ordering;

use rmcp::model::{
    CancelTaskParams, ClientCapabilities, GetTaskParams, GetTaskResult, UpdateTaskParams,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData as McpError, RoleServer};
use serde_json::Value;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;
use tool_core::definition::TaskSupport;
use tool_core::exec::{CallResult, Executor};
use tool_core::{ToolContext, ToolError, error::ErrorKind, registry::Tool};
use tool_tasks::{Answered, Ending, Input, NewTask, Renewal, TaskRecord, TaskStatus};

use super::{Live, McpServer};
use crate::ask::{McpPeer, Round};
use crate::notify::Notifier;
use crate::request::{Era, client_capabilities};
use crate::result::{CallAnswer, CallOutcome, call_result};
use crate::tasks::{self, StatusLine, TaskEvents, Tasks, now_ms};

/// A call's round (2026-07-28) and its `requestState` binding, as [`McpServer::call`] has them.
type RoundOf = Option<(Arc<Round>, Option<Vec<u8>>)>;

/// How many expired tasks one sweep takes over at most.
const CLAIM_BATCH: usize = 16;

/// How a task's run ended: the task's end, or questions for its client.
enum RunEnd {
    Finished(Ending),
    Asked(Input),
}

impl McpServer {
    /// The tasks a call of `tool` may become one of: a tool marked `task`, called in
    /// 2026-07-28 by a client that declared the extension, on a server that serves tasks.
    pub(super) fn tasks_for(
        &self,
        tool: &Tool,
        era: Era,
        cx: &RequestContext<RoleServer>,
    ) -> Option<Arc<Tasks>> {
        let tasks = self.shared.tasks.as_ref()?;
        (era == Era::Modern && tool.task() && tasks::declared(client_capabilities(&cx.meta)))
            .then(|| tasks.clone())
    }

    /// The refusal of a call of a tool whose calls must be tasks (`task = "required"`) from a
    /// 2026-07-28 client that did not declare the extension, on a server that serves tasks:
    /// -32021, naming the extension, before the tool runs. A session-era client, or a server
    /// without a task store, gets the call's result instead.
    pub(super) fn task_refusal(
        &self,
        tool: &Tool,
        era: Era,
        cx: &RequestContext<RoleServer>,
    ) -> Option<McpError> {
        let must = tool.task_support() == TaskSupport::Required;
        (must
            && era == Era::Modern
            && self.shared.tasks.is_some()
            && !tasks::declared(client_capabilities(&cx.meta)))
        .then(|| {
            let mut needed = ClientCapabilities::default();
            needed.extensions = Some(
                [(tasks::EXTENSION.to_owned(), serde_json::Map::new())]
                    .into_iter()
                    .collect(),
            );
            McpError::missing_required_client_capability(needed)
        })
    }

    /// Runs a call that becomes a task if it has not finished after the tool's threshold
    /// ([`Tool::task_after`]) or else the server's, [`TaskOptions::after`]:
    /// then the task is written to the store before it is answered (so that `tasks/get` finds
    /// it anywhere), and the call goes on under this instance's lease.
    ///
    /// [`TaskOptions::after`]: crate::TaskOptions::after
    #[allow(clippy::too_many_arguments)]
    pub(super) async fn call_may_become_task(
        &self,
        tasks: Arc<Tasks>,
        live: &Live,
        tool: &Tool,
        input: Value,
        cx: &RequestContext<RoleServer>,
        call_id: String,
        notifier: Notifier,
        round: RoundOf,
    ) -> Result<CallAnswer, McpError> {
        let status = Arc::new(StatusLine::default());
        let events = Arc::new(TaskEvents {
            inner: Some(notifier.sink()),
            status: status.clone(),
        });
        // The request's token is cancelled once the request is answered; a task outlives it.
        let cancel = CancellationToken::new();
        let ctx = self.call_context(
            cx,
            call_id,
            Some(events),
            cancel.clone(),
            round.as_ref().map(|(r, _)| r),
        );
        let arguments = input.clone();
        let mut run = spawn_call(live.executor.clone(), tool.name().to_owned(), input, ctx);
        // A threshold of zero makes every call a task at once, whatever it does first (asking
        // included: the task then waits for the answers).
        let after = tool.task_after().unwrap_or(tasks.options.after);
        let waited = if after.is_zero() {
            None
        } else {
            tokio::select! {
                biased;
                joined = &mut run => Some(joined),
                () = cx.ct.cancelled() => {
                    cancel.cancel();
                    Some((&mut run).await)
                }
                () = tokio::time::sleep(after) => None,
            }
        };
        // A call that ended first is answered as it ended: its result, or its questions (the
        // rounds that gather input come before the task); but a tool whose calls must be tasks
        // answers with a task even then, created already over.
        let finished = match waited {
            Some(joined) => {
                let asking = round.as_ref().is_some_and(|(r, _)| r.is_asking());
                if tool.task_support() != TaskSupport::Required || asking {
                    notifier.finish().await;
                    return self.answer(tool, Era::Modern, joined_result(joined), cx, round);
                }
                Some(joined_result(joined))
            }
            None => None,
        };
        let now = now_ms();
        let caller = self.caller(cx);
        let new = NewTask {
            id: tool_tasks::new_task_id(),
            owner: tasks::owner_key(caller),
            tool: tool.name().to_owned(),
            arguments,
            origin: tasks::origin(caller, client_capabilities(&cx.meta)),
            idempotent: tool.trusted_annotations().idempotent,
            status_message: status.take_new(),
            now_ms: now,
            ttl_ms: tasks.ttl_ms(),
            poll_interval_ms: Some(tasks.poll_ms()),
            holder: tasks.instance.clone(),
            lease_until_ms: tasks.lease_until(now),
        };
        let record = new.clone().into_record();
        if let Some(result) = finished {
            notifier.finish().await;
            return self
                .finished_task(&tasks, new, tool, result, cx, round)
                .await;
        }
        if let Err(error) = tasks.store().create(new).await {
            // Nothing is lost: the call is answered when it ends, as a plain call.
            tracing::warn!(%error, tool = tool.name(), "a call could not become a task");
            let joined = run.await;
            notifier.finish().await;
            return self.answer(tool, Era::Modern, joined_result(joined), cx, round);
        }
        tasks.track(&record.id, cancel.clone(), status.clone());
        // What the call sent before it became a task goes out first; what it sends later
        // becomes the task's status line.
        notifier.finish().await;
        tracing::debug!(task = %record.id, tool = tool.name(), "the call became a task");
        let follow = self.clone().follow(
            tasks,
            record.id.clone(),
            run,
            cancel,
            status,
            tool.clone(),
            round.map(|(round, _)| round),
        );
        tokio::spawn(follow);
        Ok(CallAnswer::Task(tasks::created(&record)))
    }

    /// The task of a call that ended before it became one (a tool whose calls must be tasks):
    /// written to the store, then ended as the call ended, and answered with its handle. A
    /// store that cannot create it leaves the call answered with its result.
    async fn finished_task(
        &self,
        tasks: &Arc<Tasks>,
        new: NewTask,
        tool: &Tool,
        result: CallResult,
        cx: &RequestContext<RoleServer>,
        round: RoundOf,
    ) -> Result<CallAnswer, McpError> {
        let id = new.id.clone();
        let record = new.clone().into_record();
        if let Err(error) = tasks.store().create(new).await {
            tracing::warn!(%error, tool = tool.name(), "a call could not become a task");
            return self.answer(tool, Era::Modern, result, cx, round);
        }
        let written = match self.run_end(tool, result, round.map(|(r, _)| r), false) {
            RunEnd::Finished(ending) => tasks.store().finish(&id, &tasks.instance, ending).await,
            RunEnd::Asked(input) => {
                tasks
                    .store()
                    .wait_for_input(&id, &tasks.instance, input)
                    .await
            }
        };
        if let Err(error) = written {
            tracing::warn!(%error, task = %id, "a task's end was not written");
        }
        Ok(CallAnswer::Task(tasks::created(&record)))
    }

    /// Follows a task this instance runs to its end: renews its lease (and learns of a
    /// cancellation asked for anywhere), then writes how it ended, once, or the questions it
    /// asked its client. A task whose lease was lost (taken over, or removed past its time to
    /// live) is stopped and reports nothing.
    #[allow(clippy::too_many_arguments)]
    async fn follow(
        self,
        tasks: Arc<Tasks>,
        id: String,
        mut run: JoinHandle<CallResult>,
        cancel: CancellationToken,
        status: Arc<StatusLine>,
        tool: Tool,
        round: Option<Arc<Round>>,
    ) {
        let mut beat = tokio::time::interval(tasks.beat());
        beat.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        beat.tick().await;
        let joined = loop {
            tokio::select! {
                joined = &mut run => break Some(joined),
                () = tasks.stopping.cancelled() => {
                    // The instance stops with the call still running: another instance takes
                    // the task over at its next sweep, as it would after a crash, without
                    // waiting for the lease to run out.
                    cancel.cancel();
                    run.abort();
                    match tasks.store().release(&id, &tasks.instance).await {
                        Ok(_) => tracing::info!(task = %id, "a running task was given up to another instance"),
                        Err(error) => tracing::warn!(%error, task = %id, "a running task's lease was not given up: another instance takes it over when it runs out"),
                    }
                    break None;
                }
                _ = beat.tick() => {
                    let now = now_ms();
                    let lease = tasks.lease_until(now);
                    let renewal = tasks
                        .store()
                        .renew(&id, &tasks.instance, lease, status.take_new(), now)
                        .await;
                    match renewal {
                        Ok(Renewal::Held { cancel_requested }) => {
                            if cancel_requested {
                                cancel.cancel();
                            }
                        }
                        Ok(Renewal::Lost) => {
                            cancel.cancel();
                            run.abort();
                            break None;
                        }
                        Err(error) => {
                            tracing::warn!(%error, task = %id, "a task's lease was not renewed");
                        }
                    }
                }
            }
        };
        let Some(joined) = joined else {
            tasks.untrack(&id);
            tracing::debug!(task = %id, "a task's lease was lost: it was stopped");
            return;
        };
        let ended = self.run_end(&tool, joined_result(joined), round, cancel.is_cancelled());
        let written = match ended {
            RunEnd::Finished(mut ending) => {
                // The tool's last word, not the one the last renewal carried.
                ending.status_message = ending.status_message.or_else(|| status.peek());
                tasks.store().finish(&id, &tasks.instance, ending).await
            }
            RunEnd::Asked(input) => {
                tracing::debug!(task = %id, "a task waits for its client's input");
                tasks
                    .store()
                    .wait_for_input(&id, &tasks.instance, input)
                    .await
            }
        };
        match written {
            Ok(true) => {}
            Ok(false) => tracing::debug!(task = %id, "a task ended after its lease was lost"),
            Err(error) => tracing::warn!(%error, task = %id, "a task's end was not written"),
        }
        // Only now: an instance that stops waits for this write.
        tasks.untrack(&id);
    }

    /// How a task's run ended, from its call's result: cancelled (a cancellation asked for,
    /// which the call obeyed), waiting for the answers to questions it asked its client,
    /// completed with the result `tools/call` would have given (a tool's error included), or
    /// failed with a JSON-RPC error.
    fn run_end(
        &self,
        tool: &Tool,
        result: CallResult,
        round: Option<Arc<Round>>,
        cancelled: bool,
    ) -> RunEnd {
        let now_ms = now_ms();
        let end = |status, status_message: Option<&str>, outcome| {
            RunEnd::Finished(Ending {
                status,
                status_message: status_message.map(str::to_owned),
                outcome,
                now_ms,
            })
        };
        if cancelled
            && result
                .as_ref()
                .is_err_and(|e| e.kind() == ErrorKind::Cancelled)
        {
            return end(TaskStatus::Cancelled, Some("cancelled"), None);
        }
        match round.map(|round| round.take_input()).transpose() {
            Err(error) => end(
                TaskStatus::Failed,
                Some(&error.message),
                Some(tasks::error_object(&error)),
            ),
            Ok(Some(Some((requests, answers)))) => RunEnd::Asked(Input {
                requests: requests
                    .into_iter()
                    .map(|(key, request)| {
                        (key, serde_json::to_value(request).unwrap_or(Value::Null))
                    })
                    .collect(),
                answers: answers.into_iter().collect(),
                status_message: Some(tasks::WAITING.to_owned()),
                now_ms,
            }),
            // An internal error (a panic, `ToolError::internal`) is a failure of the request,
            // not a result the tool gives: the task fails with it inlined, as -32603.
            Ok(_)
                if result
                    .as_ref()
                    .is_err_and(|e| e.kind() == ErrorKind::Internal) =>
            {
                let message = result
                    .err()
                    .map(|e| e.message().to_owned())
                    .unwrap_or_default();
                let error = McpError::internal_error(message.clone(), None);
                end(
                    TaskStatus::Failed,
                    Some(&message),
                    Some(tasks::error_object(&error)),
                )
            }
            Ok(_) => {
                let mut result = call_result(CallOutcome::modern(tool, result));
                result.meta = Some(self.shared.server_info.added_to(result.meta.take()));
                let value = serde_json::to_value(&result).unwrap_or(Value::Null);
                end(TaskStatus::Completed, None, Some(value))
            }
        }
    }

    /// Starts this server's sweep of the task store (once, on the current runtime): every
    /// beat, tasks past their time to live are removed and tasks whose instance stopped are
    /// taken over. It ends with the server.
    pub(super) fn start_sweep(&self) {
        let Some(tasks) = self.shared.tasks.clone() else {
            return;
        };
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        if self.shared.sweeping.swap(true, Ordering::AcqRel) {
            return;
        }
        let shared = Arc::downgrade(&self.shared);
        runtime.spawn(async move {
            let mut beat = tokio::time::interval(tasks.beat());
            beat.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            loop {
                tokio::select! {
                    _ = beat.tick() => {}
                    () = tasks.stopping.cancelled() => return,
                }
                let Some(shared) = shared.upgrade() else {
                    return;
                };
                let server = McpServer {
                    shared,
                    session: Arc::default(),
                };
                server.sweep(&tasks).await;
            }
        });
    }

    /// See [`McpServer::stop_tasks`].
    pub(super) async fn stop_tasks_of(&self, grace: std::time::Duration) {
        let Some(tasks) = self.shared.tasks.clone() else {
            return;
        };
        if !tasks.idle_within(grace).await {
            tracing::warn!("the grace period is over: tasks still running go to other instances");
        }
        tasks.stopping.cancel();
        // Each gives up its lease: one write each.
        tasks.idle_within(std::time::Duration::from_secs(5)).await;
    }

    async fn sweep(&self, tasks: &Arc<Tasks>) {
        let now = now_ms();
        if let Err(error) = tasks.store().purge(now).await {
            tracing::warn!(%error, "tasks past their time to live were not removed");
        }
        let claimed = tasks
            .store()
            .claim_expired(&tasks.instance, now, tasks.lease_until(now), CLAIM_BATCH)
            .await;
        match claimed {
            Ok(claimed) => {
                for record in claimed {
                    self.take_over(tasks, record).await;
                }
            }
            Err(error) => tracing::warn!(%error, "stopped instances' tasks were not looked for"),
        }
    }

    /// A task whose instance stopped, now this instance's: cancelled if that was asked for, run
    /// again if its tool is idempotent (and still served), failed otherwise.
    async fn take_over(&self, tasks: &Arc<Tasks>, record: TaskRecord) {
        // A lease of ours that ran out while its call still runs here (a renewal held up for a
        // whole lease): the call goes on, and its next renewal keeps the task.
        if tasks.runs_here(&record.id) {
            return;
        }
        let tool = self.live().executor.registry().get(&record.tool).cloned();
        let end = |status, message: String, outcome| Ending {
            status,
            status_message: Some(message),
            outcome,
            now_ms: now_ms(),
        };
        let ending = match tool {
            _ if record.cancel_requested => end(
                TaskStatus::Cancelled,
                "cancelled while the instance running it stopped".into(),
                None,
            ),
            Some(tool) if record.idempotent => {
                tracing::info!(task = %record.id, tool = %record.tool, attempt = record.attempts,
                    "running a stopped instance's task again");
                self.run_task(tasks, record, tool);
                return;
            }
            _ => {
                let error = tasks::stopped(&record.tool);
                let message = error["message"].as_str().unwrap_or_default().to_owned();
                end(TaskStatus::Failed, message, Some(error))
            }
        };
        if let Err(error) = tasks
            .store()
            .finish(&record.id, &tasks.instance, ending)
            .await
        {
            tracing::warn!(%error, task = %record.id, "a stopped instance's task was not ended");
        }
    }

    /// Runs a task's call (again) here, as its caller (who and with which scopes; no token to
    /// forward): a task taken over from an instance that stopped, or one whose client has
    /// answered its questions. The run finds the answers the task holds, and asks anything
    /// else through the task.
    fn run_task(&self, tasks: &Arc<Tasks>, record: TaskRecord, tool: Tool) {
        let status = Arc::new(StatusLine::default());
        let cancel = CancellationToken::new();
        let answers = record.answers.into_iter().collect();
        let round = Arc::new(Round::new(tasks::capabilities(&record.origin), answers));
        let mut builder = self
            .shared
            .base
            .derive()
            .call_id(format!("task_{}", record.id))
            .cancellation(cancel.clone())
            .extension(McpPeer::task(round.clone()))
            .extension(round.rerun().clone())
            .events(Arc::new(TaskEvents {
                inner: None,
                status: status.clone(),
            }));
        if let Some(principal) = tasks::principal(&record.origin) {
            builder = builder.principal(principal);
        }
        let ctx: ToolContext = builder.build();
        let run = spawn_call(self.executor(), record.tool.clone(), record.arguments, ctx);
        tasks.track(&record.id, cancel.clone(), status.clone());
        let follow = self.clone().follow(
            tasks.clone(),
            record.id,
            run,
            cancel,
            status,
            tool,
            Some(round),
        );
        tokio::spawn(follow);
    }

    /// The task `id` and the tasks it is kept by, if the request's caller owns it: another
    /// caller's task is answered as an unknown one, so its existence does not show.
    async fn owned_task(
        &self,
        id: &str,
        cx: &RequestContext<RoleServer>,
    ) -> Result<(Arc<Tasks>, TaskRecord), McpError> {
        let Some(tasks) = self.shared.tasks.clone() else {
            return Err(McpError::internal_error(
                "this server serves no tasks",
                None,
            ));
        };
        if Era::of_checked(cx.protocol_version().as_ref()) == Era::Session {
            return Err(McpError::invalid_request(
                "tasks (io.modelcontextprotocol/tasks) are served to requests of protocol \
                 2026-07-28 and later only",
                None,
            ));
        }
        self.check_owner(cx)?;
        let record = tasks
            .store()
            .get(id, now_ms())
            .await
            .map_err(|e| McpError::internal_error(e.to_string(), None))?;
        let owner = tasks::owner_key(self.caller(cx));
        match record {
            Some(record) if record.owner == owner => Ok((tasks, record)),
            _ => Err(McpError::invalid_params(
                format!(
                    "no task `{id}` of yours: it does not exist, it is past its time to live, or \
                     it is another caller's"
                ),
                None,
            )),
        }
    }

    /// `tasks/get`: the task as it is now, with its result or error once it ended.
    pub(super) async fn get_task_of(
        &self,
        request: GetTaskParams,
        cx: RequestContext<RoleServer>,
    ) -> Result<GetTaskResult, McpError> {
        let (tasks, record) = self.owned_task(&request.task_id, &cx).await?;
        let live = tasks.live_status(&record.id);
        Ok(GetTaskResult::new(tasks::detailed(&record, live)))
    }

    /// `tasks/update`: the client's answers to the questions a task waits on. Once every one
    /// has its answer, the call runs again here with them (from the start, as a 2026-07-28
    /// call asked through `InputRequiredResult` does); answers to keys not outstanding are
    /// ignored, as the extension says.
    pub(super) async fn update_task_of(
        &self,
        request: UpdateTaskParams,
        cx: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        let (tasks, record) = self.owned_task(&request.task_id, &cx).await?;
        if record.status != TaskStatus::InputRequired || request.input_responses.is_empty() {
            return Ok(());
        }
        let responses: serde_json::Map<String, Value> =
            request.input_responses.into_iter().collect();
        let now = now_ms();
        let answered = tasks
            .store()
            .answer(
                &record.id,
                &responses,
                &tasks.instance,
                tasks.lease_until(now),
                now,
            )
            .await
            .map_err(|e| McpError::internal_error(e.to_string(), None))?;
        let Answered::Resumed(record) = answered else {
            return Ok(());
        };
        match self.live().executor.registry().get(&record.tool).cloned() {
            Some(tool) => self.run_task(&tasks, *record, tool),
            None => {
                let error = tasks::gone(&record.tool);
                let ending = Ending {
                    status: TaskStatus::Failed,
                    status_message: error["message"].as_str().map(str::to_owned),
                    outcome: Some(error),
                    now_ms: now_ms(),
                };
                tasks
                    .store()
                    .finish(&record.id, &tasks.instance, ending)
                    .await
                    .map_err(|e| McpError::internal_error(e.to_string(), None))?;
            }
        }
        Ok(())
    }

    /// `tasks/cancel`: asks for the task to be cancelled, at once if it runs here and at its
    /// holder's next renewal otherwise. Cancelling a task that ended is acknowledged too.
    pub(super) async fn cancel_task_of(
        &self,
        request: CancelTaskParams,
        cx: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        let (tasks, record) = self.owned_task(&request.task_id, &cx).await?;
        if !record.status.is_terminal() {
            tasks
                .store()
                .request_cancel(&record.id, now_ms())
                .await
                .map_err(|e| McpError::internal_error(e.to_string(), None))?;
            tasks.cancel_local(&record.id);
        }
        Ok(())
    }
}

/// Runs a call in a Tokio task of its own, so that it goes on after its request is answered.
fn spawn_call(
    executor: Executor,
    name: String,
    input: Value,
    ctx: ToolContext,
) -> JoinHandle<CallResult> {
    tokio::spawn(async move { executor.call_in(&name, input, ctx).await })
}

/// The result of a spawned call (the executor catches a tool's panics: a join error is the
/// runtime's, at shutdown).
fn joined_result(joined: Result<CallResult, tokio::task::JoinError>) -> CallResult {
    joined.unwrap_or_else(|error| {
        Err(ToolError::internal(format!(
            "the call's task ended: {error}"
        )))
    })
}
