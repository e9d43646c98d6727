//! The Streamable HTTP client: POSTs to `/mcp` on loopback, in a session (begun with
//! `initialize`) or in protocol 2026-07-28 (begun with `server/discover`, every request
//! standing alone with its `_meta` and its `Mcp-Method` and `Mcp-Name` headers); answers read
//! as JSON or as the SSE stream of the request. The driver's own client (reqwest) begins, lists
//! and warms up, checking every answer; the measured phases are wrk's
//! (`scripts/calls.lua`), a client in C that costs the machine a fraction of what reqwest
//! does, so the figures are the server's: one connection for the sequential phase,
//! `in_flight` connections from [`Config::client_threads`] threads for the other. wrk checks
//! each answer's status and that it is a result, and counts the time-outs; a phase with
//! either fails the run.

use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use reqwest::header::{CONTENT_TYPE, HeaderMap, HeaderValue};

use super::{
    CallMessage, Config, Era, INITIALIZED, Listing, Message, PROTOCOL_VERSION, Phase, Sample,
    Server, call_request_in, check_call_in, check_discover, check_initialize, discover_request,
    id_of, initialize_request, memory_mib, server_log,
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
        method: Option<&'static str>,
    ) -> Result<(reqwest::StatusCode, HeaderMap, Vec<u8>), String> {
        let mut headers = self.headers.clone();
        // 2026-07-28 (SEP-2243): the method, and the tool a call names, in headers too.
        if let Some(method) = method {
            headers.insert("mcp-method", HeaderValue::from_static(method));
            if method == "tools/call" {
                headers.insert("mcp-name", HeaderValue::from_static("add_numbers"));
            }
        }
        let response = self
            .client
            .post(&*self.url)
            .headers(headers)
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
    /// `method` is sent as `Mcp-Method` (2026-07-28).
    async fn request(
        &self,
        body: Vec<u8>,
        method: Option<&'static str>,
    ) -> Result<(HeaderMap, Vec<u8>), String> {
        let (status, headers, bytes) = self.post(body, method).await?;
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

/// Starts `server` on a free loopback port and measures it once in `era`.
pub async fn run(server: &Server, cfg: &Config, era: Era, round: usize) -> Result<Sample, String> {
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
    let transport = match era {
        Era::Session => "http".to_owned(),
        Era::Stateless => format!("http-{}", era.key()),
    };
    let (stderr, log) = server_log(cfg, server, &transport, round)?;
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
    let result = tokio::time::timeout(budget, measure(server, cfg, era, start, pid, &addr)).await;
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
    era: Era,
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

    // Start-up: until the era's first request is answered (connections are refused until it
    // listens).
    let modern = era == Era::Stateless;
    if modern {
        session.headers.insert(
            "mcp-protocol-version",
            HeaderValue::from_static(era.protocol()),
        );
    }
    let (first, method) = match era {
        Era::Session => (initialize_request(0), None),
        Era::Stateless => (discover_request(0), Some("server/discover")),
    };
    let (headers, body) = loop {
        match session.request(first.clone().into_bytes(), method).await {
            Ok(answer) => break answer,
            Err(e) if start.elapsed() < cfg.start_limit && e.starts_with("POST") => {
                tokio::time::sleep(Duration::from_millis(1)).await;
            }
            Err(e) => return Err(format!("{}: {e}", method.unwrap_or("initialize"))),
        }
    };
    sample.startup_ms = start.elapsed().as_secs_f64() * 1000.0;
    let first: Message = serde_json::from_slice(&body).map_err(|e| format!("first answer: {e}"))?;
    if modern {
        check_discover(&first)?;
    } else {
        check_initialize(&first)?;
        if let Some(id) = headers.get("mcp-session-id") {
            session.headers.insert("mcp-session-id", id.clone());
        }
        session.headers.insert(
            "mcp-protocol-version",
            HeaderValue::from_static(PROTOCOL_VERSION),
        );
        let (status, _, body) = session.post(INITIALIZED.as_bytes().to_vec(), None).await?;
        if !status.is_success() {
            return Err(format!(
                "notifications/initialized: HTTP {status}: {}",
                String::from_utf8_lossy(&body)
            ));
        }
    }

    let mut listing = Listing::new(era);
    let list_method = modern.then_some("tools/list");
    loop {
        let (_, body) = session
            .request(listing.request().into_bytes(), list_method)
            .await?;
        let msg: Message = serde_json::from_slice(&body).map_err(|e| format!("tools/list: {e}"))?;
        if !listing.read(&msg)? {
            break;
        }
    }
    listing.finish(server.listed)?;
    sample.idle_rss_mib = memory_mib(pid).0;

    run_phase(&session, era, 1_000, cfg.warmup, 1, cfg.phase_limit).await?;
    let session_id = session
        .headers
        .get("mcp-session-id")
        .and_then(|v| v.to_str().ok());
    let wrk = |connections, threads| Wrk {
        url: &session.url,
        session: session_id,
        era,
        connections,
        threads,
        secs: cfg.phase_limit.as_secs().max(1),
    };
    sample.sequential = wrk(1, 1).run()?;
    sample.in_flight = wrk(cfg.in_flight, cfg.client_threads.min(cfg.in_flight)).run()?;
    sample.peak_rss_mib = memory_mib(pid).1;
    Ok(sample)
}

/// A phase of calls timed by wrk.
struct Wrk<'a> {
    url: &'a str,
    session: Option<&'a str>,
    era: Era,
    connections: usize,
    threads: usize,
    secs: u64,
}

impl Wrk<'_> {
    /// Runs it: the calls answered, their rate and latencies, as wrk counts them; an error if a
    /// call was not answered with a result, timed out (5 s) or met a socket error.
    fn run(&self) -> Result<Phase, String> {
        let script = concat!(env!("CARGO_MANIFEST_DIR"), "/scripts/calls.lua");
        let wrk = std::env::var_os("WRK").unwrap_or_else(|| "wrk".into());
        let output = Command::new(&wrk)
            .args(["-t", &self.threads.to_string()])
            .args(["-c", &self.connections.to_string()])
            .args(["-d", &format!("{}s", self.secs)])
            .args(["--timeout", "5s", "-s", script, self.url])
            .env("MCP_SESSION", self.session.unwrap_or_default())
            .env("MCP_PROTOCOL", self.era.protocol())
            .output()
            .map_err(|e| format!("wrk (scripts/wrk-env installs it): {e}"))?;
        let text = String::from_utf8_lossy(&output.stdout);
        let line = text
            .lines()
            .find_map(|l| l.strip_prefix("calls answered: "))
            .ok_or_else(|| {
                format!(
                    "wrk gave no count: {text}{}",
                    String::from_utf8_lossy(&output.stderr)
                )
            })?;
        // "N; not a result: B; timed out: T; socket errors: E; R/s; p50 X us; p99 Y us"
        let numbers: Vec<f64> = line
            .split(|c: char| !(c.is_ascii_digit() || c == '.'))
            .filter(|t| !t.is_empty() && *t != ".")
            .filter_map(|t| t.parse().ok())
            .collect();
        let [answered, bad, timeouts, errors, rate, _, p50, _, p99] = numbers[..] else {
            return Err(format!("wrk's count unreadable: {line}"));
        };
        if bad > 0.0 || timeouts > 0.0 || errors > 0.0 {
            return Err(format!(
                "wrk: {line}; {}",
                String::from_utf8_lossy(&output.stderr).trim()
            ));
        }
        Ok(Phase {
            calls: answered as usize,
            secs: answered / rate.max(1.0),
            req_per_s: rate,
            p50_us: p50,
            p99_us: p99,
        })
    }
}

/// `n` calls at most from `tasks` tasks, each one call at a time; none started after `limit`.
async fn run_phase(
    session: &Session,
    era: Era,
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
                call_request_in(&mut body, era, id).map_err(|e| e.to_string())?;
                let method = (era == Era::Stateless).then_some("tools/call");
                let sent = Instant::now();
                let (_, answer) = session.request(body, method).await?;
                let msg: CallMessage = serde_json::from_slice(&answer).map_err(|e| {
                    format!("not JSON-RPC ({e}): {}", String::from_utf8_lossy(&answer))
                })?;
                if id_of(&msg.id) != Some(id) {
                    return Err(format!("answer to id {:?}, asked {id}", msg.id));
                }
                check_call_in(&msg, id, era)?;
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
