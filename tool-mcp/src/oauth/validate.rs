//! The checks an access token must pass, and the [`Principal`] it stands for.

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use jsonwebtoken::errors::ErrorKind as JwtError;
use jsonwebtoken::{Algorithm, Validation};
use serde_json::{Map, Value};
use tool_core::context::Principal;

use super::config::{OAuthConfig, Resource};
use super::error::{Audiences, AuthError, OAuthError, TokenProblem};
use super::jwks::{Jwks, algorithm_name};

/// An OAuth resource server's token checks, loaded: the settings, the issuer's keys, the
/// metadata it publishes. Share it (`Arc<OAuth>`) between the endpoint
/// ([`HttpOptions::oauth`](crate::HttpOptions::oauth)) and anything else that checks tokens.
///
/// A token passes when it is a JWS signed with RS256, ES256 or EdDSA by a key of the issuer's
/// key set whose type (and declared `alg`) is the token's algorithm; `alg: none` and HMAC are
/// refused whatever the keys. Then `iss` must be the issuer, exactly; `aud` must name the
/// resource (RFC 8707); `exp` must be present and not past, `nbf`, when present, not future
/// (both within the leeway); `sub` must be present; and the token must hold the server's
/// required scopes. Scopes are read from `scope` (space-separated) and `scp` (an array or a
/// string).
///
/// ```no_run
/// # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
/// use std::sync::Arc;
/// use tool_mcp::oauth::{JwksSource, OAuth, OAuthConfig};
///
/// let config = OAuthConfig::new(
///     "https://mcp.example.com/mcp",
///     "https://id.example.com",
///     JwksSource::Url("https://id.example.com/.well-known/jwks.json".into()),
/// );
/// let oauth = Arc::new(OAuth::load(config).await?);
/// let caller = oauth.validate("eyJhbGciOiJSUzI1NiIsImtpZCI6...").await?;
/// println!("{} ({:?})", caller.subject(), caller.scopes());
/// # Ok(()) }
/// ```
#[derive(Debug)]
pub struct OAuth {
    config: OAuthConfig,
    resource: Resource,
    jwks: Jwks,
}

/// The parts of a JWS header read before any key is chosen.
#[derive(serde::Deserialize)]
struct RawHeader {
    alg: Option<Value>,
    kid: Option<Value>,
}

impl OAuth {
    /// Checks `config` and reads or fetches the issuer's key set. Fails, naming the file or
    /// URL and what was wrong, when the keys cannot be had or none is usable.
    pub async fn load(config: OAuthConfig) -> Result<Self, OAuthError> {
        let resource = config.check()?;
        ensure_crypto_provider();
        let jwks = Jwks::load(config.jwks().clone(), config.refetch_interval()).await?;
        Ok(Self {
            config,
            resource,
            jwks,
        })
    }

    /// The settings it was loaded with.
    pub fn config(&self) -> &OAuthConfig {
        &self.config
    }

    /// The resource's canonical URL: scheme and host lowercased, no trailing slash.
    pub fn resource(&self) -> &str {
        &self.resource.canonical
    }

    /// The URL of the resource's metadata (`resource_metadata` in every challenge):
    /// `https://host/.well-known/oauth-protected-resource` followed by the resource's path
    /// (RFC 9728 section 3.1).
    pub fn metadata_url(&self) -> &str {
        &self.resource.metadata_url
    }

    /// The resource's path (`/mcp`), empty for a resource at the root.
    pub(super) fn resource_path(&self) -> &str {
        &self.resource.path
    }

    /// How many times the key set was read or fetched (the load included): what a refetch
    /// costs the issuer.
    pub fn jwks_fetches(&self) -> u64 {
        self.jwks.fetches()
    }

    /// The caller `token` stands for, or which check it failed. Does not check the required
    /// scopes (see [`authorize`](Self::authorize)).
    pub async fn validate(&self, token: &str) -> Result<Principal, AuthError> {
        self.check(token).await.map_err(AuthError::InvalidToken)
    }

    /// [`validate`](Self::validate), then the server's required scopes.
    pub async fn authorize(&self, token: &str) -> Result<Principal, AuthError> {
        let principal = self.validate(token).await?;
        self.require(&principal, &[], None)?;
        Ok(principal)
    }

    /// `Ok` when `principal` holds the server's required scopes and `extra` ones; else the
    /// refusal, naming every scope the request needs (`what` needs the extra ones).
    pub fn require(
        &self,
        principal: &Principal,
        extra: &[&str],
        what: Option<&str>,
    ) -> Result<(), AuthError> {
        let required = self.config.required_scopes().iter().map(String::as_str);
        let mut needed: Vec<String> = Vec::new();
        for scope in required.chain(extra.iter().copied()) {
            if !needed.iter().any(|n| n == scope) {
                needed.push(scope.to_owned());
            }
        }
        let missing: Vec<String> = principal
            .missing_scopes(&needed)
            .into_iter()
            .map(str::to_owned)
            .collect();
        if missing.is_empty() {
            return Ok(());
        }
        Err(AuthError::InsufficientScope {
            needed,
            missing,
            what: what.map(str::to_owned),
        })
    }

    async fn check(&self, token: &str) -> Result<Principal, TokenProblem> {
        let header = header(token)?;
        let alg = accepted_algorithm(&header)?;
        let kid = match &header.kid {
            None | Some(Value::Null) => None,
            Some(Value::String(kid)) => Some(kid.as_str()),
            Some(_) => return Err(TokenProblem::NotAJwt("its `kid` is not a string")),
        };
        let key = self.jwks.key(kid, alg).await?;
        if key.alg != alg {
            return Err(TokenProblem::AlgorithmMismatch {
                alg: algorithm_name(alg).to_owned(),
                key: algorithm_name(key.alg).to_owned(),
            });
        }
        let mut validation = Validation::new(alg);
        validation.leeway = self.config.leeway().as_secs();
        validation.validate_exp = true;
        validation.validate_nbf = true;
        // `aud` and `iss` are compared here, after the signature, to say what they were.
        validation.validate_aud = false;
        validation.set_required_spec_claims(&["exp"]);
        let claims = jsonwebtoken::decode::<Map<String, Value>>(token, &key.decoding, &validation)
            .map_err(|e| problem(e.into_kind()))?
            .claims;
        self.principal(token, claims)
    }

    /// The caller of verified, unexpired `claims`, once issuer, audience and subject check out.
    fn principal(
        &self,
        token: &str,
        claims: Map<String, Value>,
    ) -> Result<Principal, TokenProblem> {
        let string = |name: &'static str| match claims.get(name) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.as_str())),
            Some(_) => Err(TokenProblem::BadClaim(name.to_owned())),
        };
        let issuer = string("iss")?.ok_or(TokenProblem::MissingClaim("iss"))?;
        if issuer != self.config.issuer() {
            return Err(TokenProblem::WrongIssuer {
                found: issuer.to_owned(),
                expected: self.config.issuer().to_owned(),
            });
        }
        let audiences = match claims.get("aud") {
            None | Some(Value::Null) => return Err(TokenProblem::MissingClaim("aud")),
            Some(Value::String(aud)) => vec![aud.clone()],
            Some(Value::Array(auds)) => auds
                .iter()
                .map(|a| a.as_str().map(str::to_owned))
                .collect::<Option<Vec<_>>>()
                .ok_or_else(|| TokenProblem::BadClaim("aud".into()))?,
            Some(_) => return Err(TokenProblem::BadClaim("aud".into())),
        };
        if !audiences.iter().any(|a| self.resource.is_named_by(a)) {
            return Err(TokenProblem::WrongAudience {
                found: Audiences(audiences),
                expected: self.resource.canonical.clone(),
            });
        }
        // An empty subject names nobody: every caller with one would share sessions and records.
        let subject = string("sub")?
            .filter(|sub| !sub.is_empty())
            .ok_or(TokenProblem::MissingClaim("sub"))?;
        let mut principal = Principal::new(subject)
            .with_issuer(issuer)
            .with_scopes(scopes(&claims)?);
        let client = match string("client_id")? {
            Some(client) => Some(client),
            None => string("azp")?,
        };
        if let Some(client) = client {
            principal = principal.with_client_id(client);
        }
        let kept: Map<String, Value> = self
            .config
            .kept_claims()
            .iter()
            .filter_map(|name| Some((name.clone(), claims.get(name)?.clone())))
            .collect();
        if !kept.is_empty() {
            principal = principal.with_claims(kept);
        }
        Ok(principal.with_token(token, audiences))
    }
}

/// jsonwebtoken's provider is chosen by its features; should another crate in the binary turn
/// on its other backend too, none is chosen and every check would panic: choose RustCrypto.
fn ensure_crypto_provider() {
    use jsonwebtoken::crypto::{CryptoProvider, rust_crypto};
    if CryptoProvider::try_get_default().is_none() {
        // Another thread may have installed one meanwhile: either way there is one.
        let _ = rust_crypto::DEFAULT_PROVIDER.install_default();
    }
}

/// The token's JWS header, read before anything is trusted.
fn header(token: &str) -> Result<RawHeader, TokenProblem> {
    let mut parts = token.split('.');
    let (Some(header), Some(_), Some(_), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return Err(TokenProblem::NotAJwt("it is not three dot-separated parts"));
    };
    let bytes = URL_SAFE_NO_PAD
        .decode(header)
        .map_err(|_| TokenProblem::NotAJwt("its header is not base64url"))?;
    serde_json::from_slice(&bytes)
        .map_err(|_| TokenProblem::NotAJwt("its header is not a JSON object"))
}

/// The header's algorithm, if it is one this server accepts.
fn accepted_algorithm(header: &RawHeader) -> Result<Algorithm, TokenProblem> {
    let Some(Value::String(alg)) = &header.alg else {
        return Err(TokenProblem::NotAJwt("its header has no `alg`"));
    };
    match alg.as_str() {
        "RS256" => Ok(Algorithm::RS256),
        "ES256" => Ok(Algorithm::ES256),
        "EdDSA" => Ok(Algorithm::EdDSA),
        a if a.eq_ignore_ascii_case("none") => Err(TokenProblem::Unsigned),
        // Bytes, not `&a[..2]`: a client's `alg` may begin with a character of several bytes.
        a if a
            .as_bytes()
            .get(..2)
            .is_some_and(|p| p.eq_ignore_ascii_case(b"HS")) =>
        {
            Err(TokenProblem::Hmac(shown(a)))
        }
        a => Err(TokenProblem::UnsupportedAlgorithm(shown(a))),
    }
}

/// At most 32 characters of what a client sent, for a message.
fn shown(text: &str) -> String {
    match text.char_indices().nth(32) {
        Some((at, _)) => format!("{}...", &text[..at]),
        None => text.to_owned(),
    }
}

/// jsonwebtoken's refusal, said as the check that failed.
fn problem(kind: JwtError) -> TokenProblem {
    match kind {
        JwtError::InvalidSignature => TokenProblem::BadSignature,
        JwtError::ExpiredSignature => TokenProblem::Expired,
        JwtError::ImmatureSignature => TokenProblem::NotYetValid,
        JwtError::MissingRequiredClaim(claim) if claim == "exp" => {
            TokenProblem::MissingClaim("exp")
        }
        JwtError::MissingRequiredClaim(claim) | JwtError::InvalidClaimFormat(claim) => {
            TokenProblem::BadClaim(claim)
        }
        JwtError::InvalidToken | JwtError::Base64(_) | JwtError::Utf8(_) => {
            TokenProblem::NotAJwt("its parts are not base64url JSON")
        }
        JwtError::Json(_) => TokenProblem::NotAJwt("its payload is not a JSON object"),
        // The signature's bytes are not a signature of the key's kind.
        JwtError::InvalidEcdsaKey | JwtError::InvalidEddsaKey | JwtError::InvalidRsaKey(_) => {
            TokenProblem::BadSignature
        }
        other => TokenProblem::Other(format!("{other:?}")),
    }
}

/// The scopes of `scope` (space-separated) and `scp` (an array, or a space-separated string).
fn scopes(claims: &Map<String, Value>) -> Result<Vec<String>, TokenProblem> {
    let mut scopes = Vec::new();
    for name in ["scope", "scp"] {
        match claims.get(name) {
            None | Some(Value::Null) => {}
            Some(Value::String(s)) => scopes.extend(s.split_whitespace().map(str::to_owned)),
            Some(Value::Array(items)) if name == "scp" => {
                for item in items {
                    let scope = item
                        .as_str()
                        .ok_or_else(|| TokenProblem::BadClaim(name.into()))?;
                    scopes.push(scope.to_owned());
                }
            }
            Some(_) => return Err(TokenProblem::BadClaim(name.into())),
        }
    }
    Ok(scopes)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn encoded(header: &Value) -> String {
        format!(
            "{}.e30.c2ln",
            URL_SAFE_NO_PAD.encode(header.to_string().as_bytes())
        )
    }

    fn alg_of(header: Value) -> Result<Algorithm, TokenProblem> {
        accepted_algorithm(&self::header(&encoded(&header))?)
    }

    #[test]
    fn only_three_algorithms_are_accepted_and_none_and_hmac_never() {
        assert_eq!(alg_of(json!({"alg": "RS256"})), Ok(Algorithm::RS256));
        assert_eq!(alg_of(json!({"alg": "ES256"})), Ok(Algorithm::ES256));
        assert_eq!(alg_of(json!({"alg": "EdDSA"})), Ok(Algorithm::EdDSA));
        for none in ["none", "None", "NONE"] {
            assert_eq!(alg_of(json!({"alg": none})), Err(TokenProblem::Unsigned));
        }
        for hmac in ["HS256", "hs384", "HS512"] {
            assert_eq!(
                alg_of(json!({"alg": hmac})),
                Err(TokenProblem::Hmac(hmac.into()))
            );
        }
        assert_eq!(
            alg_of(json!({"alg": "PS256"})),
            Err(TokenProblem::UnsupportedAlgorithm("PS256".into()))
        );
        assert!(matches!(
            alg_of(json!({"typ": "JWT"})),
            Err(TokenProblem::NotAJwt(_))
        ));
        assert!(matches!(
            alg_of(json!({"alg": 5})),
            Err(TokenProblem::NotAJwt(_))
        ));
        // A first character of several bytes is no `HS` prefix, and no reason to panic.
        for odd in ["€", "€S256", "H€", "é"] {
            assert_eq!(
                alg_of(json!({"alg": odd})),
                Err(TokenProblem::UnsupportedAlgorithm(odd.into()))
            );
        }
    }

    #[test]
    fn what_is_not_a_jws_says_so() {
        for token in ["", "a.b", "a.b.c.d", "!!!.e30.x", "e30.e30"] {
            assert!(
                matches!(header(token), Err(TokenProblem::NotAJwt(_))),
                "{token}"
            );
        }
        let not_json = format!("{}.e30.x", URL_SAFE_NO_PAD.encode(b"[1]"));
        assert!(matches!(header(&not_json), Err(TokenProblem::NotAJwt(_))));
    }

    #[test]
    fn scopes_come_from_scope_and_scp() {
        let claims = |v: Value| v.as_object().cloned().unwrap();
        assert_eq!(
            scopes(&claims(json!({"scope": " a  b "}))).unwrap(),
            ["a", "b"]
        );
        assert_eq!(
            scopes(&claims(json!({"scp": ["a", "c"], "scope": "b"}))).unwrap(),
            ["b", "a", "c"]
        );
        assert_eq!(scopes(&claims(json!({"scp": "x y"}))).unwrap(), ["x", "y"]);
        assert!(scopes(&claims(json!({}))).unwrap().is_empty());
        for bad in [
            json!({"scope": ["a"]}),
            json!({"scp": [1]}),
            json!({"scp": 1}),
        ] {
            assert!(matches!(
                scopes(&claims(bad)),
                Err(TokenProblem::BadClaim(_))
            ));
        }
    }

    #[test]
    fn what_a_client_sent_is_shown_short() {
        assert_eq!(shown("HS256"), "HS256");
        let long = "é".repeat(40);
        assert_eq!(shown(&long), format!("{}...", "é".repeat(32)));
    }
}
