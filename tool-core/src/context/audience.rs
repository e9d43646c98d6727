//! Who a call is made for ([`Audience`]): what the executor holds a tool's
//! [`Visibility`](crate::definition::Visibility) to, whoever asks.

use crate::definition::Visibility;

/// Who a call is made for. The executor refuses a tool the audience may not see, as an unknown
/// name: a tool for views only is refused to a model (and to a script a model wrote), and one
/// for the model only to a view. Carried on the [`ToolContext`](crate::ToolContext) and
/// inherited by every call made under it (a tool's calls to tools, a script's calls), which
/// may narrow it but never widen it.
///
/// ```
/// use tool_core::context::Audience;
/// use tool_core::definition::Visibility;
/// assert!(Audience::Any.sees(Visibility::App));
/// assert!(!Audience::Model.sees(Visibility::App));
/// assert!(!Audience::View.sees(Visibility::Model));
/// assert_eq!(Audience::Any.narrowed(Audience::Model), Audience::Model);
/// assert_eq!(Audience::Model.narrowed(Audience::Any), Audience::Model);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum Audience {
    /// The application's own code (a test, `toolctl call`), or a client that is both a model's
    /// and its views' (an MCP host that renders views): every tool. The default.
    #[default]
    Any,
    /// A model, or what a model wrote (a script in code mode): the tools offered to models.
    Model,
    /// A view: the tools views may call.
    View,
}

impl Audience {
    /// Whether a tool of `visibility` may be called for this audience.
    pub fn sees(self, visibility: Visibility) -> bool {
        match self {
            Self::Any => true,
            Self::Model => visibility.to_model(),
            Self::View => visibility.to_app(),
        }
    }

    /// This audience narrowed to `to`: `to` when this one is [`Any`](Self::Any), else this
    /// one (a call made for a model stays one whatever it calls through).
    #[must_use]
    pub fn narrowed(self, to: Self) -> Self {
        match self {
            Self::Any => to,
            narrower => narrower,
        }
    }
}
