//! The file format of an endgame database slice, and the slice in memory.
//!
//! Each position is one byte: its value and its distance to conversion, the plies until the
//! game leaves the slice (a capture or a promotion) or ends, with the winner hurrying and the
//! loser holding out. Byte 0 is a draw, 255 not a position, 1 to 127 a win in that many plies,
//! 128 to 254 a loss in 0 to 126 plies (0: no move left). Distances past 127 (or 126) are
//! stored as the largest. The file cuts the bytes into blocks of 4,096 positions (the header
//! says how many; files of 65,536 are read too), each compressed on its own (LZ4 block
//! format), behind an index of the blocks, so that a probe reads and decompresses one block
//! (see [`packed`](super::packed)). All integers little-endian:
//!
//! | bytes | field |
//! |---|---|
//! | 8 | magic `DMSTEGDB` |
//! | 2 | format version (3) |
//! | 2 | PDN GameType of the variant |
//! | 4 | signature: men and kings of the side to move, men and kings of the opponent |
//! | 8 | number of positions `n` (indices, see [`Indexer`](super::Indexer)) |
//! | 4 | positions per block (4,096; at most 2^20) |
//! | 4 | number of blocks `k` |
//! | 4(k+1) | offset of each block from the start of the blocks, and the end of the last |
//! | 4k | FNV-1a checksum of each compressed block, so that a probe checks the block it reads |
//! | ... | the compressed blocks |
//! | 4 | FNV-1a checksum of every byte before it |
//!
//! Version 2 (the same without the block checksums) is read whole, for `damast egdb repack`,
//! which rewrites it as version 3; probes need version 3. Version 1 (two bits a position, no
//! distances) is no longer read: rebuild such a directory.

use super::{Signature, Wdl};
use crate::engine::filefmt::fnv1a;

/// The file's first bytes.
pub const MAGIC: &[u8; 8] = b"DMSTEGDB";
/// The format version.
pub const VERSION: u16 = 3;
/// The format version without block checksums, still read whole.
pub const VERSION_2: u16 = 2;
/// Positions per compressed block.
pub const BLOCK: u64 = 4_096;
/// Most positions per block a reader accepts (files may use another block size than
/// [`BLOCK`]: the header says which).
pub const MAX_BLOCK: u64 = 1 << 20;
/// Bytes of the fixed fields at the start of a file.
pub(super) const HEADER: usize = 32;

/// The code of a drawn position.
pub const DRAW: u8 = 0;
/// The code of a position won for the side to move.
pub const WIN: u8 = 1;
/// The code of a position lost for the side to move.
pub const LOSS: u8 = 2;
/// The code of an index that is not a position.
pub const INVALID: u8 = 3;

/// The longest distance a win stores (longer ones are stored as this).
pub const MAX_WIN_PLIES: u32 = 127;
/// The longest distance a loss stores.
pub const MAX_LOSS_PLIES: u32 = 126;
const INVALID_BYTE: u8 = 255;
const LOSS_BASE: u8 = 128;

/// A position's value with its distance to conversion in plies (0 for a draw).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Entry {
    /// Win, draw or loss for the side to move.
    pub wdl: Wdl,
    /// Plies to conversion (capture, promotion or the end of the game), as stored.
    pub plies: u32,
}

impl Entry {
    /// The stored byte of a code ([`DRAW`], [`WIN`], [`LOSS`], [`INVALID`]) and a distance,
    /// which is cut to what the byte holds (a win takes at least 1 ply).
    pub fn byte(code: u8, plies: u32) -> u8 {
        match code {
            DRAW => 0,
            WIN => plies.clamp(1, MAX_WIN_PLIES) as u8,
            LOSS => LOSS_BASE + plies.min(MAX_LOSS_PLIES) as u8,
            _ => INVALID_BYTE,
        }
    }

    /// A stored byte as text: `draw`, `win/7` (won, 7 plies to conversion), `loss/0`, or
    /// `none` (not a position).
    pub fn describe(b: u8) -> String {
        match Entry::decode(b) {
            (DRAW, _) => "draw".to_string(),
            (WIN, d) => format!("win/{d}"),
            (LOSS, d) => format!("loss/{d}"),
            _ => "none".to_string(),
        }
    }

    /// The value and distance of a stored byte; `None` when it is not a position.
    #[inline]
    pub fn of_byte(b: u8) -> Option<Entry> {
        let (code, plies) = Entry::decode(b);
        let wdl = match code {
            DRAW => Wdl::Draw,
            WIN => Wdl::Win,
            LOSS => Wdl::Loss,
            _ => return None,
        };
        Some(Entry { wdl, plies })
    }

    /// The code and distance of a stored byte.
    #[inline]
    pub fn decode(b: u8) -> (u8, u32) {
        match b {
            0 => (DRAW, 0),
            INVALID_BYTE => (INVALID, 0),
            1..=127 => (WIN, b as u32),
            _ => (LOSS, (b - LOSS_BASE) as u32),
        }
    }
}

/// What is wrong with a slice file.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum EgdbError {
    /// Not a slice file.
    #[error("not a Damast endgame slice (the file does not start with DMSTEGDB)")]
    BadMagic,
    /// A version this build does not read.
    #[error(
        "endgame slice format version {0} is not supported (this build probes version {VERSION}: convert version 2 with `damast egdb repack`, rebuild older ones with `damast egdb build`)"
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

/// The fixed fields at the start of a slice file.
#[derive(Clone, Copy, Debug)]
pub(super) struct Header {
    /// The format version ([`VERSION`] or [`VERSION_2`]).
    pub version: u16,
    game_type: u16,
    sig: Signature,
    /// Number of indices.
    pub len: u64,
    /// Positions per block.
    pub block: u64,
    /// Number of blocks.
    pub blocks: usize,
}

impl Header {
    /// Reads the header from `head`, the file's first bytes (up to [`HEADER`]), of a file of
    /// `size` bytes: its magic, its length and a version this build reads.
    pub fn parse(head: &[u8], size: u64) -> Result<Header, EgdbError> {
        if head.len() < 8 || &head[..8] != MAGIC {
            return Err(EgdbError::BadMagic);
        }
        if size < (HEADER + 8) as u64 || head.len() < HEADER {
            return Err(EgdbError::Damaged("short header"));
        }
        let version = u16::from_le_bytes([head[8], head[9]]);
        if version != VERSION && version != VERSION_2 {
            return Err(EgdbError::Version(version));
        }
        let u32_at = |i: usize| u32::from_le_bytes(head[i..i + 4].try_into().expect("4 bytes"));
        Ok(Header {
            version,
            game_type: u16::from_le_bytes([head[10], head[11]]),
            sig: Signature::new(head[12], head[13], head[14], head[15]),
            len: u64::from_le_bytes(head[16..24].try_into().expect("8 bytes")),
            block: u32_at(24) as u64,
            blocks: u32_at(28) as usize,
        })
    }

    /// Checks that the file is of `game_type` and `sig`, and that its block counts agree.
    pub fn check(&self, game_type: u16, sig: Signature) -> Result<(), EgdbError> {
        if self.game_type != game_type || self.sig != sig {
            return Err(EgdbError::Mismatch {
                game_type: self.game_type,
                found: self.sig,
                expected: sig,
            });
        }
        let (block, blocks) = (self.block, self.blocks);
        if block == 0 || block > MAX_BLOCK || blocks as u64 != self.len.div_ceil(block) {
            return Err(EgdbError::Damaged("block count"));
        }
        Ok(())
    }

    /// Whether the file has a checksum per block (version 3).
    pub fn block_sums(&self) -> bool {
        self.version == VERSION
    }

    /// Where the blocks start: after the header, the block offsets and the block checksums.
    pub fn table_end(&self) -> usize {
        let sums = if self.block_sums() { self.blocks } else { 0 };
        HEADER + 4 * (self.blocks + 1 + sums)
    }
}

/// The values of one slice, a byte a position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Slice {
    game_type: u16,
    sig: Signature,
    bytes: Vec<u8>,
}

impl Slice {
    /// A slice from one stored byte per position (see [`Entry::byte`]).
    pub fn new(game_type: u16, sig: Signature, bytes: Vec<u8>) -> Slice {
        Slice {
            game_type,
            sig,
            bytes,
        }
    }

    /// The signature.
    pub fn signature(&self) -> Signature {
        self.sig
    }

    /// Number of indices.
    pub fn len(&self) -> u64 {
        self.bytes.len() as u64
    }

    /// Whether the slice has no index.
    pub fn is_empty(&self) -> bool {
        self.bytes.is_empty()
    }

    /// The code of index `i` ([`DRAW`], [`WIN`], [`LOSS`], [`INVALID`]).
    #[inline]
    pub fn code(&self, i: u64) -> u8 {
        Entry::decode(self.bytes[i as usize]).0
    }

    /// The stored byte of index `i`.
    #[inline]
    pub fn byte(&self, i: u64) -> u8 {
        self.bytes[i as usize]
    }

    /// The value of index `i`; `None` when it is not a position.
    #[inline]
    pub fn get(&self, i: u64) -> Option<Wdl> {
        self.entry(i).map(|e| e.wdl)
    }

    /// The value and distance of index `i`; `None` when it is not a position.
    #[inline]
    pub fn entry(&self, i: u64) -> Option<Entry> {
        Entry::of_byte(self.bytes[i as usize])
    }

    /// How many indices hold each code (draw, win, loss, invalid).
    pub fn counts(&self) -> [u64; 4] {
        let mut c = [0u64; 4];
        for &b in &self.bytes {
            c[Entry::decode(b).0 as usize] += 1;
        }
        c
    }

    /// The longest distance stored for a win and for a loss.
    pub fn longest(&self) -> (u32, u32) {
        let (mut win, mut loss) = (0, 0);
        for &b in &self.bytes {
            match Entry::decode(b) {
                (WIN, d) => win = win.max(d),
                (LOSS, d) => loss = loss.max(d),
                _ => {}
            }
        }
        (win, loss)
    }

    /// The file's bytes.
    pub fn to_bytes(&self) -> Vec<u8> {
        let len = self.len();
        let blocks = len.div_ceil(BLOCK) as usize;
        let mut out = Vec::new();
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&VERSION.to_le_bytes());
        out.extend_from_slice(&self.game_type.to_le_bytes());
        let s = self.sig;
        out.extend_from_slice(&[s.men, s.kings, s.their_men, s.their_kings]);
        out.extend_from_slice(&len.to_le_bytes());
        out.extend_from_slice(&(BLOCK as u32).to_le_bytes());
        out.extend_from_slice(&(blocks as u32).to_le_bytes());
        let compressed: Vec<Vec<u8>> = self
            .bytes
            .chunks(BLOCK as usize)
            .map(lz4_flex::block::compress)
            .collect();
        let mut offset = 0u32;
        out.extend_from_slice(&offset.to_le_bytes());
        for c in &compressed {
            offset += c.len() as u32;
            out.extend_from_slice(&offset.to_le_bytes());
        }
        for c in &compressed {
            out.extend_from_slice(&fnv1a(c).to_le_bytes());
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
        let head = Header::parse(&bytes[..bytes.len().min(HEADER)], bytes.len() as u64)?;
        let (body, sum) = bytes.split_at(bytes.len() - 4);
        if fnv1a(body) != u32::from_le_bytes(sum.try_into().expect("4 bytes")) {
            return Err(EgdbError::Checksum);
        }
        head.check(game_type, sig)?;
        let Header {
            len, block, blocks, ..
        } = head;
        let table_end = head.table_end();
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
        let total = usize::try_from(len).map_err(|_| EgdbError::Damaged("length"))?;
        let mut values = Vec::with_capacity(total);
        let per_block = block as usize;
        for i in 0..blocks {
            let (a, b) = (offset(i), offset(i + 1));
            if a > b || b > data.len() {
                return Err(EgdbError::Damaged("block index out of order"));
            }
            let want = per_block.min(total - i * per_block);
            let raw = lz4_flex::block::decompress(&data[a..b], want)
                .map_err(|_| EgdbError::Damaged("block does not decompress"))?;
            if raw.len() != want {
                return Err(EgdbError::Damaged("block size"));
            }
            values.extend_from_slice(&raw);
        }
        Ok(Slice {
            game_type,
            sig,
            bytes: values,
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
    fn entries_round_trip() {
        for (code, plies) in [(DRAW, 0), (WIN, 1), (WIN, 127), (LOSS, 0), (LOSS, 126)] {
            assert_eq!(Entry::decode(Entry::byte(code, plies)), (code, plies));
        }
        assert_eq!(Entry::decode(Entry::byte(INVALID, 9)), (INVALID, 0));
        // distances past the byte's range are stored as the longest
        assert_eq!(Entry::decode(Entry::byte(WIN, 400)), (WIN, MAX_WIN_PLIES));
        assert_eq!(
            Entry::decode(Entry::byte(LOSS, 400)),
            (LOSS, MAX_LOSS_PLIES)
        );
        // every byte is a value, and every value has one byte
        for b in 0..=255u8 {
            let (code, plies) = Entry::decode(b);
            assert_eq!(Entry::byte(code, plies), b);
        }
    }

    #[test]
    fn round_trip_and_damage() {
        let sig = Signature::new(1, 0, 0, 1);
        let values: Vec<u8> = (0..200_000u32).map(|i| ((i / 7) % 256) as u8).collect();
        let s = Slice::new(20, sig, values.clone());
        assert!((0..values.len()).all(|i| s.byte(i as u64) == values[i]));
        assert_eq!(
            s.entry(1),
            Some(Entry {
                wdl: Wdl::Draw,
                plies: 0
            })
        );
        assert_eq!(
            s.entry(7 * 5),
            Some(Entry {
                wdl: Wdl::Win,
                plies: 5
            })
        );
        assert_eq!(
            s.entry(7 * 130),
            Some(Entry {
                wdl: Wdl::Loss,
                plies: 2
            })
        );
        assert_eq!(s.entry(7 * 255), None);
        assert_eq!(s.longest(), (127, 126));
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
        // a version-1 file is refused with a message that says what to do
        let mut old = bytes.clone();
        old[8] = 1;
        assert_eq!(Slice::from_bytes(&old, 20, sig), Err(EgdbError::Version(1)));
        assert!(EgdbError::Version(1).to_string().contains("rebuild"));
        // a version-2 file (no block checksums) is still read whole
        let blocks = s.len().div_ceil(BLOCK) as usize;
        let table = HEADER + 4 * (blocks + 1);
        let mut v2 = bytes[..table].to_vec();
        v2[8] = 2;
        v2.extend_from_slice(&bytes[table + 4 * blocks..bytes.len() - 4]);
        let sum = fnv1a(&v2);
        v2.extend_from_slice(&sum.to_le_bytes());
        assert_eq!(Slice::from_bytes(&v2, 20, sig), Ok(s.clone()));
        assert_eq!(s.counts().iter().sum::<u64>(), 200_000);
    }
}
