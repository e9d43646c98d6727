//! The held-out world: a project tracker (projects, issues, builds, people) as core tools, two
//! tools of the test catalog's Stripe server with answers shaped like Stripe's, and a service
//! tree for the bundled file tools. Its tasks were written after code mode's guide and stubs
//! were last changed, and were not changed after being measured (docs/benchmarks.md).

use std::path::Path;
use std::time::{Duration, SystemTime};

use serde_json::{Value, json};
use tool_core::{Registry, ToolError, ToolOutput, registry::DynamicTool};

use crate::args::{int_arg, schema, text_arg};

pub const PROJECTS: [&str; 4] = ["api", "web", "cli", "docs"];
pub const USERS: [&str; 6] = ["mia", "noah", "olga", "pete", "quinn", "rosa"];
pub const STEPS: [&str; 5] = ["checkout", "build", "test", "lint", "package"];
const ISSUES_EACH: u64 = 14;
const BUILDS_EACH: u64 = 10;

fn project_index(name: &str) -> Option<usize> {
    PROJECTS.iter().position(|p| *p == name)
}

pub fn issue_ids(project: usize) -> impl Iterator<Item = u64> {
    (0..ISSUES_EACH).map(move |k| 1 + project as u64 * 100 + k)
}

pub fn issue_state(id: u64) -> &'static str {
    if (id * 5 + id / 100).is_multiple_of(3) {
        "closed"
    } else {
        "open"
    }
}

pub fn priority(id: u64) -> &'static str {
    ["p0", "p1", "p2", "p3"][((id * 3 + id / 100) % 4) as usize]
}

pub fn assignee(id: u64) -> &'static str {
    USERS[((id * 7 + id / 100 * 3) % 6) as usize]
}

pub fn labels(id: u64) -> Vec<&'static str> {
    let all = ["bug", "feature", "docs", "flaky", "perf"];
    let mut out = vec![all[(id % 5) as usize]];
    if id.is_multiple_of(2) {
        out.push(all[((id / 2) % 5) as usize]);
    }
    out.dedup();
    out
}

/// The month (2026) an issue was last updated.
pub fn updated_month(id: u64) -> u64 {
    8 + (id * 11 + id / 100) % 5
}

pub fn title(id: u64) -> String {
    let step = STEPS[(id % 5) as usize];
    match id % 4 {
        0 => format!("The {step} step is slow on large workspaces"),
        1 => format!("Flaky {step} step on main"),
        2 => format!("Document how the {step} step is configured"),
        _ => format!("Retry the {step} step when the runner is lost"),
    }
}

fn issue_summary(id: u64) -> Value {
    let project = PROJECTS[(id / 100) as usize];
    json!({
        "id": id,
        "project": project,
        "title": title(id),
        "state": issue_state(id),
        "priority": priority(id),
        "assignee": assignee(id),
        "labels": labels(id),
        "created": format!("2026-0{}-{:02}T10:00:00Z", 1 + id % 7, 1 + id % 28),
        "updated": format!("2026-{:02}-{:02}T16:45:00Z", updated_month(id), 1 + (id * 3) % 28),
        "comments": 3 + id % 3,
        "url": format!("https://tracker.example.com/{project}/issues/{id}")
    })
}

pub fn comment_author(id: u64, c: u64) -> &'static str {
    USERS[((id + c * 5) % 6) as usize]
}

fn issue_detail(id: u64) -> Value {
    let mut issue = issue_summary(id);
    let comments: Vec<Value> = (0..3 + id % 3)
        .map(|c| {
            json!({
                "id": id * 10 + c,
                "author": comment_author(id, c),
                "created": format!("2026-{:02}-{:02}T{:02}:20:00Z", updated_month(id), 1 + (id + c) % 28, 9 + c),
                "body": format!("Seen again on run {}: the {} step {}. Attaching the runner's log; \
                                 it looks like the cache key changed between runs.",
                                 4000 + id * 3 + c, STEPS[((id + c) % 5) as usize],
                                 ["timed out", "exited with code 1", "was cancelled", "passed on retry"][(c % 4) as usize]),
                "reactions": {"+1": c, "eyes": id % 2}
            })
        })
        .collect();
    issue["body"] = json!(format!(
        "{}\n\nSteps to reproduce: push a branch with more than 40 crates and watch the pipeline. \
         Expected the step to finish within its budget; it does not. Environment: shared runners, \
         image ci-2026.11.",
        title(id)
    ));
    issue["comments"] = Value::Array(comments);
    issue
}

pub fn build_ids(project: usize) -> impl Iterator<Item = u64> {
    (0..BUILDS_EACH).map(move |b| 5000 + project as u64 * 100 + b)
}

pub fn branch(id: u64) -> &'static str {
    ["main", "feature/cache", "main", "release/2.4", "main"][(id % 5) as usize]
}

pub fn build_status(id: u64) -> &'static str {
    [
        "passed",
        "failed",
        "passed",
        "cancelled",
        "failed",
        "passed",
    ][((id * 5 + id / 100) % 6) as usize]
}

pub fn triggered_by(id: u64) -> &'static str {
    USERS[((id * 5 + 1) % 6) as usize]
}

/// The step a failed build failed at.
pub fn failed_step(id: u64) -> &'static str {
    STEPS[1 + (id % 4) as usize]
}

fn build_summary(id: u64) -> Value {
    json!({
        "id": id,
        "project": PROJECTS[((id - 5000) / 100) as usize],
        "branch": branch(id),
        "status": build_status(id),
        "commit": format!("{:016x}{:016x}{:08x}", id.wrapping_mul(0x9e37_79b9_7f4a_7c15), id.wrapping_mul(0xc2b2_ae3d_27d4_eb4f), id * 2_654_435 % 0xffff_ffff),
        "triggered_by": triggered_by(id),
        "started": format!("2026-12-{:02}T{:02}:{:02}:00Z", 1 + (id % 3), 8 + id % 9, (id * 7) % 60),
        "duration_s": 200 + (id * 37) % 900,
        "runner": format!("shared-{}", id % 7)
    })
}

fn build_detail(id: u64) -> Value {
    let mut build = build_summary(id);
    let failed = (build_status(id) == "failed").then(|| failed_step(id));
    let mut reached = true;
    let steps: Vec<Value> = STEPS
        .iter()
        .map(|step| {
            let status = if !reached {
                "skipped"
            } else if Some(*step) == failed {
                reached = false;
                "failed"
            } else {
                "passed"
            };
            json!({
                "name": step,
                "status": status,
                "duration_s": 10 + (id + step.len() as u64 * 13) % 120,
                "log_tail": [
                    format!("[{step}] using cache key {:x}", id * 31 + step.len() as u64),
                    format!("[{step}] {} units processed", 40 + id % 17),
                    format!("[{step}] {}", if status == "failed" { "error: process exited with code 1" } else { "done" }),
                ]
            })
        })
        .collect();
    build["steps"] = Value::Array(steps);
    build["artifacts"] = json!([{"name": "logs.zip", "size": 120_000 + id * 17}]);
    build
}

fn user(i: usize) -> Value {
    let name = USERS[i];
    json!({
        "id": name,
        "name": format!("{}{} Example", name[..1].to_uppercase(), &name[1..]),
        "email": format!("{name}@tracker.example.com"),
        "team": (["platform", "web", "tooling"][i % 3]),
        "role": (["engineer", "senior engineer", "lead"][i % 3]),
        "timezone": (["Europe/Oslo", "America/Toronto", "Asia/Tokyo", "Europe/Lisbon", "America/Denver", "Australia/Perth"][i]),
        "manager": USERS[(i + 2) % 6],
        "joined": format!("202{}-0{}-15", i % 5, 1 + i % 9),
        "on_call": i.is_multiple_of(3)
    })
}

pub fn user_index(name: &str) -> Option<usize> {
    USERS.iter().position(|u| *u == name)
}

/// The tracker's tools, registered as core tools.
pub fn register(r: &mut Registry) {
    let tool = |name: &str, description: &str, input: Value| {
        DynamicTool::new(name.to_owned(), description.to_owned(), input).core(true)
    };
    let project_arg = |input: &Value| -> Result<usize, ToolError> {
        let name = text_arg(input, "project")?;
        project_index(&name).ok_or_else(|| ToolError::not_found(format!("no project {name}")))
    };
    r.register(
        tool(
            "list_projects",
            "Lists the tracker's projects with their leads and open issue counts.",
            schema(json!({}), &[]),
        )
        .handler(|_, _| async move {
            let projects: Vec<Value> = PROJECTS
                .iter()
                .enumerate()
                .map(|(p, name)| {
                    json!({
                        "id": name,
                        "lead": USERS[p],
                        "open_issues": issue_ids(p).filter(|i| issue_state(*i) == "open").count(),
                        "repository": format!("git@git.example.com:acme/{name}.git")
                    })
                })
                .collect();
            Ok(ToolOutput::new(json!({"projects": projects})))
        }),
    )
    .unwrap();
    r.register(
        tool(
            "list_issues",
            "Lists a project's issues, newest first: title, state, priority, assignee, labels and dates.",
            schema(
                json!({
                    "project": {"type": "string", "description": "The project's id"},
                    "state": {"type": "string", "enum": ["open", "closed"], "description": "Only issues in this state; default all"}
                }),
                &["project"],
            ),
        )
        .handler(move |input, _| async move {
            let p = project_arg(&input)?;
            let state = input.get("state").and_then(Value::as_str);
            let mut issues: Vec<Value> = issue_ids(p)
                .filter(|i| state.is_none_or(|s| issue_state(*i) == s))
                .map(issue_summary)
                .collect();
            issues.reverse();
            Ok(ToolOutput::new(json!({"issues": issues, "count": issues.len()})))
        }),
    )
    .unwrap();
    r.register(
        tool(
            "get_issue",
            "Returns one issue with its description and every comment.",
            schema(json!({"issue_id": {"type": "integer"}}), &["issue_id"]),
        )
        .handler(|input, _| async move {
            Ok(ToolOutput::new(issue_detail(int_arg(&input, "issue_id")?)))
        }),
    )
    .unwrap();
    r.register(
        tool(
            "list_builds",
            "Lists a project's latest CI builds, newest first: branch, status, commit, who triggered it.",
            schema(json!({"project": {"type": "string", "description": "The project's id"}}), &["project"]),
        )
        .handler(move |input, _| async move {
            let p = project_arg(&input)?;
            let mut builds: Vec<Value> = build_ids(p).map(build_summary).collect();
            builds.reverse();
            Ok(ToolOutput::new(json!({"builds": builds})))
        }),
    )
    .unwrap();
    r.register(
        tool(
            "get_build",
            "Returns one CI build with each step's status, duration and last log lines.",
            schema(json!({"build_id": {"type": "integer"}}), &["build_id"]),
        )
        .handler(|input, _| async move {
            Ok(ToolOutput::new(build_detail(int_arg(&input, "build_id")?)))
        }),
    )
    .unwrap();
    r.register(
        tool(
            "get_user",
            "Returns a person's profile: name, email, team, role, time zone and manager.",
            schema(
                json!({"user": {"type": "string", "description": "The user's id"}}),
                &["user"],
            ),
        )
        .handler(|input, _| async move {
            let name = text_arg(&input, "user")?;
            let i =
                user_index(&name).ok_or_else(|| ToolError::not_found(format!("no user {name}")))?;
            Ok(ToolOutput::new(user(i)))
        }),
    )
    .unwrap();
}

pub const STRIPE_CUSTOMERS: u64 = 10;

pub fn stripe_email(c: u64) -> String {
    let domain = ["example.org", "example.net", "example.com"][(c % 3) as usize];
    format!("buyer{c}@{domain}")
}

fn stripe_customer(c: u64) -> Value {
    json!({
        "id": format!("cus_N{c:05}"),
        "object": "customer",
        "address": null,
        "balance": 0,
        "created": 1_764_000_000 + c * 86_400,
        "currency": "eur",
        "default_source": null,
        "delinquent": c % 4 == 1,
        "description": null,
        "email": stripe_email(c),
        "invoice_prefix": format!("A{c:03}B"),
        "invoice_settings": {"custom_fields": null, "default_payment_method": null, "footer": null},
        "livemode": false,
        "metadata": {},
        "name": format!("Buyer {c}"),
        "preferred_locales": ["en"],
        "tax_exempt": "none"
    })
}

pub fn intent_status(c: u64, k: u64) -> &'static str {
    [
        "succeeded",
        "requires_payment_method",
        "succeeded",
        "canceled",
    ][((c + k * 3) % 4) as usize]
}

fn payment_intent(c: u64, k: u64) -> Value {
    let status = intent_status(c, k);
    json!({
        "id": format!("pi_3Q{c:03}{k:02}"),
        "object": "payment_intent",
        "amount": 1000 + c * 250 + k * 75,
        "amount_received": if status == "succeeded" { 1000 + c * 250 + k * 75 } else { 0 },
        "capture_method": "automatic",
        "client_secret": format!("pi_3Q{c:03}{k:02}_secret_redacted"),
        "created": 1_764_100_000 + c * 3_600 + k * 60,
        "currency": "eur",
        "customer": format!("cus_N{c:05}"),
        "description": format!("Order {}", 70_000 + c * 10 + k),
        "last_payment_error": if status == "requires_payment_method" { json!({"code": "card_declined", "decline_code": "insufficient_funds", "type": "card_error"}) } else { Value::Null },
        "livemode": false,
        "metadata": {},
        "payment_method_types": ["card"],
        "status": status
    })
}

/// Answers for the catalog's Stripe tools the held-out tasks call (the rest of the catalog has
/// no handler: listing and searching it is all a task does with it).
pub fn stripe_handler(name: &str, tool: DynamicTool) -> DynamicTool {
    match name {
        "stripe__list_customers" => tool.handler(|input, _| async move {
            let limit = input.get("limit").and_then(Value::as_u64).unwrap_or(10);
            let email = input.get("email").and_then(Value::as_str).map(str::to_owned);
            let data: Vec<Value> = (0..STRIPE_CUSTOMERS)
                .filter(|c| email.as_ref().is_none_or(|e| *e == stripe_email(*c)))
                .take(limit as usize)
                .map(stripe_customer)
                .collect();
            Ok(ToolOutput::new(json!({"object": "list", "data": data, "has_more": false, "url": "/v1/customers"})))
        }),
        "stripe__list_payment_intents" => tool.handler(|input, _| async move {
            let customer = input.get("customer").and_then(Value::as_str).unwrap_or_default();
            let c = customer
                .strip_prefix("cus_N")
                .and_then(|n| n.parse::<u64>().ok())
                .filter(|c| *c < STRIPE_CUSTOMERS)
                .ok_or_else(|| ToolError::not_found(format!("no customer {customer}")).with_path("customer"))?;
            let data: Vec<Value> = (0..3).map(|k| payment_intent(c, k)).collect();
            Ok(ToolOutput::new(json!({"object": "list", "data": data, "has_more": false, "url": "/v1/payment_intents"})))
        }),
        _ => tool,
    }
}

/// The services whose config files the file task searches, and which of them set a port.
pub const SERVICES: [(&str, bool); 5] = [
    ("auth", true),
    ("billing", false),
    ("search", true),
    ("mail", true),
    ("reports", false),
];

/// Writes the service tree the file task runs in under `root`, every file with the same
/// modification time on every run.
pub fn write_tree(root: &Path) -> std::io::Result<()> {
    let stamp = SystemTime::UNIX_EPOCH + Duration::from_secs(1_764_500_000);
    let write = |path: &str, text: String| -> std::io::Result<()> {
        let file = root.join(path);
        std::fs::create_dir_all(file.parent().unwrap_or(root))?;
        std::fs::write(&file, text)?;
        std::fs::File::options()
            .write(true)
            .open(&file)?
            .set_modified(stamp)
    };
    for (i, (service, port)) in SERVICES.iter().enumerate() {
        let mut config = format!("[service]\nname = \"{service}\"\nreplicas = {}\n", 2 + i);
        if *port {
            config.push_str(&format!(
                "\n[http]\nport = {}\ntimeout_ms = 3000\n",
                8080 + i
            ));
        }
        config.push_str("\n[log]\nlevel = \"info\"\nformat = \"json\"\n");
        write(&format!("services/{service}/config.toml"), config)?;
        write(
            &format!("services/{service}/README.md"),
            format!("# {service}\n\nOwned by the platform team. The port is set in config.toml.\n"),
        )?;
        write(
            &format!("services/{service}/src/main.rs"),
            "fn main() {\n    println!(\"starting\");\n}\n".to_owned(),
        )?;
    }
    write(
        "deploy/values.yaml",
        "replicas: 3\nimage: registry.example.com/acme\n".to_owned(),
    )?;
    Ok(())
}
