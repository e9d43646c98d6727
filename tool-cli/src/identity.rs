//! Who a binary built on tool-cli is: the name and version its MCP clients, its help and its
//! messages give, and the folder its data is kept in.

use std::path::PathBuf;

/// A binary's name, version and title. [`identity!`](crate::identity!) makes the one of the
/// crate it is written in, as clap's `command!` does; [`main!`](crate::main!) gives it to the
/// ready-made `main`, and [`ToolArgs::identity`](crate::ToolArgs::identity) to a binary that
/// flattens [`ToolArgs`](crate::ToolArgs) into a parser of its own.
///
/// ```
/// let me = tool_cli::Identity::new("notes-agent", "1.4.0").with_title("Notes");
/// assert_eq!(me.name(), "notes-agent");
/// assert_eq!(me.version(), "1.4.0");
/// assert_eq!(me.title(), Some("Notes"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Identity {
    name: String,
    version: String,
    title: Option<String>,
}

impl Identity {
    /// A binary named `name` (its MCP `serverInfo.name`, its help's name, the folder of its
    /// data), at `version`.
    pub fn new(name: impl Into<String>, version: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            version: version.into(),
            title: None,
        }
    }

    /// The name people read (`serverInfo.title`), when it differs from the binary's name.
    #[must_use]
    pub fn with_title(mut self, title: impl Into<String>) -> Self {
        self.title = Some(title.into());
        self
    }

    /// The binary's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The binary's version.
    pub fn version(&self) -> &str {
        &self.version
    }

    /// The title, if one was set.
    pub fn title(&self) -> Option<&str> {
        self.title.as_deref()
    }

    /// The folder this binary keeps its data in: `$XDG_DATA_HOME/NAME`, else
    /// `$HOME/.local/share/NAME`; `None` when neither variable is set.
    pub fn data_dir(&self) -> Option<PathBuf> {
        let data = std::env::var_os("XDG_DATA_HOME")
            .filter(|d| !d.is_empty())
            .map(PathBuf::from)
            .or_else(|| {
                std::env::var_os("HOME")
                    .filter(|h| !h.is_empty())
                    .map(|home| std::path::Path::new(&home).join(".local/share"))
            })?;
        Some(data.join(&self.name))
    }

    /// The default task store's file: `tasks.sqlite3` in [`data_dir`](Self::data_dir).
    pub fn task_file(&self) -> Option<PathBuf> {
        Some(self.data_dir()?.join("tasks.sqlite3"))
    }
}

/// A [`ToolArgs`](crate::ToolArgs) not told who it is: named for the running executable's
/// file, at tool-cli's version. Set [`ToolArgs::identity`](crate::ToolArgs::identity) to
/// [`identity!()`](crate::identity!) for the crate's own.
impl Default for Identity {
    fn default() -> Self {
        let name = std::env::args_os()
            .next()
            .and_then(|arg0| {
                std::path::Path::new(&arg0)
                    .file_stem()
                    .map(|s| s.to_string_lossy().into_owned())
            })
            .filter(|name| !name.is_empty())
            .unwrap_or_else(|| "toolctl".to_owned());
        Self::new(name, env!("CARGO_PKG_VERSION"))
    }
}
