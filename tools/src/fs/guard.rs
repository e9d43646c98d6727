//! The path guard: turns a path a model wrote into a path inside the root, or refuses it.
//!
//! Two checks, in order: a lexical one (no `..` that climbs above the root, no absolute path
//! outside it, no NUL), then, on the real file system, one after resolving symlinks (the
//! resolved path must still be inside the root).

use std::path::{Component, Path, PathBuf};

use tool_core::{ToolContext, ToolError, context::ToolRoot};

/// The directory the `fs` tools may read: the context's [`ToolRoot`], else the current
/// directory.
///
/// ```
/// use tool_core::{ToolContext, context::ToolRoot};
/// use tool_bundle::fs::FsRoot;
///
/// let dir = std::env::temp_dir(); // e.g. "/srv/docs"
/// let ctx = ToolContext::builder().root(ToolRoot::new(&dir)?).build();
/// assert_eq!(FsRoot::of(&ctx)?.path(), dir.canonicalize()?);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FsRoot(ToolRoot);

impl FsRoot {
    /// The root a call works under.
    pub fn of(ctx: &ToolContext) -> Result<Self, ToolError> {
        match ctx.root() {
            Some(root) => Ok(Self(root.clone())),
            None => ToolRoot::new(".").map(Self).map_err(|e| {
                ToolError::internal(format!(
                    "the current directory cannot be used as the root: {}",
                    io_reason(&e)
                ))
            }),
        }
    }

    /// The canonical root directory.
    pub fn path(&self) -> &Path {
        self.0.path()
    }

    /// Resolves `user_path` (relative to the root, or absolute inside it) to an existing path
    /// inside the root, following symlinks only while they stay inside.
    pub fn resolve(&self, user_path: &str, field: &str) -> Result<PathBuf, ToolError> {
        let inside = self.lexical(user_path).map_err(|e| e.with_path(field))?;
        let candidate = self.path().join(&inside);
        let real = candidate.canonicalize().map_err(|e| {
            let message = if e.kind() == std::io::ErrorKind::NotFound {
                format!("`{user_path}` does not exist; list_directory shows what is there")
            } else {
                format!("`{user_path}` cannot be opened: {}", io_reason(&e))
            };
            ToolError::new(tool_core::ToolError::from(e).kind(), message).with_path(field)
        })?;
        if !real.starts_with(self.path()) {
            return Err(ToolError::permission_denied(format!(
                "`{user_path}` is a symlink that leads outside the root directory; only files under the root can be read"
            ))
            .with_path(field));
        }
        Ok(real)
    }

    /// The path relative to the root, lexically normalised, or why it is refused.
    fn lexical(&self, user_path: &str) -> Result<PathBuf, ToolError> {
        if user_path.contains('\0') {
            return Err(ToolError::invalid_input("the path contains a NUL byte"));
        }
        let path = Path::new(user_path);
        let relative = if path.is_absolute() {
            path.strip_prefix(self.path()).map_err(|_| {
                ToolError::permission_denied(format!(
                    "`{user_path}` is an absolute path outside the root directory; use a path relative to the root"
                ))
            })?
        } else {
            path
        };
        let mut out = PathBuf::new();
        for component in relative.components() {
            match component {
                Component::CurDir => {}
                Component::Normal(part) => out.push(part),
                Component::ParentDir => {
                    if !out.pop() {
                        return Err(ToolError::permission_denied(format!(
                            "`{user_path}` uses `..` to leave the root directory; only files under the root can be read"
                        )));
                    }
                }
                Component::RootDir | Component::Prefix(_) => {
                    return Err(ToolError::permission_denied(format!(
                        "`{user_path}` is not a path under the root directory"
                    )));
                }
            }
        }
        Ok(out)
    }

    /// `path` (inside the root) as the model should see it: relative, with `/`, `.` for the root.
    pub fn display(&self, path: &Path) -> String {
        match path.strip_prefix(self.path()) {
            Ok(rel) if rel.as_os_str().is_empty() => ".".to_owned(),
            Ok(rel) => rel
                .components()
                .map(|c| c.as_os_str().to_string_lossy())
                .collect::<Vec<_>>()
                .join("/"),
            Err(_) => path.to_string_lossy().into_owned(),
        }
    }
}

/// The OS error text without the `(os error N)` suffix.
pub(crate) fn io_reason(e: &std::io::Error) -> String {
    let text = e.to_string();
    match text.find(" (os error") {
        Some(at) => text[..at].to_owned(),
        None => text,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use tool_core::error::ErrorKind;

    fn root() -> (tempfile::TempDir, FsRoot) {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("sub")).unwrap();
        std::fs::write(dir.path().join("sub/a.txt"), "a").unwrap();
        let ctx = ToolContext::builder()
            .root(ToolRoot::new(dir.path()).unwrap())
            .build();
        (dir, FsRoot::of(&ctx).unwrap())
    }

    #[test]
    fn paths_inside_resolve() {
        let (_d, root) = root();
        for ok in ["sub/a.txt", "./sub/a.txt", "sub/../sub/a.txt", "sub//a.txt"] {
            let p = root.resolve(ok, "path").unwrap();
            assert_eq!(root.display(&p), "sub/a.txt", "{ok}");
        }
        let abs = root.path().join("sub/a.txt");
        assert!(root.resolve(abs.to_str().unwrap(), "path").is_ok());
        assert_eq!(root.display(&root.resolve(".", "path").unwrap()), ".");
    }

    #[test]
    fn escapes_are_refused_with_a_reason() {
        let (_d, root) = root();
        for (bad, says) in [
            ("../../etc/passwd", "uses `..`"),
            ("sub/../../x", "uses `..`"),
            ("/etc/passwd", "absolute path outside"),
            ("a\0b", "NUL"),
        ] {
            let err = root.resolve(bad, "path").unwrap_err();
            assert!(err.message().contains(says), "{bad}: {err}");
            assert_eq!(err.path(), Some("path"));
        }
    }

    #[test]
    fn symlinks_out_of_the_root_are_refused_and_inside_followed() {
        let (dir, root) = root();
        std::os::unix::fs::symlink("/etc", dir.path().join("etc_link")).unwrap();
        std::os::unix::fs::symlink("sub/a.txt", dir.path().join("inside")).unwrap();
        let err = root.resolve("etc_link/passwd", "path").unwrap_err();
        assert_eq!(err.kind(), ErrorKind::PermissionDenied);
        assert!(err.message().contains("symlink"), "{err}");
        assert_eq!(
            root.display(&root.resolve("inside", "path").unwrap()),
            "sub/a.txt"
        );
    }

    #[test]
    fn missing_files_are_not_found() {
        let (_d, root) = root();
        let err = root.resolve("nope.txt", "path").unwrap_err();
        assert_eq!(err.kind(), ErrorKind::NotFound);
    }

    proptest! {
        // Whatever the model writes, a resolved path is inside the root.
        #[test]
        fn resolved_paths_never_leave_the_root(parts in proptest::collection::vec(
            prop_oneof![Just(".."), Just("."), Just("sub"), Just("a.txt"), Just("/"), Just("etc"), Just("")],
            0..8,
        )) {
            let (_d, root) = root();
            let path = parts.join("/");
            if let Ok(p) = root.resolve(&path, "path") {
                prop_assert!(p.starts_with(root.path()), "{path} -> {p:?}");
            }
        }
    }
}
