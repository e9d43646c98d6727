// #[tool] goes on free functions, not methods with `self`.
use tool_core::prelude::*;

tool_core::domain!(pub demo, "Demo tools");

struct Worker;

impl Worker {
    /// Returns one.
    #[tool(domain = demo, label = "Working", hint = "Does work")]
    fn do_work(&self) -> u8 {
        1
    }
}

fn main() {}
