//! Caps on what goes in and what comes out of a call, checked before any decoding or copying.

use serde_json::Value;

use crate::error::ToolError;
use crate::output::ToolOutput;

/// Marks an echo cut at the cap, so the model knows it did not see everything.
pub(crate) const TRUNCATION_MARKER: &str = "[truncated:";

/// Parses JSON text after checking its size and nesting depth on the raw bytes (a 100k-deep
/// input is refused in one linear scan, before the parser recurses).
pub(crate) fn parse_checked(
    text: &str,
    max_bytes: usize,
    max_depth: usize,
) -> Result<Value, ToolError> {
    if text.len() > max_bytes {
        return Err(too_big(text.len(), max_bytes));
    }
    let depth = text_depth(text);
    if depth > max_depth {
        return Err(too_deep(depth, max_depth));
    }
    crate::call::parse_input(text)
}

/// The deepest nesting of `[` and `{` in JSON text, ignoring brackets inside strings.
pub(crate) fn text_depth(text: &str) -> usize {
    let (mut depth, mut max, mut in_string, mut escaped) = (0usize, 0usize, false, false);
    for b in text.bytes() {
        if in_string {
            match b {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'[' | b'{' => {
                depth += 1;
                max = max.max(depth);
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    max
}

/// Checks a parsed input's size (estimated without serializing) and depth.
pub(crate) fn check_value(
    value: &Value,
    max_bytes: usize,
    max_depth: usize,
) -> Result<(), ToolError> {
    let (size, depth) = measure(value, 1, max_bytes, max_depth);
    if depth > max_depth {
        return Err(too_deep(depth, max_depth));
    }
    if size > max_bytes {
        return Err(too_big(size, max_bytes));
    }
    Ok(())
}

/// (approximate JSON size, depth), stopping early once a limit is passed.
fn measure(value: &Value, depth: usize, max_bytes: usize, max_depth: usize) -> (usize, usize) {
    match value {
        Value::Null | Value::Bool(_) => (5, 0),
        Value::Number(_) => (20, 0),
        Value::String(s) => (s.len() + 2, 0),
        Value::Array(items) => fold(items.iter().map(|v| (0, v)), depth, max_bytes, max_depth),
        Value::Object(map) => fold(
            map.iter().map(|(k, v)| (k.len() + 3, v)),
            depth,
            max_bytes,
            max_depth,
        ),
    }
}

fn fold<'a>(
    items: impl Iterator<Item = (usize, &'a Value)>,
    depth: usize,
    max_bytes: usize,
    max_depth: usize,
) -> (usize, usize) {
    let (mut size, mut deepest) = (2, depth);
    if depth > max_depth {
        return (size, depth);
    }
    for (extra, item) in items {
        let (s, d) = measure(item, depth + 1, max_bytes, max_depth);
        size += s + extra + 1;
        deepest = deepest.max(d);
        if size > max_bytes || deepest > max_depth {
            break;
        }
    }
    (size, deepest)
}

fn too_big(size: usize, max: usize) -> ToolError {
    ToolError::invalid_input(format!(
        "the input is {size} bytes, over the {max}-byte limit; send less (page through it, or pass a reference instead of the content)"
    ))
}

fn too_deep(depth: usize, max: usize) -> ToolError {
    ToolError::invalid_input(format!(
        "the input nests {depth} levels deep, over the limit of {max}; flatten it"
    ))
}

/// Cuts the model-facing echo at `max` bytes (on a char boundary), with a marker saying how
/// much was left out. Structured data is kept whole for programs.
pub(crate) fn cap_echo(output: ToolOutput, max: usize) -> ToolOutput {
    let echo = output.echo();
    if echo.len() <= max {
        // An echo written out from the data is kept: whoever reads it next need not write it
        // again.
        return match echo {
            std::borrow::Cow::Owned(text) => output.with_echo(text),
            std::borrow::Cow::Borrowed(_) => output,
        };
    }
    let mut cut = max;
    while !echo.is_char_boundary(cut) {
        cut -= 1;
    }
    let text = format!(
        "{}… {TRUNCATION_MARKER} {} more bytes of {}]",
        &echo[..cut],
        echo.len() - cut,
        echo.len()
    );
    output.with_echo(text)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::json;

    #[test]
    fn deep_text_is_refused_before_parsing() {
        let deep = "[".repeat(100_000) + &"]".repeat(100_000);
        let err = parse_checked(&deep, usize::MAX, 64).unwrap_err();
        assert!(err.message().contains("100000 levels deep"), "{err}");
        assert_eq!(text_depth(r#"{"a": "[[[[", "b": [1, {"c": "\"]"}]}"#), 3);
    }

    #[test]
    fn big_inputs_are_refused() {
        let big = json!({"s": "x".repeat(2000)});
        assert!(
            check_value(&big, 1000, 64)
                .unwrap_err()
                .message()
                .contains("limit")
        );
        assert!(parse_checked(&big.to_string(), 1000, 64).is_err());
        assert!(check_value(&big, 10_000, 64).is_ok());
    }

    #[test]
    fn long_echoes_are_cut_with_a_marker_and_data_is_kept() {
        let out = ToolOutput::new(json!("é".repeat(100)));
        let capped = cap_echo(out, 51);
        assert!(capped.echo().starts_with(&"é".repeat(25)));
        assert!(
            capped.echo().contains("[truncated: 150 more bytes of 200]"),
            "{}",
            capped.echo()
        );
        assert_eq!(capped.data(), Some(&json!("é".repeat(100))));
    }

    proptest! {
        // The text scan agrees with the parser on every JSON value it can parse.
        #[test]
        fn text_depth_matches_the_value(depth in 0usize..40, wide in 0usize..3) {
            let mut v = json!("x[{\"");
            for i in 0..depth {
                v = if i % 2 == 0 { json!([v, wide]) } else { json!({"k": v, "w": wide}) };
            }
            let text = v.to_string();
            prop_assert_eq!(text_depth(&text), depth);
            let (_, d) = measure(&v, if depth == 0 { 0 } else { 1 }, usize::MAX, usize::MAX);
            prop_assert_eq!(d, depth);
        }
    }
}
