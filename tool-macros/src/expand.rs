//! The code a valid `#[tool]` becomes: the function as written, plus, inside `const _: () = {}`,
//! an input struct, two schema functions, a handler that decodes and calls, and the definition
//! submitted to `inventory`. Everything heavy is a call into `tool_core::__private`.

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;

use crate::ast::{Output, ParamKind, ToolFn};
use crate::attr::{self, ToolAttrs};
use crate::ctxt::Ctxt;
use crate::fallback;
use crate::valid::{self, Resolved};

/// Entry point, on `proc_macro2` streams so unit tests can call it.
pub fn tool(args: TokenStream, item: TokenStream) -> TokenStream {
    let mut cx = Ctxt::default();
    let attrs = attr::parse_tool_attrs(&mut cx, args);
    let item: syn::ItemFn = match syn::parse2(item.clone()) {
        Ok(item) => item,
        Err(_) => {
            let message = "#[tool] goes on a free function (`fn` or `async fn`)";
            match syn::parse2::<syn::Item>(item.clone()) {
                Ok(other) => match item_name(&other) {
                    Some(ident) => cx.error_spanned_by(ident, message),
                    None => cx.error_spanned_by(&other, message),
                },
                Err(_) => cx.error_at(Span::call_site(), message),
            }
            return fallback::emit(item, cx);
        }
    };
    let f = ToolFn::from_item(&mut cx, item);
    let resolved = valid::check(&mut cx, &attrs, &f);
    match cx.check() {
        Ok(()) => expand(&attrs, &f, &resolved),
        Err(errors) => fallback::with_errors(&f.item, errors),
    }
}

/// The name of an item, for pointing at it.
fn item_name(item: &syn::Item) -> Option<&syn::Ident> {
    match item {
        syn::Item::Struct(i) => Some(&i.ident),
        syn::Item::Enum(i) => Some(&i.ident),
        syn::Item::Union(i) => Some(&i.ident),
        syn::Item::Trait(i) => Some(&i.ident),
        syn::Item::Type(i) => Some(&i.ident),
        syn::Item::Const(i) => Some(&i.ident),
        syn::Item::Static(i) => Some(&i.ident),
        syn::Item::Mod(i) => Some(&i.ident),
        _ => None,
    }
}

fn expand(attrs: &ToolAttrs, f: &ToolFn, r: &Resolved) -> TokenStream {
    let item = &f.item;
    let fn_name = &item.sig.ident;
    let p = quote!(::tool_core::__private);

    // Each parameter: how it is checked, described, decoded and passed.
    let mut consts = Vec::new();
    let mut schema_fields = Vec::new();
    let mut keys = Vec::new();
    let mut takes = Vec::new();
    let mut taken = Vec::new();
    let mut fasts = Vec::new();
    let mut slots = Vec::new();
    let mut extract = Vec::new();
    let mut call_args = Vec::new();
    let mut whole = None;
    for (i, param) in f.params.iter().enumerate() {
        match &param.kind {
            ParamKind::Field(field) => {
                let ty = &field.ty;
                let key = field.key();
                let info = format_ident!("__P{}", i);
                let var = format_ident!("__a{}", i);
                consts.push(quote_spanned! {ty.span()=>
                    const #info: #p::Param<#ty> = #p::param::<#ty>();
                });
                let description = match &field.args.description {
                    Some(d) => quote!(::core::option::Option::Some(#d)),
                    None => quote!(::core::option::Option::None),
                };
                let (missing, default_json) = match &field.args.default {
                    Some(expr) => {
                        let default_fn = format_ident!("__default_{}", i);
                        let value = match expr {
                            syn::Expr::Lit(syn::ExprLit {
                                lit: syn::Lit::Str(_),
                                ..
                            }) => {
                                quote_spanned!(expr.span()=> ::core::convert::Into::into(#expr))
                            }
                            _ => quote!(#expr),
                        };
                        consts.push(quote_spanned! {expr.span()=>
                            fn #default_fn() -> #ty { #value }
                        });
                        (
                            quote!(#p::Missing::Default(#default_fn)),
                            quote!(#p::default_json(#default_fn)),
                        )
                    }
                    None if field.optional => (
                        quote!(#p::Missing::Null),
                        quote!(::core::option::Option::None),
                    ),
                    None => (
                        quote!(#p::Missing::Required),
                        quote!(::core::option::Option::None),
                    ),
                };
                let required = field.is_required();
                schema_fields.push(quote! {
                    __s.field(#key, #info.schema, #description, #required, #default_json);
                });
                takes.push(quote! { let #var = __in.take(#key, #info.decode, #missing); });
                let slot = format_ident!("__v{}", i);
                fasts.push(quote!(#p::decode_borrowed(#slot, #info.borrowed, #missing)));
                slots.push(slot);
                taken.push(var.clone());
                keys.push(key);
                call_args.push(quote!(#var));
            }
            ParamKind::Whole { ty } => {
                consts.push(quote_spanned! {ty.span()=>
                    const __W: #p::Whole<#ty> = #p::whole::<#ty>();
                });
                whole = Some(ty);
                call_args.push(quote!(::tool_core::Input(__whole)));
            }
            // A sync tool's call borrows the handler's context; an async tool's future owns a
            // clone of it (below).
            ParamKind::ContextRef => call_args.push(match item.sig.asyncness {
                Some(_) => quote!(&__ctx),
                None => quote!(__ctx),
            }),
            ParamKind::Extractor { ty } => {
                let var = format_ident!("__x{}", i);
                let extract_fn = quote_spanned!(ty.span()=> ::tool_core::__private::extract::<#ty>);
                extract.push(quote! {
                    let #var = match #extract_fn(__ctx) {
                        ::core::result::Result::Ok(v) => v,
                        ::core::result::Result::Err(e) => return #p::fail(e),
                    };
                });
                call_args.push(quote!(#var));
            }
        }
    }

    // Schema and decoding: the whole input as one type, or an object of the plain parameters.
    let (input_schema, decode) = if whole.is_some() {
        (
            quote!(__W.schema),
            quote! {
                let __whole = match (__W.decode)(__input) {
                    ::core::result::Result::Ok(v) => v,
                    ::core::result::Result::Err(e) => return #p::fail(e),
                };
            },
        )
    } else {
        let unwrap = (!taken.is_empty()).then(|| {
            quote! {
                let (#(::core::option::Option::Some(#taken),)*) = (#(#taken,)*) else {
                    return #p::fail(#p::input_bug());
                };
            }
        });
        // `Fields` reports every problem with its path; it runs only when the input is not
        // the common case (known keys whose values decode), found first without taking it.
        let slow = quote! {
            let mut __in = match #p::Fields::new(__input, &[#(#keys),*]) {
                ::core::result::Result::Ok(fields) => fields,
                ::core::result::Result::Err(e) => return #p::fail(e),
            };
            #(#takes)*
            if let ::core::result::Result::Err(e) = __in.finish() {
                return #p::fail(e);
            }
            #unwrap
        };
        let decode = if taken.is_empty() {
            slow
        } else {
            quote! {
                let (#(#taken,)*) = 'decoded: {
                    if let ::core::option::Option::Some([#(#slots,)*]) =
                        #p::known_keys(&__input, &[#(#keys),*])
                    {
                        if let (#(::core::option::Option::Some(#taken),)*) = (#(#fasts,)*) {
                            break 'decoded (#(#taken,)*);
                        }
                    }
                    #slow
                    (#(#taken,)*)
                };
            }
        };
        (quote!(__input_schema), decode)
    };
    let schema_fn = whole.is_none().then(|| {
        quote! {
            fn __input_schema() -> #p::schemars::Schema {
                let mut __s = #p::ObjectSchema::new();
                #(#schema_fields)*
                __s.finish()
            }
        }
    });

    // The call, and how its return value becomes a result; errors point at the return type.
    let awaited = item.sig.asyncness.map(|_| quote!(.await));
    let call = quote!(#fn_name(#(#call_args),*) #awaited);
    // Return values are finished through autoref dispatch, so a `Result` behind any alias is
    // still a `Result`; the one check on the user's type is the spanned assertion.
    let (check, output_ty) = match &f.output {
        Output::Unit => (None, None),
        Output::Plain(ty) => (
            Some(quote_spanned!(ty.span()=> ::tool_core::__private::assert_output::<#ty>();)),
            Some(ty),
        ),
        Output::Result { ty, .. } => (
            Some(quote_spanned!(ty.span()=> ::tool_core::__private::assert_result::<#ty>();)),
            Some(ty),
        ),
    };
    let finish = match output_ty {
        None => quote!(#p::finish_unit(#call)),
        Some(_) => quote! {{
            #[allow(unused_imports)]
            use #p::{FinishAsResult as _, FinishAsValue as _, FinishUnchecked as _};
            (&&&#p::Ret::new(#call)).finish()
        }},
    };
    let output_schema = match output_ty {
        Some(ty) => quote! {
            #[allow(unused_imports)]
            use #p::{OutputOfResult as _, OutputUntyped as _, OutputWithSchema as _, OutputWithoutSchema as _};
            (&&&&#p::Probe::<#ty>::NEW).output_schema()
        },
        None => quote!(::core::option::Option::None),
    };
    // A sync tool runs as its call starts: its result needs no boxed future. An async tool that
    // reads the context owns a clone of it in its future. A future that is not Send is reported
    // at the function's name.
    let future = match item.sig.asyncness {
        Some(_) => {
            let reads_ctx = f
                .params
                .iter()
                .any(|param| matches!(param.kind, ParamKind::ContextRef));
            let own_ctx =
                reads_ctx.then(|| quote!(let __ctx = ::core::clone::Clone::clone(__ctx);));
            quote_spanned! {fn_name.span()=>
                #own_ctx
                ::tool_core::exec::CallFuture::new(async move { #finish })
            }
        }
        None => quote!(::tool_core::exec::CallFuture::ready(#finish)),
    };

    // The definition.
    let domain = attrs
        .domain
        .as_ref()
        .expect("valid::check requires a domain");
    let domain_ref =
        quote_spanned!(domain.span()=> <#domain as ::tool_core::DeclaredDomain>::DOMAIN);
    let name = &r.name;
    let description = &r.description;
    let label = attrs
        .label
        .as_ref()
        .map(syn::LitStr::value)
        .unwrap_or_default();
    let hint = attrs
        .hint
        .as_ref()
        .map(syn::LitStr::value)
        .unwrap_or_default();
    let Resolved {
        core,
        read_only,
        destructive,
        idempotent,
        open_world,
        voiced,
        blocking,
        feeds_back,
        retries,
        ..
    } = *r;
    let timeout = match r.timeout_ms {
        Some(ms) => quote!(::core::option::Option::Some(::core::time::Duration::from_millis(#ms))),
        None => quote!(::core::option::Option::None),
    };
    let source = match &attrs.source {
        Some(s) => quote!(::core::option::Option::Some(#s)),
        None => quote!(::core::option::Option::None),
    };
    let examples = r
        .examples
        .iter()
        .map(|(label, input)| quote!(::tool_core::Example { label: #label, input: #input }));
    let body = match f
        .fields()
        .find(|field| field.args.body.is_some_and(|b| b.value))
    {
        Some(field) => {
            let key = field.key();
            quote!(::core::option::Option::Some(#key))
        }
        None => quote!(::core::option::Option::None),
    };
    let is_async = item.sig.asyncness.is_some();
    let location = quote_spanned! {fn_name.span()=>
        ::tool_core::Location {
            module_path: ::core::module_path!(),
            file: ::core::file!(),
            line: ::core::line!(),
        }
    };

    // The crate's own `cargo test` runs every rule on this definition (`check = false` opts out).
    let check_test = attrs.check.is_none_or(|c| c.value).then(|| {
        let test_fn = format_ident!("__tool_check_{}", fn_name);
        quote! {
            #[cfg(test)]
            #[::core::prelude::v1::test]
            #[doc(hidden)]
            #[allow(non_snake_case)]
            fn #test_fn() {
                ::tool_core::check::assert_tool(#name);
            }
        }
    });

    quote! {
        #item

        #check_test

        #[doc(hidden)]
        const _: () = {
            #(#consts)*

            #schema_fn

            fn __output_schema() -> ::core::option::Option<#p::schemars::Schema> {
                #output_schema
            }

            fn __handler(
                __input: #p::serde_json::Value,
                __ctx: &::tool_core::ToolContext,
            ) -> ::tool_core::exec::CallFuture {
                #check
                #decode
                #(#extract)*
                #future
            }

            #p::inventory::submit! {
                ::tool_core::ToolDef {
                    name: #name,
                    description: #description,
                    domain: #domain_ref,
                    label: #label,
                    hint: #hint,
                    core: #core,
                    annotations: ::tool_core::Annotations {
                        read_only: #read_only,
                        destructive: #destructive,
                        idempotent: #idempotent,
                        open_world: #open_world,
                    },
                    voiced: #voiced,
                    blocking: #blocking,
                    feeds_back: #feeds_back,
                    timeout: #timeout,
                    retries: #retries,
                    source: #source,
                    examples: &[#(#examples),*],
                    body: #body,
                    input_schema: #input_schema,
                    output_schema: __output_schema,
                    handler: __handler,
                    is_async: #is_async,
                    location: #location,
                }
            }
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn valid_input_expands_to_a_definition() {
        let out = tool(
            quote!(domain = time, label = "Reading", hint = "Current time"),
            quote! {
                /// Returns the time.
                async fn get_time(ctx: &ToolContext, #[arg(description = "Zone")] tz: Option<String>) -> String { todo!() }
            },
        )
        .to_string();
        assert!(out.contains("inventory :: submit"), "{out}");
        assert!(out.contains("ObjectSchema"), "{out}");
        assert!(!out.contains("compile_error"), "{out}");
    }

    #[test]
    fn invalid_input_keeps_the_function_and_reports_every_error() {
        let out = tool(
            quote!(labl = "x"),
            quote!(
                fn Time(x: &str) {}
            ),
        )
        .to_string();
        assert!(out.contains("fn Time"), "{out}");
        let errors = out.matches("compile_error").count();
        // unknown key, borrowed parameter, name, missing doc, missing domain/label/hint
        assert_eq!(errors, 7, "{out}");
    }

    proptest::proptest! {
        // Any attribute arguments, well formed or not, end in code or in compile errors.
        #[test]
        fn any_arguments_expand_without_panicking(words in proptest::collection::vec(
            proptest::sample::select(vec![
                "domain", "label", "hint", "core", "name", "examples", "timeout", "retries",
                "read_only", "destructive", "=", ",", "time", "\"x\"", "\"get_x\"", "30s",
                "5h", "11", "true", "(", ")", "=>", "\"{}\"", "\"[1]\"", "::", "crate",
            ]),
            0..16,
        )) {
            let args: TokenStream = match words.join(" ").parse() {
                Ok(tokens) => tokens,
                Err(_) => return Ok(()), // unbalanced parentheses: rustc would not get this far
            };
            let item = quote!(/// Doc.
                fn get_x(a: u8) -> u8 { a });
            let out = tool(args, item).to_string();
            proptest::prop_assert!(out.contains("fn get_x"));
        }
    }

    #[test]
    fn non_functions_are_refused_and_kept() {
        let out = tool(
            quote!(),
            quote!(
                struct S;
            ),
        )
        .to_string();
        assert!(out.contains("struct S"), "{out}");
        assert!(out.contains("goes on a free function"), "{out}");
    }
}
