//! The inverted index and its ranking: BM25F over a tool's fields, with query expansion and
//! bonuses for words of the tool's name.

use std::collections::HashMap;

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

pub(super) const FIELDS: usize = 6;

/// How much each field counts, and how much its length normalises (BM25F's w and b).
const WEIGHTS: [f32; FIELDS] = [3.0, 1.5, 1.0, 0.4, 1.2, 0.6];
const B: [f32; FIELDS] = [0.3, 0.5, 0.75, 0.75, 0.3, 0.5];
const K1: f32 = 1.2;
/// How much an expanded term (a synonym or an abbreviation's expansion) counts against the
/// word the user typed.
const EXPANSION_WEIGHT: f32 = 0.5;
/// Bonus per fraction of the name's action and object words the query names.
const NAME_COVERAGE_BONUS: f32 = 0.6;

pub(super) type DocId = u32;
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
    /// The name's terms without the domain's (what the tool does, not where).
    name_terms: Box<[TermId]>,
    alive: bool,
}

/// What a tool contributes to the index, field by field.
pub(super) struct Entry<'a> {
    pub name: &'a str,
    pub hint: &'a str,
    pub domain: &'a str,
    pub fields: [String; FIELDS],
}

#[derive(Debug, Default)]
pub(super) struct Index {
    dictionary: HashMap<Box<str>, TermId>,
    postings: Vec<Vec<Posting>>,
    docs: Vec<Doc>,
    by_name: HashMap<Box<str>, DocId>,
    free: Vec<DocId>,
    live: usize,
    total_lens: [u64; FIELDS],
    /// Stems of words seen before: most words repeat across tools.
    stems: HashMap<Box<str>, TermId>,
}

/// A ranked result.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Hit {
    pub doc: DocId,
    pub score: f32,
}

impl Index {
    pub fn len(&self) -> usize {
        self.live
    }

    pub fn doc(&self, id: DocId) -> &Doc {
        &self.docs[id as usize]
    }

    pub fn contains(&self, name: &str) -> bool {
        self.by_name.contains_key(name)
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
        let mut tf: HashMap<TermId, [u16; FIELDS]> = HashMap::new();
        let mut lens = [0u16; FIELDS];
        for (field, text) in entry.fields.iter().enumerate() {
            for word in text::words(text) {
                if text::is_stopword(&word) {
                    continue;
                }
                let term = self.term_of_word(&word);
                let counts = tf.entry(term).or_insert([0; FIELDS]);
                counts[field] = counts[field].saturating_add(1);
                lens[field] = lens[field].saturating_add(1);
            }
        }
        let domain_terms: Vec<TermId> = text::words(entry.domain)
            .iter()
            .filter_map(|w| self.stems.get(w.as_str()).copied())
            .collect();
        let mut name_terms: Vec<TermId> = text::words(entry.name)
            .iter()
            .filter(|w| !text::is_stopword(w))
            .filter_map(|w| self.stems.get(w.as_str()).copied())
            .filter(|t| !domain_terms.contains(t))
            .collect();
        name_terms.dedup();
        let mut terms: Vec<TermId> = tf.keys().copied().collect();
        terms.sort_unstable();
        for (&term, &counts) in &tf {
            self.postings[term as usize].push(Posting {
                doc: id,
                tf: counts,
            });
        }
        for (total, len) in self.total_lens.iter_mut().zip(lens) {
            *total += u64::from(len);
        }
        self.docs[id as usize] = Doc {
            name: entry.name.into(),
            hint: entry.hint.into(),
            domain: entry.domain.into(),
            lens,
            terms: terms.into(),
            name_terms: name_terms.into(),
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

    fn term_of_word(&mut self, word: &str) -> TermId {
        if let Some(&term) = self.stems.get(word) {
            return term;
        }
        let stemmed = text::stem(word);
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

    /// The query's terms with their weights: what the user typed at 1, expansions lower.
    fn query_terms(&self, query: &str) -> Vec<(TermId, f32)> {
        let mut weighted: Vec<(TermId, f32)> = Vec::new();
        let mut add =
            |term: TermId, weight: f32| match weighted.iter_mut().find(|(t, _)| *t == term) {
                Some((_, w)) => *w = w.max(weight),
                None => weighted.push((term, weight)),
            };
        for word in text::words(query) {
            if text::is_stopword(&word) {
                continue;
            }
            let stem = text::stem(&word);
            if let Some(&term) = self.dictionary.get(&*stem) {
                add(term, 1.0);
            }
            for expansion in text::expansions(&stem) {
                if let Some(&term) = self.dictionary.get(expansion.as_str()) {
                    add(term, EXPANSION_WEIGHT);
                }
            }
        }
        weighted
    }

    /// The best `limit` tools for `query`, among those `keep` accepts, best first.
    pub fn search(&self, query: &str, limit: usize, keep: impl Fn(&Doc) -> bool) -> Vec<Hit> {
        let query = self.query_terms(query);
        if query.is_empty() || self.live == 0 || limit == 0 {
            return Vec::new();
        }
        let n = self.live as f32;
        let avg: [f32; FIELDS] = std::array::from_fn(|f| (self.total_lens[f] as f32 / n).max(1.0));
        // One slot per document, and the documents touched, so nothing is hashed per posting.
        let mut scores = vec![0f32; self.docs.len()];
        let mut touched: Vec<DocId> = Vec::new();
        for &(term, weight) in &query {
            let postings = &self.postings[term as usize];
            if postings.is_empty() {
                continue;
            }
            let df = postings.len() as f32;
            let idf = (1.0 + (n - df + 0.5) / (df + 0.5)).ln();
            for p in postings {
                let doc = &self.docs[p.doc as usize];
                let mut tf = 0.0;
                for f in 0..FIELDS {
                    if p.tf[f] > 0 {
                        let norm = 1.0 - B[f] + B[f] * f32::from(doc.lens[f]) / avg[f];
                        tf += WEIGHTS[f] * f32::from(p.tf[f]) / norm;
                    }
                }
                let slot = &mut scores[p.doc as usize];
                if *slot == 0.0 {
                    touched.push(p.doc);
                }
                *slot += weight * idf * tf / (K1 + tf);
            }
        }
        let mut hits: Vec<Hit> = touched
            .into_iter()
            .filter(|&doc| keep(&self.docs[doc as usize]))
            .map(|doc| Hit {
                doc,
                score: scores[doc as usize]
                    * (1.0 + NAME_COVERAGE_BONUS * self.name_coverage(doc, &query)),
            })
            .collect();
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

    /// The share of the tool's own name words (its action and object, not its domain) that the
    /// query names, directly or through an expansion.
    fn name_coverage(&self, doc: DocId, query: &[(TermId, f32)]) -> f32 {
        let name = &self.docs[doc as usize].name_terms;
        if name.is_empty() {
            return 0.0;
        }
        let covered: f32 = name
            .iter()
            .map(|t| {
                query
                    .iter()
                    .filter(|(q, _)| q == t)
                    .map(|(_, w)| *w)
                    .fold(0.0, f32::max)
            })
            .sum();
        covered / name.len() as f32
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
            + self.postings.capacity() * size_of::<Vec<Posting>>();
        let docs: usize = self
            .docs
            .iter()
            .map(|d| {
                d.name.len()
                    + d.hint.len()
                    + d.domain.len()
                    + (d.terms.len() + d.name_terms.len()) * size_of::<TermId>()
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
            name_terms: Box::new([]),
            alive: false,
        }
    }
}
