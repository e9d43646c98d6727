//! `toolctl` end to end: the real binary, its output and its exit codes.

use std::io::Write;
use std::net::TcpListener;
use std::process::{Command, Output, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use serde_json::Value;

fn toolctl(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_toolctl"))
        .args(args)
        .output()
        .expect("toolctl runs")
}

/// `toolctl ARGS` with `input` on its standard input.
fn toolctl_with_stdin(args: &[&str], input: &[u8]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_toolctl"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("toolctl runs");
    // toolctl reads all of its input before it writes: this cannot deadlock.
    child
        .stdin
        .take()
        .expect("piped stdin")
        .write_all(input)
        .expect("toolctl reads its input");
    child.wait_with_output().expect("toolctl runs")
}

fn json_out(out: &Output) -> Value {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "stdout is not JSON ({e}): {}",
            String::from_utf8_lossy(&out.stdout)
        )
    })
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn list_json_shows_the_scopes_a_tool_needs_and_only_then() {
    let dir = tempfile::tempdir().unwrap();
    let defs = dir.path().join("defs.json");
    let tools = serde_json::json!([
        {"name": "delete_note", "description": "Deletes a note by its id.",
         "inputSchema": {"type": "object"}, "scopes": ["notes:write", "notes:admin"]},
        {"name": "read_note", "description": "Reads a note by its id.",
         "inputSchema": {"type": "object"}}
    ]);
    std::fs::write(&defs, tools.to_string()).unwrap();
    let out = toolctl(&["list", "--json", "--defs", defs.to_str().unwrap()]);
    assert!(out.status.success(), "{}", stderr(&out));
    let listed = json_out(&out);
    let by_name = |name: &str| {
        listed
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["name"] == name)
            .cloned()
            .unwrap_or_else(|| panic!("{name} is not listed"))
    };
    assert_eq!(
        by_name("delete_note")["scopes"],
        serde_json::json!(["notes:write", "notes:admin"])
    );
    assert!(by_name("read_note").get("scopes").is_none());
}

#[test]
fn list_json_has_the_eight_bundled_tools_with_full_definitions() {
    let out = toolctl(&["list", "--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let tools = json_out(&out);
    let tools = tools.as_array().expect("an array");
    let names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(
        names,
        [
            "get_file_info",
            "list_directory",
            "read_file",
            "search_files",
            "convert_time",
            "get_current_time",
            "wait_duration",
            "fetch_url"
        ]
    );
    for t in tools {
        for key in [
            "description",
            "domain",
            "label",
            "hint",
            "core",
            "annotations",
            "input_schema",
        ] {
            assert!(!t[key].is_null(), "{} lacks {key}", t["name"]);
        }
        assert_eq!(t["core"], false, "bundled tools are deferred");
        assert_eq!(
            t["annotations"]["open_world"],
            t["name"] == "fetch_url",
            "{} open world",
            t["name"]
        );
        assert_eq!(t["annotations"]["read_only"], true);
        assert_eq!(t["input_schema"]["type"], "object");
        assert_eq!(t["input_schema"]["additionalProperties"], false);
        assert_eq!(
            t["output_schema"]["type"], "object",
            "{} is typed",
            t["name"]
        );
        assert!(!t["examples"].as_array().unwrap().is_empty());
        let long = ["wait_duration", "fetch_url"].contains(&t["name"].as_str().unwrap());
        assert_eq!(
            t.get("task"),
            long.then_some(&Value::Bool(true)),
            "{} task",
            t["name"]
        );
    }
    let convert = &tools[4];
    assert_eq!(
        convert["input_schema"]["required"],
        serde_json::json!(["time", "from_timezone", "to_timezone"])
    );
}

#[test]
fn get_current_time_succeeds_for_a_zone_and_names_a_bad_field() {
    let out = toolctl(&[
        "call",
        "get_current_time",
        "--input",
        r#"{"timezone":"Europe/Paris"}"#,
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let v = json_out(&out);
    assert_eq!(v["ok"], true);
    assert_eq!(v["data"]["timezone"], "Europe/Paris");
    let offset = v["data"]["utc_offset"].as_str().unwrap();
    assert!(offset == "+01:00" || offset == "+02:00", "{offset}");

    let out = toolctl(&["call", "get_current_time", "--input", r#"{"timezone":5}"#]);
    assert_eq!(out.status.code(), Some(1));
    let v = json_out(&out);
    assert_eq!(v["error"]["path"], "timezone");
    assert!(stderr(&out).contains("timezone: invalid type: integer `5`, expected a string"));
}

/// A tool whose input is one `#[input]` struct refuses a key its schema does not list, with a
/// did-you-mean, from the command line as from any caller (conformance-server's
/// `json_schema_2020_12_tool`).
#[test]
fn an_input_structs_unknown_key_gets_a_did_you_mean() {
    let out = Command::new(env!("CARGO_BIN_EXE_conformance-server"))
        .args([
            "call",
            "json_schema_2020_12_tool",
            "--input",
            r#"{"name": "Ada", "emial": "ada@example.com"}"#,
        ])
        .output()
        .expect("conformance-server runs");
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let v = json_out(&out);
    assert_eq!(v["error"]["kind"], "invalid_input", "{v}");
    assert!(
        stderr(&out).contains("unknown parameter `emial` (did you mean `email`?)"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn read_file_refuses_escapes_and_symlinks_out_of_the_root() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("notes.txt"), "hello\n").unwrap();
    std::os::unix::fs::symlink("/etc/hostname", dir.path().join("sneaky")).unwrap();
    let root = dir.path().to_str().unwrap();

    let out = toolctl(&[
        "call",
        "read_file",
        "--root",
        root,
        "--input",
        r#"{"path":"notes.txt"}"#,
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(json_out(&out)["data"]["content"], "hello\n");

    let out = toolctl(&[
        "call",
        "read_file",
        "--root",
        root,
        "--input",
        r#"{"path":"../../etc/passwd"}"#,
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("uses `..` to leave the root directory"),
        "{}",
        stderr(&out)
    );

    let out = toolctl(&[
        "call",
        "read_file",
        "--root",
        root,
        "--input",
        r#"{"path":"sneaky"}"#,
    ]);
    assert_eq!(out.status.code(), Some(1));
    let v = json_out(&out);
    assert_eq!(v["error"]["kind"], "permission_denied");
    assert!(
        stderr(&out).contains("symlink that leads outside the root"),
        "{}",
        stderr(&out)
    );

    let out = toolctl(&[
        "call",
        "read_file",
        "--root",
        root,
        "--input",
        r#"{"path":"/etc/passwd"}"#,
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("absolute path outside the root"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn usage_errors_exit_2() {
    let out = toolctl(&["call", "get_curent_time"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("did you mean `get_current_time`?"),
        "{}",
        stderr(&out)
    );
    let out = toolctl(&["call", "get_current_time", "--input", "{not json"]);
    assert_eq!(out.status.code(), Some(2));
    let out = toolctl(&["frobnicate"]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn show_prints_one_definition_and_input_can_come_from_stdin() {
    let out = toolctl(&["show", "convert_time"]);
    assert!(out.status.success());
    assert_eq!(json_out(&out)["label"], "Converting time zones");

    let out = toolctl_with_stdin(
        &["call", "convert_time", "--input", "-"],
        br#"{"time":"2026-01-15T09:00","from_timezone":"UTC","to_timezone":"Asia/Tokyo"}"#,
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(
        json_out(&out)["data"]["target"]["datetime"],
        "2026-01-15T18:00:00+09:00"
    );
}

#[test]
fn check_is_clean_for_the_bundled_tools_and_names_tool_and_rule_for_bad_definitions() {
    let out = toolctl(&["check"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let out = toolctl(&["check", "--strict"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );

    let defs = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/data/bad_defs.json");
    let out = toolctl(&["check", "--defs", defs]);
    assert_eq!(out.status.code(), Some(1));
    let report = String::from_utf8_lossy(&out.stdout);
    for expected in [
        "error[name.pattern] Search Docs!",
        "error[description.missing] list_pages",
        "error[schema.root] list_pages",
        "error[schema.dialect] get_page",
        "error[mcp.annotations] get_page",
        "error[hint.missing] get_page",
    ] {
        assert!(
            report.contains(expected),
            "{expected} missing from:\n{report}"
        );
    }
    let out = toolctl(&["check", "--json", "--defs", defs]);
    let v = json_out(&out);
    let d = v["diagnostics"].as_array().unwrap();
    assert!(
        d.iter()
            .all(|d| d["tool"].is_string() && d["rule"].is_string() && d["fix"].is_string())
    );
}

#[test]
fn export_writes_every_format_as_a_json_array() {
    for format in [
        "openai",
        "openai-responses",
        "anthropic",
        "gemini",
        "gemini-openapi",
        "mcp",
    ] {
        let out = toolctl(&["export", "--format", format]);
        assert!(out.status.success(), "{format}: {}", stderr(&out));
        let v = json_out(&out);
        assert!(v.as_array().is_some_and(|a| a.len() >= 6), "{format}");
    }
    let out = toolctl(&["export", "--format", "claude"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("expected one of"), "{}", stderr(&out));
}

/// `toolctl` with no `TOOL_HTTP_*` variable of this process, and `vars` set.
fn toolctl_http(args: &[&str], vars: &[(&str, &str)]) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_toolctl"));
    for (name, _) in std::env::vars_os() {
        if name.to_string_lossy().starts_with("TOOL_HTTP_") {
            command.env_remove(name);
        }
    }
    command.args(args).envs(vars.iter().copied());
    command.output().expect("toolctl runs")
}

fn fetch(url: &str, vars: &[(&str, &str)]) -> Output {
    let input = serde_json::json!({ "url": url }).to_string();
    toolctl_http(&["call", "fetch_url", "--input", &input], vars)
}

#[test]
fn fetch_url_refuses_cloud_metadata_and_local_addresses() {
    // (URL, what the refusal says of it). The executor masks internal addresses in the
    // message the model sees ("[internal host] is ..."), so the address itself is not compared.
    for (url, reason) in [
        (
            "http://169.254.169.254/latest/meta-data/",
            "is a link-local (cloud metadata) address",
        ),
        (
            "http://metadata.google.internal/computeMetadata/v1/",
            "is a cloud metadata host name",
        ),
        ("http://127.0.0.1:9/", "is a loopback address"),
        ("http://localhost/", "is a name of the local host"),
        ("http://[::1]/", "is a loopback address"),
        ("http://10.0.0.1/", "is a private address"),
        // The URL parser reads a bare number as an IPv4 address: 127.0.0.1.
        ("http://2130706433/", "is a loopback address"),
        (
            "http://[::ffff:a9fe:a9fe]/",
            "a link-local (cloud metadata) address",
        ),
    ] {
        let out = fetch(url, &[]);
        assert_eq!(out.status.code(), Some(1), "{url}: {}", stderr(&out));
        let v = json_out(&out);
        assert_eq!(v["ok"], false, "{url}");
        assert_eq!(v["error"]["kind"], "permission_denied", "{url}");
        assert_eq!(v["error"]["path"], "url", "{url}");
        let expected = format!("{reason}; fetching it is not allowed");
        let message = v["error"]["message"].as_str().unwrap();
        assert!(message.ends_with(&expected), "{url}: {message}");
        assert!(stderr(&out).contains(&expected), "{url}: {}", stderr(&out));
    }
    let out = fetch("file:///etc/passwd", &[]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(json_out(&out)["error"]["kind"], "invalid_input");
}

/// A loopback HTTP server answering every request with one HTML page; counts connections.
fn page_server() -> (u16, Arc<AtomicUsize>) {
    use std::io::Read;
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let hits = Arc::new(AtomicUsize::new(0));
    let counter = hits.clone();
    std::thread::spawn(move || {
        for socket in listener.incoming() {
            let Ok(mut socket) = socket else { continue };
            counter.fetch_add(1, Ordering::SeqCst);
            let mut head = Vec::new();
            let mut buf = [0u8; 1024];
            while !head.windows(4).any(|w| w == b"\r\n\r\n") {
                match socket.read(&mut buf) {
                    Ok(0) | Err(_) => break,
                    Ok(n) => head.extend_from_slice(&buf[..n]),
                }
            }
            let body = "<html><head><title>Loopback page</title></head>\
                        <body><h1>Hello</h1><p>From <a href=\"/next\">the test server</a>.</p></body></html>";
            let _ = write!(
                socket,
                "HTTP/1.1 200 OK\r\ncontent-type: text/html; charset=utf-8\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                body.len()
            );
        }
    });
    (port, hits)
}

#[test]
fn fetch_url_reads_a_loopback_page_only_when_the_host_is_allowed() {
    let (port, hits) = page_server();
    let url = format!("http://127.0.0.1:{port}/page");

    let out = fetch(&url, &[]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert_eq!(json_out(&out)["error"]["kind"], "permission_denied");
    assert_eq!(hits.load(Ordering::SeqCst), 0, "a refused fetch connected");

    let out = fetch(&url, &[("TOOL_HTTP_ALLOW_HOSTS", "127.0.0.1")]);
    assert!(out.status.success(), "{}", stderr(&out));
    let v = json_out(&out);
    let page = &v["data"];
    assert_eq!(page["url"], url.as_str());
    assert_eq!(page["status"], 200);
    assert_eq!(page["content_type"], "text/html");
    assert_eq!(page["title"], "Loopback page");
    assert_eq!(page["truncated"], false);
    let text = page["text"].as_str().unwrap();
    assert!(text.starts_with("# Hello"), "{text}");
    assert!(text.contains("From [the test server][1]."), "{text}");
    assert!(
        text.contains(&format!("[1]: http://127.0.0.1:{port}/next")),
        "{text}"
    );
    assert_eq!(hits.load(Ordering::SeqCst), 1);

    // A misspelt setting is reported, naming the variable, and nothing is fetched.
    let out = fetch(&url, &[("TOOL_HTTP_ALOW_HOSTS", "127.0.0.1")]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out)
            .contains("TOOL_HTTP_ALOW_HOSTS is not a setting; did you mean TOOL_HTTP_ALLOW_HOSTS?"),
        "{}",
        stderr(&out)
    );
    assert_eq!(hits.load(Ordering::SeqCst), 1);
}

#[test]
fn search_finds_tools_by_task_singly_and_in_batches() {
    let out = toolctl(&["search", "what time is it in Tokyo", "--top", "2", "--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let found = json_out(&out);
    assert_eq!(found[0]["name"], "get_current_time");
    assert_eq!(found.as_array().unwrap().len(), 2);

    // A catalog that is not linked in: the evaluation set, through --defs.
    let defs = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../tests/data/catalog/tools.json"
    );
    let out = toolctl_with_stdin(
        &["--defs", defs, "search", "--queries", "-", "--top", "3"],
        b"{\"query\": \"open a PR for my branch\"}\n\n{\"query\": \"list k8s pods\"}\n",
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let lines: Vec<Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 2, "one line out per query, in order");
    assert_eq!(lines[0]["query"], "open a PR for my branch");
    // Ranking quality is catalog_eval's to judge; here, that the batch carries the results.
    let first: Vec<&Value> = lines[0]["results"].as_array().unwrap().iter().collect();
    assert!(
        first.iter().any(|r| *r == "github__create_pull_request"),
        "{first:?}"
    );
    assert!(
        lines[1]["results"]
            .as_array()
            .unwrap()
            .iter()
            .any(|r| r == "kubernetes__kubectl_get")
    );
}

#[test]
fn search_names_bad_batches_and_domains() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("q.jsonl");
    std::fs::write(&file, "{\"query\": \"ok\"}\nnot json\n").unwrap();
    let out = toolctl(&["search", "--queries", file.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("line 2"), "{}", stderr(&out));
    let out = toolctl(&["search", "files", "--domain", "nowhere"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("the domains are: fs, time, web"),
        "{}",
        stderr(&out)
    );
    let out = toolctl(&["search"]);
    assert_eq!(
        out.status.code(),
        Some(2),
        "a query or --queries is required"
    );
}

/// A model `scripts/embed-model-env` installs (scripts/test runs it first).
#[cfg(feature = "embed")]
fn model(name: &str) -> std::path::PathBuf {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../target/models")
        .join(name);
    assert!(
        dir.join("model.safetensors").is_file(),
        "{} is missing: run scripts/embed-model-env {name}",
        dir.display()
    );
    dir
}

#[cfg(feature = "embed")]
fn embed_model() -> std::path::PathBuf {
    model("all-MiniLM-L6-v2")
}

// toolctl's `--embed-model` needs the feature `embed` (scripts/test turns it on).
#[cfg(feature = "embed")]
#[test]
fn search_with_mpnet_over_a_definitions_file() {
    let model = model("all-mpnet-base-v2");
    let dir = tempfile::tempdir().unwrap();
    // A few of the evaluation set's tools, so the cold start embeds little.
    let all: Vec<Value> = serde_json::from_str(
        &std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../tests/data/catalog/tools.json"
        ))
        .unwrap(),
    )
    .unwrap();
    let wanted = [
        "time__get_current_time",
        "time__convert_time",
        "fetch__fetch",
        "github__create_pull_request",
        "github__merge_pull_request",
        "github__list_issues",
        "github__search_repositories",
        "filesystem__read_file",
        "filesystem__write_file",
    ];
    let subset: Vec<&Value> = all
        .iter()
        .filter(|t| wanted.contains(&t["name"].as_str().unwrap_or_default()))
        .collect();
    assert!(subset.len() >= wanted.len(), "{} tools", subset.len());
    let defs = dir.path().join("tools.json");
    std::fs::write(&defs, serde_json::to_string(&subset).unwrap()).unwrap();
    let queries = dir.path().join("queries.jsonl");
    std::fs::write(
        &queries,
        "{\"query\": \"what's the hour over in Tokyo right now\"}\n\
         {\"query\": \"ask my teammates to look at the changes on my branch\"}\n",
    )
    .unwrap();
    let out = toolctl(&[
        "search",
        "--embed-model",
        model.to_str().unwrap(),
        "--embed-cache",
        dir.path().join("cache").to_str().unwrap(),
        "--defs",
        defs.to_str().unwrap(),
        "--queries",
        queries.to_str().unwrap(),
        "--top",
        "5",
        "--json",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let lines: Vec<Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 2, "one line per query, in order");
    // The linked tools are searched too: the bundled `get_current_time` or the file's.
    let first = lines[0]["results"][0].as_str().unwrap_or_default();
    assert!(first.ends_with("get_current_time"), "{lines:?}");
    assert_eq!(
        lines[1]["results"][0], "github__create_pull_request",
        "{lines:?}"
    );
}

// toolctl's `--embed-model` needs the feature `embed` (scripts/test turns it on).
#[cfg(feature = "embed")]
#[test]
fn search_with_a_model_fuses_meaning_with_words_and_caches_tool_vectors() {
    let model = embed_model();
    let cache = tempfile::tempdir().unwrap();
    let model_arg = model.to_str().unwrap();
    let cache_arg = cache.path().to_str().unwrap();
    let queries = b"{\"query\": \"what's the hour over in Tokyo right now\"}\n{\"query\": \"grab the text of that page for me\"}\n";
    let run = |extra: &[&str]| {
        let mut args = vec!["search", "--queries", "-", "--top", "5", "--json"];
        args.extend_from_slice(extra);
        let out = toolctl_with_stdin(&args, queries);
        assert!(out.status.success(), "{}", stderr(&out));
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .map(|l| serde_json::from_str::<Value>(l).unwrap())
            .collect::<Vec<Value>>()
    };
    let hybrid = run(&["--embed-model", model_arg, "--embed-cache", cache_arg]);
    assert_eq!(hybrid.len(), 2, "one line per query, in order");
    assert_eq!(hybrid[0]["results"][0], "get_current_time", "{hybrid:?}");
    assert_eq!(hybrid[1]["results"][0], "fetch_url", "{hybrid:?}");
    // The tool vectors were written; a second run reads them and ranks the same.
    let files: Vec<_> = std::fs::read_dir(cache.path()).unwrap().collect();
    assert_eq!(files.len(), 1, "one cache file for the model");
    assert_eq!(
        run(&["--embed-model", model_arg, "--embed-cache", cache_arg]),
        hybrid
    );

    // The environment names the model when the flag does not.
    let out = Command::new(env!("CARGO_BIN_EXE_toolctl"))
        .args([
            "search",
            "what's the hour over in Tokyo right now",
            "--json",
            "--embed-cache",
            cache_arg,
        ])
        .env("TOOL_CORE_EMBED_MODEL", model_arg)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let found = json_out(&out);
    assert_eq!(found[0]["name"], "get_current_time");
    // Weighted fusion scores lie in 0..=1; the lexical engine's BM25 scores do not.
    assert!(found[0]["score"].as_f64().unwrap() <= 1.0, "{found}");
}

#[test]
fn a_model_directory_that_cannot_be_loaded_is_named_in_the_error() {
    let empty = tempfile::tempdir().unwrap();
    let out = toolctl(&[
        "search",
        "files",
        "--embed-model",
        empty.path().to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(1));
    let message = stderr(&out);
    assert!(
        message.contains(empty.path().to_str().unwrap()),
        "{message}"
    );
}

/// `toolctl call` of a tool that needs approval, with a person at the terminal: stderr read
/// as it comes (each chunk sent on a channel, so the test waits on the question itself), the
/// answer written once the question shows. The tool's output on stdout, and the exit code.
fn call_answering(answer: Option<&str>) -> (bool, Value, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_toolctl"))
        .args([
            "call",
            "get_current_time",
            "--input",
            r#"{"timezone": "UTC"}"#,
        ])
        .args(["--approval", "get_current_time"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("toolctl runs");
    let (chunks, seen) = std::sync::mpsc::channel::<String>();
    let mut pipe = child.stderr.take().expect("piped");
    let reader = std::thread::spawn(move || {
        let mut buf = [0u8; 4096];
        while let Ok(n) = std::io::Read::read(&mut pipe, &mut buf) {
            if n == 0
                || chunks
                    .send(String::from_utf8_lossy(&buf[..n]).into_owned())
                    .is_err()
            {
                break;
            }
        }
    });
    let mut stderr = String::new();
    while !stderr.contains("\n> ") {
        let chunk = seen
            .recv_timeout(std::time::Duration::from_secs(60))
            .unwrap_or_else(|_| panic!("no question on stderr:\n{stderr}"));
        stderr.push_str(&chunk);
    }
    assert!(stderr.contains("? approval needed"), "{stderr}");
    let mut stdin = child.stdin.take().expect("piped");
    if let Some(answer) = answer {
        stdin.write_all(format!("{answer}\n").as_bytes()).unwrap();
    }
    drop(stdin);
    let out = child.wait_with_output().expect("toolctl runs");
    reader.join().unwrap();
    stderr.extend(seen.try_iter());
    (out.status.success(), json_out(&out), stderr)
}

#[test]
fn call_asks_at_the_terminal_before_a_call_that_needs_approval() {
    let (ok, out, stderr) = call_answering(Some("n not now"));
    assert!(!ok, "{stderr}");
    assert_eq!(out["error"]["kind"], "not_approved", "{out}");
    assert!(stderr.contains("not now"), "{stderr}");

    let (ok, out, stderr) = call_answering(Some("y"));
    assert!(ok, "{stderr}");
    assert_eq!(out["data"]["timezone"], "UTC", "{out}");

    // The input ends unanswered: no one can approve, the tool does not run.
    let (ok, out, _) = call_answering(None);
    assert!(!ok);
    assert_eq!(out["error"]["kind"], "not_approved", "{out}");
}

/// `echo y | toolctl call ...`: an answer written before the question is typed ahead, and
/// never answers it; the input then ends, so the call is refused.
#[test]
fn an_answer_piped_in_before_the_question_does_not_approve() {
    let (input, mut typed) = std::io::pipe().unwrap();
    typed.write_all(b"y\n").unwrap();
    drop(typed);
    let out = Command::new(env!("CARGO_BIN_EXE_toolctl"))
        .args(["call", "get_current_time", "--approval", "get_current_time"])
        .stdin(input)
        .output()
        .expect("toolctl runs");
    let message = stderr(&out);
    assert!(!out.status.success(), "{message}");
    assert_eq!(json_out(&out)["error"]["kind"], "not_approved");
    assert!(message.contains("? approval needed"), "{message}");
    assert!(
        message.contains("(input closed: the call is not run)"),
        "{message}"
    );
}

#[test]
fn transforms_reshape_list_export_and_call() {
    let flags = [
        "--keep",
        "domain:time",
        "--rename",
        "get_current_time=read_clock",
        "--hide",
        "read_clock.timezone=\"Asia/Tokyo\"",
    ];
    let listed = toolctl(&[&flags[..], &["list", "--json"]].concat());
    assert!(listed.status.success(), "{}", stderr(&listed));
    let listed = json_out(&listed);
    let names: Vec<&str> = listed
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert!(names.contains(&"read_clock"), "{names:?}");
    assert!(!names.contains(&"get_current_time"), "{names:?}");
    for format in ["openai", "anthropic", "gemini", "mcp"] {
        let out = toolctl(&[&flags[..], &["export", "--format", format]].concat());
        assert!(out.status.success(), "{}", stderr(&out));
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(text.contains("\"read_clock\""), "{format}: {text}");
        assert!(!text.contains("\"get_current_time\""), "{format}");
    }
    let called = toolctl(&[&flags[..], &["call", "read_clock"]].concat());
    assert!(called.status.success(), "{}", stderr(&called));
    let data = &json_out(&called)["data"];
    assert_eq!(data["timezone"], "Asia/Tokyo", "{data}");

    // A step that names no tool says so, with the near name.
    let out = toolctl(&["--rename", "get_curent_time=read_clock", "list"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("did you mean `get_current_time`?"),
        "{}",
        stderr(&out)
    );
}
