//! The streaming parser of the text tag protocol: tool calls written as tags inside prose,
//! from text that arrives in chunks split anywhere.

use std::collections::HashSet;

/// What the parser found in the text so far, in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Event {
    /// Prose, for the user.
    Text(String),
    /// A complete tool call.
    Call(TagCall),
    /// Something that looked like a call but was not one; the text it covered is kept.
    Error(TagError),
}

/// A tool call written as a tag.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct TagCall {
    /// The tool's name.
    pub name: String,
    /// `name="value"` attributes, in order, entities decoded.
    pub attrs: Vec<(String, String)>,
    /// `<param>value</param>` children, in order (entities decoded, CDATA as written).
    pub children: Vec<(String, String)>,
    /// The text between the tags outside children (CDATA as written), trimmed; `None` for a
    /// self-closing tag or an empty body.
    pub body: Option<String>,
}

/// A tag the parser could not take as a call.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{reason}")]
pub struct TagError {
    /// What was wrong, for the model to correct.
    pub reason: String,
    /// The text the tag covered, as written.
    pub raw: String,
}

/// Finds tool calls in text that arrives in pieces.
///
/// A call is a tag named after a known tool: `<get_weather city="Paris"/>`, or
/// `<write_file path="a.txt">body</write_file>` with the body as text or `<![CDATA[...]]>`, and
/// parameters as attributes or as child tags (`<path>a.txt</path>`). Text around calls is
/// prose. A tag that looks like a tool name (snake_case) but names no tool, a call that is never
/// closed, and a malformed tag are errors that keep their text.
///
/// ```
/// use tool_agent::protocol::{Event, TagParser};
/// let mut parser = TagParser::new(["get_weather"]);
/// let mut events = parser.feed("Let me check. <get_wea");
/// events.extend(parser.feed("ther city=\"Paris\"/> Done."));
/// events.extend(parser.finish());
/// assert!(matches!(&events[1], Event::Call(call) if call.name == "get_weather"));
/// ```
#[derive(Debug, Clone)]
pub struct TagParser {
    tools: HashSet<String>,
    /// Text received and not yet turned into events.
    pending: String,
}

/// Longest tag name considered; longer runs are prose.
const MAX_NAME: usize = 64;

impl TagParser {
    /// A parser for calls to the tools named.
    pub fn new<S: Into<String>>(tools: impl IntoIterator<Item = S>) -> Self {
        Self {
            tools: tools.into_iter().map(Into::into).collect(),
            pending: String::new(),
        }
    }

    /// Takes the next chunk; returns the events it completes.
    pub fn feed(&mut self, chunk: &str) -> Vec<Event> {
        self.pending.push_str(chunk);
        let mut events = Vec::new();
        // Events are taken from an offset and the text is drained once: text with many small
        // events stays linear.
        let mut at = 0;
        while let Step::Emit(event, used) = self.step(&self.pending[at..], false) {
            at += used;
            push(&mut events, event);
        }
        self.pending.drain(..at);
        events
    }

    /// The text is over: returns what is left (prose, or errors for calls never closed).
    pub fn finish(self) -> Vec<Event> {
        let mut events = Vec::new();
        // At the end nothing waits: every step emits, until the text is used up.
        let mut at = 0;
        while let Step::Emit(event, used) = self.step(&self.pending[at..], true) {
            at += used;
            push(&mut events, event);
        }
        events
    }

    /// One event from the front of `text`, with the bytes it used, or a wait for more text.
    fn step(&self, text: &str, at_end: bool) -> Step {
        if text.is_empty() {
            return Step::Wait;
        }
        let Some(lt) = text.find('<') else {
            return Step::Emit(Event::Text(text.to_owned()), text.len());
        };
        if lt > 0 {
            return Step::Emit(Event::Text(text[..lt].to_owned()), lt);
        }
        // `text` starts with '<': a tag, or prose. Decide on the name first, so prose with a
        // stray `<` is not held back waiting for a `>`.
        match tag_name(text) {
            Scan::NeedMore if !at_end => return Step::Wait,
            Scan::NeedMore | Scan::NotATag => return Step::Emit(Event::Text("<".to_owned()), 1),
            Scan::Tag(name) if !self.tools.contains(name) && !looks_like_tool(name) => {
                return Step::Emit(Event::Text("<".to_owned()), 1);
            }
            Scan::Tag(_) => {}
        }
        match open_tag(text) {
            Scan::NeedMore if !at_end => Step::Wait,
            Scan::NeedMore | Scan::NotATag => Step::Emit(Event::Text("<".to_owned()), 1),
            Scan::Tag(tag) => self.tag(text, tag, at_end),
        }
    }

    fn tag(&self, text: &str, tag: OpenTag, at_end: bool) -> Step {
        if !self.tools.contains(&tag.name) {
            // An unknown tool: an error up to the end of its element, when it has one.
            let end = if tag.self_closing {
                Some(tag.len)
            } else {
                let close = format!("</{}>", tag.name);
                text[tag.len..]
                    .find(&close)
                    .map(|i| tag.len + i + close.len())
            };
            return match end {
                Some(end) => Step::Emit(
                    Event::Error(TagError {
                        reason: format!(
                            "there is no tool named `{}`{}",
                            tag.name,
                            self.suggestion(&tag.name)
                        ),
                        raw: text[..end].to_owned(),
                    }),
                    end,
                ),
                None if !at_end => Step::Wait,
                None => Step::Emit(
                    Event::Error(TagError {
                        reason: format!(
                            "there is no tool named `{}`{}, and the tag is not closed",
                            tag.name,
                            self.suggestion(&tag.name)
                        ),
                        raw: text.to_owned(),
                    }),
                    text.len(),
                ),
            };
        }
        let attrs = match tag.attrs {
            Ok(attrs) => attrs,
            Err(reason) => {
                return Step::Emit(
                    Event::Error(TagError {
                        reason: format!("`<{}>`: {reason}", tag.name),
                        raw: text[..tag.len].to_owned(),
                    }),
                    tag.len,
                );
            }
        };
        if tag.self_closing {
            let call = TagCall {
                name: tag.name,
                attrs,
                ..TagCall::default()
            };
            return Step::Emit(Event::Call(call), tag.len);
        }
        match content(&text[tag.len..], &tag.name) {
            Content::Done {
                children,
                body,
                len,
            } => Step::Emit(
                Event::Call(TagCall {
                    name: tag.name,
                    attrs,
                    children,
                    body,
                }),
                tag.len + len,
            ),
            Content::Bad(reason, len) => Step::Emit(
                Event::Error(TagError {
                    reason: format!("`<{}>`: {reason}", tag.name),
                    raw: text[..tag.len + len].to_owned(),
                }),
                tag.len + len,
            ),
            Content::NeedMore if !at_end => Step::Wait,
            Content::NeedMore => Step::Emit(
                Event::Error(TagError {
                    reason: format!(
                        "`<{0}>` is not closed: end the call with `</{0}>`, or write it as `<{0} .../>`",
                        tag.name
                    ),
                    raw: text.to_owned(),
                }),
                text.len(),
            ),
        }
    }

    fn suggestion(&self, name: &str) -> String {
        let best = self
            .tools
            .iter()
            .map(|t| (strsim::jaro_winkler(name, t), t))
            .filter(|(score, _)| *score > 0.85)
            .max_by(|a, b| a.0.total_cmp(&b.0).then_with(|| b.1.cmp(a.1)));
        best.map_or_else(String::new, |(_, t)| format!("; did you mean `{t}`?"))
    }
}

enum Step {
    Emit(Event, usize),
    Wait,
}

/// Adds an event, joining prose to the prose before it.
fn push(events: &mut Vec<Event>, event: Event) {
    if let (Event::Text(next), Some(Event::Text(last))) = (&event, events.last_mut()) {
        last.push_str(next);
        return;
    }
    events.push(event);
}

/// Tool names are snake_case: lowercase letters, digits and `_`, with at least one `_`.
fn looks_like_tool(name: &str) -> bool {
    name.contains('_')
        && name.starts_with(|c: char| c.is_ascii_lowercase())
        && name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_' || c == '-')
}

struct OpenTag {
    name: String,
    attrs: Result<Vec<(String, String)>, String>,
    self_closing: bool,
    /// Bytes from `<` to the closing `>` inclusive.
    len: usize,
}

enum Scan<T> {
    Tag(T),
    NotATag,
    NeedMore,
}

/// The name of the tag at the start of `text` (after `<`), once it is complete.
fn tag_name(text: &str) -> Scan<&str> {
    let rest = &text[1..];
    let name_len = rest
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '-'))
        .unwrap_or(rest.len());
    if name_len > MAX_NAME || (name_len > 0 && !rest.starts_with(|c: char| c.is_ascii_alphabetic()))
    {
        return Scan::NotATag;
    }
    if name_len == rest.len() {
        return Scan::NeedMore;
    }
    if name_len == 0 {
        return Scan::NotATag;
    }
    Scan::Tag(&rest[..name_len])
}

/// Reads `<name attr="v" ...>` or `.../>` at the start of `text`.
fn open_tag(text: &str) -> Scan<OpenTag> {
    let name = match tag_name(text) {
        Scan::Tag(name) => name.to_owned(),
        Scan::NotATag => return Scan::NotATag,
        Scan::NeedMore => return Scan::NeedMore,
    };
    let name_len = name.len();
    let mut at = 1 + name_len;
    let mut attrs = Vec::new();
    let mut problem = None;
    loop {
        let tail = &text[at..];
        let trimmed = tail.trim_start();
        at += tail.len() - trimmed.len();
        if trimmed.is_empty() {
            return Scan::NeedMore;
        }
        if trimmed.starts_with("/>") {
            return tag(name, attrs, problem, true, at + 2);
        }
        if trimmed.starts_with('/') && trimmed.len() == 1 {
            return Scan::NeedMore;
        }
        if trimmed.starts_with('>') {
            return tag(name, attrs, problem, false, at + 1);
        }
        // An attribute: name, '=', quoted value.
        let key_len = trimmed
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '-'))
            .unwrap_or(trimmed.len());
        if key_len == trimmed.len() {
            return Scan::NeedMore;
        }
        if key_len == 0 {
            // Not an attribute: if a newline or another '<' comes before '>', this is prose.
            let Some(gt) = trimmed.find('>') else {
                return if trimmed.contains(['\n', '<']) {
                    Scan::NotATag
                } else {
                    Scan::NeedMore
                };
            };
            if trimmed[..gt].contains(['\n', '<']) {
                return Scan::NotATag;
            }
            problem.get_or_insert_with(|| {
                format!(
                    "`{}` is not an attribute: write name=\"value\"",
                    &trimmed[..gt]
                )
            });
            at += gt;
            continue;
        }
        let key = trimmed[..key_len].to_owned();
        let after_key = &trimmed[key_len..];
        let spaced = after_key.trim_start();
        let Some(value_part) = spaced.strip_prefix('=') else {
            if spaced.is_empty() {
                return Scan::NeedMore;
            }
            problem.get_or_insert_with(|| {
                format!("attribute `{key}` has no value: write {key}=\"...\"")
            });
            at += key_len + (after_key.len() - spaced.len());
            continue;
        };
        let value_part = value_part.trim_start();
        let Some(quote) = value_part.chars().next() else {
            return Scan::NeedMore;
        };
        if quote != '"' && quote != '\'' {
            problem.get_or_insert_with(|| format!("the value of `{key}` must be in quotes"));
            let skip = value_part
                .find(|c: char| c.is_whitespace() || c == '>' || c == '/')
                .unwrap_or(value_part.len());
            if skip == value_part.len() {
                return Scan::NeedMore;
            }
            at += trimmed.len() - value_part.len() + skip;
            continue;
        }
        let Some(close) = value_part[1..].find(quote) else {
            return Scan::NeedMore;
        };
        let value = decode_entities(&value_part[1..1 + close]);
        attrs.push((key, value));
        at += trimmed.len() - value_part.len() + 1 + close + 1;
    }
}

fn tag(
    name: String,
    attrs: Vec<(String, String)>,
    problem: Option<String>,
    self_closing: bool,
    len: usize,
) -> Scan<OpenTag> {
    Scan::Tag(OpenTag {
        name,
        attrs: match problem {
            Some(p) => Err(p),
            None => Ok(attrs),
        },
        self_closing,
        len,
    })
}

enum Content {
    Done {
        children: Vec<(String, String)>,
        body: Option<String>,
        len: usize,
    },
    Bad(String, usize),
    NeedMore,
}

/// Reads a call's content up to `</name>`: body text, CDATA sections and child elements.
fn content(text: &str, name: &str) -> Content {
    let close = format!("</{name}>");
    let mut body = String::new();
    let mut children = Vec::new();
    let mut at = 0;
    loop {
        let rest = &text[at..];
        let Some(lt) = rest.find('<') else {
            return Content::NeedMore;
        };
        body.push_str(&decode_entities(&rest[..lt]));
        let rest = &rest[lt..];
        at += lt;
        if rest.starts_with(&close) {
            let body = body.trim();
            return Content::Done {
                children,
                body: (!body.is_empty()).then(|| body.to_owned()),
                len: at + close.len(),
            };
        }
        if close.starts_with(rest) {
            return Content::NeedMore;
        }
        if let Some(cdata) = rest.strip_prefix("<![CDATA[") {
            let Some(end) = cdata.find("]]>") else {
                return Content::NeedMore;
            };
            body.push_str(&cdata[..end]);
            at += "<![CDATA[".len() + end + 3;
            continue;
        }
        if "<![CDATA[".starts_with(rest) {
            return Content::NeedMore;
        }
        // A child element `<param>value</param>`.
        match open_tag(rest) {
            Scan::NeedMore => return Content::NeedMore,
            Scan::NotATag => {
                body.push('<');
                at += 1;
            }
            Scan::Tag(child) => {
                if child.self_closing {
                    children.push((child.name, String::new()));
                    at += child.len;
                    continue;
                }
                let child_close = format!("</{}>", child.name);
                let inner = &rest[child.len..];
                let Some(end) = inner.find(&child_close) else {
                    // The call's own end before the child's: the child is not closed.
                    if let Some(outer) = inner.find(&close) {
                        return Content::Bad(
                            format!("child `<{0}>` is not closed before `{close}`", child.name),
                            at + child.len + outer + close.len(),
                        );
                    }
                    return Content::NeedMore;
                };
                let value = &inner[..end];
                let value = match value
                    .trim()
                    .strip_prefix("<![CDATA[")
                    .and_then(|v| v.strip_suffix("]]>"))
                {
                    Some(raw) => raw.to_owned(),
                    None => decode_entities(value),
                };
                children.push((child.name, value));
                at += child.len + end + child_close.len();
            }
        }
    }
}

/// Decodes the five XML entities; anything else is left as written.
pub(crate) fn decode_entities(text: &str) -> String {
    if !text.contains('&') {
        return text.to_owned();
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(amp) = rest.find('&') {
        out.push_str(&rest[..amp]);
        rest = &rest[amp..];
        let decoded = [
            ("&lt;", '<'),
            ("&gt;", '>'),
            ("&amp;", '&'),
            ("&quot;", '"'),
            ("&apos;", '\''),
        ]
        .iter()
        .find(|(entity, _)| rest.starts_with(entity));
        match decoded {
            Some((entity, c)) => {
                out.push(*c);
                rest = &rest[entity.len()..];
            }
            None => {
                out.push('&');
                rest = &rest[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Vec<Event> {
        let mut p = TagParser::new(["get_weather", "write_file", "read_file"]);
        let mut events = Vec::new();
        for e in p.feed(text) {
            push(&mut events, e);
        }
        for e in p.finish() {
            push(&mut events, e);
        }
        events
    }

    fn call(events: &[Event], i: usize) -> &TagCall {
        match &events[i] {
            Event::Call(c) => c,
            other => panic!("event {i} is {other:?}"),
        }
    }

    #[test]
    fn self_closing_and_prose() {
        let e = parse("Checking. <get_weather city=\"Paris\" units='c'/> Done.");
        assert_eq!(e[0], Event::Text("Checking. ".into()));
        let c = call(&e, 1);
        assert_eq!(
            c.attrs,
            [
                ("city".into(), "Paris".into()),
                ("units".into(), "c".into())
            ]
        );
        assert_eq!(c.body, None);
        assert_eq!(e[2], Event::Text(" Done.".into()));
    }

    #[test]
    fn bodies_cdata_children_and_entities() {
        let e =
            parse("<write_file path=\"a&amp;b.txt\"><![CDATA[if a < b && c > d]]></write_file>");
        let c = call(&e, 0);
        assert_eq!(c.attrs[0].1, "a&b.txt");
        assert_eq!(c.body.as_deref(), Some("if a < b && c > d"));
        let e = parse("<write_file><path>notes.md</path>\n# Title &lt;1&gt;\n</write_file>");
        let c = call(&e, 0);
        assert_eq!(c.children, [("path".into(), "notes.md".into())]);
        assert_eq!(c.body.as_deref(), Some("# Title <1>"));
    }

    #[test]
    fn html_and_comparisons_are_prose() {
        let text = "Use <b>bold</b> when a < b, and <div class=x> too.";
        assert_eq!(parse(text), [Event::Text(text.into())]);
    }

    #[test]
    fn unknown_unclosed_and_malformed_tags_are_errors_that_keep_their_text() {
        let e = parse("x <get_wether city=\"Paris\"/> y");
        let Event::Error(err) = &e[1] else {
            panic!("{e:?}")
        };
        assert!(err.reason.contains("did you mean `get_weather`"), "{err}");
        assert_eq!(err.raw, "<get_wether city=\"Paris\"/>");
        let e = parse("<read_file path=\"a\">");
        let Event::Error(err) = &e[0] else {
            panic!("{e:?}")
        };
        assert!(err.reason.contains("not closed"), "{err}");
        assert_eq!(err.raw, "<read_file path=\"a\">");
        let e = parse("<get_weather city=Paris/>");
        let Event::Error(err) = &e[0] else {
            panic!("{e:?}")
        };
        assert!(err.reason.contains("in quotes"), "{err}");
    }

    /// Pieces that make up model output: prose, calls of every form, near-misses and broken
    /// tags, so split points land inside every construct.
    fn fragment() -> impl proptest::strategy::Strategy<Value = String> {
        proptest::prop_oneof![
            "[a-zA-Z ,.!?\\n]{0,12}",
            proptest::strategy::Just("<get_weather city=\"Paris\"/>".to_owned()),
            proptest::strategy::Just("<get_weather city='Oslo' days=\"3\" />".to_owned()),
            proptest::strategy::Just(
                "<write_file path=\"a.md\"># Title\nline &amp; more</write_file>".to_owned()
            ),
            proptest::strategy::Just(
                "<write_file><path>b.txt</path><![CDATA[x < y && ]]></write_file>".to_owned()
            ),
            proptest::strategy::Just("<read_file path=\"x\"></read_file>".to_owned()),
            proptest::strategy::Just("<get_wether city=\"Rome\"/>".to_owned()),
            proptest::strategy::Just("<b>bold</b> a < b <div class=x>".to_owned()),
            proptest::strategy::Just("<get_weather city=Paris/>".to_owned()),
            proptest::strategy::Just("<read_file path=\"unclosed\">".to_owned()),
            proptest::strategy::Just("</write_file> <".to_owned()),
            proptest::strategy::Just("é<ü".to_owned()),
        ]
    }

    fn run(chunks: &[&str]) -> Vec<Event> {
        let mut p = TagParser::new(["get_weather", "write_file", "read_file"]);
        let mut events = Vec::new();
        for chunk in chunks {
            for e in p.feed(chunk) {
                push(&mut events, e);
            }
        }
        for e in p.finish() {
            push(&mut events, e);
        }
        events
    }

    proptest::proptest! {
        #[test]
        fn every_chunking_gives_the_same_calls_and_prose(
            parts in proptest::collection::vec(fragment(), 0..8),
            cuts in proptest::collection::vec(0usize..400, 0..12),
        ) {
            let text: String = parts.concat();
            let mut at: Vec<usize> = cuts
                .into_iter()
                .map(|c| c % (text.len() + 1))
                .filter(|&c| text.is_char_boundary(c))
                .collect();
            at.sort_unstable();
            at.dedup();
            let mut chunks = Vec::new();
            let mut last = 0;
            for c in at {
                chunks.push(&text[last..c]);
                last = c;
            }
            chunks.push(&text[last..]);
            proptest::prop_assert_eq!(run(&chunks), run(&[text.as_str()]));
        }

        #[test]
        fn one_byte_at_a_time_matches_the_whole(parts in proptest::collection::vec(fragment(), 0..6)) {
            let text: String = parts.concat();
            let chars: Vec<String> = text.chars().map(String::from).collect();
            let chunks: Vec<&str> = chars.iter().map(String::as_str).collect();
            proptest::prop_assert_eq!(run(&chunks), run(&[text.as_str()]));
        }

        #[test]
        fn arbitrary_text_never_panics(text in ".{0,300}") {
            let _ = run(&[text.as_str()]);
        }
    }
}
