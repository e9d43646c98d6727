//! What a definition costs in tokens.
//!
//! With the feature `tokens`, text is counted with OpenAI's `o200k_base` encoding (the GPT-4o,
//! GPT-4.1, o-series and GPT-5 tokenizer), whose ranks ship inside the `tiktoken-rs` crate:
//! nothing is downloaded. Without it, a token is estimated at four bytes, the rule of thumb
//! [`check`](tool_core::definition::check)'s budgets use, so a plain server does not link the tokenizer.
//!
//! Anthropic and Google publish no tokenizer for their current models (each offers a counting
//! endpoint, which needs the network and a key): their renderings are counted with the same
//! encoding, an estimate [`TOKENIZER`] names. A provider also wraps tool definitions in its own
//! prompt format, which adds a few tokens per tool and per request that no one outside can see;
//! the counts here are those of the JSON text of each rendering.
//!
//! ```
//! let n = tool_lock::tokens::count("This is a test         with a lot of spaces");
//! if tool_lock::tokens::EXACT {
//!     assert_eq!(n, 10); // o200k_base
//! } else {
//!     assert_eq!(n, 11); // 43 bytes, at four a token
//! }
//! ```

/// The name of the counter: `o200k_base`, or `estimate: 4 bytes a token` without the feature
/// `tokens`.
#[cfg(feature = "tokens")]
pub const TOKENIZER: &str = "o200k_base";
/// The name of the counter: `o200k_base`, or `estimate: 4 bytes a token` without the feature
/// `tokens`.
#[cfg(not(feature = "tokens"))]
pub const TOKENIZER: &str = "estimate: 4 bytes a token";

/// Whether [`count`] runs a real tokenizer (the feature `tokens`).
pub const EXACT: bool = cfg!(feature = "tokens");

/// The number of tokens in `text`: `o200k_base`'s, special tokens read as ordinary text (a
/// definition is data, never a control sequence).
#[cfg(feature = "tokens")]
pub fn count(text: &str) -> usize {
    tiktoken_rs::o200k_base_singleton()
        .encode_ordinary(text)
        .len()
}

/// The number of tokens in `text`, estimated at four bytes each.
#[cfg(not(feature = "tokens"))]
pub fn count(text: &str) -> usize {
    text.len().div_ceil(4)
}

#[cfg(all(test, feature = "tokens"))]
mod tests {
    use super::*;

    /// The encoding's own published vectors, as token counts.
    #[test]
    fn counts_match_the_published_vectors() {
        // tiktoken-rs, tests/tiktoken.rs, `o200k_base_test`: [2500, 382, 261, 1746, 269, 483,
        // 261, 3261, 328, 18608].
        assert_eq!(count("This is a test         with a lot of spaces"), 10);
        // openai/harmony, tests/test_harmony.py, `test_encode_allowed_special`: the o200k
        // vocabulary encodes "hello world" as [24912, 2375].
        assert_eq!(count("hello world"), 2);
        // Special tokens are text here: `<|endoftext|>` is not the one token 199999 the
        // tiktoken-rs vector above ends with when specials are allowed.
        assert!(count("<|endoftext|>") > 1);
        assert_eq!(count(""), 0);
    }

    /// The very encoding: `cl100k_base` splits this string differently.
    #[test]
    fn the_encoding_is_o200k() {
        let text = "This is a test         with a lot of spaces";
        let ids = tiktoken_rs::o200k_base_singleton().encode_ordinary(text);
        assert_eq!(ids, [2500, 382, 261, 1746, 269, 483, 261, 3261, 328, 18608]);
    }
}
