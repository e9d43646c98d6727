//! The Streamable HTTP endpoint as an OAuth 2.1 resource server, with real keys: an RSA 2048, a
//! P-256 and an Ed25519 key made here, tokens signed with jsonwebtoken, the issuer's key set
//! served over HTTP on loopback, a real server (`serve_http`) spoken to with reqwest and with
//! rmcp's client. Each refusal is checked by its status and its `WWW-Authenticate` challenge,
//! in the forms of the MCP authorization specification's examples.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use rmcp::ServiceExt as _;
use rmcp::model::CallToolRequestParams;
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use serde_json::{Value, json};
use tool_core::exec::Executor;
use tool_core::{
    Registry, ToolContext, ToolOutput, context::FromContext as _, context::Principal,
    registry::DynamicTool,
};
use tool_mcp::oauth::{AuthError, JwksSource, OAuth, OAuthConfig, OAuthError, TokenProblem};
use tool_mcp::{HttpOptions, McpServer};

const ISSUER: &str = "https://id.example.test/realms/tools";

/// A signing key and the public JWK that goes with it.
struct Signer {
    kid: String,
    alg: Algorithm,
    key: EncodingKey,
    jwk: Value,
}

impl Signer {
    /// `jwk` holds the public key's own fields (`kty`, `crv`, `n`, `x`...).
    fn new(kid: &str, alg: Algorithm, key: EncodingKey, mut jwk: Value) -> Self {
        jwk["kid"] = json!(kid);
        jwk["use"] = json!("sig");
        Self {
            kid: kid.to_owned(),
            alg,
            key,
            jwk,
        }
    }

    fn sign(&self, claims: &Value) -> String {
        let mut header = Header::new(self.alg);
        header.kid = Some(self.kid.clone());
        jsonwebtoken::encode(&header, claims, &self.key).unwrap()
    }
}

/// RSA key generation is the slow part: one key per test binary.
fn rsa() -> &'static Signer {
    static KEY: OnceLock<Signer> = OnceLock::new();
    KEY.get_or_init(|| {
        use rsa::Generate as _;
        use rsa::pkcs1::EncodeRsaPrivateKey as _;
        use rsa::traits::PublicKeyParts as _;
        let key = rsa::PrivateKey::generate();
        let der = key.to_pkcs1_der().unwrap();
        let jwk = json!({"kty": "RSA", "alg": "RS256",
            "n": URL_SAFE_NO_PAD.encode(key.n_bytes()), "e": URL_SAFE_NO_PAD.encode(key.e_bytes())});
        Signer::new(
            "rsa-1",
            Algorithm::RS256,
            EncodingKey::from_rsa_der(der.as_bytes()),
            jwk,
        )
    })
}

fn ec(kid: &str) -> Signer {
    use p256::pkcs8::EncodePrivateKey as _;
    use rsa::Generate as _;
    let key = p256::ecdsa::SigningKey::generate();
    let der = key.to_pkcs8_der().unwrap();
    // An uncompressed SEC1 point: 0x04, then x and y, 32 bytes each.
    let point = key.verifying_key().to_sec1_point(false);
    let point = point.as_bytes();
    let jwk = json!({"kty": "EC", "crv": "P-256",
        "x": URL_SAFE_NO_PAD.encode(&point[1..33]), "y": URL_SAFE_NO_PAD.encode(&point[33..])});
    Signer::new(
        kid,
        Algorithm::ES256,
        EncodingKey::from_ec_der(der.as_bytes()),
        jwk,
    )
}

fn ed(kid: &str) -> Signer {
    use ed25519_dalek::pkcs8::EncodePrivateKey as _;
    let key = <ed25519_dalek::SigningKey as rsa::Generate>::generate();
    let der = key.to_pkcs8_der().unwrap();
    let jwk = json!({"kty": "OKP", "crv": "Ed25519",
        "x": URL_SAFE_NO_PAD.encode(key.verifying_key().as_bytes())});
    Signer::new(
        kid,
        Algorithm::EdDSA,
        EncodingKey::from_ed_der(der.as_bytes()),
        jwk,
    )
}

fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs()
}

/// An HTTP client like the server's: rustls on ring (the workspace's reqwest has no provider
/// of its own).
fn http() -> reqwest::Client {
    reqwest::Client::builder()
        .tls_backend_preconfigured(tool_http::tls_config().unwrap())
        .build()
        .unwrap()
}

/// The issuer's key set, served on loopback; its keys can be changed, its fetches counted.
#[derive(Clone)]
struct Issuer {
    url: String,
    keys: Arc<Mutex<Vec<Value>>>,
    fetches: Arc<AtomicU64>,
}

impl Issuer {
    async fn start(keys: Vec<Value>) -> Self {
        let keys = Arc::new(Mutex::new(keys));
        let fetches = Arc::new(AtomicU64::new(0));
        let (served, counted) = (keys.clone(), fetches.clone());
        let app = axum::Router::new().route(
            "/jwks",
            axum::routing::get(move || {
                counted.fetch_add(1, Ordering::SeqCst);
                let set = json!({"keys": *served.lock().unwrap()});
                async move {
                    (
                        [(http::header::CONTENT_TYPE, "application/json")],
                        set.to_string(),
                    )
                }
            }),
        );
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}/jwks", listener.local_addr().unwrap());
        tokio::spawn(async move { axum::serve(listener, app).await });
        Self { url, keys, fetches }
    }

    fn set(&self, keys: Vec<Value>) {
        *self.keys.lock().unwrap() = keys;
    }

    fn fetches(&self) -> u64 {
        self.fetches.load(Ordering::SeqCst)
    }
}

/// `whoami` (anyone), `read_note` (`notes:read`) and `write_note` (`notes:write`); `whoami`
/// answers with what it knows of its caller.
fn tools() -> McpServer {
    let object = json!({"type": "object"});
    let whoami = |_: Value, ctx: ToolContext| async move {
        // What `#[ctx] caller: Principal` takes.
        let caller = Principal::from_context(&ctx)?;
        Ok(ToolOutput::new(json!({
            "subject": caller.subject(),
            "client": caller.client_id(),
            "issuer": caller.issuer(),
            "scopes": caller.scopes(),
            "email": caller.claim("email"),
            "secret": caller.claim("secret"),
            "token_for_us": caller.token_for(&resource_of(&ctx)).is_some(),
            "authorization_seen": ctx.headers().get("authorization"),
        })))
    };
    let mut registry = Registry::empty();
    registry
        .register_all([
            DynamicTool::new("whoami", "Says who calls.", object.clone()).handler(whoami),
            DynamicTool::new("read_note", "Reads a note.", object.clone())
                .scopes(["notes:read"])
                .handler(|_, _| async move { Ok(ToolOutput::new(json!("a note"))) }),
            DynamicTool::new("write_note", "Writes a note.", object)
                .scopes(["notes:write"])
                .handler(|_, _| async move { Ok(ToolOutput::new(json!("written"))) }),
        ])
        .unwrap();
    McpServer::new(Executor::new(registry))
}

/// The resource the test server is, as its tools learn it (from an extension the test sets).
fn resource_of(ctx: &ToolContext) -> String {
    ctx.extension::<Resource>()
        .map(|r| r.0.clone())
        .unwrap_or_default()
}

#[derive(Clone)]
struct Resource(String);

/// A server on loopback behind OAuth, its issuer, and the keys it trusts.
struct Setup {
    /// A handle on the server served, to change its tools.
    server: McpServer,
    addr: String,
    resource: String,
    oauth: Arc<OAuth>,
    ec: Signer,
    ed: Signer,
}

impl Setup {
    async fn start(configure: impl FnOnce(OAuthConfig) -> OAuthConfig) -> Self {
        Self::serving(tools(), configure).await
    }

    /// [`start`](Self::start), serving `server`.
    async fn serving(
        server: McpServer,
        configure: impl FnOnce(OAuthConfig) -> OAuthConfig,
    ) -> Self {
        let ec = ec("ec-1");
        let ed = ed("ed-1");
        let issuer = Issuer::start(vec![rsa().jwk.clone(), ec.jwk.clone(), ed.jwk.clone()]).await;
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap().to_string();
        let resource = format!("http://{addr}/mcp");
        let config = OAuthConfig::new(&resource, ISSUER, JwksSource::Url(issuer.url.clone()))
            .with_required_scopes(["mcp:tools"])
            .with_kept_claims(["email"])
            .with_refetch_interval(Duration::from_secs(3600));
        let oauth = Arc::new(OAuth::load(configure(config)).await.unwrap());
        let options = HttpOptions::default().with_oauth(oauth.clone());
        let base = ToolContext::builder()
            .extension(Resource(resource.clone()))
            .build();
        let server = server.with_base_context(base);
        let served = server.clone();
        tokio::spawn(async move {
            let _ = tool_mcp::serve_http(served, listener, &options, Default::default()).await;
        });
        Self {
            server,
            addr,
            resource,
            oauth,
            ec,
            ed,
        }
    }

    fn metadata_url(&self) -> String {
        format!(
            "http://{}/.well-known/oauth-protected-resource/mcp",
            self.addr
        )
    }

    /// Claims that pass every check, with `scope`.
    fn claims(&self, scope: &str) -> Value {
        json!({
            "iss": ISSUER,
            "aud": [self.resource, "account"],
            "sub": "user-7",
            "azp": "inspector",
            "scope": scope,
            "email": "u7@example.test",
            "secret": "not kept",
            "iat": now(),
            "exp": now() + 300,
        })
    }

    /// A POST of `body` to the endpoint with `authorization` (none if `None`).
    async fn post(&self, authorization: Option<&str>, body: &Value) -> reqwest::Response {
        let mut request = http()
            .post(format!("http://{}/mcp", self.addr))
            .header("accept", "application/json, text/event-stream")
            .json(body);
        if let Some(value) = authorization {
            request = request.header("authorization", value);
        }
        request.send().await.unwrap()
    }

    async fn refusal(&self, authorization: Option<&str>) -> (u16, String) {
        let response = self.post(authorization, &initialize()).await;
        let status = response.status().as_u16();
        let challenge = response
            .headers()
            .get("www-authenticate")
            .map(|v| v.to_str().unwrap().to_owned())
            .unwrap_or_default();
        (status, challenge)
    }

    /// The challenge for an invalid token, as the specification shapes it.
    fn invalid_token(&self, description: &str) -> String {
        format!(
            "Bearer error=\"invalid_token\", resource_metadata=\"{}\", error_description=\"the access token is not valid: {description}\"",
            self.metadata_url()
        )
    }

    async fn client(&self, token: &str) -> rmcp::service::RunningService<rmcp::RoleClient, ()> {
        let config =
            StreamableHttpClientTransportConfig::with_uri(format!("http://{}/mcp", self.addr))
                .auth_header(token);
        let transport = StreamableHttpClientTransport::with_client(http(), config);
        ().serve(transport).await.expect("the client connects")
    }
}

fn initialize() -> Value {
    json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "t", "version": "1"}}})
}

fn bearer(token: &str) -> String {
    format!("Bearer {token}")
}

#[tokio::test]
async fn without_a_token_the_challenge_points_at_the_metadata() {
    let s = Setup::start(|c| c).await;
    // MCP 2025-11-25: `Bearer resource_metadata="...", scope="..."`.
    let expected = format!(
        "Bearer resource_metadata=\"{}\", scope=\"mcp:tools\"",
        s.metadata_url()
    );
    assert_eq!(s.refusal(None).await, (401, expected.clone()));
    // A scheme other than Bearer is no token at all (RFC 6750 section 3.1).
    assert_eq!(s.refusal(Some("Basic dXNlcjpwYXNz")).await, (401, expected));
    // A GET (the SSE stream) and a DELETE are guarded as well.
    let url = format!("http://{}/mcp", s.addr);
    for request in [http().get(&url), http().delete(&url)] {
        assert_eq!(request.send().await.unwrap().status(), 401);
    }
}

#[tokio::test]
async fn a_malformed_header_is_an_invalid_request() {
    let s = Setup::start(|c| c).await;
    for header in ["Bearer", "Bearer a b", "Bearer a\"b"] {
        let (status, challenge) = s.refusal(Some(header)).await;
        assert_eq!(status, 400, "{header}");
        assert!(
            challenge.starts_with("Bearer error=\"invalid_request\", resource_metadata="),
            "{header}: {challenge}"
        );
    }
    let token = s.ec.sign(&s.claims("mcp:tools"));
    let twice = http()
        .post(format!("http://{}/mcp", s.addr))
        .header("authorization", bearer(&token))
        .header("authorization", bearer(&token))
        .json(&initialize())
        .send()
        .await
        .unwrap();
    assert_eq!(twice.status(), 400);
    let challenge = twice.headers()["www-authenticate"].to_str().unwrap();
    assert!(
        challenge.contains("more than one Authorization header"),
        "{challenge}"
    );
}

#[tokio::test]
async fn each_failed_check_is_named() {
    let s = Setup::start(|c| c).await;
    let claims = s.claims("mcp:tools");
    let with = |edit: &dyn Fn(&mut Value)| {
        let mut c = claims.clone();
        edit(&mut c);
        c
    };
    let other_ec = ec("ec-1");
    let cases: Vec<(&str, String, String)> = vec![
        (
            "wrong issuer",
            s.ec.sign(&with(&|c| c["iss"] = json!("https://evil.example.test"))),
            format!("it was issued by `https://evil.example.test`, not by `{ISSUER}`"),
        ),
        (
            "wrong audience",
            s.ec.sign(&with(&|c| {
                c["aud"] = json!("https://other.example.test/mcp")
            })),
            format!(
                "it was issued for `https://other.example.test/mcp`, not for this server (`{}`)",
                s.resource
            ),
        ),
        (
            "no audience",
            s.ec.sign(&with(&|c| {
                c.as_object_mut().unwrap().remove("aud");
            })),
            "it has no `aud` claim".into(),
        ),
        (
            "expired",
            s.ec.sign(&with(&|c| c["exp"] = json!(now() - 600))),
            "it has expired".into(),
        ),
        (
            "no exp",
            s.ec.sign(&with(&|c| {
                c.as_object_mut().unwrap().remove("exp");
            })),
            "it has no `exp` claim".into(),
        ),
        (
            "not yet valid",
            s.ec.sign(&with(&|c| c["nbf"] = json!(now() + 600))),
            "it is not valid yet (`nbf` is in the future)".into(),
        ),
        (
            "no subject",
            s.ec.sign(&with(&|c| {
                c.as_object_mut().unwrap().remove("sub");
            })),
            "it has no `sub` claim".into(),
        ),
        (
            // An empty subject is nobody: every such caller would share sessions and records.
            "empty subject",
            s.ec.sign(&with(&|c| c["sub"] = json!(""))),
            "it has no `sub` claim".into(),
        ),
        (
            "issuer with a trailing slash (compared exactly)",
            s.ec.sign(&with(&|c| c["iss"] = json!(format!("{ISSUER}/")))),
            format!("it was issued by `{ISSUER}/`, not by `{ISSUER}`"),
        ),
        (
            "an audience array without this server",
            s.ec.sign(&with(&|c| {
                c["aud"] = json!(["account", "https://other.example.test"])
            })),
            format!(
                "it was issued for `account`, `https://other.example.test`, not for this server (`{}`)",
                s.resource
            ),
        ),
        (
            "bad signature (another key under the same kid)",
            other_ec.sign(&claims),
            "its signature does not verify".into(),
        ),
        (
            "unknown key",
            ec("ec-9").sign(&claims),
            "the issuer's key set has no key `ec-9`".into(),
        ),
        (
            "not a JWT",
            "abc.def".into(),
            "it is not a JWT (it is not three dot-separated parts)".into(),
        ),
    ];
    for (case, token, description) in cases {
        let (status, challenge) = s.refusal(Some(&bearer(&token))).await;
        assert_eq!(status, 401, "{case}");
        assert_eq!(challenge, s.invalid_token(&description), "{case}");
    }
    // Within the leeway (60 s), a token just expired still passes.
    let late = s.ec.sign(&with(&|c| c["exp"] = json!(now() - 5)));
    assert_eq!(
        s.post(Some(&bearer(&late)), &initialize()).await.status(),
        200
    );
}

#[tokio::test]
async fn unsigned_hmac_and_cross_algorithm_tokens_are_refused() {
    let s = Setup::start(|c| c).await;
    let claims = s.claims("mcp:tools");
    let part = |v: &Value| URL_SAFE_NO_PAD.encode(v.to_string());

    // `alg: none`, with and without a signature part.
    let none = format!(
        "{}.{}.",
        part(&json!({"alg": "none", "kid": "ec-1"})),
        part(&claims)
    );
    let (status, challenge) = s.refusal(Some(&bearer(&none))).await;
    assert_eq!(status, 401);
    assert_eq!(
        challenge,
        s.invalid_token("it is unsigned (`alg: none`), which is never accepted")
    );

    // The confusion attack: HMAC keyed with the RSA public key the issuer publishes.
    let public = URL_SAFE_NO_PAD
        .decode(rsa().jwk["n"].as_str().unwrap())
        .unwrap();
    for secret in [public.as_slice(), rsa().jwk.to_string().as_bytes()] {
        let mut header = Header::new(Algorithm::HS256);
        header.kid = Some("rsa-1".into());
        let key = EncodingKey::from_secret(secret).unwrap();
        let token = jsonwebtoken::encode(&header, &claims, &key).unwrap();
        let (status, challenge) = s.refusal(Some(&bearer(&token))).await;
        assert_eq!(status, 401);
        assert_eq!(
            challenge,
            s.invalid_token(
                "`HS256` (HMAC with a shared secret) is never accepted; the issuer signs with RS256, ES256 or EdDSA"
            )
        );
    }

    // An ES256 token naming the RSA key, and an EdDSA one naming the EC key.
    let mut header = Header::new(Algorithm::ES256);
    header.kid = Some("rsa-1".into());
    let token = jsonwebtoken::encode(&header, &claims, &s.ec.key).unwrap();
    assert_eq!(
        s.refusal(Some(&bearer(&token))).await.1,
        s.invalid_token("it is signed with `ES256`, but its key is for `RS256`")
    );
    let mut header = Header::new(Algorithm::EdDSA);
    header.kid = Some("ec-1".into());
    let token = jsonwebtoken::encode(&header, &claims, &s.ed.key).unwrap();
    assert_eq!(
        s.refusal(Some(&bearer(&token))).await.1,
        s.invalid_token("it is signed with `EdDSA`, but its key is for `ES256`")
    );

    // Every accepted algorithm passes with its own key.
    for signer in [rsa(), &s.ec, &s.ed] {
        let response = s
            .post(Some(&bearer(&signer.sign(&claims))), &initialize())
            .await;
        assert_eq!(response.status(), 200, "{:?}", signer.alg);
    }
}

#[tokio::test]
async fn scopes_the_server_or_a_tool_needs_are_asked_for_with_403() {
    let s = Setup::start(|c| c).await;
    // Without the server's scope.
    let token = s.ec.sign(&s.claims("notes:read"));
    let (status, challenge) = s.refusal(Some(&bearer(&token))).await;
    assert_eq!(status, 403);
    assert_eq!(
        challenge,
        format!(
            "Bearer error=\"insufficient_scope\", scope=\"mcp:tools\", resource_metadata=\"{}\", error_description=\"the access token lacks the scope mcp:tools\"",
            s.metadata_url()
        )
    );

    // A call of a tool whose scope the token lacks: 403 naming every scope the call needs.
    let token = s.ed.sign(&s.claims("mcp:tools notes:read"));
    let call = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": "write_note", "arguments": {}}});
    let response = s.post(Some(&bearer(&token)), &call).await;
    assert_eq!(response.status(), 403);
    assert_eq!(
        response.headers()["www-authenticate"].to_str().unwrap(),
        format!(
            "Bearer error=\"insufficient_scope\", scope=\"mcp:tools notes:write\", resource_metadata=\"{}\", error_description=\"the tool `write_note` needs the scope notes:write\"",
            s.metadata_url()
        )
    );
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["error"], "insufficient_scope");
    assert_eq!(body["scope"], "mcp:tools notes:write");
}

#[tokio::test]
async fn a_valid_caller_sees_and_calls_what_its_scopes_allow_as_itself() {
    let s = Setup::start(|c| c).await;
    let token = rsa().sign(&s.claims("mcp:tools notes:read"));
    let client = s.client(&token).await;
    let tools = client.list_all_tools().await.unwrap();
    let mut names: Vec<_> = tools.iter().map(|t| t.name.to_string()).collect();
    names.sort();
    assert_eq!(names, ["read_note", "whoami"]);

    let result = client
        .call_tool(CallToolRequestParams::new("whoami"))
        .await
        .unwrap();
    assert_ne!(result.is_error, Some(true), "{result:?}");
    let caller = result.structured_content.clone().unwrap_or_else(|| {
        serde_json::from_str(&result.content[0].as_text().unwrap().text).unwrap()
    });
    assert_eq!(
        caller,
        json!({
            "subject": "user-7",
            "client": "inspector",
            "issuer": ISSUER,
            "scopes": ["mcp:tools", "notes:read"],
            "email": "u7@example.test",
            "secret": null,
            "token_for_us": true,
            "authorization_seen": null,
        })
    );
    let read = client
        .call_tool(CallToolRequestParams::new("read_note"))
        .await
        .unwrap();
    assert_ne!(read.is_error, Some(true), "{read:?}");
    client.cancel().await.unwrap();

    // With every scope, every tool.
    let token = s.ed.sign(&s.claims("mcp:tools notes:read notes:write"));
    let client = s.client(&token).await;
    assert_eq!(client.list_all_tools().await.unwrap().len(), 3);
    let written = client
        .call_tool(CallToolRequestParams::new("write_note"))
        .await
        .unwrap();
    assert_ne!(written.is_error, Some(true), "{written:?}");
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn a_session_answers_only_the_caller_that_began_it() {
    let s = Setup::start(|c| c).await;
    // The endpoint `serve_http` makes refuses another caller at the gate; an application that
    // mounts the endpoint behind `OAuth::protect` is held to it by the server itself.
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let mounted = listener.local_addr().unwrap().to_string();
    let router = s.oauth.protect(tool_mcp::http_router(
        tools(),
        &HttpOptions::default(),
        Default::default(),
    ));
    tokio::spawn(async move { axum::serve(listener, router).await });

    let alice = s.ec.sign(&s.claims("mcp:tools"));
    let mut claims = s.claims("mcp:tools");
    claims["sub"] = json!("mallory");
    let mallory = s.ec.sign(&claims);
    let list = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"});
    for (addr, refusal) in [
        (&s.addr, "Session not found"),
        (&mounted, "begun by another caller"),
    ] {
        let url = format!("http://{addr}/mcp");
        let response = http()
            .post(&url)
            .header("authorization", bearer(&alice))
            .header("accept", "application/json, text/event-stream")
            .json(&initialize())
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 200);
        let session = response.headers()["mcp-session-id"]
            .to_str()
            .unwrap()
            .to_owned();
        let answer = |token: &str| {
            http()
                .post(&url)
                .header("authorization", bearer(token))
                .header("accept", "application/json, text/event-stream")
                .header("mcp-session-id", &session)
                .header("mcp-protocol-version", "2025-11-25")
                .json(&list)
                .send()
        };
        let theirs = answer(&mallory).await.unwrap().text().await.unwrap();
        assert!(theirs.contains(refusal), "{addr}: {theirs}");
        let mine = answer(&alice).await.unwrap().text().await.unwrap();
        assert!(mine.contains("whoami"), "{addr}: {mine}");
    }
}

/// A request on a session, with `token`, sent as `method` with `body` (none for GET and DELETE).
async fn on_session(
    s: &Setup,
    method: reqwest::Method,
    token: &str,
    session: &str,
    body: Option<&Value>,
) -> reqwest::Response {
    let mut request = http()
        .request(method, format!("http://{}/mcp", s.addr))
        .header("authorization", bearer(token))
        .header("accept", "application/json, text/event-stream")
        .header("mcp-session-id", session)
        .header("mcp-protocol-version", "2025-11-25");
    if let Some(body) = body {
        request = request.json(body);
    }
    request.send().await.unwrap()
}

#[tokio::test]
async fn another_caller_can_neither_read_nor_end_nor_answer_on_a_session() {
    let s = Setup::start(|c| c).await;
    let alice = s.ec.sign(&s.claims("mcp:tools"));
    let response = s.post(Some(&bearer(&alice)), &initialize()).await;
    assert_eq!(response.status(), 200);
    let session = response.headers()["mcp-session-id"]
        .to_str()
        .unwrap()
        .to_owned();
    let mut claims = s.claims("mcp:tools");
    claims["sub"] = json!("mallory");
    let mallory = s.ec.sign(&claims);

    // The session's stream (what the server sends the client, and with `Last-Event-ID` the
    // replay of its answers), its end, and any message on it: not for another caller, who is
    // told, as for a session that is not there, to begin one of its own.
    let get = on_session(&s, reqwest::Method::GET, &mallory, &session, None).await;
    assert_eq!(get.status(), 404);
    let cancel = json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
        "params": {"requestId": 2}});
    let notify = on_session(&s, reqwest::Method::POST, &mallory, &session, Some(&cancel)).await;
    assert_eq!(notify.status(), 404);
    let delete = on_session(&s, reqwest::Method::DELETE, &mallory, &session, None).await;
    assert_eq!(delete.status(), 404);

    // The session is still its owner's.
    let list = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"});
    let mine = on_session(&s, reqwest::Method::POST, &alice, &session, Some(&list)).await;
    assert_eq!(mine.status(), 200);
    assert!(mine.text().await.unwrap().contains("whoami"));
    let end = on_session(&s, reqwest::Method::DELETE, &alice, &session, None).await;
    assert_eq!(end.status(), 200);
    let after = on_session(&s, reqwest::Method::POST, &alice, &session, Some(&list)).await;
    assert_eq!(after.status(), 404);
}

#[tokio::test]
async fn a_tools_call_written_with_escapes_is_still_asked_for_its_scope() {
    let s = Setup::start(|c| c).await;
    let token = s.ed.sign(&s.claims("mcp:tools notes:read"));
    // The same JSON-RPC message as `"method":"tools/call"`, spelt with JSON escapes.
    for body in [
        r#"{"jsonrpc":"2.0","id":2,"method":"tools\/call","params":{"name":"write_note","arguments":{}}}"#,
        r#"{"jsonrpc":"2.0","id":2,"method":"tools\u002fcall","params":{"name":"write_note","arguments":{}}}"#,
        r#"{"jsonrpc":"2.0","id":2,"method":"\u0074ools/call","params":{"name":"write\u005fnote"}}"#,
    ] {
        let response = http()
            .post(format!("http://{}/mcp", s.addr))
            .header("authorization", bearer(&token))
            .header("accept", "application/json, text/event-stream")
            .header("content-type", "application/json")
            .body(body)
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 403, "{body}");
        let challenge = response.headers()["www-authenticate"].to_str().unwrap();
        assert!(
            challenge.contains("scope=\"mcp:tools notes:write\""),
            "{challenge}"
        );
    }
}

#[tokio::test]
async fn a_misspelt_call_suggests_only_tools_the_caller_may_see() {
    let s = Setup::start(|c| c).await;
    for (scope, suggested) in [
        ("mcp:tools notes:read", false),
        ("mcp:tools notes:write", true),
    ] {
        let client = s.client(&s.ec.sign(&s.claims(scope))).await;
        let error = client
            .call_tool(CallToolRequestParams::new("write_notes"))
            .await
            .unwrap_err()
            .to_string();
        assert!(error.contains("write_notes"), "{error}");
        assert_eq!(
            error.contains("`write_note`"),
            suggested,
            "{scope}: {error}"
        );
        client.cancel().await.unwrap();
    }
}

#[tokio::test]
async fn every_tool_is_listed_when_asked_but_the_call_still_needs_its_scope() {
    let s = Setup::start(|c| c.with_all_tools_listed(true)).await;
    let token = s.ec.sign(&s.claims("mcp:tools"));
    let client = s.client(&token).await;
    assert_eq!(client.list_all_tools().await.unwrap().len(), 3);
    client.cancel().await.unwrap();
    let call = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": "read_note", "arguments": {}}});
    assert_eq!(s.post(Some(&bearer(&token)), &call).await.status(), 403);
}

#[tokio::test]
async fn the_metadata_is_served_at_both_paths_to_anyone() {
    let s = Setup::start(|c| c).await;
    let expected = json!({
        "resource": s.resource,
        "authorization_servers": [ISSUER],
        // The server's own scopes, then the ones its tools need.
        "scopes_supported": ["mcp:tools", "notes:read", "notes:write"],
        "bearer_methods_supported": ["header"],
    });
    for path in [
        "/.well-known/oauth-protected-resource",
        "/.well-known/oauth-protected-resource/mcp",
    ] {
        let response = http()
            .get(format!("http://{}{path}", s.addr))
            .header("origin", "http://localhost:6274")
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 200, "{path}");
        assert_eq!(response.headers()["access-control-allow-origin"], "*");
        // Its scopes follow the tools served, so it is not to be kept.
        assert_eq!(response.headers()["cache-control"], "no-cache");
        let document: Value = response.json().await.unwrap();
        assert_eq!(document, expected, "{path}");
        // Without the tools: the configuration's own document.
        let mut configured = expected.clone();
        configured["scopes_supported"] = json!(["mcp:tools"]);
        assert_eq!(s.oauth.metadata(), configured);

        // The MCP Inspector's preflight.
        let preflight = http()
            .request(reqwest::Method::OPTIONS, format!("http://{}{path}", s.addr))
            .header("origin", "http://localhost:6274")
            .header("access-control-request-method", "GET")
            .header("access-control-request-headers", "mcp-protocol-version")
            .send()
            .await
            .unwrap();
        assert_eq!(preflight.status(), 204);
        assert_eq!(preflight.headers()["access-control-allow-origin"], "*");
        let allowed = preflight.headers()["access-control-allow-methods"]
            .to_str()
            .unwrap();
        assert!(allowed.contains("GET"), "{allowed}");
    }
    assert_eq!(s.oauth.metadata_url(), s.metadata_url());
}

#[tokio::test]
async fn a_rotated_key_is_fetched_once_and_unknown_keys_do_not_hammer_the_issuer() {
    let first = ec("k1");
    let issuer = Issuer::start(vec![first.jwk.clone()]).await;
    let resource = "https://mcp.example.test/mcp";
    let config = |interval| {
        OAuthConfig::new(resource, ISSUER, JwksSource::Url(issuer.url.clone()))
            .with_refetch_interval(interval)
    };
    let oauth = OAuth::load(config(Duration::from_secs(3600)))
        .await
        .unwrap();
    assert_eq!((issuer.fetches(), oauth.jwks_fetches()), (1, 1));
    let claims = json!({"iss": ISSUER, "aud": resource, "sub": "u", "exp": now() + 300});
    assert_eq!(
        oauth
            .validate(&first.sign(&claims))
            .await
            .unwrap()
            .subject(),
        "u"
    );

    // The issuer rotates: a token under the new key makes one fetch, and passes.
    let second = ed("k2");
    issuer.set(vec![first.jwk.clone(), second.jwk.clone()]);
    let caller = oauth.validate(&second.sign(&claims)).await.unwrap();
    assert_eq!(caller.token_for(resource).map(|t| t.len() > 10), Some(true));
    assert_eq!((issuer.fetches(), oauth.jwks_fetches()), (2, 2));

    // Within the interval, neither another new key nor a flood of made-up ones fetches again.
    let third = ec("k3");
    issuer.set(vec![
        first.jwk.clone(),
        second.jwk.clone(),
        third.jwk.clone(),
    ]);
    assert_eq!(
        oauth.validate(&third.sign(&claims)).await.unwrap_err(),
        AuthError::InvalidToken(TokenProblem::UnknownKey("k3".into()))
    );
    for n in 0..20 {
        let bogus = ec(&format!("bogus-{n}"));
        assert!(oauth.validate(&bogus.sign(&claims)).await.is_err());
    }
    assert_eq!(issuer.fetches(), 2);
    // Known keys still pass meanwhile.
    assert!(oauth.validate(&second.sign(&claims)).await.is_ok());

    // The first unknown key after start is fetched at once, whatever the interval.
    let eager = OAuth::load(config(Duration::from_secs(1))).await.unwrap();
    let fourth = ec("k4");
    issuer.set(vec![first.jwk.clone(), fourth.jwk.clone()]);
    assert!(eager.validate(&fourth.sign(&claims)).await.is_ok());
}

#[tokio::test]
async fn a_key_set_that_cannot_be_had_is_a_startup_error_that_says_where_and_why() {
    let issuer = Issuer::start(vec![json!({"kty": "oct", "k": "c2VjcmV0", "kid": "h"})]).await;
    let load = |jwks| OAuth::load(OAuthConfig::new("https://mcp.example.test", ISSUER, jwks));

    let error = load(JwksSource::Url(issuer.url.clone())).await.unwrap_err();
    assert!(matches!(error, OAuthError::NoUsableKey { .. }), "{error}");
    let text = error.to_string();
    assert!(
        text.contains(&issuer.url) && text.contains("key `h`: a shared secret"),
        "{text}"
    );

    let missing = issuer.url.replace("/jwks", "/nothing");
    let text = load(JwksSource::Url(missing.clone()))
        .await
        .unwrap_err()
        .to_string();
    assert!(text.contains(&missing) && text.contains("404"), "{text}");

    let text = load(JwksSource::File("/nonexistent/jwks.json".into()))
        .await
        .unwrap_err()
        .to_string();
    assert!(text.contains("/nonexistent/jwks.json"), "{text}");

    let text = OAuth::load(OAuthConfig::new(
        "mcp.example.test",
        ISSUER,
        JwksSource::Url(issuer.url.clone()),
    ))
    .await
    .unwrap_err()
    .to_string();
    assert!(text.contains("`mcp.example.test`"), "{text}");
}

#[tokio::test]
async fn a_key_set_file_is_read_and_a_lone_key_needs_no_kid() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("jwks.json");
    let signer = ed("ed-file");
    let mut jwk = signer.jwk.clone();
    jwk.as_object_mut().unwrap().remove("kid");
    std::fs::write(&path, json!({"keys": [jwk]}).to_string()).unwrap();
    let resource = "https://MCP.example.test/mcp/";
    let config = OAuthConfig::new(resource, ISSUER, JwksSource::File(path))
        .with_required_scopes(["mcp:tools"]);
    let oauth = OAuth::load(config).await.unwrap();
    assert_eq!(oauth.resource(), "https://mcp.example.test/mcp");
    let claims = json!({"iss": ISSUER, "aud": "https://mcp.example.test/mcp", "sub": "u",
        "exp": now() + 300, "scp": ["mcp:tools", "x"], "client_id": "cli"});
    let mut header = Header::new(Algorithm::EdDSA);
    header.kid = None;
    let token = jsonwebtoken::encode(&header, &claims, &signer.key).unwrap();
    let caller = oauth.authorize(&token).await.unwrap();
    assert_eq!(caller.scopes(), ["mcp:tools", "x"]);
    assert_eq!(caller.client_id(), Some("cli"));
    // `authorize` asks for the server's scopes; `validate` does not.
    let bare = json!({"iss": ISSUER, "aud": "https://mcp.example.test/mcp", "sub": "u", "exp": now() + 300});
    let token = jsonwebtoken::encode(&header, &bare, &signer.key).unwrap();
    assert!(oauth.validate(&token).await.is_ok());
    assert!(matches!(
        oauth.authorize(&token).await,
        Err(AuthError::InsufficientScope { .. })
    ));
}

/// Without HTTP (stdio), a caller in the base context sees and calls only what its scopes
/// allow: the server refuses the call itself, not only the HTTP gate.
#[tokio::test]
async fn the_base_contexts_caller_is_held_to_the_tools_scopes_over_stdio() {
    let base = ToolContext::builder()
        .principal(Principal::new("local").with_scopes(["notes:read"]))
        .build();
    let server = tools().with_base_context(base);
    let (served, client) = tokio::io::duplex(1 << 16);
    tokio::spawn(async move {
        let (read, write) = tokio::io::split(served);
        let _ = tool_mcp::serve_io(server, read, write, Default::default()).await;
    });
    let client = ().serve(client).await.unwrap();
    let mut names: Vec<_> = client
        .list_all_tools()
        .await
        .unwrap()
        .iter()
        .map(|t| t.name.to_string())
        .collect();
    names.sort();
    assert_eq!(names, ["read_note", "whoami"]);
    let refused = client
        .call_tool(CallToolRequestParams::new("write_note"))
        .await
        .unwrap();
    assert_eq!(refused.is_error, Some(true));
    let text = &refused.content[0].as_text().unwrap().text;
    assert!(text.contains("notes:write"), "{text}");
    client.cancel().await.unwrap();
}

/// A tool added while the server runs is held to its scopes like one it started with: hidden
/// from callers without them, its calls asked for them with 403, and its scopes advertised in
/// the metadata, although no tool needed a scope when the server started (so the gate then read
/// no call's tool).
#[tokio::test]
async fn a_scoped_tool_added_while_serving_is_hidden_and_guarded() {
    let mut registry = Registry::empty();
    registry
        .register(
            DynamicTool::new("whoami", "Says who calls.", json!({"type": "object"}))
                .handler(|_, _| async move { Ok(ToolOutput::new(json!("you"))) }),
        )
        .unwrap();
    let s = Setup::serving(McpServer::new(Executor::new(registry)), |c| c).await;
    let reader = s.ec.sign(&s.claims("mcp:tools notes:read"));
    let call = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": "purge_notes", "arguments": {}}});
    let advertised = || async {
        let document: Value = http()
            .get(s.metadata_url())
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        document["scopes_supported"].clone()
    };
    assert_eq!(advertised().await, json!(["mcp:tools"]));

    s.server
        .update(|r| {
            r.register(
                DynamicTool::new(
                    "purge_notes",
                    "Deletes every note.",
                    json!({"type": "object"}),
                )
                .scopes(["notes:admin"])
                .handler(|_, _| async move { Ok(ToolOutput::new(json!("purged"))) }),
            )
        })
        .unwrap();
    let client = s.client(&reader).await;
    let names: Vec<_> = client
        .list_all_tools()
        .await
        .unwrap()
        .iter()
        .map(|t| t.name.to_string())
        .collect();
    assert_eq!(names, ["whoami"]);
    client.cancel().await.unwrap();
    let response = s.post(Some(&bearer(&reader)), &call).await;
    assert_eq!(response.status(), 403);
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["scope"], "mcp:tools notes:admin");
    // The metadata advertises the new tool's scope, as it is now.
    assert_eq!(advertised().await, json!(["mcp:tools", "notes:admin"]));

    // A caller granted the scope sees it and calls it.
    let admin = s.ec.sign(&s.claims("mcp:tools notes:admin"));
    let client = s.client(&admin).await;
    assert_eq!(client.list_all_tools().await.unwrap().len(), 2);
    let purged = client
        .call_tool(CallToolRequestParams::new("purge_notes"))
        .await
        .unwrap();
    assert_ne!(purged.is_error, Some(true), "{purged:?}");
    client.cancel().await.unwrap();
}

/// A key set behind a redirect: `/jwks` answers 302 to `target` (a path of the same server,
/// or a URL), `/keys` serves `key`; hits on `/keys` are counted.
async fn redirecting_issuer(
    key: &Value,
    target: impl Fn(&str) -> String,
) -> (String, Arc<AtomicU64>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let location = target(&addr.port().to_string());
    let hits = Arc::new(AtomicU64::new(0));
    let counted = hits.clone();
    let set = json!({"keys": [key]}).to_string();
    let app = axum::Router::new()
        .route(
            "/jwks",
            axum::routing::get(move || async move {
                (
                    http::StatusCode::FOUND,
                    [(http::header::LOCATION, location)],
                )
            }),
        )
        .route(
            "/keys",
            axum::routing::get(move || {
                counted.fetch_add(1, Ordering::SeqCst);
                async move { ([(http::header::CONTENT_TYPE, "application/json")], set) }
            }),
        );
    tokio::spawn(async move { axum::serve(listener, app).await });
    (format!("http://{addr}/jwks"), hits)
}

#[tokio::test]
async fn a_redirect_never_takes_the_key_set_onto_plain_http_over_the_network() {
    let key = ec("k").jwk;
    let load = |url: String| {
        OAuth::load(OAuthConfig::new(
            "https://mcp.example.test/mcp",
            ISSUER,
            JwksSource::Url(url),
        ))
    };
    // On the same host, a redirect is followed.
    let (url, hits) = redirecting_issuer(&key, |_| "/keys".into()).await;
    load(url).await.unwrap();
    assert_eq!(hits.load(Ordering::SeqCst), 1);
    // A loopback URL (no warning about plain HTTP) redirected to plain HTTP on another address
    // would let anyone on the path replace the keys. 0.0.0.0 is not loopback, yet reaches
    // this host on Linux: nothing leaves the machine, were the redirect followed.
    let (url, hits) = redirecting_issuer(&key, |port| format!("http://0.0.0.0:{port}/keys")).await;
    let error = load(url).await.unwrap_err().to_string();
    assert!(error.contains("plain HTTP"), "{error}");
    assert_eq!(hits.load(Ordering::SeqCst), 0);
}

#[tokio::test]
async fn hostile_headers_are_refused_and_no_url_a_token_names_is_fetched() {
    let s = Setup::start(|c| c).await;
    let claims = s.claims("mcp:tools");
    let part = |v: &Value| URL_SAFE_NO_PAD.encode(v.to_string());

    // A key set of the attacker's own, served where `jku` and `x5u` point; never asked for.
    let mallory = ec("mallory");
    let theirs = Issuer::start(vec![mallory.jwk.clone()]).await;
    for kid in ["mallory", "ec-1"] {
        let mut header = Header::new(Algorithm::ES256);
        header.kid = Some(kid.into());
        header.jku = Some(theirs.url.clone());
        header.x5u = Some(theirs.url.clone());
        header.jwk = Some(serde_json::from_value(mallory.jwk.clone()).unwrap());
        let token = jsonwebtoken::encode(&header, &claims, &mallory.key).unwrap();
        let (status, challenge) = s.refusal(Some(&bearer(&token))).await;
        assert_eq!(status, 401, "{kid}");
        let expected = match kid {
            "mallory" => "the issuer's key set has no key `mallory`",
            _ => "its signature does not verify",
        };
        assert_eq!(challenge, s.invalid_token(expected), "{kid}");
    }
    assert_eq!(theirs.fetches(), 0);

    // A `crit` extension the server does not understand (RFC 7515 section 4.1.11), on a token
    // signed with the issuer's own key: refused.
    let mut header = Header::new(Algorithm::ES256);
    header.kid = Some("ec-1".into());
    header.crit = Some(vec!["urn:example:must-understand".into()]);
    let token = jsonwebtoken::encode(&header, &claims, &s.ec.key).unwrap();
    assert_eq!(s.refusal(Some(&bearer(&token))).await.0, 401);

    // An `alg` beginning with a character of several bytes: an answer, not a dropped connection.
    let odd = format!("{}.{}.c2ln", part(&json!({"alg": "€S256"})), part(&claims));
    assert_eq!(
        s.refusal(Some(&bearer(&odd))).await,
        (
            401,
            s.invalid_token("the algorithm `€S256` is not accepted (RS256, ES256, EdDSA are)")
                .replace('€', "?")
        )
    );

    // The scheme in any case, a token in the query string ignored (no header: no token).
    let token = s.ec.sign(&claims);
    assert_eq!(
        s.post(Some(&format!("bEaReR {token}")), &initialize())
            .await
            .status(),
        200
    );
    let in_query = http()
        .post(format!("http://{}/mcp?access_token={token}", s.addr))
        .header("accept", "application/json, text/event-stream")
        .json(&initialize())
        .send()
        .await
        .unwrap();
    assert_eq!(in_query.status(), 401);
    assert!(
        !in_query.headers()["www-authenticate"]
            .to_str()
            .unwrap()
            .contains("error=")
    );

    // A very long token and a very long `kid` are refused with a short description.
    let long = format!(
        "{}.{}.{}",
        part(&json!({"alg": "ES256", "kid": "k".repeat(20_000)})),
        part(&claims),
        "A".repeat(20_000)
    );
    let (status, challenge) = s.refusal(Some(&bearer(&long))).await;
    assert_eq!(status, 401);
    assert!(challenge.len() < 1000, "{}", challenge.len());
}
