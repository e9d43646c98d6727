//! A loop of one kind of `add_numbers` call, for `valgrind --tool=callgrind` (instruction counts
//! are repeatable where wall time on a shared machine is not).
//!
//! `valgrind --tool=callgrind --toggle-collect='*profile_call::run*' \
//!     target/release/profile-call core 1 100000` (kinds: core, floor, rmcp, rmcp-default, copy,
//! fast-path; sizes: 1, 10, 50, 200, 1000).
//!
//! Two more kinds take registry.call apart (time them with `time`, or count them the same way):
//! `copy` is only the input copy every side makes, and its drop; `fast-path` is what the
//! generated `add_numbers` handler does on its fast path (known keys, a borrowed decode of each
//! parameter, dropping the input, a ready result), without the registry, the indirect call or
//! the trip of the result back through the future.

use std::hint::black_box;

use bench_calls::{
    RmcpEnv, add_input, add_numbers_plain, copy_input, core_call, core_registry, floor_call,
    rmcp_args, rmcp_side,
};
use tool_core::exec::CallFuture;
use tool_core::{ToolContext, ToolOutput};

#[inline(never)]
fn run(iterations: usize, mut f: impl FnMut()) {
    for _ in 0..iterations {
        f();
    }
}

/// The generated handler's fast path for `add_numbers`, through the same `__private` items.
fn fast_path(input: serde_json::Value) -> Option<CallFuture> {
    use tool_core::__private::{Missing, Param, decode_borrowed, known_keys, param};
    const INT: Param<i64> = param::<i64>();
    let [a, b] = known_keys(&input, &["a", "b"])?;
    let a = decode_borrowed(a, INT.borrowed, Missing::Required)?;
    let b = decode_borrowed(b, INT.borrowed, Missing::Required)?;
    drop(input);
    let sum = serde_json::Value::from(add_numbers_plain(a, b));
    Some(CallFuture::ready(Ok(ToolOutput::new(sum))))
}

fn main() {
    let mut args = std::env::args().skip(1);
    let kind = args.next().unwrap_or_else(|| "core".to_owned());
    let n: usize = args.next().and_then(|s| s.parse().ok()).unwrap_or(1);
    let iterations: usize = args.next().and_then(|s| s.parse().ok()).unwrap_or(100_000);
    let input = add_input();
    match kind.as_str() {
        "core" => {
            let registry = core_registry(n);
            let ctx = ToolContext::new();
            run(iterations, || {
                black_box(core_call(&registry, &ctx, black_box(&input)));
            });
        }
        "copy" => run(iterations, || {
            black_box(copy_input(black_box(&input)));
        }),
        "fast-path" => {
            assert!(
                fast_path(copy_input(&input)).is_some(),
                "the fast path decodes"
            );
            run(iterations, || {
                black_box(fast_path(copy_input(black_box(&input))));
            });
        }
        "floor" => run(iterations, || {
            black_box(floor_call(copy_input(black_box(&input))).ok());
        }),
        "rmcp" => {
            let env = RmcpEnv::new();
            let side = rmcp_side(n);
            let args = rmcp_args();
            run(iterations, || {
                black_box(side.call_cached(&env, black_box(&args)));
            });
        }
        "rmcp-default" => {
            let env = RmcpEnv::new();
            let side = rmcp_side(n);
            let args = rmcp_args();
            run(iterations, || {
                black_box(side.call_default(&env, black_box(&args)));
            });
        }
        other => {
            panic!("unknown kind `{other}`: core, floor, rmcp, rmcp-default, copy or fast-path")
        }
    }
}
