//! Any text through the sanitizer: no panic, bounded output, idempotent.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tool_core::error::sanitize::sanitize;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let once = sanitize(&text);
    assert!(once.chars().count() <= 501, "{} chars", once.chars().count());
    assert_eq!(sanitize(&once), once, "sanitizing is idempotent");
});
