// `view` (a file of the crate, read at compile time: here the manifest of the crate trybuild
// builds), `card`, and `visibility`: what the registry then holds.
use tool_core::definition::{ToolView, Visibility};
use tool_core::prelude::*;

tool_core::domain!(pub weather, "Weather tools");

/// Returns the forecast for a city.
#[tool(domain = weather, label = "Forecasting", hint = "Gets a forecast", view = "Cargo.toml")]
fn get_forecast(city: String) -> String {
    city
}

/// Returns the sky over a city.
#[tool(domain = weather, label = "Looking up", hint = "Gets the sky", card, visibility = "model")]
fn get_sky(city: String) -> String {
    city
}

/// Refreshes the forecast a view shows.
#[tool(domain = weather, label = "Refreshing", hint = "Refreshes a forecast", visibility = "app")]
fn refresh_forecast(city: String) -> String {
    city
}

fn main() {
    let registry = Registry::linked().unwrap();
    let tool = |name: &str| registry.get(name).unwrap();
    match tool("get_forecast").view() {
        Some(ToolView::Html(html)) => assert!(html.contains("[package]"), "{html}"),
        other => panic!("{other:?}"),
    }
    assert_eq!(tool("get_forecast").visibility(), Visibility::Both);
    assert_eq!(tool("get_sky").view(), Some(&ToolView::Card));
    assert_eq!(tool("get_sky").visibility(), Visibility::Model);
    assert_eq!(tool("refresh_forecast").view(), None);
    assert!(!tool("refresh_forecast").to_model());
    assert!(tool("get_sky").to_model());
}
