// tool_core::domain! names must be snake_case.
tool_core::domain!(pub MyTools, "Demo tools");



fn main() {}
