//! The one tool a model is given in code mode, and the tool sets built around it.

use serde_json::{Value, json};
use tool_core::definition::Annotations;
use tool_core::registry::RegistryError;
use tool_core::{Executor, ToolError, ToolOutput, registry::DynamicTool, registry::Tool};

use crate::run::CodeMode;

/// The code tool's name in the agent loop.
pub const RUN_CODE: &str = "run_code";
/// The code tool's name over MCP.
pub const EXECUTE_CODE: &str = "execute_code";

/// How a script is written, for the model: the head of the code tool's description.
const GUIDE: &str = "Runs a Python script in which tools are async functions; returns what it \
prints and the value of its last expression. Use it to make several calls in one step: only \
what you print or return comes back.\n\
- Call with keyword arguments: `w = await get_weather(city=\"Oslo\")`; independent calls \
together: `await asyncio.gather(a(...), b(...))` after `import asyncio`.\n\
- Results are JSON as dicts and lists, or text as a str.\n\
- A tool's error raises an exception whose str starts with its kind (`not_found: ...`).\n\
- A Python subset: no classes, files, network or clock; json, re, math and asyncio import.";

impl CodeMode {
    /// The tool a model writes scripts with, named `name` ([`RUN_CODE`] in the agent loop,
    /// [`EXECUTE_CODE`] over MCP): its description says how to write a script and carries the
    /// [stubs](crate::stubs) of the core tools (with `search_tools`, where a catalog is
    /// installed, whose matches in a script carry their stubs). Its annotations, as clients
    /// see them, are the reachable tools' together: read-only only if every one is,
    /// destructive or open-world if any is. The application's approval policy judges a script
    /// by its calls instead: each call is asked about (with its arguments) as any other, and
    /// the code tool itself only when the policy names it (`--approval execute_code`), so a
    /// script that only reads runs for a client that cannot be asked.
    ///
    /// A script that ends with an error still answers (as a code runner's exit status and
    /// stderr do): what it printed, then the error with its whole traceback, for the model to
    /// correct; a tool error's message would be cut short and stripped of the traceback.
    pub fn code_tool(&self, name: &str) -> DynamicTool {
        let stubs = self.shown_stubs();
        let description = if stubs.is_empty() {
            GUIDE.to_owned()
        } else {
            format!(
                "{GUIDE}\n\nTools:\n```python\n{}```",
                stubs.trim_end_matches('\n')
            )
        };
        let code = self.clone();
        DynamicTool::new(
            name.to_owned(),
            description,
            json!({
                "$schema": tool_core::definition::schema::DIALECT,
                "type": "object",
                "properties": {
                    "code": {"type": "string", "description": "The Python script"}
                },
                "required": ["code"],
                "additionalProperties": false
            }),
        )
        .domain("code", "Scripts that call tools")
        .label("Running a script")
        .hint("Runs a Python script that calls tools")
        .core(true)
        .task(true)
        // Clients are shown what a script may reach; the application's policy asks about
        // each call a script makes, with its arguments, and about the script only when it
        // names the code tool: by itself a script only reads.
        .annotations(reach(self.executor().registry().tools()))
        .trusted_as(Annotations::READ_ONLY.idempotent(false))
        .handler(move |input, ctx| {
            let code = code.clone();
            async move {
                let script = input
                    .get("code")
                    .and_then(Value::as_str)
                    .ok_or_else(|| {
                        ToolError::invalid_input("expected the script as a string")
                            .with_path("code")
                    })?
                    .to_owned();
                let run = code.run(&script, &ctx).await;
                let text = run.to_text();
                // A script that fails is still the tool's answer, as a code runner's exit status
                // and stderr are: the traceback (the model's own code, left whole, unlike a tool
                // error's message) is what the model needs to fix it.
                let data = match &run.result {
                    Ok(value) => json!({
                        "result": value,
                        "printed": run.printed,
                        "tool_calls": run.tool_calls,
                    }),
                    Err(error) => json!({
                        "error": error.to_string(),
                        "limit": error.limit().map(|l| l.as_str()),
                        "printed": run.printed,
                        "tool_calls": run.tool_calls,
                    }),
                };
                Ok(ToolOutput::new(data).with_echo(text))
            }
        })
    }

    /// An executor of the code tool (named `name`) and the tools named in `direct`, in place of
    /// every tool, with this one's policy and layers (and its resources and prompts): what an
    /// agent in code mode, or a server offering code mode, runs. `search_tools` is a function in
    /// every script (where a catalog is installed); name it in `direct` to offer it as a tool
    /// too, as an MCP server does for clients that search before they write a script.
    pub fn code_executor(&self, name: &str, direct: &[&str]) -> Result<Executor, CodeToolError> {
        let tools = self.executor().registry();
        if let Some(unknown) = direct.iter().find(|&&tool| tools.get(tool).is_none()) {
            return Err(CodeToolError::UnknownTool((*unknown).to_owned()));
        }
        let code_tool = self.code_tool(name);
        let (executor, ()) = self.executor().edit(|tools| {
            tools.retain(|tool| direct.contains(&tool.name()));
            tools.register(code_tool)
        })?;
        Ok(executor)
    }
}

/// Why the tools around a code tool could not be put together.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CodeToolError {
    /// A tool to keep beside the code tool is not in the registry.
    #[error("no tool is named `{0}`, so it cannot be kept beside the code tool")]
    UnknownTool(String),
    /// The code tool's name is taken, or invalid.
    #[error(transparent)]
    Registry(#[from] RegistryError),
}

/// What calling any of `tools` may do.
fn reach<'a>(tools: impl IntoIterator<Item = &'a Tool>) -> Annotations {
    let mut read_only = true;
    let mut destructive = false;
    let mut open_world = false;
    for tool in tools {
        let a = tool.trusted_annotations();
        read_only &= a.read_only;
        destructive |= a.destructive;
        open_world |= a.open_world;
    }
    Annotations::default()
        .read_only(read_only)
        .destructive(destructive)
        .idempotent(false)
        .open_world(open_world)
}
