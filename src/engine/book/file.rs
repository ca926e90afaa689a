//! The file format of an opening book: what the builder searched, position by position.
//!
//! A position is stored as its hash and the search score of each of its legal moves, in the
//! canonical move order ([`canonical_moves`](crate::core::movegen::canonical_moves): by from
//! square, to square and captured set). Nothing else is needed: the positions are found again
//! by playing the moves from the start position, and the scores backed up through the tree
//! are computed when the book is read ([`Book`](super::Book)).
//!
//! All integers little-endian:
//!
//! | bytes | field |
//! |---|---|
//! | 8 | magic `DMSTBOOK` |
//! | 2 | format version (1) |
//! | 2 | PDN GameType of the variant |
//! | 8 | hash of the variant's start position (checks that the hash keys are this build's) |
//! | 8 | nodes searched per move when the book was built |
//! | 4 | number of positions `n` |
//! | 4 | reserved (0) |
//!
//! then `n` positions in ascending order of hash:
//!
//! | bytes | field |
//! |---|---|
//! | 8 | hash of the position |
//! | 1 | number of legal moves `k` |
//! | 2k | per move in canonical order: the score after it for the side that plays it, in hundredths of a man (i16) |
//!
//! and last a 4-byte FNV-1a checksum of every byte before it.

use crate::engine::filefmt::fnv1a;
use std::collections::BTreeMap;

/// The file's first bytes.
pub const MAGIC: &[u8; 8] = b"DMSTBOOK";
/// The format version.
pub const VERSION: u16 = 1;
/// Size of the header in bytes.
pub const HEADER_LEN: usize = 36;

/// What is wrong with a book file.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum BookError {
    /// Not a book file.
    #[error("not a Damast opening book (the file does not start with DMSTBOOK)")]
    BadMagic,
    /// A version this build does not read.
    #[error("book format version {0} is not supported (this build reads version {VERSION})")]
    Version(u16),
    /// The book is for another variant.
    #[error("the book is for GameType {found}, not for {expected} (build one with `damast book build --variant ...`)")]
    Variant {
        /// GameType of the variant asked for.
        expected: u16,
        /// GameType in the file.
        found: u16,
    },
    /// The GameType is not one of a variant this build plays.
    #[error("the book is for GameType {0}, which this build does not play")]
    UnknownVariant(u16),
    /// The book was built with other hash keys.
    #[error("the book's start position hash does not match this build (rebuild the book)")]
    HashKeys,
    /// The file ends early or has bytes after its last position.
    #[error("the book file is truncated or damaged at byte {0}")]
    Truncated(usize),
    /// Positions not in ascending order of hash, or one twice.
    #[error("the book's positions are not in ascending order of hash at byte {0} (damaged)")]
    Order(usize),
    /// The checksum does not match.
    #[error("the book file's checksum does not match (damaged)")]
    Checksum,
    /// Reading the file failed.
    #[error("cannot read the book {path}: {reason}")]
    Io {
        /// The file.
        path: String,
        /// The system's reason.
        reason: String,
    },
}

/// A book as stored: the search scores of the moves of each position, by hash.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RawBook {
    /// PDN GameType of the variant.
    pub game_type: u16,
    /// Hash of the variant's start position.
    pub start_hash: u64,
    /// Nodes searched per move.
    pub nodes: u64,
    /// Per position hash, the score of each legal move (canonical order) for its mover.
    pub positions: BTreeMap<u64, Vec<i16>>,
}

impl RawBook {
    /// The file's bytes.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(HEADER_LEN + self.positions.len() * 32 + 4);
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&VERSION.to_le_bytes());
        out.extend_from_slice(&self.game_type.to_le_bytes());
        out.extend_from_slice(&self.start_hash.to_le_bytes());
        out.extend_from_slice(&self.nodes.to_le_bytes());
        out.extend_from_slice(&(self.positions.len() as u32).to_le_bytes());
        out.extend_from_slice(&[0; 4]);
        for (hash, scores) in &self.positions {
            assert!(scores.len() <= 255, "a book position has at most 255 moves");
            out.extend_from_slice(&hash.to_le_bytes());
            out.push(scores.len() as u8);
            for s in scores {
                out.extend_from_slice(&s.to_le_bytes());
            }
        }
        let sum = fnv1a(&out);
        out.extend_from_slice(&sum.to_le_bytes());
        out
    }

    /// Reads a book file's bytes, checking their structure and checksum.
    pub fn from_bytes(bytes: &[u8]) -> Result<RawBook, BookError> {
        if bytes.len() < 8 || &bytes[..8] != MAGIC {
            return Err(BookError::BadMagic);
        }
        if bytes.len() < HEADER_LEN + 4 {
            return Err(BookError::Truncated(bytes.len()));
        }
        let u16_at = |i: usize| u16::from_le_bytes([bytes[i], bytes[i + 1]]);
        let u64_at = |i: usize| u64::from_le_bytes(bytes[i..i + 8].try_into().expect("8 bytes"));
        let version = u16_at(8);
        if version != VERSION {
            return Err(BookError::Version(version));
        }
        let (body, sum) = bytes.split_at(bytes.len() - 4);
        if fnv1a(body) != u32::from_le_bytes(sum.try_into().expect("4 bytes")) {
            return Err(BookError::Checksum);
        }
        let n = u32::from_le_bytes(bytes[28..32].try_into().expect("4 bytes")) as usize;
        let mut book = RawBook {
            game_type: u16_at(10),
            start_hash: u64_at(12),
            nodes: u64_at(20),
            positions: BTreeMap::new(),
        };
        let mut at = HEADER_LEN;
        let mut last: Option<u64> = None;
        for _ in 0..n {
            if at + 9 > body.len() {
                return Err(BookError::Truncated(at));
            }
            let hash = u64_at(at);
            if last.is_some_and(|l| l >= hash) {
                return Err(BookError::Order(at));
            }
            last = Some(hash);
            let k = body[at + 8] as usize;
            at += 9;
            if at + 2 * k > body.len() {
                return Err(BookError::Truncated(at));
            }
            let scores = (0..k)
                .map(|i| i16::from_le_bytes([body[at + 2 * i], body[at + 2 * i + 1]]))
                .collect();
            at += 2 * k;
            book.positions.insert(hash, scores);
        }
        if at != body.len() {
            return Err(BookError::Truncated(at));
        }
        Ok(book)
    }

    /// Reads a book file.
    pub fn load(path: &std::path::Path) -> Result<RawBook, BookError> {
        let bytes = std::fs::read(path).map_err(|e| BookError::Io {
            path: path.display().to_string(),
            reason: e.to_string(),
        })?;
        RawBook::from_bytes(&bytes)
    }

    /// Writes the book to `path` safely: to a temporary file first, then renamed over it, so an
    /// interrupted write never leaves a damaged book.
    pub fn save(&self, path: &std::path::Path) -> std::io::Result<()> {
        crate::engine::filefmt::write_replacing(path, &self.to_bytes())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> RawBook {
        let mut positions = BTreeMap::new();
        positions.insert(3, vec![1, -2, 300]);
        positions.insert(u64::MAX, vec![]);
        positions.insert(17, vec![i16::MIN, i16::MAX]);
        RawBook {
            game_type: 20,
            start_hash: 0xDEAD_BEEF,
            nodes: 5000,
            positions,
        }
    }

    #[test]
    fn round_trip() {
        let b = sample();
        let bytes = b.to_bytes();
        assert_eq!(bytes.len(), HEADER_LEN + (9 + 6) + 9 + (9 + 4) + 4);
        assert_eq!(RawBook::from_bytes(&bytes), Ok(b));
    }

    #[test]
    fn damage_is_an_error() {
        let bytes = sample().to_bytes();
        assert_eq!(RawBook::from_bytes(b"DMSTGAME"), Err(BookError::BadMagic));
        assert_eq!(
            RawBook::from_bytes(&bytes[..bytes.len() - 1]),
            Err(BookError::Checksum)
        );
        let mut flipped = bytes.clone();
        flipped[HEADER_LEN + 9] ^= 1;
        assert_eq!(RawBook::from_bytes(&flipped), Err(BookError::Checksum));
        let mut v2 = bytes.clone();
        v2[8] = 2;
        assert_eq!(RawBook::from_bytes(&v2), Err(BookError::Version(2)));
        // a count that promises more positions than there are, with a valid checksum
        let mut short = bytes[..bytes.len() - 4].to_vec();
        short[28] = 9;
        let sum = fnv1a(&short);
        short.extend_from_slice(&sum.to_le_bytes());
        assert!(matches!(
            RawBook::from_bytes(&short),
            Err(BookError::Truncated(_))
        ));
    }

    #[test]
    fn every_truncation_is_an_error() {
        let bytes = sample().to_bytes();
        for len in 0..bytes.len() {
            assert!(RawBook::from_bytes(&bytes[..len]).is_err(), "length {len}");
        }
    }
}
