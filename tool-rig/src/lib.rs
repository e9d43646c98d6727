//! tool-core tools as [rig](https://docs.rs/rig-core)'s own. Every tool of a registry (linked,
//! dynamic, mounted, transformed) becomes a rig [`DynamicTool`], and every call a rig agent
//! makes runs through the [`Executor`]: scopes, input checks, the application's layers,
//! approval by the application's approver, limits, audit and events, as when a model of this
//! project's own loop or an MCP client calls it. One door, whoever calls.
//!
//! Core tools are offered on every request ([`RigTools::core_tools`]); the rest are deferred
//! ([`RigTools::deferred_tools`]) and reach the model when the catalog's search finds them for
//! the prompt ([`RigTools::index`], rig's `retrieved_tools` with no vector store to build), or
//! when the model finds them itself with `search_tools` (installed by
//! [`tool_catalog::install`]): what a search finds is offered from the next request on.
//!
//! ```no_run
//! # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
//! use rig_agent::AgentBuilder;
//! use rig_agent::tool::ToolSet;
//! use rig_core::providers::openai::OpenAIConfig;
//! use tool_core::{Registry, exec::Executor};
//! use tool_rig::RigTools;
//!
//! let mut registry = Registry::linked()?;
//! tool_catalog::install(&mut registry)?;
//! let tools = RigTools::new(Executor::new(registry));
//! // rig's HTTP client, with the TLS set-up the project's own clients use (rustls on ring).
//! let tls = tool_http::tls_config()?;
//! let http = rig_reqwest::reqwest::Client::builder().tls_backend_preconfigured(tls).build()?;
//! let model = OpenAIConfig::new(std::env::var("OPENAI_API_KEY")?)
//!     .connect(rig_reqwest::ReqwestClient::from(http))
//!     .chat("gpt-5-mini");
//! let agent = AgentBuilder::new(model)
//!     .dynamic_tools(tools.core_tools())
//!     .retrieved_tools(5, tools.index(), ToolSet::from_dynamic_tools(tools.deferred_tools()))
//!     .build();
//! let answer = agent.prompt("What time is it in Tokyo?").max_turns(4).await?;
//! println!("{}", answer.output());
//! # Ok(()) }
//! ```

#![warn(missing_docs)]

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use rig_core::message::ToolName;
use rig_core::tool::{DynamicTool, ToolErrorKind, ToolExecutionError, ToolOutput};
use rig_core::vector_store::request::{Filter, VectorSearchRequest};
use rig_core::vector_store::{
    VectorSearchIdResult, VectorSearchResult, VectorStoreError, VectorStoreIndex,
};
use serde_json::Value;
use tool_catalog::{SearchOptions, SharedCatalog, ToolSession};
use tool_core::context::{ApprovalScope, Approver, Audience, Remembering};
use tool_core::error::ErrorKind;
use tool_core::exec::{CallInput, Executor};
use tool_core::registry::Tool;
use tool_core::render::{Format, RenderOptions, render};
use tool_core::{ToolContext, ToolError};

/// A registry's tools for rig agents: each a [`DynamicTool`] whose calls go through the
/// executor. Cheap to clone; clones share the calls' context and the tools searches found.
#[derive(Clone)]
pub struct RigTools {
    shared: Arc<Shared>,
}

struct Shared {
    executor: Executor,
    /// The application's context, as [`RigTools::context`] gave it.
    base: ToolContext,
    /// Who is asked before a call that needs a person's yes, as [`RigTools::approver`] gave it.
    approver: Option<Arc<dyn Approver>>,
    /// The context calls run in: the application's, for the model's audience, with the
    /// approver on it.
    context: ToolContext,
    /// The tools loaded so far: core ones, and those `search_tools` found.
    session: Mutex<ToolSession>,
    /// What the index searches (built on its first search).
    catalog: SharedCatalog,
    /// Numbers the calls' ids.
    calls: AtomicU64,
}

impl std::fmt::Debug for RigTools {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RigTools")
            .field("tools", &self.shared.executor.registry().tools().len())
            .finish_non_exhaustive()
    }
}

impl RigTools {
    /// The tools of `executor`'s registry, called in a context of their own (no principal,
    /// no approver: a call that needs a person's approval is refused, as nobody can be asked).
    pub fn new(executor: Executor) -> Self {
        Self::build(executor, ToolContext::new(), None, None)
    }

    /// Runs calls in `context` (its root, headers, event sink and approver reach every tool).
    /// Its principal, if it has one, is the caller: rig is offered only the tools it may
    /// call, and searches find no other.
    pub fn context(self, context: ToolContext) -> Self {
        let shared = self.into_shared();
        Self::build(
            shared.executor,
            context,
            shared.approver,
            Some(shared.catalog),
        )
    }

    /// Asks `approver` before a call that needs a person's yes (a tool's own
    /// `#[tool(approval)]`, or the executor's approval policy). An approval the person chose
    /// to keep lasts as long as these tools: it is kept for the context's principal or, without
    /// one, for this set of tools. A call that is not approved is not run, and the model gets
    /// a tool result that says so (a refusal, rig's `PermissionDenied`). Set after or before
    /// [`context`](Self::context), it replaces the context's approver.
    pub fn approver(self, approver: Arc<dyn Approver>) -> Self {
        let shared = self.into_shared();
        Self::build(
            shared.executor,
            shared.base,
            Some(approver),
            Some(shared.catalog),
        )
    }

    /// Searches `catalog` for deferred tools (the one [`tool_catalog::install_with`] gave
    /// `search_tools`, say, hybrid with a model), instead of a lexical catalog of its own.
    pub fn catalog(self, catalog: SharedCatalog) -> Self {
        let shared = self.into_shared();
        Self {
            shared: Arc::new(Shared { catalog, ..shared }),
        }
    }

    fn build(
        executor: Executor,
        base: ToolContext,
        approver: Option<Arc<dyn Approver>>,
        catalog: Option<SharedCatalog>,
    ) -> Self {
        static SETS: AtomicU64 = AtomicU64::new(1);
        let mut context = base.for_audience(Audience::Model);
        if let Some(approver) = &approver {
            let mut builder = context
                .derive()
                .approver(Arc::new(Remembering::new(approver.clone())));
            if context.extension::<ApprovalScope>().is_none() {
                let n = SETS.fetch_add(1, Ordering::Relaxed);
                let scope = format!("rig:{}:{n}", std::process::id());
                builder = builder.extension(ApprovalScope(scope.into()));
            }
            context = builder.build();
        }
        let registry = executor.registry();
        let session = ToolSession::new(registry).with_caller(context.principal().cloned());
        let catalog = catalog.unwrap_or_else(|| SharedCatalog::new(registry));
        Self {
            shared: Arc::new(Shared {
                executor,
                base,
                approver,
                context,
                session: Mutex::new(session),
                catalog,
                calls: AtomicU64::new(0),
            }),
        }
    }

    /// The shared state, taken out (cloned if other handles hold it).
    fn into_shared(self) -> Shared {
        Arc::try_unwrap(self.shared).unwrap_or_else(|shared| Shared {
            executor: shared.executor.clone(),
            base: shared.base.clone(),
            approver: shared.approver.clone(),
            context: shared.context.clone(),
            session: Mutex::new(lock(&shared.session).clone()),
            catalog: shared.catalog.clone(),
            calls: AtomicU64::new(0),
        })
    }

    /// The core tools the caller may call: offer them on every request
    /// (`AgentBuilder::dynamic_tools`).
    pub fn core_tools(&self) -> Vec<DynamicTool> {
        self.offered(Tool::is_core)
    }

    /// The other tools the caller may call: rig's `ToolSet` for `retrieved_tools`, from which
    /// [`index`](Self::index) picks those offered for a prompt.
    pub fn deferred_tools(&self) -> Vec<DynamicTool> {
        self.offered(|t| !t.is_core())
    }

    /// Every tool the caller may call, core or not: for a registry small enough to offer
    /// whole.
    pub fn all_tools(&self) -> Vec<DynamicTool> {
        self.offered(|_| true)
    }

    /// The tool named `name`, if the registry has it for a model and the caller may call it.
    pub fn tool(&self, name: &str) -> Option<DynamicTool> {
        let registry = self.shared.executor.registry();
        registry
            .get(name)
            .filter(|t| self.offers(t))
            .and_then(|t| self.dynamic(t))
    }

    /// What picks the deferred tools offered for a prompt, as rig's `retrieved_tools` asks
    /// a vector store to: the tools `search_tools` found so far, then the catalog's best
    /// matches for the prompt.
    pub fn index(&self) -> ToolIndex {
        ToolIndex {
            tools: self.clone(),
        }
    }

    /// The names of the tools loaded so far: core ones, and what `search_tools` found.
    pub fn loaded(&self) -> Vec<String> {
        lock(&self.shared.session)
            .loaded_names()
            .into_iter()
            .map(str::to_owned)
            .collect()
    }

    fn offered(&self, keep: impl Fn(&Tool) -> bool) -> Vec<DynamicTool> {
        self.shared
            .executor
            .registry()
            .tools()
            .iter()
            .filter(|t| keep(t) && self.offers(t))
            .filter_map(|t| self.dynamic(t))
            .collect()
    }

    /// Whether a model may be offered `tool`: one for views only is not, nor one the caller
    /// lacks the scopes of.
    fn offers(&self, tool: &Tool) -> bool {
        tool.to_model() && tool.permits(self.shared.context.principal())
    }

    /// `tool` as rig's: its name, its description, and its input schema as OpenAI-compatible
    /// providers take it (rig passes parameters on as given, and rewrites them for Gemini).
    fn dynamic(&self, tool: &Tool) -> Option<DynamicTool> {
        let name = ToolName::new(tool.name()).ok()?;
        let rendered = render(tool, Format::OpenAi, RenderOptions::default()).definition;
        let parameters = rendered["function"]["parameters"].clone();
        let shared = self.shared.clone();
        let called = tool.name().to_owned();
        Some(DynamicTool::new(
            name,
            tool.description(),
            parameters,
            move |arguments| {
                let shared = shared.clone();
                let called = called.clone();
                Box::pin(async move { shared.call(&called, arguments).await })
            },
        ))
    }
}

impl Shared {
    /// Runs one call of `name` through the executor, in a context of its own.
    async fn call(&self, name: &str, arguments: Value) -> Result<ToolOutput, ToolExecutionError> {
        let n = self.calls.fetch_add(1, Ordering::Relaxed);
        let context = self.context.derive().call_id(format!("rig-{n}")).build();
        let output = self
            .executor
            .call_in(name, CallInput::Value(arguments), context)
            .await
            .map_err(|e| execution_error(&e))?;
        lock(&self.session).observe(name, &output);
        Ok(match output.echo_or_data() {
            Ok(text) => ToolOutput::text(text),
            Err(data) => ToolOutput::json(data.clone()),
        })
    }
}

/// A call's error as rig's: the kind rig has for it, the message the model reads as it is (with
/// the JSON path of bad input), the kind's own name as the code.
///
/// ```
/// use rig_core::tool::ToolErrorKind;
/// use tool_core::{ToolError, error::ErrorKind};
///
/// let error = tool_rig::execution_error(&ToolError::new(ErrorKind::NotApproved, "kept"));
/// assert_eq!(error.kind(), ToolErrorKind::PermissionDenied);
/// assert!(error.is_refusal());
/// assert_eq!(error.model_feedback(), Some("kept"));
/// assert_eq!(error.code(), Some("not_approved"));
/// ```
pub fn execution_error(error: &ToolError) -> ToolExecutionError {
    let message = error.to_string();
    let kind = error.kind();
    let mapped = match kind {
        ErrorKind::NotApproved | ErrorKind::Refused => ToolExecutionError::refused(message),
        ErrorKind::InvalidInput => ToolExecutionError::invalid_args(message),
        ErrorKind::UnknownTool | ErrorKind::NotFound => ToolExecutionError::not_found(message),
        ErrorKind::PermissionDenied => ToolExecutionError::permission_denied(message),
        ErrorKind::Timeout => ToolExecutionError::timeout(message),
        ErrorKind::Cancelled => ToolExecutionError::cancelled(message),
        ErrorKind::Unavailable => {
            ToolExecutionError::new(ToolErrorKind::Provider, message).with_retryable(true)
        }
        _ => ToolExecutionError::other(message),
    };
    mapped.with_code(kind.as_str())
}

/// The deferred tools for a prompt, as rig's `retrieved_tools` reads them from a vector store:
/// the tools `search_tools` found so far, then the catalog's best matches for the prompt's
/// text, as many as rig asks for, each once. Only tools the caller may call.
#[derive(Clone, Debug)]
pub struct ToolIndex {
    tools: RigTools,
}

impl ToolIndex {
    /// The names of at most `limit` deferred tools for `query`.
    pub fn pick(&self, query: &str, limit: usize) -> Vec<String> {
        let shared = &self.tools.shared;
        let mut names: Vec<String> = {
            let session = lock(&shared.session);
            session
                .loaded()
                .filter(|t| !t.is_core() && t.to_model())
                .map(|t| t.name().to_owned())
                .collect()
        };
        let mut options = SearchOptions::limit(limit);
        options.include_core = false;
        options.caller = shared.context.principal().cloned();
        let found: Vec<String> = shared.catalog.read(|catalog| {
            catalog
                .search(query, &options)
                .into_iter()
                .map(|m| m.name.to_owned())
                .collect()
        });
        for name in found {
            if names.len() >= limit {
                break;
            }
            if !names.contains(&name) {
                names.push(name);
            }
        }
        names
    }
}

impl VectorStoreIndex for ToolIndex {
    type Filter = Filter<Value>;

    /// Documents: none. rig reads tools by their ids ([`top_n_ids`](Self::top_n_ids)).
    async fn top_n<T: rig_core::serde::de::DeserializeOwned + Send>(
        &self,
        _request: VectorSearchRequest<Self::Filter>,
    ) -> Result<Vec<VectorSearchResult<T>>, VectorStoreError> {
        Ok(Vec::new())
    }

    async fn top_n_ids(
        &self,
        request: VectorSearchRequest<Self::Filter>,
    ) -> Result<Vec<VectorSearchIdResult>, VectorStoreError> {
        let limit = usize::try_from(request.samples()).unwrap_or(usize::MAX);
        let names = self.pick(request.query(), limit);
        let count = names.len();
        Ok(names
            .into_iter()
            .enumerate()
            .map(|(rank, id)| VectorSearchIdResult {
                // Best first: rig keeps the order of the scores it is given.
                score: (count - rank) as f64,
                id,
            })
            .collect())
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_maps_to_rigs_and_keeps_its_message_and_name() {
        let cases = [
            (ErrorKind::InvalidInput, ToolErrorKind::InvalidArgs),
            (ErrorKind::UnknownTool, ToolErrorKind::NotFound),
            (ErrorKind::NotFound, ToolErrorKind::NotFound),
            (ErrorKind::PermissionDenied, ToolErrorKind::PermissionDenied),
            (ErrorKind::Unavailable, ToolErrorKind::Provider),
            (ErrorKind::Timeout, ToolErrorKind::Timeout),
            (ErrorKind::Cancelled, ToolErrorKind::Cancelled),
            (ErrorKind::Failed, ToolErrorKind::Other),
            (ErrorKind::Internal, ToolErrorKind::Other),
            (ErrorKind::NotApproved, ToolErrorKind::PermissionDenied),
            (ErrorKind::Refused, ToolErrorKind::PermissionDenied),
        ];
        for (ours, theirs) in cases {
            let error = execution_error(&ToolError::new(ours, "what went wrong"));
            assert_eq!(error.kind(), theirs, "{ours:?}");
            assert_eq!(error.model_feedback(), Some("what went wrong"), "{ours:?}");
            assert_eq!(error.code(), Some(ours.as_str()), "{ours:?}");
            assert_eq!(
                error.is_refusal(),
                matches!(ours, ErrorKind::NotApproved | ErrorKind::Refused)
            );
        }
        let unavailable = execution_error(&ToolError::new(ErrorKind::Unavailable, "later"));
        assert_eq!(unavailable.retryable(), Some(true));
    }
}
