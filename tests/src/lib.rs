//! Integration tests of the workspace live in `tests/`; this crate has no code of its own.
