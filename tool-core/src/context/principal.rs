//! Who a call is made for: the identity a server established for its caller.

use std::fmt;
use std::sync::Arc;

use serde_json::{Map, Value};

/// The caller a server authenticated: a subject, the client it used, the scopes it was granted
/// and the claims the server chose to keep. A server that validates OAuth access tokens puts one
/// in every call's context; a tool takes it with `#[ctx] caller: Principal` (or
/// `Option<Principal>` where it also runs unauthenticated, as over stdio).
///
/// The access token itself is not readable: [`token_for`](Self::token_for) gives it only for an
/// audience it was issued for, which is how a downstream client forwards it without passing a
/// token to a service it was not meant for.
///
/// ```
/// use tool_core::context::Principal;
/// let caller = Principal::new("user-7")
///     .with_client_id("inspector")
///     .with_scopes(["issues:read", "issues:write"])
///     .with_token("eyJ...", ["https://mcp.example.com"]);
/// assert!(caller.has_scope("issues:write"));
/// assert_eq!(caller.missing_scopes(&["issues:read", "admin"]), ["admin"]);
/// assert_eq!(caller.token_for("https://mcp.example.com"), Some("eyJ..."));
/// assert_eq!(caller.token_for("https://other.example.com"), None);
/// assert!(!format!("{caller:?}").contains("eyJ"));
/// ```
#[derive(Clone, PartialEq)]
pub struct Principal {
    inner: Arc<Inner>,
}

#[derive(Clone, PartialEq)]
struct Inner {
    subject: String,
    client_id: Option<String>,
    issuer: Option<String>,
    scopes: Vec<String>,
    claims: Map<String, Value>,
    token: Option<AccessToken>,
}

#[derive(Clone, PartialEq)]
struct AccessToken {
    value: String,
    audiences: Vec<String>,
}

impl Principal {
    /// A caller known by `subject` alone (the `sub` claim, or a name of the server's choosing).
    pub fn new(subject: impl Into<String>) -> Self {
        Self {
            inner: Arc::new(Inner {
                subject: subject.into(),
                client_id: None,
                issuer: None,
                scopes: Vec::new(),
                claims: Map::new(),
                token: None,
            }),
        }
    }

    fn edit(mut self, f: impl FnOnce(&mut Inner)) -> Self {
        f(Arc::make_mut(&mut self.inner));
        self
    }

    /// The OAuth client the caller used (`client_id` or `azp`).
    pub fn with_client_id(self, client_id: impl Into<String>) -> Self {
        self.edit(|i| i.client_id = Some(client_id.into()))
    }

    /// Who issued the caller's credentials (`iss`).
    pub fn with_issuer(self, issuer: impl Into<String>) -> Self {
        self.edit(|i| i.issuer = Some(issuer.into()))
    }

    /// The scopes granted to the caller (duplicates are kept once).
    pub fn with_scopes<S: Into<String>>(self, scopes: impl IntoIterator<Item = S>) -> Self {
        self.edit(|i| {
            for scope in scopes {
                let scope = scope.into();
                if !i.scopes.contains(&scope) {
                    i.scopes.push(scope);
                }
            }
        })
    }

    /// Claims the server keeps for tools to read (for example `email` or `tenant`).
    pub fn with_claims(self, claims: Map<String, Value>) -> Self {
        self.edit(|i| i.claims.extend(claims))
    }

    /// The access token the caller presented and the audiences (`aud`) it was issued for.
    pub fn with_token<A: Into<String>>(
        self,
        token: impl Into<String>,
        audiences: impl IntoIterator<Item = A>,
    ) -> Self {
        let token = AccessToken {
            value: token.into(),
            audiences: audiences.into_iter().map(Into::into).collect(),
        };
        self.edit(|i| i.token = Some(token))
    }

    /// The caller's subject (`sub`).
    pub fn subject(&self) -> &str {
        &self.inner.subject
    }

    /// The OAuth client the caller used, when known.
    pub fn client_id(&self) -> Option<&str> {
        self.inner.client_id.as_deref()
    }

    /// Who issued the caller's credentials, when known.
    pub fn issuer(&self) -> Option<&str> {
        self.inner.issuer.as_deref()
    }

    /// The scopes granted to the caller.
    pub fn scopes(&self) -> &[String] {
        &self.inner.scopes
    }

    /// Whether the caller was granted `scope`.
    pub fn has_scope(&self, scope: &str) -> bool {
        self.inner.scopes.iter().any(|s| s == scope)
    }

    /// The scopes of `required` the caller was not granted, in `required`'s order.
    pub fn missing_scopes<'a, S: AsRef<str>>(&self, required: &'a [S]) -> Vec<&'a str> {
        required
            .iter()
            .map(AsRef::as_ref)
            .filter(|s| !self.has_scope(s))
            .collect()
    }

    /// A claim the server kept, by name.
    pub fn claim(&self, name: &str) -> Option<&Value> {
        self.inner.claims.get(name)
    }

    /// Every claim the server kept.
    pub fn claims(&self) -> &Map<String, Value> {
        &self.inner.claims
    }

    /// The caller's access token, but only when it was issued for `audience` (compared by
    /// [`same_resource`](Self::same_resource)): a service that accepts tokens for that audience
    /// may receive it; no other may.
    pub fn token_for(&self, audience: &str) -> Option<&str> {
        let token = self.inner.token.as_ref()?;
        let issued_for = token
            .audiences
            .iter()
            .any(|a| Self::same_resource(a, audience));
        issued_for.then_some(token.value.as_str())
    }

    /// Whether two resource identifiers (an RFC 8707 `resource`, a token's `aud`) name the
    /// same resource, compared as the MCP specification's canonical URIs: the scheme and the
    /// authority (`host[:port]`) in any case, with or without trailing slashes, the rest exactly.
    /// There is no further URL normalisation (no default ports, no dot segments), so a
    /// spelling that differs in more than that is another resource; an identifier that is not
    /// `scheme://...` is compared exactly, but for trailing slashes. A server's own audience
    /// check and [`token_for`](Self::token_for) both use it, so a token is forwarded by the
    /// rule it was accepted by.
    ///
    /// ```
    /// use tool_core::context::Principal;
    /// assert!(Principal::same_resource("HTTPS://MCP.Example.com/mcp/", "https://mcp.example.com/mcp"));
    /// assert!(!Principal::same_resource("https://mcp.example.com/MCP", "https://mcp.example.com/mcp"));
    /// assert!(!Principal::same_resource("https://mcp.example.com.evil", "https://mcp.example.com"));
    /// ```
    pub fn same_resource(a: &str, b: &str) -> bool {
        let (a, b) = (resource_parts(a), resource_parts(b));
        a.0.eq_ignore_ascii_case(b.0) && a.1.eq_ignore_ascii_case(b.1) && a.2 == b.2
    }
}

/// A resource identifier as (scheme, authority, rest), trailing slashes dropped; all of it is
/// the rest when it is not `scheme://...`.
fn resource_parts(id: &str) -> (&str, &str, &str) {
    let id = id.trim_end_matches('/');
    match id.split_once("://") {
        Some((scheme, rest)) => {
            let (authority, path) = rest.split_at(rest.find(['/', '?', '#']).unwrap_or(rest.len()));
            (scheme, authority, path)
        }
        None => ("", "", id),
    }
}

impl From<&str> for Principal {
    fn from(subject: &str) -> Self {
        Self::new(subject)
    }
}

impl From<String> for Principal {
    fn from(subject: String) -> Self {
        Self::new(subject)
    }
}

impl fmt::Debug for Principal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let i = &*self.inner;
        f.debug_struct("Principal")
            .field("subject", &i.subject)
            .field("client_id", &i.client_id)
            .field("issuer", &i.issuer)
            .field("scopes", &i.scopes)
            .field("claims", &i.claims)
            .field("token", &i.token.as_ref().map(|_| "<redacted>"))
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scopes_are_kept_once_and_missing_ones_named_in_order() {
        let p = Principal::new("u").with_scopes(["a", "b", "a"]);
        assert_eq!(p.scopes(), ["a", "b"]);
        assert_eq!(p.missing_scopes(&["c", "a", "d"]), ["c", "d"]);
        assert!(p.missing_scopes::<&str>(&[]).is_empty());
    }

    #[test]
    fn the_token_goes_only_to_its_audiences() {
        let p = Principal::new("u").with_token("t", ["https://api.example.com/"]);
        assert_eq!(p.token_for("https://api.example.com"), Some("t"));
        assert_eq!(p.token_for("https://api.example.com.evil"), None);
        assert_eq!(p.token_for("HTTPS://API.Example.COM"), Some("t"));
        assert_eq!(p.token_for("https://api.example.com/v1"), None);
        assert_eq!(
            Principal::new("u").token_for("https://api.example.com"),
            None
        );
    }

    proptest::proptest! {
        /// Case in the scheme and authority and trailing slashes never tell resources apart;
        /// case in the path, and any other character, always does.
        #[test]
        fn resources_differ_only_beyond_case_of_scheme_and_host_and_trailing_slashes(
            host in "[a-z][a-z0-9.-]{0,10}",
            path in "(/[a-zA-Z0-9_.-]{1,5}){0,3}",
            slashes in "/{0,2}",
            other in "(/[a-zA-Z0-9_.-]{1,5}){0,3}",
        ) {
            let id = format!("https://{host}{path}");
            let respelled = format!("HTTPS://{}{path}{slashes}", host.to_ascii_uppercase());
            proptest::prop_assert!(Principal::same_resource(&id, &respelled));
            proptest::prop_assert!(Principal::same_resource(&respelled, &id));
            let another = format!("https://{host}{other}");
            proptest::prop_assert_eq!(Principal::same_resource(&id, &another), path == other);
        }
    }
}
