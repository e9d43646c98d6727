//! An agent over the bundled tools: sends a prompt to a model, runs the tools it calls, prints
//! the final answer on stdout and the tool activity on stderr (a spinner with the tool's label
//! while it runs, then a one-line result).
//!
//! ```text
//! AGENT_API_KEY=... agent --provider openai --base-url https://api.openai.com/v1 --model gpt-5-mini "What time is it in Tokyo?"
//! ```
//!
//! The key comes from `AGENT_API_KEY`, else `OPENAI_API_KEY` or `ANTHROPIC_API_KEY` by provider.
//!
//! With `--presence 127.0.0.1:0` the same activity is also served as a live page of tool cards
//! (and Server-Sent Events at `/events`) on loopback; its URL is printed on stderr.
//! `--presence-hold 60` keeps serving for a minute after the answer (`forever`: until Ctrl-C).
//!
//! With `--code` (the feature `code`) the model gets one `run_code` tool and writes a Python
//! script that calls the tools; each of the script's calls shows in the activity view.
//!
//! Calls that need a person's yes (tools that declare it, and what `--approval destructive|
//! write|TOOL|domain:NAME` adds) are asked about on the terminal: the question on stderr, the
//! answer from stdin (`y`, `s` for identical calls, `a` for every call of the tool, `n REASON`),
//! and with `--presence` also as a card on the page; the first answer counts. No answer within
//! `--approval-timeout` seconds (default 300) counts as no.

use std::io::{IsTerminal, Write};
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use clap::Parser;
use tool_agent::{Agent, Protocol, Provider, ProviderConfig};
use tool_bundle as _;
use tool_cli::TerminalApprover;
use tool_core::exec::{ExecPolicy, Executor};
use tool_core::{
    Registry, ToolContext,
    context::{
        ApprovalFuture, ApprovalRequest, Approver, BroadcastEvents, Decision, EventSink, ToolEvent,
    },
};
use tool_presence::{Presence, PresenceApprover, PresenceOptions, PresenceServer};

#[derive(Parser)]
#[command(name = "agent", about = "Ask a model, with the bundled tools")]
struct Args {
    /// openai (also Ollama, vLLM, llama.cpp servers) or anthropic.
    #[arg(long)]
    provider: Provider,
    // clap prints this doc comment as the option's help, where a bare URL reads best.
    #[allow(rustdoc::bare_urls)]
    /// The API's base URL, e.g. https://api.openai.com/v1.
    #[arg(long)]
    base_url: String,
    /// The model's name.
    #[arg(long)]
    model: String,
    /// native (the provider's tool calling) or tags (calls written as tags in the text).
    #[arg(long, default_value = "native", value_parser = ["native", "tags"])]
    protocol: String,
    /// Most model requests before giving up.
    #[arg(long, default_value_t = 8)]
    max_turns: usize,
    /// Also show the tool activity as a live page of tool cards (and Server-Sent Events at
    /// /events) on this loopback address: HOST:PORT, or a port on 127.0.0.1 (0 picks a free
    /// one). The page's URL is printed on stderr.
    #[arg(long, value_name = "ADDR")]
    presence: Option<String>,
    /// Keep serving the page after the answer: for SECS seconds, or `forever` (until Ctrl-C,
    /// which also ends a timed hold early).
    #[arg(long, value_name = "SECS|forever", requires = "presence", value_parser = parse_hold)]
    presence_hold: Option<Hold>,
    /// Which calls need a person's yes, asked on the terminal (and on the page with
    /// `--presence`).
    #[command(flatten)]
    approval: tool_cli::ApprovalArgs,
    /// The model for hybrid search in `search_tools`.
    #[command(flatten)]
    embed: tool_cli::EmbedArgs,
    /// Code mode: the model gets one `run_code` tool and writes a Python script that calls the
    /// tools (needs the feature `code`). Scripts run in `tool-code-worker` beside this binary
    /// when it is there, else in this process.
    #[arg(long)]
    code: bool,
    /// What to ask.
    prompt: String,
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() -> ExitCode {
    let args = Args::parse();
    if let Some(problem) = args.approval.problem() {
        eprintln!("error: {problem}");
        return ExitCode::from(2);
    }
    let mut registry = match Registry::linked() {
        Ok(registry) => registry,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    let embedding = match args.embed.embedding() {
        Ok(embedding) => embedding,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    if let Err(e) = tool_catalog::install_with(&mut registry, embedding) {
        eprintln!("error: {e}");
        return ExitCode::from(2);
    }
    if let Some(problem) = args.approval.unknown(&registry) {
        eprintln!("error: {problem}");
        return ExitCode::from(2);
    }
    let key_var = match args.provider {
        Provider::Anthropic => "ANTHROPIC_API_KEY",
        _ => "OPENAI_API_KEY",
    };
    let key = std::env::var("AGENT_API_KEY")
        .or_else(|_| std::env::var(key_var))
        .ok();
    let mut config = ProviderConfig::new(args.base_url, args.model);
    if let Some(key) = key {
        config = config.api_key(key);
    }
    let events = Arc::new(BroadcastEvents::new(256));
    let asking = Arc::new(AtomicUsize::new(0));
    let activity = tokio::spawn(show_activity(events.subscribe(), asking.clone()));
    let mut sink: Arc<dyn EventSink> = events.clone();
    let mut presence = None;
    if let Some(addr) = &args.presence {
        let hub = Presence::new();
        match start_presence(&hub, addr).await {
            Ok(server) => {
                eprintln!("presence: {}", server.url());
                sink = Arc::new(Both(events.clone(), hub.clone()));
                presence = Some((hub, server));
            }
            Err(e) => {
                eprintln!("error: --presence: {e}");
                return ExitCode::from(2);
            }
        }
    }
    let context = ToolContext::builder().events(sink).build();
    let protocol = if args.protocol == "tags" {
        Protocol::Tags
    } else {
        Protocol::Native
    };
    let policy = ExecPolicy::default().approval(args.approval.policy());
    // Stdin is read only when some call may need an answer.
    let asks = registry.tools().iter().any(|t| policy.approval.needs(t));
    let executor = match code_mode(args.code, Executor::with_policy(registry, policy)) {
        Ok(executor) => executor,
        Err(e) => {
            eprintln!("error: --code: {e}");
            return ExitCode::from(2);
        }
    };
    let mut agent = Agent::new(executor, args.provider, config)
        .protocol(protocol)
        .max_turns(args.max_turns)
        .context(context);
    if asks {
        let terminal = Terminal {
            asking,
            approver: TerminalApprover::stdio(),
        };
        let approver: Arc<dyn Approver> = match &presence {
            Some((hub, _)) => Arc::new(FirstAnswer(terminal, PresenceApprover::new(hub.clone()))),
            None => Arc::new(terminal),
        };
        agent = agent.approver(approver);
    }
    let result = agent.run(&args.prompt).await;
    drop(agent);
    drop(events);
    let _ = activity.await;
    let code = match result {
        Ok(answer) => {
            println!("{}", answer.text);
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    };
    if let Some((hub, server)) = presence {
        // The run is over: pages keep their cards and stop listening; pages opened during the
        // hold get the cards too.
        hub.finish();
        hold(&server, args.presence_hold).await;
        if let Err(e) = server.shutdown().await {
            eprintln!("error: presence: {e}");
        }
    }
    code
}

/// `executor`, or with `--code` the one `run_code` tool over it.
#[cfg(feature = "code")]
fn code_mode(code: bool, executor: Executor) -> Result<Executor, String> {
    use tool_code::{CodeMode, RUN_CODE, Sandbox, worker::WorkerCommand};
    if !code {
        return Ok(executor);
    }
    let sandbox = WorkerCommand::beside_current_exe().map_or(Sandbox::InProcess, Sandbox::Worker);
    CodeMode::new(executor)
        .sandbox(sandbox)
        .code_executor(RUN_CODE, &[])
        .map_err(|e| e.to_string())
}

/// `executor`; `--code` needs the feature `code`.
#[cfg(not(feature = "code"))]
fn code_mode(code: bool, executor: Executor) -> Result<Executor, String> {
    if code {
        return Err("this binary was built without the feature `code`".to_owned());
    }
    Ok(executor)
}

/// How long to keep serving the page after the answer.
#[derive(Debug, Clone, Copy)]
enum Hold {
    /// This long at most.
    For(Duration),
    /// Until Ctrl-C.
    Forever,
}

fn parse_hold(text: &str) -> Result<Hold, String> {
    if text.eq_ignore_ascii_case("forever") {
        return Ok(Hold::Forever);
    }
    text.parse::<f64>()
        .ok()
        .and_then(|secs| Duration::try_from_secs_f64(secs).ok())
        .map(Hold::For)
        .ok_or_else(|| format!("`{text}` is neither a number of seconds nor `forever`"))
}

/// Serves presence on `addr`, which must be a loopback address: the events are for the person
/// at this machine.
async fn start_presence(hub: &Presence, addr: &str) -> Result<PresenceServer, String> {
    let server = hub
        .start(addr, PresenceOptions::default())
        .await
        .map_err(|e| e.to_string())?;
    let ip = server.local_addr().ip();
    if !ip.is_loopback() {
        return Err(format!(
            "{ip} is not a loopback address; the page is served on loopback only (127.0.0.1 or ::1)"
        ));
    }
    Ok(server)
}

/// Keeps serving after the answer, as `--presence-hold` says; Ctrl-C ends the wait.
async fn hold(server: &PresenceServer, hold: Option<Hold>) {
    let limit = match hold {
        None => return,
        Some(Hold::For(limit)) => {
            eprintln!(
                "presence: serving {} for {} s more (Ctrl-C to stop)",
                server.url(),
                limit.as_secs_f64()
            );
            Some(limit)
        }
        Some(Hold::Forever) => {
            eprintln!("presence: serving {} until Ctrl-C", server.url());
            None
        }
    };
    let timer = async {
        match limit {
            Some(limit) => tokio::time::sleep(limit).await,
            None => std::future::pending().await,
        }
    };
    tokio::select! {
        () = timer => {}
        _ = tokio::signal::ctrl_c() => {}
    }
}

/// The terminal's approver, which also tells the activity view when a question is on the
/// terminal, so its spinner does not draw over it.
struct Terminal {
    asking: Arc<AtomicUsize>,
    approver: TerminalApprover,
}

impl Approver for Terminal {
    fn approve<'a>(&'a self, request: &'a ApprovalRequest<'a>) -> ApprovalFuture<'a> {
        Box::pin(async move {
            self.asking.fetch_add(1, Ordering::Relaxed);
            let _asked = Asked(&self.asking);
            self.approver.approve(request).await
        })
    }
}

/// Counts a question off when it ends, answered or not.
struct Asked<'a>(&'a AtomicUsize);

impl Drop for Asked<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::Relaxed);
    }
}

/// Asks at the terminal and on the page at once: the first answer counts, and the other
/// question is withdrawn. One that cannot ask (a terminal whose input is closed) leaves the
/// answer to the other.
struct FirstAnswer<A, B>(A, B);

impl<A: Approver, B: Approver> Approver for FirstAnswer<A, B> {
    fn approve<'a>(&'a self, request: &'a ApprovalRequest<'a>) -> ApprovalFuture<'a> {
        Box::pin(async move {
            let first = self.0.approve(request);
            let second = self.1.approve(request);
            tokio::pin!(first, second);
            let (mut first_asks, mut second_asks) = (true, true);
            let mut unavailable = None;
            while first_asks || second_asks {
                let decision = tokio::select! {
                    decision = &mut first, if first_asks => {
                        first_asks = false;
                        decision
                    }
                    decision = &mut second, if second_asks => {
                        second_asks = false;
                        decision
                    }
                };
                match decision {
                    Decision::Unavailable { .. } => unavailable = Some(decision),
                    answer => return answer,
                }
            }
            unavailable.unwrap_or_else(|| Decision::Unavailable {
                why: "no one could be asked".to_owned(),
            })
        })
    }
}

/// Sends every event to the stderr view and to the presence page.
struct Both(Arc<BroadcastEvents>, Presence);

impl EventSink for Both {
    fn emit(&self, event: &ToolEvent) {
        self.0.emit(event);
        self.1.emit(event);
    }
}

/// Draws tool activity on stderr: a spinner line while a call runs (on a terminal, unless a
/// question is on it), then one line per finished call.
async fn show_activity(
    mut events: tokio::sync::broadcast::Receiver<ToolEvent>,
    asking: Arc<AtomicUsize>,
) {
    const FRAMES: [&str; 4] = ["|", "/", "-", "\\"];
    let live = std::io::stderr().is_terminal();
    let mut running: Vec<(String, String)> = Vec::new();
    let mut frame = 0;
    let mut tick = tokio::time::interval(Duration::from_millis(120));
    loop {
        let event = tokio::select! {
            event = events.recv() => event,
            _ = tick.tick(), if live && !running.is_empty() => {
                if asking.load(Ordering::Relaxed) > 0 {
                    continue;
                }
                frame = (frame + 1) % FRAMES.len();
                let labels: Vec<&str> = running.iter().map(|(_, label)| label.as_str()).collect();
                eprint!("\r\x1b[2K{} {}", FRAMES[frame], labels.join(", "));
                continue;
            }
        };
        let mut err = std::io::stderr().lock();
        // The spinner's line is cleared, but never a question's prompt.
        if live && asking.load(Ordering::Relaxed) == 0 {
            let _ = write!(err, "\r\x1b[2K");
        }
        match event {
            Ok(ToolEvent::Started { call_id, label, .. }) => {
                if !live {
                    let _ = writeln!(err, "… {label}");
                }
                running.push((call_id, label));
            }
            Ok(ToolEvent::Finished {
                call_id,
                tool,
                payload,
                ..
            }) => {
                running.retain(|(id, _)| *id != call_id);
                let summary = payload.map(|p| p.to_string()).unwrap_or_default();
                let _ = writeln!(err, "✓ {tool} {}", short(&summary));
            }
            Ok(ToolEvent::Failed {
                call_id,
                tool,
                message,
                ..
            }) => {
                running.retain(|(id, _)| *id != call_id);
                let _ = writeln!(err, "✗ {tool}: {}", short(&message));
            }
            Ok(_) => {}
            Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => {}
            Err(tokio::sync::broadcast::error::RecvError::Closed) => break,
        }
    }
}

/// The first 100 characters of a line.
fn short(text: &str) -> String {
    let line = text.lines().next().unwrap_or_default();
    match line.char_indices().nth(100) {
        Some((at, _)) => format!("{}…", &line[..at]),
        None => line.to_owned(),
    }
}
