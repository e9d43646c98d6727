//! The command-line front end (feature `cli`): `list`, `show` and `call` over a registry.
//!
//! `toolctl` is a thin `main` over [`main`]; any agent binary can mount the same subcommands by
//! flattening [`ToolArgs`] into its own clap parser and calling [`ToolArgs::run`].
//!
//! Exit codes: 0 on success, 1 when a tool call fails, 2 on usage errors (bad arguments, an
//! unknown tool, input that is not JSON, a registry that cannot be built).

use std::io::{Read, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand};
use serde_json::{Value, json};

use crate::{ContextBuilder, ErrorKind, Registry, Tool, ToolOutput, ToolRoot};

/// The subcommands and the options they share.
#[derive(Debug, Args)]
pub struct ToolArgs {
    /// Directory that tools touching files work under (default: the current directory).
    #[arg(long, global = true, value_name = "DIR")]
    pub root: Option<PathBuf>,
    #[command(subcommand)]
    pub command: Command,
}

/// What to do.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// List every tool.
    List {
        /// Print a JSON array of full definitions instead of a table.
        #[arg(long)]
        json: bool,
        /// Only tools of this domain.
        #[arg(long, value_name = "DOMAIN")]
        domain: Option<String>,
    },
    /// Print one tool's definition as JSON.
    Show {
        /// The tool's name.
        name: String,
    },
    /// Call a tool and print the result as JSON.
    Call {
        /// The tool's name.
        name: String,
        /// The input, a JSON object; `-` reads it from standard input.
        #[arg(long, default_value = "{}", value_name = "JSON")]
        input: String,
    },
}

#[derive(Debug, Parser)]
#[command(
    name = "toolctl",
    about = "List, inspect and call the tools linked into this binary"
)]
struct Cli {
    #[command(flatten)]
    args: ToolArgs,
}

/// Parses the process's arguments and runs them against every linked tool.
pub fn main() -> ExitCode {
    let cli = Cli::parse();
    let registry = match Registry::linked() {
        Ok(registry) => registry,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    let stdout = std::io::stdout();
    let stderr = std::io::stderr();
    cli.args
        .run(&registry, &mut stdout.lock(), &mut stderr.lock())
}

/// Where a command's output goes.
type Out<'a> = &'a mut dyn Write;

/// A failed command: its exit code; the message was already written.
struct Exit(u8);

impl ToolArgs {
    /// Runs the command against `registry`, writing results to `out` and messages to `err`.
    pub fn run(&self, registry: &Registry, out: Out, err: Out) -> ExitCode {
        let result = match &self.command {
            Command::List { json, domain } => list(registry, *json, domain.as_deref(), out, err),
            Command::Show { name } => show(registry, name, out, err),
            Command::Call { name, input } => self.call(registry, name, input, out, err),
        };
        match result {
            Ok(()) => ExitCode::SUCCESS,
            Err(Exit(code)) => ExitCode::from(code),
        }
    }

    fn call(
        &self,
        registry: &Registry,
        name: &str,
        input: &str,
        out: Out,
        err: Out,
    ) -> Result<(), Exit> {
        let tool = find(registry, name, err)?;
        let text = if input == "-" {
            let mut text = String::new();
            std::io::stdin().read_to_string(&mut text).map_err(|e| {
                usage(
                    err,
                    format!("cannot read the input from standard input: {e}"),
                )
            })?;
            text
        } else {
            input.to_owned()
        };
        let input: Value = crate::exec::parse_input(&text)
            .map_err(|e| usage(err, format!("--input: {}", e.message())))?;
        let mut ctx = ContextBuilder::default();
        if let Some(dir) = &self.root {
            let root = ToolRoot::new(dir)
                .map_err(|e| usage(err, format!("--root {}: {e}", dir.display())))?;
            ctx = ctx.root(root);
        }
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| usage(err, format!("cannot start the async runtime: {e}")))?;
        match runtime.block_on(tool.call(input, &ctx.build())) {
            Ok(output) => {
                print_json(out, &output_json(&output));
                Ok(())
            }
            Err(e) => {
                print_json(out, &json!({ "ok": false, "error": e }));
                let _ = writeln!(err, "error: {name}: {e}");
                Err(Exit(1))
            }
        }
    }
}

fn list(
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

fn show(registry: &Registry, name: &str, out: Out, err: Out) -> Result<(), Exit> {
    let tool = find(registry, name, err)?;
    print_json(out, &definition_json(tool));
    Ok(())
}

fn find<'r>(registry: &'r Registry, name: &str, err: Out) -> Result<&'r Tool, Exit> {
    registry.get(name).ok_or_else(|| {
        let e = crate::exec::unknown_tool(name, &registry.suggest(name));
        debug_assert_eq!(e.kind(), ErrorKind::UnknownTool);
        usage(err, e.to_string())
    })
}

fn usage(err: Out, message: String) -> Exit {
    let _ = writeln!(err, "error: {message}");
    Exit(2)
}

/// A tool's full definition, as `list --json` and `show` print it.
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
    }
    def
}

fn output_json(output: &ToolOutput) -> Value {
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

fn print_json(out: Out, value: &Value) {
    // A closed pipe (`toolctl list --json | head`) is not an error worth reporting.
    let _ = serde_json::to_writer_pretty(&mut *out, value);
    let _ = writeln!(out);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{DynamicTool, ToolError};

    fn registry() -> Registry {
        let mut r = Registry::empty();
        r.register(
            DynamicTool::new("echo_text", "Echoes.", json!({"type": "object"}))
                .domain("text", "Text")
                .hint("Echoes text")
                .handler(|input, _| async move {
                    match input.get("fail") {
                        Some(_) => Err(ToolError::invalid_input("asked to fail").with_path("fail")),
                        None => Ok(ToolOutput::new(input)),
                    }
                }),
        )
        .unwrap();
        r
    }

    fn run(args: &[&str]) -> (u8, String, String) {
        let cli =
            Cli::try_parse_from(std::iter::once("toolctl").chain(args.iter().copied())).unwrap();
        let (mut out, mut err) = (Vec::new(), Vec::new());
        let code = cli.args.run(&registry(), &mut out, &mut err);
        let code = if code == ExitCode::SUCCESS {
            0
        } else if code == ExitCode::from(1) {
            1
        } else {
            2
        };
        (
            code,
            String::from_utf8(out).unwrap(),
            String::from_utf8(err).unwrap(),
        )
    }

    #[test]
    fn call_prints_the_result_and_exit_codes_follow_the_outcome() {
        let (code, out, _) = run(&["call", "echo_text", "--input", r#"{"a": 1}"#]);
        assert_eq!(code, 0);
        let v: Value = serde_json::from_str(&out).unwrap();
        assert_eq!(v["data"], json!({"a": 1}));
        let (code, out, err) = run(&["call", "echo_text", "--input", r#"{"fail": 1}"#]);
        assert_eq!(code, 1);
        assert!(err.contains("fail: asked to fail"), "{err}");
        let v: Value = serde_json::from_str(&out).unwrap();
        assert_eq!(v["error"]["kind"], "invalid_input");
        let (code, _, err) = run(&["call", "echo_txt"]);
        assert_eq!(code, 2);
        assert!(err.contains("did you mean `echo_text`"), "{err}");
        let (code, _, err) = run(&["call", "echo_text", "--input", "{oops"]);
        assert_eq!(code, 2);
        assert!(
            err.contains("--input: the input is not valid JSON"),
            "{err}"
        );
    }

    #[test]
    fn list_and_show() {
        let (code, out, _) = run(&["list"]);
        assert_eq!(code, 0);
        assert!(
            out.contains("echo_text") && out.contains("deferred"),
            "{out}"
        );
        let (_, out, _) = run(&["list", "--json"]);
        let v: Value = serde_json::from_str(&out).unwrap();
        assert_eq!(v[0]["name"], "echo_text");
        let (code, _, err) = run(&["list", "--domain", "nope"]);
        assert_eq!(code, 2);
        assert!(err.contains("the domains are: text"), "{err}");
        let (code, out, _) = run(&["show", "echo_text"]);
        assert_eq!(code, 0);
        assert!(out.contains("\"input_schema\""));
    }

    #[test]
    fn a_bad_root_is_a_usage_error() {
        let (code, _, err) = run(&["call", "echo_text", "--root", "/no/such/dir"]);
        assert_eq!(code, 2);
        assert!(err.contains("--root /no/such/dir"), "{err}");
    }
}
