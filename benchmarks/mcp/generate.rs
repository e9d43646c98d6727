//! The servers' tools, as source: 199 filler tools with distinct names, descriptions and
//! parameters, written once for tool-core's `#[tool]` and once for rmcp's `#[tool_router]`,
//! plus `add_numbers`, the tool every benchmark calls. The TypeScript and Python servers build
//! the same fillers in a loop (see `servers/`), from the same table as [`filler`]. Pure string
//! functions, std only: included by this package's `build.rs` and by `benchmarks/lean`'s.

use std::fmt::Write as _;

/// How many filler tools the 200-tool servers carry besides `add_numbers`.
pub const FILLERS: usize = 199;

/// One filler tool: its name, description and parameters `(name, rust type, description)`.
struct Filler {
    name: String,
    description: String,
    params: Vec<(&'static str, &'static str, String)>,
}

/// The i-th filler (1-based). Four shapes, so schemas differ; every name and text is distinct.
fn filler(i: usize) -> Filler {
    let tag = format!("{i:03}");
    match i % 4 {
        0 => Filler {
            name: format!("get_record_{tag}"),
            description: format!(
                "Returns record set {i} of the benchmark catalog by id. Use it to read one record."
            ),
            params: vec![
                ("id", "String", format!("Record id in set {i}, e.g. r-{i}")),
                (
                    "limit",
                    "Option<u32>",
                    format!("At most this many fields of set {i}"),
                ),
            ],
        },
        1 => Filler {
            name: format!("find_entry_{tag}"),
            description: format!(
                "Searches index {i} for entries matching a query. Use it to look entries up."
            ),
            params: vec![
                ("query", "String", format!("Words to find in index {i}")),
                ("exact", "bool", format!("Match index {i} exactly")),
            ],
        },
        2 => Filler {
            name: format!("count_items_{tag}"),
            description: format!(
                "Counts the items of range {i} between two bounds. Use it for totals."
            ),
            params: vec![
                ("start", "f64", format!("Lower bound of range {i}")),
                ("end", "f64", format!("Upper bound of range {i}")),
                ("step", "Option<f64>", format!("Step within range {i}")),
            ],
        },
        _ => Filler {
            name: format!("list_tags_{tag}"),
            description: format!(
                "Lists the tags of group {i}, optionally by prefix. Use it to browse tags."
            ),
            params: vec![
                (
                    "prefix",
                    "Option<String>",
                    format!("Only tags of group {i} with this prefix"),
                ),
                ("max", "u32", format!("At most this many tags of group {i}")),
            ],
        },
    }
}

fn camel(name: &str) -> String {
    name.split('_')
        .map(|w| {
            let mut c = w.chars();
            c.next()
                .map(|f| f.to_ascii_uppercase().to_string() + c.as_str())
                .unwrap_or_default()
        })
        .collect()
}

/// tool-core: `#[tool]` functions in the `bench` domain (declared by the binary).
pub fn tool_core_fillers() -> String {
    let mut out = String::new();
    for i in 1..=FILLERS {
        let f = filler(i);
        let params: Vec<String> = f
            .params
            .iter()
            .map(|(n, t, d)| format!("#[arg(description = {d:?})] {n}: {t}"))
            .collect();
        let names: Vec<&str> = f.params.iter().map(|p| p.0).collect();
        writeln!(
            out,
            "/// {desc}\n#[tool(domain = bench, label = \"Working on {i}\", hint = \"Filler tool {i}\")]\n\
             fn {name}({params}) -> String {{\n    let _ = ({names});\n    \"ok\".to_owned()\n}}\n",
            desc = f.description,
            name = f.name,
            params = params.join(", "),
            names = names.join(", "),
        )
        .unwrap();
    }
    out
}

/// rmcp: a params module (one struct per tool) and two servers made with its macros, as its
/// documentation shows: `default` (`#[tool_handler]`, whose router is `Self::tool_router()`,
/// rebuilt on every call and listing) and `best` (the router built once, in a field).
pub fn rmcp_servers(fillers: usize) -> String {
    let mut params = String::from(
        "pub mod params {\n    use rmcp::schemars;\n\n    \
         #[derive(serde::Deserialize, schemars::JsonSchema)]\n    pub struct AddNumbers {\n        \
         /// First number\n        pub a: f64,\n        /// Second number\n        pub b: f64,\n    }\n\n    \
         #[derive(serde::Serialize, schemars::JsonSchema)]\n    pub struct Sum {\n        \
         /// a + b\n        pub result: f64,\n    }\n",
    );
    let mut methods = String::from(
        "    /// Adds two numbers and returns their sum.\n    \
         #[tool(description = \"Adds two numbers and returns their sum.\")]\n    \
         async fn add_numbers(&self, Parameters(p): Parameters<AddNumbers>) -> Json<Sum> {\n        \
         Json(Sum { result: p.a + p.b })\n    }\n",
    );
    for i in 1..=fillers {
        let f = filler(i);
        let ty = camel(&f.name);
        write!(
            params,
            "\n    #[derive(serde::Deserialize, schemars::JsonSchema)]\n    pub struct {ty} {{\n"
        )
        .unwrap();
        for (n, t, d) in &f.params {
            writeln!(params, "        /// {d}\n        pub {n}: {t},").unwrap();
        }
        params.push_str("    }\n");
        write!(
            methods,
            "\n    #[tool(description = {desc:?})]\n    \
             async fn {name}(&self, Parameters(p): Parameters<{ty}>) -> String {{\n        \
             let _ = p;\n        \"ok\".to_owned()\n    }}\n",
            desc = f.description,
            name = f.name,
        )
        .unwrap();
    }
    params.push_str("}\n");
    let uses = "    use super::params::*;\n    \
                use rmcp::handler::server::wrapper::{Json, Parameters};\n    \
                use rmcp::{ServerHandler, tool, tool_handler, tool_router};\n";
    format!(
        "{params}\n\
         /// rmcp's macros with their defaults: `#[tool_handler]` calls `Self::tool_router()`.\n\
         pub mod default {{\n{uses}\n    \
         #[derive(Clone, Default)]\n    pub struct Server;\n\n    \
         #[tool_router]\n    impl Server {{\n{methods}    }}\n\n    \
         #[tool_handler]\n    impl ServerHandler for Server {{}}\n}}\n\n\
         /// rmcp's macros with the router built once and kept in a field.\n\
         pub mod best {{\n{uses}    use rmcp::handler::server::router::tool::ToolRouter;\n\n    \
         #[derive(Clone)]\n    pub struct Server {{\n        tool_router: ToolRouter<Self>,\n    }}\n\n    \
         impl Default for Server {{\n        fn default() -> Self {{\n            \
         Self {{ tool_router: Self::tool_router() }}\n        }}\n    }}\n\n    \
         #[tool_router]\n    impl Server {{\n{methods}    }}\n\n    \
         #[tool_handler(router = self.tool_router)]\n    impl ServerHandler for Server {{}}\n}}\n"
    )
}
