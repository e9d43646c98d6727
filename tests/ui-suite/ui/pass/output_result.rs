// `Result` outputs: the error type converts into `ToolError` (`ToolError`, `std::io::Error`,
// the `std::io::Result<T>` alias, `String`, a custom error with `From`).
use serde_json::json;
use tool_core::prelude::*;

tool_core::domain!(pub demo, "Demo tools");

/// Returns the number if it is even.
#[tool(domain = demo, label = "Checking", hint = "Even numbers only")]
fn check_even(n: u32) -> Result<u32, ToolError> {
    if n % 2 == 0 { Ok(n) } else { Err(ToolError::invalid_input("odd").with_path("n")) }
}

/// Reads a missing file, with `std::io::Error`.
#[tool(domain = demo, label = "Reading", hint = "Reads a file")]
fn read_missing(found: bool) -> Result<String, std::io::Error> {
    if found {
        Ok("content".into())
    } else {
        Err(std::io::Error::new(std::io::ErrorKind::NotFound, "no such file"))
    }
}

/// Reads a missing file, with the `std::io::Result` alias, asynchronously.
#[tool(domain = demo, label = "Reading", hint = "Reads a file")]
async fn read_denied(allowed: bool) -> std::io::Result<Vec<u8>> {
    if allowed {
        Ok(vec![1])
    } else {
        Err(std::io::Error::new(std::io::ErrorKind::PermissionDenied, "denied"))
    }
}

/// Fails with a message.
#[tool(domain = demo, label = "Failing", hint = "Fails")]
fn fail_with_text() -> Result<(), String> {
    Err("it broke".to_owned())
}

#[derive(Debug)]
enum AppError {
    Busy,
}

impl From<AppError> for ToolError {
    fn from(e: AppError) -> Self {
        match e {
            AppError::Busy => ToolError::unavailable("busy, try later"),
        }
    }
}

/// Fails with the application's error type.
#[tool(domain = demo, label = "Failing", hint = "Fails")]
fn fail_busy() -> Result<u8, AppError> {
    Err(AppError::Busy)
}

fn main() {
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let registry = Registry::linked().unwrap();
    let executor = tool_core::Executor::new(registry);
    let ctx = ToolContext::new();
    let call = |name, input| rt.block_on(executor.call(name, input, &ctx));

    assert_eq!(call("check_even", json!({"n": 4})).unwrap().echo(), "4");
    let err = call("check_even", json!({"n": 3})).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidInput);
    assert_eq!(err.to_string(), "n: odd");

    assert_eq!(call("read_missing", json!({"found": true})).unwrap().echo(), "content");
    let err = call("read_missing", json!({"found": false})).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::NotFound);
    assert_eq!(err.message(), "no such file");

    assert_eq!(call("read_denied", json!({"allowed": true})).unwrap().echo(), "[1]");
    let err = call("read_denied", json!({"allowed": false})).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::PermissionDenied);

    let err = call("fail_with_text", json!({})).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Failed);
    assert_eq!(err.message(), "it broke");

    let err = call("fail_busy", json!({})).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Unavailable);
    assert!(err.is_transient());
}
