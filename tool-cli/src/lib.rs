//! The command-line front end: `serve`, `list`, `show`, `call`, `export`, `check` and `lock`
//! over a registry, plus the tools of `--defs` files and `--mount`ed MCP servers.
//!
//! `toolctl` is a thin `main` over [`main`]; any agent binary can mount the same subcommands by
//! flattening [`ToolArgs`] into its own clap parser and calling [`ToolArgs::run`]:
//!
//! ```
//! use clap::Parser;
//! use tool_core::prelude::*;
//!
//! tool_core::domain!(pub text, "Working with text");
//!
//! /// Returns the text it is given, in capitals.
//! #[tool(domain = text, label = "Shouting", hint = "Puts a text in capitals")]
//! fn shout_text(text: String) -> String {
//!     text.to_uppercase()
//! }
//!
//! /// An agent binary that also offers toolctl's subcommands.
//! #[derive(Parser)]
//! struct Cli {
//!     /// Say more about what happens.
//!     #[arg(long, global = true)]
//!     verbose: bool,
//!     #[command(flatten)]
//!     tools: tool_cli::ToolArgs,
//! }
//!
//! // In `main`: `let cli = Cli::parse();`, and the process's stdout and stderr.
//! let cli = Cli::parse_from(["my-agent", "call", "shout_text", "--input", r#"{"text": "hi"}"#]);
//! let registry = Registry::linked().unwrap();
//! let mut out = Vec::new();
//! let code = cli.tools.run(registry, &mut out, &mut std::io::stderr());
//! assert_eq!(code, std::process::ExitCode::SUCCESS);
//! let printed: serde_json::Value = serde_json::from_slice(&out).unwrap();
//! assert_eq!(printed["data"], "HI");
//! ```
//!
//! Exit codes: 0 on success; 1 when a tool call fails, or `check` finds errors, a breaking
//! change against `--baseline` that no `--allow-breaking` lets through, or a token budget gone
//! over (`--max-tokens`, `--max-tool-tokens`); 2 on usage errors (bad arguments, an unknown
//! tool, input that is not JSON, a registry that cannot be built, a baseline that cannot be
//! read, a lock that cannot be written).

#![warn(missing_docs)]
// docs.rs (`--cfg docsrs`, see Cargo.toml) marks each item with the features it needs.
#![cfg_attr(docsrs, feature(doc_cfg))]

mod args;
mod code;
mod commands;
mod embed;
mod exit;
mod oauth;
mod run;
mod serve;
mod tasks;
mod terminal;

use std::process::ExitCode;

use clap::Parser as _;
use tool_core::Registry;

pub use args::{
    ApprovalArgs, CheckArgs, Command, ServeArgs, TaskStoreArg, TasksArgs, TasksCommand, ToolArgs,
};
pub use code::CodeArgs;
pub use commands::definition_json;
pub use embed::{EMBED_MODEL_ENV, EmbedArgs, EmbedSetupError};
pub use oauth::{OAuthArgs, OAuthSetupError};
pub use terminal::TerminalApprover;

/// Parses the process's arguments and runs them against every linked tool.
pub fn main() -> ExitCode {
    main_with(|args| args)
}

/// [`main`], with the parsed arguments given to `configure` first: the place for a binary's
/// [layers](ToolArgs::layer), which every call `serve` and `call` run then passes.
///
/// ```no_run
/// use tool_core::exec::layer_fn;
///
/// fn main() -> std::process::ExitCode {
///     tool_cli::main_with(|args| {
///         args.layer(layer_fn(async |call, next| {
///             // Every text of a tool's result, a read or a prompt.
///             let mut out = next.run(call).await?;
///             for text in out.texts_mut() {
///                 *text = text.replace("secret", "[redacted]");
///             }
///             Ok(out)
///         }))
///     })
/// }
/// ```
pub fn main_with(configure: impl FnOnce(ToolArgs) -> ToolArgs) -> ExitCode {
    let cli = args::Cli::parse();
    let registry = match Registry::linked() {
        Ok(registry) => registry,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    // Unlocked handles: `serve --stdio` writes to stdout from another thread, which a lock
    // held here for the whole run would block forever.
    configure(cli.args).run(registry, &mut std::io::stdout(), &mut std::io::stderr())
}

#[cfg(test)]
mod tests {
    use clap::Parser as _;
    use serde_json::{Value, json};

    use super::*;
    use crate::args::Cli;
    use tool_core::{ToolError, ToolOutput, registry::DynamicTool};

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
        run_with(registry(), args)
    }

    fn run_with(registry: Registry, args: &[&str]) -> (u8, String, String) {
        let cli =
            Cli::try_parse_from(std::iter::once("toolctl").chain(args.iter().copied())).unwrap();
        let (mut out, mut err) = (Vec::new(), Vec::new());
        let code = cli.args.run(registry, &mut out, &mut err);
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
    fn credentials_are_refused_as_forwarded_headers_by_name() {
        let parse = |header: &str| {
            Cli::try_parse_from(
                ["toolctl", "serve", "--http", "127.0.0.1:0"]
                    .into_iter()
                    .chain(["--forward-header", header]),
            )
        };
        for header in ["authorization", "Cookie", "Proxy-Authorization"] {
            let err = parse(header).unwrap_err();
            assert_eq!(err.exit_code(), 2);
            let message = err.to_string();
            assert!(
                message.contains("--forward-header") && message.contains("never reaches tools"),
                "{message}"
            );
        }
        assert!(parse("X-Tenant").is_ok());
    }

    #[test]
    fn an_empty_registry_and_an_unknown_name_explain_the_linking_rule() {
        let (code, out, err) = run_with(Registry::empty(), &["list"]);
        assert_eq!((code, out.as_str()), (0, ""));
        assert!(err.contains("use that_crate as _;"), "{err}");
        let (code, out, err) = run_with(Registry::empty(), &["list", "--json"]);
        assert_eq!((code, out.trim()), (0, "[]"));
        assert!(err.contains("use that_crate as _;"), "{err}");

        let (code, _, err) = run(&["show", "get_forecast"]);
        assert_eq!(code, 2);
        assert!(err.contains("no tool is named `get_forecast`"), "{err}");
        assert!(err.contains("use that_crate as _;"), "{err}");
        // A near name is the likelier cause; the hint gives way to it.
        let (_, _, err) = run(&["show", "echo_txt"]);
        assert!(err.contains("did you mean `echo_text`?"), "{err}");
        assert!(!err.contains("that_crate"), "{err}");
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
    fn export_and_check_cover_defs_files() {
        let (code, out, _) = run(&["export", "--format", "openai", "--strict"]);
        assert_eq!(code, 0);
        let v: Value = serde_json::from_str(&out).unwrap();
        assert_eq!(v[0]["function"]["strict"], true);
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("bad.json");
        std::fs::write(
            &file,
            r#"[{"name": "Bad Tool", "description": "x", "inputSchema": {"type": "string"}},
            {"name": "echo_text", "inputSchema": {"type": "object"}}]"#,
        )
        .unwrap();
        let (code, out, _) = run(&["check", "--defs", file.to_str().unwrap()]);
        assert_eq!(code, 1, "{out}");
        assert!(out.contains("error[name.pattern] Bad Tool"), "{out}");
        assert!(out.contains("error[schema.root] Bad Tool"), "{out}");
        assert!(out.contains("error[name.unique] echo_text"), "{out}");
        let (code, out, _) = run(&[
            "check",
            "--json",
            "--format",
            "mcp",
            "--defs",
            file.to_str().unwrap(),
        ]);
        assert_eq!(code, 1);
        let v: Value = serde_json::from_str(&out).unwrap();
        assert!(
            v["diagnostics"]
                .as_array()
                .unwrap()
                .iter()
                .any(|d| d["rule"] == "schema.root")
        );
        let (code, _, err) = run(&["list", "--defs", "/no/such.json"]);
        assert_eq!(code, 2);
        assert!(err.contains("--defs /no/such.json"), "{err}");
    }

    #[test]
    fn lock_and_check_baseline_classify_changes_and_show_token_deltas() {
        let dir = tempfile::tempdir().unwrap();
        let path = |name: &str| dir.path().join(name).to_str().unwrap().to_owned();
        let defs = |name: &str, properties: Value| {
            let tool = json!([{
                "name": "get_forecast", "description": "Returns the forecast.",
                "inputSchema": {"type": "object", "properties": properties},
                "annotations": {"readOnlyHint": true, "idempotentHint": true},
                "_meta": {"tool-core/hint": "Forecast for a city"}
            }]);
            std::fs::write(path(name), tool.to_string()).unwrap();
            path(name)
        };
        let old = defs(
            "old.json",
            json!({"city": {"type": "string"}, "days": {"type": "integer"}}),
        );
        let (code, _, err) = run(&["--defs", &old, "lock", "-o", &path("tools.lock.json")]);
        assert_eq!(code, 0, "{err}");
        assert!(
            err.contains("wrote ") && err.contains("(2 tools, "),
            "{err}"
        );
        let written: Value =
            serde_json::from_str(&std::fs::read_to_string(path("tools.lock.json")).unwrap())
                .unwrap();
        assert_eq!(written["tokenizer"], "o200k_base");
        assert!(
            written["tools"][1]["tokens"]["openai"].as_u64().unwrap() > 10,
            "{written}"
        );
        let (code, out, _) = run(&["--defs", &old, "lock", "-o", "-"]);
        assert_eq!(code, 0);
        assert_eq!(
            out,
            std::fs::read_to_string(path("tools.lock.json")).unwrap()
        );

        let baseline = path("tools.lock.json");
        // Breaking: a parameter removed.
        let breaking = defs("breaking.json", json!({"city": {"type": "string"}}));
        let (code, out, _) = run(&["--defs", &breaking, "check", "--baseline", &baseline]);
        assert_eq!(code, 1, "{out}");
        assert!(
            out.contains("breaking[input.param.removed] get_forecast at /inputSchema/properties/days: parameter `days` was removed"),
            "{out}"
        );
        assert!(out.contains("1 breaking, 0 additive, 0 cosmetic"), "{out}");
        let allow = ["--allow-breaking", "get_forecast:input.param.removed"];
        let (code, out, _) = run(&[
            &["--defs", &breaking, "check", "--baseline", &baseline][..],
            &allow[..],
        ]
        .concat());
        assert_eq!(code, 0, "{out}");
        assert!(out.contains("(allowed)"), "{out}");
        // Additive: a parameter added; passes, with the token delta shown.
        let additive = defs(
            "additive.json",
            json!({"city": {"type": "string"}, "days": {"type": "integer"}, "units": {"type": "string", "enum": ["c", "f"]}}),
        );
        let (code, out, _) = run(&["--defs", &additive, "check", "--baseline", &baseline]);
        assert_eq!(code, 0, "{out}");
        assert!(out.contains("additive[input.param.added] get_forecast at /inputSchema/properties/units: new optional parameter `units`"), "{out}");
        assert!(out.contains("  get_forecast: openai "), "{out}");
        assert!(out.contains(" (+"), "{out}");
        let (_, out, _) = run(&[
            "--defs",
            &additive,
            "check",
            "--baseline",
            &baseline,
            "--markdown",
        ]);
        assert!(
            out.starts_with(&format!(
                "### Tool definitions against `{baseline}`: passes"
            )),
            "{out}"
        );
        assert!(
            out.contains("| additive | `input.param.added` | `get_forecast` |"),
            "{out}"
        );
        assert!(out.contains("### Tool definitions checked: "), "{out}");
        let (_, out, _) = run(&[
            "--defs",
            &breaking,
            "check",
            "--baseline",
            &baseline,
            "--json",
        ]);
        let v: Value = serde_json::from_str(&out).unwrap();
        assert_eq!(v["review"]["changes"][0]["rule"], "input.param.removed");
        assert_eq!(v["review"]["changes"][0]["class"], "breaking");
        assert!(v["diagnostics"].is_array());
        // Budgets, with or without a baseline.
        let (code, out, _) = run(&[
            "--defs",
            &old,
            "check",
            "--max-tool-tokens",
            "5",
            "--format",
            "openai",
        ]);
        assert_eq!(code, 1, "{out}");
        assert!(
            out.contains("budget[tool] get_forecast (openai): "),
            "{out}"
        );
        // A baseline that cannot be read is a usage error.
        let (code, _, err) = run(&["check", "--baseline", &path("none.json")]);
        assert_eq!(code, 2);
        assert!(
            err.contains("--baseline ") && err.contains("none.json"),
            "{err}"
        );
        std::fs::write(path("bad.json"), r#"{"tools": [{"title": "x"}]}"#).unwrap();
        let (code, _, err) = run(&["check", "--baseline", &path("bad.json")]);
        assert_eq!(code, 2);
        assert!(
            err.contains("tools[0].name: a tool needs its name"),
            "{err}"
        );
        // An allowance that names no breaking rule is refused by the parser.
        let e = Cli::try_parse_from(["toolctl", "check", "--allow-breaking", "tool.added"])
            .unwrap_err();
        assert_eq!(e.exit_code(), 2);
        assert!(e.to_string().contains("`tool.added` is additive"), "{e}");
    }

    #[test]
    fn a_bad_root_is_a_usage_error() {
        let (code, _, err) = run(&["call", "echo_text", "--root", "/no/such/dir"]);
        assert_eq!(code, 2);
        assert!(err.contains("--root /no/such/dir"), "{err}");
    }
}
