// `#[ctx]` is a bare mark: it takes no arguments.
use tool_core::prelude::*;

tool_core::domain!(pub demo, "Demo tools");

/// Returns whether the call was cancelled.
#[tool(domain = demo, label = "Working", hint = "Does work")]
fn get_cancelled(#[ctx(token)] token: CancellationToken) -> bool {
    token.is_cancelled()
}

fn main() {}
