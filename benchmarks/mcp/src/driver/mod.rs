//! `mcp-load`: spawns each MCP server, times its start-up, checks its listing, then drives
//! `tools/call add_numbers` sequentially and with a window of requests in flight, over
//! newline-delimited JSON-RPC on the child's stdin/stdout or Streamable HTTP on loopback, in
//! either protocol era ([`Era`]: a session begun with `initialize`, or stateless 2026-07-28
//! requests that each carry their `_meta`; the latter over stdio only).
//! Every answer is checked (id, no error, the right sum, and in 2026-07-28 `resultType`); each
//! phase is bounded by a count and a time limit, and a watchdog kills a server that stops
//! answering.

pub mod awake;
pub mod http;
pub mod report;
pub mod stdio;

/// What every benchmark records with its figures (shared with bench-calls and read by
/// bench-report).
#[path = "../../../report/src/meta.rs"]
#[allow(dead_code)]
mod meta;
pub use meta::{machine, source};

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Deserialize;
use serde_json::Value;

/// The protocol version every session-era client here asks for in `initialize`.
pub const PROTOCOL_VERSION: &str = "2025-06-18";

/// The stateless protocol: no `initialize`, every request says in its `_meta` who asks and in
/// which version, and every result says `"resultType": "complete"` (or asks for more).
pub const STATELESS_VERSION: &str = "2026-07-28";

/// The `_meta` member of every 2026-07-28 request here: the version, the client's capabilities
/// (none) and its info, the three keys the official Python client stamps on each request.
pub const STATELESS_META: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"mcp-load","version":"0.1.0"}}"#;

/// How a client talks to a server: the protocol era of its requests.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Era {
    /// `initialize` (protocol [`PROTOCOL_VERSION`]), `notifications/initialized`, then the
    /// requests of the session.
    #[default]
    Session,
    /// Protocol [`STATELESS_VERSION`]: `server/discover`, then requests that each carry
    /// [`STATELESS_META`]; no `initialize`. Measured over stdio only.
    Stateless,
}

impl Era {
    pub const ALL: [Era; 2] = [Era::Session, Era::Stateless];

    /// Short key, for `--era`, the JSON file and the logs.
    pub fn key(self) -> &'static str {
        match self {
            Era::Session => "session",
            Era::Stateless => STATELESS_VERSION,
        }
    }

    /// The protocol version its requests name.
    pub fn protocol(self) -> &'static str {
        match self {
            Era::Session => PROTOCOL_VERSION,
            Era::Stateless => STATELESS_VERSION,
        }
    }

    /// Eras named by their keys, comma-separated (`--era`; `2025-06-18` names the session era).
    pub fn parse_list(keys: &str) -> Result<Vec<Era>, String> {
        keys.split(',')
            .map(|k| match k {
                "session" | PROTOCOL_VERSION => Ok(Era::Session),
                STATELESS_VERSION => Ok(Era::Stateless),
                _ => Err(format!("--era: session or {STATELESS_VERSION}, not {k}")),
            })
            .collect()
    }
}

/// Which implementation a server is: the targets compare tool-core against the others.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Kind {
    /// tool-core's server (`toolctl serve`).
    ToolCore,
    /// rmcp's macros as documented: `#[tool_handler]` (router rebuilt per call), `stdio()`.
    RmcpDefault,
    /// rmcp's macros with the router built once, `stdio_pipes()`.
    RmcpBest,
    /// `@modelcontextprotocol/sdk` on Node: `McpServer` + `StdioServerTransport`.
    TypeScript,
    /// `mcp` 2.x `MCPServer` on CPython.
    Python,
    /// No SDK (`floor`), one tool: over stdio one blocking loop, over HTTP a hand-written server
    /// that answers with one JSON body. Beyond noise no server beats it, so the others' ratios
    /// against it show what the machine allowed in that run.
    Floor,
    /// tool-core's server built from another commit (`tc-1`, `tc-200` in the directory
    /// `BENCH_MCP_BASELINE_DIR` names; `benchmarks/mcp/run --baseline REF` builds them): a change
    /// measured against the code before it, in the same run.
    Baseline,
    /// tool-core's stdio server on `tool-core` and `tool-mcp` alone (`lean-200`, the package
    /// `bench-lean`): the same 200 tools as `tc-200` without `tool-cli`'s command line and HTTP
    /// client. Stdio, 200 tools; measured only when asked for (`--only lean`, `mcp-footprint`).
    Lean,
}

impl Kind {
    pub const ALL: [Kind; 8] = [
        Kind::ToolCore,
        Kind::Baseline,
        Kind::Lean,
        Kind::RmcpDefault,
        Kind::RmcpBest,
        Kind::TypeScript,
        Kind::Python,
        Kind::Floor,
    ];

    /// Short key, for `--only` and the JSON file.
    pub fn key(self) -> &'static str {
        match self {
            Kind::ToolCore => "tool-core",
            Kind::RmcpDefault => "rmcp-default",
            Kind::RmcpBest => "rmcp-best",
            Kind::TypeScript => "ts-sdk",
            Kind::Python => "py-sdk",
            Kind::Floor => "floor",
            Kind::Baseline => "baseline",
            Kind::Lean => "lean",
        }
    }

    /// Kinds named by their keys, comma-separated (`--only`).
    pub fn parse_list(keys: &str) -> Result<Vec<Kind>, String> {
        keys.split(',')
            .map(|k| {
                Kind::ALL
                    .into_iter()
                    .find(|x| x.key() == k)
                    .ok_or(format!("--only: unknown server {k}"))
            })
            .collect()
    }

    /// How the table names it.
    pub fn label(self) -> &'static str {
        match self {
            Kind::ToolCore => "tool-core (toolctl serve)",
            Kind::RmcpDefault => "rmcp macros, default",
            Kind::RmcpBest => "rmcp macros, best",
            Kind::TypeScript => "TypeScript SDK 1.32.2",
            Kind::Python => "Python SDK mcp 2.3.0",
            Kind::Floor => "hand-written, no SDK (floor)",
            Kind::Baseline => "tool-core at the baseline commit",
            Kind::Lean => "tool-core + tool-mcp only (lean-200)",
        }
    }

    /// Why it is not measured in `era`, when it is not: each server was sent a 2026-07-28
    /// `server/discover`, `tools/list` and `tools/call` by hand (tool-core, rmcp 3.11 and mcp
    /// 2.3.0 answer them as the protocol says, `resultType` and all).
    pub fn not_in(self, era: Era) -> Option<&'static str> {
        match (self, era) {
            (Kind::TypeScript, Era::Stateless) => Some(
                "SDK 1.32.2 does not speak 2026-07-28: `server/discover` is -32601, and it answers \
                 `tools/list` and `tools/call` as in a session, without `resultType`",
            ),
            _ => None,
        }
    }
}

/// The transport a run uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Mode {
    Stdio,
    Http,
}

impl Mode {
    pub fn key(self) -> &'static str {
        match self {
            Mode::Stdio => "stdio",
            Mode::Http => "http",
        }
    }
}

/// One server to benchmark: how to start it on each transport.
#[derive(Debug, Clone)]
pub struct Server {
    pub kind: Kind,
    /// Tools it serves (1 or 200).
    pub tools: usize,
    /// Tools its `tools/list` must return (tool-core's `serve` adds `search_tools`).
    pub listed: usize,
    pub program: PathBuf,
    /// Arguments for stdio.
    pub stdio_args: Vec<String>,
    /// Arguments for Streamable HTTP; `{addr}` and `{port}` are replaced. None: no HTTP.
    pub http_args: Option<Vec<String>>,
}

impl Server {
    pub fn name(&self) -> String {
        format!("{}/{}", self.kind.key(), self.tools)
    }
}

/// Bounds and sizes of a run.
#[derive(Debug, Clone)]
pub struct Config {
    pub rounds: usize,
    /// Calls per phase (sequential, and in flight), at most.
    pub calls: usize,
    /// Sequential calls before measuring.
    pub warmup: usize,
    pub in_flight: usize,
    /// Each phase stops issuing calls after this long.
    pub phase_limit: Duration,
    /// A server must answer `initialize` within this.
    pub start_limit: Duration,
    /// Starts (spawn to the `initialize` answer) measured per round besides the measured
    /// server's own; the round's start-up is the median of them all. One start is a noisy
    /// sample on these machines (2 to 9 ms for the same binary within one run).
    pub starts: usize,
    /// Where servers' stderr goes.
    pub log_dir: PathBuf,
    /// Threads of the HTTP load client (wrk) for the calls in flight.
    pub client_threads: usize,
}

/// One measured phase.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct Phase {
    pub calls: usize,
    pub secs: f64,
    pub req_per_s: f64,
    pub p50_us: f64,
    pub p99_us: f64,
}

impl Phase {
    pub fn from_latencies(mut lat_ns: Vec<u64>, secs: f64) -> Phase {
        lat_ns.sort_unstable();
        let pct = |p: f64| {
            if lat_ns.is_empty() {
                return 0.0;
            }
            let i = ((p * lat_ns.len() as f64).ceil() as usize).clamp(1, lat_ns.len()) - 1;
            lat_ns[i] as f64 / 1000.0
        };
        Phase {
            calls: lat_ns.len(),
            secs,
            req_per_s: if secs > 0.0 {
                lat_ns.len() as f64 / secs
            } else {
                0.0
            },
            p50_us: pct(0.50),
            p99_us: pct(0.99),
        }
    }
}

/// One run of one server.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct Sample {
    /// Spawn to the `initialize` response.
    pub startup_ms: f64,
    /// VmRSS after the handshake and the listing.
    pub idle_rss_mib: f64,
    /// VmHWM at the end.
    pub peak_rss_mib: f64,
    pub sequential: Phase,
    pub in_flight: Phase,
}

/// A `tools/call` request's arguments and the sum it must come back with, from its id.
pub fn operands(id: u64) -> (f64, f64) {
    ((id % 10_007) as f64, (id % 997) as f64 + 0.25)
}

/// The JSON-RPC request for call `id`, in a session.
pub fn call_request(out: &mut impl std::io::Write, id: u64) -> std::io::Result<()> {
    call_request_in(out, Era::Session, id)
}

/// The JSON-RPC request for call `id` in `era` (in 2026-07-28, with [`STATELESS_META`]).
pub fn call_request_in(out: &mut impl std::io::Write, era: Era, id: u64) -> std::io::Result<()> {
    let (a, b) = operands(id);
    match era {
        Era::Session => write!(
            out,
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"add_numbers","arguments":{{"a":{a},"b":{b}}}}}}}"#
        ),
        Era::Stateless => write!(
            out,
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"add_numbers","arguments":{{"a":{a},"b":{b}}},{STATELESS_META}}}}}"#
        ),
    }
}

pub fn initialize_request(id: u64) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"initialize","params":{{"protocolVersion":"{PROTOCOL_VERSION}","capabilities":{{}},"clientInfo":{{"name":"mcp-load","version":"0.1.0"}}}}}}"#
    )
}

pub const INITIALIZED: &str = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;

/// The 2026-07-28 `server/discover` request: what a client of that era may send first.
pub fn discover_request(id: u64) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"server/discover","params":{{{STATELESS_META}}}}}"#
    )
}

pub fn list_request(id: u64, cursor: Option<&str>) -> String {
    list_request_in(Era::Session, id, cursor)
}

/// A page of `tools/list` in `era`.
pub fn list_request_in(era: Era, id: u64, cursor: Option<&str>) -> String {
    let cursor = cursor.map(|c| format!(r#""cursor":{}"#, Value::from(c)));
    match (era, cursor) {
        (Era::Session, Some(c)) => {
            format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/list","params":{{{c}}}}}"#)
        }
        (Era::Session, None) => format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/list"}}"#),
        (Era::Stateless, Some(c)) => format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/list","params":{{{c},{STATELESS_META}}}}}"#
        ),
        (Era::Stateless, None) => format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/list","params":{{{STATELESS_META}}}}}"#
        ),
    }
}

/// In 2026-07-28, that a result says `"resultType": "complete"` (`what` names the request).
fn check_result_type(era: Era, result_type: Option<&str>, what: &str) -> Result<(), String> {
    match (era, result_type) {
        (Era::Session, _) | (Era::Stateless, Some("complete")) => Ok(()),
        (Era::Stateless, other) => Err(format!(
            "{what}: resultType {other:?}, expected \"complete\" in {STATELESS_VERSION}"
        )),
    }
}

/// A JSON-RPC message from a server, as much as the checks read: the result as any JSON, or,
/// for `tools/call` answers ([`CallMessage`]), only the parts the sum check reads.
#[derive(Debug, Deserialize)]
pub struct Message<R = Value> {
    #[serde(default)]
    pub id: Option<Value>,
    #[serde(default)]
    pub method: Option<String>,
    #[serde(default = "Option::default")]
    pub result: Option<R>,
    #[serde(default)]
    pub error: Option<Value>,
}

/// A `tools/call` response.
pub type CallMessage = Message<CallResult>;

/// The file a server's stderr goes to for one round, created, and its path (for errors).
pub fn server_log(
    cfg: &Config,
    server: &Server,
    transport: &str,
    round: usize,
) -> Result<(std::fs::File, PathBuf), String> {
    let log = cfg.log_dir.join(format!(
        "{}-{}-{transport}-{round}.stderr",
        server.kind.key(),
        server.tools
    ));
    let file = std::fs::File::create(&log).map_err(|e| format!("{}: {e}", log.display()))?;
    Ok((file, log))
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CallResult {
    #[serde(default)]
    pub structured_content: Option<Value>,
    #[serde(default)]
    pub content: Vec<Content>,
    #[serde(default)]
    pub is_error: bool,
    /// `"complete"` in 2026-07-28; absent in a session.
    #[serde(default)]
    pub result_type: Option<String>,
}

#[derive(Debug, Deserialize)]
pub struct Content {
    #[serde(default)]
    pub text: Option<String>,
}

/// Checks a decoded `tools/call` response against call `id`: no error, and the sum right in
/// `structuredContent.result` (every server here returns it so) or, failing that, the text.
pub fn check_call(msg: &CallMessage, id: u64) -> Result<(), String> {
    check_call_in(msg, id, Era::Session)
}

/// [`check_call`] for a call of `era`: in 2026-07-28 the result must also say
/// `"resultType": "complete"`.
pub fn check_call_in(msg: &CallMessage, id: u64, era: Era) -> Result<(), String> {
    if let Some(e) = &msg.error {
        return Err(format!("call {id}: JSON-RPC error {e}"));
    }
    let Some(result) = &msg.result else {
        return Err(format!("call {id}: no result"));
    };
    if result.is_error {
        let text = result.content.first().and_then(|c| c.text.as_deref());
        return Err(format!("call {id}: isError: {}", text.unwrap_or("")));
    }
    check_result_type(era, result.result_type.as_deref(), &format!("call {id}"))?;
    let (a, b) = operands(id);
    let want = a + b;
    let got = result
        .structured_content
        .as_ref()
        .and_then(|s| s.get("result"))
        .and_then(Value::as_f64)
        .or_else(|| {
            result
                .content
                .first()
                .and_then(|c| c.text.as_deref())
                .and_then(|t| t.trim().parse::<f64>().ok())
        });
    match got {
        Some(got) if (got - want).abs() < 1e-9 => Ok(()),
        Some(got) => Err(format!(
            "call {id}: {a} + {b} = {want}, the server said {got}"
        )),
        None => Err(format!("call {id}: no sum in the result")),
    }
}

/// The id of a response as a number, when it is one.
pub fn id_of(id: &Option<Value>) -> Option<u64> {
    id.as_ref().and_then(Value::as_u64)
}

/// Checks an `initialize` response.
pub fn check_initialize(msg: &Message) -> Result<(), String> {
    if let Some(e) = &msg.error {
        return Err(format!("initialize: error {e}"));
    }
    let version = msg
        .result
        .as_ref()
        .and_then(|r| r.get("protocolVersion"))
        .and_then(Value::as_str);
    match version {
        Some(PROTOCOL_VERSION) => Ok(()),
        other => Err(format!(
            "initialize: protocolVersion {other:?}, asked for {PROTOCOL_VERSION}"
        )),
    }
}

/// Checks a `server/discover` response: no error, 2026-07-28 among `supportedVersions`, and
/// `"resultType": "complete"`.
pub fn check_discover(msg: &Message) -> Result<(), String> {
    if let Some(e) = &msg.error {
        return Err(format!("server/discover: error {e}"));
    }
    let result = msg.result.as_ref().ok_or("server/discover: no result")?;
    let versions = result.get("supportedVersions").and_then(Value::as_array);
    if !versions.is_some_and(|v| v.iter().any(|v| v == STATELESS_VERSION)) {
        return Err(format!(
            "server/discover: supportedVersions {versions:?} lack {STATELESS_VERSION}"
        ));
    }
    check_result_type(
        Era::Stateless,
        result.get("resultType").and_then(Value::as_str),
        "server/discover",
    )
}

/// Reads one page of `tools/list`: the tool count, whether `add_numbers` is there with `a`
/// and `b` in its schema, and the next cursor.
pub fn check_list_page(msg: &Message) -> Result<(usize, bool, Option<String>), String> {
    check_list_page_in(msg, Era::Session)
}

/// [`check_list_page`] for a listing of `era` (in 2026-07-28, `resultType` checked too).
pub fn check_list_page_in(
    msg: &Message,
    era: Era,
) -> Result<(usize, bool, Option<String>), String> {
    if let Some(e) = &msg.error {
        return Err(format!("tools/list: error {e}"));
    }
    let result = msg.result.as_ref().ok_or("tools/list: no result")?;
    check_result_type(
        era,
        result.get("resultType").and_then(Value::as_str),
        "tools/list",
    )?;
    let tools = result
        .get("tools")
        .and_then(Value::as_array)
        .ok_or("tools/list: no tools array")?;
    let mut add = false;
    for tool in tools {
        if tool.get("name").and_then(Value::as_str) == Some("add_numbers") {
            let props = tool.pointer("/inputSchema/properties");
            let has = |k| props.and_then(|p| p.get(k)).is_some();
            if !(has("a") && has("b")) {
                return Err(format!(
                    "tools/list: add_numbers' inputSchema lacks a or b: {tool}"
                ));
            }
            add = true;
        }
    }
    let next = result
        .get("nextCursor")
        .and_then(Value::as_str)
        .map(str::to_owned);
    Ok((tools.len(), add, next))
}

/// `tools/list` read page by page: what to ask next, and what the pages held.
#[derive(Debug)]
pub struct Listing {
    era: Era,
    id: u64,
    cursor: Option<String>,
    listed: usize,
    has_add: bool,
}

impl Default for Listing {
    fn default() -> Self {
        Self::new(Era::Session)
    }
}

impl Listing {
    /// A listing whose requests are of `era`.
    pub fn new(era: Era) -> Self {
        Self {
            era,
            id: 1,
            cursor: None,
            listed: 0,
            has_add: false,
        }
    }

    /// The request for the next page.
    pub fn request(&self) -> String {
        list_request_in(self.era, self.id, self.cursor.as_deref())
    }

    /// Reads the answer to [`request`](Self::request); true when another page follows (at
    /// most 99 pages are read).
    pub fn read(&mut self, msg: &Message) -> Result<bool, String> {
        if id_of(&msg.id) != Some(self.id) {
            return Err(format!(
                "tools/list: answer to id {:?}, asked {}",
                msg.id, self.id
            ));
        }
        let (n, add, next) = check_list_page_in(msg, self.era)?;
        self.listed += n;
        self.has_add |= add;
        self.id += 1;
        self.cursor = next.filter(|_| self.id < 100);
        Ok(self.cursor.is_some())
    }

    /// Checks that the pages held `expected` tools, `add_numbers` among them.
    pub fn finish(&self, expected: usize) -> Result<(), String> {
        if self.has_add && self.listed == expected {
            return Ok(());
        }
        Err(format!(
            "tools/list: {} tools (add_numbers {}), expected {expected}",
            self.listed,
            if self.has_add { "present" } else { "missing" },
        ))
    }
}

/// VmRSS and VmHWM of a process, in MiB.
pub fn memory_mib(pid: u32) -> (f64, f64) {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    let field = |name: &str| {
        status
            .lines()
            .find_map(|l| l.strip_prefix(name))
            .and_then(|rest| {
                rest.trim()
                    .trim_end_matches("kB")
                    .trim()
                    .parse::<f64>()
                    .ok()
            })
            .map_or(0.0, |kib| kib / 1024.0)
    };
    (field("VmRSS:"), field("VmHWM:"))
}

/// Where the server binaries built with this driver are: next to its own executable.
pub fn bin_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("BENCH_MCP_BIN_DIR") {
        return dir.into();
    }
    std::env::current_exe()
        .ok()
        .and_then(|p| p.parent().map(Path::to_path_buf))
        .unwrap_or_default()
}

/// Every server, those whose runtime is missing left out (with a note on stderr).
pub fn servers(root: &Path, counts: &[usize], only: &[Kind]) -> Vec<Server> {
    let bins = bin_dir();
    let node = root.join("target/node-env/node_modules/node/bin/node");
    let python = root.join("target/py-venv/bin/python");
    let ts = root.join("benchmarks/mcp/servers/ts-server.mjs");
    let py = root.join("benchmarks/mcp/servers/py_server.py");
    let mut out = Vec::new();
    let s = |v: &[&str]| v.iter().map(|a| (*a).to_owned()).collect::<Vec<_>>();
    let baseline = std::env::var_os("BENCH_MCP_BASELINE_DIR").map(PathBuf::from);
    for kind in Kind::ALL {
        if !only.is_empty() && !only.contains(&kind) {
            continue;
        }
        // Measured only when asked for.
        if kind == Kind::Baseline && baseline.is_none() {
            continue;
        }
        if kind == Kind::Lean && !only.contains(&Kind::Lean) {
            continue;
        }
        for &tools in counts {
            let n = tools.to_string();
            let server = match kind {
                Kind::ToolCore | Kind::Baseline => Server {
                    kind,
                    tools,
                    listed: tools + 1,
                    program: match (kind, &baseline) {
                        (Kind::Baseline, Some(dir)) => dir.join(format!("tc-{tools}")),
                        _ => bins.join(format!("tc-{tools}")),
                    },
                    stdio_args: s(&["serve", "--stdio"]),
                    http_args: Some(s(&["serve", "--http", "{addr}"])),
                },
                Kind::RmcpDefault | Kind::RmcpBest => {
                    let mut stdio_args = Vec::new();
                    if kind == Kind::RmcpBest {
                        stdio_args.push("--best".to_owned());
                    }
                    let mut http_args = stdio_args.clone();
                    http_args.extend(s(&["--http", "{addr}"]));
                    Server {
                        kind,
                        tools,
                        listed: tools,
                        program: bins.join(format!("rmcp-{tools}")),
                        stdio_args,
                        http_args: Some(http_args),
                    }
                }
                Kind::TypeScript => Server {
                    kind,
                    tools,
                    listed: tools,
                    program: node.clone(),
                    stdio_args: vec![ts.display().to_string(), "--tools".into(), n.clone()],
                    http_args: Some(vec![
                        ts.display().to_string(),
                        "--tools".into(),
                        n,
                        "--http".into(),
                        "{port}".into(),
                    ]),
                },
                Kind::Lean if tools != 200 => continue,
                Kind::Lean => Server {
                    kind,
                    tools,
                    listed: tools,
                    program: bins.join("lean-200"),
                    stdio_args: Vec::new(),
                    http_args: None,
                },
                // Its answers do not depend on the tool count, so one is enough.
                Kind::Floor if tools != 1 => continue,
                Kind::Floor => Server {
                    kind,
                    tools,
                    listed: 1,
                    program: bins.join("floor"),
                    stdio_args: Vec::new(),
                    http_args: Some(s(&["--http", "{addr}"])),
                },
                Kind::Python => Server {
                    kind,
                    tools,
                    listed: tools,
                    program: python.clone(),
                    stdio_args: vec![py.display().to_string(), "--tools".into(), n.clone()],
                    http_args: Some(vec![
                        py.display().to_string(),
                        "--tools".into(),
                        n,
                        "--http".into(),
                        "{port}".into(),
                    ]),
                },
            };
            if !server.program.exists() {
                eprintln!(
                    "mcp-load: skipping {}: {} is missing ({})",
                    server.name(),
                    server.program.display(),
                    match kind {
                        Kind::TypeScript => "run scripts/node-env",
                        Kind::Python => "run scripts/python-env",
                        Kind::Lean => "build with `cargo build --release -p bench-lean`",
                        _ => "build with `cargo build --release -p bench-mcp`",
                    }
                );
                continue;
            }
            out.push(server);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answer(text: &str) -> CallMessage {
        serde_json::from_str(text).unwrap()
    }

    #[test]
    fn answers_are_checked() {
        let (a, b) = operands(7);
        let sum = a + b;
        let ok = format!(
            r#"{{"id":7,"result":{{"content":[],"structuredContent":{{"result":{sum}}}}}}}"#
        );
        check_call(&answer(&ok), 7).unwrap();
        let text =
            format!(r#"{{"id":7,"result":{{"content":[{{"type":"text","text":"{sum}"}}]}}}}"#);
        check_call(&answer(&text), 7).unwrap();
        let wrong = format!(
            r#"{{"id":7,"result":{{"structuredContent":{{"result":{}}}}}}}"#,
            sum + 1.0
        );
        assert!(
            check_call(&answer(&wrong), 7)
                .unwrap_err()
                .contains("the server said")
        );
        let error = r#"{"id":7,"error":{"code":-32602,"message":"no"}}"#;
        assert!(check_call(&answer(error), 7).is_err());
        let is_error =
            r#"{"id":7,"result":{"isError":true,"content":[{"type":"text","text":"bad"}]}}"#;
        assert!(
            check_call(&answer(is_error), 7)
                .unwrap_err()
                .contains("bad")
        );
        assert!(check_call(&answer(r#"{"id":7,"result":{"content":[]}}"#), 7).is_err());
    }

    #[test]
    fn listings_follow_pages_and_check_the_total() {
        let page = |id: u64, names: &[&str], next: Option<&str>| -> Message {
            let tools: Vec<Value> = names
                .iter()
                .map(|n| serde_json::json!({"name": n, "inputSchema": {"properties": {"a": {}, "b": {}}}}))
                .collect();
            let mut result = serde_json::json!({ "tools": tools });
            if let Some(next) = next {
                result["nextCursor"] = next.into();
            }
            serde_json::from_value(
                serde_json::json!({"jsonrpc": "2.0", "id": id, "result": result}),
            )
            .unwrap()
        };
        let mut listing = Listing::default();
        assert!(listing.request().contains(r#""id":1"#));
        assert!(
            listing
                .read(&page(1, &["x", "add_numbers"], Some("c2")))
                .unwrap()
        );
        assert!(listing.request().contains(r#""cursor":"c2""#));
        assert!(!listing.read(&page(2, &["y"], None)).unwrap());
        listing.finish(3).unwrap();
        assert!(listing.finish(4).unwrap_err().contains("3 tools"));

        let mut wrong = Listing::default();
        assert!(
            wrong
                .read(&page(7, &[], None))
                .unwrap_err()
                .contains("asked 1")
        );
        let mut without = Listing::default();
        without.read(&page(1, &["x"], None)).unwrap();
        assert!(without.finish(1).unwrap_err().contains("missing"));
    }

    #[test]
    fn requests_are_json_rpc() {
        let mut out = Vec::new();
        call_request(&mut out, 2_000_123).unwrap();
        let v: Value = serde_json::from_slice(&out).unwrap();
        let (a, b) = operands(2_000_123);
        assert_eq!(v["params"]["arguments"]["a"].as_f64(), Some(a));
        assert_eq!(v["params"]["arguments"]["b"].as_f64(), Some(b));
        let init: Value = serde_json::from_str(&initialize_request(0)).unwrap();
        assert_eq!(init["params"]["protocolVersion"], PROTOCOL_VERSION);
    }

    #[test]
    fn stateless_requests_carry_their_meta_and_answers_their_result_type() {
        let meta = |v: &Value| {
            let m = &v["params"]["_meta"];
            assert_eq!(
                m["io.modelcontextprotocol/protocolVersion"],
                STATELESS_VERSION
            );
            assert!(
                m["io.modelcontextprotocol/clientCapabilities"].is_object(),
                "{v}"
            );
            assert_eq!(m["io.modelcontextprotocol/clientInfo"]["name"], "mcp-load");
        };
        let mut out = Vec::new();
        call_request_in(&mut out, Era::Stateless, 5).unwrap();
        let call: Value = serde_json::from_slice(&out).unwrap();
        meta(&call);
        assert_eq!(
            call["params"]["arguments"]["a"].as_f64(),
            Some(operands(5).0)
        );
        let discover: Value = serde_json::from_str(&discover_request(0)).unwrap();
        assert_eq!(discover["method"], "server/discover");
        meta(&discover);
        let first: Value = serde_json::from_str(&list_request_in(Era::Stateless, 1, None)).unwrap();
        meta(&first);
        let next: Value =
            serde_json::from_str(&list_request_in(Era::Stateless, 2, Some("c\"2"))).unwrap();
        meta(&next);
        assert_eq!(next["params"]["cursor"], "c\"2");
        let session: Value = serde_json::from_str(&list_request(2, Some("c2"))).unwrap();
        assert_eq!(session["params"], serde_json::json!({"cursor": "c2"}));

        let (a, b) = operands(7);
        let sum = a + b;
        let complete = format!(
            r#"{{"id":7,"result":{{"resultType":"complete","structuredContent":{{"result":{sum}}}}}}}"#
        );
        check_call_in(&answer(&complete), 7, Era::Stateless).unwrap();
        let bare = format!(r#"{{"id":7,"result":{{"structuredContent":{{"result":{sum}}}}}}}"#);
        check_call_in(&answer(&bare), 7, Era::Session).unwrap();
        assert!(
            check_call_in(&answer(&bare), 7, Era::Stateless)
                .unwrap_err()
                .contains("resultType None")
        );

        let msg = |v: Value| -> Message { serde_json::from_value(v).unwrap() };
        let found = serde_json::json!({"id": 0, "result": {"resultType": "complete",
            "supportedVersions": ["2025-11-25", "2026-07-28"]}});
        check_discover(&msg(found)).unwrap();
        let old = serde_json::json!({"id": 0, "result": {"resultType": "complete",
            "supportedVersions": ["2025-11-25"]}});
        assert!(check_discover(&msg(old)).unwrap_err().contains("lack"));
        let refused = serde_json::json!({"id": 0, "error": {"code": -32601, "message": "no"}});
        assert!(check_discover(&msg(refused)).is_err());

        let page = serde_json::json!({"id": 1, "result": {"tools": [{"name": "add_numbers",
            "inputSchema": {"properties": {"a": {}, "b": {}}}}]}});
        let mut listing = Listing::new(Era::Stateless);
        assert!(
            listing
                .request()
                .contains("io.modelcontextprotocol/protocolVersion")
        );
        assert!(
            listing
                .read(&msg(page.clone()))
                .unwrap_err()
                .contains("resultType")
        );
        let mut page = page;
        page["result"]["resultType"] = "complete".into();
        assert!(!listing.read(&msg(page)).unwrap());
        listing.finish(1).unwrap();
    }

    #[test]
    fn eras_are_named_and_some_servers_left_out() {
        assert_eq!(
            Era::parse_list("session,2026-07-28").unwrap(),
            Era::ALL.to_vec()
        );
        assert_eq!(Era::parse_list("2025-06-18").unwrap(), vec![Era::Session]);
        assert!(Era::parse_list("2025-11-25").is_err());
        for kind in Kind::ALL {
            assert!(kind.not_in(Era::Session).is_none());
        }
        let left: Vec<Kind> = Kind::ALL
            .into_iter()
            .filter(|k| k.not_in(Era::Stateless).is_some())
            .collect();
        assert_eq!(left, [Kind::TypeScript]);
    }

    #[test]
    fn percentiles() {
        let p = Phase::from_latencies((1..=100).map(|i| i * 1000).collect(), 1.0);
        assert_eq!((p.calls, p.p50_us, p.p99_us), (100, 50.0, 99.0));
    }
}
