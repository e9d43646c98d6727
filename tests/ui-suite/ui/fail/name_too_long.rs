// A tool name has at most 64 characters.
use tool_core::prelude::*;

tool_core::domain!(pub demo, "Demo tools");

/// Returns one.
#[tool(domain = demo, label = "Working", hint = "Does work")]
fn get_the_number_one_which_is_a_very_useful_number_for_counting_things() -> u8 {
    1
}

fn main() {}
