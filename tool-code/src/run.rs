//! Running a script: the interpreter's steps on blocking threads, its tool calls through the
//! executor.

use std::collections::HashMap;
use std::sync::Arc;

use monty_types::{ExcType, MontyException, MontyObject, ResourceLimits};
use serde_json::{Map, Value};
use tokio::time::Instant;
use tool_core::context::{Audience, Rerun};
use tool_core::exec::{CallResult, Executor, ToolCall};
use tool_core::{ToolContext, registry::Tool};

use crate::bridge::{self, BridgeError};
use crate::journal::{Journal, Recorded};
use crate::limits::{CodeLimits, Limit, LimitError};
use crate::machine::{Answer, Budget, Event, Failure, Machine, Outcome, PRINT_OVERFLOW, Reply};
use crate::stubs::{self, Param};
use crate::worker::{Command, Worker, WorkerCommand, WorkerError};

/// Code mode over an executor: runs scripts whose function calls are calls of the executor's
/// tools, each through its whole pipeline (scopes, input checks, layers, approval, limits,
/// audit, events), exactly as if the model had made it. Cloning is cheap.
///
/// A script calls a tool by its [Python name](crate::python_name) with keyword arguments and
/// `await`s it; calls awaited together (`asyncio.gather`) run as one concurrent batch, as a
/// model's parallel calls do. A tool's result is the Python value of its JSON data (or its
/// text, for a tool without data); a tool's error is an exception the script can catch
/// ([`exception_type`](crate::exception_type)). Nothing else reaches the host: no filesystem,
/// environment, network or clock, and a name that is not a tool is a `NameError`.
///
/// ```
/// use serde_json::json;
/// use tool_core::{registry::DynamicTool, Executor, Registry, ToolContext, ToolOutput};
/// # tokio::runtime::Builder::new_multi_thread().enable_all().build().unwrap().block_on(async {
/// let mut registry = Registry::empty();
/// registry.register(DynamicTool::new("add_numbers", "Adds two numbers.", json!({
///     "type": "object",
///     "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
///     "required": ["a", "b"]
/// })).handler(|input, _| async move {
///     Ok(ToolOutput::new(json!(input["a"].as_i64().unwrap() + input["b"].as_i64().unwrap())))
/// })).unwrap();
/// let code = tool_code::CodeMode::new(Executor::new(registry));
/// let run = code.run("total = 0\nfor i in range(3):\n    total = await add_numbers(a=total, b=i)\ntotal", &ToolContext::new()).await;
/// assert_eq!(run.result.unwrap(), json!(3));
/// assert_eq!(run.tool_calls, 3);
/// # });
/// ```
#[derive(Clone)]
pub struct CodeMode {
    executor: Executor,
    limits: CodeLimits,
    sandbox: Sandbox,
    /// Whether the code tool shows every tool's stub, not the core ones' alone.
    show_deferred: bool,
    /// Each tool by its Python name.
    functions: Arc<HashMap<String, Function>>,
}

/// A tool as a script's function.
struct Function {
    tool: String,
    params: Vec<Param>,
}

/// Where a script's interpreter runs.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Sandbox {
    /// In this process, each step on a blocking thread: starts in microseconds. The
    /// interpreter's own checks hold (time, recursion, any single allocation over
    /// [`CodeLimits::max_memory`]), but what a script builds up piece by piece is bounded only
    /// by its CPU time, and a crash inside the interpreter would end this process. For scripts
    /// from a model you trust with the host.
    InProcess,
    /// In a worker process of its own ([`crate::worker`]): a script holding more than
    /// [`CodeLimits::max_memory`] in all ends its worker, not the host, as does a crash.
    /// Starting one costs a process spawn.
    Worker(WorkerCommand),
}

impl std::fmt::Debug for CodeMode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CodeMode")
            .field("functions", &self.functions.len())
            .field("limits", &self.limits)
            .field("sandbox", &self.sandbox)
            .finish()
    }
}

/// What a script's run came to: its value or its error, and what it printed on the way.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct ScriptRun {
    /// The value of the script's last expression (JSON), or why it ended without one.
    pub result: Result<Value, ScriptError>,
    /// What it printed, up to [`CodeLimits::max_output`].
    pub printed: String,
    /// Whether a `print` was refused at [`CodeLimits::max_output`] (the script may have
    /// caught the error and gone on).
    pub output_cut: bool,
    /// How many tools it called.
    pub tool_calls: usize,
}

impl ScriptRun {
    /// The run as a model reads it: what was printed, then the result or the error.
    pub fn to_text(&self) -> String {
        let mut out = self.printed.clone();
        if !out.is_empty() && !out.ends_with('\n') {
            out.push('\n');
        }
        if self.output_cut && self.result.is_ok() {
            out.push_str("[output cut at max_output]\n");
        }
        match &self.result {
            Ok(Value::Null) if !self.printed.is_empty() => {}
            Ok(value) => {
                out.push_str("Result: ");
                out.push_str(&value.to_string());
            }
            Err(error) => {
                out.push_str("Error: ");
                out.push_str(&error.to_string());
            }
        }
        out
    }
}

/// Why a script ended without a value.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum ScriptError {
    /// It does not parse, or uses Python the sandbox does not run.
    #[error("{0}")]
    Syntax(String),
    /// An exception no one caught; the traceback shows where.
    #[error("{traceback}")]
    Raised {
        /// The exception's type, e.g. `ValueError`.
        exception: String,
        /// Its message.
        message: String,
        /// The traceback, as Python prints it.
        traceback: String,
    },
    /// A limit of [`CodeLimits`].
    #[error(transparent)]
    Limit(#[from] LimitError),
    /// Its value is not JSON.
    #[error("the script's value cannot be returned: {0}")]
    Result(BridgeError),
    /// The caller cancelled the run.
    #[error("the script was cancelled")]
    Cancelled,
    /// A call's question (a person's approval, in a protocol where the call ends with the
    /// question) paused it: the call runs again with the answer, and the script resumes
    /// without making again the calls it made before the pause.
    #[error("the script paused for an answer; it resumes when the call is made again")]
    Paused,
    /// The interpreter failed (a bug, not the script's doing).
    #[error("the interpreter failed: {0}")]
    Interpreter(String),
}

impl ScriptError {
    /// The limit it reached, if that is why it ended.
    pub fn limit(&self) -> Option<Limit> {
        match self {
            Self::Limit(e) => Some(e.limit),
            _ => None,
        }
    }
}

impl CodeMode {
    /// Code mode over `executor`'s tools, with the default [`CodeLimits`].
    pub fn new(executor: Executor) -> Self {
        let mut functions = HashMap::new();
        // A tool for views only is not a model's, so not a script's: the executor would
        // refuse it anyway (a script's calls are made for a model).
        for tool in executor.registry().tools().iter().filter(|t| t.to_model()) {
            // Two tools whose names differ only in characters Python cannot spell: the first
            // keeps the name (the stubs show which).
            functions
                .entry(stubs::python_name(tool.name()))
                .or_insert_with(|| Function {
                    tool: tool.name().to_owned(),
                    params: stubs::params(tool),
                });
        }
        Self {
            executor,
            limits: CodeLimits::default(),
            sandbox: Sandbox::InProcess,
            show_deferred: false,
            functions: Arc::new(functions),
        }
    }

    /// Sets its limits.
    pub fn limits(mut self, limits: CodeLimits) -> Self {
        self.limits = limits;
        self
    }

    /// Sets where scripts run (by default, [`Sandbox::InProcess`]).
    pub fn sandbox(mut self, sandbox: Sandbox) -> Self {
        self.sandbox = sandbox;
        self
    }

    /// Whether the [code tool](Self::code_tool) shows the stubs of deferred tools too (as a
    /// server that lists them does), rather than those of core tools alone, the rest being
    /// found with `search_tools` (the default).
    pub fn show_deferred(mut self, show: bool) -> Self {
        self.show_deferred = show;
        self
    }

    /// The executor its scripts' calls go through.
    pub fn executor(&self) -> &Executor {
        &self.executor
    }

    /// The stubs of the tools a model is shown up front: the core ones (which include
    /// `search_tools` where a catalog is installed), or every one with
    /// [`show_deferred`](Self::show_deferred).
    pub fn shown_stubs(&self) -> String {
        let registry = self.executor.registry();
        if self.show_deferred {
            stubs::stubs(registry.tools())
        } else {
            stubs::stubs(registry.core())
        }
    }

    /// Gives each match of a `search_tools` result its stub, so that a script (and the model
    /// reading what it prints) knows how to call what it found.
    fn add_stubs(&self, result: &mut CallResult) {
        let Some(matches) = result
            .as_mut()
            .ok()
            .and_then(|output| output.data_mut())
            .and_then(|data| data.get_mut("matches"))
            .and_then(Value::as_array_mut)
        else {
            return;
        };
        for found in matches {
            let tool = found
                .get("name")
                .and_then(Value::as_str)
                .and_then(|n| self.tool(n));
            if let (Some(tool), Some(found)) = (tool, found.as_object_mut()) {
                let stub = stubs::stub(tool);
                found.insert("stub".to_owned(), Value::String(stub));
            }
        }
    }

    /// The tool named `name`, if a script can call it.
    pub fn tool(&self, name: &str) -> Option<&Tool> {
        self.executor.registry().get(name)
    }

    /// Runs `script` in `ctx` (the caller's scopes, approver, events and cancellation are
    /// those of its tool calls; each call is a child of `ctx`).
    pub async fn run(&self, script: &str, ctx: &ToolContext) -> ScriptRun {
        let engine = match &self.sandbox {
            Sandbox::InProcess => Engine::Local(None),
            Sandbox::Worker(command) => Engine::Worker(command.clone(), None),
        };
        let mut run = Run {
            code: self,
            ctx,
            engine,
            printed: String::new(),
            output_overflowed: false,
            tool_calls: 0,
            pending: HashMap::new(),
            deadline: Instant::now() + self.limits.wall_time,
            rerun: ctx.extension::<Rerun>().cloned(),
            journal: Journal::default(),
        };
        if let Some(rerun) = &run.rerun {
            run.journal = Journal::carried(rerun.carried());
        }
        let result = tokio::select! {
            biased;
            () = ctx.cancellation().cancelled() => Err(ScriptError::Cancelled),
            result = run.drive(script) => result,
        };
        // Only a paused run runs again: what it kept is carried to that run.
        if let (Some(rerun), Err(ScriptError::Paused)) = (&run.rerun, &result) {
            rerun.keep(run.journal.state());
        }
        ScriptRun {
            result,
            printed: run.printed,
            output_cut: run.output_overflowed,
            tool_calls: run.tool_calls,
        }
    }
}

/// One run's state.
struct Run<'a> {
    code: &'a CodeMode,
    ctx: &'a ToolContext,
    engine: Engine,
    printed: String,
    /// Whether a `print` was refused for want of room (the output is cut short).
    output_overflowed: bool,
    tool_calls: usize,
    /// Calls the script has made and not yet awaited, by the interpreter's call id.
    pending: HashMap<u32, Planned>,
    deadline: Instant,
    /// The call's slot for what its next run needs (over MCP 2026-07-28).
    rerun: Option<Rerun>,
    /// The calls the runs before this one made, and this run's.
    journal: Journal,
}

/// A call a script made: its id under the caller's, the tool and the input.
struct Planned {
    id: String,
    tool: String,
    input: Value,
}

/// Where the interpreter runs.
enum Engine {
    /// In this process; `None` while a step runs on a blocking thread.
    Local(Option<Box<Machine>>),
    /// In a worker process (`None` until the script starts).
    Worker(WorkerCommand, Option<Box<Worker>>),
}

impl<'a> Run<'a> {
    async fn drive(&mut self, script: &str) -> Result<Value, ScriptError> {
        let limits = &self.code.limits;
        if script.len() > limits.max_script {
            return Err(limit(
                Limit::Script,
                format!("{} bytes > {} bytes", script.len(), limits.max_script),
            ));
        }
        let budget = Budget {
            limits: ResourceLimits::default()
                .max_duration(limits.cpu_time)
                .max_memory(limits.max_memory)
                .max_recursion_depth(limits.max_recursion)
                .max_suspensions(usize::MAX),
            output: limits.max_output,
        };
        let mut event = self.start(script.to_owned(), budget).await?;
        loop {
            let answer = match event {
                Event::Complete(value) => return self.finish(&value),
                Event::Call {
                    call_id,
                    name,
                    args,
                    kwargs,
                } => match self.function_call(&name, &args, &kwargs) {
                    Err(stop) => Answer::Abort(stop),
                    Ok(Err(refusal)) => Answer::Now(refusal),
                    Ok(Ok(tool_call)) => {
                        self.pending.insert(call_id, tool_call);
                        Answer::Later
                    }
                },
                Event::Await(ids) => Answer::Resolved(self.run_calls(&ids).await?),
                Event::Lookup { name, on_object } => Answer::Name(
                    (!on_object && self.code.functions.contains_key(&name)).then_some(
                        MontyObject::Function {
                            name,
                            docstring: None,
                        },
                    ),
                ),
                Event::Os => Answer::Now(Reply::Raise(MontyException::new(
                    ExcType::PermissionError,
                    Some(
                        "the sandbox has no filesystem, environment, network or clock: use a \
                         tool for that"
                            .to_owned(),
                    ),
                ))),
            };
            event = self.answer(answer).await?;
        }
    }

    /// Compiles and starts the script.
    async fn start(&mut self, script: String, budget: Budget) -> Result<Event, ScriptError> {
        let clock = self.clock();
        let outcome = match &mut self.engine {
            Engine::Local(_) => {
                let (machine, outcome) = clock
                    .blocking(move || Machine::start(script, budget))
                    .await?;
                self.engine = Engine::Local(Some(Box::new(machine)));
                outcome
            }
            Engine::Worker(command, _) => {
                let mut worker = Worker::spawn(command)
                    .await
                    .map_err(|e| ScriptError::Interpreter(e.to_string()))?;
                let max_memory = self.code.limits.max_memory;
                let start = Command::Start {
                    script,
                    budget,
                    max_memory,
                };
                let outcome = clock.worker(worker.send(&start)).await;
                if let Engine::Worker(_, slot) = &mut self.engine {
                    *slot = Some(Box::new(worker));
                }
                outcome?
            }
        };
        self.take(outcome)
    }

    /// Goes on with `answer`.
    async fn answer(&mut self, answer: Answer) -> Result<Event, ScriptError> {
        let clock = self.clock();
        let outcome = match &mut self.engine {
            Engine::Local(slot) => {
                let mut machine = slot.take().ok_or_else(|| {
                    ScriptError::Interpreter("the interpreter was lost".to_owned())
                })?;
                let (machine, outcome) = clock
                    .blocking(move || {
                        let outcome = machine.answer(answer);
                        (machine, outcome)
                    })
                    .await?;
                self.engine = Engine::Local(Some(machine));
                outcome
            }
            Engine::Worker(_, worker) => {
                let Some(worker) = worker.as_mut() else {
                    return Err(ScriptError::Interpreter("no worker".to_owned()));
                };
                clock.worker(worker.send(&Command::Answer(answer))).await?
            }
        };
        self.take(outcome)
    }

    /// The run's wall clock, to wait on without holding the run.
    fn clock(&self) -> Clock<'a> {
        Clock {
            deadline: self.deadline,
            limits: &self.code.limits,
        }
    }

    /// Takes a step's output, and its event or the error it ended with.
    fn take(&mut self, outcome: Outcome) -> Result<Event, ScriptError> {
        self.printed.push_str(&outcome.printed);
        self.output_overflowed |= outcome.overflowed;
        match outcome.result {
            Ok(event) => Ok(event),
            Err(Failure::Compile(e)) => Err(ScriptError::Syntax(cap(e.to_string()))),
            Err(Failure::Run(e)) => Err(self.error(e)),
        }
    }

    /// What a call of `name` becomes: a tool call to run when awaited, an exception the
    /// script sees at once (`Ok(Err)`), or one that ends it (`Err`).
    fn function_call(
        &mut self,
        name: &str,
        args: &[MontyObject],
        kwargs: &[(MontyObject, MontyObject)],
    ) -> Result<Result<Planned, Reply>, MontyException> {
        let Some(function) = self.code.functions.get(name) else {
            return Ok(Err(Reply::NotFound(name.to_owned())));
        };
        if !args.is_empty() {
            return Ok(Err(raise(
                ExcType::TypeError,
                format!("{name}() takes keyword arguments only, e.g. {name}(name=value)"),
            )));
        }
        let mut input = Map::new();
        for (key, value) in kwargs {
            let MontyObject::String(key) = key else {
                return Ok(Err(raise(ExcType::TypeError, "keywords must be strings")));
            };
            let property = function
                .params
                .iter()
                .find(|p| &p.python == key)
                .map_or(key.as_str(), |p| p.property.as_str());
            if *value == MontyObject::None && !self.accepts_null(&function.tool, property) {
                // `= None` in a stub stands for "left out".
                continue;
            }
            match bridge::from_python_naming(value, &|id| self.unawaited_call(id)) {
                Ok(json) => {
                    input.insert(property.to_owned(), json);
                }
                Err(e) => {
                    return Ok(Err(raise(
                        ExcType::TypeError,
                        format!("{name}() argument {key}: {e}"),
                    )));
                }
            }
        }
        if self.tool_calls >= self.code.limits.max_tool_calls {
            return Err(MontyException::new(
                ExcType::RuntimeError,
                Some(
                    limit(
                        Limit::ToolCalls,
                        format!("{} calls", self.code.limits.max_tool_calls),
                    )
                    .to_string(),
                ),
            ));
        }
        self.tool_calls += 1;
        let id = format!("{}/code-{}", self.ctx.call_id(), self.tool_calls);
        Ok(Ok(Planned {
            id,
            tool: function.tool.clone(),
            input: Value::Object(input),
        }))
    }

    fn accepts_null(&self, tool: &str, property: &str) -> bool {
        self.code
            .tool(tool)
            .and_then(|t| {
                t.input_schema()
                    .pointer(&format!("/properties/{}", escape(property)))
            })
            .is_some_and(accepts_null)
    }

    /// Runs the awaited calls, concurrently, through the executor; a call an earlier run of
    /// this call already made gets that run's result instead ([`Journal`]). Stops the script
    /// when a call's question (an approval over MCP 2026-07-28) ends this run.
    async fn run_calls(&mut self, ids: &[u32]) -> Result<Vec<(u32, Reply)>, ScriptError> {
        let mut results: Vec<Option<Recorded>> = Vec::with_capacity(ids.len());
        let mut calls = Vec::new();
        let mut made = Vec::new();
        let mut inputs: Vec<(String, Value)> = Vec::new();
        for (at, id) in ids.iter().enumerate() {
            let call = self.pending.remove(id).ok_or_else(|| {
                ScriptError::Interpreter(format!("the interpreter awaits call {id}, never made"))
            })?;
            let replayed = self.journal.replay(&call.tool, &call.input);
            if replayed.is_none() {
                made.push(at);
                calls.push(ToolCall::new(
                    call.id,
                    call.tool.clone(),
                    call.input.clone(),
                ));
                inputs.push((call.tool, call.input));
            }
            results.push(replayed);
        }
        let executor = &self.code.executor;
        // A model wrote the script: its calls reach what a model may, and are calls made
        // within the script's own (one level deeper, bounded, under it in the audit).
        let script = self.ctx.for_audience(Audience::Model);
        let outcomes = match tokio::time::timeout_at(self.deadline, async {
            match calls.is_empty() {
                true => Vec::new(),
                false => executor.call_batch_within(calls, &script).await,
            }
        })
        .await
        {
            Ok(outcomes) => outcomes,
            Err(_) => return Err(wall_time(&self.code.limits)),
        };
        let waiting = self.rerun.as_ref().is_some_and(Rerun::is_waiting);
        for ((at, (name, input)), mut outcome) in made.into_iter().zip(inputs).zip(outcomes) {
            if name == tool_catalog::SEARCH_TOOLS {
                self.code.add_stubs(&mut outcome);
            }
            let recorded = Recorded::of(outcome);
            // A run that waits for an answer keeps what ran to a result: the call that asked
            // runs again, with its answer.
            if !waiting || recorded.succeeded() {
                self.journal.record(&name, &input, recorded.clone());
            }
            results[at] = Some(recorded);
        }
        if waiting {
            return Err(ScriptError::Paused);
        }
        Ok(ids
            .iter()
            .zip(results)
            .map(|(id, recorded)| {
                let reply = recorded.map_or_else(
                    || raise(ExcType::RuntimeError, "the call has no result"),
                    |r| r.reply(),
                );
                (*id, reply)
            })
            .collect())
    }

    /// The script's name of the function a call still pending went to.
    fn unawaited_call(&self, call_id: u32) -> Option<String> {
        self.pending
            .get(&call_id)
            .map(|planned| crate::python_name(&planned.tool))
    }

    fn finish(&self, value: &MontyObject) -> Result<Value, ScriptError> {
        let value = bridge::from_python_naming(value, &|id| self.unawaited_call(id))
            .map_err(ScriptError::Result)?;
        let size = value.to_string().len();
        if size > self.code.limits.max_result {
            return Err(limit(
                Limit::Result,
                format!("{size} bytes > {} bytes", self.code.limits.max_result),
            ));
        }
        Ok(value)
    }

    /// The error a failed step ends the run with.
    fn error(&self, e: MontyException) -> ScriptError {
        let limits = &self.code.limits;
        let message = e.message().unwrap_or_default().to_owned();
        match e.exc_type() {
            ExcType::TimeoutError if message.starts_with("time limit exceeded") => {
                limit(Limit::CpuTime, message)
            }
            ExcType::MemoryError if message == PRINT_OVERFLOW => limit(
                Limit::Output,
                format!("{} bytes printed", limits.max_output),
            ),
            ExcType::MemoryError if message.starts_with("memory limit exceeded") => {
                limit(Limit::Memory, message)
            }
            ExcType::RecursionError => limit(
                Limit::Recursion,
                format!("{} calls deep", limits.max_recursion),
            ),
            ExcType::RuntimeError if message.starts_with(TOOL_CALLS_PREFIX) => {
                limit(Limit::ToolCalls, format!("{} calls", limits.max_tool_calls))
            }
            exc_type => ScriptError::Raised {
                exception: <&'static str>::from(exc_type).to_owned(),
                message,
                traceback: cap(e.to_string()),
            },
        }
    }
}

/// A run's wall clock.
#[derive(Clone, Copy)]
struct Clock<'a> {
    deadline: Instant,
    limits: &'a CodeLimits,
}

impl Clock<'_> {
    /// A worker's step, within the wall time.
    async fn worker(
        self,
        step: impl Future<Output = Result<Outcome, WorkerError>>,
    ) -> Result<Outcome, ScriptError> {
        match tokio::time::timeout_at(self.deadline, step).await {
            Ok(outcome) => worker_outcome(outcome, self.limits),
            Err(_) => Err(wall_time(self.limits)),
        }
    }

    /// Runs `f` (a step of the interpreter in this process) on a blocking thread, within the
    /// wall time.
    async fn blocking<T: Send + 'static>(
        self,
        f: impl FnOnce() -> T + Send + 'static,
    ) -> Result<T, ScriptError> {
        match tokio::time::timeout_at(self.deadline, tokio::task::spawn_blocking(f)).await {
            Ok(Ok(done)) => Ok(done),
            Ok(Err(join)) => Err(ScriptError::Interpreter(join.to_string())),
            Err(_) => Err(wall_time(self.limits)),
        }
    }
}

/// A worker's step, or the error its end means.
fn worker_outcome(
    outcome: Result<Outcome, WorkerError>,
    limits: &CodeLimits,
) -> Result<Outcome, ScriptError> {
    outcome.map_err(|e| match e {
        WorkerError::OutOfMemory => limit(
            Limit::Memory,
            format!("over {} bytes held", limits.max_memory),
        ),
        other => ScriptError::Interpreter(other.to_string()),
    })
}

fn wall_time(limits: &CodeLimits) -> ScriptError {
    limit(Limit::WallTime, format!("{:?}", limits.wall_time))
}

/// How the tool-call limit's error begins (it ends the script through the interpreter).
const TOOL_CALLS_PREFIX: &str = "the script reached its max_tool_calls limit";

/// The longest traceback kept: its last lines, where the error is.
const MAX_TRACEBACK: usize = 4096;

/// `text`, or its last [`MAX_TRACEBACK`] bytes after a line saying it was cut.
fn cap(text: String) -> String {
    if text.len() <= MAX_TRACEBACK {
        return text;
    }
    let mut start = text.len() - MAX_TRACEBACK;
    while !text.is_char_boundary(start) {
        start += 1;
    }
    format!("[{start} bytes cut]\n{}", &text[start..])
}

fn limit(limit: Limit, detail: impl Into<String>) -> ScriptError {
    ScriptError::Limit(LimitError {
        limit,
        detail: detail.into(),
    })
}

fn raise(exc_type: ExcType, message: impl Into<String>) -> Reply {
    Reply::Raise(MontyException::new(exc_type, Some(message.into())))
}

/// Whether a property's schema lets `null` through (a `$ref` or `allOf` is taken to refuse it:
/// a `None` then means "left out").
fn accepts_null(schema: &Value) -> bool {
    if let Some(values) = schema.get("enum").and_then(Value::as_array) {
        return values.contains(&Value::Null);
    }
    if let Some(value) = schema.get("const") {
        return value.is_null();
    }
    match schema.get("type") {
        Some(Value::String(t)) => t == "null",
        Some(Value::Array(types)) => types.iter().any(|t| t == "null"),
        _ => {
            let options: Vec<&Value> = ["anyOf", "oneOf"]
                .iter()
                .filter_map(|key| schema.get(key).and_then(Value::as_array))
                .flatten()
                .collect();
            if options.is_empty() {
                schema.get("$ref").is_none() && schema.get("allOf").is_none()
            } else {
                options.into_iter().any(accepts_null)
            }
        }
    }
}

/// A JSON pointer token (RFC 6901).
fn escape(token: &str) -> String {
    token.replace('~', "~0").replace('/', "~1")
}
