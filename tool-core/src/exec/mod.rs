//! Running a call: the [`Executor`] pipeline (limits, time, cancellation, isolation, retries,
//! sanitised errors, audit, events, tracing) and the decoding every tool shares (errors that
//! name the JSON path).

mod limits;
mod pipeline;
pub mod retry;

pub use pipeline::{CallInput, ExecPolicy, Executor, ToolCall};

pub use crate::call::{
    CallFuture, CallResult, Fields, Missing, decode, decode_value, json_type, parse_input,
    unknown_tool,
};
