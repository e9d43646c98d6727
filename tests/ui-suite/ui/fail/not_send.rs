// The future of an async tool must be Send.
use std::rc::Rc;
use tool_core::prelude::*;

tool_core::domain!(pub demo, "Demo tools");

async fn pause() {}

/// Returns one.
#[tool(domain = demo, label = "Working", hint = "Does work")]
async fn do_work() -> u8 {
    let shared = Rc::new(1u8);
    pause().await;
    *shared
}

fn main() {}
