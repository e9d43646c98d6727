//! Tools' views for hosts that render MCP Apps (`io.modelcontextprotocol/ui`, SEP-1865): a
//! tool's `_meta.ui` names a `ui://` resource of type `text/html;profile=mcp-app`, which the
//! host reads, renders in a sandboxed frame and hands each call's input and result.
//!
//! Everything here is offered only to a client that declared the extension; any other gets the
//! listing and results it got before views existed, and a tool for views only
//! ([`Visibility::App`]) is unknown to it. A view is served as the listing names it, to a caller
//! the tool [permits](Tool::permits); a call a view makes is an ordinary `tools/call`, through
//! the executor's one gate.

use std::borrow::Cow;
use std::sync::LazyLock;

use rmcp::model::ClientCapabilities;
use serde_json::{Map, Value, json};
use tool_core::definition::{ToolView, Visibility};
use tool_core::registry::Tool;

/// The extension's key among a client's capabilities.
pub const EXTENSION: &str = "io.modelcontextprotocol/ui";

/// The MIME type of a view.
pub const MIME_TYPE: &str = "text/html;profile=mcp-app";

/// The scheme and authority of the views this server serves: `ui://tool/{name}`.
const PREFIX: &str = "ui://tool/";

/// Whether capabilities as JSON (a 2026-07-28 request's `_meta`) declare the extension.
pub(crate) fn declared(capabilities: Option<&Value>) -> bool {
    capabilities
        .and_then(|c| c.get("extensions"))
        .and_then(|e| e.get(EXTENSION))
        .is_some_and(|settings| takes_views(settings.get("mimeTypes")))
}

/// Whether a session's capabilities (its `initialize`) declare the extension.
pub(crate) fn declared_by(capabilities: &ClientCapabilities) -> bool {
    capabilities
        .extensions
        .as_ref()
        .and_then(|e| e.get(EXTENSION))
        .is_some_and(|settings| takes_views(settings.get("mimeTypes")))
}

/// The extension's settings take this server's views: they list no MIME types (every host
/// takes the one the extension defines), or list it.
fn takes_views(mime_types: Option<&Value>) -> bool {
    match mime_types.and_then(Value::as_array) {
        None => true,
        Some(types) => types.iter().any(|t| t.as_str() == Some(MIME_TYPE)),
    }
}

/// The URI of `tool`'s view.
pub(crate) fn uri(tool: &str) -> String {
    format!("{PREFIX}{tool}")
}

/// The HTML a host shows for `tool`'s calls: its own view, else the card when `cards` asks for
/// one for every tool. A tool for views only has none of its own to show.
pub(crate) fn html(tool: &Tool, cards: bool) -> Option<&str> {
    match tool.view() {
        Some(ToolView::Html(html)) => Some(html),
        Some(ToolView::Card) => Some(card()),
        Some(_) => None,
        None if cards && tool.visibility() != Visibility::App => Some(card()),
        None => None,
    }
}

/// The tool's `_meta.ui`: its view's URI and who it is for, when either is not the default.
pub(crate) fn tool_meta(tool: &Tool, cards: bool) -> Option<Value> {
    let view = html(tool, cards).is_some();
    let visibility = tool.visibility();
    if !view && visibility == Visibility::Both {
        return None;
    }
    let mut ui = Map::new();
    if view {
        ui.insert("resourceUri".into(), json!(uri(tool.name())));
    }
    ui.insert("visibility".into(), json!(visibility.audiences()));
    Some(Value::Object(ui))
}

/// Adds `_meta.ui` to a tool as the listing writes it.
pub(crate) fn add_to(meta: &mut Map<String, Value>, tool: &Tool, cards: bool) {
    if let Some(ui) = tool_meta(tool, cards) {
        meta.insert("ui".into(), ui);
    }
}

/// The tool whose view `uri` is, if it is one of this server's view URIs.
pub(crate) fn tool_of(uri: &str) -> Option<&str> {
    uri.strip_prefix(PREFIX).filter(|name| !name.is_empty())
}

/// The `_meta.ui` of a view resource: no network, no device, and for the card no host border
/// (it draws its own).
pub(crate) fn resource_meta(tool: &Tool) -> Value {
    let mut ui = json!({
        "csp": {"connectDomains": [], "resourceDomains": [], "frameDomains": []},
        "permissions": {},
    });
    if !matches!(tool.view(), Some(ToolView::Html(_))) {
        ui["prefersBorder"] = json!(false);
    }
    json!({ "ui": ui })
}

/// The card: `card.html` with the card's stylesheet, which the presence page shares, and
/// ext-apps' `App` (its bundle with its dependencies, vendored: a view cannot load scripts
/// from the network) inlined.
pub(crate) fn card() -> &'static str {
    static CARD: LazyLock<String> = LazyLock::new(|| {
        include_str!("views/card.html")
            .replace("/*__CARD_CSS__*/", tool_core::render::CARD_CSS)
            .replace("/*__EXT_APPS_APP__*/", &app_script())
    });
    &CARD
}

/// ext-apps' `app-with-deps.js`, an ES module, as the start of the card's own module: its
/// closing `export{...}` becomes `const App = <its local name>;`, since one inline module
/// cannot import from another.
fn app_script() -> Cow<'static, str> {
    const BUNDLE: &str = include_str!("views/ext-apps-app.js");
    let Some(at) = BUNDLE.rfind("export{") else {
        return Cow::Borrowed(BUNDLE);
    };
    let list = &BUNDLE[at + "export{".len()..];
    let list = &list[..list.find('}').unwrap_or(list.len())];
    let local = list
        .split(',')
        .find_map(|entry| entry.trim().strip_suffix(" as App"))
        .unwrap_or("undefined");
    Cow::Owned(format!("{}const App = {local};\n", &BUNDLE[..at]))
}

#[cfg(test)]
mod tests {
    use super::*;
    use tool_core::{Registry, registry::DynamicTool};

    fn tool(view: Option<ToolView>, visibility: Visibility) -> Tool {
        let mut t =
            DynamicTool::new("get_x", "Gets x.", json!({"type": "object"})).visibility(visibility);
        if let Some(view) = view {
            t = t.view(view);
        }
        let mut registry = Registry::empty();
        registry.register(t).unwrap();
        registry.get("get_x").unwrap().clone()
    }

    #[test]
    fn the_card_is_ext_apps_app_and_the_shared_sheet() {
        let card = card();
        assert!(card.contains("const App = qB;"), "App bound to its local");
        assert!(
            !card.contains("export{"),
            "no export left in an inline module"
        );
        assert!(card.contains(".card.ok"), "the shared sheet");
        assert!(!card.contains("__CARD_CSS__") && !card.contains("__EXT_APPS_APP__"));
        // Nothing in the bundle ends the inline script early.
        assert_eq!(card.matches("</script").count(), 1);
    }

    #[test]
    fn meta_names_the_view_and_the_audience() {
        let plain = tool(None, Visibility::Both);
        assert_eq!(tool_meta(&plain, false), None);
        assert_eq!(
            tool_meta(&plain, true),
            Some(json!({"resourceUri": "ui://tool/get_x", "visibility": ["model", "app"]}))
        );
        let app = tool(None, Visibility::App);
        assert_eq!(
            tool_meta(&app, true),
            Some(json!({"visibility": ["app"]})),
            "a tool for views only gets no card"
        );
        let own = tool(Some(ToolView::Html("<p>x</p>".into())), Visibility::Model);
        assert_eq!(html(&own, false), Some("<p>x</p>"));
        assert_eq!(
            tool_meta(&own, false).unwrap()["visibility"],
            json!(["model"])
        );
        assert_eq!(resource_meta(&own)["ui"].get("prefersBorder"), None);
        assert_eq!(tool_of("ui://tool/get_x"), Some("get_x"));
        assert_eq!(tool_of("ui://tool/"), None);
        assert_eq!(tool_of("ui://other/get_x"), None);
    }

    #[test]
    fn a_client_takes_views_when_it_declares_the_extension_and_its_type() {
        assert!(!declared(None));
        assert!(!declared(Some(&json!({"extensions": {}}))));
        assert!(declared(Some(&json!({"extensions": {EXTENSION: {}}}))));
        assert!(declared(Some(
            &json!({"extensions": {EXTENSION: {"mimeTypes": [MIME_TYPE]}}})
        )));
        assert!(!declared(Some(
            &json!({"extensions": {EXTENSION: {"mimeTypes": ["text/html"]}}})
        )));
    }
}
