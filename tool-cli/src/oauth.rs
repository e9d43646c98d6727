//! `--oauth-*`: `serve --http` as an OAuth 2.1 resource server (the feature `oauth`; without
//! it, naming an issuer is an error rather than a server that checks no token).

/// How `serve --http` checks callers' access tokens (see docs/remote-auth.md).
#[derive(clap::Args, Debug, Clone, Default)]
pub struct OAuthArgs {
    /// Accept access tokens (JWTs) from this issuer (`iss`, compared exactly); the endpoint
    /// becomes an OAuth 2.1 resource server and tools see who calls them.
    #[arg(
        long,
        value_name = "URL",
        requires_all = ["http", "oauth_audience", "oauth_jwks"],
        conflicts_with = "token_env"
    )]
    pub oauth_issuer: Option<String>,
    /// This server's resource URL as clients reach it (e.g. `https://mcp.example.com/mcp`):
    /// every token's `aud` must name it, and the metadata document gives it.
    #[arg(long, value_name = "URL", requires = "oauth_issuer")]
    pub oauth_audience: Option<String>,
    /// The issuer's signing keys: a jwks.json file, or its `jwks_uri` (http:// or https://).
    #[arg(long, value_name = "FILE|URL", requires = "oauth_issuer")]
    pub oauth_jwks: Option<String>,
    /// A scope every token must carry, whatever it calls (repeatable). Tools may need more:
    /// `#[tool(scopes(..))]`, `"scopes"` in --defs, `--mount NAME[SCOPE ...]=...`.
    #[arg(long, value_name = "SCOPE", requires = "oauth_issuer")]
    pub oauth_scope: Vec<String>,
    /// A token claim tools may read from the caller's Principal (repeatable; e.g. email).
    #[arg(long, value_name = "NAME", requires = "oauth_issuer")]
    pub oauth_claim: Vec<String>,
    /// List every tool in tools/list, not only those the caller's scopes allow.
    #[arg(long, requires = "oauth_issuer")]
    pub oauth_list_all: bool,
}

/// OAuth was asked for and cannot be used.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum OAuthSetupError {
    /// The binary was built without the feature `oauth`.
    #[error(
        "--oauth-issuer {issuer}: this binary was built without tool-cli's feature `oauth`; \
         build it with `--features tool-cli/oauth`"
    )]
    NotBuilt {
        /// The issuer named.
        issuer: String,
    },
    /// The configuration could not be loaded (the keys, a URL).
    #[error(transparent)]
    Load(Box<dyn std::error::Error + Send + Sync>),
}

impl OAuthArgs {
    /// Whether an issuer is named (so the server authenticates its callers).
    pub fn enabled(&self) -> bool {
        self.oauth_issuer.is_some()
    }
}

/// The validator of callers' access tokens (nothing without the feature).
#[cfg(feature = "oauth")]
pub(crate) type Checker = std::sync::Arc<tool_mcp::oauth::OAuth>;
#[cfg(not(feature = "oauth"))]
pub(crate) type Checker = ();

/// The validator the arguments describe, its keys loaded; `None` when no issuer is named.
#[cfg(feature = "oauth")]
pub(crate) async fn load(args: &OAuthArgs) -> Result<Option<Checker>, OAuthSetupError> {
    use tool_mcp::oauth::{JwksSource, OAuth, OAuthConfig};
    let (Some(issuer), Some(audience), Some(jwks)) =
        (&args.oauth_issuer, &args.oauth_audience, &args.oauth_jwks)
    else {
        // clap requires the audience and the keys with the issuer.
        return Ok(None);
    };
    let config = OAuthConfig::new(audience.clone(), issuer.clone(), JwksSource::parse(jwks))
        .with_required_scopes(args.oauth_scope.iter().cloned())
        .with_kept_claims(args.oauth_claim.iter().cloned())
        .with_all_tools_listed(args.oauth_list_all);
    let oauth = OAuth::load(config)
        .await
        .map_err(|e| OAuthSetupError::Load(Box::new(e)))?;
    Ok(Some(std::sync::Arc::new(oauth)))
}

/// Without the feature: an error when an issuer is named.
#[cfg(not(feature = "oauth"))]
pub(crate) async fn load(args: &OAuthArgs) -> Result<Option<Checker>, OAuthSetupError> {
    match &args.oauth_issuer {
        Some(issuer) => Err(OAuthSetupError::NotBuilt {
            issuer: issuer.clone(),
        }),
        None => Ok(None),
    }
}
