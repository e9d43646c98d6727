//! Who may answer a question: the page itself, which alone knows the secret it was served
//! with. (Who may read the events at all, by `Host` and `Origin`, is tool-endpoint's guard, the
//! same as the MCP endpoint's.)

use axum::http::{HeaderMap, StatusCode, header};

/// Why an answer is refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub(crate) enum Refusal {
    /// An answer without an `Origin`: not from the page's script.
    #[error("Forbidden: answers come from the page (no Origin header)")]
    NoOrigin,
    /// An answer a browser says came from another site.
    #[error("Forbidden: answers come from the page itself (Sec-Fetch-Site)")]
    CrossSite,
    /// An answer without the page's secret.
    #[error("Forbidden: the page's secret is missing or wrong")]
    BadSecret,
}

impl Refusal {
    /// The HTTP status to answer with.
    pub(crate) fn status(self) -> StatusCode {
        StatusCode::FORBIDDEN
    }
}

/// The header an answer carries the page's secret in.
pub(crate) const SECRET_HEADER: &str = "x-presence-secret";

/// Whether a request that passed the `Host` and `Origin` guard may also answer a question: it comes from a
/// browser script (it has an `Origin`, which the guard found allowed), from the page's own origin
/// when the browser says (`Sec-Fetch-Site`), and with the secret the page was served with
/// (`None`: no secret could be made, so nothing may answer).
pub(crate) fn check_answer(headers: &HeaderMap, secret: Option<&str>) -> Result<(), Refusal> {
    if !headers.contains_key(header::ORIGIN) {
        return Err(Refusal::NoOrigin);
    }
    if let Some(site) = headers.get("sec-fetch-site")
        && site.as_bytes() != b"same-origin"
    {
        return Err(Refusal::CrossSite);
    }
    let given = headers.get(SECRET_HEADER).map(|v| v.as_bytes());
    match (secret, given) {
        (Some(secret), Some(given)) if same(secret.as_bytes(), given) => Ok(()),
        _ => Err(Refusal::BadSecret),
    }
}

/// Compares in time that depends on the lengths alone, not on where the bytes differ.
fn same(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    #[test]
    fn answers_need_an_origin_the_same_site_and_the_secret() {
        let headers = |pairs: &[(&'static str, &str)]| {
            let mut h = HeaderMap::new();
            for (name, value) in pairs {
                h.insert(*name, HeaderValue::from_str(value).unwrap());
            }
            h
        };
        let origin = ("origin", "http://127.0.0.1:8800");
        let secret = Some("s3cret");
        let ok = headers(&[
            origin,
            ("sec-fetch-site", "same-origin"),
            (SECRET_HEADER, "s3cret"),
        ]);
        assert_eq!(check_answer(&ok, secret), Ok(()));
        // A browser too old for Sec-Fetch-* still needs the rest.
        let ok = headers(&[origin, (SECRET_HEADER, "s3cret")]);
        assert_eq!(check_answer(&ok, secret), Ok(()));
        for (pairs, refusal) in [
            (vec![(SECRET_HEADER, "s3cret")], Refusal::NoOrigin),
            (
                vec![
                    origin,
                    ("sec-fetch-site", "same-site"),
                    (SECRET_HEADER, "s3cret"),
                ],
                Refusal::CrossSite,
            ),
            (
                vec![
                    origin,
                    ("sec-fetch-site", "cross-site"),
                    (SECRET_HEADER, "s3cret"),
                ],
                Refusal::CrossSite,
            ),
            (vec![origin], Refusal::BadSecret),
            (vec![origin, (SECRET_HEADER, "s3cre")], Refusal::BadSecret),
            (vec![origin, (SECRET_HEADER, "s3cret ")], Refusal::BadSecret),
            (vec![origin, (SECRET_HEADER, "S3CRET")], Refusal::BadSecret),
        ] {
            assert_eq!(
                check_answer(&headers(&pairs), secret),
                Err(refusal),
                "{pairs:?}"
            );
            assert_eq!(refusal.status(), StatusCode::FORBIDDEN);
        }
        // Without a secret nothing answers.
        let ok = headers(&[origin, (SECRET_HEADER, "")]);
        assert_eq!(check_answer(&ok, None), Err(Refusal::BadSecret));
        assert!(same(b"", b"") && !same(b"a", b"") && !same(b"ab", b"ac"));
    }
}
