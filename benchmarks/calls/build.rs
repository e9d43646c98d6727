//! Writes the synthetic tools the benches call into OUT_DIR: 1,000 `#[tool]` fns (tool-core's
//! style) and the same tools as rmcp `#[tool]` methods, for servers of 1, 10, 50, 200 and
//! 1,000 tools (the last as five `#[tool_router]` blocks of 200, added together).

#[path = "src/generate.rs"]
#[allow(dead_code)]
mod generator;

use std::path::PathBuf;

fn main() {
    println!("cargo::rerun-if-changed=src/generate.rs");
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    write(&out.join("core_tools.rs"), &generator::core_tools(999, ""));
    let mut rmcp = String::new();
    rmcp.push_str(&generator::rmcp_tools("S1", true, 0, &["tool_router"]));
    rmcp.push_str(&generator::rmcp_tools("S10", true, 9, &["tool_router"]));
    rmcp.push_str(&generator::rmcp_tools("S50", true, 49, &["tool_router"]));
    rmcp.push_str(&generator::rmcp_tools(
        "Big",
        true,
        999,
        &["r0", "r1", "r2", "r3", "r4"],
    ));
    write(&out.join("rmcp_tools.rs"), &rmcp);
}

/// Writes only what changed, so an unchanged generator does not rebuild 2,000 tools.
fn write(path: &std::path::Path, text: &str) {
    if std::fs::read_to_string(path).ok().as_deref() != Some(text) {
        std::fs::write(path, text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    }
}
