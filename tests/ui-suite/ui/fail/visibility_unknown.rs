// `visibility` is "both", "model" or "app".
use tool_core::prelude::*;

tool_core::domain!(pub weather, "Weather tools");

/// Refreshes the forecast shown in the card.
#[tool(domain = weather, label = "Refreshing", hint = "Refreshes a forecast", visibility = "view")]
fn refresh_forecast() -> String {
    String::new()
}

fn main() {}
