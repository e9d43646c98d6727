//! Any text through the tags-protocol parser, whole and split into chunks at fuzzer-chosen
//! points: no panic, and the same calls, errors and prose however it is split.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tool_agent::protocol::{Event, TagParser};

fn run(chunks: &[&str]) -> Vec<Event> {
    let mut parser = TagParser::new(["get_weather", "write_file", "read_file"]);
    let mut events: Vec<Event> = Vec::new();
    let add = |event: Event, events: &mut Vec<Event>| match (&event, events.last_mut()) {
        (Event::Text(next), Some(Event::Text(last))) => last.push_str(next),
        _ => events.push(event),
    };
    for chunk in chunks {
        for event in parser.feed(chunk) {
            add(event, &mut events);
        }
    }
    for event in parser.finish() {
        add(event, &mut events);
    }
    events
}

fuzz_target!(|data: &[u8]| {
    // The first bytes choose the split points; the rest is the text.
    let (cuts, text) = data.split_at(data.len().min(4));
    let text = String::from_utf8_lossy(text);
    let mut at: Vec<usize> = cuts
        .iter()
        .map(|&c| usize::from(c) * text.len() / 255)
        .filter(|&c| text.is_char_boundary(c))
        .collect();
    at.sort_unstable();
    let mut chunks = Vec::new();
    let mut last = 0;
    for c in at {
        chunks.push(&text[last..c]);
        last = c;
    }
    chunks.push(&text[last..]);
    assert_eq!(run(&chunks), run(&[&text]));
});
