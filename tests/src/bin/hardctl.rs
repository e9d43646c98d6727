//! `toolctl` over the hard types suite: `cargo run -p tests --bin hardctl -- export --format F`.

use hard_types as _;

fn main() -> std::process::ExitCode {
    tool_cli::main!()
}
