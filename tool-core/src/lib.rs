//! A framework for agent tools: write a Rust function, put `#[tool]` on it, link it.
//!
//! The macro generates the definition, the input schema (schemars, JSON Schema 2020-12) and the
//! handler glue; `inventory` collects every tool at link time, so [`Registry::linked`] sees them
//! all with no registration step.
//!
//! ```
//! use tool_core::prelude::*;
//!
//! tool_core::domain!(pub greeting, "Saying hello");
//!
//! /// Returns a greeting for `name`. Use it to greet someone by name.
//! #[tool(domain = greeting, label = "Greeting", hint = "Greets a person by name")]
//! fn greet_person(#[arg(description = "Who to greet")] name: String) -> String {
//!     format!("Hello, {name}!")
//! }
//!
//! # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
//! // Every #[tool] linked into the binary, run through the executor: the one way to call a
//! // tool, with scopes, input checks, approval, limits, audit and events.
//! let executor = Executor::new(Registry::linked().unwrap());
//! let out = executor
//!     .call("greet_person", serde_json::json!({"name": "Ada"}), &ToolContext::new())
//!     .await
//!     .unwrap();
//! assert_eq!(out.echo(), "Hello, Ada!");
//! # });
//! ```
//!
//! - [`#[tool]`](macro@tool) is the reference for writing tools: every key of `#[tool(...)]` and
//!   `#[arg(...)]`, the parameter and return types a tool may have, and the rules checked at
//!   compile time. [`domain!`] declares the domains tools belong to.
//! - [`Registry`] holds the tools of a binary; [`Executor`] is the one door every call goes
//!   through (scopes, input checks, [layers](exec::Layer), approval, limits, audit, events);
//!   [`render`] writes their definitions for each provider, and [`check`](definition::check) holds them to every
//!   provider's rules.
//! - Beside this crate: `tool-catalog` lets a model search the deferred tools, `tool-lock`
//!   reviews definitions against a committed lock in CI, `tool-mcp` serves them over MCP and
//!   `tool-agent` runs the agent loop.
//! - Your own input and output types take [`#[tool_core::data]`](macro@data), which derives
//!   serde's and schemars' traits through the copies re-exported here (`tool_core::serde`,
//!   `tool_core::schemars`), so a tools crate needs no other dependency.
//!
//! Features: `check` (default) validates JSON Schemas with `jsonschema`, for [`check`](definition::check)'s schema
//! rules and for a run-time tool's input before an approval question; a server that wants the
//! shortest build turns default features off and keeps `check` for its tests, as
//! `docs/lean-builds.md` shows.

#![warn(missing_docs)]
// docs.rs (`--cfg docsrs`, see Cargo.toml) marks each item with the features it needs.
#![cfg_attr(docsrs, feature(doc_cfg))]

// The macro's expansion names `::tool_core`, which must also resolve inside this crate.
extern crate self as tool_core;

mod annotations;
mod call;
pub mod context;
pub mod definition;
pub mod error;
pub mod exec;
mod linked;
pub mod output;
pub mod prompt;
pub mod registry;
pub mod render;
pub mod resource;

#[cfg(test)]
mod test_json;

// The root holds the names a tools crate touches first (docs/architecture.md says why each is
// here); everything else is one module down, where it is documented with its kin.
pub use context::ToolContext;
pub use error::ToolError;
pub use exec::Executor;
pub use output::ToolOutput;
pub use registry::Registry;
/// The schemars that tool-core builds schemas with, for `#[derive(schemars::JsonSchema)]` after
/// `use tool_core::schemars;` in a crate that does not depend on schemars ([`macro@data`] does
/// it for you). A type's schema must come from this version: `JsonSchema` of another major
/// version is a different trait.
pub use schemars;
/// The serde that tool-core uses, for `#[derive(serde::Serialize, serde::Deserialize)]` with
/// `#[serde(crate = "tool_core::serde")]` in a crate that does not depend on serde
/// ([`macro@data`] does it for you).
pub use serde;
// rustdoc shows these docs, then those of `tool_core_macros::tool`, which end the last section.
/// Turns a function into a tool: the macro writes its definition, its input schema and the glue
/// that decodes a call's input and runs it, and submits the definition to `inventory`. There is
/// no registration step: every tool linked into a binary is in [`Registry::linked`].
///
/// ```
/// use tool_core::prelude::*;
///
/// tool_core::domain!(pub weather, "Current conditions and forecasts for any city");
///
/// /// One day of a forecast.
/// #[tool_core::data(output)]
/// #[derive(Clone)]
/// pub struct Day {
///     /// Highest temperature of the day.
///     pub high: i8,
///     /// Lowest temperature of the day.
///     pub low: i8,
/// }
///
/// /// Returns the forecast for a city: one entry per day with the high and the low.
/// /// Use it for questions about the weather in the coming days.
/// #[tool(
///     domain = weather,
///     label = "Checking the forecast",
///     hint = "Daily forecast for a city",
///     examples("Paris, two days" => r#"{"city": "Paris", "days": 2}"#),
/// )]
/// async fn get_forecast(
///     ctx: &ToolContext,
///     #[arg(description = "City name, e.g. Paris")] city: String,
///     #[arg(description = "How many days, 1 to 7", default = 3)] days: u8,
///     #[arg(description = "celsius or fahrenheit")] units: Option<String>,
/// ) -> Result<Vec<Day>, ToolError> {
///     if !(1..=7).contains(&days) {
///         return Err(ToolError::invalid_input("days is 1 to 7").with_path("days"));
///     }
///     ctx.progress(0, Some(1), format!("asking the weather service about {city}"));
///     let day = match units.as_deref() {
///         Some("fahrenheit") => Day { high: 70, low: 52 },
///         _ => Day { high: 21, low: 11 },
///     };
///     Ok(vec![day; usize::from(days)])
/// }
///
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// let registry = Registry::linked().unwrap();
/// let schema = registry.get("get_forecast").unwrap().input_schema();
/// assert_eq!(schema["required"], serde_json::json!(["city"])); // `days` has a default
/// assert_eq!(schema["properties"]["days"]["default"], 3);
///
/// let input = serde_json::json!({"city": "Paris", "days": 2});
/// let out = Executor::new(registry).call("get_forecast", input, &ToolContext::new()).await.unwrap();
/// assert_eq!(out.data().unwrap()[1]["high"], 21);
/// # });
/// ```
///
/// # The function
///
/// - **A doc comment**, required: it is the tool's description, the text the model decides by.
///   Say what the tool returns and when to use it. Wrapped lines are joined; paragraphs and list
///   items are kept. `#[doc = include_str!("get_forecast.md")]` and any other `#[doc = ...]`
///   expression count too: they are joined to the `///` lines at compile time.
/// - **A free function**, `fn` or `async fn` (an async tool's future must be `Send`). Not a
///   method, not generic (no type or lifetime parameters, no `impl Trait`, no `where` clause),
///   not `unsafe` or `extern`: its schema is fixed where it is defined. (On an associated
///   function without `self` the attribute cannot see the `impl` around it; rustc then reports
///   that it cannot find the function.)
///
/// Each parameter is one of three kinds, told apart by marks, never by a type's name:
///
/// - **A field of the model's input**: every parameter without a mark. Each becomes a property
///   of the input object, in parameter order, keyed by its name (`r#type` is the key `type`).
///   Its type implements `serde::Deserialize` and `schemars::JsonSchema` (one compile error on
///   the parameter when it does not, saying what to derive), and is owned (`String`, not
///   `&str`); the parameter is a plain name, not a pattern. An `Option<T>`, under any name, is
///   optional and `None` when the key is missing or `null`; any other type is required unless
///   it has a `default`. Described and renamed with [`#[arg(...)]`](#arg-keys).
/// - **The whole input as one struct**: one parameter marked `#[input]`, instead of fields;
///   its type's field docs are the descriptions.
/// - **A value from the context**, never from the model and never in the schema: `&ToolContext`
///   (the only reference a tool may take), or a parameter marked `#[ctx]` whose type implements
///   [`FromContext`](context::FromContext): [`ToolContext`] (a clone), [`State<T>`](context::State), [`CancellationToken`](context::CancellationToken),
///   [`RequestHeaders`](context::RequestHeaders), `tool_http::HttpClient`, `tool_mcp::McpPeer`, or a type of your own.
///
/// So a type of your own named `State` or `Input` is a field like any other, and a renamed
/// import (`use tool_core::context::State as Shared;`, then `#[ctx] db: Shared<Db>`) is still a context
/// value. A context value left unmarked is read as a field, and the error says to mark it.
///
/// ```
/// use std::sync::Arc;
/// use tool_core::context::FromContext;
/// use tool_core::prelude::*;
///
/// tool_core::domain!(pub records, "Records kept for the signed-in user");
///
/// /// Where records are kept (shared state, added to the context once).
/// struct Db {
///     prefix: &'static str,
/// }
///
/// /// The signed-in user, from the `x-user` request header.
/// struct User(String);
///
/// impl FromContext for User {
///     fn from_context(ctx: &ToolContext) -> Result<Self, ToolError> {
///         let user = ctx.headers().get("x-user");
///         user.map(|u| User(u.to_owned()))
///             .ok_or_else(|| ToolError::permission_denied("nobody is signed in"))
///     }
/// }
///
/// /// Returns the record stored under a key for the signed-in user.
/// #[tool(domain = records, label = "Reading a record", hint = "A stored record, by key")]
/// async fn get_user_record(
///     #[ctx] State(db): State<Db>,
///     #[ctx] user: User,
///     #[arg(description = "The record's key")] key: String,
/// ) -> String {
///     format!("{}{}/{key}", db.prefix, user.0)
/// }
///
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// let registry = Registry::linked().unwrap();
/// let schema = registry.get("get_user_record").unwrap().input_schema();
/// assert_eq!(schema["required"], serde_json::json!(["key"])); // the model sends only `key`
///
/// let ctx = ToolContext::builder()
///     .extension(Arc::new(Db { prefix: "db:" }))
///     .headers(RequestHeaders::from_pairs([("x-user", "ada")]))
///     .build();
/// let input = serde_json::json!({"key": "k1"});
/// let out = Executor::new(registry).call("get_user_record", input, &ctx).await.unwrap();
/// assert_eq!(out.echo(), "db:ada/k1");
/// # });
/// ```
///
/// The whole input as one struct, its field docs the descriptions:
///
/// ```
/// use tool_core::prelude::*;
///
/// tool_core::domain!(pub text, "Working with text");
///
/// /// A search over a text.
/// #[tool_core::data(input)]
/// #[serde(deny_unknown_fields)]
/// struct Query {
///     /// The text to search.
///     text: String,
///     /// The word to count.
///     word: String,
/// }
///
/// /// Returns how many times a word occurs in a text.
/// #[tool(domain = text, label = "Counting", hint = "Counts a word in a text")]
/// fn count_word(#[input] query: Query) -> usize {
///     query.text.split_whitespace().filter(|w| *w == query.word).count()
/// }
///
/// let registry = Registry::linked().unwrap();
/// let schema = registry.get("count_word").unwrap().input_schema();
/// assert_eq!(schema["properties"]["word"]["description"], "The word to count.");
/// ```
///
/// The return type is one of:
///
/// - nothing: the model is told `done`;
/// - `T: Serialize`: the structured result, which the model sees as compact JSON (a string as
///   it is). When `T` also implements `JsonSchema`, its schema is the tool's output schema;
/// - `Result<T, E>`, under any name (`std::io::Result<T>`, an alias of your own), with
///   `E: Into<ToolError>` (`ToolError` itself, `std::io::Error`, `serde_json::Error`, `String`
///   and `&str` convert); `Ok` is as above, `Err` fails the call;
/// - [`ToolOutput<T>`], also inside a `Result`, to add a compact echo for the model, media or an
///   event name for UI cards.
///
/// # `#[tool(...)]` keys
///
/// `domain`, `label` and `hint` are required; the others have the defaults shown. A flag is
/// written bare (`core`) or with a value (`core = true`, `core = false`). An unknown key is an
/// error that names the key meant (`lable`: did you mean `label`?); a repeated key is an error.
///
/// | key | value | default |
/// |---|---|---|
/// | `domain` | the domain the tool belongs to: a type declared with [`domain!`], in scope or by path (`domain = crate::domains::fs`) | required |
/// | `label` | one line shown to people while the tool runs (`"Checking the forecast"`) | required |
/// | `hint` | one catalog sentence: what the tool is for, in a few words | required |
/// | `core` | flag: offered to the model on every round. Otherwise the tool is deferred: the model finds it through the catalog's search (`tool-catalog`) | deferred |
/// | `name` | the tool's name, when it is not the function's; it follows [the name rule](#names) | the function's name |
/// | `source` | a "view in app" link for people, with no spaces (`"https://app.example.com/orders"`) | none |
/// | `view` | the HTML file (a path from the crate's folder, read at compile time; a missing file is an error on the path) a host that renders MCP Apps shows for the tool's calls: an MCP App that gets each call's input and result and may call the server's tools ([`Tool::view`](registry::Tool::view)) | none |
/// | `card` | flag: the framework's card as the tool's view (its label, input and result, as the presence page shows a call); not with `view` | false |
/// | `visibility` | who the tool is offered to: `"both"`, `"model"` (views cannot call it) or `"app"` (only views call it: the model, provider exports and clients without MCP Apps never see it) ([`definition::Visibility`]) | `"both"` |
/// | `icon` | an icon a client can show for the tool (MCP's `icons`): a link, `icon = "https://example.com/icon.png"`, or its parts, `icon(src = "...", mime_type = "image/png", sizes("48x48", "96x96"), theme = "dark")`. Repeatable: each `icon` adds one. [The rules](#icons) | none |
/// | `examples` | sample inputs shown to models, `examples("label" => r#"{...}"#, ...)`: unique, non-empty labels; each input a JSON object, whose keys (for plain parameters) name parameters and include every required one. [`check`](definition::check) also validates them against the schema | none |
/// | `read_only` | flag: the tool changes nothing | true, unless `destructive` or `idempotent` |
/// | `destructive` | flag: the tool may delete or overwrite, so it writes (not read-only); never together with `read_only` | false |
/// | `idempotent` | flag: the tool writes, and calling it again with the same input has no further effect. It makes the tool one that writes (audited, asked under `--approval write`), as `destructive` does: idempotence says something only of a write | the `read_only` value |
/// | `open_world` | flag: the tool reaches an open world (the web, other people) | false |
/// | `voiced` | flag: a voice UI speaks the label while the tool runs | false |
/// | `blocking` | flag, sync functions only: the tool may block for long (file walks, subprocesses), so it runs on Tokio's blocking pool instead of the caller's task | false |
/// | `approval` | flag, or the message a person reads (`approval = "Delete {path}?"`, its `{name}`s the arguments): a call needs a person's yes before it runs ([below](#approval)) | none |
/// | `task` | flag: the tool may run long. Over MCP, a call from a client that declared the tasks extension (`io.modelcontextprotocol/tasks`, protocol 2026-07-28) may be answered with a task the client polls, instead of the result; for every other caller it is a normal call ([below](#tasks)) | false |
/// | `feeds_back` | flag: the result goes back to the model. With `feeds_back = false` the result is for people (a UI card): an agent's round whose calls all say so ends its run | true |
/// | `mirror` | flag: an MCP result carries the text mirror of its structured content (the echo) beside `structuredContent`. `mirror = false` leaves the text out, for clients that read the structured content; it needs an output schema ([below](#the-text-mirror)) | true |
/// | `timeout` | time limit of one call: `500ms`, `30s`, `2m` (or `2min`), `1h`, or the same as a string (`"30s"`); 1 ms to 24 h. The executor never lets it exceed its own cap ([`exec::ExecPolicy::max_timeout`], 10 min by default) | the executor's default (60 s) |
/// | `retries` | attempts after the first, 0 to 10, made only for transient errors (`unavailable`, `timeout`) of a read-only or idempotent tool | 0 |
/// | `scopes` | the OAuth scopes a caller must hold to see and call the tool, `scopes("issues:write", "repo")`: at least one, each once, each an RFC 6749 scope-token (visible ASCII other than `"` and `\`, so no spaces). Enforced for callers a server authenticated ([`Tool::permits`](registry::Tool::permits)); a call with no [`Principal`](context::Principal) in its context is not held to them | none |
/// | `check` | flag: the macro emits a `#[cfg(test)]` test that holds the tool to every rule of [`check`](definition::check) in its crate's `cargo test`; `check = false` leaves it out, for a tool that uses a type some provider cannot express | true |
/// | `crate` | the path to tool-core, for a framework that re-exports it (`crate = "my_framework::tool_core"`); the expansion names nothing else | `::tool_core` |
///
/// ```
/// use std::time::Duration;
/// use tool_core::prelude::*;
///
/// tool_core::domain!(pub orders, "Orders of the signed-in customer");
///
/// /// Cancels an order that has not shipped yet and returns its new status.
/// #[tool(
///     domain = orders,
///     label = "Cancelling the order",
///     hint = "Cancel an order before it ships",
///     name = "cancel_order",
///     core,
///     destructive,
///     idempotent,
///     open_world = false,
///     timeout = 10s,
///     retries = 2,
///     scopes("orders:write"),
///     voiced,
///     source = "https://shop.example.com/orders",
///     examples("an order" => r#"{"id": "A-1042"}"#),
/// )]
/// fn cancel_customer_order(
///     #[arg(description = "The order's id, e.g. A-1042")] id: String,
/// ) -> String {
///     format!("{id}: cancelled")
/// }
///
/// let registry = Registry::linked().unwrap();
/// let tool = registry.get("cancel_order").unwrap();
/// assert!(tool.is_core());
/// let annotations = tool.annotations();
/// assert!(!annotations.read_only && annotations.destructive && annotations.idempotent);
/// assert_eq!(tool.timeout(), Some(Duration::from_secs(10)));
/// assert_eq!(tool.retries(), 2);
/// assert_eq!(tool.scopes(), ["orders:write"]);
/// assert!(tool.voiced());
/// assert_eq!(tool.source(), Some("https://shop.example.com/orders"));
/// assert_eq!(tool.examples()[0].input, serde_json::json!({"id": "A-1042"}));
/// ```
///
/// # `#[arg(...)]` keys
///
/// On a field of the model's input (not on a `#[ctx]` or `#[input]` parameter). As in
/// `#[tool]`, an unknown or repeated key is an error, also across several `#[arg]`s on one
/// parameter.
///
/// | key | value |
/// |---|---|
/// | `description` | the property's description in the schema; not empty |
/// | `default` | an expression of the parameter's type, used when the key is missing or `null`; a string literal is converted with `Into` (`default = "en"` for a `String`). It makes the parameter optional and appears in the schema as `default`, so the type also implements `Serialize`. On an `Option` parameter, it is the value a missing or `null` key gets |
/// | `rename` | the JSON key, when it is not the parameter's name; keys must stay unique |
/// | `body` | flag: in the text tag protocol (`tool_agent::protocol`), the text between a call's tags fills this parameter; at most one per tool |
///
/// ```
/// use tool_core::prelude::*;
///
/// tool_core::domain!(pub notes, "Notes kept for the user");
///
/// /// Saves a note under a title and returns how many characters it holds.
/// #[tool(domain = notes, label = "Saving the note", hint = "Saves a note", read_only = false)]
/// fn save_user_note(
///     #[arg(description = "Title of the note")] title: String,
///     #[arg(description = "The note's text", rename = "text", body)] content: String,
///     #[arg(description = "Folders to file it in", default = vec!["inbox".to_owned()])]
///     folders: Vec<String>,
///     #[arg(default = "markdown")] format: String,
/// ) -> usize {
///     content.chars().count()
/// }
///
/// let registry = Registry::linked().unwrap();
/// let tool = registry.get("save_user_note").unwrap();
/// let schema = tool.input_schema();
/// assert_eq!(schema["required"], serde_json::json!(["title", "text"]));
/// assert_eq!(schema["properties"]["folders"]["default"], serde_json::json!(["inbox"]));
/// assert_eq!(schema["properties"]["format"]["default"], "markdown");
/// assert_eq!(tool.body_param(), Some("text"));
/// ```
///
/// # Names
///
/// A tool's name (the function's, or `name = "..."`) is ASCII snake_case: lowercase letters,
/// digits and single `_`, starting with a letter, at most 64 characters, and two words or more
/// (`get_forecast`, not `forecast`). The macro refuses any other name. The first word should be
/// a verb, what the tool does: [`check`](definition::check) warns (`name.verb`) when it is not one of
/// [`check::VERBS`](definition::check::VERBS), and `toolctl check --allow-verb WORD` (or
/// [`check::CheckOptions::verbs`](definition::check::CheckOptions::verbs)) allows more. The macro and `check` use the one grammar.
///
/// # Icons
///
/// `icon` gives clients an image to show beside the tool (the MCP `Icon` object of protocol
/// 2026-07-28). The short form is the link alone; `icon(...)` names the parts, each once:
///
/// - `src`, required: an `https:` or `http:` URL with a host, or a `data:` URI of base64 image
///   data (`data:image/png;base64,iVBOR...`);
/// - `mime_type`: an image type, `image/...` (`image/png`, `image/svg+xml`), when the source's
///   own is missing or generic;
/// - `sizes("48x48", ...)`: at least one size, each `WxH` in pixels or `any` (a scalable
///   image); without it, any size;
/// - `theme`: `"light"` (drawn for a light background) or `"dark"`; without it, any theme.
///
/// Anything else is a compile error on the value at fault, and an unknown key in `icon(...)`
/// lists the valid ones. Only the MCP rendering and `tools/list` carry icons: no model reads
/// them, so the OpenAI, Anthropic and Gemini renderings leave them out.
///
/// ```
/// use tool_core::prelude::*;
///
/// tool_core::domain!(pub weather, "Current conditions and forecasts for any city");
///
/// /// Returns the temperature in a city, in degrees Celsius.
/// #[tool(
///     domain = weather,
///     label = "Reading the thermometer",
///     hint = "Temperature in a city",
///     icon = "https://example.com/thermometer.png",
///     icon(src = "https://example.com/thermometer-dark.svg", mime_type = "image/svg+xml", sizes("any"), theme = "dark"),
/// )]
/// fn get_temperature(city: String) -> f32 {
///     21.5
/// }
///
/// let registry = Registry::linked().unwrap();
/// let tool = registry.get("get_temperature").unwrap();
/// assert_eq!(tool.icons().len(), 2);
/// assert_eq!(tool.icons()[1].theme.as_deref(), Some("dark"));
/// let listed = tool_core::render::mcp(tool);
/// assert_eq!(listed["icons"][0], serde_json::json!({"src": "https://example.com/thermometer.png"}));
/// ```
///
/// A size is `WxH` or `any`:
///
/// ```compile_fail
/// use tool_core::prelude::*;
/// tool_core::domain!(pub weather, "Forecasts for any city");
///
/// /// Returns the temperature in a city.
/// #[tool(domain = weather, label = "Reading", hint = "Temperature", icon(src = "https://example.com/t.png", sizes("48")))]
/// fn get_temperature(city: String) -> f32 {
///     21.5
/// }
/// ```
///
/// # The text mirror
///
/// An MCP result carries a tool's data twice: as `structuredContent`, and as a text block (the
/// echo: the data's JSON, or the text of [`ToolOutput::with_echo`]) for clients that read only
/// text. `mirror = false` leaves the text block out of a result that has structured content,
/// which halves what a client that reads it pays in tokens. A client that reads only text then
/// sees nothing, so serve such tools to clients that read structured content.
///
/// It needs an output schema, the one the client reads the structured content by: the output
/// type (the success type of a `Result`, the `T` of a `ToolOutput<T>`) implements `JsonSchema`.
/// Without one, `mirror = false` is a compile error, on `false`. A result without structured
/// content (an error, a [`ToolOutput::text`], for a client before 2026-07-28 a value other
/// than an object under an object schema) still carries its text, and other adapters than MCP (the agent loops, `toolctl call`) still give
/// the echo to the model.
///
/// ```
/// use tool_core::prelude::*;
///
/// tool_core::domain!(pub stats, "Counters of the service");
///
/// /// The counters of the service.
/// #[tool_core::data(output)]
/// struct Counters {
///     /// Requests served since the start.
///     requests: u64,
/// }
///
/// /// Returns the service's counters.
/// #[tool(domain = stats, label = "Counting", hint = "Service counters", mirror = false)]
/// fn get_counters() -> Counters {
///     Counters { requests: 7 }
/// }
///
/// let registry = Registry::linked().unwrap();
/// assert!(!registry.get("get_counters").unwrap().mirror());
/// ```
///
/// A tool whose output has no schema keeps its mirror:
///
/// ```compile_fail
/// use tool_core::prelude::*;
/// tool_core::domain!(pub stats, "Counters of the service");
///
/// /// Returns the service's counters, as JSON without a schema.
/// #[tool(domain = stats, label = "Counting", hint = "Service counters", mirror = false)]
/// fn get_counters() -> serde_json::Value {
///     serde_json::json!({"requests": 7})
/// }
/// ```
///
/// # Tasks
///
/// `task` marks a tool that may run long. Over MCP, a call from a client that declared the
/// tasks extension (`io.modelcontextprotocol/tasks`, protocol 2026-07-28) may be answered with
/// a task the client polls, instead of the result. For every other caller (a client without
/// the extension or of an older protocol, the agent loops, `toolctl call`) it is a normal call.
/// The MCP listing says so in `_meta."tool-core/task": true`; [`Tool::task`](registry::Tool::task) reads it, and
/// [`DynamicTool::task`](registry::DynamicTool::task) sets it on a tool made at run time.
///
/// ```
/// use tool_core::prelude::*;
///
/// tool_core::domain!(pub reports, "Reports of the service");
///
/// /// Builds the monthly report and returns its text.
/// #[tool(domain = reports, label = "Exporting", hint = "Monthly report", task)]
/// async fn export_report(month: String) -> String {
///     format!("report for {month}")
/// }
///
/// let registry = Registry::linked().unwrap();
/// let tool = registry.get("export_report").unwrap();
/// assert!(tool.task());
/// assert_eq!(tool_core::render::mcp(tool)["_meta"]["tool-core/task"], true);
/// ```
///
/// # Approval
///
/// `approval` holds every call for a person's yes. The [executor](exec::Executor) checks the
/// input, then asks the context's [`Approver`](context::Approver) (over MCP the client's user, through an
/// elicitation; in the agent loop, whatever the application installed), before anything of the
/// tool runs and before its time limit starts; a denial, no one to ask or no answer within the
/// policy's timeout ends the call with [`ErrorKind::NotApproved`](error::ErrorKind::NotApproved), and the answer is audited
/// with what the person was shown. `approval = "..."` words the question: each `{name}` is the
/// argument `name` (a placeholder that names none is a compile error), `{{` and `}}` braces.
/// An [`ApprovalPolicy`](exec::ApprovalPolicy) on the executor can ask about other tools too
/// (every destructive one, every one that is not read-only, named tools or domains).
///
/// ```
/// use tool_core::prelude::*;
///
/// tool_core::domain!(pub repo, "The code repository");
///
/// /// Deletes a branch and returns its name.
/// #[tool(domain = repo, label = "Deleting a branch", hint = "Delete a branch", destructive,
///        approval = "Delete the branch {branch}?")]
/// fn delete_branch(branch: String) -> String {
///     branch
/// }
///
/// let registry = Registry::linked().unwrap();
/// let tool = registry.get("delete_branch").unwrap();
/// let shown = tool_core::exec::approval_message(tool, &serde_json::json!({"branch": "old"}));
/// assert_eq!(shown, "Delete the branch old?");
/// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
/// // No one to ask: the call is refused, and the tool does not run.
/// let error = tool_core::exec::Executor::new(registry)
///     .call("delete_branch", serde_json::json!({"branch": "old"}), &ToolContext::new())
///     .await
///     .unwrap_err();
/// assert_eq!(error.kind(), ErrorKind::NotApproved);
/// # });
/// ```
///
/// # Scopes
///
/// `scopes("issues:write")` says which OAuth scopes a caller needs, beyond what the server as a
/// whole asks for. They matter only where a server authenticated its caller and put a
/// [`Principal`](context::Principal) in the call's context: the [executor](exec::Executor) refuses a caller that
/// lacks one with [`ErrorKind::PermissionDenied`](error::ErrorKind::PermissionDenied), naming the tool and every scope it lacks,
/// before the input is read and before any attempt, and the refusal is audited like any
/// other outcome. A call with no principal (stdio, a server behind one shared token: a
/// transport that authenticates no one grants everything) is not held to them. Calls a tool
/// makes to other tools carry its caller's principal. Servers hide from a caller the tools it
/// may not call with [`Tool::permits`](registry::Tool::permits), and name what is missing with [`Tool::missing_scopes`](registry::Tool::missing_scopes).
/// Scopes are for servers, so no rendering for a model shows them.
///
/// ```
/// use tool_core::prelude::*;
/// use tool_core::{exec::Executor, context::Principal};
///
/// tool_core::domain!(pub tracker, "Issues of the team's tracker");
///
/// /// Closes an issue and returns its id.
/// #[tool(domain = tracker, label = "Closing", hint = "Close an issue", destructive, scopes("issues:write"))]
/// fn close_issue(id: u32) -> u32 {
///     id
/// }
///
/// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
/// let executor = Executor::new(Registry::linked().unwrap());
/// let reader = Principal::new("ada").with_scopes(["issues:read"]);
/// let ctx = ToolContext::builder().principal(reader).build();
/// let err = executor.call("close_issue", r#"{"id": 7}"#, &ctx).await.unwrap_err();
/// assert_eq!(err.kind(), ErrorKind::PermissionDenied);
/// assert_eq!(err.message(), "calling `close_issue` needs the scope `issues:write`, which the caller was not granted");
/// // Over stdio no one is authenticated: the call runs.
/// assert!(executor.call("close_issue", r#"{"id": 7}"#, &ToolContext::new()).await.is_ok());
/// # });
/// ```
///
/// A scope is one RFC 6749 scope-token, so a space is a compile error:
///
/// ```compile_fail
/// use tool_core::prelude::*;
/// tool_core::domain!(pub tracker, "Issues of the team's tracker");
///
/// /// Closes an issue and returns its id.
/// #[tool(domain = tracker, label = "Closing", hint = "Close an issue", destructive, scopes("issues write"))]
/// fn close_issue(id: u32) -> u32 {
///     id
/// }
/// ```
///
/// # Compile errors
///
/// Every mistake is one compile error on the offending token, all reported at once; the
/// function is still emitted unchanged, so the rest of the crate and your IDE keep working.
/// Besides the rules above: an undeclared domain (rustc suggests the near name), an empty or
/// multi-line `label` or `hint`, a slip in one key's value (the keys after it are still read),
/// a parameter type that does not implement `Deserialize` and `JsonSchema` (one error on the
/// parameter, saying what to derive and that a context value is marked `#[ctx]`), a `#[ctx]`
/// type that does not implement [`FromContext`](context::FromContext), a return type that is no output, an error type
/// that does not convert into [`ToolError`] (saying how to convert it), a blank doc comment
/// read from a file, an async tool whose future is not `Send`, an icon against [the icon
/// rule](#icons), and `mirror = false` on a tool without an output schema.
///
/// A tool cannot be both read-only and destructive:
///
/// ```compile_fail
/// use tool_core::prelude::*;
/// tool_core::domain!(pub files, "Files under the workspace");
///
/// /// Deletes a file and returns its path.
/// #[tool(domain = files, label = "Deleting", hint = "Deletes a file", read_only, destructive)]
/// fn delete_file(path: String) -> String {
///     path
/// }
/// ```
///
/// A tool name has two words at least (`get_forecast`, not `forecast`):
///
/// ```compile_fail
/// use tool_core::prelude::*;
/// tool_core::domain!(pub weather, "Forecasts for any city");
///
/// /// Returns the forecast for a city.
/// #[tool(domain = weather, label = "Checking the forecast", hint = "Daily forecast")]
/// fn forecast(city: String) -> String {
///     city
/// }
/// ```
///
/// # Crates and linking
///
/// `tool-core` is the only dependency a tools crate needs, under that name (or the `crate` path):
/// the expansion names serde, serde_json, schemars and inventory through `::tool_core`.
///
/// A binary has the tools of the crates it links, and the linker drops a crate that nothing
/// names: name your tools crates in the binary (`use my_tools as _;`). When a tool is missing,
/// the error says so at run time: a call to an unknown name with no near one, and
/// `toolctl list` with no tools, both end with this hint.
pub use tool_core_macros::tool;

/// Makes a type of your own a tool's input or output: derives serde's `Serialize` and
/// `Deserialize` and schemars' `JsonSchema` through the copies tool-core re-exports, so a tools
/// crate depends on tool-core alone and writes no `#[serde(crate = ...)]`.
///
/// ```
/// use tool_core::prelude::*;
///
/// tool_core::domain!(pub weather, "Current conditions and forecasts for any city");
///
/// /// One day of a forecast.
/// #[tool_core::data(output)]
/// #[derive(Clone, Debug)]
/// pub struct Day {
///     /// Highest temperature of the day.
///     pub high: i8,
///     /// Lowest temperature of the day.
///     pub low: i8,
/// }
///
/// /// Which units a forecast is in.
/// #[tool_core::data(input)]
/// #[serde(rename_all = "lowercase")]
/// pub enum Units {
///     /// Degrees Celsius.
///     Celsius,
///     /// Degrees Fahrenheit.
///     Fahrenheit,
/// }
///
/// /// Returns tomorrow's forecast for a city, in the units asked for.
/// #[tool(domain = weather, label = "Checking the forecast", hint = "Tomorrow's forecast")]
/// fn get_tomorrow(city: String, units: Units) -> Day {
///     let _ = city;
///     match units {
///         Units::Celsius => Day { high: 21, low: 11 },
///         Units::Fahrenheit => Day { high: 70, low: 52 },
///     }
/// }
///
/// let registry = Registry::linked().unwrap();
/// let tool = registry.get("get_tomorrow").unwrap();
/// let schema = tool.input_schema();
/// assert_eq!(schema["properties"]["units"]["$ref"], "#/$defs/Units");
/// // Each variant with its doc comment, for the model.
/// let units = &schema["$defs"]["Units"]["oneOf"];
/// assert_eq!(units[1]["const"], "fahrenheit");
/// assert_eq!(units[1]["description"], "Degrees Fahrenheit.");
/// ```
///
/// - `#[tool_core::data]` derives all three: the type is read from calls and returned.
/// - `#[tool_core::data(input)]` leaves out `Serialize`: a type only read from a model's input
///   (a parameter, a field of one, or an `#[input]` struct).
/// - `#[tool_core::data(output)]` leaves out `Deserialize`: a type only returned.
/// - `#[tool_core::data(crate = "my_framework::tool_core")]`: where tool-core is, for a
///   framework that re-exports it (as `#[tool(crate = ...)]`).
///
/// Put it above `#[derive(...)]`. The type's own `#[serde(...)]` and `#[schemars(...)]`
/// attributes (`rename_all`, `deny_unknown_fields`, `tag`, ...) work as with the derives written
/// out, and its doc comments become the schema's descriptions. It goes on a struct or an enum;
/// anything else, an unknown key, or `input` with `output` is a compile error on that token.
///
/// Writing the derives out works too; then serde's needs its path, schemars' finds
/// `schemars` in scope:
///
/// ```
/// use tool_core::{schemars, serde};
///
/// /// One day of a forecast.
/// #[derive(serde::Serialize, schemars::JsonSchema)]
/// #[serde(crate = "tool_core::serde")]
/// pub struct Day {
///     /// Highest temperature of the day.
///     pub high: i8,
/// }
/// ```
pub use tool_core_macros::data;

/// Makes a function an MCP resource: something a client reads by its URI (a file, a record, a
/// view), as a tool is something a model calls. The doc comment is its description.
///
/// ```
/// use tool_core::prelude::*;
///
/// /// Today's notes, as Markdown.
/// #[resource(uri = "notes://today", mime_type = "text/markdown")]
/// fn today_notes() -> String {
///     "# Today\n- ship it".to_owned()
/// }
///
/// /// One day's notes, by date (`2026-12-05`).
/// #[resource(uri = "notes://days/{day}", mime_type = "text/markdown", scopes("notes:read"))]
/// async fn day_notes(#[arg(complete = recent_days)] day: String) -> Result<String, ToolError> {
///     if day.len() != 10 {
///         return Err(ToolError::not_found(format!("no notes for `{day}`")));
///     }
///     Ok(format!("# {day}"))
/// }
///
/// fn recent_days(typed: &str) -> Vec<String> {
///     ["2026-12-04", "2026-12-05"].into_iter().filter(|d| d.starts_with(typed)).map(String::from).collect()
/// }
/// # let registry = Registry::linked().unwrap();
/// # assert!(registry.resource_for("notes://days/2026-12-05").is_some());
/// ```
///
/// # Keys
///
/// - `uri = "scheme://..."` (required): the resource's URI, or a URI template (RFC 6570's
///   simple `{name}` variables, one path segment each). Each variable is a parameter of the
///   same name, a `String`: the compiler names a variable with no parameter, and a parameter
///   that is no variable.
/// - `name = "..."`: the name programs know it by; the function's name by default.
/// - `title = "..."`: a name for people.
/// - `mime_type = "type/subtype"`: the contents' media type, unless a content names its own.
/// - `scopes("notes:read", ...)`: the scopes a caller must hold to read it (as `#[tool]`'s).
/// - `crate = "path::to::tool_core"`: where the expansion finds tool-core.
///
/// `#[arg(complete = f)]` on a variable names a `fn(&str) -> Vec<String>` that lists values
/// starting with what a person typed, for `completion/complete`; `#[arg(rename = "...")]`
/// names the variable when it is no Rust name.
///
/// # Parameters and return
///
/// Besides the variables, `&ToolContext` and `#[ctx] T` (a [`FromContext`](context::FromContext) value), as for
/// tools. It returns text (`String`, `&'static str`), JSON (`serde_json::Value`, served as
/// `application/json`), bytes ([`resource::Blob`]), one [`resource::ResourceContent`] or
/// several, or a `Result` of one whose error converts into [`ToolError`]. A read passes the
/// executor's gate: scopes, the time limit, cancellation, audit.
///
/// A key that is not one of these is an error on its token:
///
/// ```compile_fail
/// use tool_core::prelude::*;
///
/// /// Today's notes.
/// #[resource(uri = "notes://today", mime = "text/markdown")]
/// fn today_notes() -> String {
///     String::new()
/// }
/// ```
pub use tool_core_macros::resource;

/// Makes a function an MCP prompt: a message template a person picks (a slash command), with
/// arguments. The doc comment is its description; its parameters are its arguments.
///
/// ```
/// use tool_core::prelude::*;
/// use tool_core::prompt::PromptMessage;
///
/// /// Asks for a review of a piece of code, in a given style.
/// #[prompt(title = "Review code")]
/// fn review_code(
///     #[arg(description = "The code to review")] code: String,
///     #[arg(description = "`strict` or `kind`", complete = styles)] style: Option<String>,
/// ) -> Vec<PromptMessage> {
///     let style = style.unwrap_or_else(|| "kind".to_owned());
///     vec![PromptMessage::user(format!("Review this code ({style}):\n{code}"))]
/// }
///
/// fn styles(typed: &str) -> Vec<String> {
///     ["strict", "kind"].into_iter().filter(|s| s.starts_with(typed)).map(String::from).collect()
/// }
/// # let registry = Registry::linked().unwrap();
/// # let prompt = registry.prompt("review_code").unwrap();
/// # assert!(prompt.arguments()[0].required && !prompt.arguments()[1].required);
/// ```
///
/// # Keys
///
/// - `name = "..."`: the name; the function's by default (snake_case; one word allowed).
/// - `title = "..."`: a name for people.
/// - `scopes(...)`: the scopes a caller must hold to get it.
/// - `crate = "path::to::tool_core"`: where the expansion finds tool-core.
///
/// On an argument, `#[arg(description = "...", rename = "...", complete = f)]`: what it is,
/// the name clients use when it is no Rust name (`resourceUri`), and a
/// `fn(&str) -> Vec<String>` that completes it.
///
/// # Parameters and return
///
/// An argument is a `String` (required) or an `Option<String>`; besides them, `&ToolContext`
/// and `#[ctx] T`. It returns text (one user message), a [`prompt::PromptMessage`], a `Vec` of
/// them or a [`prompt::PromptReply`], or a `Result` of one. Getting a prompt passes the
/// executor's gate as reading a resource does.
pub use tool_core_macros::prompt;

/// The names most handlers need.
pub mod prelude {
    pub use crate::context::{CancellationToken, RequestHeaders, State, ToolRoot};
    pub use crate::error::ErrorKind;
    pub use crate::output::Media;
    // The docs' examples build JSON; a tools crate needs no dependency of its own for `json!`.
    pub use crate::{
        Executor, Registry, ToolContext, ToolError, ToolOutput, domain, prompt, resource, tool,
    };
    pub use serde_json::json;
}

/// Items the `#[tool]` expansion names. Not a public API: it changes without notice.
#[doc(hidden)]
pub mod __private;
