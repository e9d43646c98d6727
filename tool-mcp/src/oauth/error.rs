//! What can go wrong: at start ([`OAuthError`]) and per request ([`AuthError`]).

use std::fmt;
use std::path::PathBuf;

/// Why [`OAuth::load`](super::OAuth::load) could not make a validator: each names what was
/// wrong and where.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum OAuthError {
    /// The resource URL cannot identify a protected resource.
    #[error("the resource `{url}` cannot be a protected resource's URL: {reason}")]
    Resource {
        /// The URL as given.
        url: String,
        /// What is wrong with it.
        reason: String,
    },
    /// Another setting is unusable.
    #[error("the OAuth settings are unusable: {0}")]
    Config(String),
    /// The JWKS file could not be read.
    #[error("cannot read the JWKS file {}: {source}", path.display())]
    JwksFile {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The JWKS URL could not be fetched.
    #[error("cannot fetch the JWKS from {url}: {reason}")]
    JwksFetch {
        /// The URL.
        url: String,
        /// Why (the HTTP status, the connection error, a body too large).
        reason: String,
    },
    /// What was read is not a JWK set.
    #[error("the JWKS from {source_name} is not a JWK set: {reason}")]
    JwksFormat {
        /// The file or URL.
        source_name: String,
        /// Why.
        reason: String,
    },
    /// The JWK set holds no key this server can check a token with.
    #[error("the JWKS from {source_name} holds no usable signing key{}", skipped_list(.skipped))]
    NoUsableKey {
        /// The file or URL.
        source_name: String,
        /// Each key left out, and why.
        skipped: Vec<String>,
    },
    /// The HTTP client for the JWKS could not be built.
    #[error("cannot build the HTTP client that fetches the JWKS: {0}")]
    Client(String),
}

fn skipped_list(skipped: &[String]) -> String {
    if skipped.is_empty() {
        " (it has no keys)".to_owned()
    } else {
        format!(" ({})", skipped.join("; "))
    }
}

/// Why a request was refused: what the `WWW-Authenticate` challenge and the status say (see
/// [`OAuth::refusal`](super::OAuth::refusal)).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum AuthError {
    /// No `Authorization` header: 401, and where the metadata is.
    #[error("this MCP server needs an OAuth access token: `Authorization: Bearer <token>`")]
    Missing,
    /// An `Authorization` header that is not one bearer token: 401 `invalid_request`.
    #[error("the Authorization header is malformed: {0}")]
    Malformed(&'static str),
    /// A token that fails a check: 401 `invalid_token`.
    #[error("the access token is not valid: {0}")]
    InvalidToken(TokenProblem),
    /// A valid token without the scopes the request needs: 403 `insufficient_scope`.
    #[error("the access token lacks the scope{} {}", plural(.missing), .missing.join(" "))]
    InsufficientScope {
        /// Every scope the request needs (granted ones included), for the client to ask for.
        needed: Vec<String>,
        /// The ones the token lacks.
        missing: Vec<String>,
        /// What needs them, for the description (`the tool \`delete_note\``).
        what: Option<String>,
    },
}

fn plural(list: &[String]) -> &'static str {
    if list.len() == 1 { "" } else { "s" }
}

/// Which check a token failed: said in `error_description`, so a developer sees why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum TokenProblem {
    /// Not three base64url parts, or a header or payload that is not JSON.
    #[error("it is not a JWT ({0})")]
    NotAJwt(&'static str),
    /// `alg: none`: an unsigned token.
    #[error("it is unsigned (`alg: none`), which is never accepted")]
    Unsigned,
    /// An HMAC algorithm (`HS256`...): a shared secret, never used by this resource server.
    #[error(
        "`{0}` (HMAC with a shared secret) is never accepted; the issuer signs with RS256, ES256 or EdDSA"
    )]
    Hmac(String),
    /// An algorithm outside RS256, ES256 and EdDSA.
    #[error("the algorithm `{0}` is not accepted (RS256, ES256, EdDSA are)")]
    UnsupportedAlgorithm(String),
    /// The token's algorithm is not its key's (algorithm confusion).
    #[error("it is signed with `{alg}`, but its key is for `{key}`")]
    AlgorithmMismatch {
        /// The token header's `alg`.
        alg: String,
        /// The algorithm of the key it names.
        key: String,
    },
    /// The key set holds no key of that `kid`, even fetched again.
    #[error("the issuer's key set has no key `{0}`")]
    UnknownKey(String),
    /// No `kid`, and more than one key it could be.
    #[error("it names no key (`kid`) and the issuer has {0} keys")]
    NoKeyId(usize),
    /// The signature does not verify.
    #[error("its signature does not verify")]
    BadSignature,
    /// `exp` is past.
    #[error("it has expired")]
    Expired,
    /// `nbf` is in the future.
    #[error("it is not valid yet (`nbf` is in the future)")]
    NotYetValid,
    /// A claim every token must have is absent.
    #[error("it has no `{0}` claim")]
    MissingClaim(&'static str),
    /// A claim has the wrong type.
    #[error("its `{0}` claim is malformed")]
    BadClaim(String),
    /// `iss` is not the trusted issuer.
    #[error("it was issued by `{found}`, not by `{expected}`")]
    WrongIssuer {
        /// The token's issuer.
        found: String,
        /// The one trusted.
        expected: String,
    },
    /// `aud` does not name this resource (RFC 8707).
    #[error("it was issued for {found}, not for this server (`{expected}`)")]
    WrongAudience {
        /// The token's audiences, as a list for the message.
        found: Audiences,
        /// This resource.
        expected: String,
    },
    /// Anything else the token library refused.
    #[error("it was refused: {0}")]
    Other(String),
}

/// A token's audiences, as shown in a message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Audiences(pub Vec<String>);

impl fmt::Display for Audiences {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0.as_slice() {
            [] => f.write_str("no audience"),
            [one] => write!(f, "`{one}`"),
            many => {
                f.write_str("`")?;
                f.write_str(&many.join("`, `"))?;
                f.write_str("`")
            }
        }
    }
}

impl AuthError {
    /// The OAuth error code (RFC 6750 section 3.1), if the refusal has one.
    pub fn code(&self) -> Option<&'static str> {
        match self {
            Self::Missing => None,
            Self::Malformed(_) => Some("invalid_request"),
            Self::InvalidToken(_) => Some("invalid_token"),
            Self::InsufficientScope { .. } => Some("insufficient_scope"),
        }
    }

    /// The HTTP status: 400 for a malformed request (RFC 6750 section 3.1, and the MCP
    /// authorization specification's table), 403 for insufficient scope, else 401.
    pub fn status(&self) -> http::StatusCode {
        match self {
            Self::Malformed(_) => http::StatusCode::BAD_REQUEST,
            Self::InsufficientScope { .. } => http::StatusCode::FORBIDDEN,
            _ => http::StatusCode::UNAUTHORIZED,
        }
    }
}
