// `task` takes a flag or a mode: "optional" or "required".
use tool_core::prelude::*;

tool_core::domain!(pub demo, "Demo tools");

/// Trains the model and returns its score.
#[tool(domain = demo, label = "Training", hint = "Trains the model", task = "always")]
fn train_model() -> u8 {
    1
}

fn main() {}
