// A domain named by path or imported; a domain may share its name with a parameter.
use serde_json::json;
use tool_core::prelude::*;

mod domains {
    tool_core::domain!(pub stock, "Stock levels of the warehouse");
    tool_core::domain!(pub(crate) time, "Clocks");
}

use domains::time;

/// Returns the stock level of an item.
#[tool(domain = crate::domains::stock, label = "Counting stock", hint = "Stock of an item")]
fn get_stock(item: String) -> usize {
    item.len()
}

/// Returns the time it was given.
#[tool(domain = time, label = "Reading the clock", hint = "Echoes a time")]
fn echo_time(time: String) -> String {
    time
}

fn main() {
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let registry = Registry::linked().unwrap();
    let executor = tool_core::Executor::new(registry);
    let registry = executor.registry();

    let stock = registry.get("get_stock").unwrap().domain();
    assert_eq!(stock.name, "stock");
    assert_eq!(stock.description, "Stock levels of the warehouse");
    let names: Vec<_> = registry.domains().iter().map(|d| &*d.name).collect();
    assert_eq!(names, ["stock", "time"]);
    assert_eq!(registry.in_domain("time").map(|t| t.name()).collect::<Vec<_>>(), ["echo_time"]);

    let out = rt
        .block_on(executor.call("echo_time", json!({"time": "12:00"}), &ToolContext::new()))
        .unwrap();
    assert_eq!(out.echo(), "12:00");
}
