//! Every call is traced with the OpenTelemetry GenAI attributes. A binary of its own: tracing
//! caches whether a callsite is wanted, process-wide, and a test thread of another test that
//! reaches the span's callsite while no subscriber of its own is set can cache "never" between
//! this test's registration of its subscriber and the call (it failed about one run in five
//! beside the executor's other tests).

use std::sync::{Arc, Mutex};

use serde_json::json;
use tool_core::exec::Executor;
use tool_core::prelude::*;

tool_core::domain!(pub demo, "Tools that misbehave on purpose");

/// Fails with an error that leaks internals.
#[tool(domain = demo, label = "Leaking", hint = "Leaks")]
fn get_leaky() -> Result<u8, ToolError> {
    Err(ToolError::unavailable("connect to db.internal:5432 failed"))
}

fn executor() -> Executor {
    Executor::new(Registry::linked().unwrap())
}

#[tokio::test]
async fn calls_are_traced_with_gen_ai_attributes() {
    use tracing_subscriber::layer::SubscriberExt;
    let spans = Arc::new(Mutex::new(Vec::<String>::new()));
    let subscriber = tracing_subscriber::registry().with(SpanFields(spans.clone()));
    let _guard = tracing::subscriber::set_default(subscriber);
    // Another test's thread may have registered the span's callsite while no subscriber wanted
    // it; without this, that cached "never" can race the new subscriber's registration.
    tracing::callsite::rebuild_interest_cache();
    let ctx = ToolContext::builder().call_id("call-9").build();
    let _ = executor().call("get_leaky", json!({}), &ctx).await;
    let spans = spans.lock().unwrap().join("\n");
    for expected in [
        "execute_tool",
        "otel.name=execute_tool get_leaky",
        "gen_ai.operation.name=execute_tool",
        "gen_ai.tool.name=get_leaky",
        "gen_ai.tool.call.id=call-9",
        "error.type=unavailable",
    ] {
        assert!(
            spans.contains(expected),
            "{expected} missing from:\n{spans}"
        );
    }
}

/// Records every span's name and fields as `key=value` lines.
struct SpanFields(Arc<Mutex<Vec<String>>>);

impl<S: tracing::Subscriber> tracing_subscriber::Layer<S> for SpanFields {
    fn on_new_span(
        &self,
        attrs: &tracing::span::Attributes<'_>,
        _: &tracing::span::Id,
        _: tracing_subscriber::layer::Context<'_, S>,
    ) {
        let mut v = FieldText(vec![attrs.metadata().name().to_owned()]);
        attrs.record(&mut v);
        self.0.lock().unwrap().extend(v.0);
    }

    fn on_record(
        &self,
        _: &tracing::span::Id,
        values: &tracing::span::Record<'_>,
        _: tracing_subscriber::layer::Context<'_, S>,
    ) {
        let mut v = FieldText(Vec::new());
        values.record(&mut v);
        self.0.lock().unwrap().extend(v.0);
    }
}

struct FieldText(Vec<String>);

impl tracing::field::Visit for FieldText {
    fn record_debug(&mut self, field: &tracing::field::Field, value: &dyn std::fmt::Debug) {
        self.0
            .push(format!("{}={:?}", field.name(), value).replace('"', ""));
    }

    fn record_str(&mut self, field: &tracing::field::Field, value: &str) {
        self.0.push(format!("{}={value}", field.name()));
    }
}
