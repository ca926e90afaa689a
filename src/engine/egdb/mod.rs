//! Endgame databases: the win, draw or loss of every position with few pieces, one slice per
//! material signature, built by `damast egdb build` and probed here.
//!
//! A slice holds the positions of one signature with the side to move as White ([`Position::turned`]
//! maps the others onto them). Values are exact under the rules of capture, promotion and
//! repetition alone: a position is won when its side can force the end of the game (the
//! opponent without piece or move) in any number of moves, lost when the opponent can, drawn
//! otherwise. The draw rules that count moves (the FMJD 25-, 16- and 5-move rules, the 40-move
//! rules of the 8x8 games) can only turn wins and losses into draws, never a draw into a win, so
//! a stored draw is a draw under every rule set, while a stored win is a win only when those
//! rules leave enough moves (see [`Egdb::probe`]).

pub mod file;
pub mod index;
pub mod packed;

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use crate::core::position::Position;
use crate::core::variant::{Color, Variant, VariantKind};
pub use file::{EgdbError, Entry, Slice};
pub use index::Indexer;
pub use packed::{BlockCache, PackedSlice};

/// Win, draw or loss for the side to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Wdl {
    /// The side to move loses.
    Loss,
    /// A draw.
    Draw,
    /// The side to move wins.
    Win,
}

impl Wdl {
    /// The value for the other side.
    pub fn flip(self) -> Wdl {
        match self {
            Wdl::Loss => Wdl::Win,
            Wdl::Draw => Wdl::Draw,
            Wdl::Win => Wdl::Loss,
        }
    }

    /// `win`, `draw` or `loss`.
    pub fn name(self) -> &'static str {
        match self {
            Wdl::Loss => "loss",
            Wdl::Draw => "draw",
            Wdl::Win => "win",
        }
    }
}

/// A material signature, seen from the side to move: its men and kings, then the opponent's.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Signature {
    /// Men of the side to move.
    pub men: u8,
    /// Kings of the side to move.
    pub kings: u8,
    /// Men of the opponent.
    pub their_men: u8,
    /// Kings of the opponent.
    pub their_kings: u8,
}

impl Signature {
    /// A signature from its four counts.
    pub const fn new(men: u8, kings: u8, their_men: u8, their_kings: u8) -> Signature {
        Signature {
            men,
            kings,
            their_men,
            their_kings,
        }
    }

    /// The signature of `pos`, from its side to move.
    pub fn of<V: Variant>(pos: &Position<V>) -> Signature {
        let (us, them) = (pos.side(), pos.side().opponent());
        let n = |b: crate::core::bitboard::Bitboard| b.count() as u8;
        Signature::new(
            n(pos.men(us)),
            n(pos.kings(us)),
            n(pos.men(them)),
            n(pos.kings(them)),
        )
    }

    /// The same material seen from the opponent.
    pub fn flipped(self) -> Signature {
        Signature::new(self.their_men, self.their_kings, self.men, self.kings)
    }

    /// Pieces on the board.
    pub fn pieces(self) -> u32 {
        (self.men + self.kings + self.their_men + self.their_kings) as u32
    }

    /// Men on the board.
    pub fn all_men(self) -> u32 {
        (self.men + self.their_men) as u32
    }

    /// Every signature with 2 to `pieces` pieces and at least one piece a side, in an order in
    /// which every slice comes after the slices its captures and promotions lead to: by number
    /// of pieces, then of men.
    pub fn up_to(pieces: u32) -> Vec<Signature> {
        let mut all = Vec::new();
        for total in 2..=pieces.min(9) {
            for a in 0..=total {
                for b in 0..=total - a {
                    for c in 0..=total - a - b {
                        let d = total - a - b - c;
                        let s = Signature::new(a as u8, b as u8, c as u8, d as u8);
                        if a + b > 0 && c + d > 0 {
                            all.push(s);
                        }
                    }
                }
            }
        }
        all.sort_by_key(|s| (s.pieces(), s.all_men(), *s));
        all
    }
}

impl fmt::Display for Signature {
    /// Four digits: men and kings of the side to move, then of the opponent (`1101`: a man and
    /// a king against a king).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}{}{}{}",
            self.men, self.kings, self.their_men, self.their_kings
        )
    }
}

impl std::str::FromStr for Signature {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let d: Vec<u8> = s.bytes().map(|b| b.wrapping_sub(b'0')).collect();
        if d.len() != 4 || d.iter().any(|&x| x > 9) {
            return Err(format!(
                "bad signature '{s}': four digits, men and kings of the side to move then of the opponent (e.g. 1101)"
            ));
        }
        Ok(Signature::new(d[0], d[1], d[2], d[3]))
    }
}

/// Why a position cannot be probed.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum ProbeError {
    /// More pieces than the database holds.
    #[error("the position has {pieces} pieces; the database holds up to {max}")]
    TooManyPieces {
        /// Pieces of the position.
        pieces: u32,
        /// Most pieces of the database.
        max: u32,
    },
    /// The slice is not in the directory.
    #[error("the slice {0} is not in the database (build it with `damast egdb build`)")]
    Missing(Signature),
    /// A slice file is unusable.
    #[error("{path}: {source}")]
    File {
        /// The file.
        path: String,
        /// What is wrong with it.
        source: EgdbError,
    },
    /// The database is for another variant.
    #[error("the database is for {0}")]
    Variant(VariantKind),
}

/// The position as a slice stores it: `pos` itself with White to move, else turned round.
pub fn white_to_move<V: Variant>(pos: &Position<V>) -> Position<V> {
    if pos.side() == Color::White {
        *pos
    } else {
        pos.turned()
    }
}

/// The file name of a slice of variant `kind`.
pub fn slice_file(dir: &Path, kind: VariantKind, sig: Signature) -> PathBuf {
    dir.join(format!("{}-{sig}.egdb", kind.name()))
}

/// Slots of the slice cache: one per signature of up to 9 pieces (four decimal digits).
const SLOTS: usize = 10_000;

/// Blocks the probing cache holds: 8,192 blocks, 32 MB at 4,096 positions a block.
const CACHE_BLOCKS: usize = 8192;

/// A directory of slices for one variant, read on demand. Probes read a slice block by block
/// through a cache ([`PackedSlice`], [`BlockCache`]), so the first probe of a slice costs a
/// block, not the whole slice; the builder and `verify` load whole slices ([`Egdb::slice`]),
/// which probes then use too. Each kind of slot is filled once per signature.
#[derive(Debug)]
pub struct Egdb {
    dir: PathBuf,
    kind: VariantKind,
    pieces: u32,
    slices: Box<[OnceLock<Arc<Slice>>]>,
    packed: Box<[OnceLock<Arc<PackedSlice>>]>,
    cache: BlockCache,
}

/// The cache slot of a signature.
fn slot(sig: Signature) -> usize {
    let d = |n: u8| usize::from(n.min(9));
    ((d(sig.men) * 10 + d(sig.kings)) * 10 + d(sig.their_men)) * 10 + d(sig.their_kings)
}

impl Egdb {
    /// The database of variant `kind` in `dir`, answering positions of up to `pieces` pieces
    /// (`None`: the largest slice found).
    pub fn open(dir: &Path, kind: VariantKind, pieces: Option<u32>) -> Egdb {
        let found = Signature::up_to(9)
            .into_iter()
            .filter(|s| slice_file(dir, kind, *s).exists())
            .map(|s| s.pieces())
            .max()
            .unwrap_or(0);
        Egdb {
            dir: dir.to_path_buf(),
            kind,
            pieces: pieces.map_or(found, |p| p.min(9)),
            slices: (0..SLOTS).map(|_| OnceLock::new()).collect(),
            packed: (0..SLOTS).map(|_| OnceLock::new()).collect(),
            cache: BlockCache::new(CACHE_BLOCKS),
        }
    }

    /// The variant.
    pub fn kind(&self) -> VariantKind {
        self.kind
    }

    /// The directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Most pieces of a position the database answers.
    pub fn pieces(&self) -> u32 {
        self.pieces
    }

    /// The slice of `sig`, read on first use. Only a slice that loads is kept: a missing or
    /// damaged file is looked at again next time (the builder writes slices as it goes).
    pub fn slice(&self, sig: Signature) -> Result<Arc<Slice>, ProbeError> {
        self.cached(&self.slices, sig, |path, game_type| {
            Slice::load(path, game_type, sig)
        })
    }

    /// The slice of `sig` opened for probing block by block, opened on first use (a file that
    /// does not open is looked at again next time).
    fn packed(&self, sig: Signature) -> Result<Arc<PackedSlice>, ProbeError> {
        self.cached(&self.packed, sig, |path, game_type| {
            PackedSlice::open(path, game_type, sig, slot(sig) as u32)
        })
    }

    /// What `cells` holds for `sig`, or else what `load` makes of its file (given the path and
    /// the GameType), stored there when it loads.
    fn cached<T>(
        &self,
        cells: &[OnceLock<Arc<T>>],
        sig: Signature,
        load: impl FnOnce(&Path, u16) -> Result<T, EgdbError>,
    ) -> Result<Arc<T>, ProbeError> {
        let cell = &cells[slot(sig)];
        if let Some(s) = cell.get() {
            return Ok(s.clone());
        }
        let path = slice_file(&self.dir, self.kind, sig);
        if !path.exists() {
            return Err(ProbeError::Missing(sig));
        }
        let loaded =
            load(&path, self.kind.game_type() as u16).map_err(|source| ProbeError::File {
                path: path.display().to_string(),
                source,
            })?;
        // two threads may load it at once: the first one stored wins, both are the same
        Ok(cell.get_or_init(|| Arc::new(loaded)).clone())
    }

    /// Opens every slice there is for probing (header and block index, not the blocks): the
    /// number of slices, or the first that does not open (damaged, or a format to repack).
    pub fn check(&self) -> Result<usize, ProbeError> {
        let mut n = 0;
        for sig in Signature::up_to(self.pieces) {
            if slice_file(&self.dir, self.kind, sig).exists() {
                self.packed(sig)?;
                n += 1;
            }
        }
        Ok(n)
    }

    /// The stored byte of index `i` of slice `sig`: from the whole slice when it is loaded,
    /// else from its block.
    fn byte(&self, sig: Signature, i: u64) -> Result<u8, ProbeError> {
        if let Some(s) = self.slices[slot(sig)].get() {
            return Ok(s.byte(i));
        }
        self.packed(sig)?
            .byte(i, &self.cache)
            .map_err(|source| ProbeError::File {
                path: slice_file(&self.dir, self.kind, sig).display().to_string(),
                source,
            })
    }

    /// The value of `pos` for its side to move under the rules without move-counting draws.
    pub fn probe<V: Variant>(&self, pos: &Position<V>) -> Result<Wdl, ProbeError> {
        self.probe_entry(pos).map(|e| e.wdl)
    }

    /// The value of `pos` for its side to move, with its distance to conversion: the plies to
    /// the next capture or promotion (or the end of the game) when the winner hurries and the
    /// loser holds out, 0 for a draw.
    pub fn probe_entry<V: Variant>(&self, pos: &Position<V>) -> Result<Entry, ProbeError> {
        if V::KIND != self.kind {
            return Err(ProbeError::Variant(self.kind));
        }
        let pieces = pos.occupied().count();
        if pieces > self.pieces {
            return Err(ProbeError::TooManyPieces {
                pieces,
                max: self.pieces,
            });
        }
        let ended = |wdl| Entry { wdl, plies: 0 };
        if pos.pieces(pos.side()).is_empty() {
            return Ok(ended(Wdl::Loss));
        }
        if pos.pieces(pos.side().opponent()).is_empty() {
            return Ok(ended(Wdl::Win));
        }
        let white = white_to_move(pos);
        let sig = Signature::of(&white);
        let b = self.byte(sig, Indexer::<V>::new(sig).index(&white))?;
        Ok(Entry::of_byte(b).unwrap_or(ended(Wdl::Draw)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    #[test]
    fn signatures_come_after_what_they_lead_to() {
        let all = Signature::up_to(4);
        let place: HashMap<Signature, usize> =
            all.iter().enumerate().map(|(i, s)| (*s, i)).collect();
        for s in &all {
            assert_eq!(s.to_string().parse::<Signature>(), Ok(*s));
            // a promotion keeps the pieces and removes a man
            if s.men > 0 {
                let p = Signature::new(s.men - 1, s.kings + 1, s.their_men, s.their_kings);
                assert!(place[&p] < place[s], "{p} before {s}");
            }
            // a capture removes an opponent's piece
            if s.their_men > 0 && s.pieces() > 2 && s.their_men + s.their_kings > 1 {
                let c = Signature::new(s.men, s.kings, s.their_men - 1, s.their_kings);
                assert!(place[&c] < place[s]);
            }
        }
        // every signature has a cache slot of its own
        let mut slots: Vec<usize> = Signature::up_to(9).into_iter().map(slot).collect();
        let n = slots.len();
        slots.sort_unstable();
        slots.dedup();
        assert_eq!(slots.len(), n);
        assert!(slots.iter().all(|&s| s < SLOTS));
        // 2 pieces: 1 against 1 in 4 ways (man or king each)
        assert_eq!(all.iter().filter(|s| s.pieces() == 2).count(), 4);
        assert!("12x4".parse::<Signature>().is_err());
    }
}
