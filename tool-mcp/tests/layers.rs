//! An executor's layers and a registry's transforms, served over MCP in both eras: a client
//! lists the renamed tool without its hidden argument, and its calls come back rewritten,
//! redacted or refused by the layers, on this crate's stdio transport and on the SDK's.

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt as _, AsyncWriteExt as _, BufReader};
use tool_core::exec::{Executor, layer_fn};
use tool_core::registry::transform::Transforms;
use tool_core::{Registry, ToolError, ToolOutput, registry::DynamicTool};
use tool_mcp::{McpServer, ServerOptions, serve_io};

const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;
const INITIALIZED: &str = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;

fn server(sdk_transport: bool) -> McpServer {
    let mut registry = Registry::empty();
    let schema = json!({
        "type": "object",
        "properties": {"to": {"type": "string"}, "from": {"type": "string"}, "body": {"type": "string"}},
        "required": ["to", "from"],
    });
    registry
        .register(
            DynamicTool::new("send_email", "Sends an email.", schema)
                .handler(|input, _| async move { Ok(ToolOutput::new(input)) }),
        )
        .unwrap();
    let registry = Transforms::new()
        .rename("send_email", "send_mail")
        .hide("send_mail", "from", json!("ops@example.com"))
        .apply(registry)
        .unwrap();
    let bcc = layer_fn(async |mut call, next| {
        call.input_mut()["body"] = json!("[signed]");
        next.run(call).await
    });
    let redact = layer_fn(async |call, next| {
        let mut out = next.run(call).await?;
        if let Some(data) = out.data_mut() {
            data["to"] = json!("[redacted]");
        }
        Ok(out)
    });
    let no_boss = layer_fn(async |call, next| {
        if call.input()["to"] == "boss@example.com" {
            return Err(ToolError::refused("the boss is not to be mailed"));
        }
        next.run(call).await
    });
    let executor = Executor::builder(registry)
        .layer(no_boss)
        .layer(bcc)
        .layer(redact)
        .build();
    let mut options = ServerOptions::named("layers", "1.0.0");
    options.sdk_transport = sdk_transport;
    McpServer::with_options(executor, options)
}

/// The `_meta` of a 2026-07-28 request.
fn modern() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
    })
}

fn requests(modern_era: bool) -> Vec<Value> {
    let meta = |params: Value| match modern_era {
        true => {
            let mut params = params;
            params["_meta"] = modern();
            params
        }
        false => params,
    };
    vec![
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": meta(json!({}))}),
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": meta(json!({
            "name": "send_mail", "arguments": {"to": "ada@example.com", "from": "eve@example.com"},
        }))}),
        json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": meta(json!({
            "name": "send_mail", "arguments": {"to": "boss@example.com"},
        }))}),
        json!({"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": meta(json!({
            "name": "send_email", "arguments": {"to": "ada@example.com"},
        }))}),
    ]
}

/// The answers to `requests`, by id, in a session begun with `initialize` or (2026-07-28)
/// without one.
async fn exchange(sdk_transport: bool, modern_era: bool) -> Vec<Value> {
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
    let mut expected = 0;
    if !modern_era {
        write
            .write_all(format!("{INITIALIZE}\n{INITIALIZED}\n").as_bytes())
            .await
            .unwrap();
        expected += 1;
    }
    let sent = requests(modern_era);
    expected += sent.len();
    for request in &sent {
        write
            .write_all(format!("{request}\n").as_bytes())
            .await
            .unwrap();
    }
    let mut answers = Vec::new();
    while answers.len() < expected {
        let mut line = String::new();
        assert!(read.read_line(&mut line).await.unwrap() > 0, "input ended");
        let message: Value = serde_json::from_str(&line).unwrap();
        if message.get("id").is_some() {
            answers.push(message);
        }
    }
    write.shutdown().await.unwrap();
    serving.await.unwrap().unwrap();
    answers.retain(|a| a["id"] != "init");
    answers.sort_by_key(|a| a["id"].as_i64());
    answers
}

fn check(answers: &[Value], what: &str) {
    let listed = &answers[0]["result"]["tools"];
    assert_eq!(listed.as_array().unwrap().len(), 1, "{what}");
    assert_eq!(listed[0]["name"], "send_mail", "{what}");
    assert_eq!(
        listed[0]["inputSchema"]["required"],
        json!(["to"]),
        "{what}"
    );
    assert!(
        listed[0]["inputSchema"]["properties"].get("from").is_none(),
        "{what}"
    );

    let sent = &answers[1]["result"];
    assert_eq!(sent["isError"], false, "{what}: {sent}");
    let data = &sent["structuredContent"];
    assert_eq!(
        data["from"], "ops@example.com",
        "{what}: the hidden value wins"
    );
    assert_eq!(data["body"], "[signed]", "{what}: rewritten by a layer");
    assert_eq!(data["to"], "[redacted]", "{what}: redacted by a layer");

    let refused = &answers[2]["result"];
    assert_eq!(refused["isError"], true, "{what}: {refused}");
    let text = refused["content"][0]["text"].as_str().unwrap();
    assert!(
        text.contains("the boss is not to be mailed"),
        "{what}: {text}"
    );

    // The old name is gone: an unknown tool, as a protocol error (2025-11-25) or a result.
    let old = &answers[3];
    let error = old["error"]["message"]
        .as_str()
        .or_else(|| old["result"]["content"][0]["text"].as_str())
        .unwrap_or_default();
    assert!(error.contains("send_email"), "{what}: {old}");
}

#[tokio::test]
async fn layers_and_transforms_over_stdio_in_the_session_era() {
    for sdk in [false, true] {
        check(&exchange(sdk, false).await, &format!("session, sdk {sdk}"));
    }
}

#[tokio::test]
async fn layers_and_transforms_over_stdio_in_2026_07_28() {
    for sdk in [false, true] {
        check(
            &exchange(sdk, true).await,
            &format!("2026-07-28, sdk {sdk}"),
        );
    }
}
