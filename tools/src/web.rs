//! The `web` domain: a page of the public web, as readable text.
//!
//! Requests go through [`tool_http::HttpClient::fetch`], so the SSRF guard applies
//! (loopback, private, link-local and cloud metadata addresses and names are refused, on every
//! redirect and at connect time) and no header of the caller is sent. HTML becomes
//! markdown-like text (html2text: headings, emphasis, lists, tables, links as numbered
//! references listed at the end); other text is returned as it is; binary content is refused
//! before its body is read.

use std::time::Duration;

use tool_core::prelude::*;
use tool_http::{FetchOptions, HttpClient, Url, is_text_content_type};

use crate::domains::web;

/// Most characters of text `fetch_url` returns.
pub const MAX_TEXT_CHARS: usize = 100_000;
/// Time limit of one fetch, redirects and body included.
pub const FETCH_TIMEOUT: Duration = Duration::from_secs(20);
/// Deepest HTML nesting converted with the full parser; deeper pages get a plain tag strip
/// (the HTML tree builder's cost grows with depth times elements).
const MAX_NESTING: usize = 256;
/// Line width of the rendered text: wide enough that paragraphs are not wrapped.
const TEXT_WIDTH: usize = 10_000;

/// A fetched page.
#[tool_core::data(output)]
#[derive(Debug)]
pub struct WebPage {
    /// The URL the text came from, after redirects.
    pub url: String,
    /// The HTTP status code.
    pub status: u16,
    /// The media type, e.g. text/html.
    pub content_type: Option<String>,
    /// The page's title, for HTML pages that have one.
    pub title: Option<String>,
    /// The page as readable text (markdown-like for HTML, with links listed at the end).
    pub text: String,
    /// Whether the text was cut (the end of `text` says how much is missing).
    pub truncated: bool,
}

/// Fetches a page of the public web (http or https) and returns it as readable text: HTML
/// becomes markdown-like text with its links listed at the end, other text (plain, JSON, XML)
/// is returned as it is, and binary content (images, PDFs, archives) is refused. At most
/// 100000 characters are returned. Local, private and cloud metadata addresses cannot be
/// fetched. Use it to read a page whose URL you know.
#[tool(
    domain = web,
    label = "Fetching a web page",
    hint = "Fetches a URL and returns the page as text",
    open_world,
    task,
    timeout = 30s,
    examples(
        "A page" => r#"{"url": "https://example.com/"}"#,
        "A raw text file" => r#"{"url": "https://www.rfc-editor.org/rfc/rfc9110.txt"}"#,
    ),
)]
pub async fn fetch_url(
    #[ctx] http: HttpClient,
    #[arg(description = "The http or https URL to fetch, e.g. https://example.com/page")]
    url: String,
) -> Result<WebPage, ToolError> {
    let options = FetchOptions::default()
        .truncate(true)
        .text_only(true)
        .timeout(FETCH_TIMEOUT);
    let response = http
        .fetch_with(&url, options)
        .await
        .map_err(|e| match e.kind() {
            ErrorKind::InvalidInput | ErrorKind::PermissionDenied => e.with_path("url"),
            _ => e,
        })?;
    let media = response.media_type();
    let html = match media.as_deref() {
        Some("text/html" | "application/xhtml+xml") => true,
        Some(_) => false,
        None => looks_like_html(response.bytes()),
    };
    let cut_bytes = response.truncated().then(|| response.bytes().len());
    let final_url = response.url().to_owned();
    let status = response.status();
    let body = response.into_bytes();
    // Converting a large page takes a while: keep it off the async threads.
    let base = Url::parse(&final_url).ok();
    let (title, text) = tokio::task::spawn_blocking(move || {
        if html {
            html_to_text(&body, base.as_ref())
        } else {
            (None, String::from_utf8_lossy(&body).into_owned())
        }
    })
    .await
    .map_err(|_| ToolError::internal("converting the page to text failed"))?;
    let (text, truncated) = cap_text(text, MAX_TEXT_CHARS, cut_bytes);
    Ok(WebPage {
        url: final_url,
        status,
        content_type: media.filter(|m| is_text_content_type(m)),
        title,
        text,
        truncated,
    })
}

/// Whether an untyped body starts like an HTML document.
fn looks_like_html(body: &[u8]) -> bool {
    let start = body
        .iter()
        .position(|b| !b.is_ascii_whitespace())
        .unwrap_or(0);
    let head = &body[start..body.len().min(start + 64)];
    starts_with_ci(head, b"<!doctype html") || starts_with_ci(head, b"<html")
}

fn starts_with_ci(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.len() >= needle.len() && haystack[..needle.len()].eq_ignore_ascii_case(needle)
}

fn find_ci(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack
        .windows(needle.len())
        .position(|w| w.eq_ignore_ascii_case(needle))
}

/// Cuts `text` at `max` characters, saying at the end what is missing. `cut_bytes` is the
/// download size when the download itself was cut.
fn cap_text(mut text: String, max: usize, cut_bytes: Option<usize>) -> (String, bool) {
    let beyond = match cut_bytes {
        Some(bytes) => format!("; the download stopped at {bytes} bytes, the page is longer"),
        None => String::new(),
    };
    match text.char_indices().nth(max) {
        Some((at, _)) => {
            let more = text[at..].chars().count();
            text.truncate(at);
            text.push_str(&format!("\n\n[truncated: {more} more characters{beyond}]"));
            (text, true)
        }
        None if cut_bytes.is_some() => {
            text.push_str(&format!("\n\n[truncated{beyond}]"));
            (text, true)
        }
        None => (text, false),
    }
}

/// The title and the readable text of an HTML page; links are made absolute against `base`
/// (the page's URL, or its `<base href>`).
pub fn html_to_text(html: &[u8], base: Option<&Url>) -> (Option<String>, String) {
    let title = title_of(html);
    if nesting_depth(html) > MAX_NESTING {
        return (title, strip_tags(html));
    }
    // Tables without box drawing: columns padded with spaces read as well and cost less.
    let config = html2text::config::plain()
        .link_footnotes(true)
        .no_table_borders();
    let text = config
        .parse_html(html)
        .and_then(|dom| {
            if let Some(base) = base {
                absolutize_links(&dom, base.clone());
            }
            config.dom_to_render_tree(&dom)
        })
        .and_then(|tree| config.render_to_string(tree, TEXT_WIDTH));
    match text {
        Ok(text) => (title, tidy(&text)),
        Err(_) => (title, strip_tags(html)),
    }
}

/// Rewrites the links and image sources of `dom` as absolute URLs, so the model can fetch
/// them; a `<base href>` (in the head, before the links) changes the base.
fn absolutize_links(dom: &html2text::RcDom, mut base: Url) {
    let mut stack = vec![dom.document.clone()];
    while let Some(node) = stack.pop() {
        if let html2text::Element { name, attrs, .. } = &node.data {
            let element: &str = &name.local;
            let attr = match element {
                "a" | "area" | "base" => "href",
                "img" => "src",
                _ => "",
            };
            if !attr.is_empty() {
                for a in attrs.borrow_mut().iter_mut() {
                    let name: &str = &a.name.local;
                    if name != attr {
                        continue;
                    }
                    let Ok(absolute) = base.join(a.value.trim()) else {
                        continue;
                    };
                    if element == "base" {
                        base = absolute;
                    } else if matches!(absolute.scheme(), "http" | "https") {
                        a.value = absolute.as_str().into();
                    }
                }
            }
        }
        stack.extend(node.children.borrow().iter().rev().cloned());
    }
}

/// Trailing spaces off every line, no runs of more than one blank line.
fn tidy(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut blank = 0;
    for line in text.lines() {
        let line = line.trim_end();
        if line.is_empty() {
            blank += 1;
            if blank > 1 || out.is_empty() {
                continue;
            }
        } else {
            blank = 0;
        }
        out.push_str(line);
        out.push('\n');
    }
    out.truncate(out.trim_end().len());
    out
}

/// The text of the first `<title>` in the head, entities decoded, whitespace collapsed.
fn title_of(html: &[u8]) -> Option<String> {
    let head = &html[..find_ci(html, b"<body")
        .unwrap_or(html.len())
        .min(512 * 1024)];
    let open = find_ci(head, b"<title")?;
    let rest = &head[open + 6..];
    if !rest
        .first()
        .is_some_and(|b| *b == b'>' || b.is_ascii_whitespace())
    {
        return None;
    }
    let start = rest.iter().position(|b| *b == b'>')? + 1;
    let end = find_ci(&rest[start..], b"</title").map_or(rest.len(), |e| start + e);
    let raw = String::from_utf8_lossy(&rest[start..end.min(start + 4096)]);
    // Title text is not markup: keep `<` literal, let the parser decode the entities.
    let wrapped = format!("<p>{}</p>", raw.replace('<', "&lt;"));
    let decoded = html2text::config::plain_no_decorate()
        .string_from_read(wrapped.as_bytes(), TEXT_WIDTH)
        .unwrap_or_default();
    let title = decoded.split_whitespace().collect::<Vec<_>>().join(" ");
    (!title.is_empty()).then_some(title)
}

/// Elements without content or whose end tag is optional: they do not deepen the tree (or
/// the HTML parser closes them itself).
const FLAT: &[&str] = &[
    "area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track",
    "wbr", "param", "keygen", "p", "li", "dt", "dd", "tr", "td", "th", "thead", "tbody", "tfoot",
    "option", "optgroup", "rt", "rp", "colgroup", "caption",
];
/// Elements whose content is raw text, not markup.
const RAW: &[&str] = &[
    "script",
    "style",
    "textarea",
    "title",
    "xmp",
    "noscript",
    "iframe",
    "noembed",
    "noframes",
    "plaintext",
];

/// Tags in `html`: (name lowercased, closing, where the tag starts, where it ends). Comments
/// and doctypes come as `!`; the raw content of a script-like element is part of its start
/// tag.
fn tags(html: &[u8]) -> impl Iterator<Item = (String, bool, usize, usize)> + '_ {
    let mut i = 0;
    std::iter::from_fn(move || {
        loop {
            let open = i + html.get(i..)?.iter().position(|b| *b == b'<')?;
            let mut j = open + 1;
            if html[j..].starts_with(b"!--") {
                i = find_ci(&html[j..], b"-->").map_or(html.len(), |e| j + e + 3);
                return Some(("!".to_owned(), false, open, i));
            }
            if matches!(html.get(j), Some(b'!' | b'?')) {
                i = html[j..]
                    .iter()
                    .position(|b| *b == b'>')
                    .map_or(html.len(), |e| j + e + 1);
                return Some(("!".to_owned(), false, open, i));
            }
            let closing = html.get(j) == Some(&b'/');
            if closing {
                j += 1;
            }
            let len = html[j..]
                .iter()
                .take_while(|b| b.is_ascii_alphanumeric())
                .count();
            if len == 0 {
                i = j;
                continue;
            }
            let name = String::from_utf8_lossy(&html[j..j + len]).to_ascii_lowercase();
            let end = html[j..]
                .iter()
                .position(|b| *b == b'>')
                .map_or(html.len(), |e| j + e + 1);
            i = end;
            if !closing && RAW.contains(&name.as_str()) {
                // The content up to the end tag is part of this item.
                let close = format!("</{name}");
                i = find_ci(&html[end..], close.as_bytes()).map_or(html.len(), |e| end + e);
            }
            return Some((name, closing, open, i));
        }
    })
}

/// How deep the element tree of `html` goes, roughly (an upper bound for sloppy HTML).
fn nesting_depth(html: &[u8]) -> usize {
    let (mut depth, mut max) = (0usize, 0usize);
    for (name, closing, open, end) in tags(html) {
        if name == "!" || FLAT.contains(&name.as_str()) || RAW.contains(&name.as_str()) {
            continue;
        }
        let self_closing = end >= 2 && html[open..end].ends_with(b"/>");
        if closing {
            depth = depth.saturating_sub(1);
        } else if !self_closing {
            depth += 1;
            max = max.max(depth);
        }
    }
    max
}

/// Text between the tags, for pages too deep for the parser: script-like content dropped,
/// a few entities decoded, whitespace collapsed.
fn strip_tags(html: &[u8]) -> String {
    let mut text = String::new();
    let mut last = 0;
    for (_, _, open, end) in tags(html) {
        if open >= last {
            text.push_str(&String::from_utf8_lossy(&html[last..open]));
            text.push(' ');
        }
        last = last.max(end);
    }
    if last < html.len() {
        text.push_str(&String::from_utf8_lossy(&html[last..]));
    }
    let text = text
        .replace("&nbsp;", " ")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&amp;", "&");
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    const PAGE: &str = r#"<!doctype html><html><head><title> Example &amp; Co
    </title><style>body{color:red}</style><script>var x = "<p>no</p>";</script></head>
    <body><nav><a href="/">Home</a></nav>
    <h1>Main heading</h1><p>Some <b>bold</b> text with a <a href="https://example.com/x">link</a>.</p>
    <ul><li>one</li><li>two <code>code</code></li></ul>
    <table><tr><th>a</th><th>b</th></tr><tr><td>1</td><td>2</td></tr></table>
    <pre>fn main() {
    println!("hi");
}</pre><!-- a comment --></body></html>"#;

    #[test]
    fn html_becomes_readable_text() {
        let (title, text) = html_to_text(PAGE.as_bytes(), None);
        assert_eq!(title.as_deref(), Some("Example & Co"));
        for expected in [
            "# Main heading",
            "Some **bold** text with a [link][2].",
            "* one",
            "* two `code`",
            "a b\n1 2",
            "    println!(\"hi\");",
            "[2]: https://example.com/x",
        ] {
            assert!(
                text.contains(expected),
                "{expected:?} missing from:\n{text}"
            );
        }
        for absent in ["color:red", "var x", "a comment", "Example & Co"] {
            assert!(!text.contains(absent), "{absent:?} in:\n{text}");
        }
        assert!(!text.contains("\n\n\n"));
    }

    #[test]
    fn links_are_made_absolute() {
        let base = Url::parse("https://example.com/docs/page.html").unwrap();
        let html =
            br#"<a href="/">root</a> <a href="next.html">next</a> <img src="i.png" alt="pic">
            <a href="https://other.example/x">other</a> <a href="mailto:a@b.c">mail</a>"#;
        let (_, text) = html_to_text(html, Some(&base));
        for expected in [
            "[1]: https://example.com/",
            "[2]: https://example.com/docs/next.html",
            "[3]: https://other.example/x",
            "[4]: mailto:a@b.c",
        ] {
            assert!(
                text.contains(expected),
                "{expected:?} missing from:\n{text}"
            );
        }
        let html = br#"<head><base href="https://cdn.example/v2/"></head><a href="a">a</a>"#;
        let (_, text) = html_to_text(html, Some(&base));
        assert!(text.contains("[1]: https://cdn.example/v2/a"), "{text}");
    }

    #[test]
    fn titles_are_found_and_decoded() {
        assert_eq!(
            title_of(b"<title>A &lt;b&gt; &#x41;</title>").as_deref(),
            Some("A <b> A")
        );
        assert_eq!(
            title_of(b"<TITLE lang=en>x < y</TITLE>").as_deref(),
            Some("x < y")
        );
        assert_eq!(title_of(b"<titles>no</titles>"), None);
        assert_eq!(title_of(b"<title>  </title>"), None);
        assert_eq!(title_of(b"<body><svg><title>icon</title></svg>"), None);
    }

    #[test]
    fn deep_pages_are_stripped_instead_of_parsed() {
        let deep = format!(
            "{}deep text{}",
            "<div>".repeat(20_000),
            "</div>".repeat(20_000)
        );
        assert_eq!(nesting_depth(deep.as_bytes()), 20_000);
        let started = std::time::Instant::now();
        let (_, text) = html_to_text(deep.as_bytes(), None);
        assert_eq!(text, "deep text");
        assert!(started.elapsed() < Duration::from_secs(5));
        // Flat and raw elements do not count.
        let flat = "<p>a<p>b<br><img src=x><li>c<script><div><div></script><div/>".repeat(1000);
        assert_eq!(nesting_depth(flat.as_bytes()), 0);
        assert_eq!(nesting_depth(PAGE.as_bytes()), 4);
        assert_eq!(
            strip_tags(b"<p>a &amp; b</p><script>x</script><!-- c -->d"),
            "a & b d"
        );
    }

    #[test]
    fn long_text_is_cut_with_a_marker() {
        let (text, cut) = cap_text("é".repeat(12), 10, None);
        assert!(cut);
        assert_eq!(
            text,
            format!("{}\n\n[truncated: 2 more characters]", "é".repeat(10))
        );
        assert_eq!(cap_text("short".into(), 10, None), ("short".into(), false));
        let (text, cut) = cap_text("short".into(), 10, Some(5));
        assert!(cut);
        assert!(text.ends_with("[truncated; the download stopped at 5 bytes, the page is longer]"));
    }

    #[test]
    fn untyped_bodies_are_sniffed() {
        assert!(looks_like_html(b"  \n<!DOCTYPE html><html>"));
        assert!(looks_like_html(b"<HTML><body>"));
        assert!(!looks_like_html(b"{\"a\": 1}"));
    }

    /// A loopback server answering each connection from `pages` by path; stops after `n`
    /// connections.
    fn serve(n: usize, pages: &'static [(&'static str, &'static str, &'static [u8])]) -> u16 {
        use std::io::{Read, Write};
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        std::thread::spawn(move || {
            for socket in listener.incoming().take(n) {
                let Ok(mut socket) = socket else { continue };
                let mut head = Vec::new();
                let mut buf = [0u8; 1024];
                while !head.windows(4).any(|w| w == b"\r\n\r\n") {
                    match socket.read(&mut buf) {
                        Ok(0) | Err(_) => break,
                        Ok(k) => head.extend_from_slice(&buf[..k]),
                    }
                }
                let head = String::from_utf8_lossy(&head);
                let path = head.split(' ').nth(1).unwrap_or("/");
                let (status, ct, body) = pages.iter().find(|(p, _, _)| *p == path).map_or(
                    ("404 Not Found", "text/plain", &b"missing"[..]),
                    |(_, ct, body)| ("200 OK", *ct, *body),
                );
                let _ = write!(
                    socket,
                    "HTTP/1.1 {status}\r\ncontent-type: {ct}\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
                    body.len()
                );
                let _ = socket.write_all(body);
            }
        });
        port
    }

    async fn call(client: Option<HttpClient>, url: &str) -> Result<serde_json::Value, ToolError> {
        let registry = Registry::linked().unwrap();
        let mut ctx = ToolContext::builder();
        if let Some(client) = client {
            ctx = ctx.extension(client);
        }
        let out = tool_core::Executor::new(registry)
            .call("fetch_url", serde_json::json!({ "url": url }), &ctx.build())
            .await?;
        Ok(out.into_data().expect("structured output"))
    }

    #[tokio::test]
    async fn fetch_url_reads_a_loopback_page_when_allowed() {
        static PAGES: &[(&str, &str, &[u8])] = &[
            ("/page", "text/html; charset=utf-8", PAGE.as_bytes()),
            ("/data.json", "application/json", br#"{"a": 1}"#),
            ("/logo.png", "image/png", b"\x89PNG\r\n\x1a\n\0"),
        ];
        let port = serve(4, PAGES);
        let client =
            HttpClient::new(tool_http::HttpConfig::default().allow_host("127.0.0.1")).unwrap();
        let base = format!("http://127.0.0.1:{port}");

        let page = call(Some(client.clone()), &format!("{base}/page"))
            .await
            .unwrap();
        assert_eq!(page["url"], format!("{base}/page"));
        assert_eq!(page["status"], 200);
        assert_eq!(page["content_type"], "text/html");
        assert_eq!(page["title"], "Example & Co");
        assert_eq!(page["truncated"], false);
        assert!(page["text"].as_str().unwrap().contains("# Main heading"));

        let data = call(Some(client.clone()), &format!("{base}/data.json"))
            .await
            .unwrap();
        assert_eq!(data["text"], r#"{"a": 1}"#);
        assert_eq!(data["title"], serde_json::Value::Null);

        let err = call(Some(client.clone()), &format!("{base}/logo.png"))
            .await
            .unwrap_err();
        assert_eq!(err.kind(), ErrorKind::Failed);
        assert!(err.message().contains("sent image/png, not text"), "{err}");

        let err = call(Some(client), &format!("{base}/gone"))
            .await
            .unwrap_err();
        assert_eq!(err.kind(), ErrorKind::NotFound);
    }

    #[tokio::test]
    async fn fetch_url_refuses_local_addresses_by_default() {
        let client = HttpClient::new(tool_http::HttpConfig::default()).unwrap();
        for url in [
            "http://169.254.169.254/latest/meta-data/",
            "http://127.0.0.1:9/",
            "http://[::1]/",
            "http://localhost/",
        ] {
            let err = call(Some(client.clone()), url).await.unwrap_err();
            assert_eq!(err.kind(), ErrorKind::PermissionDenied, "{url}: {err}");
            assert_eq!(err.path(), Some("url"));
        }
        let err = call(Some(client), "not a url").await.unwrap_err();
        assert_eq!(
            (err.kind(), err.path()),
            (ErrorKind::InvalidInput, Some("url"))
        );
    }
}
