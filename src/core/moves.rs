//! Moves and fixed-capacity move lists.

use std::fmt;
use std::marker::PhantomData;
use std::mem::MaybeUninit;

use crate::core::bitboard::Bitboard;
use crate::core::square::Square;
use crate::core::variant::Variant;

bitflags::bitflags! {
    /// Facts about a move that the position alone would have to recompute.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
    pub struct MoveFlags: u8 {
        /// The moving piece is a king.
        const KING = 1;
        /// The moving man is crowned by this move.
        const PROMOTION = 2;
    }
}

/// A legal move: its from and to squares, the set of pieces it captures and whether it crowns.
///
/// Two capture paths with the same from, to and captured set are the same move. The full path of a
/// capture (every landing square) is derived from the position when notation needs it, see
/// [`notation::full_path`](crate::core::notation::full_path).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Move<V> {
    pub(crate) from: u8,
    pub(crate) to: u8,
    pub(crate) flags: MoveFlags,
    pub(crate) captured: Bitboard,
    _v: PhantomData<V>,
}

impl<V: Variant> Move<V> {
    /// Builds a move from layout bits (used by the generator).
    #[inline(always)]
    pub(crate) fn new(from: u32, to: u32, captured: Bitboard, flags: MoveFlags) -> Move<V> {
        Move {
            from: from as u8,
            to: to as u8,
            flags,
            captured,
            _v: PhantomData,
        }
    }

    /// The square the piece leaves.
    #[inline]
    pub fn from(&self) -> Square {
        V::square(self.from as u32)
    }

    /// The square the piece ends on (equal to `from` for a king capture round a loop).
    #[inline]
    pub fn to(&self) -> Square {
        V::square(self.to as u32)
    }

    /// The bit of the from square in the layout.
    #[inline(always)]
    pub fn from_bit(&self) -> u32 {
        self.from as u32
    }

    /// The bit of the to square in the layout.
    #[inline(always)]
    pub fn to_bit(&self) -> u32 {
        self.to as u32
    }

    /// The set of captured pieces.
    #[inline(always)]
    pub fn captured(&self) -> Bitboard {
        self.captured
    }

    /// The captured squares in ascending order.
    pub fn captured_squares(&self) -> impl Iterator<Item = Square> {
        // in layout order, which is the numbers' order except on a mirrored board
        let mut squares = [Square::from_index(0); 32];
        let mut n = 0;
        for b in self.captured.bits().take(squares.len()) {
            squares[n] = V::square(b);
            n += 1;
        }
        if V::MIRRORED {
            squares[..n].sort_unstable();
        }
        squares.into_iter().take(n)
    }

    /// Whether the move captures.
    #[inline(always)]
    pub fn is_capture(&self) -> bool {
        self.captured.any()
    }

    /// Number of pieces captured.
    #[inline(always)]
    pub fn capture_count(&self) -> u32 {
        self.captured.count()
    }

    /// Whether the moving piece is a king.
    #[inline(always)]
    pub fn is_king_move(&self) -> bool {
        self.flags.contains(MoveFlags::KING)
    }

    /// Whether a man is crowned by this move.
    #[inline(always)]
    pub fn is_promotion(&self) -> bool {
        self.flags.contains(MoveFlags::PROMOTION)
    }

    /// Whether the move can never be undone by later moves (a capture or a man move): it ends any
    /// repetition and resets the draw-rule counters for reversible play.
    #[inline(always)]
    pub fn is_irreversible(&self) -> bool {
        self.is_capture() || !self.is_king_move()
    }

    /// A compact 32-bit code of from and to (for tables such as history and killers); captures are
    /// not part of it.
    #[inline(always)]
    pub fn from_to_code(&self) -> usize {
        (self.from as usize) << 6 | self.to as usize
    }
}

impl<V: Variant> fmt::Debug for Move<V> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&crate::core::notation::hub(self))
    }
}

impl<V: Variant> fmt::Display for Move<V> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&crate::core::notation::hub(self))
    }
}

/// Largest number of moves a list holds. No reachable position comes near it; a generator that
/// would overflow it drops the surplus (checked in debug builds).
pub const MAX_MOVES: usize = 400;

/// A fixed-capacity list of moves, kept on the stack so that generation never allocates.
/// Creating one costs nothing: the storage is left uninitialised until moves are pushed.
pub struct MoveList<V> {
    len: usize,
    moves: [MaybeUninit<Move<V>>; MAX_MOVES],
}

impl<V: Variant> Clone for MoveList<V> {
    fn clone(&self) -> Self {
        let mut l = MoveList::new();
        for m in self.iter() {
            l.push(*m);
        }
        l
    }
}

impl<V: Variant> Default for MoveList<V> {
    fn default() -> Self {
        Self::new()
    }
}

impl<V: Variant> MoveList<V> {
    /// An empty list.
    #[inline(always)]
    pub fn new() -> Self {
        MoveList {
            len: 0,
            moves: [const { MaybeUninit::uninit() }; MAX_MOVES],
        }
    }

    /// Appends a move.
    #[inline(always)]
    pub fn push(&mut self, m: Move<V>) {
        debug_assert!(self.len < MAX_MOVES, "move list overflow");
        if self.len < MAX_MOVES {
            self.moves[self.len] = MaybeUninit::new(m);
            self.len += 1;
        }
    }

    /// Removes every move.
    #[inline(always)]
    pub fn clear(&mut self) {
        self.len = 0;
    }

    /// Number of moves.
    #[inline(always)]
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the list is empty.
    #[inline(always)]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The moves as a slice.
    #[inline(always)]
    pub fn as_slice(&self) -> &[Move<V>] {
        // SAFETY: the first `len` entries were written by `push`, and `MaybeUninit<T>` has the
        // layout of `T`.
        unsafe { std::slice::from_raw_parts(self.moves.as_ptr() as *const Move<V>, self.len) }
    }

    /// The moves as a mutable slice (for ordering).
    #[inline(always)]
    pub fn as_mut_slice(&mut self) -> &mut [Move<V>] {
        // SAFETY: as in `as_slice`.
        unsafe { std::slice::from_raw_parts_mut(self.moves.as_mut_ptr() as *mut Move<V>, self.len) }
    }

    /// Keeps only the first `len` moves.
    #[inline(always)]
    pub fn truncate(&mut self, len: usize) {
        self.len = self.len.min(len);
    }

    /// Iterates over the moves.
    pub fn iter(&self) -> std::slice::Iter<'_, Move<V>> {
        self.as_slice().iter()
    }
}

impl<'a, V: Variant> IntoIterator for &'a MoveList<V> {
    type Item = &'a Move<V>;
    type IntoIter = std::slice::Iter<'a, Move<V>>;
    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

impl<V: Variant> std::ops::Index<usize> for MoveList<V> {
    type Output = Move<V>;
    fn index(&self, i: usize) -> &Move<V> {
        &self.as_slice()[i]
    }
}
