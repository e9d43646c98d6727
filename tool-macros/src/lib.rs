//! The `#[tool]`, `#[data]`, `#[resource]` and `#[prompt]` attributes. Use them through
//! `tool-core`, which re-exports them (`tool_core::tool`, ...): the reference for every key is
//! there.
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
mod item;
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

/// `#[data]` derives serde's `Serialize` and `Deserialize` and schemars' `JsonSchema` for a
/// tool's input or output type, through tool-core's copies of both crates. It is defined in
/// `tool-core-macros` and used through `tool-core`, as `tool_core::data`.
//
// rustdoc appends this text to the docs of the re-export in tool-core, as their last paragraph.
#[proc_macro_attribute]
pub fn data(args: TokenStream, item: TokenStream) -> TokenStream {
    expand::data(args.into(), item.into()).into()
}

/// `#[resource]` turns a function into an MCP resource, or a URI template whose variables are
/// its parameters. Defined in `tool-core-macros`, used through `tool-core` as
/// `tool_core::resource`, with the reference for every key.
//
// rustdoc appends this text to the docs of the re-export in tool-core, as their last paragraph.
#[proc_macro_attribute]
pub fn resource(args: TokenStream, item: TokenStream) -> TokenStream {
    item::expand(item::Kind::Resource, args.into(), item.into()).into()
}

/// `#[prompt]` turns a function into an MCP prompt whose arguments are its parameters. Defined
/// in `tool-core-macros`, used through `tool-core` as `tool_core::prompt`, with the reference
/// for every key.
//
// rustdoc appends this text to the docs of the re-export in tool-core, as their last paragraph.
#[proc_macro_attribute]
pub fn prompt(args: TokenStream, item: TokenStream) -> TokenStream {
    item::expand(item::Kind::Prompt, args.into(), item.into()).into()
}
