//! A loop of one kind of `add_numbers` call, for `valgrind --tool=callgrind` (instruction counts
//! are repeatable where wall time on a shared machine is not).
//!
//! `valgrind --tool=callgrind --toggle-collect='*profile_call::run*' \
//!     target/release/profile-call core 1 100000` (kinds: core, floor, rmcp, rmcp-default; sizes: 1, 10, 50,
//! 200, 1000).

use std::hint::black_box;

use bench_calls::{
    RmcpEnv, add_input, copy_input, core_call, core_registry, floor_call, rmcp_args, rmcp_side,
};
use tool_core::ToolContext;

#[inline(never)]
fn run(iterations: usize, mut f: impl FnMut()) {
    for _ in 0..iterations {
        f();
    }
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
        other => panic!("unknown kind `{other}`: core, floor, rmcp or rmcp-default"),
    }
}
