//! The results of a script's tool calls, kept across the runs of one call: a script paused for
//! a question (a person's approval over MCP 2026-07-28) runs again from the start once the
//! answer comes, and gets the results of the calls it already made from here instead of
//! making them again. Scripts are deterministic (no clock, randomness, environment or files),
//! so the second run makes the same calls, in the same order, with the same arguments, up to
//! the pause.

use std::collections::{HashMap, VecDeque};

use monty_types::{ExcType, MontyException};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use tool_core::ToolError;
use tool_core::exec::CallResult;

use crate::bridge;
use crate::machine::Reply;

/// A call's result as the script saw it, in a form that keeps.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) enum Recorded {
    /// The tool's data, or its text.
    Value(Value),
    /// The exception its error became.
    Raise { exception: String, message: String },
}

impl Recorded {
    /// What `result` is to the script.
    pub fn of(result: CallResult) -> Self {
        match result {
            Ok(output) => {
                let (echo, data) = output.into_echo_and_data();
                Self::Value(data.unwrap_or(Value::String(echo)))
            }
            Err(error) => Self::Raise {
                exception: bridge::exception_type(error.kind()).to_owned(),
                message: message(&error),
            },
        }
    }

    /// Whether the tool ran to a result.
    pub fn succeeded(&self) -> bool {
        matches!(self, Self::Value(_))
    }

    /// The script's side of it.
    pub fn reply(&self) -> Reply {
        match self {
            Self::Value(value) => Reply::Value(bridge::to_python(value)),
            Self::Raise { exception, message } => Reply::Raise(MontyException::new(
                exception.parse().unwrap_or(ExcType::RuntimeError),
                Some(message.clone()),
            )),
        }
    }
}

/// The message of the exception a tool error becomes: its kind, then the error.
pub(crate) fn message(error: &ToolError) -> String {
    format!("{}: {error}", error.kind())
}

/// One call and its result.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct Entry {
    tool: String,
    input: Value,
    result: Recorded,
}

/// The calls of the runs before this one, to replay, and those of this run, to keep.
#[derive(Debug, Default)]
pub(crate) struct Journal {
    /// Results by call (the tool and its canonical input), in the order they were made.
    earlier: HashMap<(String, Vec<u8>), VecDeque<Recorded>>,
    /// This run's calls so far, replayed or made.
    kept: Vec<Entry>,
}

impl Journal {
    /// The journal carried from the run before (`None`, or what it kept).
    pub fn carried(state: Option<Value>) -> Self {
        let entries: Vec<Entry> = state
            .and_then(|s| serde_json::from_value(s).ok())
            .unwrap_or_default();
        let mut earlier: HashMap<_, VecDeque<_>> = HashMap::new();
        for entry in entries {
            earlier
                .entry(key(&entry.tool, &entry.input))
                .or_default()
                .push_back(entry.result);
        }
        Self {
            earlier,
            kept: Vec::new(),
        }
    }

    /// The result an earlier run got for this call, if it made it.
    pub fn replay(&mut self, tool: &str, input: &Value) -> Option<Recorded> {
        let result = self.earlier.get_mut(&key(tool, input))?.pop_front()?;
        self.record(tool, input, result.clone());
        Some(result)
    }

    /// Keeps a call's result for the runs after this one.
    pub fn record(&mut self, tool: &str, input: &Value, result: Recorded) {
        self.kept.push(Entry {
            tool: tool.to_owned(),
            input: input.clone(),
            result,
        });
    }

    /// What this run keeps for the next.
    pub fn state(&self) -> Value {
        serde_json::to_value(&self.kept).unwrap_or(Value::Null)
    }
}

fn key(tool: &str, input: &Value) -> (String, Vec<u8>) {
    (tool.to_owned(), tool_core::exec::canonical_json(input))
}
