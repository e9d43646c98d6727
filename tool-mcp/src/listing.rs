//! `tools/list`: the MCP form of the listed tools, a page at a time, in one of two shapes.
//!
//! Both are tool-core's encoding of the MCP `Tool` object ([`McpTool`]). The SDK's service
//! loop takes rmcp's [`Tool`](rmcp::model::Tool)s ([`listed_tool`], built from the view's
//! parts), each holding its input schema as an `Arc<JsonObject>` that cannot share the
//! registry's `Value`: a page of 200 tools copies every schema, about 1.2 MB of heap that malloc
//! keeps after the answer is written. The stdio transport writes the view itself instead
//! ([`Page`]'s `Serialize`), one tool at a time, copying no input schema: its MCP form is made
//! as it is written.

use std::ops::Range;
use std::sync::Arc;

use serde::ser::SerializeMap as _;
use serde::{Serialize, Serializer};
use serde_json::Value;

use rmcp::model::CacheScope;
use tool_core::registry::Tool;
use tool_core::render::McpTool;

use super::result::ServerInfo;

/// The tool as rmcp's `Tool`, from the parts of its [`McpTool`] view (rendering the view to a
/// value and deserializing that again cost 1.7 times as much). `None` when the input schema is not an
/// object, which MCP cannot carry.
///
/// `modern`: for a 2026-07-28 client, which takes any output schema; older ones get a
/// non-object output described as `{"result": ...}`. `views`: for a client that renders views,
/// whether every tool shows the card (`_meta.ui`, [`crate::views`]).
pub(super) fn listed_tool(
    tool: &Tool,
    modern: bool,
    views: Option<bool>,
) -> Option<rmcp::model::Tool> {
    let view = McpTool::new(tool).any_output(modern);
    let Value::Object(input) = view.input_schema.to_value() else {
        return None;
    };
    let mut listed = rmcp::model::Tool::default();
    // The view's name and description, without copying a static one.
    listed.name = tool.name_cow();
    listed.title = Some(view.title.to_owned());
    listed.description = Some(tool.description_cow());
    listed.input_schema = Arc::new(input);
    listed.output_schema = view.output_schema.and_then(|o| match o.to_value() {
        Value::Object(output) => Some(Arc::new(output)),
        _ => None,
    });
    let hints = view.annotations;
    let mut annotations = rmcp::model::ToolAnnotations::with_title(hints.title);
    annotations.read_only_hint = Some(hints.read_only_hint);
    annotations.destructive_hint = Some(hints.destructive_hint);
    annotations.idempotent_hint = Some(hints.idempotent_hint);
    annotations.open_world_hint = Some(hints.open_world_hint);
    listed.annotations = Some(annotations);
    // Rare, and decoded from the view's own encoding, so rmcp's `Icon` has no second one.
    listed.icons = if view.icons.is_empty() {
        None
    } else {
        serde_json::to_value(view.icons)
            .and_then(serde_json::from_value)
            .ok()
    };
    listed.meta = match serde_json::to_value(view.meta) {
        Ok(Value::Object(mut meta)) => {
            if let Some(cards) = views {
                crate::views::add_to(&mut meta, tool, cards);
            }
            Some(rmcp::model::MetaObject(meta))
        }
        _ => None,
    };
    Some(listed)
}

/// One page of `tools/list`: the listed tools in `range`, and the cursor of the next page.
/// Serializes as the result of `tools/list` (what rmcp writes for a `ListToolsResult` to a
/// session begun with `initialize`, or with [`Hints`] to a 2026-07-28 request).
pub(super) struct Page {
    listed: Arc<[Tool]>,
    range: Range<usize>,
    hints: Option<Hints>,
    /// For a client that renders views: whether every tool shows the card.
    views: Option<bool>,
}

/// What a 2026-07-28 listing carries besides its tools: how long and by whom it may be cached,
/// and the server's info.
pub(super) struct Hints {
    pub(super) ttl_ms: u64,
    pub(super) scope: CacheScope,
    pub(super) server_info: Arc<ServerInfo>,
}

impl Hints {
    /// Sets these hints on the SDK's form of the page.
    pub(super) fn apply(&self, result: &mut rmcp::model::ListToolsResult) {
        result.ttl_ms = Some(self.ttl_ms);
        result.cache_scope = Some(self.scope);
        result.meta = Some(self.server_info.added_to(result.meta.take()));
    }
}

impl Page {
    /// `range` of `listed`, every tool of which has an object input schema.
    pub(super) fn new(listed: Arc<[Tool]>, range: Range<usize>) -> Self {
        Self {
            listed,
            range,
            hints: None,
            views: None,
        }
    }

    /// The page as a client that renders views gets it (`Some`: whether every tool shows the
    /// card), its tools' `_meta.ui` written.
    pub(super) fn with_views(mut self, views: Option<bool>) -> Self {
        self.views = views;
        self
    }

    /// The page as a 2026-07-28 request gets it.
    pub(super) fn with_hints(mut self, hints: Hints) -> Self {
        self.hints = Some(hints);
        self
    }

    /// The hints, taken out: the SDK's form of the page carries them instead.
    pub(super) fn take_hints(&mut self) -> Option<Hints> {
        self.hints.take()
    }

    pub(super) fn tools(&self) -> &[Tool] {
        &self.listed[self.range.clone()]
    }

    /// The cursor that asks for the page after this one, if there is one.
    pub(super) fn next_cursor(&self) -> Option<String> {
        (self.range.end < self.listed.len()).then(|| self.range.end.to_string())
    }
}

impl Serialize for Page {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        if let Some(hints) = &self.hints {
            map.serialize_entry("resultType", "complete")?;
            map.serialize_entry("_meta", &hints.server_info.added_to(None))?;
        }
        if let Some(next) = self.next_cursor() {
            map.serialize_entry("nextCursor", &next)?;
        }
        if let Some(hints) = &self.hints {
            map.serialize_entry("ttlMs", &hints.ttl_ms)?;
            map.serialize_entry("cacheScope", &hints.scope)?;
        }
        let modern = self.hints.is_some();
        map.serialize_entry("tools", &Tools(self.tools(), modern, self.views))?;
        map.end()
    }
}

struct Tools<'a>(&'a [Tool], bool, Option<bool>);

impl Serialize for Tools<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let modern = self.1;
        let tools = self.0.iter().map(|t| McpTool::new(t).any_output(modern));
        match self.2 {
            None => serializer.collect_seq(tools),
            // A client that renders views: each tool's `_meta` gains `ui`, so it goes through
            // a value (the path of every other client copies nothing).
            Some(cards) => serializer.collect_seq(self.0.iter().zip(tools).map(|(tool, view)| {
                let mut value = serde_json::to_value(view).unwrap_or(Value::Null);
                if let Some(Value::Object(meta)) = value.get_mut("_meta") {
                    crate::views::add_to(meta, tool, cards);
                }
                value
            })),
        }
    }
}

#[cfg(test)]
mod tests {
    use rmcp::model::{
        JsonRpcResponse, JsonRpcVersion2_0, ListToolsResult, NumberOrString, ServerResult,
    };
    use serde_json::json;

    use super::*;
    use tool_core::render;
    use tool_core::{Registry, registry::DynamicTool, registry::ToolIcon};

    fn registry() -> Registry {
        let mut registry = Registry::linked().unwrap_or_else(|_| Registry::empty());
        registry
            .register_all([
                // Schemas the MCP form rewrites: what is written must still be what serde
                // makes of the rendering.
                DynamicTool::new(
                    "get_thing",
                    "Gets a thing.",
                    json!({"type": "object", "properties": {
                        "id": {"type": "string", "format": "ip"},
                        "n": {"type": ["integer", "null"], "format": "uint32", "minimum": 0},
                        "tag": {"anyOf": [{"$ref": "#/$defs/Tag"}, {"type": "null"}]},
                    }, "$defs": {"Tag": {"type": ["string", "null"]}}}),
                )
                .output_schema(json!({"type": ["integer", "null"], "$defs": {"x": {}}})),
                DynamicTool::new("list_things", "", json!({"type": "object"}))
                    .output_schema(json!({"type": "object", "properties": {}}))
                    .domain("things", "Things")
                    .label("Listing")
                    .hint("Lists things")
                    .core(true),
                DynamicTool::new("say_it", "Says \"it\"\n.", json!({"type": "object"}))
                    .annotations(tool_core::definition::Annotations::READ_ONLY),
                // Icons in every form (one that breaks the rule, which neither path lists),
                // and the mirror off.
                DynamicTool::new("get_pictured", "Gets a picture.", json!({"type": "object"}))
                    .output_schema(json!({"type": "object"}))
                    .mirror(false)
                    .icon(ToolIcon::new("https://example.com/a.png"))
                    .icon(ToolIcon::new("https://example.com/b.png").theme("sepia"))
                    .icon(
                        ToolIcon::new("data:image/svg+xml;base64,PHN2Zz4=")
                            .mime_type("image/svg+xml")
                            .sizes(["any"])
                            .theme("dark"),
                    )
                    .icon(
                        ToolIcon::new("http://example.com/q.png?a=1&b=%22")
                            .sizes(["16x16", "32x32"])
                            .theme("light"),
                    ),
                DynamicTool::new("get_unpictured", "Gets nothing.", json!({"type": "object"}))
                    .icon(ToolIcon::new("not a link")),
                // Views: one of its own, and a tool for views only.
                DynamicTool::new("get_viewed", "Gets a view.", json!({"type": "object"}))
                    .view(tool_core::definition::ToolView::Html("<p>x</p>".into())),
                DynamicTool::new("press_button", "Presses.", json!({"type": "object"}))
                    .visibility(tool_core::definition::Visibility::App),
            ])
            .unwrap();
        registry
    }

    #[test]
    fn listed_tools_are_what_serde_makes_of_the_rendering() {
        let registry = registry();
        assert!(registry.tools().iter().any(|t| t.output_schema().is_some()));
        for modern in [false, true] {
            let pictured =
                listed_tool(registry.get("get_pictured").unwrap(), modern, None).unwrap();
            assert_eq!(
                pictured.icons.as_ref().map(Vec::len),
                Some(3),
                "the sepia one is left out"
            );
            let unpictured = listed_tool(registry.get("get_unpictured").unwrap(), modern, None);
            assert_eq!(unpictured.unwrap().icons, None);
        }
        for tool in registry.tools() {
            let def = render::mcp(tool);
            let expected: rmcp::model::Tool = serde_json::from_value(def.clone()).unwrap();
            let listed = listed_tool(tool, false, None).unwrap();
            assert_eq!(listed, expected, "{}", tool.name());
            assert_eq!(
                serde_json::to_value(&listed).unwrap(),
                def,
                "{}",
                tool.name()
            );
        }
    }

    /// The transport's answer is byte for byte what the SDK writes for the same page, in
    /// either era.
    #[test]
    fn a_page_is_written_as_the_sdk_writes_its_list_result() {
        let listed: Arc<[Tool]> = registry().tools().into();
        let n = listed.len();
        assert!(n >= 3);
        let info = Arc::new(ServerInfo::new(&rmcp::model::Implementation::new(
            "srv \"q\"",
            "2.0",
        )));
        let hints = |scope| Hints {
            ttl_ms: 60_000,
            scope,
            server_info: info.clone(),
        };
        let eras = [None, Some(CacheScope::Public), Some(CacheScope::Private)];
        // Without views, and for a client that renders them, with and without the card.
        let shown = [None, Some(false), Some(true)];
        for (range, era, views) in [0..n, 0..1, 1..n - 1, n..n]
            .into_iter()
            .flat_map(|r| eras.map(|e| (r.clone(), e)))
            .flat_map(|(r, e)| shown.map(|v| (r.clone(), e, v)))
        {
            let mut page = Page::new(listed.clone(), range.clone()).with_views(views);
            if let Some(scope) = era {
                page = page.with_hints(hints(scope));
            }
            let mut sdk = ListToolsResult::with_all_items(
                page.tools()
                    .iter()
                    .filter_map(|t| listed_tool(t, era.is_some(), views))
                    .collect(),
            );
            sdk.next_cursor = page.next_cursor();
            if let Some(scope) = era {
                hints(scope).apply(&mut sdk);
            }
            let mut sdk = ServerResult::ListToolsResult(sdk);
            if era.is_none() {
                sdk.strip_result_type_for_legacy_peer();
                sdk.strip_non_object_output_for_legacy_peer();
            } else {
                sdk.fill_missing_cache_hints();
            }
            fn answer(result: impl Serialize) -> String {
                let id = NumberOrString::Number(7);
                let jsonrpc = JsonRpcVersion2_0;
                serde_json::to_string(&JsonRpcResponse {
                    jsonrpc,
                    id,
                    result,
                })
                .unwrap()
            }
            assert_eq!(answer(page), answer(sdk), "{range:?} {era:?} {views:?}");
        }
    }

    /// A 2026-07-28 client takes any output schema; an older one gets `{"result": ...}`.
    #[test]
    fn a_non_object_output_schema_is_wrapped_only_for_the_session_era() {
        let registry = registry();
        let tool = registry.get("get_thing").unwrap();
        let modern = listed_tool(tool, true, None)
            .unwrap()
            .output_schema
            .unwrap();
        assert_ne!(modern.get("type"), Some(&json!("object")), "{modern:?}");
        assert!(modern.get("properties").is_none(), "{modern:?}");
        let session = listed_tool(tool, false, None)
            .unwrap()
            .output_schema
            .unwrap();
        assert_eq!(session["type"], "object");
        assert!(session["properties"]["result"].is_object(), "{session:?}");
    }

    /// What a client is sent for tools with icons and without their mirror, one of whose icons
    /// breaks the rule and is left out.
    #[test]
    fn a_listing_of_tools_with_icons() {
        let registry = registry();
        let listed: Arc<[Tool]> = ["get_pictured", "get_unpictured"]
            .map(|name| registry.get(name).unwrap().clone())
            .into();
        let page = Page::new(listed, 0..2);
        let json = serde_json::to_value(&page).unwrap();
        insta::assert_snapshot!(serde_json::to_string_pretty(&json).unwrap());
    }

    #[test]
    fn a_page_names_the_next_one_until_the_last() {
        let listed: Arc<[Tool]> = registry().tools().into();
        let n = listed.len();
        assert_eq!(
            Page::new(listed.clone(), 0..1).next_cursor(),
            Some("1".into())
        );
        assert_eq!(Page::new(listed, 1..n).next_cursor(), None);
    }

    #[test]
    fn a_tool_whose_input_schema_is_not_an_object_is_not_listed() {
        for schema in [Value::Null, json!(5), json!([]), json!(true)] {
            let tool = DynamicTool::new("x", "d", schema.clone());
            let mut registry = Registry::empty();
            registry.register(tool).unwrap();
            let tool = &registry.tools()[0];
            // serde refuses the rendering too: MCP has no way to carry it.
            assert!(serde_json::from_value::<rmcp::model::Tool>(render::mcp(tool)).is_err());
            assert_eq!(listed_tool(tool, false, None), None, "{schema}");
            assert_eq!(listed_tool(tool, true, None), None, "{schema}");
        }
    }
}
