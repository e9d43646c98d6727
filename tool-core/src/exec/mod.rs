//! Running a call: the [`Executor`] pipeline (limits, a person's approval where one is needed,
//! time, cancellation, isolation, retries, sanitised errors, audit, events, tracing) and the decoding every tool shares (errors that
//! name the JSON path).

mod approval;
mod canonical;
mod items;
mod layer;
mod limits;
mod pipeline;
pub mod retry;

pub use approval::{ApprovalPolicy, PolicyError, approval_message};
pub use canonical::canonical_json;
pub use layer::{
    Call, CompletionRef, Item, Layer, LayerBody, LayerFn, LayerFuture, Next, Reply, layer_fn,
};
pub use pipeline::{CallInput, ExecPolicy, Executor, ExecutorBuilder, ToolCall};

pub use crate::call::{
    CallFuture, CallResult, Fields, Missing, decode, decode_value, json_type, parse_input,
    unknown_tool,
};
