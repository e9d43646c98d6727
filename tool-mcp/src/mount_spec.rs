//! What `--mount` names, parsed and checked: the grammar of a mount, which a command line
//! holds whether or not the binary can mount (the feature `mount` connects to the server).

use std::fmt;
use std::str::FromStr;

use tool_core::definition::{ScopeListProblem, scope_list_problems};
use tool_core::registry::RegistryError;

pub(crate) type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// What `--mount NAME=TARGET` names: a server to start (a shell command speaking MCP on stdio)
/// or one to reach (a Streamable HTTP URL), and the OAuth scopes a caller needs for every one
/// of its tools, written `NAME[SCOPE ...]=TARGET`.
///
/// ```
/// use tool_mcp::{MountSpec, MountTarget};
/// let spec: MountSpec = "files=npx -y @modelcontextprotocol/server-filesystem /tmp".parse().unwrap();
/// assert_eq!(spec.name, "files");
/// assert!(matches!(spec.target, MountTarget::Command(_)));
/// assert!(spec.scopes.is_empty());
/// let spec: MountSpec = "remote[repo issues:write]=http://127.0.0.1:8080/mcp".parse().unwrap();
/// assert!(matches!(spec.target, MountTarget::Url(_)));
/// assert_eq!(spec.scopes, ["repo", "issues:write"]);
/// assert!("Bad-Name=cmd".parse::<MountSpec>().is_err());
/// assert!("remote[repo repo]=cmd".parse::<MountSpec>().is_err());
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MountSpec {
    /// The prefix of the mounted tools' names: lowercase letters, digits and `_`.
    pub name: String,
    /// Where the server is.
    pub target: MountTarget,
    /// OAuth scopes a caller must hold to see and call any tool of the mount (each tool's
    /// [`Tool::scopes`](tool_core::registry::Tool::scopes)); none by default. Set them with
    /// [`scopes`](Self::scopes), which holds them to the scope rule; mounting refuses a list set
    /// here directly that breaks it.
    pub scopes: Vec<String>,
}

impl MountSpec {
    /// Requires `scopes` of every caller of every tool of the mount (in place of any set
    /// before): at least one, each once, each an RFC 6749 scope-token. As for any tool, they
    /// bind callers a server authenticated, not calls with no principal.
    ///
    /// ```
    /// use tool_mcp::MountSpec;
    /// let spec: MountSpec = "tracker=http://127.0.0.1:8080/mcp".parse().unwrap();
    /// let spec = spec.scopes(["issues:write"]).unwrap();
    /// assert_eq!(spec.scopes, ["issues:write"]);
    /// let err = spec.scopes(["issues write"]).unwrap_err();
    /// assert!(err.to_string().starts_with("mount `tracker`: the scope `issues write` holds a space"));
    /// ```
    pub fn scopes<S: Into<String>>(
        mut self,
        scopes: impl IntoIterator<Item = S>,
    ) -> Result<Self, MountError> {
        let scopes: Vec<String> = scopes.into_iter().map(Into::into).collect();
        check_scopes(&self.name, &scopes)?;
        self.scopes = scopes;
        Ok(self)
    }
}

/// `scopes` held to the scope rule `#[tool(scopes(..))]` and definitions files are held to.
pub(crate) fn check_scopes(name: &str, scopes: &[String]) -> Result<(), MountError> {
    let problems = scope_list_problems(scopes);
    if problems.is_empty() {
        return Ok(());
    }
    Err(MountError::Scopes {
        name: name.to_owned(),
        problems,
    })
}

/// Problems separated by `; `.
struct Listed<'a>(&'a [ScopeListProblem]);

impl fmt::Display for Listed<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, problem) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str("; ")?;
            }
            problem.fmt(f)?;
        }
        Ok(())
    }
}

/// Where a mounted server is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MountTarget {
    /// A command run with `sh -c`, speaking MCP on its stdin and stdout.
    Command(String),
    /// A Streamable HTTP endpoint (`http://` or `https://`).
    Url(String),
}

/// Why a server could not be mounted.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum MountError {
    /// The `NAME=TARGET` text is malformed.
    #[error("`{spec}`: {reason}")]
    Spec {
        /// The text given.
        spec: String,
        /// What is wrong with it.
        reason: &'static str,
    },
    /// The server could not be started or reached.
    #[error("mount `{name}`: cannot start `{target}`: {source}")]
    Start {
        /// The mount's name.
        name: String,
        /// The command or URL.
        target: String,
        /// The cause.
        source: BoxError,
    },
    /// The MCP handshake or `tools/list` failed.
    #[error("mount `{name}`: {what}: {source}")]
    Protocol {
        /// The mount's name.
        name: String,
        /// The step that failed.
        what: &'static str,
        /// The SDK's error.
        source: BoxError,
    },
    /// The server did not answer in time.
    #[error("mount `{name}`: {what}: no answer within {} s", limit.as_secs())]
    Timeout {
        /// The mount's name.
        name: String,
        /// The step that timed out.
        what: &'static str,
        /// How long it was given.
        limit: std::time::Duration,
    },
    /// The scopes required of the mount's callers break the scope rule (RFC 6749
    /// scope-tokens, each once, at least one).
    #[error("mount `{name}`: {}", Listed(.problems))]
    Scopes {
        /// The mount's name.
        name: String,
        /// Every problem, in list order.
        problems: Vec<ScopeListProblem>,
    },
    /// A mounted tool's name clashes with a tool already in the registry.
    #[error("mount `{name}`: {source}")]
    Clash {
        /// The mount's name.
        name: String,
        /// The clash.
        source: Box<RegistryError>,
    },
}

impl FromStr for MountSpec {
    type Err = MountError;

    fn from_str(spec: &str) -> Result<Self, MountError> {
        let fail = |reason| MountError::Spec {
            spec: spec.to_owned(),
            reason,
        };
        let (head, target) = spec
            .split_once('=')
            .ok_or_else(|| fail("expected NAME=COMMAND or NAME=URL"))?;
        // `NAME[SCOPE ...]`: scopes separated by spaces or commas, up to the `]` before `=`.
        let (name, scopes) = match head.split_once('[') {
            None => (head, None),
            Some((name, rest)) => match rest.strip_suffix(']') {
                Some(list) => (name, Some(list)),
                None => {
                    return Err(fail(
                        "the scopes end with `]` right before `=`: NAME[SCOPE ...]=TARGET",
                    ));
                }
            },
        };
        let valid_name = !name.is_empty()
            && name.len() <= 32
            && name.starts_with(|c: char| c.is_ascii_lowercase())
            && name
                .chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_');
        if !valid_name {
            return Err(fail(
                "the name must be 1 to 32 lowercase letters, digits and `_`, starting with a letter",
            ));
        }
        let target = target.trim();
        if target.is_empty() {
            return Err(fail("nothing after `=`: give a command or an http(s) URL"));
        }
        let target = if target.starts_with("http://") || target.starts_with("https://") {
            MountTarget::Url(target.to_owned())
        } else {
            MountTarget::Command(target.to_owned())
        };
        let spec = Self {
            name: name.to_owned(),
            target,
            scopes: Vec::new(),
        };
        match scopes {
            None => Ok(spec),
            Some(list) => spec.scopes(list.split([' ', ',']).filter(|s| !s.is_empty())),
        }
    }
}

impl fmt::Display for MountTarget {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Command(c) | Self::Url(c) => f.write_str(c),
        }
    }
}
