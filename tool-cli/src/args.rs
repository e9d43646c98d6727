//! The command line: the subcommands and the options they share, as clap parses them.

use std::net::SocketAddr;
use std::path::PathBuf;

use std::sync::Arc;

use clap::{Args, Parser, Subcommand};
use tool_core::context::{Approver, ContextBuilder};
use tool_core::exec::{ExecPolicy, Layer};
use tool_core::registry::transform::{ToolFilter, Transforms};
use tool_core::render::Format;
use tool_core::{Executor, Registry};
use tool_mcp::MountSpec;

use crate::identity::Identity;

/// The subcommands and the options they share.
#[derive(Debug, Args)]
pub struct ToolArgs {
    /// Directory that tools touching files work under (default: the current directory).
    #[arg(long, global = true, value_name = "DIR")]
    pub root: Option<PathBuf>,
    /// Also load the tools of a JSON array of MCP Tool objects (definitions only; repeatable).
    #[arg(long, global = true, value_name = "FILE")]
    pub defs: Vec<PathBuf>,
    /// Also offer the tools of an MCP server, named NAME__tool: a command speaking MCP on stdio
    /// (run with `sh -c`) or a Streamable HTTP URL (repeatable). `NAME[SCOPE ...]=...` makes
    /// every tool of the mount need those OAuth scopes.
    #[arg(long, global = true, value_name = "NAME[SCOPES]=COMMAND|URL")]
    pub mount: Vec<MountSpec>,
    /// Vouch for what the mount NAME says of its tools (read-only, destructive, idempotent,
    /// open world): without it they are claims, and its tools count as ones that write, may
    /// destroy and reach the world for --approval, the audit, retries and filters
    /// (repeatable).
    #[arg(long, global = true, value_name = "NAME")]
    pub trust_mount: Vec<String>,
    /// Offer only the tools FILTER matches: a tool's name, domain:NAME, read_only, write,
    /// destructive or open_world, several with commas (repeatable: each narrows further).
    #[arg(long, global = true, value_name = "FILTER")]
    pub keep: Vec<ToolFilter>,
    /// Leave out the tools FILTER matches (repeatable).
    #[arg(long, global = true, value_name = "FILTER")]
    pub remove: Vec<ToolFilter>,
    /// Offer the tool OLD as NEW (repeatable; after --keep and --remove).
    #[arg(long, global = true, value_name = "OLD=NEW", value_parser = rename)]
    pub rename: Vec<(String, String)>,
    /// Put PREFIX before the names of the tools FILTER matches (repeatable; after --rename).
    #[arg(long, global = true, value_name = "FILTER=PREFIX", value_parser = prefix)]
    pub prefix: Vec<(ToolFilter, String)>,
    /// Take the argument ARG out of TOOL's schema and give every call the JSON value (TOOL as
    /// named after the steps above; repeatable).
    #[arg(long, global = true, value_name = "TOOL.ARG=JSON", value_parser = hide)]
    pub hide: Vec<(String, String, serde_json::Value)>,
    // clap_derive makes no help text of a subcommand field's doc comment: this one is for
    // rustdoc only.
    /// The subcommand to run.
    #[command(subcommand)]
    pub command: Command,
    /// The application's layers, which every call `serve` and `call` run passes (code, not a
    /// flag: [`ToolArgs::layer`]).
    #[arg(skip)]
    pub(crate) layers: Layers,
    /// What the binary does with the server `serve` builds (code, not a flag:
    /// [`ToolArgs::on_server`]).
    #[arg(skip)]
    pub(crate) server_hooks: ServerHooks,
    /// What the binary puts in every call's context ([`ToolArgs::state`],
    /// [`ToolArgs::extension`]).
    #[arg(skip)]
    pub(crate) context: ContextParts,
    /// The binary's own transforms, applied before the flags' ([`ToolArgs::transform`]).
    #[arg(skip)]
    pub(crate) own_transforms: Transforms,
    /// Who answers approvals in place of the terminal or the MCP client
    /// ([`ToolArgs::approver`]).
    #[arg(skip)]
    pub(crate) approver: OwnApprover,
    /// Who the binary is ([`ToolArgs::identity`]).
    #[arg(skip)]
    pub(crate) identity: Identity,
}

/// The approver a binary brings, if any.
#[derive(Clone, Default)]
pub(crate) struct OwnApprover(pub(crate) Option<Arc<dyn Approver>>);

impl std::fmt::Debug for OwnApprover {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.0.is_some() {
            "the binary's"
        } else {
            "none"
        })
    }
}

/// Adds one of the binary's values to a context being built.
type ContextPart = Arc<dyn Fn(ContextBuilder) -> ContextBuilder + Send + Sync>;

/// The values a [`ToolArgs`] puts in every call's context, in the order added.
#[derive(Clone, Default)]
pub(crate) struct ContextParts(Vec<ContextPart>);

impl ContextParts {
    /// `builder` with every value added.
    pub(crate) fn apply(&self, builder: ContextBuilder) -> ContextBuilder {
        self.0.iter().fold(builder, |b, part| part(b))
    }
}

impl std::fmt::Debug for ContextParts {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} value(s)", self.0.len())
    }
}

/// A hook given the server `serve` builds.
pub(crate) type ServerHook = Arc<dyn Fn(&tool_mcp::McpServer) + Send + Sync>;

/// The hooks a [`ToolArgs`] gives the server `serve` builds, in the order added.
#[derive(Clone, Default)]
pub(crate) struct ServerHooks(pub(crate) Vec<ServerHook>);

impl std::fmt::Debug for ServerHooks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} hook(s)", self.0.len())
    }
}

/// The layers a [`ToolArgs`] gives its executor, in the order added.
#[derive(Clone, Default)]
pub(crate) struct Layers(pub(crate) Vec<Arc<dyn Layer>>);

impl std::fmt::Debug for Layers {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list()
            .entries(self.0.iter().map(|l| l.name()))
            .finish()
    }
}

impl ToolArgs {
    /// Adds a layer that every call `serve` and `call` run passes, after the ones added
    /// before: the same stack an [`Executor`](tool_core::Executor) built with
    /// `Executor::builder(..).layer(..)` runs, between the input checks and approval.
    ///
    /// ```
    /// use clap::Parser;
    /// use tool_core::exec::layer_fn;
    /// use tool_core::ToolError;
    ///
    /// #[derive(Parser)]
    /// struct Cli {
    ///     #[command(flatten)]
    ///     tools: tool_cli::ToolArgs,
    /// }
    ///
    /// let cli = Cli::parse_from(["my-agent", "list"]);
    /// let args = cli.tools.layer(layer_fn(async |call, next| {
    ///     if call.item().name().starts_with("delete_") {
    ///         return Err(ToolError::refused("deleting is off today"));
    ///     }
    ///     next.run(call).await
    /// }));
    /// # let _ = args;
    /// ```
    #[must_use]
    pub fn layer(mut self, layer: impl Layer) -> Self {
        self.layers.0.push(Arc::new(layer));
        self
    }

    /// Gives `hook` the server `serve` builds, before it serves anything: the handle a binary
    /// keeps to change its tools at run time ([`McpServer::update`](tool_mcp::McpServer::update),
    /// which tells connected clients), with every flag still applied. `McpServer` is a
    /// cheap handle: clone it to keep it.
    ///
    /// ```
    /// use std::sync::OnceLock;
    /// use clap::Parser;
    /// use tool_mcp::McpServer;
    ///
    /// static SERVER: OnceLock<McpServer> = OnceLock::new();
    ///
    /// #[derive(Parser)]
    /// struct Cli {
    ///     #[command(flatten)]
    ///     tools: tool_cli::ToolArgs,
    /// }
    ///
    /// let cli = Cli::parse_from(["my-server", "list"]);
    /// let args = cli.tools.on_server(|server| {
    ///     let _ = SERVER.set(server.clone());
    /// });
    /// # let _ = args;
    /// ```
    #[must_use]
    pub fn on_server(
        mut self,
        hook: impl Fn(&tool_mcp::McpServer) + Send + Sync + 'static,
    ) -> Self {
        self.server_hooks.0.push(Arc::new(hook));
        self
    }

    /// Gives every tool `value` as shared state: a tool takes it with `#[ctx] State(s):
    /// State<T>` (an `Arc<T>` in the context's extensions), in `call`, in `serve` and in the
    /// calls a script makes in code mode. One of the same type replaces it.
    ///
    /// ```
    /// use clap::Parser;
    /// use tool_core::prelude::*;
    ///
    /// tool_core::domain!(pub notes, "Notes");
    ///
    /// /// Where notes are kept.
    /// struct Settings { folder: String }
    ///
    /// /// Returns the folder notes are kept in.
    /// #[tool(domain = notes, label = "Notes folder", hint = "Says where notes are kept")]
    /// fn get_notes_folder(#[ctx] State(settings): State<Settings>) -> String {
    ///     settings.folder.clone()
    /// }
    ///
    /// #[derive(Parser)]
    /// struct Cli {
    ///     #[command(flatten)]
    ///     tools: tool_cli::ToolArgs,
    /// }
    ///
    /// let cli = Cli::parse_from(["my-agent", "call", "get_notes_folder"]);
    /// let args = cli.tools.state(Settings { folder: "/srv/notes".into() });
    /// let mut out = Vec::new();
    /// args.run(Registry::linked().unwrap(), &mut out, &mut std::io::stderr());
    /// let printed: serde_json::Value = serde_json::from_slice(&out).unwrap();
    /// assert_eq!(printed["data"], "/srv/notes");
    /// ```
    #[must_use]
    pub fn state<T: Send + Sync + 'static>(self, value: T) -> Self {
        self.extension(Arc::new(value))
    }

    /// Puts `value` in every call's context, as
    /// [`ContextBuilder::extension`](tool_core::context::ContextBuilder::extension) does: a tool
    /// reads it with `ctx.extension::<T>()`. One of the same type replaces it.
    #[must_use]
    pub fn extension<T: Clone + Send + Sync + 'static>(mut self, value: T) -> Self {
        self.context.0.push(Arc::new(move |b: ContextBuilder| {
            b.extension(value.clone())
        }));
        self
    }

    /// Applies the binary's own `transforms` to its tools, before the flags' (`--keep`,
    /// `--rename`, `--hide` and the rest), in every subcommand. Several calls add up, in order.
    ///
    /// ```
    /// use tool_core::registry::transform::Transforms;
    /// # use clap::Parser;
    /// # #[derive(Parser)]
    /// # struct Cli { #[command(flatten)] tools: tool_cli::ToolArgs }
    /// # let cli = Cli::parse_from(["my-agent", "list"]);
    ///
    /// let args = cli.tools.transform(Transforms::new().rename("get_time", "what_time"));
    /// # let _ = args;
    /// ```
    #[must_use]
    pub fn transform(mut self, transforms: Transforms) -> Self {
        self.own_transforms = std::mem::take(&mut self.own_transforms).then(transforms);
        self
    }

    /// Lets `approver` answer every approval, in `call` (in place of the terminal) and in
    /// `serve` (in place of asking the MCP client): a policy of the application's, a person
    /// reached some other way.
    #[must_use]
    pub fn approver(mut self, approver: impl Approver + 'static) -> Self {
        self.approver = OwnApprover(Some(Arc::new(approver)));
        self
    }

    /// Says who the binary is: its name and version in MCP's `serverInfo`, its help and
    /// messages, and the folder of its data (the default task store). The ready-made `main`
    /// ([`main!`](crate::main!)) sets the crate's own; a binary that flattens these arguments
    /// into its own parser sets [`identity!()`](crate::identity!).
    #[must_use]
    pub fn identity(mut self, identity: Identity) -> Self {
        self.identity = identity;
        self
    }

    /// [`layer`](Self::layer) for a layer already shared.
    #[must_use]
    pub fn layer_arc(mut self, layer: Arc<dyn Layer>) -> Self {
        self.layers.0.push(layer);
        self
    }

    /// An executor over `registry` with `policy` and these layers.
    pub(crate) fn executor(&self, registry: Registry, policy: ExecPolicy) -> Executor {
        self.layers
            .0
            .iter()
            .fold(Executor::builder(registry).policy(policy), |b, l| {
                b.layer_arc(l.clone())
            })
            .build()
    }

    /// The transforms every subcommand applies: the binary's own ([`transform`](Self::transform)),
    /// then the flags', in their order: --keep, --remove, --rename, --prefix, --hide.
    pub fn transforms(&self) -> Transforms {
        let mut t = self.own_transforms.clone();
        for filter in &self.keep {
            t = t.keep(filter.clone());
        }
        for filter in &self.remove {
            t = t.remove(filter.clone());
        }
        for (from, to) in &self.rename {
            t = t.rename(from, to);
        }
        for (filter, prefix) in &self.prefix {
            t = t.prefix(filter.clone(), prefix);
        }
        for (tool, arg, value) in &self.hide {
            t = t.hide(tool, arg, value.clone());
        }
        t
    }
}

/// `OLD=NEW`.
fn rename(text: &str) -> Result<(String, String), String> {
    match text.split_once('=') {
        Some((from, to)) if !from.is_empty() && !to.is_empty() => {
            Ok((from.to_owned(), to.to_owned()))
        }
        _ => Err(format!("`{text}` is not OLD=NEW")),
    }
}

/// `FILTER=PREFIX`.
fn prefix(text: &str) -> Result<(ToolFilter, String), String> {
    let Some((filter, prefix)) = text.split_once('=') else {
        return Err(format!("`{text}` is not FILTER=PREFIX"));
    };
    let filter = filter.parse().map_err(|e| format!("{e}"))?;
    Ok((filter, prefix.to_owned()))
}

/// `TOOL.ARG=JSON`.
fn hide(text: &str) -> Result<(String, String, serde_json::Value), String> {
    let shape = || format!("`{text}` is not TOOL.ARG=JSON");
    let (target, json) = text.split_once('=').ok_or_else(shape)?;
    let (tool, arg) = target.split_once('.').ok_or_else(shape)?;
    if tool.is_empty() || arg.is_empty() {
        return Err(shape());
    }
    let value = serde_json::from_str(json)
        .map_err(|e| format!("`{json}` (the value of {target}) is not JSON: {e}"))?;
    Ok((tool.to_owned(), arg.to_owned(), value))
}

/// What to do.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Serve every tool over MCP: on stdio, or Streamable HTTP.
    Serve(Box<ServeArgs>),
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
    /// Print every tool's definition in a provider's format, as a JSON array.
    Export {
        /// openai, openai-responses, anthropic, gemini, gemini-openapi or mcp.
        #[arg(long)]
        format: Format,
        /// Use the provider's strict mode (OpenAI, Anthropic).
        #[arg(long)]
        strict: bool,
    },
    /// Check every definition against every rule, and against a lock with `--baseline`; exit 1
    /// on errors, breaking changes or budgets gone over.
    Check(CheckArgs),
    /// Write the definitions as served, with their token counts, to a lock file to commit.
    Lock {
        /// Where to write it (`-` for standard output).
        #[arg(short, long, default_value = "tools.lock.json", value_name = "FILE")]
        output: PathBuf,
    },
    /// Search the tools for a task, as `search_tools` does (core tools included).
    Search {
        /// What to find, in your own words.
        #[arg(required_unless_present = "queries")]
        query: Option<String>,
        /// How many matches (1 to 100).
        #[arg(long, default_value_t = 5, value_name = "K", value_parser = clap::value_parser!(u16).range(1..=100))]
        top: u16,
        /// Only tools of this domain.
        #[arg(long, value_name = "DOMAIN")]
        domain: Option<String>,
        /// Print the matches as JSON.
        #[arg(long)]
        json: bool,
        /// Answer many queries: JSON lines `{"query": "..."}` in, JSON lines
        /// `{"query": "...", "results": ["name", ...]}` out, in order (`-` for stdin).
        #[arg(long, value_name = "FILE", conflicts_with = "query")]
        queries: Option<PathBuf>,
        /// The model for hybrid search.
        #[command(flatten)]
        embed: crate::EmbedArgs,
    },
    /// Call a tool and print the result as JSON.
    Call {
        /// The tool's name.
        name: String,
        /// The input, a JSON object; `-` reads it from standard input.
        #[arg(long, default_value = "{}", value_name = "JSON")]
        input: String,
        /// Which calls a person approves on the terminal first.
        #[command(flatten)]
        approval: ApprovalArgs,
    },
    /// List every resource and resource template.
    Resources {
        /// Print a JSON array instead of a table.
        #[arg(long)]
        json: bool,
    },
    /// Read a resource and print its contents as JSON.
    Read {
        /// The resource's URI (one a template matches, too).
        uri: String,
    },
    /// List every prompt with its arguments.
    Prompts {
        /// Print a JSON array instead of a table.
        #[arg(long)]
        json: bool,
    },
    /// Get a prompt and print its messages as JSON.
    Get {
        /// The prompt's name.
        name: String,
        /// Its arguments, a JSON object of strings; `-` reads it from standard input.
        #[arg(long, default_value = "{}", value_name = "JSON")]
        args: String,
    },
    /// Complete a prompt's argument or a resource template's variable, and print the values
    /// as JSON.
    Complete {
        /// The prompt whose argument to complete.
        #[arg(
            long,
            value_name = "NAME",
            required_unless_present = "template",
            conflicts_with = "template"
        )]
        prompt: Option<String>,
        /// The resource template whose variable to complete.
        #[arg(long, value_name = "URI_TEMPLATE")]
        template: Option<String>,
        /// The argument's (or variable's) name.
        argument: String,
        /// What is typed so far.
        #[arg(default_value = "")]
        value: String,
    },
    /// Read the tasks of long calls in a task store, every caller's, and cancel them: for
    /// operators.
    Tasks(TasksArgs),
}

/// `tasks`: which store, and what to do with it.
#[derive(Debug, Args)]
pub struct TasksArgs {
    /// The store, as `serve --tasks` takes it: `sqlite:PATH` or `postgres://...` (default: the
    /// embedded file `serve` uses by default).
    #[arg(long, global = true, value_name = "STORE", value_parser = task_store)]
    pub store: Option<TaskStoreArg>,
    // As for `ToolArgs::command`: for rustdoc only.
    /// What to do.
    #[command(subcommand)]
    pub command: TasksCommand,
}

/// What `tasks` does.
#[derive(Debug, Subcommand)]
pub enum TasksCommand {
    /// List tasks, newest first.
    List {
        /// Only tasks in this status (working, input_required, completed, failed, cancelled;
        /// repeatable).
        #[arg(long, value_name = "STATUS", value_parser = task_status)]
        status: Vec<tool_tasks::TaskStatus>,
        /// Only the tasks of this tool.
        #[arg(long, value_name = "TOOL")]
        tool: Option<String>,
        /// At most this many.
        #[arg(long, default_value_t = 50, value_name = "N")]
        limit: usize,
        /// Print a JSON array of whole tasks instead of a table.
        #[arg(long)]
        json: bool,
    },
    /// Print one task as JSON: its status, call, result or error, holder and lease.
    Show {
        /// The task's id.
        id: String,
    },
    /// Cancel a task: one that runs is stopped by its instance at its next lease renewal; one
    /// that waits for input is cancelled at once.
    Cancel {
        /// The task's id.
        id: String,
    },
}

fn task_status(text: &str) -> Result<tool_tasks::TaskStatus, String> {
    tool_tasks::TaskStatus::parse(text).ok_or_else(|| {
        let all: Vec<&str> = tool_tasks::TaskStatus::ALL
            .iter()
            .map(|s| s.as_str())
            .collect();
        format!("`{text}` is not a task status: one of {}", all.join(", "))
    })
}

/// What `check` checks, and how it reports.
#[derive(Debug, Args)]
pub struct CheckArgs {
    /// Only these formats' rules, and budgets (repeatable; default all).
    #[arg(long = "format")]
    pub formats: Vec<Format>,
    /// Hold definitions to the strict modes too.
    #[arg(long)]
    pub strict: bool,
    /// A word tool names may start with besides the known verbs (repeatable).
    #[arg(long = "allow-verb", value_name = "WORD")]
    pub allow_verbs: Vec<String>,
    /// Compare the definitions with a lock (the `lock` subcommand's) or a saved `tools/list` result, and
    /// fail on breaking changes.
    #[arg(long, value_name = "FILE")]
    pub baseline: Option<PathBuf>,
    /// Let a breaking change through: RULE, TOOL:RULE or TOOL:* (repeatable).
    #[arg(long = "allow-breaking", value_name = "RULE|TOOL:RULE|TOOL:*")]
    pub allow_breaking: Vec<tool_lock::Allowance>,
    /// Fail when the whole listing costs more tokens than this, in a format.
    #[arg(long, value_name = "N")]
    pub max_tokens: Option<u64>,
    /// Fail when one tool's definition costs more tokens than this, in a format.
    #[arg(long, value_name = "N")]
    pub max_tool_tokens: Option<u64>,
    /// Print the findings (and the review) as JSON.
    #[arg(long, conflicts_with = "markdown")]
    pub json: bool,
    /// Print a Markdown summary, for a pull-request comment or a CI job summary.
    #[arg(long)]
    pub markdown: bool,
    /// The approval policy the tools are served under (rule `approval.destructive`).
    #[command(flatten)]
    pub approval: ApprovalArgs,
}

/// Which calls need a person's yes before they run: `--approval destructive|write|never|TOOL|
/// domain:NAME` (repeatable), besides those of tools that declare it, and how long a person
/// has to answer.
#[derive(Debug, Clone, Args)]
pub struct ApprovalArgs {
    /// Calls that need a person's yes besides those of tools that declare it: destructive,
    /// write (every tool that is not read-only), never, a tool's name, or domain:NAME
    /// (repeatable).
    #[arg(long = "approval", value_name = "RULE", value_parser = approval_rule)]
    pub rules: Vec<String>,
    /// Seconds a person has to answer before the call counts as denied.
    #[arg(long, value_name = "SECS", default_value_t = 300.0, value_parser = grace)]
    pub approval_timeout: f64,
}

impl ApprovalArgs {
    /// The executor's policy these arguments give.
    pub fn policy(&self) -> tool_core::exec::ApprovalPolicy {
        // Each rule was read alone by the parser; only `never` with others is left to refuse,
        // which `from_args` does (and which `toolctl` reports before it starts).
        let mut policy =
            tool_core::exec::ApprovalPolicy::from_args(&self.rules).unwrap_or_default();
        policy.timeout = std::time::Duration::from_secs_f64(self.approval_timeout);
        policy
    }

    /// Why the rules do not go together, if they do not (`never` with another).
    pub fn problem(&self) -> Option<String> {
        tool_core::exec::ApprovalPolicy::from_args(&self.rules)
            .err()
            .map(|e| format!("--approval: {e}"))
    }

    /// The rules that name a tool or a domain `registry` does not have: a misspelt name would
    /// otherwise hold nothing, and the tool it meant would run unasked.
    ///
    /// ```
    /// use clap::Parser;
    /// use tool_core::{registry::DynamicTool, Registry};
    /// #[derive(Parser)]
    /// struct Cli {
    ///     #[command(flatten)]
    ///     approval: tool_cli::ApprovalArgs,
    /// }
    /// let mut registry = Registry::empty();
    /// registry
    ///     .register(DynamicTool::new("delete_file", "Deletes a file.", serde_json::json!({"type": "object"})))
    ///     .unwrap();
    /// let cli = Cli::parse_from(["agent", "--approval", "delete_fiel"]);
    /// let problem = cli.approval.unknown(&registry).unwrap();
    /// assert!(problem.contains("did you mean `delete_file`?"), "{problem}");
    /// let cli = Cli::parse_from(["agent", "--approval", "delete_file", "--approval", "destructive"]);
    /// assert_eq!(cli.approval.unknown(&registry), None);
    /// ```
    pub fn unknown(&self, registry: &tool_core::Registry) -> Option<String> {
        let policy = tool_core::exec::ApprovalPolicy::from_args(&self.rules).ok()?;
        let mut problems = Vec::new();
        for tool in &policy.tools {
            if registry.get(tool).is_none() {
                let suggestions = registry.suggest_for(tool, None);
                problems.push(tool_core::exec::unknown_tool(tool, &suggestions).to_string());
            }
        }
        let domains = registry.domains();
        for domain in &policy.domains {
            if !domains.iter().any(|d| d.name == domain.as_str()) {
                let known: Vec<&str> = domains.iter().map(|d| d.name.as_ref()).collect();
                problems.push(format!(
                    "no tool is in the domain `{domain}` (the domains are: {})",
                    known.join(", ")
                ));
            }
        }
        (!problems.is_empty()).then(|| format!("--approval: {}", problems.join("; ")))
    }
}

fn approval_rule(word: &str) -> Result<String, String> {
    tool_core::exec::ApprovalPolicy::from_args([word])
        .map(|_| word.to_owned())
        .map_err(|e| e.to_string())
}

/// How `serve` listens. Built by clap; `#[non_exhaustive]`, so a new flag is not a breaking
/// change.
#[derive(Debug, Args)]
#[non_exhaustive]
pub struct ServeArgs {
    /// Speak MCP on stdin and stdout (how MCP clients start a local server).
    #[arg(long, conflicts_with = "http", required_unless_present = "http")]
    pub stdio: bool,
    /// Serve Streamable HTTP at this address, endpoint `/mcp` (alone: 127.0.0.1:8080; port 0
    /// picks a free port).
    #[arg(long, value_name = "ADDR", num_args = 0..=1, default_missing_value = "127.0.0.1:8080")]
    pub http: Option<SocketAddr>,
    /// HTTP without sessions: any instance behind a load balancer can answer any request.
    #[arg(long, requires = "http")]
    pub stateless: bool,
    /// Require `Authorization: Bearer <token>`, the token read from this environment variable.
    #[arg(long, requires = "http", value_name = "VAR")]
    pub token_env: Option<String>,
    /// Accept this browser Origin besides loopback ones (repeatable; `:*` for any port).
    #[arg(long, requires = "http", value_name = "ORIGIN")]
    pub allow_origin: Vec<String>,
    /// Accept this Host besides loopback names, when serving beyond this machine (repeatable).
    #[arg(long, requires = "http", value_name = "HOST")]
    pub allow_host: Vec<String>,
    /// Pass this request header to the tools, to forward downstream (repeatable; none by
    /// default). Never `authorization`, `cookie` or `proxy-*`: a caller's token reaches a
    /// downstream service only by its audience (see docs/http.md).
    #[arg(long, requires = "http", value_name = "NAME", value_parser = forward_header)]
    pub forward_header: Vec<String>,
    /// List only `core` tools; the others stay callable by name.
    #[arg(long)]
    pub hide_deferred: bool,
    /// Serve a non-loopback address without `--token-env` or `--oauth-issuer` (only behind a
    /// proxy that authenticates: otherwise anyone who reaches the port can call every tool).
    #[arg(long, requires = "http")]
    pub allow_unauthenticated: bool,
    /// Serve stdio through the MCP SDK's own transport and loop alone.
    #[arg(long, requires = "stdio")]
    pub sdk_transport: bool,
    /// Give every tool without a view of its own the framework's card, for clients that
    /// render MCP Apps (`io.modelcontextprotocol/ui`).
    #[arg(long)]
    pub views: bool,
    /// Seconds the calls in flight may take to finish once stdin closes (or on SIGTERM) before
    /// they are cancelled.
    #[arg(long, value_name = "SECS", default_value_t = 5.0, value_parser = grace)]
    pub shutdown_grace: f64,
    /// The environment variable that holds the key (at least 32 bytes) sealing the
    /// `requestState` of 2026-07-28 calls whose tools ask the client: give every instance
    /// behind a load balancer the same one, so a retry may land on any of them (default: a
    /// random key of this process's own).
    #[arg(long, value_name = "VAR")]
    pub request_state_key_env: Option<String>,
    /// Where the tasks of long calls are kept (MCP tasks, for 2026-07-28 clients that declare
    /// the extension): `sqlite:PATH`, `postgres://USER@HOST/DB` (shared by several instances),
    /// `memory` (lost with the process) or `off`. Default: SQLite in
    /// $XDG_DATA_HOME/NAME/tasks.sqlite3 (else ~/.local/share/NAME/tasks.sqlite3), NAME this
    /// binary's name; `memory` in a binary built without tool-cli's feature `sqlite`.
    #[arg(long, value_name = "STORE", value_parser = task_store)]
    pub tasks: Option<TaskStoreArg>,
    /// Calls that need a person's yes before they run (asked of the MCP client's user).
    #[command(flatten)]
    pub approval: ApprovalArgs,
    /// Append an audit record (JSON, one line per call) of every call to a tool that is not
    /// read-only or needed approval to this file.
    #[arg(long, value_name = "FILE")]
    pub audit: Option<std::path::PathBuf>,
    /// Seconds a call of a tool marked `task` runs as a plain call before it becomes a task.
    #[arg(long, value_name = "SECS", default_value_t = 1.0, value_parser = grace)]
    pub task_after: f64,
    /// Seconds an instance's hold on a running task lasts without renewal: how soon the tasks
    /// of an instance that died are taken over by another (renewed every third of it).
    #[arg(long, value_name = "SECS", default_value_t = 15.0, value_parser = lease)]
    pub task_lease: f64,
    /// Seconds a task, its result included, is kept after it was created.
    #[arg(long, value_name = "SECS", default_value_t = 3600.0, value_parser = lease)]
    pub task_ttl: f64,
    /// The model for hybrid search in `search_tools`.
    #[command(flatten)]
    pub embed: crate::EmbedArgs,
    /// Callers authenticated by OAuth access tokens.
    #[command(flatten)]
    pub oauth: crate::OAuthArgs,
    /// Code mode: scripts that call tools, in place of the tools.
    #[command(flatten)]
    pub code: crate::CodeArgs,
}

fn forward_header(name: &str) -> Result<String, String> {
    match tool_mcp::ServerOptions::never_forwarded(name) {
        Some(why) => Err(format!("`{name}` never reaches tools: {why}")),
        None => Ok(name.to_ascii_lowercase()),
    }
}

/// Where `serve --tasks` keeps tasks.
#[derive(Debug, Clone, PartialEq)]
pub enum TaskStoreArg {
    /// A SQLite file.
    Sqlite(std::path::PathBuf),
    /// A PostgreSQL server: its connection string (libpq's URL or `key=value` form).
    Postgres(String),
    /// This process's memory.
    Memory,
    /// No tasks: every call is a plain call.
    Off,
}

fn task_store(text: &str) -> Result<TaskStoreArg, String> {
    match text {
        "memory" => Ok(TaskStoreArg::Memory),
        "off" => Ok(TaskStoreArg::Off),
        _ if text.starts_with("postgres://") || text.starts_with("postgresql://") => postgres(text),
        _ => match text.strip_prefix("sqlite:") {
            Some("") => Err(
                "`sqlite:` needs the file's path, e.g. sqlite:/var/lib/my-agent/tasks.sqlite3"
                    .into(),
            ),
            Some(path) if cfg!(feature = "sqlite") => Ok(TaskStoreArg::Sqlite(path.into())),
            Some(_) => Err(crate::exit::not_built("sqlite:PATH", "sqlite")),
            None => Err(format!(
                "`{text}` is not a task store: give sqlite:PATH, postgres://USER@HOST/DB, \
                 memory or off"
            )),
        },
    }
}

/// A PostgreSQL store's connection string, checked as the store reads it.
#[cfg(feature = "postgres")]
fn postgres(url: &str) -> Result<TaskStoreArg, String> {
    tool_tasks::PostgresStore::connect_lazily(url)
        .map(|_| TaskStoreArg::Postgres(url.to_owned()))
        .map_err(|e| e.to_string())
}

/// Why a `postgres://` store is refused by a program built without them.
#[cfg(not(feature = "postgres"))]
pub(crate) const NO_POSTGRES: &str =
    "this program was built without PostgreSQL task stores (tool-cli's feature `postgres`)";

#[cfg(not(feature = "postgres"))]
fn postgres(_: &str) -> Result<TaskStoreArg, String> {
    Err(NO_POSTGRES.into())
}

fn lease(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(secs) if secs.is_finite() && (0.05..=30.0 * 86_400.0).contains(&secs) => Ok(secs),
        _ => Err(format!(
            "`{text}` is not a number of seconds from 0.05 to 2592000 (30 days)"
        )),
    }
}

fn grace(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(secs) if secs.is_finite() && (0.0..=3600.0).contains(&secs) => Ok(secs),
        _ => Err(format!(
            "`{text}` is not a number of seconds from 0 to 3600"
        )),
    }
}

#[derive(Debug, Parser)]
#[command(
    name = "toolctl",
    about = "List, inspect and call the tools linked into this binary"
)]
pub(crate) struct Cli {
    #[command(flatten)]
    pub(crate) args: ToolArgs,
}

impl Cli {
    /// `args` parsed for the binary `identity` names: its name in the help and usage, its
    /// version for `--version`.
    pub(crate) fn parse_as<I, T>(identity: &Identity, args: I) -> Result<Self, clap::Error>
    where
        I: IntoIterator<Item = T>,
        T: Into<std::ffi::OsString> + Clone,
    {
        use clap::{CommandFactory, FromArgMatches};
        let name = identity.name().to_owned();
        let mut command = Self::command()
            .name(name.clone())
            .bin_name(name)
            .version(identity.version().to_owned());
        let matches = command.try_get_matches_from_mut(args)?;
        Self::from_arg_matches(&matches).map_err(|e| e.format(&mut command))
    }
}
