// `layer_fn` takes an async closure: a plain closure returning a boxed future, the old form,
// cannot borrow the call it is given for as long as its future runs.
use tool_core::exec::layer_fn;

fn main() {
    let _ = layer_fn(|call: tool_core::exec::Call<'_>, next: tool_core::exec::Next<'_>| {
        Box::pin(async move { next.run(call).await })
    });
}
