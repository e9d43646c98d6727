//! The answers to a refused request: status, `WWW-Authenticate` challenge (RFC 6750 section 3,
//! RFC 9728 section 5.1, in the forms of the MCP authorization specification's examples), and
//! a JSON body that says the same.

use axum::response::{IntoResponse, Response};
use http::{HeaderValue, header};

use super::config::is_scope_token;
use super::error::AuthError;

/// The longest `error_description` sent.
const MAX_DESCRIPTION: usize = 300;

/// The `WWW-Authenticate` value refusing a request for `error`, pointing at `metadata_url`;
/// `scopes` are those a token needs before any request is granted (said when none was given).
///
/// Parameters come in the order of the specification's examples: `resource_metadata` then
/// `scope` for a request without a token; `error`, `scope`, `resource_metadata`,
/// `error_description` for a refused one.
pub(super) fn challenge(error: &AuthError, metadata_url: &str, scopes: &[String]) -> String {
    let mut out = String::from("Bearer ");
    let mut first = true;
    let mut param = |out: &mut String, name: &str, value: &str| {
        if !first {
            out.push_str(", ");
        }
        first = false;
        out.push_str(name);
        out.push('=');
        quote(out, value);
    };
    let scope = |list: &[String]| {
        let tokens: Vec<&str> = list
            .iter()
            .map(String::as_str)
            .filter(|s| is_scope_token(s))
            .collect();
        tokens.join(" ")
    };
    match error {
        AuthError::Missing => {
            param(&mut out, "resource_metadata", metadata_url);
            let scopes = scope(scopes);
            if !scopes.is_empty() {
                param(&mut out, "scope", &scopes);
            }
        }
        _ => {
            param(&mut out, "error", error.code().unwrap_or("invalid_request"));
            if let AuthError::InsufficientScope { needed, .. } = error {
                let scopes = scope(needed);
                if !scopes.is_empty() {
                    param(&mut out, "scope", &scopes);
                }
            }
            param(&mut out, "resource_metadata", metadata_url);
            param(&mut out, "error_description", &description(error));
        }
    }
    out
}

/// What `error` says, in the characters RFC 6750 allows an `error_description`
/// (`%x20-21 / %x23-5B / %x5D-7E`: printable ASCII without `"` and `\`), shortened.
pub(super) fn description(error: &AuthError) -> String {
    let text = match error {
        AuthError::InsufficientScope {
            missing,
            what: Some(what),
            ..
        } => {
            let s = if missing.len() == 1 { "" } else { "s" };
            format!("{what} needs the scope{s} {}", missing.join(" "))
        }
        other => other.to_string(),
    };
    sanitize(&text)
}

/// `text` in RFC 6750's `error_description` characters: `"` becomes `'`, `\` becomes `/`,
/// anything else outside printable ASCII `?`; at most [`MAX_DESCRIPTION`] characters.
pub(super) fn sanitize(text: &str) -> String {
    let mut out: String = text
        .chars()
        .take(MAX_DESCRIPTION)
        .map(|c| match c {
            '"' => '\'',
            '\\' => '/',
            ' '..='~' => c,
            _ => '?',
        })
        .collect();
    if text.chars().nth(MAX_DESCRIPTION).is_some() {
        out.truncate(MAX_DESCRIPTION - 3);
        out.push_str("...");
    }
    out
}

/// `value` as an HTTP quoted-string (RFC 9110 section 5.6.4): `"` and `\` escaped, anything a
/// header cannot carry replaced by `?`.
pub(super) fn quote(out: &mut String, value: &str) {
    out.push('"');
    for c in value.chars() {
        match c {
            '"' | '\\' => {
                out.push('\\');
                out.push(c);
            }
            ' '..='~' | '\t' => out.push(c),
            _ => out.push('?'),
        }
    }
    out.push('"');
}

/// The response refusing a request for `error`.
pub(super) fn refusal(error: &AuthError, metadata_url: &str, scopes: &[String]) -> Response {
    let mut body = serde_json::Map::new();
    if let Some(code) = error.code() {
        body.insert("error".into(), code.into());
    }
    body.insert("error_description".into(), description(error).into());
    if let AuthError::InsufficientScope { needed, .. } = error {
        body.insert("scope".into(), needed.join(" ").into());
    }
    let mut response = (
        error.status(),
        [(header::CONTENT_TYPE, "application/json")],
        serde_json::Value::Object(body).to_string(),
    )
        .into_response();
    let value = challenge(error, metadata_url, scopes);
    // Every character `challenge` writes is visible ASCII, so this cannot fail; were it to,
    // the bare scheme still tells the client what to do.
    let value = HeaderValue::from_str(&value).unwrap_or(HeaderValue::from_static("Bearer"));
    response
        .headers_mut()
        .insert(header::WWW_AUTHENTICATE, value);
    response
}

#[cfg(test)]
pub(super) mod tests {
    use proptest::prelude::*;

    use super::*;
    use crate::oauth::error::TokenProblem;

    /// A `WWW-Authenticate` value with one challenge, read strictly by RFC 9110 section 11.6.1:
    /// the scheme, then `name=value` pairs (a token or a quoted-string), comma-separated.
    pub(crate) fn parse(value: &str) -> Result<(String, Vec<(String, String)>), String> {
        fn tchar(c: char) -> bool {
            c.is_ascii_alphanumeric() || "!#$%&'*+-.^_`|~".contains(c)
        }
        let (scheme, mut rest) = value.split_once(' ').unwrap_or((value, ""));
        if scheme.is_empty() || !scheme.chars().all(tchar) {
            return Err(format!("bad scheme in {value:?}"));
        }
        let mut params = Vec::new();
        loop {
            rest = rest.trim_start_matches([' ', '\t']);
            if rest.is_empty() {
                break;
            }
            let eq = rest.find('=').ok_or("a parameter without `=`")?;
            let name = rest[..eq].trim_end();
            if name.is_empty() || !name.chars().all(tchar) {
                return Err(format!("bad parameter name {name:?}"));
            }
            rest = rest[eq + 1..].trim_start();
            let mut value = String::new();
            if let Some(quoted) = rest.strip_prefix('"') {
                let mut chars = quoted.char_indices();
                let end = loop {
                    match chars.next() {
                        None => return Err("an unterminated quoted-string".into()),
                        Some((at, '"')) => break at,
                        Some((_, '\\')) => match chars.next() {
                            Some((_, c)) if c == '\t' || (' '..='~').contains(&c) => value.push(c),
                            _ => return Err("a bad quoted-pair".into()),
                        },
                        Some((_, c))
                            if c == '\t' || c == '!' || ('#'..='~').contains(&c) || c == ' ' =>
                        {
                            value.push(c)
                        }
                        Some((_, c)) => return Err(format!("{c:?} inside a quoted-string")),
                    }
                };
                rest = &quoted[end + 1..];
            } else {
                let end = rest.find(|c: char| !tchar(c)).unwrap_or(rest.len());
                if end == 0 {
                    return Err("an empty parameter value".into());
                }
                value.push_str(&rest[..end]);
                rest = &rest[end..];
            }
            params.push((name.to_owned(), value));
            rest = rest.trim_start_matches([' ', '\t']);
            match rest.strip_prefix(',') {
                Some(after) => rest = after,
                None if rest.is_empty() => break,
                None => return Err(format!("junk after a parameter: {rest:?}")),
            }
        }
        Ok((scheme.to_owned(), params))
    }

    const URL: &str = "https://mcp.example.com/.well-known/oauth-protected-resource";

    #[test]
    fn the_challenges_are_the_specifications_examples() {
        // MCP 2025-11-25, "Protected Resource Metadata Discovery Requirements".
        assert_eq!(
            challenge(&AuthError::Missing, URL, &["files:read".into()]),
            format!("Bearer resource_metadata=\"{URL}\", scope=\"files:read\"")
        );
        // MCP 2025-06-18: the resource metadata alone.
        assert_eq!(
            challenge(&AuthError::Missing, URL, &[]),
            format!("Bearer resource_metadata=\"{URL}\"")
        );
        // MCP 2025-11-25, "Runtime Insufficient Scope Errors".
        let error = AuthError::InsufficientScope {
            needed: vec![
                "files:read".into(),
                "files:write".into(),
                "user:profile".into(),
            ],
            missing: vec!["files:write".into()],
            what: None,
        };
        let value = challenge(&error, URL, &[]);
        assert!(
            value.starts_with(&format!(
                "Bearer error=\"insufficient_scope\", scope=\"files:read files:write user:profile\", \
                 resource_metadata=\"{URL}\", error_description=\""
            )),
            "{value}"
        );
        let expired = AuthError::InvalidToken(TokenProblem::Expired);
        assert_eq!(
            challenge(&expired, URL, &[]),
            format!(
                "Bearer error=\"invalid_token\", resource_metadata=\"{URL}\", \
                 error_description=\"the access token is not valid: it has expired\""
            )
        );
    }

    #[test]
    fn a_refusal_has_the_status_the_challenge_and_a_json_body() {
        let response = refusal(&AuthError::Malformed("no token"), URL, &[]);
        assert_eq!(response.status(), 400);
        let value = response.headers()[header::WWW_AUTHENTICATE]
            .to_str()
            .unwrap();
        let (_, params) = parse(value).unwrap();
        assert_eq!(params[0], ("error".into(), "invalid_request".into()));
        let error = AuthError::InsufficientScope {
            needed: vec!["a".into()],
            missing: vec!["a".into()],
            what: Some("the tool `x`".into()),
        };
        let response = refusal(&error, URL, &[]);
        assert_eq!(response.status(), 403);
    }

    fn any_text() -> impl Strategy<Value = String> {
        prop_oneof![
            any::<String>(),
            proptest::collection::vec(
                prop_oneof![
                    Just('"'),
                    Just('\\'),
                    Just(','),
                    Just('='),
                    Just(' '),
                    Just('\t'),
                    Just('\n'),
                    Just('\r'),
                    Just('\0'),
                    Just('é'),
                    any::<char>(),
                    proptest::char::range(' ', '~'),
                ],
                0..400
            )
            .prop_map(|c| c.into_iter().collect()),
        ]
    }

    proptest! {
        /// Whatever a message says (a client's issuer or key id included), the challenge is a
        /// header value that parses back to the same parameters, and its description is in
        /// RFC 6750's characters.
        #[test]
        fn every_challenge_parses(text in any_text(), scope in any_text(), url in any_text()) {
            let errors = [
                AuthError::InvalidToken(TokenProblem::UnknownKey(text.clone())),
                AuthError::InvalidToken(TokenProblem::WrongIssuer { found: text.clone(), expected: scope.clone() }),
                AuthError::InsufficientScope { needed: vec![scope.clone(), "a:b".into()], missing: vec![text.clone()], what: Some(text.clone()) },
                AuthError::Missing,
            ];
            for error in &errors {
                let value = challenge(error, &url, std::slice::from_ref(&scope));
                prop_assert!(HeaderValue::from_str(&value).is_ok(), "{value:?}");
                let (scheme, params) = parse(&value).map_err(|e| TestCaseError::fail(format!("{e}: {value:?}")))?;
                prop_assert_eq!(scheme, "Bearer");
                let get = |name: &str| params.iter().find(|(n, _)| n == name).map(|(_, v)| v.clone());
                let shown_url: String = url
                    .chars()
                    .map(|c| if c == '\t' || (' '..='~').contains(&c) { c } else { '?' })
                    .collect();
                prop_assert_eq!(get("resource_metadata"), Some(shown_url));
                if let Some(description) = get("error_description") {
                    prop_assert_eq!(&description, &self::description(error));
                    prop_assert!(description.chars().count() <= MAX_DESCRIPTION);
                    prop_assert!(description.bytes().all(|b| b == 0x20 || b == 0x21 || (0x23..=0x5B).contains(&b) || (0x5D..=0x7E).contains(&b)), "{description:?}");
                }
                if let Some(scopes) = get("scope") {
                    prop_assert!(scopes.split(' ').all(|s| s.is_empty() || is_scope_token(s)));
                }
            }
        }

        /// A quoted value reads back as itself, for any printable ASCII.
        #[test]
        fn quoting_round_trips(value in "[ -~]{0,80}") {
            let mut quoted = String::new();
            quote(&mut quoted, &value);
            let (_, params) = parse(&format!("Bearer x={quoted}")).map_err(TestCaseError::fail)?;
            prop_assert_eq!(&params[0].1, &value);
        }
    }
}
