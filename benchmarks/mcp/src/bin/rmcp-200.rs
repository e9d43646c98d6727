//! rmcp's macros serving 200 tools: `add_numbers` and 199 generated fillers (build.rs).
//! `rmcp-200 [--best] [--http ADDR]`, as `rmcp-1`.

include!(concat!(env!("OUT_DIR"), "/rmcp_200.rs"));

fn main() -> std::process::ExitCode {
    bench_mcp::rmcp_server::main(default::Server::default, best::Server::default)
}
