// A doc comment may be `#[doc = expr]` (here `include_str!`): the description joins it to the
// literal lines, trimmed as `///` lines are.
use serde_json::json;
use tool_core::prelude::*;

tool_core::domain!(pub weather, "Weather forecasts");

/// Returns the forecast for a city.
///
#[doc = include_str!("docs/get_forecast.md")]
#[tool(domain = weather, label = "Reading the forecast", hint = "Forecast for a city")]
fn get_forecast(city: String, days: u8) -> String {
    format!("{city}: {days} days of sun")
}

fn main() {
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let registry = Registry::linked().unwrap();
    let executor = tool_core::Executor::new(registry);
    let registry = executor.registry();
    let tool = registry.get("get_forecast").unwrap();
    assert_eq!(
        tool.description(),
        "Returns the forecast for a city.\n\nUse it before going out: it gives the high and low \
         of each day.\n\n- `days` counts from today"
    );
    let out = rt
        .block_on(executor.call("get_forecast", json!({"city": "Oslo", "days": 2}), &ToolContext::new()))
        .unwrap();
    assert_eq!(out.echo(), "Oslo: 2 days of sun");
}
