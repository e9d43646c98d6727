//! Any path a model writes, against a real directory tree with symlinks pointing in and out:
//! whatever resolves is inside the root.
#![no_main]

use std::path::PathBuf;
use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use tool_core::{ToolContext, context::ToolRoot};
use tool_bundle::fs::FsRoot;

fn root() -> &'static (PathBuf, FsRoot) {
    static ROOT: OnceLock<(PathBuf, FsRoot)> = OnceLock::new();
    ROOT.get_or_init(|| {
        let dir = std::env::temp_dir().join(format!("path-guard-fuzz-{}", std::process::id()));
        let _ = std::fs::create_dir_all(dir.join("sub/deep"));
        let _ = std::fs::write(dir.join("sub/a.txt"), "a");
        let _ = std::os::unix::fs::symlink("/etc", dir.join("out"));
        let _ = std::os::unix::fs::symlink("sub", dir.join("in"));
        let _ = std::os::unix::fs::symlink("../..", dir.join("sub/deep/up"));
        let ctx = ToolContext::builder().root(ToolRoot::new(&dir).unwrap()).build();
        let guard = FsRoot::of(&ctx).unwrap();
        (guard.path().to_path_buf(), guard)
    })
}

fuzz_target!(|data: &[u8]| {
    let Ok(path) = std::str::from_utf8(data) else { return };
    let (canonical, guard) = root();
    if let Ok(resolved) = guard.resolve(path, "path") {
        assert!(resolved.starts_with(canonical), "{path:?} resolved to {resolved:?}");
    }
});
