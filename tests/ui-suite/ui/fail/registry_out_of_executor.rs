// An executor lends its registry to read, never to build another executor from: a registry
// is not `Clone`, nor is what it holds (and registry_edit_kept.rs: nor can an edit's copy be
// taken out of the change). Else a component given an executor could run its tools, a mounted
// server's among them, without the application's layers and policy.
use tool_core::prelude::*;

fn main() {
    let executor = Executor::new(Registry::empty());
    let _ = Executor::new(executor.registry().clone());
    let _ = executor.edit(|tools| Ok::<_, ()>(tools.resources()[0].clone()));
}
