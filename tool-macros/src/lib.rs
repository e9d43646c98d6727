//! The `#[tool]` attribute. Use it through `tool_core`, which re-exports it and documents it.
//!
//! Phases live in separate files: `attr` parses the attribute's arguments, `ast` builds the typed
//! model of the function, `valid` checks meaning, `expand` writes the code and `fallback` writes
//! what is emitted when there are errors. Every error is collected, and all are reported at once.

#![warn(missing_docs)]

mod ast;
mod attr;
mod ctxt;
mod expand;
mod fallback;
mod valid;

use proc_macro::TokenStream;

/// Turns a function into a tool; see `tool_core` for the attribute's keys.
#[proc_macro_attribute]
pub fn tool(args: TokenStream, item: TokenStream) -> TokenStream {
    expand::tool(args.into(), item.into()).into()
}
