//! What the `#[tool]` expansion calls into. Each function here is the one place a check on a
//! user's type is made, so rustc reports it once, on the user's token (the expansion spans each
//! call on the parameter or return type it checks).

pub use inventory;
pub use schemars;
pub use serde;
pub use serde_json;

pub use crate::ToolError;
pub use crate::call::{Fields, Missing};
pub use crate::definition::check::assert_tool;
pub use crate::definition::schema::ObjectSchema;
pub use crate::definition::{
    Annotations, Domain, Example, Icon, Location, is_blank, is_domain_name,
};
pub use crate::linked::{
    ApprovalDef, HandlerFn, OutputSchemaFn, SchemaFn, Sealed, ToolDef, ViewDef,
};

use std::cell::Cell;
use std::marker::PhantomData;

use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::call::{CallFuture, CallResult};
use crate::{ToolContext, ToolOutput, context::FromContext, output::IntoOutput};

/// The hints `#[tool]` declares, in a const: [`Annotations`] is `#[non_exhaustive]`, so the
/// expansion cannot write it as a literal.
pub const fn annotations(
    read_only: bool,
    destructive: bool,
    idempotent: bool,
    open_world: bool,
) -> Annotations {
    Annotations::READ_ONLY
        .read_only(read_only)
        .destructive(destructive)
        .idempotent(idempotent)
        .open_world(open_world)
}

/// How one plain parameter is decoded and described.
pub struct Param<T> {
    /// Decodes the parameter's value.
    pub decode: fn(Value) -> Result<T, ToolError>,
    /// Decodes the parameter's value without taking it; `None` if it does not decode.
    pub borrowed: fn(&Value) -> Option<T>,
    /// The parameter's subschema.
    pub schema: fn(&mut SchemaGenerator) -> Schema,
}

/// The one place the expansion names a parameter's type.
pub const fn param<T: ToolParam>() -> Param<T> {
    Param {
        decode: crate::call::decode_value::<T>,
        borrowed: decode_ref::<T>,
        schema: SchemaGenerator::subschema_for::<T>,
    }
}

/// A named fn rather than a closure: a closure coerced to a fn pointer is called through a
/// shim LLVM did not inline, while this inlines into the handler's fast path.
#[inline(always)]
fn decode_ref<T: ToolParam>(value: &Value) -> Option<T> {
    T::deserialize(value).ok()
}

/// The values of an input whose every key is a parameter's, in the order of `keys`; `None`
/// for any other input. The input is only borrowed, so [`Fields`] can still report problems.
#[inline]
pub fn known_keys<'a, const N: usize>(
    input: &'a Value,
    keys: &[&str; N],
) -> Option<[Option<&'a Value>; N]> {
    let mut slots = [None; N];
    match input {
        Value::Object(map) => {
            for (key, value) in map {
                let i = keys.iter().position(|k| k == key)?;
                slots[i] = Some(value);
            }
            Some(slots)
        }
        Value::Null => Some(slots),
        _ => None,
    }
}

/// One parameter decoded as [`Fields::take`] would, without taking the value; `None` where
/// `take` would record a problem.
#[inline(always)]
pub fn decode_borrowed<T>(
    value: Option<&Value>,
    decode: fn(&Value) -> Option<T>,
    missing: Missing<T>,
) -> Option<T> {
    match (value, missing) {
        (None | Some(Value::Null), Missing::Default(default)) => Some(default()),
        (None, Missing::Required) => None,
        (None, Missing::Null) => decode(&Value::Null),
        (Some(value), _) => decode(value),
    }
}

/// How an `#[input]` parameter (the whole input) is decoded and described.
pub struct Whole<T> {
    /// Decodes the whole input.
    pub decode: fn(Value) -> Result<T, ToolError>,
    /// The input's root schema.
    pub schema: fn() -> Schema,
}

/// The one place the expansion names the type of an `#[input]` parameter.
pub const fn whole<T: ToolParam>() -> Whole<T> {
    Whole {
        decode: crate::call::decode::<T>,
        schema: crate::definition::schema::closed_root_schema::<T>,
    }
}

/// The keys an `#[input]` type takes, read once from its schema by the tool's first call: a
/// static of each tool's expansion (a generic function has no static of its own per type).
pub struct InputKeys(std::sync::OnceLock<Option<Box<[String]>>>);

impl InputKeys {
    /// Not read yet.
    #[allow(clippy::new_without_default)]
    pub const fn new() -> Self {
        Self(std::sync::OnceLock::new())
    }
}

/// Decodes an `#[input]` parameter: a key its schema does not list is refused with a
/// did-you-mean, as plain parameters refuse one, when the schema is closed (it lists its
/// properties and allows no others; `additionalProperties: false` then says so); then serde
/// decodes the rest.
pub fn decode_whole<T>(input: Value, keys: &InputKeys, whole: &Whole<T>) -> Result<T, ToolError> {
    let keys = keys
        .0
        .get_or_init(|| crate::definition::schema::closed_keys(&(whole.schema)().to_value()));
    if let (Some(keys), Value::Object(fields)) = (keys, &input) {
        let known: Vec<&str> = keys.iter().map(String::as_str).collect();
        crate::call::refuse_unknown_keys(fields, &known)?;
    }
    (whole.decode)(input)
}

/// A parameter's default, as JSON for the schema.
pub fn default_json<T: DefaultParam>(default: fn() -> T) -> Option<Value> {
    serde_json::to_value(default()).ok()
}

/// The type of a parameter with a default.
#[diagnostic::on_unimplemented(
    message = "the parameter's type `{Self}` has a default, so it must implement `Serialize`",
    label = "the default the schema shows",
    note = "the schema gives the model the default as JSON: derive `serde::Serialize` on the type too, or drop `default` and take an `Option`"
)]
pub trait DefaultParam: serde::Serialize {}
// Reported as the trait above, not as `Serialize` with the list of every type that has it.
#[diagnostic::do_not_recommend]
impl<T: serde::Serialize> DefaultParam for T {}

/// The input passed every check but a value is absent: cannot happen; no panic if it does.
pub fn input_bug() -> ToolError {
    ToolError::internal("a decoded parameter went missing")
}

/// A call that fails before it starts.
pub fn fail(error: ToolError) -> CallFuture {
    crate::call::fail(error)
}

/// Whether the call only checks its input and context values (before a person is asked to
/// approve it): the handler then returns [`validated`] instead of running the tool.
#[inline]
pub fn validating(ctx: &ToolContext) -> bool {
    ctx.is_validating()
}

/// The answer of a handler whose input and context values were checked, in a context that
/// only validates.
pub fn validated() -> CallFuture {
    CallFuture::ready(Ok(crate::ToolOutput::new(serde_json::Value::Null)))
}

/// Takes an extractor from the context.
pub fn extract<T: FromContext>(ctx: &ToolContext) -> Result<T, ToolError> {
    T::from_context(ctx)
}

/// The success type of a return type, and its error type: `T` and `E` of a `Result<T, E>`
/// (whatever alias names it), or the type itself and [`ToolError`]. Found by the type, through
/// autoref, never by its name.
pub struct Parts<T, E>(PhantomData<(T, E)>);

/// A `Result<T, E>`, under any name.
pub trait ReturnsResult {
    /// Success type.
    type Ok;
    /// Error type.
    type Err;
    /// The parts.
    fn parts(self) -> Parts<Self::Ok, Self::Err>;
}
impl<T, E> ReturnsResult for &&Probe<Result<T, E>> {
    type Ok = T;
    type Err = E;
    fn parts(self) -> Parts<T, E> {
        Parts(PhantomData)
    }
}

/// Any other return type: its own success type.
pub trait ReturnsValue {
    /// Success type.
    type Ok;
    /// The parts.
    fn parts(self) -> Parts<Self::Ok, ToolError>;
}
impl<T> ReturnsValue for &Probe<T> {
    type Ok = T;
    fn parts(self) -> Parts<T, ToolError> {
        Parts(PhantomData)
    }
}

/// Checks, on the return type, that it can be a tool's: its success type an output, its error
/// type (of a `Result`) convertible into [`ToolError`]. One error for each that is not.
pub fn assert_return<T: IntoOutput, E: ConvertsToToolError>(_: Parts<T, E>) {}

/// The error type of a `Result` a tool returns.
#[diagnostic::on_unimplemented(
    message = "the tool returns a `Result` whose error type `{Self}` does not convert into `ToolError`",
    label = "the error type of this `Result`",
    note = "implement `From<{Self}> for ToolError` (`ToolError::internal(e)` keeps it as the source), return `Result<T, ToolError>`, or `.map_err(...)` the error into a `ToolError`"
)]
pub trait ConvertsToToolError {}
// Reported as the trait above, not as the `Into` bound underneath it.
#[diagnostic::do_not_recommend]
impl<E: Into<ToolError>> ConvertsToToolError for E {}

/// Finishes a handler that returned a `Result`.
pub fn finish_result<T: IntoOutput, E: Into<ToolError>>(result: Result<T, E>) -> CallResult {
    crate::call::finish_result(result)
}

/// Finishes a handler without a return value: the model is told it is done.
pub fn finish_unit(_: ()) -> CallResult {
    Ok(ToolOutput::text("done"))
}

/// A type the model's input can provide.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a tool parameter: it must implement `Deserialize` and `JsonSchema`",
    label = "the model's input cannot give this type",
    note = "put `#[tool_core::data]` on the type (it derives both through tool-core, so a crate that depends on tool-core alone needs nothing else), or derive them: `#[derive(serde::Deserialize, schemars::JsonSchema)]`",
    note = "a value that comes from the tool context instead (state, a client) is marked `#[ctx]` and implements `tool_core::context::FromContext`"
)]
pub trait ToolParam: DeserializeOwned + JsonSchema {}
// Reported once, as the trait above, not once for each of the two traits underneath it.
#[diagnostic::do_not_recommend]
impl<T: DeserializeOwned + JsonSchema> ToolParam for T {}

/// Whether a parameter of the probed type may be left out: an `Option<T>`, found by its type.
pub trait OptionalParam {
    /// True.
    fn optional(self) -> bool;
}
impl<T> OptionalParam for &&Probe<Option<T>> {
    #[inline(always)]
    fn optional(self) -> bool {
        true
    }
}

/// Any other type: the model must give it (unless it has a default).
pub trait RequiredParam {
    /// False.
    fn optional(self) -> bool;
}
impl<T> RequiredParam for &Probe<T> {
    #[inline(always)]
    fn optional(self) -> bool {
        false
    }
}

/// What an absent parameter becomes: `null` decoded (`None`) for an optional one, an error for
/// any other.
#[inline(always)]
pub fn missing<T>(optional: bool) -> Missing<T> {
    if optional {
        Missing::Null
    } else {
        Missing::Required
    }
}

/// A handler's return value, finished by autoref on its type: a `Result` under any name as a
/// `Result`, anything else as an output. (`assert_return` has checked both at compile time.)
pub struct Ret<T>(Cell<Option<T>>);

impl<T> Ret<T> {
    /// Wraps a return value.
    pub fn new(value: T) -> Self {
        Self(Cell::new(Some(value)))
    }
}

/// Chosen for `Result<T, E>` whatever its alias.
pub trait FinishAsResult {
    /// Finishes the call.
    fn finish(self) -> CallResult;
}
impl<T: IntoOutput, E: Into<ToolError>> FinishAsResult for &&&Ret<Result<T, E>> {
    fn finish(self) -> CallResult {
        self.0
            .take()
            .map_or_else(|| Err(input_bug()), finish_result)
    }
}

/// Chosen for any other output.
pub trait FinishAsValue {
    /// Finishes the call.
    fn finish(self) -> CallResult;
}
impl<T: IntoOutput> FinishAsValue for &&Ret<T> {
    fn finish(self) -> CallResult {
        self.0
            .take()
            .map_or_else(|| Err(input_bug()), IntoOutput::into_output)
    }
}

/// Chosen only when the output type is not an output; `assert_output` has then already failed
/// the build, so this never runs.
pub trait FinishUnchecked {
    /// Finishes the call.
    fn finish(self) -> CallResult;
}
impl<T> FinishUnchecked for &Ret<T> {
    fn finish(self) -> CallResult {
        Err(ToolError::internal(
            "the tool's output type is not a tool output",
        ))
    }
}

/// Autoref probe: what output schema does a return type have?
pub struct Probe<T>(PhantomData<T>);
impl<T> Probe<T> {
    /// The probe value.
    pub const NEW: Self = Probe(PhantomData);
}

/// What the output schema probe found, as a type: the output has a schema.
pub struct OutputSchemaFound;

/// What the output schema probe found, as a type: the output has none.
pub struct NoOutputSchema;

/// Untyped outputs (`serde_json::Value`, `ToolOutput` of a value) have no schema.
pub trait OutputUntyped {
    /// No output schema.
    fn output_schema(self) -> Option<Schema>;
    /// None, as a type.
    fn schema_found(self) -> NoOutputSchema;
}
impl OutputUntyped for &&&&Probe<Value> {
    fn output_schema(self) -> Option<Schema> {
        None
    }
    fn schema_found(self) -> NoOutputSchema {
        NoOutputSchema
    }
}
impl OutputUntyped for &&&&Probe<ToolOutput<Value>> {
    fn output_schema(self) -> Option<Schema> {
        None
    }
    fn schema_found(self) -> NoOutputSchema {
        NoOutputSchema
    }
}

/// A `Result` behind an alias: the schema of its success type.
pub trait OutputOfResult {
    /// The output schema.
    fn output_schema(self) -> Option<Schema>;
    /// That there is one, as a type.
    fn schema_found(self) -> OutputSchemaFound;
}
impl<T: IntoOutput, E> OutputOfResult for &&&Probe<Result<T, E>>
where
    T::Data: JsonSchema,
{
    fn output_schema(self) -> Option<Schema> {
        Some(crate::definition::schema::root_schema::<T::Data>())
    }
    fn schema_found(self) -> OutputSchemaFound {
        OutputSchemaFound
    }
}

/// An output whose data type implements `JsonSchema`.
pub trait OutputWithSchema {
    /// The output schema.
    fn output_schema(self) -> Option<Schema>;
    /// That there is one, as a type.
    fn schema_found(self) -> OutputSchemaFound;
}
impl<T: IntoOutput> OutputWithSchema for &&Probe<T>
where
    T::Data: JsonSchema,
{
    fn output_schema(self) -> Option<Schema> {
        Some(crate::definition::schema::root_schema::<T::Data>())
    }
    fn schema_found(self) -> OutputSchemaFound {
        OutputSchemaFound
    }
}

/// Any other output: no schema.
pub trait OutputWithoutSchema {
    /// No output schema.
    fn output_schema(self) -> Option<Schema>;
    /// None, as a type.
    fn schema_found(self) -> NoOutputSchema;
}
impl<T> OutputWithoutSchema for &Probe<T> {
    fn output_schema(self) -> Option<Schema> {
        None
    }
    fn schema_found(self) -> NoOutputSchema {
        NoOutputSchema
    }
}

/// What the probe found for a tool with `mirror = false`, which leaves the text out of its MCP
/// results: only an output with a schema may.
#[diagnostic::on_unimplemented(
    message = "`mirror = false` needs an output schema, and this tool's output type has none",
    label = "leaves the text out of the tool's MCP results, so a client reads the structured content instead",
    note = "an output has a schema when its data type implements `JsonSchema`: put `#[tool_core::data(output)]` on it, or derive `schemars::JsonSchema`; `serde_json::Value` and `ToolOutput<Value>` have none",
    note = "or keep the text: drop `mirror = false`"
)]
pub trait MirrorCanBeOff {}
impl MirrorCanBeOff for OutputSchemaFound {}

/// Checks, on `mirror = false`, that the tool's output has a schema.
pub fn mirror_off<Found: MirrorCanBeOff>(_: Found) {}

/// A tool run bare (decoded and called, no scopes, layers, approval, limits or audit): the
/// floor the call benchmarks measure the executor against, behind the feature `bench-floor`
/// that they alone turn on. Not an API: every other caller goes through
/// [`Executor`](crate::Executor), the one door.
#[cfg(feature = "bench-floor")]
pub fn bare_call(
    registry: &crate::Registry,
    name: &str,
    input: Value,
    ctx: &ToolContext,
) -> CallFuture {
    match registry.get(name) {
        Some(tool) => tool.call(input, ctx),
        None => crate::call::fail(crate::call::unknown_tool(name, &registry.suggest(name))),
    }
}

// ---------------------------------------------------------------------------------------------
// `#[resource]` and `#[prompt]`.

pub use crate::prompt::{PromptArgDef, PromptArgs, PromptDef, PromptFuture};
pub use crate::resource::{ReadFuture, ResourceDef, ResourceRequest};

/// The value of a URI template's variable, as the parameter of the same name takes it.
#[diagnostic::on_unimplemented(
    message = "a #[resource] parameter named for a URI template variable is a `String`, not `{Self}`",
    label = "take a String here"
)]
pub trait UriVariable: Sized {
    /// The variable's (percent-decoded) value.
    fn from_variable(value: Option<&str>) -> Self;
}

impl UriVariable for String {
    fn from_variable(value: Option<&str>) -> Self {
        // The template matched, so every variable has a value.
        value.unwrap_or_default().to_owned()
    }
}

/// The variable `name` of a request, as its parameter's type.
pub fn variable<T: UriVariable>(request: &ResourceRequest, name: &str) -> T {
    T::from_variable(request.variable(name))
}

/// A prompt argument: `String` (required) or `Option<String>`.
#[diagnostic::on_unimplemented(
    message = "a #[prompt] argument is a `String` or an `Option<String>`, not `{Self}`",
    label = "prompt arguments are text",
    note = "parse it in the body, or take it from the context with #[ctx]"
)]
pub trait PromptArgValue: Sized {
    /// Whether a client must give it.
    const REQUIRED: bool;
    /// The value from the arguments (a required one was checked present before the call).
    fn from_argument(value: Option<&str>) -> Self;
}

impl PromptArgValue for String {
    const REQUIRED: bool = true;
    fn from_argument(value: Option<&str>) -> Self {
        value.unwrap_or_default().to_owned()
    }
}

impl PromptArgValue for Option<String> {
    const REQUIRED: bool = false;
    fn from_argument(value: Option<&str>) -> Self {
        value.map(str::to_owned)
    }
}

/// How one prompt argument is taken: the one place the expansion names its type, so a type
/// that is no argument is one error.
pub struct Arg<T> {
    /// Whether a client must give it.
    pub required: bool,
    /// Its value from the arguments.
    pub take: fn(Option<&str>) -> T,
}

/// The [`Arg`] of a parameter's type.
pub const fn arg<T: PromptArgValue>() -> Arg<T> {
    Arg {
        required: T::REQUIRED,
        take: T::from_argument,
    }
}

/// What a `#[resource]` function returns: contents, or a `Result` of them.
#[diagnostic::on_unimplemented(
    message = "a #[resource] cannot return `{Self}`",
    label = "not resource contents",
    note = "return String, &'static str, serde_json::Value, tool_core::resource::Blob, ResourceContent or Vec<ResourceContent>, or a Result of one whose error converts into ToolError"
)]
pub trait ReadOutcome {
    /// The contents, or the error.
    fn into_read(self) -> Result<Vec<crate::resource::ResourceContent>, ToolError>;
}

impl<T: crate::resource::IntoContents> ReadOutcome for T {
    fn into_read(self) -> Result<Vec<crate::resource::ResourceContent>, ToolError> {
        Ok(self.into_contents())
    }
}

impl<T: crate::resource::IntoContents, E: Into<ToolError>> ReadOutcome for Result<T, E> {
    fn into_read(self) -> Result<Vec<crate::resource::ResourceContent>, ToolError> {
        self.map(crate::resource::IntoContents::into_contents)
            .map_err(Into::into)
    }
}

/// The expansion's check of a `#[resource]`'s return type, spanned on it.
pub fn read_outcome<T: ReadOutcome>(
    value: T,
) -> Result<Vec<crate::resource::ResourceContent>, ToolError> {
    value.into_read()
}

/// What a `#[prompt]` function returns: messages, or a `Result` of them.
#[diagnostic::on_unimplemented(
    message = "a #[prompt] cannot return `{Self}`",
    label = "not prompt messages",
    note = "return String, &'static str, PromptMessage, Vec<PromptMessage> or PromptReply, or a Result of one whose error converts into ToolError"
)]
pub trait PromptOutcome {
    /// The reply, or the error.
    fn into_prompt(self) -> Result<crate::prompt::PromptReply, ToolError>;
}

impl<T: crate::prompt::IntoPromptReply> PromptOutcome for T {
    fn into_prompt(self) -> Result<crate::prompt::PromptReply, ToolError> {
        Ok(self.into_reply())
    }
}

impl<T: crate::prompt::IntoPromptReply, E: Into<ToolError>> PromptOutcome for Result<T, E> {
    fn into_prompt(self) -> Result<crate::prompt::PromptReply, ToolError> {
        self.map(crate::prompt::IntoPromptReply::into_reply)
            .map_err(Into::into)
    }
}

/// The expansion's check of a `#[prompt]`'s return type, spanned on it.
pub fn prompt_outcome<T: PromptOutcome>(value: T) -> Result<crate::prompt::PromptReply, ToolError> {
    value.into_prompt()
}

/// A read that failed before the function ran (a context value it could not have).
pub fn read_fail(error: ToolError) -> ReadFuture {
    Box::pin(std::future::ready(Err(error)))
}

/// A prompt that failed before the function ran.
pub fn prompt_fail(error: ToolError) -> PromptFuture {
    Box::pin(std::future::ready(Err(error)))
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use proptest::prelude::*;
    use serde::Deserialize;
    use serde_json::json;

    use super::*;
    use crate::call::{Fields, decode_value};

    #[derive(Deserialize, JsonSchema, Debug, PartialEq)]
    struct Point {
        x: i64,
        #[serde(default)]
        y: Option<i64>,
    }

    #[derive(Deserialize, JsonSchema, Debug, PartialEq)]
    #[serde(tag = "kind", rename_all = "snake_case")]
    enum Shape {
        Dot,
        Line { len: u8 },
    }

    #[derive(Deserialize, JsonSchema, Debug, PartialEq)]
    #[serde(untagged)]
    enum NumberOrText {
        Number(f64),
        Text(String),
    }

    fn any_json() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::from),
            (-3i64..300).prop_map(Value::from),
            any::<f64>().prop_map(Value::from),
            prop_oneof![Just("dot"), Just("line"), Just("x"), Just("")].prop_map(Value::from),
        ];
        let key =
            prop_oneof![Just("x"), Just("y"), Just("kind"), Just("len")].prop_map(str::to_owned);
        crate::test_json::json_tree(leaf, key, 3, 4)
    }

    /// What `Fields::take` gives for one parameter: the value, or `None` with a problem.
    fn taken<T: ToolParam>(value: Option<&Value>, missing: Missing<T>) -> Option<T> {
        let input = match value {
            Some(v) => json!({ "p": v }),
            None => json!({}),
        };
        let mut fields = Fields::new(input, &["p"]).ok()?;
        let out = fields.take("p", decode_value, missing);
        assert_eq!(out.is_some(), fields.finish().is_ok());
        out
    }

    fn same<T: ToolParam + PartialEq + std::fmt::Debug>(
        value: Option<&Value>,
        missing: fn() -> Missing<T>,
    ) -> Result<(), TestCaseError> {
        let borrowed = decode_borrowed(value, param::<T>().borrowed, missing());
        prop_assert_eq!(borrowed, taken(value, missing()), "{:?}", value);
        Ok(())
    }

    proptest! {
        // The generated handler decodes with `known_keys` and `decode_borrowed` and falls back
        // to `Fields` on `None`: each must agree with `Fields` on every input, or a call's
        // outcome would depend on which path ran.
        #[test]
        fn borrowed_decoding_agrees_with_fields(value in proptest::option::of(any_json())) {
            let v = value.as_ref();
            same::<u8>(v, || Missing::Required)?;
            same::<u8>(v, || Missing::Default(|| 7))?;
            same::<i64>(v, || Missing::Required)?;
            same::<f64>(v, || Missing::Required)?;
            same::<bool>(v, || Missing::Default(|| true))?;
            same::<String>(v, || Missing::Required)?;
            same::<Option<u8>>(v, || Missing::Null)?;
            same::<Option<String>>(v, || Missing::Default(|| Some("d".into())))?;
            same::<Vec<u8>>(v, || Missing::Required)?;
            same::<Value>(v, || Missing::Required)?;
            same::<Option<Value>>(v, || Missing::Null)?;
            same::<BTreeMap<String, i64>>(v, || Missing::Required)?;
            same::<Point>(v, || Missing::Required)?;
            same::<Shape>(v, || Missing::Required)?;
            same::<NumberOrText>(v, || Missing::Required)?;
            same::<Option<Vec<Point>>>(v, || Missing::Null)?;
        }

        // `known_keys` accepts exactly the inputs `Fields::new` finds no problem in.
        #[test]
        fn known_keys_agree_with_fields(input in prop_oneof![any_json(), Just(json!({"x": 1, "len": 2}))]) {
            let keys = ["x", "len"];
            let slots = known_keys(&input, &keys);
            let fields = Fields::new(input.clone(), &keys);
            let clean = fields.is_ok_and(|f| f.finish().is_ok());
            prop_assert_eq!(slots.is_some(), clean);
            if let Some(slots) = slots {
                for (slot, key) in slots.iter().zip(keys) {
                    prop_assert_eq!(*slot, input.get(key));
                }
            }
        }
    }
}
