//! The typed model of a `#[tool]` function: its doc, its parameters sorted into input fields,
//! a whole-input struct and context values, and its return type.
//!
//! Which parameter is which is never guessed from a type's name: `&ToolContext` is the context,
//! a parameter marked `#[ctx]` is taken from it, one marked `#[input]` is the whole input, and
//! every other parameter is a field of the input, whose type must implement `Deserialize` and
//! `JsonSchema` (checked by the compiler, with the framework's message). Whether a field may be
//! left out (`Option<T>`), and what a return type is made of (`Result<T, E>` under any name),
//! is found from the types by the expansion, not here.

use quote::ToTokens;
use syn::{FnArg, ItemFn, Pat, ReturnType, Type};

use crate::attr::{self, ArgAttrs};
use crate::ctxt::Ctxt;

pub struct ToolFn {
    pub item: ItemFn,
    /// The doc comment.
    pub doc: Doc,
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
    /// A field of the input.
    Field(Field),
    /// `#[input] name: T`: the whole input is one `T`.
    Whole { ty: Type },
    /// `&ToolContext`.
    ContextRef,
    /// `#[ctx] name: T`: a value taken from the context (`T: FromContext`).
    Extractor { ty: Type },
}

pub struct Field {
    pub ident: syn::Ident,
    pub ty: Type,
    pub args: ArgAttrs,
}

#[allow(clippy::large_enum_variant)]
pub enum Output {
    /// No return type.
    Unit,
    /// A return type: an output, or a `Result` of one (told apart by the compiler).
    Typed(Type),
}

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
        let mut marked_input = None;
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
            } else if a.path().is_ident("input") {
                if !matches!(a.meta, syn::Meta::Path(_)) {
                    cx.error_spanned_by(a, "#[input] takes no arguments");
                }
                marked_input = Some(a.clone());
                false
            } else {
                true
            }
        });
        let tokens = {
            let (pat, ty) = (&pat_type.pat, &pat_type.ty);
            quote::quote!(#pat: #ty)
        };
        if let Some((name, inner)) = old_whole_input(&pat_type.pat, &pat_type.ty) {
            cx.error_spanned_by(
                &tokens,
                format!(
                    "`Input<T>` is gone: the whole input is a parameter marked #[input]: \
                     `#[input] {}: {}`",
                    quote::ToTokens::to_token_stream(&name),
                    quote::ToTokens::to_token_stream(&inner),
                ),
            );
            // Emitted as the fix would have it, so the function's body still type-checks and
            // this is the only error.
            *pat_type.pat = name;
            *pat_type.ty = inner;
            return None;
        }
        let ty = (*pat_type.ty).clone();
        if let (Some(ctx), Some(input)) = (&marked_ctx, &marked_input) {
            cx.error_spanned_by(
                input,
                "a parameter is either the whole input (#[input]) or a context value (#[ctx]), not both",
            );
            let _ = ctx;
            return None;
        }
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
        } else if marked_ctx.is_some() {
            ParamKind::Extractor { ty }
        } else if marked_input.is_some() {
            ParamKind::Whole { ty }
        } else {
            field(cx, &pat_type.pat, ty, args)?
        };
        if let (Some(attr), false) = (&arg_attr, matches!(kind, ParamKind::Field(_))) {
            cx.error_spanned_by(
                attr,
                "#[arg] goes on parameters that are fields of the model's input; for the whole \
                 input (#[input]) write the descriptions as doc comments on its type's fields",
            );
        }
        if let (Some(attr), ParamKind::ContextRef) = (&marked_ctx, &kind) {
            cx.error_spanned_by(
                attr,
                "`&ToolContext` is the context itself: it needs no #[ctx]",
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
             destructure it in the body, or mark it #[ctx] if the context gives it (as \
             `#[ctx] State(db): State<Db>`)",
        );
        return None;
    };
    if pat_ident.by_ref.is_some() || pat_ident.subpat.is_some() {
        cx.error_spanned_by(pat, "write the parameter as a plain name");
        return None;
    }
    Some(ParamKind::Field(Field {
        ident: pat_ident.ident.clone(),
        ty,
        args,
    }))
}

impl Output {
    fn from_type(ty: &Type) -> Self {
        match ty {
            Type::Tuple(t) if t.elems.is_empty() => Output::Unit,
            _ => Output::Typed(ty.clone()),
        }
    }
}

/// `(q, T)` of a parameter written `Input(q): Input<T>`, the form an earlier version took for
/// the whole input (only to word the error that says what replaced it; nothing else is
/// decided by a name).
fn old_whole_input(pat: &Pat, ty: &Type) -> Option<(Pat, Type)> {
    let Pat::TupleStruct(t) = pat else {
        return None;
    };
    let Type::Path(p) = ty else { return None };
    let segment = p.path.segments.last()?;
    let syn::PathArguments::AngleBracketed(args) = &segment.arguments else {
        return None;
    };
    match (
        t.elems.len(),
        t.elems.first(),
        segment.ident == "Input",
        args.args.first(),
    ) {
        (1, Some(name), true, Some(syn::GenericArgument::Type(inner)))
            if t.path.is_ident("Input") =>
        {
            Some((name.clone(), inner.clone()))
        }
        _ => None,
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

/// The doc comment: its text as the model reads it ([`tool_grammar::description`]), or, when
/// any of its attributes is an expression (`#[doc = include_str!("..")]`), the expressions to
/// join at compile time, which the registry turns into the description.
pub enum Doc {
    /// Literal doc strings only, made the description now; `None` when there is no text.
    Text(Option<String>),
    /// Each attribute's value, literal or not, in order.
    Exprs(Vec<syn::Expr>),
}

impl Doc {
    /// The text, when the comment is all literal.
    #[cfg(test)]
    fn text(&self) -> Option<&str> {
        match self {
            Doc::Text(text) => text.as_deref(),
            Doc::Exprs(_) => None,
        }
    }
}

/// The item under `#[data]`: a struct or an enum, as the derives read it. Anything else is an
/// error on its name (or on `union`), and `None`.
pub fn data_item(cx: &mut Ctxt, item: &proc_macro2::TokenStream) -> Option<syn::DeriveInput> {
    const MESSAGE: &str = "#[data] goes on a struct or an enum (serde and schemars derive \
                           nothing for a union, a function or any other item)";
    match syn::parse2::<syn::DeriveInput>(item.clone()) {
        Ok(input) => match &input.data {
            syn::Data::Union(union) => {
                cx.error_spanned_by(union.union_token, MESSAGE);
                None
            }
            _ => Some(input),
        },
        Err(_) => {
            match syn::parse2::<syn::Item>(item.clone()) {
                Ok(syn::Item::Fn(f)) => cx.error_spanned_by(&f.sig.ident, MESSAGE),
                Ok(other) => cx.error_spanned_by(other.to_token_stream(), MESSAGE),
                Err(e) => cx.syn_error(e),
            }
            None
        }
    }
}

pub(crate) fn doc_of(attrs: &[syn::Attribute]) -> Doc {
    let values: Vec<&syn::Expr> = attrs
        .iter()
        .filter(|a| a.path().is_ident("doc"))
        .filter_map(|a| match &a.meta {
            syn::Meta::NameValue(nv) => Some(&nv.value),
            _ => None,
        })
        .collect();
    let literal = |e: &syn::Expr| match e {
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Str(s),
            ..
        }) => Some(s.value()),
        _ => None,
    };
    let texts: Option<Vec<String>> = values.iter().map(|e| literal(e)).collect();
    match texts {
        Some(texts) => Doc::Text(tool_grammar::description(texts)),
        None => Doc::Exprs(values.into_iter().cloned().collect()),
    }
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
    fn parameters_are_sorted_by_their_marks_not_their_type_names() {
        let (f, errs) = parse(quote! {
            /// Doc line one.
            ///   indented
            async fn get_x(
                ctx: &ToolContext,
                #[arg(description = "d", rename = "q")] query: String,
                limit: Option<u32>,
                #[ctx] state: State<Db>,
                #[ctx] me: Principal,
                state_of_mind: State,
                input: Input<Text>,
            ) -> Result<u8, E> {}
        });
        assert!(errs.is_ok());
        assert_eq!(f.doc.text(), Some("Doc line one. indented"));
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
        // A type named `State` or `Input` is a field like any other, unless it is marked.
        assert_eq!(
            kinds,
            [
                "ctx",
                "field",
                "field",
                "extractor",
                "extractor",
                "field",
                "field"
            ]
        );
        let keys: Vec<_> = f.fields().map(Field::key).collect();
        assert_eq!(keys, ["q", "limit", "state_of_mind", "input"]);
        assert!(matches!(f.output, Output::Typed(_)));
        // Our attributes are removed from the emitted function.
        let emitted = quote::ToTokens::to_token_stream(&f.item).to_string();
        assert!(
            !emitted.contains("arg") && !emitted.contains("# [ctx]"),
            "{emitted}"
        );
    }

    #[test]
    fn the_whole_input_is_marked() {
        let (f, errs) = parse(quote! {
            /// Doc.
            fn get_x(#[input] query: Query, ctx: &ToolContext) {}
        });
        assert!(errs.is_ok());
        assert!(matches!(f.params[0].kind, ParamKind::Whole { .. }));
        assert!(matches!(f.output, Output::Unit));
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
            f.doc.text(),
            Some(
                "Returns the weather for a city.\n\nUse it when:\n- planning a trip\n- dressing\n1. first"
            )
        );
    }

    #[test]
    fn a_doc_read_from_a_file_is_left_to_the_compiler() {
        let (f, _) = parse(quote! {
            /// Returns the weather.
            #[doc = include_str!("weather.md")]
            fn get_x() {}
        });
        match f.doc {
            Doc::Exprs(parts) => assert_eq!(parts.len(), 2),
            Doc::Text(text) => panic!("read as text: {text:?}"),
        }
    }

    #[test]
    fn borrowed_parameters_are_refused() {
        let (_, errs) = parse(quote!(
            fn get_x(name: &str) {}
        ));
        assert!(errs.unwrap_err().to_string().contains("cannot borrow"));
    }
}
