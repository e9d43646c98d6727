//! A code-mode worker: runs one script for a host over stdin and stdout
//! (`tool_code::worker`), its memory counted by the allocator below.

#[global_allocator]
static ALLOCATOR: monty_alloc::LimitedAllocator = monty_alloc::LimitedAllocator;

fn main() -> std::io::Result<()> {
    tool_code::worker::serve()
}
