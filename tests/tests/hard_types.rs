//! The hard types suite: every tool of `tests/fixtures/hard-types` (one input type that trips
//! real tool frameworks each), rendered in every format (and strict mode where there is one) and
//! checked. For each (tool, format, strict) the rendered schema either passes the target's rules,
//! or `check` reports it clearly: every error points into `/input_schema` and says how to fix it.
//!
//! One snapshot per tool (`tests/snapshots/hard_types__<tool>.snap`) holds every rendering and
//! its diagnostics. Regenerate with `INSTA_UPDATE=always cargo test -p tests --test hard_types`.

use std::fmt::Write as _;

use serde_json::Value;
use tool_core::definition::check::{CheckOptions, Diagnostic, check_tool};
use tool_core::definition::schema::Severity;
use tool_core::render::{Format, RenderOptions, render};
use tool_core::{Registry, registry::Tool};

use hard_types as _;

/// One target: a format, in strict mode or not.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Target {
    format: Format,
    strict: bool,
}

impl std::fmt::Display for Target {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.format)?;
        if self.strict {
            f.write_str(" --strict")?;
        }
        Ok(())
    }
}

/// Every format, and the strict mode of those that have one.
fn targets() -> Vec<Target> {
    Format::ALL
        .into_iter()
        .flat_map(|format| {
            let modes: &[bool] = if format.has_strict() {
                &[false, true]
            } else {
                &[false]
            };
            modes.iter().map(move |&strict| Target { format, strict })
        })
        .collect()
}

fn registry() -> Registry {
    let registry = Registry::linked().expect("the hard types build a registry");
    assert!(
        registry.len() >= 30,
        "the suite has at least 30 tools, found {}",
        registry.len()
    );
    registry
}

/// What `check` says about one tool when held to one target.
fn diagnostics(tool: &Tool, target: Target) -> Vec<Diagnostic> {
    check_tool(
        tool,
        &CheckOptions::default()
            .formats(vec![target.format])
            .strict(target.strict),
    )
}

/// The errors `check` reports for `tool` held to `target` (its own rules and the general ones).
fn errors(tool: &Tool, target: Target) -> Vec<Diagnostic> {
    diagnostics(tool, target)
        .into_iter()
        .filter(|d| d.severity == Severity::Error)
        .collect()
}

fn tool<'r>(registry: &'r Registry, name: &str) -> &'r Tool {
    registry
        .get(name)
        .unwrap_or_else(|| panic!("no tool `{name}` in the hard types suite"))
}

fn target(format: Format, strict: bool) -> Target {
    Target { format, strict }
}

#[test]
fn every_tool_is_valid_or_clearly_reported_for_every_target() {
    let registry = registry();
    let mut problems = Vec::new();
    for tool in registry.tools() {
        assert!(
            tool.name().starts_with("take_"),
            "{} does not follow the suite's naming",
            tool.name()
        );
        for target in targets() {
            for d in errors(tool, target) {
                let points_into_input =
                    d.pointer == "/input_schema" || d.pointer.starts_with("/input_schema/");
                if !points_into_input || d.fix.trim().is_empty() || d.message.trim().is_empty() {
                    problems.push(format!("{} [{target}]: {d}", tool.name()));
                }
            }
        }
    }
    assert!(
        problems.is_empty(),
        "errors without a pointer into /input_schema or without a fix:\n{}",
        problems.join("\n")
    );
}

#[test]
fn snapshots() {
    let registry = registry();
    for tool in registry.tools() {
        insta::assert_snapshot!(tool.name(), snapshot(tool));
    }
}

/// One tool's renderings and diagnostics, as readable text.
fn snapshot(tool: &Tool) -> String {
    let mut out = String::new();
    let general: Vec<Diagnostic> = diagnostics(tool, target(Format::Mcp, false))
        .into_iter()
        .filter(|d| d.format.is_none())
        .collect();
    writeln!(out, "# {}", tool.name()).unwrap();
    writeln!(out, "general diagnostics:{}", list(&general)).unwrap();
    for target in targets() {
        let rendered = render(
            tool,
            target.format,
            RenderOptions::default().strict(target.strict),
        );
        // Only this target's own findings: the others appear under their own heading.
        let own: Vec<Diagnostic> = diagnostics(tool, target)
            .into_iter()
            .filter(|d| d.format == Some((target.format, target.strict)))
            .collect();
        writeln!(out, "\n## {target}").unwrap();
        writeln!(out, "diagnostics:{}", list(&own)).unwrap();
        writeln!(out, "definition:").unwrap();
        pretty(&rendered.definition, 0, &mut out);
        out.push('\n');
    }
    out
}

fn list(diagnostics: &[Diagnostic]) -> String {
    if diagnostics.is_empty() {
        return " none".to_owned();
    }
    let mut out = String::new();
    for d in diagnostics {
        let level = match d.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
        };
        write!(
            out,
            "\n- {level} [{}] at {}: {}\n  fix: {}",
            d.rule,
            if d.pointer.is_empty() {
                "(definition)"
            } else {
                &d.pointer
            },
            d.message,
            d.fix
        )
        .unwrap();
    }
    out
}

/// Pretty JSON, with arrays of scalars (enums, required lists, types) on one line.
fn pretty(value: &Value, indent: usize, out: &mut String) {
    let pad = |n: usize| "  ".repeat(n);
    match value {
        Value::Object(map) if !map.is_empty() => {
            out.push_str("{\n");
            for (i, (key, v)) in map.iter().enumerate() {
                out.push_str(&pad(indent + 1));
                out.push_str(&Value::String(key.clone()).to_string());
                out.push_str(": ");
                pretty(v, indent + 1, out);
                if i + 1 < map.len() {
                    out.push(',');
                }
                out.push('\n');
            }
            out.push_str(&pad(indent));
            out.push('}');
        }
        Value::Array(items)
            if !items.is_empty() && items.iter().any(|v| v.is_object() || v.is_array()) =>
        {
            out.push_str("[\n");
            for (i, v) in items.iter().enumerate() {
                out.push_str(&pad(indent + 1));
                pretty(v, indent + 1, out);
                if i + 1 < items.len() {
                    out.push(',');
                }
                out.push('\n');
            }
            out.push_str(&pad(indent));
            out.push(']');
        }
        Value::Array(items) => {
            let shown: Vec<String> = items.iter().map(Value::to_string).collect();
            write!(out, "[{}]", shown.join(", ")).unwrap();
        }
        other => out.push_str(&other.to_string()),
    }
}

// The expectations the suite exists for.

/// Recursive types: Gemini's OpenAPI channel has no `$ref` and Anthropic strict refuses
/// recursion; OpenAI strict accepts `$ref` cycles.
#[test]
fn recursion() {
    let registry = registry();
    for name in ["take_recursive_tree", "take_mutual_recursion"] {
        let t = tool(&registry, name);
        let gemini = errors(t, target(Format::GeminiOpenApi, false));
        assert!(
            gemini.iter().any(|d| d.rule == "gemini_openapi.ref"),
            "{name}: {gemini:#?}"
        );
        let anthropic = errors(t, target(Format::Anthropic, true));
        assert!(
            anthropic.iter().any(|d| d.rule == "anthropic.strict.ref"),
            "{name}: {anthropic:#?}"
        );
        for ok in [
            target(Format::OpenAi, true),
            target(Format::OpenAiResponses, true),
            target(Format::OpenAi, false),
            target(Format::Anthropic, false),
            target(Format::Gemini, false),
            target(Format::Mcp, false),
        ] {
            let found = errors(t, ok);
            assert!(found.is_empty(), "{name} [{ok}]: {found:#?}");
        }
    }
}

/// Maps with arbitrary keys: no strict mode nor Gemini's OpenAPI channel can say them; every
/// non-strict JSON Schema target can.
#[test]
fn maps() {
    let registry = registry();
    for name in ["take_hash_map", "take_btree_map", "take_json_object"] {
        let t = tool(&registry, name);
        for (bad, rule) in [
            (
                target(Format::OpenAi, true),
                "openai.strict.additionalProperties",
            ),
            (
                target(Format::OpenAiResponses, true),
                "openai.strict.additionalProperties",
            ),
            (
                target(Format::Anthropic, true),
                "anthropic.strict.additionalProperties",
            ),
            (
                target(Format::GeminiOpenApi, false),
                "gemini_openapi.additionalProperties",
            ),
        ] {
            let found = errors(t, bad);
            // Strict modes point at the map's value schema, Gemini at the map.
            let at = [
                "/input_schema/properties/value",
                "/input_schema/properties/value/additionalProperties",
            ];
            assert!(
                found
                    .iter()
                    .any(|d| d.rule == rule && at.contains(&d.pointer.as_str())),
                "{name} [{bad}]: {found:#?}"
            );
        }
        for ok in [
            target(Format::OpenAi, false),
            target(Format::OpenAiResponses, false),
            target(Format::Anthropic, false),
            target(Format::Gemini, false),
            target(Format::Mcp, false),
        ] {
            let found = errors(t, ok);
            assert!(found.is_empty(), "{name} [{ok}]: {found:#?}");
        }
    }
}

/// `serde_json::Value` (any JSON value): strict modes need a type, Gemini's OpenAPI channel
/// cannot say "anything".
#[test]
fn any_json_value() {
    let registry = registry();
    for (name, at) in [
        ("take_json_value", "/input_schema/properties/value"),
        ("take_json_values", "/input_schema/properties/value/items"),
    ] {
        let t = tool(&registry, name);
        for (bad, rule) in [
            (target(Format::OpenAi, true), "openai.strict.type"),
            (target(Format::OpenAiResponses, true), "openai.strict.type"),
            (target(Format::Anthropic, true), "anthropic.strict.type"),
            (target(Format::GeminiOpenApi, false), "gemini_openapi.type"),
        ] {
            let found = errors(t, bad);
            assert!(
                found.iter().any(|d| d.rule == rule && d.pointer == at),
                "{name} [{bad}]: {found:#?}"
            );
        }
        for ok in [
            target(Format::OpenAi, false),
            target(Format::Anthropic, false),
            target(Format::Gemini, false),
            target(Format::Mcp, false),
        ] {
            let found = errors(t, ok);
            assert!(found.is_empty(), "{name} [{ok}]: {found:#?}");
        }
    }
}

/// Tuples (`prefixItems`): strict modes and Gemini's OpenAPI channel cannot say them.
#[test]
fn tuples() {
    let registry = registry();
    // The tuple is the parameter's own schema, or a definition's (a named tuple struct).
    for (name, at) in [
        ("take_tuple", "/input_schema/properties/value"),
        ("take_tuple_struct", "/input_schema/$defs/Pair"),
    ] {
        let t = tool(&registry, name);
        for (bad, rule) in [
            (target(Format::OpenAi, true), "openai.strict.prefixItems"),
            (
                target(Format::OpenAiResponses, true),
                "openai.strict.prefixItems",
            ),
            (
                target(Format::Anthropic, true),
                "anthropic.strict.prefixItems",
            ),
            (
                target(Format::GeminiOpenApi, false),
                "gemini_openapi.prefixItems",
            ),
        ] {
            let found = errors(t, bad);
            // Gemini's OpenAPI channel inlines definitions, so it points at the use site.
            let at = if bad.format == Format::GeminiOpenApi {
                "/input_schema/properties/value"
            } else {
                at
            };
            assert!(
                found.iter().any(|d| d.rule == rule && d.pointer == at),
                "{name} [{bad}]: {found:#?}"
            );
        }
        for ok in [
            target(Format::OpenAi, false),
            target(Format::Anthropic, false),
            target(Format::Gemini, false),
            target(Format::Mcp, false),
        ] {
            let found = errors(t, ok);
            assert!(found.is_empty(), "{name} [{ok}]: {found:#?}");
        }
    }
}

/// An internally tagged enum as the whole input: the root is a choice of object variants. Both
/// strict modes need a plain object at the root and say so, at the root.
#[test]
fn tagged_enum_as_the_whole_input() {
    let registry = registry();
    let t = tool(&registry, "take_tagged_input");
    assert_eq!(t.input_schema()["type"], "object");
    assert!(
        t.input_schema().get("oneOf").is_some(),
        "{}",
        t.input_schema()
    );
    for (bad, rule) in [
        (target(Format::OpenAi, true), "openai.strict.oneOf"),
        (target(Format::OpenAiResponses, true), "openai.strict.oneOf"),
        (target(Format::Anthropic, true), "anthropic.strict.oneOf"),
    ] {
        let found = errors(t, bad);
        let root = found
            .iter()
            .find(|d| d.rule == rule)
            .unwrap_or_else(|| panic!("[{bad}]: {found:#?}"));
        assert_eq!(root.pointer, "/input_schema", "[{bad}]");
        assert!(
            root.message.contains("plain object at the root"),
            "[{bad}]: {}",
            root.message
        );
    }
    // The same enum as one parameter is fine in strict mode: variants below the root are anyOf.
    let param = tool(&registry, "take_internal_enum");
    for ok in [
        target(Format::OpenAi, true),
        target(Format::Anthropic, true),
    ] {
        let found = errors(param, ok);
        assert!(found.is_empty(), "take_internal_enum [{ok}]: {found:#?}");
        let rendered = render(param, ok.format, RenderOptions::default().strict(true)).definition;
        let schema = match ok.format {
            Format::Anthropic => &rendered["input_schema"],
            _ => &rendered["function"]["parameters"],
        };
        assert!(
            schema["$defs"]["InternalShape"].get("anyOf").is_some(),
            "[{ok}]: {schema}"
        );
    }
}

/// OpenAI strict mode makes every property required and the optional ones nullable,
/// everywhere; Anthropic strict mode closes every object but keeps optional fields optional
/// (it accepts them, and a nullable union would count against its union limit).
#[test]
fn strict_optionals_follow_each_provider() {
    let registry = registry();
    let t = tool(&registry, "take_nested_option");
    let rendered = render(t, Format::OpenAi, RenderOptions::default().strict(true)).definition;
    let schema = &rendered["function"]["parameters"];
    assert_eq!(schema["required"], serde_json::json!(["value"]));
    let holder = &schema["$defs"]["MaybeTags"];
    assert_eq!(holder["required"], serde_json::json!(["tags"]));
    assert_eq!(holder["additionalProperties"], false);
    let tags = &holder["properties"]["tags"];
    assert_eq!(tags["type"], serde_json::json!(["array", "null"]));
    assert_eq!(tags["items"]["type"], serde_json::json!(["string", "null"]));

    let rendered = render(t, Format::Anthropic, RenderOptions::default().strict(true)).definition;
    let schema = &rendered["input_schema"];
    let holder = &schema["$defs"]["MaybeTags"];
    assert_eq!(holder["additionalProperties"], false);
    assert_eq!(holder["required"], serde_json::json!([]));
    assert_eq!(
        holder["properties"]["tags"]["type"],
        serde_json::json!(["array", "null"]),
        "Option<Vec<_>> is nullable in its own right"
    );
}

/// A struct of 30 optional fields is over Anthropic strict mode's 24 optional parameters.
#[test]
fn wide_struct_is_over_anthropics_optional_limit() {
    let registry = registry();
    let t = tool(&registry, "take_wide_struct");
    let found = errors(t, target(Format::Anthropic, true));
    assert!(
        found.iter().any(|d| d.rule == "anthropic.limits"),
        "{found:#?}"
    );
    let openai = errors(t, target(Format::OpenAi, true));
    assert!(openai.is_empty(), "{openai:#?}");
}

/// Gemini's OpenAPI channel never carries a `$ref` or `$defs`: definitions are inlined.
#[test]
fn gemini_openapi_has_no_refs() {
    fn refs(value: &Value, at: &str, found: &mut Vec<String>) {
        match value {
            Value::Object(map) => {
                for (k, v) in map {
                    if k == "$ref" || k == "$defs" || k == "$schema" {
                        found.push(format!("{at}/{k}"));
                    }
                    refs(v, &format!("{at}/{k}"), found);
                }
            }
            Value::Array(items) => {
                for (i, v) in items.iter().enumerate() {
                    refs(v, &format!("{at}/{i}"), found);
                }
            }
            _ => {}
        }
    }
    let registry = registry();
    for t in registry.tools() {
        let rendered = render(t, Format::GeminiOpenApi, RenderOptions::default()).definition;
        let mut found = Vec::new();
        refs(&rendered, "", &mut found);
        assert!(found.is_empty(), "{}: {found:?}", t.name());
    }
}

// Behaviour this suite found wrong once, and now pins down.

/// OpenAI and Anthropic refuse `oneOf`/`anyOf`/`allOf` at the root of a tool's parameters even
/// without strict mode ("schema must have type 'object' and not have 'oneOf'/'anyOf'/'allOf'/
/// 'enum'/'not' at the top level"; "input_schema does not support oneOf, allOf, or anyOf at the
/// top level"), and the whole request fails: `check` says so in every mode.
#[test]
fn root_union_is_refused_without_strict_too() {
    let registry = registry();
    let t = tool(&registry, "take_tagged_input");
    for bad in [
        target(Format::OpenAi, false),
        target(Format::OpenAiResponses, false),
        target(Format::Anthropic, false),
    ] {
        let found = errors(t, bad);
        assert!(
            found.iter().any(|d| d.pointer == "/input_schema"),
            "[{bad}]: {found:#?}"
        );
    }
}

/// Gemini's OpenAPI channel cannot take a root union: the parameters are kept (never dropped as
/// if the tool took nothing) and `check` reports it.
#[test]
fn gemini_openapi_keeps_or_reports_a_root_union() {
    let registry = registry();
    let t = tool(&registry, "take_tagged_input");
    let rendered = render(t, Format::GeminiOpenApi, RenderOptions::default()).definition;
    let reported = !errors(t, target(Format::GeminiOpenApi, false)).is_empty();
    assert!(
        rendered.get("parameters").is_some() || reported,
        "{rendered:#}"
    );
}

/// A struct with a flattened catch-all map (`additionalProperties: {}` beside named properties)
/// cannot keep its extra keys in strict modes or Gemini's OpenAPI channel: `check` says so.
#[test]
fn a_dropped_catch_all_is_reported() {
    let registry = registry();
    let t = tool(&registry, "take_catch_all_input");
    for bad in [
        target(Format::OpenAi, true),
        target(Format::Anthropic, true),
        target(Format::GeminiOpenApi, false),
    ] {
        let found: Vec<Diagnostic> = diagnostics(t, bad)
            .into_iter()
            .filter(|d| d.format == Some((bad.format, bad.strict)))
            .collect();
        assert!(
            found
                .iter()
                .any(|d| d.rule.ends_with("additionalProperties")),
            "[{bad}]: {found:#?}"
        );
    }
}

/// OpenAI strict mode makes a `#[serde(default)]` field required and nullable, so the model
/// sends `null` for "use the default"; the registry drops such nulls before decoding, so the
/// tool accepts every input the strict schema allows.
#[tokio::test]
async fn strict_nulls_for_defaulted_fields_are_accepted() {
    let registry = registry();
    let t = tool(&registry, "take_defaulted_fields");
    let rendered = render(t, Format::OpenAi, RenderOptions::default().strict(true)).definition;
    let settings = &rendered["function"]["parameters"]["$defs"]["Settings"];
    let mut input = serde_json::Map::new();
    input.insert("name".into(), "nightly".into());
    for (key, schema) in settings["properties"].as_object().unwrap() {
        let nullable = schema["type"]
            .as_array()
            .is_some_and(|t| t.contains(&Value::from("null")));
        if nullable {
            input.insert(key.clone(), Value::Null);
        }
    }
    let input = serde_json::json!({ "value": input });
    let out = tool_core::Executor::new(self::registry())
        .call(
            "take_defaulted_fields",
            input.clone(),
            &tool_core::ToolContext::new(),
        )
        .await;
    assert!(
        out.is_ok(),
        "{input} is valid for the strict schema but the tool refuses it: {out:?}"
    );
}

/// Anthropic strict mode keeps optional fields optional, so examples that leave them out match
/// the schema sent beside them; `check` validates the rendered examples against it.
#[test]
fn anthropic_strict_examples_fit_the_strict_schema() {
    let registry = registry();
    for name in ["take_nested_option", "take_defaulted_fields"] {
        let t = tool(&registry, name);
        let rendered =
            render(t, Format::Anthropic, RenderOptions::default().strict(true)).definition;
        assert!(rendered["input_examples"].is_array(), "{name} has examples");
        let found: Vec<Diagnostic> = diagnostics(t, target(Format::Anthropic, true))
            .into_iter()
            .filter(|d| d.rule == "examples.rendered")
            .collect();
        assert!(found.is_empty(), "{name}: {found:#?}");
    }
}
