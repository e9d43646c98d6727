// A tool has one view: its own HTML (`view`) or the framework's card (`card`).
use tool_core::prelude::*;

tool_core::domain!(pub weather, "Weather tools");

/// Returns the forecast for a city.
#[tool(domain = weather, label = "Forecasting", hint = "Gets a forecast", view = "Cargo.toml", card)]
fn get_forecast(city: String) -> String {
    city
}

fn main() {}
