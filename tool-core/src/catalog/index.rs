//! The inverted index and its ranking: BM25F over a tool's fields, with query expansion,
//! coordination (tools matching more of the query first) and domain grouping.

use std::cell::RefCell;
use std::sync::Arc;

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
    pub name: Arc<str>,
    pub hint: Box<str>,
    pub domain: Box<str>,
    lens: [u16; FIELDS],
    /// Distinct terms, for removal.
    terms: Box<[TermId]>,
    /// The domain name's terms.
    domain_terms: Box<[TermId]>,
    alive: bool,
}

/// What a tool contributes to the index: its texts, each with its field.
pub(super) struct Entry<'a> {
    pub name: &'a str,
    pub hint: &'a str,
    pub domain: &'a str,
    pub texts: Vec<(Field, &'a str)>,
}

/// Documents split into terms, the terms numbered within the batch: the part of indexing that
/// needs no access to the index, so batches are made on several threads at once.
struct Batch {
    /// The batch's distinct terms (stems, when stemming is on), by their number.
    terms: Vec<Box<str>>,
    docs: Vec<Tokenized>,
}

struct Tokenized {
    name: Arc<str>,
    hint: Box<str>,
    domain: Box<str>,
    lens: [u16; FIELDS],
    /// (term, its count in each field) for each distinct term, in the order first read.
    counts: Vec<(u32, [u16; FIELDS])>,
    /// The terms of the domain's name.
    domain_terms: Vec<u32>,
}

impl Batch {
    fn tokenize<T>(items: &[T], entry: impl Fn(&T) -> Entry<'_>, stemming: bool) -> Self {
        let mut words = Words::new(stemming);
        // Per term: the document (numbered from 1) that last counted it, and where in that
        // document's counts it is; counting needs no sort and no map per document.
        let mut last_doc: Vec<u32> = Vec::new();
        let mut at: Vec<u32> = Vec::new();
        // Reused across documents: each document's counts are copied out once, at their size.
        let mut counts: Vec<(u32, [u16; FIELDS])> = Vec::new();
        let docs = items
            .iter()
            .zip(1u32..)
            .map(|(item, doc)| {
                let entry = entry(item);
                let mut lens = [0u16; FIELDS];
                counts.clear();
                for &(field, text) in &entry.texts {
                    let field = field as usize;
                    text::for_each_word(text, |word| {
                        let Some(term) = words.term(word) else {
                            return; // a stopword
                        };
                        let t = term as usize;
                        if t >= last_doc.len() {
                            last_doc.resize(t + 1, 0);
                            at.resize(t + 1, 0);
                        }
                        if last_doc[t] != doc {
                            last_doc[t] = doc;
                            at[t] = counts.len() as u32;
                            counts.push((term, [0; FIELDS]));
                        }
                        let tf = &mut counts[at[t] as usize].1[field];
                        *tf = tf.saturating_add(1);
                        lens[field] = lens[field].saturating_add(1);
                    });
                }
                let mut domain_terms = Vec::new();
                text::for_each_word(entry.domain, |w| domain_terms.push(words.term_of(w)));
                Tokenized {
                    name: entry.name.into(),
                    hint: entry.hint.into(),
                    domain: entry.domain.into(),
                    lens,
                    counts: counts.clone(),
                    domain_terms,
                }
            })
            .collect();
        Self {
            terms: words.terms,
            docs,
        }
    }
}

/// Numbers words in the order they are first seen and gives each its term: its stem's number
/// when stemming (`issue`, `issues` are one term), else its own. Stopwords and stems are worked
/// out once per distinct word. Words of up to 16 bytes are keyed by their bytes packed into an
/// integer: no string comparison per lookup.
struct Words {
    stemming: bool,
    short: HashMap<u128, u32>,
    long: HashMap<Box<str>, u32>,
    /// Per word: its term, and whether it is a stopword.
    word_terms: Vec<(u32, bool)>,
    /// The distinct terms, by number.
    terms: Vec<Box<str>>,
    stems: HashMap<Box<str>, u32>,
}

impl Words {
    fn new(stemming: bool) -> Self {
        Self {
            stemming,
            short: HashMap::default(),
            long: HashMap::default(),
            word_terms: Vec::new(),
            terms: Vec::new(),
            stems: HashMap::default(),
        }
    }

    /// The word's term, or `None` for a stopword.
    fn term(&mut self, word: &str) -> Option<u32> {
        let number = self.number(word) as usize;
        let (term, stopword) = self.word_terms[number];
        (!stopword).then_some(term)
    }

    /// The word's term, stopword or not (a domain's name is kept whole).
    fn term_of(&mut self, word: &str) -> u32 {
        let number = self.number(word) as usize;
        self.word_terms[number].0
    }

    fn number(&mut self, word: &str) -> u32 {
        let next = self.word_terms.len() as u32;
        let number = match pack(word) {
            Some(key) => *self.short.entry(key).or_insert(next),
            None => match self.long.get(word) {
                Some(&n) => n,
                None => {
                    self.long.insert(word.into(), next);
                    next
                }
            },
        };
        if number == next {
            let term = self.new_term(word);
            self.word_terms.push((term, text::is_stopword(word)));
        }
        number
    }

    fn new_term(&mut self, word: &str) -> u32 {
        let next = self.terms.len() as u32;
        if !self.stemming {
            self.terms.push(word.into());
            return next;
        }
        let stem = text::stem(word);
        if let Some(&term) = self.stems.get(&*stem) {
            return term;
        }
        let stem: Box<str> = stem.into();
        self.stems.insert(stem.clone(), next);
        self.terms.push(stem);
        next
    }
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
    by_name: HashMap<Arc<str>, DocId>,
    free: Vec<DocId>,
    live: usize,
    total_lens: [u64; FIELDS],
    /// Postings of documents inserted since the last [`Index::renormalize`], moved into
    /// `postings` there in one pass: each term's list then grows once, not once per document.
    pending: Vec<(TermId, Posting)>,
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

    /// Adds tools (a later one replacing an earlier one of the same name), each described by
    /// `entry`. Large batches are read and split into terms on every core; terms are then
    /// numbered here, in order.
    pub fn insert_many<T: Sync>(&mut self, items: &[T], entry: impl Fn(&T) -> Entry<'_> + Sync) {
        let stemming = self.ranking.stemming;
        let batches = in_parallel(items, 1024, |part| Batch::tokenize(part, &entry, stemming));
        for batch in batches {
            self.add_batch(batch);
        }
    }

    /// Indexes the documents of a batch, its terms numbered as terms of this index.
    fn add_batch(&mut self, batch: Batch) {
        let global: Vec<TermId> = batch.terms.iter().map(|t| self.intern(t)).collect();
        for doc in batch.docs {
            self.remove(&doc.name);
            let id = match self.free.pop() {
                Some(id) => id,
                None => {
                    self.docs.push(Doc::placeholder());
                    (self.docs.len() - 1) as DocId
                }
            };
            // Distinct terms of the batch are distinct terms here: no merging left to do.
            let terms: Box<[TermId]> = doc
                .counts
                .iter()
                .map(|&(term, tf)| {
                    let term = global[term as usize];
                    self.pending.push((term, Posting { doc: id, tf }));
                    term
                })
                .collect();
            for (total, len) in self.total_lens.iter_mut().zip(doc.lens) {
                *total += u64::from(len);
            }
            self.by_name.insert(doc.name.clone(), id);
            self.docs[id as usize] = Doc {
                name: doc.name,
                hint: doc.hint,
                domain: doc.domain,
                lens: doc.lens,
                terms,
                domain_terms: doc
                    .domain_terms
                    .iter()
                    .map(|&t| global[t as usize])
                    .collect(),
                alive: true,
            };
            self.live += 1;
        }
    }

    /// Removes a tool; returns whether it was there.
    pub fn remove(&mut self, name: &str) -> bool {
        let Some(id) = self.by_name.remove(name) else {
            return false;
        };
        self.flush();
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
        // Taken, not drained: a large batch's buffer is not kept.
        let pending = std::mem::take(&mut self.pending);
        // Each part of the terms takes its pending postings, then scores its lists in place:
        // after the first build, rescoring allocates nothing.
        let score = |first: usize, lists: &mut [Vec<Posting>], out: &mut [Vec<(DocId, f32)>]| {
            append(lists, first, &pending);
            for (list, out) in lists.iter().zip(out) {
                out.clear();
                out.extend(list.iter().map(|p| {
                    let norm = &norms[p.doc as usize];
                    let tf: f32 = (0..FIELDS).map(|f| f32::from(p.tf[f]) * norm[f]).sum();
                    (p.doc, tf / (K1 + tf))
                }));
            }
        };
        self.scored.resize_with(self.postings.len(), Vec::new);
        let chunk = self
            .postings
            .len()
            .div_ceil(threads_for(self.postings.len(), 4096))
            .max(1);
        if chunk >= self.postings.len() {
            return score(0, &mut self.postings, &mut self.scored);
        }
        std::thread::scope(|scope| {
            for (part, (lists, out)) in self
                .postings
                .chunks_mut(chunk)
                .zip(self.scored.chunks_mut(chunk))
                .enumerate()
            {
                scope.spawn(move || score(part * chunk, lists, out));
            }
        });
    }

    /// Moves the pending postings into each term's list.
    fn flush(&mut self) {
        append(&mut self.postings, 0, &std::mem::take(&mut self.pending));
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
            + self.by_name.keys().map(|k| k.len()).sum::<usize>();
        let maps = self.dictionary.capacity() * (size_of::<Box<str>>() + size_of::<TermId>() + 1)
            + self.pending.capacity() * size_of::<(TermId, Posting)>()
            + self.by_name.capacity() * (size_of::<Arc<str>>() + size_of::<DocId>() + 1);
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

/// Appends to `lists` (the lists of terms `first..`) the pending postings of their terms, each
/// list grown once.
fn append(lists: &mut [Vec<Posting>], first: usize, pending: &[(TermId, Posting)]) {
    if pending.is_empty() {
        return;
    }
    let len = lists.len();
    let mine = |term: TermId| (term as usize).checked_sub(first).filter(|&i| i < len);
    let mut added = vec![0u32; lists.len()];
    for &(term, _) in pending {
        if let Some(i) = mine(term) {
            added[i] += 1;
        }
    }
    for (list, added) in lists.iter_mut().zip(added) {
        list.reserve_exact(added as usize);
    }
    for &(term, posting) in pending {
        if let Some(i) = mine(term) {
            lists[i].push(posting);
        }
    }
}

/// How many threads to split `items` items over: one per core, with at least `per_thread` each.
fn threads_for(items: usize, per_thread: usize) -> usize {
    std::thread::available_parallelism()
        .map_or(1, usize::from)
        .min(items / per_thread)
        .max(1)
}

/// `f` over `items` split into consecutive parts, one per core when there are at least
/// `per_thread` items for each; the results in order.
fn in_parallel<T: Sync, R: Send>(
    items: &[T],
    per_thread: usize,
    f: impl Fn(&[T]) -> R + Sync,
) -> Vec<R> {
    let threads = threads_for(items.len(), per_thread);
    if threads == 1 {
        return vec![f(items)];
    }
    let chunk = items.len().div_ceil(threads);
    std::thread::scope(|scope| {
        let workers: Vec<_> = items
            .chunks(chunk)
            .map(|part| scope.spawn(|| f(part)))
            .collect();
        workers
            .into_iter()
            .map(|worker| {
                worker
                    .join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
            })
            .collect()
    })
}

/// A word of at most 16 bytes as an integer, its bytes in order and zeros after: words hold
/// letters and digits only, never a zero byte, so no two words share a key.
fn pack(word: &str) -> Option<u128> {
    let bytes = word.as_bytes();
    if bytes.len() > 16 {
        return None;
    }
    let mut key = [0u8; 16];
    key[..bytes.len()].copy_from_slice(bytes);
    Some(u128::from_le_bytes(key))
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

#[cfg(test)]
mod tests {
    use super::*;

    fn entry<'a>(name: &'a str, description: &'a str) -> Entry<'a> {
        Entry {
            name,
            hint: "",
            domain: "d",
            texts: vec![(Field::Name, name), (Field::Description, description)],
        }
    }

    #[test]
    fn words_sharing_a_stem_count_as_one_term() {
        let mut index = Index::default();
        index.insert_many(&[("list_issues", "issue issues Issue")], |&(n, d)| {
            entry(n, d)
        });
        index.renormalize();
        let term = index.dictionary["issu"] as usize;
        assert_eq!(index.postings[term].len(), 1);
        let tf = index.postings[term][0].tf;
        assert_eq!(tf[Field::Name as usize], 1);
        assert_eq!(tf[Field::Description as usize], 3);
    }

    #[test]
    fn batches_split_across_threads_index_like_one_by_one() {
        // Enough tools for several threads; names repeat words across the split.
        let texts: Vec<(String, String)> = (0..3000)
            .map(|i| {
                (
                    format!("get_item_{}", i % 1500),
                    format!("Gets items {i} of kind {} from store {}", i % 7, i % 13),
                )
            })
            .collect();
        let mut batched = Index::default();
        batched.insert_many(&texts, |(n, d)| entry(n, d));
        batched.renormalize();
        let mut single = Index::default();
        for text in &texts {
            single.insert_many(std::slice::from_ref(text), |(n, d)| entry(n, d));
        }
        single.renormalize();
        // Later duplicates replaced earlier ones in both.
        assert_eq!(batched.len(), 1500);
        assert_eq!(single.len(), 1500);
        for query in ["item 42 kind 3", "store 12", "gets items 2999"] {
            let names = |index: &Index| -> Vec<(String, u32)> {
                index
                    .search(query, 10, |_| true)
                    .into_iter()
                    .map(|h| (index.doc(h.doc).name.to_string(), (h.score * 1e4) as u32))
                    .collect()
            };
            assert_eq!(names(&batched), names(&single), "{query}");
        }
    }
}
