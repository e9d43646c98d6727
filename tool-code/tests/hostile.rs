//! Scripts that try to escape or exhaust the sandbox. Each must end with the right error (an
//! exception the sandbox raises, or the limit it reached), within that limit, leave this
//! process unharmed (the tests go on), and run no tool that should not run.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use serde_json::json;
use tool_code::worker::WorkerCommand;
use tool_code::{CodeLimits, CodeMode, Limit, Sandbox, ScriptError};
use tool_core::{Executor, Registry, ToolContext, ToolOutput, registry::DynamicTool};

/// How a hostile script must end.
#[derive(Debug, Clone, Copy)]
enum End {
    /// With this limit's error.
    Limit(Limit),
    /// With this uncaught exception.
    Raised(&'static str),
    /// Refused before it ran.
    Syntax,
    /// Ran, and its value could not be returned.
    Unreturnable,
    /// Ran to its end (the sandbox made the attempt harmless).
    Completes,
    /// The first in this process, the second in a worker, whose memory limit counts all the
    /// script holds.
    Place(&'static End, &'static End),
}

const MEMORY: End = End::Limit(Limit::Memory);

const CORPUS: &[(&str, &str, End)] = &[
    // Reaching the host.
    (
        "import os",
        "import os\nos.system('id')",
        End::Raised("AttributeError"),
    ),
    (
        "import subprocess",
        "import subprocess",
        End::Raised("ModuleNotFoundError"),
    ),
    (
        "import socket",
        "import socket",
        End::Raised("ModuleNotFoundError"),
    ),
    (
        "import ctypes",
        "import ctypes",
        End::Raised("ModuleNotFoundError"),
    ),
    (
        "sys.modules",
        "import sys\nsys.modules['os']",
        End::Raised("AttributeError"),
    ),
    (
        "open",
        "open('/etc/passwd').read()",
        End::Raised("PermissionError"),
    ),
    (
        "pathlib",
        "from pathlib import Path\nPath('/etc/passwd').read_text()",
        End::Raised("PermissionError"),
    ),
    (
        "write a file",
        "from pathlib import Path\nPath('/tmp/escaped').write_text('x')",
        End::Raised("PermissionError"),
    ),
    (
        "getenv",
        "import os\nos.getenv('HOME')",
        End::Raised("PermissionError"),
    ),
    (
        "environ",
        "import os\nos.environ['HOME']",
        End::Raised("PermissionError"),
    ),
    ("eval", "eval('1 + 1')", End::Raised("NameError")),
    ("exec", "exec('x = 1')", End::Raised("NameError")),
    ("__import__", "__import__('os')", End::Raised("NameError")),
    (
        "compile",
        "compile('1', 'x', 'eval')",
        End::Raised("NameError"),
    ),
    (
        "globals",
        "globals()['__builtins__']",
        End::Raised("NameError"),
    ),
    (
        "attribute walk",
        "().__class__.__bases__[0].__subclasses__()",
        End::Raised("AttributeError"),
    ),
    (
        "getattr walk",
        "getattr(getattr((), '__class__'), '__base__')",
        End::Raised("AttributeError"),
    ),
    ("a class", "class Escape(object):\n    pass", End::Syntax),
    (
        "the secret tool",
        "await read_secrets()",
        End::Raised("PermissionError"),
    ),
    // Exhausting it.
    (
        "endless loop",
        "while True:\n    pass",
        End::Limit(Limit::CpuTime),
    ),
    (
        "caught endless loop",
        "try:\n    while True:\n        pass\nexcept BaseException:\n    pass",
        End::Limit(Limit::CpuTime),
    ),
    ("big string", "'x' * 10**10", End::Limit(Limit::Memory)),
    ("big list", "[0] * 10**9", End::Limit(Limit::Memory)),
    ("big power", "2 ** 10**10", End::Limit(Limit::Memory)),
    // Padding is built without an up-front size check: the interpreter's clock ends it.
    (
        "big format",
        "f\"{'x':>{10**9}}\"",
        End::Place(&End::Limit(Limit::CpuTime), &MEMORY),
    ),
    (
        "deep recursion",
        "def f(n):\n    return f(n + 1)\nf(0)",
        End::Limit(Limit::Recursion),
    ),
    (
        "mutual recursion",
        "def f(n):\n    return g(n)\ndef g(n):\n    return f(n)\nf(0)",
        End::Limit(Limit::Recursion),
    ),
    (
        "huge print",
        "print('x' * 100000)",
        End::Limit(Limit::Output),
    ),
    (
        "many prints",
        "while True:\n    print('spam')",
        End::Limit(Limit::Output),
    ),
    (
        "caught prints",
        "while True:\n    try:\n        print('spam')\n    except BaseException:\n        pass",
        End::Limit(Limit::CpuTime),
    ),
    (
        "huge result",
        "list(range(100000))",
        End::Limit(Limit::Result),
    ),
    (
        "deep result",
        "x = []\nfor i in range(100000):\n    x = [x]\nx",
        End::Place(&End::Unreturnable, &MEMORY),
    ),
    (
        "deep print",
        "x = []\nfor i in range(100000):\n    x = [x]\nprint(x)",
        End::Place(&End::Completes, &MEMORY),
    ),
    ("cyclic result", "x = []\nx.append(x)\nx", End::Unreturnable),
    (
        "ten thousand calls",
        "for i in range(10000):\n    await count_up()",
        End::Limit(Limit::ToolCalls),
    ),
    (
        "ten thousand gathered",
        "import asyncio\nawait asyncio.gather(*[count_up() for i in range(10000)])",
        End::Limit(Limit::ToolCalls),
    ),
    (
        "caught call limit",
        "for i in range(10000):\n    try:\n        await count_up()\n    except BaseException:\n        pass",
        End::Limit(Limit::ToolCalls),
    ),
    ("long script", "", End::Limit(Limit::Script)),
    ("deep source", "", End::Syntax),
];

fn registry(runs: &Arc<AtomicUsize>, secret_runs: &Arc<AtomicUsize>) -> Registry {
    let mut registry = Registry::empty();
    let r = runs.clone();
    registry
        .register(
            DynamicTool::new("count_up", "Counts.", json!({"type": "object"})).handler(
                move |_, _| {
                    let n = r.fetch_add(1, Ordering::SeqCst);
                    async move { Ok(ToolOutput::new(json!(n))) }
                },
            ),
        )
        .unwrap();
    let r = secret_runs.clone();
    registry
        .register(
            DynamicTool::new("read_secrets", "Reads secrets.", json!({"type": "object"}))
                .scopes(["secrets:read"])
                .handler(move |_, _| {
                    r.fetch_add(1, Ordering::SeqCst);
                    async { Ok(ToolOutput::text("hunter2")) }
                }),
        )
        .unwrap();
    registry
}

/// Scripts that only a worker holds to their memory limit: in this process, their CPU time
/// ends them.
const MEMORY_BOMBS: &[(&str, &str)] = &[
    (
        "growing list",
        "a = []\nwhile True:\n    a.append('x' * 100000)",
    ),
    (
        "growing dict",
        "d = {}\ni = 0\nwhile True:\n    d[i] = [i] * 10000\n    i += 1",
    ),
    (
        "doubling string",
        "s = 'x' * 1000\nparts = []\nwhile True:\n    parts.append(s)\n    s = s + s[:1000]",
    ),
];

fn worker() -> Sandbox {
    Sandbox::Worker(WorkerCommand::new(env!("CARGO_BIN_EXE_tool-code-worker")))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_hostile_script_ends_with_the_right_error_in_this_process() {
    hostile_corpus(Sandbox::InProcess, &[]).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_hostile_script_ends_with_the_right_error_in_a_worker() {
    let bombs: Vec<(&str, &str, End)> = MEMORY_BOMBS
        .iter()
        .map(|(name, script)| (*name, *script, End::Limit(Limit::Memory)))
        .collect();
    hostile_corpus(worker(), &bombs).await;
}

async fn hostile_corpus(sandbox: Sandbox, more: &[(&str, &str, End)]) {
    let limits = CodeLimits::default()
        .cpu_time(Duration::from_millis(300))
        .wall_time(Duration::from_secs(30))
        .max_tool_calls(20)
        .max_output(4096)
        .max_result(4096)
        .max_memory(8 << 20)
        .max_recursion(100)
        .max_script(16 << 10);
    let mut failures = Vec::new();
    for (name, script, end) in CORPUS.iter().chain(more) {
        let script = match *name {
            "long script" => "x = 1\n".repeat(10_000),
            "deep source" => format!("x = {}1{}", "(".repeat(5000), ")".repeat(5000)),
            _ => (*script).to_owned(),
        };
        let runs = Arc::new(AtomicUsize::new(0));
        let secret_runs = Arc::new(AtomicUsize::new(0));
        let code = CodeMode::new(Executor::new(registry(&runs, &secret_runs)))
            .limits(limits.clone())
            .sandbox(sandbox.clone());
        let started = Instant::now();
        let run = code
            .run(
                &script,
                &ToolContext::builder().principal("mallory").build(),
            )
            .await;
        let took = started.elapsed();
        let end = match (end, &sandbox) {
            (End::Place(here, _), Sandbox::InProcess) => *here,
            (End::Place(_, worker), _) => *worker,
            (end, _) => end,
        };
        let ok = match (end, &run.result) {
            (End::Limit(limit), Err(e)) => e.limit() == Some(*limit),
            (End::Raised(expected), Err(ScriptError::Raised { exception, .. })) => {
                exception == expected
            }
            (End::Syntax, Err(ScriptError::Syntax(_))) => true,
            (End::Unreturnable, Err(ScriptError::Result(_))) => true,
            (End::Completes, Ok(_)) => true,
            _ => false,
        };
        if !ok {
            failures.push(format!("{name}: expected {end:?}, got {:?}", run.result));
        }
        // Within the limit: CPU time, with room for the tool calls and a loaded machine.
        if took > Duration::from_secs(5) {
            failures.push(format!("{name}: took {took:?}"));
        }
        if run.printed.len() > 4096 {
            failures.push(format!("{name}: printed {} bytes", run.printed.len()));
        }
        if runs.load(Ordering::SeqCst) > 20 || secret_runs.load(Ordering::SeqCst) > 0 {
            failures.push(format!(
                "{name}: {} calls, {} of the secret tool",
                runs.load(Ordering::SeqCst),
                secret_runs.load(Ordering::SeqCst)
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
