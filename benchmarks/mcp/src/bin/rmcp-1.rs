//! rmcp's macros serving one tool, `add_numbers`. `rmcp-1 [--best] [--http ADDR]`: the default
//! configuration (`#[tool_handler]` as documented, `stdio()`), or with `--best` the router built
//! once and `stdio_pipes()`.

include!(concat!(env!("OUT_DIR"), "/rmcp_1.rs"));

fn main() -> std::process::ExitCode {
    bench_mcp::rmcp_server::main(default::Server::default, best::Server::default)
}
