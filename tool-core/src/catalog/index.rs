//! The inverted index and its ranking: BM25F over a tool's fields, with query expansion,
//! coordination (tools matching more of the query first) and domain grouping.

use std::cell::RefCell;

use rustc_hash::FxHashMap as HashMap;

use super::text;

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

/// A term of a query: its weight, and which of the query's words it stands for.
#[derive(Debug, Clone, Copy)]
struct QueryTerm {
    term: TermId,
    weight: f32,
    group: u32,
}
type TermId = u32;

#[derive(Debug, Clone, Copy)]
struct Posting {
    doc: DocId,
    tf: [u16; FIELDS],
}

/// One indexed tool.
#[derive(Debug)]
pub(super) struct Doc {
    pub name: Box<str>,
    pub hint: Box<str>,
    pub domain: Box<str>,
    lens: [u16; FIELDS],
    /// Distinct terms, for removal.
    terms: Box<[TermId]>,
    /// The domain name's terms.
    domain_terms: Box<[TermId]>,
    alive: bool,
}

/// What a tool contributes to the index: the texts of each field.
pub(super) struct Entry<'a> {
    pub name: &'a str,
    pub hint: &'a str,
    pub domain: &'a str,
    pub fields: [&'a [&'a str]; FIELDS],
}

#[derive(Debug, Default)]
pub(super) struct Index {
    ranking: Ranking,
    /// Per term, each posting's saturated BM25F term frequency, `tf / (k1 + tf)` with `tf` the
    /// field-weighted, length-normalised count: a search only multiplies it by the term's idf
    /// and weight. Recomputed when documents come or go (the average lengths move).
    scored: Vec<Vec<(DocId, f32)>>,
    dictionary: HashMap<Box<str>, TermId>,
    postings: Vec<Vec<Posting>>,
    docs: Vec<Doc>,
    by_name: HashMap<Box<str>, DocId>,
    free: Vec<DocId>,
    live: usize,
    total_lens: [u64; FIELDS],
    /// Stems of words seen before: most words repeat across tools.
    stems: HashMap<Box<str>, TermId>,
    /// (term, field) of each word of the document being inserted; kept to reuse its memory.
    seen: Vec<(TermId, u8)>,
}

/// A ranked result.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Hit {
    pub doc: DocId,
    pub score: f32,
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

    pub fn doc(&self, id: DocId) -> &Doc {
        &self.docs[id as usize]
    }

    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.by_name.keys().map(|k| &**k)
    }

    /// The distinct domains of the tools indexed, sorted.
    pub fn domains(&self) -> Vec<&str> {
        let mut domains: Vec<&str> = self
            .docs
            .iter()
            .filter(|d| d.alive)
            .map(|d| &*d.domain)
            .collect();
        domains.sort_unstable();
        domains.dedup();
        domains
    }

    /// Adds a tool, replacing one of the same name.
    pub fn insert(&mut self, entry: Entry<'_>) {
        self.remove(entry.name);
        let id = match self.free.pop() {
            Some(id) => id,
            None => {
                self.docs.push(Doc::placeholder());
                (self.docs.len() - 1) as DocId
            }
        };
        // (term, field) for every word, then counted per term: no map per document.
        let mut seen = std::mem::take(&mut self.seen);
        seen.clear();
        let mut lens = [0u16; FIELDS];
        for (field, texts) in entry.fields.iter().enumerate() {
            for text in texts.iter() {
                text::for_each_word(text, |word| {
                    if !text::is_stopword(word) {
                        seen.push((self.term_of_word(word), field as u8));
                        lens[field] = lens[field].saturating_add(1);
                    }
                });
            }
        }
        seen.sort_unstable();
        let mut terms: Vec<TermId> = Vec::new();
        for group in seen.chunk_by(|a, b| a.0 == b.0) {
            let mut tf = [0u16; FIELDS];
            for &(_, field) in group {
                tf[field as usize] = tf[field as usize].saturating_add(1);
            }
            let term = group[0].0;
            self.postings[term as usize].push(Posting { doc: id, tf });
            terms.push(term);
        }
        self.seen = seen;
        let mut domain_terms = Vec::new();
        text::for_each_word(entry.domain, |w| domain_terms.push(self.term_of_word(w)));
        for (total, len) in self.total_lens.iter_mut().zip(lens) {
            *total += u64::from(len);
        }
        self.docs[id as usize] = Doc {
            name: entry.name.into(),
            hint: entry.hint.into(),
            domain: entry.domain.into(),
            lens,
            terms: terms.into(),
            domain_terms: domain_terms.into(),
            alive: true,
        };
        self.by_name.insert(entry.name.into(), id);
        self.live += 1;
    }

    /// Removes a tool; returns whether it was there.
    pub fn remove(&mut self, name: &str) -> bool {
        let Some(id) = self.by_name.remove(name) else {
            return false;
        };
        let doc = std::mem::replace(&mut self.docs[id as usize], Doc::placeholder());
        for &term in doc.terms.iter() {
            self.postings[term as usize].retain(|p| p.doc != id);
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
                std::array::from_fn(|f| {
                    let (w, b) = if ranking.field_weights {
                        (WEIGHTS[f], B[f])
                    } else {
                        (1.0, 0.75)
                    };
                    w / (1.0 - b + b * f32::from(doc.lens[f]) / avg[f])
                })
            })
            .collect();
        self.scored = self
            .postings
            .iter()
            .map(|list| {
                list.iter()
                    .map(|p| {
                        let norm = &norms[p.doc as usize];
                        let tf: f32 = (0..FIELDS).map(|f| f32::from(p.tf[f]) * norm[f]).sum();
                        (p.doc, tf / (K1 + tf))
                    })
                    .collect()
            })
            .collect();
    }

    fn term_of_word(&mut self, word: &str) -> TermId {
        if let Some(&term) = self.stems.get(word) {
            return term;
        }
        let stemmed = self.normal(word).into_owned();
        let term = self.intern(&stemmed);
        self.stems.insert(word.into(), term);
        term
    }

    fn intern(&mut self, term: &str) -> TermId {
        if let Some(&id) = self.dictionary.get(term) {
            return id;
        }
        let id = self.postings.len() as TermId;
        self.postings.push(Vec::new());
        self.dictionary.insert(term.into(), id);
        id
    }

    /// The query's terms: what the user typed at weight 1, expansions lower, each with the
    /// index of the query word it came from (a term two words share goes to the first).
    fn query_terms(&self, query: &str) -> (Vec<QueryTerm>, u32) {
        let mut terms: Vec<QueryTerm> = Vec::new();
        let mut words = 0u32;
        text::for_each_word(query, |word| {
            // Coordination counts at most 64 words; a query that long is mostly noise anyway.
            if text::is_stopword(word) || words >= 64 {
                return;
            }
            let group = words;
            let before = terms.len();
            let mut add =
                |term: TermId, weight: f32| match terms.iter_mut().find(|t| t.term == term) {
                    Some(t) => t.weight = t.weight.max(weight),
                    None => terms.push(QueryTerm {
                        term,
                        weight,
                        group,
                    }),
                };
            let stem = self.normal(word);
            if let Some(&term) = self.dictionary.get(&*stem) {
                add(term, 1.0);
            }
            if self.ranking.synonyms {
                for expansion in text::expansions(&text::stem(word)) {
                    if let Some(&term) = self.dictionary.get(expansion.as_str()) {
                        add(term, EXPANSION_WEIGHT);
                    }
                }
            }
            // A word no tool uses cannot be matched: it does not count against anyone.
            if terms.len() > before {
                words += 1;
            }
        });
        (terms, words)
    }

    /// The best `limit` tools for `query`, among those `keep` accepts, best first.
    pub fn search(&self, query: &str, limit: usize, keep: impl Fn(&Doc) -> bool) -> Vec<Hit> {
        let (query, words) = self.query_terms(query);
        if query.is_empty() || self.live == 0 || limit == 0 {
            return Vec::new();
        }
        let n = self.live as f32;
        SCRATCH.with_borrow_mut(|scratch| {
            scratch.reset(self.docs.len());
            for &QueryTerm {
                term,
                weight,
                group,
            } in &query
            {
                let Some(postings) = self.scored.get(term as usize) else {
                    continue;
                };
                if postings.is_empty() {
                    continue;
                }
                let df = postings.len() as f32;
                let scale = weight * (1.0 + (n - df + 0.5) / (df + 0.5)).ln();
                for &(doc, saturated) in postings {
                    scratch.add(doc, scale * saturated, group);
                }
            }
            let hits: Vec<Hit> = scratch
                .touched
                .iter()
                .filter(|&&doc| keep(&self.docs[doc as usize]))
                .map(|&doc| {
                    let (score, matched) = scratch.slots[doc as usize];
                    let coordination = if self.ranking.coordination {
                        (matched.count_ones() as f32 / words as f32).powf(COORDINATION)
                    } else {
                        1.0
                    };
                    Hit {
                        doc,
                        score: score * coordination * self.domain_boost(doc, &query),
                    }
                })
                .collect();
            self.best(hits, limit)
        })
    }

    /// The best `limit` hits, best first (ties by name).
    fn best(&self, mut hits: Vec<Hit>, limit: usize) -> Vec<Hit> {
        let order = |a: &Hit, b: &Hit| {
            b.score.total_cmp(&a.score).then_with(|| {
                self.docs[a.doc as usize]
                    .name
                    .cmp(&self.docs[b.doc as usize].name)
            })
        };
        // Only the best `limit` need sorting.
        if hits.len() > limit {
            hits.select_nth_unstable_by(limit - 1, order);
            hits.truncate(limit);
        }
        hits.sort_by(order);
        hits
    }

    /// A query that names a domain (`github`, `slack`) is about that domain's tools.
    fn domain_boost(&self, doc: DocId, query: &[QueryTerm]) -> f32 {
        let domain = &self.docs[doc as usize].domain_terms;
        let named = self.ranking.domains
            && query
                .iter()
                .any(|q| q.weight >= 1.0 && domain.contains(&q.term));
        if named { DOMAIN_BOOST } else { 1.0 }
    }

    /// Bytes the index holds on the heap (capacities, not just lengths).
    pub fn heap_bytes(&self) -> usize {
        use std::mem::size_of;
        let strings: usize = self.dictionary.keys().map(|k| k.len()).sum::<usize>()
            + self.stems.keys().map(|k| k.len()).sum::<usize>()
            + self.by_name.keys().map(|k| k.len()).sum::<usize>();
        let maps = (self.dictionary.capacity() + self.stems.capacity())
            * (size_of::<Box<str>>() + size_of::<TermId>() + 1)
            + self.by_name.capacity() * (size_of::<Box<str>>() + size_of::<DocId>() + 1);
        let postings: usize = self
            .postings
            .iter()
            .map(|p| p.capacity() * size_of::<Posting>())
            .sum::<usize>()
            + self.postings.capacity() * size_of::<Vec<Posting>>()
            + self
                .scored
                .iter()
                .map(|p| p.capacity() * size_of::<(DocId, f32)>())
                .sum::<usize>();
        let docs: usize = self
            .docs
            .iter()
            .map(|d| {
                d.name.len()
                    + d.hint.len()
                    + d.domain.len()
                    + (d.terms.len() + d.domain_terms.len()) * size_of::<TermId>()
            })
            .sum::<usize>()
            + self.docs.capacity() * size_of::<Doc>();
        strings + maps + postings + docs
    }
}

impl Doc {
    fn placeholder() -> Self {
        Self {
            name: "".into(),
            hint: "".into(),
            domain: "".into(),
            lens: [0; FIELDS],
            terms: Box::new([]),
            domain_terms: Box::new([]),
            alive: false,
        }
    }
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

    fn add(&mut self, doc: DocId, score: f32, word: u32) {
        let slot = &mut self.slots[doc as usize];
        if slot.1 == 0 {
            self.touched.push(doc);
        }
        slot.0 += score;
        slot.1 |= 1 << word;
    }
}

thread_local! {
    static SCRATCH: RefCell<Scratch> = RefCell::default();
}
