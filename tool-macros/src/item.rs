//! `#[resource]` and `#[prompt]`: a function becomes a resource (or URI template) or a prompt,
//! submitted to `inventory` as `#[tool]` submits tools. Both are small beside `#[tool]` (no
//! schema: a template's variables and a prompt's arguments are strings), so one module parses,
//! checks and writes both; the attribute parsing helpers are `attr`'s.
//!
//! Which parameter is which is never guessed: `&ToolContext` is the context, `#[ctx] T` is
//! taken from it, and every other parameter is a template variable (by name) or a prompt
//! argument, whose type the compiler checks (`String`, or `Option<String>` for an optional
//! argument) with the framework's message.

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{Expr, FnArg, ItemFn, LitStr, Pat, Path, Type};

use crate::ast::{Doc, doc_of, last_ident};
use crate::attr::{self, Keys, ScopesAttr};
use crate::ctxt::Ctxt;
use crate::expand::respan;
use crate::fallback;
use crate::valid::impl_trait_in;

/// The keys `#[resource(...)]` accepts, in the order the docs list them.
pub const RESOURCE_KEYS: &[&str] = &["uri", "name", "title", "mime_type", "scopes", "crate"];

/// The keys `#[prompt(...)]` accepts.
pub const PROMPT_KEYS: &[&str] = &["name", "title", "scopes", "crate"];

/// Which attribute is being expanded.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Resource,
    Prompt,
}

impl Kind {
    fn attribute(self) -> &'static str {
        match self {
            Kind::Resource => "#[resource]",
            Kind::Prompt => "#[prompt]",
        }
    }

    fn noun(self) -> &'static str {
        match self {
            Kind::Resource => "resource",
            Kind::Prompt => "prompt",
        }
    }

    fn keys(self) -> &'static [&'static str] {
        match self {
            Kind::Resource => RESOURCE_KEYS,
            Kind::Prompt => PROMPT_KEYS,
        }
    }

    /// The keys `#[arg(...)]` takes on this item's parameters: a template variable has no
    /// description in MCP, a prompt argument has one.
    fn arg_keys(self) -> &'static [&'static str] {
        match self {
            Kind::Resource => &["rename", "complete"],
            Kind::Prompt => &["description", "rename", "complete"],
        }
    }
}

#[derive(Default)]
struct ItemAttrs {
    uri: Option<LitStr>,
    name: Option<LitStr>,
    title: Option<LitStr>,
    mime_type: Option<LitStr>,
    scopes: Option<ScopesAttr>,
    krate: Option<Path>,
}

/// One parameter of the function.
enum ItemParam {
    /// `&ToolContext`.
    Context,
    /// `#[ctx] name: T`.
    Extractor(Type),
    /// A template variable or a prompt argument, named as the parameter.
    Named(Named),
}

struct Named {
    ident: syn::Ident,
    ty: Type,
    description: Option<LitStr>,
    /// `#[arg(rename = "resourceUri")]`: the name a client uses, when it is no Rust name.
    rename: Option<LitStr>,
    complete: Option<Path>,
}

impl Named {
    fn key(&self) -> String {
        match &self.rename {
            Some(rename) => rename.value(),
            None => syn::ext::IdentExt::unraw(&self.ident).to_string(),
        }
    }
}

/// What `#[arg(...)]` says on one parameter.
#[derive(Default)]
struct ArgAttrs {
    description: Option<LitStr>,
    rename: Option<LitStr>,
    complete: Option<Path>,
}

/// Entry point of both attributes, on `proc_macro2` streams so unit tests can call it.
pub fn expand(kind: Kind, args: TokenStream, item: TokenStream) -> TokenStream {
    let mut cx = Ctxt::default();
    let attrs = parse_attrs(&mut cx, kind, args);
    let mut item: ItemFn = match syn::parse2(item.clone()) {
        Ok(item) => item,
        Err(_) => {
            let message = format!(
                "{} goes on a free function (`fn` or `async fn`)",
                kind.attribute()
            );
            match syn::parse2::<syn::Item>(item.clone()) {
                Ok(other) => cx.error_spanned_by(&other, message),
                Err(_) => cx.error_at(Span::call_site(), message),
            }
            return fallback::emit(item, cx);
        }
    };
    let params = parse_params(&mut cx, kind, &mut item);
    check_signature(&mut cx, kind, &item);
    let description = match doc_of(&item.attrs) {
        Doc::Text(Some(text)) => quote!(#text),
        Doc::Exprs(parts) => quote!(::core::concat!(#(#parts),*)),
        Doc::Text(None) => {
            cx.error_spanned_by(
                &item.sig.ident,
                format!(
                    "a {0} needs a doc comment: it is the description clients show; say what \
                     the {0} holds and when to use it",
                    kind.noun()
                ),
            );
            quote!("")
        }
    };
    let name = check_name(&mut cx, kind, &attrs, &item);
    if kind == Kind::Resource {
        check_uri(&mut cx, &attrs, &params);
    }
    if let Some(mime) = &attrs.mime_type
        && !is_mime_type(&mime.value())
    {
        cx.error_spanned_by(
            mime,
            "`mime_type` is a media type, `type/subtype`: mime_type = \"text/markdown\"",
        );
    }
    if let Some(scopes) = &attrs.scopes {
        for scope in &scopes.scopes {
            let value = scope.value();
            if value.is_empty() || value.chars().any(char::is_whitespace) {
                cx.error_spanned_by(scope, "a scope is one word with no spaces (\"notes:read\")");
            }
        }
    }
    match cx.check() {
        Ok(()) => write(kind, &attrs, &item, &params, &name, &description),
        Err(errors) => {
            let mut out = quote!(#item);
            out.extend(errors.to_compile_error());
            out
        }
    }
}

fn parse_attrs(cx: &mut Ctxt, kind: Kind, args: TokenStream) -> ItemAttrs {
    use syn::parse::Parser as _;
    let mut attrs = ItemAttrs::default();
    let mut seen = Vec::new();
    let mut mentioned = Vec::new();
    let parser = syn::meta::parser(|meta| {
        let keys = Keys {
            valid: kind.keys(),
            repeatable: &[],
            what: kind.attribute(),
        };
        let Some(key) = attr::known_key(cx, &meta, keys, &mut seen, &mut mentioned)? else {
            return Ok(());
        };
        if key == "scopes" {
            attrs.scopes = attr::scopes(cx, &meta)?;
            return Ok(());
        }
        let value: Expr = meta.value()?.parse()?;
        match key {
            "crate" => attrs.krate = attr::krate(cx, &value),
            "uri" => attrs.uri = attr::lit_str(cx, key, &value),
            "name" => attrs.name = attr::lit_str(cx, key, &value),
            "title" => attrs.title = attr::lit_str(cx, key, &value),
            "mime_type" => attrs.mime_type = attr::lit_str(cx, key, &value),
            _ => unreachable!("every key of RESOURCE_KEYS and PROMPT_KEYS is matched"),
        }
        Ok(())
    });
    if let Err(e) = parser.parse2(args) {
        cx.syn_error(e);
    }
    attrs
}

/// Classifies the parameters, removing the attributes this macro owns (`#[arg]`, `#[ctx]`) so
/// the function is emitted as written.
fn parse_params(cx: &mut Ctxt, kind: Kind, item: &mut ItemFn) -> Vec<ItemParam> {
    let mut params = Vec::new();
    for arg in &mut item.sig.inputs {
        let FnArg::Typed(pat_type) = arg else {
            cx.error_spanned_by(
                &*arg,
                format!(
                    "{} goes on free functions, not methods; take shared state as a context \
                     value: `#[ctx] state: State<T>`",
                    kind.attribute()
                ),
            );
            continue;
        };
        let mut arg = ArgAttrs::default();
        let mut arg_attr = None;
        let mut marked_ctx = None;
        pat_type.attrs.retain(|a| {
            if a.path().is_ident("arg") {
                parse_arg(cx, kind, a, &mut arg);
                arg_attr = Some(a.clone());
                false
            } else if a.path().is_ident("ctx") {
                if !matches!(a.meta, syn::Meta::Path(_)) {
                    cx.error_spanned_by(a, "#[ctx] takes no arguments");
                }
                marked_ctx = Some(a.clone());
                false
            } else {
                true
            }
        });
        let ty = (*pat_type.ty).clone();
        let param = if let Type::Reference(r) = &ty {
            if last_ident(&r.elem).as_deref() == Some("ToolContext") && r.mutability.is_none() {
                ItemParam::Context
            } else {
                cx.error_spanned_by(
                    &ty,
                    format!(
                        "{} parameters cannot borrow: take `String` for `&str`; only \
                         `&ToolContext` may be a reference",
                        kind.noun()
                    ),
                );
                continue;
            }
        } else if marked_ctx.is_some() {
            ItemParam::Extractor(ty)
        } else {
            let Pat::Ident(pat_ident) = &*pat_type.pat else {
                cx.error_spanned_by(
                    &pat_type.pat,
                    format!(
                        "a {} parameter needs a plain name: it is the {} it takes",
                        kind.noun(),
                        match kind {
                            Kind::Resource => "URI template variable",
                            Kind::Prompt => "argument",
                        }
                    ),
                );
                continue;
            };
            ItemParam::Named(Named {
                ident: pat_ident.ident.clone(),
                ty,
                description: arg.description.take(),
                rename: arg.rename.take(),
                complete: arg.complete.take(),
            })
        };
        if let (Some(attr), false) = (&arg_attr, matches!(param, ItemParam::Named(_))) {
            cx.error_spanned_by(
                attr,
                "#[arg] goes on the parameters a client gives, not on context values",
            );
        }
        params.push(param);
    }
    params
}

fn parse_arg(cx: &mut Ctxt, kind: Kind, attr: &syn::Attribute, arg: &mut ArgAttrs) {
    let mut seen = Vec::new();
    let mut mentioned = Vec::new();
    let result = attr.parse_nested_meta(|meta| {
        let keys = Keys {
            valid: kind.arg_keys(),
            repeatable: &[],
            what: "#[arg]",
        };
        let Some(key) = attr::known_key(cx, &meta, keys, &mut seen, &mut mentioned)? else {
            return Ok(());
        };
        let value: Expr = meta.value()?.parse()?;
        if key == "description" {
            arg.description = attr::lit_str(cx, key, &value);
        } else if key == "rename" {
            arg.rename = attr::lit_str(cx, key, &value);
        } else {
            match value {
                Expr::Path(p) if p.qself.is_none() => arg.complete = Some(p.path),
                other => cx.error_spanned_by(
                    other,
                    "`complete` names a function `fn(&str) -> Vec<String>` that lists the \
                     values starting with what was typed: complete = city_names",
                ),
            }
        }
        Ok(())
    });
    if let Err(e) = result {
        cx.syn_error(e);
    }
}

fn check_signature(cx: &mut Ctxt, kind: Kind, item: &ItemFn) {
    let sig = &item.sig;
    let noun = kind.noun();
    if !sig.generics.params.is_empty() || sig.generics.where_clause.is_some() {
        cx.error_spanned_by(
            &sig.generics,
            format!("a {noun} cannot be generic; use concrete types"),
        );
    }
    if let syn::Safety::Unsafe(unsafety) = &sig.safety {
        cx.error_spanned_by(unsafety, format!("a {noun} cannot be an unsafe fn"));
    }
    if let Some(abi) = &sig.abi {
        cx.error_spanned_by(
            abi,
            format!("a {noun} is a Rust function; remove the extern ABI"),
        );
    }
    if let Some(variadic) = &sig.variadic {
        cx.error_spanned_by(variadic, format!("a {noun} cannot be variadic"));
    }
    for arg in &sig.inputs {
        if let FnArg::Typed(pt) = arg
            && let Some(t) = impl_trait_in(&pt.ty)
        {
            cx.error_spanned_by(
                t,
                format!("`impl Trait` parameters make a {noun} generic; use a concrete type"),
            );
        }
    }
    match &sig.output {
        syn::ReturnType::Default => cx.error_spanned_by(
            &sig.ident,
            match kind {
                Kind::Resource => {
                    "a resource returns its contents: `-> String`, `-> Blob`, \
                                   `-> serde_json::Value`, or a Result of one"
                }
                Kind::Prompt => {
                    "a prompt returns its messages: `-> String`, \
                                 `-> Vec<PromptMessage>`, or a Result of one"
                }
            },
        ),
        syn::ReturnType::Type(_, ty) => {
            if let Some(t) = impl_trait_in(ty) {
                cx.error_spanned_by(
                    t,
                    format!("a {noun} returns a concrete type; replace `impl Trait`"),
                );
            }
        }
    }
}

/// The name: `name = ...`, or the function's. A prompt's is a snake_case identifier (one word
/// allowed: it is a command people pick); a resource's is any text.
fn check_name(cx: &mut Ctxt, kind: Kind, attrs: &ItemAttrs, item: &ItemFn) -> String {
    let (name, span) = match &attrs.name {
        Some(lit) => (lit.value(), lit.span()),
        None => (
            syn::ext::IdentExt::unraw(&item.sig.ident).to_string(),
            item.sig.ident.span(),
        ),
    };
    match kind {
        Kind::Prompt => {
            if let Err(reason) = tool_grammar::tool_name_form_problem(&name) {
                // The grammar words it for tools; the rule is the same.
                let reason = reason.replacen("the tool name", "the prompt name", 1);
                cx.error_at(span, reason);
            }
        }
        Kind::Resource => {
            if name.trim().is_empty() {
                cx.error_at(span, "a resource's name is not blank");
            }
        }
    }
    name
}

/// The URI is given and is a URI or a template, and its variables are exactly the named
/// parameters.
fn check_uri(cx: &mut Ctxt, attrs: &ItemAttrs, params: &[ItemParam]) {
    let Some(uri) = &attrs.uri else {
        cx.error_at(
            Span::call_site(),
            "#[resource] needs its URI: #[resource(uri = \"notes://today\")], or a template \
             whose variables are the function's parameters: uri = \"notes://{day}\"",
        );
        return;
    };
    let text = uri.value();
    let parts = match tool_grammar::uri_template(&text) {
        Ok(parts) => parts,
        Err(problem) => {
            cx.error_spanned_by(uri, format!("`uri`: {problem}"));
            return;
        }
    };
    let variables: Vec<&str> = parts
        .iter()
        .filter_map(|p| match p {
            tool_grammar::UriPart::Variable(v) => Some(*v),
            tool_grammar::UriPart::Literal(_) => None,
        })
        .collect();
    let named: Vec<&Named> = params
        .iter()
        .filter_map(|p| match p {
            ItemParam::Named(n) => Some(n),
            _ => None,
        })
        .collect();
    for n in &named {
        if !variables.contains(&n.key().as_str()) {
            let message = if variables.is_empty() {
                format!(
                    "`{}` is not in the URI: a resource's parameters are its URI template's \
                     variables (uri = \"...{{{}}}\"); mark context values #[ctx]",
                    n.key(),
                    n.key()
                )
            } else {
                format!(
                    "`{}` is not a variable of the URI template; its variables are {}",
                    n.key(),
                    variables
                        .iter()
                        .map(|v| format!("`{v}`"))
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            };
            cx.error_spanned_by(&n.ident, message);
        }
    }
    for v in &variables {
        if !named.iter().any(|n| n.key() == *v) {
            cx.error_spanned_by(
                uri,
                format!("the URI template's variable `{v}` needs a parameter: `{v}: String`"),
            );
        }
    }
}

fn is_mime_type(text: &str) -> bool {
    let essence = text.split(';').next().unwrap_or_default().trim();
    let token = |s: &str| {
        !s.is_empty()
            && s.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"!#$&-^_.+".contains(&b))
    };
    matches!(essence.split_once('/'), Some((kind, sub)) if token(kind) && token(sub))
}

fn write(
    kind: Kind,
    attrs: &ItemAttrs,
    item: &ItemFn,
    params: &[ItemParam],
    name: &str,
    description: &TokenStream,
) -> TokenStream {
    let krate = match &attrs.krate {
        Some(path) => quote!(#path),
        None => quote!(::tool_core),
    };
    let p = quote!(#krate::__private);
    let fn_name = &item.sig.ident;
    let (source, source_ty, fail) = match kind {
        Kind::Resource => (
            quote!(__req),
            quote!(#p::ResourceRequest),
            quote!(#p::read_fail),
        ),
        Kind::Prompt => (
            quote!(__args),
            quote!(#p::PromptArgs),
            quote!(#p::prompt_fail),
        ),
    };
    let mut consts = Vec::new();
    let mut lets = Vec::new();
    let mut call_args = Vec::new();
    let mut arg_defs = Vec::new();
    let mut completions = Vec::new();
    for (i, param) in params.iter().enumerate() {
        match param {
            ItemParam::Context => call_args.push(quote!(&__ctx)),
            ItemParam::Extractor(ty) => {
                let var = format_ident!("__x{}", i);
                let extract = quote_spanned!(ty.span()=> #p::extract::<#ty>);
                lets.push(quote! {
                    let #var = match #extract(&__ctx) {
                        ::core::result::Result::Ok(v) => v,
                        ::core::result::Result::Err(e) => return #fail(e),
                    };
                });
                call_args.push(quote!(#var));
            }
            ItemParam::Named(n) => {
                let var = format_ident!("__a{}", i);
                let ty = &n.ty;
                let key = n.key();
                let info = format_ident!("__A{}", i);
                match kind {
                    Kind::Resource => {
                        let take = quote_spanned!(ty.span()=> #p::variable::<#ty>);
                        lets.push(quote!(let #var = #take(&#source, #key);));
                    }
                    Kind::Prompt => {
                        consts.push(quote_spanned! {ty.span()=>
                            const #info: #p::Arg<#ty> = #p::arg::<#ty>();
                        });
                        lets.push(quote!(let #var = (#info.take)(#source.get(#key));));
                    }
                }
                call_args.push(quote!(#var));
                let complete = n.complete.as_ref().map(|path| {
                    quote_spanned!(path.span()=> #path as fn(&str) -> ::std::vec::Vec<::std::string::String>)
                });
                match kind {
                    Kind::Resource => {
                        if let Some(complete) = complete {
                            completions.push(quote!((#key, #complete)));
                        }
                    }
                    Kind::Prompt => {
                        let description = match &n.description {
                            Some(d) => quote!(::core::option::Option::Some(#d)),
                            None => quote!(::core::option::Option::None),
                        };
                        let complete = match complete {
                            Some(c) => quote!(::core::option::Option::Some(#c)),
                            None => quote!(::core::option::Option::None),
                        };
                        arg_defs.push(quote! {
                            #p::PromptArgDef {
                                name: #key,
                                description: #description,
                                required: #info.required,
                                complete: #complete,
                            }
                        });
                    }
                }
            }
        }
    }
    let awaited = item.sig.asyncness.map(|_| quote!(.await));
    // The check of the return type is spanned on it, so its error points there.
    let outcome = match (&item.sig.output, kind) {
        (syn::ReturnType::Type(_, ty), Kind::Resource) => {
            let p = respan(p.clone(), ty.span());
            quote_spanned!(ty.span()=> #p::read_outcome(__returned))
        }
        (syn::ReturnType::Type(_, ty), Kind::Prompt) => {
            let p = respan(p.clone(), ty.span());
            quote_spanned!(ty.span()=> #p::prompt_outcome(__returned))
        }
        (syn::ReturnType::Default, _) => unreachable!("a function with no return type was refused"),
    };
    let option = |lit: &Option<LitStr>| match lit {
        Some(l) => quote!(::core::option::Option::Some(#l)),
        None => quote!(::core::option::Option::None),
    };
    let title = option(&attrs.title);
    let scopes: Vec<&LitStr> = attrs.scopes.iter().flat_map(|s| &s.scopes).collect();
    let location = quote_spanned! {fn_name.span()=>
        #p::Location {
            module_path: ::core::module_path!(),
            file: ::core::file!(),
            line: ::core::line!(),
        }
    };
    let (const_name, future_ty, def) = match kind {
        Kind::Resource => {
            let uri = &attrs.uri;
            let mime_type = option(&attrs.mime_type);
            (
                format_ident!("__resource_{}", fn_name),
                quote!(#p::ReadFuture),
                quote! {
                    #p::ResourceDef {
                        uri: #uri,
                        name: #name,
                        title: #title,
                        description: #description,
                        mime_type: #mime_type,
                        scopes: &[#(#scopes),*],
                        completions: &[#(#completions),*],
                        read: #p::Sealed::new(__run),
                        location: #location,
                    }
                },
            )
        }
        Kind::Prompt => (
            format_ident!("__prompt_{}", fn_name),
            quote!(#p::PromptFuture),
            quote! {
                #p::PromptDef {
                    name: #name,
                    title: #title,
                    description: #description,
                    arguments: &[#(#arg_defs),*],
                    scopes: &[#(#scopes),*],
                    get: #p::Sealed::new(__run),
                    location: #location,
                }
            },
        ),
    };
    quote! {
        #item

        #[doc(hidden)]
        #[allow(non_upper_case_globals)]
        const #const_name: () = {
            #(#consts)*

            fn __run(#source: #source_ty, __ctx: #krate::ToolContext) -> #future_ty {
                #(#lets)*
                ::std::boxed::Box::pin(async move {
                    let __returned = #fn_name(#(#call_args),*) #awaited;
                    #outcome
                })
            }

            #p::inventory::submit! { #def }
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn errors(kind: Kind, args: TokenStream, item: TokenStream) -> String {
        expand(kind, args, item).to_string()
    }

    #[test]
    fn a_template_variable_without_a_parameter_is_named() {
        let out = errors(
            Kind::Resource,
            quote!(uri = "notes://{day}/{part}"),
            quote! {
                /// A note.
                fn day_note(day: String) -> String { day }
            },
        );
        assert!(out.contains("variable `part` needs a parameter"), "{out}");
        assert!(!out.contains("variable `day`"), "{out}");
    }

    #[test]
    fn a_parameter_not_in_the_template_is_named() {
        let out = errors(
            Kind::Resource,
            quote!(uri = "notes://{day}"),
            quote! {
                /// A note.
                fn day_note(day: String, month: String) -> String { day }
            },
        );
        assert!(
            out.contains("`month` is not a variable of the URI template"),
            "{out}"
        );
    }

    #[test]
    fn a_misspelled_key_is_one_error_naming_the_key() {
        let out = errors(
            Kind::Prompt,
            quote!(titel = "Review"),
            quote! {
                /// Reviews.
                fn review_code() -> String { String::new() }
            },
        );
        assert_eq!(out.matches("compile_error").count(), 1, "{out}");
        assert!(out.contains("did you mean `title`"), "{out}");
    }

    #[test]
    fn mime_types_are_type_slash_subtype() {
        assert!(is_mime_type("text/plain"));
        assert!(is_mime_type("text/html;profile=mcp-app"));
        assert!(is_mime_type("application/vnd.api+json"));
        assert!(!is_mime_type("text"));
        assert!(!is_mime_type("text/"));
        assert!(!is_mime_type("a b/c"));
    }

    #[test]
    fn a_valid_prompt_submits_its_arguments() {
        let out = expand(
            Kind::Prompt,
            quote!(title = "Review"),
            quote! {
                /// Reviews code.
                fn review_code(#[arg(description = "The code")] code: String, style: Option<String>) -> String { code }
            },
        )
        .to_string();
        assert!(!out.contains("compile_error"), "{out}");
        assert!(out.contains("PromptDef"), "{out}");
        assert!(out.contains("\"code\""), "{out}");
        assert!(out.contains("\"style\""), "{out}");
    }
}
