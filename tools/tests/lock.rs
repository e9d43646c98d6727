//! The bundled tools' definitions against `tools.lock.json`: a change that breaks a client, a
//! prompt or an evaluation written against them fails here, and so does a lock left out of date.
//! Write it again with `TOOLS_LOCK=update cargo test -p tool-bundle --test lock`, review the diff, and
//! commit it.

use tool_bundle as _;

#[test]
fn definitions_match_the_lock() {
    tool_lock::LockTest::new("tools.lock.json").exact().run();
}
