//! What a call keeps for its next run: a call that stopped to ask a question runs again with
//! the answer, in some protocols from the start.

use std::sync::{Arc, Mutex, PoisonError};

use serde_json::Value;

/// State a tool keeps for the next run of the same call, and whether this run is waiting for
/// an answer.
///
/// In MCP 2026-07-28, a call that asks its client (an approval, an elicitation) ends with the
/// question, and the client makes the call again with the answer: the tool runs again from the
/// start; so does an MCP task whose client answers its question. An adapter that runs calls that
/// way puts a `Rerun` in the call's context (tool-mcp does, for each such call and each task's
/// run, and seals what the tool kept into the call's `requestState`, or stores it with the
/// task); a
/// tool that has done work before the question, work it must not do twice, keeps what it needs
/// ([`keep`](Self::keep)) and finds it on the next run ([`carried`](Self::carried)). Code mode
/// keeps the results of the calls a script has made, so that a script paused at an approval
/// resumes without running them again.
///
/// ```
/// use serde_json::json;
/// use tool_core::context::Rerun;
/// let first = Rerun::carrying(None);
/// first.set_waiting();
/// first.keep(json!({"done": ["send_message"]}));
/// // The adapter carries what was kept to the next run.
/// let second = Rerun::carrying(first.kept());
/// assert_eq!(second.carried(), Some(json!({"done": ["send_message"]})));
/// assert!(first.is_waiting() && !second.is_waiting());
/// ```
#[derive(Debug, Clone, Default)]
pub struct Rerun {
    inner: Arc<Mutex<Slots>>,
}

#[derive(Debug, Default)]
struct Slots {
    carried: Option<Value>,
    kept: Option<Value>,
    waiting: bool,
}

impl Rerun {
    /// The slot of a run that carries `state` from the run before it (`None` for a first run).
    pub fn carrying(state: Option<Value>) -> Self {
        Self {
            inner: Arc::new(Mutex::new(Slots {
                carried: state,
                ..Slots::default()
            })),
        }
    }

    fn slots(&self) -> std::sync::MutexGuard<'_, Slots> {
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// What the run before this one kept.
    pub fn carried(&self) -> Option<Value> {
        self.slots().carried.clone()
    }

    /// Keeps `state` for the next run (the last value kept wins). The adapter carries it only
    /// if the call runs again.
    pub fn keep(&self, state: Value) {
        self.slots().kept = Some(state);
    }

    /// What this run kept, for the adapter.
    pub fn kept(&self) -> Option<Value> {
        self.slots().kept.clone()
    }

    /// Marks this run as waiting for an answer: the call will end with the question and run
    /// again (set by the adapter when a tool asks something it has no answer for yet).
    pub fn set_waiting(&self) {
        self.slots().waiting = true;
    }

    /// Whether this run is waiting for an answer, so that what it does after the question is
    /// not its result: a tool that sees it can stop.
    pub fn is_waiting(&self) -> bool {
        self.slots().waiting
    }
}
