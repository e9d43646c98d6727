// A syntax slip inside #[tool] is one error; the keys after it are still read, so none is
// reported missing.
use tool_core::prelude::*;

tool_core::domain!(pub weather, "Weather forecasts");

/// Returns the time in a city.
#[tool(
    domain = weather,
    examples("Paris now": r#"{"city": "Paris"}"#),
    label = "Reading the clock",
    hint = "Time in a city",
)]
fn get_time(city: String) -> String {
    city
}

fn main() {}
