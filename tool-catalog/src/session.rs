//! A conversation's loaded tools: the core set, `search_tools`, and what searches found.

use std::collections::HashSet;
use std::sync::Arc;

use serde_json::Value;

use super::SEARCH_TOOLS;
use super::search_tool::{INSTALLED_BY, MAX_LIMIT};
use tool_core::registry::Origin;
use tool_core::render::{self, Format, RenderOptions};
use tool_core::{Registry, ToolOutput, context::Principal, registry::Tool};

/// How deferred tools reach the model.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum Deferral {
    /// Send only the loaded tools (core, `search_tools`, and what searches found). Works with
    /// every provider.
    #[default]
    Session,
    /// Anthropic's own tool search: send every tool, deferred ones with `defer_loading`, plus
    /// Anthropic's tool-search tool, which loads them server-side. Other formats send every tool.
    Native,
}

/// The tools loaded for one conversation. `search_tools` results load the tools they name, so
/// the next request carries them. A session for an authenticated caller
/// ([`with_caller`](Self::with_caller)) holds only the tools it may call ([`Tool::permits`]).
/// It holds the registry's definitions, not the registry: nothing is run through a session.
///
/// ```
/// use serde_json::json;
/// use tool_catalog::{ToolSession};
/// use tool_core::render::{Format, RenderOptions};
/// use tool_core::{registry::DynamicTool, Registry, ToolOutput};
/// let mut registry = Registry::empty();
/// registry.register(DynamicTool::new("send_email", "Sends an email.", json!({"type": "object"}))).unwrap();
/// tool_catalog::install(&mut registry).unwrap();
/// let mut session = ToolSession::new(&registry);
/// assert_eq!(session.loaded_names(), ["search_tools"]);
/// // What search_tools returned for "mail my boss":
/// let found = ToolOutput::new(json!({"matches": [{"name": "send_email", "hint": "", "domain": "mail"}]}));
/// assert_eq!(session.observe("search_tools", &found), ["send_email"]);
/// let tools = session.render(Format::OpenAi, RenderOptions::default(), Default::default());
/// assert_eq!(tools.as_array().unwrap().len(), 2);
/// ```
#[derive(Debug, Clone)]
pub struct ToolSession {
    /// The registry's tools, in its order: definitions, shared by the session's clones.
    tools: Arc<[Tool]>,
    loaded: HashSet<String>,
    caller: Option<Principal>,
}

impl ToolSession {
    /// A session over the tools of `registry` with its `core` tools loaded.
    pub fn new(registry: &Registry) -> Self {
        let loaded = registry
            .core()
            .map(|t| t.name().to_owned())
            .collect::<HashSet<_>>();
        Self {
            tools: registry.tools().into(),
            loaded,
            caller: None,
        }
    }

    /// The session as `caller`'s (none: no one was authenticated, and every tool may be
    /// called): a tool whose scopes it lacks is neither loaded nor sent, so the model is not
    /// offered what the executor would refuse.
    pub fn with_caller(mut self, caller: Option<Principal>) -> Self {
        self.caller = caller;
        self
    }

    /// Whether the session's caller may call `tool`: never one for views only, which the model
    /// is not offered.
    fn permits(&self, tool: &Tool) -> bool {
        tool.to_model() && tool.permits(self.caller.as_ref())
    }

    /// The tools it draws from, in the registry's order.
    pub fn tools(&self) -> &[Tool] {
        &self.tools
    }

    fn get(&self, name: &str) -> Option<&Tool> {
        self.tools.iter().find(|t| t.name() == name)
    }

    /// Loads a tool; returns whether it was newly loaded (false if unknown, not the caller's
    /// to call, or loaded already).
    pub fn load(&mut self, name: &str) -> bool {
        let callable = self.get(name).is_some_and(|t| self.permits(t));
        callable && self.loaded.insert(name.to_owned())
    }

    /// Whether a tool is loaded.
    pub fn is_loaded(&self, name: &str) -> bool {
        self.loaded.contains(name) && self.get(name).is_some_and(|t| self.permits(t))
    }

    /// Looks at a call's result: for the catalog's `search_tools` (the one
    /// [`install`](super::install) added, not any tool of that name), loads the tools it found,
    /// at most as many as one search returns, and returns their names (those newly loaded).
    pub fn observe(&mut self, tool: &str, output: &ToolOutput) -> Vec<String> {
        let installed = self
            .get(SEARCH_TOOLS)
            .is_some_and(|t| matches!(t.origin(), Origin::Dynamic(o) if o == INSTALLED_BY));
        if tool != SEARCH_TOOLS || !installed {
            return Vec::new();
        }
        let Some(matches) = output
            .data()
            .and_then(|d| d.get("matches"))
            .and_then(Value::as_array)
        else {
            return Vec::new();
        };
        matches
            .iter()
            .take(MAX_LIMIT)
            .filter_map(|m| m.get("name").and_then(Value::as_str))
            .filter(|name| self.load(name))
            .map(str::to_owned)
            .collect()
    }

    /// The loaded tools, in registry order (domain, then name).
    pub fn loaded(&self) -> impl Iterator<Item = &Tool> {
        self.tools
            .iter()
            .filter(|t| self.loaded.contains(t.name()) && self.permits(t))
    }

    /// The loaded tools' names, in registry order.
    pub fn loaded_names(&self) -> Vec<&str> {
        self.loaded().map(Tool::name).collect()
    }

    /// The tools array for a request to the provider `format` stands for.
    pub fn render(&self, format: Format, options: RenderOptions, deferral: Deferral) -> Value {
        match deferral {
            // Anthropic's tool search replaces ours.
            Deferral::Native => render::render_all(
                self.tools
                    .iter()
                    .filter(|t| t.name() != SEARCH_TOOLS && self.permits(t)),
                format,
                options,
            ),
            Deferral::Session => {
                let mut tools = render::render_all(self.loaded(), format, options);
                // Loaded tools are sent in full: nothing is deferred any more.
                if let Value::Array(items) = &mut tools {
                    items.retain(|t| {
                        t.get("type").and_then(Value::as_str) != Some(render::ANTHROPIC_TOOL_SEARCH)
                    });
                    for item in items {
                        if let Value::Object(map) = item {
                            map.remove("defer_loading");
                        }
                    }
                }
                tools
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use tool_core::registry::DynamicTool;

    fn tool(name: &str) -> DynamicTool {
        DynamicTool::new(name.to_owned(), "Does it.", json!({"type": "object"}))
    }

    /// `open_file` (core) and `read_mail` need no scope; `wipe_disk` (core) and `send_mail`
    /// need `admin` and `mail:send`.
    fn session() -> ToolSession {
        let mut registry = Registry::empty();
        registry
            .register_all([
                tool("open_file").core(true),
                tool("wipe_disk").core(true).scopes(["admin"]),
                tool("read_mail"),
                tool("send_mail").scopes(["mail:send"]),
            ])
            .unwrap();
        super::super::install(&mut registry).unwrap();
        ToolSession::new(&registry)
    }

    /// The names of the tools sent, Anthropic's own tool search left out.
    fn names(tools: &Value) -> Vec<&str> {
        let tools = tools.as_array().unwrap();
        let ours = tools
            .iter()
            .filter(|t| t["type"] != render::ANTHROPIC_TOOL_SEARCH);
        ours.filter_map(|t| t["name"].as_str()).collect()
    }

    #[test]
    fn a_callers_session_holds_only_the_tools_it_may_call() {
        let reader = Principal::new("ada").with_scopes(["mail:read"]);
        let mut session = session().with_caller(Some(reader));
        assert_eq!(session.loaded_names(), ["search_tools", "open_file"]);
        assert!(!session.is_loaded("wipe_disk"));
        // Neither loaded by name nor by a search result that names it.
        assert!(!session.load("send_mail"));
        let found =
            ToolOutput::new(json!({"matches": [{"name": "send_mail"}, {"name": "read_mail"}]}));
        assert_eq!(session.observe(SEARCH_TOOLS, &found), ["read_mail"]);
        let sent = |deferral| session.render(Format::Anthropic, RenderOptions::default(), deferral);
        assert_eq!(
            names(&sent(Deferral::Session)),
            ["search_tools", "open_file", "read_mail"]
        );
        // Anthropic's own tool search is sent every tool: every one the caller may call.
        assert_eq!(names(&sent(Deferral::Native)), ["open_file", "read_mail"]);

        // Without an authenticated caller, every tool.
        let mut anyone = session.clone().with_caller(None);
        assert!(anyone.is_loaded("wipe_disk") && anyone.load("send_mail"));
        let all = anyone.render(
            Format::Anthropic,
            RenderOptions::default(),
            Deferral::Native,
        );
        assert_eq!(
            names(&all),
            ["open_file", "read_mail", "send_mail", "wipe_disk"]
        );
    }

    /// A tool for views only is neither loaded, found, rendered nor called by the model, core
    /// or not; `render::mcp` keeps it for a server to list to hosts.
    #[test]
    fn a_tool_for_views_only_never_reaches_the_model() {
        use tool_core::definition::Visibility;
        let mut registry = Registry::empty();
        registry
            .register_all([
                tool("open_file").core(true),
                tool("press_button").core(true).visibility(Visibility::App),
                tool("push_button").visibility(Visibility::App),
            ])
            .unwrap();
        super::super::install(&mut registry).unwrap();
        let mut session = ToolSession::new(&registry);
        assert_eq!(session.loaded_names(), ["search_tools", "open_file"]);
        assert!(!session.load("push_button") && !session.is_loaded("press_button"));
        let found = ToolOutput::new(json!({"matches": [{"name": "push_button"}]}));
        assert!(session.observe(SEARCH_TOOLS, &found).is_empty());
        for deferral in [Deferral::Session, Deferral::Native] {
            let sent = session.render(Format::OpenAi, RenderOptions::default(), deferral);
            assert!(
                !names(&sent).iter().any(|n| n.ends_with("_button")),
                "{sent}"
            );
        }
        let everything =
            render::render_all(registry.tools(), Format::Mcp, RenderOptions::default());
        assert_eq!(everything.as_array().map(Vec::len), Some(4));
        let openai = render::render_all(registry.tools(), Format::OpenAi, RenderOptions::default());
        assert_eq!(openai.as_array().map(Vec::len), Some(2));
        assert!(registry.suggest("push_buton").is_empty());
    }
}
