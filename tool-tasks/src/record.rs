//! What a store keeps of a task, and what its operations take and give.

use serde_json::{Map, Value};

/// Where a task is in its life. The last three are terminal: once reached, the task's state does
/// not change (MCP's `working`, `input_required`, `completed`, `failed`, `cancelled`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TaskStatus {
    /// The tool is running.
    Working,
    /// The tool waits for answers from the client.
    InputRequired,
    /// The tool returned (a tool error included): the task's outcome is the result.
    Completed,
    /// The call failed with a protocol error: the task's outcome is the error.
    Failed,
    /// The task was cancelled before it finished.
    Cancelled,
}

impl TaskStatus {
    /// Every status, in the order of a task's life.
    pub const ALL: [TaskStatus; 5] = [
        Self::Working,
        Self::InputRequired,
        Self::Completed,
        Self::Failed,
        Self::Cancelled,
    ];

    /// The status as MCP spells it (`input_required`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Working => "working",
            Self::InputRequired => "input_required",
            Self::Completed => "completed",
            Self::Failed => "failed",
            Self::Cancelled => "cancelled",
        }
    }

    /// The status [`as_str`](Self::as_str) spells, if any.
    ///
    /// ```
    /// use tool_tasks::TaskStatus;
    /// assert_eq!(TaskStatus::parse("input_required"), Some(TaskStatus::InputRequired));
    /// assert_eq!(TaskStatus::parse("done"), None);
    /// ```
    pub fn parse(text: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|s| s.as_str() == text)
    }

    /// Whether the task is over: completed, failed or cancelled.
    pub fn is_terminal(self) -> bool {
        matches!(self, Self::Completed | Self::Failed | Self::Cancelled)
    }
}

impl std::fmt::Display for TaskStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A task as a store keeps it.
#[derive(Debug, Clone, PartialEq)]
pub struct TaskRecord {
    /// The task's id: unguessable ([`new_task_id`](crate::new_task_id)).
    pub id: String,
    /// Who the task belongs to (a server's key for its authenticated caller), `None` when the
    /// caller was not authenticated. Only the same owner may read or cancel it.
    pub owner: Option<String>,
    /// The tool called.
    pub tool: String,
    /// The call's arguments, as the client sent them.
    pub arguments: Value,
    /// What the server needs to run the call again on another instance (the caller's identity
    /// and scopes, say): opaque to the store.
    pub origin: Value,
    /// Whether the call may be run again when the instance running it stopped.
    pub idempotent: bool,
    /// Where the task is.
    pub status: TaskStatus,
    /// A line for people (the tool's latest progress message, or why it ended).
    pub status_message: Option<String>,
    /// When the task was created, in milliseconds since the Unix epoch.
    pub created_ms: u64,
    /// When the task's status or status message last changed, in milliseconds since the epoch.
    pub updated_ms: u64,
    /// How long after its creation the task is kept; `None`: until it is removed by hand.
    pub ttl_ms: Option<u64>,
    /// How often the client is asked to poll.
    pub poll_interval_ms: Option<u64>,
    /// A terminal task's outcome: the call's result (completed) or its JSON-RPC error (failed).
    pub outcome: Option<Value>,
    /// Whether someone asked for the task to be cancelled.
    pub cancel_requested: bool,
    /// The questions the task waits for answers to, by key (MCP's `inputRequests`): empty
    /// unless the task is [`InputRequired`](TaskStatus::InputRequired).
    pub input_requests: Map<String, Value>,
    /// The answers the client gave so far, by question key: the next run of the call finds
    /// them when it asks the same questions again.
    pub answers: Map<String, Value>,
    /// The instance running the task, while one does.
    pub holder: Option<String>,
    /// Until when the holder's lease runs, in milliseconds since the epoch: past it, the holder
    /// is taken to have stopped.
    pub lease_until_ms: u64,
    /// How many instances took the task on: the one that created it, and each that took it
    /// over from an instance that stopped (and then ran it again, or failed it).
    pub attempts: u32,
}

impl TaskRecord {
    /// Whether the task is past its time to live at `now_ms`, and may be removed.
    pub fn expired(&self, now_ms: u64) -> bool {
        self.ttl_ms
            .is_some_and(|ttl| self.created_ms.saturating_add(ttl) <= now_ms)
    }
}

/// A task to create: running on `holder`, leased until `lease_until_ms`.
#[derive(Debug, Clone, PartialEq)]
pub struct NewTask {
    /// The task's id ([`new_task_id`](crate::new_task_id)).
    pub id: String,
    /// See [`TaskRecord::owner`].
    pub owner: Option<String>,
    /// See [`TaskRecord::tool`].
    pub tool: String,
    /// See [`TaskRecord::arguments`].
    pub arguments: Value,
    /// See [`TaskRecord::origin`].
    pub origin: Value,
    /// See [`TaskRecord::idempotent`].
    pub idempotent: bool,
    /// See [`TaskRecord::status_message`].
    pub status_message: Option<String>,
    /// Creation time, in milliseconds since the epoch.
    pub now_ms: u64,
    /// See [`TaskRecord::ttl_ms`].
    pub ttl_ms: Option<u64>,
    /// See [`TaskRecord::poll_interval_ms`].
    pub poll_interval_ms: Option<u64>,
    /// The instance that runs it.
    pub holder: String,
    /// Until when its lease runs.
    pub lease_until_ms: u64,
}

impl NewTask {
    /// The record a store keeps for it: working, attempted once.
    pub fn into_record(self) -> TaskRecord {
        TaskRecord {
            id: self.id,
            owner: self.owner,
            tool: self.tool,
            arguments: self.arguments,
            origin: self.origin,
            idempotent: self.idempotent,
            status: TaskStatus::Working,
            status_message: self.status_message,
            created_ms: self.now_ms,
            updated_ms: self.now_ms,
            ttl_ms: self.ttl_ms,
            poll_interval_ms: self.poll_interval_ms,
            outcome: None,
            cancel_requested: false,
            input_requests: Map::new(),
            answers: Map::new(),
            holder: Some(self.holder),
            lease_until_ms: self.lease_until_ms,
            attempts: 1,
        }
    }
}

/// How a task ended, as its holder reports it.
#[derive(Debug, Clone, PartialEq)]
pub struct Ending {
    /// A terminal status.
    pub status: TaskStatus,
    /// The status message it ends with (`None` keeps the last one).
    pub status_message: Option<String>,
    /// The result (completed) or the error (failed); `None` when cancelled.
    pub outcome: Option<Value>,
    /// When it ended, in milliseconds since the epoch.
    pub now_ms: u64,
}

/// A run that ended asking the client for input: the task waits for the answers.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Input {
    /// The questions without an answer yet, by key (MCP's `inputRequests`).
    pub requests: Map<String, Value>,
    /// The answers the run used, by key: the next run asks those questions again.
    pub answers: Map<String, Value>,
    /// The status message while the task waits (`None` keeps the last one).
    pub status_message: Option<String>,
    /// When the run asked, in milliseconds since the epoch.
    pub now_ms: u64,
}

/// What [`TaskStore::answer`](crate::TaskStore::answer) did with a client's answers.
#[derive(Debug, Clone, PartialEq)]
pub enum Answered {
    /// The task is not waiting for input (unknown, past its time to live, running or over):
    /// the answers were ignored.
    NotWaiting,
    /// Kept the answers to outstanding questions; others are still outstanding, by key.
    Partial {
        /// The keys still without an answer.
        outstanding: Vec<String>,
    },
    /// Every question has its answer: the task runs again, held by the instance that gave
    /// them, and this is its record (answers included) for that instance to run.
    Resumed(Box<TaskRecord>),
}

impl TaskRecord {
    /// What `responses` make of a task waiting for input: the answers it then holds and the
    /// questions still outstanding (answers to questions not outstanding are ignored, as MCP
    /// says); `None` when the task does not wait for input.
    pub fn with_responses(
        &self,
        responses: &Map<String, Value>,
    ) -> Option<(Map<String, Value>, Map<String, Value>)> {
        if self.status != TaskStatus::InputRequired {
            return None;
        }
        let mut answers = self.answers.clone();
        let mut outstanding = Map::new();
        for (key, request) in &self.input_requests {
            match responses.get(key) {
                Some(answer) => {
                    answers.insert(key.clone(), answer.clone());
                }
                None => {
                    outstanding.insert(key.clone(), request.clone());
                }
            }
        }
        Some((answers, outstanding))
    }
}

/// What a holder learns when it renews its lease.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Renewal {
    /// The lease is renewed; the flag says whether cancellation was asked for.
    Held {
        /// Someone asked for the task to be cancelled.
        cancel_requested: bool,
    },
    /// The task is no longer this holder's: another instance took it over, it ended, or it
    /// was removed. The holder stops the call and reports nothing.
    Lost,
}

/// Which tasks [`TaskStore::list`](crate::TaskStore::list) gives.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ListFilter {
    /// Only tasks in one of these statuses (every status when empty).
    pub statuses: Vec<TaskStatus>,
    /// Only the tasks of this tool.
    pub tool: Option<String>,
    /// At most this many, newest first (every one when `None`).
    pub limit: Option<usize>,
}

impl ListFilter {
    /// Whether `task` passes the filter (before the limit).
    pub fn admits(&self, task: &TaskRecord) -> bool {
        (self.statuses.is_empty() || self.statuses.contains(&task.status))
            && self.tool.as_deref().is_none_or(|tool| tool == task.tool)
    }
}
