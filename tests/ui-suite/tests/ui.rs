//! The compile-time rules of `#[tool]`: every `fail/` case has its expected diagnostics in a
//! `.stderr` beside it; every `pass/` case compiles and runs.
//!
//! After changing a diagnostic on purpose: `TRYBUILD=overwrite cargo test -p ui-suite`, then
//! read the new `.stderr` files before committing them.

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.pass("ui/pass/*.rs");
    t.compile_fail("ui/fail/*.rs");
}
