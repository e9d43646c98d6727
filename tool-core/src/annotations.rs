//! A tool's behaviour hints ([`Annotations`]): plain data that the definition, the context's
//! approval questions and every rendering read, so it sits below all of them.

/// MCP-style behaviour hints. Read-only is the default; a destructive tool is never read-only.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
#[non_exhaustive]
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

/// Builders: set one field each, the others kept (the struct is `#[non_exhaustive]`, so a
/// literal cannot be written outside this crate).
impl Annotations {
    /// Sets `read_only`: the tool does not change its environment.
    #[must_use]
    pub const fn read_only(mut self, read_only: bool) -> Self {
        self.read_only = read_only;
        self
    }

    /// Sets `destructive`: the tool may perform destructive updates (meaningful only when not read-only).
    #[must_use]
    pub const fn destructive(mut self, destructive: bool) -> Self {
        self.destructive = destructive;
        self
    }

    /// Sets `idempotent`: calling the tool again with the same input has no additional effect.
    #[must_use]
    pub const fn idempotent(mut self, idempotent: bool) -> Self {
        self.idempotent = idempotent;
        self
    }

    /// Sets `open_world`: the tool interacts with an open world of external entities (the web, other people).
    #[must_use]
    pub const fn open_world(mut self, open_world: bool) -> Self {
        self.open_world = open_world;
        self
    }
}

impl Default for Annotations {
    fn default() -> Self {
        Self::READ_ONLY
    }
}

impl Annotations {
    /// What MCP assumes of a tool that says nothing of itself, and what the application
    /// assumes of a tool whose annotations it does not vouch for (a remote server's, a
    /// definitions file's): it writes, may destroy, is not idempotent and reaches the world.
    pub const UNTRUSTED: Self = Self {
        read_only: false,
        destructive: true,
        idempotent: false,
        open_world: true,
    };

    /// The default: a read-only, non-destructive, idempotent, closed-world tool.
    pub const READ_ONLY: Self = Self {
        read_only: true,
        destructive: false,
        idempotent: true,
        open_world: false,
    };
}
