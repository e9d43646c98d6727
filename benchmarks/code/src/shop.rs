//! A shop the tasks run against: customers, orders, shipments and stock, generated the same way
//! on every run, and the tools that read them, with answers as verbose as real APIs give.

use serde_json::{Value, json};
use tool_core::{Registry, ToolError, ToolOutput, registry::DynamicTool};

use crate::args::{int_arg, schema, text_arg};

pub const CUSTOMERS: [&str; 8] = ["ada", "bob", "cleo", "dan", "eve", "finn", "gus", "hana"];
const STATUSES: [&str; 6] = [
    "delivered",
    "shipped",
    "delayed",
    "failed",
    "processing",
    "open",
];
const ORDERS_EACH: u64 = 12;

pub fn region(customer: usize) -> &'static str {
    if customer.is_multiple_of(2) {
        "north"
    } else {
        "south"
    }
}

fn customer_index(name: &str) -> Option<usize> {
    CUSTOMERS.iter().position(|c| *c == name)
}

pub fn customer(i: usize) -> Value {
    let name = CUSTOMERS[i];
    json!({
        "id": name,
        "name": format!("{}{} Example", name[..1].to_uppercase(), &name[1..]),
        "email": format!("{name}@example.com"),
        "region": region(i),
        "currency": (["EUR", "GBP", "USD"][i % 3]),
        "tier": (["standard", "gold", "platinum"][i % 3]),
        "created": format!("2023-0{}-1{}T09:30:00Z", 1 + i % 9, i % 10),
        "address": {"line1": format!("{} Harbour Street", 10 + i), "city": (["Oslo", "Leeds", "Lyon"][i % 3]), "postcode": format!("{:05}", 1000 + i * 37), "country": (["NO", "GB", "FR"][i % 3])},
        "marketing_opt_in": i.is_multiple_of(2),
        "notes": "Prefers delivery on weekdays; call ahead for large parcels."
    })
}

pub fn order_ids(customer: usize) -> impl Iterator<Item = u64> {
    (0..ORDERS_EACH).map(move |k| 1000 + customer as u64 * 100 + k)
}

pub fn status(id: u64) -> &'static str {
    STATUSES[((id * 7 + id / 100) % 6) as usize]
}

pub fn total(id: u64) -> f64 {
    ((id * 37 + 11) % 900 + 20) as f64 + 0.5
}

pub fn skus(id: u64) -> Vec<String> {
    (0..2 + id % 3)
        .map(|j| format!("SKU-{:04}", (id * 13 + j * 7) % 60))
        .collect()
}

fn order_summary(id: u64) -> Value {
    let customer = CUSTOMERS[((id - 1000) / 100) as usize];
    json!({
        "id": id,
        "customer": customer,
        "status": status(id),
        "total": total(id),
        "currency": "EUR",
        "created": format!("2026-11-{:02}T{:02}:15:00Z", 1 + id % 28, 8 + id % 10),
        "items": skus(id).len(),
        "channel": (["web", "app", "phone"][(id % 3) as usize]),
        "_links": {"self": format!("/orders/{id}"), "shipment": format!("/orders/{id}/shipment")}
    })
}

fn order_detail(id: u64) -> Value {
    let mut order = order_summary(id);
    let lines: Vec<Value> = skus(id)
        .iter()
        .enumerate()
        .map(|(j, sku)| {
            json!({
                "sku": sku,
                "name": format!("Item {sku}"),
                "description": "Durable everyday product, 12-month warranty, recyclable packaging.",
                "quantity": 1 + j,
                "unit_price": 10.0 + j as f64 * 4.5,
                "tax_rate": 0.2
            })
        })
        .collect();
    order["lines"] = Value::Array(lines);
    order["payment"] =
        json!({"method": "card", "brand": "visa", "last4": "4242", "captured": true});
    order["shipping_address"] = customer(((id - 1000) / 100) as usize)["address"].clone();
    order
}

fn shipment(id: u64) -> Value {
    let events: Vec<Value> = (0..5)
        .map(|e| {
            json!({
                "at": format!("2026-11-{:02}T{:02}:00:00Z", 1 + (id + e) % 28, 6 + e * 3),
                "location": (["Hub A", "Hub B", "Depot", "Van 12", "Doorstep"][e as usize]),
                "event": (["picked", "in transit", "arrived at depot", "out for delivery", "delivery attempted"][e as usize]),
                "details": "Scanned by the carrier's handheld terminal."
            })
        })
        .collect();
    json!({
        "order_id": id,
        "carrier": (["PostNord", "DPD", "Colissimo"][(id % 3) as usize]),
        "tracking": format!("TRK{id:08}"),
        "status": status(id),
        "estimated_delivery": format!("2026-12-{:02}", 1 + id % 20),
        "events": events
    })
}

fn stock(sku: &str) -> Value {
    let n: u64 = sku.trim_start_matches("SKU-").parse().unwrap_or(0);
    json!({
        "sku": sku,
        "name": format!("Item {sku}"),
        "warehouses": [
            {"id": "osl-1", "on_hand": (n * 17) % 40, "reserved": n % 5},
            {"id": "lds-2", "on_hand": (n * 11) % 30, "reserved": n % 3},
            {"id": "lyo-3", "on_hand": (n * 7) % 25, "reserved": n % 4}
        ],
        "reorder_point": 15,
        "supplier": {"name": "Acme Supplies", "lead_time_days": 4 + n % 9}
    })
}

/// The shop's tools, registered as core tools.
pub fn register_shop(r: &mut Registry) {
    let tool = |name: &str, description: &str, input: Value| {
        DynamicTool::new(name.to_owned(), description.to_owned(), input).core(true)
    };
    r.register(
        tool(
            "list_customers",
            "Lists the customers of a region with their profiles. Use it to find customers by region.",
            schema(json!({"region": {"type": "string", "enum": ["north", "south"]}}), &["region"]),
        )
        .handler(|input, _| async move {
            let region = text_arg(&input, "region")?;
            let found: Vec<Value> = (0..CUSTOMERS.len())
                .filter(|i| self::region(*i) == region)
                .map(customer)
                .collect();
            Ok(ToolOutput::new(json!({"customers": found})))
        }),
    )
    .unwrap();
    r.register(
        tool(
            "get_customer",
            "Returns one customer's profile: contact, region, preferred currency and tier.",
            schema(
                json!({"customer": {"type": "string", "description": "The customer's id"}}),
                &["customer"],
            ),
        )
        .handler(|input, _| async move {
            let name = text_arg(&input, "customer")?;
            let i = customer_index(&name)
                .ok_or_else(|| ToolError::not_found(format!("no customer {name}")))?;
            Ok(ToolOutput::new(customer(i)))
        }),
    )
    .unwrap();
    r.register(
        tool(
            "list_orders",
            "Lists a customer's orders, newest first, with status and total in EUR.",
            schema(
                json!({"customer": {"type": "string", "description": "The customer's id"}}),
                &["customer"],
            ),
        )
        .handler(|input, _| async move {
            let name = text_arg(&input, "customer")?;
            let i = customer_index(&name)
                .ok_or_else(|| ToolError::not_found(format!("no customer {name}")))?;
            let mut orders: Vec<Value> = order_ids(i).map(order_summary).collect();
            orders.reverse();
            Ok(ToolOutput::new(
                json!({"orders": orders, "count": orders.len()}),
            ))
        }),
    )
    .unwrap();
    r.register(
        tool(
            "get_order",
            "Returns one order with its lines, payment and shipping address.",
            schema(json!({"order_id": {"type": "integer"}}), &["order_id"]),
        )
        .handler(|input, _| async move {
            Ok(ToolOutput::new(order_detail(int_arg(&input, "order_id")?)))
        }),
    )
    .unwrap();
    r.register(
        tool(
            "get_shipment",
            "Returns an order's shipment: carrier, tracking number and every tracking event.",
            schema(json!({"order_id": {"type": "integer"}}), &["order_id"]),
        )
        .handler(|input, _| async move {
            Ok(ToolOutput::new(shipment(int_arg(&input, "order_id")?)))
        }),
    )
    .unwrap();
    r.register(
        tool(
            "get_stock",
            "Returns an item's stock in each warehouse, its reorder point and supplier.",
            schema(json!({"sku": {"type": "string"}}), &["sku"]),
        )
        .handler(|input, _| async move { Ok(ToolOutput::new(stock(&text_arg(&input, "sku")?))) }),
    )
    .unwrap();
    r.register(
        tool(
            "convert_currency",
            "Converts an amount in EUR to another currency at today's rate.",
            schema(
                json!({"amount": {"type": "number"}, "to": {"type": "string", "enum": ["EUR", "GBP", "USD"]}}),
                &["amount", "to"],
            ),
        )
        .handler(|input, _| async move {
            let amount = input["amount"].as_f64().ok_or_else(|| ToolError::invalid_input("expected a number").with_path("amount"))?;
            let to = text_arg(&input, "to")?;
            let rate = match to.as_str() { "GBP" => 0.85, "USD" => 1.08, _ => 1.0 };
            Ok(ToolOutput::new(json!({"from": "EUR", "to": to, "rate": rate, "amount": amount, "converted": (amount * rate * 100.0).round() / 100.0})))
        }),
    )
    .unwrap();
}
