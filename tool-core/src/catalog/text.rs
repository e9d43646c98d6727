//! Text analysis for the catalog: words out of names and prose, stems, stopwords, and the
//! synonyms and abbreviations people use for tool capabilities.

use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::OnceLock;

use rust_stemmers::{Algorithm, Stemmer};

/// Splits `text` into lowercase words: on anything that is not a letter or a digit, and inside
/// identifiers on case changes (`getUserById` -> get, user, by, id; `HTTPServer` -> http,
/// server). Letters and digits stay together (`k8s`, `v2`).
///
/// ```
/// use tool_core::catalog::words;
/// assert_eq!(words("github__createPullRequest"), ["github", "create", "pull", "request"]);
/// assert_eq!(words("HTTPServer k8s-pods"), ["http", "server", "k8s", "pods"]);
/// ```
pub fn words(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for run in text.split(|c: char| !c.is_alphanumeric()) {
        split_case(run, &mut out);
    }
    out
}

fn split_case(run: &str, out: &mut Vec<String>) {
    let chars: Vec<char> = run.chars().collect();
    let mut start = 0;
    for i in 1..chars.len() {
        let (prev, cur) = (chars[i - 1], chars[i]);
        let next_lower = chars.get(i + 1).is_some_and(|c| c.is_lowercase());
        // aB, or the B of ABc (an acronym followed by a word).
        let boundary = (prev.is_lowercase() && cur.is_uppercase())
            || (prev.is_uppercase() && cur.is_uppercase() && next_lower);
        if boundary {
            push_word(&chars[start..i], out);
            start = i;
        }
    }
    push_word(&chars[start..], out);
}

fn push_word(chars: &[char], out: &mut Vec<String>) {
    if !chars.is_empty() {
        // Lowercasing can add combining marks (`İ` -> `i̇`): keep letters and digits only.
        let word: String = chars
            .iter()
            .flat_map(|c| c.to_lowercase())
            .filter(|c| c.is_alphanumeric())
            .collect();
        if !word.is_empty() {
            out.push(word);
        }
    }
}

/// Words that carry no meaning for finding a tool.
const STOPWORDS: &[&str] = &[
    "a", "about", "all", "an", "and", "any", "are", "as", "at", "be", "by", "can", "could", "do",
    "does", "for", "from", "give", "has", "have", "how", "i", "if", "in", "into", "is", "it",
    "its", "let", "like", "me", "my", "of", "on", "or", "our", "please", "should", "so", "some",
    "that", "the", "their", "them", "then", "there", "these", "this", "those", "to", "up", "us",
    "use", "used", "using", "want", "was", "we", "what", "when", "where", "which", "who", "will",
    "with", "would", "you", "your",
];

/// Whether `word` (lowercase) is a stopword.
pub fn is_stopword(word: &str) -> bool {
    STOPWORDS.binary_search(&word).is_ok()
}

/// The English (Snowball) stem of a lowercase word.
pub fn stem(word: &str) -> Cow<'_, str> {
    static STEMMER: OnceLock<Stemmer> = OnceLock::new();
    STEMMER
        .get_or_init(|| Stemmer::create(Algorithm::English))
        .stem(word)
}

/// The terms of `text`: its words without stopwords, stemmed.
pub fn terms(text: &str) -> Vec<String> {
    words(text)
        .into_iter()
        .filter(|w| !is_stopword(w))
        .map(|w| stem(&w).into_owned())
        .collect()
}

/// Abbreviations people type for words tools spell out, each with its expansion.
const ABBREVIATIONS: &[(&str, &str)] = &[
    ("auth", "authentication"),
    ("cfg", "configuration"),
    ("ci", "workflow"),
    ("config", "configuration"),
    ("db", "database"),
    ("dir", "directory"),
    ("dm", "direct message"),
    ("doc", "document"),
    ("docs", "documentation"),
    ("env", "environment"),
    ("img", "image"),
    ("info", "information"),
    ("k8s", "kubernetes"),
    ("kube", "kubernetes"),
    ("mr", "merge request"),
    ("msg", "message"),
    ("org", "organization"),
    ("pic", "image"),
    ("pr", "pull request"),
    ("prs", "pull requests"),
    ("repo", "repository"),
    ("repos", "repositories"),
    ("tz", "timezone"),
    ("url", "link"),
    ("vm", "virtual machine"),
];

/// Words that name the same capability in tool descriptions and in requests. Each group is
/// one meaning; a query word finds tools that use another word of its group.
const SYNONYMS: &[&[&str]] = &[
    &[
        "create", "make", "new", "add", "generate", "compose", "draft",
    ],
    &[
        "delete", "remove", "erase", "destroy", "trash", "discard", "drop",
    ],
    &["list", "enumerate", "browse"],
    &[
        "get", "fetch", "retrieve", "read", "obtain", "view", "show", "look", "see", "check",
    ],
    &[
        "search", "find", "query", "locate", "lookup", "grep", "seek",
    ],
    &[
        "update", "edit", "modify", "change", "alter", "patch", "set",
    ],
    &["send", "post", "deliver", "dispatch", "notify"],
    &["run", "execute", "invoke", "trigger", "launch"],
    &["stop", "cancel", "halt", "kill", "terminate", "abort"],
    &["close", "resolve", "finish"],
    &["repository", "repo", "codebase"],
    &["issue", "ticket", "bug"],
    &["message", "chat", "dm"],
    &["directory", "folder"],
    &["document", "doc", "page", "note"],
    &["database", "db"],
    &["kubernetes", "k8s", "cluster"],
    &["image", "picture", "photo", "screenshot"],
    &["email", "mail", "inbox"],
    &["event", "meeting", "appointment"],
    &["customer", "client"],
    &["payment", "charge", "pay"],
    &["refund", "reimburse", "repay"],
    &["link", "url", "website", "webpage", "site"],
    &["user", "member", "person", "people", "account"],
    &["comment", "reply", "remark"],
    &["deploy", "release", "ship", "publish"],
    &["log", "logs"],
    &["error", "exception", "crash", "failure"],
    &["metric", "stats", "statistics"],
    &["summary", "summarize", "summarise", "overview"],
    &["time", "clock"],
    &["weather", "forecast"],
    &["workflow", "pipeline", "action"],
    &["secret", "credential", "token"],
    &["table", "schema"],
    &["file", "files"],
];

/// A query term's expansions: stems of its synonyms and abbreviation expansions, excluding
/// the term itself.
pub fn expansions(term: &str) -> &'static [String] {
    static TABLE: OnceLock<HashMap<String, Vec<String>>> = OnceLock::new();
    let table = TABLE.get_or_init(|| {
        let mut table: HashMap<String, Vec<String>> = HashMap::new();
        let mut add = |from: &str, to: &[String]| {
            let entry = table.entry(stem(from).into_owned()).or_default();
            for t in to {
                if *t != stem(from) && !entry.contains(t) {
                    entry.push(t.clone());
                }
            }
        };
        for group in SYNONYMS {
            let stems: Vec<String> = group.iter().map(|w| stem(w).into_owned()).collect();
            for word in *group {
                add(word, &stems);
            }
        }
        for (short, long) in ABBREVIATIONS {
            add(short, &terms(long));
        }
        table
    });
    table.get(term).map_or(&[], Vec::as_slice)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stopwords_are_sorted_for_binary_search() {
        assert!(STOPWORDS.windows(2).all(|w| w[0] < w[1]));
    }

    #[test]
    fn words_split_identifiers_and_prose() {
        assert_eq!(words("getUserByID"), ["get", "user", "by", "id"]);
        assert_eq!(words("list_k8s-pods v2"), ["list", "k8s", "pods", "v2"]);
        assert_eq!(words("Übersicht: ÄÖ"), ["übersicht", "äö"]);
        assert_eq!(words("İstanbul"), ["istanbul"]);
        assert!(words("  --__ ").is_empty());
    }

    #[test]
    fn terms_drop_stopwords_and_stem() {
        assert_eq!(terms("Lists all the open issues"), ["list", "open", "issu"]);
    }

    #[test]
    fn expansions_cover_synonyms_and_abbreviations() {
        let pr = expansions(&stem("pr"));
        assert!(pr.contains(&"pull".to_owned()) && pr.contains(&"request".to_owned()));
        assert!(expansions(&stem("remove")).contains(&stem("delete").into_owned()));
        assert!(expansions(&stem("zebra")).is_empty());
    }

    proptest::proptest! {
        #[test]
        fn words_never_panic_and_are_lowercase_alphanumeric(text in ".{0,200}") {
            for w in words(&text) {
                proptest::prop_assert!(!w.is_empty());
                proptest::prop_assert!(w.chars().all(char::is_alphanumeric));
            }
        }
    }
}
