//! `tools/list`: the MCP form of the listed tools, a page at a time, in one of two shapes.
//!
//! The SDK's service loop takes rmcp's [`Tool`](rmcp::model::Tool)s ([`listed_tool`]), each
//! holding its input schema as an `Arc<JsonObject>` that cannot share the registry's `Value`:
//! a page of 200 tools copies every schema, about 1.2 MB of heap that malloc keeps after the
//! answer is written. The stdio transport writes the same JSON straight from the registry
//! instead ([`Page`]'s `Serialize`), one tool at a time, copying no input schema: its MCP form
//! ([`McpSchema`]) is made as it is written.

use std::ops::Range;
use std::sync::Arc;

use serde::ser::{SerializeMap as _, SerializeSeq as _};
use serde::{Serialize, Serializer};
use serde_json::Value;

use rmcp::model::CacheScope;
use tool_core::schema::McpSchema;
use tool_core::{Tool, render};

use super::result::ServerInfo;

/// The tool as rmcp's `Tool`: what [`render::mcp`] writes, built directly (rendering to JSON and
/// deserializing it again cost 1.7 times as much). `None` when the input schema is not an
/// object, which MCP cannot carry.
///
/// `modern`: for a 2026-07-28 client, which takes any output schema; older ones get a
/// non-object output described as `{"result": ...}`.
pub(super) fn listed_tool(tool: &Tool, modern: bool) -> Option<rmcp::model::Tool> {
    let Value::Object(input) = McpSchema::input(tool.input_schema()).to_value() else {
        return None;
    };
    let mut listed = rmcp::model::Tool::default();
    listed.name = tool.name_cow();
    listed.title = Some(tool.label().to_owned());
    listed.description = Some(tool.description_cow());
    listed.input_schema = Arc::new(input);
    listed.output_schema = output_schema(tool, modern).map(Arc::new);
    listed.annotations = Some(annotations(tool));
    listed.icons = icons(tool);
    listed.meta = Some(rmcp::model::MetaObject(render::mcp_meta(tool)));
    Some(listed)
}

/// The icons [`render::mcp`] writes (those that meet the icon rule), as rmcp's; `None` for none,
/// as the rendering then has no `icons`.
fn icons(tool: &Tool) -> Option<Vec<rmcp::model::Icon>> {
    let icons: Vec<rmcp::model::Icon> = render::mcp_icons(tool)
        .filter_map(|icon| {
            let mut listed = rmcp::model::Icon::new(icon.src.as_ref());
            if let Some(mime_type) = &icon.mime_type {
                listed = listed.with_mime_type(mime_type.as_ref());
            }
            if !icon.sizes.is_empty() {
                listed = listed.with_sizes(icon.sizes.iter().map(|s| s.to_string()).collect());
            }
            if let Some(theme) = &icon.theme {
                // The rule lets no other theme through.
                listed = listed.with_theme(match theme.as_ref() {
                    "light" => rmcp::model::IconTheme::Light,
                    "dark" => rmcp::model::IconTheme::Dark,
                    _ => return None,
                });
            }
            Some(listed)
        })
        .collect();
    (!icons.is_empty()).then_some(icons)
}

fn annotations(tool: &Tool) -> rmcp::model::ToolAnnotations {
    let a = tool.annotations();
    let mut annotations = rmcp::model::ToolAnnotations::with_title(tool.label());
    annotations.read_only_hint = Some(a.read_only);
    annotations.destructive_hint = Some(a.destructive);
    annotations.idempotent_hint = Some(a.idempotent);
    annotations.open_world_hint = Some(a.open_world);
    annotations
}

fn output_schema(tool: &Tool, modern: bool) -> Option<serde_json::Map<String, Value>> {
    let output = tool.output_schema()?;
    let schema = if modern {
        McpSchema::output(output).to_value()
    } else {
        render::mcp_output_schema(output)
    };
    match schema {
        Value::Object(output) => Some(output),
        _ => None,
    }
}

/// One page of `tools/list`: the listed tools in `range`, and the cursor of the next page.
/// Serializes as the result of `tools/list` (what rmcp writes for a `ListToolsResult` to a
/// session begun with `initialize`, or with [`Hints`] to a 2026-07-28 request).
pub(super) struct Page {
    listed: Arc<[Tool]>,
    range: Range<usize>,
    hints: Option<Hints>,
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
        }
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
        map.serialize_entry("tools", &Tools(self.tools(), modern))?;
        map.end()
    }
}

struct Tools<'a>(&'a [Tool], bool);

impl Serialize for Tools<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut seq = serializer.serialize_seq(Some(self.0.len()))?;
        for tool in self.0 {
            seq.serialize_element(&Listed(tool, self.1))?;
        }
        seq.end()
    }
}

/// A tool as [`listed_tool`] makes it, serialized in the same order, borrowing its schema
/// (for a 2026-07-28 client if the flag is set).
struct Listed<'a>(&'a Tool, bool);

impl Serialize for Listed<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let tool = self.0;
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("name", tool.name())?;
        map.serialize_entry("title", tool.label())?;
        map.serialize_entry("description", tool.description())?;
        map.serialize_entry("inputSchema", &McpSchema::input(tool.input_schema()))?;
        // Built per tool and dropped at once: small, unlike a copy of the whole page.
        if let Some(output) = output_schema(tool, self.1) {
            map.serialize_entry("outputSchema", &output)?;
        }
        map.serialize_entry("annotations", &annotations(tool))?;
        if render::mcp_icons(tool).next().is_some() {
            map.serialize_entry("icons", &Icons(tool))?;
        }
        map.serialize_entry("_meta", &render::mcp_meta(tool))?;
        map.end()
    }
}

/// The icons of a listed tool, as [`icons`] makes them, borrowed.
struct Icons<'a>(&'a Tool);

impl Serialize for Icons<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut seq = serializer.serialize_seq(None)?;
        for icon in render::mcp_icons(self.0) {
            seq.serialize_element(&render::McpIcon(icon))?;
        }
        seq.end()
    }
}

#[cfg(test)]
mod tests {
    use rmcp::model::{
        JsonRpcResponse, JsonRpcVersion2_0, ListToolsResult, NumberOrString, ServerResult,
    };
    use serde_json::json;

    use super::*;
    use tool_core::{DynamicTool, Registry, ToolIcon};

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
                    .annotations(tool_core::Annotations::READ_ONLY),
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
            ])
            .unwrap();
        registry
    }

    #[test]
    fn listed_tools_are_what_serde_makes_of_the_rendering() {
        let registry = registry();
        assert!(registry.tools().iter().any(|t| t.output_schema().is_some()));
        for modern in [false, true] {
            let pictured = listed_tool(registry.get("get_pictured").unwrap(), modern).unwrap();
            assert_eq!(
                pictured.icons.as_ref().map(Vec::len),
                Some(3),
                "the sepia one is left out"
            );
            let unpictured = listed_tool(registry.get("get_unpictured").unwrap(), modern);
            assert_eq!(unpictured.unwrap().icons, None);
        }
        for tool in registry.tools() {
            let def = render::mcp(tool);
            let expected: rmcp::model::Tool = serde_json::from_value(def.clone()).unwrap();
            let listed = listed_tool(tool, false).unwrap();
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
        for (range, era) in [0..n, 0..1, 1..n - 1, n..n]
            .into_iter()
            .flat_map(|r| eras.map(|e| (r.clone(), e)))
        {
            let mut page = Page::new(listed.clone(), range.clone());
            if let Some(scope) = era {
                page = page.with_hints(hints(scope));
            }
            let mut sdk = ListToolsResult::with_all_items(
                page.tools()
                    .iter()
                    .filter_map(|t| listed_tool(t, era.is_some()))
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
            assert_eq!(answer(page), answer(sdk), "{range:?} {era:?}");
        }
    }

    /// A 2026-07-28 client takes any output schema; an older one gets `{"result": ...}`.
    #[test]
    fn a_non_object_output_schema_is_wrapped_only_for_the_session_era() {
        let registry = registry();
        let tool = registry.get("get_thing").unwrap();
        let modern = listed_tool(tool, true).unwrap().output_schema.unwrap();
        assert_ne!(modern.get("type"), Some(&json!("object")), "{modern:?}");
        assert!(modern.get("properties").is_none(), "{modern:?}");
        let session = listed_tool(tool, false).unwrap().output_schema.unwrap();
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
            assert_eq!(listed_tool(tool, false), None, "{schema}");
            assert_eq!(listed_tool(tool, true), None, "{schema}");
        }
    }
}
