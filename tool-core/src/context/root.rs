//! The directory that tools touching files work under.

use std::path::Path;
use std::sync::Arc;

/// The directory that tools touching files work under (the `fs` tools read only inside it;
/// error messages never show paths outside it). Canonical: symlinks resolved.
///
/// ```
/// let root = tool_core::context::ToolRoot::new(".").unwrap();
/// assert!(root.path().is_absolute());
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolRoot(Arc<Path>);

impl ToolRoot {
    /// The root at `dir`, which must exist and be a directory.
    pub fn new(dir: impl AsRef<Path>) -> std::io::Result<Self> {
        let dir = dir.as_ref().canonicalize()?;
        if !dir.is_dir() {
            return Err(std::io::Error::new(
                std::io::ErrorKind::NotADirectory,
                format!("{} is not a directory", dir.display()),
            ));
        }
        Ok(Self(dir.into()))
    }

    /// The canonical directory.
    pub fn path(&self) -> &Path {
        &self.0
    }
}
