//! The message a person reads before approving a call: a template whose `{name}` placeholders
//! are the call's arguments.

use std::fmt;

/// One piece of an approval template: text as it is, or the argument a placeholder names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TemplatePart<'a> {
    /// Text shown as it is (`{{` and `}}` already made single braces).
    Text(&'a str),
    /// `{name}`: the argument `name`, as the call gives it.
    Argument(&'a str),
}

/// Why a template is not one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TemplateProblem {
    /// A `{` with no `}` after it.
    Unclosed {
        /// Where the `{` is, in bytes.
        at: usize,
    },
    /// A `}` that closes nothing (write `}}` for a brace).
    StrayClose {
        /// Where the `}` is, in bytes.
        at: usize,
    },
    /// `{}` or `{ name }`: a placeholder is an argument's name, nothing else.
    BadPlaceholder {
        /// What is between the braces.
        inside: String,
    },
    /// `{name}` where the tool has no argument `name`.
    UnknownArgument {
        /// The name.
        name: String,
        /// The arguments the tool has.
        known: Vec<String>,
    },
    /// Only spaces, or nothing.
    Blank,
}

impl fmt::Display for TemplateProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Unclosed { at } => write!(
                f,
                "the `{{` at byte {at} is not closed: write `{{name}}` for an argument, `{{{{` for a brace"
            ),
            Self::StrayClose { at } => write!(
                f,
                "the `}}` at byte {at} closes nothing: write `}}}}` for a brace"
            ),
            Self::BadPlaceholder { inside } => write!(
                f,
                "`{{{inside}}}` is not a placeholder: write the name of an argument between the \
                 braces, e.g. `{{path}}`"
            ),
            Self::UnknownArgument { name, known } if known.is_empty() => {
                write!(f, "`{{{name}}}` names no argument: the tool takes none")
            }
            Self::UnknownArgument { name, known } => write!(
                f,
                "`{{{name}}}` names no argument of the tool; its arguments are {}",
                known
                    .iter()
                    .map(|k| format!("`{k}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            Self::Blank => {
                f.write_str("the approval message is blank: leave it out for the default one")
            }
        }
    }
}

impl std::error::Error for TemplateProblem {}

/// The pieces of `template`, or why it is not one (without looking at which arguments exist:
/// see [`approval_template_problems`]).
///
/// ```
/// use tool_grammar::{TemplatePart, approval_template};
/// let parts = approval_template("Delete {path} ({{{count}}} files)?").unwrap();
/// assert_eq!(parts, [
///     TemplatePart::Text("Delete "), TemplatePart::Argument("path"), TemplatePart::Text(" ("),
///     TemplatePart::Text("{"), TemplatePart::Argument("count"), TemplatePart::Text("}"),
///     TemplatePart::Text(" files)?"),
/// ]);
/// assert!(approval_template("Delete {path").is_err());
/// ```
pub fn approval_template(template: &str) -> Result<Vec<TemplatePart<'_>>, TemplateProblem> {
    if template.trim().is_empty() {
        return Err(TemplateProblem::Blank);
    }
    let mut parts = Vec::new();
    let bytes = template.as_bytes();
    let mut start = 0;
    let mut at = 0;
    while at < bytes.len() {
        match bytes[at] {
            b'{' if bytes.get(at + 1) == Some(&b'{') => {
                if start < at {
                    parts.push(TemplatePart::Text(&template[start..at]));
                }
                parts.push(TemplatePart::Text("{"));
                at += 2;
                start = at;
            }
            b'}' if bytes.get(at + 1) == Some(&b'}') => {
                if start < at {
                    parts.push(TemplatePart::Text(&template[start..at]));
                }
                parts.push(TemplatePart::Text("}"));
                at += 2;
                start = at;
            }
            b'{' => {
                let Some(len) = template[at + 1..].find('}') else {
                    return Err(TemplateProblem::Unclosed { at });
                };
                let inside = &template[at + 1..at + 1 + len];
                let is_name = inside
                    .bytes()
                    .next()
                    .is_some_and(|b| b.is_ascii_alphabetic() || b == b'_')
                    && inside
                        .bytes()
                        .all(|b| b.is_ascii_alphanumeric() || b == b'_');
                if !is_name {
                    return Err(TemplateProblem::BadPlaceholder {
                        inside: inside.to_owned(),
                    });
                }
                if start < at {
                    parts.push(TemplatePart::Text(&template[start..at]));
                }
                parts.push(TemplatePart::Argument(inside));
                at += len + 2;
                start = at;
            }
            b'}' => return Err(TemplateProblem::StrayClose { at }),
            _ => at += 1,
        }
    }
    if start < bytes.len() {
        parts.push(TemplatePart::Text(&template[start..]));
    }
    Ok(parts)
}

/// Every problem of `template` for a tool whose arguments are `known`: a template that does not
/// read, or placeholders that name no argument (each once).
///
/// ```
/// use tool_grammar::approval_template_problems;
/// assert!(approval_template_problems("Delete {path}?", &["path"]).is_empty());
/// let problems = approval_template_problems("Delete {file}?", &["path"]);
/// assert_eq!(problems[0].to_string(), "`{file}` names no argument of the tool; its arguments are `path`");
/// ```
pub fn approval_template_problems<S: AsRef<str>>(
    template: &str,
    known: &[S],
) -> Vec<TemplateProblem> {
    let parts = match approval_template(template) {
        Ok(parts) => parts,
        Err(problem) => return vec![problem],
    };
    let mut problems: Vec<TemplateProblem> = Vec::new();
    for part in parts {
        let TemplatePart::Argument(name) = part else {
            continue;
        };
        let listed = problems
            .iter()
            .any(|p| matches!(p, TemplateProblem::UnknownArgument { name: n, .. } if n == name));
        if !known.iter().any(|k| k.as_ref() == name) && !listed {
            problems.push(TemplateProblem::UnknownArgument {
                name: name.to_owned(),
                known: known.iter().map(|k| k.as_ref().to_owned()).collect(),
            });
        }
    }
    problems
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    #[test]
    fn problems_are_named() {
        for (template, problem) in [
            ("Delete {path", TemplateProblem::Unclosed { at: 7 }),
            ("Delete path}", TemplateProblem::StrayClose { at: 11 }),
            (
                "Delete {}",
                TemplateProblem::BadPlaceholder {
                    inside: String::new(),
                },
            ),
            (
                "Delete { path }",
                TemplateProblem::BadPlaceholder {
                    inside: " path ".into(),
                },
            ),
            ("  ", TemplateProblem::Blank),
        ] {
            assert_eq!(approval_template(template), Err(problem), "{template}");
        }
        assert_eq!(
            approval_template("{a}{b}").unwrap(),
            [TemplatePart::Argument("a"), TemplatePart::Argument("b")]
        );
    }

    proptest! {
        /// Text without braces is one piece, as it is; any text either reads as pieces whose
        /// concatenation (placeholders put back) gives it with its braces unescaped, or is
        /// refused, never a panic.
        #[test]
        fn templates_read_back(text in ".{0,40}") {
            match approval_template(&text) {
                Ok(parts) => {
                    let back: String = parts.iter().map(|p| match p {
                        TemplatePart::Text(t) => (*t).to_owned(),
                        TemplatePart::Argument(a) => format!("{{{a}}}"),
                    }).collect();
                    let unescaped_equal = back.replace(['{', '}'], "")
                        == text.replace(['{', '}'], "");
                    prop_assert!(unescaped_equal, "{:?} -> {:?}", text, back);
                    if !text.contains(['{', '}']) && !text.trim().is_empty() {
                        prop_assert_eq!(parts, vec![TemplatePart::Text(&text)]);
                    }
                }
                Err(_) => {
                    let braced = text.contains(['{', '}']) || text.trim().is_empty();
                    prop_assert!(braced, "refused: {:?}", text);
                }
            }
        }
    }
}
