//! Error messages for the model: errors have two audiences. The operator gets the full error in
//! tracing and audit records; the model gets a short, actionable message with secrets, internal
//! addresses, paths outside the tool root and stack traces taken out. [`Sanitizer::sanitize`]
//! makes that message.
//!
//! ```
//! use tool_core::error::sanitize::{Sanitizer, sanitize};
//!
//! assert_eq!(
//!     sanitize("error sending request for url (http://10.0.3.7:8080/v1/search?q=x): connection refused"),
//!     "error sending request for url ([internal url]): connection refused",
//! );
//! assert_eq!(sanitize("401: Authorization: Bearer abc.def-123"), "401: Authorization: [redacted]");
//! let s = Sanitizer::new().with_root(std::path::Path::new("/srv/work"));
//! assert_eq!(
//!     s.sanitize("open /srv/work/notes/todo.md: denied; /etc/passwd too"),
//!     "open notes/todo.md: denied; [path] too",
//! );
//! ```
//!
//! What is taken out, and what it becomes:
//!
//! | found | becomes |
//! |---|---|
//! | a URL whose host is internal (private, loopback, link-local or CGNAT IP; `localhost`; a single label; a name ending in `.internal`, `.local`, `.lan`, `.corp`, `.svc`, `.intranet`, `.home.arpa`, `.localdomain`, `.localhost`, `.consul`) | `[internal url]` |
//! | a public URL | kept, without userinfo, query string and fragment |
//! | an internal host or IP outside a URL (with its port) | `[internal host]` |
//! | `Bearer` tokens, JWTs, API keys of known shapes (OpenAI, Anthropic, Stripe, GitHub, GitLab, Slack, AWS access key ids, Google, Hugging Face, npm, PyPI, SendGrid) | `[redacted token]` |
//! | the values of `Authorization`, `Cookie`, `Set-Cookie` and API-key headers | `[redacted]` |
//! | values of secret-named keys (`password=`, `"api_key": "…"`, `secret:`, `token=`, `session=`, …) | `[redacted]` |
//! | private key blocks (`-----BEGIN … PRIVATE KEY-----`) | `[redacted private key]` |
//! | the account id in AWS ARNs | `[account]` |
//! | an absolute path (Unix, Windows, UNC, `~/`) outside the root | `[path]` |
//! | an absolute path inside the root | the path relative to the root (`.` for the root) |
//! | stack frames and backtraces (Rust, Python, Java, .NET, JavaScript, Go) | removed; the error lines stay |
//!
//! Kept as they are: UUIDs, request ids, hex digests and other identifiers (the sanitizer does
//! not guess secrets from entropy, so an unlabelled random string survives), dates and times,
//! public IPs and host names, relative paths, e-mail addresses (their internal domains are
//! masked), and the request line of an HTTP route (`GET /v1/items`, its query dropped), which is
//! an address on the server rather than a file.
//!
//! Whitespace is collapsed to single spaces and the result is cut to the maximum length (500
//! characters by default) with `…`. Sanitizing never panics, runs in time linear in the input
//! (every pattern is a `regex` automaton) and is idempotent: a sanitized message comes back
//! unchanged.

use std::borrow::Cow;
use std::net::{Ipv4Addr, Ipv6Addr};
use std::path::Path;
use std::sync::LazyLock;

use regex::{Captures, Regex};

/// The longest message [`Sanitizer::new`] lets through, in characters.
pub const DEFAULT_MAX_LEN: usize = 500;

/// Sanitizes an error message with the defaults: no root (every absolute path is masked) and at
/// most [`DEFAULT_MAX_LEN`] characters. Same as `Sanitizer::new().sanitize(message)`.
pub fn sanitize(message: &str) -> String {
    static DEFAULT: LazyLock<Sanitizer> = LazyLock::new(Sanitizer::new);
    DEFAULT.sanitize(message)
}

/// What the sanitizer may keep: the directory whose paths may be shown (relative to it) and the
/// longest message.
#[derive(Debug, Clone)]
pub struct Sanitizer {
    /// Spellings of the root, longest first, as `/`-separated strings without a trailing
    /// separator (`""` for `/`).
    roots: Vec<RootForm>,
    max_len: usize,
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct RootForm {
    prefix: String,
    /// A drive or UNC root: `\` and `/` are the same separator and ASCII case is ignored.
    windows: bool,
}

impl Default for Sanitizer {
    fn default() -> Self {
        Self::new()
    }
}

impl Sanitizer {
    /// No root, so every absolute path is masked; at most [`DEFAULT_MAX_LEN`] characters.
    pub fn new() -> Self {
        Self {
            roots: Vec::new(),
            max_len: DEFAULT_MAX_LEN,
        }
    }

    /// Keeps paths under `root`, shown relative to it. Pass the tool root
    /// ([`ToolRoot::path`](crate::context::ToolRoot::path)); a relative root is made absolute against
    /// the current directory, and the canonical spelling (symlinks resolved) counts as well.
    pub fn with_root(mut self, root: &Path) -> Self {
        let mut spellings = vec![root.to_path_buf()];
        if root.is_relative()
            && let Ok(abs) = std::path::absolute(root)
        {
            spellings.push(abs);
        }
        if let Ok(canonical) = root.canonicalize() {
            spellings.push(canonical);
        }
        self.roots.clear();
        for spelling in &spellings {
            if let Some(form) = RootForm::new(&spelling.to_string_lossy())
                && !self.roots.contains(&form)
            {
                self.roots.push(form);
            }
        }
        self.roots
            .sort_by_key(|r| std::cmp::Reverse(r.prefix.len()));
        self
    }

    /// Cuts messages to at most `n` characters (the last one `…` when cut).
    pub fn with_max_len(mut self, n: usize) -> Self {
        self.max_len = n;
        self
    }

    /// The message for the model: secrets, internal addresses, paths outside the root and stack
    /// traces taken out, whitespace collapsed, cut to the maximum length.
    pub fn sanitize(&self, message: &str) -> String {
        // One pass is idempotent on everything but rare edge cases (mostly a cut that leaves the
        // start of something that now looks internal); iterating to the fixed point makes
        // `sanitize(sanitize(x)) == sanitize(x)` hold always.
        let mut out = self.truncate(self.pass(message));
        for _ in 0..4 {
            let again = self.truncate(self.pass(&out));
            if again == out {
                return out;
            }
            out = again;
        }
        self.truncate(WITHHELD.to_owned())
    }

    /// One pass of every rule, without the cut.
    fn pass(&self, message: &str) -> String {
        // Secrets first, in the raw text: an escape sequence ends in a printable character, so
        // stripping `ESC [` before `eyJ...` or `Bearer` would also take the `e` or the `B` and
        // hide the secret's shape. Again after stripping, for secrets that escapes had split.
        let text = self.redact_secrets(message);
        let text = strip_controls(&text);
        let text = strip_traces(&text);
        let text = self.redact_secrets(&text);
        let text = self.mask_paths(&text);
        let text = mask_hosts(&text);
        collapse_whitespace(&text)
    }

    /// Private keys, URLs (internal ones masked, public ones without credentials and query),
    /// tokens, credential headers and secret-named values.
    fn redact_secrets(&self, text: &str) -> String {
        let text = PRIVATE_KEY.replace_all(text, "[redacted private key]");
        let text = self.rewrite_urls(&text);
        let text = redact_tokens(&text);
        let text = redact_headers(&text);
        redact_key_values(&text)
    }

    fn truncate(&self, text: String) -> String {
        if text.chars().count() <= self.max_len {
            return text;
        }
        let keep = self.max_len.saturating_sub(1);
        let cut = text.char_indices().nth(keep).map_or(text.len(), |(i, _)| i);
        let mut head = &text[..cut];
        // Prefer ending on a word boundary when one is near.
        if !text[cut..].starts_with(char::is_whitespace)
            && let Some(space) = head.rfind(' ')
            && space > 0
            && head[space..].chars().count() <= 24
        {
            head = &head[..space];
        }
        format!("{}…", head.trim_end())
    }

    /// A URL rewritten: internal ones masked, public ones without userinfo, query and fragment;
    /// `file://` and `unix://` URLs are paths.
    fn rewrite_urls<'t>(&self, text: &'t str) -> Cow<'t, str> {
        URL.replace_all(text, |caps: &Captures| {
            let whole = &caps[0];
            // Punctuation ending the sentence, and a `]` closing a bracket the URL did not open.
            let mut url = whole;
            loop {
                let trimmed = url.trim_end_matches(['.', ',', ';', ':', '!', '?']);
                match trimmed.strip_suffix(']') {
                    Some(inner) if !inner.contains('[') => url = inner,
                    _ => {
                        url = trimmed;
                        break;
                    }
                }
            }
            let trailing = &whole[url.len()..];
            let Some((scheme, rest)) = url.split_once("://") else {
                return whole.to_owned();
            };
            let authority_end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
            let (authority, tail) = rest.split_at(authority_end);
            let path = &tail[..tail.find(['?', '#']).unwrap_or(tail.len())];
            let hostport = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
            let (host, port) = split_port(hostport);
            if host.is_empty() && path.is_empty() {
                return whole.to_owned(); // "http://" named in prose
            }
            if ["file", "unix", "npipe"]
                .iter()
                .any(|s| scheme.eq_ignore_ascii_case(s))
            {
                return match self.relativize(path) {
                    Some(rel) if !path.is_empty() => format!("{rel}{trailing}"),
                    _ => format!("[path]{trailing}"),
                };
            }
            if host.ends_with('…') {
                return whole.to_owned(); // cut by an earlier truncation
            }
            if host.is_empty() || is_internal_host(host, true) {
                return format!("[internal url]{trailing}");
            }
            format!("{scheme}://{host}{port}{path}{trailing}")
        })
    }

    /// Absolute paths: relative to the root when inside it, `[path]` otherwise.
    fn mask_paths<'t>(&self, text: &'t str) -> Cow<'t, str> {
        PATH.replace_all(text, |caps: &Captures| {
            let boundary = caps.get(1).map_or("", |m| m.as_str());
            let raw = (2..=5).find_map(|i| caps.get(i)).map_or("", |m| m.as_str());
            let path = raw.trim_end_matches(['.', '!']);
            let trailing = if caps.get(6).is_some() {
                ""
            } else {
                &raw[path.len()..]
            };
            let start = caps.get(0).map_or(0, |m| m.start()) + boundary.len();
            let before = text[..start].trim_end_matches(' ');
            let is_route = caps.get(2).is_some()
                && before.len() < start
                && HTTP_METHODS.iter().any(|m| {
                    before.ends_with(m)
                        && !before[..before.len() - m.len()]
                            .ends_with(|c: char| c.is_alphanumeric())
                });
            if is_route {
                return format!("{boundary}{path}{trailing}");
            }
            let shown = if caps.get(5).is_some() {
                None // ~/...
            } else {
                self.relativize(path)
            };
            format!(
                "{boundary}{}{trailing}",
                shown.as_deref().unwrap_or("[path]")
            )
        })
    }

    /// `path` relative to the root, if it is inside it (`..` resolved lexically).
    fn relativize(&self, path: &str) -> Option<String> {
        self.roots.iter().find_map(|root| root.relativize(path))
    }
}

impl RootForm {
    fn new(spelling: &str) -> Option<Self> {
        let windows = is_windows_absolute(spelling);
        if !windows && !spelling.starts_with('/') {
            return None;
        }
        let mut prefix = if windows {
            spelling.replace('\\', "/")
        } else {
            spelling.to_owned()
        };
        while prefix.ends_with('/') {
            prefix.pop();
        }
        Some(Self { prefix, windows })
    }

    fn relativize(&self, path: &str) -> Option<String> {
        let root = self.prefix.as_bytes();
        let bytes = path.as_bytes();
        if bytes.len() < root.len() {
            return None;
        }
        let same = |a: u8, b: u8| {
            if self.windows {
                let sep = |c: u8| c == b'/' || c == b'\\';
                (sep(a) && sep(b)) || a.eq_ignore_ascii_case(&b)
            } else {
                a == b
            }
        };
        if !root.iter().zip(bytes).all(|(&r, &p)| same(r, p)) {
            return None;
        }
        // The root ends on a char boundary (its bytes matched exactly, or as ASCII).
        let rest = path.get(root.len()..)?;
        let is_sep = |c: char| c == '/' || (self.windows && c == '\\');
        if !rest.is_empty() && !rest.starts_with(is_sep) {
            return None; // "/srv/workshop" is not under "/srv/work"
        }
        let mut parts: Vec<&str> = Vec::new();
        for part in rest.split(is_sep) {
            match part {
                "" | "." => {}
                ".." => {
                    parts.pop()?;
                }
                _ => parts.push(part),
            }
        }
        if parts.is_empty() {
            return Some(".".to_owned());
        }
        let sep = if self.windows && rest.contains('\\') && !rest.contains('/') {
            "\\"
        } else {
            "/"
        };
        Some(parts.join(sep))
    }
}

/// What [`Sanitizer::sanitize`] returns in the (never observed) case that its passes do not
/// settle.
const WITHHELD: &str = "[error details withheld]";

/// The placeholders the rules write; a value that already is one is left alone.
const PLACEHOLDERS: &[&str] = &[
    "[redacted]",
    "[redacted token]",
    "[redacted private key]",
    "[internal url]",
    "[internal host]",
    "[path]",
    "[account]",
];

const HTTP_METHODS: &[&str] = &[
    "GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS", "CONNECT", "TRACE",
];

fn re(pattern: &str) -> Regex {
    // The patterns are constants covered by tests; a typo fails every test at once.
    Regex::new(pattern).expect("sanitizer pattern")
}

/// Removes ANSI escape sequences, control characters other than line breaks and tabs, and
/// invisible format characters (zero-width spaces, bidi overrides), which can hide text.
fn strip_controls(text: &str) -> Cow<'_, str> {
    static ANSI: LazyLock<Regex> = LazyLock::new(|| {
        re(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07\x1b\n]*(?:\x07|\x1b\\)?|\x1b[@-Z\\-_]")
    });
    let text = ANSI.replace_all(text, "");
    let unwanted =
        |c: char| (c.is_control() && !matches!(c, '\n' | '\t' | '\r')) || is_format_char(c);
    if text.contains(unwanted) {
        Cow::Owned(text.chars().filter(|&c| !unwanted(c)).collect())
    } else {
        text
    }
}

/// Text a person must judge (an approval question, say), with whatever could hide or disguise
/// part of it on a screen shown as a `\u{..}` escape instead: control characters other than
/// line breaks and tabs (an escape sequence's `ESC` among them, so a terminal runs none) and
/// invisible format characters (zero-width spaces, bidi overrides). Unlike the error sanitizer,
/// which removes them, it keeps them visible: the person sees that something is there.
///
/// ```
/// use tool_core::error::sanitize::reveal;
/// assert_eq!(reveal("main\x1b[2K\rok"), "main\\u{1b}[2K\\u{d}ok");
/// assert_eq!(reveal("abc\u{202e}fed"), "abc\\u{202e}fed");
/// assert_eq!(reveal("two\nlines\tand a tab"), "two\nlines\tand a tab");
/// ```
pub fn reveal(text: &str) -> Cow<'_, str> {
    let hidden = |c: char| (c.is_control() && !matches!(c, '\n' | '\t')) || is_format_char(c);
    if !text.contains(hidden) {
        return Cow::Borrowed(text);
    }
    let mut shown = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if hidden(c) {
            shown.extend(c.escape_unicode());
        } else {
            shown.push(c);
        }
    }
    Cow::Owned(shown)
}

/// Unicode format characters (category Cf) that render as nothing.
fn is_format_char(c: char) -> bool {
    matches!(c,
        '\u{00AD}' | '\u{061C}' | '\u{180E}' | '\u{200B}'..='\u{200F}' | '\u{202A}'..='\u{202E}'
        | '\u{2060}'..='\u{2064}' | '\u{2066}'..='\u{206F}' | '\u{FEFF}' | '\u{FFF9}'..='\u{FFFB}'
        | '\u{E0001}' | '\u{E0020}'..='\u{E007F}')
}

static PRIVATE_KEY: LazyLock<Regex> = LazyLock::new(|| {
    re(concat!(
        r"-----BEGIN[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----",
        // To the END line; without one (a cut key), to the quote closing the string or the end.
        r#"(?:(?s:.*?)-----END[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|[^"]*)"#,
    ))
});

/// Removes stack traces: Python tracebacks, Rust and Go backtraces, Java, .NET and JavaScript
/// frames, and the source location of Rust panics. The error lines stay.
fn strip_traces(text: &str) -> String {
    // The fixed Rust notes, with any whitespace between their words.
    static NOTES: LazyLock<Regex> = LazyLock::new(|| {
        let words = |s: &str| s.split(' ').collect::<Vec<_>>().join(r"\s+");
        re(&format!(
            r"(?:{}|{})\.?",
            words(
                "note: run with .RUST_BACKTRACE=[a-z0-9]+. environment variable to display a backtrace"
            ),
            words(
                "note: Some details are omitted, run with .RUST_BACKTRACE=full. for a verbose backtrace"
            ),
        ))
    });
    static PANIC: LazyLock<Regex> =
        LazyLock::new(|| re(r#"panicked\s+at\s+(?:'(.*)',\s+)?[^\s:'"]+\.rs:[0-9]+:[0-9]+:?"#));
    static GO_HEADER: LazyLock<Regex> = LazyLock::new(|| re(r"^goroutine [0-9]+ \[[^\]]*\]:$"));
    static AT_LOCATION: LazyLock<Regex> =
        LazyLock::new(|| re(r"^at \S+:[0-9]+(?::[0-9]+)?$|:[0-9]+(?::[0-9]+)?\)?$"));
    static MORE: LazyLock<Regex> =
        LazyLock::new(|| re(r"^\.\.\. [0-9]+ (?:more|common frames omitted)$"));

    enum Block {
        None,
        Python,
        Rust,
        Go,
    }
    let is_frame = |line: &str| {
        let t = line.trim();
        let indented = line.starts_with([' ', '\t']);
        if let Some(rest) = t.strip_prefix("at ") {
            if indented && (rest.contains('(') || AT_LOCATION.is_match(t)) {
                return true; // Java, .NET, JavaScript, Rust frame locations
            }
            if !rest.contains(' ') && AT_LOCATION.is_match(t) {
                return true; // "at src/main.rs:12:5"
            }
        }
        (indented && MORE.is_match(t))
            || (t.starts_with("File \"") && t.contains("\", line "))
            || (t.starts_with("--- End of ") && t.ends_with("---"))
    };

    let mut block = Block::None;
    let mut kept: Vec<&str> = Vec::new();
    for line in text.split('\n') {
        let t = line.trim();
        let indented = line.starts_with([' ', '\t']);
        match block {
            Block::Python | Block::Rust if indented && !t.is_empty() => continue,
            Block::Go if !t.is_empty() && !t.starts_with("exit status ") => continue,
            _ => block = Block::None,
        }
        if t.starts_with("Traceback (most recent call last)") {
            block = Block::Python;
        } else if t.eq_ignore_ascii_case("stack backtrace:") || t == "Backtrace:" {
            block = Block::Rust;
        } else if GO_HEADER.is_match(t) {
            block = Block::Go;
        } else if !is_frame(line) {
            kept.push(line);
        } else if line.trim_end().ends_with('{') {
            kept.push("{"); // Node prints the error's properties after its last frame
        }
    }
    let text = kept.join("\n");
    let text = NOTES.replace_all(&text, "");
    PANIC
        .replace_all(&text, |caps: &Captures| match caps.get(1) {
            Some(message) => format!("panicked: {}", message.as_str()),
            None => "panicked:".to_owned(),
        })
        .into_owned()
}

static URL: LazyLock<Regex> =
    LazyLock::new(|| re(r#"(?i)(?-u:\b)[a-z][a-z0-9+.-]*://[^\s"'`<>(){}|\\^\x00-\x1f\x7f]*"#));

/// Splits `host:port` (and `[v6]:port`) into the host and `:port` (or "").
fn split_port(hostport: &str) -> (&str, &str) {
    if hostport.starts_with('[') {
        if let Some(close) = hostport.find(']') {
            return hostport.split_at(close + 1);
        }
        return (hostport, "");
    }
    match hostport.rfind(':') {
        Some(colon) if hostport[colon + 1..].bytes().all(|b| b.is_ascii_digit()) => {
            hostport.split_at(colon)
        }
        _ => (hostport, ""),
    }
}

/// Bearer tokens, JWTs, API keys of known shapes and AWS account ids in ARNs.
fn redact_tokens(text: &str) -> String {
    static JWT: LazyLock<Regex> =
        LazyLock::new(|| re(r"(?-u:\b)eyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]*"));
    static API_KEY: LazyLock<Regex> = LazyLock::new(|| {
        re(concat!(
            r"(?-u:\b)(?:",
            r"sk-(?:proj-|svcacct-|admin-|ant-(?:api|admin)[0-9]{2}-)?[A-Za-z0-9_-]{20,}",
            r"|(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{16,}",
            r"|whsec_[A-Za-z0-9+/=]{20,}",
            r"|gh[pousr]_[A-Za-z0-9]{30,}",
            r"|github_pat_[A-Za-z0-9_]{22,}",
            r"|glpat-[A-Za-z0-9_-]{20,}",
            r"|xox[abposr]-[A-Za-z0-9-]{10,}",
            r"|(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}(?-u:\b)",
            r"|AIza[0-9A-Za-z_-]{30,}",
            r"|ya29\.[0-9A-Za-z_-]{20,}",
            r"|GOCSPX-[0-9A-Za-z_-]{20,}",
            r"|hf_[A-Za-z0-9]{30,}",
            r"|npm_[A-Za-z0-9]{36,}",
            r"|pypi-[A-Za-z0-9_-]{40,}",
            r"|SG\.[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{16,}",
            r")",
        ))
    });
    // A Bearer credential: with a digit or one of `._~+/-` somewhere (not ending in `.`, which
    // ends the sentence), or 20+ letters. So "Bearer token." and "Bearer authentication" stay.
    static BEARER: LazyLock<Regex> = LazyLock::new(|| {
        let t = r"[A-Za-z0-9._~+/-]";
        re(&format!(
            r"(?i)(?-u:\b)(bearer)\s+(?:{t}*(?:[0-9._~+/-]{t}*[A-Za-z0-9_~+/-]|[0-9_~+/-])=*|[a-z]{{20,}}=*)"
        ))
    });
    static ARN_ACCOUNT: LazyLock<Regex> =
        LazyLock::new(|| re(r"(?-u:\b)(arn:aws[a-z-]*:[a-z0-9-]*:[a-z0-9-]*:)[0-9]{12}(:)"));
    let text = JWT.replace_all(text, "[redacted token]");
    let text = API_KEY.replace_all(&text, "[redacted token]");
    let text = BEARER.replace_all(&text, "${1} [redacted token]");
    ARN_ACCOUNT
        .replace_all(&text, "${1}[account]${2}")
        .into_owned()
}

/// The values of credential-carrying headers, to the end of the line (or, for a known scheme,
/// the scheme and its one credential).
fn redact_headers(text: &str) -> Cow<'_, str> {
    static HEADER: LazyLock<Regex> = LazyLock::new(|| {
        re(concat!(
            r"(?i)(^|[^A-Za-z0-9_-])",
            r"((?:proxy-)?authorization|cookie|set-cookie|x-api-key|api-key|x-auth-token",
            r"|x-amz-security-token|x-goog-api-key|private-token|x-vault-token)",
            r"(\s*[:=]\s*)",
            r#"(?:(?:bearer|basic|token|bot|apikey|api-key|key|jwt|oauth|sso-key|pat)\s+"#,
            r#"(?:\[redacted token\]|[^\s\[\]"'\\,;]+)"#,
            r#"|\[redacted token\][^\r\n"'\\]*"#,
            r#"|[^\s\["'\\][^\r\n"'\\]*)"#,
        ))
    });
    HEADER.replace_all(text, "${1}${2}${3}[redacted]")
}

/// Values of keys that name secrets: quoted values always; unquoted values after `=` always;
/// after `:` for strong names (`password`, `secret`, `api_key`, ...) always and for weak names
/// (`token`, `session`, `auth`, ...) only when the value looks like a credential (has a digit,
/// or is 16+ characters), so that "token: expired" stays readable.
fn redact_key_values(text: &str) -> String {
    const PREFIX: &str = r"(?:[A-Za-z0-9]+[_.-])*";
    const STRONG: &str = concat!(
        r"password|passwd|passphrase|pgpassword|pwd|secret|apikey|api[_-]?key",
        r"|(?:access|secret|private|signing|master|encryption|subscription|account)[_-]?key",
        r"|authorization|cookie|set-cookie",
    );
    const WEAK: &str = r"token|auth|session|sessionid|jsessionid|phpsessid|signature|credentials?";
    const EQ_ONLY: &str = r"pass|sid|sig";
    const SUFFIX: &str = r"(?:[_.-](?:id|key|value|hash))?";
    // An unquoted value: its first character is not a separator, a bracket or a quote.
    const V1: &str = r#"[^\s"'`,;&<>(){}\[\]\\|:=]"#;
    const V: &str = r#"[^\s"'`,;&<>(){}\[\]\\|]"#;

    // Keys start at a word boundary, `()(?-u:\b)`, rather than after a boundary character, so
    // that a match ending in a quote does not use up the character the next key needs (the
    // empty group 1 keeps the groups numbered alike in every rule).
    static QUOTED: LazyLock<Regex> = LazyLock::new(|| {
        re(&format!(
            concat!(
                r#"(?i)()(?-u:\b)({}(?:{}|{}|{}){})(\\?["']?\s*(?:=>|[:=])\s*)"#,
                r#"(?:"((?:[^"\\\n]|\\[^\n])*)"|'((?:[^'\\\n]|\\[^\n])*)'|\\"((?:[^"\\\n]|\\[^"\n])*)\\")"#,
                // A colon after the value: the "value" may be the next key.
                r#"(\s*:)?"#,
            ),
            PREFIX, STRONG, WEAK, EQ_ONLY, SUFFIX
        ))
    });
    static KEY_NAME: LazyLock<Regex> = LazyLock::new(|| {
        re(&format!(
            r"(?i)^{PREFIX}(?:{STRONG}|{WEAK}|{EQ_ONLY}){SUFFIX}$"
        ))
    });
    static STRONG_VALUE: LazyLock<Regex> = LazyLock::new(|| {
        re(&format!(
            r#"(?i)()(?-u:\b)({PREFIX}(?:{STRONG}){SUFFIX})(\\?["']?\s*(?:=>|[:=])\s*)({V1}{V}*)"#
        ))
    });
    static WEAK_EQUALS: LazyLock<Regex> = LazyLock::new(|| {
        re(&format!(
            r#"(?i)()(?-u:\b)({PREFIX}(?:{WEAK}|{EQ_ONLY}){SUFFIX})(\\?["']?\s*=>?\s*)({V1}{V}*)"#
        ))
    });
    static WEAK_COLON: LazyLock<Regex> = LazyLock::new(|| {
        re(&format!(
            r#"(?i)()(?-u:\b)({PREFIX}(?:{WEAK}){SUFFIX})(\\?["']?\s*:\s*)([0-9]{V}*|{V1}{V}*[0-9]{V}*|{V1}{V}{{15,}})"#
        ))
    });

    // `user:password@host` without a scheme (Go and MySQL DSNs); URLs were handled already.
    static USERINFO: LazyLock<Regex> = LazyLock::new(|| {
        re(r#"(^|[\s"'=(,;])([A-Za-z0-9._%+-]+):([^\s/"'\[\]]+)@([A-Za-z0-9\[(])"#)
    });
    let text = USERINFO.replace_all(text, |caps: &Captures| {
        if caps[2].eq_ignore_ascii_case("mailto") {
            return caps[0].to_owned();
        }
        format!("{}{}:[redacted]@{}", &caps[1], &caps[2], &caps[4])
    });
    let text = &*text;
    let text = replace_or_resume(&QUOTED, text, |whole, caps| {
        let Some(value) = (4..=6).find_map(|i| caps.get(i)) else {
            return Ok(whole.as_str().to_owned());
        };
        let v = value.as_str();
        if caps.get(7).is_some() && KEY_NAME.is_match(v) {
            // `Authorization: "api_key": "..."`: the "value" is the next key; resume there so
            // that its own value is looked at.
            return Err(caps.get(3).map_or(value.start(), |sep| sep.end()));
        }
        if v.is_empty() || PLACEHOLDERS.contains(&v) || in_arn(text, whole.start()) {
            return Ok(whole.as_str().to_owned());
        }
        let w = whole.as_str();
        let (start, end) = (value.start() - whole.start(), value.end() - whole.start());
        Ok(format!("{}[redacted]{}", &w[..start], &w[end..]))
    });
    let mut text = text.into_owned();
    for (rule, allow_words) in [
        (&*STRONG_VALUE, true),
        (&*WEAK_EQUALS, false),
        (&*WEAK_COLON, false),
    ] {
        let replaced = rule.replace_all(&text, |caps: &Captures| {
            let whole = &caps[0];
            let value = &caps[4];
            let harmless = allow_words && NOT_SECRETS.iter().any(|w| value.eq_ignore_ascii_case(w));
            if harmless || in_arn(&text, caps.get(0).map_or(0, |m| m.start())) {
                return whole.to_owned();
            }
            format!("{}{}{}[redacted]", &caps[1], &caps[2], &caps[3])
        });
        if let Cow::Owned(replaced) = replaced {
            text = replaced;
        }
    }
    text
}

/// Like [`Regex::replace_all`], but `f` may leave a match alone and have the search resume at a
/// byte offset inside it (`Err(offset)`, after the match start), so that a later match
/// overlapping this one is still found. Linear: each resumption moves past the match's key.
fn replace_or_resume<'t>(
    rule: &Regex,
    text: &'t str,
    mut f: impl FnMut(regex::Match<'_>, &Captures<'_>) -> Result<String, usize>,
) -> Cow<'t, str> {
    let mut out = String::new();
    let mut changed = false;
    let mut copied = 0;
    let mut at = 0;
    while at <= text.len() {
        let Some(caps) = rule.captures_at(text, at) else {
            break;
        };
        let Some(whole) = caps.get(0) else {
            break;
        };
        match f(whole, &caps) {
            Ok(replacement) => {
                changed = true;
                out.push_str(&text[copied..whole.start()]);
                out.push_str(&replacement);
                copied = whole.end();
                at = if whole.is_empty() {
                    whole.end() + text[whole.end()..].chars().next().map_or(1, char::len_utf8)
                } else {
                    whole.end()
                };
            }
            Err(resume) => {
                at = if resume > whole.start() && text.is_char_boundary(resume) {
                    resume
                } else {
                    whole.start()
                        + text[whole.start()..]
                            .chars()
                            .next()
                            .map_or(1, char::len_utf8)
                };
            }
        }
    }
    if !changed {
        return Cow::Borrowed(text);
    }
    out.push_str(&text[copied..]);
    Cow::Owned(out)
}

/// Values after a strong key that say something about it rather than being it ("using
/// password: YES").
const NOT_SECRETS: &[&str] = &[
    "yes", "no", "true", "false", "null", "none", "nil", "empty", "missing", "required", "unset",
];

/// Whether the match starting at `start` is inside an ARN (`arn:aws:secretsmanager:...:secret:name`
/// names a secret, it does not contain one).
fn in_arn(text: &str, start: usize) -> bool {
    let word_start = text[..start]
        .char_indices()
        .rfind(|&(_, c)| c.is_whitespace() || c == '"' || c == '\'')
        .map_or(0, |(i, c)| i + c.len_utf8());
    text[word_start..].starts_with("arn:")
}

static PATH: LazyLock<Regex> = LazyLock::new(|| {
    re(concat!(
        r#"(^|[\s"'`(=,:\[<{|>])(?:"#,
        // Unix: "/" then a segment, then more segments.
        r#"(/[^\s"'`<>|(){}\[\],;:*?\\/]+(?:/[^\s"'`<>|(){}\[\],;:*?\\/]*)*)"#,
        // Windows drive.
        r#"|([A-Za-z]:[\\/][^\s"'`<>|*?:;,(){}\[\]]*)"#,
        // UNC.
        r#"|(\\\\[^\s"'`<>|*?:;,(){}\[\]\\]+(?:\\[^\s"'`<>|*?:;,(){}\[\]]*)?)"#,
        // Home.
        r#"|(~/[^\s"'`<>|*?:;,(){}\[\]]*)"#,
        r#")(\?[^\s"'`<>]*)?"#,
    ))
});

/// Internal IP literals and host names outside URLs, with their ports.
fn mask_hosts(text: &str) -> String {
    static IPV6_BRACKETED: LazyLock<Regex> =
        LazyLock::new(|| re(r"\[([0-9A-Fa-f:.]+)(?:%[A-Za-z0-9._-]+)?\](?::[0-9]{1,5})?"));
    static IPV6: LazyLock<Regex> = LazyLock::new(|| {
        re(concat!(
            r"(^|[^A-Za-z0-9_:.])",
            r"((?:[0-9A-Fa-f]{0,4}:){2,7}(?:[0-9]{1,3}(?:\.[0-9]{1,3}){3}|[0-9A-Fa-f]{0,4}))",
            r"(?:%[A-Za-z0-9._-]+)?",
        ))
    });
    static IPV4: LazyLock<Regex> = LazyLock::new(|| {
        re(r"(^|[^A-Za-z0-9_.])([0-9]{1,3}(?:\.[0-9]{1,3}){3})((?:\.[0-9]+)*)(?::[0-9]{1,5})?")
    });
    static HOSTNAME: LazyLock<Regex> = LazyLock::new(|| {
        re(concat!(
            r"(^|[^A-Za-z0-9_./\\-])",
            r"((?:[A-Za-z0-9][A-Za-z0-9-]*\.)+[A-Za-z0-9][A-Za-z0-9-]*|(?i:localhost)(?-u:\b))",
            r"(?::[0-9]{1,5})?",
        ))
    });
    // Single labels named as hosts: Go's resolver and libpq.
    static NAMED_HOST: LazyLock<Regex> = LazyLock::new(|| {
        re(concat!(
            r#"(?i)(lookup\s+)([A-Za-z0-9][A-Za-z0-9_-]*)(\s+on\s|:\s*no\s+such\s+host|:\s*i/o\s+timeout"#,
            r#"|:\s*server\s+misbehaving|:\s*temporary\s+failure)"#,
            r#"|((?:host\s+name|hostname|host|server\s+at)\s+")([^"\s\[][^"\s]*)(")"#,
        ))
    });

    // IPv4 first: a masked IPv4 can end right where an IPv6 address starts.
    let text = IPV4.replace_all(text, |caps: &Captures| {
        if !caps[3].is_empty() {
            return caps[0].to_owned(); // a version number such as 1.2.3.4.5
        }
        match caps[2].parse::<Ipv4Addr>() {
            Ok(ip) if is_internal_v4(ip) => format!("{}[internal host]", &caps[1]),
            _ => caps[0].to_owned(),
        }
    });
    let text =
        IPV6_BRACKETED.replace_all(&text, |caps: &Captures| match caps[1].parse::<Ipv6Addr>() {
            Ok(ip) if is_internal_v6(ip) => "[internal host]".to_owned(),
            _ => caps[0].to_owned(),
        });
    let text = IPV6.replace_all(&text, |caps: &Captures| {
        let candidate = &caps[2];
        match candidate.parse::<Ipv6Addr>() {
            Ok(ip) if candidate.contains(|c: char| c.is_ascii_hexdigit()) && is_internal_v6(ip) => {
                format!("{}[internal host]", &caps[1])
            }
            _ => caps[0].to_owned(),
        }
    });
    let text = HOSTNAME.replace_all(&text, |caps: &Captures| {
        if is_internal_host(&caps[2], false) {
            format!("{}[internal host]", &caps[1])
        } else {
            caps[0].to_owned()
        }
    });
    NAMED_HOST
        .replace_all(&text, |caps: &Captures| {
            let (lead, name, tail) = match caps.get(1) {
                Some(lead) => (lead.as_str(), &caps[2], &caps[3]),
                None => (&caps[4], &caps[5], &caps[6]),
            };
            if is_internal_host(name, true) {
                format!("{lead}[internal host]{tail}")
            } else {
                caps[0].to_owned()
            }
        })
        .into_owned()
}

/// Name suffixes of private networks and service discovery.
const INTERNAL_SUFFIXES: &[&str] = &[
    ".internal",
    ".local",
    ".localhost",
    ".localdomain",
    ".lan",
    ".corp",
    ".svc",
    ".intranet",
    ".home.arpa",
    ".consul",
];

/// Whether `host` (a name or IP literal, `[v6]` bracketed or not) is internal. `in_url`: it was
/// named as a host, so a single label (`redis`, `db`) and numeric forms (`127.1`) count; in
/// running text only dotted names and `localhost` are considered.
fn is_internal_host(host: &str, in_url: bool) -> bool {
    let host = host.trim_end_matches('.');
    let bare = host
        .strip_prefix('[')
        .and_then(|h| h.strip_suffix(']'))
        .unwrap_or(host);
    let unzoned = bare.split('%').next().unwrap_or(bare);
    if let Ok(ip) = unzoned.parse::<Ipv6Addr>() {
        return is_internal_v6(ip);
    }
    if let Ok(ip) = host.parse::<Ipv4Addr>() {
        return is_internal_v4(ip);
    }
    let lower = host.to_ascii_lowercase();
    if lower == "localhost" || lower.ends_with(".localhost") {
        return true;
    }
    if INTERNAL_SUFFIXES.iter().any(|s| lower.ends_with(s)) {
        return true;
    }
    if !in_url {
        return false;
    }
    let numeric = lower.split('.').all(|label| {
        !label.is_empty()
            && (label.bytes().all(|b| b.is_ascii_digit())
                || label
                    .strip_prefix("0x")
                    .is_some_and(|h| h.bytes().all(|b| b.is_ascii_hexdigit())))
    });
    !lower.contains('.') || numeric
}

fn is_internal_v4(ip: Ipv4Addr) -> bool {
    let [a, b, c, _] = ip.octets();
    ip.is_private()
        || ip.is_loopback()
        || ip.is_link_local()
        || ip.is_broadcast()
        || a == 0
        || (a == 100 && (64..128).contains(&b)) // CGNAT
        || (a == 192 && b == 0 && c == 0)
        || (a == 198 && (b == 18 || b == 19))
}

fn is_internal_v6(ip: Ipv6Addr) -> bool {
    if let Some(v4) = ip.to_ipv4_mapped() {
        return is_internal_v4(v4);
    }
    let s = ip.segments();
    if s[..6].iter().all(|&x| x == 0) && !ip.is_loopback() && !ip.is_unspecified() {
        let [a, b] = s[6].to_be_bytes();
        let [c, d] = s[7].to_be_bytes();
        return is_internal_v4(Ipv4Addr::new(a, b, c, d)); // IPv4-compatible
    }
    ip.is_loopback()
        || ip.is_unspecified()
        || (s[0] & 0xfe00) == 0xfc00 // unique local, fc00::/7
        || (s[0] & 0xffc0) == 0xfe80 // link-local
        || (s[0] & 0xffc0) == 0xfec0 // site-local
}

fn is_windows_absolute(s: &str) -> bool {
    let b = s.as_bytes();
    (b.len() >= 3 && b[0].is_ascii_alphabetic() && b[1] == b':' && (b[2] == b'\\' || b[2] == b'/'))
        || s.starts_with(r"\\")
}

fn collapse_whitespace(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for word in text.split_whitespace() {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(word);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// One corpus entry: a message as a real system prints it and what the model should see.
    #[derive(serde::Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Case {
        input: String,
        expected: String,
        #[serde(default)]
        root: Option<String>,
        #[serde(default)]
        max_len: Option<usize>,
        /// Why the expected output is what it is, where that is a decision.
        #[serde(default)]
        #[allow(dead_code)]
        note: Option<String>,
    }

    fn corpus() -> Vec<Case> {
        #[derive(serde::Deserialize)]
        struct Corpus {
            #[allow(dead_code)]
            about: String,
            cases: Vec<Case>,
        }
        let corpus: Corpus =
            serde_json::from_str(include_str!("sanitize/corpus.json")).expect("corpus.json parses");
        corpus.cases
    }

    fn sanitizer_for(case: &Case) -> Sanitizer {
        let mut s = Sanitizer::new();
        if let Some(root) = &case.root {
            s = s.with_root(Path::new(root));
        }
        if let Some(n) = case.max_len {
            s = s.with_max_len(n);
        }
        s
    }

    #[test]
    fn corpus_gives_the_expected_messages() {
        let cases = corpus();
        assert!(cases.len() >= 60, "the corpus has {} entries", cases.len());
        let mut failures = Vec::new();
        for (i, case) in cases.iter().enumerate() {
            let s = sanitizer_for(case);
            let got = s.sanitize(&case.input);
            if got != case.expected {
                failures.push(format!(
                    "#{i}\n  input:    {:?}\n  expected: {:?}\n  got:      {:?}",
                    case.input, case.expected, got
                ));
            }
            // The expected output is a fixed point, reached by one pass of the rules (not by the
            // fixed-point loop papering over a rule that undoes another).
            let again = s.truncate(s.pass(&case.expected));
            if again != case.expected {
                failures.push(format!(
                    "#{i} is not stable under one more pass\n  expected: {:?}\n  again:    {:?}",
                    case.expected, again
                ));
            }
        }
        assert!(
            failures.is_empty(),
            "{} of {} corpus entries failed:\n{}",
            failures.len(),
            cases.len(),
            failures.join("\n")
        );
    }

    #[test]
    fn a_rejected_bearer_word_does_not_hide_the_next_token() {
        assert_eq!(
            sanitize("Bearer Bearer QWxhZGRpbjpvcGVuIHNlc2FtZQ== tail"),
            "Bearer Bearer [redacted token] tail"
        );
        assert_eq!(
            sanitize("Authorization: Basic Bearer a1b2c3d4e5f6g7h8i9j0k1"),
            "Authorization: [redacted] [redacted token]"
        );
        assert_eq!(
            sanitize("token: Bearer abcdefghijKLMNOPQRSTuvwxyz"),
            "token: Bearer [redacted token]"
        );
    }

    #[test]
    fn found_by_proptest() {
        // Multi-byte whitespace before a key (the ARN check sliced inside it).
        assert_eq!(sanitize("\u{a0} password=AAa00aa00"), "password=[redacted]");
        // A quoted key after a key's separator is not that key's value.
        assert_eq!(
            sanitize(r#"Authorization: "api_key": "AAaAaa00a0aAAaAA0AAAAaa0""#),
            r#"Authorization: "api_key": "[redacted]""#
        );
        assert_eq!(
            sanitize(r#"{"token":"password":"hunter2"}"#),
            r#"{"token":"password":"[redacted]"}"#
        );
        // A closing quote ends a value and starts the next key.
        assert_eq!(
            sanitize(r#""password": " "api_key": "aaA0aAAa0AA0AAA00AAaa0a0""#),
            r#""password": "[redacted]"api_key": "[redacted]""#
        );
        // ... but any other quoted value is one, whatever follows it.
        assert_eq!(
            sanitize(r#""api_key": "A0A0a0A0aAaAAAaaaaAaa0AA" :"#),
            r#""api_key": "[redacted]" :"#
        );
    }

    #[test]
    fn escape_sequences_do_not_hide_secrets() {
        // `ESC [` plus a space or a letter reads as a whole escape sequence.
        let jwt = "eyJhbGciOiJIUzI1NiJ9.eyJ0A0AAAaAa0AaA0aAAa0a0Aaa.0A0AAAaAa0AaA0aAAa0a0Aaa";
        assert!(!sanitize(&format!("\u{1b}[ {jwt}")).contains("0A0AAAaAa0AaA0aAAa0a0Aaa"));
        assert!(!sanitize(&format!("\u{1b}[{jwt}")).contains("0A0AAAaAa0AaA0aAAa0a0Aaa"));
        let out = sanitize("\u{1b}[ Bearer QWxhZGRpbjpvcGVuIHNlc2FtZQ== x");
        assert!(!out.contains("QWxhZGRpbjpvcGVuIHNlc2FtZQ"), "{out}");
        let out = sanitize(
            "\u{1b}[-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA7bq98\n-----END RSA PRIVATE KEY-----",
        );
        assert!(!out.contains("MIIEow"), "{out}");
        // And a secret split by escapes is found once they are gone.
        assert_eq!(
            sanitize("\u{1b}[1mBear\u{1b}[0mer QWxhZGRpbjpvcGVuIHNlc2FtZQ==\u{1b}[0m"),
            "Bearer [redacted token]"
        );
        assert_eq!(
            sanitize("connect to \u{1b}[1mredis://cache.lan:6379\u{1b}[0m failed"),
            "connect to [internal url] failed"
        );
    }

    #[test]
    fn cuts_on_char_boundaries_and_words() {
        let s = Sanitizer::new().with_max_len(10);
        assert_eq!(s.sanitize("ééééééééééééééé"), "ééééééééé…");
        assert_eq!(s.sanitize("one two three four"), "one two…");
        assert_eq!(s.sanitize("short"), "short");
        assert_eq!(Sanitizer::new().with_max_len(0).sanitize("abc"), "…");
        assert_eq!(Sanitizer::new().with_max_len(1).sanitize("abc"), "…");
        assert_eq!(Sanitizer::new().with_max_len(0).sanitize(""), "");
    }

    #[test]
    fn roots_in_every_spelling() {
        let dir = tempfile::tempdir().unwrap();
        let canonical = dir.path().canonicalize().unwrap();
        let s = Sanitizer::new().with_root(dir.path());
        let message = format!("cannot open {}/a/b.txt", canonical.display());
        assert_eq!(s.sanitize(&message), "cannot open a/b.txt");
        let s = Sanitizer::new().with_root(Path::new("/"));
        assert_eq!(
            s.sanitize("open /etc/hosts failed"),
            "open etc/hosts failed"
        );
        // A relative root is made absolute; paths elsewhere stay masked.
        let s = Sanitizer::new().with_root(Path::new("some/dir"));
        assert_eq!(s.sanitize("open /etc/hosts failed"), "open [path] failed");
    }

    #[test]
    fn big_and_pathological_inputs_finish() {
        let n = 50_000;
        let inputs = [
            "a_".repeat(n) + "token: x",
            "pass: ".repeat(n),
            "Bearer ".repeat(n),
            ":".repeat(n * 2),
            "/".repeat(n * 2),
            "[".repeat(n * 2),
            "x.".repeat(n) + "internal",
            "1.".repeat(n),
            "-----BEGIN PRIVATE KEY-----".to_owned() + &"A".repeat(n),
            "http://".repeat(n),
            "  at f (x.js:1:2)\n".repeat(n / 4),
            format!(
                "Traceback (most recent call last):\n{}ValueError: bad",
                "  File \"a.py\", line 1\n".repeat(n / 4)
            ),
            "é\u{200b}\u{1b}[0m".repeat(n),
        ];
        let start = std::time::Instant::now();
        for input in &inputs {
            let out = sanitize(input);
            assert!(out.chars().count() <= DEFAULT_MAX_LEN);
        }
        assert_eq!(sanitize(&inputs[11]), "ValueError: bad");
        // Linear in the input: about a megabyte in all. A quadratic rule would take minutes.
        assert!(start.elapsed() < std::time::Duration::from_secs(60));
    }

    /// Pieces of the things the rules look for, to build inputs that get near every rule.
    const FRAGMENTS: &[&str] = &[
        "Bearer ",
        "bearer",
        "Authorization: ",
        "Cookie:",
        "Set-Cookie: ",
        "password=",
        "\"password\": \"",
        "'secret': '",
        "token: ",
        "api_key=",
        "session=",
        "pass: ",
        "http://",
        "https://",
        "file://",
        "://",
        "@",
        ":",
        "/",
        "\\",
        "C:\\",
        "~/",
        "/etc/passwd",
        "/srv/work/",
        "/srv/work",
        "..",
        "10.0.0.1",
        "127.0.0.1:8080",
        "[::1]",
        "fe80::1",
        "::",
        "localhost",
        "db.internal",
        ".local",
        "svc.cluster.local",
        "eyJhbGciOi",
        "eyJ",
        ".",
        "sk-",
        "ghp_",
        "AKIA",
        "xoxb-",
        "-----BEGIN PRIVATE KEY-----",
        "-----END PRIVATE KEY-----",
        "Traceback (most recent call last):\n",
        "  File \"x.py\", line 1\n",
        "\n    at f (x.js:1:2)\n",
        "\tat a.B.c(B.java:1)\n",
        "stack backtrace:\n",
        "goroutine 1 [running]:\n",
        "panicked at src/a.rs:1:2:",
        "note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace",
        "[redacted]",
        "[redacted token]",
        "[internal host]",
        "[internal url]",
        "[path]",
        "…",
        "\"",
        "'",
        "`",
        "(",
        ")",
        "[",
        "]",
        "{",
        "}",
        "=",
        ";",
        "&",
        "?",
        "#",
        ",",
        " ",
        "  ",
        "\n",
        "\r\n",
        "\t",
        "\u{1b}[31m",
        "\u{1b}[",
        "\u{1b}",
        "\u{200b}",
        "é",
        "ファイル",
        "GET ",
        "lookup ",
        " on ",
        "host \"",
        "arn:aws:iam::123456789012:",
        "YES",
        "%",
        "0x1f",
        "12:30:45",
        "2001:db8::1",
        "fd00::",
        "QWxhZGRpbjpvcGVu",
        "a1b2c3d4e5f6",
        "=>",
        "\\\"",
        "mailto:",
        "user:pw@",
    ];

    fn fragment() -> impl Strategy<Value = String> {
        prop_oneof![
            4 => proptest::sample::select(FRAGMENTS).prop_map(str::to_owned),
            2 => "[a-zA-Z0-9./:_@=-]{1,12}",
            1 => any::<String>(),
            1 => any::<char>().prop_map(String::from),
        ]
    }

    /// Arbitrary text, and text built from pieces the rules look for.
    fn text() -> impl Strategy<Value = String> {
        prop_oneof![
            any::<String>(),
            proptest::collection::vec(fragment(), 0..32).prop_map(|parts| parts.concat()),
        ]
    }

    fn sanitizers() -> impl Strategy<Value = Sanitizer> {
        (
            prop_oneof![
                Just(None),
                Just(Some("/srv/work")),
                Just(Some("C:\\work")),
                Just(Some("/"))
            ],
            prop_oneof![Just(DEFAULT_MAX_LEN), 0usize..80],
        )
            .prop_map(|(root, max_len)| {
                let s = Sanitizer::new().with_max_len(max_len);
                match root {
                    Some(root) => s.with_root(Path::new(root)),
                    None => s,
                }
            })
    }

    proptest! {
        // Failures are pinned as unit tests above rather than in a regressions file.
        #![proptest_config(ProptestConfig {
            cases: 1024,
            failure_persistence: None,
            ..ProptestConfig::default()
        })]

        #[test]
        fn never_panics_and_never_exceeds_the_limit(input in text(), max_len in 0usize..120) {
            let out = Sanitizer::new().with_max_len(max_len).sanitize(&input);
            prop_assert!(out.chars().count() <= max_len + 1, "{} chars: {:?}", out.chars().count(), out);
            let out = sanitize(&input);
            prop_assert!(out.chars().count() <= DEFAULT_MAX_LEN + 1);
        }

        #[test]
        fn reveal_leaves_nothing_hidden_and_only_adds_escapes(input in any::<String>()) {
            let hidden = |c: char| (c.is_control() && c != '\n' && c != '\t') || is_format_char(c);
            let shown = reveal(&input);
            prop_assert!(!shown.contains(hidden), "{:?}", shown);
            // What was visible stays, in order; revealing twice changes nothing more.
            let visible: String = input.chars().filter(|&c| !hidden(c)).collect();
            let mut rest = shown.as_ref();
            for c in visible.chars() {
                let at = rest.find(c);
                prop_assert!(at.is_some(), "{:?} lost from {:?}", c, shown);
                rest = &rest[at.unwrap_or(0) + c.len_utf8()..];
            }
            prop_assert_eq!(reveal(&shown), shown.clone());
        }

        #[test]
        fn sanitizing_is_idempotent(input in text(), s in sanitizers()) {
            let once = s.sanitize(&input);
            let twice = s.sanitize(&once);
            prop_assert_eq!(&twice, &once, "input: {:?}", input);
        }

        #[test]
        fn a_bearer_token_never_survives(
            prefix in text(),
            suffix in text(),
            token in "[A-Za-z0-9+/]{20,48}={0,2}",
        ) {
            let out = sanitize(&format!("{prefix} Bearer {token} {suffix}"));
            prop_assert!(!out.contains(&token), "token survived in {:?}", out);
        }

        #[test]
        fn other_secrets_never_survive(
            prefix in text(),
            suffix in text(),
            kind in 0usize..9,
            secret in "[A-Za-z0-9]{24,40}",
        ) {
            let (message, needle) = match kind {
                0 => (format!("eyJhbGciOiJIUzI1NiJ9.eyJ{secret}.{secret}"), format!("eyJ{secret}")),
                1 => (format!("ghp_{secret}{secret}"), secret.clone()),
                2 => (format!("sk-proj-{secret}"), secret.clone()),
                3 => (format!("password={secret}"), secret.clone()),
                4 => (format!("\"api_key\": \"{secret}\""), secret.clone()),
                5 => (format!("postgres://app:{secret}@db.example.com:5432/app"), secret.clone()),
                6 => (format!("https://api.example.com/v1?access_token={secret}&x=1"), secret.clone()),
                7 => (format!("xoxb-{secret}"), secret.clone()),
                _ => (format!("Authorization: Basic {secret}"), secret.clone()),
            };
            let out = sanitize(&format!("{prefix} {message} {suffix}"));
            prop_assert!(!out.contains(&needle), "secret survived in {:?}", out);
        }
    }
}
