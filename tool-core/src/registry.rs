//! The set of tools a binary offers: every `#[tool]` linked into it, plus tools registered at run
//! time. Built once; schemas are computed and normalised when a tool enters the registry, so
//! listing and rendering only hand out shared references.

pub mod defs;
pub mod parallel;
pub mod transform;

use std::borrow::Cow;
use std::collections::HashMap;
use std::fmt;
use std::future::Future;
use std::ops::Deref;
use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;

use crate::call::{self, CallFuture, CallResult};
use crate::context::{Principal, ToolContext};
pub use crate::definition::Origin;
use crate::definition::schema;
use crate::definition::{Annotations, TaskSupport, ToolView, Visibility};
use crate::error::ToolError;
use crate::linked::{ToolDef, ViewDef};
use crate::prompt::Prompt;
use crate::resource::{Resource, ResourceRequest};

/// A domain as a registry knows it (linked domains and those of dynamic tools alike).
#[derive(Debug, Clone, PartialEq, Eq, Hash, serde::Serialize)]
#[non_exhaustive]
pub struct DomainInfo {
    /// snake_case name.
    pub name: Cow<'static, str>,
    /// One-line description.
    pub description: Cow<'static, str>,
}

/// A sample input of a tool, parsed.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[non_exhaustive]
pub struct ToolExample {
    /// What the example shows.
    pub label: Cow<'static, str>,
    /// The input object.
    pub input: Value,
}

/// An icon a client can show for a tool: MCP's `Icon` object, as a registry holds it (from
/// `#[tool(icon(..))]`, [`DynamicTool::icon`], a definitions file's `"icons"`, or a mounted
/// server's listing).
///
/// It is kept as given: [`check`](crate::definition::check) holds it to [the icon
/// rule](crate::definition::icon_problems) (rules `icons.*`), and MCP renderings carry only
/// the icons that meet it ([`is_valid`](Self::is_valid)).
///
/// ```
/// use tool_core::registry::ToolIcon;
/// let icon = ToolIcon::new("https://example.com/weather-dark.svg")
///     .mime_type("image/svg+xml")
///     .sizes(["any"])
///     .theme("dark");
/// assert!(icon.is_valid());
/// assert_eq!(icon.sizes, ["any"]);
/// assert!(!ToolIcon::new("weather.png").is_valid()); // not a URL
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash, serde::Serialize)]
#[non_exhaustive]
pub struct ToolIcon {
    /// An `https:` or `http:` URL, or a `data:` URI of base64 image data.
    pub src: Cow<'static, str>,
    /// The image's MIME type, when the source's own is missing or generic.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<Cow<'static, str>>,
    /// The sizes it can be shown at, each `WxH` (`48x48`) or `any`; empty for any size.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub sizes: Vec<Cow<'static, str>>,
    /// `light` (drawn for a light background) or `dark`; `None` for any theme.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub theme: Option<Cow<'static, str>>,
}

/// A tool's declaration that its calls need a person's yes ([`Tool::approval`]).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[non_exhaustive]
pub struct ToolApproval {
    /// What the person reads, `{name}` standing for the argument `name`; `None` for the
    /// default message (the tool's label and its arguments).
    pub message: Option<Cow<'static, str>>,
}

impl ToolApproval {
    /// Approval with the default message.
    pub fn new() -> Self {
        Self::default()
    }

    /// Approval with `message`, a template whose `{name}` placeholders are the arguments.
    pub fn with_message(message: impl Into<Cow<'static, str>>) -> Self {
        Self {
            message: Some(message.into()),
        }
    }

    /// The message template, if the tool has one.
    pub fn message(&self) -> Option<&str> {
        self.message.as_deref()
    }
}

impl ToolIcon {
    /// An icon at `src`, for any size and theme.
    pub fn new(src: impl Into<Cow<'static, str>>) -> Self {
        Self {
            src: src.into(),
            mime_type: None,
            sizes: Vec::new(),
            theme: None,
        }
    }

    /// Sets the MIME type (`image/png`).
    pub fn mime_type(mut self, mime_type: impl Into<Cow<'static, str>>) -> Self {
        self.mime_type = Some(mime_type.into());
        self
    }

    /// Adds sizes it can be shown at (`48x48`, or `any`).
    pub fn sizes<S: Into<Cow<'static, str>>>(mut self, sizes: impl IntoIterator<Item = S>) -> Self {
        self.sizes.extend(sizes.into_iter().map(Into::into));
        self
    }

    /// Sets the theme: `light` or `dark`.
    pub fn theme(mut self, theme: impl Into<Cow<'static, str>>) -> Self {
        self.theme = Some(theme.into());
        self
    }

    /// Every way the icon breaks [the icon rule](crate::definition::icon_problems), in the
    /// order of its parts; empty when it meets it.
    ///
    /// ```
    /// use tool_core::registry::ToolIcon;
    /// use tool_core::definition::IconPart;
    /// let icon = ToolIcon::new("https://example.com/a.png").sizes(["48x48", "big"]).theme("blue");
    /// let parts: Vec<IconPart> = icon.problems().iter().map(|p| p.part()).collect();
    /// assert_eq!(parts, [IconPart::Size(1), IconPart::Theme]);
    /// ```
    pub fn problems(&self) -> Vec<crate::definition::IconProblem> {
        // No list of sizes is "any size": an empty one is not a list given.
        let sizes = (!self.sizes.is_empty()).then_some(self.sizes.as_slice());
        crate::definition::icon_problems(
            &self.src,
            self.mime_type.as_deref(),
            sizes,
            self.theme.as_deref(),
        )
    }

    /// Whether the icon meets the icon rule (has no [`problems`](Self::problems)): the icons
    /// MCP renderings carry.
    pub fn is_valid(&self) -> bool {
        self.problems().is_empty()
    }

    fn from_def(icon: &crate::definition::Icon) -> Self {
        Self {
            src: Cow::Borrowed(icon.src),
            mime_type: icon.mime_type.map(Cow::Borrowed),
            sizes: icon.sizes.iter().map(|s| Cow::Borrowed(*s)).collect(),
            theme: icon.theme.map(Cow::Borrowed),
        }
    }
}

type DynHandler = dyn Fn(Value, ToolContext) -> CallFuture + Send + Sync;

#[derive(Clone)]
enum Handler {
    Linked(crate::linked::HandlerFn),
    Dynamic(Arc<DynHandler>),
}

/// What the application's decisions take a tool's annotations to be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Trust {
    /// A claim: the tool counts as [`Annotations::UNTRUSTED`].
    Claimed,
    /// The tool's own: its code is linked, or the application vouched for it.
    Vouched,
    /// These, whatever clients are shown.
    As(Annotations),
}

/// One tool in a registry: its definition with the canonical schemas. Cloning is cheap.
#[derive(Clone)]
pub struct Tool {
    inner: Arc<ToolInner>,
}

#[derive(Clone)]
struct ToolInner {
    name: Cow<'static, str>,
    description: Cow<'static, str>,
    domain: DomainInfo,
    label: Cow<'static, str>,
    hint: Cow<'static, str>,
    core: bool,
    annotations: Annotations,
    voiced: bool,
    blocking: bool,
    task: TaskSupport,
    task_after: Option<Duration>,
    approval: Option<ToolApproval>,
    feeds_back: bool,
    mirror: bool,
    timeout: Option<Duration>,
    retries: u32,
    scopes: Vec<Cow<'static, str>>,
    source: Option<Cow<'static, str>>,
    view: Option<ToolView>,
    visibility: Visibility,
    icons: Vec<ToolIcon>,
    examples: Vec<ToolExample>,
    input_schema: Value,
    /// Whether an input can hold a `null` to drop before decoding (worked out once).
    drops_nulls: bool,
    output_schema: Option<Value>,
    /// The parameter the body of a tag call fills (the text tag protocol).
    body: Option<Cow<'static, str>>,
    handler: Handler,
    /// Whether the handler is async (a sync handler runs when its call starts).
    is_async: bool,
    origin: Origin,
    /// What the application's decisions take the annotations to be.
    trust: Trust,
    /// Arguments a transform took out of the schema, filled in on every call.
    hidden: Arc<[HiddenArg]>,
}

impl fmt::Debug for Tool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Tool")
            .field("name", &self.inner.name)
            .field("domain", &self.inner.domain.name)
            .field("origin", &self.inner.origin)
            .finish_non_exhaustive()
    }
}

impl Tool {
    fn from_def(def: &'static ToolDef) -> Result<Self, RegistryError> {
        let origin = Origin::Linked(def.location);
        let invalid = |reason: String| RegistryError::InvalidDefinition {
            name: def.name.to_owned(),
            origin: origin.clone(),
            reason,
        };
        let input_schema =
            schema::canonical_input((def.input_schema)()).map_err(|e| invalid(e.to_string()))?;
        let output_schema = (def.output_schema)().map(schema::canonical_output);
        let examples = def
            .examples
            .iter()
            .map(|ex| {
                serde_json::from_str(ex.input)
                    .map(|input| ToolExample {
                        label: Cow::Borrowed(ex.label),
                        input,
                    })
                    .map_err(|e| invalid(format!("example `{}` is not valid JSON: {e}", ex.label)))
            })
            .collect::<Result<_, _>>()?;
        Ok(Self {
            inner: Arc::new(ToolInner {
                name: Cow::Borrowed(def.name),
                description: if def.raw_description {
                    Cow::Owned(tool_grammar::description([def.description]).unwrap_or_default())
                } else {
                    Cow::Borrowed(def.description)
                },
                domain: DomainInfo {
                    name: Cow::Borrowed(def.domain.name),
                    description: Cow::Borrowed(def.domain.description),
                },
                label: Cow::Borrowed(def.label),
                hint: Cow::Borrowed(def.hint),
                core: def.core,
                annotations: def.annotations,
                voiced: def.voiced,
                blocking: def.blocking,
                task: def.task,
                task_after: def.task_after,
                approval: def.approval.map(|a| ToolApproval {
                    message: a.message.map(Cow::Borrowed),
                }),
                feeds_back: def.feeds_back,
                mirror: def.mirror,
                timeout: def.timeout,
                retries: def.retries,
                scopes: def.scopes.iter().map(|s| Cow::Borrowed(*s)).collect(),
                source: def.source.map(Cow::Borrowed),
                view: match def.view {
                    ViewDef::None => None,
                    ViewDef::Html(html) => Some(ToolView::Html(Cow::Borrowed(html))),
                    ViewDef::Card => Some(ToolView::Card),
                },
                visibility: def.visibility,
                icons: def.icons.iter().map(ToolIcon::from_def).collect(),
                examples,
                drops_nulls: schema::may_drop_nulls(&input_schema),
                input_schema,
                output_schema,
                body: def.body.map(Cow::Borrowed),
                handler: Handler::Linked(def.handler.open()),
                is_async: def.is_async,
                origin,
                trust: Trust::Vouched,
                hidden: Arc::new([]),
            }),
        })
    }

    /// The parameter the text between a tag call's tags fills, when the tool declares one
    /// ([`DynamicTool::body`]).
    pub fn body_param(&self) -> Option<&str> {
        self.inner.body.as_deref()
    }

    /// Whether `other` is this very tool (the same registration), not just one of the same name.
    pub fn same(&self, other: &Tool) -> bool {
        Arc::ptr_eq(&self.inner, &other.inner)
    }

    /// The unique name.
    pub fn name(&self) -> &str {
        &self.inner.name
    }
    /// The name as held, for adapters that keep it without copying it: borrowed for the life
    /// of the program when the tool is linked, so cloning the `Cow` allocates nothing.
    #[inline]
    pub fn name_cow(&self) -> Cow<'static, str> {
        self.inner.name.clone()
    }
    /// The description as held (see [`name_cow`](Self::name_cow)).
    #[inline]
    pub fn description_cow(&self) -> Cow<'static, str> {
        self.inner.description.clone()
    }
    /// For the model: what the tool returns and when to use it.
    pub fn description(&self) -> &str {
        &self.inner.description
    }
    /// The domain.
    pub fn domain(&self) -> &DomainInfo {
        &self.inner.domain
    }
    /// UI text while the tool runs.
    pub fn label(&self) -> &str {
        &self.inner.label
    }
    /// One catalog sentence.
    pub fn hint(&self) -> &str {
        &self.inner.hint
    }
    /// Offered on every round (otherwise deferred).
    pub fn is_core(&self) -> bool {
        self.inner.core
    }
    /// Behaviour hints.
    pub fn annotations(&self) -> Annotations {
        self.inner.annotations
    }
    /// Whether a voice UI speaks the label.
    pub fn voiced(&self) -> bool {
        self.inner.voiced
    }

    /// Whether it is a sync function marked `blocking`: the executor runs it on the blocking
    /// pool instead of the async workers.
    pub fn is_blocking(&self) -> bool {
        self.inner.blocking
    }
    /// Whether the tool may run long (`#[tool(task)]`): over MCP, a call from a client that
    /// declared the tasks extension (`io.modelcontextprotocol/tasks`, protocol 2026-07-28) may
    /// be answered with a task the client polls, instead of the result. For every other caller
    /// it is a normal call. The MCP listing says so in `_meta."tool-core/task"`. See
    /// [`task_support`](Self::task_support) for whether it must be.
    pub fn task(&self) -> bool {
        self.inner.task.allows_task()
    }

    /// Whether a call may, or must, be answered with a task over MCP (`#[tool(task)]`,
    /// `#[tool(task = "required")]`).
    pub fn task_support(&self) -> TaskSupport {
        self.inner.task
    }

    /// How long a call runs before it becomes a task (`#[tool(task_after = "0s")]`,
    /// [`DynamicTool::task_after`]); `None`: the server's threshold.
    pub fn task_after(&self) -> Option<Duration> {
        self.inner.task_after
    }
    /// Whether a call needs a person's yes before it runs, by the tool's own declaration
    /// (`#[tool(approval)]`, [`DynamicTool::approval`]); the executor's
    /// [`ApprovalPolicy`](crate::exec::ApprovalPolicy) may require it of other tools too. The
    /// MCP listing says so in `_meta."tool-core/approval"`.
    pub fn approval(&self) -> Option<&ToolApproval> {
        self.inner.approval.as_ref()
    }
    /// Whether the result goes back to the model.
    pub fn feeds_back(&self) -> bool {
        self.inner.feeds_back
    }
    /// Whether an MCP result carries the text mirror of its structured content (the echo) as
    /// well as `structuredContent` (the default). When it is off, the result of a tool with an
    /// output schema carries the structured content alone, in half the tokens for a client
    /// that reads it; a tool without an output schema keeps its text, since a client would
    /// have nothing else to read (and [`check`](crate::definition::check) reports `mirror.output_schema`).
    /// Only MCP results change: other adapters still give the model the echo.
    pub fn mirror(&self) -> bool {
        self.inner.mirror
    }
    /// Per-tool time limit.
    pub fn timeout(&self) -> Option<Duration> {
        self.inner.timeout
    }
    /// Attempts after the first for transient errors.
    pub fn retries(&self) -> u32 {
        self.inner.retries
    }
    /// OAuth scopes a caller must hold to see and call the tool, beyond the server's own, in
    /// the order declared, each once.
    ///
    /// They bind only callers a server authenticated: the [`Executor`](crate::exec::Executor)
    /// refuses a call whose context carries a [`Principal`] without every one of them, and a
    /// call with no principal (stdio, a static token: a transport that authenticates no one
    /// grants everything) is not held to them. See [`permits`](Self::permits).
    pub fn scopes(&self) -> &[Cow<'static, str>] {
        &self.inner.scopes
    }

    /// Whether `principal` may see and call the tool: always when there is no principal (the
    /// transport authenticated no one, so there is no grant to hold it to), otherwise when it
    /// was granted every scope the tool needs. Servers filter `tools/list` with it; the
    /// executor refuses calls by the same rule.
    ///
    /// ```
    /// use tool_core::{registry::DynamicTool, Registry, context::Principal};
    /// let mut registry = Registry::empty();
    /// registry.register(
    ///     DynamicTool::new("close_issue", "Closes an issue.", serde_json::json!({"type": "object"}))
    ///         .scopes(["issues:write"]),
    /// ).unwrap();
    /// let tool = registry.get("close_issue").unwrap();
    /// let reader = Principal::new("ada").with_scopes(["issues:read"]);
    /// let writer = Principal::new("bob").with_scopes(["issues:read", "issues:write"]);
    /// assert!(!tool.permits(Some(&reader)));
    /// assert_eq!(tool.missing_scopes(&reader), ["issues:write"]);
    /// assert!(tool.permits(Some(&writer)));
    /// assert!(tool.permits(None)); // stdio: nobody was authenticated
    /// ```
    #[inline]
    pub fn permits(&self, principal: Option<&Principal>) -> bool {
        match principal {
            None => true,
            Some(p) => self.inner.scopes.iter().all(|s| p.has_scope(s)),
        }
    }

    /// The scopes the tool needs that `principal` was not granted, in the tool's order: what a
    /// server names in an `insufficient_scope` answer. Empty when it holds them all.
    pub fn missing_scopes(&self, principal: &Principal) -> Vec<&str> {
        principal.missing_scopes(&self.inner.scopes)
    }
    /// "View in app" link.
    pub fn source(&self) -> Option<&str> {
        self.inner.source.as_deref()
    }
    /// What a host that renders MCP Apps shows for the tool's calls, if the tool has a view of
    /// its own (`#[tool(view = "...")]`, `#[tool(card)]`, [`DynamicTool::view`]).
    pub fn view(&self) -> Option<&ToolView> {
        self.inner.view.as_ref()
    }
    /// Who the tool is offered to: the model, views, or both (`#[tool(visibility = "...")]`).
    pub fn visibility(&self) -> Visibility {
        self.inner.visibility
    }
    /// Whether the model is offered the tool: not one for views only
    /// ([`Visibility::App`]), which provider exports and the catalog leave out.
    pub fn to_model(&self) -> bool {
        self.inner.visibility.to_model()
    }
    /// Icons a client can show for the tool, in the order given, as given (see [`ToolIcon`]).
    pub fn icons(&self) -> &[ToolIcon] {
        &self.inner.icons
    }
    /// Sample inputs.
    pub fn examples(&self) -> &[ToolExample] {
        &self.inner.examples
    }
    /// The canonical input schema (JSON Schema 2020-12; the root is an object).
    pub fn input_schema(&self) -> &Value {
        &self.inner.input_schema
    }
    /// The canonical output schema, when the output type has one.
    pub fn output_schema(&self) -> Option<&Value> {
        self.inner.output_schema.as_ref()
    }
    /// Whether the handler is an `async fn` (a sync one may block, and runs on the blocking
    /// pool under an [`Executor`](crate::exec::Executor)).
    pub fn is_async(&self) -> bool {
        self.inner.is_async
    }

    /// Where the tool was defined.
    pub fn origin(&self) -> &Origin {
        &self.inner.origin
    }

    /// Whether the application vouches for the tool's annotations: every `#[tool]`, and a
    /// tool made at run time that it [vouched for](DynamicTool::vouched).
    pub fn vouched(&self) -> bool {
        !matches!(self.inner.trust, Trust::Claimed)
    }

    /// The annotations the application's decisions rest on (who is asked to approve a call,
    /// what is audited, what is retried, what a filter keeps): the tool's own when the
    /// application [vouches](Self::vouched) for them, else [`Annotations::UNTRUSTED`], what
    /// MCP assumes of a tool that says nothing. Clients are still shown
    /// [`annotations`](Self::annotations), what the tool says of itself.
    #[inline]
    pub fn trusted_annotations(&self) -> Annotations {
        match self.inner.trust {
            Trust::Vouched => self.inner.annotations,
            Trust::Claimed => Annotations::UNTRUSTED,
            Trust::As(annotations) => annotations,
        }
    }

    /// The arguments a [transform] hid from the model, in the order hidden:
    /// the executor fills each in before anything else sees the call.
    pub fn hidden_args(&self) -> &[HiddenArg] {
        &self.inner.hidden
    }

    /// Fills in the hidden arguments (a model's own value for one is replaced: it could not
    /// see the argument, so it has no say in it).
    pub(crate) fn fill_hidden(
        &self,
        input: &mut Value,
        ctx: &ToolContext,
    ) -> Result<(), ToolError> {
        if input.is_null() {
            *input = Value::Object(serde_json::Map::new());
        }
        let Value::Object(fields) = input else {
            // Left for the tool's own decoding to refuse, with its usual message.
            return Ok(());
        };
        for arg in self.inner.hidden.iter() {
            let value = match &arg.value {
                ArgValue::Fixed(value) => value.clone(),
                ArgValue::Context(from) => from(ctx)?,
            };
            fields.insert(arg.name.to_string(), value);
        }
        Ok(())
    }

    /// This tool under another name (a transform's rename): the same handler, schemas and
    /// everything else.
    pub(crate) fn renamed(&self, name: String) -> Tool {
        let mut inner = (*self.inner).clone();
        inner.name = Cow::Owned(name);
        Tool {
            inner: Arc::new(inner),
        }
    }

    /// This tool with `arg` taken out of its input schema and its examples, filled in on every
    /// call from `value`. `None` when the schema has no such property.
    pub(crate) fn hiding(&self, arg: &str, value: ArgValue) -> Option<Tool> {
        let mut inner = (*self.inner).clone();
        let schema = &mut inner.input_schema;
        schema.get_mut("properties")?.as_object_mut()?.remove(arg)?;
        if let Some(Value::Array(required)) = schema.get_mut("required") {
            required.retain(|name| name != arg);
            if required.is_empty() {
                schema.as_object_mut()?.remove("required");
            }
        }
        inner.drops_nulls = schema::may_drop_nulls(&inner.input_schema);
        for example in &mut inner.examples {
            if let Value::Object(fields) = &mut example.input {
                fields.remove(arg);
            }
        }
        if inner.body.as_deref() == Some(arg) {
            inner.body = None;
        }
        let mut hidden = inner.hidden.to_vec();
        hidden.push(HiddenArg {
            name: Cow::Owned(arg.to_owned()),
            value,
        });
        inner.hidden = hidden.into();
        Some(Tool {
            inner: Arc::new(inner),
        })
    }

    /// Whether the tool was written with `#[tool]`: its handler decodes the input, and checks it
    /// alone in a context that only validates.
    pub(crate) fn has_linked_handler(&self) -> bool {
        matches!(self.inner.handler, Handler::Linked(_))
    }

    /// Starts a call with an already parsed input, bare: no scopes, layers, approval, limits or
    /// audit. Only the executor's pipeline (and, hidden, the benchmarks' floor) may run a tool
    /// this way. A sync tool runs here; an async tool runs as the returned future is polled.
    #[inline]
    pub(crate) fn call(&self, input: Value, ctx: &ToolContext) -> CallFuture {
        // The common case hands the input straight on: a binding that may be borrowed
        // mutably would cost a copy of the 80-byte value on every call.
        match &self.inner.handler {
            Handler::Linked(f) if !self.inner.drops_nulls => f(input, ctx),
            _ => self.call_general(input, ctx),
        }
    }

    /// Every other call: an input whose absent nulls are dropped first, or a dynamic handler.
    #[inline(never)]
    fn call_general(&self, mut input: Value, ctx: &ToolContext) -> CallFuture {
        if self.inner.drops_nulls {
            schema::drop_absent_nulls(&mut input, &self.inner.input_schema);
        }
        match &self.inner.handler {
            Handler::Linked(f) => f(input, ctx),
            Handler::Dynamic(f) => f(input, ctx.clone()),
        }
    }
}

/// An argument hidden from the model by a [transform]: its name and where
/// its value comes from.
#[derive(Clone)]
pub struct HiddenArg {
    /// The property's name in the tool's own schema.
    pub name: Cow<'static, str>,
    /// Its value on every call.
    pub value: ArgValue,
}

impl fmt::Debug for HiddenArg {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HiddenArg")
            .field("name", &self.name)
            .field("value", &self.value)
            .finish()
    }
}

/// A function that reads a hidden argument's value from the call's context.
pub type ArgFromContext = dyn Fn(&ToolContext) -> Result<Value, ToolError> + Send + Sync;

/// Where a hidden argument's value comes from.
#[derive(Clone)]
#[non_exhaustive]
pub enum ArgValue {
    /// The same value on every call.
    Fixed(Value),
    /// Read from the call's context (a header, the principal, an extension); an error ends the
    /// call before anything runs.
    Context(Arc<ArgFromContext>),
}

impl fmt::Debug for ArgValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Fixed(value) => f.debug_tuple("Fixed").field(value).finish(),
            Self::Context(_) => f.write_str("Context(..)"),
        }
    }
}

/// A tool defined at run time: from another MCP server, a definitions file, a plugin.
///
/// ```
/// use serde_json::json;
/// use tool_core::{registry::DynamicTool, Registry, ToolContext, ToolOutput};
/// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
/// let mut registry = Registry::empty();
/// registry.register(
///     DynamicTool::new("echo_text", "Returns its input text.", json!({
///         "type": "object", "properties": {"text": {"type": "string"}}
///     }))
///     .handler(|input, _ctx| async move { Ok(ToolOutput::new(input["text"].clone())) }),
/// ).unwrap();
/// let executor = tool_core::Executor::new(registry);
/// let out = executor.call("echo_text", json!({"text": "hi"}), &ToolContext::new()).await.unwrap();
/// assert_eq!(out.echo(), "hi");
/// # });
/// ```
pub struct DynamicTool {
    inner: ToolInner,
}

impl fmt::Debug for DynamicTool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DynamicTool")
            .field("name", &self.inner.name)
            .field("origin", &self.inner.origin)
            .finish_non_exhaustive()
    }
}

impl DynamicTool {
    /// A deferred, read-only tool in the `dynamic` domain. Without a [`handler`](Self::handler),
    /// calls fail with an error saying the tool is a definition only.
    pub fn new(
        name: impl Into<Cow<'static, str>>,
        description: impl Into<Cow<'static, str>>,
        input_schema: Value,
    ) -> Self {
        let name = name.into();
        let definition_only: Arc<DynHandler> = {
            let name = name.clone();
            Arc::new(move |_, _| {
                call::fail(ToolError::failed(format!(
                    "`{name}` is a definition only; nothing here can run it"
                )))
            })
        };
        Self {
            inner: ToolInner {
                label: name.clone(),
                name,
                description: description.into(),
                domain: DomainInfo {
                    name: Cow::Borrowed("dynamic"),
                    description: Cow::Borrowed("Tools registered at run time"),
                },
                hint: Cow::Borrowed(""),
                core: false,
                annotations: Annotations::default(),
                voiced: false,
                blocking: false,
                task: TaskSupport::Forbidden,
                task_after: None,
                approval: None,
                feeds_back: true,
                mirror: true,
                timeout: None,
                retries: 0,
                scopes: Vec::new(),
                source: None,
                view: None,
                visibility: Visibility::Both,
                icons: Vec::new(),
                examples: Vec::new(),
                drops_nulls: schema::may_drop_nulls(&input_schema),
                input_schema,
                output_schema: None,
                body: None,
                handler: Handler::Dynamic(definition_only),
                is_async: true,
                origin: Origin::Dynamic("the host program".to_owned()),
                trust: Trust::Claimed,
                hidden: Arc::new([]),
            },
        }
    }

    /// Runs calls with `f`.
    pub fn handler<F, Fut>(mut self, f: F) -> Self
    where
        F: Fn(Value, ToolContext) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = CallResult> + Send + 'static,
    {
        self.inner.handler =
            Handler::Dynamic(Arc::new(move |input, ctx| CallFuture::new(f(input, ctx))));
        self
    }

    /// Names the parameter that the body of a tag call fills (the text tag protocol), e.g. a
    /// file's `content`.
    pub fn body(mut self, param: impl Into<Cow<'static, str>>) -> Self {
        self.inner.body = Some(param.into());
        self
    }

    /// Sets the domain.
    pub fn domain(
        mut self,
        name: impl Into<Cow<'static, str>>,
        description: impl Into<Cow<'static, str>>,
    ) -> Self {
        self.inner.domain = DomainInfo {
            name: name.into(),
            description: description.into(),
        };
        self
    }

    /// Sets the UI label (default: the name).
    pub fn label(mut self, label: impl Into<Cow<'static, str>>) -> Self {
        self.inner.label = label.into();
        self
    }

    /// Sets the catalog hint.
    pub fn hint(mut self, hint: impl Into<Cow<'static, str>>) -> Self {
        self.inner.hint = hint.into();
        self
    }

    /// Whether the result goes back to the model (default true); a tool whose result only a
    /// UI shows does not start another round.
    pub fn feeds_back(mut self, feeds_back: bool) -> Self {
        self.inner.feeds_back = feeds_back;
        self
    }

    /// Whether MCP results carry the text mirror of the structured content (default true); see
    /// [`Tool::mirror`]. Turning it off is for a tool with an [output
    /// schema](Self::output_schema): without one, results keep their text.
    ///
    /// ```
    /// use serde_json::json;
    /// use tool_core::{registry::DynamicTool, Registry};
    /// let mut registry = Registry::empty();
    /// registry.register(
    ///     DynamicTool::new("get_stats", "Returns the counters.", json!({"type": "object"}))
    ///         .output_schema(json!({"type": "object"}))
    ///         .mirror(false),
    /// ).unwrap();
    /// assert!(!registry.get("get_stats").unwrap().mirror());
    /// ```
    pub fn mirror(mut self, mirror: bool) -> Self {
        self.inner.mirror = mirror;
        self
    }

    /// Whether the tool may run long, so that over MCP a client that declared the tasks
    /// extension may be answered with a task to poll (default false); see [`Tool::task`].
    ///
    /// ```
    /// use serde_json::json;
    /// use tool_core::{registry::DynamicTool, Registry};
    /// let mut registry = Registry::empty();
    /// registry.register(
    ///     DynamicTool::new("export_report", "Returns the report.", json!({"type": "object"}))
    ///         .task(true),
    /// ).unwrap();
    /// assert!(registry.get("export_report").unwrap().task());
    /// ```
    pub fn task(mut self, task: bool) -> Self {
        self.inner.task = if task {
            TaskSupport::Optional
        } else {
            TaskSupport::Forbidden
        };
        self
    }

    /// Whether a call may, or must, be answered with a task over MCP; see [`TaskSupport`].
    ///
    /// ```
    /// use serde_json::json;
    /// use tool_core::definition::TaskSupport;
    /// use tool_core::{registry::DynamicTool, Registry};
    /// let mut registry = Registry::empty();
    /// registry.register(
    ///     DynamicTool::new("train_model", "Trains the model.", json!({"type": "object"}))
    ///         .task_support(TaskSupport::Required),
    /// ).unwrap();
    /// let tool = registry.get("train_model").unwrap();
    /// assert_eq!(tool.task_support(), TaskSupport::Required);
    /// assert!(tool.task());
    /// ```
    pub fn task_support(mut self, support: TaskSupport) -> Self {
        self.inner.task = support;
        self
    }

    /// How long a call runs before it becomes a task, in place of the server's threshold
    /// ([`Tool::task_after`]); `Duration::ZERO`: a task at once. Only for a tool that may be
    /// one ([`task`](Self::task), [`task_support`](Self::task_support)).
    pub fn task_after(mut self, after: Duration) -> Self {
        self.inner.task_after = Some(after);
        self
    }

    /// Says that a call needs a person's yes before it runs, and what they are shown
    /// ([`Tool::approval`]). A message's placeholders are checked by [`check`](crate::definition::check)
    /// (rule `approval.message`).
    ///
    /// ```
    /// use serde_json::json;
    /// use tool_core::{registry::DynamicTool, Registry, registry::ToolApproval};
    /// let mut registry = Registry::empty();
    /// registry.register(
    ///     DynamicTool::new("delete_branch", "Deletes a branch.", json!({"type": "object"}))
    ///         .approval(ToolApproval::with_message("Delete the branch {branch}?")),
    /// ).unwrap();
    /// let tool = registry.get("delete_branch").unwrap();
    /// assert_eq!(tool.approval().unwrap().message(), Some("Delete the branch {branch}?"));
    /// ```
    pub fn approval(mut self, approval: ToolApproval) -> Self {
        self.inner.approval = Some(approval);
        self
    }

    /// Adds an icon a client can show for the tool (MCP's `icons`), after those added before.
    /// It is taken as given: [`check`](crate::definition::check) reports one that breaks the icon rule
    /// (rules `icons.*`), and MCP renderings leave such an icon out.
    ///
    /// ```
    /// use serde_json::json;
    /// use tool_core::{registry::DynamicTool, Registry, registry::ToolIcon};
    /// let mut registry = Registry::empty();
    /// registry.register(
    ///     DynamicTool::new("get_weather", "Returns the weather.", json!({"type": "object"}))
    ///         .icon(ToolIcon::new("https://example.com/sun.png").sizes(["48x48"]))
    ///         .icon(ToolIcon::new("https://example.com/sun-dark.png").theme("dark")),
    /// ).unwrap();
    /// let icons = registry.get("get_weather").unwrap().icons();
    /// assert_eq!(icons.len(), 2);
    /// assert_eq!(icons[1].theme.as_deref(), Some("dark"));
    /// ```
    pub fn icon(mut self, icon: ToolIcon) -> Self {
        self.inner.icons.push(icon);
        self
    }

    /// Gives the tool a view: what a host that renders MCP Apps shows for its calls.
    ///
    /// ```
    /// use serde_json::json;
    /// use tool_core::definition::{ToolView, Visibility};
    /// use tool_core::{registry::DynamicTool, Registry};
    /// let mut registry = Registry::empty();
    /// registry.register_all([
    ///     DynamicTool::new("get_weather", "Returns the weather.", json!({"type": "object"}))
    ///         .view(ToolView::Card),
    ///     // A button in the card calls this one; the model is never offered it.
    ///     DynamicTool::new("refresh_weather", "Refreshes the weather.", json!({"type": "object"}))
    ///         .visibility(Visibility::App),
    /// ]).unwrap();
    /// assert_eq!(registry.get("get_weather").unwrap().view(), Some(&ToolView::Card));
    /// assert!(!registry.get("refresh_weather").unwrap().to_model());
    /// ```
    pub fn view(mut self, view: ToolView) -> Self {
        self.inner.view = Some(view);
        self
    }

    /// Says who the tool is offered to: the model, views, or both (the default).
    pub fn visibility(mut self, visibility: Visibility) -> Self {
        self.inner.visibility = visibility;
        self
    }

    /// Offers the tool on every round.
    pub fn core(mut self, core: bool) -> Self {
        self.inner.core = core;
        self
    }

    /// Sets the behaviour hints. Clients are shown them as given; the application's own
    /// decisions (approval, audit, retries, filters) rest on them only once it
    /// [vouches](Self::vouched) for the tool (see [`Tool::trusted_annotations`]).
    pub fn annotations(mut self, annotations: Annotations) -> Self {
        self.inner.annotations = annotations;
        self
    }

    /// Whether the application vouches for the tool's [annotations](Self::annotations): its
    /// own code made the tool, or it trusts where the tool came from (a mounted server it
    /// runs, say). Not by default: the annotations of a tool made at run time (from a
    /// definitions file, a remote server, a plugin) are a claim, and the application treats
    /// the tool as MCP treats one that says nothing of itself ([`Annotations::UNTRUSTED`]).
    ///
    /// ```
    /// use serde_json::json;
    /// use tool_core::{registry::DynamicTool, Registry, definition::Annotations};
    /// let mut registry = Registry::empty();
    /// let claims = DynamicTool::new("get_note", "Gets a note.", json!({"type": "object"}))
    ///     .annotations(Annotations::READ_ONLY);
    /// registry.register(claims).unwrap();
    /// let tool = registry.get("get_note").unwrap();
    /// assert!(tool.annotations().read_only); // what clients are shown
    /// assert!(!tool.trusted_annotations().read_only); // what approval and audit go by
    ///
    /// let mut registry = Registry::empty();
    /// let ours = DynamicTool::new("get_note", "Gets a note.", json!({"type": "object"}))
    ///     .annotations(Annotations::READ_ONLY)
    ///     .vouched(true);
    /// registry.register(ours).unwrap();
    /// assert!(registry.get("get_note").unwrap().trusted_annotations().read_only);
    /// ```
    pub fn vouched(mut self, vouched: bool) -> Self {
        self.inner.trust = match vouched {
            true => Trust::Vouched,
            false => Trust::Claimed,
        };
        self
    }

    /// Vouches for the tool as `annotations`, apart from the [annotations](Self::annotations)
    /// clients are shown: for a tool whose effects are all other calls', each decided on its
    /// own, as code mode's script runner is (clients are shown what its scripts may reach; the
    /// application asks about each call a script makes, not about the script).
    pub fn trusted_as(mut self, annotations: Annotations) -> Self {
        self.inner.trust = Trust::As(annotations);
        self
    }

    /// Adds OAuth scopes a caller must hold to see and call the tool (see [`Tool::scopes`]);
    /// a scope already there is kept once. They are taken as given: [`check`](crate::definition::check)
    /// reports one that is not an RFC 6749 scope-token (rule `scopes.token`), and a
    /// definitions file with one is refused when it is loaded ([`defs::parse`]).
    pub fn scopes<S: Into<Cow<'static, str>>>(
        mut self,
        scopes: impl IntoIterator<Item = S>,
    ) -> Self {
        for scope in scopes {
            let scope = scope.into();
            if !self.inner.scopes.contains(&scope) {
                self.inner.scopes.push(scope);
            }
        }
        self
    }

    /// Sets the output schema.
    pub fn output_schema(mut self, schema: Value) -> Self {
        self.inner.output_schema = Some(schema);
        self
    }

    /// Adds a sample input.
    pub fn example(mut self, label: impl Into<Cow<'static, str>>, input: Value) -> Self {
        self.inner.examples.push(ToolExample {
            label: label.into(),
            input,
        });
        self
    }

    /// Says what registered the tool, for messages (e.g. `--defs tools.json`).
    pub fn origin(mut self, what: impl Into<String>) -> Self {
        self.inner.origin = Origin::Dynamic(what.into());
        self
    }
}

/// The tools of a binary, in a deterministic order (domain, then name), with O(1) lookup.
///
/// ```
/// use tool_core::prelude::*;
///
/// tool_core::domain!(pub clock, "Clocks and calendars");
///
/// /// Returns how many seconds a day has.
/// #[tool(domain = clock, label = "Counting seconds", hint = "Seconds in a day")]
/// fn get_day_seconds() -> u32 {
///     86_400
/// }
///
/// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
/// let registry = Registry::linked().unwrap(); // every #[tool] linked into this binary
/// let out = Executor::new(registry) // the one way to run them
///     .call("get_day_seconds", serde_json::json!({}), &ToolContext::new())
///     .await
///     .unwrap();
/// assert_eq!(out.echo(), "86400");
/// # });
/// ```
#[derive(Default)]
pub struct Registry {
    tools: Vec<Tool>,
    /// FxHash: names are short, and the table holds only names we registered.
    by_name: rustc_hash::FxHashMap<Arc<str>, usize>,
    /// Resources and templates, by URI: a server's few, so no index.
    resources: Vec<Resource>,
    /// Prompts, by name.
    prompts: Vec<Prompt>,
}

impl fmt::Debug for Registry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list()
            .entries(self.tools.iter().map(|t| t.name()))
            .finish()
    }
}

impl Registry {
    /// A copy, for an executor's edit ([`Edit`]). Not `Clone`: an owned copy of an executor's
    /// registry would build an executor without its layers.
    pub(crate) fn copy(&self) -> Self {
        Self {
            tools: self.tools.clone(),
            by_name: self.by_name.clone(),
            resources: self.resources.iter().map(Resource::copy).collect(),
            prompts: self.prompts.iter().map(Prompt::copy).collect(),
        }
    }

    /// A registry with no tools.
    pub fn empty() -> Self {
        Self::default()
    }

    /// Every `#[tool]` linked into this binary. A crate that nothing names is not linked: name
    /// your tools crates (`use my_tools as _;`).
    ///
    /// Every `#[resource]` and `#[prompt]` linked in comes with them.
    pub fn linked() -> Result<Self, RegistryError> {
        let mut registry = Self::from_defs(inventory::iter::<ToolDef>)?;
        for def in inventory::iter::<crate::resource::ResourceDef> {
            let origin = Origin::Linked(def.location);
            let resource = Resource::from_def(def).map_err(|e| RegistryError::InvalidItem {
                what: "resource",
                name: def.name.to_owned(),
                origin,
                reason: e.to_string(),
            })?;
            registry.add_resource(resource)?;
        }
        for def in inventory::iter::<crate::prompt::PromptDef> {
            let origin = Origin::Linked(def.location);
            let prompt = Prompt::from_def(def).map_err(|e| RegistryError::InvalidItem {
                what: "prompt",
                name: def.name.to_owned(),
                origin,
                reason: e.to_string(),
            })?;
            registry.add_prompt(prompt)?;
        }
        Ok(registry)
    }

    /// A registry of the given definitions.
    pub fn from_defs(
        defs: impl IntoIterator<Item = &'static ToolDef>,
    ) -> Result<Self, RegistryError> {
        // Each definition's schemas are generated and normalised on their own: on every core
        // for a large set (the bulk of a server's start-up).
        let defs: Vec<&'static ToolDef> = defs.into_iter().collect();
        let mut tools =
            crate::registry::parallel::map_in_parallel(&defs, 32, |def| Tool::from_def(def))
                .into_iter()
                .collect::<Result<Vec<_>, _>>()?;
        tools.sort_by(order);
        let mut registry = Self {
            tools,
            ..Self::default()
        };
        registry.reindex()?;
        Ok(registry)
    }

    /// Adds a tool defined at run time; a name already taken is refused.
    pub fn register(&mut self, tool: DynamicTool) -> Result<(), RegistryError> {
        let tool = Tool {
            inner: Arc::new(tool.inner),
        };
        if let Some(existing) = self.get(tool.name()) {
            return Err(RegistryError::DuplicateName {
                name: tool.name().to_owned(),
                first: existing.origin().clone(),
                second: tool.origin().clone(),
            });
        }
        let at = self
            .tools
            .partition_point(|t| order(t, &tool) == std::cmp::Ordering::Less);
        // The index moves the tools after `at` one place on, rather than being rebuilt (a key
        // allocated per tool, for every tool registered).
        for i in self.by_name.values_mut() {
            if *i >= at {
                *i += 1;
            }
        }
        self.by_name.insert(Arc::from(tool.name()), at);
        self.tools.insert(at, tool);
        Ok(())
    }

    /// Adds many tools at once (sorting and indexing once, not per tool): all of them, or none
    /// if a name is taken or repeated.
    pub fn register_all(
        &mut self,
        tools: impl IntoIterator<Item = DynamicTool>,
    ) -> Result<(), RegistryError> {
        let mut next = self.tools.clone();
        let mut added: HashMap<String, usize> = HashMap::new();
        for tool in tools {
            let tool = Tool {
                inner: Arc::new(tool.inner),
            };
            // Clashes are named in the order the tools came: the one already there first.
            let first = self
                .get(tool.name())
                .or_else(|| added.get(tool.name()).map(|&i| &next[i]));
            if let Some(first) = first {
                return Err(RegistryError::DuplicateName {
                    name: tool.name().to_owned(),
                    first: first.origin().clone(),
                    second: tool.origin().clone(),
                });
            }
            added.insert(tool.name().to_owned(), next.len());
            next.push(tool);
        }
        next.sort_by(order);
        let mut registry = Self {
            tools: next,
            by_name: Default::default(),
            resources: std::mem::take(&mut self.resources),
            prompts: std::mem::take(&mut self.prompts),
        };
        if let Err(e) = registry.reindex() {
            // Nothing changes: the resources and prompts go back.
            self.resources = registry.resources;
            self.prompts = registry.prompts;
            return Err(e);
        }
        *self = registry;
        Ok(())
    }

    /// Removes a tool; returns it if it was there.
    pub fn unregister(&mut self, name: &str) -> Option<Tool> {
        let at = self.by_name.remove(name)?;
        for i in self.by_name.values_mut() {
            if *i > at {
                *i -= 1;
            }
        }
        Some(self.tools.remove(at))
    }

    fn reindex(&mut self) -> Result<(), RegistryError> {
        self.by_name.clear();
        self.by_name.reserve(self.tools.len());
        for (i, tool) in self.tools.iter().enumerate() {
            if let Some(&first) = self.by_name.get(tool.name()) {
                return Err(RegistryError::DuplicateName {
                    name: tool.name().to_owned(),
                    first: self.tools[first].origin().clone(),
                    second: tool.origin().clone(),
                });
            }
            self.by_name.insert(Arc::from(tool.name()), i);
        }
        Ok(())
    }

    /// Adds a resource or template; a URI already taken is refused.
    pub fn add_resource(&mut self, resource: Resource) -> Result<(), RegistryError> {
        match self
            .resources
            .binary_search_by(|r| r.uri().cmp(resource.uri()))
        {
            Ok(i) => Err(RegistryError::DuplicateResource {
                uri: resource.uri().to_owned(),
                first: self.resources[i].defined_at().clone(),
                second: resource.defined_at().clone(),
            }),
            Err(at) => {
                self.resources.insert(at, resource);
                Ok(())
            }
        }
    }

    /// Adds a prompt; a name already taken is refused.
    pub fn add_prompt(&mut self, prompt: Prompt) -> Result<(), RegistryError> {
        match self
            .prompts
            .binary_search_by(|p| p.name().cmp(prompt.name()))
        {
            Ok(i) => Err(RegistryError::DuplicatePrompt {
                name: prompt.name().to_owned(),
                first: self.prompts[i].defined_at().clone(),
                second: prompt.defined_at().clone(),
            }),
            Err(at) => {
                self.prompts.insert(at, prompt);
                Ok(())
            }
        }
    }

    /// Removes the resource or template whose URI is `uri`; returns it if it was there.
    pub fn remove_resource(&mut self, uri: &str) -> Option<Resource> {
        let at = self.resources.iter().position(|r| r.uri() == uri)?;
        Some(self.resources.remove(at))
    }

    /// Removes the prompt named `name`; returns it if it was there.
    pub fn remove_prompt(&mut self, name: &str) -> Option<Prompt> {
        let at = self.prompts.iter().position(|p| p.name() == name)?;
        Some(self.prompts.remove(at))
    }

    /// Every resource and template, by URI.
    pub fn resources(&self) -> &[Resource] {
        &self.resources
    }

    /// The resource that answers a read of `uri`, with the request it gets: a resource at
    /// that very URI, else the first template (by URI) that matches it.
    pub fn resource_for(&self, uri: &str) -> Option<(&Resource, ResourceRequest)> {
        let plain = self.resources.iter().filter(|r| !r.is_template());
        let templates = self.resources.iter().filter(|r| r.is_template());
        plain
            .chain(templates)
            .find_map(|r| r.matches(uri).map(|request| (r, request)))
    }

    /// Every prompt, by name.
    pub fn prompts(&self) -> &[Prompt] {
        &self.prompts
    }

    /// The prompt named `name`.
    pub fn prompt(&self, name: &str) -> Option<&Prompt> {
        self.prompts
            .binary_search_by(|p| p.name().cmp(name))
            .ok()
            .map(|i| &self.prompts[i])
    }

    /// This registry with its tools replaced by `tools` (a transform's output), in the
    /// registry's order, names unique; its resources and prompts stay.
    pub(crate) fn with_tools(mut self, mut tools: Vec<Tool>) -> Result<Self, RegistryError> {
        tools.sort_by(order);
        self.tools = tools;
        self.reindex()?;
        Ok(self)
    }

    /// The tool named `name`.
    #[inline]
    pub fn get(&self, name: &str) -> Option<&Tool> {
        self.by_name.get(name).map(|&i| &self.tools[i])
    }

    /// Every tool, by domain then name.
    pub fn tools(&self) -> &[Tool] {
        &self.tools
    }

    /// How many tools there are.
    pub fn len(&self) -> usize {
        self.tools.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.tools.is_empty()
    }

    /// The tools of one domain.
    pub fn in_domain<'a>(&'a self, domain: &'a str) -> impl Iterator<Item = &'a Tool> + 'a {
        self.tools.iter().filter(move |t| t.domain().name == domain)
    }

    /// The tools offered on every round.
    pub fn core(&self) -> impl Iterator<Item = &Tool> {
        self.tools.iter().filter(|t| t.is_core())
    }

    /// The tools found through search.
    pub fn deferred(&self) -> impl Iterator<Item = &Tool> {
        self.tools.iter().filter(|t| !t.is_core())
    }

    /// Every domain that has a tool, in order.
    pub fn domains(&self) -> Vec<&DomainInfo> {
        let mut domains: Vec<&DomainInfo> = self.tools.iter().map(|t| t.domain()).collect();
        domains.dedup_by(|a, b| a.name == b.name);
        domains
    }

    /// Up to three names close to `name`, nearest first, for "did you mean": names of tools the
    /// model is offered ([`Tool::to_model`]).
    pub fn suggest(&self, name: &str) -> Vec<&str> {
        self.suggest_for(name, None)
    }

    /// [`suggest`](Self::suggest) among the tools `caller` may call ([`Tool::permits`]): a
    /// suggestion must not name a tool its scopes hide, and a hidden near name must not crowd
    /// out a callable one. `None`: no caller was authenticated, so every tool.
    pub fn suggest_for(&self, name: &str, caller: Option<&Principal>) -> Vec<&str> {
        nearest(
            name,
            self.tools
                .iter()
                .filter(|t| t.to_model() && t.permits(caller)),
        )
    }
}

/// Up to three of `tools`' names close to `name`, nearest first.
pub(crate) fn nearest<'a>(name: &str, tools: impl Iterator<Item = &'a Tool>) -> Vec<&'a str> {
    let mut scored: Vec<(f64, &str)> = tools
        .map(|t| (strsim::jaro_winkler(name, t.name()), t.name()))
        .filter(|(score, _)| *score >= 0.8)
        .collect();
    scored.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(b.1)));
    scored.into_iter().take(3).map(|(_, n)| n).collect()
}

fn order(a: &Tool, b: &Tool) -> std::cmp::Ordering {
    (&a.domain().name, a.name()).cmp(&(&b.domain().name, b.name()))
}

/// Why a registry could not be built or a tool could not be added to it.
// New variants go last: a variant's place is its discriminant, which `as` casts can read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum RegistryError {
    /// Two tools share a name.
    #[error(
        "two tools are named `{name}`: one at {first}, one at {second}; rename one with #[tool(name = \"...\")]"
    )]
    DuplicateName {
        /// The shared name.
        name: String,
        /// Where the first was defined.
        first: Origin,
        /// Where the second was defined.
        second: Origin,
    },
    /// A definition cannot be used as it is.
    #[error("tool `{name}` at {origin}: {reason}")]
    InvalidDefinition {
        /// The tool's name.
        name: String,
        /// Where it was defined.
        origin: Origin,
        /// What is wrong and how to fix it.
        reason: String,
    },
    /// Two resources share a URI.
    #[error("two resources have the URI `{uri}`: one at {first}, one at {second}")]
    DuplicateResource {
        /// The shared URI.
        uri: String,
        /// Where the first was defined.
        first: Origin,
        /// Where the second was defined.
        second: Origin,
    },
    /// Two prompts share a name.
    #[error(
        "two prompts are named `{name}`: one at {first}, one at {second}; rename one with #[prompt(name = \"...\")]"
    )]
    DuplicatePrompt {
        /// The shared name.
        name: String,
        /// Where the first was defined.
        first: Origin,
        /// Where the second was defined.
        second: Origin,
    },
    /// A resource's or prompt's definition cannot be used as it is.
    #[error("{what} `{name}` at {origin}: {reason}")]
    InvalidItem {
        /// `resource` or `prompt`.
        what: &'static str,
        /// Its name.
        name: String,
        /// Where it was defined.
        origin: Origin,
        /// What is wrong and how to fix it.
        reason: String,
    },
}

/// A copy of an executor's registry, being changed: it reads as the registry does (through
/// `Deref`) and changes through the methods below. It cannot be taken out of the change, nor can
/// what it holds: an item that can be run (a tool's handler, a resource's reader, a prompt's
/// getter) leaves an executor only into another executor with the same policy and layers.
///
/// ```
/// use serde_json::json;
/// use tool_core::{Executor, Registry, ToolContext, ToolOutput, registry::DynamicTool};
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// let executor = Executor::new(Registry::empty());
/// let (executor, ()) = executor.edit(|tools| {
///     tools.register(DynamicTool::new("ping_host", "Pings.", json!({"type": "object"}))
///         .handler(|_, _| async { Ok(ToolOutput::new(json!("pong"))) }))
/// })?;
/// assert!(executor.registry().get("ping_host").is_some());
/// # Ok::<_, tool_core::registry::RegistryError>(())
/// # }).unwrap();
/// ```
pub struct Edit<'a> {
    registry: &'a mut Registry,
}

impl<'a> Edit<'a> {
    pub(crate) fn new(registry: &'a mut Registry) -> Self {
        Self { registry }
    }

    /// Adds a tool built at run time ([`Registry::register`]).
    pub fn register(&mut self, tool: DynamicTool) -> Result<(), RegistryError> {
        self.registry.register(tool)
    }

    /// Adds tools built at run time, all or none ([`Registry::register_all`]).
    pub fn register_all(
        &mut self,
        tools: impl IntoIterator<Item = DynamicTool>,
    ) -> Result<(), RegistryError> {
        self.registry.register_all(tools)
    }

    /// Removes the tool named `name`; returns whether there was one.
    pub fn unregister(&mut self, name: &str) -> bool {
        self.registry.unregister(name).is_some()
    }

    /// Keeps only the tools `keep` says yes to (resources and prompts stay).
    pub fn retain(&mut self, keep: impl FnMut(&Tool) -> bool) {
        self.registry.tools.retain(keep);
        // One pass over what is left, not one per tool removed: the names were unique and
        // still are, so the index cannot fail.
        let reindexed = self.registry.reindex();
        debug_assert!(reindexed.is_ok(), "{reindexed:?}");
    }

    /// Adds a resource or template ([`Registry::add_resource`]).
    pub fn add_resource(&mut self, resource: Resource) -> Result<(), RegistryError> {
        self.registry.add_resource(resource)
    }

    /// Adds a prompt ([`Registry::add_prompt`]).
    pub fn add_prompt(&mut self, prompt: Prompt) -> Result<(), RegistryError> {
        self.registry.add_prompt(prompt)
    }

    /// Removes the resource or template at `uri`; returns whether there was one.
    pub fn remove_resource(&mut self, uri: &str) -> bool {
        self.registry.remove_resource(uri).is_some()
    }

    /// Removes the prompt named `name`; returns whether there was one.
    pub fn remove_prompt(&mut self, name: &str) -> bool {
        self.registry.remove_prompt(name).is_some()
    }
}

/// A registry the caller owns, changed through the same methods: for code that adds items
/// both to a registry being built and to an executor's edit (a mounted server's, say).
impl<'a> From<&'a mut Registry> for Edit<'a> {
    fn from(registry: &'a mut Registry) -> Self {
        Self::new(registry)
    }
}

impl<'a, 'b> From<&'b mut Edit<'a>> for Edit<'b> {
    fn from(edit: &'b mut Edit<'a>) -> Self {
        Self::new(edit.registry)
    }
}

impl Deref for Edit<'_> {
    type Target = Registry;

    fn deref(&self) -> &Registry {
        self.registry
    }
}

impl fmt::Debug for Edit<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("Edit").field(&*self.registry).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn dynamic(name: &'static str, domain: &'static str) -> DynamicTool {
        DynamicTool::new(name, "d", json!({"type": "object"}))
            .domain(domain, "x")
            .handler(move |input, _| async move { Ok(crate::ToolOutput::new(input)) })
    }

    #[test]
    fn register_all_is_all_or_nothing() {
        let mut r = Registry::empty();
        r.register(dynamic("a_x", "d")).unwrap();
        r.register_all([dynamic("c_x", "a"), dynamic("b_x", "d")])
            .unwrap();
        let names: Vec<_> = r.tools().iter().map(Tool::name).collect();
        assert_eq!(names, ["c_x", "a_x", "b_x"]);
        assert_eq!(r.get("b_x").map(Tool::name), Some("b_x"));
        let clash = r.register_all([dynamic("d_x", "d"), dynamic("a_x", "d")]);
        assert!(matches!(clash, Err(RegistryError::DuplicateName { .. })));
        assert!(r.get("d_x").is_none(), "nothing added");
    }

    #[test]
    fn an_edits_retain_keeps_order_and_lookups() {
        let mut r = Registry::empty();
        for (n, d) in [("a_x", "d"), ("b_x", "d"), ("c_x", "d"), ("d_x", "e")] {
            r.register(dynamic(n, d)).unwrap();
        }
        let mut edit = Edit::new(&mut r);
        edit.retain(|t| t.name() != "b_x" && t.name() != "a_x");
        let names: Vec<_> = r.tools().iter().map(Tool::name).collect();
        assert_eq!(names, ["c_x", "d_x"]);
        assert_eq!(r.get("d_x").map(Tool::name), Some("d_x"));
        assert_eq!(r.get("c_x").map(Tool::name), Some("c_x"));
        assert!(r.get("a_x").is_none() && r.get("b_x").is_none());
    }

    #[test]
    fn order_is_domain_then_name_and_lookup_follows_inserts() {
        let mut r = Registry::empty();
        for (n, d) in [("b_x", "z"), ("a_x", "z"), ("c_x", "a")] {
            r.register(dynamic(n, d)).unwrap();
        }
        let names: Vec<_> = r.tools().iter().map(Tool::name).collect();
        assert_eq!(names, ["c_x", "a_x", "b_x"]);
        assert_eq!(r.get("a_x").unwrap().name(), "a_x");
        assert!(r.unregister("a_x").is_some());
        assert_eq!(r.get("b_x").unwrap().name(), "b_x");
        assert!(r.get("a_x").is_none());
        assert_eq!(r.domains().len(), 2);
        assert_eq!(r.in_domain("z").count(), 1);
    }

    proptest::proptest! {
        /// However tools come and go one at a time, every name finds its own tool, and the
        /// order is what a registry built at once has.
        #[test]
        fn lookup_follows_single_registrations_and_removals(
            steps in proptest::collection::vec((0u8..12, 0u8..3, proptest::bool::ANY), 0..40),
        ) {
            let mut r = Registry::empty();
            let mut present = std::collections::BTreeMap::new();
            for (n, d, add) in steps {
                let name = format!("tool_{n}");
                let domain = ["a", "b", "c"][usize::from(d)];
                if add && !present.contains_key(&name) {
                    r.register(DynamicTool::new(name.clone(), "d", json!({"type": "object"}))
                        .domain(domain, "x"))
                        .unwrap();
                    present.insert(name, domain);
                } else if !add {
                    proptest::prop_assert_eq!(r.unregister(&name).is_some(), present.remove(&name).is_some());
                }
                for tool in r.tools() {
                    proptest::prop_assert_eq!(r.get(tool.name()).map(Tool::name), Some(tool.name()));
                }
                proptest::prop_assert_eq!(r.len(), present.len());
                let mut expected: Vec<(&str, &str)> =
                    present.iter().map(|(n, d)| (*d, n.as_str())).collect();
                expected.sort();
                let actual: Vec<(&str, &str)> =
                    r.tools().iter().map(|t| (&*t.domain().name, t.name())).collect();
                proptest::prop_assert_eq!(actual, expected);
            }
        }
    }

    #[test]
    fn duplicate_dynamic_names_are_refused_with_both_origins() {
        let mut r = Registry::empty();
        r.register(dynamic("get_x", "a").origin("first.json"))
            .unwrap();
        let err = r
            .register(dynamic("get_x", "b").origin("second.json"))
            .unwrap_err();
        let msg = err.to_string();
        assert!(
            msg.contains("first.json") && msg.contains("second.json"),
            "{msg}"
        );
        assert_eq!(r.len(), 1);
    }

    #[test]
    fn a_callers_suggestions_skip_hidden_tools_before_taking_the_nearest_three() {
        let mut r = Registry::empty();
        for name in ["close_issue", "close_issues", "closed_issue"] {
            r.register(dynamic(name, "t").scopes(["admin"])).unwrap();
        }
        r.register(dynamic("close_isue_draft", "t")).unwrap();
        assert_eq!(r.suggest("close_isue").len(), 3);
        assert!(!r.suggest("close_isue").contains(&"close_isue_draft"));
        let reader = Principal::new("ada");
        assert_eq!(
            r.suggest_for("close_isue", Some(&reader)),
            ["close_isue_draft"]
        );
        assert_eq!(r.suggest_for("close_isue", None), r.suggest("close_isue"));
    }

    #[test]
    fn unknown_names_get_suggestions() {
        let mut r = Registry::empty();
        r.register(dynamic("get_time", "t")).unwrap();
        assert_eq!(r.suggest("get_tmie"), ["get_time"]);
        assert!(r.suggest("send_email").is_empty());
    }

    #[test]
    fn scopes_are_kept_once_and_judge_principals() {
        let mut r = Registry::empty();
        r.register(
            dynamic("close_issue", "d")
                .scopes(["issues:write", "repo"])
                .scopes(["repo", "admin"]),
        )
        .unwrap();
        r.register(dynamic("read_issue", "d")).unwrap();
        let close = r.get("close_issue").unwrap();
        assert_eq!(close.scopes(), ["issues:write", "repo", "admin"]);
        let some = Principal::new("u").with_scopes(["repo"]);
        let all = Principal::new("u").with_scopes(["admin", "repo", "issues:write", "more"]);
        assert_eq!(close.missing_scopes(&some), ["issues:write", "admin"]);
        assert!(close.missing_scopes(&all).is_empty());
        assert!(!close.permits(Some(&some)));
        assert!(close.permits(Some(&all)));
        assert!(close.permits(None));
        // A tool that needs no scope is open to any caller, even one granted none.
        let read = r.get("read_issue").unwrap();
        assert!(read.permits(Some(&Principal::new("u"))));
    }

    #[tokio::test]
    async fn definition_only_tools_fail_clearly() {
        let mut r = Registry::empty();
        r.register(DynamicTool::new(
            "list_things",
            "d",
            json!({"type": "object"}),
        ))
        .unwrap();
        let err = r
            .get("list_things")
            .unwrap()
            .call(json!({}), &ToolContext::new())
            .await
            .unwrap_err();
        assert!(err.message().contains("definition only"), "{err}");
    }
}
