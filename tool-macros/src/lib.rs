//! The `#[tool]` attribute. Use it through `tool-core`, which re-exports it as `tool_core::tool`:
//! the reference for every key of `#[tool(...)]` and `#[arg(...)]` is there.
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

/// `#[tool]` turns a function into a tool. It is defined in `tool-core-macros` and used through
/// `tool-core`, which re-exports it as `tool_core::tool` (also in `tool_core::prelude`) with the
/// reference for every key; the code it generates names `::tool_core`.
//
// rustdoc appends this text to the docs of the re-export in tool-core, as their last paragraph:
// it has to read well in both places.
#[proc_macro_attribute]
pub fn tool(args: TokenStream, item: TokenStream) -> TokenStream {
    expand::tool(args.into(), item.into()).into()
}
