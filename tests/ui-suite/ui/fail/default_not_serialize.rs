// A parameter with a default needs a Serialize type: the default is shown in the schema.
use tool_core::{schemars, serde};
use tool_core::prelude::*;

tool_core::domain!(pub demo, "Demo tools");

#[derive(serde::Deserialize, schemars::JsonSchema)]
#[serde(crate = "tool_core::serde")]
struct Level(u8);

/// Returns the level.
#[tool(domain = demo, label = "Working", hint = "Does work")]
fn get_level(#[arg(default = Level(3))] level: Level) -> u8 {
    level.0
}

fn main() {}
