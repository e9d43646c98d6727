//! Source generators for the synthetic tools: the same tools written in tool-core's style
//! (`#[tool]` fns) and in rmcp's style (a `#[tool_router]` impl of `#[tool]` methods taking
//! `Parameters<T>` structs). Used by `build.rs` (the tools the benches call) and by the
//! `compile-time` bin (the crates whose build it times). Pure string functions, std only.

use std::fmt::Write as _;

/// The name of filler tool `i`; three shapes in turn, so schemas and decoders differ.
pub fn filler_name(i: usize) -> String {
    match i % 3 {
        0 => format!("get_item_{i:04}"),
        1 => format!("search_notes_{i:04}"),
        _ => format!("scale_value_{i:04}"),
    }
}

/// The description (doc comment) of filler tool `i`.
fn filler_doc(i: usize) -> String {
    match i % 3 {
        0 => format!(
            "Returns item {i} of the inventory by id: its name and stock. Use it to look up one item."
        ),
        1 => format!(
            "Searches notebook {i} for notes containing the words. Use it to find what was written down."
        ),
        _ => format!("Multiplies a value by a factor in ledger {i}. Use it to rescale a figure."),
    }
}

/// tool-core style: a domain, `add_numbers`, and `fillers` filler tools (`filler_name(0..)`).
/// `vis` is put before every fn (e.g. `pub ` or empty).
pub fn core_tools(fillers: usize, vis: &str) -> String {
    let mut s = String::new();
    s.push_str("tool_core::domain!(pub bench, \"Synthetic tools for benchmarks\");\n\n");
    let _ = writeln!(
        s,
        r#"/// Adds two integers and returns the sum. Use it for arithmetic on whole numbers.
#[tool_core::tool(domain = bench, label = "Adding", hint = "Adds two whole numbers", core)]
{vis}fn add_numbers(
    #[arg(description = "First addend")] a: i64,
    #[arg(description = "Second addend")] b: i64,
) -> i64 {{
    a + b
}}
"#
    );
    for i in 0..fillers {
        let name = filler_name(i);
        let doc = filler_doc(i);
        let (params, body) = match i % 3 {
            0 => (
                r#"#[arg(description = "Item id")] id: i64, #[arg(description = "Include the stock level")] detail: Option<bool>"#,
                format!(r#"format!("item {i} #{{id}} {{}}", detail.unwrap_or(false))"#),
            ),
            1 => (
                r#"#[arg(description = "Words to look for")] query: String, #[arg(description = "At most this many notes")] limit: Option<u32>"#,
                r#"query.split_whitespace().take(limit.unwrap_or(10) as usize).collect::<Vec<_>>().join(",")"#.to_owned(),
            ),
            _ => (
                r#"#[arg(description = "The value")] x: f64, #[arg(description = "The factor")] factor: f64"#,
                r#"(x * factor).to_string()"#.to_owned(),
            ),
        };
        let _ = writeln!(
            s,
            r#"/// {doc}
#[tool_core::tool(domain = bench, label = "Working on {i}", hint = "Synthetic tool {i}")]
{vis}fn {name}({params}) -> String {{
    {body}
}}
"#
        );
    }
    s
}

/// rmcp style: one `Parameters` struct per tool deriving `Deserialize` + `JsonSchema`, and the
/// tools as `#[tool]` methods of `ty`, split into `#[tool_router(router = ..)]` impl blocks of
/// at most `per_router` tools each (`routers[k]` names block k). `add_numbers` is in the first
/// block when `with_add`. Struct names are prefixed by `ty` so several servers can share a module.
pub fn rmcp_tools(ty: &str, with_add: bool, fillers: usize, routers: &[&str]) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "#[derive(Debug, Clone, Default)]\npub struct {ty};\n");
    let mut tools: Vec<(String, String)> = Vec::new(); // (method, struct + method source)
    if with_add {
        let args = format!("{ty}AddNumbersArgs");
        tools.push((
            "add_numbers".to_owned(),
            format!(
                r#"    /// Adds two integers and returns the sum. Use it for arithmetic on whole numbers.
    #[rmcp::tool]
    pub fn add_numbers(&self, Parameters({args} {{ a, b }}): Parameters<{args}>) -> String {{
        (a + b).to_string()
    }}
"#
            ),
        ));
        let _ = writeln!(
            s,
            r#"#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
pub struct {args} {{
    /// First addend
    pub a: i64,
    /// Second addend
    pub b: i64,
}}
"#
        );
    }
    for i in 0..fillers {
        let name = filler_name(i);
        let doc = filler_doc(i);
        let args = format!("{ty}Args{i:04}");
        let (fields, pattern, body) = match i % 3 {
            0 => (
                "    /// Item id\n    pub id: i64,\n    /// Include the stock level\n    pub detail: Option<bool>,",
                "id, detail",
                format!(r#"format!("item {i} #{{id}} {{}}", detail.unwrap_or(false))"#),
            ),
            1 => (
                "    /// Words to look for\n    pub query: String,\n    /// At most this many notes\n    pub limit: Option<u32>,",
                "query, limit",
                r#"query.split_whitespace().take(limit.unwrap_or(10) as usize).collect::<Vec<_>>().join(",")"#.to_owned(),
            ),
            _ => (
                "    /// The value\n    pub x: f64,\n    /// The factor\n    pub factor: f64,",
                "x, factor",
                r#"(x * factor).to_string()"#.to_owned(),
            ),
        };
        let _ = writeln!(
            s,
            "#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]\npub struct {args} {{\n{fields}\n}}\n"
        );
        tools.push((
            name.clone(),
            format!(
                r#"    /// {doc}
    #[rmcp::tool]
    pub fn {name}(&self, Parameters({args} {{ {pattern} }}): Parameters<{args}>) -> String {{
        {body}
    }}
"#
            ),
        ));
    }
    let per_router = tools.len().div_ceil(routers.len().max(1)).max(1);
    for (k, chunk) in tools.chunks(per_router).enumerate() {
        let router = routers.get(k).copied().unwrap_or("tool_router");
        let _ = writeln!(
            s,
            "#[rmcp::tool_router(router = {router}, vis = \"pub\")]\nimpl {ty} {{"
        );
        for (_, src) in chunk {
            s.push_str(src);
        }
        s.push_str("}\n\n");
    }
    s
}

/// A standalone crate's `lib.rs` for the compile-time comparison.
pub fn core_crate(fillers: usize) -> String {
    format!(
        "//! {fillers} tools plus add_numbers in tool-core's style (generated).\n\n{}\n/// Links the tools.\npub fn link() {{}}\n",
        core_tools(fillers, "pub ")
    )
}

/// A standalone crate's `lib.rs` for the compile-time comparison, as rmcp's docs write a
/// tools-only server: one `#[tool_router(server_handler)]` impl.
pub fn rmcp_crate(fillers: usize) -> String {
    let body = rmcp_tools("Server", true, fillers, &["tool_router"]).replace(
        "#[rmcp::tool_router(router = tool_router, vis = \"pub\")]",
        "#[rmcp::tool_router(server_handler)]",
    );
    format!(
        "//! {fillers} tools plus add_numbers in rmcp's style (generated).\n\nuse rmcp::handler::server::wrapper::Parameters;\n\n{body}"
    )
}
