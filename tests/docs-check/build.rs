//! Writes `blocks.rs`: a module for each ```rust block of README.md and docs/*.md.
//!
//! A block made of items (a tool, a `main`) is the module's body as it stands. A block of
//! statements becomes the body of `async fn block(..) -> Result<(), BoxError>`, so that `?` and
//! `.await` read as in an application. What a block takes from the page around it is said in
//! an HTML comment right above it, which readers of the rendered page do not see:
//!
//! ```text
//! <!-- check
//! given executor: tool_core::Executor     (a parameter of `block`)
//! file logo.png                            (an empty file beside the block, for include_bytes!)
//! struct Forecast;                         (any other line: Rust put before the block)
//! -->
//! ```
//!
//! `/* ... */` (code left out) reads as `todo!()`, `tool_cli::main!` as `crate::doc_main!` (one
//! global allocator per crate) and `#[test]` is dropped (the blocks are compiled, not run; the
//! check `#[tool]` generates for each tool does run).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

fn main() {
    let root =
        PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets it")).join("../..");
    let out = PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets it"));
    let mut pages = vec![root.join("README.md")];
    let mut docs: Vec<PathBuf> = std::fs::read_dir(root.join("docs"))
        .expect("docs/ is there")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    docs.sort();
    pages.extend(docs);
    println!("cargo::rerun-if-changed={}", root.join("docs").display());
    let mut blocks = String::new();
    let mut problems = Vec::new();
    for page in &pages {
        println!("cargo::rerun-if-changed={}", page.display());
        let name = page
            .strip_prefix(&root)
            .unwrap_or(page)
            .display()
            .to_string();
        let text = std::fs::read_to_string(page).expect("a page reads");
        for block in fenced_blocks(&text) {
            match module(&name, &block, &out) {
                Ok(module) => blocks.push_str(&module),
                Err(problem) => problems.push(format!("{name}:{}: {problem}", block.line)),
            }
        }
    }
    if !problems.is_empty() {
        for problem in &problems {
            println!("cargo::error={problem}");
        }
    }
    std::fs::write(out.join("blocks.rs"), blocks).expect("OUT_DIR is writable");
}

/// A ```rust block: its first line's number, its info string, its text, and the comment right
/// above it.
struct Block {
    line: usize,
    info: String,
    code: String,
    context: Option<String>,
}

fn fenced_blocks(text: &str) -> Vec<Block> {
    let lines: Vec<&str> = text.lines().collect();
    let mut blocks = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let Some(info) = lines[i].strip_prefix("```rust") else {
            i += 1;
            continue;
        };
        let start = i;
        let mut code = String::new();
        i += 1;
        while i < lines.len() && !lines[i].starts_with("```") {
            code.push_str(lines[i]);
            code.push('\n');
            i += 1;
        }
        i += 1;
        let context = (start > 0 && lines[start - 1].trim_end() == "-->").then(|| {
            let open = (0..start)
                .rev()
                .find(|&j| lines[j].starts_with("<!-- check"))
                .unwrap_or(start);
            lines[open + 1..start - 1].join("\n")
        });
        blocks.push(Block {
            line: start + 1,
            info: info.trim_start_matches(',').to_owned(),
            code,
            context,
        });
    }
    blocks
}

/// Whether `code` is items alone (a macro call at the top reads as an item to syn: only the
/// ones that make items count).
fn items_only(code: &str) -> bool {
    syn::parse_file(code).is_ok_and(|file| {
        file.items.iter().all(|item| match item {
            syn::Item::Macro(call) => call.mac.path.segments.last().is_some_and(|name| {
                ["domain", "macro_rules"].contains(&name.ident.to_string().as_str())
            }),
            _ => true,
        })
    })
}

/// The module a block becomes.
fn module(page: &str, block: &Block, out: &Path) -> Result<String, String> {
    if !block.info.is_empty() {
        return Err(format!(
            "```rust{} : every block is compiled; say what it needs in a `<!-- check -->` \
             comment above it instead",
            block.info
        ));
    }
    let mut given = Vec::new();
    let mut before = String::new();
    for line in block.context.as_deref().unwrap_or("").lines() {
        if let Some(param) = line.strip_prefix("given ") {
            given.push(param.trim().to_owned());
        } else if let Some(file) = line.strip_prefix("file ") {
            std::fs::write(out.join(file.trim()), b"").map_err(|e| e.to_string())?;
        } else {
            before.push_str(line);
            before.push('\n');
        }
    }
    let code = block
        .code
        .replace("/* ... */", "todo!()")
        .replace("tool_cli::main!", "crate::doc_main!")
        .replace("#[test]\n", "");
    let ident: String = format!("{page}_{}", block.line)
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '_'
            }
        })
        .collect();
    let mut module = String::new();
    let _ = writeln!(
        module,
        "/// {page}:{}\n#[allow(unused, dead_code, unreachable_code, clippy::all)]\nmod {ident} {{",
        block.line
    );
    module.push_str(&before);
    if given.is_empty() && items_only(&code) {
        module.push_str(&code);
    } else {
        let _ = writeln!(
            module,
            "pub async fn block({}) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {{",
            given.join(", ")
        );
        module.push_str(&code);
        module.push_str("#[allow(unreachable_code)]\nOk(())\n}\n");
    }
    module.push_str("}\n");
    Ok(module)
}
