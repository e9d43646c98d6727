//! Tools with consequences, served by the same front end as `toolctl`, for the tests of MCP
//! tasks on several instances behind a load balancer (`examples/tests/tasks_cluster.rs`), of
//! approvals and of layers (`examples/tests/mcp_python.rs`): two that take a while, one that
//! deletes only with a person's yes, and one whose calls pass three layers of the application's
//! (`read_secret`: its key rewritten, a forbidden key refused, the secret redacted).
//!
//! ```text
//! task-server serve --http 127.0.0.1:0 --stateless --tasks postgres://... --task-after 0
//! ```
//!
//! Each run of a tool appends one JSON line to the file `$TASK_RUN_LOG` (when set): the tool,
//! the call's `key` and this process's id, so a test counts how often, and where, each call
//! ran.

use std::io::Write as _;
use std::process::ExitCode;
use std::time::Duration;

use tool_core::exec::{Call, Item, layer_fn};
use tool_core::prelude::*;

tool_core::domain!(jobs, "Long jobs");

/// What a job did.
#[tool_core::data(output)]
#[derive(Debug)]
pub struct Done {
    /// The call's key.
    pub key: String,
    /// The process that ran it.
    pub pid: u32,
}

/// Appends this run to `$TASK_RUN_LOG`.
fn log_run(tool: &str, key: &str) -> Result<(), ToolError> {
    let Some(path) = std::env::var_os("TASK_RUN_LOG") else {
        return Ok(());
    };
    let line = serde_json::json!({"tool": tool, "key": key, "pid": std::process::id()});
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .map_err(ToolError::internal)?;
    // One write of one short line: appends from several processes do not interleave.
    file.write_all(format!("{line}\n").as_bytes())
        .map_err(ToolError::internal)
}

async fn work(ctx: &ToolContext, seconds: f64) -> Result<(), ToolError> {
    let total = Duration::from_secs_f64(seconds.clamp(0.0, 600.0));
    for step in 1..=10u32 {
        tokio::select! {
            () = tokio::time::sleep(total / 10) => {}
            () = ctx.cancellation().cancelled() => {
                return Err(ToolError::new(ErrorKind::Cancelled, "the job was cancelled"));
            }
        }
        ctx.progress(u64::from(step), Some(10), format!("step {step} of 10"));
    }
    Ok(())
}

/// Builds the report named `key`, taking `seconds`, and returns which process built it. Safe
/// to build again.
#[tool(domain = jobs, label = "Building a report", hint = "Builds a report; safe to repeat", task)]
async fn build_report(ctx: &ToolContext, key: String, seconds: f64) -> Result<Done, ToolError> {
    log_run("build_report", &key)?;
    work(ctx, seconds).await?;
    Ok(Done {
        key,
        pid: std::process::id(),
    })
}

/// Sends the message named `key` once, taking `seconds`, and returns which process sent it.
/// Never safe to send twice.
#[tool(
    domain = jobs,
    label = "Sending a message",
    hint = "Sends a message; never repeat it",
    read_only = false,
    task
)]
async fn send_message(ctx: &ToolContext, key: String, seconds: f64) -> Result<Done, ToolError> {
    log_run("send_message", &key)?;
    work(ctx, seconds).await?;
    Ok(Done {
        key,
        pid: std::process::id(),
    })
}

/// Deletes the record `key` for good, and returns which process deleted it. Needs a person's
/// approval first.
#[tool(
    domain = jobs,
    label = "Deleting a record",
    hint = "Deletes a record for good",
    destructive,
    approval = "Delete the record {key} for good?"
)]
fn delete_record(key: String) -> Result<Done, ToolError> {
    log_run("delete_record", &key)?;
    Ok(Done {
        key,
        pid: std::process::id(),
    })
}

tool_core::domain!(secrets, "Secrets kept in vaults");

/// Returns the secret stored under `key` in `vault`.
#[tool(domain = secrets, label = "Reading a secret", hint = "Reads a secret from a vault")]
fn read_secret(key: String, vault: String) -> serde_json::Value {
    serde_json::json!({"key": key, "vault": vault, "value": format!("secret-{vault}-{key}")})
}

/// The secret stored under `key` in `vault`, as a resource.
#[resource(uri = "vault://{vault}/{key}", mime_type = "text/plain")]
fn secret_entry(vault: String, key: String) -> String {
    format!("{vault}/{key}: secret-{vault}-{key}")
}

/// A prompt that hands the model the secret stored under `key`.
#[prompt]
fn use_secret(key: String) -> String {
    format!("Log in with secret-main-{key}")
}

/// Whether a call reaches the vault: a tool of the `secrets` domain, a read of a `vault://`
/// URI, or the prompt that hands a secret out.
fn secrets(call: &Call<'_>) -> bool {
    match call.item() {
        Item::Tool(tool) => tool.domain().name == "secrets",
        Item::Resource(resource) => resource.uri().starts_with("vault://"),
        Item::Prompt(prompt) => prompt.name() == "use_secret",
        _ => false,
    }
}

/// The layers every call that reaches the vault passes, as an application would add them: the
/// key is trimmed and lowercased, a key under `forbidden` is refused (a read of one too), and
/// every secret is redacted, in a tool's result, a read's contents and a prompt's messages.
fn with_layers(args: tool_cli::ToolArgs) -> tool_cli::ToolArgs {
    args.layer(layer_fn(async |mut call, next| {
        if secrets(&call)
            && let Some(key) = call.input_mut().get_mut("key")
            && let Some(text) = key.as_str().map(|k| k.trim().to_lowercase())
        {
            *key = text.into();
        }
        next.run(call).await
    }))
    .layer(layer_fn(async |call, next| {
        let key = match call.item() {
            Item::Resource(_) => call.input()["uri"]
                .as_str()
                .and_then(|u| u.rsplit('/').next()),
            _ => call.input()["key"].as_str(),
        };
        if secrets(&call) && key.is_some_and(|k| k.starts_with("forbidden")) {
            return Err(ToolError::refused(
                "keys under `forbidden` are not read here",
            ));
        }
        next.run(call).await
    }))
    .layer(layer_fn(async |call, next| {
        let secrets = secrets(&call);
        let mut out = next.run(call).await?;
        if secrets {
            if let Some(value) = out.data_mut().and_then(|d| d.get_mut("value")) {
                *value = "[redacted]".into();
            }
            // The text the model reads says what the structured content says.
            let data = out.data_mut().map(|d| d.to_string());
            for text in out.texts_mut() {
                *text = match &data {
                    Some(data) => data.clone(),
                    None => redact(text),
                };
            }
        }
        Ok(out)
    }))
}

/// `text` with every `secret-...` word replaced.
fn redact(text: &str) -> String {
    text.split(' ')
        .map(|w| {
            if w.starts_with("secret-") {
                "[redacted]"
            } else {
                w
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

fn main() -> ExitCode {
    // Its own name and version, and a title for people (`serverInfo.title`).
    tool_cli::run_main(tool_cli::identity!().with_title("Vault tasks"), with_layers)
}
