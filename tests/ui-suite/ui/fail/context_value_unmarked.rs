// A value from the context is marked #[ctx]; unmarked, it is read as a field of the model's
// input, and the one error says so.
use tool_core::prelude::*;

tool_core::domain!(pub demo, "Demo tools");

struct Db;

/// Returns one.
#[tool(domain = demo, label = "Working", hint = "Does work")]
fn do_work(db: State<Db>) -> u8 {
    let _ = db;
    1
}

fn main() {}
