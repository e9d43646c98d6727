//! Where a command writes, and how it fails: its exit code, once its message is written.

use std::io::Write;

use serde_json::Value;

/// Where a command's output goes.
pub(crate) type Out<'a> = &'a mut dyn Write;

/// A failed command: its exit code; the message was already written.
pub(crate) struct Exit(pub(crate) u8);

/// A usage error (exit 2): bad arguments, an unknown tool, input that is not JSON.
pub(crate) fn usage(err: Out, message: String) -> Exit {
    let _ = writeln!(err, "error: {message}");
    Exit(2)
}

/// A failure (exit 1): a tool call failed, or the server stopped.
pub(crate) fn failed(err: Out, message: String) -> Exit {
    let _ = writeln!(err, "error: {message}");
    Exit(1)
}

/// Why `what` is refused by a binary built without tool-cli's `feature`.
pub(crate) fn not_built(what: &str, feature: &str) -> String {
    format!(
        "{what}: this binary was built without tool-cli's feature `{feature}` (add it to \
         tool-cli's features in the binary's Cargo.toml)"
    )
}

/// Writes `value` as pretty JSON and a newline.
pub(crate) fn print_json(out: Out, value: &Value) {
    // A closed pipe (`toolctl list --json | head`) is not an error worth reporting.
    let _ = serde_json::to_writer_pretty(&mut *out, value);
    let _ = writeln!(out);
}
