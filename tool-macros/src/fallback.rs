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

/// The function (with `#[arg]`/`#[ctx]`/`#[input]` already removed), plus the errors. The
/// domain is still named, so the import that brings it in is not reported unused on top of
/// the real error (and, once that is fixed, missed).
pub fn with_errors(
    item: &syn::ItemFn,
    domain: Option<&syn::Path>,
    errors: syn::Error,
) -> TokenStream {
    let mut out = item.to_token_stream();
    if let Some(domain) = domain {
        // Named, so that it is also valid inside an `impl` (where a method's `#[tool]` is
        // reported), and no second error appears there.
        let name = quote::format_ident!("__TOOL_DOMAIN_{}", item.sig.ident);
        out.extend(quote! {
            #[doc(hidden)]
            #[allow(dead_code, non_upper_case_globals)]
            const #name: ::core::marker::PhantomData<#domain> = ::core::marker::PhantomData;
        });
    }
    out.extend(errors.to_compile_error());
    out
}
