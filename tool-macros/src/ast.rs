//! The typed model of a `#[tool]` function: its doc, its parameters sorted into input fields,
//! a whole-input struct and context extractors, and the shape of its return type.

use syn::{FnArg, GenericArgument, ItemFn, Pat, PathArguments, ReturnType, Type};

use crate::attr::{self, ArgAttrs};
use crate::ctxt::Ctxt;

pub struct ToolFn {
    pub item: ItemFn,
    /// The doc comment, lines joined, or `None` if there is none.
    pub doc: Option<String>,
    pub params: Vec<Param>,
    pub output: Output,
}

pub struct Param {
    pub kind: ParamKind,
    /// The whole `pattern: Type`, for errors about the parameter.
    pub tokens: proc_macro2::TokenStream,
}

// One per parameter of one function: size does not matter.
#[allow(clippy::large_enum_variant)]
pub enum ParamKind {
    /// A field of the generated input struct.
    Field(Field),
    /// `Input<T>`: the whole input is one struct.
    Whole { ty: Type },
    /// `&ToolContext`.
    ContextRef,
    /// A type taken from the context (`State<T>`, `CancellationToken`, `#[ctx]` types...).
    Extractor { ty: Type },
}

pub struct Field {
    pub ident: syn::Ident,
    pub ty: Type,
    pub optional: bool,
    pub args: ArgAttrs,
}

#[allow(clippy::large_enum_variant)]
pub enum Output {
    /// No return type.
    Unit,
    /// `T`
    Plain(Type),
    /// `Result<T, E>` (or an alias named `Result`).
    Result { ty: Type },
}

/// Extractor types recognised by name; any other type can be marked `#[ctx]`.
const EXTRACTORS: &[&str] = &[
    "ToolContext",
    "State",
    "CancellationToken",
    "RequestHeaders",
];

impl ToolFn {
    pub fn from_item(cx: &mut Ctxt, mut item: ItemFn) -> Self {
        let doc = doc_of(&item.attrs);
        let params = item
            .sig
            .inputs
            .iter_mut()
            .filter_map(|arg| Param::from_arg(cx, arg))
            .collect();
        let output = match &item.sig.output {
            ReturnType::Default => Output::Unit,
            ReturnType::Type(_, ty) => Output::from_type(ty),
        };
        Self {
            item,
            doc,
            params,
            output,
        }
    }

    /// The input fields, in order.
    pub fn fields(&self) -> impl Iterator<Item = &Field> {
        self.params.iter().filter_map(|p| match &p.kind {
            ParamKind::Field(f) => Some(f),
            _ => None,
        })
    }
}

impl Field {
    /// The JSON key of this field.
    pub fn key(&self) -> String {
        match &self.args.rename {
            Some(rename) => rename.value(),
            None => self.ident.unraw().to_string(),
        }
    }

    /// Whether the model may leave this field out.
    pub fn is_required(&self) -> bool {
        !self.optional && self.args.default.is_none()
    }
}

trait Unraw {
    fn unraw(&self) -> syn::Ident;
}

impl Unraw for syn::Ident {
    fn unraw(&self) -> syn::Ident {
        syn::ext::IdentExt::unraw(self)
    }
}

impl Param {
    /// Classifies one parameter, removing the attributes this macro owns (`#[arg]`, `#[ctx]`),
    /// so the function can be emitted as it is. `None` for `self` (an error `valid` reports).
    fn from_arg(cx: &mut Ctxt, arg: &mut FnArg) -> Option<Self> {
        let FnArg::Typed(pat_type) = arg else {
            return None;
        };
        let mut args = ArgAttrs::default();
        let mut arg_attr = None;
        let mut marked_ctx = None;
        pat_type.attrs.retain(|a| {
            if a.path().is_ident("arg") {
                attr::parse_arg_attr(cx, a, &mut args);
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
        let tokens = {
            let (pat, ty) = (&pat_type.pat, &pat_type.ty);
            quote::quote!(#pat: #ty)
        };
        let ty = (*pat_type.ty).clone();
        let kind = if let Type::Reference(r) = &ty {
            if last_ident(&r.elem).as_deref() == Some("ToolContext") && r.mutability.is_none() {
                ParamKind::ContextRef
            } else {
                cx.error_spanned_by(
                    &ty,
                    "tool parameters cannot borrow: take an owned type (`String` for `&str`, \
                     `Vec<T>` for `&[T]`); only `&ToolContext` may be a reference",
                );
                return None;
            }
        } else if marked_ctx.is_some()
            || last_ident(&ty).is_some_and(|n| EXTRACTORS.contains(&n.as_str()))
        {
            ParamKind::Extractor { ty }
        } else if let Some(inner) = generic_arg(&ty, "Input") {
            ParamKind::Whole { ty: inner }
        } else {
            field(cx, &pat_type.pat, ty, args)?
        };
        if let (Some(attr), false) = (&arg_attr, matches!(kind, ParamKind::Field(_))) {
            cx.error_spanned_by(
                attr,
                "#[arg] goes on parameters that come from the model's input; \
                 for `Input<T>` write the descriptions as doc comments on T's fields",
            );
        }
        if let (Some(attr), false) = (&marked_ctx, matches!(kind, ParamKind::Extractor { .. })) {
            cx.error_spanned_by(
                attr,
                "#[ctx] marks an owned extractor type; `&ToolContext` needs no mark",
            );
        }
        Some(Param { kind, tokens })
    }
}

fn field(cx: &mut Ctxt, pat: &Pat, ty: Type, args: ArgAttrs) -> Option<ParamKind> {
    let Pat::Ident(pat_ident) = pat else {
        cx.error_spanned_by(
            pat,
            "a parameter from the model's input needs a plain name (it becomes the JSON key); \
             destructure it in the body",
        );
        return None;
    };
    if pat_ident.by_ref.is_some() || pat_ident.subpat.is_some() {
        cx.error_spanned_by(pat, "write the parameter as a plain name");
        return None;
    }
    Some(ParamKind::Field(Field {
        ident: pat_ident.ident.clone(),
        optional: generic_arg(&ty, "Option").is_some(),
        ty,
        args,
    }))
}

impl Output {
    fn from_type(ty: &Type) -> Self {
        if matches!(ty, Type::Tuple(t) if t.elems.is_empty()) {
            return Output::Unit;
        }
        match generic_args(ty, "Result") {
            Some(args) if !args.is_empty() => Output::Result { ty: ty.clone() },
            _ => Output::Plain(ty.clone()),
        }
    }
}

/// The last path segment's name of a path type.
pub fn last_ident(ty: &Type) -> Option<String> {
    match ty {
        Type::Path(p) if p.qself.is_none() => p.path.segments.last().map(|s| s.ident.to_string()),
        Type::Group(g) => last_ident(&g.elem),
        Type::Paren(p) => last_ident(&p.elem),
        _ => None,
    }
}

/// The type arguments of `Name<...>` when `ty`'s last segment is `Name`.
fn generic_args(ty: &Type, name: &str) -> Option<Vec<Type>> {
    let Type::Path(p) = ty else { return None };
    let segment = p.path.segments.last()?;
    if segment.ident != name || p.qself.is_some() {
        return None;
    }
    let PathArguments::AngleBracketed(args) = &segment.arguments else {
        return None;
    };
    Some(
        args.args
            .iter()
            .filter_map(|a| match a {
                GenericArgument::Type(t) => Some(t.clone()),
                _ => None,
            })
            .collect(),
    )
}

/// `T` in `Name<T>`.
fn generic_arg(ty: &Type, name: &str) -> Option<Type> {
    generic_args(ty, name).and_then(|args| (args.len() == 1).then(|| args[0].clone()))
}

/// The doc comment as the model should read it: `#[doc = "..."]` lines with one leading space
/// removed (as rustdoc does), lines of a paragraph joined by spaces (source wrapping is not
/// meaning), paragraphs and list items kept on their own lines. `None` when there is no text.
fn doc_of(attrs: &[syn::Attribute]) -> Option<String> {
    let mut lines = Vec::new();
    for attr in attrs {
        if !attr.path().is_ident("doc") {
            continue;
        }
        if let syn::Meta::NameValue(nv) = &attr.meta
            && let syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Str(s),
                ..
            }) = &nv.value
        {
            let value = s.value();
            if value.trim().is_empty() {
                lines.push(String::new());
            }
            for line in value.lines() {
                lines.push(line.strip_prefix(' ').unwrap_or(line).trim_end().to_owned());
            }
        }
    }
    let mut text = String::new();
    let mut blank = false;
    for line in &lines {
        if line.trim().is_empty() {
            blank = !text.is_empty();
            continue;
        }
        if blank {
            text.push_str("\n\n");
        } else if !text.is_empty() {
            let starts_item = line.trim_start().starts_with(['-', '*', '+', '|', '#'])
                || line
                    .trim_start()
                    .split_once(". ")
                    .is_some_and(|(n, _)| n.chars().all(|c| c.is_ascii_digit()) && !n.is_empty())
                || line.starts_with("    ");
            text.push(if starts_item { '\n' } else { ' ' });
        }
        blank = false;
        text.push_str(if line.starts_with("    ") {
            line
        } else {
            line.trim_start()
        });
    }
    (!text.is_empty()).then_some(text)
}

#[cfg(test)]
mod tests {
    use super::*;
    use quote::quote;

    fn parse(tokens: proc_macro2::TokenStream) -> (ToolFn, Result<(), syn::Error>) {
        let mut cx = Ctxt::default();
        let f = ToolFn::from_item(&mut cx, syn::parse2(tokens).unwrap());
        (f, cx.check())
    }

    #[test]
    fn parameters_are_sorted_by_kind() {
        let (f, errs) = parse(quote! {
            /// Doc line one.
            ///   indented
            async fn get_x(
                ctx: &ToolContext,
                #[arg(description = "d", rename = "q")] query: String,
                limit: Option<u32>,
                state: State<Db>,
                #[ctx] me: Principal,
            ) -> Result<u8, E> {}
        });
        assert!(errs.is_ok());
        assert_eq!(f.doc.as_deref(), Some("Doc line one. indented"));
        let kinds: Vec<&str> = f
            .params
            .iter()
            .map(|p| match p.kind {
                ParamKind::Field(_) => "field",
                ParamKind::Whole { .. } => "whole",
                ParamKind::ContextRef => "ctx",
                ParamKind::Extractor { .. } => "extractor",
            })
            .collect();
        assert_eq!(kinds, ["ctx", "field", "field", "extractor", "extractor"]);
        let fields: Vec<_> = f.fields().map(|f| (f.key(), f.is_required())).collect();
        assert_eq!(
            fields,
            [("q".to_owned(), true), ("limit".to_owned(), false)]
        );
        assert!(matches!(f.output, Output::Result { .. }));
        // Our attributes are removed from the emitted function.
        let emitted = quote::ToTokens::to_token_stream(&f.item).to_string();
        assert!(
            !emitted.contains("arg") && !emitted.contains("# [ctx]"),
            "{emitted}"
        );
    }

    #[test]
    fn docs_join_wrapped_lines_and_keep_paragraphs_and_lists() {
        let (f, _) = parse(quote! {
            /// Returns the weather
            /// for a city.
            ///
            /// Use it when:
            /// - planning a trip
            /// - dressing
            /// 1. first
            fn get_x() {}
        });
        assert_eq!(
            f.doc.as_deref(),
            Some(
                "Returns the weather for a city.\n\nUse it when:\n- planning a trip\n- dressing\n1. first"
            )
        );
    }

    #[test]
    fn borrowed_parameters_are_refused() {
        let (_, errs) = parse(quote!(
            fn get_x(name: &str) {}
        ));
        assert!(errs.unwrap_err().to_string().contains("cannot borrow"));
    }
}
