// #[tool] goes on free functions, not associated functions in an impl block.
use tool_core::prelude::*;

tool_core::domain!(pub demo, "Demo tools");

struct Worker;

impl Worker {
    /// Returns one.
    #[tool(domain = demo, label = "Working", hint = "Does work")]
    fn do_work() -> u8 {
        1
    }
}

fn main() {}
