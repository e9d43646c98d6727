//! The Streamable HTTP client: POSTs to `/mcp` on loopback with a session, answers read as JSON
//! or as the SSE stream of the request, `in_flight` requests at a time from as many tasks on a
//! single-threaded runtime (keep-alive connections from one pool).

use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use reqwest::header::{CONTENT_TYPE, HeaderMap, HeaderValue};

use super::{
    CallMessage, Config, INITIALIZED, Listing, Message, PROTOCOL_VERSION, Phase, Sample, Server,
    call_request, check_call, check_initialize, id_of, initialize_request, memory_mib, server_log,
};

#[derive(Clone)]
struct Session {
    client: reqwest::Client,
    url: Arc<str>,
    headers: HeaderMap,
}

impl Session {
    async fn post(
        &self,
        body: Vec<u8>,
    ) -> Result<(reqwest::StatusCode, HeaderMap, Vec<u8>), String> {
        let response = self
            .client
            .post(&*self.url)
            .headers(self.headers.clone())
            .body(body)
            .send()
            .await
            .map_err(|e| format!("POST: {e}"))?;
        let status = response.status();
        let headers = response.headers().clone();
        let bytes = response
            .bytes()
            .await
            .map_err(|e| format!("reading the answer: {e}"))?;
        Ok((status, headers, bytes.to_vec()))
    }

    /// A request's answer: the JSON body, or the SSE event that carries the response.
    async fn request(&self, body: Vec<u8>) -> Result<(HeaderMap, Vec<u8>), String> {
        let (status, headers, bytes) = self.post(body).await?;
        if !status.is_success() {
            return Err(format!(
                "HTTP {status}: {}",
                String::from_utf8_lossy(&bytes)
            ));
        }
        let sse = headers
            .get(CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|t| t.starts_with("text/event-stream"));
        if !sse {
            return Ok((headers, bytes));
        }
        // Events are `data:` lines; the response is the event whose JSON has a result or error.
        let text = String::from_utf8_lossy(&bytes);
        for line in text.lines() {
            if let Some(data) = line.strip_prefix("data:") {
                let data = data.trim_start();
                if data.contains("\"result\"") || data.contains("\"error\"") {
                    return Ok((headers, data.as_bytes().to_vec()));
                }
            }
        }
        Err(format!("no response in the event stream: {text}"))
    }
}

/// Starts `server` on a free loopback port and measures it once.
pub async fn run(server: &Server, cfg: &Config, round: usize) -> Result<Sample, String> {
    let args = server.http_args.as_ref().ok_or("no HTTP mode")?;
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map_err(|e| format!("no free port: {e}"))?
        .port();
    let addr = format!("127.0.0.1:{port}");
    let args: Vec<String> = args
        .iter()
        .map(|a| {
            a.replace("{addr}", &addr)
                .replace("{port}", &port.to_string())
        })
        .collect();
    let (stderr, log) = server_log(cfg, server, "http", round)?;
    let start = Instant::now();
    let mut child: Child = Command::new(&server.program)
        .args(&args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(stderr)
        .spawn()
        .map_err(|e| format!("cannot start {}: {e}", server.program.display()))?;
    let pid = child.id();
    let budget = cfg.start_limit + 3 * (cfg.phase_limit + Duration::from_secs(20));
    let result = tokio::time::timeout(budget, measure(server, cfg, start, pid, &addr)).await;
    let _ = child.kill();
    let _ = child.wait();
    match result {
        Ok(Ok(sample)) => Ok(sample),
        Ok(Err(e)) => Err(format!("{e}; stderr in {}", log.display())),
        Err(_) => Err(format!(
            "timed out after {budget:?}; stderr in {}",
            log.display()
        )),
    }
}

async fn measure(
    server: &Server,
    cfg: &Config,
    start: Instant,
    pid: u32,
    addr: &str,
) -> Result<Sample, String> {
    let client = reqwest::Client::builder()
        .no_proxy()
        .tcp_nodelay(true)
        .pool_max_idle_per_host(cfg.in_flight * 2)
        .build()
        .map_err(|e| e.to_string())?;
    let mut headers = HeaderMap::new();
    headers.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
    headers.insert(
        reqwest::header::ACCEPT,
        HeaderValue::from_static("application/json, text/event-stream"),
    );
    let mut session = Session {
        client,
        url: format!("http://{addr}/mcp").into(),
        headers,
    };
    let mut sample = Sample::default();

    // Start-up: until `initialize` is answered (connections are refused until it listens).
    let (headers, body) = loop {
        match session.request(initialize_request(0).into_bytes()).await {
            Ok(answer) => break answer,
            Err(e) if start.elapsed() < cfg.start_limit && e.starts_with("POST") => {
                tokio::time::sleep(Duration::from_millis(1)).await;
            }
            Err(e) => return Err(format!("initialize: {e}")),
        }
    };
    sample.startup_ms = start.elapsed().as_secs_f64() * 1000.0;
    let init: Message = serde_json::from_slice(&body).map_err(|e| format!("initialize: {e}"))?;
    check_initialize(&init)?;
    if let Some(id) = headers.get("mcp-session-id") {
        session.headers.insert("mcp-session-id", id.clone());
    }
    session.headers.insert(
        "mcp-protocol-version",
        HeaderValue::from_static(PROTOCOL_VERSION),
    );
    let (status, _, body) = session.post(INITIALIZED.as_bytes().to_vec()).await?;
    if !status.is_success() {
        return Err(format!(
            "notifications/initialized: HTTP {status}: {}",
            String::from_utf8_lossy(&body)
        ));
    }

    let mut listing = Listing::default();
    loop {
        let (_, body) = session.request(listing.request().into_bytes()).await?;
        let msg: Message = serde_json::from_slice(&body).map_err(|e| format!("tools/list: {e}"))?;
        if !listing.read(&msg)? {
            break;
        }
    }
    listing.finish(server.listed)?;
    sample.idle_rss_mib = memory_mib(pid).0;

    run_phase(&session, 1_000, cfg.warmup, 1, cfg.phase_limit).await?;
    sample.sequential = run_phase(&session, 1_000_000, cfg.calls, 1, cfg.phase_limit).await?;
    sample.in_flight = run_phase(
        &session,
        2_000_000,
        cfg.calls,
        cfg.in_flight,
        cfg.phase_limit,
    )
    .await?;
    sample.peak_rss_mib = memory_mib(pid).1;
    Ok(sample)
}

/// `n` calls at most from `tasks` tasks, each one call at a time; none started after `limit`.
async fn run_phase(
    session: &Session,
    base: u64,
    n: usize,
    tasks: usize,
    limit: Duration,
) -> Result<Phase, String> {
    let next = Arc::new(AtomicUsize::new(0));
    let start = Instant::now();
    let mut set = tokio::task::JoinSet::new();
    for _ in 0..tasks.min(n.max(1)) {
        let (session, next) = (session.clone(), next.clone());
        set.spawn(async move {
            let mut lat = Vec::new();
            loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= n || start.elapsed() > limit {
                    return Ok::<_, String>(lat);
                }
                let id = base + i as u64;
                let mut body = Vec::with_capacity(160);
                call_request(&mut body, id).map_err(|e| e.to_string())?;
                let sent = Instant::now();
                let (_, answer) = session.request(body).await?;
                let msg: CallMessage = serde_json::from_slice(&answer).map_err(|e| {
                    format!("not JSON-RPC ({e}): {}", String::from_utf8_lossy(&answer))
                })?;
                if id_of(&msg.id) != Some(id) {
                    return Err(format!("answer to id {:?}, asked {id}", msg.id));
                }
                check_call(&msg, id)?;
                lat.push(sent.elapsed().as_nanos() as u64);
            }
        });
    }
    let mut all = Vec::with_capacity(n);
    while let Some(joined) = set.join_next().await {
        let lat = joined.map_err(|e| e.to_string())??;
        all.extend(lat);
    }
    Ok(Phase::from_latencies(all, start.elapsed().as_secs_f64()))
}
