use std::collections::BTreeSet;

use proptest::prelude::*;
use serde_json::{Map, Value, json};

use super::*;
use tool_core::registry::DynamicTool;

fn lock(defs: Vec<Value>) -> Lock {
    Lock::parse(&json!({ "tools": defs }).to_string(), "test.json").unwrap()
}

fn base() -> Value {
    json!({
        "name": "get_forecast",
        "title": "Forecast",
        "description": "Returns the forecast.",
        "inputSchema": {
            "type": "object",
            "properties": {
                "city": {"type": "string", "description": "City"},
                "days": {"type": "integer", "minimum": 1, "maximum": 7, "default": 3},
                "units": {"type": "string", "enum": ["c", "f"]},
                "when": {"anyOf": [{"type": "string", "format": "date"}, {"type": "integer", "minimum": 0}]}
            },
            "required": ["city"]
        },
        "outputSchema": {
            "type": "object",
            "properties": {
                "high": {"type": "integer", "maximum": 60},
                "low": {"type": "integer", "maximum": 60},
                "sky": {"type": "string", "enum": ["sun", "rain"]},
                "alert": {"oneOf": [
                    {"type": "object", "properties": {"kind": {"const": "storm"}}},
                    {"type": "object", "properties": {"kind": {"const": "heat"}}}
                ]}
            },
            "required": ["high", "low"]
        },
        "annotations": {"title": "Forecast", "readOnlyHint": true, "destructiveHint": false, "idempotentHint": true, "openWorldHint": false},
        "_meta": {"tool-core/domain": "weather", "tool-core/hint": "Forecast", "tool-core/label": "Forecast", "tool-core/core": true}
    })
}

/// `base` with the value at `pointer` set (its parent must exist).
fn set(mut v: Value, pointer: &str, value: Value) -> Value {
    let (parent, key) = pointer.rsplit_once('/').unwrap();
    match v.pointer_mut(parent).unwrap() {
        Value::Object(m) => {
            m.insert(key.replace("~1", "/"), value);
        }
        Value::Array(a) => a[key.parse::<usize>().unwrap()] = value,
        _ => panic!("{parent} is not a container"),
    }
    v
}

fn del(mut v: Value, pointer: &str) -> Value {
    let (parent, key) = pointer.rsplit_once('/').unwrap();
    match v.pointer_mut(parent).unwrap() {
        Value::Object(m) => {
            m.shift_remove(&key.replace("~1", "/"));
        }
        Value::Array(a) => {
            a.remove(key.parse::<usize>().unwrap());
        }
        _ => panic!("{parent} is not a container"),
    }
    v
}

/// A rule, and the definitions before and after a change that triggers it.
type Case = (&'static str, Vec<Value>, Vec<Value>);
type Pair = (Vec<Value>, Vec<Value>);

/// One pair of definitions per rule, each triggering exactly that rule.
fn cases() -> Vec<Case> {
    let b = base;
    let one = |old: Value, new: Value| (vec![old], vec![new]);
    let mut out: Vec<(&'static str, Pair)> = vec![
        ("tool.removed", (vec![b()], vec![])),
        (
            "tool.renamed",
            one(b(), set(b(), "/name", json!("fetch_forecast"))),
        ),
        ("tool.added", (vec![], vec![b()])),
        (
            "tool.deferred",
            one(b(), set(b(), "/_meta/tool-core~1core", json!(false))),
        ),
        (
            "tool.core",
            one(set(b(), "/_meta/tool-core~1core", json!(false)), b()),
        ),
        (
            "visibility.narrowed",
            one(b(), set(b(), "/visibility", json!("app"))),
        ),
        (
            "visibility.widened",
            one(set(b(), "/visibility", json!("model")), b()),
        ),
        ("view.changed", one(b(), set(b(), "/view", json!("card")))),
        (
            "tool.changed",
            one(
                b(),
                set(b(), "/execution", json!({"taskSupport": "optional"})),
            ),
        ),
        (
            "scopes.added",
            one(b(), set(b(), "/scopes", json!(["weather:read"]))),
        ),
        (
            "scopes.removed",
            one(set(b(), "/scopes", json!(["weather:read"])), b()),
        ),
        (
            "annotations.read_only",
            one(b(), set(b(), "/annotations/readOnlyHint", json!(false))),
        ),
        (
            "annotations.destructive",
            one(
                set(b(), "/annotations/readOnlyHint", json!(false)),
                set(
                    set(b(), "/annotations/readOnlyHint", json!(false)),
                    "/annotations/destructiveHint",
                    json!(true),
                ),
            ),
        ),
        (
            "annotations.idempotent",
            one(b(), set(b(), "/annotations/idempotentHint", json!(false))),
        ),
        (
            "annotations.open_world",
            one(b(), set(b(), "/annotations/openWorldHint", json!(true))),
        ),
        (
            "annotations.safer",
            one(set(b(), "/annotations/openWorldHint", json!(true)), b()),
        ),
        (
            "mirror.off",
            one(b(), set(b(), "/_meta/tool-core~1mirror", json!(false))),
        ),
        (
            "mirror.on",
            one(set(b(), "/_meta/tool-core~1mirror", json!(false)), b()),
        ),
        (
            "task.changed",
            one(b(), set(b(), "/_meta/tool-core~1task", json!(true))),
        ),
        (
            "task.required",
            one(
                set(b(), "/_meta/tool-core~1task", json!(true)),
                set(b(), "/_meta/tool-core~1task", json!("required")),
            ),
        ),
        (
            "description.changed",
            one(
                b(),
                set(b(), "/description", json!("Returns the daily forecast.")),
            ),
        ),
        (
            "title.changed",
            one(b(), set(b(), "/title", json!("Daily forecast"))),
        ),
        (
            "hint.changed",
            one(
                b(),
                set(b(), "/_meta/tool-core~1hint", json!("Daily forecast")),
            ),
        ),
        (
            "domain.changed",
            one(b(), set(b(), "/_meta/tool-core~1domain", json!("climate"))),
        ),
        (
            "examples.changed",
            one(
                b(),
                set(
                    b(),
                    "/examples",
                    json!([{"label": "Paris", "input": {"city": "Paris"}}]),
                ),
            ),
        ),
        (
            "icons.changed",
            one(
                b(),
                set(
                    b(),
                    "/icons",
                    json!([{"src": "https://example.com/sun.png"}]),
                ),
            ),
        ),
        (
            "meta.changed",
            one(b(), set(b(), "/_meta/com.example~1team", json!("weather"))),
        ),
        (
            "schema.doc",
            one(
                b(),
                set(
                    b(),
                    "/inputSchema/properties/city/description",
                    json!("City name"),
                ),
            ),
        ),
        (
            "input.param.removed",
            one(b(), del(b(), "/inputSchema/properties/days")),
        ),
        (
            "input.param.renamed",
            one(b(), {
                let units = b()["inputSchema"]["properties"]["units"].clone();
                set(
                    del(b(), "/inputSchema/properties/units"),
                    "/inputSchema/properties/unit",
                    units,
                )
            }),
        ),
        (
            "input.param.added",
            one(
                b(),
                set(
                    b(),
                    "/inputSchema/properties/lang",
                    json!({"type": "string"}),
                ),
            ),
        ),
        (
            "input.required.added",
            one(
                b(),
                set(b(), "/inputSchema/required", json!(["city", "days"])),
            ),
        ),
        (
            "input.required.removed",
            one(b(), set(b(), "/inputSchema/required", json!([]))),
        ),
        (
            "input.type.narrowed",
            one(
                set(b(), "/inputSchema/properties/days/type", json!("number")),
                b(),
            ),
        ),
        (
            "input.type.widened",
            one(
                b(),
                set(
                    b(),
                    "/inputSchema/properties/days/type",
                    json!(["integer", "null"]),
                ),
            ),
        ),
        (
            "input.enum.narrowed",
            one(
                b(),
                set(b(), "/inputSchema/properties/units/enum", json!(["c"])),
            ),
        ),
        (
            "input.enum.widened",
            one(
                b(),
                set(
                    b(),
                    "/inputSchema/properties/units/enum",
                    json!(["c", "f", "k"]),
                ),
            ),
        ),
        (
            "input.variant.removed",
            one(b(), del(b(), "/inputSchema/properties/when/anyOf/1")),
        ),
        (
            "input.variant.added",
            one(del(b(), "/inputSchema/properties/when/anyOf/1"), b()),
        ),
        (
            "input.bound.tightened",
            one(
                b(),
                set(b(), "/inputSchema/properties/days/maximum", json!(5)),
            ),
        ),
        (
            "input.bound.loosened",
            one(
                b(),
                set(b(), "/inputSchema/properties/days/maximum", json!(14)),
            ),
        ),
        (
            "input.additional.closed",
            one(
                b(),
                set(b(), "/inputSchema/additionalProperties", json!(false)),
            ),
        ),
        (
            "input.additional.opened",
            one(
                set(b(), "/inputSchema/additionalProperties", json!(false)),
                b(),
            ),
        ),
        (
            "input.default.changed",
            one(
                b(),
                set(b(), "/inputSchema/properties/days/default", json!(5)),
            ),
        ),
        (
            "input.schema.changed",
            one(
                b(),
                set(b(), "/inputSchema/not", json!({"required": ["when"]})),
            ),
        ),
        ("output.removed", one(b(), del(b(), "/outputSchema"))),
        ("output.added", one(del(b(), "/outputSchema"), b())),
        (
            "output.field.removed",
            one(b(), del(b(), "/outputSchema/properties/sky")),
        ),
        (
            "output.field.renamed",
            one(b(), {
                let sky = b()["outputSchema"]["properties"]["sky"].clone();
                set(
                    del(b(), "/outputSchema/properties/sky"),
                    "/outputSchema/properties/skies",
                    sky,
                )
            }),
        ),
        (
            "output.field.added",
            one(
                b(),
                set(
                    b(),
                    "/outputSchema/properties/rain_mm",
                    json!({"type": "number"}),
                ),
            ),
        ),
        (
            "output.required.removed",
            one(b(), set(b(), "/outputSchema/required", json!(["high"]))),
        ),
        (
            "output.required.added",
            one(
                b(),
                set(b(), "/outputSchema/required", json!(["high", "low", "sky"])),
            ),
        ),
        (
            "output.type.widened",
            one(
                b(),
                set(b(), "/outputSchema/properties/high/type", json!("number")),
            ),
        ),
        (
            "output.type.narrowed",
            one(
                set(b(), "/outputSchema/properties/high/type", json!("number")),
                b(),
            ),
        ),
        (
            "output.enum.widened",
            one(
                b(),
                set(
                    b(),
                    "/outputSchema/properties/sky/enum",
                    json!(["sun", "rain", "snow"]),
                ),
            ),
        ),
        (
            "output.enum.narrowed",
            one(
                b(),
                set(b(), "/outputSchema/properties/sky/enum", json!(["sun"])),
            ),
        ),
        (
            "output.variant.added",
            one(b(), {
                let fog = json!({"type": "object", "properties": {"kind": {"const": "fog"}}});
                let mut v = b();
                v["outputSchema"]["properties"]["alert"]["oneOf"]
                    .as_array_mut()
                    .unwrap()
                    .push(fog);
                v
            }),
        ),
        (
            "output.variant.removed",
            one(b(), del(b(), "/outputSchema/properties/alert/oneOf/0")),
        ),
        (
            "output.bound.loosened",
            one(
                b(),
                set(b(), "/outputSchema/properties/high/maximum", json!(80)),
            ),
        ),
        (
            "output.bound.tightened",
            one(
                b(),
                set(b(), "/outputSchema/properties/high/maximum", json!(50)),
            ),
        ),
        (
            "output.additional.opened",
            one(
                set(b(), "/outputSchema/additionalProperties", json!(false)),
                b(),
            ),
        ),
        (
            "output.additional.closed",
            one(
                b(),
                set(b(), "/outputSchema/additionalProperties", json!(false)),
            ),
        ),
        (
            "output.schema.changed",
            one(
                b(),
                set(b(), "/outputSchema/properties/low/not", json!({"const": 0})),
            ),
        ),
    ];
    out.drain(..)
        .map(|(rule, (old, new))| (rule, old, new))
        .collect()
}

/// The rules of resources and prompts, each with a lock before and after that triggers it
/// alone.
fn item_cases() -> Vec<(&'static str, Lock, Lock)> {
    let resource = json!({"uri": "notes://today", "name": "today", "description": "Notes.", "mimeType": "text/plain"});
    let prompt = json!({"name": "review_code", "description": "Reviews.", "arguments": [
        {"name": "code", "required": true}, {"name": "tone", "required": false}]});
    let of = |resources: Vec<Value>, prompts: Vec<Value>| {
        let text = json!({"tools": [], "resources": resources, "prompts": prompts}).to_string();
        Lock::parse(&text, "test.json").unwrap()
    };
    let with = |base: &Value, pointer: &str, value: Value| set(base.clone(), pointer, value);
    let r = || resource.clone();
    let p = || prompt.clone();
    vec![
        (
            "resource.removed",
            of(vec![r()], vec![]),
            of(vec![], vec![]),
        ),
        ("resource.added", of(vec![], vec![]), of(vec![r()], vec![])),
        (
            "resource.mime_type.changed",
            of(vec![r()], vec![]),
            of(
                vec![with(&resource, "/mimeType", json!("text/markdown"))],
                vec![],
            ),
        ),
        (
            "item.text.changed",
            of(vec![r()], vec![]),
            of(
                vec![with(&resource, "/description", json!("Today's notes."))],
                vec![],
            ),
        ),
        ("prompt.removed", of(vec![], vec![p()]), of(vec![], vec![])),
        ("prompt.added", of(vec![], vec![]), of(vec![], vec![p()])),
        (
            "prompt.argument.removed",
            of(vec![], vec![p()]),
            of(
                vec![],
                vec![with(
                    &prompt,
                    "/arguments",
                    json!([{"name": "code", "required": true}]),
                )],
            ),
        ),
        (
            "prompt.argument.required",
            of(vec![], vec![p()]),
            of(
                vec![],
                vec![with(&prompt, "/arguments/1/required", json!(true))],
            ),
        ),
        (
            "prompt.argument.optional",
            of(vec![], vec![p()]),
            of(
                vec![],
                vec![with(&prompt, "/arguments/0/required", json!(false))],
            ),
        ),
        (
            "prompt.argument.added",
            of(vec![], vec![p()]),
            of(
                vec![],
                vec![with(
                    &prompt,
                    "/arguments",
                    json!([{"name": "code", "required": true}, {"name": "tone", "required": false},
                        {"name": "lang", "required": false}]),
                )],
            ),
        ),
    ]
}

fn rules(review: &Review) -> Vec<&'static str> {
    review.changes.iter().map(|c| c.rule).collect()
}

#[test]
fn each_rule_has_a_case_that_triggers_it_alone() {
    let mut cases: Vec<(&'static str, Lock, Lock)> = cases()
        .into_iter()
        .map(|(rule, old, new)| (rule, lock(old), lock(new)))
        .collect();
    cases.extend(item_cases());
    for (rule, old, new) in &cases {
        let r = review(Some(old), new, &ReviewOptions::default());
        assert_eq!(rules(&r), [*rule], "{rule}:\n{r}");
        let class = RULES.iter().find(|x| x.id == *rule).unwrap().class;
        assert_eq!(r.changes[0].class, class, "{rule}");
        assert_eq!(r.fails(), class == Class::Breaking, "{rule}");
    }
    let tested: BTreeSet<&str> = cases.iter().map(|c| c.0).collect();
    let all: BTreeSet<&str> = RULES.iter().map(|r| r.id).collect();
    assert_eq!(
        tested, all,
        "every rule has a case, and every case is a rule"
    );
    assert_eq!(all.len(), RULES.len(), "rule ids are unique");
}

#[test]
fn messages_name_the_parameter_and_the_pointer() {
    let r = review(
        Some(&lock(vec![base()])),
        &lock(vec![del(
            set(base(), "/inputSchema/properties/units/enum", json!(["c"])),
            "/inputSchema/properties/days",
        )]),
        &ReviewOptions::default(),
    );
    let text = r.to_string();
    assert!(text.contains("breaking[input.enum.narrowed] get_forecast at /inputSchema/properties/units/enum: parameter `units` no longer takes \"f\""), "{text}");
    assert!(text.contains("breaking[input.param.removed] get_forecast at /inputSchema/properties/days: parameter `days` was removed"), "{text}");
    assert!(
        text.ends_with("2 breaking, 0 additive, 0 cosmetic"),
        "{text}"
    );
}

#[test]
fn references_are_followed_to_their_definitions_and_cycles_stop() {
    let with_place = |required: Value| {
        set(
            base(),
            "/inputSchema",
            json!({
                "type": "object",
                "properties": {"place": {"$ref": "#/$defs/Place"}, "tree": {"$ref": "#/$defs/Node"}},
                "$defs": {
                    "Place": {"type": "object", "properties": {"city": {"type": "string"}, "country": {"type": "string"}}, "required": required},
                    "Node": {"type": "object", "properties": {"children": {"type": "array", "items": {"$ref": "#/$defs/Node"}}}}
                }
            }),
        )
    };
    let r = review(
        Some(&lock(vec![with_place(json!(["city"]))])),
        &lock(vec![with_place(json!(["city", "country"]))]),
        &ReviewOptions::default(),
    );
    assert_eq!(rules(&r), ["input.required.added"], "{r}");
    assert_eq!(
        r.changes[0].pointer,
        "/inputSchema/$defs/Place/properties/country"
    );
    assert_eq!(
        r.changes[0].message,
        "parameter `place.country` is now required"
    );
    // An inlined definition is the same schema as its reference.
    let inlined = set(
        with_place(json!(["city"])),
        "/inputSchema/properties/place",
        json!({"type": "object", "properties": {"city": {"type": "string"}, "country": {"type": "string"}}, "required": ["city"]}),
    );
    let r = review(
        Some(&lock(vec![with_place(json!(["city"]))])),
        &lock(vec![inlined]),
        &ReviewOptions::default(),
    );
    assert!(r.changes.is_empty(), "{r}");
}

#[test]
fn an_optional_value_that_becomes_required_in_an_output_is_additive() {
    // Option<Day> -> Day in an output: the null branch goes.
    let old = set(
        base(),
        "/outputSchema/properties/day",
        json!({"anyOf": [{"$ref": "#/$defs/Day"}, {"type": "null"}]}),
    );
    let old = set(
        old,
        "/outputSchema/$defs",
        json!({"Day": {"type": "object", "properties": {"high": {"type": "integer"}}}}),
    );
    let new = set(
        old.clone(),
        "/outputSchema/properties/day",
        json!({"$ref": "#/$defs/Day"}),
    );
    let r = review(
        Some(&lock(vec![old.clone()])),
        &lock(vec![new.clone()]),
        &ReviewOptions::default(),
    );
    assert_eq!(rules(&r), ["output.type.narrowed"], "{r}");
    // And the other way, in an input, is additive too (a null is now accepted).
    let input = |v: &Value| set(base(), "/inputSchema", v["outputSchema"].clone());
    let r = review(
        Some(&lock(vec![input(&new)])),
        &lock(vec![input(&old)]),
        &ReviewOptions::default(),
    );
    assert_eq!(rules(&r), ["input.type.widened"], "{r}");
}

#[test]
fn allowances_let_named_breaking_changes_through() {
    let old = lock(vec![base()]);
    let new = lock(vec![del(base(), "/inputSchema/properties/days")]);
    for allowance in [
        "input.param.removed",
        "get_forecast:input.param.removed",
        "get_forecast:*",
    ] {
        let options = ReviewOptions {
            allow: vec![allowance.parse().unwrap()],
            ..ReviewOptions::default()
        };
        let r = review(Some(&old), &new, &options);
        assert!(!r.fails(), "{allowance}: {r}");
        assert!(r.changes[0].allowed);
        assert!(r.to_string().contains("(allowed)"), "{r}");
    }
    let options = ReviewOptions {
        allow: vec![
            "other_tool:*".parse().unwrap(),
            "tool.removed".parse().unwrap(),
        ],
        ..ReviewOptions::default()
    };
    assert!(review(Some(&old), &new, &options).fails());
    assert!(matches!(
        "".parse::<Allowance>(),
        Err(AllowanceError::Empty)
    ));
    assert!(matches!(
        ":x".parse::<Allowance>(),
        Err(AllowanceError::Empty)
    ));
    assert!(matches!(
        "schema.doc".parse::<Allowance>(),
        Err(AllowanceError::NotBreaking {
            class: Class::Cosmetic,
            ..
        })
    ));
}

#[test]
fn tokens_are_counted_per_format_with_deltas_and_budgets() {
    let tool = |description: &str| {
        DynamicTool::new(
            "get_forecast",
            description.to_owned(),
            json!({"type": "object", "properties": {"city": {"type": "string"}}}),
        )
        .hint("Forecast")
        .label("Forecasting")
    };
    let mut before = tool_core::Registry::empty();
    before.register(tool("Returns the forecast.")).unwrap();
    let mut after = tool_core::Registry::empty();
    after
        .register(tool(
            &"Returns the forecast for a city, day by day. ".repeat(20),
        ))
        .unwrap();
    let (old, new) = (Lock::of(&before), Lock::of(&after));
    assert_eq!(old.tokenizer.as_deref(), Some(crate::tokens::TOKENIZER));
    for format in tool_core::render::Format::ALL {
        assert!(old.tools[0].tokens[format.as_str()] > 0, "{format}");
        assert!(
            old.tokens[format.as_str()] >= old.tools[0].tokens[format.as_str()],
            "{format}"
        );
    }
    let r = review(Some(&old), &new, &ReviewOptions::default());
    assert_eq!(rules(&r), ["description.changed"]);
    let openai = r.tokens.listing["openai"];
    assert!(openai.delta().unwrap() > 100, "{openai:?}");
    let text = r.to_string();
    assert!(
        text.contains(&format!("tokens ({}): openai ", crate::tokens::TOKENIZER)),
        "{text}"
    );
    assert!(text.contains("  get_forecast: openai "), "{text}");
    let budgets = ReviewOptions {
        max_tokens: Some(100),
        max_tool_tokens: Some(100),
        budget_formats: vec![tool_core::render::Format::OpenAi],
        ..ReviewOptions::default()
    };
    let r = review(Some(&old), &new, &budgets);
    assert!(r.fails());
    assert_eq!(r.over_budget.len(), 2, "{r}");
    assert!(
        r.to_string()
            .contains("budget[tool] get_forecast (openai): "),
        "{r}"
    );
    // The old definition fits; without a baseline the budgets hold too.
    assert!(!review(None, &old, &budgets).fails());
    assert!(review(None, &new, &budgets).fails());
    let markdown = r.markdown("tools.lock.json");
    assert!(
        markdown.starts_with("### Tool definitions against `tools.lock.json`: fails"),
        "{markdown}"
    );
    assert!(markdown.contains("| cosmetic | `description.changed` | `get_forecast` | `/description` | the description changed |"), "{markdown}");
    assert!(markdown.contains("| `get_forecast` | "), "{markdown}");
    assert!(
        markdown.contains("- **over budget**: budget[listing] (openai)"),
        "{markdown}"
    );
}

#[test]
fn deltas_are_left_out_when_the_counters_differ() {
    let mut other = lock(vec![base()]);
    other.tokenizer = Some("cl100k_base".into());
    let r = review(Some(&other), &lock(vec![base()]), &ReviewOptions::default());
    assert!(!r.tokens.comparable());
    assert!(
        r.to_string()
            .contains("the baseline was counted by cl100k_base: no token deltas"),
        "{r}"
    );
}

#[test]
fn a_lock_round_trips_and_keeps_the_renderings_that_differ() {
    let mut registry = tool_core::Registry::empty();
    registry
        .register(
            DynamicTool::new(
                "count_words",
                "Counts words.",
                json!({"type": "object", "properties": {"text": {"type": "string"}, "lang": {"type": ["string", "null"]}}, "required": ["text"]}),
            )
            .scopes(["docs:read"])
            .example("One", json!({"text": "a b"})),
        )
        .unwrap();
    let written = Lock::of(&registry);
    let text = written.to_json();
    assert!(text.ends_with("}\n"));
    let read = Lock::parse(&text, "tools.lock.json").unwrap();
    assert_eq!(read, written);
    assert_eq!(read.to_json(), text);
    let tool = &read.tools[0];
    assert_eq!(tool.definition["scopes"], json!(["docs:read"]));
    assert_eq!(tool.definition["examples"][0]["label"], "One");
    // The strict forms make `lang` required and nullable: they differ from the MCP form.
    let strict = tool
        .renderings
        .iter()
        .find(|(k, _)| k.contains("openai --strict"))
        .unwrap();
    assert_eq!(strict.1["required"], json!(["text", "lang"]));
    // The same definitions, compared: nothing.
    assert!(
        review(Some(&read), &Lock::of(&registry), &ReviewOptions::default())
            .changes
            .is_empty()
    );
    // A lock is a definitions file too.
    let defs = tool_core::registry::defs::parse(&text, "tools.lock.json").unwrap();
    assert_eq!(defs.len(), 1);
}

#[test]
fn bad_locks_are_refused_naming_the_place() {
    let err = |text: &str| {
        Lock::parse(text, "tools.lock.json")
            .unwrap_err()
            .to_string()
    };
    assert!(err("{").starts_with("tools.lock.json is not JSON"));
    assert_eq!(
        err("7"),
        "tools.lock.json: $: expected a lock file or a JSON array of tools, found a number"
    );
    assert_eq!(
        err(r#"{"lock": 9, "tools": []}"#),
        "tools.lock.json: lock: layout 9 is not known here (this version reads 1): write the file again"
    );
    assert_eq!(
        err(r#"{"tools": [{"name": "a"}, {"name": "a"}]}"#),
        "tools.lock.json: tools[1].name: `a` is listed twice"
    );
    assert_eq!(
        err(r#"{"tools": [{"name": "a", "tokens": {"openai": "x"}}]}"#),
        "tools.lock.json: tools[0].tokens.openai: expected a count of tokens"
    );
    assert_eq!(
        err(r#"{"tools": [3]}"#),
        "tools.lock.json: tools[0]: expected a tool object"
    );
}

#[test]
fn lock_test_fails_on_breaking_changes_and_when_asked_on_a_stale_lock() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("sub/tools.lock.json");
    let registry = |days: bool| {
        let mut props = json!({"city": {"type": "string"}});
        if days {
            props["days"] = json!({"type": "integer"});
        }
        let mut r = tool_core::Registry::empty();
        r.register(DynamicTool::new(
            "get_forecast",
            "Returns the forecast.",
            json!({"type": "object", "properties": props}),
        ))
        .unwrap();
        r
    };
    let test = |days: bool| LockTest::new(&path).registry(registry(days));
    let missing = test(true).outcome(false).unwrap_err();
    assert!(
        missing.contains("cannot read the lock")
            && missing.contains("TOOLS_LOCK=update cargo test"),
        "{missing}"
    );
    assert!(test(true).outcome(true).unwrap().starts_with("wrote "));
    assert!(test(true).exact().outcome(false).is_ok());
    // Breaking: fails with the review.
    let failed = test(false).outcome(false).unwrap_err();
    assert!(
        failed.contains("breaking[input.param.removed] get_forecast"),
        "{failed}"
    );
    assert!(
        test(false)
            .allow_breaking("input.param.removed")
            .outcome(false)
            .is_ok()
    );
    // Back to the lock, then additive: passes, unless the lock must be current.
    test(false).outcome(true).unwrap();
    let passed = test(true).outcome(false).unwrap();
    assert!(passed.contains("additive[input.param.added]"), "{passed}");
    let stale = test(true).exact().outcome(false).unwrap_err();
    assert!(stale.contains("is out of date"), "{stale}");
}

// Generated schemas: a definition against itself, and key order.

fn leaf() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(json!({"type": "string"})),
        (0..5i64).prop_map(
            |n| json!({"type": "integer", "minimum": n, "description": format!("n {n}")})
        ),
        proptest::sample::subsequence(vec!["a", "b", "c"], 1..3)
            .prop_map(|v| json!({"type": "string", "enum": v})),
        Just(json!({"type": ["boolean", "null"]})),
        Just(json!({"$ref": "#/$defs/Shared"})),
        Just(json!({"const": {"k": 1, "j": [1, 2]}})),
    ]
}

fn schema() -> impl Strategy<Value = Value> {
    leaf().prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            (
                proptest::collection::btree_map("[a-d]", inner.clone(), 0..4),
                any::<u8>(),
                any::<bool>()
            )
                .prop_map(|(props, pick, closed)| {
                    let required: Vec<&String> = props
                        .keys()
                        .enumerate()
                        .filter(|(i, _)| pick & (1 << i) != 0)
                        .map(|(_, k)| k)
                        .collect();
                    let mut s =
                        json!({"type": "object", "properties": props, "required": required});
                    if closed {
                        s["additionalProperties"] = json!(false);
                    }
                    s
                }),
            (inner.clone(), 1..4u8)
                .prop_map(|(items, n)| json!({"type": "array", "items": items, "maxItems": n})),
            proptest::collection::vec(inner, 1..3).prop_map(|v| json!({"anyOf": v})),
        ]
    })
}

fn definition() -> impl Strategy<Value = Value> {
    (schema(), schema(), schema()).prop_map(|(input, output, shared)| {
        json!({
            "name": "get_thing",
            "description": "Returns a thing.",
            "inputSchema": {"type": "object", "properties": {"x": input}, "$defs": {"Shared": shared.clone()}},
            "outputSchema": {"type": "object", "properties": {"y": output}, "$defs": {"Shared": shared}},
            "annotations": {"readOnlyHint": true},
        })
    })
}

/// The same value with every object's keys in another order.
fn reordered(v: &Value, turn: usize) -> Value {
    match v {
        Value::Object(m) => {
            let mut entries: Vec<(&String, &Value)> = m.iter().collect();
            entries.reverse();
            if !entries.is_empty() {
                let k = turn % entries.len();
                entries.rotate_left(k);
            }
            Value::Object(
                entries
                    .into_iter()
                    .map(|(k, v)| (k.clone(), reordered(v, turn + 1)))
                    .collect::<Map<_, _>>(),
            )
        }
        Value::Array(items) => Value::Array(items.iter().map(|v| reordered(v, turn)).collect()),
        other => other.clone(),
    }
}

fn classified(r: &Review) -> Vec<(Class, &'static str, String, String)> {
    r.changes
        .iter()
        .map(|c| (c.class, c.rule, c.pointer.clone(), c.message.clone()))
        .collect()
}

proptest! {
    #[test]
    fn a_definition_against_itself_has_no_difference(def in definition(), turn in 0..8usize) {
        let r = review(Some(&lock(vec![def.clone()])), &lock(vec![def.clone()]), &ReviewOptions::default());
        prop_assert!(r.changes.is_empty(), "{}", r);
        let r = review(Some(&lock(vec![def.clone()])), &lock(vec![reordered(&def, turn)]), &ReviewOptions::default());
        prop_assert!(r.changes.is_empty(), "{}", r);
    }

    #[test]
    fn key_order_does_not_change_the_classification(old in definition(), new in definition(), turn in 0..8usize) {
        let plain = review(Some(&lock(vec![old.clone()])), &lock(vec![new.clone()]), &ReviewOptions::default());
        let shuffled = review(Some(&lock(vec![reordered(&old, turn)])), &lock(vec![reordered(&new, turn + 3)]), &ReviewOptions::default());
        prop_assert_eq!(classified(&plain), classified(&shuffled));
    }
}

// The classification against the spec: what the review calls safe for an input must accept
// every input the old schema accepted, and for an output must produce nothing the old one
// could not, as JSON Schema 2020-12 (the `jsonschema` crate) judges instances.

fn small_schema() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        (proptest::option::of(0..4i64), proptest::option::of(2..7i64)).prop_map(|(min, max)| {
            let mut s = json!({"type": "integer"});
            if let Some(min) = min {
                s["minimum"] = json!(min);
            }
            if let Some(max) = max {
                s["maximum"] = json!(max);
            }
            s
        }),
        proptest::sample::subsequence(vec!["a", "b", "c"], 1..4)
            .prop_map(|v| json!({"type": "string", "enum": v})),
        (0..3usize).prop_map(|n| json!({"type": "string", "maxLength": n})),
        Just(json!({"type": ["boolean", "null"]})),
        Just(json!({"type": "number"})),
    ];
    leaf.prop_recursive(2, 12, 3, |inner| {
        prop_oneof![
            (proptest::collection::btree_map("[a-c]", inner.clone(), 1..3), any::<u8>()).prop_map(|(props, pick)| {
                let required: Vec<&String> = props.keys().enumerate().filter(|(i, _)| pick & (1 << i) != 0).map(|(_, k)| k).collect();
                json!({"type": "object", "properties": props, "required": required, "additionalProperties": false})
            }),
            inner.clone().prop_map(|items| json!({"type": "array", "items": items})),
            proptest::collection::vec(inner, 2..3).prop_map(|v| json!({"anyOf": v})),
        ]
    })
}

/// One change somewhere in `schema`, steered by `choices`.
fn mutate(schema: &mut Value, choices: &[u8]) {
    let Some((&here, rest)) = choices.split_first() else {
        return;
    };
    let Value::Object(m) = schema else { return };
    // Descend into a child first when the choice says so and there is one.
    let mut children: Vec<&mut Value> = Vec::new();
    for (key, value) in m.iter_mut() {
        match (key.as_str(), value) {
            ("properties", Value::Object(props)) => children.extend(props.values_mut()),
            ("anyOf", Value::Array(branches)) => children.extend(branches.iter_mut()),
            ("items", items) => children.push(items),
            _ => {}
        }
    }
    if here % 3 == 0 && !children.is_empty() {
        let i = usize::from(here / 3) % children.len();
        mutate(children.swap_remove(i), rest);
        return;
    }
    drop(children);
    let pick = usize::from(here);
    if m.contains_key("properties") {
        let names: Vec<String> = m["properties"]
            .as_object()
            .unwrap()
            .keys()
            .cloned()
            .collect();
        let name = names[pick % names.len()].clone();
        let mut required: Vec<Value> = m["required"].as_array().cloned().unwrap_or_default();
        match pick % 4 {
            0 => {
                if let Some(i) = required.iter().position(|r| r == &json!(name)) {
                    required.remove(i);
                } else {
                    required.push(json!(name));
                }
                m.insert("required".into(), Value::Array(required));
            }
            1 => {
                m["properties"]
                    .as_object_mut()
                    .unwrap()
                    .insert("z".into(), json!({"type": "string"}));
            }
            2 => {
                m["properties"].as_object_mut().unwrap().shift_remove(&name);
                required.retain(|r| r != &json!(name));
                m.insert("required".into(), Value::Array(required));
            }
            _ => {
                if m.shift_remove("additionalProperties").is_none() {
                    m.insert("additionalProperties".into(), json!(false));
                }
            }
        }
    } else if m.contains_key("anyOf") {
        let branches = m["anyOf"].as_array_mut().unwrap();
        if pick % 2 == 0 && branches.len() > 1 {
            branches.remove(pick % branches.len());
        } else {
            branches.push(json!({"type": "boolean"}));
        }
    } else if m.contains_key("enum") {
        let values = m["enum"].as_array_mut().unwrap();
        if pick % 2 == 0 && values.len() > 1 {
            values.remove(pick % values.len());
        } else {
            values.push(json!("d"));
        }
    } else if m.contains_key("maxLength") {
        let n = m["maxLength"].as_i64().unwrap();
        m.insert(
            "maxLength".into(),
            json!(if pick % 2 == 0 { n + 1 } else { (n - 1).max(0) }),
        );
    } else {
        match (m.get("type").cloned(), pick % 4) {
            (Some(Value::String(t)), 0) => {
                m.insert("type".into(), json!([t, "null"]));
            }
            (Some(Value::String(t)), 1) if t == "integer" || t == "number" => {
                m.insert(
                    "type".into(),
                    json!(if t == "integer" { "number" } else { "integer" }),
                );
            }
            (Some(Value::Array(_)), _) => {
                m.insert("type".into(), json!("boolean"));
            }
            (_, 2) => {
                m.insert("minimum".into(), json!(pick % 5));
            }
            _ => {
                m.shift_remove("minimum");
                m.shift_remove("maximum");
            }
        }
    }
}

fn instance() -> impl Strategy<Value = Value> {
    let scalar = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        (0..8i64).prop_map(Value::from),
        Just(json!(2.5)),
        proptest::sample::select(vec!["", "a", "b", "c", "d", "ab"]).prop_map(Value::from),
    ];
    scalar.prop_recursive(2, 10, 3, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..3).prop_map(Value::from),
            proptest::collection::btree_map("[a-c]|z", inner, 0..3)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

/// A value shaped by `schema`, most often valid, at times just past a bound, steered by
/// `bytes`: random values seldom fit a nested closed object.
fn sample(schema: &Value, bytes: &mut impl Iterator<Item = u8>) -> Value {
    let mut next = move || bytes.next().unwrap_or(0);
    fn go(schema: &Value, next: &mut dyn FnMut() -> u8) -> Value {
        let b = next();
        if let Some(Value::Array(branches)) = schema.get("anyOf") {
            return go(&branches[usize::from(b) % branches.len()], next);
        }
        if let Some(Value::Array(values)) = schema.get("enum") {
            return match values.get(usize::from(b) % (values.len() + 1)) {
                Some(v) => v.clone(),
                None => json!("d"),
            };
        }
        let types: Vec<&str> = match schema.get("type") {
            Some(Value::String(t)) => vec![t.as_str()],
            Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect(),
            _ => vec!["null"],
        };
        match types[usize::from(b) % types.len()] {
            "integer" | "number" => {
                let min = schema.get("minimum").and_then(Value::as_i64).unwrap_or(0);
                let max = schema
                    .get("maximum")
                    .and_then(Value::as_i64)
                    .unwrap_or(min + 4);
                match next() % 6 {
                    0 => json!(min - 1),
                    1 => json!(max + 1),
                    2 if types.contains(&"number") => json!(2.5),
                    _ => json!(min + i64::from(next()) % (max - min + 1).max(1)),
                }
            }
            "string" => json!(["", "a", "ab", "abc"][usize::from(next()) % 4]),
            "boolean" => json!(b.is_multiple_of(2)),
            "array" => {
                let items = schema.get("items").cloned().unwrap_or(json!({}));
                Value::Array((0..next() % 3).map(|_| go(&items, next)).collect())
            }
            "object" => {
                let mut out = Map::new();
                let required = schema.get("required").cloned().unwrap_or(json!([]));
                if let Some(Value::Object(props)) = schema.get("properties") {
                    for (name, prop) in props {
                        // Required ones nearly always, the others half the time.
                        let keep = if required
                            .as_array()
                            .is_some_and(|r| r.contains(&json!(name)))
                        {
                            !next().is_multiple_of(8)
                        } else {
                            next().is_multiple_of(2)
                        };
                        if keep {
                            out.insert(name.clone(), go(prop, next));
                        }
                    }
                }
                if next().is_multiple_of(8) {
                    out.insert("z".into(), json!("a"));
                }
                Value::Object(out)
            }
            _ => Value::Null,
        }
    }
    go(schema, &mut next)
}

fn tool_with(input: &Value, output: &Value) -> Value {
    json!({"name": "get_thing", "description": "d", "inputSchema": input, "outputSchema": output})
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn what_the_review_calls_safe_keeps_valid_values_valid(
        old in small_schema(),
        choices in proptest::collection::vec(any::<u8>(), 1..6),
        values in proptest::collection::vec(instance(), 8),
        bytes in proptest::collection::vec(any::<u8>(), 400),
    ) {
        let root = |s: &Value| json!({"type": "object", "properties": {"x": s}, "required": ["x"], "additionalProperties": false});
        let mut new = old.clone();
        mutate(&mut new, &choices);
        let (old_root, new_root) = (root(&old), root(&new));
        let r = review(
            Some(&lock(vec![tool_with(&old_root, &old_root)])),
            &lock(vec![tool_with(&new_root, &new_root)]),
            &ReviewOptions::default(),
        );
        let breaks = |side: &str| r.changes.iter().any(|c| c.class == Class::Breaking && c.rule.starts_with(side));
        let before = jsonschema::draft202012::new(&old_root).unwrap();
        let after = jsonschema::draft202012::new(&new_root).unwrap();
        let mut bytes = bytes.into_iter().cycle();
        let mut values = values;
        for _ in 0..12 {
            values.push(sample(&old, &mut bytes));
            values.push(sample(&new, &mut bytes));
        }
        for v in &values {
            let v = json!({"x": v});
            if !breaks("input.") {
                // Every input the old schema took, the new one takes.
                prop_assert!(!before.is_valid(&v) || after.is_valid(&v), "input {} valid before, not after:\nold {}\nnew {}\n{}", v, old, new, r);
            }
            // A new output field, or properties beyond those named, are additive by policy (a
            // reader ignores what it does not know), though a reader validating against the
            // old closed schema would refuse them.
            let lenient = r.changes.iter().any(|c| ["output.field.added", "output.additional.opened"].contains(&c.rule));
            if !breaks("output.") && !lenient {
                // Every output the new schema allows, the old one allowed.
                prop_assert!(!after.is_valid(&v) || before.is_valid(&v), "output {} valid after, not before:\nold {}\nnew {}\n{}", v, old, new, r);
            }
        }
    }
}

#[test]
fn a_resources_scopes_and_a_prompts_arguments_are_reviewed_together() {
    let of = |resource: Value, prompt: Value| {
        let text = json!({"tools": [], "resources": [resource], "prompts": [prompt]}).to_string();
        Lock::parse(&text, "test.json").unwrap()
    };
    let before = of(
        json!({"uri": "notes://{day}", "name": "day", "description": "d"}),
        json!({"name": "review_code", "description": "r", "arguments": [
            {"name": "code", "required": true}, {"name": "tone", "required": false}]}),
    );
    let after = of(
        json!({"uri": "notes://{day}", "name": "day", "description": "d", "scopes": ["notes:read"]}),
        json!({"name": "review_code", "description": "r", "arguments": [
            {"name": "tone", "required": true}, {"name": "lang", "required": false}]}),
    );
    let r = review(Some(&before), &after, &ReviewOptions::default());
    let found: Vec<(&str, &str, &str)> = r
        .changes
        .iter()
        .map(|c| (c.rule, c.tool.as_str(), c.message.as_str()))
        .collect();
    for expected in [
        (
            "scopes.added",
            "notes://{day}",
            "a caller now needs the scope `notes:read`",
        ),
        (
            "prompt.argument.removed",
            "review_code",
            "the argument `code` is gone",
        ),
        (
            "prompt.argument.required",
            "review_code",
            "the argument `tone` is now required",
        ),
        (
            "prompt.argument.added",
            "review_code",
            "a new optional argument `lang`",
        ),
    ] {
        assert!(found.contains(&expected), "{expected:?} in {found:?}");
    }
    assert!(r.fails());
    // Written and read again, the lock holds them as they were.
    let again = Lock::parse(&after.to_json(), "again.json").unwrap();
    assert_eq!(again, after);
}
