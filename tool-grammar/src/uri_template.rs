//! Resource URIs and URI templates: `#[resource(uri = "...")]` at compile time, resources built
//! at run time, and a `resources/read` matched against a template.
//!
//! A template is RFC 6570's simple form, the one MCP servers use: literal text with `{name}`
//! variables. A variable stands for one segment: its value is at least one character and holds
//! no `/`, so `file:///{dir}/{name}` reads `file:///a/b` as `dir = a`, `name = b`. Operators
//! (`{+path}`, `{?q}`) and two variables with no text between them are refused: their values
//! could not be told apart when a URI is matched.

use std::fmt;

/// One piece of a URI template.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UriPart<'a> {
    /// Text the URI holds as it is.
    Literal(&'a str),
    /// `{name}`: one segment of the URI, named.
    Variable(&'a str),
}

/// Why a string is not a resource URI or URI template.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum UriProblem {
    /// Empty, or only spaces.
    Blank,
    /// No `scheme:` at the start (`test://x`, `file:///x`, `docs:intro`).
    NoScheme,
    /// A space or control character, which a URI never holds.
    Whitespace {
        /// Where it is, in bytes.
        at: usize,
    },
    /// A `{` with no `}` after it.
    Unclosed {
        /// Where the `{` is, in bytes.
        at: usize,
    },
    /// A `}` that closes nothing.
    StrayClose {
        /// Where the `}` is, in bytes.
        at: usize,
    },
    /// `{}`, `{+path}`, `{a,b}`: only a plain name may stand between braces.
    BadVariable {
        /// What is between the braces.
        inside: String,
    },
    /// `{a}{b}`: two variables with nothing between them.
    Adjacent {
        /// The second variable.
        name: String,
    },
    /// The same variable twice.
    Repeated {
        /// Its name.
        name: String,
    },
}

impl fmt::Display for UriProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Blank => f.write_str("the URI is empty"),
            Self::NoScheme => f.write_str(
                "a resource URI starts with a scheme, e.g. `docs://guide` or `file:///notes.txt`",
            ),
            Self::Whitespace { at } => write!(
                f,
                "the character at byte {at} is a space or control character, which a URI cannot hold"
            ),
            Self::Unclosed { at } => write!(f, "the `{{` at byte {at} is not closed"),
            Self::StrayClose { at } => write!(f, "the `}}` at byte {at} closes nothing"),
            Self::BadVariable { inside } => write!(
                f,
                "`{{{inside}}}` is not a variable: write a plain name between the braces, e.g. \
                 `{{id}}` (operators such as `+`, `#` or `?` are not supported)"
            ),
            Self::Adjacent { name } => write!(
                f,
                "`{{{name}}}` follows another variable with nothing between them, so a URI could \
                 not say where one ends: put text between them, e.g. `{{a}}/{{b}}`"
            ),
            Self::Repeated { name } => write!(f, "the variable `{{{name}}}` appears twice"),
        }
    }
}

impl std::error::Error for UriProblem {}

/// Whether `name` may be a template variable: ASCII letters, digits and `_`, not starting with
/// a digit (so it can be a Rust parameter too).
pub fn is_variable_name(name: &str) -> bool {
    let mut chars = name.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// The parts of a resource URI or URI template (a URI with no variables is one literal), or
/// the first thing wrong with it.
///
/// ```
/// use tool_grammar::{UriPart, uri_template};
/// assert_eq!(
///     uri_template("test://template/{id}/data").unwrap(),
///     [UriPart::Literal("test://template/"), UriPart::Variable("id"), UriPart::Literal("/data")]
/// );
/// assert!(uri_template("no scheme").is_err());
/// ```
pub fn uri_template(uri: &str) -> Result<Vec<UriPart<'_>>, UriProblem> {
    if uri.trim().is_empty() {
        return Err(UriProblem::Blank);
    }
    if let Some((at, _)) = uri
        .char_indices()
        .find(|(_, c)| c.is_whitespace() || c.is_control())
    {
        return Err(UriProblem::Whitespace { at });
    }
    let scheme_end = uri.find(':').unwrap_or(0);
    let scheme = &uri[..scheme_end];
    let scheme_ok = scheme.starts_with(|c: char| c.is_ascii_alphabetic())
        && scheme
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'));
    if !scheme_ok {
        return Err(UriProblem::NoScheme);
    }
    let mut parts = Vec::new();
    let mut rest = uri;
    let mut offset = 0;
    while !rest.is_empty() {
        let open = rest.find('{');
        let close = rest.find('}');
        match (open, close) {
            (_, Some(c)) if open.is_none_or(|o| c < o) => {
                return Err(UriProblem::StrayClose { at: offset + c });
            }
            (None, _) => {
                parts.push(UriPart::Literal(rest));
                break;
            }
            (Some(o), None) => return Err(UriProblem::Unclosed { at: offset + o }),
            (Some(o), Some(c)) => {
                if o > 0 {
                    parts.push(UriPart::Literal(&rest[..o]));
                }
                let name = &rest[o + 1..c];
                if !is_variable_name(name) {
                    return Err(UriProblem::BadVariable {
                        inside: name.to_owned(),
                    });
                }
                if matches!(parts.last(), Some(UriPart::Variable(_))) {
                    return Err(UriProblem::Adjacent {
                        name: name.to_owned(),
                    });
                }
                if parts.contains(&UriPart::Variable(name)) {
                    return Err(UriProblem::Repeated {
                        name: name.to_owned(),
                    });
                }
                parts.push(UriPart::Variable(name));
                offset += c + 1;
                rest = &rest[c + 1..];
            }
        }
    }
    Ok(parts)
}

/// The variables of `uri` if it matches the template whose parts are `parts`, each as the URI
/// spells it (still percent-encoded), in the template's order.
///
/// A variable takes the shortest run of characters, at least one and no `/`, after which the
/// rest of the URI matches. The scheme is compared without regard to case, as RFC 3986 says.
///
/// ```
/// use tool_grammar::{uri_template, match_uri};
/// let parts = uri_template("test://template/{id}/data").unwrap();
/// assert_eq!(match_uri(&parts, "test://template/123/data"), Some(vec![("id", "123")]));
/// assert_eq!(match_uri(&parts, "test://template/1/2/data"), None);
/// ```
pub fn match_uri<'t, 'u>(parts: &[UriPart<'t>], uri: &'u str) -> Option<Vec<(&'t str, &'u str)>> {
    let mut found = Vec::new();
    let (first, rest) = match parts.split_first() {
        Some((UriPart::Literal(first), rest)) => (*first, rest),
        _ => return None,
    };
    // The scheme (up to the first `:`, always in the first literal) is case-insensitive.
    let scheme_len = first.find(':')? + 1;
    let head = uri.get(..first.len())?;
    if !head[..scheme_len].eq_ignore_ascii_case(&first[..scheme_len])
        || head[scheme_len..] != first[scheme_len..]
    {
        return None;
    }
    matches_from(rest, &uri[first.len()..], &mut found).then_some(found)
}

fn matches_from<'t, 'u>(
    parts: &[UriPart<'t>],
    uri: &'u str,
    found: &mut Vec<(&'t str, &'u str)>,
) -> bool {
    match parts.split_first() {
        None => uri.is_empty(),
        Some((UriPart::Literal(text), rest)) => {
            uri.starts_with(text) && matches_from(rest, &uri[text.len()..], found)
        }
        Some((UriPart::Variable(name), rest)) => {
            // A segment ends at the first `/`; within it, try each end, shortest first.
            let segment = uri.find('/').unwrap_or(uri.len());
            if segment == 0 {
                return false;
            }
            for (end, _) in uri[..segment]
                .char_indices()
                .skip(1)
                .chain(std::iter::once((segment, ' ')))
            {
                found.push((name, &uri[..end]));
                if matches_from(rest, &uri[end..], found) {
                    return true;
                }
                found.pop();
            }
            false
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn templates_are_read_into_parts() {
        assert_eq!(
            uri_template("file:///{dir}/{name}.txt").unwrap(),
            [
                UriPart::Literal("file:///"),
                UriPart::Variable("dir"),
                UriPart::Literal("/"),
                UriPart::Variable("name"),
                UriPart::Literal(".txt"),
            ]
        );
        assert_eq!(
            uri_template("docs:intro").unwrap(),
            [UriPart::Literal("docs:intro")]
        );
    }

    #[test]
    fn what_is_not_a_template_says_why() {
        let problem = |uri| uri_template(uri).unwrap_err();
        assert_eq!(problem(""), UriProblem::Blank);
        assert_eq!(problem("static-text"), UriProblem::NoScheme);
        assert_eq!(problem("{x}://a"), UriProblem::NoScheme);
        assert_eq!(problem("a://b c"), UriProblem::Whitespace { at: 5 });
        assert_eq!(problem("a://{id"), UriProblem::Unclosed { at: 4 });
        assert_eq!(problem("a://id}"), UriProblem::StrayClose { at: 6 });
        assert_eq!(
            problem("a://{+path}"),
            UriProblem::BadVariable {
                inside: "+path".into()
            }
        );
        assert_eq!(
            problem("a://{a}{b}"),
            UriProblem::Adjacent { name: "b".into() }
        );
        assert_eq!(
            problem("a://{a}/{a}"),
            UriProblem::Repeated { name: "a".into() }
        );
        assert!(problem("a://{}").to_string().contains("plain name"));
    }

    #[test]
    fn a_variable_is_one_segment_and_never_empty() {
        let parts = uri_template("a://x/{id}").unwrap();
        assert_eq!(match_uri(&parts, "a://x/7"), Some(vec![("id", "7")]));
        assert_eq!(match_uri(&parts, "a://x/"), None);
        assert_eq!(match_uri(&parts, "a://x/7/8"), None);
        assert_eq!(match_uri(&parts, "A://x/7"), Some(vec![("id", "7")]));
        let parts = uri_template("a://{name}.{ext}").unwrap();
        assert_eq!(
            match_uri(&parts, "a://notes.tar.gz"),
            Some(vec![("name", "notes"), ("ext", "tar.gz")])
        );
        let literal = uri_template("a://fixed").unwrap();
        assert_eq!(match_uri(&literal, "a://fixed"), Some(vec![]));
        assert_eq!(match_uri(&literal, "a://fixed2"), None);
    }

    fn value() -> impl Strategy<Value = String> {
        "[a-zA-Z0-9%._~-]{1,8}"
    }

    proptest! {
        /// Expanding a template and matching the result gives back the values, whatever they
        /// are within one segment.
        #[test]
        fn matching_undoes_expansion(a in value(), b in value(), sep in "[/:@]") {
            let template = format!("t://{{a}}{sep}{{b}}/end");
            let parts = uri_template(&template).unwrap();
            let uri = format!("t://{a}{sep}{b}/end");
            prop_assert_eq!(match_uri(&parts, &uri), Some(vec![("a", a.as_str()), ("b", b.as_str())]));
        }

        /// Any string is either a template or a problem, never a panic; a template's literal
        /// text and variables spell it again.
        #[test]
        fn parsing_never_panics_and_round_trips(uri in "[a-z]{1,3}:[ -~]{0,24}") {
            if let Ok(parts) = uri_template(&uri) {
                let spelled: String = parts.iter().map(|p| match p {
                    UriPart::Literal(t) => (*t).to_owned(),
                    UriPart::Variable(v) => format!("{{{v}}}"),
                }).collect();
                prop_assert_eq!(spelled, uri.clone());
                prop_assert!(match_uri(&parts, &uri).is_some() || parts.iter().any(|p| matches!(p, UriPart::Variable(_))));
            }
        }
    }
}
