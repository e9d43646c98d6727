//! Transforms: the tool set a model sees, reshaped without touching the tools. Rename a tool,
//! prefix a set of tools, hide an argument behind a fixed or context-supplied value, keep or
//! drop tools by name, domain or annotation. They apply to a [`Registry`], so linked, dynamic
//! and mounted tools alike are reshaped, and every listing, export, search and MCP server that
//! reads the registry shows the result; the executor fills hidden arguments in on every call,
//! before any layer, approval or audit sees it, so a person approving a call reads the value
//! that will be used.
//!
//! ```
//! use serde_json::json;
//! use tool_core::registry::transform::{ToolFilter, Transforms};
//! use tool_core::{registry::DynamicTool, Executor, Registry, ToolContext, ToolOutput};
//! # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
//! let mut registry = Registry::empty();
//! registry.register(
//!     DynamicTool::new("send_email", "Sends an email.", json!({
//!         "type": "object",
//!         "properties": {"to": {"type": "string"}, "from": {"type": "string"}},
//!         "required": ["to", "from"],
//!     }))
//!     .handler(|input, _| async move { Ok(ToolOutput::new(input)) }),
//! ).unwrap();
//! let registry = Transforms::new()
//!     .hide("send_email", "from", json!("ops@example.com"))
//!     .rename("send_email", "send_mail")
//!     .apply(registry)
//!     .unwrap();
//! let tool = registry.get("send_mail").unwrap();
//! assert_eq!(tool.input_schema()["required"], json!(["to"])); // the model never sees `from`
//! let out = Executor::new(registry)
//!     .call("send_mail", json!({"to": "ada@example.com"}), &ToolContext::new())
//!     .await
//!     .unwrap();
//! assert_eq!(out.data().unwrap()["from"], "ops@example.com");
//! # });
//! ```

use std::fmt;
use std::sync::Arc;

use serde_json::Value;

use crate::context::ToolContext;
use crate::error::ToolError;
pub use crate::registry::{ArgFromContext, ArgValue, HiddenArg};
use crate::registry::{Registry, RegistryError, Tool, nearest};

/// Which tools a transform step reaches.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ToolFilter {
    /// The tool of this name.
    Name(String),
    /// The tools of this domain.
    Domain(String),
    /// Tools that change nothing (`readOnlyHint`).
    ReadOnly,
    /// Tools that are not read-only.
    Write,
    /// Destructive tools (`destructiveHint`, and not read-only).
    Destructive,
    /// Tools that reach an open world (`openWorldHint`).
    OpenWorld,
    /// Any of these.
    Any(Vec<ToolFilter>),
}

impl ToolFilter {
    /// Whether `tool` is one of those the filter names.
    /// Annotations are read as the application trusts them
    /// ([`Tool::trusted_annotations`]): `read_only` keeps a remote tool only when the
    /// application vouched for its claim.
    pub fn matches(&self, tool: &Tool) -> bool {
        let a = tool.trusted_annotations();
        match self {
            Self::Name(name) => tool.name() == name,
            Self::Domain(domain) => tool.domain().name == *domain,
            Self::ReadOnly => a.read_only,
            Self::Write => !a.read_only,
            Self::Destructive => a.destructive && !a.read_only,
            Self::OpenWorld => a.open_world,
            Self::Any(filters) => filters.iter().any(|f| f.matches(tool)),
        }
    }
}

impl fmt::Display for ToolFilter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Name(name) => f.write_str(name),
            Self::Domain(domain) => write!(f, "domain:{domain}"),
            Self::ReadOnly => f.write_str("read_only"),
            Self::Write => f.write_str("write"),
            Self::Destructive => f.write_str("destructive"),
            Self::OpenWorld => f.write_str("open_world"),
            Self::Any(filters) => {
                let words: Vec<String> = filters.iter().map(ToString::to_string).collect();
                f.write_str(&words.join(","))
            }
        }
    }
}

/// A filter word that is not one.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "`{0}` is not a tool filter: give a tool's name, domain:NAME, read_only, write, destructive \
     or open_world (several with commas)"
)]
pub struct FilterError(pub String);

impl std::str::FromStr for ToolFilter {
    type Err = FilterError;

    /// `read_only`, `write`, `destructive`, `open_world`, `domain:NAME` or a tool's name;
    /// several, separated by commas, for any of them.
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let one = |word: &str| match word {
            "read_only" | "read-only" => Ok(Self::ReadOnly),
            "write" => Ok(Self::Write),
            "destructive" => Ok(Self::Destructive),
            "open_world" | "open-world" => Ok(Self::OpenWorld),
            _ => match word.strip_prefix("domain:") {
                Some(domain) if crate::definition::is_domain_name(domain) => {
                    Ok(Self::Domain(domain.to_owned()))
                }
                Some(_) => Err(FilterError(word.to_owned())),
                None if crate::definition::is_tool_name(word) => Ok(Self::Name(word.to_owned())),
                None => Err(FilterError(word.to_owned())),
            },
        };
        let mut filters: Vec<Self> = text
            .split(',')
            .map(str::trim)
            .filter(|w| !w.is_empty())
            .map(one)
            .collect::<Result<_, _>>()?;
        match filters.len() {
            0 => Err(FilterError(text.to_owned())),
            1 => Ok(filters.remove(0)),
            _ => Ok(Self::Any(filters)),
        }
    }
}

/// Why a transform could not be applied. Nothing is changed when one is returned.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TransformError {
    /// A step names a tool the registry (as the steps before left it) does not have.
    #[error("{step}: no tool is named `{name}`{}", did_you_mean(.suggestions))]
    UnknownTool {
        /// The step, as written (`rename send_email`).
        step: String,
        /// The name given.
        name: String,
        /// Up to three near names.
        suggestions: Vec<String>,
    },
    /// A step names an argument the tool's schema does not have.
    #[error("{step}: `{tool}` has no argument `{arg}`; its arguments are {}", listed(.arguments))]
    UnknownArgument {
        /// The step, as written.
        step: String,
        /// The tool.
        tool: String,
        /// The argument given.
        arg: String,
        /// The tool's arguments.
        arguments: Vec<String>,
    },
    /// A filter matches no tool: most often a typo.
    #[error("{step}: `{filter}` matches no tool")]
    NoMatch {
        /// The step, as written.
        step: String,
        /// The filter.
        filter: ToolFilter,
    },
    /// A new name is not a valid tool name.
    #[error("{step}: {problem}")]
    BadName {
        /// The step, as written.
        step: String,
        /// What is wrong with the name.
        problem: String,
    },
    /// Two tools end up with one name.
    #[error(transparent)]
    Registry(#[from] RegistryError),
}

fn did_you_mean(suggestions: &[String]) -> String {
    match suggestions {
        [] => String::new(),
        _ => format!(
            "; did you mean {}?",
            suggestions
                .iter()
                .map(|s| format!("`{s}`"))
                .collect::<Vec<_>>()
                .join(" or ")
        ),
    }
}

fn listed(arguments: &[String]) -> String {
    match arguments {
        [] => "none".to_owned(),
        _ => arguments
            .iter()
            .map(|a| format!("`{a}`"))
            .collect::<Vec<_>>()
            .join(", "),
    }
}

#[derive(Clone)]
enum Step {
    Keep(ToolFilter),
    Remove(ToolFilter),
    Rename {
        from: String,
        to: String,
    },
    Prefix {
        filter: ToolFilter,
        prefix: String,
    },
    Hide {
        tool: String,
        arg: String,
        value: ArgValue,
    },
}

impl fmt::Display for Step {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Keep(filter) => write!(f, "keep {filter}"),
            Self::Remove(filter) => write!(f, "remove {filter}"),
            Self::Rename { from, to } => write!(f, "rename {from} to {to}"),
            Self::Prefix { filter, prefix } => write!(f, "prefix {filter} with {prefix}"),
            Self::Hide { tool, arg, .. } => write!(f, "hide {tool}.{arg}"),
        }
    }
}

/// Steps that reshape a registry, applied in the order given, each to what the steps before
/// left.
#[derive(Clone, Default)]
#[must_use = "a transform does nothing until it is applied"]
pub struct Transforms {
    steps: Vec<Step>,
}

impl fmt::Debug for Transforms {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list()
            .entries(self.steps.iter().map(ToString::to_string))
            .finish()
    }
}

impl Transforms {
    /// No step.
    pub fn new() -> Self {
        Self::default()
    }

    /// These steps, then `more`'s.
    pub fn then(mut self, more: Transforms) -> Self {
        self.steps.extend(more.steps);
        self
    }

    /// Whether there is no step.
    pub fn is_empty(&self) -> bool {
        self.steps.is_empty()
    }

    /// Keeps only the tools `filter` matches.
    pub fn keep(mut self, filter: ToolFilter) -> Self {
        self.steps.push(Step::Keep(filter));
        self
    }

    /// Removes the tools `filter` matches.
    pub fn remove(mut self, filter: ToolFilter) -> Self {
        self.steps.push(Step::Remove(filter));
        self
    }

    /// Gives the tool `from` the name `to`.
    pub fn rename(mut self, from: impl Into<String>, to: impl Into<String>) -> Self {
        self.steps.push(Step::Rename {
            from: from.into(),
            to: to.into(),
        });
        self
    }

    /// Puts `prefix` before the name of every tool `filter` matches (`gh_` makes `get_issue`
    /// `gh_get_issue`).
    pub fn prefix(mut self, filter: ToolFilter, prefix: impl Into<String>) -> Self {
        self.steps.push(Step::Prefix {
            filter,
            prefix: prefix.into(),
        });
        self
    }

    /// Takes `arg` out of `tool`'s schema; every call gets `value` for it.
    pub fn hide(mut self, tool: impl Into<String>, arg: impl Into<String>, value: Value) -> Self {
        self.steps.push(Step::Hide {
            tool: tool.into(),
            arg: arg.into(),
            value: ArgValue::Fixed(value),
        });
        self
    }

    /// Takes `arg` out of `tool`'s schema; every call gets what `from` reads from its context
    /// (a header, the principal, an extension). An error from `from` ends the call unrun.
    pub fn hide_from_context(
        mut self,
        tool: impl Into<String>,
        arg: impl Into<String>,
        from: impl Fn(&ToolContext) -> Result<Value, ToolError> + Send + Sync + 'static,
    ) -> Self {
        self.steps.push(Step::Hide {
            tool: tool.into(),
            arg: arg.into(),
            value: ArgValue::Context(Arc::new(from)),
        });
        self
    }

    /// The registry reshaped by every step, or the first step that cannot be applied.
    pub fn apply(&self, registry: Registry) -> Result<Registry, TransformError> {
        if self.steps.is_empty() {
            return Ok(registry);
        }
        let mut tools: Vec<Tool> = registry.tools().to_vec();
        for step in &self.steps {
            tools = apply_step(step, tools)?;
        }
        Ok(registry.with_tools(tools)?)
    }
}

fn apply_step(step: &Step, mut tools: Vec<Tool>) -> Result<Vec<Tool>, TransformError> {
    let no_match = |filter: &ToolFilter| TransformError::NoMatch {
        step: step.to_string(),
        filter: filter.clone(),
    };
    match step {
        Step::Keep(filter) => {
            let before = tools.len();
            tools.retain(|t| filter.matches(t));
            if tools.is_empty() && before > 0 {
                return Err(no_match(filter));
            }
        }
        Step::Remove(filter) => {
            let before = tools.len();
            tools.retain(|t| !filter.matches(t));
            if tools.len() == before {
                return Err(no_match(filter));
            }
        }
        Step::Rename { from, to } => {
            good_name(step, to)?;
            let at = find(step, &tools, from)?;
            tools[at] = tools[at].renamed(to.clone());
        }
        Step::Prefix { filter, prefix } => {
            let mut any = false;
            for tool in tools.iter_mut().filter(|t| filter.matches(t)) {
                let name = format!("{prefix}{}", tool.name());
                good_name(step, &name)?;
                *tool = tool.renamed(name);
                any = true;
            }
            if !any {
                return Err(no_match(filter));
            }
        }
        Step::Hide { tool, arg, value } => {
            let at = find(step, &tools, tool)?;
            let hidden = tools[at].hiding(arg, value.clone()).ok_or_else(|| {
                let arguments = tools[at]
                    .input_schema()
                    .get("properties")
                    .and_then(Value::as_object)
                    .map(|p| p.keys().cloned().collect())
                    .unwrap_or_default();
                TransformError::UnknownArgument {
                    step: step.to_string(),
                    tool: tool.clone(),
                    arg: arg.clone(),
                    arguments,
                }
            })?;
            tools[at] = hidden;
        }
    }
    Ok(tools)
}

/// A name chosen in a rename or prefix: it may be one word, as with `#[tool(name = "...")]`.
fn good_name(step: &Step, name: &str) -> Result<(), TransformError> {
    tool_grammar::tool_name_form_problem(name).map_err(|problem| TransformError::BadName {
        step: step.to_string(),
        problem,
    })
}

fn find(step: &Step, tools: &[Tool], name: &str) -> Result<usize, TransformError> {
    tools
        .iter()
        .position(|t| t.name() == name)
        .ok_or_else(|| TransformError::UnknownTool {
            step: step.to_string(),
            name: name.to_owned(),
            suggestions: nearest(name, tools.iter())
                .into_iter()
                .map(str::to_owned)
                .collect(),
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::registry::DynamicTool;
    use serde_json::json;

    fn registry() -> Registry {
        let mut r = Registry::empty();
        let schema = json!({
            "type": "object",
            "properties": {"owner": {"type": "string"}, "number": {"type": "integer"}},
            "required": ["owner", "number"],
        });
        r.register(DynamicTool::new("get_issue", "Gets an issue.", schema.clone()).vouched(true))
            .unwrap();
        r.register(
            DynamicTool::new("close_issue", "Closes an issue.", schema)
                .annotations(crate::definition::Annotations {
                    read_only: false,
                    destructive: true,
                    idempotent: true,
                    open_world: false,
                })
                .vouched(true),
        )
        .unwrap();
        r
    }

    fn names(r: &Registry) -> Vec<&str> {
        r.tools().iter().map(Tool::name).collect()
    }

    #[test]
    fn steps_apply_in_order_to_what_the_last_left() {
        let r = Transforms::new()
            .prefix(ToolFilter::Domain("dynamic".into()), "gh_")
            .rename("gh_get_issue", "read_issue")
            .remove(ToolFilter::Destructive)
            .apply(registry())
            .unwrap();
        assert_eq!(names(&r), ["read_issue"]);
        assert!(r.get("read_issue").unwrap().hidden_args().is_empty());
    }

    /// A filter goes by what the application trusts: a tool that only claims to read is
    /// one that writes until the application vouches for it.
    #[test]
    fn filters_read_claims_as_the_application_trusts_them() {
        let mut r = registry();
        let claims = DynamicTool::new("list_issues", "Lists issues.", json!({"type": "object"}))
            .annotations(crate::definition::Annotations::READ_ONLY);
        r.register(claims).unwrap();
        let kept = Transforms::new()
            .keep(ToolFilter::ReadOnly)
            .apply(r)
            .unwrap();
        assert_eq!(names(&kept), ["get_issue"]);
    }

    #[test]
    fn a_hidden_argument_leaves_the_schema_and_required() {
        let r = Transforms::new()
            .hide("get_issue", "owner", json!("acme"))
            .apply(registry())
            .unwrap();
        let tool = r.get("get_issue").unwrap();
        assert_eq!(tool.input_schema()["required"], json!(["number"]));
        assert!(tool.input_schema()["properties"].get("owner").is_none());
        assert_eq!(tool.hidden_args()[0].name, "owner");
        let mut input = json!({"number": 7, "owner": "evil"});
        tool.fill_hidden(&mut input, &ToolContext::new()).unwrap();
        assert_eq!(input, json!({"number": 7, "owner": "acme"}));
    }

    #[test]
    fn mistakes_name_the_step_and_what_is_near() {
        let err = Transforms::new()
            .rename("get_isue", "read_issue")
            .apply(registry())
            .unwrap_err();
        assert_eq!(
            err.to_string(),
            "rename get_isue to read_issue: no tool is named `get_isue`; did you mean `get_issue`?"
        );
        let err = Transforms::new()
            .hide("get_issue", "repo", json!("x"))
            .apply(registry())
            .unwrap_err();
        assert_eq!(
            err.to_string(),
            "hide get_issue.repo: `get_issue` has no argument `repo`; its arguments are `owner`, `number`"
        );
        let err = Transforms::new()
            .rename("get_issue", "Issue")
            .apply(registry())
            .unwrap_err();
        assert!(matches!(err, TransformError::BadName { .. }), "{err}");
        // A name chosen by hand may be one word, as `#[tool(name = "...")]`'s may.
        let renamed = Transforms::new()
            .rename("get_issue", "issue")
            .apply(registry())
            .unwrap();
        assert!(renamed.get("issue").is_some());
        let err = Transforms::new()
            .keep(ToolFilter::Domain("git".into()))
            .apply(registry())
            .unwrap_err();
        assert_eq!(
            err.to_string(),
            "keep domain:git: `domain:git` matches no tool"
        );
        let err = Transforms::new()
            .rename("get_issue", "close_issue")
            .apply(registry())
            .unwrap_err();
        assert!(matches!(err, TransformError::Registry(_)), "{err}");
    }

    #[test]
    fn filters_parse_from_words() {
        assert_eq!("write".parse::<ToolFilter>().unwrap(), ToolFilter::Write);
        assert_eq!(
            "domain:git, get_issue".parse::<ToolFilter>().unwrap(),
            ToolFilter::Any(vec![
                ToolFilter::Domain("git".into()),
                ToolFilter::Name("get_issue".into())
            ])
        );
        assert!("Nope".parse::<ToolFilter>().is_err());
        assert!("".parse::<ToolFilter>().is_err());
    }
}
