//! Which token a request to a configured service carries: the caller's, when it was issued for
//! the audience the service accepts; else the operator's, when one is configured; else none.
//! Never a token meant for another service (the MCP authorization specification's "token
//! passthrough"), and never two.

use reqwest::header::HeaderValue;
use tool_core::context::Principal;

use super::config::{HttpConfigError, TokenEnv};

/// Reads an environment variable; the process's, or a test's.
pub(super) type EnvReader<'a> = &'a dyn Fn(&str) -> Option<String>;

/// The process environment. A value that is not UTF-8 keeps its replacement characters, which
/// no header value accepts, so it is refused as a token rather than skipped.
pub(super) fn process_env(name: &str) -> Option<String> {
    std::env::var_os(name).map(|v| v.to_string_lossy().into_owned())
}

/// How a service's requests are authorized.
pub(super) struct ServiceAuth {
    audience: Option<String>,
    operator: Option<HeaderValue>,
}

impl ServiceAuth {
    /// Reads the operator's token, if the service has one, now: a missing one is a
    /// configuration error at start, not a failure of some later call.
    pub(super) fn new(
        audience: Option<String>,
        token_env: Option<&TokenEnv>,
        env: EnvReader<'_>,
    ) -> Result<Self, HttpConfigError> {
        let operator = match token_env {
            None => None,
            Some(TokenEnv { var, env: name }) => {
                let token = env(name).unwrap_or_default();
                let token = token.trim();
                if token.is_empty() {
                    return Err(HttpConfigError::MissingToken {
                        var: var.clone(),
                        env: name.clone(),
                    });
                }
                Some(bearer(token).ok_or_else(|| HttpConfigError::InvalidToken {
                    var: var.clone(),
                    env: name.clone(),
                })?)
            }
        };
        Ok(Self { audience, operator })
    }

    /// The `Authorization` value of a request made for `principal` (none outside a call).
    pub(super) fn authorization(&self, principal: Option<&Principal>) -> Option<HeaderValue> {
        if let Some(audience) = &self.audience
            && let Some(token) = principal.and_then(|p| p.token_for(audience))
        {
            // The caller's token applies: it or nothing, never the operator's in its place.
            return bearer(token);
        }
        self.operator.clone()
    }
}

/// `Bearer <token>`, marked sensitive so it never appears in `Debug` output; `None` for a token
/// that could not be sent as one.
fn bearer(token: &str) -> Option<HeaderValue> {
    // Visible ASCII only: `HeaderValue` would also take bytes above 127.
    if token.is_empty() || !token.bytes().all(|b| b.is_ascii_graphic()) {
        return None;
    }
    let mut value = HeaderValue::from_str(&format!("Bearer {token}")).ok()?;
    value.set_sensitive(true);
    Some(value)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(name: &str) -> Option<String> {
        match name {
            "OPS_TOKEN" => Some(" ops-token \n".to_owned()),
            "SPACED" => Some("two words".to_owned()),
            "NON_ASCII" => Some("caf\u{e9}".to_owned()),
            "EMPTY" => Some("  ".to_owned()),
            _ => None,
        }
    }

    fn token_env(name: &str) -> TokenEnv {
        TokenEnv {
            var: "services.x.token_env".to_owned(),
            env: name.to_owned(),
        }
    }

    fn header(value: Option<HeaderValue>) -> Option<String> {
        value.map(|v| v.to_str().unwrap().to_owned())
    }

    #[test]
    fn the_callers_token_applies_only_for_the_services_audience_and_displaces_the_operators() {
        let caller = Principal::new("u").with_token("caller-token", ["https://api.example.com"]);
        let elsewhere = Principal::new("u").with_token("other-token", ["https://other.example"]);
        let tokenless = Principal::new("u");

        let both = ServiceAuth::new(
            Some("https://api.example.com/".to_owned()),
            Some(&token_env("OPS_TOKEN")),
            &env,
        )
        .unwrap();
        let caller_header = both.authorization(Some(&caller)).unwrap();
        assert!(caller_header.is_sensitive());
        assert_eq!(caller_header, "Bearer caller-token");
        for who in [Some(&elsewhere), Some(&tokenless), None] {
            assert_eq!(
                header(both.authorization(who)).as_deref(),
                Some("Bearer ops-token")
            );
        }

        let audience_only =
            ServiceAuth::new(Some("https://api.example.com".to_owned()), None, &env).unwrap();
        assert_eq!(
            header(audience_only.authorization(Some(&caller))).as_deref(),
            Some("Bearer caller-token")
        );
        assert_eq!(audience_only.authorization(Some(&elsewhere)), None);
        assert_eq!(audience_only.authorization(None), None);

        let neither = ServiceAuth::new(None, None, &env).unwrap();
        assert_eq!(neither.authorization(Some(&caller)), None);
    }

    #[test]
    fn operator_tokens_are_read_at_build_and_refused_when_unusable() {
        let err = |name: &str| {
            ServiceAuth::new(None, Some(&token_env(name)), &env)
                .err()
                .unwrap()
                .to_string()
        };
        assert_eq!(
            err("UNSET"),
            "services.x.token_env: UNSET, which should hold the service's token, is not set"
        );
        assert_eq!(
            err("EMPTY"),
            "services.x.token_env: EMPTY, which should hold the service's token, is not set"
        );
        for name in ["SPACED", "NON_ASCII"] {
            let message = err(name);
            assert_eq!(
                message,
                format!(
                    "services.x.token_env: the token in {name} cannot be sent in a header: it has spaces or characters other than visible ASCII"
                )
            );
            assert!(!message.contains("words") && !message.contains("caf"));
        }
    }
}

/// The rule end to end: real requests to servers on 127.0.0.1, one per service, and what each
/// server saw.
#[cfg(test)]
mod over_http {
    use tool_core::{
        ToolContext,
        context::{Principal, RequestHeaders},
        error::ErrorKind,
    };

    use crate::config::{HttpConfig, ServiceConfig};
    use crate::testing::{Seen, Server, caller, client, client_with_env};

    const BILLING: &str = "https://billing.example.com";
    const CRM: &str = "https://crm.example.com";

    /// A call whose caller holds a token issued for `audiences`, and whose request still had its
    /// `Authorization` header and a cookie (as when a server keeps them).
    fn call_with_token(token: &str, audiences: &[&str]) -> ToolContext {
        ToolContext::builder()
            .principal(Principal::new("user-7").with_token(token, audiences.iter().copied()))
            .headers(RequestHeaders::from_pairs([
                ("Authorization", format!("Bearer {token}")),
                ("Cookie", "session=abc".to_owned()),
            ]))
            .build()
    }

    /// Every `authorization` header of a request, in order.
    fn authorizations(seen: &Seen) -> Vec<&str> {
        seen.headers
            .iter()
            .filter(|(n, _)| n == "authorization")
            .map(|(_, v)| v.as_str())
            .collect()
    }

    /// Whether `token` appears anywhere in what a server saw.
    fn saw_token(server: &Server, token: &str) -> bool {
        server
            .seen()
            .iter()
            .any(|s| s.path.contains(token) || s.headers.iter().any(|(_, v)| v.contains(token)))
    }

    #[tokio::test]
    async fn a_token_never_reaches_a_downstream_service_it_was_not_meant_for() {
        let (billing, crm, status) = (
            Server::start().await,
            Server::start().await,
            Server::start().await,
        );
        let client = client(
            HttpConfig::default()
                .service_with_audience("billing", billing.url(""), BILLING)
                .service_with_audience("crm", crm.url(""), CRM)
                .service("status", status.url(""))
                .allow_host("127.0.0.1"),
        );
        let bound = client.bind(&call_with_token("billing-token", &[BILLING]));
        for service in ["billing", "crm", "status"] {
            bound.get(service, "/ok").send().await.unwrap();
        }
        bound.fetch(&status.url("/ok")).await.unwrap();
        bound.fetch(&billing.url("/ok")).await.unwrap();

        // The service the token was issued for gets it, once, as a bearer token...
        let to_billing = billing.seen();
        assert_eq!(authorizations(&to_billing[0]), ["Bearer billing-token"]);
        // ...and nothing else does: not a service with another audience, not a service without
        // one (although the call's request had an `Authorization` header), not a fetched URL,
        // not even one on the billing service's own origin.
        assert!(!saw_token(&crm, "billing-token"), "{:?}", crm.seen());
        assert!(!saw_token(&status, "billing-token"), "{:?}", status.seen());
        assert_eq!(to_billing.len(), 2);
        assert!(authorizations(&to_billing[1]).is_empty(), "{to_billing:?}");
        assert_eq!((crm.seen().len(), status.seen().len()), (1, 2));
        for seen in crm.seen().iter().chain(&status.seen()) {
            assert!(authorizations(seen).is_empty(), "{seen:?}");
        }
        for seen in crm.seen().iter().chain(&status.seen()).chain(&to_billing) {
            assert_eq!(seen.header("cookie"), None, "{seen:?}");
        }
    }

    #[tokio::test]
    async fn a_token_issued_for_another_audience_is_not_sent() {
        let server = Server::start().await;
        let client =
            client(HttpConfig::default().service_with_audience("billing", server.url(""), BILLING));
        for ctx in [
            call_with_token("crm-token", &[CRM]),
            // Resource identifiers match as canonical URIs (`Principal::same_resource`), never by prefix.
            call_with_token("lookalike-token", &["https://billing.example.com.evil"]),
            call_with_token("path-token", &["https://billing.example.com/other"]),
            // A caller without a token, and a call with no authenticated caller at all whose
            // request had an `Authorization` header.
            ToolContext::builder()
                .principal(Principal::new("user-7"))
                .build(),
            caller(),
        ] {
            client
                .bind(&ctx)
                .get("billing", "/ok")
                .send()
                .await
                .unwrap();
        }
        // Unbound: no call, no caller.
        client.get("billing", "/ok").send().await.unwrap();
        let seen = server.seen();
        assert_eq!(seen.len(), 6);
        for seen in &seen {
            assert_eq!(seen.header("authorization"), None, "{seen:?}");
        }

        // A token issued for several audiences, this one among them, is sent.
        let ctx = call_with_token("multi-token", &[CRM, "https://billing.example.com/"]);
        client
            .bind(&ctx)
            .get("billing", "/ok")
            .send()
            .await
            .unwrap();
        assert_eq!(authorizations(&server.seen()[6]), ["Bearer multi-token"]);
    }

    #[tokio::test]
    async fn the_operators_token_is_sent_when_no_callers_token_applies_never_with_one() {
        let (billing, status) = (Server::start().await, Server::start().await);
        let env = |name: &str| (name == "OPS_TOKEN").then(|| "ops-token".to_owned());
        let client = client_with_env(
            HttpConfig::default()
                .service_config(
                    "billing",
                    ServiceConfig::new(billing.url(""))
                        .audience(BILLING)
                        .token_env("OPS_TOKEN"),
                )
                .service_config(
                    "status",
                    ServiceConfig::new(status.url("")).token_env("OPS_TOKEN"),
                ),
            &env,
        );
        let for_billing = call_with_token("billing-token", &[BILLING]);
        let for_crm = call_with_token("crm-token", &[CRM]);
        for ctx in [&for_billing, &for_crm] {
            for service in ["billing", "status"] {
                client.bind(ctx).get(service, "/ok").send().await.unwrap();
            }
        }
        client.get("billing", "/ok").send().await.unwrap();

        let billing = billing.seen();
        assert_eq!(
            authorizations(&billing[0]),
            ["Bearer billing-token"],
            "the caller's alone"
        );
        assert_eq!(
            authorizations(&billing[1]),
            ["Bearer ops-token"],
            "no caller's token applies"
        );
        assert_eq!(
            authorizations(&billing[2]),
            ["Bearer ops-token"],
            "outside a call"
        );
        // A service without an audience only ever gets the operator's token.
        let status = status.seen();
        assert_eq!(status.len(), 2);
        for seen in &status {
            assert_eq!(authorizations(seen), ["Bearer ops-token"]);
        }

        // The token is read when the client is built: a missing one stops it there.
        let err = crate::HttpClient::new(
            HttpConfig::default().service_config(
                "billing",
                ServiceConfig::new("https://billing.internal")
                    .token_env("UNSET_TOKEN_OF_TOOL_HTTP_TESTS_7F3A"),
            ),
        );
        assert!(
            matches!(err, Err(crate::HttpConfigError::MissingToken { ref var, .. }) if var == "services.billing.token_env"),
            "{err:?}"
        );
    }

    #[tokio::test]
    async fn a_token_is_not_carried_to_another_origin_on_redirect() {
        let (service, elsewhere) = (Server::start().await, Server::start().await);
        let env = |name: &str| (name == "OPS_TOKEN").then(|| "ops-token".to_owned());
        let client = client_with_env(
            HttpConfig::default()
                .service_with_audience("billing", service.url(""), BILLING)
                .service_config(
                    "ops",
                    ServiceConfig::new(service.url("")).token_env("OPS_TOKEN"),
                ),
            &env,
        );
        let bound = client.bind(&call_with_token("billing-token", &[BILLING]));

        // Within the service's origin the token follows the redirect.
        bound.get("billing", "/redirect/same").send().await.unwrap();
        let seen = service.seen();
        assert_eq!(
            seen.iter().map(|s| s.path.as_str()).collect::<Vec<_>>(),
            ["/redirect/same", "/ok"]
        );
        for hop in &seen {
            assert_eq!(authorizations(hop), ["Bearer billing-token"]);
        }

        // To another origin (another port) the redirect is not followed: nothing reaches it,
        // neither the caller's token nor the operator's.
        let to_elsewhere = format!("/redirect/port/{}", elsewhere.port);
        for service_name in ["billing", "ops"] {
            let err = bound
                .get(service_name, &to_elsewhere)
                .send()
                .await
                .unwrap_err();
            assert_eq!(err.kind(), ErrorKind::Failed, "{err}");
            assert_eq!(
                err.message(),
                format!(
                    "service `{service_name}` redirected to 127.0.0.1:{}, outside the service; not followed",
                    elsewhere.port
                )
            );
        }
        assert!(elsewhere.seen().is_empty(), "{:?}", elsewhere.seen());
        assert_eq!(service.seen().len(), 4);
    }
}
