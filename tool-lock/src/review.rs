//! The review of today's definitions against a lock: every difference classified, token deltas,
//! budgets.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::str::FromStr;

use serde::Serialize;
use serde_json::Value;

use super::schema_diff::{self, Side};
use super::{Lock, LockedTool};
use crate::items::{Kind, LockedItem};
use tool_core::render::Format;

/// How a difference affects those who rely on a definition.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Class {
    /// Someone who relied on the old definition can fail: a client that cached the listing, a
    /// prompt or an evaluation written against the tool, a model tuned on its schema.
    Breaking,
    /// Something new that no one relied on: nothing that worked stops working.
    Additive,
    /// Text for people and models (descriptions, titles, hints, examples, icons).
    Cosmetic,
}

impl Class {
    /// `breaking`, `additive` or `cosmetic`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Breaking => "breaking",
            Self::Additive => "additive",
            Self::Cosmetic => "cosmetic",
        }
    }
}

impl fmt::Display for Class {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A rule of the review: its id, its class, and what triggers it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct RuleInfo {
    /// The id, e.g. `input.param.removed`.
    pub id: &'static str,
    /// What the change is.
    pub class: Class,
    /// When it applies.
    pub summary: &'static str,
}

const fn rule(id: &'static str, class: Class, summary: &'static str) -> RuleInfo {
    RuleInfo { id, class, summary }
}

use Class::{Additive as A, Breaking as B, Cosmetic as C};

/// Every rule of the review, each with one class.
pub const RULES: &[RuleInfo] = &[
    rule("tool.removed", B, "a tool is gone"),
    rule(
        "tool.renamed",
        B,
        "a tool is gone and a new one has its schemas",
    ),
    rule("tool.added", A, "a new tool"),
    rule(
        "tool.deferred",
        B,
        "a core tool became deferred: models no longer see it without a search",
    ),
    rule("tool.core", A, "a deferred tool became core"),
    rule(
        "visibility.narrowed",
        B,
        "the model or views no longer see a tool (`visibility`)",
    ),
    rule(
        "visibility.widened",
        A,
        "the model or views see a tool they did not (`visibility`)",
    ),
    rule(
        "view.changed",
        C,
        "a tool's view for MCP Apps hosts was added, removed, or changed kind",
    ),
    rule(
        "tool.changed",
        B,
        "a field of the definition this review does not know changed",
    ),
    rule("scopes.added", B, "a caller needs a scope it did not need"),
    rule("scopes.removed", A, "a caller no longer needs a scope"),
    rule("resource.removed", B, "a resource or URI template is gone"),
    rule("resource.added", A, "a new resource or URI template"),
    rule(
        "resource.mime_type.changed",
        B,
        "a resource's contents are of another MIME type",
    ),
    rule("prompt.removed", B, "a prompt is gone"),
    rule("prompt.added", A, "a new prompt"),
    rule(
        "prompt.argument.removed",
        B,
        "a prompt no longer takes an argument",
    ),
    rule(
        "prompt.argument.required",
        B,
        "a prompt argument is newly required",
    ),
    rule(
        "prompt.argument.optional",
        A,
        "a required prompt argument became optional",
    ),
    rule(
        "prompt.argument.added",
        A,
        "a prompt takes a new optional argument",
    ),
    rule(
        "item.text.changed",
        C,
        "a resource's or prompt's name, title or description",
    ),
    rule(
        "annotations.read_only",
        B,
        "a read-only tool is no longer read-only",
    ),
    rule("annotations.destructive", B, "a tool became destructive"),
    rule(
        "annotations.idempotent",
        B,
        "an idempotent tool is no longer idempotent",
    ),
    rule(
        "annotations.open_world",
        B,
        "a closed-world tool now reaches the open world",
    ),
    rule(
        "annotations.safer",
        A,
        "a tool became read-only, not destructive, idempotent or closed-world",
    ),
    rule("mirror.off", B, "results no longer carry their text mirror"),
    rule("mirror.on", A, "results carry their text mirror again"),
    rule(
        "task.changed",
        A,
        "whether calls may be answered with a task (only clients that declare the extension see it)",
    ),
    rule(
        "task.required",
        B,
        "calls must now be answered with a task: a 2026-07-28 client without the tasks extension is refused",
    ),
    rule("description.changed", C, "the tool's description"),
    rule("title.changed", C, "the tool's title or label"),
    rule("hint.changed", C, "the tool's catalog hint"),
    rule("domain.changed", C, "the tool's domain"),
    rule("examples.changed", C, "the tool's examples"),
    rule("icons.changed", C, "the tool's icons"),
    rule("meta.changed", C, "a `_meta` entry that is not tool-core's"),
    rule(
        "schema.doc",
        C,
        "a description, title, examples, `$comment`, `deprecated`, `readOnly` or `writeOnly` inside a schema (and an output's `default`)",
    ),
    rule("input.param.removed", B, "a parameter is gone"),
    rule(
        "input.param.renamed",
        B,
        "a parameter is gone and a new one has its schema",
    ),
    rule("input.param.added", A, "a new optional parameter"),
    rule(
        "input.required.added",
        B,
        "a parameter is newly required, or a new parameter is required",
    ),
    rule(
        "input.required.removed",
        A,
        "a required parameter became optional",
    ),
    rule(
        "input.type.narrowed",
        B,
        "a parameter takes fewer types (or other ones)",
    ),
    rule("input.type.widened", A, "a parameter takes more types"),
    rule(
        "input.enum.narrowed",
        B,
        "an enum value removed, or an enum or const added",
    ),
    rule(
        "input.enum.widened",
        A,
        "an enum value added, or an enum lifted",
    ),
    rule(
        "input.variant.removed",
        B,
        "a `oneOf`/`anyOf` branch removed",
    ),
    rule("input.variant.added", A, "a `oneOf`/`anyOf` branch added"),
    rule(
        "input.bound.tightened",
        B,
        "a minimum, maximum, length, count, `multipleOf`, `pattern`, `format` or `uniqueItems` refuses more",
    ),
    rule("input.bound.loosened", A, "such a bound refuses less"),
    rule(
        "input.additional.closed",
        B,
        "an object no longer takes properties beyond those named (`additionalProperties: false`)",
    ),
    rule(
        "input.additional.opened",
        A,
        "an object takes properties beyond those named",
    ),
    rule(
        "input.default.changed",
        B,
        "a parameter's default changed: a call that leaves it out does something else",
    ),
    rule(
        "input.schema.changed",
        B,
        "a keyword this review cannot order changed (`allOf`, `not`, `if`, `patternProperties`, a tuple's length...)",
    ),
    rule("output.removed", B, "the output schema is gone"),
    rule("output.added", A, "the tool now has an output schema"),
    rule("output.field.removed", B, "an output field is gone"),
    rule(
        "output.field.renamed",
        B,
        "an output field is gone and a new one has its schema",
    ),
    rule("output.field.added", A, "a new output field"),
    rule(
        "output.required.removed",
        B,
        "an output field may now be absent",
    ),
    rule(
        "output.required.added",
        A,
        "an output field is now always present",
    ),
    rule(
        "output.type.widened",
        B,
        "an output value may have more types (or other ones)",
    ),
    rule("output.type.narrowed", A, "an output value has fewer types"),
    rule(
        "output.enum.widened",
        B,
        "an output value may take a new enum value",
    ),
    rule(
        "output.enum.narrowed",
        A,
        "an output value takes fewer enum values",
    ),
    rule(
        "output.variant.added",
        B,
        "an output may take a new `oneOf`/`anyOf` branch",
    ),
    rule("output.variant.removed", A, "an output branch is gone"),
    rule("output.bound.loosened", B, "an output bound allows more"),
    rule("output.bound.tightened", A, "an output bound allows less"),
    rule(
        "output.additional.opened",
        A,
        "an output object may carry properties beyond those named",
    ),
    rule(
        "output.additional.closed",
        A,
        "an output object carries only the properties named",
    ),
    rule(
        "output.schema.changed",
        B,
        "a keyword this review cannot order changed in the output",
    ),
];

/// The class of the rule `id`, if it is one of [`RULES`].
pub fn class_of(id: &str) -> Option<Class> {
    RULES.iter().find(|r| r.id == id).map(|r| r.class)
}

/// One difference between the baseline and today.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct Change {
    /// Its class (the rule's).
    pub class: Class,
    /// The rule's id, one of [`RULES`].
    pub rule: &'static str,
    /// The tool's name (for a renamed tool, its old name); a resource's URI or a prompt's
    /// name for their rules.
    pub tool: String,
    /// A JSON pointer into today's definition (for what was removed, where it was).
    pub pointer: String,
    /// What changed.
    pub message: String,
    /// A breaking change allowed by an [`Allowance`].
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub allowed: bool,
}

impl fmt::Display for Change {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}[{}] {}", self.class, self.rule, self.tool)?;
        if !self.pointer.is_empty() {
            write!(f, " at {}", self.pointer)?;
        }
        write!(f, ": {}", self.message)?;
        if self.allowed {
            write!(f, " (allowed)")?;
        }
        Ok(())
    }
}

/// A breaking change let through: every rule of a tool (`TOOL:*`), one rule everywhere
/// (`RULE`), or one rule of one tool (`TOOL:RULE`).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Allowance {
    /// The tool, or every tool.
    pub tool: Option<String>,
    /// The rule, or every rule.
    pub rule: Option<String>,
}

/// An [`Allowance`] that names no breaking rule.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AllowanceError {
    /// Not a rule at all.
    #[error("`{rule}` is not a rule of the review{}", suggestion(.near))]
    Unknown {
        /// What was given.
        rule: String,
        /// The nearest rule id, if one is near.
        near: Option<&'static str>,
    },
    /// A rule that never fails the review.
    #[error("`{rule}` is {class}: only breaking changes fail the review and need allowing")]
    NotBreaking {
        /// What was given.
        rule: String,
        /// Its class.
        class: Class,
    },
    /// Nothing named.
    #[error("give RULE, TOOL:RULE or TOOL:*")]
    Empty,
}

fn suggestion(near: &Option<&'static str>) -> String {
    near.map_or(String::new(), |n| format!("; did you mean `{n}`?"))
}

impl FromStr for Allowance {
    type Err = AllowanceError;

    /// ```
    /// use tool_lock::Allowance;
    /// let a: Allowance = "get_forecast:input.param.removed".parse().unwrap();
    /// assert_eq!(a.tool.as_deref(), Some("get_forecast"));
    /// let err = "input.param.remove".parse::<Allowance>().unwrap_err();
    /// assert_eq!(err.to_string(), "`input.param.remove` is not a rule of the review; did you mean `input.param.removed`?");
    /// assert!("tool.added".parse::<Allowance>().is_err()); // additive: nothing to allow
    /// ```
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let (tool, rule) = match s.split_once(':') {
            Some((tool, rule)) => (Some(tool.trim()), rule.trim()),
            None => (None, s.trim()),
        };
        if rule.is_empty() || tool == Some("") {
            return Err(AllowanceError::Empty);
        }
        let rule = if rule == "*" && tool.is_some() {
            None
        } else {
            match class_of(rule) {
                Some(Class::Breaking) => Some(rule.to_owned()),
                Some(class) => {
                    return Err(AllowanceError::NotBreaking {
                        rule: rule.to_owned(),
                        class,
                    });
                }
                None => {
                    let near = RULES
                        .iter()
                        .map(|r| (strsim::jaro_winkler(r.id, rule), r.id))
                        .filter(|(score, _)| *score > 0.85)
                        .max_by(|a, b| a.0.total_cmp(&b.0))
                        .map(|(_, id)| id);
                    return Err(AllowanceError::Unknown {
                        rule: rule.to_owned(),
                        near,
                    });
                }
            }
        };
        Ok(Self {
            tool: tool.map(str::to_owned),
            rule,
        })
    }
}

impl Allowance {
    fn allows(&self, change: &Change) -> bool {
        self.tool.as_ref().is_none_or(|t| *t == change.tool)
            && self.rule.as_ref().is_none_or(|r| r == change.rule)
    }
}

/// What the review lets through, and the budgets it holds definitions to.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct ReviewOptions {
    /// Breaking changes let through.
    pub allow: Vec<Allowance>,
    /// The most tokens the whole listing may cost, in each format of `budget_formats`.
    pub max_tokens: Option<u64>,
    /// The most tokens one tool's definition may cost, in each format of `budget_formats`.
    pub max_tool_tokens: Option<u64>,
    /// The formats whose counts the budgets hold (default: all).
    pub budget_formats: Vec<Format>,
}

/// Builders: set one field each, the others kept (the struct is `#[non_exhaustive]`, so a
/// literal cannot be written outside this crate).
impl ReviewOptions {
    /// Sets `allow`: breaking changes let through.
    #[must_use]
    pub fn allow(mut self, allow: Vec<Allowance>) -> Self {
        self.allow = allow;
        self
    }

    /// Sets `max_tokens`: the most tokens the whole listing may cost, in each format of `budget_formats`.
    #[must_use]
    pub fn max_tokens(mut self, max_tokens: Option<u64>) -> Self {
        self.max_tokens = max_tokens;
        self
    }

    /// Sets `max_tool_tokens`: the most tokens one tool's definition may cost, in each format of `budget_formats`.
    #[must_use]
    pub fn max_tool_tokens(mut self, max_tool_tokens: Option<u64>) -> Self {
        self.max_tool_tokens = max_tool_tokens;
        self
    }

    /// Sets `budget_formats`: the formats whose counts the budgets hold (default: all).
    #[must_use]
    pub fn budget_formats(mut self, budget_formats: Vec<Format>) -> Self {
        self.budget_formats = budget_formats;
        self
    }
}

/// Tokens before and after, for one format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct TokenCount {
    /// In the baseline (none when it has no count for it).
    pub before: Option<u64>,
    /// Today (none for a tool that is gone).
    pub after: Option<u64>,
}

impl TokenCount {
    /// `after - before`, when both are known.
    pub fn delta(&self) -> Option<i64> {
        Some(self.after? as i64 - self.before? as i64)
    }
}

/// What the definitions cost, against the baseline.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct Tokens {
    /// What counted today's tokens.
    pub tokenizer: String,
    /// What counted the baseline's, when it has counts. Deltas are given only when it is
    /// the same counter.
    pub baseline_tokenizer: Option<String>,
    /// The whole listing, per format.
    pub listing: BTreeMap<String, TokenCount>,
    /// Each tool (today's and the baseline's), per format.
    pub tools: BTreeMap<String, BTreeMap<String, TokenCount>>,
}

impl Tokens {
    /// Whether the two sides were counted alike, so that deltas mean something.
    pub fn comparable(&self) -> bool {
        self.baseline_tokenizer.as_deref() == Some(self.tokenizer.as_str())
    }
}

/// A budget a definition or the listing goes over.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct Budget {
    /// The tool, or none for the whole listing.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool: Option<String>,
    /// The format counted.
    pub format: String,
    /// What it costs.
    pub tokens: u64,
    /// What it may cost.
    pub limit: u64,
}

/// Builders: set one field each, the others kept (the struct is `#[non_exhaustive]`, so a
/// literal cannot be written outside this crate).
impl Budget {
    /// Sets `tool`: the tool, or none for the whole listing.
    #[must_use]
    pub fn tool(mut self, tool: Option<String>) -> Self {
        self.tool = tool;
        self
    }

    /// Sets `format`: the format counted.
    #[must_use]
    pub fn format(mut self, format: String) -> Self {
        self.format = format;
        self
    }

    /// Sets `tokens`: what it costs.
    #[must_use]
    pub fn tokens(mut self, tokens: u64) -> Self {
        self.tokens = tokens;
        self
    }

    /// Sets `limit`: what it may cost.
    #[must_use]
    pub fn limit(mut self, limit: u64) -> Self {
        self.limit = limit;
        self
    }
}

impl fmt::Display for Budget {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.tool {
            Some(tool) => write!(
                f,
                "budget[tool] {tool} ({}): {} tokens, over the budget of {} a tool (--max-tool-tokens)",
                self.format, self.tokens, self.limit
            ),
            None => write!(
                f,
                "budget[listing] ({}): the listing is {} tokens, over the budget of {} (--max-tokens)",
                self.format, self.tokens, self.limit
            ),
        }
    }
}

/// The outcome: every classified change, the token counts, the budgets gone over.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct Review {
    /// Whether there was a baseline to compare with.
    pub baseline: bool,
    /// Every difference, breaking first, then by tool and pointer.
    pub changes: Vec<Change>,
    /// What the definitions cost.
    pub tokens: Tokens,
    /// Budgets gone over.
    pub over_budget: Vec<Budget>,
}

impl Review {
    /// Whether the review fails: a breaking change not allowed, or a budget gone over.
    pub fn fails(&self) -> bool {
        self.changes
            .iter()
            .any(|c| c.class == Class::Breaking && !c.allowed)
            || !self.over_budget.is_empty()
    }

    /// How many changes are of `class`.
    pub fn count(&self, class: Class) -> usize {
        self.changes.iter().filter(|c| c.class == class).count()
    }

    /// The review as Markdown for a pull-request comment or a CI job summary: the counts, a
    /// table of the changes, and a table of the token counts that changed (of every tool,
    /// without a baseline). `against` names the baseline.
    pub fn markdown(&self, against: &str) -> String {
        let mut out = String::new();
        let breaking = self.count(Class::Breaking);
        let allowed = self.changes.iter().filter(|c| c.allowed).count();
        let verdict = if self.fails() { "fails" } else { "passes" };
        if self.baseline {
            out.push_str(&format!(
                "### Tool definitions against `{against}`: {verdict}\n\n"
            ));
        } else {
            out.push_str(&format!(
                "### Tool definitions' token budgets: {verdict}\n\n"
            ));
        }
        if self.baseline {
            out.push_str(&format!(
                "**{breaking} breaking**{}, {} additive, {} cosmetic\n\n",
                if allowed > 0 {
                    format!(" ({allowed} allowed)")
                } else {
                    String::new()
                },
                self.count(Class::Additive),
                self.count(Class::Cosmetic)
            ));
        }
        if !self.changes.is_empty() {
            out.push_str("| class | rule | tool | where | change |\n|---|---|---|---|---|\n");
            for c in &self.changes {
                let class = match (c.class, c.allowed) {
                    (Class::Breaking, true) => "breaking (allowed)".to_owned(),
                    (Class::Breaking, false) => "**breaking**".to_owned(),
                    (class, _) => class.to_string(),
                };
                out.push_str(&format!(
                    "| {class} | `{}` | `{}` | `{}` | {} |\n",
                    c.rule,
                    c.tool,
                    c.pointer,
                    cell(&c.message)
                ));
            }
            out.push('\n');
        }
        for b in &self.over_budget {
            out.push_str(&format!("- **over budget**: {}\n", cell(&b.to_string())));
        }
        if !self.over_budget.is_empty() {
            out.push('\n');
        }
        let formats = self.formats();
        let changed: Vec<(&String, &BTreeMap<String, TokenCount>)> = self
            .tokens
            .tools
            .iter()
            .filter(|(_, per)| per.values().any(|c| c.before != c.after))
            .collect();
        out.push_str(&format!("Tokens ({}", self.tokens.tokenizer));
        if !self.baseline {
            out.push_str(")\n\n");
        } else if self.tokens.comparable() {
            out.push_str(&format!("; {} tools changed)\n\n", changed.len()));
        } else {
            out.push_str(&format!(
                "; the baseline was counted by {}, so no deltas)\n\n",
                self.tokens
                    .baseline_tokenizer
                    .as_deref()
                    .unwrap_or("nothing")
            ));
        }
        out.push_str("| tool |");
        for f in &formats {
            out.push_str(&format!(" {f} |"));
        }
        out.push_str("\n|---|");
        out.push_str(&"---:|".repeat(formats.len()));
        out.push('\n');
        let show = |count: Option<&TokenCount>| -> String {
            let Some(c) = count else { return String::new() };
            match (c.after, c.delta()) {
                (Some(a), Some(0)) => thousands(a),
                (Some(a), Some(d)) => format!("{} ({})", thousands(a), signed(d)),
                (Some(a), None) => thousands(a),
                (None, _) => format!("gone (was {})", c.before.map_or("?".into(), thousands)),
            }
        };
        let rows: Vec<(&String, &BTreeMap<String, TokenCount>)> = if self.baseline {
            changed
        } else {
            self.tokens.tools.iter().collect()
        };
        for (tool, per) in rows {
            out.push_str(&format!("| `{tool}` |"));
            for f in &formats {
                out.push_str(&format!(" {} |", show(per.get(*f))));
            }
            out.push('\n');
        }
        out.push_str("| **whole listing** |");
        for f in &formats {
            out.push_str(&format!(" **{}** |", show(self.tokens.listing.get(*f))));
        }
        out.push('\n');
        out
    }

    fn formats(&self) -> Vec<&'static str> {
        Format::ALL
            .iter()
            .map(|f| f.as_str())
            .filter(|f| self.tokens.listing.contains_key(*f))
            .collect()
    }
}

impl fmt::Display for Review {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for c in &self.changes {
            writeln!(f, "{c}")?;
        }
        for b in &self.over_budget {
            writeln!(f, "{b}")?;
        }
        write!(f, "tokens ({}):", self.tokens.tokenizer)?;
        for (i, format) in self.formats().into_iter().enumerate() {
            let Some(c) = self.tokens.listing.get(format) else {
                continue;
            };
            let sep = if i == 0 { " " } else { ", " };
            write!(f, "{sep}{format} {}", c.after.map_or("?".into(), thousands))?;
            if let Some(d) = c.delta()
                && self.tokens.comparable()
            {
                write!(f, " ({})", signed(d))?;
            }
        }
        writeln!(f)?;
        if self.baseline && !self.tokens.comparable() {
            writeln!(
                f,
                "  (the baseline was counted by {}: no token deltas; write it again to compare)",
                self.tokens
                    .baseline_tokenizer
                    .as_deref()
                    .unwrap_or("nothing")
            )?;
        }
        if self.tokens.comparable() {
            for (tool, per) in &self.tokens.tools {
                let deltas: Vec<String> = self
                    .formats()
                    .into_iter()
                    .filter_map(|format| {
                        let c = per.get(format)?;
                        match (c.before, c.after) {
                            (Some(b), Some(a)) if a != b => Some(format!(
                                "{format} {} -> {} ({})",
                                thousands(b),
                                thousands(a),
                                signed(a as i64 - b as i64)
                            )),
                            (None, Some(a)) => Some(format!("{format} {} (new)", thousands(a))),
                            (Some(b), None) => Some(format!("{format} -{} (gone)", thousands(b))),
                            _ => None,
                        }
                    })
                    .collect();
                if !deltas.is_empty() {
                    writeln!(f, "  {tool}: {}", deltas.join(", "))?;
                }
            }
        }
        if self.baseline {
            let allowed = self.changes.iter().filter(|c| c.allowed).count();
            write!(
                f,
                "{} breaking{}, {} additive, {} cosmetic",
                self.count(Class::Breaking),
                if allowed > 0 {
                    format!(" ({allowed} allowed)")
                } else {
                    String::new()
                },
                self.count(Class::Additive),
                self.count(Class::Cosmetic)
            )?;
        }
        if !self.over_budget.is_empty() {
            if self.baseline {
                write!(f, "; ")?;
            }
            write!(f, "{} over budget", self.over_budget.len())?;
        }
        Ok(())
    }
}

fn cell(text: &str) -> String {
    text.replace('|', "\\|").replace('\n', " ")
}

fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

fn signed(d: i64) -> String {
    if d >= 0 {
        format!("+{}", thousands(d as u64))
    } else {
        format!("-{}", thousands(d.unsigned_abs()))
    }
}

/// Reviews `current` against `baseline` (none: only the counts and budgets).
pub fn review(baseline: Option<&Lock>, current: &Lock, options: &ReviewOptions) -> Review {
    let mut changes = Vec::new();
    if let Some(baseline) = baseline {
        compare_locks(baseline, current, &mut changes);
    }
    for change in &mut changes {
        change.allowed =
            change.class == Class::Breaking && options.allow.iter().any(|a| a.allows(change));
    }
    changes.sort_by(|a, b| {
        (a.class, &a.tool, &a.pointer, a.rule, &a.message)
            .cmp(&(b.class, &b.tool, &b.pointer, b.rule, &b.message))
    });
    changes.dedup();
    let tokens = tokens(baseline, current);
    let over_budget = budgets(current, options);
    Review {
        baseline: baseline.is_some(),
        changes,
        tokens,
        over_budget,
    }
}

fn tokens(baseline: Option<&Lock>, current: &Lock) -> Tokens {
    let counted = |before: Option<&BTreeMap<String, u64>>,
                   after: Option<&BTreeMap<String, u64>>| {
        let mut out = BTreeMap::new();
        let keys: BTreeSet<&String> = before
            .into_iter()
            .chain(after)
            .flat_map(|m| m.keys())
            .collect();
        for key in keys {
            out.insert(
                key.clone(),
                TokenCount {
                    before: before.and_then(|m| m.get(key)).copied(),
                    after: after.and_then(|m| m.get(key)).copied(),
                },
            );
        }
        out
    };
    let listing = counted(baseline.map(|b| &b.tokens), Some(&current.tokens));
    let mut tools = BTreeMap::new();
    let names: BTreeSet<&str> = baseline
        .iter()
        .flat_map(|b| b.tools.iter())
        .chain(&current.tools)
        .map(|t| t.name.as_str())
        .collect();
    for name in names {
        let before = baseline.and_then(|b| b.get(name)).map(|t| &t.tokens);
        let after = current.get(name).map(|t| &t.tokens);
        tools.insert(name.to_owned(), counted(before, after));
    }
    Tokens {
        tokenizer: current
            .tokenizer
            .clone()
            .unwrap_or_else(|| crate::tokens::TOKENIZER.to_owned()),
        baseline_tokenizer: baseline.and_then(|b| b.tokenizer.clone()),
        listing,
        tools,
    }
}

fn budgets(current: &Lock, options: &ReviewOptions) -> Vec<Budget> {
    let formats: Vec<&str> = if options.budget_formats.is_empty() {
        Format::ALL.iter().map(|f| f.as_str()).collect()
    } else {
        options.budget_formats.iter().map(|f| f.as_str()).collect()
    };
    let mut out = Vec::new();
    if let Some(limit) = options.max_tokens {
        for format in &formats {
            if let Some(&tokens) = current.tokens.get(*format)
                && tokens > limit
            {
                out.push(Budget {
                    tool: None,
                    format: (*format).to_owned(),
                    tokens,
                    limit,
                });
            }
        }
    }
    if let Some(limit) = options.max_tool_tokens {
        for tool in &current.tools {
            for format in &formats {
                if let Some(&tokens) = tool.tokens.get(*format)
                    && tokens > limit
                {
                    out.push(Budget {
                        tool: Some(tool.name.clone()),
                        format: (*format).to_owned(),
                        tokens,
                        limit,
                    });
                }
            }
        }
    }
    out
}

/// Scopes: what a caller must hold, for a tool, a resource or a prompt.
fn compare_scopes(old: &Value, new: &Value, push: &mut impl FnMut(&'static str, &str, String)) {
    let scopes = |v: &Value| -> BTreeSet<String> {
        v.get("scopes")
            .and_then(Value::as_array)
            .map(|s| {
                s.iter()
                    .filter_map(Value::as_str)
                    .map(str::to_owned)
                    .collect()
            })
            .unwrap_or_default()
    };
    let (os, ns) = (scopes(old), scopes(new));
    for s in ns.difference(&os) {
        push(
            "scopes.added",
            "/scopes",
            format!("a caller now needs the scope `{s}`"),
        );
    }
    for s in os.difference(&ns) {
        push(
            "scopes.removed",
            "/scopes",
            format!("a caller no longer needs the scope `{s}`"),
        );
    }
}

/// Who sees a tool, from its `visibility` (absent: the model and views): losing an audience
/// breaks what it relied on, gaining one adds.
fn compare_visibility(old: &Value, new: &Value, push: &mut impl FnMut(&'static str, &str, String)) {
    let audiences = |v: &Value| -> BTreeSet<&'static str> {
        match v.get("visibility").and_then(Value::as_str) {
            Some("model") => BTreeSet::from(["the model"]),
            Some("app") => BTreeSet::from(["views"]),
            _ => BTreeSet::from(["the model", "views"]),
        }
    };
    let (was, is) = (audiences(old), audiences(new));
    let lost: Vec<&str> = was.difference(&is).copied().collect();
    let gained: Vec<&str> = is.difference(&was).copied().collect();
    if !lost.is_empty() {
        push(
            "visibility.narrowed",
            "/visibility",
            format!("{} no longer see the tool", lost.join(" and ")),
        );
    } else if !gained.is_empty() {
        push(
            "visibility.widened",
            "/visibility",
            format!("{} now see the tool", gained.join(" and ")),
        );
    }
}

fn change(rule: &'static str, tool: &str, pointer: &str, message: String) -> Change {
    Change {
        // Every rule this module emits is in RULES (a test holds it to that).
        class: class_of(rule).unwrap_or(Class::Breaking),
        rule,
        tool: tool.to_owned(),
        pointer: pointer.to_owned(),
        message,
        allowed: false,
    }
}

fn compare_locks(baseline: &Lock, current: &Lock, out: &mut Vec<Change>) {
    let mut removed: Vec<&LockedTool> = Vec::new();
    let mut added: Vec<&LockedTool> = current
        .tools
        .iter()
        .filter(|t| baseline.get(&t.name).is_none())
        .collect();
    for old in &baseline.tools {
        match current.get(&old.name) {
            Some(new) => compare_tools(&old.name, &old.definition, &new.definition, out),
            None => removed.push(old),
        }
    }
    for old in removed {
        // A tool gone and another come with the same schemas: renamed.
        let twin = added.iter().position(|new| {
            let same = |key: &str| match (old.definition.get(key), new.definition.get(key)) {
                (Some(a), Some(b)) => schema_diff::same_shape(a, b),
                (None, None) => true,
                _ => false,
            };
            same("inputSchema") && same("outputSchema")
        });
        match twin {
            Some(i) => {
                let new = added.remove(i);
                out.push(change(
                    "tool.renamed",
                    &old.name,
                    "/name",
                    format!("renamed to `{}` (the same schemas)", new.name),
                ));
            }
            None => out.push(change(
                "tool.removed",
                &old.name,
                "",
                "the tool is gone".into(),
            )),
        }
    }
    for new in added {
        out.push(change("tool.added", &new.name, "", "a new tool".into()));
    }
    compare_items(Kind::Resource, &baseline.resources, &current.resources, out);
    compare_items(Kind::Prompt, &baseline.prompts, &current.prompts, out);
}

/// The changes between two lists of one kind.
fn compare_items(kind: Kind, old: &[LockedItem], new: &[LockedItem], out: &mut Vec<Change>) {
    let (removed, added, noun) = match kind {
        Kind::Resource => ("resource.removed", "resource.added", "resource"),
        Kind::Prompt => ("prompt.removed", "prompt.added", "prompt"),
    };
    for before in old {
        match new.iter().find(|n| n.key == before.key) {
            Some(after) => compare_item(
                kind,
                &before.key,
                &before.definition,
                &after.definition,
                out,
            ),
            None => out.push(change(
                removed,
                &before.key,
                "",
                format!("the {noun} is gone"),
            )),
        }
    }
    for after in new.iter().filter(|n| !old.iter().any(|o| o.key == n.key)) {
        out.push(change(added, &after.key, "", format!("a new {noun}")));
    }
}

fn compare_item(kind: Kind, key: &str, old: &Value, new: &Value, out: &mut Vec<Change>) {
    let mut push =
        |rule, pointer: &str, message: String| out.push(change(rule, key, pointer, message));
    let field = |v: &Value, k: &str| v.get(k).cloned().unwrap_or(Value::Null);
    for (k, what) in [
        ("name", "name"),
        ("title", "title"),
        ("description", "description"),
    ] {
        if field(old, k) != field(new, k) {
            push(
                "item.text.changed",
                &format!("/{k}"),
                format!("the {what} changed"),
            );
        }
    }
    compare_scopes(old, new, &mut push);
    match kind {
        Kind::Resource => {
            if field(old, "mimeType") != field(new, "mimeType") {
                push(
                    "resource.mime_type.changed",
                    "/mimeType",
                    format!(
                        "the MIME type was {}, is {}",
                        field(old, "mimeType"),
                        field(new, "mimeType")
                    ),
                );
            }
        }
        Kind::Prompt => compare_arguments(old, new, &mut push),
    }
}

fn compare_arguments(old: &Value, new: &Value, push: &mut impl FnMut(&'static str, &str, String)) {
    let arguments = |v: &Value| -> Vec<(String, bool)> {
        v.get("arguments")
            .and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(|a| {
                        let name = a.get("name")?.as_str()?.to_owned();
                        Some((
                            name,
                            a.get("required").and_then(Value::as_bool) == Some(true),
                        ))
                    })
                    .collect()
            })
            .unwrap_or_default()
    };
    let (before, after) = (arguments(old), arguments(new));
    for (name, required) in &before {
        match after.iter().find(|(n, _)| n == name) {
            None => push(
                "prompt.argument.removed",
                "/arguments",
                format!("the argument `{name}` is gone"),
            ),
            Some((_, now)) if *now && !required => push(
                "prompt.argument.required",
                "/arguments",
                format!("the argument `{name}` is now required"),
            ),
            Some((_, now)) if !now && *required => push(
                "prompt.argument.optional",
                "/arguments",
                format!("the argument `{name}` is now optional"),
            ),
            Some(_) => {}
        }
    }
    for (name, required) in after
        .iter()
        .filter(|(n, _)| !before.iter().any(|(b, _)| b == n))
    {
        if *required {
            push(
                "prompt.argument.required",
                "/arguments",
                format!("a new argument `{name}` is required"),
            );
        } else {
            push(
                "prompt.argument.added",
                "/arguments",
                format!("a new optional argument `{name}`"),
            );
        }
    }
}

/// The `_meta` keys tool-core writes, each compared by its own rule.
const META_KEYS: [&str; 6] = [
    "tool-core/domain",
    "tool-core/hint",
    "tool-core/label",
    "tool-core/core",
    "tool-core/mirror",
    "tool-core/task",
];

/// The top-level keys of a definition compared by a rule of their own.
const KNOWN_KEYS: [&str; 12] = [
    "visibility",
    "view",
    "name",
    "title",
    "description",
    "inputSchema",
    "outputSchema",
    "annotations",
    "icons",
    "_meta",
    "scopes",
    "examples",
];

fn compare_tools(tool: &str, old: &Value, new: &Value, out: &mut Vec<Change>) {
    let mut push =
        |rule, pointer: &str, message: String| out.push(change(rule, tool, pointer, message));
    let text = |v: &Value, key: &str| v.get(key).cloned().unwrap_or(Value::Null);
    if text(old, "description") != text(new, "description") {
        push(
            "description.changed",
            "/description",
            "the description changed".into(),
        );
    }
    let meta = |v: &Value, key: &str| v.get("_meta").and_then(|m| m.get(key)).cloned();
    let title_changed = text(old, "title") != text(new, "title");
    if title_changed {
        push(
            "title.changed",
            "/title",
            format!(
                "the title changed from {} to {}",
                text(old, "title"),
                text(new, "title")
            ),
        );
    } else {
        let annotation_title =
            |v: &Value| v.get("annotations").and_then(|a| a.get("title")).cloned();
        if annotation_title(old) != annotation_title(new) {
            push(
                "title.changed",
                "/annotations/title",
                "the annotations' title changed".into(),
            );
        } else if meta(old, "tool-core/label") != meta(new, "tool-core/label") {
            push(
                "title.changed",
                "/_meta/tool-core~1label",
                "the label changed".into(),
            );
        }
    }
    if meta(old, "tool-core/hint") != meta(new, "tool-core/hint") {
        push(
            "hint.changed",
            "/_meta/tool-core~1hint",
            "the hint changed".into(),
        );
    }
    if meta(old, "tool-core/domain") != meta(new, "tool-core/domain") {
        let show = |v: Option<Value>| v.map_or("none".to_owned(), |v| v.to_string());
        push(
            "domain.changed",
            "/_meta/tool-core~1domain",
            format!(
                "the domain changed from {} to {}",
                show(meta(old, "tool-core/domain")),
                show(meta(new, "tool-core/domain"))
            ),
        );
    }
    let flag = |v: &Value, key: &str, default: bool| {
        meta(v, key).and_then(|f| f.as_bool()).unwrap_or(default)
    };
    match (
        flag(old, "tool-core/core", false),
        flag(new, "tool-core/core", false),
    ) {
        (true, false) => push(
            "tool.deferred",
            "/_meta/tool-core~1core",
            "the tool is deferred: a model sees it only after a search finds it".into(),
        ),
        (false, true) => push(
            "tool.core",
            "/_meta/tool-core~1core",
            "the tool is core: offered in every request".into(),
        ),
        _ => {}
    }
    match (
        flag(old, "tool-core/mirror", true),
        flag(new, "tool-core/mirror", true),
    ) {
        (true, false) => push(
            "mirror.off",
            "/_meta/tool-core~1mirror",
            "results no longer carry their text mirror: a client that reads the text gets none"
                .into(),
        ),
        (false, true) => push(
            "mirror.on",
            "/_meta/tool-core~1mirror",
            "results carry their text mirror again".into(),
        ),
        _ => {}
    }
    // `true` (may be a task), `"required"` (must be), or absent.
    let task = |v: &Value| match v.pointer("/_meta/tool-core~1task") {
        Some(Value::String(mode)) if mode == "required" => 2,
        Some(Value::Bool(true)) => 1,
        Some(Value::String(mode)) if mode == "optional" => 1,
        _ => 0,
    };
    match (task(old), task(new)) {
        (before, 2) if before != 2 => push(
            "task.required",
            "/_meta/tool-core~1task",
            "calls must now be answered with a task: a 2026-07-28 client that did not declare \
             the tasks extension is refused (-32021)"
                .into(),
        ),
        (before, now) if before != now => {
            let now = if now > 0 {
                "may now be"
            } else {
                "are no longer"
            };
            push(
                "task.changed",
                "/_meta/tool-core~1task",
                format!("calls {now} answered with a task"),
            );
        }
        _ => {}
    }
    let other_meta = |v: &Value| -> BTreeMap<String, Value> {
        v.get("_meta")
            .and_then(Value::as_object)
            .map(|m| {
                m.iter()
                    .filter(|(k, _)| !META_KEYS.contains(&k.as_str()))
                    .map(|(k, v)| (k.clone(), v.clone()))
                    .collect()
            })
            .unwrap_or_default()
    };
    let (om, nm) = (other_meta(old), other_meta(new));
    let keys: BTreeSet<&String> = om.keys().chain(nm.keys()).collect();
    for key in keys {
        if om.get(key) != nm.get(key) {
            push(
                "meta.changed",
                &format!("/_meta/{}", key.replace('~', "~0").replace('/', "~1")),
                format!("`_meta.{key}` changed"),
            );
        }
    }
    if text(old, "icons") != text(new, "icons") {
        push("icons.changed", "/icons", "the icons changed".into());
    }
    if text(old, "examples") != text(new, "examples") {
        push(
            "examples.changed",
            "/examples",
            "the examples changed".into(),
        );
    }
    compare_scopes(old, new, &mut push);
    compare_visibility(old, new, &mut push);
    if text(old, "view") != text(new, "view") {
        push("view.changed", "/view", "the view changed".into());
    }
    annotations(old, new, &mut push);
    // Fields this review does not know: any change may matter.
    let keys = |v: &Value| -> BTreeSet<String> {
        v.as_object()
            .map(|m| m.keys().cloned().collect())
            .unwrap_or_default()
    };
    let all: BTreeSet<String> = keys(old).union(&keys(new)).cloned().collect();
    for key in all {
        if !KNOWN_KEYS.contains(&key.as_str()) && old.get(&key) != new.get(&key) {
            push(
                "tool.changed",
                &format!("/{}", key.replace('~', "~0").replace('/', "~1")),
                format!("`{key}` changed"),
            );
        }
    }
    for found in schemas(old, new) {
        push(found.rule, &found.pointer, found.message);
    }
}

/// The effective hints, with MCP's defaults: not read-only, destructive and open-world unless
/// said otherwise, not idempotent; `destructiveHint` means nothing on a read-only tool.
fn hints(v: &Value) -> [bool; 4] {
    let a = v.get("annotations");
    let hint = |key: &str, default: bool| {
        a.and_then(|a| a.get(key))
            .and_then(Value::as_bool)
            .unwrap_or(default)
    };
    let read_only = hint("readOnlyHint", false);
    [
        read_only,
        !read_only && hint("destructiveHint", true),
        hint("idempotentHint", false),
        hint("openWorldHint", true),
    ]
}

fn annotations(old: &Value, new: &Value, push: &mut impl FnMut(&'static str, &str, String)) {
    let (o, n) = (hints(old), hints(new));
    let names = [
        "readOnlyHint",
        "destructiveHint",
        "idempotentHint",
        "openWorldHint",
    ];
    // For each hint: the value that is the safer promise.
    let safe = [true, false, true, false];
    let rules = [
        ("annotations.read_only", "the tool is no longer read-only"),
        ("annotations.destructive", "the tool is now destructive"),
        (
            "annotations.idempotent",
            "the tool is no longer idempotent: a retried call may act twice",
        ),
        (
            "annotations.open_world",
            "the tool now reaches the open world",
        ),
    ];
    for i in 0..4 {
        if o[i] == n[i] {
            continue;
        }
        let pointer = format!("/annotations/{}", names[i]);
        if o[i] == safe[i] {
            push(rules[i].0, &pointer, rules[i].1.into());
        } else {
            push(
                "annotations.safer",
                &pointer,
                format!("`{}` is now {}", names[i], n[i]),
            );
        }
    }
}

fn schemas(old: &Value, new: &Value) -> Vec<schema_diff::Found> {
    let mut out = Vec::new();
    let input = |v: &Value| {
        v.get("inputSchema")
            .cloned()
            .unwrap_or(Value::Object(Default::default()))
    };
    out.extend(schema_diff::compare(
        Side::Input,
        "/inputSchema",
        &input(old),
        &input(new),
    ));
    match (old.get("outputSchema"), new.get("outputSchema")) {
        (Some(a), Some(b)) => out.extend(schema_diff::compare(Side::Output, "/outputSchema", a, b)),
        (Some(_), None) => out.push(schema_diff::Found {
            pointer: "/outputSchema".into(),
            rule: "output.removed",
            message: "the output schema is gone: results are no longer described".into(),
        }),
        (None, Some(_)) => out.push(schema_diff::Found {
            pointer: "/outputSchema".into(),
            rule: "output.added",
            message: "the tool now describes its results".into(),
        }),
        (None, None) => {}
    }
    out
}
