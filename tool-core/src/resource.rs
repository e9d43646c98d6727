//! Resources: data a client reads by URI (MCP's `resources/list`, `resources/templates/list`
//! and `resources/read`), written with [`#[resource]`](macro@crate::resource) or built at run
//! time with [`Resource::new`], held by the [`Registry`](crate::Registry) beside the tools and
//! read through the executor's gate ([`Executor::read_resource`](crate::Executor::read_resource)):
//! the caller's scopes, a time limit, cancellation, panic isolation, audit and tracing.
//!
//! A resource's URI may be a template (`notes://{id}`, RFC 6570's simple form): it is then
//! listed as a template, and a read of any URI it matches gives the handler the variables.

use std::borrow::Cow;
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use crate::context::{Principal, ToolContext};
use crate::definition::Origin;
use crate::error::ToolError;

/// What a read returns, in time.
pub type ReadFuture = Pin<Box<dyn Future<Output = Result<Vec<ResourceContent>, ToolError>> + Send>>;

type Reader = Arc<dyn Fn(ResourceRequest, ToolContext) -> ReadFuture + Send + Sync>;

/// Suggestions for the value of an argument (MCP `completion/complete`): given what the user
/// has typed so far, the values that could complete it, best first.
pub type Completer = Arc<dyn Fn(&str) -> Vec<String> + Send + Sync>;

/// A resource or resource template, as the registry holds it. Not `Clone`: a resource leaves
/// the registry it was added to only into an executor's copy of it ([`Edit`](crate::registry::Edit)).
pub struct Resource {
    inner: Arc<Inner>,
}

struct Inner {
    uri: Cow<'static, str>,
    /// The template's parts when the URI has variables: `(true, name)` for a variable.
    variables: Vec<(bool, String)>,
    name: Cow<'static, str>,
    title: Option<Cow<'static, str>>,
    description: Cow<'static, str>,
    mime_type: Option<Cow<'static, str>>,
    scopes: Vec<Cow<'static, str>>,
    origin: Origin,
    reader: Reader,
    completers: Vec<(String, Completer)>,
}

impl fmt::Debug for Resource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Resource")
            .field("uri", &self.uri())
            .field("name", &self.name())
            .finish_non_exhaustive()
    }
}

/// Why a resource or prompt cannot be defined as given.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum DefinitionError {
    /// The URI is neither a URI nor a URI template.
    #[error("`{uri}` is not a resource URI: {problem}")]
    Uri {
        /// The URI as given.
        uri: String,
        /// What is wrong with it.
        problem: tool_grammar::UriProblem,
    },
    /// A name a client cannot use.
    #[error("`{name}` is not a name: {reason}")]
    Name {
        /// The name as given.
        name: String,
        /// Why not.
        reason: String,
    },
    /// A completer for an argument the resource's template or the prompt does not have.
    #[error("`{argument}` is not an argument of `{of}`, so it cannot be completed")]
    UnknownArgument {
        /// The argument named.
        argument: String,
        /// The resource's URI or the prompt's name.
        of: String,
    },
}

impl Resource {
    /// A second handle on the same resource, for a registry's copy (see [`Edit`](crate::registry::Edit)).
    pub(crate) fn copy(&self) -> Self {
        Self {
            inner: self.inner.clone(),
        }
    }

    /// A resource at `uri` (or a template, if `uri` holds `{variables}`) read by `reader`.
    /// `name` identifies it to programs; `description` says what it holds, for the model and
    /// people choosing it.
    ///
    /// ```
    /// use tool_core::resource::{Resource, ResourceContent};
    /// let readme = Resource::new("docs://readme", "readme", "The project's README.", |_, _| async {
    ///     Ok(vec![ResourceContent::text("# Hello")])
    /// })
    /// .unwrap()
    /// .mime_type("text/markdown");
    /// assert!(!readme.is_template());
    /// ```
    pub fn new<F, Fut>(
        uri: impl Into<Cow<'static, str>>,
        name: impl Into<Cow<'static, str>>,
        description: impl Into<Cow<'static, str>>,
        reader: F,
    ) -> Result<Self, DefinitionError>
    where
        F: Fn(ResourceRequest, ToolContext) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<Vec<ResourceContent>, ToolError>> + Send + 'static,
    {
        Self::build(
            uri.into(),
            name.into(),
            description.into(),
            Origin::Dynamic("the host program".to_owned()),
            Arc::new(move |request, ctx| Box::pin(reader(request, ctx))),
        )
    }

    fn build(
        uri: Cow<'static, str>,
        name: Cow<'static, str>,
        description: Cow<'static, str>,
        origin: Origin,
        reader: Reader,
    ) -> Result<Self, DefinitionError> {
        let parts = tool_grammar::uri_template(&uri).map_err(|problem| DefinitionError::Uri {
            uri: uri.clone().into_owned(),
            problem,
        })?;
        let variables = if parts.len() == 1 {
            Vec::new()
        } else {
            parts
                .iter()
                .map(|part| match part {
                    tool_grammar::UriPart::Literal(text) => (false, (*text).to_owned()),
                    tool_grammar::UriPart::Variable(name) => (true, (*name).to_owned()),
                })
                .collect()
        };
        if tool_grammar::is_blank(&name) {
            return Err(DefinitionError::Name {
                name: name.into_owned(),
                reason: "a resource needs a name".to_owned(),
            });
        }
        Ok(Self {
            inner: Arc::new(Inner {
                uri,
                variables,
                name,
                title: None,
                description,
                mime_type: None,
                scopes: Vec::new(),
                origin,
                reader,
                completers: Vec::new(),
            }),
        })
    }

    pub(crate) fn from_def(def: &'static ResourceDef) -> Result<Self, DefinitionError> {
        let read = def.read.open();
        let resource = Self::build(
            Cow::Borrowed(def.uri),
            Cow::Borrowed(def.name),
            Cow::Borrowed(def.description),
            Origin::Linked(def.location),
            Arc::new(move |request, ctx| read(request, ctx)),
        )?;
        let mut resource = resource;
        let inner = Arc::get_mut(&mut resource.inner).expect("just made");
        inner.title = def.title.map(Cow::Borrowed);
        inner.mime_type = def.mime_type.map(Cow::Borrowed);
        inner.scopes = def.scopes.iter().map(|s| Cow::Borrowed(*s)).collect();
        for (argument, complete) in def.completions {
            let complete = *complete;
            inner
                .completers
                .push(((*argument).to_owned(), Arc::new(complete)));
        }
        Ok(resource)
    }

    fn inner_mut(&mut self) -> &mut Inner {
        // A resource is built, then shared: the builder methods run on the only handle.
        Arc::get_mut(&mut self.inner).expect("a resource is configured before it is shared")
    }

    /// A title for people (the name is for programs).
    #[must_use]
    pub fn title(mut self, title: impl Into<Cow<'static, str>>) -> Self {
        self.inner_mut().title = Some(title.into());
        self
    }

    /// The MIME type of what a read returns, when every content does not say its own.
    #[must_use]
    pub fn mime_type(mut self, mime_type: impl Into<Cow<'static, str>>) -> Self {
        self.inner_mut().mime_type = Some(mime_type.into());
        self
    }

    /// OAuth scopes a caller needs to read it, as `#[tool(scopes(..))]` for a tool.
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

    /// Completes the template variable `variable` with `completer`.
    pub fn complete(
        mut self,
        variable: &str,
        completer: impl Fn(&str) -> Vec<String> + Send + Sync + 'static,
    ) -> Result<Self, DefinitionError> {
        if !self.variables().any(|v| v == variable) {
            return Err(DefinitionError::UnknownArgument {
                argument: variable.to_owned(),
                of: self.uri().to_owned(),
            });
        }
        self.inner_mut()
            .completers
            .push((variable.to_owned(), Arc::new(completer)));
        Ok(self)
    }

    /// Whether `other` is this very resource (a handle to the same definition), not only an
    /// equal one.
    pub fn same(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.inner, &other.inner)
    }

    /// The URI, or the URI template.
    pub fn uri(&self) -> &str {
        &self.inner.uri
    }

    /// Whether the URI is a template (it has variables).
    pub fn is_template(&self) -> bool {
        !self.inner.variables.is_empty()
    }

    /// The template's variables, in order (none for a plain URI).
    pub fn variables(&self) -> impl Iterator<Item = &str> {
        self.inner
            .variables
            .iter()
            .filter(|(variable, _)| *variable)
            .map(|(_, name)| name.as_str())
    }

    /// The name programs know it by.
    pub fn name(&self) -> &str {
        &self.inner.name
    }

    /// The title for people, if it has one.
    pub fn title_text(&self) -> Option<&str> {
        self.inner.title.as_deref()
    }

    /// What it holds.
    pub fn description(&self) -> &str {
        &self.inner.description
    }

    /// The MIME type its contents have, if it declares one.
    pub fn mime(&self) -> Option<&str> {
        self.inner.mime_type.as_deref()
    }

    /// The scopes a caller needs.
    pub fn scope_list(&self) -> &[Cow<'static, str>] {
        &self.inner.scopes
    }

    /// Where it was defined.
    pub fn defined_at(&self) -> &Origin {
        &self.inner.origin
    }

    /// Whether `principal` holds every scope it needs (anyone may read one that needs none;
    /// a context with no principal is not checked, as for tools).
    pub fn permits(&self, principal: Option<&Principal>) -> bool {
        self.missing_scopes(principal).is_empty()
    }

    pub(crate) fn missing_scopes(&self, principal: Option<&Principal>) -> Vec<&str> {
        principal
            .map(|p| p.missing_scopes(&self.inner.scopes))
            .unwrap_or_default()
    }

    /// The request this resource answers for `uri`, if it is its URI or matches its template.
    pub fn matches(&self, uri: &str) -> Option<ResourceRequest> {
        if !self.is_template() {
            return (uri == self.uri()).then(|| ResourceRequest {
                uri: uri.to_owned(),
                variables: Vec::new(),
            });
        }
        let parts: Vec<tool_grammar::UriPart<'_>> = self
            .inner
            .variables
            .iter()
            .map(|(variable, text)| match variable {
                true => tool_grammar::UriPart::Variable(text),
                false => tool_grammar::UriPart::Literal(text),
            })
            .collect();
        let found = tool_grammar::match_uri(&parts, uri)?;
        Some(ResourceRequest {
            uri: uri.to_owned(),
            variables: found
                .into_iter()
                .map(|(name, value)| {
                    let value = percent_encoding::percent_decode_str(value)
                        .decode_utf8_lossy()
                        .into_owned();
                    (name.to_owned(), value)
                })
                .collect(),
        })
    }

    /// Suggestions for the template variable `variable` given what has been typed, or `None`
    /// if it has no completer.
    pub fn completions(&self, variable: &str, typed: &str) -> Option<Vec<String>> {
        completions(&self.inner.completers, variable, typed)
    }

    /// Reads it, bare: no scopes, limits or audit. Use
    /// [`Executor::read_resource`](crate::Executor::read_resource), which adds them.
    pub(crate) fn read(&self, request: ResourceRequest, ctx: ToolContext) -> ReadFuture {
        (self.inner.reader)(request, ctx)
    }
}

pub(crate) fn completions(
    completers: &[(String, Completer)],
    argument: &str,
    typed: &str,
) -> Option<Vec<String>> {
    completers
        .iter()
        .find(|(name, _)| name == argument)
        .map(|(_, complete)| complete(typed))
}

/// A read of one URI: the URI and, for a template, its variables (percent-decoded).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResourceRequest {
    uri: String,
    variables: Vec<(String, String)>,
}

impl ResourceRequest {
    /// The URI read.
    pub fn uri(&self) -> &str {
        &self.uri
    }

    /// The value of the template variable `name`.
    pub fn variable(&self, name: &str) -> Option<&str> {
        self.variables
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    /// Every variable with its value, in the template's order.
    pub fn variables(&self) -> impl Iterator<Item = (&str, &str)> {
        self.variables.iter().map(|(n, v)| (n.as_str(), v.as_str()))
    }
}

/// One content of a read: text or bytes, with its URI (the URI read, unless set) and MIME type
/// (the resource's, unless set).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResourceContent {
    /// The URI it is the content of; `None` for the URI read.
    pub uri: Option<String>,
    /// Its MIME type; `None` for the resource's.
    pub mime_type: Option<String>,
    /// The content.
    pub body: Body,
}

/// Text or bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Body {
    /// UTF-8 text (MCP `text`).
    Text(String),
    /// Bytes (MCP `blob`, base64 on the wire).
    Blob(Vec<u8>),
}

impl ResourceContent {
    /// Text.
    pub fn text(text: impl Into<String>) -> Self {
        Self {
            uri: None,
            mime_type: None,
            body: Body::Text(text.into()),
        }
    }

    /// Bytes.
    pub fn blob(bytes: impl Into<Vec<u8>>) -> Self {
        Self {
            uri: None,
            mime_type: None,
            body: Body::Blob(bytes.into()),
        }
    }

    /// With its MIME type.
    #[must_use]
    pub fn with_mime_type(mut self, mime_type: impl Into<String>) -> Self {
        self.mime_type = Some(mime_type.into());
        self
    }

    /// With a URI of its own (a part of what was read).
    #[must_use]
    pub fn with_uri(mut self, uri: impl Into<String>) -> Self {
        self.uri = Some(uri.into());
        self
    }
}

/// Bytes a `#[resource]` or `#[prompt]` returns as binary content (not a text).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Blob(pub Vec<u8>);

/// What a `#[resource]` function may return: text (`String`, `&'static str`), JSON
/// (`serde_json::Value`, as `application/json` text), bytes ([`Blob`]), one
/// [`ResourceContent`] or several.
#[diagnostic::on_unimplemented(
    message = "a #[resource] cannot return `{Self}`",
    label = "not resource contents",
    note = "return String, &'static str, serde_json::Value, tool_core::resource::Blob, ResourceContent or Vec<ResourceContent> (or a Result of one)"
)]
pub trait IntoContents {
    /// The contents.
    fn into_contents(self) -> Vec<ResourceContent>;
}

impl IntoContents for String {
    fn into_contents(self) -> Vec<ResourceContent> {
        vec![ResourceContent::text(self)]
    }
}

impl IntoContents for &'static str {
    fn into_contents(self) -> Vec<ResourceContent> {
        vec![ResourceContent::text(self)]
    }
}

impl IntoContents for serde_json::Value {
    fn into_contents(self) -> Vec<ResourceContent> {
        vec![ResourceContent::text(self.to_string()).with_mime_type("application/json")]
    }
}

impl IntoContents for Blob {
    fn into_contents(self) -> Vec<ResourceContent> {
        vec![ResourceContent::blob(self.0)]
    }
}

impl IntoContents for ResourceContent {
    fn into_contents(self) -> Vec<ResourceContent> {
        vec![self]
    }
}

impl IntoContents for Vec<ResourceContent> {
    fn into_contents(self) -> Vec<ResourceContent> {
        self
    }
}

/// A completer a `#[resource]` or `#[prompt]` names: the values starting with what was typed.
pub type CompleteFn = fn(&str) -> Vec<String>;

/// The const record `#[resource]` submits to `inventory` for every resource. Not a public
/// API: the expansion names it through `__private`.
#[doc(hidden)]
pub struct ResourceDef {
    /// The URI or URI template.
    pub uri: &'static str,
    /// The name programs know it by (the function's, unless `name = ...`).
    pub name: &'static str,
    /// `title = ...`.
    pub title: Option<&'static str>,
    /// From the doc comment.
    pub description: &'static str,
    /// `mime_type = ...`.
    pub mime_type: Option<&'static str>,
    /// `scopes(..)`.
    pub scopes: &'static [&'static str],
    /// `#[arg(complete = ...)]` on template variables, by name.
    pub completions: &'static [(&'static str, CompleteFn)],
    /// Reads it.
    pub read: crate::linked::Sealed<fn(ResourceRequest, ToolContext) -> ReadFuture>,
    /// Where it was written.
    pub location: crate::definition::Location,
}

inventory::collect!(ResourceDef);

#[cfg(test)]
mod tests {
    use super::*;

    fn template() -> Resource {
        Resource::new(
            "notes://{folder}/{id}",
            "note",
            "A note.",
            |r, _| async move {
                Ok(vec![ResourceContent::text(
                    r.variable("id").unwrap_or_default(),
                )])
            },
        )
        .unwrap()
    }

    #[test]
    fn a_template_reads_its_variables_decoded() {
        let t = template();
        assert!(t.is_template());
        assert_eq!(t.variables().collect::<Vec<_>>(), ["folder", "id"]);
        let request = t.matches("notes://work/a%20b").unwrap();
        assert_eq!(request.variable("folder"), Some("work"));
        assert_eq!(request.variable("id"), Some("a b"));
        assert!(t.matches("notes://work").is_none());
    }

    #[test]
    fn a_plain_uri_matches_itself_only() {
        let r = Resource::new("docs://readme", "readme", "d", |_, _| async { Ok(vec![]) }).unwrap();
        assert!(r.matches("docs://readme").is_some());
        assert!(r.matches("docs://readme2").is_none());
    }

    #[test]
    fn bad_definitions_say_what_is_wrong() {
        let err = Resource::new("readme", "r", "d", |_, _| async { Ok(vec![]) }).unwrap_err();
        assert!(err.to_string().contains("starts with a scheme"), "{err}");
        let err = template().complete("nope", |_| vec![]).unwrap_err();
        assert_eq!(
            err.to_string(),
            "`nope` is not an argument of `notes://{folder}/{id}`, so it cannot be completed"
        );
        let done = template()
            .complete("folder", |typed| vec![format!("{typed}1")])
            .unwrap();
        assert_eq!(done.completions("folder", "wo"), Some(vec!["wo1".into()]));
        assert_eq!(done.completions("id", "x"), None);
    }
}
