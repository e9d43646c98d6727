//! Two linked tools with one name: the registry refuses to build and names both definitions.

use clashing_tools as _;
use tool_bundle as _;
use tool_core::{Registry, registry::RegistryError};

#[test]
fn duplicate_names_are_refused_with_both_locations() {
    let err = Registry::linked().unwrap_err();
    let RegistryError::DuplicateName {
        name,
        first,
        second,
    } = &err
    else {
        panic!("expected a duplicate-name error, got {err}");
    };
    assert_eq!(name, "get_current_time");
    let message = err.to_string();
    for place in [first.to_string(), second.to_string()] {
        assert!(message.contains(&place), "{message}");
    }
    assert!(message.contains("clashing_tools"), "{message}");
    assert!(message.contains("tool_bundle::time"), "{message}");
    assert!(message.contains("tools/src/time.rs:"), "{message}");
    assert!(
        message.contains("#[tool(name"),
        "the fix is named: {message}"
    );
}
