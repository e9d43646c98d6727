// `#[data]` derives serde's and schemars' traits: it goes on a struct or an enum only.

/// Not a type.
#[tool_core::data]
fn make_note() {}

/// A union: serde derives nothing for it.
#[tool_core::data]
union Bits {
    int: u32,
    float: f32,
}

fn main() {}
