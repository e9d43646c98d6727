//! Parsing of the attribute arguments: `#[tool(...)]`, `#[arg(...)]` on parameters, and
//! `#[data(...)]`. Parsing only: what the values mean is checked in `valid`.

use proc_macro2::{Span, TokenStream};
use syn::parse::Parser;
use syn::punctuated::Punctuated;
use syn::{Expr, Lit, LitInt, LitStr, Path, Token, meta::ParseNestedMeta};

use crate::ctxt::Ctxt;

/// The keys `#[tool(...)]` accepts, in the order the docs list them.
pub const TOOL_KEYS: &[&str] = &[
    "domain",
    "label",
    "hint",
    "core",
    "name",
    "source",
    "view",
    "card",
    "visibility",
    "icon",
    "examples",
    "read_only",
    "destructive",
    "idempotent",
    "open_world",
    "voiced",
    "blocking",
    "task",
    "task_after",
    "approval",
    "feeds_back",
    "mirror",
    "timeout",
    "retries",
    "scopes",
    "check",
    "crate",
];

/// The `#[tool(...)]` keys that may be given more than once: each `icon` adds one.
const REPEATABLE_TOOL_KEYS: &[&str] = &["icon"];

/// The keys `#[data(...)]` accepts.
pub const DATA_KEYS: &[&str] = &["input", "output", "crate"];

/// The keys `#[arg(...)]` accepts.
pub const ARG_KEYS: &[&str] = &["description", "default", "rename", "body"];

/// The keys `icon(...)` accepts, MCP's `Icon` fields.
pub const ICON_KEYS: &[&str] = &["src", "mime_type", "sizes", "theme"];

/// A boolean key given as a bare flag (`core`) or with a value (`core = false`).
#[derive(Clone, Copy)]
pub struct Flag {
    pub value: bool,
    pub span: Span,
}

/// Whether a call may, or must, be answered with an MCP task (`TaskSupport` in tool-core).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum TaskMode {
    #[default]
    Forbidden,
    Optional,
    Required,
}

/// One `"label" => "json"` entry of `examples(...)`.
pub struct ExampleAttr {
    pub label: LitStr,
    pub input: LitStr,
}

/// `scopes("issues:write", "repo")`: the OAuth scopes as written.
pub struct ScopesAttr {
    /// Where the key is, for errors about the list as a whole.
    pub key: Span,
    /// The scopes, in order.
    pub scopes: Vec<LitStr>,
}

/// `sizes("48x48", "96x96")`: string literals in parentheses, as written.
pub struct StringList {
    /// Where the key is, for errors about the list as a whole.
    pub key: Span,
    /// The strings, in order.
    pub items: Vec<LitStr>,
}

/// One `icon = "..."` or `icon(src = "...", mime_type = "...", sizes(...), theme = "...")`.
#[derive(Default)]
pub struct IconAttr {
    /// Where `icon` is written, for an error about the icon as a whole (no `src`).
    pub key: Option<Span>,
    pub src: Option<LitStr>,
    pub mime_type: Option<LitStr>,
    pub sizes: Option<StringList>,
    pub theme: Option<LitStr>,
    /// A key inside `icon(...)` could not be read: a missing `src` may only be unread.
    pub syntax_error: bool,
}

/// `approval`, `approval = false` or `approval = "Delete {path}?"`.
pub struct ApprovalAttr {
    /// Whether a call needs approval (`approval = false` says it does not).
    pub required: bool,
    /// The message template, when one is given.
    pub message: Option<LitStr>,
}

/// A time limit, in milliseconds.
#[derive(Clone, Copy)]
pub struct Timeout {
    pub millis: u64,
    /// Where it was written, for the errors about it.
    pub span: Span,
}

#[derive(Default)]
pub struct ToolAttrs {
    pub domain: Option<Path>,
    pub label: Option<LitStr>,
    pub hint: Option<LitStr>,
    pub core: Option<Flag>,
    pub name: Option<LitStr>,
    pub source: Option<LitStr>,
    /// `view = "cards/forecast.html"`: the tool's view, a file of the crate.
    pub view: Option<LitStr>,
    /// `card`: the framework's card as the tool's view.
    pub card: Option<Flag>,
    /// `visibility = "app"`: who the tool is offered to.
    pub visibility: Option<LitStr>,
    /// Each `icon`, in order.
    pub icons: Vec<IconAttr>,
    pub examples: Vec<ExampleAttr>,
    pub read_only: Option<Flag>,
    pub destructive: Option<Flag>,
    pub idempotent: Option<Flag>,
    pub open_world: Option<Flag>,
    pub voiced: Option<Flag>,
    pub blocking: Option<Flag>,
    /// `task` (or `task = "optional"`): the tool may run long, so an MCP client that declared
    /// tasks may be answered with a task to poll; `task = "required"`: it must be.
    pub task: Option<TaskMode>,
    /// `task_after = "0s"`: how long a call runs before it becomes a task (the server's
    /// threshold when absent).
    pub task_after: Option<Timeout>,
    /// `approval` or `approval = "message {arg}"`: a call needs a person's yes first.
    pub approval: Option<ApprovalAttr>,
    pub feeds_back: Option<Flag>,
    pub mirror: Option<Flag>,
    pub timeout: Option<Timeout>,
    pub retries: Option<LitInt>,
    pub scopes: Option<ScopesAttr>,
    pub check: Option<Flag>,
    /// `crate = "path"`: where the expansion finds tool-core (a framework that re-exports it).
    pub krate: Option<Path>,
    /// Keys written (even with a bad value), and keys an unknown key was taken to be a
    /// misspelling of: neither is reported missing.
    pub mentioned: Vec<&'static str>,
    /// A value could not be parsed: what is missing may only be unread.
    pub syntax_error: bool,
}

impl ToolAttrs {
    /// Whether the required `key` is absent and nothing was written that may have meant it.
    pub fn lacks(&self, key: &str) -> bool {
        !self.syntax_error && !self.mentioned.contains(&key)
    }
}

#[derive(Default)]
pub struct ArgAttrs {
    pub description: Option<LitStr>,
    pub default: Option<Expr>,
    pub rename: Option<LitStr>,
    /// The body of a tag call (`<tool>body</tool>`) fills this parameter.
    pub body: Option<Flag>,
}

/// Parses `#[tool(...)]`'s arguments; every problem goes into `cx` and parsing goes on: a bad
/// value is reported and the next key is read.
pub fn parse_tool_attrs(cx: &mut Ctxt, args: TokenStream) -> ToolAttrs {
    let mut attrs = ToolAttrs::default();
    let mut seen = Vec::new();
    let parser = syn::meta::parser(|meta| {
        let mentioned = &mut attrs.mentioned;
        let keys = Keys {
            valid: TOOL_KEYS,
            repeatable: REPEATABLE_TOOL_KEYS,
            what: "#[tool]",
        };
        let key = match known_key(cx, &meta, keys, &mut seen, mentioned)? {
            Some(key) => key,
            None => return Ok(()),
        };
        if let Err(e) = tool_key(cx, &mut attrs, key, &meta) {
            // A slip inside one value (`examples("a": "b")`): the keys after it are still read.
            cx.syn_error(e);
            attrs.syntax_error = true;
            skip_entry(&meta)?;
        }
        Ok(())
    });
    if let Err(e) = parser.parse2(args) {
        cx.syn_error(e);
        attrs.syntax_error = true;
    }
    attrs
}

/// `#[data(...)]`'s arguments: which way the type goes, and where tool-core is.
#[derive(Default)]
pub struct DataAttrs {
    /// `input`: the type is only read from a model's input (no `Serialize`).
    pub input: Option<Flag>,
    /// `output`: the type is only written out (no `Deserialize`).
    pub output: Option<Flag>,
    /// `crate = "path"`: where the expansion finds tool-core.
    pub krate: Option<Path>,
}

/// Parses `#[data(...)]`'s arguments, every problem into `cx`, as `parse_tool_attrs` does.
pub fn parse_data_attrs(cx: &mut Ctxt, args: TokenStream) -> DataAttrs {
    let mut attrs = DataAttrs::default();
    let mut seen = Vec::new();
    let mut mentioned = Vec::new();
    let parser = syn::meta::parser(|meta| {
        let keys = Keys {
            valid: DATA_KEYS,
            repeatable: &[],
            what: "#[data]",
        };
        let Some(key) = known_key(cx, &meta, keys, &mut seen, &mut mentioned)? else {
            return Ok(());
        };
        match key {
            "input" => attrs.input = flag(cx, key, &meta)?,
            "output" => attrs.output = flag(cx, key, &meta)?,
            _ => {
                let value: Expr = meta.value()?.parse()?;
                attrs.krate = krate(cx, &value);
            }
        }
        Ok(())
    });
    if let Err(e) = parser.parse2(args) {
        cx.syn_error(e);
    }
    attrs
}

/// Reads the value of one known `#[tool]` key.
fn tool_key(
    cx: &mut Ctxt,
    attrs: &mut ToolAttrs,
    key: &'static str,
    meta: &ParseNestedMeta,
) -> syn::Result<()> {
    match key {
        "examples" => attrs.examples = examples(meta)?,
        "scopes" => attrs.scopes = scopes(cx, meta)?,
        "icon" => attrs.icons.extend(icon(cx, meta)?),
        "approval" => attrs.approval = approval(cx, meta)?,
        "task" => attrs.task = task(cx, meta)?,
        "core" | "read_only" | "destructive" | "idempotent" | "open_world" | "voiced"
        | "blocking" | "feeds_back" | "mirror" | "check" | "card" => {
            let flag = flag(cx, key, meta)?;
            let slot = match key {
                "core" => &mut attrs.core,
                "read_only" => &mut attrs.read_only,
                "destructive" => &mut attrs.destructive,
                "idempotent" => &mut attrs.idempotent,
                "open_world" => &mut attrs.open_world,
                "voiced" => &mut attrs.voiced,
                "blocking" => &mut attrs.blocking,
                "feeds_back" => &mut attrs.feeds_back,
                "mirror" => &mut attrs.mirror,
                "card" => &mut attrs.card,
                _ => &mut attrs.check,
            };
            *slot = flag;
        }
        _ => {
            let value: Expr = meta.value()?.parse()?;
            match key {
                "domain" => attrs.domain = path(cx, &value),
                "label" => attrs.label = lit_str(cx, key, &value),
                "hint" => attrs.hint = lit_str(cx, key, &value),
                "name" => attrs.name = lit_str(cx, key, &value),
                "source" => attrs.source = lit_str(cx, key, &value),
                "view" => attrs.view = lit_str(cx, key, &value),
                "visibility" => attrs.visibility = lit_str(cx, key, &value),
                "retries" => attrs.retries = lit_int(cx, key, &value),
                "timeout" => attrs.timeout = timeout(cx, &value),
                "task_after" => attrs.task_after = task_after(cx, &value),
                "crate" => attrs.krate = krate(cx, &value),
                _ => unreachable!("every key of TOOL_KEYS is matched"),
            }
        }
    }
    Ok(())
}

/// `approval` alone, or with a boolean or a message.
fn approval(cx: &mut Ctxt, meta: &ParseNestedMeta) -> syn::Result<Option<ApprovalAttr>> {
    if !meta.input.peek(Token![=]) {
        return Ok(Some(ApprovalAttr {
            required: true,
            message: None,
        }));
    }
    let value: Expr = meta.value()?.parse()?;
    Ok(match &value {
        Expr::Lit(syn::ExprLit {
            lit: Lit::Str(message),
            ..
        }) => Some(ApprovalAttr {
            required: true,
            message: Some(message.clone()),
        }),
        Expr::Lit(syn::ExprLit {
            lit: Lit::Bool(flag),
            ..
        }) => Some(ApprovalAttr {
            required: flag.value,
            message: None,
        }),
        other => {
            cx.error_spanned_by(
                other,
                "`approval` is a flag, or the message a person reads, its `{name}`s the \
                 arguments: approval = \"Delete {path}?\"",
            );
            None
        }
    })
}

/// Skips what is left of one `key = value` entry, up to the comma before the next key.
pub(crate) fn skip_entry(meta: &ParseNestedMeta) -> syn::Result<()> {
    while !meta.input.is_empty() && !meta.input.peek(Token![,]) {
        meta.input.parse::<proc_macro2::TokenTree>()?;
    }
    Ok(())
}

/// `crate = "path::to::tool_core"`, as serde's `crate` attribute is written.
pub(crate) fn krate(cx: &mut Ctxt, value: &Expr) -> Option<Path> {
    let lit = lit_str(cx, "crate", value)?;
    match lit.parse::<Path>() {
        Ok(path) => Some(path),
        Err(_) => {
            cx.error_spanned_by(
                &lit,
                "`crate` is the path tool-core is reached by, e.g. crate = \"my_framework::tool_core\"",
            );
            None
        }
    }
}

pub(crate) fn lit_str(cx: &mut Ctxt, key: &str, value: &Expr) -> Option<LitStr> {
    match value {
        Expr::Lit(syn::ExprLit {
            lit: Lit::Str(s), ..
        }) => Some(s.clone()),
        other => {
            cx.error_spanned_by(
                other,
                format!("`{key}` takes a string literal: {key} = \"...\""),
            );
            None
        }
    }
}

fn lit_int(cx: &mut Ctxt, key: &str, value: &Expr) -> Option<LitInt> {
    match value {
        Expr::Lit(syn::ExprLit {
            lit: Lit::Int(i), ..
        }) => Some(i.clone()),
        other => {
            cx.error_spanned_by(other, format!("`{key}` takes a whole number: {key} = 3"));
            None
        }
    }
}

fn path(cx: &mut Ctxt, value: &Expr) -> Option<Path> {
    match value {
        Expr::Path(p) if p.qself.is_none() => Some(p.path.clone()),
        other => {
            cx.error_spanned_by(
                other,
                "`domain` names a domain declared with tool_core::domain!: domain = time",
            );
            None
        }
    }
}

/// Parses one `#[arg(...)]`'s arguments into `attrs`.
pub fn parse_arg_attr(cx: &mut Ctxt, attr: &syn::Attribute, attrs: &mut ArgAttrs) {
    let mut seen = Vec::new();
    let mut mentioned = Vec::new();
    let result = attr.parse_nested_meta(|meta| {
        let keys = Keys {
            valid: ARG_KEYS,
            repeatable: &[],
            what: "#[arg]",
        };
        let Some(key) = known_key(cx, &meta, keys, &mut seen, &mut mentioned)? else {
            return Ok(());
        };
        if key == "body" {
            attrs.body = flag(cx, key, &meta)?;
            return Ok(());
        }
        let value: Expr = meta.value()?.parse()?;
        let duplicate = match key {
            "description" => {
                let lit = lit_str(cx, key, &value);
                std::mem::replace(&mut attrs.description, lit).is_some()
            }
            "rename" => {
                let lit = lit_str(cx, key, &value);
                std::mem::replace(&mut attrs.rename, lit).is_some()
            }
            "default" => attrs.default.replace(value).is_some(),
            _ => unreachable!("every key of ARG_KEYS is matched"),
        };
        if duplicate {
            cx.error_spanned_by(&meta.path, format!("duplicate `{key}` for this parameter"));
        }
        Ok(())
    });
    if let Err(e) = result {
        cx.syn_error(e);
    }
}

/// The keys of one attribute (or of one nested list, as `icon(...)`), for [`known_key`].
#[derive(Clone, Copy)]
pub(crate) struct Keys {
    /// Every key it accepts.
    pub(crate) valid: &'static [&'static str],
    /// Those of them that may be given more than once.
    pub(crate) repeatable: &'static [&'static str],
    /// How errors name it: `#[tool]`.
    pub(crate) what: &'static str,
}

/// Returns the key if it is one of `keys` and not seen before (or repeatable); otherwise
/// records the error, skips the value so parsing can go on, and returns `None`. A key near a
/// valid one (`lable`) is taken to be that key misspelled: the error names it, and it counts as
/// `mentioned`.
pub(crate) fn known_key(
    cx: &mut Ctxt,
    meta: &ParseNestedMeta,
    keys: Keys,
    seen: &mut Vec<&'static str>,
    mentioned: &mut Vec<&'static str>,
) -> syn::Result<Option<&'static str>> {
    let Keys {
        valid: keys,
        repeatable,
        what,
    } = keys;
    let found = meta
        .path
        .get_ident()
        .and_then(|ident| keys.iter().find(|k| ident == *k));
    let Some(&key) = found else {
        let shown = quote::ToTokens::to_token_stream(&meta.path).to_string();
        let shown = shown.replace(' ', "");
        let message = match nearest(&shown, keys) {
            Some(near) => {
                mentioned.push(near);
                format!("unknown key `{shown}` in {what}; did you mean `{near}`?")
            }
            None => format!(
                "unknown key `{shown}` in {what}; expected one of: {}",
                keys.join(", ")
            ),
        };
        cx.error_spanned_by(&meta.path, message);
        skip_value(meta)?;
        return Ok(None);
    };
    mentioned.push(key);
    if seen.contains(&key) && !repeatable.contains(&key) {
        cx.error_spanned_by(
            &meta.path,
            format!("duplicate key `{key}` in {what}; give it once"),
        );
        skip_value(meta)?;
        return Ok(None);
    }
    seen.push(key);
    Ok(Some(key))
}

/// The key `word` is most likely a misspelling of: within one edit (a letter added, removed,
/// changed, or two swapped) for short keys, two for longer ones.
fn nearest(word: &str, keys: &[&'static str]) -> Option<&'static str> {
    let close = |key: &str, distance: usize| {
        // `retry` for `retries`: a key that starts with all of the word but its last letter.
        let stem = word.char_indices().last().map_or("", |(i, _)| &word[..i]);
        distance <= if key.len() > 6 { 2 } else { 1 } || (stem.len() >= 4 && key.starts_with(stem))
    };
    keys.iter()
        .map(|key| (strsim::osa_distance(word, key), *key))
        .filter(|(distance, key)| close(key, *distance))
        .min_by_key(|(distance, _)| *distance)
        .map(|(_, key)| key)
}

fn skip_value(meta: &ParseNestedMeta) -> syn::Result<()> {
    if meta.input.peek(Token![=]) {
        meta.value()?.parse::<Expr>()?;
    } else if meta.input.peek(syn::token::Paren) {
        let content;
        syn::parenthesized!(content in meta.input);
        content.parse::<TokenStream>()?;
    }
    Ok(())
}

fn flag(cx: &mut Ctxt, key: &str, meta: &ParseNestedMeta) -> syn::Result<Option<Flag>> {
    if !meta.input.peek(Token![=]) {
        return Ok(Some(Flag {
            value: true,
            span: meta.path.span_of_ident(),
        }));
    }
    let value: Expr = meta.value()?.parse()?;
    match &value {
        Expr::Lit(syn::ExprLit {
            lit: Lit::Bool(b), ..
        }) => Ok(Some(Flag {
            value: b.value,
            span: b.span,
        })),
        other => {
            cx.error_spanned_by(
                other,
                format!("`{key}` is a flag: write `{key}` or `{key} = true` / `{key} = false`"),
            );
            Ok(None)
        }
    }
}

/// `task`, `task = true` / `false`, or `task = "optional"` / `"required"` / `"forbidden"`.
fn task(cx: &mut Ctxt, meta: &ParseNestedMeta) -> syn::Result<Option<TaskMode>> {
    if !meta.input.peek(Token![=]) {
        return Ok(Some(TaskMode::Optional));
    }
    let value: Expr = meta.value()?.parse()?;
    let mode = match &value {
        Expr::Lit(syn::ExprLit {
            lit: Lit::Bool(b), ..
        }) if b.value => TaskMode::Optional,
        Expr::Lit(syn::ExprLit {
            lit: Lit::Bool(_), ..
        }) => TaskMode::Forbidden,
        Expr::Lit(syn::ExprLit {
            lit: Lit::Str(s), ..
        }) => match s.value().as_str() {
            "optional" => TaskMode::Optional,
            "required" => TaskMode::Required,
            "forbidden" => TaskMode::Forbidden,
            other => {
                cx.error_spanned_by(
                    s,
                    format!(
                        "`{other}` is not a task mode: write `task` (or `task = \"optional\"`) \
                         for a call that may become a task, `task = \"required\"` for one that \
                         must"
                    ),
                );
                return Ok(None);
            }
        },
        other => {
            cx.error_spanned_by(
                other,
                "`task` is a flag or a mode: write `task`, `task = false`, \
                 `task = \"optional\"` or `task = \"required\"`",
            );
            return Ok(None);
        }
    };
    Ok(Some(mode))
}

trait SpanOfIdent {
    fn span_of_ident(&self) -> Span;
}

impl SpanOfIdent for Path {
    fn span_of_ident(&self) -> Span {
        self.segments
            .last()
            .map_or_else(Span::call_site, |s| s.ident.span())
    }
}

/// `timeout = "30s"` or `timeout = 30s` (also `ms`, `m` and `h`).
fn timeout(cx: &mut Ctxt, value: &Expr) -> Option<Timeout> {
    let text = match value {
        Expr::Lit(syn::ExprLit {
            lit: Lit::Str(s), ..
        }) => s.value(),
        Expr::Lit(syn::ExprLit {
            lit: Lit::Int(i), ..
        }) => i.to_string(),
        other => {
            cx.error_spanned_by(
                other,
                "`timeout` takes a duration: timeout = 30s, 500ms, 2m or 1h",
            );
            return None;
        }
    };
    match parse_duration(&text) {
        Some(millis) if millis > 0 && millis <= 24 * 60 * 60 * 1000 => Some(Timeout {
            millis,
            span: syn::spanned::Spanned::span(value),
        }),
        Some(_) => {
            cx.error_spanned_by(value, "timeout must be between 1ms and 24h");
            None
        }
        None => {
            cx.error_spanned_by(
                value,
                format!("cannot read `{text}` as a timeout; write a number with a unit: 500ms, 30s, 2m or 1h"),
            );
            None
        }
    }
}

/// `task_after = "0s"` (or `500ms`, `2m`): from none to 24 hours.
fn task_after(cx: &mut Ctxt, value: &Expr) -> Option<Timeout> {
    let text = match value {
        Expr::Lit(syn::ExprLit {
            lit: Lit::Str(s), ..
        }) => s.value(),
        other => {
            cx.error_spanned_by(
                other,
                "`task_after` takes a duration: task_after = \"0s\", \"500ms\" or \"2m\"",
            );
            return None;
        }
    };
    match parse_duration(&text) {
        Some(millis) if millis <= 24 * 60 * 60 * 1000 => Some(Timeout {
            millis,
            span: syn::spanned::Spanned::span(value),
        }),
        Some(_) => {
            cx.error_spanned_by(value, "task_after must be at most 24h");
            None
        }
        None => {
            cx.error_spanned_by(
                value,
                format!(
                    "cannot read `{text}` as a duration; write a number with a unit: 0s, 500ms, \
                     30s or 2m"
                ),
            );
            None
        }
    }
}

/// Milliseconds in `500ms`, `30s`, `2m` (and the same with spaces or `_` in the number).
pub fn parse_duration(text: &str) -> Option<u64> {
    let text = text.trim();
    let split = text.find(|c: char| !c.is_ascii_digit() && c != '_')?;
    let (number, unit) = text.split_at(split);
    let number: u64 = number.replace('_', "").parse().ok()?;
    let scale = match unit.trim() {
        "ms" => 1,
        "s" => 1000,
        "m" | "min" => 60_000,
        "h" => 3_600_000,
        _ => return None,
    };
    number.checked_mul(scale)
}

/// `scopes("issues:write", "repo")`: string literals in parentheses. Any other form is one
/// error, on what was written instead.
pub(crate) fn scopes(cx: &mut Ctxt, meta: &ParseNestedMeta) -> syn::Result<Option<ScopesAttr>> {
    let list = string_list(
        cx,
        meta,
        ListForm {
            key: "scopes",
            example: "scopes(\"issues:write\", \"repo\")",
            entry: "a scope is a string literal, e.g. scopes(\"issues:write\")",
        },
    )?;
    Ok(list.map(|list| ScopesAttr {
        key: list.key,
        scopes: list.items,
    }))
}

/// How a list of string literals is written, for the errors about other forms.
struct ListForm {
    /// The key: `scopes`.
    key: &'static str,
    /// The list written well: `scopes("issues:write", "repo")`.
    example: &'static str,
    /// What an entry is: `a scope is a string literal, e.g. ...`.
    entry: &'static str,
}

/// `key("a", "b")`: string literals in parentheses. Any other form is one error, on what was
/// written instead; `None` then, and for a list with an entry that is not a string (reported
/// already, and not to be judged again: it could look empty).
fn string_list(
    cx: &mut Ctxt,
    meta: &ParseNestedMeta,
    form: ListForm,
) -> syn::Result<Option<StringList>> {
    let ListForm {
        key: name,
        example,
        entry,
    } = form;
    let key = meta.path.span_of_ident();
    if meta.input.peek(Token![=]) {
        let value: Expr = meta.value()?.parse()?;
        let message = match &value {
            Expr::Lit(syn::ExprLit {
                lit: Lit::Str(s), ..
            }) => format!(
                "`{name}` takes string literals in parentheses: {name}({})",
                quote::ToTokens::to_token_stream(s)
            ),
            _ => format!("`{name}` takes string literals in parentheses: {example}"),
        };
        cx.error_spanned_by(&value, message);
        return Ok(None);
    }
    if !meta.input.peek(syn::token::Paren) {
        cx.error_at(
            key,
            format!("`{name}` takes string literals in parentheses: {example}"),
        );
        return Ok(None);
    }
    let content;
    syn::parenthesized!(content in meta.input);
    let entries = match Punctuated::<Expr, Token![,]>::parse_terminated(&content) {
        Ok(entries) => entries,
        Err(e) => {
            // What is left of the parentheses is part of the same mistake: one error, not two.
            content.parse::<TokenStream>()?;
            return Err(e);
        }
    };
    let mut items = Vec::new();
    let mut all_strings = true;
    for item in entries {
        match item {
            Expr::Lit(syn::ExprLit {
                lit: Lit::Str(s), ..
            }) => items.push(s),
            other => {
                cx.error_spanned_by(&other, entry);
                all_strings = false;
            }
        }
    }
    Ok(all_strings.then_some(StringList { key, items }))
}

/// `icon = "https://..."`, or `icon(src = "...", mime_type = "...", sizes("48x48"), theme =
/// "dark")`. Its values are checked in `valid`; here, the form, and the keys of the list.
fn icon(cx: &mut Ctxt, meta: &ParseNestedMeta) -> syn::Result<Option<IconAttr>> {
    const FORM: &str = "`icon` takes a link, icon = \"https://example.com/icon.png\", or the \
                        parts of one: icon(src = \"...\", mime_type = \"image/png\", \
                        sizes(\"48x48\"), theme = \"dark\")";
    let key = meta.path.span_of_ident();
    let mut icon = IconAttr {
        key: Some(key),
        ..IconAttr::default()
    };
    if meta.input.peek(Token![=]) {
        let value: Expr = meta.value()?.parse()?;
        return Ok(match &value {
            Expr::Lit(syn::ExprLit {
                lit: Lit::Str(s), ..
            }) => {
                icon.src = Some(s.clone());
                Some(icon)
            }
            other => {
                cx.error_spanned_by(other, FORM);
                None
            }
        });
    }
    if !meta.input.peek(syn::token::Paren) {
        cx.error_at(key, FORM);
        return Ok(None);
    }
    let mut seen = Vec::new();
    let mut mentioned = Vec::new();
    let keys = Keys {
        valid: ICON_KEYS,
        repeatable: &[],
        what: "icon(...)",
    };
    meta.parse_nested_meta(|inner| {
        let Some(part) = known_key(cx, &inner, keys, &mut seen, &mut mentioned)? else {
            return Ok(());
        };
        if part == "sizes" {
            let form = ListForm {
                key: "sizes",
                example: "sizes(\"48x48\", \"96x96\")",
                entry: "a size is a string literal, e.g. sizes(\"48x48\") or sizes(\"any\")",
            };
            match string_list(cx, &inner, form)? {
                Some(list) => icon.sizes = Some(list),
                None => icon.syntax_error = true,
            }
            return Ok(());
        }
        let value: Expr = inner.value()?.parse()?;
        let lit = lit_str(cx, part, &value);
        icon.syntax_error |= lit.is_none();
        match part {
            "src" => icon.src = lit,
            "mime_type" => icon.mime_type = lit,
            "theme" => icon.theme = lit,
            _ => unreachable!("every key of ICON_KEYS is matched"),
        }
        Ok(())
    })?;
    // A misspelled `src` (`scr`) was reported as that; it is not also missing.
    icon.syntax_error |= mentioned.contains(&"src") && icon.src.is_none();
    Ok(Some(icon))
}

/// `examples("label" => "json", ...)`.
fn examples(meta: &ParseNestedMeta) -> syn::Result<Vec<ExampleAttr>> {
    let content;
    syn::parenthesized!(content in meta.input);
    let entries = Punctuated::<ExampleAttr, Token![,]>::parse_terminated_with(&content, |input| {
        let label: LitStr = input.parse()?;
        input.parse::<Token![=>]>()?;
        let input: LitStr = input.parse()?;
        Ok(ExampleAttr { label, input })
    });
    if entries.is_err() {
        // What is left of the parentheses is part of the same mistake: one error, not two.
        content.parse::<TokenStream>()?;
    }
    Ok(entries?.into_iter().collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use quote::quote;

    /// Every error `cx` gathered, as text; it must have gathered at least one.
    fn messages(cx: Ctxt) -> Vec<String> {
        let errors = cx.check().expect_err("an error was reported");
        errors.into_iter().map(|e| e.to_string()).collect()
    }

    #[test]
    fn durations() {
        assert_eq!(parse_duration("500ms"), Some(500));
        assert_eq!(parse_duration("30s"), Some(30_000));
        assert_eq!(parse_duration("2m"), Some(120_000));
        assert_eq!(parse_duration("1_000ms"), Some(1000));
        assert_eq!(parse_duration("30"), None);
        assert_eq!(parse_duration("s"), None);
        assert_eq!(parse_duration("3h"), Some(10_800_000));
        assert_eq!(parse_duration("3d"), None);
        assert_eq!(parse_duration("99999999999999999999m"), None);
    }

    proptest::proptest! {
        #[test]
        fn durations_never_panic_and_round_trip(text in ".{0,12}", n in 0u64..1_000_000) {
            let _ = parse_duration(&text);
            proptest::prop_assert_eq!(parse_duration(&format!("{n}ms")), Some(n));
            proptest::prop_assert_eq!(parse_duration(&format!("{n}s")), Some(n * 1000));
        }
    }

    #[test]
    fn a_misspelled_key_names_the_key_meant() {
        assert_eq!(nearest("lable", TOOL_KEYS), Some("label"));
        assert_eq!(nearest("retry", TOOL_KEYS), Some("retries"));
        assert_eq!(nearest("readonly", TOOL_KEYS), Some("read_only"));
        assert_eq!(nearest("colour", TOOL_KEYS), None);
        let mut cx = Ctxt::default();
        let attrs = parse_tool_attrs(&mut cx, quote!(domain = time, lable = "x", hint = "y"));
        assert!(attrs.label.is_none() && !attrs.lacks("label"));
        let errors = cx.check().unwrap_err().into_iter().count();
        assert_eq!(errors, 1);
    }

    #[test]
    fn keys_after_a_slip_in_one_value_are_still_read() {
        let mut cx = Ctxt::default();
        let attrs = parse_tool_attrs(
            &mut cx,
            quote!(domain = time, examples("Paris now": r#"{}"#), label = "Reading", hint = "h"),
        );
        assert!(attrs.syntax_error);
        assert_eq!(attrs.label.map(|l| l.value()).as_deref(), Some("Reading"));
        assert_eq!(attrs.hint.map(|l| l.value()).as_deref(), Some("h"));
        let errors = messages(cx);
        assert_eq!(errors.len(), 1, "{errors:?}");
    }

    #[test]
    fn crate_names_where_tool_core_is() {
        let mut cx = Ctxt::default();
        let attrs = parse_tool_attrs(&mut cx, quote!(crate = "my_framework::tool_core"));
        let krate = attrs.krate.expect("a path");
        assert_eq!(quote!(#krate).to_string(), "my_framework :: tool_core");
        let mut cx = Ctxt::default();
        let attrs = parse_tool_attrs(&mut cx, quote!(crate = "not a path"));
        assert!(attrs.krate.is_none() && cx.check().is_err());
    }

    #[test]
    fn every_problem_is_collected() {
        let mut cx = Ctxt::default();
        let attrs = parse_tool_attrs(
            &mut cx,
            quote!(
                labl = "x",
                label = "a",
                label = "b",
                core,
                timeout = 5d,
                hint = "h"
            ),
        );
        let messages = messages(cx);
        assert_eq!(messages.len(), 3, "{messages:?}");
        assert!(messages[0].starts_with("unknown key `labl`"));
        assert!(messages[1].starts_with("duplicate key `label`"));
        assert!(messages[2].contains("`5d`"));
        assert_eq!(attrs.label.unwrap().value(), "a");
        assert!(attrs.core.unwrap().value);
        assert_eq!(attrs.hint.unwrap().value(), "h");
    }

    #[test]
    fn a_bad_value_does_not_stop_the_parse() {
        let mut cx = Ctxt::default();
        let attrs = parse_tool_attrs(
            &mut cx,
            quote!(core = "yes", label = 5, hint = "h", domain = time),
        );
        let messages = messages(cx);
        assert_eq!(messages.len(), 2, "{messages:?}");
        assert!(messages[0].contains("`core` is a flag"));
        assert!(messages[1].contains("`label` takes a string literal"));
        assert_eq!(attrs.hint.unwrap().value(), "h");
        assert!(attrs.domain.is_some());
    }

    #[test]
    fn scopes_are_read_in_order_and_other_forms_are_one_error_each() {
        let mut cx = Ctxt::default();
        let attrs = parse_tool_attrs(&mut cx, quote!(scopes("issues:write", "repo"), core));
        assert!(cx.check().is_ok());
        let scopes: Vec<String> = attrs
            .scopes
            .unwrap()
            .scopes
            .iter()
            .map(LitStr::value)
            .collect();
        assert_eq!(scopes, ["issues:write", "repo"]);
        assert!(attrs.core.is_some());
        for (args, says) in [
            (quote!(scopes = "repo", core), "scopes(\"repo\")"),
            (quote!(scopes = [1], core), "in parentheses"),
            (quote!(scopes, core), "in parentheses"),
            (
                quote!(scopes(repo, "x"), core),
                "a scope is a string literal",
            ),
            (quote!(scopes("a" "b"), core), "expected `,`"),
        ] {
            let mut cx = Ctxt::default();
            let attrs = parse_tool_attrs(&mut cx, args.clone());
            let errors = messages(cx);
            assert_eq!(errors.len(), 1, "{args}: {errors:?}");
            assert!(errors[0].contains(says), "{args}: {errors:?}");
            assert!(attrs.scopes.is_none(), "{args}");
            assert!(attrs.core.is_some(), "{args}: the key after is read");
        }
        assert_eq!(nearest("scope", TOOL_KEYS), Some("scopes"));
    }

    #[test]
    fn icons_are_read_in_order_in_both_forms() {
        let mut cx = Ctxt::default();
        let attrs = parse_tool_attrs(
            &mut cx,
            quote!(
                icon = "https://example.com/a.png",
                mirror = false,
                icon(
                    src = "https://example.com/b.svg",
                    mime_type = "image/svg+xml",
                    sizes("any", "48x48"),
                    theme = "dark"
                ),
                core
            ),
        );
        assert!(cx.check().is_ok());
        assert_eq!(attrs.icons.len(), 2);
        let value = |lit: &Option<LitStr>| lit.as_ref().map(LitStr::value);
        assert_eq!(
            value(&attrs.icons[0].src).as_deref(),
            Some("https://example.com/a.png")
        );
        assert!(attrs.icons[0].sizes.is_none() && attrs.icons[0].theme.is_none());
        let b = &attrs.icons[1];
        assert_eq!(value(&b.mime_type).as_deref(), Some("image/svg+xml"));
        assert_eq!(value(&b.theme).as_deref(), Some("dark"));
        let sizes: Vec<String> = b
            .sizes
            .as_ref()
            .unwrap()
            .items
            .iter()
            .map(LitStr::value)
            .collect();
        assert_eq!(sizes, ["any", "48x48"]);
        assert!(!attrs.mirror.unwrap().value);
        assert!(attrs.core.is_some());
        assert_eq!(nearest("icons", TOOL_KEYS), Some("icon"));
    }

    #[test]
    fn icon_forms_and_keys_are_one_error_each() {
        for (args, says) in [
            (quote!(icon, core), "`icon` takes a link"),
            (quote!(icon = 5, core), "`icon` takes a link"),
            (
                quote!(icon(src = "a", colour = "b"), core),
                "unknown key `colour` in icon(...); expected one of: src, mime_type, sizes, theme",
            ),
            (
                quote!(icon(src = "a", size("1x1")), core),
                "unknown key `size` in icon(...); did you mean `sizes`?",
            ),
            (
                quote!(icon(src = "a", src = "b"), core),
                "duplicate key `src` in icon(...)",
            ),
            (quote!(icon(src = 5), core), "`src` takes a string literal"),
            (
                quote!(icon(src = "a", sizes = "48x48"), core),
                "sizes(\"48x48\")",
            ),
            (
                quote!(icon(src = "a", sizes(48)), core),
                "a size is a string literal",
            ),
        ] {
            let mut cx = Ctxt::default();
            let attrs = parse_tool_attrs(&mut cx, args.clone());
            let errors = messages(cx);
            assert_eq!(errors.len(), 1, "{args}: {errors:?}");
            assert!(errors[0].contains(says), "{args}: {errors:?}");
            assert!(attrs.core.is_some(), "{args}: the key after is read");
        }
        // A misspelled or unreadable `src` is not also reported missing.
        for args in [quote!(icon(scr = "a")), quote!(icon(src = 5))] {
            let mut cx = Ctxt::default();
            let attrs = parse_tool_attrs(&mut cx, args);
            assert!(attrs.icons[0].syntax_error);
        }
    }

    #[test]
    fn examples_and_flags() {
        let mut cx = Ctxt::default();
        let attrs = parse_tool_attrs(
            &mut cx,
            quote!(examples("a" => "{}", "b" => r#"{"x":1}"#), feeds_back = false, timeout = "250ms"),
        );
        assert!(cx.check().is_ok());
        assert_eq!(attrs.examples.len(), 2);
        assert!(!attrs.feeds_back.unwrap().value);
        assert_eq!(attrs.timeout.unwrap().millis, 250);
    }

    #[test]
    fn task_is_a_flag_or_a_mode() {
        for (args, mode) in [
            (quote!(task), TaskMode::Optional),
            (quote!(task = true), TaskMode::Optional),
            (quote!(task = false), TaskMode::Forbidden),
            (quote!(task = "optional"), TaskMode::Optional),
            (quote!(task = "required"), TaskMode::Required),
            (quote!(task = "forbidden"), TaskMode::Forbidden),
        ] {
            let mut cx = Ctxt::default();
            let attrs = parse_tool_attrs(&mut cx, args.clone());
            assert!(cx.check().is_ok(), "{args}");
            assert_eq!(attrs.task, Some(mode), "{args}");
        }
        let mut cx = Ctxt::default();
        let attrs = parse_tool_attrs(&mut cx, quote!(domain = time));
        assert!(cx.check().is_ok() && attrs.task.is_none());
        let mut cx = Ctxt::default();
        let attrs = parse_tool_attrs(&mut cx, quote!(task = "yes", core));
        let messages = messages(cx);
        assert_eq!(messages.len(), 1, "{messages:?}");
        assert!(
            messages[0].contains("`yes` is not a task mode"),
            "{messages:?}"
        );
        let mut cx = Ctxt::default();
        parse_tool_attrs(&mut cx, quote!(task = 3));
        let others = super::tests::messages(cx);
        assert!(
            others[0].contains("`task` is a flag or a mode"),
            "{others:?}"
        );
        assert!(attrs.task.is_none() && attrs.core.is_some());
        assert_eq!(nearest("tasks", TOOL_KEYS), Some("task"));
    }

    #[test]
    fn task_after_is_a_duration_from_none_to_a_day() {
        for (args, millis) in [
            (quote!(task, task_after = "0s"), 0),
            (quote!(task, task_after = "250ms"), 250),
            (quote!(task, task_after = "2m"), 120_000),
            (quote!(task, task_after = "24h"), 86_400_000),
        ] {
            let mut cx = Ctxt::default();
            let attrs = parse_tool_attrs(&mut cx, args.clone());
            assert!(cx.check().is_ok(), "{args}");
            assert_eq!(attrs.task_after.map(|t| t.millis), Some(millis), "{args}");
        }
        for (args, expected) in [
            (quote!(task, task_after = "25h"), "at most 24h"),
            (
                quote!(task, task_after = "soon"),
                "cannot read `soon` as a duration",
            ),
            (
                quote!(task, task_after = 5),
                "`task_after` takes a duration",
            ),
        ] {
            let mut cx = Ctxt::default();
            let attrs = parse_tool_attrs(&mut cx, args.clone());
            let messages = messages(cx);
            assert_eq!(messages.len(), 1, "{args}: {messages:?}");
            assert!(messages[0].contains(expected), "{args}: {messages:?}");
            assert!(attrs.task_after.is_none(), "{args}");
        }
        assert_eq!(nearest("task_afer", TOOL_KEYS), Some("task_after"));
    }
}
