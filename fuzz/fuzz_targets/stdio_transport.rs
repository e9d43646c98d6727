//! Raw bytes on the stdin of an MCP server (after a handshake), through the stdio transport
//! `toolctl serve --stdio` runs: no panic (in any task: libfuzzer's hook aborts on one), every
//! line written is one JSON-RPC message, every valid request is answered exactly once, and the
//! output stays within a bound of the input.
#![no_main]

use std::collections::HashMap;
use std::fmt;

use libfuzzer_sys::fuzz_target;
use serde::de::{Deserializer as _, IgnoredAny, MapAccess, Visitor};
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use tool_core::exec::Executor;
use tool_mcp::{McpServer, serve_io};
use tool_core::{registry::DynamicTool, Registry, ToolOutput};

const HANDSHAKE: &str = concat!(
    r#"{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"f","version":"1"}}}"#,
    "\n",
    r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
    "\n"
);

fn server() -> McpServer {
    let mut registry = Registry::empty();
    let add = DynamicTool::new("add_numbers", "Adds a and b.", json!({"type": "object"}))
        .handler(|input, _| async move {
            let sum = input["a"].as_f64().unwrap_or(0.0) + input["b"].as_f64().unwrap_or(0.0);
            Ok(ToolOutput::text(sum.to_string()))
        });
    registry.register(add).expect("one tool");
    McpServer::new(Executor::new(registry))
}

/// Whether a JSON object names a member twice (at its top level).
fn has_duplicates(line: &[u8]) -> bool {
    struct Keys;
    impl<'de> Visitor<'de> for Keys {
        type Value = bool;
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("an object")
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<bool, A::Error> {
            let mut seen = std::collections::HashSet::new();
            let mut twice = false;
            while let Some(key) = map.next_key::<String>()? {
                twice |= !seen.insert(key);
                map.next_value::<IgnoredAny>()?;
            }
            Ok(twice)
        }
    }
    let mut json = serde_json::Deserializer::from_slice(line);
    json.deserialize_map(Keys).unwrap_or(true)
}

/// The id of a line that is plainly a valid request: an object with `"jsonrpc": "2.0"`, a
/// string `method`, a string or `i64` `id`, object or null (or no) params, no `result` or
/// `error`, no member twice. (Independent of the transport's own reader, and narrower.)
fn valid_request(line: &[u8]) -> Option<Value> {
    let Ok(Value::Object(message)) = serde_json::from_slice::<Value>(line) else {
        return None;
    };
    // A subscription stays open until the connection ends: it is never answered.
    let plain = message.get("jsonrpc") == Some(&json!("2.0"))
        && message
            .get("method")
            .and_then(Value::as_str)
            .is_some_and(|m| m != "subscriptions/listen")
        && !message.contains_key("result")
        && !message.contains_key("error")
        && message
            .get("params")
            .is_none_or(|p| p.is_object() || p.is_null());
    let id = message.get("id")?;
    (plain && (id.is_string() || id.is_i64()) && !has_duplicates(line)).then(|| id.clone())
}

/// Any `id` member's value, numbers as the SDK reads them (`1.0` is `1`), for collisions.
fn any_id(line: &[u8]) -> Option<String> {
    let Ok(Value::Object(message)) = serde_json::from_slice::<Value>(line) else {
        return None;
    };
    match message.get("id")? {
        Value::Number(n) => n.as_f64().map(|f| format!("{f}")),
        other => Some(other.to_string()),
    }
}

fuzz_target!(|data: &[u8]| {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    let output = runtime.block_on(async {
        let (client, served) = tokio::io::duplex(1 << 16);
        let (read, write) = tokio::io::split(served);
        let serving = tokio::spawn(serve_io(server(), read, write, Default::default()));
        let (mut client_read, mut client_write) = tokio::io::split(client);
        let input = [HANDSHAKE.as_bytes(), data].concat();
        let writing = tokio::spawn(async move {
            let _ = client_write.write_all(&input).await;
            let _ = client_write.shutdown().await;
        });
        let mut output = Vec::new();
        client_read
            .read_to_end(&mut output)
            .await
            .expect("the output is read to its end");
        let _ = writing.await;
        let ended = serving.await.expect("the server's task ends");
        assert!(ended.is_ok(), "the server ended with an error: {ended:?}");
        output
    });

    let lines: Vec<&[u8]> = data.split(|&b| b == b'\n').collect();
    // Bounded: no answer is larger than a listing of one tool or an error naming 40 bytes of
    // a member, and no line gets more than one.
    assert!(
        output.len() <= 1024 * (lines.len() + 2),
        "{} bytes out for {} lines in",
        output.len(),
        lines.len()
    );

    let mut answers: HashMap<String, usize> = HashMap::new();
    for line in output.split(|&b| b == b'\n').filter(|l| !l.is_empty()) {
        let message: Value = serde_json::from_slice(line).expect("every line written is JSON");
        assert_eq!(message["jsonrpc"], "2.0", "{message}");
        let object = message.as_object().expect("an object");
        let is_answer = object.contains_key("result") ^ object.contains_key("error");
        assert!(is_answer || object.contains_key("method"), "{message}");
        if is_answer {
            let id = object.get("id").expect("an answer carries `id`, null if need be");
            *answers.entry(id.to_string()).or_default() += 1;
        }
    }

    // Every valid request whose id no other line shares, and that no cancellation may have
    // stopped, is answered exactly once.
    let cancelling = data.windows(9).any(|w| w == b"cancelled");
    let mut ids: HashMap<String, usize> = HashMap::new();
    for line in &lines {
        if let Some(id) = any_id(line) {
            *ids.entry(id).or_default() += 1;
        }
    }
    if !cancelling {
        for line in &lines {
            let Some(id) = valid_request(line) else { continue };
            if any_id(line).is_some_and(|key| ids[&key] > 1) || id == json!("init") {
                continue;
            }
            assert_eq!(
                answers.get(&id.to_string()).copied().unwrap_or(0),
                1,
                "the request {} got no single answer",
                String::from_utf8_lossy(line)
            );
        }
    }
});
