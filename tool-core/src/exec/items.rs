//! Reading a resource, getting a prompt and completing an argument through the executor: the
//! same door as a call.
//!
//! A read, a get or a completion passes the stages of a call that fit it: the caller's scopes
//! before anything runs, the application's [layers](super::Layer) (which see what kind of item
//! it is, and may refuse it, rewrite its input or redact what it returns), a time limit (the
//! policy's, starting under the layers as a tool's does), cancellation, panic isolation, an
//! error sanitised for the client, audit for what needs scopes (protected data), and a tracing
//! span. It takes no person's approval: that stands between a model and an action, and neither
//! reads nor prompts act.

use std::fmt;
use std::sync::{Mutex, PoisonError};
use std::time::Instant;

use serde_json::{Value, json};

use super::Executor;
use super::layer::{Call, CompletionRef, Item, Next, Reply};
use super::pipeline::{
    CatchPanic, Stopped, digest, for_model, last_stage, missing_scopes, panic_message,
};
use crate::context::{AuditRecord, ToolContext};
use crate::error::{ErrorKind, ToolError};
use crate::prompt::{Prompt, PromptArgs, PromptReply};
use crate::resource::{Body, Resource, ResourceContent, ResourceRequest};

impl Executor {
    /// Reads the resource at `uri` (a resource's own URI, or one a template matches), through
    /// the gate. Each content has its URI (the one read, unless it names its own) and MIME type
    /// (the resource's, unless it names its own).
    ///
    /// A URI nothing answers, or one whose resource needs scopes the caller lacks, is a
    /// `not_found` or `permission_denied` error that names it; an MCP server answers the
    /// first as `-32602` with the URI in `data`.
    ///
    /// ```
    /// use tool_core::prelude::*;
    /// use tool_core::resource::{Body, Resource, ResourceContent};
    /// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
    /// let mut registry = Registry::empty();
    /// registry.add_resource(
    ///     Resource::new("notes://{id}", "note", "A note, by id.", |r, _| async move {
    ///         Ok(vec![ResourceContent::text(format!("note {}", r.variable("id").unwrap()))])
    ///     })
    ///     .unwrap()
    ///     .mime_type("text/plain"),
    /// ).unwrap();
    /// let executor = Executor::new(registry);
    /// let read = executor.read_resource("notes://7", &ToolContext::new()).await.unwrap();
    /// assert_eq!(read[0].body, Body::Text("note 7".into()));
    /// assert_eq!(read[0].uri.as_deref(), Some("notes://7"));
    /// assert_eq!(read[0].mime_type.as_deref(), Some("text/plain"));
    /// assert!(executor.read_resource("notes://", &ToolContext::new()).await.is_err());
    /// # });
    /// ```
    pub async fn read_resource(
        &self,
        uri: &str,
        ctx: &ToolContext,
    ) -> Result<Vec<ResourceContent>, ToolError> {
        let Some((resource, _)) = self.registry().resource_for(uri) else {
            return Err(no_resource(uri));
        };
        let audited = !resource.scope_list().is_empty();
        let span = tracing::info_span!("read_resource", resource.uri = %uri, error.type = tracing::field::Empty);
        let started = Instant::now();
        let ran = Mutex::new(json!({ "uri": uri }));
        let result = match self.resolve(uri, ctx) {
            Err(refused) => Err(refused),
            Ok(_) => {
                let last = last_stage(|call: Call<'_>| {
                    let ran = &ran;
                    Box::pin(async move {
                        let (ctx, input) = call.into_parts();
                        let ctx: &ToolContext = &ctx;
                        *ran.lock().unwrap_or_else(PoisonError::into_inner) = input.clone();
                        // A layer may have pointed the read elsewhere: what the URI names now,
                        // held to its own scopes.
                        let uri = input.get("uri").and_then(Value::as_str).ok_or_else(|| {
                            ToolError::invalid_input("a read names its `uri`, a string")
                                .with_path("/uri")
                        })?;
                        let (resource, request) = self.resolve(uri, ctx)?;
                        self.read_now(resource, request, ctx)
                            .await
                            .map(Reply::Resource)
                    })
                });
                Next::new(self.layer_stack(), &last)
                    .run(Call::new(
                        Item::Resource(resource),
                        ctx,
                        json!({ "uri": uri }),
                    ))
                    .await
                    .and_then(Reply::into_resource)
            }
        };
        let ran = ran.into_inner().unwrap_or_else(PoisonError::into_inner);
        self.settle(
            result,
            ctx,
            &span,
            audited.then(|| Audit {
                name: resource.name(),
                input: ran,
                started,
            }),
        )
    }

    /// The resource `uri` names, if the caller holds its scopes.
    fn resolve(
        &self,
        uri: &str,
        ctx: &ToolContext,
    ) -> Result<(&Resource, ResourceRequest), ToolError> {
        let (resource, request) = self
            .registry()
            .resource_for(uri)
            .ok_or_else(|| no_resource(uri))?;
        let missing = resource.missing_scopes(ctx.principal());
        if !missing.is_empty() {
            return Err(missing_scopes(format_args!("reading `{uri}`"), &missing));
        }
        Ok((resource, request))
    }

    /// Reads `resource` within the time limit, which starts here: each content with its URI
    /// (the one read, unless it names its own) and MIME type (the resource's, unless it names
    /// its own).
    async fn read_now(
        &self,
        resource: &Resource,
        request: ResourceRequest,
        ctx: &ToolContext,
    ) -> Result<Vec<ResourceContent>, ToolError> {
        let uri = request.uri().to_owned();
        let ctx = self.item_context(ctx);
        let read = CatchPanic::start(|| resource.read(request, ctx.clone()));
        let contents = self.race(read, &ctx, Subject::Resource(&uri)).await?;
        if contents.is_empty() {
            // MCP: a read never answers with no contents (SEP-2164).
            return Err(ToolError::not_found(format!(
                "the resource `{uri}` has no contents"
            )));
        }
        let mime = resource.mime();
        Ok(contents
            .into_iter()
            .map(|mut c| {
                c.uri.get_or_insert_with(|| uri.clone());
                if c.mime_type.is_none() {
                    c.mime_type = mime.map(str::to_owned).or_else(|| match c.body {
                        Body::Text(_) => Some("text/plain".to_owned()),
                        Body::Blob(_) => None,
                    });
                }
                c
            })
            .collect())
    }

    /// Gets the prompt `name` with `args`, through the gate: an unknown prompt is `not_found`,
    /// a missing required argument or one the prompt does not take `invalid_input` with its
    /// name as the path.
    ///
    /// ```
    /// use tool_core::prelude::*;
    /// use tool_core::prompt::{Prompt, PromptArgument, PromptArgs, PromptContent, PromptReply};
    /// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
    /// let mut registry = Registry::empty();
    /// registry.add_prompt(Prompt::new(
    ///     "greet_someone",
    ///     "Greets someone.",
    ///     [PromptArgument::required("name", "Who")],
    ///     |args, _| async move { Ok(PromptReply::user(format!("Say hello to {}", args.get("name").unwrap()))) },
    /// ).unwrap()).unwrap();
    /// let executor = Executor::new(registry);
    /// let args: PromptArgs = [("name", "Ada")].into_iter().collect();
    /// let reply = executor.get_prompt("greet_someone", args, &ToolContext::new()).await.unwrap();
    /// assert_eq!(reply.messages[0].content, PromptContent::Text("Say hello to Ada".into()));
    /// let none = executor.get_prompt("greet_someone", PromptArgs::default(), &ToolContext::new()).await;
    /// assert_eq!(none.unwrap_err().path(), Some("/name"));
    /// # });
    /// ```
    pub async fn get_prompt(
        &self,
        name: &str,
        args: PromptArgs,
        ctx: &ToolContext,
    ) -> Result<PromptReply, ToolError> {
        let Some(prompt) = self.registry().prompt(name) else {
            return Err(ToolError::not_found(format!("no prompt is named `{name}`")));
        };
        let missing = prompt.missing_scopes(ctx.principal());
        let audited = !prompt.scope_list().is_empty();
        let span = tracing::info_span!("get_prompt", prompt.name = %name, error.type = tracing::field::Empty);
        let started = Instant::now();
        let input = Value::Object(
            args.iter()
                .map(|(k, v)| (k.to_owned(), Value::String(v.to_owned())))
                .collect(),
        );
        let ran = Mutex::new(input.clone());
        let result = if !missing.is_empty() {
            Err(missing_scopes(
                format_args!("getting the prompt `{name}`"),
                &missing,
            ))
        } else {
            let last = last_stage(|call: Call<'_>| {
                let ran = &ran;
                Box::pin(async move {
                    let (ctx, input) = call.into_parts();
                    let ctx: &ToolContext = &ctx;
                    *ran.lock().unwrap_or_else(PoisonError::into_inner) = input.clone();
                    let args = prompt_args(input)?;
                    self.get_now(prompt, args, ctx).await.map(Reply::Prompt)
                })
            });
            Next::new(self.layer_stack(), &last)
                .run(Call::new(Item::Prompt(prompt), ctx, input))
                .await
                .and_then(Reply::into_prompt)
        };
        let ran = ran.into_inner().unwrap_or_else(PoisonError::into_inner);
        self.settle(
            result,
            ctx,
            &span,
            audited.then(|| Audit {
                name: prompt.name(),
                input: ran,
                started,
            }),
        )
    }

    /// Gets `prompt` with `args` (checked against its arguments) within the time limit, which
    /// starts here.
    async fn get_now(
        &self,
        prompt: &Prompt,
        args: PromptArgs,
        ctx: &ToolContext,
    ) -> Result<PromptReply, ToolError> {
        prompt.check_args(&args)?;
        let ctx = self.item_context(ctx);
        let get = CatchPanic::start(|| prompt.get(args, ctx.clone()));
        self.race(get, &ctx, Subject::Prompt(prompt.name())).await
    }

    /// Suggestions for an argument of a prompt or a variable of a resource template, given
    /// what has been typed: the completer's values, or none when it has no completer. The
    /// prompt or template must exist and the caller must hold its scopes (`not_found`
    /// otherwise: a completion must not tell what scopes hide).
    pub async fn complete(
        &self,
        of: CompletionRef<'_>,
        argument: &str,
        typed: &str,
        ctx: &ToolContext,
    ) -> Result<Vec<String>, ToolError> {
        let principal = ctx.principal();
        let found = match of {
            CompletionRef::Prompt(name) => self
                .registry()
                .prompt(name)
                .is_some_and(|p| p.permits(principal)),
            CompletionRef::Resource(uri) => self
                .registry()
                .resources()
                .iter()
                .any(|r| r.uri() == uri && r.permits(principal)),
        };
        if !found {
            return Err(ToolError::not_found(match of {
                CompletionRef::Prompt(name) => format!("no prompt is named `{name}`"),
                CompletionRef::Resource(uri) => format!("no resource template is `{uri}`"),
            }));
        }
        let last = last_stage(|call: Call<'_>| {
            Box::pin(async move {
                let (_, input) = call.into_parts();
                let text = |key: &str| {
                    input.get(key).and_then(Value::as_str).ok_or_else(|| {
                        ToolError::invalid_input(format!(
                            "a completion names its `{key}`, a string"
                        ))
                        .with_path(format!("/{key}"))
                    })
                };
                let (argument, typed) = (text("argument")?, text("value")?);
                let values = match of {
                    CompletionRef::Prompt(name) => self
                        .registry()
                        .prompt(name)
                        .and_then(|p| p.completions(argument, typed)),
                    CompletionRef::Resource(uri) => self
                        .registry()
                        .resources()
                        .iter()
                        .find(|r| r.uri() == uri)
                        .and_then(|r| r.completions(argument, typed)),
                };
                Ok(Reply::Completion(values.unwrap_or_default()))
            })
        });
        let input = json!({ "argument": argument, "value": typed });
        Next::new(self.layer_stack(), &last)
            .run(Call::new(Item::Completion(of), ctx, input))
            .await
            .and_then(Reply::into_completion)
    }

    /// The context a reader or getter runs in: the caller's, with this executor to call tools
    /// through and the policy's time limit.
    fn item_context(&self, ctx: &ToolContext) -> ToolContext {
        let policy = self.policy();
        let deadline = Instant::now() + policy.default_timeout.min(policy.max_timeout);
        ctx.clone().into_executor(self.nested(), Some(deadline))
    }

    /// Runs a read or get, raced against the context's deadline and cancellation.
    async fn race<T, F>(
        &self,
        run: CatchPanic<F>,
        ctx: &ToolContext,
        what: Subject<'_>,
    ) -> Result<T, ToolError>
    where
        F: std::future::Future<Output = Result<T, ToolError>> + Unpin,
    {
        let out_of_time = async {
            match ctx.deadline() {
                Some(d) => tokio::time::sleep_until(d.into()).await,
                None => std::future::pending().await,
            }
        };
        let result = tokio::select! {
            biased;
            () = ctx.cancellation().cancelled() => Err(ToolError::new(ErrorKind::Cancelled, format!("{what} was cancelled"))),
            () = out_of_time => Err(ToolError::timeout(format!("{what} did not finish in time"))),
            outcome = run => match outcome {
                Ok(result) => result,
                Err(Stopped::Panicked(payload)) => Err(ToolError::internal(format!("{what} panicked: {}", panic_message(payload)))),
                Err(Stopped::Other(e)) => Err(ToolError::new(ErrorKind::Cancelled, format!("{what} was stopped: {e}"))),
            },
        };
        // What the handler says is sanitised for the client (operators get it whole, from
        // `settle`'s trace); the gate's own refusals name only what the client sent.
        result.map_err(|error| {
            tracing::warn!(error = ?error, "{what} failed");
            for_model(error, ctx.root())
        })
    }

    /// Records the outcome: the error's kind on the span, and audit where asked.
    fn settle<T>(
        &self,
        result: Result<T, ToolError>,
        ctx: &ToolContext,
        span: &tracing::Span,
        audit: Option<Audit<'_>>,
    ) -> Result<T, ToolError> {
        if let Some(audit) = audit {
            ctx.audit().record(&AuditRecord {
                tool: audit.name.to_owned(),
                call_id: ctx.call_id().to_owned(),
                principal: ctx.principal().map(|p| p.subject().to_owned()),
                input_digest: digest(&audit.input),
                outcome: match &result {
                    Ok(_) => "ok".to_owned(),
                    Err(e) => e.kind().as_str().to_owned(),
                },
                duration_ms: audit.started.elapsed().as_millis() as u64,
                approval: None,
                approval_message: None,
            });
        }
        if let Err(error) = &result {
            span.record("error.type", error.kind().as_str());
        }
        result
    }
}

/// A prompt's arguments from a call's input: an object of strings.
fn prompt_args(input: Value) -> Result<PromptArgs, ToolError> {
    let Value::Object(fields) = input else {
        return Err(ToolError::invalid_input(
            "a prompt's arguments are an object of strings",
        ));
    };
    fields
        .into_iter()
        .map(|(name, value)| match value {
            Value::String(text) => Ok((name, text)),
            _ => Err(ToolError::invalid_input(format!(
                "the argument `{name}` of a prompt is a string"
            ))
            .with_path(format!("/{name}"))),
        })
        .collect()
}

fn no_resource(uri: &str) -> ToolError {
    ToolError::not_found(format!("no resource has the URI `{uri}`"))
}

/// What an audit record of a read or get says.
struct Audit<'a> {
    name: &'a str,
    input: serde_json::Value,
    started: Instant,
}

/// What ran, for messages.
#[derive(Clone, Copy)]
enum Subject<'a> {
    Resource(&'a str),
    Prompt(&'a str),
}

impl fmt::Display for Subject<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Resource(uri) => write!(f, "reading `{uri}`"),
            Self::Prompt(name) => write!(f, "the prompt `{name}`"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Registry;
    use crate::context::Principal;
    use crate::prompt::{Prompt, PromptArgument};
    use crate::resource::Resource;

    fn executor() -> Executor {
        let mut registry = Registry::empty();
        registry
            .add_resource(
                Resource::new("vault://secret", "secret", "A secret.", |_, _| async {
                    Ok(vec![ResourceContent::text("s")])
                })
                .unwrap()
                .scopes(["vault:read"]),
            )
            .unwrap();
        registry
            .add_resource(
                Resource::new("boom://x", "boom", "Panics.", |_, _| async {
                    panic!("the disk is on fire")
                })
                .unwrap(),
            )
            .unwrap();
        registry
            .add_resource(
                Resource::new("empty://x", "empty", "Nothing.", |_, _| async {
                    Ok(vec![])
                })
                .unwrap(),
            )
            .unwrap();
        registry
            .add_prompt(
                Prompt::new(
                    "plan_trip",
                    "Plans a trip.",
                    [PromptArgument::required("city", "Where")],
                    |_, _| async { Ok(PromptReply::user("go")) },
                )
                .unwrap()
                .complete("city", |typed| {
                    ["paris", "park", "rome"]
                        .into_iter()
                        .filter(|c| c.starts_with(typed))
                        .map(str::to_owned)
                        .collect()
                })
                .unwrap(),
            )
            .unwrap();
        Executor::new(registry)
    }

    #[tokio::test]
    async fn scopes_guard_a_read_and_what_is_not_there_is_named() {
        let e = executor();
        let reader = ToolContext::builder()
            .principal(Principal::new("ada").with_scopes(["vault:read"]))
            .build();
        let other = ToolContext::builder()
            .principal(Principal::new("bob"))
            .build();
        assert!(e.read_resource("vault://secret", &reader).await.is_ok());
        let refused = e.read_resource("vault://secret", &other).await.unwrap_err();
        assert_eq!(refused.kind(), ErrorKind::PermissionDenied);
        assert!(
            refused
                .to_string()
                .contains("reading `vault://secret` needs the scope `vault:read`"),
            "{refused}"
        );
        let missing = e.read_resource("vault://nope", &reader).await.unwrap_err();
        assert_eq!(missing.kind(), ErrorKind::NotFound);
        assert!(missing.to_string().contains("vault://nope"));
        let empty = e.read_resource("empty://x", &reader).await.unwrap_err();
        assert_eq!(empty.kind(), ErrorKind::NotFound);
    }

    #[tokio::test]
    async fn a_panicking_reader_is_an_internal_error_not_a_crash() {
        let err = executor()
            .read_resource("boom://x", &ToolContext::new())
            .await
            .unwrap_err();
        assert_eq!(err.kind(), ErrorKind::Internal);
    }

    #[tokio::test(start_paused = true)]
    async fn a_slow_reader_times_out_on_the_policy() {
        let mut registry = Registry::empty();
        registry
            .add_resource(
                Resource::new("slow://x", "slow", "Never ends.", |_, _| async {
                    std::future::pending().await
                })
                .unwrap(),
            )
            .unwrap();
        let err = Executor::new(registry)
            .read_resource("slow://x", &ToolContext::new())
            .await
            .unwrap_err();
        assert_eq!(err.kind(), ErrorKind::Timeout);
    }

    #[tokio::test]
    async fn completion_needs_the_prompt_and_its_scopes() {
        let e = executor();
        let ctx = ToolContext::new();
        assert_eq!(
            e.complete(CompletionRef::Prompt("plan_trip"), "city", "pa", &ctx)
                .await
                .unwrap(),
            ["paris", "park"]
        );
        assert!(
            e.complete(CompletionRef::Prompt("plan_trip"), "other", "pa", &ctx)
                .await
                .unwrap()
                .is_empty()
        );
        assert_eq!(
            e.complete(CompletionRef::Prompt("nope"), "city", "", &ctx)
                .await
                .unwrap_err()
                .kind(),
            ErrorKind::NotFound
        );
        assert_eq!(
            e.complete(
                CompletionRef::Resource("vault://secret"),
                "x",
                "",
                &ToolContext::builder()
                    .principal(Principal::new("bob"))
                    .build()
            )
            .await
            .unwrap_err()
            .kind(),
            ErrorKind::NotFound
        );
    }
}
