//! Scale-out behind a real load balancer: three instances per mode on loopback behind HAProxy
//! (Debian's `haproxy`, installed by `scripts/haproxy-env`; a missing HAProxy is a failure,
//! never a skip), run from the shipped `deploy/haproxy.cfg` with its addresses set through the
//! environment variables it reads, so what is tested is what users run.
//!
//! - Stateless: `toolctl serve --http --stateless`, round-robin, 32 concurrent clients, 20,000
//!   `tools/call`: every call answered exactly once with its own id and result, the load spread
//!   over the three instances (HAProxy's per-server counters).
//! - Sessions: `conformance-server serve --http` (toolctl's bundled tools never ask the client for
//!   anything; the conformance tools elicit and report progress), several concurrent sessions of
//!   the official Python client (`examples/tests/mcp/lb_sessions.py`), each answering an
//!   elicitation and receiving progress, all through the proxy's stick table on
//!   `Mcp-Session-Id`; the sessions land on more than one instance.
//! - Failover: one stateless instance is killed (SIGKILL) mid-run; every call is still answered
//!   exactly once, the dead instance had served calls, the survivors served the rest.
//! - A rolling restart: one stateless instance gets SIGTERM mid-run; it answers the calls it
//!   had, refuses new connections, exits, and not one call fails.
//! - Asking in 2026-07-28: stateless instances that share a `requestState` key
//!   (`--request-state-key-env`) answer tools that elicit and sample, each call's retry landing
//!   on another instance than its first round (round-robin); instances with keys of their own
//!   refuse those retries.
//!
//! The tests take turns (a lock), since each one loads both cores on its own.

#[path = "../../tests/support/haproxy.rs"]
mod haproxy;
#[path = "../../tests/support/mcp.rs"]
mod mcp_support;
#[path = "../../tests/support/validators.rs"]
mod py_support;

use std::collections::BTreeMap;
use std::process::Command;
use std::time::{Duration, Instant};

use haproxy::{CONFORMANCE, Cluster, Conn, INSTANCES, serial};
use serde_json::{Value, json};

const CLIENTS: usize = 32;

/// A read-only tool, the arguments of call `i`, and the check of its answer.
struct Workload {
    tool: &'static str,
    arguments: fn(usize) -> Value,
    check: fn(usize, &Value) -> Result<(), String>,
}

/// `convert_time` of a different minute per call, so each answer can only be its own call's.
const CONVERT: Workload = Workload {
    tool: "convert_time",
    arguments: |i| {
        let (day, hour, minute) = (1 + i / 1440, (i / 60) % 24, i % 60);
        json!({
            "time": format!("2026-01-{day:02}T{hour:02}:{minute:02}"),
            "from_timezone": "UTC",
            "to_timezone": "Asia/Tokyo",
        })
    },
    check: |i, result| {
        let (day, hour, minute) = (1 + i / 1440, (i / 60) % 24, i % 60);
        // Tokyo is UTC+9 all year.
        let (tokyo_day, tokyo_hour) = (day + (hour + 9) / 24, (hour + 9) % 24);
        let want = format!("2026-01-{tokyo_day:02}T{tokyo_hour:02}:{minute:02}:00+09:00");
        let got = &result["structuredContent"]["target"]["datetime"];
        if got == want.as_str() {
            Ok(())
        } else {
            Err(format!("target datetime {got}, expected {want}"))
        }
    },
};

/// `wait_duration` of 20 to 29 ms: every call is still running on its instance for a while,
/// so a killed instance takes calls it had started down with it.
const WAIT: Workload = Workload {
    tool: "wait_duration",
    arguments: |i| json!({"seconds": wait_seconds(i)}),
    check: |i, result| {
        let got = result["structuredContent"]["seconds"].as_f64();
        match got {
            Some(s) if (s - wait_seconds(i)).abs() < 1e-9 => Ok(()),
            _ => Err(format!("waited {got:?}, expected {}", wait_seconds(i))),
        }
    },
};

fn wait_seconds(i: usize) -> f64 {
    0.020 + (i % 10) as f64 / 1000.0
}

/// What a load run saw, per call id.
struct Run {
    /// How many answers carried each id.
    answers: Vec<usize>,
    /// Problems, by the id of the call they concern.
    errors: Vec<(usize, String)>,
    elapsed: Duration,
}

impl Run {
    /// Asserts every call got exactly one answer, the right one.
    fn assert_each_answered_once(&self, cluster: &Cluster) {
        let lost: Vec<usize> = (0..self.answers.len())
            .filter(|&i| self.answers[i] == 0)
            .collect();
        let duplicated: Vec<usize> = (0..self.answers.len())
            .filter(|&i| self.answers[i] > 1)
            .collect();
        let shown: Vec<&(usize, String)> = self.errors.iter().take(10).collect();
        assert!(
            self.errors.is_empty() && lost.is_empty() && duplicated.is_empty(),
            "{} errors (first: {shown:#?}), {} calls without an answer (first: {:?}), {} answered \
             more than once (first: {:?}); HAProxy said:\n{}",
            self.errors.len(),
            lost.len(),
            &lost[..lost.len().min(10)],
            duplicated.len(),
            &duplicated[..duplicated.len().min(10)],
            cluster.log_tail(20)
        );
    }
}

/// One client's share of a run: the ids its answers carried, and its failed calls.
#[derive(Default)]
struct ClientRun {
    ids: Vec<usize>,
    errors: Vec<(usize, String)>,
}

/// `calls` tools/call requests of `work` through the proxy's stateless frontend, from `CLIENTS`
/// concurrent clients (client `c` makes calls c, c + CLIENTS, ...). `meanwhile` runs on this
/// thread during the run, with the number of answers so far.
/// How many calls have been answered, and word of each.
#[derive(Default)]
struct Answered {
    count: std::sync::Mutex<usize>,
    more: std::sync::Condvar,
}

impl Answered {
    fn add(&self) {
        *self.count.lock().unwrap() += 1;
        self.more.notify_all();
    }

    /// Waits until `n` calls have been answered, for a minute at most.
    fn reached(&self, n: usize) {
        let (count, waited) = self
            .more
            .wait_timeout_while(
                self.count.lock().unwrap(),
                Duration::from_secs(60),
                |count| *count < n,
            )
            .unwrap();
        assert!(
            !waited.timed_out(),
            "only {} calls answered in a minute",
            *count
        );
    }
}

fn drive(
    cluster: &Cluster,
    work: &Workload,
    calls: usize,
    meanwhile: impl FnOnce(&Answered),
) -> Run {
    let answered = Answered::default();
    let started = Instant::now();
    let per_client: Vec<ClientRun> = std::thread::scope(|scope| {
        let clients: Vec<_> = (0..CLIENTS)
            .map(|c| {
                let answered = &answered;
                scope.spawn(move || {
                    let mut conn = Conn::new(&cluster.stateless_front);
                    let mut run = ClientRun::default();
                    for i in (c..calls).step_by(CLIENTS) {
                        match call(&mut conn, work, i) {
                            Ok(id) => run.ids.push(id),
                            Err(e) => run.errors.push((i, e)),
                        }
                        answered.add();
                    }
                    run
                })
            })
            .collect();
        meanwhile(&answered);
        clients
            .into_iter()
            .map(|c| c.join().expect("a client thread panicked"))
            .collect()
    });
    let elapsed = started.elapsed();
    let mut answers = vec![0; calls];
    let mut errors = Vec::new();
    for client in per_client {
        for id in client.ids {
            match answers.get_mut(id) {
                Some(n) => *n += 1,
                None => errors.push((id, "an answer with an id nobody sent".to_owned())),
            }
        }
        errors.extend(client.errors);
    }
    Run {
        answers,
        errors,
        elapsed,
    }
}

/// Call `i`: the id its answer carried, after checking the answer is call `i`'s.
fn call(conn: &mut Conn, work: &Workload, i: usize) -> Result<usize, String> {
    let request = json!({
        "jsonrpc": "2.0",
        "id": i,
        "method": "tools/call",
        "params": {"name": work.tool, "arguments": (work.arguments)(i)},
    });
    let reply = conn.post(&request.to_string())?;
    let text = String::from_utf8_lossy(&reply.body);
    if reply.status != 200 || !reply.content_type.starts_with("application/json") {
        return Err(format!(
            "HTTP {} ({}): {text}",
            reply.status, reply.content_type
        ));
    }
    let answer: Value =
        serde_json::from_slice(&reply.body).map_err(|e| format!("not JSON ({e}): {text}"))?;
    let id = answer["id"]
        .as_u64()
        .and_then(|id| usize::try_from(id).ok())
        .ok_or_else(|| format!("no numeric id: {text}"))?;
    if id != i {
        return Err(format!("answered with id {id}: {text}"));
    }
    let result = &answer["result"];
    if result["isError"] != false {
        return Err(format!("not a successful result: {text}"));
    }
    (work.check)(i, result)?;
    Ok(id)
}

/// Calls per second, rounded.
fn rate(calls: usize, elapsed: Duration) -> u64 {
    (calls as f64 / elapsed.as_secs_f64()).round() as u64
}

/// Requests of the stateless backend that HAProxy logged with at least one retry, per server
/// that finally answered (from the `retries` field of its HTTP log line; `+N` means
/// redispatched).
fn retried_in_log(lines: &[String]) -> BTreeMap<String, usize> {
    let mut retried = BTreeMap::new();
    for line in lines {
        let fields: Vec<&str> = line.split_whitespace().collect();
        let Some(at) = fields.iter().position(|f| f.starts_with("mcp_stateless/")) else {
            continue;
        };
        let retries = fields
            .get(at + 7)
            .and_then(|counts| counts.split('/').nth(4))
            .map(|r| r.trim_start_matches('+'))
            .and_then(|r| r.parse::<u32>().ok())
            .unwrap_or(0);
        if retries > 0 {
            *retried.entry(fields[at].to_owned()).or_insert(0) += 1;
        }
    }
    retried
}

/// A request of the session backend, from its HTTP log line.
#[derive(Debug)]
struct Logged {
    server: String,
    method: String,
    /// The `Mcp-Session-Id` the request carried, or for `initialize` the one its answer created.
    session: String,
}

/// The session backend's requests in HAProxy's log, through the frontend's header captures
/// (`{request id} {response id}` on each line).
fn session_requests(lines: &[String]) -> Vec<Logged> {
    lines
        .iter()
        .filter_map(|line| {
            let server = line
                .split_whitespace()
                .find_map(|f| f.strip_prefix("mcp_sessions/"))?
                .to_owned();
            let mut captures = line.split('{').skip(1).filter_map(|c| c.split_once('}'));
            let (sent, _) = captures.next()?;
            let (created, _) = captures.next()?;
            let session = if sent.is_empty() { created } else { sent };
            let method = line
                .split_once('"')?
                .1
                .split_whitespace()
                .next()?
                .to_owned();
            Some(Logged {
                server,
                method,
                session: session.to_owned(),
            })
        })
        .collect()
}

#[test]
fn stateless_calls_are_spread_over_instances_and_each_answered_once() {
    let _serial = serial();
    let cluster = Cluster::start();
    const CALLS: usize = 20_000;

    let run = drive(&cluster, &CONVERT, CALLS, |_| {});
    run.assert_each_answered_once(&cluster);

    let stats = cluster.stats();
    let served = stats.per_server("mcp_stateless", "hrsp_2xx");
    eprintln!(
        "stateless: {CALLS} calls from {CLIENTS} clients in {:.1} s ({} calls/s through HAProxy); \
         answers per instance {served:?}",
        run.elapsed.as_secs_f64(),
        rate(CALLS, run.elapsed)
    );
    // One answer per call, none from anywhere else: the proxy passed on no extra response.
    assert_eq!(
        served.iter().sum::<u64>(),
        CALLS as u64,
        "answers per instance {served:?}"
    );
    for (n, &count) in served.iter().enumerate() {
        assert!(
            count as usize >= CALLS / 4,
            "instance s{} answered {count} of {CALLS} calls: round-robin should give each about \
             a third ({served:?})",
            n + 1
        );
    }
    let failed = stats.get("mcp_stateless", "BACKEND", "hrsp_4xx")
        + stats.get("mcp_stateless", "BACKEND", "hrsp_5xx");
    assert_eq!(failed, 0, "HAProxy counted error responses");
}

#[test]
fn sessions_stick_to_their_instance_through_elicitation_and_progress() {
    let _serial = serial();
    let python = py_support::python();
    let cluster = Cluster::start();
    const SESSIONS: usize = 6;
    let script = py_support::workspace_root().join("examples/tests/mcp/lb_sessions.py");
    let url = format!("http://{}/mcp", cluster.sessions_front);

    let out = Command::new(&python)
        .arg(&script)
        .arg(&url)
        .arg(SESSIONS.to_string())
        .arg("2")
        .output()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", script.display()));
    assert!(
        out.status.success(),
        "{} failed (exit {:?}):\n{}\nHAProxy said:\n{}",
        script.display(),
        out.status.code(),
        py_support::report(&out),
        cluster.log_tail(40)
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout
            .lines()
            .any(|l| l == format!("all {SESSIONS} sessions passed")),
        "the script did not report its sessions:\n{}",
        py_support::report(&out)
    );
    let session_ids: Vec<&str> = stdout
        .lines()
        .filter_map(|l| l.strip_prefix("session "))
        .filter_map(|l| l.split_whitespace().nth(1))
        .collect();
    assert_eq!(session_ids.len(), SESSIONS, "{stdout}");

    // Where the proxy pinned each session: it learned the id from the `initialize` response.
    let table = cluster.stuck_sessions();
    let mut by_server: BTreeMap<&str, usize> = BTreeMap::new();
    for id in &session_ids {
        let server = table
            .get(*id)
            .unwrap_or_else(|| panic!("session {id} is not in the stick table: {table:?}"));
        *by_server.entry(server.as_str()).or_insert(0) += 1;
    }
    eprintln!("sessions: {SESSIONS} sessions per instance {by_server:?}");
    assert!(
        by_server.len() > 1,
        "every session landed on one instance: {by_server:?}"
    );

    // Every request of each session (its POSTs, its GET stream, its DELETE) went to the instance
    // the table names. HAProxy logs a stream when it ends, so wait for the last ones (a GET
    // stream ends when its session is deleted): read again as each line arrives, for 30 s at
    // most.
    let lines = cluster.log.until(Duration::from_secs(30), |lines| {
        let logged = session_requests(lines);
        session_ids.iter().all(|id| {
            ["GET", "DELETE"]
                .iter()
                .all(|m| logged.iter().any(|r| r.session == *id && r.method == *m))
        })
    });
    let logged = session_requests(&lines);
    for id in &session_ids {
        let requests: Vec<&Logged> = logged.iter().filter(|r| r.session == *id).collect();
        let pinned = &table[*id];
        let strays: Vec<&&Logged> = requests.iter().filter(|r| r.server != *pinned).collect();
        assert!(
            strays.is_empty(),
            "session {id} is pinned to {pinned}, but these of its requests went elsewhere: \
             {strays:#?}"
        );
        let methods: Vec<&str> = requests.iter().map(|r| r.method.as_str()).collect();
        assert!(
            ["POST", "DELETE"].iter().all(|m| methods.contains(m)),
            "HAProxy logged {methods:?} for session {id}, expected POST and DELETE:\n{}",
            cluster.log_tail(40)
        );
    }
    // A GET stream is logged only when it ends, and now and then one has not ended (or its line
    // has not come through HAProxy's non-blocking log) within the wait above, though the script
    // saw it answered for its session: require most, so that GET streams are shown to be routed
    // by the table too, without failing on one late line.
    let with_get = session_ids
        .iter()
        .filter(|id| {
            logged
                .iter()
                .any(|r| r.session == **id && r.method == "GET")
        })
        .count();
    assert!(
        with_get * 2 > session_ids.len(),
        "HAProxy logged a GET stream for only {with_get} of {} sessions:\n{}",
        session_ids.len(),
        cluster.log_tail(40)
    );

    // The proxy's side of what the script checked: no instance answered a request for a session
    // it does not hold (404) or failed one.
    let stats = cluster.stats();
    for field in ["hrsp_4xx", "hrsp_5xx"] {
        let counts = stats.per_server("mcp_sessions", field);
        assert!(
            counts.iter().all(|&n| n == 0),
            "{field} per instance: {counts:?}"
        );
    }
}

#[test]
fn stateless_calls_fail_over_when_an_instance_is_killed() {
    let _serial = serial();
    let mut cluster = Cluster::start();
    const CALLS: usize = 6_000;
    // HAProxy's s2.
    const VICTIM: usize = 1;
    let victim = format!("s{}", VICTIM + 1);

    let mut at_kill = None;
    let mut after_kill = None;
    // `drive` borrows the cluster for its clients; the kill needs it mutably, so the instance
    // is taken out first and dropped (SIGKILL) from inside the run.
    let mut instance = cluster.stateless[VICTIM].take();
    let run = drive(&cluster, &WAIT, CALLS, |answered| {
        answered.reached(CALLS / 3);
        at_kill = Some(cluster.stats());
        drop(instance.take());
        // The kernel has closed its sockets; what HAProxy counts for it from here on would be
        // answers after death, once HAProxy has taken in what it wrote before. Nothing tells
        // when it has (its counters move as it reads its sockets): a fixed fifth of a second.
        std::thread::sleep(Duration::from_millis(200));
        after_kill = Some(cluster.stats());
    });
    let killed_at = at_kill.expect("the kill ran");
    let after_kill = after_kill.expect("the kill ran");
    run.assert_each_answered_once(&cluster);

    // The health checks notice (2 failures, 1 s apart): HAProxy logs the server going down.
    let down = format!("Server mcp_stateless/{victim} is DOWN");
    let lines = cluster.log.until(Duration::from_secs(10), |lines| {
        lines.iter().any(|l| l.contains(&down))
    });
    assert!(
        lines.iter().any(|l| l.contains(&down)),
        "HAProxy never marked the killed instance down:\n{}",
        cluster.log_tail(40)
    );
    assert_eq!(
        cluster.stats().row("mcp_stateless", &victim)["status"],
        "DOWN"
    );

    let stats = cluster.stats();
    let served = stats.per_server("mcp_stateless", "hrsp_2xx");
    let before = killed_at.get("mcp_stateless", &victim, "hrsp_2xx");
    let by_victim = served[VICTIM];
    let survivors: u64 = served.iter().sum::<u64>() - by_victim;
    // Streams HAProxy had open on the instance when it died: calls it had started.
    let in_flight = killed_at.get("mcp_stateless", &victim, "scur");
    let retries = stats.get("mcp_stateless", "BACKEND", "wretr");
    let redispatches = stats.get("mcp_stateless", "BACKEND", "wredis");
    let retried_calls = retried_in_log(&cluster.log_lines());
    eprintln!(
        "failover: {CALLS} calls in {:.1} s ({} calls/s); answers per instance {served:?}; \
         {victim} killed after {before} answers with {in_flight} calls in flight, answered \
         {by_victim} in all; HAProxy retried {retries} times and redispatched {redispatches}; \
         calls that needed a retry, by the instance that answered: {retried_calls:?}",
        run.elapsed.as_secs_f64(),
        rate(CALLS, run.elapsed)
    );

    assert!(
        before > 0,
        "the killed instance had served no call before it died"
    );
    assert_eq!(
        by_victim,
        after_kill.get("mcp_stateless", &victim, "hrsp_2xx"),
        "the killed instance kept answering after it died"
    );
    assert_eq!(
        served.iter().sum::<u64>(),
        CALLS as u64,
        "answers per instance {served:?}: one per call, none twice"
    );
    assert!(
        survivors >= (CALLS as u64) / 2,
        "the survivors answered only {survivors} of {CALLS}"
    );
    // Without calls caught in flight and sent elsewhere, the run would not have tested failover.
    assert!(
        in_flight > 0 && redispatches > 0,
        "the kill disturbed no call ({in_flight} in flight, {redispatches} redispatched): the \
         test proved nothing"
    );
}

#[test]
fn stateless_calls_survive_a_sigterm_of_one_instance() {
    let _serial = serial();
    let mut cluster = Cluster::start();
    const CALLS: usize = 6_000;
    const VICTIM: usize = 1;
    let victim = format!("s{}", VICTIM + 1);
    let mut instance = cluster.stateless[VICTIM].take();
    let mut at_term = None;
    let run = drive(&cluster, &WAIT, CALLS, |answered| {
        answered.reached(CALLS / 3);
        let server = instance.as_mut().expect("the instance runs");
        at_term = Some(cluster.stats());
        let signalled = Command::new("kill")
            .args(["-TERM", &server.id().to_string()])
            .status()
            .unwrap();
        assert!(signalled.success());
        // It answers what it had, then exits by itself, well within its 5 s grace.
        let status = server
            .exit_within(Duration::from_secs(10))
            .expect("the instance exits after SIGTERM");
        assert!(status.success(), "the instance exited with {status}");
    });
    run.assert_each_answered_once(&cluster);
    let at_term = at_term.expect("the signal was sent");
    let stats = cluster.stats();
    let served = stats.per_server("mcp_stateless", "hrsp_2xx");
    let failed = stats.per_server("mcp_stateless", "hrsp_5xx");
    let in_flight = at_term.get("mcp_stateless", &victim, "scur");
    eprintln!(
        "sigterm: {CALLS} calls in {:.1} s; answers per instance {served:?}; {victim} had \
         {in_flight} calls in flight at SIGTERM; 5xx per instance {failed:?}",
        run.elapsed.as_secs_f64()
    );
    assert!(
        failed.iter().all(|&n| n == 0),
        "5xx per instance: {failed:?}"
    );
    assert_eq!(served.iter().sum::<u64>(), CALLS as u64, "{served:?}");
    assert!(
        at_term.get("mcp_stateless", &victim, "hrsp_2xx") > 0,
        "the instance had served nothing before its SIGTERM"
    );
    assert!(
        in_flight > 0,
        "no call was in flight on the instance at its SIGTERM: the test proved nothing"
    );
}

/// `asking.py` against the stateless frontend of `cluster`: its output.
fn ask_through(cluster: &Cluster, calls: usize) -> std::process::Output {
    let script = py_support::workspace_root().join("examples/tests/mcp/asking.py");
    let target = format!("stateless:http://{}/mcp", cluster.stateless_front);
    Command::new(py_support::python())
        .arg(&script)
        .args(["--calls", &calls.to_string(), &target])
        .output()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", script.display()))
}

#[test]
fn stateless_tools_that_ask_are_answered_on_any_instance_that_shares_the_key() {
    let _serial = serial();
    const CALLS: usize = 3;
    let key = (
        "MCP_REQUEST_STATE_KEY",
        "a key of 32 bytes or more, shared by all three",
    );
    let shared = ["--stateless", "--request-state-key-env", key.0];
    let cluster = Cluster::start_with(CONFORMANCE, &shared, &[key]);
    let out = ask_through(&cluster, CALLS);
    assert!(
        out.status.success()
            && String::from_utf8_lossy(&out.stdout).contains("all 3 checks passed"),
        "asking through the proxy failed:\n{}\nHAProxy said:\n{}",
        py_support::report(&out),
        cluster.log_tail(40)
    );
    let stats = cluster.stats();
    let served = stats.per_server("mcp_stateless", "hrsp_2xx");
    eprintln!("asking: POSTs answered per instance {served:?}");
    assert!(
        served.iter().filter(|&&n| n > 0).count() == INSTANCES,
        "round-robin should have used every instance: {served:?}"
    );
    drop(cluster);

    // The same through instances with keys of their own: a retry that lands elsewhere than its
    // first round is refused, which shows that the retries above crossed instances.
    let cluster = Cluster::start_with(CONFORMANCE, &["--stateless"], &[]);
    let out = ask_through(&cluster, 1);
    let report = py_support::report(&out);
    assert!(
        !out.status.success() && report.contains("requestState"),
        "instances with keys of their own accepted each other's states:\n{report}"
    );
}
