//! Writes the 199 filler tools of bench-mcp's 200-tool servers into OUT_DIR (`tc_fillers.rs`),
//! from the same generator, so this server and `tc-200` carry the same tools.

#[path = "../mcp/generate.rs"]
#[allow(dead_code)]
mod generate;

fn main() {
    println!("cargo::rerun-if-changed=build.rs");
    println!("cargo::rerun-if-changed=../mcp/generate.rs");
    let out = std::path::PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    let path = out.join("tc_fillers.rs");
    let text = generate::tool_core_fillers();
    if std::fs::read_to_string(&path).ok().as_deref() != Some(text.as_str()) {
        std::fs::write(&path, text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    }
}
