//! Integration tests of the workspace live in `tests/`; this crate holds what several of them
//! need to reach the workspace itself.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The workspace's root folder (this crate's parent).
pub fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("tests/ is in the workspace")
        .to_owned()
}

/// The `cargo` the test command runs under (`$CARGO`), in the workspace's root.
pub fn cargo() -> Command {
    let mut cargo = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
    cargo.current_dir(workspace());
    cargo
}
