//! What a tool's definition is made of, as [`Tool`](crate::registry::Tool) hands it out: its
//! [`Domain`], [`Annotations`], [`Example`]s, [`Icon`]s and where it was written
//! ([`Location`]), and the rules names, scopes, icons and approval messages are held to, at
//! compile time by `#[tool]` and at run time by [`check`].

pub mod check;
pub mod schema;

pub use crate::annotations::Annotations;

/// Whether a call to a tool may, or must, be answered with a task over MCP
/// (`#[tool(task)]`, `#[tool(task = "required")]`; [`Tool::task_support`](crate::registry::Tool::task_support)).
/// For every caller but an MCP client it is a normal call.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum TaskSupport {
    /// Never a task: the call's answer is its result (the default).
    #[default]
    Forbidden,
    /// A call from a client that declared the tasks extension becomes a task when it runs
    /// past the server's threshold (`TaskOptions::after`); others get the result.
    Optional,
    /// A call from a client that declared the tasks extension is a task from the start; a
    /// 2026-07-28 client that did not is answered -32021 (the extension is required). A
    /// server without a task store, or a session-era client, gets the result.
    Required,
}

impl TaskSupport {
    /// The name `#[tool(task = "...")]` takes and the MCP listing carries: `forbidden`,
    /// `optional` or `required`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Forbidden => "forbidden",
            Self::Optional => "optional",
            Self::Required => "required",
        }
    }

    /// Whether a call may be answered with a task at all.
    pub fn allows_task(self) -> bool {
        self != Self::Forbidden
    }
}

/// Who a tool is offered to (`#[tool(visibility = "...")]`; [`Tool::visibility`](crate::registry::Tool::visibility)):
/// the model, the views an MCP Apps host renders ([`ToolView`]), or both. MCP's
/// `_meta.ui.visibility`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum Visibility {
    /// The model and views (the default).
    #[default]
    Both,
    /// The model only: a view cannot call it.
    Model,
    /// Views only: a button in a card, say. Left out of every provider export, the catalog
    /// and the MCP listing of a client that renders no views; only an MCP client that
    /// declared `io.modelcontextprotocol/ui` lists and calls it, through the same gate.
    App,
}

impl Visibility {
    /// The name `#[tool(visibility = "...")]` takes: `both`, `model` or `app`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Both => "both",
            Self::Model => "model",
            Self::App => "app",
        }
    }

    /// Whether the model is offered the tool.
    pub fn to_model(self) -> bool {
        self != Self::App
    }

    /// Whether a view may call the tool.
    pub fn to_app(self) -> bool {
        self != Self::Model
    }

    /// MCP's `_meta.ui.visibility`: the audiences, `"model"` and `"app"`.
    pub fn audiences(self) -> &'static [&'static str] {
        match self {
            Self::Both => &["model", "app"],
            Self::Model => &["model"],
            Self::App => &["app"],
        }
    }
}

/// What a host that renders MCP Apps shows for a tool's calls (`#[tool(view = "card.html")]`,
/// `#[tool(card)]`; [`Tool::view`](crate::registry::Tool::view)): served as a `ui://` resource, it gets
/// each call's input and result from the host and may call the server's tools.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ToolView {
    /// An HTML document the tool's author wrote (an MCP App: it speaks the extension's
    /// postMessage protocol, usually through `@modelcontextprotocol/ext-apps`' `App`).
    Html(std::borrow::Cow<'static, str>),
    /// The framework's card: the tool's label while it runs, its progress, its input, and its
    /// result as a table or text.
    Card,
}

/// A group of related tools, declared once with [`domain!`](crate::domain!) and named by
/// `#[tool(domain = ...)]`. Naming an undeclared domain does not compile.
#[derive(Debug, PartialEq, Eq, Hash)]
pub struct Domain {
    /// snake_case name, e.g. `time`.
    pub name: &'static str,
    /// One line saying what the domain's tools are for; shown in catalogs.
    pub description: &'static str,
}

/// A type declared with [`domain!`](crate::domain!): what `#[tool(domain = ...)]` names.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a declared domain",
    label = "not a domain",
    note = "declare domains with tool_core::domain!(pub name, \"One-line description\") and import them where tools name them"
)]
pub trait DeclaredDomain {
    /// The domain.
    const DOMAIN: &'static Domain;
}

/// A sample input shown to models and validated against the input schema.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Example {
    /// What the example shows, in a few words.
    pub label: &'static str,
    /// The input, a JSON object as text (checked to be valid JSON at compile time).
    pub input: &'static str,
}

/// An icon a client can show for the tool: the MCP `Icon` object (protocol 2026-07-28), from
/// `#[tool(icon = "...")]` or `#[tool(icon(src = ..., mime_type = ..., sizes(..), theme = ..))]`,
/// held to [the icon rule](crate::definition::icon_problems) at compile time.
///
/// ```
/// use tool_core::definition::Icon;
/// const ICON: Icon = Icon {
///     src: "https://example.com/weather.png",
///     mime_type: Some("image/png"),
///     sizes: &["48x48"],
///     theme: None,
/// };
/// assert!(tool_core::definition::icon_problems(ICON.src, ICON.mime_type, Some(ICON.sizes), ICON.theme).is_empty());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Icon {
    /// An `https:` or `http:` URL, or a `data:` URI of base64 image data.
    pub src: &'static str,
    /// The image's MIME type (`image/png`), when the source's own is missing or generic.
    pub mime_type: Option<&'static str>,
    /// The sizes it can be shown at, each `WxH` (`48x48`) or `any`; empty when not given
    /// (any size).
    pub sizes: &'static [&'static str],
    /// `light` (drawn for a light background) or `dark`; `None` for any theme.
    pub theme: Option<&'static str>,
}

/// Where a definition was written, for error messages about it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Location {
    /// `module_path!()` at the definition.
    pub module_path: &'static str,
    /// `file!()` at the definition.
    pub file: &'static str,
    /// `line!()` at the definition.
    pub line: u32,
}

impl std::fmt::Display for Location {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} ({}:{})", self.module_path, self.file, self.line)
    }
}

/// The rule approval messages are held to: a template whose `{name}` placeholders name the
/// tool's arguments (`{{` and `}}` for braces), by the macro at compile time and by
/// [`check`] for tools built at run time.
pub use tool_grammar::{
    TemplatePart, TemplateProblem, approval_template, approval_template_problems,
};

/// The OAuth scope rule `#[tool(scopes(..))]` is held to at compile time, and definitions files
/// and mounts at run time: RFC 6749 scope-tokens, each once, at least one.
pub use tool_grammar::{
    ScopeListProblem, ScopeProblem, is_scope_token, scope_list_problems, scope_problem,
};
pub use tool_grammar::{is_domain_name, is_tool_name};

/// The icon rule `#[tool(icon(..))]` is held to at compile time, and tools built at run time
/// by [`check`]: an `https:`/`http:` URL or a base64 `data:` image as `src`, an
/// `image/...` MIME type, sizes `WxH` or `any`, theme `light` or `dark`.
pub use tool_grammar::{
    IconPart, IconProblem, SrcProblem, icon_mime_type_problem, icon_problems, icon_sizes_problems,
    icon_src_problem, icon_theme_problem, is_icon_size,
};

// Public only for `domain!`'s and `#[tool]`'s expansions, which reach it through `__private`.
#[doc(hidden)]
pub use tool_grammar::is_blank;

/// Where a tool in a registry came from, for messages about it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Origin {
    /// Written with `#[tool]` and collected at link time.
    Linked(Location),
    /// Registered at run time; the text says by what (e.g. `--defs tools.json`).
    Dynamic(String),
}

impl std::fmt::Display for Origin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Linked(location) => location.fmt(f),
            Self::Dynamic(what) => write!(f, "registered at run time by {what}"),
        }
    }
}
