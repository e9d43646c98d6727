//! A code-mode worker: runs one script for a host over stdin and stdout
//! (`tool_code::worker`), its memory counted by the allocator below.

#[global_allocator]
static ALLOCATOR: tool_code::worker::LimitedAllocator = tool_code::worker::LimitedAllocator;

fn main() -> std::io::Result<()> {
    tool_code::worker::serve()
}
