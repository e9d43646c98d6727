// A `Result` under another name is still a `Result`: its error type must convert into ToolError.
use tool_core::prelude::*;

tool_core::domain!(pub demo, "Demo tools");

#[derive(Debug)]
struct DbError;

type DbResult<T> = std::result::Result<T, DbError>;

/// Returns the row count.
#[tool(domain = demo, label = "Counting rows", hint = "Counts rows")]
fn count_rows() -> DbResult<u64> {
    Err(DbError)
}

fn main() {}
