//! Text analysis for the catalog: words out of names and prose, stems, stopwords, and the
//! synonyms and abbreviations people use for tool capabilities.
//!
//! This module holds the algorithms. The word lists they read (stopwords, British `-ise`
//! roots, abbreviations, synonyms, file extensions and the words of token shapes) are data:
//! text files in `tool-catalog/src/data/`, compiled in and parsed once by
//! [`lexicon`](super::lexicon), whose docs give their format and how to change them. The tests
//! below check that no word in them is listed twice or can never be matched.

use std::borrow::Cow;
use std::sync::OnceLock;

use rustc_hash::FxHashMap as HashMap;

use rust_stemmers::{Algorithm, Stemmer};

use super::lexicon::{Shape, lexicon};

/// Splits `text` into lowercase words: on anything that is not a letter or a digit, and inside
/// identifiers on case changes (`getUserById` -> get, user, by, id; `HTTPServer` -> http,
/// server). Letters and digits stay together (`k8s`, `v2`). An acronym's plural is the acronym
/// (`PRs` -> pr, `listURLs` -> list, url): its `s` says nothing about what a tool does, and
/// split as a case change it would read as two words (`UR`, `Ls`).
///
/// ```
/// use tool_catalog::words;
/// assert_eq!(words("github__createPullRequest"), ["github", "create", "pull", "request"]);
/// assert_eq!(words("HTTPServer k8s-pods"), ["http", "server", "k8s", "pods"]);
/// assert_eq!(words("open PRs, their URLs"), ["open", "pr", "their", "url"]);
/// ```
pub fn words(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for_each_word(text, |w| out.push(w.to_owned()));
    out
}

/// Calls `f` with each word of `text`, as [`words`] splits them, without allocating per word.
pub fn for_each_word(text: &str, mut f: impl FnMut(&str)) {
    if text.is_ascii() {
        return ascii_words(text, &mut f);
    }
    let mut lower = String::new();
    for run in text.split(|c: char| !c.is_alphanumeric()) {
        let mut start = 0;
        let mut prev: Option<char> = None;
        for (i, cur) in run.char_indices() {
            if let Some(prev) = prev {
                let mut after = run[i + cur.len_utf8()..].chars();
                let word_follows = starts_word(after.next(), after.next());
                // aB, or the B of ABc (an acronym followed by a word).
                let boundary = (prev.is_lowercase() && cur.is_uppercase())
                    || (prev.is_uppercase() && cur.is_uppercase() && word_follows);
                if boundary {
                    emit(&run[start..i], &mut lower, &mut f);
                    start = i;
                }
            }
            prev = Some(cur);
        }
        emit(&run[start..], &mut lower, &mut f);
    }
}

/// Whether a word starts at the character `next` (followed by `then`) after a capital: a
/// lowercase letter does, except the `s` that ends an acronym's plural (`URLs`).
fn starts_word(next: Option<char>, then: Option<char>) -> bool {
    match next {
        Some('s') => then.is_some_and(char::is_lowercase),
        next => next.is_some_and(char::is_lowercase),
    }
}

/// An acronym's plural (`PRs`, `URLs`) as the acronym; any other word as it is.
fn singular(word: &str) -> &str {
    let mut last = word.chars().rev();
    let plural = last.next() == Some('s')
        && last.next().is_some_and(char::is_uppercase)
        && last.next().is_some_and(char::is_uppercase);
    match plural {
        true => &word[..word.len() - 1],
        false => word,
    }
}

const SEPARATOR: u8 = 0;
const CAPITAL: u8 = 2;

/// Each byte's part in a word: a separator, a lowercase letter or digit (1), or a capital. One
/// load per byte instead of the range tests, on the loop every indexed text goes through.
static ASCII_CLASS: [u8; 256] = {
    let mut table = [SEPARATOR; 256];
    let mut b = 0;
    while b < 256 {
        let byte = b as u8;
        if byte.is_ascii_uppercase() {
            table[b] = CAPITAL;
        } else if byte.is_ascii_alphanumeric() {
            table[b] = 1;
        }
        b += 1;
    }
    table
};

/// [`for_each_word`] for ASCII text (almost every tool's): words are slices of `text`, copied
/// only when they hold capitals to lowercase.
fn ascii_words(text: &str, f: &mut impl FnMut(&str)) {
    // Inlined at each of its three uses: one call per word, to `f`.
    #[inline(always)]
    fn emit(word: &str, capitals: bool, f: &mut impl FnMut(&str)) {
        if word.is_empty() {
            return;
        }
        if capitals {
            return lowercased(singular(word), f);
        }
        f(word)
    }
    let mut emit = |word: &str, capitals: bool| emit(word, capitals, f);
    let bytes = text.as_bytes();
    let mut start = 0;
    let mut capitals = false;
    let mut i = 0;
    while i < bytes.len() {
        // Lowercase letters and digits (most bytes) start or end nothing: step over them eight
        // at a time.
        if let Some(eight) = bytes.get(i..i + 8) {
            let run = lowercase_run(eight.try_into().unwrap_or([0; 8]));
            i += run;
            if run == 8 {
                continue;
            }
        }
        let Some(&b) = bytes.get(i) else { break };
        let class = ASCII_CLASS[usize::from(b)];
        if class == SEPARATOR {
            emit(&text[start..i], capitals);
            start = i + 1;
            capitals = false;
        } else if class == CAPITAL {
            if i > start {
                let prev = bytes[i - 1];
                let at = |j: usize| bytes.get(j).map(|&b| char::from(b));
                // aB, or the B of ABc (an acronym followed by a word).
                if prev.is_ascii_lowercase()
                    || (prev.is_ascii_uppercase() && starts_word(at(i + 1), at(i + 2)))
                {
                    emit(&text[start..i], capitals);
                    start = i;
                }
            }
            capitals = true;
        }
        i += 1;
    }
    emit(&text[start..], capitals);
}

/// Calls `f` with `word` (ASCII letters and digits) lowercased.
fn lowercased(word: &str, f: &mut impl FnMut(&str)) {
    let mut lower = [0u8; 64];
    let mut owned;
    let out = match lower.get_mut(..word.len()) {
        Some(out) => out,
        None => {
            owned = vec![0u8; word.len()];
            &mut owned[..]
        }
    };
    for (o, b) in out.iter_mut().zip(word.bytes()) {
        *o = b.to_ascii_lowercase();
    }
    // ASCII letters and digits, lowercased: still UTF-8.
    f(std::str::from_utf8(out).unwrap_or_default());
}

/// How many of the eight ASCII bytes, from the first, are lowercase letters or digits: each
/// byte's range is tested with two additions, all eight at once (no byte is over 0x7F, so no
/// sum carries into the next byte).
fn lowercase_run(eight: [u8; 8]) -> usize {
    const ONES: u64 = u64::from_le_bytes([1; 8]);
    const HIGH: u64 = ONES * 0x80;
    let bytes = u64::from_le_bytes(eight);
    // The high bit of each byte: set when the byte is within lo..=hi.
    let within = |lo: u8, hi: u8| {
        let at_least = bytes + ONES * u64::from(0x80 - lo);
        let above = bytes + ONES * u64::from(0x7F - hi);
        at_least & !above & HIGH
    };
    let other = !(within(b'a', b'z') | within(b'0', b'9')) & HIGH;
    (other.trailing_zeros() / 8) as usize
}

fn emit(word: &str, lower: &mut String, f: &mut impl FnMut(&str)) {
    let word = singular(word);
    if word.is_empty() {
        return;
    }
    if word
        .bytes()
        .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
    {
        return f(word);
    }
    lower.clear();
    // Lowercasing can add combining marks (`İ` -> `i̇`): keep letters and digits only.
    lower.extend(
        word.chars()
            .flat_map(char::to_lowercase)
            .filter(|c| c.is_alphanumeric()),
    );
    if !lower.is_empty() {
        f(lower);
    }
}

/// Whether `word` (lowercase) carries no meaning for finding a tool: whether it is on the
/// list in `data/stopwords.txt`. This runs for every word of a query, and for every word an
/// index meets for the first time.
#[inline]
pub fn is_stopword(word: &str) -> bool {
    lexicon().is_stopword(word)
}

/// The English (Snowball) stem of a lowercase word, British `-ise` spellings taken as `-ize`
/// (`finalise` and `finalize` share a stem).
pub fn stem(word: &str) -> Cow<'_, str> {
    // Snowball leaves these as they are, and running it costs thousands of instructions a
    // word: a sixth of building an index.
    if word.len() <= 2 || !may_change(word) {
        return Cow::Borrowed(word);
    }
    static STEMMER: OnceLock<Stemmer> = OnceLock::new();
    let stemmer = STEMMER.get_or_init(|| Stemmer::create(Algorithm::English));
    match american(word) {
        Some(word) => Cow::Owned(stemmer.stem(&word).into_owned()),
        None => stemmer.stem(word),
    }
}

/// Whether the stemmer may change `word`. Every step of Snowball's English stemmer (and
/// [`american`]) matches a suffix, and every such suffix ends in one of these letters; a word
/// ending in any other byte (`data`, `info`, `check`, `path`, a number, a version) is its own
/// stem. Step 1b's undoubling (`-bb`, `-ff`, `-pp`, `-iz`) runs only after `-ed` or `-ing` is
/// gone.
fn may_change(word: &str) -> bool {
    matches!(
        word.as_bytes().last(),
        Some(b'c' | b'd' | b'e' | b'g' | b'i' | b'l' | b'm' | b'n' | b'r' | b's' | b't' | b'y')
    )
}

/// The American spelling of a British `-ise`/`-yse` word, when it is one: `analyse` and its
/// forms, and the forms of the `-ise` verbs whose roots `data/ise_roots.txt` lists
/// (`organised`, `organising`, `organisations`, `optimiser`, `customisable`). A list, not a
/// rule: `advertise`, `precise` and `improvise` are not `-ize` words.
fn american(word: &str) -> Option<String> {
    if let Some(rest) = word.strip_prefix("analys") {
        return Some(format!("analyz{rest}"));
    }
    let root = lexicon().ise_roots.iter().find(|r| word.starts_with(**r))?;
    let rest = &word[root.len()..];
    let tail = rest.strip_prefix("is")?;
    // `-ise`, `-ised`, `-ising`, `-isation(s)`, `-iser(s)`, `-isable`.
    let known = [
        "e", "ed", "es", "ing", "ation", "ations", "er", "ers", "able",
    ];
    known.contains(&tail).then(|| format!("{root}iz{tail}"))
}

/// The terms of `text`: its words without stopwords, stemmed.
pub fn terms(text: &str) -> Vec<String> {
    words(text)
        .into_iter()
        .filter(|w| !is_stopword(w))
        .map(|w| stem(&w).into_owned())
        .collect()
}

/// What the shapes of a query's tokens say it is about, in words tools use: a URL is about a
/// page, a path or a file name about files, `owner/name` about a repository, `#name` about a
/// channel, `@name` about a user, an address about email, `$20` about money, a hex hash about
/// a commit. Each kind once, in the order first seen; each kind's words are in
/// `data/shapes.txt`, and the file extensions that make a file name in `data/extensions.txt`.
pub fn shape_words(query: &str) -> Vec<&'static [&'static str]> {
    let lexicon = lexicon();
    let mut found: Vec<Shape> = Vec::new();
    for token in query.split_whitespace() {
        let token = token.trim_matches(|c: char| "\"'`()[]{},;:?!".contains(c));
        let token = token.strip_suffix('.').unwrap_or(token);
        // A name: a letter, then letters, digits and `_-.` (`#1` is a number, not a channel).
        let word = |s: &str| {
            s.starts_with(|c: char| c.is_ascii_alphabetic())
                && s.bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b"_-.".contains(&b))
        };
        // `notes.txt`, `src/main.rs`, and `.csv` or `*.csv` for files of a kind.
        let extension = token.rsplit_once('.').is_some_and(|(_, ext)| {
            (lexicon.extensions.iter()).any(|e| e.eq_ignore_ascii_case(ext))
        });
        // An abbreviated or full commit hash: hex digits, with at least one letter and digit.
        let hash = (6..=40).contains(&token.len())
            && token
                .bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
            && token.bytes().any(|b| b.is_ascii_digit())
            && token.bytes().any(|b| b.is_ascii_alphabetic());
        let shape = if token.starts_with("http://")
            || token.starts_with("https://")
            || token.starts_with("www.")
        {
            Shape::Url
        } else if token.starts_with('/')
            || token.starts_with("~/")
            || token.starts_with("./")
            || token.starts_with("../")
            || extension
        {
            Shape::File
        } else if token.len() > 1 && token.starts_with('#') && word(&token[1..]) {
            Shape::Channel
        } else if token.len() > 1 && token.starts_with('@') && word(&token[1..]) {
            Shape::User
        } else if token
            .split_once('@')
            .is_some_and(|(user, host)| word(user) && host.contains('.'))
        {
            Shape::Email
        } else if token.starts_with('$') && token[1..].starts_with(|c: char| c.is_ascii_digit()) {
            Shape::Amount
        } else if hash {
            Shape::Commit
        } else if let Some((owner, name)) = token.split_once('/')
            && owner.len() > 1
            && name.len() > 1
            && word(owner)
            && word(name)
            && !is_stopword(owner)
            && !is_stopword(name)
        {
            Shape::Repository
        } else {
            continue;
        };
        if !found.contains(&shape) {
            found.push(shape);
        }
    }
    let words = found.into_iter().map(|shape| lexicon.shape_words(shape));
    words.collect()
}

/// A query term's expansions: stems of its synonyms (`data/synonyms.txt`) and of its
/// abbreviation's expansion (`data/abbreviations.txt`), excluding the term itself.
pub fn expansions(term: &str) -> &'static [String] {
    static TABLE: OnceLock<HashMap<String, Vec<String>>> = OnceLock::new();
    let table = TABLE.get_or_init(|| {
        let mut table: HashMap<String, Vec<String>> = HashMap::default();
        let mut add = |from: &str, to: &[String]| {
            let entry = table.entry(stem(from).into_owned()).or_default();
            for t in to {
                if *t != stem(from) && !entry.contains(t) {
                    entry.push(t.clone());
                }
            }
        };
        let lexicon = lexicon();
        for group in &lexicon.synonyms {
            let stems: Vec<String> = group.iter().map(|w| stem(w).into_owned()).collect();
            for word in group {
                add(word, &stems);
            }
        }
        for (short, long) in &lexicon.abbreviations {
            // Each a word as `words` splits it: its terms are the stems of those that are not
            // stopwords.
            let long = long.iter().filter(|w| !is_stopword(w));
            let long: Vec<String> = long.map(|w| stem(w).into_owned()).collect();
            add(short, &long);
        }
        table
    });
    table.get(term).map_or(&[], Vec::as_slice)
}

#[cfg(test)]
mod tests {
    use super::super::lexicon::{self, DataFile, Line};
    use super::*;

    #[test]
    fn stopwords_are_function_words_only() {
        assert!(is_stopword("the") && is_stopword("your"));
        assert!(!is_stopword("get") && !is_stopword("list") && !is_stopword("open"));
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
    fn every_word_of_a_real_catalog_stems_as_the_stemmer_stems_it() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../tests/data/catalog/tools.json"
        );
        let text = std::fs::read_to_string(path).expect("the evaluation catalog");
        let snowball = Stemmer::create(Algorithm::English);
        let mut skipped = 0;
        for word in words(&text).into_iter().filter(|w| w.len() > 2) {
            let full = match american(&word) {
                Some(american) => snowball.stem(&american).into_owned(),
                None => snowball.stem(&word).into_owned(),
            };
            skipped += usize::from(!may_change(&word));
            assert_eq!(stem(&word), full, "{word}");
        }
        // The shortcut is taken, on words like `data`, `path` and `check`.
        assert!(skipped > 1_000, "{skipped}");
    }

    #[test]
    fn an_acronyms_plural_is_the_acronym() {
        for text in ["getURLs IDs, PRs2", "getURLs IDs, PRs2 café"] {
            // The second is not ASCII: the general path splits it.
            let mut expected = vec!["get", "url", "id", "prs2"];
            if text.ends_with("café") {
                expected.push("café");
            }
            assert_eq!(words(text), expected, "{text}");
        }
        // Not plurals: a word after the acronym, a capitalised word, a lowercase plural.
        assert_eq!(words("HTTPSserver"), ["http", "sserver"]);
        assert_eq!(words("Save As PDFs"), ["save", "as", "pdf"]);
        assert_eq!(words("URLsFor apis"), ["url", "for", "apis"]);
        assert_eq!(words("k8s ÅÄs"), ["k8s", "åä"]);
    }

    #[test]
    fn british_spellings_share_the_american_stem() {
        assert_eq!(stem("finalise"), stem("finalize"));
        assert_eq!(stem("organisation"), stem("organization"));
        assert_eq!(stem("summarising"), stem("summarizing"));
        assert_eq!(stem("organisations"), stem("organizations"));
        assert_eq!(stem("optimiser"), stem("optimizer"));
        assert_eq!(stem("customisable"), stem("customizable"));
        assert_eq!(stem("analyse"), stem("analyze"));
        // Not -ize words: left alone.
        for word in [
            "promise",
            "rise",
            "advertise",
            "advertisement",
            "precise",
            "improvise",
            "paradise",
        ] {
            assert_eq!(american(word), None, "{word}");
        }
    }

    #[test]
    fn token_shapes_name_what_a_query_is_about() {
        let kinds = |q: &str| -> Vec<&str> { shape_words(q).iter().map(|w| w[0]).collect() };
        assert_eq!(kinds("open https://news.ycombinator.com now"), ["url"]);
        assert_eq!(kinds("tail /var/log/app.log and ~/x"), ["file"]);
        assert_eq!(kinds("every *.csv or .png, and results.txt"), ["file"]);
        assert_eq!(kinds("star torvalds/linux"), ["repository"]);
        assert_eq!(kinds("tell #deploys, ping @maria"), ["channel", "user"]);
        assert_eq!(kinds("mail ana@example.com"), ["email"]);
        assert_eq!(kinds("refund $20 of it"), ["amount"]);
        assert_eq!(kinds("what did a1b2c3d change"), ["commit"]);
        // Prose, numbers, and words that only look close are none of these.
        assert!(kinds("make it faster and/or smaller, e.g. 2x by 12.5 percent, #1 @ 5").is_empty());
        assert!(kinds("the decade 1990 and a deadbeef cafe").is_empty());
    }

    /// What is wrong with the words of the data files, each as `path:line: reason`.
    #[derive(Default)]
    struct Problems(Vec<String>);

    impl Problems {
        fn add(&mut self, file: &DataFile, line: &Line, reason: String) {
            self.0
                .push(format!("{}:{}: {reason}", file.path, line.number));
        }

        /// The stems of the words a line stands for, after noting any that is a stopword
        /// (never indexed, never searched for) or has the stem of one before it (one term to
        /// the catalog: it adds nothing).
        fn stems(&mut self, file: &DataFile, line: &Line, words: &[&str]) -> Vec<String> {
            let mut stems: Vec<String> = Vec::new();
            for word in words {
                let stem = stem(word).into_owned();
                if is_stopword(word) {
                    self.add(
                        file,
                        line,
                        format!("`{word}` is a stopword: it never matches"),
                    );
                } else if let Some(i) = stems.iter().position(|s| *s == stem) {
                    let other = words[i];
                    let reason = format!("`{word}` has the stem `{stem}`, as `{other}` does");
                    self.add(file, line, reason);
                }
                stems.push(stem);
            }
            stems
        }
    }

    /// A data file's lines; one that does not parse fails the test, naming its file and line.
    fn lines(file: &DataFile) -> Vec<Line> {
        file.lines().unwrap_or_else(|error| panic!("{error}"))
    }

    /// A word listed twice, and a word the catalog could never match, in any data file.
    fn unreachable_or_repeated_words() -> Problems {
        let mut problems = Problems::default();
        for file in lexicon::FILES {
            for line in lines(&file) {
                for &word in line.key.iter().chain(&line.words) {
                    let split = words(word);
                    if split != [word] {
                        problems.add(&file, &line, format!("`{word}` is split as {split:?}"));
                    }
                }
            }
        }
        // Lists: each word once.
        for file in [lexicon::STOPWORDS, lexicon::ISE_ROOTS, lexicon::EXTENSIONS] {
            let mut seen: HashMap<&str, usize> = HashMap::default();
            for line in lines(&file) {
                for &word in &line.words {
                    if let Some(first) = seen.insert(word, line.number) {
                        problems.add(&file, &line, format!("`{word}` is on line {first} too"));
                    }
                }
            }
        }
        // A root is used only when no root before it starts the same word.
        let roots = lexicon::ISE_ROOTS;
        for line in lines(&roots) {
            for root in &line.words {
                let (british, american_form) = (format!("{root}ise"), format!("{root}ize"));
                if american(&british).as_deref() != Some(&american_form) {
                    let reason = format!("`{british}` is not read as `{american_form}`");
                    problems.add(&roots, &line, reason);
                }
            }
        }
        // Groups: each once (by their words' stems).
        let synonyms = lexicon::SYNONYMS;
        let mut groups: HashMap<Vec<String>, usize> = HashMap::default();
        for line in lines(&synonyms) {
            let mut stems = problems.stems(&synonyms, &line, &line.words);
            stems.sort();
            stems.dedup();
            if let Some(first) = groups.insert(stems, line.number) {
                problems.add(&synonyms, &line, format!("the same words as line {first}"));
            }
        }
        // Abbreviations: each once (by its stem), not a stopword, and not one of its words.
        let abbreviations = lexicon::ABBREVIATIONS;
        let mut shorts: HashMap<String, usize> = HashMap::default();
        for line in lines(&abbreviations) {
            let short = line.key.unwrap_or_default();
            let all: Vec<&str> = line.key.iter().chain(&line.words).copied().collect();
            problems.stems(&abbreviations, &line, &all);
            if let Some(first) = shorts.insert(stem(short).into_owned(), line.number) {
                let reason = format!("`{short}` (by its stem) is on line {first} too");
                problems.add(&abbreviations, &line, reason);
            }
        }
        for line in lines(&lexicon::SHAPES) {
            problems.stems(&lexicon::SHAPES, &line, &line.words);
        }
        problems
    }

    #[test]
    fn no_word_of_the_data_files_is_listed_twice_or_out_of_reach() {
        let Problems(problems) = unreachable_or_repeated_words();
        assert!(problems.is_empty(), "\n{}", problems.join("\n"));
    }

    #[test]
    fn expansions_cover_synonyms_and_abbreviations() {
        let pr = expansions(&stem("pr"));
        assert!(pr.contains(&"pull".to_owned()) && pr.contains(&"request".to_owned()));
        assert!(expansions(&stem("remove")).contains(&stem("delete").into_owned()));
        assert!(expansions(&stem("zebra")).is_empty());
    }

    /// The words of `text` as the general (char by char) path splits them, written out again
    /// the simplest way, to check the ASCII fast path against.
    fn general_words(text: &str) -> Vec<String> {
        let mut general = Vec::new();
        let mut lower = String::new();
        for run in text.split(|c: char| !c.is_alphanumeric()) {
            let mut start = 0;
            let chars: Vec<(usize, char)> = run.char_indices().collect();
            for k in 1..chars.len() {
                let (i, cur) = chars[k];
                let prev = chars[k - 1].1;
                let next = chars.get(k + 1).map(|&(_, c)| c);
                let plural_s =
                    next == Some('s') && !chars.get(k + 2).is_some_and(|(_, c)| c.is_lowercase());
                let next_lower = next.is_some_and(char::is_lowercase) && !plural_s;
                if (prev.is_lowercase() && cur.is_uppercase())
                    || (prev.is_uppercase() && cur.is_uppercase() && next_lower)
                {
                    emit(&run[start..i], &mut lower, &mut |w: &str| {
                        general.push(w.to_owned())
                    });
                    start = i;
                }
            }
            emit(&run[start..], &mut lower, &mut |w: &str| {
                general.push(w.to_owned())
            });
        }
        general
    }

    proptest::proptest! {
        #[test]
        fn ascii_fast_path_splits_like_the_general_one(text in "[ -~]{0,200}") {
            proptest::prop_assert_eq!(words(&text), general_words(&text));
        }

        #[test]
        fn ascii_fast_path_splits_identifiers_and_prose_like_the_general_one(
            text in "([a-z0-9]{1,12}|[A-Z]{1,3}|[A-Z]{2,3}s|[ _.,:/-]){0,40}"
        ) {
            // Long runs of lowercase letters and digits, which the fast path steps over.
            proptest::prop_assert_eq!(words(&text), general_words(&text));
        }

        #[test]
        fn eight_bytes_at_once_count_a_lowercase_run_like_one_at_a_time(eight: [u8; 8]) {
            let eight = eight.map(|b| b & 0x7F);
            let one_by_one = eight
                .iter()
                .take_while(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
                .count();
            proptest::prop_assert_eq!(lowercase_run(eight), one_by_one);
        }

        #[test]
        fn short_words_and_numbers_skip_the_stemmer_unchanged(word in "[a-z0-9]{1,2}|[0-9]{1,12}") {
            let snowball = Stemmer::create(Algorithm::English);
            proptest::prop_assert_eq!(stem(&word), snowball.stem(&word));
        }

        #[test]
        fn words_the_stemmer_cannot_change_skip_it_unchanged(
            word in "[a-z0-9]{0,14}[abfhjkopquvwxz0-9]|(ed|ing|s|y|ly|ies|al|ic|ise|ize)[a-z]{0,3}[abfhjkopquvwxz]"
        ) {
            let snowball = Stemmer::create(Algorithm::English);
            proptest::prop_assert!(!may_change(&word));
            proptest::prop_assert_eq!(stem(&word), snowball.stem(&word));
        }

        #[test]
        fn long_words_lowercase_like_short_ones(word in "[A-Z][a-z]{0,3}|[A-Z]{70,90}") {
            // Words longer than the stack buffer take the allocating path.
            proptest::prop_assert_eq!(words(&word), vec![word.to_lowercase()]);
        }

        #[test]
        fn token_shapes_never_panic_and_name_each_kind_once(text in ".{0,200}") {
            let shapes = shape_words(&text);
            for (i, shape) in shapes.iter().enumerate() {
                assert!(!shapes[..i].contains(shape));
            }
        }

        #[test]
        fn words_never_panic_and_are_lowercase_alphanumeric(text in ".{0,200}") {
            for w in words(&text) {
                proptest::prop_assert!(!w.is_empty());
                proptest::prop_assert!(w.chars().all(char::is_alphanumeric));
            }
        }
    }
}
