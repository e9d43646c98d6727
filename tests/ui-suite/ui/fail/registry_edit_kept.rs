// The copy of its registry an executor's edit hands a change reads as a registry and changes
// through the registry's methods, but cannot be taken out of the change (no `&mut Registry`):
// it becomes an executor with the same layers and policy, or nothing.
use tool_core::prelude::*;

fn main() {
    let executor = Executor::new(Registry::empty());
    let _ = executor.edit(|tools| Ok::<_, ()>(std::mem::take(&mut **tools)));
}
