//! Sending a request, reading its body within the limits, and mapping every failure to a
//! [`ToolError`] with a short message.

use std::fmt;
use std::time::Duration;

use reqwest::header;
use reqwest::{Method, StatusCode};

use super::response::{HttpResponse, is_text_content_type, media_type};
use super::ssrf::{GuardError, LookupFailed, MAX_REDIRECTS, Refused};
use super::text::excerpt;
use tool_core::error::{ErrorKind, ToolError};

/// How much of a body to read, and how.
#[derive(Debug, Clone, Copy)]
pub(super) struct ReadOptions {
    pub(super) max_bytes: usize,
    pub(super) truncate: bool,
    pub(super) text_only: bool,
}

/// What a request went to, for messages: a service by name, or a host of the web.
#[derive(Debug, Clone)]
pub(super) enum Target {
    Service {
        name: String,
        method: Method,
        path: String,
    },
    Web {
        host: String,
    },
}

impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Service { name, .. } => write!(f, "service `{name}`"),
            Self::Web { host } => f.write_str(host),
        }
    }
}

impl Target {
    fn request(&self) -> String {
        match self {
            Self::Service { method, path, .. } => format!(" ({method} {path})"),
            Self::Web { .. } => String::new(),
        }
    }
}

pub(super) async fn execute(
    request: reqwest::RequestBuilder,
    target: Target,
    read: ReadOptions,
    timeout: Duration,
) -> Result<HttpResponse, ToolError> {
    let mut response = request
        .send()
        .await
        .map_err(|e| request_error(e, &target, timeout))?;
    let status = response.status();
    if !status.is_success() {
        let retry_after = response
            .headers()
            .get(header::RETRY_AFTER)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.trim().parse::<u64>().ok());
        let body = match (&target, response.headers().get(header::CONTENT_TYPE)) {
            (Target::Service { .. }, Some(ct)) if ct.to_str().is_ok_and(is_text_content_type) => {
                first_bytes(&mut response, 1024).await
            }
            _ => Vec::new(),
        };
        return Err(status_error(status, &target, retry_after, &body));
    }
    if read.text_only
        && let Some(ct) = response.headers().get(header::CONTENT_TYPE)
    {
        let ct = ct.to_str().unwrap_or("binary");
        if !is_text_content_type(ct) {
            return Err(ToolError::failed(format!(
                "{target} sent {}, not text; only text content can be read",
                media_type(ct)
            )));
        }
    }
    if !read.truncate
        && let Some(length) = response.content_length()
        && length > read.max_bytes as u64
    {
        return Err(too_large(&target, Some(length), read.max_bytes));
    }
    let url = response.url().clone();
    let headers = response.headers().clone();
    let sniff = read.text_only && !headers.contains_key(header::CONTENT_TYPE);
    let mut body: Vec<u8> = Vec::with_capacity(
        response
            .content_length()
            .map_or(8192, |l| l.min(read.max_bytes as u64) as usize),
    );
    let mut truncated = false;
    while let Some(chunk) = response
        .chunk()
        .await
        .map_err(|e| request_error(e, &target, timeout))?
    {
        let room = read.max_bytes - body.len();
        if chunk.len() > room {
            if !read.truncate {
                return Err(too_large(&target, None, read.max_bytes));
            }
            body.extend_from_slice(&chunk[..room]);
            truncated = true;
            break;
        }
        body.extend_from_slice(&chunk);
        if sniff && body.len() >= 512 {
            refuse_binary(&body, &target)?;
        }
    }
    if sniff {
        refuse_binary(&body, &target)?;
    }
    Ok(HttpResponse {
        status,
        url,
        headers,
        body,
        truncated,
    })
}

fn refuse_binary(body: &[u8], target: &Target) -> Result<(), ToolError> {
    if body[..body.len().min(1024)].contains(&0) {
        return Err(ToolError::failed(format!(
            "{target} sent binary content; only text content can be read"
        )));
    }
    Ok(())
}

async fn first_bytes(response: &mut reqwest::Response, max: usize) -> Vec<u8> {
    let mut body = Vec::new();
    while body.len() < max {
        match response.chunk().await {
            Ok(Some(chunk)) => body.extend_from_slice(&chunk[..chunk.len().min(max - body.len())]),
            _ => break,
        }
    }
    body
}

fn too_large(target: &Target, length: Option<u64>, max: usize) -> ToolError {
    let size = match length {
        Some(length) => format!("{length} bytes, "),
        None => String::new(),
    };
    ToolError::failed(format!(
        "the response from {target} is {size}over the {max}-byte limit"
    ))
}

fn status_error(
    status: StatusCode,
    target: &Target,
    retry_after: Option<u64>,
    body: &[u8],
) -> ToolError {
    let code = status.as_u16();
    let kind = match code {
        404 | 410 => ErrorKind::NotFound,
        401 | 403 | 407 => ErrorKind::PermissionDenied,
        504 => ErrorKind::Timeout,
        408 | 425 | 429 | 500..=599 => ErrorKind::Unavailable,
        _ => ErrorKind::Failed,
    };
    let reason = status.canonical_reason().unwrap_or("");
    let mut message = format!("{target} answered {code} {reason}")
        .trim_end()
        .to_owned();
    message.push_str(&target.request());
    if let Some(seconds) = retry_after.filter(|_| kind == ErrorKind::Unavailable) {
        message.push_str(&format!("; retry after {seconds} s"));
    }
    let text = excerpt(&String::from_utf8_lossy(body));
    if !text.is_empty() {
        message.push_str(": ");
        message.push_str(&text);
    }
    ToolError::new(kind, message)
}

pub(super) fn guard_error(e: GuardError, target: &Target) -> ToolError {
    match e {
        GuardError::Refused(r) => ToolError::permission_denied(r.to_string()),
        GuardError::Invalid(m) => ToolError::invalid_input(m),
        GuardError::TooManyRedirects => ToolError::failed(format!(
            "{target} redirected more than {MAX_REDIRECTS} times; stopped"
        )),
        GuardError::CrossOrigin(m) => ToolError::failed(format!("{target} {m}")),
    }
}

/// Finds an error of type `E` in `e`'s source chain.
fn find<'a, E: std::error::Error + 'static>(
    e: &'a (dyn std::error::Error + 'static),
) -> Option<&'a E> {
    let mut current = Some(e);
    while let Some(err) = current {
        if let Some(found) = err.downcast_ref::<E>() {
            return Some(found);
        }
        current = err.source();
    }
    None
}

fn request_error(e: reqwest::Error, target: &Target, timeout: Duration) -> ToolError {
    let e = e.without_url();
    if let Some(refused) = find::<Refused>(&e) {
        return ToolError::permission_denied(refused.to_string()).with_source(e);
    }
    if let Some(guard) = find::<GuardError>(&e) {
        let mapped = match guard {
            GuardError::Refused(r) => ToolError::permission_denied(r.to_string()),
            GuardError::Invalid(m) => ToolError::permission_denied(m.clone()),
            GuardError::TooManyRedirects => guard_error(GuardError::TooManyRedirects, target),
            GuardError::CrossOrigin(m) => ToolError::failed(format!("{target} {m}")),
        };
        return mapped.with_source(e);
    }
    let (kind, message) = if e.is_timeout() {
        (
            ErrorKind::Timeout,
            format!("{target} did not answer within {}", human_duration(timeout)),
        )
    } else if let Some(lookup) = find::<LookupFailed>(&e) {
        (ErrorKind::Unavailable, lookup.to_string())
    } else if e.is_connect() {
        let why = match find::<std::io::Error>(&e).map(std::io::Error::kind) {
            Some(std::io::ErrorKind::ConnectionRefused) => ": connection refused",
            Some(std::io::ErrorKind::ConnectionReset) => ": connection reset",
            Some(std::io::ErrorKind::TimedOut) => ": timed out",
            _ => "",
        };
        (
            ErrorKind::Unavailable,
            format!("cannot connect to {target}{why}"),
        )
    } else if e.is_redirect() {
        (
            ErrorKind::Failed,
            format!("{target} sent a redirect that cannot be followed"),
        )
    } else if e.is_body() || e.is_decode() || e.is_request() {
        (
            ErrorKind::Unavailable,
            format!("the connection to {target} failed during the exchange"),
        )
    } else {
        (
            ErrorKind::Internal,
            format!("the request to {target} could not be made"),
        )
    };
    ToolError::new(kind, message).with_source(e)
}

fn human_duration(d: Duration) -> String {
    if d.as_millis().is_multiple_of(1000) {
        format!("{} s", d.as_secs())
    } else {
        format!("{} ms", d.as_millis())
    }
}
