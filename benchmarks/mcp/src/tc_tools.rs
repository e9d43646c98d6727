// The tool every benchmark calls, shared by `tc-1`, `tc-200` and `lean-200` (included, so
// each binary's `#[tool]`s are its own and `inventory` collects exactly them).

tool_core::domain!(bench, "Tools of the MCP server benchmark");

/// Adds two numbers and returns their sum.
#[tool(domain = bench, label = "Adding", hint = "Sum of two numbers")]
fn add_numbers(
    #[arg(description = "First number")] a: f64,
    #[arg(description = "Second number")] b: f64,
) -> f64 {
    a + b
}
