use std::collections::BTreeSet;

use proptest::prelude::*;
use serde_json::{Map, Value, json};

use super::*;
use crate::DynamicTool;

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

fn rules(review: &Review) -> Vec<&'static str> {
    review.changes.iter().map(|c| c.rule).collect()
}

#[test]
fn each_rule_has_a_case_that_triggers_it_alone() {
    let cases = cases();
    for (rule, old, new) in &cases {
        let r = review(
            Some(&lock(old.clone())),
            &lock(new.clone()),
            &ReviewOptions::default(),
        );
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
    let mut before = crate::Registry::empty();
    before.register(tool("Returns the forecast.")).unwrap();
    let mut after = crate::Registry::empty();
    after
        .register(tool(
            &"Returns the forecast for a city, day by day. ".repeat(20),
        ))
        .unwrap();
    let (old, new) = (Lock::of(&before), Lock::of(&after));
    assert_eq!(old.tokenizer.as_deref(), Some(crate::tokens::TOKENIZER));
    for format in crate::render::Format::ALL {
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
        budget_formats: vec![crate::render::Format::OpenAi],
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
    let mut registry = crate::Registry::empty();
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
    let defs = crate::defs::parse(&text, "tools.lock.json").unwrap();
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
        let mut r = crate::Registry::empty();
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
