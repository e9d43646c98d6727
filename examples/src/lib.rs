//! Agent binaries built on tool-core; see `src/bin/`.
