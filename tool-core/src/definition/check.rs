//! Every rule a definition must meet, for tests and for `toolctl check` in CI.
//!
//! Each [`Diagnostic`] names the tool, the format (when the rule is a provider's), the JSON
//! pointer, the rule and a fix. Errors mean a provider would reject the definition or a model
//! could not call the tool correctly; warnings mean something was lost or is worth a look.
//!
//! ```
//! use tool_core::definition::check::{CheckOptions, check_registry};
//! use tool_core::{registry::DynamicTool, Registry};
//! let mut registry = Registry::empty();
//! registry.register(DynamicTool::new("Bad Name", "", serde_json::json!({"type": "array"}))).unwrap();
//! let report = check_registry(&registry, &CheckOptions::default());
//! assert!(report.has_errors());
//! assert!(report.diagnostics.iter().any(|d| d.rule == "name.pattern"));
//! assert!(report.diagnostics.iter().any(|d| d.rule == "schema.root"));
//! ```

/// The verbs a tool name may start with without a `name.verb` warning (more through
/// [`CheckOptions::verbs`]).
pub use tool_grammar::VERBS;

use std::collections::BTreeMap;
use std::fmt;

use serde_json::Value;

use crate::definition::schema::{Issue, Severity};
use crate::render::{self, Format, RenderOptions};
use crate::{Registry, registry::Tool};

/// One finding.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[non_exhaustive]
pub struct Diagnostic {
    /// Error or warning.
    pub severity: Severity,
    /// The tool's name.
    pub tool: String,
    /// The target format, for provider rules.
    #[serde(
        skip_serializing_if = "Option::is_none",
        serialize_with = "format_name"
    )]
    pub format: Option<(Format, bool)>,
    /// JSON pointer into the tool's definition: `/input_schema/...`, `/examples/0/...`, `/name`.
    pub pointer: String,
    /// The rule's id, e.g. `name.pattern`, `examples.valid`, `openai.limits`.
    pub rule: String,
    /// What is wrong, and why.
    pub message: String,
    /// What the author can do.
    pub fix: String,
}

impl Diagnostic {
    /// A finding of one's own beside `check`'s (a clash the registry reported, say), for no
    /// particular format: `pointer` is a JSON Pointer into the tool's definition.
    pub fn new(
        severity: Severity,
        tool: impl Into<String>,
        pointer: impl Into<String>,
        rule: impl Into<String>,
        message: impl Into<String>,
        fix: impl Into<String>,
    ) -> Self {
        Self {
            severity,
            tool: tool.into(),
            format: None,
            pointer: pointer.into(),
            rule: rule.into(),
            message: message.into(),
            fix: fix.into(),
        }
    }
}

fn format_name<S: serde::Serializer>(f: &Option<(Format, bool)>, s: S) -> Result<S::Ok, S::Error> {
    match f {
        Some((format, true)) => s.serialize_str(&format!("{format} --strict")),
        Some((format, false)) => s.serialize_str(format.as_str()),
        None => s.serialize_none(),
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let level = match self.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
        };
        write!(f, "{level}[{}] {}", self.rule, self.tool)?;
        if let Some((format, strict)) = self.format {
            write!(f, " ({format}{})", if strict { " strict" } else { "" })?;
        }
        if !self.pointer.is_empty() {
            write!(f, " at {}", self.pointer)?;
        }
        write!(f, ": {}", self.message)?;
        if !self.fix.is_empty() {
            write!(f, "\n  fix: {}", self.fix)?;
        }
        Ok(())
    }
}

/// What to check.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct CheckOptions {
    /// The formats whose rules apply (default: all).
    pub formats: Vec<Format>,
    /// Hold definitions to the strict modes too (OpenAI and Anthropic). Without it, what only
    /// strict mode refuses is a warning.
    pub strict: bool,
    /// Words a tool name may start with besides [`VERBS`] (rule `name.verb`).
    pub verbs: Vec<String>,
    /// The approval policy the tools will be served under: a destructive tool it covers needs
    /// no approval of its own (rule `approval.destructive`).
    pub approval: crate::exec::ApprovalPolicy,
}

/// Builders: set one field each, the others kept (the struct is `#[non_exhaustive]`, so a
/// literal cannot be written outside this crate).
impl CheckOptions {
    /// Sets `formats`: the formats whose rules apply (default: all).
    #[must_use]
    pub fn formats(mut self, formats: Vec<Format>) -> Self {
        self.formats = formats;
        self
    }

    /// Sets `strict`: hold definitions to the strict modes too (OpenAI and Anthropic). Without it, what only.
    #[must_use]
    pub fn strict(mut self, strict: bool) -> Self {
        self.strict = strict;
        self
    }

    /// Sets `verbs`: words a tool name may start with besides [`VERBS`] (rule `name.verb`).
    #[must_use]
    pub fn verbs(mut self, verbs: Vec<String>) -> Self {
        self.verbs = verbs;
        self
    }

    /// Sets `approval`: the approval policy the tools will be served under: a destructive tool it covers needs.
    #[must_use]
    pub fn approval(mut self, approval: crate::exec::ApprovalPolicy) -> Self {
        self.approval = approval;
        self
    }
}

impl Default for CheckOptions {
    fn default() -> Self {
        Self {
            formats: Format::ALL.to_vec(),
            strict: false,
            verbs: Vec::new(),
            approval: crate::exec::ApprovalPolicy::default(),
        }
    }
}

/// The findings for a set of tools.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
#[non_exhaustive]
pub struct Report {
    /// Every finding, errors first, then by tool.
    pub diagnostics: Vec<Diagnostic>,
}

impl Report {
    /// Whether any finding is an error.
    pub fn has_errors(&self) -> bool {
        self.count(Severity::Error) > 0
    }

    /// How many findings have `severity`.
    pub fn count(&self, severity: Severity) -> usize {
        self.diagnostics
            .iter()
            .filter(|d| d.severity == severity)
            .count()
    }
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for d in &self.diagnostics {
            writeln!(f, "{d}")?;
        }
        write!(
            f,
            "{} errors, {} warnings",
            self.count(Severity::Error),
            self.count(Severity::Warning)
        )
    }
}

/// Budgets (characters; tokens estimated at four characters each).
const DESCRIPTION_CHARS: usize = 1024;
const HINT_CHARS: usize = 160;
const DEFINITION_TOKENS_WARN: usize = 1024;
const DEFINITION_TOKENS_MAX: usize = 8192;
/// OpenAI Structured Outputs limits.
const OPENAI_DEPTH: usize = 10;
const OPENAI_PROPERTIES: usize = 5000;
const OPENAI_ENUM_VALUES: usize = 1000;
const OPENAI_ENUM_CHARS: usize = 15_000;
/// Anthropic strict tool use limits.
const ANTHROPIC_OPTIONAL: usize = 24;
const ANTHROPIC_UNIONS: usize = 16;
const ANTHROPIC_STRICT_TOOLS: usize = 20;

/// Checks every tool of a registry, and the rules across tools (unique names).
pub fn check_registry(registry: &Registry, options: &CheckOptions) -> Report {
    let mut diagnostics = Vec::new();
    let mut names: BTreeMap<&str, usize> = BTreeMap::new();
    for tool in registry.tools() {
        *names.entry(tool.name()).or_default() += 1;
        diagnostics.extend(check_tool(tool, options));
    }
    for (name, count) in names {
        if count > 1 {
            diagnostics.push(diag(
                Severity::Error,
                name,
                None,
                "/name",
                "name.unique",
                format!("{count} tools are named `{name}`"),
                "rename all but one".into(),
            ));
        }
    }
    check_items(registry, &mut diagnostics);
    let strict_targets = options.strict && options.formats.contains(&Format::Anthropic);
    if strict_targets && registry.len() > ANTHROPIC_STRICT_TOOLS {
        diagnostics.push(diag(Severity::Warning, "*", Some((Format::Anthropic, true)), "", "anthropic.strict_tools",
            format!("{} tools; Anthropic accepts at most {ANTHROPIC_STRICT_TOOLS} strict tools in one request", registry.len()),
            "send strict only the loaded set of a session (deferred tools found through search)".into()));
    }
    sort(&mut diagnostics);
    Report { diagnostics }
}

/// A registry's resources and prompts: what a client shows of them (a description, of each
/// prompt argument too) and their scopes, the rules tools are held to. Each finding names the
/// resource by its URI and the prompt by its name.
fn check_items(registry: &Registry, out: &mut Vec<Diagnostic>) {
    let scopes =
        |key: &str, scopes: &[std::borrow::Cow<'static, str>], out: &mut Vec<Diagnostic>| {
            for (i, scope) in scopes.iter().enumerate() {
                if let Err(problem) = crate::definition::scope_problem(scope) {
                    out.push(diag(
                        Severity::Error,
                        key,
                        None,
                        &format!("/scopes/{i}"),
                        "scopes.token",
                        problem.to_string(),
                        "write the scope as the authorization server grants it".into(),
                    ));
                }
            }
        };
    let described = |key: &str, what: &str, description: &str, out: &mut Vec<Diagnostic>| {
        if crate::definition::is_blank(description) {
            out.push(diag(
                Severity::Error,
                key,
                None,
                "/description",
                "description.missing",
                format!("the {what} has no description"),
                format!("say what the {what} holds and when to use it (its doc comment)"),
            ));
        } else if description.chars().count() > DESCRIPTION_CHARS {
            out.push(diag(
                Severity::Warning,
                key,
                None,
                "/description",
                "description.budget",
                format!("the {what}'s description is over {DESCRIPTION_CHARS} characters"),
                "shorten it: clients list every one".into(),
            ));
        }
    };
    for resource in registry.resources() {
        let what = if resource.is_template() {
            "resource template"
        } else {
            "resource"
        };
        described(resource.uri(), what, resource.description(), out);
        scopes(resource.uri(), resource.scope_list(), out);
    }
    for prompt in registry.prompts() {
        described(prompt.name(), "prompt", prompt.description(), out);
        scopes(prompt.name(), prompt.scope_list(), out);
        for (i, argument) in prompt.arguments().iter().enumerate() {
            if argument
                .description
                .as_deref()
                .is_none_or(crate::definition::is_blank)
            {
                out.push(diag(
                    Severity::Warning,
                    prompt.name(),
                    None,
                    &format!("/arguments/{i}/description"),
                    "prompt.argument.description",
                    format!("the argument `{}` has no description", argument.name),
                    "say what to give: #[arg(description = \"...\")]".into(),
                ));
            }
        }
    }
}

/// Checks one tool against every rule for the chosen formats.
pub fn check_tool(tool: &Tool, options: &CheckOptions) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    let name = tool.name();
    let mut push = |severity, format, pointer: &str, rule: &str, message: String, fix: String| {
        out.push(diag(severity, name, format, pointer, rule, message, fix));
    };
    check_identity(tool, options, &mut push);
    check_scopes(tool, &mut push);
    check_icons(tool, &mut push);
    check_mirror(tool, &mut push);
    check_approval(tool, options, &mut push);
    check_schema(tool, &mut push);
    check_annotations(tool, &mut push);
    for &format in &options.formats {
        let modes: &[bool] = if format.has_strict() {
            &[false, true]
        } else {
            &[false]
        };
        for &strict in modes {
            let rendered = render::render(tool, format, RenderOptions { strict });
            for issue in rendered.issues {
                let severity = if strict && !options.strict {
                    Severity::Warning
                } else {
                    issue.severity
                };
                let message = if strict && !options.strict && issue.severity == Severity::Error {
                    format!("cannot use strict mode: {}", issue.message)
                } else {
                    issue.message.clone()
                };
                push(
                    severity,
                    Some((format, strict)),
                    &pointer_in_input(&issue),
                    &rule_of(format, strict, &issue),
                    message,
                    issue.fix,
                );
            }
            for (pointer, message) in rendered_examples(tool, &rendered.definition) {
                let severity = if strict && !options.strict {
                    Severity::Warning
                } else {
                    Severity::Error
                };
                push(
                    severity,
                    Some((format, strict)),
                    &pointer,
                    "examples.rendered",
                    message,
                    "correct the example, or the parameter types".into(),
                );
            }
            let limits = format_limits(format, strict, &rendered.definition);
            for (rule, message, fix) in limits {
                let severity = if strict && !options.strict {
                    Severity::Warning
                } else {
                    Severity::Error
                };
                push(
                    severity,
                    Some((format, strict)),
                    "/input_schema",
                    rule,
                    message,
                    fix.into(),
                );
            }
        }
    }
    // Icons are for people: no model is sent them (a `data:` image would count kilobytes).
    let mut definition = render::mcp(tool);
    if let Value::Object(map) = &mut definition {
        map.remove("icons");
    }
    let size = serde_json::to_string(&definition).map_or(0, |s| s.len());
    let tokens = size.div_ceil(4);
    if tokens > DEFINITION_TOKENS_MAX {
        push(
            Severity::Error,
            None,
            "",
            "definition.budget",
            format!(
                "the definition is about {tokens} tokens ({size} bytes); the budget is {DEFINITION_TOKENS_MAX}"
            ),
            "shorten the description and parameter docs, or split the tool".into(),
        );
    } else if tokens > DEFINITION_TOKENS_WARN {
        push(
            Severity::Warning,
            None,
            "",
            "definition.budget",
            format!(
                "the definition is about {tokens} tokens ({size} bytes), over {DEFINITION_TOKENS_WARN}; it is sent on every round it is loaded"
            ),
            "shorten the description and parameter docs".into(),
        );
    }
    sort(&mut out);
    out
}

type Push<'a> = dyn FnMut(Severity, Option<(Format, bool)>, &str, &str, String, String) + 'a;

fn check_identity(tool: &Tool, options: &CheckOptions, push: &mut Push) {
    let name = tool.name();
    let provider_ok = !name.is_empty()
        && name.len() <= 64
        && name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    if !provider_ok {
        push(
            Severity::Error,
            None,
            "/name",
            "name.pattern",
            format!(
                "`{name}` is not accepted by every provider: 1 to 64 of a-z A-Z 0-9 _ -, starting with a letter or _"
            ),
            "rename it snake_case verb_noun, e.g. `get_weather`".into(),
        );
    } else if let Err(problem) = tool_grammar::tool_name_problem(name) {
        // What `#[tool]` refuses; a tool from a `--defs` file or a mounted server can still
        // have it.
        push(
            Severity::Warning,
            None,
            "/name",
            "name.style",
            problem,
            "rename it snake_case verb_noun, like `get_weather`".into(),
        );
    } else {
        let more: Vec<&str> = options.verbs.iter().map(String::as_str).collect();
        if !tool_grammar::starts_with_verb(name, &more) {
            let first = name.split('_').next().unwrap_or_default();
            push(
                Severity::Warning,
                None,
                "/name",
                "name.verb",
                format!("`{name}` starts with `{first}`, which is not a known verb"),
                format!(
                    "start it with what the tool does (`get_{name}`, `list_...`), or allow the \
                     word: `toolctl check --allow-verb {first}`"
                ),
            );
        }
    }
    let description = tool.description().trim();
    if description.is_empty() {
        push(
            Severity::Error,
            None,
            "/description",
            "description.missing",
            "the tool has no description; the model decides whether to call it from this text"
                .into(),
            "say what it returns and when to use it".into(),
        );
    } else if description.chars().count() > DESCRIPTION_CHARS {
        push(
            Severity::Warning,
            None,
            "/description",
            "description.budget",
            format!(
                "the description is {} characters, over {DESCRIPTION_CHARS}",
                description.chars().count()
            ),
            "keep it to what it returns and when to use it; details go in parameter docs".into(),
        );
    }
    let hint = tool.hint().trim();
    if hint.is_empty() {
        push(
            Severity::Error,
            None,
            "/hint",
            "hint.missing",
            "the tool has no hint, the sentence a catalog search shows".into(),
            "add one sentence, e.g. hint = \"Daily forecast for a city\"".into(),
        );
    } else if hint.chars().count() > HINT_CHARS || hint.contains('\n') {
        push(
            Severity::Warning,
            None,
            "/hint",
            "hint.budget",
            format!(
                "the hint should be one short sentence; it is {} characters",
                hint.chars().count()
            ),
            "shorten it".into(),
        );
    }
    if tool.label().trim().is_empty() {
        push(
            Severity::Warning,
            None,
            "/label",
            "label.missing",
            "the tool has no label to show while it runs".into(),
            "add one, e.g. label = \"Checking the forecast\"".into(),
        );
    }
}

/// The scopes a tool needs are RFC 6749 scope-tokens, the rule `#[tool(scopes(..))]` is held
/// to at compile time and a definitions file at load time; a tool built in code can still
/// break it. (A repeat cannot reach a tool: `DynamicTool::scopes` keeps each scope once.)
fn check_scopes(tool: &Tool, push: &mut Push) {
    for (i, scope) in tool.scopes().iter().enumerate() {
        if let Err(problem) = crate::definition::scope_problem(scope) {
            push(
                Severity::Error,
                None,
                &format!("/scopes/{i}"),
                "scopes.token",
                problem.to_string(),
                "write the scope as the authorization server grants it: visible ASCII, no \
                 spaces, `\"` or `\\`, e.g. \"issues:write\""
                    .into(),
            );
        }
    }
}

/// Each icon follows the icon rule `#[tool(icon(..))]` is held to at compile time; a tool built
/// in code, from a definitions file or a mounted server can break it. An icon that does is left
/// out of MCP listings, so each problem is an error, at the part at fault.
fn check_icons(tool: &Tool, push: &mut Push) {
    use crate::definition::IconPart;
    for (i, icon) in tool.icons().iter().enumerate() {
        for problem in icon.problems() {
            let (pointer, rule, fix) = match problem.part() {
                IconPart::Src => (
                    format!("/icons/{i}/src"),
                    "icons.src",
                    "link the image over https (\"https://example.com/icon.png\"), or embed it \
                     as data:image/png;base64,...",
                ),
                IconPart::MimeType => (
                    format!("/icons/{i}/mime_type"),
                    "icons.mime_type",
                    "give the image's type, e.g. \"image/png\" or \"image/svg+xml\", or leave \
                     it out",
                ),
                IconPart::Size(j) => (
                    format!("/icons/{i}/sizes/{j}"),
                    "icons.sizes",
                    "write each size as WIDTHxHEIGHT in pixels, e.g. \"48x48\", or \"any\" for \
                     a scalable image",
                ),
                IconPart::Sizes => (
                    format!("/icons/{i}/sizes"),
                    "icons.sizes",
                    "name at least one size, or leave the sizes out",
                ),
                IconPart::Theme => (
                    format!("/icons/{i}/theme"),
                    "icons.theme",
                    "use \"light\" for an icon drawn for a light background, \"dark\" for a \
                     dark one, or leave the theme out",
                ),
            };
            push(
                Severity::Error,
                Some((Format::Mcp, false)),
                &pointer,
                rule,
                format!("icon {i}: {problem}; MCP listings leave this icon out"),
                fix.into(),
            );
        }
    }
}

/// With the text mirror off, the structured content is all a client reads of a result: the
/// rule `#[tool(mirror = false)]` is held to at compile time. Without an output schema the
/// results keep their text, against what the definition says.
fn check_mirror(tool: &Tool, push: &mut Push) {
    if !tool.mirror() && tool.output_schema().is_none() {
        push(
            Severity::Error,
            Some((Format::Mcp, false)),
            "/mirror",
            "mirror.output_schema",
            "the text mirror is off, but the tool has no output schema, so a client would have \
             no structured content to read instead; its results keep their text"
                .into(),
            "give the tool an output schema (an output type that implements JsonSchema, \
             DynamicTool::output_schema, \"outputSchema\" in a definitions file), or leave the \
             mirror on"
                .into(),
        );
    }
}

/// A tool's approval message reads as a template of its arguments (the rule the macro holds
/// `#[tool(approval = "...")]` to), and a destructive tool asks a person first, by its own
/// declaration or by the policy it is served under.
fn check_approval(tool: &Tool, options: &CheckOptions, push: &mut Push) {
    if let Some(message) = tool.approval().and_then(|a| a.message()) {
        let known: Vec<&str> = tool
            .input_schema()
            .get("properties")
            .and_then(Value::as_object)
            .map(|p| p.keys().map(String::as_str).collect())
            .unwrap_or_default();
        for problem in crate::definition::approval_template_problems(message, &known) {
            push(
                Severity::Error,
                None,
                "/approval",
                "approval.message",
                format!("the approval message `{message}`: {problem}"),
                "name the tool's arguments between braces, `{{` and `}}` for braces".into(),
            );
        }
    }
    let a = tool.annotations();
    if a.destructive && !a.read_only && !options.approval.needs(tool) {
        push(
            Severity::Warning,
            None,
            "/approval",
            "approval.destructive",
            "the tool is destructive, and nothing asks a person before a call runs: a model may \
             call it whenever it likes"
                .into(),
            "declare `#[tool(approval)]` (or DynamicTool::approval), or serve the tools with an \
             approval policy that covers it (--approval destructive)"
                .into(),
        );
    }
}

fn check_schema(tool: &Tool, push: &mut Push) {
    let schema = tool.input_schema();
    if schema.get("type").and_then(Value::as_str) != Some("object") {
        push(
            Severity::Error,
            None,
            "/input_schema",
            "schema.root",
            format!(
                "the input schema's root must be `{{\"type\": \"object\"}}`; it is {}",
                short(schema)
            ),
            "take the input as named parameters or a struct".into(),
        );
    }
    validate_schema(tool, push);
}

/// The rules that need a JSON Schema validator: the schema is valid 2020-12 and each example
/// matches it.
#[cfg(feature = "check")]
fn validate_schema(tool: &Tool, push: &mut Push) {
    let schema = tool.input_schema();
    if let Err(e) = jsonschema::draft202012::meta::validate(schema) {
        push(
            Severity::Error,
            None,
            &format!("/input_schema{}", e.instance_path()),
            "schema.dialect",
            format!("not a valid JSON Schema 2020-12: {e}"),
            "fix the schema".into(),
        );
        return;
    }
    let validator = match jsonschema::draft202012::new(schema) {
        Ok(v) => v,
        Err(e) => {
            push(
                Severity::Error,
                None,
                "/input_schema",
                "schema.dialect",
                format!("the input schema cannot be compiled: {e}"),
                "fix the schema".into(),
            );
            return;
        }
    };
    for (i, example) in tool.examples().iter().enumerate() {
        for e in validator.iter_errors(&example.input) {
            push(
                Severity::Error,
                None,
                &format!("/examples/{i}/input{}", e.instance_path()),
                "examples.valid",
                format!(
                    "example `{}` does not match the input schema: {e}",
                    example.label
                ),
                "correct the example or the parameter types".into(),
            );
        }
    }
}

/// Without a validator those rules cannot be run, and a check that skipped them would pass what
/// it never looked at: the tool fails with a rule that says how to turn them on.
#[cfg(not(feature = "check"))]
fn validate_schema(_tool: &Tool, push: &mut Push) {
    push(
        Severity::Error,
        None,
        "/input_schema",
        "check.unavailable",
        "the schema rules need tool-core's feature `check`, which this build turned off".into(),
        "turn it on where the check runs: `tool-core = { version = \"0.1\", features = \
         [\"check\"] }` under [dev-dependencies] (docs/lean-builds.md)"
            .into(),
    );
}

fn check_annotations(tool: &Tool, push: &mut Push) {
    let a = tool.annotations();
    if a.read_only && a.destructive {
        push(
            Severity::Error,
            Some((Format::Mcp, false)),
            "/annotations",
            "mcp.annotations",
            "readOnlyHint and destructiveHint are both true".into(),
            "a destructive tool changes things: drop read_only".into(),
        );
    }
    if a.read_only && !a.idempotent {
        push(
            Severity::Warning,
            Some((Format::Mcp, false)),
            "/annotations",
            "mcp.annotations",
            "a read-only tool is marked not idempotent".into(),
            "read-only tools are idempotent: mark it idempotent, or not read-only".into(),
        );
    }
}

/// Examples a definition carries (Anthropic's `input_examples`) must match the schema sent
/// beside them, which is the rewritten one.
#[cfg(feature = "check")]
fn rendered_examples(tool: &Tool, definition: &Value) -> Vec<(String, String)> {
    let (Some(Value::Array(examples)), Some(schema)) = (
        definition.get("input_examples"),
        definition.get("input_schema"),
    ) else {
        return Vec::new();
    };
    let (Ok(validator), Ok(canonical)) = (
        jsonschema::draft202012::new(schema),
        jsonschema::draft202012::new(tool.input_schema()),
    ) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for (i, example) in examples.iter().enumerate() {
        // An example that is already wrong is reported once, by `examples.valid`.
        if !canonical.is_valid(example) {
            continue;
        }
        for e in validator.iter_errors(example) {
            out.push((
                format!("/input_examples/{i}{}", e.instance_path()),
                format!("the rendered example does not match the rendered schema: {e}"),
            ));
        }
    }
    out
}

/// Without a validator, nothing to compare; `check.unavailable` already fails the tool.
#[cfg(not(feature = "check"))]
fn rendered_examples(_tool: &Tool, _definition: &Value) -> Vec<(String, String)> {
    Vec::new()
}

/// Limits a provider states in numbers, measured on the rendered definition.
fn format_limits(
    format: Format,
    strict: bool,
    definition: &Value,
) -> Vec<(&'static str, String, &'static str)> {
    let mut out = Vec::new();
    match (format, strict) {
        (Format::OpenAi, true) => {
            let params = &definition["function"]["parameters"];
            let stats = Stats::of(params);
            if stats.depth > OPENAI_DEPTH {
                out.push((
                    "openai.limits",
                    format!(
                        "objects nest {} levels deep; OpenAI strict mode allows {OPENAI_DEPTH}",
                        stats.depth
                    ),
                    "flatten the input",
                ));
            }
            if stats.properties > OPENAI_PROPERTIES {
                out.push((
                    "openai.limits",
                    format!(
                        "{} properties; OpenAI strict mode allows {OPENAI_PROPERTIES}",
                        stats.properties
                    ),
                    "split the tool",
                ));
            }
            if stats.enum_values > OPENAI_ENUM_VALUES {
                out.push((
                    "openai.limits",
                    format!(
                        "{} enum values; OpenAI strict mode allows {OPENAI_ENUM_VALUES}",
                        stats.enum_values
                    ),
                    "take a free string and validate it in the tool",
                ));
            }
            if stats.big_enum_chars > OPENAI_ENUM_CHARS {
                out.push(("openai.limits", format!("an enum of over 250 values totals {} characters; OpenAI allows {OPENAI_ENUM_CHARS}", stats.big_enum_chars), "take a free string and validate it in the tool"));
            }
        }
        (Format::Anthropic, true) => {
            let stats = Stats::of(&definition["input_schema"]);
            if stats.optional > ANTHROPIC_OPTIONAL {
                out.push((
                    "anthropic.limits",
                    format!(
                        "{} optional parameters; Anthropic strict mode allows {ANTHROPIC_OPTIONAL}",
                        stats.optional
                    ),
                    "make parameters required, or split the tool",
                ));
            }
            if stats.unions > ANTHROPIC_UNIONS {
                out.push(("anthropic.limits", format!("{} parameters with union types; Anthropic strict mode allows {ANTHROPIC_UNIONS}", stats.unions), "make parameters required, or split the tool"));
            }
        }
        _ => {}
    }
    out
}

#[derive(Default)]
struct Stats {
    depth: usize,
    properties: usize,
    enum_values: usize,
    big_enum_chars: usize,
    optional: usize,
    unions: usize,
}

impl Stats {
    fn of(schema: &Value) -> Self {
        let mut s = Stats::default();
        s.walk(schema, 1);
        if let Some(Value::Object(defs)) = schema.get("$defs") {
            defs.values().for_each(|d| s.walk(d, 1));
        }
        s
    }

    fn walk(&mut self, schema: &Value, depth: usize) {
        let Value::Object(map) = schema else { return };
        if let Some(Value::Array(values)) = map.get("enum") {
            self.enum_values += values.len();
            if values.len() > 250 {
                self.big_enum_chars += values
                    .iter()
                    .filter_map(Value::as_str)
                    .map(str::len)
                    .sum::<usize>();
            }
        }
        if let Some(Value::Object(props)) = map.get("properties") {
            self.depth = self.depth.max(depth);
            self.properties += props.len();
            let required: Vec<&str> = map
                .get("required")
                .and_then(Value::as_array)
                .map(|r| r.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            self.optional += props
                .keys()
                .filter(|k| !required.contains(&k.as_str()))
                .count();
            for prop in props.values() {
                let types = prop
                    .get("type")
                    .and_then(Value::as_array)
                    .map_or(0, Vec::len);
                let variants = prop
                    .get("anyOf")
                    .and_then(Value::as_array)
                    .map_or(0, Vec::len);
                if types > 1 || variants > 1 {
                    self.unions += 1;
                }
                self.walk(prop, depth + 1);
            }
        }
        if let Some(items) = map.get("items") {
            self.walk(items, depth);
        }
        if let Some(Value::Array(variants)) = map.get("anyOf") {
            variants.iter().for_each(|v| self.walk(v, depth));
        }
    }
}

fn rule_of(format: Format, strict: bool, issue: &Issue) -> String {
    let target = match format {
        Format::OpenAi | Format::OpenAiResponses => "openai",
        Format::Anthropic => "anthropic",
        Format::Gemini => "gemini",
        Format::GeminiOpenApi => "gemini_openapi",
        Format::Mcp => "mcp",
    };
    let mode = if strict { "strict." } else { "" };
    format!("{target}.{mode}{}", issue.keyword.trim_start_matches('$'))
}

fn pointer_in_input(issue: &Issue) -> String {
    format!("/input_schema{}", issue.pointer)
}

fn short(value: &Value) -> String {
    let text = value.to_string();
    match text.char_indices().nth(80) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text,
    }
}

fn diag(
    severity: Severity,
    tool: &str,
    format: Option<(Format, bool)>,
    pointer: &str,
    rule: &str,
    message: String,
    fix: String,
) -> Diagnostic {
    Diagnostic {
        severity,
        tool: tool.to_owned(),
        format,
        pointer: pointer.to_owned(),
        rule: rule.to_owned(),
        message,
        fix,
    }
}

/// Errors first, then by tool, format, pointer; identical findings (OpenAI's two shapes share
/// one schema) once.
fn sort(diagnostics: &mut Vec<Diagnostic>) {
    diagnostics.sort_by(|a, b| {
        (a.severity, &a.tool, a.format, &a.pointer, &a.rule)
            .cmp(&(b.severity, &b.tool, b.format, &b.pointer, &b.rule))
    });
    diagnostics.dedup_by(|a, b| {
        a.tool == b.tool
            && a.pointer == b.pointer
            && a.rule == b.rule
            && a.message == b.message
            && a.format.map(|f| f.1) == b.format.map(|f| f.1)
            && [a.format, b.format]
                .iter()
                .all(|f| matches!(f, Some((Format::OpenAi | Format::OpenAiResponses, _))))
    });
}

/// Panics with every error found in the tools linked into this binary (and names shared between
/// them), or when no tool is linked. Meant for one line in a binary's tests, where every tools
/// crate is named: `#[test] fn tool_definitions_are_valid() { tool_core::definition::check::assert_valid(); }`.
///
/// ```
/// use tool_core::prelude::*;
///
/// tool_core::domain!(pub demo, "Examples of tools");
///
/// /// Returns the answer to every question.
/// #[tool(domain = demo, label = "Answering", hint = "The one answer")]
/// fn get_the_answer() -> u8 {
///     42
/// }
///
/// tool_core::definition::check::assert_valid(); // every linked tool meets every rule
/// ```
pub fn assert_valid() {
    let registry = match Registry::linked() {
        Ok(r) => r,
        Err(e) => panic!("{e}"),
    };
    assert!(
        !registry.is_empty(),
        "no tools are linked: name your tools crates (`use my_tools as _;`)"
    );
    let report = check_registry(&registry, &CheckOptions::default());
    if report.has_errors() {
        panic!("tool definitions have errors:\n{report}");
    }
}

/// Panics with every error in the linked tool named `name`. The `#[tool]` macro emits one
/// `#[cfg(test)]` test per tool that calls this, so a crate's own `cargo test` checks its tools.
pub fn assert_tool(name: &str) {
    let defs = inventory::iter::<crate::linked::ToolDef>
        .into_iter()
        .filter(|d| d.name == name);
    let registry = match Registry::from_defs(defs) {
        Ok(r) => r,
        Err(e) => panic!("{e}"),
    };
    let Some(tool) = registry.get(name) else {
        panic!("no linked tool is named `{name}`");
    };
    let diagnostics = check_tool(tool, &CheckOptions::default());
    let errors: Vec<String> = diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .map(ToString::to_string)
        .collect();
    assert!(
        errors.is_empty(),
        "tool `{name}` has errors:\n{}",
        errors.join("\n")
    );
}

// Every rule's tests, with the validator the schema rules need.
#[cfg(all(test, feature = "check"))]
mod tests {
    use super::*;
    use crate::registry::DynamicTool;
    use serde_json::json;

    fn one(tool: DynamicTool, options: &CheckOptions) -> Report {
        let mut r = Registry::empty();
        r.register(tool).unwrap();
        check_registry(&r, options)
    }

    fn rules(report: &Report, severity: Severity) -> Vec<&str> {
        report
            .diagnostics
            .iter()
            .filter(|d| d.severity == severity)
            .map(|d| d.rule.as_str())
            .collect()
    }

    #[test]
    fn resources_and_prompts_need_descriptions_and_good_scopes() {
        use crate::prompt::{Prompt, PromptArgument, PromptReply};
        use crate::resource::{Resource, ResourceContent};
        let mut r = Registry::empty();
        let resource = Resource::new("notes://{day}", "day_notes", " ", |_, _| async {
            Ok(vec![ResourceContent::text("")])
        })
        .unwrap()
        .scopes(["notes read"]);
        r.add_resource(resource).unwrap();
        let prompt = Prompt::new(
            "review_code",
            "Asks for a review.",
            [PromptArgument::required("code", "")],
            |_, _| async { Ok(PromptReply::user("Review")) },
        )
        .unwrap();
        r.add_prompt(prompt).unwrap();
        let report = check_registry(&r, &CheckOptions::default());
        let found: Vec<(&str, &str, &str)> = report
            .diagnostics
            .iter()
            .map(|d| (d.rule.as_str(), d.tool.as_str(), d.pointer.as_str()))
            .collect();
        assert!(
            found.contains(&("description.missing", "notes://{day}", "/description")),
            "{report}"
        );
        assert!(
            found.contains(&("scopes.token", "notes://{day}", "/scopes/0")),
            "{report}"
        );
        assert!(
            found.contains(&(
                "prompt.argument.description",
                "review_code",
                "/arguments/0/description"
            )),
            "{report}"
        );
        assert_eq!(report.count(Severity::Error), 2, "{report}");
    }

    fn good() -> DynamicTool {
        DynamicTool::new("get_weather", "Returns the weather for a city.", json!({
            "type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"], "additionalProperties": false
        }))
        .hint("Weather for a city")
        .label("Checking the weather")
        .example("Paris", json!({"city": "Paris"}))
    }

    fn named(name: &'static str) -> DynamicTool {
        DynamicTool::new(name, "Returns the weather for a city.", json!({
            "type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"], "additionalProperties": false
        }))
        .hint("Weather for a city")
        .label("Checking the weather")
    }

    /// `check` and `#[tool]` hold names to the one grammar: what the macro refuses is
    /// `name.style` here, and a first word that is no known verb is `name.verb`.
    #[test]
    fn names_follow_the_grammar_the_macro_uses() {
        let defaults = CheckOptions::default();
        for name in [
            "get_weather",
            "list_v2_items",
            "Get_Weather",
            "get-weather",
            "weather",
            "get__weather",
            "weather_report",
        ] {
            let report = one(named(name), &defaults);
            let warned = rules(&report, Severity::Warning);
            let refused_by_macro = tool_grammar::tool_name_problem(name).is_err();
            assert_eq!(
                warned.contains(&"name.style"),
                refused_by_macro,
                "{name}: {report}"
            );
            let verb = tool_grammar::starts_with_verb(name, &[]);
            assert_eq!(
                warned.contains(&"name.verb"),
                !refused_by_macro && !verb,
                "{name}: {report}"
            );
        }
        let report = one(named("weather_report"), &defaults);
        assert!(
            report.to_string().contains("--allow-verb weather"),
            "{report}"
        );
        let allowed = CheckOptions {
            verbs: vec!["weather".into()],
            ..CheckOptions::default()
        };
        assert!(
            one(named("weather_report"), &allowed)
                .diagnostics
                .is_empty()
        );
        assert_eq!(
            rules(&one(named("get weather"), &defaults), Severity::Error),
            ["name.pattern"]
        );
    }

    #[test]
    fn scopes_that_break_the_rule_are_errors() {
        let report = one(
            good().scopes(["issues:write", "issues write", "écrire", "repo"]),
            &CheckOptions::default(),
        );
        let found: Vec<(&str, &str)> = report
            .diagnostics
            .iter()
            .map(|d| (d.rule.as_str(), d.pointer.as_str()))
            .collect();
        assert_eq!(
            found,
            [("scopes.token", "/scopes/1"), ("scopes.token", "/scopes/2")],
            "{report}"
        );
        assert!(report.has_errors());
        let text = report.to_string();
        assert!(
            text.contains("error[scopes.token] get_weather at /scopes/1: the scope `issues write` holds a space"),
            "{text}"
        );
        assert!(
            one(good().scopes(["issues:write"]), &CheckOptions::default())
                .diagnostics
                .is_empty()
        );
    }

    #[test]
    fn icons_that_break_the_rule_are_errors_naming_the_icon_and_its_part() {
        use crate::registry::ToolIcon;
        let report = one(
            good()
                .icon(ToolIcon::new("https://example.com/sun.png").sizes(["48x48"]))
                .icon(
                    ToolIcon::new("sun.png")
                        .mime_type("text/plain")
                        .sizes(["48x48", "big"])
                        .theme("blue"),
                ),
            &CheckOptions::default(),
        );
        let found: Vec<(&str, &str)> = report
            .diagnostics
            .iter()
            .map(|d| (d.rule.as_str(), d.pointer.as_str()))
            .collect();
        assert_eq!(
            found,
            [
                ("icons.mime_type", "/icons/1/mime_type"),
                ("icons.sizes", "/icons/1/sizes/1"),
                ("icons.src", "/icons/1/src"),
                ("icons.theme", "/icons/1/theme"),
            ],
            "{report}"
        );
        let text = report.to_string();
        assert!(
            text.contains("error[icons.src] get_weather (mcp) at /icons/1/src: icon 1: the icon's src `sun.png` is not a URL the rule allows"),
            "{text}"
        );
        assert!(
            text.contains("error[icons.theme] get_weather (mcp) at /icons/1/theme: icon 1: the icon theme `blue` is neither `light`"),
            "{text}"
        );
        assert!(text.contains("MCP listings leave this icon out"), "{text}");
    }

    #[test]
    fn icons_do_not_count_towards_the_definition_budget() {
        use crate::registry::ToolIcon;
        let image = format!("data:image/png;base64,{}", "A".repeat(40_000));
        let report = one(good().icon(ToolIcon::new(image)), &CheckOptions::default());
        assert!(report.diagnostics.is_empty(), "{report}");
    }

    #[test]
    fn a_mirror_turned_off_needs_an_output_schema() {
        let report = one(good().mirror(false), &CheckOptions::default());
        assert_eq!(
            rules(&report, Severity::Error),
            ["mirror.output_schema"],
            "{report}"
        );
        assert!(
            report.to_string().contains("error[mirror.output_schema] get_weather (mcp) at /mirror: the text mirror is off, but the tool has no output schema"),
            "{report}"
        );
        let typed = good()
            .mirror(false)
            .output_schema(json!({"type": "object", "properties": {"temp_c": {"type": "number"}}}));
        assert!(one(typed, &CheckOptions::default()).diagnostics.is_empty());
    }

    #[test]
    fn a_good_tool_is_clean() {
        let report = one(
            good(),
            &CheckOptions {
                strict: true,
                ..CheckOptions::default()
            },
        );
        assert!(report.diagnostics.is_empty(), "{report}");
    }

    #[test]
    fn examples_are_validated_against_the_schema() {
        let report = one(
            good().example("Wrong", json!({"city": 5})),
            &CheckOptions::default(),
        );
        let d = report
            .diagnostics
            .iter()
            .find(|d| d.rule == "examples.valid")
            .unwrap();
        assert_eq!(d.pointer, "/examples/1/input/city");
        assert!(d.message.contains("`Wrong`"), "{d}");
    }

    #[test]
    fn strict_only_problems_are_warnings_unless_strict_is_asked() {
        let map = || {
            DynamicTool::new("count_words", "Counts words.", json!({
                "type": "object", "properties": {"counts": {"type": "object", "additionalProperties": {"type": "integer"}}}
            }))
            .hint("h")
            .label("l")
        };
        let not_gemini_openapi = CheckOptions {
            formats: Format::ALL
                .into_iter()
                .filter(|f| *f != Format::GeminiOpenApi)
                .collect(),
            ..CheckOptions::default()
        };
        let loose = one(map(), &not_gemini_openapi);
        assert!(!loose.has_errors(), "{loose}");
        assert!(rules(&loose, Severity::Warning).contains(&"openai.strict.additionalProperties"));
        let gemini = one(map(), &CheckOptions::default());
        assert_eq!(
            rules(&gemini, Severity::Error),
            ["gemini_openapi.additionalProperties"],
            "{gemini}"
        );
        let strict = one(
            map(),
            &CheckOptions {
                strict: true,
                ..CheckOptions::default()
            },
        );
        assert!(
            rules(&strict, Severity::Error).contains(&"openai.strict.additionalProperties"),
            "{strict}"
        );
        assert!(
            rules(&strict, Severity::Error).contains(&"anthropic.strict.additionalProperties"),
            "{strict}"
        );
    }

    #[test]
    fn invalid_schemas_and_annotations_are_errors() {
        let bad = DynamicTool::new(
            "get_x",
            "d",
            json!({"type": "object", "properties": {"a": {"type": "strng"}}}),
        )
        .hint("h")
        .annotations(crate::definition::Annotations {
            read_only: true,
            destructive: true,
            idempotent: true,
            open_world: false,
        });
        let report = one(bad, &CheckOptions::default());
        let errors = rules(&report, Severity::Error);
        assert!(errors.contains(&"schema.dialect"), "{report}");
        assert!(errors.contains(&"mcp.annotations"), "{report}");
    }

    #[test]
    fn openai_limits_are_measured() {
        let values: Vec<String> = (0..1200).map(|i| format!("v{i}")).collect();
        let big = DynamicTool::new("pick_value", "Picks.", json!({"type": "object", "properties": {"v": {"type": "string", "enum": values}}, "required": ["v"]}))
            .hint("h").label("l");
        let report = one(
            big,
            &CheckOptions {
                strict: true,
                formats: vec![Format::OpenAi],
                ..CheckOptions::default()
            },
        );
        assert_eq!(
            rules(&report, Severity::Error),
            ["openai.limits"],
            "{report}"
        );
    }

    #[test]
    fn messages_name_tool_rule_pointer_and_fix() {
        let report = one(
            good().example("Wrong", json!({"city": 5})),
            &CheckOptions::default(),
        );
        let text = report.to_string();
        assert!(
            text.contains("error[examples.valid] get_weather at /examples/1/input/city"),
            "{text}"
        );
        assert!(text.contains("fix: "), "{text}");
        assert!(text.ends_with("1 errors, 0 warnings"), "{text}");
    }

    #[test]
    fn destructive_tools_ask_first_and_approval_messages_name_arguments() {
        let destructive = crate::definition::Annotations {
            read_only: false,
            destructive: true,
            idempotent: false,
            open_world: false,
        };
        let report = one(good().annotations(destructive), &CheckOptions::default());
        assert_eq!(rules(&report, Severity::Warning), ["approval.destructive"]);
        let text = report.diagnostics[0].to_string();
        assert!(text.contains("--approval destructive"), "{text}");
        // Declared, or covered by the policy it is served under: no warning.
        let declared =
            good()
                .annotations(destructive)
                .approval(crate::registry::ToolApproval::with_message(
                    "Forecast for {city}?",
                ));
        assert!(
            one(declared, &CheckOptions::default())
                .diagnostics
                .is_empty()
        );
        let options = CheckOptions {
            approval: "destructive".parse().unwrap(),
            ..CheckOptions::default()
        };
        assert!(
            one(good().annotations(destructive), &options)
                .diagnostics
                .is_empty()
        );

        let bad = good().approval(crate::registry::ToolApproval::with_message(
            "Forecast for {town}?",
        ));
        let report = one(bad, &CheckOptions::default());
        assert_eq!(rules(&report, Severity::Error), ["approval.message"]);
        assert!(
            report.diagnostics[0]
                .message
                .contains("`{town}` names no argument of the tool; its arguments are `city`"),
            "{}",
            report.diagnostics[0]
        );
    }
}

/// A build without a validator (`cargo test -p tool-core --no-default-features --lib check::`,
/// in CI) fails a tool it could not check in full and says how to turn the rules on; the other
/// rules still run.
#[cfg(all(test, not(feature = "check")))]
mod without_a_validator {
    use super::*;
    use crate::registry::DynamicTool;
    use serde_json::json;

    #[test]
    fn the_schema_rules_fail_the_tool_and_say_how_to_turn_them_on() {
        let mut registry = Registry::empty();
        let tool = DynamicTool::new(
            "get_weather",
            "Returns the weather.",
            json!({"type": "object", "properties": {"city": {"type": "strng"}}}),
        )
        .hint("Weather")
        .label("Weather")
        .annotations(crate::definition::Annotations {
            read_only: true,
            destructive: true,
            idempotent: true,
            open_world: false,
        });
        registry.register(tool).unwrap();
        let report = check_registry(&registry, &CheckOptions::default());
        let errors: Vec<&str> = report
            .diagnostics
            .iter()
            .filter(|d| d.severity == Severity::Error)
            .map(|d| d.rule.as_str())
            .collect();
        // The schema's typo goes unseen, the annotations' contradiction does not.
        assert!(errors.contains(&"check.unavailable"), "{report}");
        assert!(errors.contains(&"mcp.annotations"), "{report}");
        assert!(!errors.contains(&"schema.dialect"), "{report}");
        assert!(
            report.to_string().contains("features = [\"check\"]"),
            "{report}"
        );
    }
}
