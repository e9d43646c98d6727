//! Tool vectors on disk, so a restart or a registry update embeds only new or changed tools.
//!
//! One file per model, `<dir>/<model id>.vectors`, keyed by the exact text embedded (not a
//! hash of it, so two texts never share a vector). The file is append-only: a header, then
//! records; a record cut short by a crash is dropped when the file is read, and a file that
//! is not one (another format, another vector length) is started afresh.
//!
//! ```text
//! header: b"tool-core vectors 1\n", dim: u32 LE
//! record: text length: u32 LE, text: UTF-8, vector: dim × f32 LE
//! ```

use std::collections::HashMap;
use std::fs::{self, File, OpenOptions};
use std::io::{self, BufWriter, Read, Write};
use std::path::{Path, PathBuf};

const MAGIC: &[u8] = b"tool-core vectors 1\n";
/// Longer texts are not tool texts: a length beyond it means a damaged file.
const MAX_TEXT: usize = 1 << 20;

/// The vector cache could not be opened.
#[derive(Debug, thiserror::Error)]
#[error("vector cache {}: {source}", path.display())]
pub struct CacheError {
    /// The file or directory.
    pub path: PathBuf,
    /// What went wrong.
    #[source]
    pub source: io::Error,
}

/// Vectors by the text they were embedded from, for one model.
#[derive(Debug)]
pub struct VectorCache {
    path: PathBuf,
    vectors: Vectors,
}

/// Where vectors are kept by default: `$XDG_CACHE_HOME/tool-core/vectors`, else
/// `$HOME/.cache/tool-core/vectors`; `None` when neither is set.
pub fn default_cache_dir() -> Option<PathBuf> {
    let base = std::env::var_os("XDG_CACHE_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| {
            std::env::var_os("HOME")
                .filter(|v| !v.is_empty())
                .map(|h| PathBuf::from(h).join(".cache"))
        })?;
    Some(base.join("tool-core").join("vectors"))
}

impl VectorCache {
    /// Opens (or creates) the cache of `model_id` in `dir`.
    pub fn open(dir: &Path, model_id: &str) -> Result<Self, CacheError> {
        fs::create_dir_all(dir).map_err(|source| CacheError {
            path: dir.to_owned(),
            source,
        })?;
        let file: String = model_id
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '-' || c == '.' {
                    c
                } else {
                    '_'
                }
            })
            .collect();
        let path = dir.join(format!("{file}.vectors"));
        let vectors = match File::open(&path) {
            Ok(file) => {
                let size = file.metadata().map_or(0, |m| m.len() as usize);
                decode(file, size).unwrap_or_default()
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => Vectors::default(),
            Err(source) => return Err(CacheError { path, source }),
        };
        Ok(Self { path, vectors })
    }

    /// The vector embedded from `text`, if it is cached.
    pub fn get(&self, text: &str) -> Option<&[f32]> {
        self.vectors.get(text)
    }

    /// How many vectors it holds.
    pub fn len(&self) -> usize {
        self.vectors.len()
    }

    /// Whether it holds none.
    pub fn is_empty(&self) -> bool {
        self.vectors.is_empty()
    }

    /// Adds vectors, in memory and at the end of the file. A vector of another length than the
    /// file's starts the file afresh (the model changed under the same id).
    pub fn append(&mut self, records: &[(String, Vec<f32>)]) -> io::Result<()> {
        let Some((_, first)) = records.first() else {
            return Ok(());
        };
        let dim = first.len();
        // A file of empty vectors could not be read back (its header would say 0).
        if dim == 0 || records.iter().any(|(_, v)| v.len() != dim) {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "vectors of no length or of different lengths",
            ));
        }
        let fresh = self.vectors.dim != dim;
        let file = if fresh {
            File::create(&self.path)?
        } else {
            OpenOptions::new().append(true).open(&self.path)?
        };
        // Only once the file is started afresh: else a later append would add records of the
        // new length under the old header.
        if fresh {
            self.vectors = Vectors::new(dim);
        }
        let mut out = BufWriter::new(file);
        if fresh {
            out.write_all(MAGIC)?;
            out.write_all(&u32_bytes(dim)?)?;
        }
        for (text, vector) in records {
            out.write_all(&encode_record(text, vector)?)?;
            self.vectors.insert(text, vector.iter().copied());
        }
        out.flush()
    }
}

fn u32_bytes(n: usize) -> io::Result<[u8; 4]> {
    u32::try_from(n)
        .map(u32::to_le_bytes)
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "too long for the cache"))
}

fn encode_record(text: &str, vector: &[f32]) -> io::Result<Vec<u8>> {
    let mut out = Vec::with_capacity(4 + text.len() + vector.len() * 4);
    out.extend_from_slice(&u32_bytes(text.len())?);
    out.extend_from_slice(text.as_bytes());
    for x in vector {
        out.extend_from_slice(&x.to_le_bytes());
    }
    Ok(out)
}

/// Vectors by the text embedded, in one buffer: a warm start reads tens of thousands of them,
/// and one allocation each made most of its time.
#[derive(Debug, Default)]
struct Vectors {
    /// The vector length; 0 before the first vector, when no file was read.
    dim: usize,
    /// Where each text's vector starts in `data`, in vectors.
    at: HashMap<Box<str>, usize>,
    data: Vec<f32>,
}

impl Vectors {
    fn new(dim: usize) -> Self {
        Self::with_capacity(dim, 0)
    }

    fn with_capacity(dim: usize, vectors: usize) -> Self {
        // A damaged length in a file must not reserve gigabytes: at most what it could hold.
        let vectors = vectors.min(1 << 20);
        Self {
            dim,
            at: HashMap::with_capacity(vectors),
            data: Vec::with_capacity(vectors * dim),
        }
    }

    fn get(&self, text: &str) -> Option<&[f32]> {
        let at = *self.at.get(text)? * self.dim;
        self.data.get(at..at + self.dim)
    }

    fn len(&self) -> usize {
        self.at.len()
    }

    fn is_empty(&self) -> bool {
        self.at.is_empty()
    }

    #[cfg(test)]
    fn to_map(&self) -> HashMap<String, Vec<f32>> {
        self.at
            .keys()
            .map(|t| (t.to_string(), self.get(t).unwrap_or_default().to_vec()))
            .collect()
    }

    /// Adds or replaces `text`'s vector (of the length the set holds).
    fn insert(&mut self, text: &str, vector: impl IntoIterator<Item = f32>) {
        match self.at.get(text) {
            Some(&i) => {
                let slot = &mut self.data[i * self.dim..(i + 1) * self.dim];
                for (x, v) in slot.iter_mut().zip(vector) {
                    *x = v;
                }
            }
            None => {
                self.at
                    .insert(text.into(), self.data.len() / self.dim.max(1));
                let start = self.data.len();
                self.data.extend(vector.into_iter().take(self.dim));
                self.data.resize(start + self.dim, 0.0);
            }
        }
    }
}

/// The vectors of a cache file: `None` if it is not one; records after a damaged one dropped.
fn decode(input: impl Read, size: usize) -> Option<Vectors> {
    // Read as a stream, not into one buffer first: a warm start of 10,000 tools reads some
    // 60 MB, and a second copy of it cost as much as the decoding.
    let mut input = io::BufReader::with_capacity(1 << 16, input);
    let mut magic = [0; MAGIC.len()];
    input.read_exact(&mut magic).ok()?;
    if magic != MAGIC {
        return None;
    }
    let dim = read_u32(&mut input)?;
    if dim == 0 || dim > MAX_TEXT {
        return None;
    }
    let mut vectors = Vectors::with_capacity(dim, size / (dim * 4 + 4));
    let (mut text, mut raw) = (Vec::new(), vec![0; dim * 4]);
    while let Some(len) = read_u32(&mut input) {
        if len > MAX_TEXT {
            break;
        }
        text.resize(len, 0);
        if input.read_exact(&mut text).is_err() || input.read_exact(&mut raw).is_err() {
            break;
        }
        let Ok(text) = std::str::from_utf8(&text) else {
            break;
        };
        let vector = raw
            .chunks_exact(4)
            .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]));
        vectors.insert(text, vector);
    }
    Some(vectors)
}

fn read_u32(input: &mut impl Read) -> Option<usize> {
    let mut head = [0; 4];
    input.read_exact(&mut head).ok()?;
    Some(u32::from_le_bytes(head) as usize)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn encode(dim: usize, records: &[(String, Vec<f32>)]) -> Vec<u8> {
        let mut out = MAGIC.to_vec();
        out.extend_from_slice(&u32_bytes(dim).unwrap());
        for (t, v) in records {
            out.extend_from_slice(&encode_record(t, v).unwrap());
        }
        out
    }

    proptest! {
        #[test]
        fn what_is_written_is_read_back(
            dim in 1usize..8,
            texts in proptest::collection::vec(".{0,40}", 0..20),
            seed in any::<u32>(),
        ) {
            let records: Vec<(String, Vec<f32>)> = texts
                .iter()
                .enumerate()
                .map(|(i, t)| (t.clone(), (0..dim).map(|j| (seed as f32) * 0.5 - (i * dim + j) as f32).collect()))
                .collect();
            let got = decode(&encode(dim, &records)[..], 0).expect("a cache file");
            prop_assert_eq!(got.dim, dim);
            let want: HashMap<String, Vec<f32>> = records.into_iter().collect();
            prop_assert_eq!(got.to_map(), want);
        }

        #[test]
        fn a_file_cut_anywhere_keeps_the_whole_records_before_the_cut(
            texts in proptest::collection::vec("[a-z]{0,12}", 1..10),
            cut in any::<prop::sample::Index>(),
        ) {
            let records: Vec<(String, Vec<f32>)> =
                texts.iter().map(|t| (t.clone(), vec![1.0, 2.0])).collect();
            let bytes = encode(2, &records);
            let at = cut.index(bytes.len() + 1);
            if let Some(got) = decode(&bytes[..at], at) {
                for (text, vector) in &got.to_map() {
                    prop_assert!(records.iter().any(|(t, v)| t == text && v == vector));
                }
            }
        }

        #[test]
        fn any_bytes_decode_without_panicking(bytes in proptest::collection::vec(any::<u8>(), 0..200)) {
            let mut with_magic = MAGIC.to_vec();
            with_magic.extend_from_slice(&bytes);
            let _ = decode(&bytes[..], bytes.len());
            let _ = decode(&with_magic[..], with_magic.len());
        }
    }

    #[test]
    fn vectors_survive_a_reopen_and_a_new_length_starts_afresh() {
        let dir = std::env::temp_dir().join(format!("tool-core-cache-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        let mut cache = VectorCache::open(&dir, "model/a b").unwrap();
        assert!(cache.is_empty());
        cache.append(&[("one".into(), vec![1.0, 0.0])]).unwrap();
        cache.append(&[("two".into(), vec![0.0, 1.0])]).unwrap();
        let cache = VectorCache::open(&dir, "model/a b").unwrap();
        assert_eq!(cache.len(), 2);
        assert_eq!(cache.get("two"), Some(&[0.0, 1.0][..]));
        let mut cache = VectorCache::open(&dir, "model/a b").unwrap();
        cache
            .append(&[("three".into(), vec![1.0, 2.0, 3.0])])
            .unwrap();
        let cache = VectorCache::open(&dir, "model/a b").unwrap();
        assert_eq!((cache.len(), cache.get("one")), (1, None));
        fs::remove_dir_all(&dir).unwrap();
    }
}
