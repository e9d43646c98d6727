//! Every ```rust block of README.md and docs/*.md, compiled: `build.rs` writes each as a module
//! of `blocks.rs`, so a guide whose example no longer fits the API fails the build, naming the
//! file and line of the block (docs/testing.md, "The docs' examples").

/// `tool_cli::main!` for the blocks: the same types, without the global allocator `main!`
/// installs with the feature `code`, which only one `main` of a crate may have.
macro_rules! doc_main {
    () => {
        tool_cli::run_main(tool_cli::identity!(), |args| args)
    };
    ($configure:expr $(,)?) => {
        tool_cli::run_main(tool_cli::identity!(), $configure)
    };
}
pub(crate) use doc_main;

include!(concat!(env!("OUT_DIR"), "/blocks.rs"));
