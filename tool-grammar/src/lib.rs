//! The grammar `#[tool]` and tool-core share, so the macro (at compile time) and the core (at
//! run time: `check`, the registry, dynamic tools) hold definitions to one rule:
//!
//! - **Names.** A tool name is snake_case words, at least two, of ASCII lowercase letters and
//!   digits, starting with a letter, at most 64 characters: `^[a-z][a-z0-9]*(_[a-z0-9]+)+$`
//!   ([`tool_name_problem`], [`is_tool_name`]). That fits OpenAI, Anthropic, Gemini and MCP at
//!   once. The first word should be a verb (`get_forecast`, not `weather_report`): `check`
//!   warns when it is not one of [`VERBS`] ([`starts_with_verb`]); the macro does not refuse
//!   it. A domain name is snake_case, one word or more ([`is_domain_name`]).
//! - **Descriptions.** A doc comment becomes the text the model reads by [`description`]: one
//!   leading space of each line removed, as rustdoc removes it; the lines of a paragraph joined
//!   (source wrapping is not meaning); paragraphs, list items and indented blocks kept.
//! - **Scopes.** The OAuth scopes a tool requires are RFC 6749 §3.3 scope-tokens: one or more
//!   visible ASCII characters other than `"` and `\` (so no spaces: a scope string is tokens
//!   joined by spaces) ([`scope_problem`], [`is_scope_token`]). A list of them names each once
//!   and at least one ([`scope_list_problems`]). `#[tool(scopes(...))]` is held to it at compile
//!   time, a definitions file's `"scopes"` when it is loaded.
//! - **Icons.** An MCP icon's `src` is an `https:` or `http:` URL, or a `data:` URI of base64
//!   image data; its MIME type is `image/...`; each of its sizes is `WxH` (`48x48`) or `any`;
//!   its theme is `light` or `dark` ([`icon_problems`] and the functions for each part).
//!   `#[tool(icon(...))]` is held to it at compile time, and `check` holds tools built at run
//!   time to it.
//! - **Approval messages.** What a person reads before approving a call is a template whose
//!   `{name}` placeholders name the tool's arguments, `{{` and `}}` for braces
//!   ([`approval_template`], [`approval_template_problems`]). `#[tool(approval = "...")]` is held
//!   to it at compile time, a dynamic or mounted tool's by `check`.
//!
//! ```
//! use tool_grammar::{description, is_tool_name, starts_with_verb, tool_name_problem};
//! use tool_grammar::{is_scope_token, scope_list_problems};
//! assert!(is_scope_token("issues:write"));
//! assert!(!is_scope_token("issues write"));
//! assert_eq!(
//!     scope_list_problems(&["repo", "repo"])[0].to_string(),
//!     "the scope `repo` is listed twice; name each scope once",
//! );
//! assert!(is_tool_name("get_forecast"));
//! assert!(tool_name_problem("forecast").unwrap_err().contains("one word"));
//! assert!(!starts_with_verb("weather_report", &[]));
//! assert_eq!(
//!     description([" Returns the weather", " for a city.", "", " Use it to plan."]).as_deref(),
//!     Some("Returns the weather for a city.\n\nUse it to plan."),
//! );
//! ```

#![warn(missing_docs)]

mod approval;
mod icon;
mod uri_template;

pub use approval::{TemplatePart, TemplateProblem, approval_template, approval_template_problems};
pub use icon::{
    IconPart, IconProblem, SrcProblem, icon_mime_type_problem, icon_problems, icon_sizes_problems,
    icon_src_problem, icon_theme_problem, is_icon_size,
};
pub use uri_template::{UriPart, UriProblem, is_variable_name, match_uri, uri_template};

/// The longest tool name: OpenAI's limit, the strictest of the providers.
pub const MAX_NAME: usize = 64;

/// Why `name` is not a valid tool name, in a sentence that names the problem; `Ok` if it is one.
/// A valid name meets [`tool_name_form_problem`]'s rules and has two words or more.
pub fn tool_name_problem(name: &str) -> Result<(), String> {
    tool_name_form_problem(name)?;
    if !name.contains('_') {
        return Err(format!(
            "the tool name `{name}` is one word; a tool name is two words or more, a verb first, \
             like `get_{name}`"
        ));
    }
    Ok(())
}

/// Why `name` cannot be a tool name even when someone spells it out (`#[tool(name = "...")]`,
/// a rename): empty, longer than [`MAX_NAME`], not snake_case, or with an empty word. A name
/// chosen by hand may be one word (a server must sometimes match a name someone else chose);
/// [`tool_name_problem`] also asks for two words.
///
/// ```
/// assert!(tool_grammar::tool_name_form_problem("greet").is_ok());
/// assert!(tool_grammar::tool_name_problem("greet").is_err());
/// assert!(tool_grammar::tool_name_form_problem("Greet").is_err());
/// ```
pub fn tool_name_form_problem(name: &str) -> Result<(), String> {
    let len = name.chars().count();
    if name.is_empty() {
        return Err("the tool name is empty".to_owned());
    }
    if len > MAX_NAME {
        return Err(format!(
            "the tool name `{name}` is {len} characters long; names have at most {MAX_NAME} (OpenAI's limit)"
        ));
    }
    if let Some(c) = name
        .chars()
        .find(|c| !(c.is_ascii_lowercase() || c.is_ascii_digit() || *c == '_'))
    {
        return Err(format!(
            "the tool name `{name}` is not snake_case: `{c}` is not a lowercase ASCII letter, digit or `_`"
        ));
    }
    if !name.starts_with(|c: char| c.is_ascii_lowercase()) {
        return Err(format!(
            "the tool name `{name}` must start with a lowercase letter"
        ));
    }
    if name.ends_with('_') || name.contains("__") {
        return Err(format!(
            "the tool name `{name}` has an empty word: no trailing or doubled `_`"
        ));
    }
    Ok(())
}

/// Whether `name` is a valid tool name (see [`tool_name_problem`]); `const`, for checks made
/// in const contexts.
pub const fn is_tool_name(name: &str) -> bool {
    let b = name.as_bytes();
    if b.len() > MAX_NAME || !is_snake_case(b) {
        return false;
    }
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'_' {
            return true;
        }
        i += 1;
    }
    false
}

/// Whether `name` is a valid domain name: snake_case, at most 64 bytes.
pub const fn is_domain_name(name: &str) -> bool {
    name.len() <= MAX_NAME && is_snake_case(name.as_bytes())
}

const fn is_snake_case(b: &[u8]) -> bool {
    if b.is_empty() || !b[0].is_ascii_lowercase() || b[b.len() - 1] == b'_' {
        return false;
    }
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        let ok = c.is_ascii_lowercase() || c.is_ascii_digit() || c == b'_';
        if !ok || (c == b'_' && b[i - 1] == b'_') {
            return false;
        }
        i += 1;
    }
    true
}

/// Whether `s` has no visible character.
pub const fn is_blank(s: &str) -> bool {
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if !b[i].is_ascii_whitespace() {
            return false;
        }
        i += 1;
    }
    true
}

/// Why a scope is not an RFC 6749 scope-token ([`scope_problem`]).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ScopeProblem {
    /// The scope is the empty string.
    Empty,
    /// The scope holds a character a scope-token cannot.
    Character {
        /// The scope as given.
        scope: String,
        /// The first character that may not be there.
        found: char,
    },
}

impl std::fmt::Display for ScopeProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        const RULE: &str = "a scope is visible ASCII characters other than `\"` and `\\` \
                            (RFC 6749 §3.3), e.g. \"issues:write\"";
        match self {
            Self::Empty => write!(f, "a scope is empty; {RULE}"),
            Self::Character { scope, found } => {
                let scope = Shown(scope);
                let what = match found {
                    ' ' => "a space".to_owned(),
                    '"' | '\\' => format!("`{found}`, which RFC 6749 leaves out of scopes"),
                    c if c.is_control() => {
                        format!("U+{:04X}, a control character", u32::from(*c))
                    }
                    c if c.is_whitespace() => {
                        format!("U+{:04X}, a space character", u32::from(*c))
                    }
                    c => format!("`{c}`, which is not ASCII"),
                };
                write!(f, "the scope `{scope}` holds {what}: {RULE}")?;
                if *found == ' ' {
                    f.write_str("; give each scope as a string of its own")?;
                }
                Ok(())
            }
        }
    }
}

impl std::error::Error for ScopeProblem {}

/// A scope in a message: control characters escaped, everything else as written.
struct Shown<'a>(&'a str);

impl std::fmt::Display for Shown<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for c in self.0.chars() {
            if c.is_control() {
                write!(f, "{}", c.escape_debug())?;
            } else {
                write!(f, "{c}")?;
            }
        }
        Ok(())
    }
}

/// What is wrong with a list of scopes ([`scope_list_problems`]).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ScopeListProblem {
    /// The list names no scope: a list given at all names at least one.
    NoScopes,
    /// The scope at `index` is not a scope-token.
    Token {
        /// Its place in the list.
        index: usize,
        /// What is wrong with it.
        problem: ScopeProblem,
    },
    /// The scope at `index` is the one at `first` again.
    Duplicate {
        /// The place of the repeat.
        index: usize,
        /// The place of the first mention.
        first: usize,
        /// The scope.
        scope: String,
    },
}

impl ScopeListProblem {
    /// The place in the list of the scope at fault (none for an empty list).
    pub fn index(&self) -> Option<usize> {
        match self {
            Self::NoScopes => None,
            Self::Token { index, .. } | Self::Duplicate { index, .. } => Some(*index),
        }
    }
}

impl std::fmt::Display for ScopeListProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::NoScopes => f.write_str(
                "the list of scopes is empty; name at least one scope, or leave the list out",
            ),
            Self::Token { problem, .. } => problem.fmt(f),
            Self::Duplicate { scope, .. } => write!(
                f,
                "the scope `{}` is listed twice; name each scope once",
                Shown(scope)
            ),
        }
    }
}

impl std::error::Error for ScopeListProblem {}

/// Why `scope` is not an RFC 6749 §3.3 scope-token (`1*( %x21 / %x23-5B / %x5D-7E )`); `Ok`
/// if it is one.
pub fn scope_problem(scope: &str) -> Result<(), ScopeProblem> {
    if scope.is_empty() {
        return Err(ScopeProblem::Empty);
    }
    match scope.chars().find(|&c| !is_scope_char(c)) {
        Some(found) => Err(ScopeProblem::Character {
            scope: scope.to_owned(),
            found,
        }),
        None => Ok(()),
    }
}

fn is_scope_char(c: char) -> bool {
    u8::try_from(c).is_ok_and(is_scope_byte)
}

fn is_scope_byte(b: u8) -> bool {
    matches!(b, 0x21 | 0x23..=0x5B | 0x5D..=0x7E)
}

/// Whether `scope` is an RFC 6749 scope-token (see [`scope_problem`]), without saying why.
pub fn is_scope_token(scope: &str) -> bool {
    !scope.is_empty() && scope.bytes().all(is_scope_byte)
}

/// Every problem of a list of scopes, in list order: an empty list, a scope that is not a
/// scope-token, a scope named twice (reported at its repeat). Empty when the list is good.
pub fn scope_list_problems<S: AsRef<str>>(scopes: &[S]) -> Vec<ScopeListProblem> {
    if scopes.is_empty() {
        return vec![ScopeListProblem::NoScopes];
    }
    let mut problems = Vec::new();
    for (index, scope) in scopes.iter().enumerate() {
        let scope = scope.as_ref();
        if let Err(problem) = scope_problem(scope) {
            problems.push(ScopeListProblem::Token { index, problem });
        } else if let Some(first) = scopes[..index].iter().position(|s| s.as_ref() == scope) {
            problems.push(ScopeListProblem::Duplicate {
                index,
                first,
                scope: scope.to_owned(),
            });
        }
    }
    problems
}

/// The verbs a tool name may start with without a warning from `check`: what tools do to
/// things, in the words their names use. A name whose first word is not here still works;
/// `check` says so, and `CheckOptions` can allow more.
pub const VERBS: &[&str] = &[
    "accept",
    "add",
    "analyse",
    "analyze",
    "answer",
    "append",
    "apply",
    "approve",
    "archive",
    "ask",
    "assign",
    "attach",
    "book",
    "browse",
    "build",
    "buy",
    "calculate",
    "call",
    "cancel",
    "capture",
    "change",
    "check",
    "classify",
    "clear",
    "click",
    "clone",
    "close",
    "commit",
    "compare",
    "compile",
    "complete",
    "compose",
    "compress",
    "compute",
    "confirm",
    "connect",
    "convert",
    "copy",
    "count",
    "crawl",
    "create",
    "decode",
    "decrypt",
    "delete",
    "deploy",
    "describe",
    "detect",
    "diff",
    "disable",
    "disconnect",
    "download",
    "draft",
    "draw",
    "edit",
    "embed",
    "enable",
    "encode",
    "encrypt",
    "end",
    "estimate",
    "evaluate",
    "execute",
    "explain",
    "export",
    "extract",
    "fetch",
    "fill",
    "filter",
    "find",
    "finish",
    "fix",
    "flag",
    "follow",
    "forecast",
    "format",
    "forward",
    "generate",
    "get",
    "give",
    "grant",
    "hash",
    "hide",
    "highlight",
    "import",
    "index",
    "inspect",
    "install",
    "invite",
    "invoke",
    "join",
    "kill",
    "label",
    "launch",
    "link",
    "list",
    "load",
    "lock",
    "log",
    "look",
    "lookup",
    "make",
    "manage",
    "map",
    "mark",
    "measure",
    "merge",
    "migrate",
    "modify",
    "monitor",
    "mount",
    "move",
    "mute",
    "navigate",
    "notify",
    "open",
    "order",
    "parse",
    "patch",
    "pause",
    "pay",
    "pick",
    "pin",
    "ping",
    "plan",
    "play",
    "plot",
    "post",
    "predict",
    "preview",
    "print",
    "process",
    "publish",
    "pull",
    "push",
    "put",
    "query",
    "rank",
    "rate",
    "read",
    "rebuild",
    "recommend",
    "record",
    "redo",
    "refresh",
    "refund",
    "register",
    "reject",
    "release",
    "reload",
    "remember",
    "remove",
    "rename",
    "render",
    "reopen",
    "reply",
    "report",
    "request",
    "reserve",
    "reset",
    "resize",
    "resolve",
    "respond",
    "restart",
    "restore",
    "resume",
    "retry",
    "return",
    "revert",
    "review",
    "revoke",
    "rotate",
    "route",
    "run",
    "sample",
    "save",
    "scan",
    "schedule",
    "score",
    "scrape",
    "search",
    "select",
    "sell",
    "send",
    "set",
    "share",
    "show",
    "sign",
    "simulate",
    "skip",
    "sleep",
    "snooze",
    "solve",
    "sort",
    "speak",
    "split",
    "start",
    "stop",
    "store",
    "stream",
    "submit",
    "subscribe",
    "suggest",
    "summarise",
    "summarize",
    "switch",
    "sync",
    "tag",
    "take",
    "test",
    "track",
    "transcribe",
    "transfer",
    "transform",
    "translate",
    "trigger",
    "undo",
    "unlink",
    "unlock",
    "unmute",
    "unpin",
    "unsubscribe",
    "update",
    "upgrade",
    "upload",
    "validate",
    "verify",
    "view",
    "wait",
    "watch",
    "write",
];

/// Whether `name`'s first word is one of [`VERBS`] or of `more`.
pub fn starts_with_verb(name: &str, more: &[&str]) -> bool {
    let first = name.split('_').next().unwrap_or_default();
    VERBS.binary_search(&first).is_ok() || more.contains(&first)
}

/// The description a doc comment gives, from its attributes' values in order (each value
/// one `///` line, or a whole `#[doc = "..."]` text with newlines): the text the model reads,
/// or `None` if there is none.
pub fn description<S: AsRef<str>>(docs: impl IntoIterator<Item = S>) -> Option<String> {
    let mut lines = Vec::new();
    for value in docs {
        // Split on each `\n`, so a value that ends with one ends its line as rustdoc, which
        // joins doc attributes with `\n`, reads it (a blank line follows).
        for line in value.as_ref().split('\n') {
            lines.push(line.strip_prefix(' ').unwrap_or(line).trim_end().to_owned());
        }
    }
    let mut text = String::new();
    let mut blank = false;
    for line in &lines {
        if line.trim().is_empty() {
            blank = !text.is_empty();
            continue;
        }
        if blank {
            text.push_str("\n\n");
        } else if !text.is_empty() {
            let starts_item = line.trim_start().starts_with(['-', '*', '+', '|', '#'])
                || line
                    .trim_start()
                    .split_once(". ")
                    .is_some_and(|(n, _)| n.chars().all(|c| c.is_ascii_digit()) && !n.is_empty())
                || line.starts_with("    ");
            text.push(if starts_item { '\n' } else { ' ' });
        }
        blank = false;
        text.push_str(if line.starts_with("    ") {
            line
        } else {
            line.trim_start()
        });
    }
    (!text.is_empty()).then_some(text)
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    #[test]
    fn tool_names() {
        for ok in ["get_time", "read_file", "a_b", "list_v2_items"] {
            assert!(is_tool_name(ok) && tool_name_problem(ok).is_ok(), "{ok}");
        }
        let long = format!("get_{}", "x".repeat(61));
        for (bad, says) in [
            ("", "empty"),
            ("get", "one word"),
            ("Get_time", "not snake_case"),
            ("get-time", "`-`"),
            ("_get_time", "lowercase letter"),
            ("get_time_", "empty word"),
            ("get__time", "empty word"),
            ("9_lives", "lowercase letter"),
            ("get time", "not snake_case"),
            ("gét_time", "not snake_case"),
            (&long, "64"),
        ] {
            assert!(!is_tool_name(bad), "{bad}");
            let problem = tool_name_problem(bad).unwrap_err();
            assert!(problem.contains(says), "{bad}: {problem}");
        }
        assert!(is_tool_name(&format!("get_{}", "x".repeat(60))));
    }

    #[test]
    fn domain_names() {
        assert!(is_domain_name("fs"));
        assert!(is_domain_name("web_search"));
        assert!(!is_domain_name("Fs"));
        assert!(!is_domain_name(""));
    }

    #[test]
    fn verbs_are_sorted_lowercase_words_once() {
        let mut sorted = VERBS.to_vec();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(sorted, VERBS, "VERBS is looked up by binary search");
        assert!(
            VERBS
                .iter()
                .all(|v| v.chars().all(|c| c.is_ascii_lowercase()))
        );
        assert!(starts_with_verb("get_forecast", &[]));
        assert!(!starts_with_verb("weather_report", &[]));
        assert!(starts_with_verb("weather_report", &["weather"]));
    }

    #[test]
    fn docs_join_wrapped_lines_and_keep_paragraphs_and_lists() {
        let docs = [
            " Returns the weather",
            " for a city.",
            "",
            " Use it when:",
            " - planning a trip",
            " - dressing",
            " 1. first",
        ];
        assert_eq!(
            description(docs).as_deref(),
            Some(
                "Returns the weather for a city.\n\nUse it when:\n- planning a trip\n- dressing\n1. first"
            )
        );
        // A whole text in one attribute (`#[doc = include_str!(..)]`) reads the same.
        assert_eq!(description([docs.join("\n")]), description(docs));
        assert_eq!(description(["", "   "]), None);
    }

    #[test]
    fn scope_tokens() {
        for ok in [
            "repo",
            "issues:write",
            "read:org",
            "https://graph.example.com/.default",
            "!",
            "~",
            "a[0]",
            "#{x}",
        ] {
            assert!(is_scope_token(ok) && scope_problem(ok).is_ok(), "{ok}");
        }
        for (bad, says) in [
            ("", "empty"),
            ("issues write", "a space"),
            ("say\"hi\"", "`\"`"),
            ("a\\b", "`\\`"),
            (
                "tab\there",
                "`tab\\there` holds U+0009, a control character",
            ),
            ("say\"hi", "the scope `say\"hi` holds `\"`"),
            ("del\u{7f}", "U+007F"),
            ("écrire", "`é`, which is not ASCII"),
            ("nbsp\u{a0}x", "U+00A0"),
        ] {
            assert!(!is_scope_token(bad), "{bad}");
            let problem = scope_problem(bad).unwrap_err().to_string();
            assert!(problem.contains(says), "{bad}: {problem}");
            assert!(problem.contains("RFC 6749"), "{bad}: {problem}");
        }
    }

    #[test]
    fn scope_lists() {
        assert!(scope_list_problems(&["a", "b:c"]).is_empty());
        assert_eq!(
            scope_list_problems::<&str>(&[]),
            [ScopeListProblem::NoScopes]
        );
        let problems = scope_list_problems(&["repo", "a b", "repo", "repo"]);
        let at: Vec<_> = problems.iter().map(ScopeListProblem::index).collect();
        assert_eq!(at, [Some(1), Some(2), Some(3)]);
        assert!(matches!(
            problems[1],
            ScopeListProblem::Duplicate { first: 0, .. }
        ));
        assert_eq!(
            problems[2].to_string(),
            "the scope `repo` is listed twice; name each scope once"
        );
    }

    proptest! {
        /// The reasoned rule and the yes-or-no one are the same rule.
        #[test]
        fn the_two_forms_of_the_scope_rule_agree(scope in "[ -~\t\u{7f}\u{a0}é\"\\\\]{0,12}") {
            prop_assert_eq!(scope_problem(&scope).is_ok(), is_scope_token(&scope));
        }

        /// Any text at all gets a verdict, the same from both forms.
        #[test]
        fn any_text_gets_one_scope_verdict(scope in any::<String>()) {
            prop_assert_eq!(scope_problem(&scope).is_ok(), is_scope_token(&scope));
        }

        /// Every character RFC 6749 allows in a scope-token (`%x21 / %x23-5B / %x5D-7E`) is
        /// allowed.
        #[test]
        fn scope_characters_are_the_rfcs(scopes in proptest::collection::vec("[!#-\\[\\]-~]{1,12}", 1..6)) {
            prop_assert!(scopes.iter().all(|s| is_scope_token(s)));
        }

        /// A list is good exactly when it is not empty, each entry is a scope-token and no
        /// entry repeats; each problem points at an entry at fault.
        #[test]
        fn the_list_rule_is_the_token_rule_once_each(scopes in proptest::collection::vec("[ a-c:\"]{0,3}", 0..6)) {
            let problems = scope_list_problems(&scopes);
            let distinct = scopes.iter().collect::<std::collections::BTreeSet<_>>().len() == scopes.len();
            let good = !scopes.is_empty() && distinct && scopes.iter().all(|s| is_scope_token(s));
            prop_assert_eq!(problems.is_empty(), good, "{:?}", problems);
            for problem in &problems {
                if let Some(i) = problem.index() {
                    let bad = !is_scope_token(&scopes[i]) || scopes[..i].contains(&scopes[i]);
                    prop_assert!(bad, "{:?} at {}", scopes, i);
                }
            }
        }

        /// The macro's rule and the const one are the same rule.
        #[test]
        fn the_two_forms_of_the_name_rule_agree(name in "[a-zA-Z0-9_ -]{0,70}") {
            prop_assert_eq!(tool_name_problem(&name).is_ok(), is_tool_name(&name));
        }

        /// A description keeps every visible character of the doc, in order, and only
        /// changes whitespace: trimmed ends, no run of blank lines.
        #[test]
        fn a_description_only_changes_whitespace(docs in proptest::collection::vec("[ a-z.\\-*#1\n\t]{0,30}", 0..8)) {
            let visible = |s: &str| s.chars().filter(|c| !c.is_whitespace()).collect::<String>();
            let text = description(&docs);
            let kept = text.as_deref().map(visible).unwrap_or_default();
            prop_assert_eq!(kept, visible(&docs.concat()));
            if let Some(text) = text {
                prop_assert_eq!(text.trim(), text.as_str());
                prop_assert!(!text.contains("\n\n\n"), "{:?}", text);
            }
        }

        /// Doc attributes made a description one by one (as the macro does with `///` lines)
        /// or joined first (as the registry does with `#[doc = include_str!(..)]` text) give
        /// the same description.
        #[test]
        fn the_compile_time_and_run_time_paths_agree(docs in proptest::collection::vec("[ a-z.\\-*#1\n]{0,30}", 1..8)) {
            let joined = docs.join("\n");
            prop_assert_eq!(description(&docs), description([joined]));
        }
    }
}
