// `icon`: a link, or the parts of an MCP Icon; repeatable, kept in order; carried by the MCP
// rendering only.
use serde_json::json;
use tool_core::prelude::*;
use tool_core::render::{self, Format, RenderOptions};

tool_core::domain!(pub weather, "Weather");

/// Returns the temperature in a city.
#[tool(
    domain = weather,
    label = "Reading",
    hint = "Temperature in a city",
    icon = "https://example.com/thermometer.png",
    icon(
        src = "data:image/png;base64,iVBORw0KGgo=",
        mime_type = "image/png",
        sizes("16x16", "32x32"),
        theme = "light",
    ),
    icon(src = "http://example.com/thermometer-dark.svg", sizes("any"), theme = "dark"),
)]
fn get_temperature(city: String) -> String {
    city
}

/// Returns the wind in a city.
#[tool(domain = weather, label = "Reading", hint = "Wind in a city")]
fn get_wind(city: String) -> String {
    city
}

fn main() {
    let registry = Registry::linked().unwrap();
    let tool = registry.get("get_temperature").unwrap();
    let icons = tool.icons();
    assert_eq!(icons.len(), 3);
    assert!(icons.iter().all(|icon| icon.is_valid()));
    assert_eq!(icons[1].sizes, ["16x16", "32x32"]);
    assert_eq!(
        render::mcp(tool)["icons"],
        json!([
            {"src": "https://example.com/thermometer.png"},
            {"src": "data:image/png;base64,iVBORw0KGgo=", "mimeType": "image/png", "sizes": ["16x16", "32x32"], "theme": "light"},
            {"src": "http://example.com/thermometer-dark.svg", "sizes": ["any"], "theme": "dark"},
        ])
    );
    for format in Format::ALL.into_iter().filter(|f| *f != Format::Mcp) {
        let definition = render::render(tool, format, RenderOptions::default()).definition;
        assert!(!definition.to_string().contains("thermometer"), "{format}");
    }
    let wind = registry.get("get_wind").unwrap();
    assert!(wind.icons().is_empty());
    assert!(render::mcp(wind).get("icons").is_none());
    tool_core::definition::check::assert_valid();
}
