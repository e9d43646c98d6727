//! MCP server benchmarks: the servers under test (tool-core's, rmcp's macros) and `mcp-load`,
//! the load driver that runs them side by side with the TypeScript and Python SDKs' servers.
//! See `benchmarks/mcp/run`.

pub mod driver;
pub mod rmcp_server;
