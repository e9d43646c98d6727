// A layer's future may move between threads, as every call's does: one that holds a lock
// guard across an await is refused where the layer is made, not where a server spawns it.
use std::sync::{Arc, Mutex};
use tool_core::exec::layer_fn;

fn main() {
    let seen = Arc::new(Mutex::new(Vec::<String>::new()));
    let _ = layer_fn(async move |call, next| {
        let mut names = seen.lock().unwrap();
        names.push(call.item().name().to_owned());
        let reply = next.run(call).await;
        names.push("done".to_owned());
        reply
    });
}
