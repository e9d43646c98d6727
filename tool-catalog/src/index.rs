//! The inverted index and its ranking: BM25F over a tool's fields, with query expansion
//! (synonyms, joined word pairs, token shapes), coordination (tools matching more of the query
//! first) and domain grouping.

use std::borrow::Borrow;
use std::cell::RefCell;
use std::hash::{Hash, Hasher};

use rustc_hash::FxHashMap as HashMap;

use super::text;
use tool_core::registry::Tool;
use tool_core::registry::parallel::{in_parallel, threads_for};

/// The fields of a tool that are indexed, with their weight in the score. The name says most
/// about what a tool does; examples and parameters say least.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(usize)]
pub(super) enum Field {
    /// The name's words (`github__create_issue` -> github, create, issue).
    Name,
    /// The label and the hint.
    Summary,
    /// The description.
    Description,
    /// Parameter names and descriptions.
    Params,
    /// The domain's name and description.
    Domain,
    /// The examples' labels.
    Examples,
}

pub(super) const FIELDS: usize = Field::Examples as usize + 1;

/// How much each field counts, and how much its length normalises (BM25F's w and b).
const WEIGHTS: [f32; FIELDS] = [3.0, 1.5, 1.0, 0.4, 1.2, 0.6];
const B: [f32; FIELDS] = [0.3, 0.5, 0.75, 0.75, 0.3, 0.5];
const K1: f32 = 1.2;
/// How much an expanded term (a synonym or an abbreviation's expansion) counts against the
/// word the user typed.
const EXPANSION_WEIGHT: f32 = 0.5;
/// Factor for the tools of a domain the query names.
const DOMAIN_BOOST: f32 = 1.5;
/// How much a tool that matches only part of the query loses: its score is multiplied by the
/// share of the query's words it matches (directly or through an expansion) to this power.
const COORDINATION: f32 = 0.5;

/// Which parts of the ranking are on: all of them, except when measuring what each is worth.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct Ranking {
    /// English stemming (index and query).
    pub stemming: bool,
    /// Query expansion with synonyms and abbreviations.
    pub synonyms: bool,
    /// Per-field weights and length normalisation; off, every field counts alike.
    pub field_weights: bool,
    /// Tools matching more of the query rank higher (coordination).
    pub coordination: bool,
    /// Domain grouping: the tools of a domain the query names rank higher. Off by default: on
    /// the evaluation set it helped the tuning half and hurt the held-out half as much.
    pub domains: bool,
}

/// Builders: set one field each, the others kept (the struct is `#[non_exhaustive]`, so a
/// literal cannot be written outside this crate).
impl Ranking {
    /// Sets `stemming`: english stemming (index and query).
    #[must_use]
    pub const fn stemming(mut self, stemming: bool) -> Self {
        self.stemming = stemming;
        self
    }

    /// Sets `synonyms`: query expansion with synonyms and abbreviations.
    #[must_use]
    pub const fn synonyms(mut self, synonyms: bool) -> Self {
        self.synonyms = synonyms;
        self
    }

    /// Sets `field_weights`: per-field weights and length normalisation; off, every field counts alike.
    #[must_use]
    pub const fn field_weights(mut self, field_weights: bool) -> Self {
        self.field_weights = field_weights;
        self
    }

    /// Sets `coordination`: tools matching more of the query rank higher (coordination).
    #[must_use]
    pub const fn coordination(mut self, coordination: bool) -> Self {
        self.coordination = coordination;
        self
    }

    /// Sets `domains`: domain grouping: the tools of a domain the query names rank higher. Off by default: on.
    #[must_use]
    pub const fn domains(mut self, domains: bool) -> Self {
        self.domains = domains;
        self
    }
}

impl Default for Ranking {
    fn default() -> Self {
        Self {
            stemming: true,
            synonyms: true,
            field_weights: true,
            coordination: true,
            domains: false,
        }
    }
}

pub(super) type DocId = u32;

/// A term of a query: its weight, and which of the query's words it stands for (a bit each).
#[derive(Debug, Clone, Copy)]
struct QueryTerm {
    term: TermId,
    weight: f32,
    words: u64,
}
type TermId = u32;

/// A term's count in each field of a tool, saturating at 255: past a few, BM25's `tf / (k1 +
/// tf)` hardly moves, and a byte per field makes a posting 12 bytes instead of 16 (postings are
/// most of the index, and of the fresh memory a build touches).
type Counts = [u8; FIELDS];

#[derive(Debug, Clone, Copy)]
struct Posting {
    doc: DocId,
    /// The saturated BM25F term frequency, `tf / (k1 + tf)` with `tf` the field-weighted,
    /// length-normalised count: a search only multiplies it by the term's idf and weight.
    /// Recomputed when documents come or go (the average lengths move).
    score: f32,
    tf: Counts,
}

/// One indexed tool.
#[derive(Debug)]
pub(super) struct Doc {
    tool: Tool,
    lens: [u16; FIELDS],
    /// Distinct terms, for removal.
    terms: Box<[TermId]>,
    /// The domain name's terms (with domain grouping on; else empty).
    domain_terms: Box<[TermId]>,
    /// Where its postings wait while not yet in the term lists: (pending batch, place in it).
    waiting: Option<(u32, u32)>,
}

/// A tool as a map key: hashed and compared by its name, so the map is looked up by `&str`
/// and holds no copy of the name.
#[derive(Debug)]
struct Named(Tool);

impl Borrow<str> for Named {
    fn borrow(&self) -> &str {
        self.0.name()
    }
}

impl Hash for Named {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.0.name().hash(state);
    }
}

impl PartialEq for Named {
    fn eq(&self, other: &Self) -> bool {
        self.0.name() == other.0.name()
    }
}

impl Eq for Named {}

/// What the index reads of a tool, field by field.
fn texts<'t>(tool: &'t Tool, texts: &mut Vec<(Field, &'t str)>) {
    let domain = tool.domain();
    texts.extend([
        (Field::Name, tool.name()),
        (Field::Summary, tool.label()),
        (Field::Summary, tool.hint()),
        (Field::Description, tool.description()),
        (Field::Domain, &*domain.name),
        (Field::Domain, &*domain.description),
    ]);
    params_text(tool.input_schema(), texts);
    texts.extend(
        tool.examples()
            .iter()
            .map(|e| (Field::Examples, e.label.as_ref())),
    );
}

/// Parameter names and descriptions, from the input schema's top-level properties.
fn params_text<'s>(schema: &'s serde_json::Value, out: &mut Vec<(Field, &'s str)>) {
    let Some(props) = schema
        .as_object()
        .and_then(|s| s.get("properties"))
        .and_then(|p| p.as_object())
    else {
        return;
    };
    for (name, prop) in props {
        out.push((Field::Params, name.as_str()));
        if let Some(d) = prop
            .as_object()
            .and_then(|p| p.get("description"))
            .and_then(|d| d.as_str())
        {
            out.push((Field::Params, d));
        }
    }
}

/// Documents split into terms, the terms numbered within the batch: the part of indexing that
/// needs no access to the index, so batches are made on several threads at once.
struct Batch {
    /// The batch's distinct terms (stems, when stemming is on), by their number.
    terms: Vec<Term>,
    docs: Vec<Tokenized>,
    /// How many documents have each term.
    df: Vec<u32>,
}

struct Tokenized {
    tool: Tool,
    lens: [u16; FIELDS],
    /// Its distinct terms, in the order first read: the document's own list (for removal),
    /// allocated here on the batch's thread rather than taken out of `counts` on the index's.
    terms: Box<[u32]>,
    /// Its count of each of them, in the same order.
    counts: Box<[(u32, Counts)]>,
    /// The terms of the domain's name (with domain grouping on; else empty).
    domain_terms: Box<[u32]>,
}

impl Batch {
    fn tokenize(tools: &[Tool], ranking: Ranking) -> Self {
        let mut words = Words::new(ranking.stemming);
        // Per term: the document (numbered from 1) that last counted it and where in that
        // document's counts it is, and how many documents have it; counting needs no sort and
        // no map per document.
        let mut seen: Vec<(u32, u32)> = Vec::new();
        let mut df: Vec<u32> = Vec::new();
        // The document's counts, reused.
        let mut counts: Vec<(u32, Counts)> = Vec::new();
        // Reused: a tool's texts borrow from the tool, and every tool outlives the batch.
        let mut texts_of = Vec::new();
        let docs: Vec<Tokenized> = tools
            .iter()
            .zip(1u32..)
            .map(|(tool, doc)| {
                let mut lens = [0u16; FIELDS];
                counts.clear();
                texts_of.clear();
                texts(tool, &mut texts_of);
                for &(field, text) in &texts_of {
                    let field = field as usize;
                    text::for_each_word(text, |word| {
                        let Some(term) = words.term(word) else {
                            return; // a stopword
                        };
                        let t = term as usize;
                        if t >= seen.len() {
                            seen.resize(t + 1, (0, 0));
                            df.resize(t + 1, 0);
                        }
                        let (last_doc, at) = &mut seen[t];
                        if *last_doc != doc {
                            *last_doc = doc;
                            *at = counts.len() as u32;
                            df[t] += 1;
                            counts.push((term, [0; FIELDS]));
                        }
                        let tf = &mut counts[*at as usize].1[field];
                        *tf = tf.saturating_add(1);
                        lens[field] = lens[field].saturating_add(1);
                    });
                }
                // Read only when a query naming the domain boosts it.
                let mut domain_terms = Vec::new();
                if ranking.domains {
                    text::for_each_word(&tool.domain().name, |w| {
                        domain_terms.push(words.term_of(w));
                    });
                }
                Tokenized {
                    tool: tool.clone(),
                    lens,
                    terms: counts.iter().map(|&(term, _)| term).collect(),
                    counts: counts.as_slice().into(),
                    domain_terms: domain_terms.into(),
                }
            })
            .collect();
        df.resize(words.terms.len(), 0);
        Self {
            terms: words.terms,
            docs,
            df,
        }
    }
}

/// Gives each word its term: its stem's number when stemming (`issue`, `issues` are one
/// term), else its own, numbered in the order first seen. Stopwords and stems are worked out
/// once per distinct word.
struct Words {
    stemming: bool,
    /// Per word: its term, with [`STOPWORD`] set for a stopword.
    words: WordMap,
    /// The distinct terms, by number.
    terms: Vec<Term>,
    /// Per stem: its term.
    stems: WordMap,
}

/// Marks a stopword's term in [`Words::words`].
const STOPWORD: u32 = 1 << 31;

impl Words {
    fn new(stemming: bool) -> Self {
        Self {
            stemming,
            words: WordMap::default(),
            terms: Vec::new(),
            stems: WordMap::default(),
        }
    }

    /// The word's term, or `None` for a stopword. Inlined into the loop every word read goes
    /// through, with the lookup it makes.
    #[inline(always)]
    fn term(&mut self, word: &str) -> Option<u32> {
        let term = self.marked(word);
        (term & STOPWORD == 0).then_some(term)
    }

    /// The word's term, stopword or not (a domain's name is kept whole).
    fn term_of(&mut self, word: &str) -> u32 {
        self.marked(word) & !STOPWORD
    }

    /// The word's term, marked when a stopword: a lookup for a word seen before (almost every
    /// word read).
    #[inline(always)]
    fn marked(&mut self, word: &str) -> u32 {
        let key = pack(word);
        match self.words.get(word, key) {
            Some(term) => term,
            None => self.first_sight(word, key),
        }
    }

    #[cold]
    fn first_sight(&mut self, word: &str, key: Option<u128>) -> u32 {
        let stem = match self.stemming {
            true => text::stem(word),
            false => std::borrow::Cow::Borrowed(word),
        };
        let stem_key = pack(&stem);
        let term = match self.stems.get(&stem, stem_key) {
            Some(term) => term,
            None => {
                let term = self.terms.len() as u32;
                self.stems.insert(&stem, stem_key, term);
                self.terms.push(match stem_key {
                    Some(key) => Term::Short(key),
                    None => Term::Long(stem.into()),
                });
                term
            }
        };
        let marked = if text::is_stopword(word) {
            term | STOPWORD
        } else {
            term
        };
        self.words.insert(word, key, marked);
        marked
    }
}

/// A map from words to numbers. Words of up to 16 bytes are keyed by their bytes packed into
/// an integer ([`pack`]): no string to hash or compare, and none to allocate.
#[derive(Debug, Default)]
struct WordMap {
    short: HashMap<u128, u32>,
    long: HashMap<Box<str>, u32>,
}

/// A term as a batch hands it to the index: packed when it is short (almost every term), so
/// neither the batch allocates it nor the index hashes its text.
#[derive(Debug)]
enum Term {
    Short(u128),
    Long(Box<str>),
}

impl WordMap {
    /// `word`'s number; `key` is `pack(word)`.
    #[inline(always)]
    fn get(&self, word: &str, key: Option<u128>) -> Option<u32> {
        match key {
            Some(key) => self.short.get(&key).copied(),
            None => self.long.get(word).copied(),
        }
    }

    fn insert(&mut self, word: &str, key: Option<u128>, number: u32) {
        match key {
            Some(key) => self.short.insert(key, number),
            None => self.long.insert(word.into(), number),
        };
    }

    /// `term`'s number, `next` when it is new.
    fn number(&mut self, term: Term, next: u32) -> u32 {
        match term {
            Term::Short(key) => *self.short.entry(key).or_insert(next),
            Term::Long(word) => *self.long.entry(word).or_insert(next),
        }
    }

    /// The number of `word`, a term.
    fn of(&self, word: &str) -> Option<u32> {
        self.get(word, pack(word))
    }
}

#[derive(Debug, Default)]
pub(super) struct Index {
    ranking: Ranking,
    dictionary: WordMap,
    postings: Vec<Vec<Posting>>,
    /// By id; `None` for the ids of removed tools, which new ones reuse.
    docs: Vec<Option<Doc>>,
    by_name: HashMap<Named, DocId>,
    free: Vec<DocId>,
    live: usize,
    total_lens: [u64; FIELDS],
    /// Batches inserted since the last [`Index::renormalize`], their postings moved into
    /// `postings` there, on every core: each term's list then grows once, not once per
    /// document.
    pending: Vec<Pending>,
}

/// A batch whose documents are indexed but whose postings are not yet in the term lists.
#[derive(Debug)]
struct Pending {
    /// The index's term for each of the batch's terms.
    terms: Vec<TermId>,
    /// The id of each of the batch's documents, [`GONE`] once removed.
    docs: Vec<DocId>,
    /// Each document's counts of its distinct terms (numbered as the batch's).
    counts: Vec<Box<[(u32, Counts)]>>,
    /// How many documents have each of the batch's terms.
    df: Vec<u32>,
}

/// A pending document removed before its postings were listed.
const GONE: DocId = DocId::MAX;

/// A ranked result.
#[derive(Debug, Clone, Copy)]
pub(super) struct Hit<'a> {
    pub tool: &'a Tool,
    pub score: f32,
    /// The share of the query's words (every word but stopwords, known to the index or not)
    /// it matches, directly or through an expansion: how much of the query the words explain.
    pub coverage: f32,
}

impl Index {
    pub fn with_ranking(ranking: Ranking) -> Self {
        Self {
            ranking,
            ..Self::default()
        }
    }

    /// A word as a term: its stem, when stemming is on.
    fn normal<'w>(&self, word: &'w str) -> std::borrow::Cow<'w, str> {
        if self.ranking.stemming {
            text::stem(word)
        } else {
            std::borrow::Cow::Borrowed(word)
        }
    }

    pub fn len(&self) -> usize {
        self.live
    }

    /// The tool indexed under `name`.
    pub fn get(&self, name: &str) -> Option<&Tool> {
        let id = *self.by_name.get(name)?;
        self.docs[id as usize].as_ref().map(|doc| &doc.tool)
    }

    /// The tools indexed.
    pub fn tools(&self) -> impl Iterator<Item = &Tool> {
        self.by_name.keys().map(|k| &k.0)
    }

    /// The distinct domains of the tools indexed that `caller` may call ([`Tool::permits`];
    /// `None`: every tool), sorted.
    pub fn domains(&self, caller: Option<&tool_core::context::Principal>) -> Vec<&str> {
        let mut domains: Vec<&str> = self
            .tools()
            .filter(|t| t.to_model() && t.permits(caller))
            .map(|t| &*t.domain().name)
            .collect();
        domains.sort_unstable();
        domains.dedup();
        domains
    }

    /// Adds tools, a later one replacing an earlier one of the same name. Large batches are
    /// read and split into terms on every core; terms are then numbered here, in order.
    pub fn insert_many(&mut self, tools: &[Tool]) {
        let ranking = self.ranking;
        let batches = in_parallel(tools, 1024, |part| Batch::tokenize(part, ranking));
        for batch in batches {
            self.add_batch(batch);
        }
    }

    /// Indexes the documents of a batch, its terms numbered as terms of this index. Its
    /// postings wait in `pending` for [`Index::renormalize`].
    fn add_batch(&mut self, batch: Batch) {
        // Grown once per batch, not rehashed and copied as they fill.
        self.dictionary.short.reserve(batch.terms.len());
        self.postings.reserve(batch.terms.len());
        self.by_name.reserve(batch.docs.len());
        self.docs
            .reserve(batch.docs.len().saturating_sub(self.free.len()));
        let terms: Vec<TermId> = batch.terms.into_iter().map(|t| self.intern(t)).collect();
        let at = self.pending.len() as u32;
        // Pushed first: a later document of this batch may replace an earlier one.
        self.pending.push(Pending {
            docs: Vec::with_capacity(batch.docs.len()),
            counts: Vec::with_capacity(batch.docs.len()),
            terms,
            df: batch.df,
        });
        for (place, doc) in (0u32..).zip(batch.docs) {
            self.remove(doc.tool.name());
            let id = match self.free.pop() {
                Some(id) => id,
                None => {
                    self.docs.push(None);
                    (self.docs.len() - 1) as DocId
                }
            };
            let pending = &mut self.pending[at as usize];
            pending.docs.push(id);
            pending.counts.push(doc.counts);
            let global = |mut local: Box<[u32]>| {
                for term in local.iter_mut() {
                    *term = pending.terms[*term as usize];
                }
                local
            };
            let terms = global(doc.terms);
            let domain_terms = global(doc.domain_terms);
            for (total, len) in self.total_lens.iter_mut().zip(doc.lens) {
                *total += u64::from(len);
            }
            self.by_name.insert(Named(doc.tool.clone()), id);
            self.docs[id as usize] = Some(Doc {
                tool: doc.tool,
                lens: doc.lens,
                terms,
                domain_terms,
                waiting: Some((at, place)),
            });
            self.live += 1;
        }
    }

    /// Removes a tool; returns whether it was there.
    pub fn remove(&mut self, name: &str) -> bool {
        let Some(id) = self.by_name.remove(name) else {
            return false;
        };
        let Some(doc) = self.docs[id as usize].take() else {
            return false;
        };
        match doc.waiting {
            Some((batch, place)) => self.pending[batch as usize].docs[place as usize] = GONE,
            None => {
                for &term in doc.terms.iter() {
                    self.postings[term as usize].retain(|p| p.doc != id);
                }
            }
        }
        for (total, len) in self.total_lens.iter_mut().zip(doc.lens) {
            *total -= u64::from(len);
        }
        self.free.push(id);
        self.live -= 1;
        true
    }

    /// Recomputes every posting's score for the current average field lengths. Call it after
    /// inserting or removing documents, before searching.
    pub fn renormalize(&mut self) {
        let n = self.live.max(1) as f32;
        let avg: [f32; FIELDS] = std::array::from_fn(|f| (self.total_lens[f] as f32 / n).max(1.0));
        let ranking = self.ranking;
        let norms: Vec<[f32; FIELDS]> = self
            .docs
            .iter()
            .map(|doc| {
                let lens = doc.as_ref().map_or([0; FIELDS], |doc| doc.lens);
                std::array::from_fn(|f| {
                    let (w, b) = if ranking.field_weights {
                        (WEIGHTS[f], B[f])
                    } else {
                        (1.0, 0.75)
                    };
                    w / (1.0 - b + b * f32::from(lens[f]) / avg[f])
                })
            })
            .collect();
        // Taken: a batch is dropped once its postings are listed.
        let pending = std::mem::take(&mut self.pending);
        // Each term's list length once the pending postings are in: each list grows once, and
        // the terms are cut into parts of about as many postings each (a few common terms
        // hold most of them).
        let mut sizes: Vec<u32> = self.postings.iter().map(|l| l.len() as u32).collect();
        for batch in &pending {
            for (&term, &df) in batch.terms.iter().zip(&batch.df) {
                sizes[term as usize] += df;
            }
        }
        // Each part of the terms takes its pending postings, then scores its lists in place:
        // after the first build, rescoring allocates nothing.
        let score = |first: usize, lists: &mut [Vec<Posting>]| {
            let sizes = &sizes[first..first + lists.len()];
            append(lists, first, sizes, &pending);
            for posting in lists.iter_mut().flatten() {
                let norm = &norms[posting.doc as usize];
                let tf: f32 = (0..FIELDS)
                    .map(|f| f32::from(posting.tf[f]) * norm[f])
                    .sum();
                posting.score = tf / (K1 + tf);
            }
        };
        let total = sizes.iter().map(|&s| s as usize).sum();
        // A list costs about as much as 3 postings besides its postings (its allocation), as
        // measured on 10k tools.
        let ends = cuts(&sizes, 3, threads_for(total, 32_768));
        if let [_] = ends[..] {
            score(0, &mut self.postings);
        } else {
            std::thread::scope(|scope| {
                let mut lists = &mut self.postings[..];
                let mut first = 0;
                for end in ends {
                    let (part, rest) = std::mem::take(&mut lists).split_at_mut(end - first);
                    lists = rest;
                    let score = &score;
                    scope.spawn(move || score(first, part));
                    first = end;
                }
            });
        }
        for batch in &pending {
            for &id in batch.docs.iter().filter(|&&id| id != GONE) {
                if let Some(doc) = &mut self.docs[id as usize] {
                    doc.waiting = None;
                }
            }
        }
    }

    fn intern(&mut self, term: Term) -> TermId {
        let next = self.postings.len() as TermId;
        let id = self.dictionary.number(term, next);
        if id == next {
            self.postings.push(Vec::new());
        }
        id
    }

    /// The query's terms: what the user typed at weight 1, expansions lower, each with the
    /// query words it stands for (a term two words share goes to the first; two neighbours
    /// joined into one word stand for both), how many words can match, and how many words it
    /// has besides stopwords (matchable or not).
    fn query_terms(&self, query: &str) -> (Vec<QueryTerm>, u32, u32) {
        let mut terms: Vec<QueryTerm> = Vec::new();
        let mut words = 0u32;
        let mut typed = 0u32;
        // The word before (and its bit, when it counted), to try the two as one (`data
        // source` for `datasources`).
        let mut previous = String::new();
        let mut previous_bit = 0u64;
        text::for_each_word(query, |word| {
            // Coordination counts at most 64 words; a query that long is mostly noise anyway.
            if text::is_stopword(word) || words >= 64 {
                previous.clear();
                previous_bit = 0;
                return;
            }
            typed += 1;
            let bit = 1u64 << words;
            let before = terms.len();
            let mut add = |term: TermId, weight: f32, words: u64| match terms
                .iter_mut()
                .find(|t| t.term == term)
            {
                Some(t) => t.weight = t.weight.max(weight),
                None => terms.push(QueryTerm {
                    term,
                    weight,
                    words,
                }),
            };
            // The word as typed, then its synonyms (stored as stems, so stemmed either way).
            let mut look_up = |word: &str, words: u64| {
                let stem = text::stem(word);
                let normal = if self.ranking.stemming { &*stem } else { word };
                if let Some(term) = self.dictionary.of(normal) {
                    add(term, 1.0, words);
                }
                if self.ranking.synonyms {
                    for expansion in text::expansions(&stem) {
                        if let Some(term) = self.dictionary.of(expansion) {
                            add(term, EXPANSION_WEIGHT, words);
                        }
                    }
                }
            };
            look_up(word, bit);
            if !previous.is_empty() {
                // The joined word stands for both.
                previous.push_str(word);
                look_up(&previous, bit | previous_bit);
            }
            previous.clear();
            previous.push_str(word);
            previous_bit = 0;
            // A word no tool uses cannot be matched: it does not count against anyone.
            if terms.len() > before {
                words += 1;
                previous_bit = bit;
            }
        });
        // What the query's paths, URLs, names and amounts say, each kind as one more word
        // (so a tool about it also matches more of the query), at an expansion's weight.
        if self.ranking.synonyms {
            for shape in text::shape_words(query) {
                if words >= 64 {
                    break;
                }
                let before = terms.len();
                for word in shape {
                    let Some(term) = self.dictionary.of(&self.normal(word)) else {
                        continue;
                    };
                    if !terms.iter().any(|t| t.term == term) {
                        terms.push(QueryTerm {
                            term,
                            weight: EXPANSION_WEIGHT,
                            words: 1 << words,
                        });
                    }
                }
                if terms.len() > before {
                    words += 1;
                    typed += 1;
                }
            }
        }
        (terms, words, typed)
    }

    /// The best `limit` tools for `query`, among those `keep` accepts, best first.
    pub fn search(&self, query: &str, limit: usize, keep: impl Fn(&Tool) -> bool) -> Vec<Hit<'_>> {
        let (query, words, typed) = self.query_terms(query);
        if query.is_empty() || self.live == 0 || limit == 0 {
            return Vec::new();
        }
        let n = self.live as f32;
        SCRATCH.with_borrow_mut(|scratch| {
            scratch.reset(self.docs.len());
            for &QueryTerm {
                term,
                weight,
                words: bits,
            } in &query
            {
                let Some(postings) = self.postings.get(term as usize) else {
                    continue;
                };
                if postings.is_empty() {
                    continue;
                }
                let df = postings.len() as f32;
                let scale = weight * (1.0 + (n - df + 0.5) / (df + 0.5)).ln();
                for posting in postings {
                    scratch.add(posting.doc, scale * posting.score, bits);
                }
            }
            let hits: Vec<Hit> = scratch
                .touched
                .iter()
                .filter_map(|&id| {
                    let doc = self.docs[id as usize].as_ref().filter(|d| keep(&d.tool))?;
                    let (score, matched) = scratch.slots[id as usize];
                    let coordination = if self.ranking.coordination {
                        (matched.count_ones() as f32 / words as f32).powf(COORDINATION)
                    } else {
                        1.0
                    };
                    Some(Hit {
                        tool: &doc.tool,
                        score: score * coordination * self.domain_boost(doc, &query),
                        coverage: (matched.count_ones() as f32 / typed.max(words) as f32).min(1.0),
                    })
                })
                .collect();
            best(hits, limit)
        })
    }

    /// A query that names a domain (`github`, `slack`) is about that domain's tools.
    fn domain_boost(&self, doc: &Doc, query: &[QueryTerm]) -> f32 {
        let domain = &doc.domain_terms;
        let named = self.ranking.domains
            && query
                .iter()
                .any(|q| q.weight >= 1.0 && domain.contains(&q.term));
        if named { DOMAIN_BOOST } else { 1.0 }
    }

    /// Bytes the index holds on the heap (capacities, not just lengths).
    pub fn heap_bytes(&self) -> usize {
        use std::mem::size_of;
        // The tools themselves are shared with the registry: only references to them count.
        let dictionary = &self.dictionary;
        let strings: usize = dictionary.long.keys().map(|k| k.len()).sum::<usize>();
        let maps = dictionary.short.capacity() * (size_of::<u128>() + size_of::<TermId>() + 1)
            + dictionary.long.capacity() * (size_of::<Box<str>>() + size_of::<TermId>() + 1)
            + self
                .pending
                .iter()
                .map(|p| {
                    (p.terms.capacity() + p.docs.capacity() + p.df.capacity()) * 4
                        + p.counts.iter().map(|c| c.len()).sum::<usize>()
                            * size_of::<(u32, Counts)>()
                })
                .sum::<usize>()
            + self.by_name.capacity() * (size_of::<(Named, DocId)>() + 1);
        let postings: usize = self
            .postings
            .iter()
            .map(|p| p.capacity() * size_of::<Posting>())
            .sum::<usize>()
            + self.postings.capacity() * size_of::<Vec<Posting>>();
        let docs: usize = self
            .docs
            .iter()
            .flatten()
            .map(|d| (d.terms.len() + d.domain_terms.len()) * size_of::<TermId>())
            .sum::<usize>()
            + self.docs.capacity() * size_of::<Option<Doc>>();
        strings + maps + postings + docs
    }
}

/// Appends to `lists` (the lists of terms `first..`, each to be `sizes` long) the pending
/// postings of their terms. Every part reads all the counts, in order: a pass over memory
/// already there costs less than a copy grouped by term would in fresh memory.
fn append(lists: &mut [Vec<Posting>], first: usize, sizes: &[u32], pending: &[Pending]) {
    if pending.is_empty() {
        return;
    }
    for (list, &size) in lists.iter_mut().zip(sizes) {
        list.reserve_exact(size as usize - list.len());
    }
    for batch in pending {
        for (&doc, counts) in batch.docs.iter().zip(&batch.counts) {
            if doc == GONE {
                continue;
            }
            for &(local, tf) in counts.iter() {
                let term = batch.terms[local as usize] as usize;
                if let Some(list) = term.checked_sub(first).and_then(|i| lists.get_mut(i)) {
                    list.push(Posting {
                        doc,
                        tf,
                        score: 0.0,
                    });
                }
            }
        }
    }
}

/// Where to cut `sizes` into at most `parts` consecutive runs of about equal work, each item
/// costing its size plus `overhead`: each run's end, the last being `sizes.len()`.
fn cuts(sizes: &[u32], overhead: u32, parts: usize) -> Vec<usize> {
    let work = |size: u32| u64::from(size) + u64::from(overhead);
    let total: u64 = sizes.iter().map(|&s| work(s)).sum();
    let parts = parts.max(1) as u64;
    let mut ends = Vec::with_capacity(parts as usize);
    let mut sum = 0u64;
    for (i, &size) in sizes.iter().enumerate() {
        sum += work(size);
        let cut = ends.len() as u64 + 1;
        if cut < parts && sum * parts >= total * cut {
            ends.push(i + 1);
        }
    }
    if ends.last() != Some(&sizes.len()) {
        ends.push(sizes.len());
    }
    ends
}

/// A word of at most 16 bytes as an integer, its bytes in order and zeros after: words hold
/// letters and digits only, never a zero byte, so no two words share a key.
#[inline]
fn pack(word: &str) -> Option<u128> {
    let bytes = word.as_bytes();
    let len = bytes.len();
    // Two loads that may overlap, shifted so the bytes past the word are zeros, instead of a
    // copy of variable length (a call to memcpy for every word read).
    let le8 = |at: usize| u64::from_le_bytes(bytes[at..at + 8].try_into().unwrap_or_default());
    let le4 = |at: usize| u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap_or_default());
    let (low, high) = match len {
        0..=3 => (
            bytes.iter().rev().fold(0u64, |k, &b| k << 8 | u64::from(b)),
            0,
        ),
        4..=7 => {
            let tail = u64::from(le4(len - 4)) >> (8 * (8 - len));
            (u64::from(le4(0)) | tail << 32, 0)
        }
        8 => (le8(0), 0),
        9..=16 => (le8(0), le8(len - 8) >> (8 * (16 - len))),
        _ => return None,
    };
    Some(u128::from(high) << 64 | u128::from(low))
}

/// The best `limit` hits, best first (ties by name).
fn best(mut hits: Vec<Hit<'_>>, limit: usize) -> Vec<Hit<'_>> {
    let order = |a: &Hit, b: &Hit| {
        b.score
            .total_cmp(&a.score)
            .then_with(|| a.tool.name().cmp(b.tool.name()))
    };
    // Only the best `limit` need sorting.
    if hits.len() > limit {
        hits.select_nth_unstable_by(limit - 1, order);
        hits.truncate(limit);
    }
    hits.sort_by(order);
    hits
}

/// Per-thread score accumulators, reused across searches: sized to the documents once, and
/// only the slots a search touched are cleared.
#[derive(Default)]
struct Scratch {
    /// (score, the query words matched as bits) per document.
    slots: Vec<(f32, u64)>,
    touched: Vec<DocId>,
}

impl Scratch {
    fn reset(&mut self, docs: usize) {
        for &doc in &self.touched {
            if let Some(slot) = self.slots.get_mut(doc as usize) {
                *slot = (0.0, 0);
            }
        }
        self.touched.clear();
        if self.slots.len() < docs {
            self.slots.resize(docs, (0.0, 0));
        }
    }

    fn add(&mut self, doc: DocId, score: f32, words: u64) {
        let slot = &mut self.slots[doc as usize];
        if slot.1 == 0 {
            self.touched.push(doc);
        }
        slot.0 += score;
        slot.1 |= words;
    }
}

thread_local! {
    static SCRATCH: RefCell<Scratch> = RefCell::default();
}

#[cfg(test)]
mod tests {
    use super::*;
    use tool_core::{Registry, registry::DynamicTool};

    fn tool(name: &str, description: &str) -> Tool {
        let mut registry = Registry::empty();
        let schema = serde_json::json!({"type": "object"});
        registry
            .register(DynamicTool::new(
                name.to_owned(),
                description.to_owned(),
                schema,
            ))
            .unwrap();
        registry.tools()[0].clone()
    }

    #[test]
    fn terms_longer_than_a_packed_key_are_found_too() {
        // 16 bytes packs; 17 and more are kept as text, by the batch and by the index.
        let mut index = Index::default();
        index.insert_many(&[
            tool(
                "get_locale",
                "Hyperconvergedinfrastructurehub settings, sixteencharword",
            ),
            tool("get_zone", "Timezone settings"),
        ]);
        index.insert_many(&[tool(
            "set_locale",
            "Changes the hyperconvergedinfrastructurehub",
        )]);
        index.renormalize();
        let long = index.normal("hyperconvergedinfrastructurehub");
        assert!(long.len() > 16 && pack(&long).is_none());
        assert!(index.dictionary.long.contains_key(&*long));
        assert!(index.dictionary.of("sixteencharword").is_some());
        let mut found: Vec<&str> = index
            .search("hyperconvergedinfrastructurehub", 5, |_| true)
            .iter()
            .map(|h| h.tool.name())
            .collect();
        found.sort_unstable();
        assert_eq!(found, ["get_locale", "set_locale"]);
    }

    fn names<'i>(index: &'i Index, query: &str) -> Vec<&'i str> {
        index
            .search(query, 5, |_| true)
            .iter()
            .map(|h| h.tool.name())
            .collect()
    }

    #[test]
    fn two_words_of_a_query_match_the_one_word_a_tool_writes() {
        let mut index = Index::default();
        index.insert_many(&[
            tool("list_datasources", "Lists the configured datasources."),
            tool("get_source", "Gets the data of a source file."),
            tool("browser_hover", "Moves the pointer onto an element."),
            tool("browser_click", "Clicks an element."),
        ]);
        index.renormalize();
        // Nothing else of the query is in `list_datasources`: only the joined pair finds it.
        assert!(names(&index, "which data sources are there").contains(&"list_datasources"));
        // The joined word's synonyms count too: `mouseover` is a way to say hover.
        assert_eq!(names(&index, "mouse over the menu"), ["browser_hover"]);
        // Only neighbours join: a stopword between them keeps them apart.
        assert_eq!(names(&index, "data of the sources"), ["get_source"]);
    }

    #[test]
    fn what_a_querys_tokens_look_like_counts_as_words() {
        let mut index = Index::default();
        index.insert_many(&[
            tool("read_file", "Reads a file at a path."),
            tool("navigate", "Opens a URL in the browser."),
            tool("post_message", "Posts a message to a channel."),
            tool("get_commit", "Shows one commit."),
        ]);
        index.renormalize();
        for (query, expected) in [
            ("show me ~/notes/todo.md", "read_file"),
            ("open https://example.com please", "navigate"),
            ("say hello in #general", "post_message"),
            ("what changed in 3f9a2c1", "get_commit"),
        ] {
            assert_eq!(names(&index, query).first(), Some(&expected), "{query}");
        }
    }

    #[test]
    fn coverage_is_the_share_of_the_querys_words_a_hit_matches() {
        let mut index = Index::default();
        index.insert_many(&[
            tool("list_issues", "Lists the issues of a repository."),
            tool("get_issue", "Gets one issue."),
        ]);
        index.renormalize();
        let coverage = |query: &str| -> Vec<(String, f32)> {
            index
                .search(query, 5, |_| true)
                .iter()
                .map(|h| (h.tool.name().to_owned(), h.coverage))
                .collect()
        };
        // Stopwords do not count; words no tool uses do.
        assert_eq!(
            coverage("list the issues"),
            [("list_issues".into(), 1.0), ("get_issue".into(), 0.5)]
        );
        assert_eq!(
            coverage("zebra giraffe list issues"),
            [("list_issues".into(), 0.5), ("get_issue".into(), 0.25)]
        );
    }

    #[test]
    fn words_sharing_a_stem_count_as_one_term() {
        let mut index = Index::default();
        index.insert_many(&[tool("list_issues", "issue issues Issue")]);
        index.renormalize();
        let term = index.dictionary.of("issu").unwrap() as usize;
        assert_eq!(index.postings[term].len(), 1);
        let tf = index.postings[term][0].tf;
        assert_eq!(tf[Field::Name as usize], 1);
        assert_eq!(tf[Field::Description as usize], 3);
    }

    #[test]
    fn batches_split_across_threads_index_like_one_by_one() {
        // Enough tools for several threads; names repeat words across the split.
        let tools: Vec<Tool> = (0..3000)
            .map(|i| {
                tool(
                    &format!("get_item_{}", i % 1500),
                    &format!(
                        "Gets items {i} of kind {} from store {}. {}",
                        i % 7,
                        i % 13,
                        // Enough postings that scoring, too, is split across threads.
                        (0..20)
                            .map(|w| format!("w{}", (i + w) % 97))
                            .collect::<Vec<_>>()
                            .join(" ")
                    ),
                )
            })
            .collect();
        let mut batched = Index::default();
        batched.insert_many(&tools);
        batched.renormalize();
        let mut single = Index::default();
        for tool in &tools {
            single.insert_many(std::slice::from_ref(tool));
        }
        single.renormalize();
        // Later duplicates replaced earlier ones in both.
        assert_eq!(batched.len(), 1500);
        assert_eq!(single.len(), 1500);
        assert_lists_match_documents(&batched);
        assert_lists_match_documents(&single);
        for query in ["item 42 kind 3", "store 12", "gets items 2999", "get"] {
            let names = |index: &Index| -> Vec<(String, u32)> {
                index
                    .search(query, 10, |_| true)
                    .into_iter()
                    .map(|h| (h.tool.name().to_owned(), (h.score * 1e4) as u32))
                    .collect()
            };
            assert_eq!(names(&batched), names(&single), "{query}");
        }
    }

    #[test]
    fn a_query_naming_a_domain_boosts_its_tools_only_with_domain_grouping_on() {
        let in_domain = |name: &str, domain: &'static str| {
            let mut registry = Registry::empty();
            let tool = DynamicTool::new(name.to_owned(), "Lists issues.", serde_json::json!({}))
                .domain(domain, "");
            registry.register(tool).unwrap();
            registry.tools()[0].clone()
        };
        let tools = [
            in_domain("list_issues", "github"),
            in_domain("list_tickets", "gitlab"),
        ];
        let scores = |domains: bool| {
            let mut index = Index::with_ranking(Ranking {
                domains,
                ..Ranking::default()
            });
            index.insert_many(&tools);
            index.renormalize();
            let hits = index.search("github issues", 2, |_| true);
            let score = |name: &str| hits.iter().find(|h| h.tool.name() == name).unwrap().score;
            (score("list_issues"), score("list_tickets"))
        };
        let (off, on) = (scores(false), scores(true));
        assert!((on.0 / off.0 - DOMAIN_BOOST).abs() < 1e-4, "{on:?} {off:?}");
        assert!((on.1 / off.1 - 1.0).abs() < 1e-4, "{on:?} {off:?}");
    }

    /// Every term of every document lists it once, and no list holds anything else.
    fn assert_lists_match_documents(index: &Index) {
        let mut listed = 0;
        for (id, doc) in index.docs.iter().enumerate() {
            let Some(doc) = doc else { continue };
            for &term in doc.terms.iter() {
                let postings = &index.postings[term as usize];
                let of_doc = postings.iter().filter(|p| p.doc as usize == id).count();
                assert_eq!(of_doc, 1, "{} in {}", term, doc.tool.name());
                listed += 1;
            }
        }
        assert_eq!(index.postings.iter().map(Vec::len).sum::<usize>(), listed);
    }

    proptest::proptest! {
        /// The packed key is the word's bytes in order with zeros after, at every length, so
        /// words never share a key; longer words have none.
        #[test]
        fn a_packed_word_is_its_bytes_then_zeros(word in "[a-z0-9]{0,18}") {
            let expected = (word.len() <= 16).then(|| {
                let mut bytes = [0u8; 16];
                bytes[..word.len()].copy_from_slice(word.as_bytes());
                u128::from_le_bytes(bytes)
            });
            proptest::prop_assert_eq!(pack(&word), expected);
        }

        #[test]
        fn cuts_cover_every_term_in_parts_of_about_equal_size(
            sizes in proptest::collection::vec(0u32..1000, 0..200),
            parts in 1usize..6,
            overhead in 0u32..50,
        ) {
            let ends = cuts(&sizes, overhead, parts);
            proptest::prop_assert!(ends.len() <= parts.max(1));
            proptest::prop_assert_eq!(ends.last().copied(), Some(sizes.len()));
            proptest::prop_assert!(ends.windows(2).all(|w| w[0] < w[1]));
            // No part holds more than its share plus one term.
            let sizes: Vec<u32> = sizes.iter().map(|s| s + overhead).collect();
            let total: u32 = sizes.iter().sum();
            let largest = sizes.iter().copied().max().unwrap_or(0);
            let mut start = 0;
            for &end in &ends {
                let part: u32 = sizes[start..end].iter().sum();
                proptest::prop_assert!(part as usize <= (total as usize).div_ceil(parts) + largest as usize);
                start = end;
            }
        }
    }
}
