//! Layers: behaviour that runs around every call an [`Executor`](super::Executor) makes (a
//! tool's call, a resource's read, a prompt's get, a completion), as tower's middleware runs
//! around a service. A layer sees a call after the caller's scopes and the input's size and
//! shape were checked, and before the call is checked against the tool's schema, put to a
//! person and run; it may rewrite the input, refuse the call, or pass it on and rewrite (or
//! redact) what comes back. The executor's own stages stand around and
//! under the layers in a fixed order (see [`Executor`](super::Executor)), so no layer can skip
//! a scope check, an approval or a time limit, and a tool's calls to other tools pass the
//! same layers.
//!
//! A layer is a trait object with one method rather than tower's `Layer`/`Service` pair:
//! the stack is built once, its order is the order layers were added, and a call walks it by
//! a slice index, with one boxed future per layer and none when there is no layer.

use std::fmt;
use std::pin::Pin;
use std::sync::Arc;

use serde_json::Value;

use crate::context::ToolContext;
use crate::error::ToolError;
use crate::output::ToolOutput;
use crate::prompt::{Prompt, PromptContent, PromptReply};
use crate::registry::Tool;
use crate::resource::{Body, Resource, ResourceContent};

/// The future a layer returns.
pub type LayerFuture<'a> = Pin<Box<dyn Future<Output = Result<Reply, ToolError>> + Send + 'a>>;

/// What `completion/complete` asks about: a prompt's argument or a resource template's
/// variable.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CompletionRef<'a> {
    /// The prompt with this name.
    Prompt(&'a str),
    /// The resource template with this URI template.
    Resource(&'a str),
}

/// What a call reaches: a tool, a resource read, a prompt got, or the completion of an
/// argument. A layer matches on it to treat each kind as it needs.
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub enum Item<'a> {
    /// A tool's call; the input is its arguments.
    Tool(&'a Tool),
    /// A resource's read; the input is `{"uri": "..."}`, the URI read.
    Resource(&'a Resource),
    /// A prompt's get; the input is its arguments, an object of strings.
    Prompt(&'a Prompt),
    /// Suggestions for an argument of a prompt or a variable of a resource template; the
    /// input is `{"argument": "...", "value": "..."}`, the value typed so far.
    Completion(CompletionRef<'a>),
}

impl Item<'_> {
    /// What the call names: the tool's or the prompt's name, the resource's URI (as
    /// registered: a template's, for a read of a URI it matches), the prompt or template
    /// completed.
    pub fn name(&self) -> &str {
        match self {
            Self::Tool(tool) => tool.name(),
            Self::Resource(resource) => resource.uri(),
            Self::Prompt(prompt) => prompt.name(),
            Self::Completion(CompletionRef::Prompt(name) | CompletionRef::Resource(name)) => name,
        }
    }

    /// `tool`, `resource`, `prompt` or `completion`.
    pub fn kind(&self) -> &'static str {
        match self {
            Self::Tool(_) => "tool",
            Self::Resource(_) => "resource",
            Self::Prompt(_) => "prompt",
            Self::Completion(_) => "completion",
        }
    }
}

/// What a call gives back, as a layer sees it: a tool's output, a read's contents, a prompt's
/// messages or completion values. [`texts_mut`](Self::texts_mut) and
/// [`data_mut`](Self::data_mut) reach into any of them, so one redaction covers every kind.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Reply {
    /// A tool's output.
    Tool(ToolOutput),
    /// A resource's contents.
    Resource(Vec<ResourceContent>),
    /// A prompt's messages.
    Prompt(PromptReply),
    /// Completion values, best first.
    Completion(Vec<String>),
}

impl Reply {
    /// A tool's structured data, when the reply is a tool's and has any.
    pub fn data_mut(&mut self) -> Option<&mut Value> {
        match self {
            Self::Tool(output) => output.data_mut(),
            _ => None,
        }
    }

    /// Every text of the reply, to read or rewrite in place: a tool's echo where it has one
    /// of its own (else the model reads its data), each text content of a read, each text of a prompt's messages (embedded
    /// resources' too), each completion value. A tool's structured data is not text: reach
    /// it with [`data_mut`](Self::data_mut).
    ///
    /// ```
    /// use tool_core::exec::Reply;
    /// use tool_core::resource::{Body, ResourceContent};
    /// let mut reply = Reply::Resource(vec![ResourceContent::text("key=hunter2")]);
    /// for text in reply.texts_mut() {
    ///     *text = text.replace("hunter2", "[redacted]");
    /// }
    /// let Reply::Resource(contents) = reply else { unreachable!() };
    /// assert_eq!(contents[0].body, Body::Text("key=[redacted]".into()));
    /// ```
    pub fn texts_mut(&mut self) -> Vec<&mut String> {
        fn body(content: &mut ResourceContent) -> Option<&mut String> {
            match &mut content.body {
                Body::Text(text) => Some(text),
                Body::Blob(_) => None,
            }
        }
        match self {
            Self::Tool(output) => output.echo_mut().into_iter().collect(),
            Self::Resource(contents) => contents.iter_mut().filter_map(body).collect(),
            Self::Prompt(reply) => reply
                .messages
                .iter_mut()
                .filter_map(|m| match &mut m.content {
                    PromptContent::Text(text) => Some(text),
                    PromptContent::Resource(content) => body(content),
                    _ => None,
                })
                .collect(),
            Self::Completion(values) => values.iter_mut().collect(),
        }
    }

    /// The tool's output, for the stage that expects one; any other kind is an error a layer
    /// made.
    pub(super) fn into_tool(self) -> Result<ToolOutput, ToolError> {
        match self {
            Self::Tool(output) => Ok(output),
            other => Err(mismatch("a tool's call", &other)),
        }
    }

    pub(super) fn into_resource(self) -> Result<Vec<ResourceContent>, ToolError> {
        match self {
            Self::Resource(contents) => Ok(contents),
            other => Err(mismatch("a resource's read", &other)),
        }
    }

    pub(super) fn into_prompt(self) -> Result<PromptReply, ToolError> {
        match self {
            Self::Prompt(reply) => Ok(reply),
            other => Err(mismatch("a prompt's get", &other)),
        }
    }

    pub(super) fn into_completion(self) -> Result<Vec<String>, ToolError> {
        match self {
            Self::Completion(values) => Ok(values),
            other => Err(mismatch("a completion", &other)),
        }
    }

    fn kind(&self) -> &'static str {
        match self {
            Self::Tool(_) => "a tool's output",
            Self::Resource(_) => "a resource's contents",
            Self::Prompt(_) => "a prompt's messages",
            Self::Completion(_) => "completion values",
        }
    }
}

#[cold]
fn mismatch(what: &str, reply: &Reply) -> ToolError {
    ToolError::internal(format!("a layer answered {what} with {}", reply.kind()))
}

/// One call as a layer sees it: what it reaches, the call's context and its input (parsed,
/// within the executor's size and depth limits, not yet checked against a tool's schema).
pub struct Call<'a> {
    item: Item<'a>,
    ctx: CallContext<'a>,
    input: Value,
}

/// A call's context: the caller's, or one a layer added an extension to.
pub(crate) enum CallContext<'a> {
    Caller(&'a ToolContext),
    Own(ToolContext),
}

impl std::ops::Deref for CallContext<'_> {
    type Target = ToolContext;

    fn deref(&self) -> &ToolContext {
        match self {
            Self::Caller(ctx) => ctx,
            Self::Own(ctx) => ctx,
        }
    }
}

impl<'a> Call<'a> {
    pub(crate) fn new(item: Item<'a>, ctx: &'a ToolContext, input: Value) -> Self {
        Self {
            item,
            ctx: CallContext::Caller(ctx),
            input,
        }
    }

    /// What the call reaches.
    pub fn item(&self) -> Item<'a> {
        self.item
    }

    /// The tool called, for a tool's call; `None` for a read, a get or a completion.
    pub fn tool(&self) -> Option<&'a Tool> {
        match self.item {
            Item::Tool(tool) => Some(tool),
            _ => None,
        }
    }

    /// The call's context: its id, the caller's principal, headers and extensions.
    pub fn context(&self) -> &ToolContext {
        &self.ctx
    }

    /// Hands `value` to what runs under this layer: the layers after it, the person asked and
    /// the tool (or reader, or getter) read it as any extension of the context
    /// (`ctx.extension::<T>()`; `#[ctx] State(s): State<S>` for an `Arc<S>`), and so do the
    /// calls the tool makes. One of the same type is replaced for this call only.
    ///
    /// ```
    /// use serde_json::json;
    /// use tool_core::exec::{Executor, layer_fn};
    /// use tool_core::{registry::DynamicTool, Registry, ToolContext, ToolOutput};
    ///
    /// /// Who the gateway says is calling.
    /// struct Caller(String);
    ///
    /// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
    /// let mut registry = Registry::empty();
    /// registry.register(DynamicTool::new("who_am_i", "Says who calls.", json!({"type": "object"}))
    ///     .handler(|_, ctx| async move {
    ///         let caller = ctx.extension::<Caller>().map(|c| c.0.clone()).unwrap_or_default();
    ///         Ok(ToolOutput::text(caller))
    ///     })).unwrap();
    /// let from_gateway = layer_fn(async |mut call, next| {
    ///     let caller = call.context().headers().get("x-user").unwrap_or("anyone").to_owned();
    ///     call.extension(Caller(caller));
    ///     next.run(call).await
    /// });
    /// let executor = Executor::builder(registry).layer(from_gateway).build();
    /// let out = executor.call("who_am_i", json!({}), &ToolContext::new()).await.unwrap();
    /// assert_eq!(out.echo(), "anyone");
    /// # });
    /// ```
    pub fn extension<T: Send + Sync + 'static>(&mut self, value: T) {
        self.ctx = CallContext::Own(self.ctx.with_extension(value));
    }

    /// The context and the input, for the stage under the layers.
    pub(crate) fn into_parts(self) -> (CallContext<'a>, Value) {
        (self.ctx, self.input)
    }

    /// The input: a tool's arguments, a read's `{"uri"}`, a prompt's arguments, a
    /// completion's `{"argument", "value"}` (see [`Item`]).
    pub fn input(&self) -> &Value {
        &self.input
    }

    /// The input, to rewrite before the call goes on. What a layer writes here is what the
    /// schema check, the person asked and the tool (or reader, or getter) see; a read whose
    /// URI a layer changed reads what the new URI names, held to its scopes.
    pub fn input_mut(&mut self) -> &mut Value {
        &mut self.input
    }
}

impl fmt::Debug for Call<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Call")
            .field(self.item.kind(), &self.item.name())
            .field("call_id", &self.ctx.call_id())
            .finish_non_exhaustive()
    }
}

/// What runs under a layer: the layers after it, then the executor's own stages and the tool.
/// Run it once to pass the call on; drop it to refuse the call.
pub struct Next<'a> {
    layers: &'a [Arc<dyn Layer>],
    last: &'a (dyn Fn(Call<'a>) -> LayerFuture<'a> + Send + Sync + 'a),
}

impl<'a> Next<'a> {
    pub(crate) fn new(
        layers: &'a [Arc<dyn Layer>],
        last: &'a (dyn Fn(Call<'a>) -> LayerFuture<'a> + Send + Sync + 'a),
    ) -> Self {
        Self { layers, last }
    }

    /// Passes `call` on and returns what the rest of the stack made of it.
    pub fn run(self, call: Call<'a>) -> LayerFuture<'a> {
        match self.layers.split_first() {
            Some((layer, rest)) => layer.call(call, Next::new(rest, self.last)),
            None => (self.last)(call),
        }
    }
}

impl fmt::Debug for Next<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Next")
            .field("layers", &self.layers.len())
            .finish_non_exhaustive()
    }
}

/// Behaviour around every call an executor makes: tool calls, resource reads, prompt gets and
/// completions alike ([`Call::item`] says which). Implement it on a type, or wrap a closure
/// with [`layer_fn`].
///
/// A layer that refuses returns an error without running `next` (the call ends with that error,
/// audited and shown as any other); one that rewrites the input changes [`Call::input_mut`]
/// first; one that redacts maps the [`Reply`] `next` returns ([`Reply::texts_mut`] and
/// [`Reply::data_mut`] reach into every kind, so one redaction covers reads and prompts too).
///
/// ```
/// use serde_json::json;
/// use tool_core::exec::{Call, Executor, Item, Layer, LayerFuture, Next};
/// use tool_core::resource::{Resource, ResourceContent};
/// use tool_core::{registry::DynamicTool, Registry, ToolContext, ToolError, ToolOutput};
///
/// /// Refuses every call and every read whose path leaves /srv.
/// struct StayInSrv;
///
/// impl Layer for StayInSrv {
///     fn call<'a>(&'a self, call: Call<'a>, next: Next<'a>) -> LayerFuture<'a> {
///         // A tool's `path`, or a read's URI: the same rule for both.
///         let path = match call.item() {
///             Item::Resource(_) => call.input()["uri"].as_str().and_then(|u| u.strip_prefix("file://")),
///             _ => call.input()["path"].as_str(),
///         };
///         let outside = path.is_some_and(|p| !p.starts_with("/srv/"));
///         if outside {
///             return Box::pin(async { Err(ToolError::refused("only files under /srv/ may be read")) });
///         }
///         next.run(call)
///     }
/// }
///
/// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
/// let mut registry = Registry::empty();
/// registry.register(DynamicTool::new("read_file", "Reads a file.", json!({"type": "object"}))
///     .handler(|input, _| async move { Ok(ToolOutput::new(input)) })).unwrap();
/// registry.add_resource(Resource::new("file:///{name}", "file", "A file.", |_, _| async {
///     Ok(vec![ResourceContent::text("...")])
/// }).unwrap()).unwrap();
/// let executor = Executor::builder(registry).layer(StayInSrv).build();
/// let ctx = ToolContext::new();
/// assert!(executor.call("read_file", json!({"path": "/srv/a.txt"}), &ctx).await.is_ok());
/// let refused = executor.call("read_file", json!({"path": "/etc/passwd"}), &ctx).await.unwrap_err();
/// assert_eq!(refused.kind(), tool_core::error::ErrorKind::Refused);
/// let refused = executor.read_resource("file:///passwd", &ctx).await.unwrap_err();
/// assert_eq!(refused.kind(), tool_core::error::ErrorKind::Refused);
/// # });
/// ```
pub trait Layer: Send + Sync + 'static {
    /// Handles one call: pass it on with `next.run(call)`, or not.
    fn call<'a>(&'a self, call: Call<'a>, next: Next<'a>) -> LayerFuture<'a>;

    /// A name for the layer in debug output.
    fn name(&self) -> &str {
        std::any::type_name::<Self>()
    }
}

/// A layer from an async closure, or an `async fn`, that takes the call and what comes next
/// (the two of one lifetime: `async fn f<'a>(call: Call<'a>, next: Next<'a>)`).
///
/// The closure may capture what it needs (`async move |call, next| ...`). It is cloned for
/// each call, as axum's `from_fn` clones its function, so capture an `Arc` of anything that
/// costs more than a pointer to clone. A closure that returns a boxed future (`|call, next|
/// Box::pin(async move { ... })`) is not taken: its future cannot borrow the call; make it
/// `async move |call, next| { ... }`.
///
/// ```
/// use serde_json::json;
/// use tool_core::exec::{Executor, layer_fn};
/// use tool_core::{registry::DynamicTool, Registry, ToolContext, ToolOutput};
/// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
/// let mut registry = Registry::empty();
/// registry.register(DynamicTool::new("get_user", "Finds a user.", json!({"type": "object"}))
///     .handler(|_, _| async { Ok(ToolOutput::new(json!({"name": "Ada", "email": "ada@example.com"}))) })).unwrap();
/// // Redacts every `email` in a result, and the address in any text: a tool's echo, a
/// // resource's contents, a prompt's messages.
/// let address = String::from("ada@example.com");
/// let redact = layer_fn(async move |call, next| {
///     let mut reply = next.run(call).await?;
///     if let Some(email) = reply.data_mut().and_then(|data| data.get_mut("email")) {
///         *email = json!("[redacted]");
///     }
///     for text in reply.texts_mut() {
///         *text = text.replace(&address, "[redacted]");
///     }
///     Ok(reply)
/// });
/// let executor = Executor::builder(registry).layer(redact).build();
/// let out = executor.call("get_user", json!({}), &ToolContext::new()).await.unwrap();
/// assert_eq!(out.data().unwrap()["email"], "[redacted]");
/// # });
/// ```
///
/// An `async fn` is a layer as it is:
///
/// ```
/// use tool_core::exec::{Call, Next, Reply, layer_fn};
/// use tool_core::ToolError;
///
/// async fn log_calls<'a>(call: Call<'a>, next: Next<'a>) -> Result<Reply, ToolError> {
///     let name = call.item().name().to_owned();
///     let reply = next.run(call).await;
///     eprintln!("{name}: {}", if reply.is_ok() { "ok" } else { "failed" });
///     reply
/// }
///
/// let layer = layer_fn(log_calls);
/// # let _ = layer;
/// ```
pub fn layer_fn<F>(f: F) -> LayerFn<F>
where
    F: for<'a> AsyncFnOnce(Call<'a>, Next<'a>) -> Result<Reply, ToolError>
        + for<'a> LayerBody<'a>
        + Clone
        + Send
        + Sync
        + 'static,
{
    LayerFn(f)
}

/// What [`layer_fn`] takes, for one call: a function of the call and what comes next whose
/// future may be sent across threads. Every async closure and `async fn` of that shape has it;
/// it is here so that the bound can say `Send`, which `AsyncFnOnce` alone cannot on stable
/// Rust. Not for implementing.
pub trait LayerBody<'a>: FnOnce(Call<'a>, Next<'a>) -> <Self as LayerBody<'a>>::Future {
    /// The future the function returns.
    type Future: Future<Output = Result<Reply, ToolError>> + Send + 'a;
}

impl<'a, F, Fut> LayerBody<'a> for F
where
    F: FnOnce(Call<'a>, Next<'a>) -> Fut,
    Fut: Future<Output = Result<Reply, ToolError>> + Send + 'a,
{
    type Future = Fut;
}

/// A [`Layer`] made by [`layer_fn`].
#[derive(Clone, Copy)]
pub struct LayerFn<F>(F);

impl<F> fmt::Debug for LayerFn<F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("LayerFn")
    }
}

impl<F> Layer for LayerFn<F>
where
    F: for<'a> LayerBody<'a> + Clone + Send + Sync + 'static,
{
    fn call<'a>(&'a self, call: Call<'a>, next: Next<'a>) -> LayerFuture<'a> {
        Box::pin((self.0.clone())(call, next))
    }

    fn name(&self) -> &str {
        "layer_fn"
    }
}
