// `ToolOutput` and `ToolOutput<T>`: data plus echo, event and media; also inside a `Result`.
use serde_json::json;
use tool_core::{schemars, serde};
use tool_core::prelude::*;

tool_core::domain!(pub demo, "Demo tools");

/// The weather somewhere.
#[derive(serde::Serialize, schemars::JsonSchema)]
#[serde(crate = "tool_core::serde")]
struct Weather {
    /// Temperature in °C.
    temp_c: i32,
}

/// Returns the weather, as a card with a picture.
#[tool(domain = demo, label = "Looking outside", hint = "The weather")]
fn get_weather() -> ToolOutput<Weather> {
    ToolOutput::new(Weather { temp_c: 21 })
        .with_echo("21 °C")
        .with_event("weather_card")
        .with_media(Media::image("image/png", vec![1u8, 2, 3]))
}

/// Returns the weather or fails, asynchronously.
#[tool(domain = demo, label = "Looking outside", hint = "The weather")]
async fn get_weather_or_fail(fail: bool) -> Result<ToolOutput<Weather>, ToolError> {
    if fail {
        return Err(ToolError::unavailable("no sky"));
    }
    Ok(ToolOutput::new(Weather { temp_c: -3 }).with_media(Media::audio("audio/ogg", vec![9u8])))
}

/// Returns only text for the model.
#[tool(domain = demo, label = "Talking", hint = "Some text")]
fn say_text() -> ToolOutput {
    ToolOutput::text("just words")
}

/// Returns untyped JSON data.
#[tool(domain = demo, label = "Talking", hint = "Some data")]
fn get_json() -> ToolOutput {
    ToolOutput::new(json!({"a": 1})).with_event("json_card")
}

fn main() {
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let registry = Registry::linked().unwrap();
    let executor = tool_core::Executor::new(registry);
    let registry = executor.registry();
    let ctx = ToolContext::new();
    let call = |name, input| rt.block_on(executor.call(name, input, &ctx));

    let out = call("get_weather", json!({})).unwrap();
    assert_eq!(out.data(), Some(&json!({"temp_c": 21})));
    assert_eq!(out.echo(), "21 °C");
    assert_eq!(out.event(), Some("weather_card"));
    assert_eq!(out.media().len(), 1);
    assert_eq!(out.media()[0].kind, tool_core::output::MediaKind::Image);
    assert_eq!(out.media()[0].mime_type, "image/png");
    assert_eq!(&*out.media()[0].data, &[1u8, 2, 3]);

    let out = call("get_weather_or_fail", json!({"fail": false})).unwrap();
    assert_eq!(out.echo(), r#"{"temp_c":-3}"#);
    assert_eq!(out.media()[0].kind, tool_core::output::MediaKind::Audio);
    let err = call("get_weather_or_fail", json!({"fail": true})).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Unavailable);

    let out = call("say_text", json!({})).unwrap();
    assert_eq!(out.data(), None);
    assert_eq!(out.echo(), "just words");
    let out = call("get_json", json!({})).unwrap();
    assert_eq!(out.echo(), r#"{"a":1}"#);
    assert_eq!(out.event(), Some("json_card"));

    // The output schema is the data type's, with or without a Result around it.
    for name in ["get_weather", "get_weather_or_fail"] {
        let schema = registry.get(name).unwrap().output_schema().unwrap();
        assert_eq!(schema["properties"]["temp_c"]["description"], "Temperature in °C.", "{name}");
    }
}
