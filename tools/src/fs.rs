//! The `fs` domain: read-only access to files under the context's [`ToolRoot`] (default the
//! current directory). Every path is checked to stay inside the root, symlinks resolved, before
//! it is read; sizes and counts are capped so one call cannot flood the model's context.

mod guard;

use std::fs::{self, File};
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

use tool_core::prelude::*;

pub use guard::FsRoot;
use guard::io_reason;

use crate::domains;

/// Largest file `read_file` returns whole, and most text one call returns.
pub const MAX_READ_BYTES: u64 = 1024 * 1024;
/// Most entries `list_directory` returns.
pub const MAX_ENTRIES: usize = 1000;
/// Most matches `search_files` returns.
pub const MAX_MATCHES: usize = 200;
/// Longest line excerpt `search_files` returns.
const MAX_EXCERPT: usize = 200;
/// How deep `search_files` walks.
const MAX_DEPTH: usize = 32;

/// Text read from a file.
#[tool_core::data(output)]
#[derive(Debug)]
pub struct FileContent {
    /// The path, relative to the root.
    pub path: String,
    /// The text of the lines read.
    pub content: String,
    /// First line returned (1-based).
    pub start_line: usize,
    /// Last line returned (1-based; start_line - 1 when nothing was returned).
    pub end_line: usize,
    /// Lines in the whole file, when the file was read to its end.
    pub total_lines: Option<usize>,
    /// Whether the text was cut at the size cap.
    pub truncated: bool,
}

/// Returns the text of a file under the root, whole or a range of lines (1-based, inclusive).
/// Files over 1 MiB must be read by line range. Use it to read source, notes or configuration.
#[tool(
    domain = domains::fs,
    blocking,
    label = "Reading a file",
    hint = "Reads a text file, whole or a line range",
    examples(
        "Whole file" => r#"{"path": "README.md"}"#,
        "Lines 10 to 20" => r#"{"path": "src/main.rs", "start_line": 10, "end_line": 20}"#,
    ),
)]
pub fn read_file(
    ctx: &ToolContext,
    #[arg(description = "Path relative to the root directory")] path: String,
    #[arg(description = "First line to return, 1-based; default 1")] start_line: Option<usize>,
    #[arg(description = "Last line to return, inclusive; default the end")] end_line: Option<usize>,
) -> Result<FileContent, ToolError> {
    let root = FsRoot::of(ctx)?;
    let real = root.resolve(&path, "path")?;
    let meta = fs::metadata(&real)?;
    if meta.is_dir() {
        return Err(ToolError::invalid_input(format!(
            "`{path}` is a directory; use list_directory to see what it holds"
        ))
        .with_path("path"));
    }
    let start = start_line.unwrap_or(1);
    if start == 0 {
        return Err(ToolError::invalid_input("lines are numbered from 1").with_path("start_line"));
    }
    if let Some(end) = end_line
        && end < start
    {
        return Err(ToolError::invalid_input(format!(
            "end_line {end} is before start_line {start}"
        ))
        .with_path("end_line"));
    }
    let ranged = start_line.is_some() || end_line.is_some();
    if !ranged && meta.len() > MAX_READ_BYTES {
        return Err(ToolError::invalid_input(format!(
            "`{path}` is {} bytes, over the {MAX_READ_BYTES}-byte cap; read it by line range (start_line, end_line)",
            meta.len()
        ))
        .with_path("path"));
    }
    let reader = BufReader::new(File::open(&real)?);
    let (content, end, total, truncated) = read_lines(reader, start, end_line, &path)?;
    Ok(FileContent {
        path: root.display(&real),
        content,
        start_line: start,
        end_line: end,
        total_lines: total,
        truncated,
    })
}

/// Lines `start..=end` of `reader`: (text, last line returned, total lines if read to the end,
/// whether the byte cap cut it).
fn read_lines(
    mut reader: impl BufRead,
    start: usize,
    end: Option<usize>,
    path: &str,
) -> Result<(String, usize, Option<usize>, bool), ToolError> {
    let mut content = String::new();
    let mut line = Vec::new();
    let mut number = 0;
    let mut last = start - 1;
    loop {
        line.clear();
        // Bound one line's length too: a file without newlines is read at most to the cap.
        let read = (&mut reader)
            .take(MAX_READ_BYTES + 1)
            .read_until(b'\n', &mut line)?;
        if read == 0 {
            return Ok((content, last, Some(number), false));
        }
        number += 1;
        if line.contains(&0) {
            return Err(ToolError::invalid_input(format!(
                "`{path}` is a binary file; only text files can be read"
            ))
            .with_path("path"));
        }
        if number < start {
            continue;
        }
        if end.is_some_and(|end| number > end) {
            return Ok((content, last, None, false));
        }
        let text = std::str::from_utf8(&line).map_err(|_| {
            ToolError::invalid_input(format!("`{path}` is not UTF-8 text (line {number})"))
                .with_path("path")
        })?;
        if (content.len() + text.len()) as u64 > MAX_READ_BYTES {
            return Ok((content, last, None, true));
        }
        content.push_str(text);
        last = number;
    }
}

/// One entry of a directory listing.
#[tool_core::data(output)]
#[derive(Debug)]
pub struct DirEntry {
    /// File name.
    pub name: String,
    /// file, directory, symlink or other.
    pub kind: String,
    /// Size in bytes (files only).
    pub size: Option<u64>,
}

/// A directory listing.
#[tool_core::data(output)]
#[derive(Debug)]
pub struct DirListing {
    /// The directory, relative to the root.
    pub path: String,
    /// Entries sorted by name.
    pub entries: Vec<DirEntry>,
    /// Whether entries were left out at the cap.
    pub truncated: bool,
}

/// Returns the entries of a directory under the root (name, kind, size), sorted by name.
/// Use "." for the root itself. Use it to find out what files exist before reading them.
#[tool(
    domain = domains::fs,
    blocking,
    label = "Listing a directory",
    hint = "Lists the files and folders in a directory",
    examples(
        "The root" => r#"{"path": "."}"#,
        "A subfolder" => r#"{"path": "src"}"#,
    ),
)]
pub fn list_directory(
    ctx: &ToolContext,
    #[arg(description = "Directory relative to the root; \".\" for the root")] path: String,
) -> Result<DirListing, ToolError> {
    let root = FsRoot::of(ctx)?;
    let real = root.resolve(&path, "path")?;
    if !real.is_dir() {
        return Err(ToolError::invalid_input(format!(
            "`{path}` is not a directory; use read_file or get_file_info"
        ))
        .with_path("path"));
    }
    let mut entries = Vec::new();
    for entry in fs::read_dir(&real)? {
        let entry = entry?;
        let file_type = entry.file_type()?;
        let size = if file_type.is_file() {
            entry.metadata().ok().map(|m| m.len())
        } else {
            None
        };
        entries.push(DirEntry {
            name: entry.file_name().to_string_lossy().into_owned(),
            kind: kind_of(&file_type).to_owned(),
            size,
        });
    }
    entries.sort_by(|a, b| a.name.cmp(&b.name));
    let truncated = entries.len() > MAX_ENTRIES;
    entries.truncate(MAX_ENTRIES);
    Ok(DirListing {
        path: root.display(&real),
        entries,
        truncated,
    })
}

fn kind_of(t: &fs::FileType) -> &'static str {
    if t.is_symlink() {
        "symlink"
    } else if t.is_dir() {
        "directory"
    } else if t.is_file() {
        "file"
    } else {
        "other"
    }
}

/// A file (and, for content searches, a line) that matched.
#[tool_core::data(output)]
#[derive(Debug)]
pub struct SearchMatch {
    /// The file, relative to the root.
    pub path: String,
    /// The matching line's number (content searches only).
    pub line: Option<usize>,
    /// The matching line, cut to 200 characters (content searches only).
    pub text: Option<String>,
}

/// Search results.
#[tool_core::data(output)]
#[derive(Debug)]
pub struct SearchResults {
    /// Matches in path order.
    pub matches: Vec<SearchMatch>,
    /// Whether the search stopped at the cap.
    pub truncated: bool,
}

/// Finds files under the root whose path matches a glob (e.g. `**/*.rs`; a pattern without `/`
/// matches file names at any depth) and, when `content` is given, the lines in them that match
/// that regular expression. Returns paths, line numbers and line text.
#[tool(
    domain = domains::fs,
    blocking,
    label = "Searching files",
    hint = "Finds files by name pattern and, optionally, by content",
    examples(
        "Markdown files" => r#"{"pattern": "*.md"}"#,
        "TODOs in Rust sources" => r#"{"pattern": "**/*.rs", "content": "TODO|FIXME"}"#,
    ),
)]
pub fn search_files(
    ctx: &ToolContext,
    #[arg(
        description = "Glob over paths relative to the search directory, e.g. *.md or src/**/*.rs"
    )]
    pattern: String,
    #[arg(description = "Regular expression to look for inside the files")] content: Option<String>,
    #[arg(description = "Directory to search, relative to the root; default the root")]
    path: Option<String>,
) -> Result<SearchResults, ToolError> {
    let root = FsRoot::of(ctx)?;
    let base = root.resolve(path.as_deref().unwrap_or("."), "path")?;
    let glob = globset::GlobBuilder::new(&pattern)
        .literal_separator(pattern.contains('/'))
        .build()
        .map_err(|e| {
            ToolError::invalid_input(format!("`{pattern}` is not a valid glob: {}", e.kind()))
                .with_path("pattern")
        })?
        .compile_matcher();
    let regex = content
        .as_deref()
        .map(|re| {
            regex::RegexBuilder::new(re)
                .size_limit(1 << 20)
                .build()
                .map_err(|e| {
                    ToolError::invalid_input(format!("not a valid regular expression: {e}"))
                        .with_path("content")
                })
        })
        .transpose()?;
    let mut matches = Vec::new();
    let walker = walkdir::WalkDir::new(&base)
        .follow_links(false)
        .max_depth(MAX_DEPTH)
        .sort_by_file_name();
    for entry in walker.into_iter().filter_map(Result::ok) {
        if !entry.file_type().is_file() {
            continue;
        }
        let Ok(relative) = entry.path().strip_prefix(&base) else {
            continue;
        };
        let by_name = !pattern.contains('/');
        let subject: &Path = if by_name {
            Path::new(entry.file_name())
        } else {
            relative
        };
        if !glob.is_match(subject) {
            continue;
        }
        let shown = root.display(entry.path());
        match &regex {
            None => matches.push(SearchMatch {
                path: shown,
                line: None,
                text: None,
            }),
            Some(re) => search_in(entry.path(), re, &shown, &mut matches),
        }
        if matches.len() >= MAX_MATCHES {
            matches.truncate(MAX_MATCHES);
            return Ok(SearchResults {
                matches,
                truncated: true,
            });
        }
    }
    Ok(SearchResults {
        matches,
        truncated: false,
    })
}

/// Adds the lines of `file` that match `re`; skips files that are too big, binary or not UTF-8.
fn search_in(file: &Path, re: &regex::Regex, shown: &str, out: &mut Vec<SearchMatch>) {
    let Ok(meta) = fs::metadata(file) else { return };
    if meta.len() > MAX_READ_BYTES {
        return;
    }
    let Ok(bytes) = fs::read(file) else { return };
    if bytes.contains(&0) {
        return;
    }
    let Ok(text) = String::from_utf8(bytes) else {
        return;
    };
    for (i, line) in text.lines().enumerate() {
        if re.is_match(line) {
            out.push(SearchMatch {
                path: shown.to_owned(),
                line: Some(i + 1),
                text: Some(excerpt(line)),
            });
            if out.len() >= MAX_MATCHES {
                return;
            }
        }
    }
}

fn excerpt(line: &str) -> String {
    let line = line.trim();
    match line.char_indices().nth(MAX_EXCERPT) {
        Some((at, _)) => format!("{}…", &line[..at]),
        None => line.to_owned(),
    }
}

/// Facts about a file or directory.
#[tool_core::data(output)]
#[derive(Debug)]
pub struct FileInfo {
    /// The path, relative to the root (symlinks resolved).
    pub path: String,
    /// file, directory or other.
    pub kind: String,
    /// Size in bytes.
    pub size: u64,
    /// Last modification time, RFC 3339 UTC.
    pub modified: Option<String>,
    /// Whether the file is read-only for everyone.
    pub readonly: bool,
}

/// Returns the kind, size, modification time and read-only flag of a file or directory under
/// the root. Use it to check a file exists or how big it is before reading it.
#[tool(
    domain = domains::fs,
    blocking,
    label = "Checking a file",
    hint = "Size, kind and modification time of a file",
    examples("A file's details" => r#"{"path": "Cargo.toml"}"#),
)]
pub fn get_file_info(
    ctx: &ToolContext,
    #[arg(description = "Path relative to the root directory")] path: String,
) -> Result<FileInfo, ToolError> {
    let root = FsRoot::of(ctx)?;
    let real: PathBuf = root.resolve(&path, "path")?;
    let meta = fs::metadata(&real).map_err(|e| {
        ToolError::failed(format!("`{path}` cannot be inspected: {}", io_reason(&e)))
    })?;
    let modified = meta
        .modified()
        .ok()
        .and_then(|t| jiff::Timestamp::try_from(t).ok())
        .map(|t| t.strftime("%Y-%m-%dT%H:%M:%SZ").to_string());
    Ok(FileInfo {
        path: root.display(&real),
        kind: kind_of(&meta.file_type()).to_owned(),
        size: meta.len(),
        modified,
        readonly: meta.permissions().readonly(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn setup() -> (tempfile::TempDir, ToolContext) {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path();
        fs::create_dir_all(p.join("src/deep")).unwrap();
        fs::write(p.join("README.md"), "# Title\nline two\nline three\n").unwrap();
        fs::write(p.join("src/main.rs"), "fn main() {}\n// TODO: more\n").unwrap();
        fs::write(p.join("src/deep/lib.rs"), "// nothing\n").unwrap();
        fs::write(p.join("blob.bin"), [0u8, 1, 2]).unwrap();
        let ctx = ToolContext::builder()
            .root(ToolRoot::new(p).unwrap())
            .build();
        (dir, ctx)
    }

    #[test]
    fn reads_whole_files_and_ranges() {
        let (_d, ctx) = setup();
        let all = read_file(&ctx, "README.md".into(), None, None).unwrap();
        assert_eq!(all.total_lines, Some(3));
        assert_eq!(all.end_line, 3);
        let mid = read_file(&ctx, "README.md".into(), Some(2), Some(2)).unwrap();
        assert_eq!(mid.content, "line two\n");
        assert_eq!((mid.start_line, mid.end_line), (2, 2));
        let past = read_file(&ctx, "README.md".into(), Some(10), None).unwrap();
        assert_eq!(past.content, "");
        assert_eq!(past.end_line, 9);
    }

    #[test]
    fn refuses_binary_directories_and_bad_ranges() {
        let (_d, ctx) = setup();
        let e = read_file(&ctx, "blob.bin".into(), None, None).unwrap_err();
        assert!(e.message().contains("binary"), "{e}");
        let e = read_file(&ctx, "src".into(), None, None).unwrap_err();
        assert!(e.message().contains("directory"), "{e}");
        let e = read_file(&ctx, "README.md".into(), Some(3), Some(1)).unwrap_err();
        assert_eq!(e.path(), Some("end_line"));
        let e = read_file(&ctx, "README.md".into(), Some(0), None).unwrap_err();
        assert_eq!(e.path(), Some("start_line"));
    }

    #[test]
    fn big_files_need_a_range_and_ranges_are_capped() {
        let (dir, ctx) = setup();
        let line = "x".repeat(1023) + "\n";
        fs::write(dir.path().join("big.txt"), line.repeat(1100)).unwrap();
        let e = read_file(&ctx, "big.txt".into(), None, None).unwrap_err();
        assert!(e.message().contains("line range"), "{e}");
        let part = read_file(&ctx, "big.txt".into(), Some(1), None).unwrap();
        assert!(part.truncated);
        assert_eq!(part.end_line, 1024);
        assert!(part.content.len() as u64 <= MAX_READ_BYTES);
    }

    #[test]
    fn lists_sorted_entries() {
        let (_d, ctx) = setup();
        let out = list_directory(&ctx, ".".into()).unwrap();
        let names: Vec<_> = out.entries.iter().map(|e| e.name.as_str()).collect();
        assert_eq!(names, ["README.md", "blob.bin", "src"]);
        assert_eq!(out.entries[2].kind, "directory");
        assert_eq!(out.entries[0].size, Some(28));
        let e = list_directory(&ctx, "README.md".into()).unwrap_err();
        assert!(e.message().contains("not a directory"));
    }

    #[test]
    fn searches_by_name_path_and_content() {
        let (_d, ctx) = setup();
        let names = |r: SearchResults| r.matches.into_iter().map(|m| m.path).collect::<Vec<_>>();
        let by_name = search_files(&ctx, "*.rs".into(), None, None).unwrap();
        assert_eq!(names(by_name), ["src/deep/lib.rs", "src/main.rs"]);
        let by_path = search_files(&ctx, "src/*.rs".into(), None, None).unwrap();
        assert_eq!(names(by_path), ["src/main.rs"]);
        let in_dir = search_files(&ctx, "*.rs".into(), None, Some("src/deep".into())).unwrap();
        assert_eq!(names(in_dir), ["src/deep/lib.rs"]);
        let todo = search_files(&ctx, "**/*.rs".into(), Some("TODO".into()), None).unwrap();
        assert_eq!(todo.matches.len(), 1);
        assert_eq!(todo.matches[0].line, Some(2));
        assert_eq!(todo.matches[0].text.as_deref(), Some("// TODO: more"));
    }

    #[test]
    fn search_input_errors_name_the_field() {
        let (_d, ctx) = setup();
        let e = search_files(&ctx, "[".into(), None, None).unwrap_err();
        assert_eq!(e.path(), Some("pattern"));
        let e = search_files(&ctx, "*".into(), Some("(".into()), None).unwrap_err();
        assert_eq!(e.path(), Some("content"));
        let e = search_files(&ctx, "*".into(), None, Some("../..".into())).unwrap_err();
        assert_eq!(e.path(), Some("path"));
    }

    #[test]
    fn search_does_not_follow_symlinks_out() {
        let (dir, ctx) = setup();
        std::os::unix::fs::symlink("/etc", dir.path().join("etc")).unwrap();
        let out = search_files(&ctx, "passwd".into(), None, None).unwrap();
        assert!(out.matches.is_empty());
    }

    #[test]
    fn file_info() {
        let (_d, ctx) = setup();
        let info = get_file_info(&ctx, "src/main.rs".into()).unwrap();
        assert_eq!(info.kind, "file");
        assert_eq!(info.size, 27);
        assert!(info.modified.unwrap().ends_with('Z'));
    }
}
