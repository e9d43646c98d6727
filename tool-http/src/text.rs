//! How a request's host and a response's body appear in messages: short, on one line.

use reqwest::Url;

/// Longest excerpt of an error body a message quotes.
const EXCERPT_CHARS: usize = 200;

/// The name of `known` nearest to `name`, if one is near enough to be what was meant.
pub(super) fn nearest<'a>(name: &str, known: &[&'a str]) -> Option<&'a str> {
    known
        .iter()
        .map(|k| (strsim::jaro_winkler(k, name), *k))
        .filter(|(score, _)| *score > 0.8)
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, k)| k)
}

/// `host[:port]` of a URL, IPv6 in brackets.
pub(super) fn host_label(url: &Url) -> String {
    let host = url.host_str().unwrap_or("the host");
    match url.port() {
        Some(port) => format!("{host}:{port}"),
        None => host.to_owned(),
    }
}

/// A short, single-line excerpt of a body or message.
pub(super) fn excerpt(text: &str) -> String {
    let flat: String = text
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    let flat = flat.split_whitespace().collect::<Vec<_>>().join(" ");
    if flat.chars().count() > EXCERPT_CHARS {
        let cut: String = flat.chars().take(EXCERPT_CHARS).collect();
        format!("{cut}...")
    } else {
        flat
    }
}
