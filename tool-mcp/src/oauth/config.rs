//! What an OAuth-protected endpoint is told: which resource it is, whom it trusts, where the
//! keys are, what it asks of every token.

use std::fmt;
use std::path::PathBuf;
use std::time::Duration;

use reqwest::Url;

use super::error::OAuthError;

/// Where the authorization server's signing keys (its JSON Web Key Set, RFC 7517) are.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum JwksSource {
    /// A `jwks.json` file, read at start and again when a token names a key it lacks.
    File(PathBuf),
    /// The issuer's `jwks_uri` (`https://`, or `http://` for an issuer on the same host or
    /// network), fetched at start and again when a token names a key it lacks.
    Url(String),
}

impl JwksSource {
    /// The source a command-line value names: an `http://` or `https://` URL, else a file.
    ///
    /// ```
    /// use tool_mcp::oauth::JwksSource;
    /// assert!(matches!(JwksSource::parse("https://id.example.com/jwks"), JwksSource::Url(_)));
    /// assert!(matches!(JwksSource::parse("keys/jwks.json"), JwksSource::File(_)));
    /// ```
    pub fn parse(value: &str) -> Self {
        let lower = value.get(..8).unwrap_or(value).to_ascii_lowercase();
        if lower.starts_with("https://") || lower.starts_with("http://") {
            Self::Url(value.to_owned())
        } else {
            Self::File(PathBuf::from(value))
        }
    }
}

impl fmt::Display for JwksSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::File(path) => write!(f, "the file {}", path.display()),
            Self::Url(url) => write!(f, "{url}"),
        }
    }
}

/// How an MCP endpoint checks OAuth 2.1 access tokens (JWTs), and what it publishes about
/// itself. [`OAuth::load`](super::OAuth::load) turns it into the validator a server uses.
///
/// ```
/// use std::time::Duration;
/// use tool_mcp::oauth::{JwksSource, OAuthConfig};
///
/// let config = OAuthConfig::new(
///     "https://mcp.example.com/mcp",
///     "https://id.example.com/realms/tools",
///     JwksSource::Url("https://id.example.com/realms/tools/protocol/openid-connect/certs".into()),
/// )
/// .with_required_scopes(["mcp:tools"])
/// .with_kept_claims(["email", "tenant"])
/// .with_leeway(Duration::from_secs(30));
/// assert_eq!(config.required_scopes(), ["mcp:tools"]);
/// // The issuer is the authorization server clients are sent to, unless told otherwise.
/// assert_eq!(config.authorization_servers(), ["https://id.example.com/realms/tools"]);
/// ```
#[derive(Debug, Clone)]
pub struct OAuthConfig {
    resource: String,
    issuer: String,
    jwks: JwksSource,
    authorization_servers: Vec<String>,
    required_scopes: Vec<String>,
    scopes_supported: Option<Vec<String>>,
    kept_claims: Vec<String>,
    leeway: Duration,
    refetch_interval: Duration,
    list_all_tools: bool,
}

impl OAuthConfig {
    /// A server that is the protected resource `resource` (its canonical URL, the `aud` every
    /// token must name, RFC 8707: `https://mcp.example.com/mcp`), trusting tokens that
    /// `issuer` (the exact `iss`) signed with a key from `jwks`.
    pub fn new(resource: impl Into<String>, issuer: impl Into<String>, jwks: JwksSource) -> Self {
        let issuer = issuer.into();
        Self {
            resource: resource.into(),
            authorization_servers: vec![issuer.clone()],
            issuer,
            jwks,
            required_scopes: Vec::new(),
            scopes_supported: None,
            kept_claims: Vec::new(),
            leeway: Duration::from_secs(60),
            refetch_interval: Duration::from_secs(30),
            list_all_tools: false,
        }
    }

    /// The authorization servers the metadata names (`authorization_servers`, RFC 9728), where
    /// clients get tokens. Default: the issuer alone.
    pub fn with_authorization_servers<S: Into<String>>(
        mut self,
        servers: impl IntoIterator<Item = S>,
    ) -> Self {
        self.authorization_servers = servers.into_iter().map(Into::into).collect();
        self
    }

    /// Scopes every request's token must hold, whatever it asks for (else 403
    /// `insufficient_scope`). Default: none.
    pub fn with_required_scopes<S: Into<String>>(
        mut self,
        scopes: impl IntoIterator<Item = S>,
    ) -> Self {
        self.required_scopes = scopes.into_iter().map(Into::into).collect();
        self
    }

    /// The scopes the metadata advertises (`scopes_supported`), which a client asks for when
    /// it knows no better. Default: the required scopes (left out when there are none). The
    /// metadata [`http_router`](crate::http_router) serves lists after them every scope a tool
    /// it serves needs; a client without one is asked for it when it calls the tool, through a
    /// 403 `insufficient_scope`.
    pub fn with_scopes_supported<S: Into<String>>(
        mut self,
        scopes: impl IntoIterator<Item = S>,
    ) -> Self {
        self.scopes_supported = Some(scopes.into_iter().map(Into::into).collect());
        self
    }

    /// Claims copied from the token into the [`Principal`](tool_core::context::Principal) for tools to
    /// read (`email`, `tenant`, ...). Default: none.
    pub fn with_kept_claims<S: Into<String>>(
        mut self,
        claims: impl IntoIterator<Item = S>,
    ) -> Self {
        self.kept_claims = claims.into_iter().map(Into::into).collect();
        self
    }

    /// How far clocks may disagree when `exp` and `nbf` are checked. Default 60 s.
    pub fn with_leeway(mut self, leeway: Duration) -> Self {
        self.leeway = leeway;
        self
    }

    /// How long after fetching the key set again it may be fetched once more, when a token
    /// names a key it does not hold (the issuer rotated its keys). Default 30 s: a flood of
    /// tokens naming made-up keys costs the issuer one request per interval.
    pub fn with_refetch_interval(mut self, interval: Duration) -> Self {
        self.refetch_interval = interval;
        self
    }

    /// Whether `tools/list` shows every tool, rather than only those whose scopes the caller
    /// holds. Default false: a caller sees what it may call.
    pub fn with_all_tools_listed(mut self, all: bool) -> Self {
        self.list_all_tools = all;
        self
    }

    /// The protected resource, as given.
    pub fn resource(&self) -> &str {
        &self.resource
    }

    /// The issuer every token must name.
    pub fn issuer(&self) -> &str {
        &self.issuer
    }

    /// Where the keys are.
    pub fn jwks(&self) -> &JwksSource {
        &self.jwks
    }

    /// The authorization servers the metadata names.
    pub fn authorization_servers(&self) -> &[String] {
        &self.authorization_servers
    }

    /// The scopes every token must hold.
    pub fn required_scopes(&self) -> &[String] {
        &self.required_scopes
    }

    /// The scopes the metadata advertises.
    pub fn scopes_supported(&self) -> &[String] {
        self.scopes_supported
            .as_deref()
            .unwrap_or(&self.required_scopes)
    }

    /// The claims kept for tools.
    pub fn kept_claims(&self) -> &[String] {
        &self.kept_claims
    }

    /// The clock leeway.
    pub fn leeway(&self) -> Duration {
        self.leeway
    }

    /// The shortest time between two fetches of the key set.
    pub fn refetch_interval(&self) -> Duration {
        self.refetch_interval
    }

    /// Whether `tools/list` shows every tool.
    pub fn all_tools_listed(&self) -> bool {
        self.list_all_tools
    }

    /// What [`OAuth::load`](super::OAuth::load) checks before it fetches anything.
    pub(super) fn check(&self) -> Result<Resource, OAuthError> {
        let resource = Resource::parse(&self.resource)?;
        if self.issuer.trim().is_empty() {
            return Err(OAuthError::Config("the issuer is empty".into()));
        }
        if self.authorization_servers.is_empty() {
            return Err(OAuthError::Config(
                "no authorization server is named: the metadata must name at least one \
                 (RFC 9728, MCP authorization)"
                    .into(),
            ));
        }
        let bad_scope = self
            .required_scopes
            .iter()
            .chain(self.scopes_supported())
            .find_map(|s| tool_core::definition::scope_problem(s).err());
        if let Some(problem) = bad_scope {
            return Err(OAuthError::Config(problem.to_string()));
        }
        if self.leeway > MAX_LEEWAY {
            return Err(OAuthError::Config(format!(
                "a leeway of {:?} would accept tokens long expired; at most {MAX_LEEWAY:?}",
                self.leeway
            )));
        }
        if self.refetch_interval < MIN_REFETCH_INTERVAL {
            return Err(OAuthError::Config(format!(
                "a refetch interval of {:?} would let every token naming a made-up key fetch \
                 the issuer's keys; at least {MIN_REFETCH_INTERVAL:?}",
                self.refetch_interval
            )));
        }
        Ok(resource)
    }
}

/// Clocks that disagree by more than this are broken, not skewed.
const MAX_LEEWAY: Duration = Duration::from_secs(3600);

/// The issuer's keys are fetched at most this often on tokens naming unknown keys.
const MIN_REFETCH_INTERVAL: Duration = Duration::from_secs(1);

/// Whether `s` is an OAuth scope token (RFC 6749 section 3.3): the rule `#[tool(scopes(..))]`
/// and definitions files are held to, in one place.
pub(super) use tool_core::definition::is_scope_token;

/// The protected resource's canonical URL, and the metadata URL derived from it.
#[derive(Debug, Clone)]
pub(super) struct Resource {
    /// Scheme and host lowercased, no trailing slash (the form the MCP specification asks for).
    pub(super) canonical: String,
    /// The path, without a trailing slash; empty for a resource at the root.
    pub(super) path: String,
    /// `{origin}/.well-known/oauth-protected-resource{path}` (RFC 9728 section 3.1).
    pub(super) metadata_url: String,
    /// The URL as configured (trimmed): an issuer may put this spelling in `aud`.
    given: String,
}

/// The well-known path of protected resource metadata (RFC 9728).
pub(super) const WELL_KNOWN: &str = "/.well-known/oauth-protected-resource";

impl Resource {
    pub(super) fn parse(resource: &str) -> Result<Self, OAuthError> {
        let bad = |reason: &str| OAuthError::Resource {
            url: resource.to_owned(),
            reason: reason.to_owned(),
        };
        let url = Url::parse(resource.trim()).map_err(|e| bad(&e.to_string()))?;
        if !matches!(url.scheme(), "https" | "http") {
            return Err(bad("the scheme must be https (or http for a local test)"));
        }
        if url.fragment().is_some() {
            return Err(bad("a resource has no fragment (RFC 8707)"));
        }
        if url.query().is_some() {
            return Err(bad(
                "a resource has no query: its metadata URL could not carry it (RFC 9728)",
            ));
        }
        if url.host_str().is_none_or(str::is_empty) {
            return Err(bad("there is no host"));
        }
        if !url.username().is_empty() || url.password().is_some() {
            return Err(bad("a resource has no user name or password"));
        }
        let path = url.path().trim_end_matches('/').to_owned();
        let origin = url.origin().ascii_serialization();
        Ok(Self {
            canonical: format!("{origin}{path}"),
            metadata_url: format!("{origin}{WELL_KNOWN}{path}"),
            path,
            given: resource.trim().to_owned(),
        })
    }

    /// Whether `audience` (an `aud` value) names this resource, as its canonical URL or as
    /// configured: by [`Principal::same_resource`](tool_core::context::Principal::same_resource)
    /// (scheme and host in any case, with or without a trailing slash), the rule
    /// `Principal::token_for` forwards the token by. A URL parser's normalisation (default
    /// ports, dot segments, stripped tabs) would accept spellings an issuer may treat as
    /// other resources.
    pub(super) fn is_named_by(&self, audience: &str) -> bool {
        use tool_core::context::Principal;
        Principal::same_resource(audience, &self.canonical)
            || Principal::same_resource(audience, &self.given)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_metadata_url_is_the_well_known_path_before_the_resource_path() {
        let r = Resource::parse("https://MCP.example.com/mcp/").unwrap();
        assert_eq!(r.canonical, "https://mcp.example.com/mcp");
        assert_eq!(
            r.metadata_url,
            "https://mcp.example.com/.well-known/oauth-protected-resource/mcp"
        );
        let root = Resource::parse("https://mcp.example.com").unwrap();
        assert_eq!(root.canonical, "https://mcp.example.com");
        assert_eq!(
            root.metadata_url,
            "https://mcp.example.com/.well-known/oauth-protected-resource"
        );
        let port = Resource::parse("http://127.0.0.1:8080/a/mcp").unwrap();
        assert_eq!(
            port.metadata_url,
            "http://127.0.0.1:8080/.well-known/oauth-protected-resource/a/mcp"
        );
    }

    #[test]
    fn a_resource_that_cannot_be_one_is_refused_with_the_reason() {
        for (url, reason) in [
            ("mcp.example.com", "relative URL"),
            ("https://mcp.example.com#frag", "fragment"),
            ("https://mcp.example.com/?a=1", "query"),
            ("ftp://mcp.example.com", "scheme"),
            ("https://u:p@mcp.example.com", "password"),
        ] {
            let error = Resource::parse(url).unwrap_err().to_string();
            assert!(error.contains(url) && error.contains(reason), "{error}");
        }
    }

    #[test]
    fn audiences_are_compared_as_resource_urls() {
        let r = Resource::parse("https://mcp.example.com/mcp").unwrap();
        assert!(r.is_named_by("https://mcp.example.com/mcp"));
        assert!(r.is_named_by("HTTPS://MCP.EXAMPLE.COM/mcp/"));
        assert!(!r.is_named_by("https://mcp.example.com/MCP"));
        assert!(!r.is_named_by("https://mcp.example.com"));
        assert!(!r.is_named_by("https://mcp.example.com.evil/mcp"));
        assert!(!r.is_named_by("account"));
    }

    #[test]
    fn audiences_are_compared_by_the_rule_tokens_are_forwarded_by() {
        // `Principal::token_for` compares by `Principal::same_resource`, which normalises
        // no more than case and trailing slashes: an audience is accepted by that rule only,
        // not by a URL parser's (default ports, dot segments, tabs, backslashes, spaces).
        let r = Resource::parse("https://mcp.example.com/mcp").unwrap();
        for other in [
            "https://mcp.example.com:443/mcp",
            "https://mcp.example.com/x/../mcp",
            "https://mcp.example.com/./mcp",
            "https://mcp.exa\tmple.com/mcp",
            "https://mcp.example.com\\mcp",
            " https://mcp.example.com/mcp",
        ] {
            assert!(!r.is_named_by(other), "{other:?}");
        }
        // The resource as configured is a spelling of its own, as is its canonical form.
        let given = Resource::parse("https://MCP.example.com:443/mcp/").unwrap();
        assert_eq!(given.canonical, "https://mcp.example.com/mcp");
        assert!(given.is_named_by("https://mcp.example.com:443/mcp"));
        assert!(given.is_named_by("https://mcp.example.com/mcp"));
        assert!(!given.is_named_by("https://mcp.example.com:8443/mcp"));
    }

    #[test]
    fn a_jwks_source_is_a_url_or_a_file() {
        assert_eq!(
            JwksSource::parse("HTTP://localhost/jwks"),
            JwksSource::Url("HTTP://localhost/jwks".into())
        );
        assert_eq!(
            JwksSource::parse("./http"),
            JwksSource::File(PathBuf::from("./http"))
        );
    }

    #[test]
    fn scopes_must_be_scope_tokens() {
        assert!(is_scope_token("files:read"));
        for bad in ["", "a b", "a\"b", "a\\b", "é"] {
            assert!(!is_scope_token(bad), "{bad:?}");
            let config = OAuthConfig::new(
                "https://x.example",
                "https://id.example",
                JwksSource::File("k".into()),
            )
            .with_required_scopes([bad]);
            assert!(config.check().is_err(), "{bad:?}");
        }
    }

    #[test]
    fn a_leeway_or_refetch_interval_out_of_reason_is_refused() {
        let config = || {
            OAuthConfig::new(
                "https://x.example",
                "https://id.example",
                JwksSource::File("k".into()),
            )
        };
        assert!(config().check().is_ok());
        let long = config().with_leeway(Duration::from_secs(u64::MAX / 2));
        let error = long.check().unwrap_err().to_string();
        assert!(error.contains("leeway"), "{error}");
        let eager = config().with_refetch_interval(Duration::ZERO);
        let error = eager.check().unwrap_err().to_string();
        assert!(error.contains("refetch interval"), "{error}");
    }
}
