//! Any bytes as a tool's input: the size and depth checks, the parser and the field-by-field
//! decoder end in a value or an input error, never a panic or a hang.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tool_core::error::ErrorKind;
use tool_core::exec::{ExecPolicy, Fields, Missing, decode, decode_value};

#[derive(Debug, serde::Deserialize)]
#[allow(dead_code)]
struct Args {
    name: String,
    items: Option<Vec<Item>>,
}

#[derive(Debug, serde::Deserialize)]
#[allow(dead_code)]
struct Item {
    count: u8,
    tags: Vec<String>,
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let value = match ExecPolicy::default().parse(text) {
        Ok(value) => value,
        Err(e) => {
            assert_eq!(e.kind(), ErrorKind::InvalidInput);
            return;
        }
    };
    if let Err(e) = decode::<Args>(value.clone()) {
        assert_eq!(e.kind(), ErrorKind::InvalidInput);
    }
    if let Ok(mut fields) = Fields::new(value, &["name", "items"]) {
        let _ = fields.take::<String>("name", decode_value, Missing::Required);
        let _ = fields.take::<Option<Vec<Item>>>("items", decode_value, Missing::Null);
        if let Err(e) = fields.finish() {
            assert_eq!(e.kind(), ErrorKind::InvalidInput);
        }
    }
});
