//! The lock in `cargo test`: a tools crate gets the review with no CI script.

use std::path::{Path, PathBuf};

use super::{Lock, ReviewOptions, review};
use tool_core::Registry;

/// The environment variable that makes [`LockTest::run`] write the lock instead of checking
/// it: `TOOLS_LOCK=update cargo test`.
pub const LOCK_ENV: &str = "TOOLS_LOCK";

/// A test that holds the tools linked into the test binary to a committed lock file: it fails
/// with the classified review when a change breaks someone (or a budget is gone over), and
/// with `exact` also when the lock is out of date. `TOOLS_LOCK=update cargo test` writes the
/// lock from today's definitions instead; so does `toolctl lock`.
///
/// ```no_run
/// #[test]
/// fn definitions_match_the_lock() {
///     tool_lock::LockTest::new("tools.lock.json") // beside Cargo.toml
///         .allow_breaking("get_forecast:input.param.removed") // a change that is meant
///         .max_tool_tokens(1_500)
///         .run();
/// }
/// ```
#[derive(Debug)]
#[must_use = "a LockTest does nothing until `run`"]
pub struct LockTest {
    path: PathBuf,
    options: ReviewOptions,
    exact: bool,
    registry: Option<Registry>,
}

impl LockTest {
    /// A test against the lock at `path` (relative paths are from the package's directory,
    /// where `cargo test` runs tests).
    pub fn new(path: impl Into<PathBuf>) -> Self {
        Self {
            path: path.into(),
            options: ReviewOptions::default(),
            exact: false,
            registry: None,
        }
    }

    /// Lets a breaking change through: `RULE`, `TOOL:RULE` or `TOOL:*` (see
    /// [`Allowance`](super::Allowance)).
    ///
    /// # Panics
    ///
    /// When `allowance` names no breaking rule: a test's own setup is wrong.
    pub fn allow_breaking(mut self, allowance: &str) -> Self {
        match allowance.parse() {
            Ok(a) => self.options.allow.push(a),
            Err(e) => panic!("LockTest::allow_breaking(\"{allowance}\"): {e}"),
        }
        self
    }

    /// Fails when the whole listing costs more than `tokens` in a format.
    pub fn max_tokens(mut self, tokens: u64) -> Self {
        self.options.max_tokens = Some(tokens);
        self
    }

    /// Fails when a tool's definition costs more than `tokens` in a format.
    pub fn max_tool_tokens(mut self, tokens: u64) -> Self {
        self.options.max_tool_tokens = Some(tokens);
        self
    }

    /// Also fails when the lock is not what would be written today (an additive or cosmetic
    /// change, other token counts), so the committed file stays current.
    pub fn exact(mut self) -> Self {
        self.exact = true;
        self
    }

    /// Reviews these tools instead of those linked into the test binary.
    pub fn registry(mut self, registry: Registry) -> Self {
        self.registry = Some(registry);
        self
    }

    /// Runs the test: with `TOOLS_LOCK=update`, writes the lock; otherwise reviews today's
    /// definitions against it and prints the review.
    ///
    /// # Panics
    ///
    /// With the review, when it fails; when the lock is out of date and `exact` was asked;
    /// when the lock is missing or unreadable; when no tools are linked.
    pub fn run(self) {
        let update = std::env::var(LOCK_ENV).is_ok_and(|v| v == "update");
        if let Err(message) = self.outcome(update) {
            panic!("{message}");
        }
    }

    /// What `run` does, as a result: the report printed on success, the message on failure.
    pub(crate) fn outcome(self, update: bool) -> Result<String, String> {
        let registry = match self.registry {
            Some(r) => r,
            None => Registry::linked().map_err(|e| e.to_string())?,
        };
        if registry.is_empty() {
            return Err(
                "no tools are linked: name your tools crates (`use my_tools as _;`)".into(),
            );
        }
        let current = Lock::of(&registry);
        let path = self.path.as_path();
        let how = update_command();
        if update {
            let written = current.to_json();
            write(path, &written).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
            let message = format!("wrote {} ({} tools)", path.display(), current.tools.len());
            println!("{message}");
            return Ok(message);
        }
        let text = std::fs::read_to_string(path).map_err(|e| {
            format!(
                "cannot read the lock {}: {e}\nwrite it with `{how}` (or `toolctl lock -o {}`) and commit it",
                path.display(),
                path.display()
            )
        })?;
        let baseline =
            Lock::parse(&text, &path.display().to_string()).map_err(|e| e.to_string())?;
        let review = review(Some(&baseline), &current, &self.options);
        let report = format!("tool definitions against {}:\n{review}", path.display());
        println!("{report}");
        if review.fails() {
            return Err(format!(
                "{report}\n\nthe definitions break what {} promised. If that is meant, allow it \
                 (`LockTest::allow_breaking(\"TOOL:RULE\")`) or accept it by writing the lock \
                 again: `{how}`",
                path.display()
            ));
        }
        if self.exact && current.to_json() != text {
            return Err(format!(
                "{report}\n\n{} is out of date: write it again with `{how}` and commit it",
                path.display()
            ));
        }
        Ok(report)
    }
}

/// The one command that writes the lock again, for the package under test.
fn update_command() -> String {
    match std::env::var("CARGO_PKG_NAME") {
        Ok(name) if !name.is_empty() => format!("{LOCK_ENV}=update cargo test -p {name}"),
        _ => format!("{LOCK_ENV}=update cargo test"),
    }
}

fn write(path: &Path, text: &str) -> std::io::Result<()> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)?;
    }
    std::fs::write(path, text)
}
