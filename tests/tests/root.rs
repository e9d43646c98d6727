//! tool-core's root stays small and explained: at most twenty names, each one in the table of
//! `docs/architecture.md` ("The root") that says why it is there, and the table names nothing
//! the root does not have. A name is what a user writes after `tool_core::`: a module and the
//! attribute of the same name (`resource`, `prompt`) are one name, as in `use` they are one path.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

const MOST: usize = 20;

use tests::workspace;

fn hidden(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|a| {
        a.path().is_ident("doc") && a.parse_args::<syn::Ident>().is_ok_and(|i| i == "hidden")
    })
}

fn exported_macro(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|a| a.path().is_ident("macro_export"))
}

/// The names a `pub use` brings in (its leaves, or their `as` names).
fn leaves(tree: &syn::UseTree, out: &mut BTreeSet<String>) {
    match tree {
        syn::UseTree::Path(p) => leaves(&p.tree, out),
        syn::UseTree::Name(n) => {
            out.insert(n.ident.to_string());
        }
        syn::UseTree::Rename(r) => {
            out.insert(r.rename.to_string());
        }
        syn::UseTree::Group(g) => g.items.iter().for_each(|t| leaves(t, out)),
        syn::UseTree::Glob(_) => panic!("tool-core's root re-exports a glob: name each item"),
    }
}

/// Every public, documented name at tool-core's root.
fn root_names() -> BTreeSet<String> {
    let src = workspace().join("tool-core/src");
    let lib = std::fs::read_to_string(src.join("lib.rs")).expect("tool-core/src/lib.rs");
    let file = syn::parse_file(&lib).expect("lib.rs parses");
    let mut names = BTreeSet::new();
    for item in &file.items {
        match item {
            syn::Item::Mod(m)
                if matches!(m.vis, syn::Visibility::Public(_)) && !hidden(&m.attrs) =>
            {
                names.insert(m.ident.to_string());
            }
            syn::Item::Use(u)
                if matches!(u.vis, syn::Visibility::Public(_)) && !hidden(&u.attrs) =>
            {
                leaves(&u.tree, &mut names);
            }
            _ => {}
        }
    }
    // `#[macro_export]` puts a macro at the root from whichever file defines it.
    for entry in walk(&src) {
        let text = std::fs::read_to_string(&entry).expect("a source file");
        let file = syn::parse_file(&text).unwrap_or_else(|e| panic!("{}: {e}", entry.display()));
        for item in &file.items {
            if let syn::Item::Macro(m) = item
                && exported_macro(&m.attrs)
                && let Some(ident) = &m.ident
            {
                names.insert(ident.to_string());
            }
        }
    }
    names
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).expect("a source folder") {
        let path = entry.expect("a folder entry").path();
        if path.is_dir() {
            files.extend(walk(&path));
        } else if path.extension().is_some_and(|e| e == "rs") {
            files.push(path);
        }
    }
    files
}

/// The names in the first column of the table under "### The root".
fn table_names() -> BTreeSet<String> {
    let doc = std::fs::read_to_string(workspace().join("docs/architecture.md"))
        .expect("docs/architecture.md");
    let section = doc
        .split("### The root")
        .nth(1)
        .expect("a section \"### The root\"");
    let section = section.split("\n#").next().unwrap_or(section);
    let mut names = BTreeSet::new();
    for line in section.lines().filter(|l| l.starts_with("| `")) {
        let first = line.split('|').nth(1).unwrap_or_default();
        for name in first.split('`').skip(1).step_by(2) {
            names.insert(name.trim_end_matches('!').to_owned());
        }
    }
    names
}

#[test]
fn the_root_holds_at_most_twenty_names_each_explained() {
    let root = root_names();
    assert!(
        root.len() <= MOST,
        "tool-core's root has {} names (at most {MOST}): {root:?}",
        root.len()
    );
    let table = table_names();
    let unexplained: Vec<_> = root.difference(&table).collect();
    assert!(
        unexplained.is_empty(),
        "docs/architecture.md (The root) does not say why these are at tool-core's root: {unexplained:?}"
    );
    let gone: Vec<_> = table.difference(&root).collect();
    assert!(
        gone.is_empty(),
        "docs/architecture.md (The root) lists names tool-core's root does not have: {gone:?}"
    );
}
