//! Prompts: messages a person picks from a client's menu to start or steer a conversation (MCP's
//! `prompts/list` and `prompts/get`), written with [`#[prompt]`](macro@crate::prompt) or built at
//! run time with [`Prompt::new`], held by the [`Registry`](crate::Registry) beside the tools and
//! got through the executor's gate ([`Executor::get_prompt`](crate::Executor::get_prompt)).
//!
//! A prompt's arguments are strings (MCP gives no other type); each may have a completer for
//! `completion/complete`.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use crate::context::{Principal, ToolContext};
use crate::definition::Origin;
use crate::error::ToolError;
use crate::resource::{Completer, DefinitionError, ResourceContent};

/// What a get returns, in time.
pub type PromptFuture = Pin<Box<dyn Future<Output = Result<PromptReply, ToolError>> + Send>>;

type Getter = Arc<dyn Fn(PromptArgs, ToolContext) -> PromptFuture + Send + Sync>;

/// A prompt, as the registry holds it. Not `Clone`: a prompt leaves the registry it was added
/// to only into an executor's copy of it ([`Edit`](crate::registry::Edit)).
pub struct Prompt {
    inner: Arc<Inner>,
}

struct Inner {
    name: Cow<'static, str>,
    title: Option<Cow<'static, str>>,
    description: Cow<'static, str>,
    arguments: Vec<PromptArgument>,
    scopes: Vec<Cow<'static, str>>,
    origin: Origin,
    getter: Getter,
    completers: Vec<(String, Completer)>,
}

impl fmt::Debug for Prompt {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Prompt")
            .field("name", &self.name())
            .field("arguments", &self.inner.arguments)
            .finish_non_exhaustive()
    }
}

/// One argument of a prompt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PromptArgument {
    /// Its name.
    pub name: Cow<'static, str>,
    /// What to give.
    pub description: Option<Cow<'static, str>>,
    /// Whether a get must give it.
    pub required: bool,
}

impl PromptArgument {
    /// A required argument.
    pub fn required(
        name: impl Into<Cow<'static, str>>,
        description: impl Into<Cow<'static, str>>,
    ) -> Self {
        Self {
            name: name.into(),
            description: Some(description.into()),
            required: true,
        }
    }

    /// An argument a get may leave out.
    pub fn optional(
        name: impl Into<Cow<'static, str>>,
        description: impl Into<Cow<'static, str>>,
    ) -> Self {
        Self {
            required: false,
            ..Self::required(name, description)
        }
    }
}

impl Prompt {
    /// A second handle on the same prompt, for a registry's copy (see [`Edit`](crate::registry::Edit)).
    pub(crate) fn copy(&self) -> Self {
        Self {
            inner: self.inner.clone(),
        }
    }

    /// A prompt named `name` (what MCP allows: ASCII letters, digits, `_`, `-` and `.`) with
    /// `arguments`, whose messages `getter` writes.
    ///
    /// ```
    /// use tool_core::prompt::{Prompt, PromptArgument, PromptReply};
    /// let review = Prompt::new(
    ///     "review_code",
    ///     "Asks for a review of a change.",
    ///     [PromptArgument::required("diff", "The change")],
    ///     |args, _| async move { Ok(PromptReply::user(format!("Review:\n{}", args.get("diff").unwrap_or("")))) },
    /// )
    /// .unwrap();
    /// assert_eq!(review.arguments()[0].name, "diff");
    /// ```
    pub fn new<F, Fut>(
        name: impl Into<Cow<'static, str>>,
        description: impl Into<Cow<'static, str>>,
        arguments: impl IntoIterator<Item = PromptArgument>,
        getter: F,
    ) -> Result<Self, DefinitionError>
    where
        F: Fn(PromptArgs, ToolContext) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<PromptReply, ToolError>> + Send + 'static,
    {
        Self::build(
            name.into(),
            description.into(),
            arguments.into_iter().collect(),
            Origin::Dynamic("the host program".to_owned()),
            Arc::new(move |args, ctx| Box::pin(getter(args, ctx))),
        )
    }

    fn build(
        name: Cow<'static, str>,
        description: Cow<'static, str>,
        arguments: Vec<PromptArgument>,
        origin: Origin,
        getter: Getter,
    ) -> Result<Self, DefinitionError> {
        // What MCP allows of a name (SEP-986's rule for tools): `#[prompt]` holds its own
        // to snake_case, but a prompt made at run time may carry a name someone else chose,
        // or a mount's `NAME__` prefix.
        let allowed = |c: char| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.');
        if name.is_empty() || name.len() > 128 || !name.chars().all(allowed) {
            return Err(DefinitionError::Name {
                name: name.into_owned(),
                reason: "a prompt's name is 1 to 128 ASCII letters, digits, `_`, `-` or `.`"
                    .to_owned(),
            });
        }
        let mut seen = std::collections::BTreeSet::new();
        for argument in &arguments {
            if argument.name.is_empty() || !seen.insert(argument.name.as_ref()) {
                return Err(DefinitionError::Name {
                    name: argument.name.clone().into_owned(),
                    reason: format!("the arguments of `{name}` need distinct, non-empty names"),
                });
            }
        }
        Ok(Self {
            inner: Arc::new(Inner {
                name,
                title: None,
                description,
                arguments,
                scopes: Vec::new(),
                origin,
                getter,
                completers: Vec::new(),
            }),
        })
    }

    pub(crate) fn from_def(def: &'static PromptDef) -> Result<Self, DefinitionError> {
        let get = def.get.open();
        let arguments = def
            .arguments
            .iter()
            .map(|a| PromptArgument {
                name: Cow::Borrowed(a.name),
                description: a.description.map(Cow::Borrowed),
                required: a.required,
            })
            .collect();
        let mut prompt = Self::build(
            Cow::Borrowed(def.name),
            Cow::Borrowed(def.description),
            arguments,
            Origin::Linked(def.location),
            Arc::new(move |args, ctx| get(args, ctx)),
        )?;
        let inner = prompt.inner_mut();
        inner.title = def.title.map(Cow::Borrowed);
        inner.scopes = def.scopes.iter().map(|s| Cow::Borrowed(*s)).collect();
        for a in def.arguments {
            if let Some(complete) = a.complete {
                inner
                    .completers
                    .push((a.name.to_owned(), Arc::new(complete)));
            }
        }
        Ok(prompt)
    }

    fn inner_mut(&mut self) -> &mut Inner {
        // A prompt is built, then shared: the builder methods run on the only handle.
        Arc::get_mut(&mut self.inner).expect("a prompt is configured before it is shared")
    }

    /// A title for people (the name is for programs).
    #[must_use]
    pub fn title(mut self, title: impl Into<Cow<'static, str>>) -> Self {
        self.inner_mut().title = Some(title.into());
        self
    }

    /// OAuth scopes a caller needs to get it, as `#[tool(scopes(..))]` for a tool.
    #[must_use]
    pub fn scopes<S: Into<Cow<'static, str>>>(
        mut self,
        scopes: impl IntoIterator<Item = S>,
    ) -> Self {
        self.inner_mut().scopes = scopes.into_iter().map(Into::into).collect();
        self
    }

    /// Who registered it, for error messages (`--mount docs`).
    #[must_use]
    pub fn origin(mut self, origin: impl Into<String>) -> Self {
        self.inner_mut().origin = Origin::Dynamic(origin.into());
        self
    }

    /// Completes the argument `argument` with `completer`.
    pub fn complete(
        mut self,
        argument: &str,
        completer: impl Fn(&str) -> Vec<String> + Send + Sync + 'static,
    ) -> Result<Self, DefinitionError> {
        if !self.inner.arguments.iter().any(|a| a.name == argument) {
            return Err(DefinitionError::UnknownArgument {
                argument: argument.to_owned(),
                of: self.name().to_owned(),
            });
        }
        self.inner_mut()
            .completers
            .push((argument.to_owned(), Arc::new(completer)));
        Ok(self)
    }

    /// Whether `other` is this very prompt (a handle to the same definition), not only an
    /// equal one.
    pub fn same(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.inner, &other.inner)
    }

    /// Its name.
    pub fn name(&self) -> &str {
        &self.inner.name
    }

    /// The title for people, if it has one.
    pub fn title_text(&self) -> Option<&str> {
        self.inner.title.as_deref()
    }

    /// What it is for.
    pub fn description(&self) -> &str {
        &self.inner.description
    }

    /// Its arguments, in order.
    pub fn arguments(&self) -> &[PromptArgument] {
        &self.inner.arguments
    }

    /// The scopes a caller needs.
    pub fn scope_list(&self) -> &[Cow<'static, str>] {
        &self.inner.scopes
    }

    /// Where it was defined.
    pub fn defined_at(&self) -> &Origin {
        &self.inner.origin
    }

    /// Whether `principal` holds every scope it needs.
    pub fn permits(&self, principal: Option<&Principal>) -> bool {
        self.missing_scopes(principal).is_empty()
    }

    pub(crate) fn missing_scopes(&self, principal: Option<&Principal>) -> Vec<&str> {
        principal
            .map(|p| p.missing_scopes(&self.inner.scopes))
            .unwrap_or_default()
    }

    /// Suggestions for `argument` given what has been typed, or `None` if it has no completer.
    pub fn completions(&self, argument: &str, typed: &str) -> Option<Vec<String>> {
        crate::resource::completions(&self.inner.completers, argument, typed)
    }

    /// Gets it, bare: no scopes, limits or audit. Use
    /// [`Executor::get_prompt`](crate::Executor::get_prompt), which adds them.
    pub(crate) fn get(&self, args: PromptArgs, ctx: ToolContext) -> PromptFuture {
        (self.inner.getter)(args, ctx)
    }

    /// The arguments checked against the prompt's: a required one missing, or one it does not
    /// take, is refused with its name.
    pub(crate) fn check_args(&self, args: &PromptArgs) -> Result<(), ToolError> {
        for a in self.arguments() {
            if a.required && args.get(&a.name).is_none() {
                return Err(ToolError::invalid_input(format!(
                    "the prompt `{}` needs the argument `{}`",
                    self.name(),
                    a.name
                ))
                .with_path(format!("/{}", a.name)));
            }
        }
        if let Some(unknown) = args
            .0
            .keys()
            .find(|k| !self.arguments().iter().any(|a| a.name == k.as_str()))
        {
            let known: Vec<_> = self
                .arguments()
                .iter()
                .map(|a| format!("`{}`", a.name))
                .collect();
            return Err(ToolError::invalid_input(format!(
                "the prompt `{}` has no argument `{unknown}`; it takes {}",
                self.name(),
                if known.is_empty() {
                    "none".to_owned()
                } else {
                    known.join(", ")
                }
            ))
            .with_path(format!("/{unknown}")));
        }
        Ok(())
    }
}

/// The arguments of a get, by name.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PromptArgs(BTreeMap<String, String>);

impl PromptArgs {
    /// The value of `name`, if given.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.0.get(name).map(String::as_str)
    }

    /// Every argument given, by name.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &str)> {
        self.0.iter().map(|(k, v)| (k.as_str(), v.as_str()))
    }
}

impl<K: Into<String>, V: Into<String>> FromIterator<(K, V)> for PromptArgs {
    fn from_iter<I: IntoIterator<Item = (K, V)>>(iter: I) -> Self {
        Self(
            iter.into_iter()
                .map(|(k, v)| (k.into(), v.into()))
                .collect(),
        )
    }
}

/// Who says a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// The person.
    User,
    /// The model.
    Assistant,
}

impl Role {
    /// The role as MCP writes it: `user` or `assistant`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::User => "user",
            Self::Assistant => "assistant",
        }
    }
}

/// One message of a prompt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PromptMessage {
    /// Who says it.
    pub role: Role,
    /// What it holds.
    pub content: PromptContent,
}

impl PromptMessage {
    /// A message of the person's.
    pub fn user(content: impl Into<PromptContent>) -> Self {
        Self {
            role: Role::User,
            content: content.into(),
        }
    }

    /// A message of the model's.
    pub fn assistant(content: impl Into<PromptContent>) -> Self {
        Self {
            role: Role::Assistant,
            content: content.into(),
        }
    }
}

/// What a message holds.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum PromptContent {
    /// Text.
    Text(String),
    /// An image: its bytes and MIME type (`image/png`).
    Image {
        /// The bytes (base64 on the wire).
        data: Vec<u8>,
        /// Its MIME type.
        mime_type: String,
    },
    /// A resource's content, embedded; its `uri` must be set.
    Resource(ResourceContent),
}

impl PromptContent {
    /// An image of `mime_type` (`image/png`).
    pub fn image(mime_type: impl Into<String>, data: impl Into<Vec<u8>>) -> Self {
        Self::Image {
            data: data.into(),
            mime_type: mime_type.into(),
        }
    }
}

impl From<ResourceContent> for PromptContent {
    fn from(content: ResourceContent) -> Self {
        Self::Resource(content)
    }
}

impl From<String> for PromptContent {
    fn from(text: String) -> Self {
        Self::Text(text)
    }
}

impl From<&str> for PromptContent {
    fn from(text: &str) -> Self {
        Self::Text(text.to_owned())
    }
}

/// A prompt's messages, with a description of this get's result if it has one.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct PromptReply {
    /// What these messages are, if it says more than the prompt's description.
    pub description: Option<String>,
    /// The messages, in order.
    pub messages: Vec<PromptMessage>,
}

impl PromptReply {
    /// One message of the person's, in text.
    pub fn user(text: impl Into<String>) -> Self {
        Self {
            description: None,
            messages: vec![PromptMessage::user(text.into())],
        }
    }
}

/// What a `#[prompt]` function may return: text (one message of the person's), one
/// [`PromptMessage`], several, or a [`PromptReply`].
#[diagnostic::on_unimplemented(
    message = "a #[prompt] cannot return `{Self}`",
    label = "not prompt messages",
    note = "return String, PromptMessage, Vec<PromptMessage> or PromptReply (or a Result of one)"
)]
pub trait IntoPromptReply {
    /// The reply.
    fn into_reply(self) -> PromptReply;
}

impl IntoPromptReply for String {
    fn into_reply(self) -> PromptReply {
        PromptReply::user(self)
    }
}

impl IntoPromptReply for &'static str {
    fn into_reply(self) -> PromptReply {
        PromptReply::user(self)
    }
}

impl IntoPromptReply for PromptMessage {
    fn into_reply(self) -> PromptReply {
        PromptReply {
            description: None,
            messages: vec![self],
        }
    }
}

impl IntoPromptReply for Vec<PromptMessage> {
    fn into_reply(self) -> PromptReply {
        PromptReply {
            description: None,
            messages: self,
        }
    }
}

impl IntoPromptReply for PromptReply {
    fn into_reply(self) -> PromptReply {
        self
    }
}

/// The const record `#[prompt]` submits to `inventory` for every prompt. Not a public API: the
/// expansion names it through `__private`.
#[doc(hidden)]
pub struct PromptDef {
    /// Its name (the function's, unless `name = ...`).
    pub name: &'static str,
    /// `title = ...`.
    pub title: Option<&'static str>,
    /// From the doc comment.
    pub description: &'static str,
    /// Its arguments, from the function's parameters.
    pub arguments: &'static [PromptArgDef],
    /// `scopes(..)`.
    pub scopes: &'static [&'static str],
    /// Writes its messages.
    pub get: crate::linked::Sealed<fn(PromptArgs, ToolContext) -> PromptFuture>,
    /// Where it was written.
    pub location: crate::definition::Location,
}

/// One argument of a [`PromptDef`].
#[doc(hidden)]
pub struct PromptArgDef {
    /// Its name.
    pub name: &'static str,
    /// `#[arg(description = ...)]`.
    pub description: Option<&'static str>,
    /// Not an `Option`.
    pub required: bool,
    /// `#[arg(complete = ...)]`.
    pub complete: Option<crate::resource::CompleteFn>,
}

inventory::collect!(PromptDef);

#[cfg(test)]
mod tests {
    use super::*;

    fn two() -> Prompt {
        Prompt::new(
            "compare_things",
            "d",
            [
                PromptArgument::required("a", "first"),
                PromptArgument::optional("b", "second"),
            ],
            |_, _| async { Ok(PromptReply::default()) },
        )
        .unwrap()
    }

    #[test]
    fn arguments_are_checked_by_name() {
        let p = two();
        let args = |pairs: &[(&str, &str)]| pairs.iter().copied().collect::<PromptArgs>();
        assert!(p.check_args(&args(&[("a", "1")])).is_ok());
        let missing = p.check_args(&args(&[("b", "1")])).unwrap_err();
        assert_eq!(missing.path(), Some("/a"));
        assert!(missing.to_string().contains("needs the argument `a`"));
        let unknown = p.check_args(&args(&[("a", "1"), ("c", "1")])).unwrap_err();
        assert!(
            unknown
                .to_string()
                .contains("no argument `c`; it takes `a`, `b`"),
            "{unknown}"
        );
    }

    #[test]
    fn names_are_held_to_the_tool_rule() {
        let bad = Prompt::new("Bad Name", "d", [], |_, _| async {
            Ok(PromptReply::default())
        });
        assert!(matches!(bad, Err(DefinitionError::Name { .. })));
        let twice = Prompt::new(
            "twice",
            "d",
            [
                PromptArgument::required("a", "x"),
                PromptArgument::required("a", "y"),
            ],
            |_, _| async { Ok(PromptReply::default()) },
        );
        assert!(matches!(twice, Err(DefinitionError::Name { .. })));
        assert!(two().complete("c", |_| vec![]).is_err());
        assert_eq!(
            two()
                .complete("b", |t| vec![t.to_uppercase()])
                .unwrap()
                .completions("b", "x"),
            Some(vec!["X".to_owned()])
        );
    }
}
