//! The bundled tools, one module per domain.
//!
//! A crate that nothing names is not linked, and its tools are not collected: a binary that
//! wants these tools names this crate, e.g. `use tool_bundle as _;`.
//!
//! | domain | tools |
//! |---|---|
//! | `time` | `get_current_time`, `convert_time` |
//! | `fs` | `read_file`, `list_directory`, `search_files`, `get_file_info` (read-only, under [`fs::FsRoot`]) |
//! | `web` | `fetch_url` (a page as text, through the SSRF-guarded [`tool_http::HttpClient`]) |

#![warn(missing_docs)]

pub mod domains;
pub mod fs;
pub mod time;
pub mod web;

#[cfg(test)]
mod tests {
    use tool_core::Registry;

    #[test]
    fn only_the_tools_that_may_run_long_are_tasks() {
        let registry = Registry::linked().unwrap();
        let mut tasks: Vec<_> = registry
            .tools()
            .iter()
            .filter(|t| t.task())
            .map(|t| t.name())
            .collect();
        tasks.sort_unstable();
        assert_eq!(tasks, ["fetch_url", "wait_duration"]);
    }
}
