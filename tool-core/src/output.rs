//! What a tool returns: structured data for programs and UIs, a compact echo for the model,
//! optional media, and an event name for UI cards.

use std::borrow::Cow;
use std::sync::Arc;

use serde::Serialize;
use serde_json::Value;

use crate::error::ToolError;

/// The result of a call, or the rich return type of a handler that needs more than data.
///
/// A handler may return any `T: Serialize` (it becomes the structured data) or a `ToolOutput<T>`
/// built with the methods below. A registry hands back `ToolOutput` (data as a JSON value).
///
/// ```
/// use tool_core::{ToolOutput, output::Media};
/// let out = ToolOutput::new(serde_json::json!({"temp_c": 21}))
///     .with_echo("21 °C in Paris")
///     .with_event("weather_card");
/// assert_eq!(out.echo(), "21 °C in Paris");
/// assert_eq!(out.event(), Some("weather_card"));
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct ToolOutput<T = Value> {
    data: Option<T>,
    echo: Option<String>,
    /// Few results carry media or an event: boxed, a plain result stays small enough to move
    /// without a `memcpy` call (`Value` alone is 80 bytes).
    extras: Option<Box<Extras>>,
}

/// What a result rarely carries; never `Some` and empty.
#[derive(Debug, Clone, PartialEq, Default)]
struct Extras {
    media: Vec<Media>,
    event: Option<Cow<'static, str>>,
}

impl<T> ToolOutput<T> {
    /// Output whose structured data is `data`.
    pub fn new(data: T) -> Self {
        Self {
            data: Some(data),
            echo: None,
            extras: None,
        }
    }

    /// Output with no structured data, only text for the model.
    pub fn text(echo: impl Into<String>) -> Self {
        Self {
            data: None,
            echo: Some(echo.into()),
            extras: None,
        }
    }

    /// Output that is only an image, an audio clip or a resource (add more with
    /// [`with_media`](Self::with_media)).
    pub fn from_media(media: Media) -> Self {
        Self {
            data: None,
            echo: None,
            extras: Some(Box::new(Extras {
                media: vec![media],
                event: None,
            })),
        }
    }

    /// Sets the compact text the model sees instead of the data's JSON.
    pub fn with_echo(mut self, echo: impl Into<String>) -> Self {
        self.echo = Some(echo.into());
        self
    }

    /// Attaches an image or audio clip.
    pub fn with_media(mut self, media: Media) -> Self {
        self.extras.get_or_insert_default().media.push(media);
        self
    }

    /// Names the UI card that shows this result.
    pub fn with_event(mut self, event: impl Into<Cow<'static, str>>) -> Self {
        self.extras.get_or_insert_default().event = Some(event.into());
        self
    }

    /// The structured data.
    pub fn data(&self) -> Option<&T> {
        self.data.as_ref()
    }

    /// The media attached.
    pub fn media(&self) -> &[Media] {
        self.extras.as_deref().map_or(&[], |extras| &extras.media)
    }

    /// The structured data, to rewrite in place (a [layer](crate::exec::Layer) that redacts a
    /// result).
    pub fn data_mut(&mut self) -> Option<&mut T> {
        self.data.as_mut()
    }

    /// The echo set with [`with_echo`](Self::with_echo) (or [`text`](Self::text)), to rewrite in
    /// place; `None` where the model reads the data itself.
    pub fn echo_mut(&mut self) -> Option<&mut String> {
        self.echo.as_mut()
    }

    /// The UI event name.
    pub fn event(&self) -> Option<&str> {
        self.extras.as_ref()?.event.as_deref()
    }
}

impl ToolOutput {
    /// What the model sees: the explicit echo, else a string result as it is, else the data as
    /// compact JSON, else nothing.
    pub fn echo(&self) -> Cow<'_, str> {
        match self.echo_or_data() {
            Ok(echo) => Cow::Borrowed(echo),
            Err(data) => Cow::Owned(data.to_string()),
        }
    }

    /// The echo as [`echo`](Self::echo) gives it, without formatting the data: `Err(data)`
    /// where the echo is the data as compact JSON (for adapters that write the JSON straight
    /// into their answer).
    ///
    /// ```
    /// use tool_core::ToolOutput;
    /// use serde_json::json;
    /// assert_eq!(ToolOutput::new(json!("plain")).echo_or_data(), Ok("plain"));
    /// assert_eq!(ToolOutput::new(json!({"a": 1})).echo_or_data(), Err(&json!({"a": 1})));
    /// ```
    #[inline]
    pub fn echo_or_data(&self) -> Result<&str, &Value> {
        match (&self.echo, &self.data) {
            (Some(echo), _) => Ok(echo),
            (None, Some(Value::String(s))) => Ok(s),
            (None, Some(data)) => Err(data),
            (None, None) => Ok(""),
        }
    }

    /// Takes the structured data out.
    #[inline]
    pub fn into_data(self) -> Option<Value> {
        self.data
    }

    /// Takes the echo (as [`echo`](Self::echo) gives it) and the data out. Only an echo that
    /// is the data's own string is copied.
    pub fn into_echo_and_data(mut self) -> (String, Option<Value>) {
        let echo = match self.echo.take() {
            Some(echo) => echo,
            None => self.echo().into_owned(),
        };
        (echo, self.data)
    }
}

/// An image, an audio clip, a resource (a document with a URI) or a link to one, returned with
/// a result. Built with [`Media::image`], [`Media::audio`], [`Media::resource`] or
/// [`Media::link`], so a resource and a link always have a URI.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Media {
    /// Image, audio, resource or link.
    pub kind: MediaKind,
    /// The MIME type, e.g. `image/png` (empty for a link whose type is not known).
    pub mime_type: Cow<'static, str>,
    /// The raw bytes (none for a link).
    pub data: Arc<[u8]>,
    /// Where a resource lives (`file:///...`, `https://...`); `None` for images and audio.
    pub uri: Option<Cow<'static, str>>,
    /// A link's name, for people and models (a file name, a title); `None` for the others.
    pub name: Option<Cow<'static, str>>,
}

/// The kind of a [`Media`] attachment.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum MediaKind {
    /// A picture.
    Image,
    /// A sound.
    Audio,
    /// A document named by a URI (an MCP embedded resource).
    Resource,
    /// A link to a document the client may fetch itself (an MCP `resource_link`), without its
    /// contents.
    Link,
}

impl Media {
    /// An image with the given MIME type.
    pub fn image(mime_type: impl Into<Cow<'static, str>>, data: impl Into<Arc<[u8]>>) -> Self {
        Self {
            kind: MediaKind::Image,
            mime_type: mime_type.into(),
            data: data.into(),
            uri: None,
            name: None,
        }
    }

    /// An audio clip with the given MIME type.
    pub fn audio(mime_type: impl Into<Cow<'static, str>>, data: impl Into<Arc<[u8]>>) -> Self {
        Self {
            kind: MediaKind::Audio,
            mime_type: mime_type.into(),
            data: data.into(),
            uri: None,
            name: None,
        }
    }

    /// A resource: the contents of the document at `uri`. Text types (`text/*`, JSON, XML)
    /// whose bytes are UTF-8 travel as text, others as binary.
    ///
    /// ```
    /// use tool_core::{output::{Media, MediaKind}};
    /// let doc = Media::resource("file:///notes.md", "text/markdown", "# Notes".as_bytes());
    /// assert_eq!(doc.kind, MediaKind::Resource);
    /// assert_eq!(doc.text(), Some("# Notes"));
    /// ```
    pub fn resource(
        uri: impl Into<Cow<'static, str>>,
        mime_type: impl Into<Cow<'static, str>>,
        data: impl Into<Arc<[u8]>>,
    ) -> Self {
        Self {
            kind: MediaKind::Resource,
            mime_type: mime_type.into(),
            data: data.into(),
            uri: Some(uri.into()),
            name: None,
        }
    }

    /// A link to the document at `uri`, named `name`, of `mime_type` (`""` when not known):
    /// the client fetches it if it wants it, so a large file costs the answer nothing. Over MCP
    /// it is a `resource_link` content block.
    ///
    /// ```
    /// use tool_core::{ToolOutput, output::{Media, MediaKind}};
    /// let link = Media::link("file:///project/src/main.rs", "main.rs", "text/x-rust");
    /// assert_eq!(link.kind, MediaKind::Link);
    /// assert_eq!(link.name.as_deref(), Some("main.rs"));
    /// assert!(link.data.is_empty());
    /// let out: ToolOutput = ToolOutput::text("The entry point").with_media(link);
    /// assert_eq!(out.media().len(), 1);
    /// ```
    pub fn link(
        uri: impl Into<Cow<'static, str>>,
        name: impl Into<Cow<'static, str>>,
        mime_type: impl Into<Cow<'static, str>>,
    ) -> Self {
        Self {
            kind: MediaKind::Link,
            mime_type: mime_type.into(),
            data: Arc::from([]),
            uri: Some(uri.into()),
            name: Some(name.into()),
        }
    }

    /// The contents as text, when the MIME type is a text type and the bytes are UTF-8.
    pub fn text(&self) -> Option<&str> {
        let essence = self.mime_type.split(';').next().unwrap_or("").trim();
        let textual = essence.starts_with("text/")
            || essence.ends_with("/json")
            || essence.ends_with("+json")
            || essence.ends_with("/xml")
            || essence.ends_with("+xml");
        textual
            .then(|| std::str::from_utf8(&self.data).ok())
            .flatten()
    }
}

/// A value a handler can return on success: any `T: Serialize`, or a [`ToolOutput<T>`].
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be returned from a tool",
    label = "not a tool output",
    note = "return a type that implements `serde::Serialize` (`#[derive(serde::Serialize)]`), a `tool_core::ToolOutput`, or a `Result` of one"
)]
pub trait IntoOutput {
    /// The type of the structured data (its schema becomes the output schema).
    type Data;
    /// Converts into the registry's output.
    fn into_output(self) -> Result<ToolOutput, ToolError>;
}

// Reported as `IntoOutput` with its note, not as `Serialize` with the list of every type that
// implements it.
#[diagnostic::do_not_recommend]
impl<T: Serialize> IntoOutput for T {
    type Data = T;
    fn into_output(self) -> Result<ToolOutput, ToolError> {
        Ok(ToolOutput::new(to_value(&self)?))
    }
}

impl<T: Serialize> IntoOutput for ToolOutput<T> {
    type Data = T;
    fn into_output(self) -> Result<ToolOutput, ToolError> {
        let data = match &self.data {
            Some(data) => Some(to_value(data)?),
            None => None,
        };
        Ok(ToolOutput {
            data,
            echo: self.echo,
            extras: self.extras,
        })
    }
}

fn to_value<T: Serialize>(data: &T) -> Result<Value, ToolError> {
    serde_json::to_value(data)
        .map_err(|e| ToolError::internal(format!("the tool's output could not be serialized: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn echo_prefers_explicit_text_then_strings_then_json() {
        assert_eq!(ToolOutput::new(json!("plain")).echo(), "plain");
        assert_eq!(ToolOutput::new(json!({"a": 1})).echo(), r#"{"a":1}"#);
        assert_eq!(ToolOutput::new(json!(1)).with_echo("one").echo(), "one");
        assert_eq!(ToolOutput::<Value>::text("t").echo(), "t");
        for out in [
            ToolOutput::new(json!("plain")),
            ToolOutput::new(json!({"a": 1})),
            ToolOutput::new(json!(1)).with_echo("one"),
            ToolOutput::<Value>::text("t"),
        ] {
            let echo = out.echo().into_owned();
            let data = out.data().cloned();
            assert_eq!(out.into_echo_and_data(), (echo, data));
        }
    }

    #[test]
    fn typed_output_keeps_its_parts() {
        let out = ToolOutput::new(vec![1, 2])
            .with_media(Media::image("image/png", vec![1u8, 2, 3]))
            .with_event("card")
            .into_output()
            .unwrap();
        assert_eq!(out.data(), Some(&json!([1, 2])));
        assert_eq!(out.media().len(), 1);
        assert_eq!(out.event(), Some("card"));
    }

    #[test]
    fn unserializable_output_is_an_internal_error() {
        use std::collections::HashMap;
        let mut map = HashMap::new();
        map.insert(vec![1u8], 1);
        let err = map.into_output().unwrap_err();
        assert_eq!(err.kind(), crate::error::ErrorKind::Internal);
    }
}
