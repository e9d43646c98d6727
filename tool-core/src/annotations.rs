//! A tool's behaviour hints ([`Annotations`]): plain data that the definition, the context's
//! approval questions and every rendering read, so it sits below all of them.

/// MCP-style behaviour hints. Read-only is the default; a destructive tool is never read-only.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
pub struct Annotations {
    /// The tool does not change its environment.
    pub read_only: bool,
    /// The tool may perform destructive updates (meaningful only when not read-only).
    pub destructive: bool,
    /// Calling the tool again with the same input has no additional effect.
    pub idempotent: bool,
    /// The tool interacts with an open world of external entities (the web, other people).
    pub open_world: bool,
}

impl Default for Annotations {
    fn default() -> Self {
        Self::READ_ONLY
    }
}

impl Annotations {
    /// The default: a read-only, non-destructive, idempotent, closed-world tool.
    pub const READ_ONLY: Self = Self {
        read_only: true,
        destructive: false,
        idempotent: true,
        open_world: false,
    };
}
