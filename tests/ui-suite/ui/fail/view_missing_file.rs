// `view` names an HTML file of the crate, read at compile time: a missing one is an error on
// the path.
use tool_core::prelude::*;

tool_core::domain!(pub weather, "Weather tools");

/// Returns the forecast for a city.
#[tool(domain = weather, label = "Forecasting", hint = "Gets a forecast", view = "cards/missing.html")]
fn get_forecast(city: String) -> String {
    city
}

fn main() {}
