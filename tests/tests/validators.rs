//! `hardctl export` (the 41 hard input types of `tests/fixtures/hard-types`) checked by the
//! official packages, format by format, exactly as `examples/tests/validators.rs` checks
//! `toolctl`: what a target cannot express is `check`'s to report, but what is exported must
//! always be accepted.

#[path = "../support/validators.rs"]
#[macro_use]
mod support;

use support::validate;

export_tests! { env!("CARGO_BIN_EXE_hardctl"), HARDCTL_CASES;
    hardctl_openai => "openai";
    hardctl_openai_strict => "openai", strict;
    hardctl_openai_responses => "openai-responses";
    hardctl_openai_responses_strict => "openai-responses", strict;
    hardctl_anthropic => "anthropic";
    hardctl_anthropic_strict => "anthropic", strict;
    hardctl_gemini => "gemini";
    hardctl_gemini_openapi => "gemini-openapi";
    hardctl_mcp => "mcp";
}

/// A format added to tool-core must be validated here too, in each of its modes.
#[test]
fn every_format_is_covered() {
    for format in tool_core::render::Format::ALL {
        let modes: &[bool] = if format.has_strict() {
            &[false, true]
        } else {
            &[false]
        };
        for &strict in modes {
            assert!(
                HARDCTL_CASES.contains(&(format.as_str(), strict)),
                "{format} (strict: {strict}) is not validated"
            );
        }
    }
}
