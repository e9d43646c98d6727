//! The issuer's signing keys: read from a file or fetched, kept, and fetched again (at most once
//! an interval) when a token names a key the set lacks.

use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, RwLock};
use std::time::{Duration, Instant};

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use jsonwebtoken::crypto::CryptoProvider;
use jsonwebtoken::{Algorithm, DecodingKey};
use serde_json::Value;

use super::config::JwksSource;
use super::error::{OAuthError, TokenProblem};

/// The largest key set read: a real one is a few kilobytes.
const MAX_JWKS_BYTES: usize = 1 << 20;
/// How long one fetch may take.
const FETCH_TIMEOUT: Duration = Duration::from_secs(10);
/// The smallest RSA key RS256 may use (RFC 7518 section 3.3).
const MIN_RSA_BITS: usize = 2048;

/// One key a token can be checked with.
pub(super) struct Key {
    pub(super) kid: Option<String>,
    /// The one algorithm the key verifies: its type decides it (RSA: RS256, P-256: ES256,
    /// Ed25519: EdDSA), and a declared `alg` must agree.
    pub(super) alg: Algorithm,
    pub(super) decoding: DecodingKey,
}

/// The usable keys of one JWK set.
pub(super) struct KeySet {
    keys: Vec<Arc<Key>>,
}

impl KeySet {
    /// The key a token with `kid` (or none), signed with `alg`, is checked with. Keys of
    /// different types may share a `kid` (RFC 7517 section 4.5): the one for `alg` is chosen,
    /// else the first of that `kid`, which the caller refuses as the wrong algorithm.
    fn find(&self, kid: Option<&str>, alg: Algorithm) -> Result<Arc<Key>, TokenProblem> {
        let single = match self.keys.as_slice() {
            [only] => Some(only),
            _ => None,
        };
        let found = match kid {
            Some(kid) => self
                .keys
                .iter()
                .filter(|k| k.kid.as_deref() == Some(kid))
                .min_by_key(|k| k.alg != alg)
                // A lone key without an id stands for any id.
                .or(single.filter(|k| k.kid.is_none()))
                .ok_or_else(|| TokenProblem::UnknownKey(kid.to_owned())),
            None => single.ok_or(TokenProblem::NoKeyId(self.keys.len())),
        };
        found.cloned()
    }

    /// The usable keys of `jwks` (a JWK set's JSON), or why there are none. Each key left out
    /// is logged with the reason.
    pub(super) fn parse(bytes: &[u8], source: &JwksSource) -> Result<Self, OAuthError> {
        let format = |reason: String| OAuthError::JwksFormat {
            source_name: source.to_string(),
            reason,
        };
        let set: Value = serde_json::from_slice(bytes).map_err(|e| format(e.to_string()))?;
        let Some(Value::Array(jwks)) = set.get("keys") else {
            return Err(format("it has no `keys` array".into()));
        };
        let mut keys = Vec::new();
        let mut skipped = Vec::new();
        for (at, jwk) in jwks.iter().enumerate() {
            match usable_key(jwk) {
                Ok(key) => keys.push(Arc::new(key)),
                Err(why) => {
                    let name = match jwk.get("kid").and_then(Value::as_str) {
                        Some(kid) => format!("key `{kid}`"),
                        None => format!("key {at}"),
                    };
                    tracing::warn!(jwks = %source, key = %name, reason = %why, "JWK left out");
                    skipped.push(format!("{name}: {why}"));
                }
            }
        }
        if keys.is_empty() {
            return Err(OAuthError::NoUsableKey {
                source_name: source.to_string(),
                skipped,
            });
        }
        if keys.len() > 1 && keys.iter().any(|k| k.kid.is_none()) {
            tracing::warn!(
                jwks = %source,
                "keys without a `kid` in a set of several are never used: a token cannot name them"
            );
        }
        Ok(Self { keys })
    }
}

/// The key `jwk` describes, if this server can check signatures with it.
fn usable_key(jwk: &Value) -> Result<Key, String> {
    let text = |name: &str| jwk.get(name).and_then(Value::as_str);
    if let Some(usage) = jwk.get("use")
        && usage.as_str() != Some("sig")
    {
        return Err(format!("its `use` is {usage}, not \"sig\""));
    }
    if let Some(ops) = jwk.get("key_ops") {
        let verifies = ops
            .as_array()
            .is_some_and(|ops| ops.iter().any(|op| op.as_str() == Some("verify")));
        if !verifies {
            return Err("its `key_ops` do not include \"verify\"".into());
        }
    }
    let field = |name: &str| text(name).ok_or_else(|| format!("it has no `{name}`"));
    let (alg, decoding) = match (text("kty"), text("crv")) {
        (Some("RSA"), _) => {
            let n = field("n")?;
            if let Some(bits) = modulus_bits(n)
                && bits < MIN_RSA_BITS
            {
                return Err(format!(
                    "its RSA modulus has {bits} bits; RS256 needs at least {MIN_RSA_BITS} \
                     (RFC 7518 section 3.3)"
                ));
            }
            let key = DecodingKey::from_rsa_components(n, field("e")?);
            (Algorithm::RS256, key)
        }
        (Some("EC"), Some("P-256")) => {
            let key = DecodingKey::from_ec_components(field("x")?, field("y")?);
            (Algorithm::ES256, key)
        }
        (Some("OKP"), Some("Ed25519")) => (
            Algorithm::EdDSA,
            DecodingKey::from_ed_components(field("x")?),
        ),
        (Some("oct"), _) => return Err("a shared secret (`oct`) is never used".into()),
        (Some(kty @ ("EC" | "OKP")), crv) => {
            return Err(format!(
                "the curve {} of a `{kty}` key is not supported (P-256 and Ed25519 are)",
                crv.unwrap_or("(none)")
            ));
        }
        (Some(kty), _) => return Err(format!("the key type `{kty}` is not supported")),
        (None, _) => return Err("it has no `kty`".into()),
    };
    let decoding = decoding.map_err(|e| format!("its key material is malformed ({e})"))?;
    if let Some(declared) = jwk.get("alg") {
        let expected = algorithm_name(alg);
        if declared.as_str() != Some(expected) {
            return Err(format!(
                "its `alg` is {declared}; this server verifies a key of its type with {expected} only"
            ));
        }
    }
    // Builds the verifier now, so a key whose material does not parse is named at load rather
    // than failing every token later.
    if let Some(provider) = CryptoProvider::try_get_default()
        && let Err(e) = (provider.verifier_factory)(&alg, &decoding)
    {
        return Err(format!("its key material is not a valid key ({e})"));
    }
    Ok(Key {
        kid: text("kid").map(str::to_owned),
        alg,
        decoding,
    })
}

/// The bit length of an RSA modulus given as base64url (`n`); `None` when it does not decode,
/// which the key parser then names.
fn modulus_bits(n: &str) -> Option<usize> {
    let bytes = URL_SAFE_NO_PAD.decode(n).ok()?;
    let first = bytes.iter().position(|&b| b != 0)?;
    Some((bytes.len() - first) * 8 - bytes[first].leading_zeros() as usize)
}

/// The JWS name of an algorithm this server accepts.
pub(super) fn algorithm_name(alg: Algorithm) -> &'static str {
    match alg {
        Algorithm::RS256 => "RS256",
        Algorithm::ES256 => "ES256",
        Algorithm::EdDSA => "EdDSA",
        _ => "another algorithm",
    }
}

/// Where the set is read from.
enum Origin {
    File(PathBuf),
    Url(String, reqwest::Client),
}

/// The key set in use, and how to fetch it again.
pub(super) struct Jwks {
    source: JwksSource,
    origin: Origin,
    keys: RwLock<Arc<KeySet>>,
    /// When the set was last fetched again; `None` until the first refetch, so the first
    /// rotation after start is picked up at once. Held across a fetch: concurrent requests for
    /// unknown keys wait for one fetch instead of each making one.
    refetched: tokio::sync::Mutex<Option<Instant>>,
    interval: Duration,
    /// Reads and fetches made, the first included.
    fetches: AtomicU64,
}

impl Jwks {
    /// The set from `source`, read or fetched now.
    pub(super) async fn load(source: JwksSource, interval: Duration) -> Result<Self, OAuthError> {
        let origin = match &source {
            JwksSource::Url(url) => Origin::Url(url.clone(), client(url)?),
            JwksSource::File(path) => Origin::File(path.clone()),
        };
        let keys = read(&origin, &source).await?;
        Ok(Self {
            source,
            origin,
            keys: RwLock::new(Arc::new(keys)),
            refetched: tokio::sync::Mutex::new(None),
            interval,
            fetches: AtomicU64::new(1),
        })
    }

    /// The key a token names (for its algorithm), fetching the set again (rate limited) when it lacks `kid`.
    pub(super) async fn key(
        &self,
        kid: Option<&str>,
        alg: Algorithm,
    ) -> Result<Arc<Key>, TokenProblem> {
        let problem = match self.current().find(kid, alg) {
            Ok(key) => return Ok(key),
            Err(problem) => problem,
        };
        if !matches!(problem, TokenProblem::UnknownKey(_)) || !self.refetch().await {
            return Err(problem);
        }
        self.current().find(kid, alg)
    }

    /// How many times the set was read or fetched.
    pub(super) fn fetches(&self) -> u64 {
        self.fetches.load(Ordering::Relaxed)
    }

    fn current(&self) -> Arc<KeySet> {
        crate::sync::read(&self.keys).clone()
    }

    /// Fetches the set again unless it was fetched less than an interval ago; whether the
    /// keys may have changed.
    async fn refetch(&self) -> bool {
        let mut last = self.refetched.lock().await;
        if last.is_some_and(|at| at.elapsed() < self.interval) {
            return false;
        }
        // A failed fetch counts too: an issuer that is down is not asked again at once.
        *last = Some(Instant::now());
        self.fetches.fetch_add(1, Ordering::Relaxed);
        match read(&self.origin, &self.source).await {
            Ok(keys) => {
                *crate::sync::write(&self.keys) = Arc::new(keys);
                tracing::info!(jwks = %self.source, "signing keys fetched again");
                true
            }
            Err(e) => {
                tracing::warn!(error = %e, "fetching the signing keys again failed; the old ones stay");
                false
            }
        }
    }
}

impl std::fmt::Debug for Jwks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Jwks")
            .field("source", &self.source)
            .field("keys", &self.current().keys.len())
            .finish_non_exhaustive()
    }
}

/// The HTTP client the set is fetched with: the TLS settings of every client here, a few
/// redirects at most, a time limit.
fn client(url: &str) -> Result<reqwest::Client, OAuthError> {
    let parsed = reqwest::Url::parse(url).map_err(|e| OAuthError::JwksFetch {
        url: url.to_owned(),
        reason: format!("not a URL ({e})"),
    })?;
    if parsed.scheme() == "http" && !is_local(&parsed) {
        tracing::warn!(
            jwks = url,
            "the signing keys are fetched over plain HTTP: anyone on the path can replace them"
        );
    }
    let tls = tool_http::tls_config().map_err(|e| OAuthError::Client(e.to_string()))?;
    let redirects = reqwest::redirect::Policy::custom(move |attempt| {
        // The first of `previous` is the URL asked for, not a redirect.
        if attempt.previous().len() > MAX_REDIRECTS {
            return attempt.error("too many redirects");
        }
        match downgrade(&parsed, attempt.url()) {
            Some(why) => attempt.error(why),
            None => attempt.follow(),
        }
    });
    reqwest::Client::builder()
        .tls_backend_preconfigured(tls)
        .timeout(FETCH_TIMEOUT)
        .redirect(redirects)
        .build()
        .map_err(|e| OAuthError::Client(e.to_string()))
}

/// The most redirects followed to the key set.
const MAX_REDIRECTS: usize = 3;

/// Why a redirect from the configured `start` to `to` is not followed: it would fetch the keys
/// over plain HTTP across the network when the configured URL did not (an `https` one, or a
/// loopback one, which is not warned about), so anyone on the path could replace them.
fn downgrade(start: &reqwest::Url, to: &reqwest::Url) -> Option<String> {
    let exposed = |url: &reqwest::Url| url.scheme() != "https" && !is_local(url);
    (exposed(to) && !exposed(start)).then(|| {
        format!("a redirect to {to} would fetch the signing keys over plain HTTP; not followed")
    })
}

fn is_local(url: &reqwest::Url) -> bool {
    let host = url.host_str().unwrap_or_default();
    let ip = host.trim_start_matches('[').trim_end_matches(']');
    host == "localhost"
        || ip
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback())
}

/// The key set `origin` holds now.
async fn read(origin: &Origin, source: &JwksSource) -> Result<KeySet, OAuthError> {
    let bytes = match origin {
        Origin::File(path) => {
            let bytes = tokio::fs::read(path)
                .await
                .map_err(|e| OAuthError::JwksFile {
                    path: path.clone(),
                    source: e,
                })?;
            if bytes.len() > MAX_JWKS_BYTES {
                return Err(OAuthError::JwksFormat {
                    source_name: source.to_string(),
                    reason: format!("it is larger than {MAX_JWKS_BYTES} bytes"),
                });
            }
            bytes
        }
        Origin::Url(url, http) => fetch(http, url).await?,
    };
    KeySet::parse(&bytes, source)
}

async fn fetch(http: &reqwest::Client, url: &str) -> Result<Vec<u8>, OAuthError> {
    let failed = |reason: String| OAuthError::JwksFetch {
        url: url.to_owned(),
        reason,
    };
    let mut response = http
        .get(url)
        .header(
            http::header::ACCEPT,
            "application/json, application/jwk-set+json",
        )
        .send()
        .await
        .map_err(|e| failed(error_chain(&e)))?;
    let status = response.status();
    if !status.is_success() {
        return Err(failed(format!("the server answered {status}")));
    }
    let mut body = Vec::new();
    while let Some(chunk) = response
        .chunk()
        .await
        .map_err(|e| failed(error_chain(&e)))?
    {
        if body.len() + chunk.len() > MAX_JWKS_BYTES {
            return Err(failed(format!(
                "the answer is larger than {MAX_JWKS_BYTES} bytes"
            )));
        }
        body.extend_from_slice(&chunk);
    }
    Ok(body)
}

/// An error and its causes, which reqwest keeps apart ("error sending request" alone says
/// nothing about a refused connection or a bad certificate).
fn error_chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn source() -> JwksSource {
        JwksSource::File("jwks.json".into())
    }

    // A P-256 public key (RFC 7515 appendix A.3) and an Ed25519 one (RFC 8037 appendix A.2).
    fn ec() -> Value {
        json!({"kty": "EC", "crv": "P-256",
            "x": "f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU",
            "y": "x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0"})
    }

    fn ed() -> Value {
        json!({"kty": "OKP", "crv": "Ed25519", "x": "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"})
    }

    fn parse(keys: Value) -> Result<KeySet, OAuthError> {
        KeySet::parse(json!({"keys": keys}).to_string().as_bytes(), &source())
    }

    #[test]
    fn keys_of_other_kinds_are_left_out_with_the_reason() {
        let mut enc = ec();
        enc["use"] = json!("enc");
        enc["kid"] = json!("e1");
        let mut p384 = ec();
        p384["crv"] = json!("P-384");
        let keys = json!([enc, {"kty": "oct", "k": "c2VjcmV0"}, p384, {"kty": "X"}, ed()]);
        let set = parse(keys.clone()).unwrap();
        assert_eq!(set.keys.len(), 1);
        assert_eq!(set.keys[0].alg, Algorithm::EdDSA);

        let mut without_ed = keys.as_array().unwrap().clone();
        without_ed.pop();
        let error = parse(Value::Array(without_ed)).err().unwrap().to_string();
        for reason in [
            "jwks.json",
            "key `e1`: its `use` is \"enc\"",
            "shared secret",
            "P-384",
            "key type `X`",
        ] {
            assert!(error.contains(reason), "{reason}: {error}");
        }
    }

    #[test]
    fn a_redirect_may_not_fetch_the_keys_over_plain_http_across_the_network() {
        let url = |u: &str| reqwest::Url::parse(u).unwrap();
        let secure = url("https://id.example.com/jwks");
        let local = url("http://127.0.0.1:8080/jwks");
        let plain = url("http://id.internal/jwks");
        assert!(downgrade(&secure, &url("https://cdn.example.net/keys")).is_none());
        assert!(downgrade(&secure, &url("http://[::1]:9/keys")).is_none());
        assert!(downgrade(&local, &url("http://localhost:9/keys")).is_none());
        // Already plain HTTP across the network, and warned about at start.
        assert!(downgrade(&plain, &url("http://other.internal/keys")).is_none());
        for (start, to) in [
            (&secure, "http://id.example.com/jwks"),
            (&local, "http://id.example.com/jwks"),
            (&local, "http://0.0.0.0:8080/jwks"),
        ] {
            let why = downgrade(start, &url(to)).unwrap();
            assert!(why.contains(to) && why.contains("plain HTTP"), "{why}");
        }
    }

    #[test]
    fn a_declared_algorithm_must_be_the_one_the_key_type_gives() {
        let mut key = ec();
        key["alg"] = json!("ES256");
        assert_eq!(parse(json!([key.clone()])).unwrap().keys.len(), 1);
        key["alg"] = json!("HS256");
        let error = parse(json!([key])).err().unwrap().to_string();
        assert!(error.contains("\"HS256\""), "{error}");
    }

    #[test]
    fn rsa_keys_under_2048_bits_are_left_out() {
        let n = |bytes: &[u8]| URL_SAFE_NO_PAD.encode(bytes);
        // Leading zero bytes do not count; the top byte counts from its highest set bit.
        assert_eq!(modulus_bits(&n(&[0, 0, 0x01, 0xff])), Some(9));
        assert_eq!(modulus_bits(&n(&[0x80; 256])), Some(2048));
        assert_eq!(modulus_bits(&n(&[0x7f; 256])), Some(2047));
        assert_eq!(modulus_bits("%%%"), None);
        for (modulus, bits) in [(vec![0xc5; 128], 1024), (vec![0x7f; 256], 2047)] {
            let key = json!({"kty": "RSA", "kid": "weak", "n": n(&modulus), "e": "AQAB"});
            let error = parse(json!([key])).err().unwrap().to_string();
            assert!(
                error.contains(&format!("{bits} bits")) && error.contains("at least 2048"),
                "{error}"
            );
        }
    }

    #[test]
    fn malformed_key_material_is_named_at_load() {
        let mut key = ec();
        key["x"] = json!("AAAA");
        let error = parse(json!([key])).err().unwrap().to_string();
        assert!(error.contains("not a valid key"), "{error}");
        let error = parse(json!([{"kty": "RSA", "n": "%%%", "e": "AQAB"}]))
            .err()
            .unwrap()
            .to_string();
        assert!(error.contains("malformed"), "{error}");
    }

    #[test]
    fn what_is_not_a_key_set_says_so() {
        for (bytes, reason) in [
            (&b"{"[..], "EOF"),
            (b"{\"keys\": 5}", "no `keys` array"),
            (b"{\"keys\": []}", "it has no keys"),
        ] {
            let error = KeySet::parse(bytes, &source()).err().unwrap().to_string();
            assert!(
                error.contains(reason) && error.contains("jwks.json"),
                "{error}"
            );
        }
    }

    #[test]
    fn a_token_without_kid_needs_a_lone_key_and_a_lone_key_without_kid_fits_any() {
        let lone = parse(json!([ed()])).unwrap();
        assert!(lone.find(None, Algorithm::EdDSA).is_ok());
        assert!(lone.find(Some("whatever"), Algorithm::EdDSA).is_ok());

        let mut a = ed();
        a["kid"] = json!("a");
        let mut b = ec();
        b["kid"] = json!("b");
        let two = parse(json!([a.clone(), b])).unwrap();
        assert_eq!(
            two.find(Some("b"), Algorithm::ES256).unwrap().alg,
            Algorithm::ES256
        );
        assert_eq!(
            two.find(None, Algorithm::ES256).err(),
            Some(TokenProblem::NoKeyId(2))
        );
        assert_eq!(
            two.find(Some("c"), Algorithm::ES256).err(),
            Some(TokenProblem::UnknownKey("c".into()))
        );
        // A lone key with an id answers to that id only.
        let named = parse(json!([a])).unwrap();
        assert!(named.find(Some("z"), Algorithm::EdDSA).is_err());
        assert!(named.find(None, Algorithm::EdDSA).is_ok());
    }

    #[test]
    fn keys_of_different_types_may_share_a_kid_and_the_tokens_algorithm_chooses() {
        let (mut a, mut b) = (ec(), ed());
        a["kid"] = json!("k");
        b["kid"] = json!("k");
        let set = parse(json!([a, b])).unwrap();
        assert_eq!(
            set.find(Some("k"), Algorithm::EdDSA).unwrap().alg,
            Algorithm::EdDSA
        );
        assert_eq!(
            set.find(Some("k"), Algorithm::ES256).unwrap().alg,
            Algorithm::ES256
        );
        // None for RS256: the first of the id, which the validator refuses as a mismatch.
        assert_eq!(
            set.find(Some("k"), Algorithm::RS256).unwrap().alg,
            Algorithm::ES256
        );
    }
}
