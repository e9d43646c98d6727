//! Checks of meaning: what parses may still be wrong (names, required keys, conflicting flags,
//! examples that do not fit the parameters). Produces the resolved settings `expand` writes out.

use std::collections::BTreeSet;

use proc_macro2::Span;
use syn::{FnArg, LitStr, Type};

use crate::ast::{Doc, Field, Output, ParamKind, ToolFn};
use crate::attr::{DataAttrs, TaskMode, ToolAttrs};
use crate::ctxt::Ctxt;

/// Which of serde's traits `#[data]` derives (`JsonSchema` always).
#[derive(Clone, Copy)]
pub struct DataWays {
    pub serialize: bool,
    pub deserialize: bool,
}

/// `input` and `output` each leave one trait out, so together they would leave out both: the
/// type is both without either key.
pub fn check_data(cx: &mut Ctxt, attrs: &DataAttrs) -> DataWays {
    let input = attrs.input.is_some_and(|f| f.value);
    let output = attrs.output.is_some_and(|f| f.value);
    if let (true, true, Some(flag)) = (input, output, attrs.output) {
        cx.error_at(
            flag.span,
            "a type is both input and output when #[data] has neither key; give `input` (read \
             from calls: Deserialize) or `output` (returned: Serialize), or none",
        );
    }
    DataWays {
        serialize: !input || output,
        deserialize: !output || input,
    }
}

/// The settings of a tool after every check, with defaults applied.
pub struct Resolved {
    pub name: String,
    pub description: Description,
    pub read_only: bool,
    pub destructive: bool,
    pub idempotent: bool,
    pub open_world: bool,
    pub core: bool,
    pub voiced: bool,
    pub blocking: bool,
    /// Whether an MCP client that declared tasks may (or must) be answered with a task to poll.
    pub task: TaskMode,
    /// How long a call runs before it becomes a task; the server's threshold when `None`.
    pub task_after_ms: Option<u64>,
    /// Whether a call needs a person's yes first, and the message's text.
    pub approval: Option<Option<String>>,
    pub feeds_back: bool,
    /// Whether MCP results carry the text mirror; `false` needs an output schema, which the
    /// expansion has the compiler check for a typed return (a missing one is checked here).
    pub mirror: bool,
    pub timeout_ms: Option<u64>,
    pub retries: u32,
    /// The OAuth scopes a caller needs, in order.
    pub scopes: Vec<String>,
    /// (label, JSON text) pairs, the JSON re-serialised compactly.
    pub examples: Vec<(String, String)>,
    /// The icons, in order.
    pub icons: Vec<Icon>,
    pub view: View,
    /// `both`, `model` or `app`.
    pub visibility: &'static str,
}

/// The tool's view after its checks.
pub enum View {
    None,
    /// The file `view` names, which exists: its path from the crate's folder, and the literal
    /// (whose span the expansion's `include_str!` takes, so an error about it points there).
    File(LitStr),
    Card,
}

/// One icon after its checks.
pub struct Icon {
    pub src: String,
    pub mime_type: Option<String>,
    pub sizes: Vec<String>,
    pub theme: Option<String>,
}

/// Where the description comes from.
pub enum Description {
    /// The doc comment made the text the model reads, now.
    Text(String),
    /// Doc attributes to join at compile time (`#[doc = include_str!("..")]` among them);
    /// the registry makes the text.
    Raw(Vec<syn::Expr>),
}

const MAX_RETRIES: u32 = 10;

pub fn check(cx: &mut Ctxt, attrs: &ToolAttrs, f: &ToolFn) -> Resolved {
    check_signature(cx, f);
    check_params(cx, f);
    let name = check_name(cx, attrs, f);
    let description = match &f.doc {
        Doc::Text(Some(text)) => Description::Text(text.clone()),
        Doc::Exprs(parts) => Description::Raw(parts.clone()),
        Doc::Text(None) => {
            cx.error_spanned_by(
                &f.item.sig.ident,
                "a tool needs a doc comment: it is the description the model reads; say what \
                 the tool returns and when to use it (/// Returns ...)",
            );
            Description::Text(String::new())
        }
    };
    check_required(cx, attrs);
    let (read_only, destructive) = check_annotations(cx, attrs);
    let retries = attrs
        .retries
        .as_ref()
        .map_or(0, |lit| match lit.base10_parse::<u32>() {
            Ok(n) if n <= MAX_RETRIES => n,
            _ => {
                cx.error_spanned_by(
                    lit,
                    format!("retries must be a whole number from 0 to {MAX_RETRIES}"),
                );
                0
            }
        });
    if let Some(source) = &attrs.source {
        let value = source.value();
        if value.trim().is_empty() {
            cx.error_spanned_by(source, "source is empty; give a link (e.g. \"https://app.example.com/accounts\") or leave it out");
        } else if value.contains(char::is_whitespace) {
            cx.error_spanned_by(
                source,
                "source is a link (e.g. \"https://app.example.com/accounts\"): no spaces",
            );
        }
    }
    let examples = check_examples(cx, attrs, f);
    let scopes = check_scopes(cx, attrs);
    let icons = check_icons(cx, attrs);
    let mirror = check_mirror(cx, attrs, f);
    let view = check_view(cx, attrs);
    let visibility = check_visibility(cx, attrs);
    Resolved {
        name,
        description,
        read_only,
        destructive,
        idempotent: attrs.idempotent.map_or(read_only, |f| f.value),
        open_world: attrs.open_world.is_some_and(|f| f.value),
        core: attrs.core.is_some_and(|f| f.value),
        voiced: attrs.voiced.is_some_and(|f| f.value),
        blocking: check_blocking(cx, attrs, f),
        task: attrs.task.unwrap_or_default(),
        task_after_ms: check_task_after(cx, attrs),
        approval: check_approval(cx, attrs, f),
        feeds_back: attrs.feeds_back.is_none_or(|f| f.value),
        mirror,
        timeout_ms: attrs.timeout.map(|t| t.millis),
        retries,
        scopes,
        examples,
        icons,
        view,
        visibility,
    }
}

/// `view` names a file of the crate, read at compile time: one that is missing is an error on
/// the path (the compiler's own, from `include_str!`, names the whole path on this machine).
fn check_view(cx: &mut Ctxt, attrs: &ToolAttrs) -> View {
    let card = attrs.card.filter(|f| f.value);
    match (&attrs.view, card) {
        (Some(_), Some(card)) => {
            cx.error_at(
                card.span,
                "a tool has one view: `view` names your own HTML, `card` asks for the \
                 framework's card; keep one",
            );
            View::None
        }
        (Some(view), None) => {
            let path = view.value();
            if path.trim().is_empty() || path.starts_with('/') {
                cx.error_spanned_by(
                    view,
                    "`view` is the path of an HTML file from the crate's folder (the one with \
                     Cargo.toml): view = \"cards/forecast.html\"",
                );
                return View::None;
            }
            // Cargo sets it for every crate it builds; without it (a build outside Cargo)
            // the compiler's include_str! reports what is missing.
            if let Ok(dir) = std::env::var("CARGO_MANIFEST_DIR") {
                let full = std::path::Path::new(&dir).join(&path);
                if !full.is_file() {
                    cx.error_spanned_by(
                        view,
                        format!(
                            "view file `{path}` not found: `view` is read from the crate's \
                             folder (the one with Cargo.toml) at compile time"
                        ),
                    );
                    return View::None;
                }
            }
            View::File(view.clone())
        }
        (None, Some(_)) => View::Card,
        (None, None) => View::None,
    }
}

/// `visibility` is `both`, `model` or `app`.
fn check_visibility(cx: &mut Ctxt, attrs: &ToolAttrs) -> &'static str {
    let Some(lit) = &attrs.visibility else {
        return "both";
    };
    match lit.value().as_str() {
        "both" => "both",
        "model" => "model",
        "app" => "app",
        other => {
            cx.error_spanned_by(
                lit,
                format!(
                    "visibility `{other}` does not exist: \"both\" (the default: the model and \
                     views), \"model\" (views cannot call it) or \"app\" (only views call it)"
                ),
            );
            "both"
        }
    }
}

/// Each icon follows the icon rule tool-core holds tools built at run time to (tool-grammar's):
/// each error on the literal at fault, and a missing `src` on the `icon` key.
fn check_icons(cx: &mut Ctxt, attrs: &ToolAttrs) -> Vec<Icon> {
    let mut icons = Vec::new();
    for attr in &attrs.icons {
        match &attr.src {
            Some(src) => {
                if let Err(problem) = tool_grammar::icon_src_problem(&src.value()) {
                    cx.error_spanned_by(src, problem);
                }
            }
            None if !attr.syntax_error => cx.error_at(
                attr.key.unwrap_or_else(Span::call_site),
                "an icon needs its `src`: icon(src = \"https://example.com/icon.png\", ...)",
            ),
            None => {}
        }
        if let Some(mime_type) = &attr.mime_type
            && let Err(problem) = tool_grammar::icon_mime_type_problem(&mime_type.value())
        {
            cx.error_spanned_by(mime_type, problem);
        }
        let sizes: Vec<String> = attr
            .sizes
            .iter()
            .flat_map(|list| list.items.iter().map(LitStr::value))
            .collect();
        if let Some(list) = &attr.sizes {
            for problem in tool_grammar::icon_sizes_problems(&sizes) {
                match problem.part() {
                    tool_grammar::IconPart::Size(i) => cx.error_spanned_by(&list.items[i], problem),
                    _ => cx.error_at(list.key, problem),
                }
            }
        }
        if let Some(theme) = &attr.theme
            && let Err(problem) = tool_grammar::icon_theme_problem(&theme.value())
        {
            cx.error_spanned_by(theme, problem);
        }
        let Some(src) = &attr.src else { continue };
        icons.push(Icon {
            src: src.value(),
            mime_type: attr.mime_type.as_ref().map(LitStr::value),
            sizes,
            theme: attr.theme.as_ref().map(LitStr::value),
        });
    }
    icons
}

/// `mirror = false` leaves the text out of a tool's MCP results, so the structured content is
/// all a client gets: the tool needs an output schema. A tool that returns nothing has none;
/// for a return type, whether it has one is the compiler's to say (the expansion asks).
fn check_mirror(cx: &mut Ctxt, attrs: &ToolAttrs, f: &ToolFn) -> bool {
    let Some(flag) = attrs.mirror.filter(|m| !m.value) else {
        return true;
    };
    if matches!(f.output, Output::Unit) {
        cx.error_at(
            flag.span,
            "`mirror = false` leaves the text out of the tool's MCP results, so a client reads \
             the structured content, but this tool returns nothing: it has no output schema; \
             drop `mirror = false`",
        );
    }
    false
}

/// An approval message reads as a template whose placeholders are the tool's parameters
/// (tool-grammar's rule, which `check` holds tools built at run time to). A tool whose input
/// is one `#[input]` type has parameters the macro cannot see: its placeholders are left to
/// `check`.
fn check_approval(cx: &mut Ctxt, attrs: &ToolAttrs, f: &ToolFn) -> Option<Option<String>> {
    let attr = attrs.approval.as_ref().filter(|a| a.required)?;
    let Some(message) = &attr.message else {
        return Some(None);
    };
    let text = message.value();
    let whole = f
        .params
        .iter()
        .any(|p| matches!(p.kind, ParamKind::Whole { .. }));
    let keys: Vec<String> = f.fields().map(|f| f.key()).collect();
    let problems = match whole {
        true => tool_grammar::approval_template(&text)
            .err()
            .into_iter()
            .collect(),
        false => tool_grammar::approval_template_problems(&text, &keys),
    };
    for problem in problems {
        cx.error_spanned_by(message, problem);
    }
    Some(Some(text))
}

/// The scopes follow the rule tool-core holds definitions files to (tool-grammar's): each
/// error on the literal at fault, or on the key for an empty list.
fn check_scopes(cx: &mut Ctxt, attrs: &ToolAttrs) -> Vec<String> {
    let Some(attr) = &attrs.scopes else {
        return Vec::new();
    };
    let scopes: Vec<String> = attr.scopes.iter().map(LitStr::value).collect();
    for problem in tool_grammar::scope_list_problems(&scopes) {
        match problem.index() {
            Some(i) => cx.error_spanned_by(&attr.scopes[i], problem),
            None => cx.error_at(attr.key, problem),
        }
    }
    scopes
}

/// `blocking` moves a sync function to the blocking pool; an async one must not block.
fn check_blocking(cx: &mut Ctxt, attrs: &ToolAttrs, f: &ToolFn) -> bool {
    let Some(flag) = attrs.blocking.filter(|b| b.value) else {
        return false;
    };
    if f.item.sig.asyncness.is_some() {
        cx.error_at(
            flag.span,
            "`blocking` is for sync functions that may block (file walks, subprocesses); \
             an async tool must not block: await, or use tokio::task::spawn_blocking inside",
        );
    }
    true
}

fn check_signature(cx: &mut Ctxt, f: &ToolFn) {
    let sig = &f.item.sig;
    if !sig.generics.params.is_empty() {
        cx.error_spanned_by(
            &sig.generics,
            "a tool cannot be generic: its schema is fixed when it is defined; use concrete types",
        );
    }
    if let Some(where_clause) = &sig.generics.where_clause {
        cx.error_spanned_by(
            where_clause,
            "a tool cannot have a where clause: its types are fixed when it is defined",
        );
    }
    if let Some(FnArg::Receiver(receiver)) = sig.inputs.first() {
        cx.error_spanned_by(
            receiver,
            "#[tool] goes on free functions, not methods; take shared state as a context value: \
             `#[ctx] state: State<T>`",
        );
    }
    if let syn::Safety::Unsafe(unsafety) = &sig.safety {
        cx.error_spanned_by(unsafety, "a tool cannot be an unsafe fn");
    }
    if let Some(abi) = &sig.abi {
        cx.error_spanned_by(abi, "a tool is a Rust function; remove the extern ABI");
    }
    if let Some(variadic) = &sig.variadic {
        cx.error_spanned_by(variadic, "a tool cannot be variadic");
    }
    for arg in &sig.inputs {
        if let FnArg::Typed(pt) = arg
            && let Some(t) = impl_trait_in(&pt.ty)
        {
            cx.error_spanned_by(
                t,
                "`impl Trait` parameters make a tool generic; use a concrete type",
            );
        }
    }
    if let syn::ReturnType::Type(_, ty) = &sig.output
        && let Some(t) = impl_trait_in(ty)
    {
        cx.error_spanned_by(
            t,
            "a tool returns a concrete type (its schema is recorded); replace `impl Trait`",
        );
    }
}

/// The first `impl Trait` anywhere in a type (`Vec<impl Display>` included).
pub(crate) fn impl_trait_in(ty: &Type) -> Option<&Type> {
    match ty {
        Type::ImplTrait(_) => Some(ty),
        Type::Reference(r) => impl_trait_in(&r.elem),
        Type::Slice(s) => impl_trait_in(&s.elem),
        Type::Array(a) => impl_trait_in(&a.elem),
        Type::Ptr(p) => impl_trait_in(&p.elem),
        Type::Paren(p) => impl_trait_in(&p.elem),
        Type::Group(g) => impl_trait_in(&g.elem),
        Type::Tuple(t) => t.elems.iter().find_map(impl_trait_in),
        Type::Path(p) => p.path.segments.iter().find_map(|seg| match &seg.arguments {
            syn::PathArguments::AngleBracketed(args) => args.args.iter().find_map(|a| match a {
                syn::GenericArgument::Type(t) => impl_trait_in(t),
                _ => None,
            }),
            _ => None,
        }),
        _ => None,
    }
}

fn check_params(cx: &mut Ctxt, f: &ToolFn) {
    let whole: Vec<_> = f
        .params
        .iter()
        .filter(|p| matches!(p.kind, ParamKind::Whole { .. }))
        .collect();
    for extra in whole.iter().skip(1) {
        cx.error_spanned_by(
            &extra.tokens,
            "only one parameter is marked #[input]: it is the whole input",
        );
    }
    let first_plain = f
        .params
        .iter()
        .find(|p| matches!(p.kind, ParamKind::Field(_)));
    if let (Some(_), Some(plain)) = (whole.first(), first_plain) {
        cx.error_spanned_by(
            &plain.tokens,
            "the tool takes the whole input (#[input]), so it cannot also take input fields; \
             move this one into the #[input] type, or mark it #[ctx] if the context gives it",
        );
    }
    let mut body: Option<&Field> = None;
    for field in f.fields() {
        let Some(flag) = field.args.body.filter(|b| b.value) else {
            continue;
        };
        match body {
            Some(first) => cx.error_at(
                flag.span,
                format!(
                    "only one parameter takes the tag body; `{}` takes it already",
                    first.key()
                ),
            ),
            None => body = Some(field),
        }
    }
    let mut keys = BTreeSet::new();
    for field in f.fields() {
        let key = field.key();
        if !keys.insert(key.clone()) {
            let at = field
                .args
                .rename
                .as_ref()
                .map_or(field.ident.span(), LitStr::span);
            cx.error_at(
                at,
                format!("two parameters would both be the input key `{key}`"),
            );
        }
        if let Some(rename) = &field.args.rename
            && rename.value().trim().is_empty()
        {
            cx.error_spanned_by(rename, "rename needs a non-empty key");
        }
        if let Some(d) = &field.args.description
            && d.value().trim().is_empty()
        {
            cx.error_spanned_by(d, "the description is empty; say what the parameter means");
        }
    }
}

fn check_name(cx: &mut Ctxt, attrs: &ToolAttrs, f: &ToolFn) -> String {
    let (name, span) = match &attrs.name {
        Some(lit) => (lit.value(), lit.span()),
        None => {
            let ident = syn::ext::IdentExt::unraw(&f.item.sig.ident);
            (ident.to_string(), f.item.sig.ident.span())
        }
    };
    // A name spelt out may be one word (it may have to match a name someone else chose);
    // a function's own name must be two.
    let problem = if attrs.name.is_some() {
        tool_grammar::tool_name_form_problem(&name)
    } else {
        tool_grammar::tool_name_problem(&name)
    };
    if let Err(reason) = problem {
        let fix = if attrs.name.is_some() {
            String::new()
        } else if tool_grammar::tool_name_form_problem(&name).is_ok() {
            format!("; rename the function, or keep the one word with #[tool(name = \"{name}\")]")
        } else {
            "; rename the function or set #[tool(name = \"...\")]".to_owned()
        };
        cx.error_at(span, format!("{reason}{fix}"));
    }
    name
}

/// `task_after` says when a call becomes a task: a tool that is never one has no use for it.
fn check_task_after(cx: &mut Ctxt, attrs: &ToolAttrs) -> Option<u64> {
    let after = attrs.task_after?;
    if attrs.task.unwrap_or_default() == TaskMode::Forbidden {
        cx.error_at(
            after.span,
            "`task_after` says when a call becomes a task, and this tool is never one: add \
             `task` (or `task = \"required\"`), or remove `task_after`",
        );
        return None;
    }
    Some(after.millis)
}

fn check_required(cx: &mut Ctxt, attrs: &ToolAttrs) {
    let missing = [
        (
            attrs.domain.is_none(),
            "domain",
            "the declared domain the tool belongs to, e.g. `domain = time`",
        ),
        (
            attrs.label.is_none(),
            "label",
            "the text shown while it runs, e.g. `label = \"Reading the clock\"`",
        ),
        (
            attrs.hint.is_none(),
            "hint",
            "one catalog sentence, e.g. `hint = \"Current time in any time zone\"`",
        ),
    ];
    for (is_missing, key, what) in missing {
        // A key written with a bad value, or misspelled, is reported as that, not as missing.
        if is_missing && attrs.lacks(key) {
            cx.error_at(
                Span::call_site(),
                format!("#[tool] is missing `{key}`: {what}"),
            );
        }
    }
    for lit in [&attrs.label, &attrs.hint].into_iter().flatten() {
        if lit.value().trim().is_empty() {
            cx.error_spanned_by(lit, "this text is empty");
        } else if lit.value().contains('\n') {
            cx.error_spanned_by(lit, "keep this to one line");
        }
    }
}

/// Resolves read_only/destructive: read-only is the default; `destructive` and `idempotent`
/// each imply a tool that writes (idempotence says what a second identical write does, so it
/// means something only for a tool that writes), unless `read_only` is given; `read_only`
/// with `destructive` is an error.
fn check_annotations(cx: &mut Ctxt, attrs: &ToolAttrs) -> (bool, bool) {
    let destructive = attrs.destructive.is_some_and(|f| f.value);
    let idempotent = attrs.idempotent.is_some_and(|f| f.value);
    match attrs.read_only {
        Some(ro) if ro.value && destructive => {
            cx.error_at(
                ro.span,
                "a tool cannot be both read_only and destructive; a destructive tool changes things",
            );
            (false, true)
        }
        Some(ro) => (ro.value, destructive),
        None => (!(destructive || idempotent), destructive),
    }
}

fn check_examples(cx: &mut Ctxt, attrs: &ToolAttrs, f: &ToolFn) -> Vec<(String, String)> {
    let has_whole = f
        .params
        .iter()
        .any(|p| matches!(p.kind, ParamKind::Whole { .. }));
    let keys: Vec<String> = f.fields().map(|f| f.key()).collect();
    let mut labels = BTreeSet::new();
    let mut out = Vec::new();
    for ex in &attrs.examples {
        let label = ex.label.value();
        if label.trim().is_empty() {
            cx.error_spanned_by(&ex.label, "an example needs a label saying what it shows");
        } else if !labels.insert(label.clone()) {
            cx.error_spanned_by(&ex.label, format!("two examples are labelled `{label}`"));
        }
        let value: serde_json::Value = match serde_json::from_str(&ex.input.value()) {
            Ok(v) => v,
            Err(e) => {
                cx.error_spanned_by(
                    &ex.input,
                    format!("example `{label}` is not valid JSON: {e}"),
                );
                continue;
            }
        };
        let Some(object) = value.as_object() else {
            cx.error_spanned_by(
                &ex.input,
                format!("example `{label}` must be a JSON object of the tool's parameters"),
            );
            continue;
        };
        if !has_whole {
            for key in object.keys() {
                if !keys.contains(key) {
                    let expected = if keys.is_empty() {
                        "the tool takes no parameters".to_owned()
                    } else {
                        format!("the parameters are: {}", keys.join(", "))
                    };
                    cx.error_spanned_by(
                        &ex.input,
                        format!("example `{label}` has the key `{key}`, which names no parameter; {expected}"),
                    );
                }
            }
        }
        out.push((label, value.to_string()));
    }
    out
}
