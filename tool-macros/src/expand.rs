//! The code a valid `#[tool]` becomes: the function as written, plus, inside `const _: () = {}`,
//! an input struct, two schema functions, a handler that decodes and calls, and the definition
//! submitted to `inventory`. Everything heavy is a call into `tool_core::__private`.

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;

use crate::ast::{Output, ParamKind, ToolFn};
use crate::attr::{self, DataAttrs, TaskMode, ToolAttrs};
use crate::ctxt::Ctxt;
use crate::fallback;
use crate::valid::{self, DataWays, Description, Resolved, View};

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
        Err(errors) => fallback::with_errors(&f.item, attrs.domain.as_ref(), errors),
    }
}

/// Entry point of `#[data]`, on `proc_macro2` streams so unit tests can call it.
pub fn data(args: TokenStream, item: TokenStream) -> TokenStream {
    let mut cx = Ctxt::default();
    let attrs = attr::parse_data_attrs(&mut cx, args);
    let ways = valid::check_data(&mut cx, &attrs);
    let Some(input) = crate::ast::data_item(&mut cx, &item) else {
        return fallback::emit(item, cx);
    };
    // With a bad key the derives are still written, so the type's `#[serde]` attributes and its
    // uses in tools raise no errors of their own: only the one on the key shows.
    let out = data_derives(&attrs, ways, &input);
    fallback::emit(out, cx)
}

/// The type with serde's and schemars' derives, through tool-core's copies of both crates: the
/// paths the derives write point there (`crate = ...`), so the user's crate needs neither.
fn data_derives(attrs: &DataAttrs, ways: DataWays, input: &syn::DeriveInput) -> TokenStream {
    let krate = krate_path(attrs.krate.as_ref());
    let serde = quote!(#krate::__private::serde);
    let schemars = quote!(#krate::__private::schemars);
    let mut derives = Vec::new();
    if ways.serialize {
        derives.push(quote!(#serde::Serialize));
    }
    if ways.deserialize {
        derives.push(quote!(#serde::Deserialize));
    }
    derives.push(quote!(#schemars::JsonSchema));
    let serde_path = serde.to_string().replace(' ', "");
    let schemars_path = schemars.to_string().replace(' ', "");
    quote! {
        #[derive(#(#derives),*)]
        #[serde(crate = #serde_path)]
        #[schemars(crate = #schemars_path)]
        #input
    }
}

/// Where the expansion reaches tool-core: the `crate = ...` of `#[tool]` or `#[data]`, else
/// `::tool_core`.
fn krate_path(krate: Option<&syn::Path>) -> TokenStream {
    match krate {
        Some(path) => quote!(#path),
        None => quote!(::tool_core),
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
    // Where tool-core is: `::tool_core`, or the path `crate = "..."` gives (a framework that
    // re-exports it).
    let krate = krate_path(attrs.krate.as_ref());
    let p = quote!(#krate::__private);

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
                let optional = quote_spanned! {ty.span()=> {
                    #[allow(unused_imports)]
                    use #p::{OptionalParam as _, RequiredParam as _};
                    (&&#p::Probe::<#ty>::NEW).optional()
                }};
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
                        let at_default = respan(p.clone(), expr.span());
                        (quote!(#p::Missing::Default(#default_fn)), {
                            let default_fn = syn::Ident::new(&default_fn.to_string(), expr.span());
                            quote_spanned!(expr.span()=> #at_default::default_json(#default_fn))
                        })
                    }
                    // `Option<T>` may be left out; found by its type, not its name.
                    None => (
                        quote!(#p::missing::<#ty>(#optional)),
                        quote!(::core::option::Option::None),
                    ),
                };
                let required = match &field.args.default {
                    Some(_) => quote!(false),
                    None => quote!(!#optional),
                };
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
                consts.push(quote! {
                    static __KEYS: #p::InputKeys = #p::InputKeys::new();
                });
                whole = Some(ty);
                call_args.push(quote!(__whole));
            }
            // A sync tool's call borrows the handler's context; an async tool's future owns a
            // clone of it (below).
            ParamKind::ContextRef => call_args.push(match item.sig.asyncness {
                Some(_) => quote!(&__ctx),
                None => quote!(__ctx),
            }),
            ParamKind::Extractor { ty } => {
                let var = format_ident!("__x{}", i);
                let extract_fn = quote_spanned!(ty.span()=> #krate::__private::extract::<#ty>);
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
                let __whole = match #p::decode_whole(__input, &__KEYS, &__W) {
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
    // What the return type is made of (a `Result` under any name, or an output) is found by its
    // type: one check, spanned on it, reports a success type that is no output and an error type
    // that does not convert.
    let output_ty = match &f.output {
        Output::Unit => None,
        Output::Typed(ty) => Some(ty),
    };
    let check = output_ty.map(|ty| {
        let p = respan(p.clone(), ty.span());
        quote_spanned! {ty.span()=>
            #[allow(unused_imports)]
            use #p::{ReturnsResult as _, ReturnsValue as _};
            #p::assert_return((&&#p::Probe::<#ty>::NEW).parts());
        }
    });
    let finish = match output_ty {
        None => quote!(#p::finish_unit(#call)),
        Some(_) => quote! {{
            #[allow(unused_imports)]
            use #p::{FinishAsResult as _, FinishAsValue as _, FinishUnchecked as _};
            (&&&#p::Ret::new(#call)).finish()
        }},
    };
    // `mirror = false` needs the output schema a client reads instead of the text: the probe
    // that finds the schema says whether there is one, and the check is spanned on `false`.
    let mirror_check = match (output_ty, attrs.mirror.filter(|m| !m.value)) {
        (Some(ty), Some(flag)) => {
            let at = respan(p.clone(), flag.span);
            quote_spanned! {flag.span=>
                #at::mirror_off((&&&&#p::Probe::<#ty>::NEW).schema_found());
            }
        }
        _ => quote!(),
    };
    let output_schema = match output_ty {
        Some(ty) => quote! {
            #[allow(unused_imports)]
            use #p::{OutputOfResult as _, OutputUntyped as _, OutputWithSchema as _, OutputWithoutSchema as _};
            #mirror_check
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
            // On the function's name, where rustc then reports a future that is not `Send`.
            let krate = respan(krate.clone(), fn_name.span());
            quote_spanned! {fn_name.span()=>
                #own_ctx
                #krate::exec::CallFuture::new(async move { #finish })
            }
        }
        None => quote!(#krate::exec::CallFuture::ready(#finish)),
    };

    let const_name = format_ident!("__TOOL_{}", fn_name);

    // The definition.
    let domain = attrs
        .domain
        .as_ref()
        .expect("valid::check requires a domain");
    let domain_ref =
        quote_spanned!(domain.span()=> <#domain as #krate::definition::DeclaredDomain>::DOMAIN);
    let name = &r.name;
    let (description, raw_description) = match &r.description {
        Description::Text(text) => (quote!(#text), false),
        Description::Raw(parts) => {
            let mut lines = parts.iter().map(|part| quote!(#part));
            let first = lines.next();
            let joined = quote!(::core::concat!(#first #(, "\n", #lines)*));
            consts.push(quote_spanned! {fn_name.span()=>
                const _: () = ::core::assert!(
                    !#p::is_blank(#joined),
                    "a tool needs a doc comment: it is the description the model reads; this \
                     one is blank"
                );
            });
            (joined, true)
        }
    };
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
        task,
        feeds_back,
        mirror,
        retries,
        ..
    } = *r;
    let task = match task {
        TaskMode::Forbidden => quote!(#krate::definition::TaskSupport::Forbidden),
        TaskMode::Optional => quote!(#krate::definition::TaskSupport::Optional),
        TaskMode::Required => quote!(#krate::definition::TaskSupport::Required),
    };
    let task_after = match r.task_after_ms {
        Some(ms) => quote!(::core::option::Option::Some(::core::time::Duration::from_millis(#ms))),
        None => quote!(::core::option::Option::None),
    };
    let timeout = match r.timeout_ms {
        Some(ms) => quote!(::core::option::Option::Some(::core::time::Duration::from_millis(#ms))),
        None => quote!(::core::option::Option::None),
    };
    let scopes = &r.scopes;
    let approval = match &r.approval {
        None => quote!(::core::option::Option::None),
        Some(message) => {
            let message = match message {
                Some(m) => quote!(::core::option::Option::Some(#m)),
                None => quote!(::core::option::Option::None),
            };
            quote!(::core::option::Option::Some(#krate::__private::ApprovalDef { message: #message }))
        }
    };
    let source = match &attrs.source {
        Some(s) => quote!(::core::option::Option::Some(#s)),
        None => quote!(::core::option::Option::None),
    };
    let view = match &r.view {
        View::None => quote!(#krate::__private::ViewDef::None),
        View::Card => quote!(#krate::__private::ViewDef::Card),
        View::File(path) => {
            // Read at compile time, and read again when the file changes.
            let include = respan(
                quote!(::core::include_str!(
                    ::core::concat!(::core::env!("CARGO_MANIFEST_DIR"), "/", #path)
                )),
                path.span(),
            );
            quote!(#krate::__private::ViewDef::Html(#include))
        }
    };
    let visibility = match r.visibility {
        "model" => quote!(#krate::definition::Visibility::Model),
        "app" => quote!(#krate::definition::Visibility::App),
        _ => quote!(#krate::definition::Visibility::Both),
    };
    let icons = r.icons.iter().map(|icon| {
        let src = &icon.src;
        let option = |value: &Option<String>| match value {
            Some(v) => quote!(::core::option::Option::Some(#v)),
            None => quote!(::core::option::Option::None),
        };
        let mime_type = option(&icon.mime_type);
        let theme = option(&icon.theme);
        let sizes = &icon.sizes;
        quote! {
            #krate::__private::Icon { src: #src, mime_type: #mime_type, sizes: &[#(#sizes),*], theme: #theme }
        }
    });
    let examples = r
        .examples
        .iter()
        .map(|(label, input)| quote!(#krate::__private::Example { label: #label, input: #input }));
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
        #krate::__private::Location {
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
                #krate::__private::assert_tool(#name);
            }
        }
    });

    quote! {
        #item

        #check_test

        // Named (not `const _`), so that inside an `impl`, where a tool cannot go, the one error
        // is rustc's on the function's name (cannot find it in this scope), not one about an
        // unnamed const.
        #[doc(hidden)]
        #[allow(non_upper_case_globals)]
        const #const_name: () = {
            #(#consts)*

            #schema_fn

            fn __output_schema() -> ::core::option::Option<#p::schemars::Schema> {
                #output_schema
            }

            fn __handler(
                __input: #p::serde_json::Value,
                __ctx: &#krate::ToolContext,
            ) -> #krate::exec::CallFuture {
                #check
                #decode
                #(#extract)*
                // Checked and not run: a person is asked about the call first.
                if #p::validating(__ctx) {
                    return #p::validated();
                }
                #future
            }

            #p::inventory::submit! {
                #krate::__private::ToolDef {
                    name: #name,
                    description: #description,
                    raw_description: #raw_description,
                    domain: #domain_ref,
                    label: #label,
                    hint: #hint,
                    core: #core,
                    annotations: #krate::__private::annotations(
                        #read_only,
                        #destructive,
                        #idempotent,
                        #open_world,
                    ),
                    voiced: #voiced,
                    blocking: #blocking,
                    task: #task,
                    task_after: #task_after,
                    approval: #approval,
                    feeds_back: #feeds_back,
                    mirror: #mirror,
                    timeout: #timeout,
                    retries: #retries,
                    scopes: &[#(#scopes),*],
                    source: #source,
                    view: #view,
                    visibility: #visibility,
                    icons: &[#(#icons),*],
                    examples: &[#(#examples),*],
                    body: #body,
                    input_schema: #input_schema,
                    output_schema: __output_schema,
                    handler: #krate::__private::Sealed::new(__handler),
                    is_async: #is_async,
                    location: #location,
                }
            }
        };
    }
}

/// `tokens` with every span set to `span`, so an error about them points there.
pub(crate) fn respan(tokens: TokenStream, span: Span) -> TokenStream {
    tokens
        .into_iter()
        .map(|mut tree| {
            if let proc_macro2::TokenTree::Group(g) = &tree {
                let mut group = proc_macro2::Group::new(g.delimiter(), respan(g.stream(), span));
                group.set_span(span);
                tree = proc_macro2::TokenTree::Group(group);
            } else {
                tree.set_span(span);
            }
            tree
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use syn::punctuated::Punctuated;

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
    fn a_crate_path_replaces_tool_core_everywhere() {
        let out = tool(
            quote!(crate = "my_framework::tools", domain = time, label = "Reading", hint = "Time"),
            quote! {
                /// Returns the time.
                async fn get_time(ctx: &ToolContext, #[arg(default = "UTC")] tz: String) -> String { todo!() }
            },
        )
        .to_string();
        assert!(!out.contains("compile_error"), "{out}");
        assert!(out.contains("my_framework :: tools :: __private"), "{out}");
        assert!(!out.contains("tool_core"), "{out}");
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
        // unknown key (taken for `label`, so `label` is not also reported missing), borrowed
        // parameter, name, missing doc, missing domain and hint
        assert_eq!(errors, 6, "{out}");
        assert!(out.contains("did you mean `label`?"), "{out}");
    }

    proptest::proptest! {
        // Any attribute arguments, well formed or not, end in code or in compile errors.
        #[test]
        fn any_arguments_expand_without_panicking(words in proptest::collection::vec(
            proptest::sample::select(vec![
                "domain", "label", "hint", "core", "name", "examples", "timeout", "retries",
                "read_only", "destructive", "=", ",", "time", "\"x\"", "\"get_x\"", "30s",
                "5h", "11", "true", "(", ")", "=>", "\"{}\"", "\"[1]\"", "::", "crate",
                "scopes", "\"a b\"", "\"repo\"", "icon", "src", "sizes", "theme",
                "mime_type", "mirror", "false", "\"https://example.com/a.png\"", "\"48x48\"",
                "\"dark\"", "\"image/png\"", "task",
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

    proptest::proptest! {
        /// Whatever strings `scopes(...)` is given, the macro refuses exactly what the shared
        /// rule refuses (which is what tool-core refuses in a definitions file), with one error
        /// per problem; a good list is submitted as written.
        #[test]
        fn scopes_are_held_to_the_shared_rule(scopes in proptest::collection::vec("[ a-c:\"\\\\é\t]{0,3}", 0..5)) {
            let lits = scopes.iter().map(|s| syn::LitStr::new(s, Span::call_site()));
            let out = tool(
                quote!(domain = time, label = "Reading", hint = "Time", scopes(#(#lits),*)),
                quote!(/// Doc.
                    fn get_x() -> u8 { 1 }),
            )
            .to_string();
            let problems = tool_grammar::scope_list_problems(&scopes);
            proptest::prop_assert_eq!(out.matches("compile_error").count(), problems.len(), "{}", out);
            if problems.is_empty() {
                let listed = scopes.iter().map(|s| quote!(#s).to_string()).collect::<Vec<_>>().join(" , ");
                let submitted = format!("scopes : & [{listed}]");
                proptest::prop_assert!(out.contains(&submitted), "{}", out);
            }
        }
    }

    #[test]
    fn icons_the_mirror_and_task_are_submitted() {
        let out = tool(
            quote!(
                domain = time,
                label = "Reading",
                hint = "Time",
                mirror = false,
                task,
                icon = "https://example.com/a.png",
                icon(
                    src = "https://example.com/b.svg",
                    sizes("any"),
                    theme = "dark"
                ),
            ),
            quote!(
                /// Doc.
                fn get_x() -> u8 {
                    1
                }
            ),
        )
        .to_string();
        assert!(!out.contains("compile_error"), "{out}");
        assert!(out.contains("mirror : false"), "{out}");
        assert!(out.contains("mirror_off"), "{out}");
        assert!(
            out.contains("task : :: tool_core :: definition :: TaskSupport :: Optional"),
            "{out}"
        );
        assert!(
            out.contains(r#"src : "https://example.com/a.png" , mime_type : :: core :: option :: Option :: None , sizes : & [] , theme : :: core :: option :: Option :: None"#),
            "{out}"
        );
        assert!(out.contains(r#"sizes : & ["any"]"#), "{out}");
        // The default: the mirror on, no check asked of the compiler, not a task.
        let out = tool(
            quote!(domain = time, label = "Reading", hint = "Time"),
            quote!(
                /// Doc.
                fn get_x() -> u8 {
                    1
                }
            ),
        )
        .to_string();
        assert!(
            out.contains("mirror : true") && !out.contains("mirror_off"),
            "{out}"
        );
        assert!(
            out.contains("task : :: tool_core :: definition :: TaskSupport :: Forbidden"),
            "{out}"
        );
        assert!(out.contains("icons : & []"), "{out}");
    }

    #[test]
    fn icon_values_are_held_to_the_shared_rule_on_the_literal_at_fault() {
        let out = tool(
            quote!(
                domain = time,
                label = "Reading",
                hint = "Time",
                icon(
                    src = "ftp://x",
                    mime_type = "text/html",
                    sizes("48", "any", "big"),
                    theme = "blue"
                ),
                icon(sizes()),
                icon(theme = "dark"),
            ),
            quote!(
                /// Doc.
                fn get_x() -> u8 {
                    1
                }
            ),
        )
        .to_string();
        // src, MIME type, two sizes, theme; then an empty list and its missing src; then the
        // missing src (its theme is good).
        assert_eq!(out.matches("compile_error").count(), 8, "{out}");
        assert!(out.contains("an icon needs its `src`"), "{out}");
    }

    #[test]
    fn a_mirror_turned_off_on_a_tool_that_returns_nothing_is_refused() {
        let out = tool(
            quote!(
                domain = time,
                label = "Reading",
                hint = "Time",
                mirror = false
            ),
            quote!(
                /// Doc.
                fn do_x() {}
            ),
        )
        .to_string();
        assert_eq!(out.matches("compile_error").count(), 1, "{out}");
        assert!(out.contains("this tool returns nothing"), "{out}");
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

    /// The derives `#[data]` writes, as the names in its `#[derive(...)]`.
    fn data_derives_of(args: TokenStream) -> Vec<String> {
        let out = data(
            args,
            quote!(
                #[serde(rename_all = "lowercase")]
                enum E {
                    A,
                }
            ),
        );
        let item: syn::DeriveInput = syn::parse2(out).expect("an item and no error");
        let derive = item
            .attrs
            .iter()
            .find(|a| a.path().is_ident("derive"))
            .expect("a derive");
        let paths = derive
            .parse_args_with(Punctuated::<syn::Path, syn::Token![,]>::parse_terminated)
            .unwrap();
        // The user's own attributes stay, after the macro's.
        let serde_attrs = item.attrs.iter().filter(|a| a.path().is_ident("serde"));
        assert_eq!(serde_attrs.count(), 2, "the crate path and rename_all");
        paths
            .iter()
            .map(|p| quote!(#p).to_string().replace(' ', ""))
            .collect()
    }

    #[test]
    fn data_derives_through_tool_core_each_way() {
        let serde = "::tool_core::__private::serde";
        let schema = "::tool_core::__private::schemars::JsonSchema";
        let both = data_derives_of(quote!());
        assert_eq!(
            both,
            [
                &format!("{serde}::Serialize"),
                &format!("{serde}::Deserialize"),
                schema
            ]
        );
        let input = data_derives_of(quote!(input));
        assert_eq!(input, [&format!("{serde}::Deserialize"), schema]);
        let output = data_derives_of(quote!(output));
        assert_eq!(output, [&format!("{serde}::Serialize"), schema]);
        let elsewhere = data_derives_of(quote!(crate = "my_framework::tool_core"));
        assert_eq!(
            elsewhere[2],
            "my_framework::tool_core::__private::schemars::JsonSchema"
        );
    }

    #[test]
    fn data_with_a_bad_key_still_derives_and_reports_once() {
        let out = data(
            quote!(inptu, output),
            quote!(
                struct S;
            ),
        )
        .to_string();
        assert_eq!(out.matches("compile_error").count(), 1, "{out}");
        assert!(out.contains("did you mean `input`"), "{out}");
        assert!(
            out.contains("Serialize") && out.contains("struct S"),
            "{out}"
        );
    }

    #[test]
    fn data_on_anything_but_a_struct_or_enum_is_refused_and_kept() {
        let out = data(
            quote!(),
            quote!(
                fn f() {}
            ),
        )
        .to_string();
        assert!(out.contains("fn f"), "{out}");
        assert!(out.contains("goes on a struct or an enum"), "{out}");
        assert!(!out.contains("Serialize"), "{out}");
    }
}
