//! The workspace's crates depend only downward: every dependency between two of its crates
//! (normal, build or dev) goes from a higher layer to a lower one, as `docs/architecture.md`
//! draws them. Cargo already rejects a cycle; this rejects an edge that points up a layer, or
//! across one (an adapter that reaches into another adapter at its own level), before it
//! becomes one.
//!
//! And what a crate links stays what it needs: tool-core links no network, server or CLI
//! crate, no catalog (its stemmer) and no tokenizer; tool-mcp without features and a stdio server built on it (`bench-lean`) link no HTTP
//! client, TLS or CLI parser, and tool-mcp no JWT or RSA code; the example binaries without
//! their features (the README's first command) link no embedding model, JWT or PostgreSQL
//! client (`cargo tree -e normal`).

use std::collections::BTreeMap;
use std::process::Command;

use serde_json::Value;

/// Each crate's layer: it may depend on crates of lower layers only.
const LAYERS: &[(&str, u8)] = &[
    ("tool-grammar", 0),
    ("tool-core-macros", 1),
    ("tool-core", 2),
    // What reads a registry: the catalog and the lock.
    ("tool-catalog", 3),
    ("tool-lock", 3),
    ("tool-http", 3),
    ("tool-endpoint", 3),
    ("tool-tasks", 3),
    // The catalog's embedder.
    ("tool-embed", 4),
    ("tool-mcp", 4),
    ("tool-agent", 4),
    ("tool-presence", 4),
    ("tool-bundle", 4),
    // Code mode: scripts that call tools through the executor.
    ("tool-code", 4),
    ("tool-rig", 4),
    ("tool-cli", 5),
    // Fixtures: tool crates the tests link.
    ("hard-types", 6),
    ("extra-tools", 6),
    ("clashing-tools", 6),
    ("locked-tools", 6),
    // A user's own binary on tool-cli's ready-made main.
    ("notes-agent", 6),
    // What sits on top: binaries, tests, benchmarks.
    ("examples", 7),
    ("tests", 7),
    ("ui-suite", 7),
    ("docs-check", 7),
    ("bench-calls", 7),
    ("bench-mcp", 7),
    ("bench-lean", 7),
    ("bench-report", 7),
    ("bench-tasks", 7),
    ("bench-code", 7),
];

/// A dependency that breaks the layering, as a message naming both crates and their layers.
fn back_edges(metadata: &Value) -> Vec<String> {
    let layer = |name: &str| LAYERS.iter().find(|(n, _)| *n == name).map(|(_, l)| *l);
    let mut problems = Vec::new();
    let packages = metadata["packages"]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or_default();
    for package in packages {
        let name = package["name"].as_str().unwrap_or_default();
        let Some(from) = layer(name) else {
            problems.push(format!(
                "`{name}` is a workspace crate with no layer: add it to LAYERS in \
                 tests/tests/layers.rs and to docs/architecture.md"
            ));
            continue;
        };
        let dependencies = package["dependencies"]
            .as_array()
            .map(Vec::as_slice)
            .unwrap_or_default();
        // Only dependencies inside the workspace have a `path`.
        for dependency in dependencies.iter().filter(|d| d.get("path").is_some()) {
            let to_name = dependency["name"].as_str().unwrap_or_default();
            let kind = dependency["kind"].as_str().unwrap_or("normal");
            match layer(to_name) {
                Some(to) if to < from => {}
                Some(to) => problems.push(format!(
                    "`{name}` (layer {from}) depends on `{to_name}` (layer {to}, a {kind} \
                     dependency): a crate depends only on crates of lower layers"
                )),
                None => problems.push(format!(
                    "`{name}` depends on `{to_name}`, which has no layer: add it to LAYERS"
                )),
            }
        }
    }
    problems
}

fn metadata() -> Value {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = Command::new(cargo)
        .args(["metadata", "--no-deps", "--format-version", "1"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("cargo metadata runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("cargo metadata prints JSON")
}

#[test]
fn every_crate_depends_only_on_lower_layers() {
    let metadata = metadata();
    let problems = back_edges(&metadata);
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    // Every layer the table names that exists is checked: at least the core and the macros.
    let names: Vec<&str> = metadata["packages"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|p| p["name"].as_str())
        .collect();
    assert!(
        names.contains(&"tool-core") && names.contains(&"tool-core-macros"),
        "{names:?}"
    );
}

/// The check fails on a back edge: the real workspace with one edge added that points up.
#[test]
fn a_back_edge_is_reported() {
    let mut metadata = metadata();
    let packages = metadata["packages"].as_array_mut().unwrap();
    let core = packages
        .iter_mut()
        .find(|p| p["name"] == "tool-core")
        .expect("tool-core is a workspace crate");
    core["dependencies"]
        .as_array_mut()
        .unwrap()
        .push(serde_json::json!({"name": "tool-bundle", "kind": null, "path": "/x/tools"}));
    let problems = back_edges(&metadata);
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert!(
        problems[0].contains("`tool-core` (layer 2) depends on `tool-bundle` (layer 4"),
        "{}",
        problems[0]
    );
    // And a crate the table does not know.
    let mut unknown = BTreeMap::new();
    unknown.insert(
        "packages",
        serde_json::json!([{"name": "tool-new", "dependencies": []}]),
    );
    let problems = back_edges(&serde_json::to_value(unknown).unwrap());
    assert!(
        problems[0].contains("`tool-new` is a workspace crate with no layer"),
        "{problems:?}"
    );
}

/// A package's normal dependencies (its own name first), as `cargo tree -p NAME -e normal`
/// lists them with their default features: crate names, once each.
fn normal_dependencies(package: &str) -> Vec<String> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = Command::new(cargo)
        .args(["tree", "-p", package, "-e", "normal", "--prefix", "none"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("cargo tree runs");
    assert!(
        out.status.success(),
        "cargo tree -p {package}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut names: Vec<String> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .map(str::to_owned)
        .collect();
    names.sort();
    names.dedup();
    names
}

/// The crates of `forbidden` that `package` links, as a message per crate.
fn forbidden_in(package: &str, forbidden: &[&str]) -> Vec<String> {
    let names = normal_dependencies(package);
    assert!(
        names.iter().any(|n| n == package),
        "cargo tree -p {package} does not list {package}: {names:?}"
    );
    forbidden
        .iter()
        .filter(|f| names.iter().any(|n| n == *f))
        .map(|f| {
            format!("`{package}` links `{f}` (see `cargo tree -p {package} -e normal -i {f}`)")
        })
        .collect()
}

/// No HTTP client, TLS or CLI parser.
const CLIENT_TLS_CLI: &[&str] = &["reqwest", "rustls", "clap"];

#[test]
fn crates_link_only_what_they_use() {
    let mut problems = Vec::new();
    // The core: definitions, registry, execution; no network, no server, no CLI.
    problems.extend(forbidden_in(
        "tool-core",
        &[
            "reqwest",
            "axum",
            "hyper",
            "rmcp",
            "rustls",
            "clap",
            "tiktoken-rs",
            // The catalog's and the lock's, in crates of their own.
            "rust-stemmers",
            "tool-catalog",
            "tool-lock",
        ],
    ));
    // The MCP server without `mount` or `oauth` (no JWT or RSA code either), and a 200-tool
    // stdio server on it.
    problems.extend(forbidden_in("tool-mcp", CLIENT_TLS_CLI));
    problems.extend(forbidden_in("tool-mcp", &["jsonwebtoken", "rsa"]));
    // The tokenizer (tool-lock's feature `tokens`) is the CLI's: a server does not link it.
    problems.extend(forbidden_in("tool-mcp", &["tiktoken-rs"]));
    problems.extend(forbidden_in("bench-lean", &["tiktoken-rs"]));
    // Nor a JSON Schema validator (tool-core's feature `check`): decoding into the tools' own
    // types checks every call; only checking definitions needs one (docs/lean-builds.md).
    problems.extend(forbidden_in("tool-mcp", &["jsonschema"]));
    problems.extend(forbidden_in("bench-lean", &["jsonschema"]));
    // A stdio server turns tool-mcp's default feature `http` off: no HTTP server either.
    problems.extend(forbidden_in("bench-lean", &["axum", "hyper"]));
    problems.extend(forbidden_in("bench-lean", CLIENT_TLS_CLI));
    // The README's first command (`cargo run --bin toolctl`) builds toolctl without the features
    // that bring the embedding model, OAuth and the PostgreSQL store (`examples/full` has them).
    problems.extend(forbidden_in(
        "examples",
        &[
            "candle-core",
            "tokenizers",
            "tool-embed",
            "jsonwebtoken",
            "rsa",
            "tokio-postgres",
        ],
    ));
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// The check sees a forbidden crate: bench-mcp links reqwest, rustls and clap (its driver's
/// HTTP client, and tool-cli's).
#[test]
fn a_forbidden_crate_is_reported() {
    let problems = forbidden_in("bench-mcp", CLIENT_TLS_CLI);
    assert_eq!(problems.len(), 3, "{problems:?}");
    assert!(
        problems[0].starts_with("`bench-mcp` links `reqwest`"),
        "{}",
        problems[0]
    );
}

// Modules in layers: inside a crate, no two modules import each other (docs/architecture.md,
// "Modules in layers"). Each crate's modules are read from its sources (its library and
// binaries, from their root files through every `mod`), and an edge drawn from a module to each
// module whose item it names: in a `use` (anywhere in the module, a function body too), or as a
// path in its code (`crate::x::Y`, `super::Y`, `self::y::Z`, or through a child module or an
// imported name). A name re-exported by a facade (`pub use` in `lib.rs` or a `mod.rs`) counts
// as an edge to the module that defines it, so importing through the facade is importing from
// the module below. Naming a module alone (`use crate::definition::schema;`) is no edge; naming an item of
// it through that name (`schema::strict`) is. An inline module (`mod tests { .. }`) is a module
// of its own.

mod modules {
    use std::collections::{BTreeMap, BTreeSet, VecDeque};
    use std::path::{Path, PathBuf};

    use proc_macro2::{Delimiter, TokenStream, TokenTree};
    use quote::ToTokens as _;

    /// A module's path below its crate's root (`[]` for the root).
    pub type ModPath = Vec<String>;

    /// What the check needs of a module.
    #[derive(Debug, Default)]
    struct Module {
        /// The file it is in.
        file: PathBuf,
        /// Its child modules.
        children: BTreeSet<String>,
        /// The other names it defines (types, functions, constants, macros...).
        defines: BTreeSet<String>,
        /// Its `use` leaves, as written: the name each brings in (`None` for a glob) and its
        /// path.
        uses: Vec<(Option<String>, Vec<String>)>,
        /// The paths its code names, as written (two segments or more).
        paths: Vec<Vec<String>>,
    }

    /// A crate's modules.
    #[derive(Debug, Default)]
    pub struct Crate {
        modules: BTreeMap<ModPath, Module>,
        /// Files that could not be read or parsed.
        pub problems: Vec<String>,
    }

    /// Where a path leads.
    #[derive(Debug, PartialEq)]
    enum Target {
        /// An item the module defines.
        Item(ModPath),
        /// The module itself.
        Module(ModPath),
    }

    impl Crate {
        /// The crate whose root file is `root`, its files read with `read`.
        pub fn load(root: &Path, read: &dyn Fn(&Path) -> Option<String>) -> Self {
            let mut krate = Crate::default();
            let dir = root.parent().unwrap_or(Path::new("")).to_path_buf();
            krate.load_file(root, Vec::new(), &dir, read);
            krate
        }

        fn load_file(
            &mut self,
            file: &Path,
            at: ModPath,
            dir: &Path,
            read: &dyn Fn(&Path) -> Option<String>,
        ) {
            let Some(text) = read(file) else {
                self.problems
                    .push(format!("cannot read {}", file.display()));
                return;
            };
            match syn::parse_file(&text) {
                Ok(parsed) => self.load_items(file, at, dir, &parsed.items, read),
                Err(e) => self
                    .problems
                    .push(format!("cannot parse {}: {e}", file.display())),
            }
        }

        /// The module `at`, made of `items` written in `file`; its children's files are in
        /// `dir`.
        fn load_items(
            &mut self,
            file: &Path,
            at: ModPath,
            dir: &Path,
            items: &[syn::Item],
            read: &dyn Fn(&Path) -> Option<String>,
        ) {
            let mut module = Module {
                file: file.to_path_buf(),
                ..Module::default()
            };
            let mut children = Vec::new();
            for item in items {
                let name = match item {
                    syn::Item::Const(i) => Some(&i.ident),
                    syn::Item::Enum(i) => Some(&i.ident),
                    syn::Item::Fn(i) => Some(&i.sig.ident),
                    syn::Item::Static(i) => Some(&i.ident),
                    syn::Item::Struct(i) => Some(&i.ident),
                    syn::Item::Trait(i) => Some(&i.ident),
                    syn::Item::TraitAlias(i) => Some(&i.ident),
                    syn::Item::Type(i) => Some(&i.ident),
                    syn::Item::Union(i) => Some(&i.ident),
                    syn::Item::Macro(i) => i.ident.as_ref(),
                    _ => None,
                };
                if let Some(name) = name {
                    module.defines.insert(name.to_string());
                }
                match item {
                    syn::Item::Use(u) => use_leaves(&u.tree, &mut Vec::new(), &mut module.uses),
                    syn::Item::Mod(m) => {
                        module.children.insert(m.ident.to_string());
                        children.push(m);
                    }
                    other => scan(other.to_token_stream(), &mut module),
                }
            }
            self.modules.insert(at.clone(), module);
            for m in children {
                let mut child = at.clone();
                child.push(m.ident.to_string());
                let child_dir = dir.join(m.ident.to_string());
                match &m.content {
                    Some((_, items)) => self.load_items(file, child, &child_dir, items, read),
                    None => {
                        let path = m.attrs.iter().find_map(|a| match &a.meta {
                            syn::Meta::NameValue(nv) if nv.path.is_ident("path") => {
                                match &nv.value {
                                    syn::Expr::Lit(syn::ExprLit {
                                        lit: syn::Lit::Str(s),
                                        ..
                                    }) => Some(s.value()),
                                    _ => None,
                                }
                            }
                            _ => None,
                        });
                        let (child_file, child_dir) = match path {
                            Some(path) => {
                                let f = dir.join(path);
                                let d = f.parent().unwrap_or(dir).to_path_buf();
                                (f, d)
                            }
                            None => {
                                let flat = dir.join(format!("{}.rs", m.ident));
                                let nested = child_dir.join("mod.rs");
                                let f = if read(&flat).is_some() { flat } else { nested };
                                (f, child_dir)
                            }
                        };
                        self.load_file(&child_file, child, &child_dir, read);
                    }
                }
            }
        }

        /// `path`, as module `at` writes it, from the crate's root; `None` for a path outside
        /// the crate (or a name of `at`'s own).
        fn absolute(&self, at: &[String], path: &[String], depth: u8) -> Option<Vec<String>> {
            if depth > 16 {
                return None;
            }
            let first = path.first()?;
            match first.as_str() {
                "crate" | "$crate" => Some(path[1..].to_vec()),
                "self" | "super" => {
                    let mut base = at.to_vec();
                    let mut rest = path;
                    if rest.first().is_some_and(|s| s == "self") {
                        rest = &rest[1..];
                    }
                    while rest.first().is_some_and(|s| s == "super") {
                        base.pop()?;
                        rest = &rest[1..];
                    }
                    base.extend(rest.iter().cloned());
                    Some(base)
                }
                _ => {
                    let module = self.modules.get(at)?;
                    if module.children.contains(first) {
                        let mut base = at.to_vec();
                        base.extend(path.iter().cloned());
                        return Some(base);
                    }
                    let (_, used) = module
                        .uses
                        .iter()
                        .find(|(name, _)| name.as_ref() == Some(first))?;
                    let mut base = self.absolute(at, used, depth + 1)?;
                    base.extend(path[1..].iter().cloned());
                    Some(base)
                }
            }
        }

        /// Where the path from the crate's root leads: re-exports are followed to the module
        /// that defines the item.
        fn target(&self, path: &[String], depth: u8) -> Option<Target> {
            if depth > 16 {
                return None;
            }
            let mut at: ModPath = Vec::new();
            for (i, segment) in path.iter().enumerate() {
                let module = self.modules.get(&at)?;
                if module.children.contains(segment) {
                    at.push(segment.clone());
                    continue;
                }
                if module.defines.contains(segment) {
                    return Some(Target::Item(at));
                }
                let follow = |used: &[String], from: usize| {
                    let mut next = self.absolute(&at, used, 0)?;
                    next.extend(path[from..].iter().cloned());
                    self.target(&next, depth + 1)
                };
                if let Some((_, used)) = module
                    .uses
                    .iter()
                    .find(|(name, _)| name.as_ref() == Some(segment))
                {
                    return follow(used, i + 1);
                }
                return module
                    .uses
                    .iter()
                    .filter(|(name, _)| name.is_none())
                    .find_map(|(_, used)| follow(used, i));
            }
            Some(Target::Module(at))
        }

        /// The modules `at` imports from.
        fn edges(&self, at: &[String]) -> BTreeSet<ModPath> {
            let Some(module) = self.modules.get(at) else {
                return BTreeSet::new();
            };
            let mut to = BTreeSet::new();
            for (name, path) in &module.uses {
                let Some(absolute) = self.absolute(at, path, 0) else {
                    continue;
                };
                match (name, self.target(&absolute, 0)) {
                    (_, Some(Target::Item(m))) => {
                        to.insert(m);
                    }
                    // A glob imports every item of the module.
                    (None, Some(Target::Module(m))) => {
                        to.insert(m);
                    }
                    _ => {}
                }
            }
            for path in &module.paths {
                if let Some(Target::Item(m)) = self
                    .absolute(at, path, 0)
                    .and_then(|absolute| self.target(&absolute, 0))
                {
                    to.insert(m);
                }
            }
            to.remove(at);
            to
        }

        /// Each import cycle, as `a -> b -> a` with the modules' files.
        pub fn cycles(&self) -> Vec<String> {
            let graph: BTreeMap<ModPath, BTreeSet<ModPath>> = self
                .modules
                .keys()
                .map(|m| (m.clone(), self.edges(m)))
                .collect();
            let mut cycles = Vec::new();
            for component in components(&graph) {
                if component.len() < 2 {
                    continue;
                }
                // The shortest cycle through the component's first module.
                let start = &component[0];
                let mut before: BTreeMap<&ModPath, &ModPath> = BTreeMap::new();
                let mut queue = VecDeque::from([start]);
                let mut end = None;
                while let Some(m) = queue.pop_front() {
                    for next in &graph[m] {
                        if next == start {
                            end = Some(m);
                            queue.clear();
                            break;
                        }
                        if component.contains(next) && !before.contains_key(next) {
                            before.insert(next, m);
                            queue.push_back(next);
                        }
                    }
                }
                let mut cycle = vec![start];
                let mut m = end.unwrap_or(start);
                while m != start {
                    cycle.push(m);
                    m = before[m];
                }
                cycle.push(start);
                let last = cycle.len() - 1;
                cycle[1..last].reverse();
                let names: Vec<String> = cycle.iter().map(|m| name(m)).collect();
                let files: Vec<String> = cycle[..cycle.len() - 1]
                    .iter()
                    .map(|m| self.modules[*m].file.display().to_string())
                    .collect();
                let rest: Vec<String> = component
                    .iter()
                    .filter(|m| !cycle.contains(m))
                    .map(|m| name(m))
                    .collect();
                let mut line = format!("{} ({})", names.join(" -> "), files.join(", "));
                if !rest.is_empty() {
                    line.push_str(&format!("; in the same knot: {}", rest.join(", ")));
                }
                cycles.push(line);
            }
            cycles
        }
    }

    fn name(m: &[String]) -> String {
        if m.is_empty() {
            "crate".into()
        } else {
            m.join("::")
        }
    }

    /// The strongly connected components of `graph` (Tarjan), each sorted.
    fn components(graph: &BTreeMap<ModPath, BTreeSet<ModPath>>) -> Vec<Vec<ModPath>> {
        struct State<'g> {
            graph: &'g BTreeMap<ModPath, BTreeSet<ModPath>>,
            index: BTreeMap<&'g ModPath, (usize, usize)>,
            stack: Vec<&'g ModPath>,
            on_stack: BTreeSet<&'g ModPath>,
            out: Vec<Vec<ModPath>>,
        }
        fn visit<'g>(s: &mut State<'g>, v: &'g ModPath) {
            let n = s.index.len();
            s.index.insert(v, (n, n));
            s.stack.push(v);
            s.on_stack.insert(v);
            for w in &s.graph[v] {
                if !s.graph.contains_key(w) {
                    continue;
                }
                let w = s.graph.get_key_value(w).map(|(k, _)| k).unwrap();
                if !s.index.contains_key(w) {
                    visit(s, w);
                    let low = s.index[w].1.min(s.index[v].1);
                    s.index.get_mut(v).unwrap().1 = low;
                } else if s.on_stack.contains(w) {
                    let low = s.index[w].0.min(s.index[v].1);
                    s.index.get_mut(v).unwrap().1 = low;
                }
            }
            if s.index[v].0 == s.index[v].1 {
                let mut component = Vec::new();
                while let Some(w) = s.stack.pop() {
                    s.on_stack.remove(w);
                    component.push(w.clone());
                    if w == v {
                        break;
                    }
                }
                component.sort();
                s.out.push(component);
            }
        }
        let mut s = State {
            graph,
            index: BTreeMap::new(),
            stack: Vec::new(),
            on_stack: BTreeSet::new(),
            out: Vec::new(),
        };
        for v in graph.keys() {
            if !s.index.contains_key(v) {
                visit(&mut s, v);
            }
        }
        s.out.sort();
        s.out
    }

    /// The leaves of a `use` tree: the name each brings in and its full path.
    fn use_leaves(
        tree: &syn::UseTree,
        prefix: &mut Vec<String>,
        out: &mut Vec<(Option<String>, Vec<String>)>,
    ) {
        match tree {
            syn::UseTree::Path(p) => {
                prefix.push(p.ident.to_string());
                use_leaves(&p.tree, prefix, out);
                prefix.pop();
            }
            syn::UseTree::Name(n) => {
                let name = n.ident.to_string();
                if name == "self" {
                    // `use a::b::{self}` brings in `b`.
                    if let Some(last) = prefix.last() {
                        out.push((Some(last.clone()), prefix.clone()));
                    }
                } else {
                    let mut path = prefix.clone();
                    path.push(name.clone());
                    out.push((Some(name), path));
                }
            }
            syn::UseTree::Rename(r) => {
                let mut path = prefix.clone();
                if r.ident != "self" {
                    path.push(r.ident.to_string());
                }
                out.push((Some(r.rename.to_string()), path));
            }
            syn::UseTree::Glob(_) => out.push((None, prefix.clone())),
            syn::UseTree::Group(g) => {
                for tree in &g.items {
                    use_leaves(tree, prefix, out);
                }
            }
        }
    }

    /// The paths in `tokens` (two segments or more) and the `use` items among them (in a
    /// function's body, say), into `module`.
    fn scan(tokens: TokenStream, module: &mut Module) {
        let tokens: Vec<TokenTree> = tokens.into_iter().collect();
        let mut i = 0;
        while i < tokens.len() {
            match &tokens[i] {
                TokenTree::Group(g) => {
                    scan(g.stream(), module);
                    i += 1;
                }
                TokenTree::Ident(ident) if ident == "use" && starts_use_tree(tokens.get(i + 1)) => {
                    // Up to its `;`, parsed as a `use` item.
                    let end = tokens[i..]
                        .iter()
                        .position(|t| matches!(t, TokenTree::Punct(p) if p.as_char() == ';'))
                        .map_or(tokens.len(), |n| i + n + 1);
                    let item: TokenStream = tokens[i..end].iter().cloned().collect();
                    match syn::parse2::<syn::ItemUse>(item) {
                        Ok(u) => {
                            use_leaves(&u.tree, &mut Vec::new(), &mut module.uses);
                            i = end;
                        }
                        Err(_) => i += 1,
                    }
                }
                TokenTree::Ident(_) | TokenTree::Punct(_) if !colons_before(&tokens, i) => {
                    let (path, next) = path_at(&tokens, i);
                    if path.len() >= 2 {
                        module.paths.push(path);
                    }
                    i = next.max(i + 1);
                }
                _ => i += 1,
            }
        }
    }

    /// Whether a `use` followed by `next` starts a `use` item (not `impl Trait + use<'a>`).
    fn starts_use_tree(next: Option<&TokenTree>) -> bool {
        match next {
            Some(TokenTree::Ident(_)) => true,
            Some(TokenTree::Punct(p)) => p.as_char() == ':' || p.as_char() == '$',
            Some(TokenTree::Group(g)) => g.delimiter() == Delimiter::Brace,
            _ => false,
        }
    }

    /// The path that starts at `tokens[i]` (`$crate` counts as one segment) and the index after
    /// it.
    fn path_at(tokens: &[TokenTree], mut i: usize) -> (Vec<String>, usize) {
        let mut path = Vec::new();
        loop {
            match tokens.get(i) {
                Some(TokenTree::Punct(p)) if p.as_char() == '$' && path.is_empty() => {
                    match tokens.get(i + 1) {
                        Some(TokenTree::Ident(id)) if id == "crate" => {
                            path.push("$crate".to_owned());
                            i += 2;
                        }
                        _ => return (path, i + 1),
                    }
                }
                Some(TokenTree::Ident(id)) => {
                    path.push(id.to_string());
                    i += 1;
                }
                _ => return (path, i),
            }
            if is_colons(tokens, i) && matches!(tokens.get(i + 2), Some(TokenTree::Ident(_))) {
                i += 2;
            } else {
                return (path, i);
            }
        }
    }

    fn is_colons(tokens: &[TokenTree], i: usize) -> bool {
        matches!(
            (tokens.get(i), tokens.get(i + 1)),
            (Some(TokenTree::Punct(a)), Some(TokenTree::Punct(b)))
                if a.as_char() == ':' && b.as_char() == ':'
        )
    }

    fn colons_before(tokens: &[TokenTree], i: usize) -> bool {
        i >= 2 && is_colons(tokens, i - 2)
    }
}

/// The module import cycles of every workspace crate's library and binaries.
fn module_cycles(metadata: &Value) -> Vec<String> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("tests/ is in the workspace");
    let read = |path: &std::path::Path| std::fs::read_to_string(path).ok();
    let mut problems = Vec::new();
    for package in metadata["packages"].as_array().into_iter().flatten() {
        let name = package["name"].as_str().unwrap_or_default();
        for target in package["targets"].as_array().into_iter().flatten() {
            let kinds = target["kind"].as_array().into_iter().flatten();
            if !kinds
                .filter_map(Value::as_str)
                .any(|k| matches!(k, "lib" | "bin" | "proc-macro"))
            {
                continue;
            }
            let file = std::path::PathBuf::from(target["src_path"].as_str().unwrap_or_default());
            let file = file.strip_prefix(root).unwrap_or(&file).to_path_buf();
            let krate = modules::Crate::load(&file, &|p| read(&root.join(p)));
            let target = target["name"].as_str().unwrap_or_default();
            problems.extend(krate.problems.iter().map(|p| format!("`{name}`: {p}")));
            problems.extend(krate.cycles().into_iter().map(|cycle| {
                format!("`{name}` (target `{target}`): modules import each other: {cycle}")
            }));
        }
    }
    problems
}

#[test]
fn no_two_modules_of_a_crate_import_each_other() {
    let problems = module_cycles(&metadata());
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// The cycles of a crate made of `files` (path, text), its root `src/lib.rs`.
fn cycles_of(files: &[(&str, &str)]) -> Vec<String> {
    let files: BTreeMap<std::path::PathBuf, String> = files
        .iter()
        .map(|(path, text)| (path.into(), (*text).to_owned()))
        .collect();
    let krate = modules::Crate::load("src/lib.rs".as_ref(), &|p| files.get(p).cloned());
    assert!(krate.problems.is_empty(), "{:?}", krate.problems);
    krate.cycles()
}

/// The check sees a cycle through a facade's re-exports, one made by a path in a function's
/// body or a `use` inside one, and a knot of three; imports that only go down, through
/// facades, into a parent's items from a test module, are none.
#[test]
fn a_module_import_cycle_is_reported() {
    let cycles = cycles_of(&[
        (
            "src/lib.rs",
            "mod a; mod b; mod c; mod tree; pub use a::A; pub use b::B;",
        ),
        // a -> b through the root's re-export.
        ("src/a.rs", "use crate::B; pub struct A(B);"),
        // b -> a by a path in a body.
        (
            "src/b.rs",
            "pub struct B; fn make() -> super::A { todo!() }",
        ),
        // c -> tree::x (a `use` in a body), x -> y, y -> c: a knot of three.
        (
            "src/c.rs",
            "pub fn c() { use crate::tree::x::X; let _ = X; }",
        ),
        ("src/tree/mod.rs", "pub mod x; mod y; pub use y::Y;"),
        ("src/tree/x.rs", "pub struct X(super::Y);"),
        ("src/tree/y.rs", "pub struct Y; fn f() { crate::c::c() }"),
    ]);
    assert_eq!(
        cycles,
        [
            "a -> b -> a (src/a.rs, src/b.rs)",
            "c -> tree::x -> tree::y -> c (src/c.rs, src/tree/x.rs, src/tree/y.rs)",
        ],
        "{cycles:#?}"
    );

    let none = cycles_of(&[
        (
            "src/lib.rs",
            "mod low; mod high; pub use low::{Low, deep::Deep};",
        ),
        (
            "src/low/mod.rs",
            "pub mod deep; pub struct Low; #[cfg(test)] mod tests { use super::*; use crate::Deep; }",
        ),
        ("src/low/deep.rs", "pub struct Deep;"),
        (
            "src/high.rs",
            "use crate::low; use crate::{Deep, Low}; fn f() -> low::Low { low::deep::Deep; Low }",
        ),
    ]);
    assert!(none.is_empty(), "{none:#?}");
}
