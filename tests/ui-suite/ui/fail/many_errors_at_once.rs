// Every problem in one #[tool] is reported at once.
use tool_core::prelude::*;

tool_core::domain!(pub demo, "Demo tools");

#[tool(domain = demo, labl = "Working", timeout = 5d, retries = 99)]
#[allow(non_snake_case)]
fn Work(text: &str, #[arg(rename = "")] n: u8) -> u8 {
    n + text.len() as u8
}

fn main() {}
