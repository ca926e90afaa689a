//! The file format of an endgame database slice, and the slice in memory.
//!
//! Each position's value is two bits (0 draw, 1 win, 2 loss, 3 not a position), four to a
//! byte, position `i` in bits `2(i mod 4)` of byte `i / 4`. The file cuts them into blocks of
//! 65,536 positions, each compressed on its own (LZ4 block format), behind an index of the
//! blocks, so that a reader could fetch one block at a time. All integers little-endian:
//!
//! | bytes | field |
//! |---|---|
//! | 8 | magic `DMSTEGDB` |
//! | 2 | format version (1) |
//! | 2 | PDN GameType of the variant |
//! | 4 | signature: men and kings of the side to move, men and kings of the opponent |
//! | 8 | number of positions `n` (indices, see [`Indexer`](super::Indexer)) |
//! | 4 | positions per block (65,536) |
//! | 4 | number of blocks `k` |
//! | 4(k+1) | offset of each block from the end of this table, and the end of the last |
//! | ... | the compressed blocks |
//! | 4 | FNV-1a checksum of every byte before it |

use super::{Signature, Wdl};
use crate::engine::filefmt::fnv1a;

/// The file's first bytes.
pub const MAGIC: &[u8; 8] = b"DMSTEGDB";
/// The format version.
pub const VERSION: u16 = 1;
/// Positions per compressed block.
pub const BLOCK: u64 = 65_536;
const HEADER: usize = 32;

/// The code of a drawn position.
pub const DRAW: u8 = 0;
/// The code of a position won for the side to move.
pub const WIN: u8 = 1;
/// The code of a position lost for the side to move.
pub const LOSS: u8 = 2;
/// The code of an index that is not a position.
pub const INVALID: u8 = 3;

/// What is wrong with a slice file.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum EgdbError {
    /// Not a slice file.
    #[error("not a Damast endgame slice (the file does not start with DMSTEGDB)")]
    BadMagic,
    /// A version this build does not read.
    #[error(
        "endgame slice format version {0} is not supported (this build reads version {VERSION})"
    )]
    Version(u16),
    /// Another variant or signature than the file name says.
    #[error("the slice is GameType {game_type} signature {found}, not {expected}")]
    Mismatch {
        /// GameType in the file.
        game_type: u16,
        /// Signature in the file.
        found: Signature,
        /// Signature expected.
        expected: Signature,
    },
    /// The file ends early or its index is inconsistent.
    #[error("the endgame slice is truncated or damaged ({0})")]
    Damaged(&'static str),
    /// The checksum does not match.
    #[error("the endgame slice's checksum does not match (damaged)")]
    Checksum,
    /// Reading the file failed.
    #[error("cannot read {path}: {reason}")]
    Io {
        /// The file.
        path: String,
        /// The system's reason.
        reason: String,
    },
}

/// The values of one slice, two bits a position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Slice {
    game_type: u16,
    sig: Signature,
    len: u64,
    packed: Vec<u8>,
}

impl Slice {
    /// A slice from one code per position ([`DRAW`], [`WIN`], [`LOSS`], [`INVALID`]).
    pub fn from_codes(game_type: u16, sig: Signature, codes: &[u8]) -> Slice {
        let mut packed = vec![0u8; codes.len().div_ceil(4)];
        for (i, &c) in codes.iter().enumerate() {
            packed[i / 4] |= (c & 3) << (2 * (i % 4));
        }
        Slice {
            game_type,
            sig,
            len: codes.len() as u64,
            packed,
        }
    }

    /// The signature.
    pub fn signature(&self) -> Signature {
        self.sig
    }

    /// Number of indices.
    pub fn len(&self) -> u64 {
        self.len
    }

    /// Whether the slice has no index.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The code of index `i`.
    #[inline]
    pub fn code(&self, i: u64) -> u8 {
        (self.packed[(i / 4) as usize] >> (2 * (i % 4))) & 3
    }

    /// The value of index `i`; `None` when it is not a position.
    #[inline]
    pub fn get(&self, i: u64) -> Option<Wdl> {
        match self.code(i) {
            DRAW => Some(Wdl::Draw),
            WIN => Some(Wdl::Win),
            LOSS => Some(Wdl::Loss),
            _ => None,
        }
    }

    /// How many indices hold each code (draw, win, loss, invalid).
    pub fn counts(&self) -> [u64; 4] {
        let mut c = [0u64; 4];
        for i in 0..self.len {
            c[self.code(i) as usize] += 1;
        }
        c
    }

    /// The file's bytes.
    pub fn to_bytes(&self) -> Vec<u8> {
        let blocks = self.len.div_ceil(BLOCK) as usize;
        let mut out = Vec::new();
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&VERSION.to_le_bytes());
        out.extend_from_slice(&self.game_type.to_le_bytes());
        let s = self.sig;
        out.extend_from_slice(&[s.men, s.kings, s.their_men, s.their_kings]);
        out.extend_from_slice(&self.len.to_le_bytes());
        out.extend_from_slice(&(BLOCK as u32).to_le_bytes());
        out.extend_from_slice(&(blocks as u32).to_le_bytes());
        let per_block = (BLOCK / 4) as usize;
        let compressed: Vec<Vec<u8>> = self
            .packed
            .chunks(per_block)
            .map(lz4_flex::block::compress)
            .collect();
        let mut offset = 0u32;
        out.extend_from_slice(&offset.to_le_bytes());
        for c in &compressed {
            offset += c.len() as u32;
            out.extend_from_slice(&offset.to_le_bytes());
        }
        for c in &compressed {
            out.extend_from_slice(c);
        }
        let sum = fnv1a(&out);
        out.extend_from_slice(&sum.to_le_bytes());
        out
    }

    /// Reads a slice file's bytes, which must be of `game_type` and `sig`.
    pub fn from_bytes(bytes: &[u8], game_type: u16, sig: Signature) -> Result<Slice, EgdbError> {
        if bytes.len() < 8 || &bytes[..8] != MAGIC {
            return Err(EgdbError::BadMagic);
        }
        if bytes.len() < HEADER + 8 {
            return Err(EgdbError::Damaged("short header"));
        }
        let version = u16::from_le_bytes([bytes[8], bytes[9]]);
        if version != VERSION {
            return Err(EgdbError::Version(version));
        }
        let (body, sum) = bytes.split_at(bytes.len() - 4);
        if fnv1a(body) != u32::from_le_bytes(sum.try_into().expect("4 bytes")) {
            return Err(EgdbError::Checksum);
        }
        let found_type = u16::from_le_bytes([bytes[10], bytes[11]]);
        let found = Signature::new(bytes[12], bytes[13], bytes[14], bytes[15]);
        if found_type != game_type || found != sig {
            return Err(EgdbError::Mismatch {
                game_type: found_type,
                found,
                expected: sig,
            });
        }
        let len = u64::from_le_bytes(bytes[16..24].try_into().expect("8 bytes"));
        let block = u32::from_le_bytes(bytes[24..28].try_into().expect("4 bytes")) as u64;
        let blocks = u32::from_le_bytes(bytes[28..32].try_into().expect("4 bytes")) as usize;
        if block != BLOCK || blocks as u64 != len.div_ceil(BLOCK) {
            return Err(EgdbError::Damaged("block count"));
        }
        let table_end = HEADER + 4 * (blocks + 1);
        if body.len() < table_end {
            return Err(EgdbError::Damaged("short block index"));
        }
        let offset = |i: usize| {
            u32::from_le_bytes(
                body[HEADER + 4 * i..HEADER + 4 * i + 4]
                    .try_into()
                    .expect("4"),
            ) as usize
        };
        let data = &body[table_end..];
        if offset(blocks) != data.len() {
            return Err(EgdbError::Damaged("block index and size differ"));
        }
        let packed_len = len.div_ceil(4) as usize;
        let mut packed = Vec::with_capacity(packed_len);
        let per_block = (BLOCK / 4) as usize;
        for i in 0..blocks {
            let (a, b) = (offset(i), offset(i + 1));
            if a > b || b > data.len() {
                return Err(EgdbError::Damaged("block index out of order"));
            }
            let want = per_block.min(packed_len - i * per_block);
            let raw = lz4_flex::block::decompress(&data[a..b], want)
                .map_err(|_| EgdbError::Damaged("block does not decompress"))?;
            if raw.len() != want {
                return Err(EgdbError::Damaged("block size"));
            }
            packed.extend_from_slice(&raw);
        }
        Ok(Slice {
            game_type,
            sig,
            len,
            packed,
        })
    }

    /// Reads a slice file.
    pub fn load(
        path: &std::path::Path,
        game_type: u16,
        sig: Signature,
    ) -> Result<Slice, EgdbError> {
        let bytes = std::fs::read(path).map_err(|e| EgdbError::Io {
            path: path.display().to_string(),
            reason: e.to_string(),
        })?;
        Slice::from_bytes(&bytes, game_type, sig)
    }

    /// Writes the slice to `path` through a temporary file, so a crash never leaves half a file.
    pub fn save(&self, path: &std::path::Path) -> std::io::Result<()> {
        crate::engine::filefmt::write_replacing(path, &self.to_bytes())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_damage() {
        let sig = Signature::new(1, 0, 0, 1);
        let codes: Vec<u8> = (0..200_000u32).map(|i| ((i / 7) % 4) as u8).collect();
        let s = Slice::from_codes(20, sig, &codes);
        assert!((0..codes.len()).all(|i| s.code(i as u64) == codes[i]));
        let bytes = s.to_bytes();
        assert_eq!(Slice::from_bytes(&bytes, 20, sig), Ok(s.clone()));
        assert!(matches!(
            Slice::from_bytes(&bytes, 20, sig.flipped()),
            Err(EgdbError::Mismatch { .. })
        ));
        assert_eq!(
            Slice::from_bytes(&bytes[..bytes.len() - 2], 20, sig),
            Err(EgdbError::Checksum)
        );
        for cut in [0, 7, 20, 40] {
            assert!(Slice::from_bytes(&bytes[..cut], 20, sig).is_err());
        }
        let mut flipped = bytes.clone();
        flipped[50] ^= 4;
        assert_eq!(
            Slice::from_bytes(&flipped, 20, sig),
            Err(EgdbError::Checksum)
        );
        assert_eq!(s.counts().iter().sum::<u64>(), 200_000);
    }
}
