//! The command-line front end: `serve`, `list`, `show`, `call`, `export`, `check` and `lock`
//! over a registry, plus the tools of `--defs` files and `--mount`ed MCP servers.
//!
//! `toolctl` is a thin `main` over [`main!`], as any agent binary can be; a binary with a
//! parser of its own mounts the same subcommands by flattening [`ToolArgs`] into it and
//! calling [`ToolArgs::run`]:
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
mod identity;
mod items;
mod oauth;
mod run;
mod serve;
mod tasks;
mod terminal;

use std::process::ExitCode;

use tool_core::Registry;

pub use args::{
    ApprovalArgs, CheckArgs, Command, ServeArgs, TaskStoreArg, TasksArgs, TasksCommand, ToolArgs,
};
pub use code::{CodeArgs, WORKER_ARG};
pub use commands::definition_json;
pub use embed::{EMBED_MODEL_ENV, EmbedArgs, EmbedSetupError};
pub use identity::Identity;
pub use oauth::{OAuthArgs, OAuthSetupError};
pub use terminal::TerminalApprover;

/// The [`Identity`] of the crate this is written in: its binary's name (the package's for a
/// library) and its package's version, read at compile time.
///
/// ```
/// let me = tool_cli::identity!();
/// assert_eq!(me.version(), env!("CARGO_PKG_VERSION"));
/// ```
#[macro_export]
macro_rules! identity {
    () => {
        $crate::Identity::new(
            match ::core::option_env!("CARGO_BIN_NAME") {
                ::core::option::Option::Some(name) => name,
                ::core::option::Option::None => ::core::env!("CARGO_PKG_NAME"),
            },
            ::core::env!("CARGO_PKG_VERSION"),
        )
    };
}

/// The ready-made `main` of a binary named for its own crate ([`identity!`](crate::identity!)):
/// parses the process's arguments and runs them against every linked tool. Given a closure,
/// it hands it the parsed [`ToolArgs`](crate::ToolArgs) first: the place for the binary's
/// state, layers, transforms and approver.
///
/// ```no_run
/// fn main() -> std::process::ExitCode {
///     tool_cli::main!()
/// }
/// ```
///
/// ```no_run
/// use tool_core::exec::layer_fn;
///
/// struct Settings { greeting: String }
///
/// fn main() -> std::process::ExitCode {
///     tool_cli::main!(|args| {
///         args.state(Settings { greeting: "Hello".into() })
///             .layer(layer_fn(async |call, next| {
///                 // Every text of a tool's result, a read or a prompt.
///                 let mut out = next.run(call).await?;
///                 for text in out.texts_mut() {
///                     *text = text.replace("secret", "[redacted]");
///                 }
///                 Ok(out)
///             }))
///     })
/// }
/// ```
///
/// With tool-cli's feature `code`, the binary is also its own code-mode worker: `main!` installs
/// `tool_code::worker::LimitedAllocator` as its global allocator (so a script's memory limit
/// counts everything it holds), and `serve --code-mode` runs scripts in processes of this same
/// binary. A binary with a global allocator of its own calls [`run_main`] from its own `main`
/// instead, and names a worker with `--code-worker` (docs/code-mode.md).
#[macro_export]
macro_rules! main {
    () => {
        $crate::main!(|args| args)
    };
    ($configure:expr $(,)?) => {{
        $crate::__worker_allocator!();
        $crate::run_main($crate::identity!(), $configure)
    }};
}

/// The code worker's allocator, which [`main!`] installs when tool-cli has the feature `code`.
#[cfg(feature = "code")]
#[doc(hidden)]
#[macro_export]
macro_rules! __worker_allocator {
    () => {
        #[global_allocator]
        static __TOOL_CLI_WORKER_ALLOCATOR: $crate::__private::LimitedAllocator =
            $crate::__private::LimitedAllocator;
    };
}

#[cfg(not(feature = "code"))]
#[doc(hidden)]
#[macro_export]
macro_rules! __worker_allocator {
    () => {};
}

#[doc(hidden)]
pub mod __private {
    #[cfg(feature = "code")]
    pub use tool_code::worker::LimitedAllocator;
}

/// The ready-made `main` as a function: parses the process's arguments as the binary
/// `identity` names them, gives the parsed [`ToolArgs`] to `configure` (the place for the
/// binary's [state](ToolArgs::state), [layers](ToolArgs::layer),
/// [transforms](ToolArgs::transform) and [approver](ToolArgs::approver)), and runs them against
/// every linked tool. [`main!`] calls it with the crate's own [`identity!`].
///
/// ```no_run
/// fn main() -> std::process::ExitCode {
///     let me = tool_cli::Identity::new("notes-agent", "1.4.0").with_title("Notes");
///     tool_cli::run_main(me, |args| args)
/// }
/// ```
pub fn run_main(identity: Identity, configure: impl FnOnce(ToolArgs) -> ToolArgs) -> ExitCode {
    if let Some(worker) = code::serve_as_worker() {
        return worker;
    }
    let cli = match args::Cli::parse_as(&identity, std::env::args_os()) {
        Ok(cli) => cli,
        Err(e) => e.exit(),
    };
    let registry = match Registry::linked() {
        Ok(registry) => registry,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    // Unlocked handles: `serve --stdio` writes to stdout from another thread, which a lock
    // held here for the whole run would block forever.
    configure(cli.args.identity(identity)).run(
        registry,
        &mut std::io::stdout(),
        &mut std::io::stderr(),
    )
}

#[cfg(test)]
mod tests {
    use clap::Parser as _;
    use serde_json::{Value, json};

    use super::*;
    use crate::args::Cli;
    use tool_core::registry::transform::Transforms;
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

    #[test]
    fn a_binary_is_named_by_its_identity() {
        let me = Identity::new("notes-agent", "1.4.0");
        let help = Cli::parse_as(&me, ["notes-agent", "--help"]).unwrap_err();
        assert_eq!(help.kind(), clap::error::ErrorKind::DisplayHelp);
        let help = help.render().to_string();
        assert!(help.contains("Usage: notes-agent"), "{help}");
        let version = Cli::parse_as(&me, ["notes-agent", "--version"]).unwrap_err();
        assert_eq!(version.render().to_string().trim(), "notes-agent 1.4.0");
        let wrong = Cli::parse_as(&me, ["notes-agent", "cal"]).unwrap_err();
        assert!(
            wrong.render().to_string().contains("notes-agent"),
            "{wrong}"
        );
        // The crate's own, read where the macro is written.
        assert_eq!(crate::identity!().name(), "tool-cli");
        assert_eq!(crate::identity!().version(), env!("CARGO_PKG_VERSION"));
        // Its data in a folder of its own (when HOME or XDG_DATA_HOME says where data goes).
        if let Some(file) = me.task_file() {
            assert!(file.ends_with("notes-agent/tasks.sqlite3"), "{file:?}");
        }
    }

    /// Denies every call, with its tool's name.
    struct DenyAll;

    impl tool_core::context::Approver for DenyAll {
        fn approve<'a>(
            &'a self,
            request: &'a tool_core::context::ApprovalRequest<'a>,
        ) -> tool_core::context::ApprovalFuture<'a> {
            let reason = format!("{} is not today", request.tool);
            Box::pin(async move { tool_core::context::Decision::denied(reason) })
        }
    }

    #[test]
    fn the_binarys_state_transforms_and_approver_reach_every_call() {
        struct Settings {
            greeting: &'static str,
        }
        let registry = || {
            let mut registry = registry();
            let greet = DynamicTool::new("greet_person", "Greets.", json!({"type": "object"}))
                .domain("text", "Text")
                .hint("Greets")
                .handler(|_, ctx| async move {
                    let settings = ctx
                        .extension::<std::sync::Arc<Settings>>()
                        .ok_or_else(|| ToolError::internal("no settings"))?;
                    let tenant = ctx.extension::<&'static str>().copied().unwrap_or("?");
                    Ok(ToolOutput::new(json!(format!(
                        "{} {tenant}",
                        settings.greeting
                    ))))
                });
            registry.register(greet).unwrap();
            registry
        };
        let run = |args: &[&str]| {
            let args = Cli::try_parse_from(std::iter::once("toolctl").chain(args.iter().copied()))
                .unwrap()
                .args
                .state(Settings { greeting: "Hello" })
                .extension("acme")
                .transform(Transforms::new().rename("greet_person", "say_hello"))
                .approver(DenyAll);
            let (mut out, mut err) = (Vec::new(), Vec::new());
            let code = args.run(registry(), &mut out, &mut err);
            (
                code,
                String::from_utf8(out).unwrap(),
                String::from_utf8(err).unwrap(),
            )
        };
        // The binary's transform comes first: the flag's rename sees its name.
        let (code, out, err) = run(&["--rename", "say_hello=greet", "call", "greet"]);
        assert_eq!(code, ExitCode::SUCCESS, "{err}");
        let printed: Value = serde_json::from_str(&out).unwrap();
        assert_eq!(printed["data"], "Hello acme");
        // The binary's approver answers in place of the terminal.
        let (code, _, err) = run(&["call", "say_hello", "--approval", "say_hello"]);
        assert_eq!(code, ExitCode::from(1));
        assert!(err.contains("say_hello is not today"), "{err}");
    }

    #[test]
    fn resources_prompts_and_completions_are_reached_through_the_layers() {
        use tool_core::exec::layer_fn;
        use tool_core::prompt::{Prompt, PromptArgument, PromptReply};
        use tool_core::resource::{Resource, ResourceContent};
        let registry = || {
            let mut registry = registry();
            registry
                .add_resource(
                    Resource::new("notes://today", "today", "Today's note.", |_, _| async {
                        Ok(vec![ResourceContent::text("the code is hunter2")])
                    })
                    .unwrap(),
                )
                .unwrap();
            registry
                .add_resource(
                    Resource::new(
                        "notes://{day}",
                        "day",
                        "A day's note.",
                        |request, _| async move {
                            let day = request.variable("day").unwrap_or_default().to_owned();
                            Ok(vec![ResourceContent::text(format!("note of {day}"))])
                        },
                    )
                    .unwrap(),
                )
                .unwrap();
            let review = Prompt::new(
                "review_note",
                "Reviews a note.",
                [PromptArgument::required("day", "Which day")],
                |args, _| async move {
                    let day = args.get("day").unwrap_or("").to_owned();
                    Ok(PromptReply::user(format!("Review {day}: hunter2")))
                },
            )
            .unwrap()
            .complete("day", |typed| {
                ["monday", "tuesday"]
                    .into_iter()
                    .filter(|d| d.starts_with(typed))
                    .map(str::to_owned)
                    .collect()
            })
            .unwrap();
            registry.add_prompt(review).unwrap();
            registry
        };
        let run = |args: &[&str]| {
            let args = Cli::try_parse_from(std::iter::once("toolctl").chain(args.iter().copied()))
                .unwrap()
                .args
                .layer(layer_fn(async |call, next| {
                    let mut reply = next.run(call).await?;
                    for text in reply.texts_mut() {
                        *text = text.replace("hunter2", "[redacted]");
                    }
                    Ok(reply)
                }));
            let (mut out, mut err) = (Vec::new(), Vec::new());
            let code = args.run(registry(), &mut out, &mut err);
            (
                code,
                String::from_utf8(out).unwrap(),
                String::from_utf8(err).unwrap(),
            )
        };
        let json = |text: &str| serde_json::from_str::<Value>(text).unwrap();

        let (code, out, _) = run(&["resources", "--json"]);
        assert_eq!(code, ExitCode::SUCCESS);
        let listed = json(&out);
        assert_eq!(listed[0]["uri"], "notes://today");
        assert_eq!(listed[1]["uriTemplate"], "notes://{day}");
        let (_, out, _) = run(&["resources"]);
        assert!(out.contains("notes://{day}  A day's note."), "{out}");

        // A read passes the layers: the secret is redacted.
        let (code, out, err) = run(&["read", "notes://today"]);
        assert_eq!(code, ExitCode::SUCCESS, "{err}");
        assert_eq!(json(&out)["contents"][0]["text"], "the code is [redacted]");
        let (_, out, _) = run(&["read", "notes://friday"]);
        assert_eq!(json(&out)["contents"][0]["text"], "note of friday");
        let (code, _, err) = run(&["read", "files://x"]);
        assert_eq!(code, ExitCode::from(2));
        assert!(err.contains("no resource is at `files://x`"), "{err}");

        let (_, out, _) = run(&["prompts"]);
        assert!(out.contains("review_note  Reviews a note.  (day)"), "{out}");
        let (code, out, err) = run(&["get", "review_note", "--args", r#"{"day": "monday"}"#]);
        assert_eq!(code, ExitCode::SUCCESS, "{err}");
        assert_eq!(
            json(&out)["messages"],
            serde_json::json!([{"role": "user", "text": "Review monday: [redacted]"}])
        );
        // A missing argument is the prompt's error, printed as a call's (exit 1).
        let (code, out, _) = run(&["get", "review_note"]);
        assert_eq!(code, ExitCode::from(1));
        assert_eq!(json(&out)["ok"], false);
        let (code, _, err) = run(&["get", "review_note", "--args", r#"{"day": 3}"#]);
        assert_eq!(code, ExitCode::from(2));
        assert!(err.contains("`day` is 3, not a string"), "{err}");
        let (code, _, err) = run(&["get", "review_notes"]);
        assert_eq!(code, ExitCode::from(2));
        assert!(err.contains("no prompt is named `review_notes`"), "{err}");

        let (code, out, err) = run(&["complete", "--prompt", "review_note", "day", "tu"]);
        assert_eq!(code, ExitCode::SUCCESS, "{err}");
        assert_eq!(json(&out)["values"], serde_json::json!(["tuesday"]));
    }
}
