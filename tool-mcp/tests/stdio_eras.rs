//! The stdio transport in both eras, over generated requests: `tools/call` and `tools/list`
//! whose `_meta` names a protocol version (2026-07-28, older ones, one the server does not
//! speak, a malformed one, none), the client's capabilities (or not), a log level and a
//! progress token, in a session begun with `initialize` or in one begun by a first 2026-07-28
//! request.
//!
//! What the specification says each answer must be is worked out from the request alone
//! ([`expect`]) and checked; the SDK's own transport (`ServerOptions::sdk_transport`) gets the
//! same lines, and everything the two write must be the same, notifications included.

use std::collections::BTreeMap;

use proptest::prelude::*;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt as _, AsyncWriteExt as _, BufReader};
use tool_core::exec::Executor;
use tool_core::{Registry, ToolOutput, context::LogLevel, registry::DynamicTool};
use tool_mcp::{McpServer, ServerOptions, serve_io};

const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;
const INITIALIZED: &str = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;

/// Levels as MCP orders them, lowest first.
const LEVELS: [&str; 8] = [
    "debug",
    "info",
    "notice",
    "warning",
    "error",
    "critical",
    "alert",
    "emergency",
];

fn server(sdk_transport: bool) -> McpServer {
    let mut registry = Registry::empty();
    let tool = DynamicTool::new("log_things", "Logs and counts.", json!({"type": "object"}))
        .handler(|input, ctx| async move {
            ctx.log(LogLevel::Debug, "a detail");
            ctx.log(LogLevel::Error, "a failure");
            ctx.progress(1, Some(1), "done");
            Ok(ToolOutput::new(json!({"n": input["n"]})))
        });
    registry.register(tool).unwrap();
    let mut options = ServerOptions::named("eras", "1.2.3");
    options.sdk_transport = sdk_transport;
    McpServer::with_options(Executor::new(registry), options)
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Version {
    Modern,
    Older(&'static str),
    Unknown,
    Malformed,
    Absent,
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Capabilities {
    Declared,
    Malformed,
    Absent,
}

#[derive(Debug, Clone)]
struct Request {
    call: bool,
    version: Version,
    capabilities: Capabilities,
    level: Option<&'static str>,
    progress: bool,
}

/// What a request must be answered with.
#[derive(Debug, PartialEq)]
enum Expect {
    Error(i64),
    /// A result; `modern` for protocol 2026-07-28; the log levels it gets notifications of.
    Result {
        modern: bool,
        logs: Vec<&'static str>,
    },
}

fn version() -> impl Strategy<Value = Version> {
    prop_oneof![
        6 => Just(Version::Modern),
        1 => Just(Version::Older("2025-11-25")),
        1 => Just(Version::Older("2025-06-18")),
        1 => Just(Version::Unknown),
        1 => Just(Version::Malformed),
        1 => Just(Version::Absent),
    ]
}

fn request() -> impl Strategy<Value = Request> {
    let capabilities = prop_oneof![
        6 => Just(Capabilities::Declared),
        1 => Just(Capabilities::Malformed),
        1 => Just(Capabilities::Absent),
    ];
    let level = prop_oneof![
        3 => Just(None),
        1 => Just(Some("debug")),
        1 => Just(Some("warning")),
        1 => Just(Some("emergency")),
        1 => Just(Some("loud")),
    ];
    (any::<bool>(), version(), capabilities, level, any::<bool>()).prop_map(
        |(call, version, capabilities, level, progress)| Request {
            call,
            version,
            capabilities,
            level,
            progress,
        },
    )
}

impl Request {
    fn text(&self, id: i64) -> String {
        let mut meta = serde_json::Map::new();
        let key = |k: &str| format!("io.modelcontextprotocol/{k}");
        match self.version {
            Version::Modern => drop(meta.insert(key("protocolVersion"), json!("2026-07-28"))),
            Version::Older(v) => drop(meta.insert(key("protocolVersion"), json!(v))),
            Version::Unknown => drop(meta.insert(key("protocolVersion"), json!("2027-01-01"))),
            Version::Malformed => drop(meta.insert(key("protocolVersion"), json!(20260728))),
            Version::Absent => {}
        }
        match self.capabilities {
            Capabilities::Declared => drop(meta.insert(key("clientCapabilities"), json!({}))),
            Capabilities::Malformed => drop(meta.insert(key("clientCapabilities"), json!("all"))),
            Capabilities::Absent => {}
        }
        if let Some(level) = self.level {
            meta.insert(key("logLevel"), json!(level));
        }
        if self.progress {
            meta.insert("progressToken".into(), json!(format!("p{id}")));
        }
        let params = if self.call {
            json!({"name": "log_things", "arguments": {"n": id}, "_meta": meta})
        } else {
            json!({"_meta": meta})
        };
        let method = if self.call {
            "tools/call"
        } else {
            "tools/list"
        };
        json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}).to_string()
    }

    /// The answer the specification (and the SDK's checks) call for, in a session begun with
    /// `initialize` (`initialized`) or not, after the session has begun.
    fn expect(&self, initialized: bool) -> Expect {
        if self.version == Version::Unknown {
            return Expect::Error(-32022);
        }
        let modern = self.version == Version::Modern;
        // Every request of a session without `initialize` says who is asking, and so does
        // every 2026-07-28 request.
        let complete = matches!(self.version, Version::Modern | Version::Older(_))
            && self.capabilities == Capabilities::Declared;
        if (modern || !initialized) && !complete {
            return Expect::Error(-32602);
        }
        let level = self.level.and_then(|l| LEVELS.iter().position(|&k| k == l));
        let from = match (modern, level) {
            (true, None) => None,
            (_, Some(level)) => Some(level),
            // The session's level: debug, as no `logging/setLevel` was sent.
            (false, None) => Some(0),
        };
        let logs = match (self.call, from) {
            (true, Some(from)) => ["debug", "error"]
                .into_iter()
                .filter(|l| LEVELS.iter().position(|k| k == l).unwrap() >= from)
                .collect(),
            _ => Vec::new(),
        };
        Expect::Result { modern, logs }
    }
}

/// Everything the server writes for the lines after its opening. The SDK's own transport
/// drops the calls in flight at the end of input (see `tests/stdio_jsonrpc.rs`), so it is
/// given `requests` answers before its input ends; this crate's transport is given none.
async fn answers(opening: &str, input: &str, sdk_transport: bool, requests: usize) -> Vec<Value> {
    let (client, served) = tokio::io::duplex(1 << 16);
    let (read, write) = tokio::io::split(served);
    let serving = tokio::spawn(serve_io(
        server(sdk_transport),
        read,
        write,
        Default::default(),
    ));
    let (read, mut write) = tokio::io::split(client);
    let mut read = BufReader::new(read);
    write.write_all(opening.as_bytes()).await.unwrap();
    // The opening's answer first: the session has begun before the lines are read.
    let mut first = String::new();
    read.read_line(&mut first).await.unwrap();
    assert!(
        first.contains(r#""id":"open""#) || first.contains(r#""id":"init""#),
        "{first}"
    );
    write.write_all(input.as_bytes()).await.unwrap();
    let mut write = Some(write);
    let mut out: Vec<Value> = Vec::new();
    loop {
        let answered = out.iter().filter(|a| a.get("id").is_some()).count();
        if (!sdk_transport || answered == requests)
            && let Some(mut write) = write.take()
        {
            write.shutdown().await.unwrap();
        }
        let mut line = String::new();
        let n = tokio::time::timeout(
            std::time::Duration::from_secs(20),
            read.read_line(&mut line),
        )
        .await
        .expect("the server ends after the end of input")
        .unwrap();
        if n == 0 {
            break;
        }
        out.push(serde_json::from_str(&line).unwrap_or_else(|e| panic!("{e}: {line:?}")));
    }
    let _ = serving.await;
    out
}

fn opening(initialized: bool) -> String {
    if initialized {
        format!("{INITIALIZE}\n{INITIALIZED}\n")
    } else {
        let meta = json!({
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {}});
        let open = json!({"jsonrpc": "2.0", "id": "open", "method": "tools/list",
                          "params": {"_meta": meta}});
        format!("{open}\n")
    }
}

fn check(requests: &[Request], initialized: bool) {
    let mut input = String::new();
    for (n, request) in requests.iter().enumerate() {
        input.push_str(&request.text(n as i64 + 1));
        input.push('\n');
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let opening = opening(initialized);
    let (ours, sdk) = runtime.block_on(async {
        tokio::join!(
            answers(&opening, &input, false, requests.len()),
            answers(&opening, &input, true, requests.len())
        )
    });
    // Everything the same, in any order (calls run side by side).
    let sorted = |answers: &[Value]| {
        let mut lines: Vec<String> = answers.iter().map(Value::to_string).collect();
        lines.sort();
        lines
    };
    assert_eq!(sorted(&ours), sorted(&sdk), "{input}");

    let by_id: BTreeMap<i64, &Value> = ours
        .iter()
        .filter_map(|a| Some((a["id"].as_i64()?, a)))
        .collect();
    let messages: Vec<&str> = ours
        .iter()
        .filter(|a| a["method"] == "notifications/message")
        .filter_map(|a| a["params"]["level"].as_str())
        .collect();
    let mut expected_messages = Vec::new();
    for (n, request) in requests.iter().enumerate() {
        let id = n as i64 + 1;
        let answer = by_id
            .get(&id)
            .unwrap_or_else(|| panic!("no answer to {id}: {ours:?}"));
        let expect = request.expect(initialized);
        let text = request.text(id);
        match &expect {
            Expect::Error(code) => {
                assert_eq!(answer["error"]["code"], *code, "{text}\n{answer}");
                if *code == -32022 {
                    let supported = &answer["error"]["data"]["supported"];
                    assert!(
                        supported
                            .as_array()
                            .is_some_and(|s| s.contains(&json!("2026-07-28")))
                    );
                }
            }
            Expect::Result {
                modern,
                logs: wanted,
            } => {
                let result = &answer["result"];
                assert!(result.is_object(), "{text}\n{answer}");
                let info = &result["_meta"]["io.modelcontextprotocol/serverInfo"];
                if *modern {
                    assert_eq!(result["resultType"], "complete", "{text}\n{answer}");
                    assert_eq!(
                        info,
                        &json!({"name": "eras", "version": "1.2.3"}),
                        "{answer}"
                    );
                } else {
                    assert!(result.get("resultType").is_none(), "{text}\n{answer}");
                    assert!(info.is_null(), "{text}\n{answer}");
                }
                if request.call {
                    assert_eq!(result["structuredContent"], json!({"n": id}), "{answer}");
                } else {
                    assert_eq!(result["tools"][0]["name"], "log_things", "{answer}");
                    if *modern {
                        assert_eq!(result["cacheScope"], "public", "{answer}");
                        assert_eq!(result["ttlMs"], 60_000, "{answer}");
                    }
                }
                expected_messages.extend(wanted.iter().copied());
                let progress = ours.iter().any(|a| {
                    a["method"] == "notifications/progress"
                        && a["params"]["progressToken"] == format!("p{id}")
                });
                assert_eq!(
                    progress,
                    request.call && request.progress,
                    "{text}\n{ours:?}"
                );
            }
        }
    }
    let mut got = messages.clone();
    got.sort_unstable();
    expected_messages.sort_unstable();
    assert_eq!(got, expected_messages, "{input}\n{ours:?}");
    let results = ours.iter().filter(|a| a.get("id").is_some()).count();
    assert_eq!(results, requests.len(), "one answer each: {ours:?}");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(40))]

    #[test]
    fn each_request_is_answered_by_its_era(
        requests in proptest::collection::vec(request(), 1..10),
        initialized in any::<bool>(),
    ) {
        check(&requests, initialized);
    }
}

/// One request of each kind the issue reported, in both kinds of session.
#[test]
fn the_reported_cases_are_answered_by_their_era() {
    let modern = |call, level, progress| Request {
        call,
        version: Version::Modern,
        capabilities: Capabilities::Declared,
        level,
        progress,
    };
    let requests = [
        modern(true, None, true),
        modern(true, Some("warning"), false),
        modern(false, None, false),
        Request {
            version: Version::Unknown,
            ..modern(true, None, false)
        },
        Request {
            capabilities: Capabilities::Absent,
            ..modern(true, None, false)
        },
    ];
    check(&requests, true);
    check(&requests, false);
}
