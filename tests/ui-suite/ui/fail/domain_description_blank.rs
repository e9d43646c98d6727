// tool_core::domain! needs a non-blank description.
tool_core::domain!(pub demo, "  ");



fn main() {}
