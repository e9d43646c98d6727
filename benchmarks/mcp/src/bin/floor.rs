//! The floor: an MCP server with no SDK. Over stdio, one blocking loop on the main thread that
//! reads a line, answers it and reads the next; with `--http ADDR`, a hand-written HTTP server
//! (axum's `serve` on hyper, one route, a runtime thread per core) that answers each POST with
//! the same JSON, as one body, and notifications with 202. It serves `add_numbers` only and knows just the
//! messages the driver sends (`initialize`, or 2026-07-28's `server/discover`, `tools/list`,
//! `tools/call`, notifications), so a
//! server that does more should not be faster, beyond a run's noise. Run in the same rounds as
//! the others, it shows what the machine allows that day: a sequential call here is little more
//! than two pipe wake-ups. A request that names protocol 2026-07-28 in its `_meta` gets the
//! fields that era adds (`resultType`, `serverInfo` in `_meta`, cache hints), as tool-core
//! writes them: the floor's own 2026/session ratio is what the era's heavier messages cost.

use std::io::{BufRead, BufReader, BufWriter, Write};
use std::process::ExitCode;

use serde::Deserialize;
use serde_json::Value;

#[derive(Deserialize)]
struct Request {
    #[serde(default)]
    id: Option<Value>,
    method: String,
    #[serde(default)]
    params: Option<Params>,
}

#[derive(Deserialize)]
struct Params {
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    arguments: Option<Arguments>,
    #[serde(default, rename = "protocolVersion")]
    protocol_version: Option<String>,
    #[serde(default, rename = "_meta")]
    meta: Option<Meta>,
}

#[derive(Deserialize)]
struct Meta {
    #[serde(default, rename = "io.modelcontextprotocol/protocolVersion")]
    protocol_version: Option<String>,
}

/// What a 2026-07-28 result adds to a session's, after its `resultType`.
const MODERN: &str = r#""resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"floor","version":"0.1.0"}},"#;

#[derive(Deserialize)]
struct Arguments {
    a: f64,
    b: f64,
}

const TOOLS: &str = r#"{"tools":[{"name":"add_numbers","description":"Adds two numbers and returns their sum.","inputSchema":{"type":"object","properties":{"a":{"type":"number","description":"First number"},"b":{"type":"number","description":"Second number"}},"required":["a","b"]},"outputSchema":{"type":"object","properties":{"result":{"type":"number"}},"required":["result"]}}]}"#;

/// Writes the answer to `req`, a line; nothing for a notification.
fn answer(req: &Request, out: &mut impl Write) -> std::io::Result<()> {
    let Some(id) = &req.id else {
        return Ok(());
    };
    write!(out, r#"{{"jsonrpc":"2.0","id":{id},"#)?;
    let params = req.params.as_ref();
    let modern = params
        .and_then(|p| p.meta.as_ref())
        .and_then(|m| m.protocol_version.as_deref())
        == Some("2026-07-28");
    let extra = if modern { MODERN } else { "" };
    match req.method.as_str() {
        "server/discover" => write!(
            out,
            r#""result":{{{extra}"supportedVersions":["2025-06-18","2026-07-28"],"capabilities":{{"tools":{{}}}},"ttlMs":0,"cacheScope":"private"}}}}"#
        )?,
        "initialize" => {
            let version = params
                .and_then(|p| p.protocol_version.as_deref())
                .unwrap_or("2025-06-18");
            write!(
                out,
                r#""result":{{"protocolVersion":{},"capabilities":{{"tools":{{}}}},"serverInfo":{{"name":"floor","version":"0.1.0"}}}}}}"#,
                Value::from(version)
            )?;
        }
        "tools/list" if modern => write!(
            out,
            r#""result":{{{extra}"ttlMs":60000,"cacheScope":"public",{}}}"#,
            &TOOLS[1..]
        )?,
        "tools/list" => write!(out, r#""result":{TOOLS}}}"#)?,
        "tools/call" => match params.map(|p| (p.name.as_deref(), p.arguments.as_ref())) {
            Some((Some("add_numbers"), Some(Arguments { a, b }))) => {
                let sum = Value::from(a + b);
                write!(
                    out,
                    r#""result":{{{extra}"content":[{{"type":"text","text":"{sum}"}}],"structuredContent":{{"result":{sum}}},"isError":false}}}}"#
                )?;
            }
            _ => write!(
                out,
                r#""error":{{"code":-32602,"message":"add_numbers takes numbers a and b"}}}}"#
            )?,
        },
        "ping" => write!(out, r#""result":{{}}}}"#)?,
        _ => write!(
            out,
            r#""error":{{"code":-32601,"message":"method not found"}}}}"#
        )?,
    }
    out.write_all(b"\n")
}

fn serve() -> std::io::Result<()> {
    // Reads of 64 KiB go past stdin's own smaller buffer, so this one sees every byte read.
    let mut input = BufReader::with_capacity(1 << 16, std::io::stdin().lock());
    let mut out = BufWriter::with_capacity(1 << 16, std::io::stdout().lock());
    let mut line = Vec::with_capacity(4096);
    loop {
        line.clear();
        if input.read_until(b'\n', &mut line)? == 0 {
            return out.flush();
        }
        let text = line.trim_ascii();
        if text.is_empty() {
            continue;
        }
        match serde_json::from_slice::<Request>(text) {
            Ok(req) => answer(&req, &mut out)?,
            Err(e) => {
                let message = Value::from(format!("parse error: {e}"));
                writeln!(
                    out,
                    r#"{{"jsonrpc":"2.0","id":null,"error":{{"code":-32700,"message":{message}}}}}"#
                )?;
            }
        }
        // Answers wait in the buffer while more requests are already read (calls in flight).
        if input.buffer().is_empty() {
            out.flush()?;
        }
    }
}

/// One POST: its answer as one JSON body, or 202 for a notification. `initialize` gets a
/// session id, which is never checked.
async fn post(body: axum::body::Bytes) -> axum::response::Response {
    use axum::http::{HeaderValue, StatusCode, header};
    use axum::response::IntoResponse as _;
    let req = match serde_json::from_slice::<Request>(&body) {
        Ok(req) => req,
        Err(e) => return (StatusCode::BAD_REQUEST, format!("parse error: {e}")).into_response(),
    };
    if req.id.is_none() {
        return StatusCode::ACCEPTED.into_response();
    }
    let mut out = Vec::with_capacity(512);
    if let Err(e) = answer(&req, &mut out) {
        return (StatusCode::INTERNAL_SERVER_ERROR, e.to_string()).into_response();
    }
    let mut response = axum::response::Response::new(axum::body::Body::from(out));
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    if req.method == "initialize" {
        headers.insert("mcp-session-id", HeaderValue::from_static("floor"));
    }
    response
}

fn serve_http(addr: &str) -> std::io::Result<()> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    runtime.block_on(async {
        use axum::serve::ListenerExt as _;
        let listener = tokio::net::TcpListener::bind(addr).await?;
        let listener = listener.tap_io(|tcp| {
            let _ = tcp.set_nodelay(true);
        });
        let app = axum::Router::new().route("/mcp", axum::routing::post(post));
        axum::serve(listener, app).await
    })
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let served = match args.as_slice() {
        [] => serve(),
        [flag, addr] if flag == "--http" => serve_http(addr),
        _ => {
            eprintln!("usage: floor [--http ADDR]");
            return ExitCode::from(2);
        }
    };
    match served {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("floor: {e}");
            ExitCode::FAILURE
        }
    }
}
