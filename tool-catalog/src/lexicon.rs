//! The catalog's word lists, kept as data: each is a text file under
//! `tool-catalog/src/data/`, compiled into the binary with `include_str!` and parsed once,
//! on first use. Nothing is read from disk at run time; the algorithms that use the lists are in
//! [`text`](super::text).
//!
//! | file | holds | used by |
//! |---|---|---|
//! | `stopwords.txt` | words dropped before indexing and searching | `text::is_stopword` |
//! | `ise_roots.txt` | roots of British `-ise` spellings read as `-ize` | `text::stem` |
//! | `abbreviations.txt` | what people type for words tools spell out (`pr: pull request`) | `text::expansions` |
//! | `synonyms.txt` | groups of words that name one capability | `text::expansions` |
//! | `extensions.txt` | file extensions that make a token a file name | `text::shape_words` |
//! | `shapes.txt` | the words each token shape stands for (`amount: amount price`) | `text::shape_words` |
//!
//! Each file opens with a comment saying what it holds and where its words came from.
//!
//! # Format
//!
//! UTF-8 text. `#` starts a comment that runs to the end of its line; blank lines are skipped.
//! A word is lowercase letters and digits, as the catalog's splitter gives them (`k8s`,
//! `mkdir`; not `K8s` or `pull-request`). By file:
//!
//! - a list (stopwords, roots, extensions): words separated by spaces, any number a line;
//! - groups (synonyms): one group a line, two words or more;
//! - keyed lines (abbreviations, shapes): a word, a colon, then one word or more.
//!
//! # Changing a list
//!
//! Edit its file, then run `cargo test -p tool-catalog --lib`. A line that does not parse
//! is reported with its file and line (and would panic, naming them, on first use); the
//! tests in `text` also report, each with its file and line, a word listed twice and a word the
//! catalog could never match (a synonym that is a stopword, two words of a group with one
//! stem, a root an earlier root hides). Then measure: the figure to judge a change by is the
//! test set's, in `cargo test -p tool-catalog --test catalog_eval -- --nocapture` or `cargo bench
//! -p tool-catalog --bench catalog`; the development sets were read while the lists were tuned.

use std::sync::LazyLock;

use rustc_hash::FxHashSet as HashSet;

/// One of the data files, compiled in.
#[derive(Debug, Clone, Copy)]
pub(super) struct DataFile {
    /// Its path from the workspace's root, to name it in messages.
    pub path: &'static str,
    /// Its text.
    pub text: &'static str,
    /// How its lines read.
    pub format: Format,
}

/// How a data file's lines read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Format {
    /// Words separated by spaces, any number a line.
    List,
    /// One group a line, two words or more.
    Groups,
    /// A word, a colon, then one word or more.
    Keyed,
}

macro_rules! data_file {
    ($name:literal, $format:expr) => {
        DataFile {
            path: concat!("tool-catalog/src/data/", $name),
            text: include_str!(concat!("data/", $name)),
            format: $format,
        }
    };
}

pub(super) const STOPWORDS: DataFile = data_file!("stopwords.txt", Format::List);
pub(super) const ISE_ROOTS: DataFile = data_file!("ise_roots.txt", Format::List);
pub(super) const ABBREVIATIONS: DataFile = data_file!("abbreviations.txt", Format::Keyed);
pub(super) const SYNONYMS: DataFile = data_file!("synonyms.txt", Format::Groups);
pub(super) const EXTENSIONS: DataFile = data_file!("extensions.txt", Format::List);
pub(super) const SHAPES: DataFile = data_file!("shapes.txt", Format::Keyed);

/// Every data file.
#[cfg(test)]
pub(super) const FILES: [DataFile; 6] = [
    STOPWORDS,
    ISE_ROOTS,
    ABBREVIATIONS,
    SYNONYMS,
    EXTENSIONS,
    SHAPES,
];

/// A line of a data file that does not read: a bug in the file, named by its path and line.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{path}:{line}: {reason}")]
pub(super) struct DataError {
    /// The file's path.
    pub path: &'static str,
    /// The line's number, from 1.
    pub line: usize,
    /// What is wrong with it.
    pub reason: String,
}

/// A line of a data file that holds words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Line {
    /// Its number, from 1.
    pub number: usize,
    /// The word before the colon, in a file of keyed lines.
    pub key: Option<&'static str>,
    /// Its words (after the colon, in a file of keyed lines).
    pub words: Vec<&'static str>,
}

impl DataFile {
    /// The lines that hold words, read as the file's format says; the first line that does
    /// not read is an error.
    pub fn lines(&self) -> Result<Vec<Line>, DataError> {
        let mut lines = Vec::new();
        for (index, line) in self.text.lines().enumerate() {
            let number = index + 1;
            let content = line.split_once('#').map_or(line, |(content, _)| content);
            if content.trim().is_empty() {
                continue;
            }
            let error = |reason: String| DataError {
                path: self.path,
                line: number,
                reason,
            };
            let (key, rest) = match self.format {
                Format::Keyed => {
                    let Some((key, rest)) = content.split_once(':') else {
                        return Err(error(format!(
                            "`{}` is not `word: words`: a word, a colon, then the words it stands for",
                            content.trim()
                        )));
                    };
                    match self.words(key, number)?[..] {
                        [key] => (Some(key), rest),
                        _ => {
                            return Err(error(format!(
                                "one word before the colon, not `{}`",
                                key.trim()
                            )));
                        }
                    }
                }
                Format::List | Format::Groups => (None, content),
            };
            let words = self.words(rest, number)?;
            match (self.format, &words[..]) {
                (Format::Keyed, []) => {
                    return Err(error(format!(
                        "no words after `{}:`",
                        key.unwrap_or_default()
                    )));
                }
                (Format::Groups, [word]) => {
                    return Err(error(format!(
                        "a group of one word (`{word}`) says nothing: a group is two words or more"
                    )));
                }
                _ => {}
            }
            lines.push(Line { number, key, words });
        }
        Ok(lines)
    }

    /// The words of `text`, part of line `number`, each checked.
    fn words(&self, text: &'static str, number: usize) -> Result<Vec<&'static str>, DataError> {
        text.split_whitespace()
            .map(|word| match is_word(word) {
                true => Ok(word),
                false => Err(DataError {
                    path: self.path,
                    line: number,
                    reason: format!(
                        "`{word}` is not a word as the catalog reads them: lowercase letters and digits only"
                    ),
                }),
            })
            .collect()
    }

    /// Every word of the file, in order (a keyed line's key, then its words).
    fn all_words(&self) -> Result<Vec<&'static str>, DataError> {
        Ok(self
            .lines()?
            .into_iter()
            .flat_map(|line| line.key.into_iter().chain(line.words))
            .collect())
    }
}

/// Whether `word` is one the catalog's splitter gives as it is: letters and digits that
/// lowercasing leaves alone.
fn is_word(word: &str) -> bool {
    !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_alphanumeric() && c.to_lowercase().eq([c]))
}

/// What a query's token can be, by its shape (`shapes.txt` gives each one's words).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Shape {
    Url,
    File,
    Channel,
    User,
    Email,
    Amount,
    Commit,
    Repository,
}

impl Shape {
    /// Every shape, in the order the code tries them.
    pub const ALL: [Shape; 8] = [
        Shape::Url,
        Shape::File,
        Shape::Channel,
        Shape::User,
        Shape::Email,
        Shape::Amount,
        Shape::Commit,
        Shape::Repository,
    ];

    /// Its name in `shapes.txt`.
    pub fn name(self) -> &'static str {
        match self {
            Shape::Url => "url",
            Shape::File => "file",
            Shape::Channel => "channel",
            Shape::User => "user",
            Shape::Email => "email",
            Shape::Amount => "amount",
            Shape::Commit => "commit",
            Shape::Repository => "repository",
        }
    }
}

/// The word lists, parsed.
#[derive(Debug)]
pub(super) struct Lexicon {
    stopwords: HashSet<&'static str>,
    /// The length of the longest stopword, in bytes: a longer word is none (most words).
    longest_stopword: usize,
    /// Roots of British `-ise` spellings, in the file's order.
    pub ise_roots: Vec<&'static str>,
    /// Each abbreviation with the words it stands for, in the file's order.
    pub abbreviations: Vec<(&'static str, Vec<&'static str>)>,
    /// Groups of words that name one capability, in the file's order.
    pub synonyms: Vec<Vec<&'static str>>,
    /// File extensions, without the dot.
    pub extensions: Vec<&'static str>,
    /// Each shape's words, in [`Shape::ALL`]'s order.
    shapes: [Vec<&'static str>; Shape::ALL.len()],
}

/// The word lists, parsed on first use. A file that does not parse is a bug in the build, and
/// panics here naming its path and line (a unit test reads every file first).
pub(super) fn lexicon() -> &'static Lexicon {
    static LEXICON: LazyLock<Lexicon> =
        LazyLock::new(|| Lexicon::parse().unwrap_or_else(|error| panic!("{error}")));
    &LEXICON
}

impl Lexicon {
    /// Reads every data file.
    pub fn parse() -> Result<Lexicon, DataError> {
        let stopwords: HashSet<&'static str> = STOPWORDS.all_words()?.into_iter().collect();
        let abbreviations = ABBREVIATIONS
            .lines()?
            .into_iter()
            .filter_map(|line| Some((line.key?, line.words)))
            .collect();
        let synonyms = SYNONYMS
            .lines()?
            .into_iter()
            .map(|line| line.words)
            .collect();
        Ok(Lexicon {
            longest_stopword: stopwords.iter().map(|w| w.len()).max().unwrap_or(0),
            stopwords,
            ise_roots: ISE_ROOTS.all_words()?,
            abbreviations,
            synonyms,
            extensions: EXTENSIONS.all_words()?,
            shapes: shapes(SHAPES)?,
        })
    }

    /// Whether `word` (lowercase) is on the stopword list.
    #[inline]
    pub fn is_stopword(&self, word: &str) -> bool {
        word.len() <= self.longest_stopword && self.stopwords.contains(word)
    }

    /// The words a token of this shape stands for.
    pub fn shape_words(&self, shape: Shape) -> &[&'static str] {
        &self.shapes[shape as usize]
    }
}

/// Each shape's words, from a file with one line for every shape.
fn shapes(file: DataFile) -> Result<[Vec<&'static str>; Shape::ALL.len()], DataError> {
    let mut shapes: [Option<Vec<&'static str>>; Shape::ALL.len()] = Default::default();
    let lines = file.lines()?;
    for line in lines {
        let name = line.key.unwrap_or_default();
        let error = |reason: String| DataError {
            path: file.path,
            line: line.number,
            reason,
        };
        let Some(shape) = Shape::ALL.into_iter().find(|s| s.name() == name) else {
            let names: Vec<&str> = Shape::ALL.iter().map(|s| s.name()).collect();
            return Err(error(format!(
                "`{name}` is not a shape; the shapes are: {}",
                names.join(", ")
            )));
        };
        let words = &mut shapes[shape as usize];
        if words.is_some() {
            return Err(error(format!("a second line for the shape `{name}`")));
        }
        *words = Some(line.words);
    }
    let mut missing = Shape::ALL
        .into_iter()
        .filter(|s| shapes[*s as usize].is_none());
    if let Some(shape) = missing.next() {
        return Err(DataError {
            path: file.path,
            line: file.text.lines().count(),
            reason: format!("no line for the shape `{}`", shape.name()),
        });
    }
    Ok(shapes.map(Option::unwrap_or_default))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A data file made up for a test.
    fn file(text: &'static str, format: Format) -> DataFile {
        DataFile {
            path: "tool-catalog/src/data/example.txt",
            text,
            format,
        }
    }

    /// The message of the error `text` gives, as `path:line: reason`.
    fn error(text: &'static str, format: Format) -> String {
        match file(text, format).lines() {
            Ok(lines) => panic!("{text:?} reads as {lines:?}"),
            Err(error) => error.to_string(),
        }
    }

    #[test]
    fn every_data_file_parses() {
        for file in FILES {
            let lines = file.lines().unwrap_or_else(|error| panic!("{error}"));
            assert!(!lines.is_empty(), "{}: no words", file.path);
            // Each opens with a comment saying where its words came from.
            assert!(file.text.starts_with("# "), "{}", file.path);
            assert!(file.text.contains("Provenance:"), "{}", file.path);
        }
        let lexicon = Lexicon::parse().unwrap_or_else(|error| panic!("{error}"));
        assert!(lexicon.is_stopword("the") && !lexicon.is_stopword("theme"));
        assert_eq!(lexicon.shape_words(Shape::Amount), ["amount", "price"]);
    }

    #[test]
    fn lines_read_by_format_with_comments_and_blank_lines_skipped() {
        let text = "# a comment\n\n  pr: pull request # and one after\nk8s:kubernetes\n";
        let lines = file(text, Format::Keyed).lines().unwrap();
        assert_eq!(
            lines,
            [
                Line {
                    number: 3,
                    key: Some("pr"),
                    words: vec!["pull", "request"]
                },
                Line {
                    number: 4,
                    key: Some("k8s"),
                    words: vec!["kubernetes"]
                },
            ]
        );
        let groups = file("get fetch\n\tlist  enumerate browse\n", Format::Groups);
        assert_eq!(
            groups.lines().unwrap()[1].words,
            ["list", "enumerate", "browse"]
        );
        let list = file("a an\nthe\n", Format::List);
        assert_eq!(list.all_words().unwrap(), ["a", "an", "the"]);
    }

    #[test]
    fn a_malformed_line_is_reported_with_its_file_and_line() {
        use Format::{Groups, Keyed, List};
        for (text, format, at) in [
            (
                "# fine\nget fetch\nGet Fetch\n",
                Groups,
                ":3: `Get` is not a word",
            ),
            (
                "a\n\npull-request\n",
                List,
                ":3: `pull-request` is not a word",
            ),
            (
                "get fetch\nalone # one\n",
                Groups,
                ":2: a group of one word (`alone`)",
            ),
            (
                "pr: pull request\nmr merge\n",
                Keyed,
                ":2: `mr merge` is not `word: words`",
            ),
            (
                "\npull request: pr\n",
                Keyed,
                ":2: one word before the colon, not `pull request`",
            ),
            (
                ": pull request\n",
                Keyed,
                ":1: one word before the colon, not ``",
            ),
            ("pr:\n", Keyed, ":1: no words after `pr:`"),
            ("pr: pull: request\n", Keyed, ":1: `pull:` is not a word"),
        ] {
            let message = error(text, format);
            let expected = format!("tool-catalog/src/data/example.txt{at}");
            assert!(message.starts_with(&expected), "{text:?}: {message}");
        }
        // Letters outside ASCII are words too, when lowercase.
        assert!(file("café naïve\nétat\n", List).lines().is_ok());
        assert!(error("café\nÉtat\n", List).ends_with(
            ":2: `État` is not a word as the catalog reads them: lowercase letters and digits only"
        ));
    }

    #[test]
    fn the_shapes_file_names_each_shape_once() {
        let all = "url: url\nfile: file\nchannel: channel\nuser: user\nemail: email\n\
                   amount: amount\ncommit: commit\nrepository: repository\n";
        assert!(shapes(file(all, Format::Keyed)).is_ok());
        let unknown = all.replace("commit: commit", "hash: commit");
        let twice = format!("{all}url: link\n");
        let missing = all.replace("user: user\n", "# no user\n");
        for (text, message) in [
            (
                unknown,
                "example.txt:7: `hash` is not a shape; the shapes are: url, file,",
            ),
            (twice, "example.txt:9: a second line for the shape `url`"),
            (missing, "example.txt:8: no line for the shape `user`"),
        ] {
            let text: &'static str = Box::leak(text.into_boxed_str());
            let error = shapes(file(text, Format::Keyed)).unwrap_err().to_string();
            assert!(error.contains(message), "{error}");
        }
    }
}
