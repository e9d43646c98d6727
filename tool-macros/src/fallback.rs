//! What is emitted when a `#[tool]` has errors: the user's function as written (less this
//! macro's own parameter attributes) plus one `compile_error!` per problem, so the IDE and the
//! rest of the crate keep working and every error shows at once.

use proc_macro2::TokenStream;
use quote::{ToTokens, quote};

use crate::ctxt::Ctxt;

/// The item unchanged, plus the errors collected so far.
pub fn emit(item: TokenStream, cx: Ctxt) -> TokenStream {
    let errors = cx.check().err().map(|e| e.to_compile_error());
    quote!(#item #errors)
}

/// The function (with `#[arg]`/`#[ctx]` already removed), plus the errors.
pub fn with_errors(item: &syn::ItemFn, errors: syn::Error) -> TokenStream {
    let mut out = item.to_token_stream();
    out.extend(errors.to_compile_error());
    out
}
