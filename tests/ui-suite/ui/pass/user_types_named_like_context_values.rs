// Which parameter comes from the context is decided by marks, never by a type's name: a user's
// own `State` and `Input` are ordinary parameters the model gives, and a renamed import of
// tool-core's `State` is still a context value when marked `#[ctx]`.
use std::sync::Arc;

use serde_json::json;
use tool_core::prelude::*;
use tool_core::context::State as Shared;
use tool_core::{schemars, serde};

tool_core::domain!(pub doors, "Doors of the building");

/// Whether a door is open.
#[derive(serde::Deserialize, schemars::JsonSchema)]
#[serde(crate = "tool_core::serde", rename_all = "snake_case")]
enum State {
    Open,
    Closed,
}

/// What to set on a door.
#[derive(serde::Deserialize, schemars::JsonSchema)]
#[serde(crate = "tool_core::serde")]
struct Input {
    /// The door's number.
    door: u32,
}

struct Building {
    name: &'static str,
}

/// Returns the door and the state it was set to.
#[tool(domain = doors, label = "Setting a door", hint = "Opens or closes a door")]
fn set_door(#[ctx] building: Shared<Building>, input: Input, state: State) -> String {
    let state = match state {
        State::Open => "open",
        State::Closed => "closed",
    };
    format!("{} door {}: {state}", building.name, input.door)
}

fn main() {
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let registry = Registry::linked().unwrap();
    let executor = tool_core::Executor::new(registry);
    let registry = executor.registry();
    let schema = registry.get("set_door").unwrap().input_schema();
    let mut keys: Vec<_> = schema["properties"].as_object().unwrap().keys().collect();
    keys.sort();
    assert_eq!(keys, ["input", "state"], "{schema}");
    assert_eq!(schema["required"], json!(["input", "state"]));

    let ctx = ToolContext::builder().extension(Arc::new(Building { name: "north" })).build();
    let out = rt
        .block_on(executor.call("set_door", json!({"input": {"door": 4}, "state": "open"}), &ctx))
        .unwrap();
    assert_eq!(out.echo(), "north door 4: open");
    let err = rt
        .block_on(executor.call("set_door", json!({"input": {"door": 4}, "state": "ajar"}), &ctx))
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidInput);
    assert_eq!(err.path(), Some("state"));
}
