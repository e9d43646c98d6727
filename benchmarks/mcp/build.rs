//! Generates the servers' tools into OUT_DIR (see `generate.rs`): `tc_fillers.rs` for
//! tool-core's servers, `rmcp_1.rs` and `rmcp_200.rs` for rmcp's.

#[path = "generate.rs"]
mod generate;

use std::path::Path;

fn main() {
    let out = std::env::var("OUT_DIR").expect("OUT_DIR");
    let out = Path::new(&out);
    let write = |name: &str, text: String| {
        let path = out.join(name);
        if std::fs::read_to_string(&path).ok().as_deref() != Some(text.as_str()) {
            std::fs::write(&path, text).expect("write generated code");
        }
    };
    write("tc_fillers.rs", generate::tool_core_fillers());
    write("rmcp_1.rs", generate::rmcp_servers(0));
    write("rmcp_200.rs", generate::rmcp_servers(generate::FILLERS));
    println!("cargo::rerun-if-changed=build.rs");
    println!("cargo::rerun-if-changed=generate.rs");
}
