//! The subcommands that read the registry: `list`, `show`, `search`, `check`, `lock`, and what
//! they print.

use std::io::Read;

use serde_json::{Value, json};
use tool_catalog::{Catalog, SearchOptions};
use tool_core::definition::TaskSupport;
use tool_core::definition::check::{self, CheckOptions};
use tool_core::definition::schema::Severity;
use tool_core::render::Format;
use tool_core::{Registry, ToolOutput, error::ErrorKind, registry::RegistryError, registry::Tool};
use tool_lock::{Lock, ReviewOptions};

use crate::args::CheckArgs;
use crate::exit::{Exit, Out, print_json, usage};

pub(crate) fn search(
    catalog: &Catalog,
    options: &SearchOptions,
    query: &str,
    as_json: bool,
    out: Out,
    err: Out,
) -> Result<(), Exit> {
    let found = catalog.search(query, options);
    if as_json {
        print_json(out, &serde_json::to_value(&found).unwrap_or_default());
        return Ok(());
    }
    let width = found.iter().map(|m| m.name.len()).max().unwrap_or(0);
    let domain_width = found.iter().map(|m| m.domain.len()).max().unwrap_or(0);
    for m in &found {
        let _ = writeln!(
            out,
            "{:width$}  {:domain_width$}  {:6.2}  {}",
            m.name, m.domain, m.score, m.hint
        );
    }
    if found.is_empty() {
        let _ = writeln!(err, "no tool matches `{query}`");
    }
    Ok(())
}

/// `--queries FILE`: one JSON object per line in, one per line out, in order. A line that is not
/// `{"query": "..."}` is an error naming the line.
pub(crate) fn search_batch(
    catalog: &Catalog,
    options: &SearchOptions,
    path: &std::path::Path,
    out: Out,
    err: Out,
) -> Result<(), Exit> {
    let text = if path.as_os_str() == "-" {
        let mut text = String::new();
        std::io::stdin()
            .read_to_string(&mut text)
            .map_err(|e| usage(err, format!("--queries -: {e}")))?;
        text
    } else {
        std::fs::read_to_string(path)
            .map_err(|e| usage(err, format!("--queries {}: {e}", path.display())))?
    };
    #[derive(serde::Deserialize)]
    struct Line {
        query: String,
    }
    for (n, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let Line { query } = serde_json::from_str(line).map_err(|e| {
            usage(
                err,
                format!(
                    "--queries {} line {}: expected {{\"query\": \"...\"}}: {e}",
                    path.display(),
                    n + 1
                ),
            )
        })?;
        let results: Vec<&str> = catalog
            .search(&query, options)
            .iter()
            .map(|m| m.name)
            .collect();
        let _ = writeln!(out, "{}", json!({"query": query, "results": results}));
    }
    Ok(())
}

pub(crate) fn check(
    registry: &Registry,
    clashes: Vec<RegistryError>,
    args: &CheckArgs,
    out: Out,
    err: Out,
) -> Result<(), Exit> {
    let formats = if args.formats.is_empty() {
        Format::ALL.to_vec()
    } else {
        args.formats.clone()
    };
    if let Some(problem) = args
        .approval
        .problem()
        .or_else(|| args.approval.unknown(registry))
    {
        return Err(usage(err, problem));
    }
    let options = CheckOptions::default()
        .formats(formats.clone())
        .strict(args.strict)
        .verbs(args.allow_verbs.clone())
        .approval(args.approval.policy());
    let mut report = check::check_registry(registry, &options);
    for clash in clashes {
        if let RegistryError::DuplicateName { name, .. } = &clash {
            report.diagnostics.insert(
                0,
                check::Diagnostic::new(
                    Severity::Error,
                    name.clone(),
                    "/name",
                    "name.unique",
                    clash.to_string(),
                    "rename one of them",
                ),
            );
        }
    }
    // The review: against the baseline, and the budgets (either alone is enough).
    let reviewed =
        args.baseline.is_some() || args.max_tokens.is_some() || args.max_tool_tokens.is_some();
    let review = if reviewed {
        let baseline = match &args.baseline {
            Some(path) => {
                let origin = path.display().to_string();
                let text = std::fs::read_to_string(path)
                    .map_err(|e| usage(err, format!("--baseline {origin}: {e}")))?;
                Some(
                    Lock::parse(&text, &origin)
                        .map_err(|e| usage(err, format!("--baseline {e}")))?,
                )
            }
            None => None,
        };
        let options = ReviewOptions::default()
            .allow(args.allow_breaking.clone())
            .max_tokens(args.max_tokens)
            .max_tool_tokens(args.max_tool_tokens)
            .budget_formats(formats);
        Some(tool_lock::review(
            baseline.as_ref(),
            &Lock::of(registry),
            &options,
        ))
    } else {
        None
    };
    let against = args
        .baseline
        .as_ref()
        .map_or(String::new(), |p| p.display().to_string());
    if args.json {
        let mut value = json!({ "diagnostics": report.diagnostics });
        if let Some(review) = &review {
            value["review"] = serde_json::to_value(review).unwrap_or_default();
        }
        print_json(out, &value);
    } else if args.markdown {
        if let Some(review) = &review {
            let _ = writeln!(out, "{}", review.markdown(&against));
        }
        let _ = write!(out, "{}", check_markdown(&report));
    } else {
        let _ = writeln!(out, "{report}");
        if let Some(review) = &review {
            let heading = match &args.baseline {
                Some(_) => format!("against {against}"),
                None => "budgets".to_owned(),
            };
            let _ = writeln!(out, "\n{heading}:\n{review}");
        }
    }
    if report.has_errors() || review.as_ref().is_some_and(|r| r.fails()) {
        Err(Exit(1))
    } else {
        Ok(())
    }
}

/// `check`'s findings in Markdown: the counts, and a table of the findings.
fn check_markdown(report: &check::Report) -> String {
    let errors = report.count(Severity::Error);
    let warnings = report.count(Severity::Warning);
    let mut out = format!("### Tool definitions checked: {errors} errors, {warnings} warnings\n\n");
    if report.diagnostics.is_empty() {
        return out;
    }
    out.push_str(
        "| severity | rule | tool | format | where | finding |\n|---|---|---|---|---|---|\n",
    );
    let cell = |s: &str| s.replace('|', "\\|").replace('\n', " ");
    for d in &report.diagnostics {
        let severity = match d.severity {
            Severity::Error => "**error**",
            Severity::Warning => "warning",
        };
        let format = match d.format {
            Some((f, true)) => format!("{f} strict"),
            Some((f, false)) => f.to_string(),
            None => String::new(),
        };
        out.push_str(&format!(
            "| {severity} | `{}` | `{}` | {format} | `{}` | {} |\n",
            d.rule,
            d.tool,
            d.pointer,
            cell(&d.message)
        ));
    }
    out
}

/// `lock`: the definitions as served, with their token counts, written to `output`.
pub(crate) fn lock(
    registry: &Registry,
    output: &std::path::Path,
    out: Out,
    err: Out,
) -> Result<(), Exit> {
    let lock = Lock::of(registry);
    let text = lock.to_json();
    if output.as_os_str() == "-" {
        let _ = write!(out, "{text}");
        return Ok(());
    }
    std::fs::write(output, &text)
        .map_err(|e| usage(err, format!("-o {}: {e}", output.display())))?;
    let openai = lock.tokens.get("openai").copied().unwrap_or(0);
    let _ = writeln!(
        err,
        "wrote {} ({} tools, {openai} tokens as OpenAI sees them, counted by {})",
        output.display(),
        lock.tools.len(),
        tool_lock::tokens::TOKENIZER
    );
    Ok(())
}

pub(crate) fn list(
    registry: &Registry,
    as_json: bool,
    domain: Option<&str>,
    out: Out,
    err: Out,
) -> Result<(), Exit> {
    let tools: Vec<&Tool> = match domain {
        Some(d) => registry.in_domain(d).collect(),
        None => registry.tools().iter().collect(),
    };
    if let (Some(d), true) = (domain, tools.is_empty()) {
        let known: Vec<_> = registry
            .domains()
            .iter()
            .map(|d| d.name.to_string())
            .collect();
        return Err(usage(
            err,
            format!(
                "no domain is named `{d}`; the domains are: {}",
                known.join(", ")
            ),
        ));
    }
    if registry.is_empty() {
        // The usual cause: the tools live in a crate the binary depends on but never names, so
        // the linker dropped them.
        let _ = writeln!(
            err,
            "no tools are linked into this binary; a #[tool] defined in another crate is \
             collected only when the binary names that crate: add `use that_crate as _;`"
        );
    }
    if as_json {
        print_json(
            out,
            &Value::Array(tools.iter().map(|t| definition_json(t)).collect()),
        );
        return Ok(());
    }
    let width = tools.iter().map(|t| t.name().len()).max().unwrap_or(0);
    let domain_width = tools
        .iter()
        .map(|t| t.domain().name.len())
        .max()
        .unwrap_or(0);
    for t in tools {
        let offered = if t.is_core() { "core" } else { "deferred" };
        let _ = writeln!(
            out,
            "{:width$}  {:domain_width$}  {:8}  {}",
            t.name(),
            t.domain().name,
            offered,
            t.hint()
        );
    }
    Ok(())
}

pub(crate) fn show(registry: &Registry, name: &str, out: Out, err: Out) -> Result<(), Exit> {
    let tool = find(registry, name, err)?;
    print_json(out, &definition_json(tool));
    Ok(())
}

pub(crate) fn find<'r>(registry: &'r Registry, name: &str, err: Out) -> Result<&'r Tool, Exit> {
    registry.get(name).ok_or_else(|| {
        let e = tool_core::exec::unknown_tool(name, &registry.suggest(name));
        debug_assert_eq!(e.kind(), ErrorKind::UnknownTool);
        usage(err, e.to_string())
    })
}

/// A tool's full definition, as `list --json` and `show` print it: its icons as given (the
/// MCP rendering carries those that meet the icon rule), `"mirror": false` when its MCP
/// results leave out their text mirror, and `"task": true` when a call over MCP may be answered
/// with a task.
///
/// ```
/// use serde_json::json;
/// use tool_core::{registry::DynamicTool, Registry, registry::ToolIcon};
/// let mut registry = Registry::empty();
/// registry.register(
///     DynamicTool::new("get_stats", "Returns the counters.", json!({"type": "object"}))
///         .output_schema(json!({"type": "object"}))
///         .mirror(false)
///         .icon(ToolIcon::new("https://example.com/stats.svg").mime_type("image/svg+xml")),
/// ).unwrap();
/// let def = tool_cli::definition_json(registry.get("get_stats").unwrap());
/// assert_eq!(def["icons"], json!([{"src": "https://example.com/stats.svg", "mime_type": "image/svg+xml"}]));
/// assert_eq!(def["mirror"], false);
/// assert!(def.get("task").is_none());
///
/// registry.register(
///     DynamicTool::new("export_report", "Returns the report.", json!({"type": "object"}))
///         .task(true),
/// ).unwrap();
/// let def = tool_cli::definition_json(registry.get("export_report").unwrap());
/// assert_eq!(def["task"], true);
/// assert!(def.get("mirror").is_none());
/// ```
pub fn definition_json(tool: &Tool) -> Value {
    let mut def = json!({
        "name": tool.name(),
        "description": tool.description(),
        "domain": tool.domain().name,
        "label": tool.label(),
        "hint": tool.hint(),
        "core": tool.is_core(),
        "annotations": tool.annotations(),
        "voiced": tool.voiced(),
        "feeds_back": tool.feeds_back(),
        "examples": tool.examples(),
        "input_schema": tool.input_schema(),
    });
    if let Value::Object(map) = &mut def {
        if let Some(schema) = tool.output_schema() {
            map.insert("output_schema".into(), schema.clone());
        }
        if let Some(source) = tool.source() {
            map.insert("source".into(), source.into());
        }
        if let Some(timeout) = tool.timeout() {
            map.insert("timeout_ms".into(), (timeout.as_millis() as u64).into());
        }
        if tool.retries() > 0 {
            map.insert("retries".into(), tool.retries().into());
        }
        if !tool.scopes().is_empty() {
            map.insert("scopes".into(), tool.scopes().into());
        }
        if !tool.icons().is_empty()
            && let Ok(icons) = serde_json::to_value(tool.icons())
        {
            map.insert("icons".into(), icons);
        }
        if !tool.mirror() {
            map.insert("mirror".into(), false.into());
        }
        match tool.task_support() {
            TaskSupport::Forbidden => {}
            TaskSupport::Optional => {
                map.insert("task".into(), true.into());
            }
            support => {
                map.insert("task".into(), support.as_str().into());
            }
        }
    }
    def
}

pub(crate) fn output_json(output: &ToolOutput) -> Value {
    let media: Vec<Value> = output
        .media()
        .iter()
        .map(|m| json!({ "kind": m.kind, "mime_type": m.mime_type, "bytes": m.data.len() }))
        .collect();
    let mut result = json!({ "ok": true, "data": output.data() });
    if let Value::Object(map) = &mut result {
        // The echo is shown only where it says more than the data's own JSON.
        let echo = output.echo();
        if output.data().is_none_or(|d| d.to_string() != echo) {
            map.insert("echo".into(), echo.into());
        }
        if let Some(event) = output.event() {
            map.insert("event".into(), event.into());
        }
        if !media.is_empty() {
            map.insert("media".into(), media.into());
        }
    }
    result
}
