//! What a person answers when a call is held for their yes ([`Decision`]), and what an
//! approval covers beyond that call ([`Remember`]): words only, so the context, the approvers
//! and the audit record all stand above it.

/// A person's answer, or why there is none.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Decision {
    /// Run the call; `remember` says whether this answer stands for other calls too.
    Approved {
        /// What the answer covers beyond this call (never more than the person chose).
        remember: Remember,
    },
    /// Do not run it, with the person's reason when they gave one.
    Denied {
        /// Why, in the person's words.
        reason: Option<String>,
    },
    /// No one could be asked (no approver, a client that cannot be asked, a closed page): the
    /// call is not run.
    Unavailable {
        /// Why no one could be asked.
        why: String,
    },
    /// The question went out with the call's own answer (MCP 2026-07-28: an
    /// `InputRequiredResult`); the call is made again with the person's answer, and asked
    /// again then. The call is not run now.
    Asked {
        /// What happens next, for the caller.
        why: String,
    },
}

impl Decision {
    /// Approved for this call alone.
    pub fn approved() -> Self {
        Self::Approved {
            remember: Remember::No,
        }
    }

    /// Denied, with the person's reason if any.
    pub fn denied(reason: impl Into<Option<String>>) -> Self {
        Self::Denied {
            reason: reason.into(),
        }
    }

    /// The word the audit record keeps: `approved`, `denied`, `unavailable`, `asked`.
    pub fn as_str(&self) -> &'static str {
        match self {
            Self::Approved { .. } => "approved",
            Self::Denied { .. } => "denied",
            Self::Unavailable { .. } => "unavailable",
            Self::Asked { .. } => "asked",
        }
    }
}

/// What an approval covers beyond the call it answers. Never a default: the person chooses it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum Remember {
    /// This call alone.
    #[default]
    No,
    /// Calls of the same tool with the same arguments, by the same caller.
    SameArguments,
    /// Every call of the same tool by the same caller, whatever its arguments.
    AnyArguments,
}
