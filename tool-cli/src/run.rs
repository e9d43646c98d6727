//! Running a parsed command against a registry, with the tools of `--defs` files and
//! `--mount`ed servers added.

use std::io::Read;
use std::process::ExitCode;

use serde_json::{Value, json};
use tool_catalog::{Catalog, SearchOptions};
use tool_core::exec::CompletionRef;
use tool_core::render::{self, RenderOptions};
use tool_core::{
    Executor, Registry, ToolContext, context::ToolRoot, registry::RegistryError, registry::defs,
};

use crate::args::{Command, ToolArgs};
use crate::commands::{self, find, output_json};
use crate::exit::{Exit, Out, failed, print_json, usage};
use crate::{items, serve};

impl ToolArgs {
    /// Runs the command against `registry`, writing results to `out` and messages to `err`, on
    /// a runtime of its own. From async code, use [`run_async`](Self::run_async).
    pub fn run(&self, registry: Registry, out: Out, err: Out) -> ExitCode {
        // Serving uses every core; one-shot commands need no worker threads.
        let runtime = match &self.command {
            Command::Serve(_) => tokio::runtime::Builder::new_multi_thread()
                .enable_all()
                .build(),
            _ => tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build(),
        };
        match runtime {
            Ok(runtime) => runtime.block_on(self.run_async(registry, out, err)),
            Err(e) => ExitCode::from(usage(err, format!("cannot start the async runtime: {e}")).0),
        }
    }

    /// [`run`](Self::run) on the caller's runtime (`serve` wants a multi-threaded one).
    pub async fn run_async(&self, registry: Registry, out: Out<'_>, err: Out<'_>) -> ExitCode {
        match self.run_in(registry, out, err).await {
            Ok(()) => ExitCode::SUCCESS,
            Err(Exit(code)) => ExitCode::from(code),
        }
    }

    async fn run_in(&self, registry: Registry, out: Out<'_>, err: Out<'_>) -> Result<(), Exit> {
        if let Command::Tasks(args) = &self.command {
            // The store alone: no tool is loaded, no server mounted.
            return crate::tasks::run(args, &self.identity, out, err).await;
        }
        let (registry, clashes) = self.with_sources(registry, err).await?;
        let owned = registry;
        let registry = &owned;
        match &self.command {
            Command::Serve(args) => {
                let base = self.base_context(err)?;
                serve::serve(self, owned, args, base, err).await
            }
            Command::List { json, domain } => {
                commands::list(registry, *json, domain.as_deref(), out, err)
            }
            Command::Show { name } => commands::show(registry, name, out, err),
            Command::Call {
                name,
                input,
                approval,
            } => self.call(owned, name, input, approval, out, err).await,
            Command::Search {
                query,
                top,
                domain,
                json,
                queries,
                embed,
            } => {
                let mut options = SearchOptions::limit(usize::from(*top));
                options.domain = domain.clone();
                let catalog = match embed.embedding_or_exit(err)? {
                    None => Catalog::new(registry),
                    Some(embedding) => Catalog::with_embedding(registry, &embedding)
                        .map_err(|e| failed(err, e.to_string()))?,
                };
                if let Some(domain) = domain {
                    catalog
                        .check_domain(domain)
                        .map_err(|e| usage(err, e.to_string()))?;
                }
                match (queries, query) {
                    (Some(path), _) => commands::search_batch(&catalog, &options, path, out, err),
                    (None, Some(query)) => {
                        commands::search(&catalog, &options, query, *json, out, err)
                    }
                    (None, None) => Err(usage(err, "give a QUERY or --queries FILE".into())),
                }
            }
            Command::Export { format, strict } => {
                let options = RenderOptions::default().strict(*strict);
                print_json(out, &render::render_all(registry.tools(), *format, options));
                Ok(())
            }
            Command::Check(args) => commands::check(registry, clashes, args, out, err),
            Command::Lock { output } => commands::lock(registry, output, out, err),
            Command::Tasks(args) => crate::tasks::run(args, &self.identity, out, err).await,
            Command::Resources { json } => items::list_resources(registry, *json, out),
            Command::Prompts { json } => items::list_prompts(registry, *json, out),
            Command::Read { uri } => {
                let (executor, ctx) = self.item_executor(owned, err)?;
                items::read(&executor, uri, &ctx, out, err).await
            }
            Command::Get { name, args } => {
                let text = read_input(args, "--args", err)?;
                let (executor, ctx) = self.item_executor(owned, err)?;
                items::get(&executor, name, &text, &ctx, out, err).await
            }
            Command::Complete {
                prompt,
                template,
                argument,
                value,
            } => {
                let of = match (prompt, template) {
                    (Some(name), _) => CompletionRef::Prompt(name),
                    (None, Some(template)) => CompletionRef::Resource(template),
                    (None, None) => return Err(usage(err, "give --prompt or --template".into())),
                };
                let (executor, ctx) = self.item_executor(owned, err)?;
                items::complete(&executor, of, argument, value, &ctx, out, err).await
            }
        }
    }

    /// The registry plus the tools of every `--defs` file and `--mount`ed server (and the
    /// mounts' resources and prompts); names and URIs that clash are set aside and returned,
    /// for `check` to report.
    async fn with_sources(
        &self,
        mut registry: Registry,
        err: Out<'_>,
    ) -> Result<(Registry, Vec<RegistryError>), Exit> {
        let mut clashes = Vec::new();
        let checking = matches!(self.command, Command::Check(_));
        let mut set_aside = |added: Result<(), RegistryError>, err: Out| {
            if let Err(e) = added {
                if !checking {
                    let _ = writeln!(err, "warning: {e}");
                }
                clashes.push(e);
            }
        };
        for path in &self.defs {
            let origin = path.display().to_string();
            let text = std::fs::read_to_string(path)
                .map_err(|e| usage(err, format!("--defs {origin}: {e}")))?;
            let tools =
                defs::parse(&text, &origin).map_err(|e| usage(err, format!("--defs: {e}")))?;
            for tool in tools {
                set_aside(registry.register(tool), err);
            }
        }
        if let Some(name) = self
            .trust_mount
            .iter()
            .find(|name| !self.mount.iter().any(|spec| spec.name == **name))
        {
            return Err(usage(
                err,
                format!("--trust-mount {name}: no --mount is named `{name}`"),
            ));
        }
        #[cfg(not(feature = "mount"))]
        if let Some(spec) = self.mount.first() {
            return Err(usage(
                err,
                crate::exit::not_built(&format!("--mount {}", spec.name), "mount"),
            ));
        }
        #[cfg(feature = "mount")]
        for spec in &self.mount {
            let mut mounted = tool_mcp::mount(spec)
                .await
                .map_err(|e| usage(err, format!("--mount {e}")))?;
            if self.trust_mount.contains(&spec.name) {
                mounted = mounted.vouch();
            }
            let (tools, resources, prompts) = mounted.into_items();
            for resource in resources {
                set_aside(registry.add_resource(resource), err);
            }
            for prompt in prompts {
                set_aside(registry.add_prompt(prompt), err);
            }
            for tool in tools {
                set_aside(registry.register(tool), err);
            }
        }
        let registry = self
            .transforms()
            .apply(registry)
            .map_err(|e| usage(err, format!("transform: {e}")))?;
        Ok((registry, clashes))
    }

    /// The context every call starts from: the binary's values and approver, and the
    /// `--root`, when given.
    fn base_context(&self, err: Out) -> Result<ToolContext, Exit> {
        let mut ctx = self.context.apply(ToolContext::builder());
        if let Some(approver) = &self.approver.0 {
            ctx = ctx.approver(approver.clone());
        }
        if let Some(dir) = &self.root {
            let root = ToolRoot::new(dir)
                .map_err(|e| usage(err, format!("--root {}: {e}", dir.display())))?;
            ctx = ctx.root(root);
        }
        Ok(ctx.build())
    }

    /// The executor and context a read, get or completion runs with: this binary's layers and
    /// values, as a call's.
    fn item_executor(&self, registry: Registry, err: Out) -> Result<(Executor, ToolContext), Exit> {
        let executor = self.executor(registry, tool_core::exec::ExecPolicy::default());
        Ok((executor, self.base_context(err)?))
    }

    async fn call(
        &self,
        registry: Registry,
        name: &str,
        input: &str,
        approval: &crate::ApprovalArgs,
        out: Out<'_>,
        err: Out<'_>,
    ) -> Result<(), Exit> {
        if let Some(problem) = approval.problem().or_else(|| approval.unknown(&registry)) {
            return Err(usage(err, problem));
        }
        let policy = tool_core::exec::ExecPolicy::default().approval(approval.policy());
        let executor = self.executor(registry, policy);
        let tool = find(executor.registry(), name, err)?;
        let from_stdin = input == "-";
        let text = read_input(input, "--input", err)?;
        let input: Value = executor
            .policy()
            .parse(&text)
            .map_err(|e| usage(err, format!("--input: {}", e.message())))?;
        let mut ctx = self.base_context(err)?;
        // A call that needs a person's yes asks on the terminal, as the agent binary does
        // (unless the binary brought an approver of its own); with the input read from stdin,
        // no answer can come and the call is refused unrun.
        if executor.policy().approval.needs(tool) && self.approver.0.is_none() {
            let asking: std::sync::Arc<dyn tool_core::context::Approver> = match from_stdin {
                false => std::sync::Arc::new(crate::TerminalApprover::stdio()),
                true => std::sync::Arc::new(crate::TerminalApprover::new(
                    std::io::empty(),
                    std::io::stderr(),
                )),
            };
            ctx = ctx.derive().approver(asking).build();
        }
        // The full pipeline: scopes, limits, approval, time limit, isolation, retries,
        // sanitised errors, audit.
        match executor.call(tool.name(), input, &ctx).await {
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

/// `text`, or standard input when it is `-` (the value of `flag`).
fn read_input(text: &str, flag: &str, err: Out) -> Result<String, Exit> {
    if text != "-" {
        return Ok(text.to_owned());
    }
    let mut read = String::new();
    std::io::stdin()
        .read_to_string(&mut read)
        .map_err(|e| usage(err, format!("{flag}: cannot read standard input: {e}")))?;
    Ok(read)
}
