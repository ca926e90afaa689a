//! A position: where the pieces stand and who is to move, with its Zobrist hash.

use std::fmt;
use std::marker::PhantomData;

use crate::core::bitboard::Bitboard;
use crate::core::moves::Move;
use crate::core::square::Square;
use crate::core::variant::{Color, Variant};
use crate::core::zobrist;

/// A piece on a square.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Piece {
    /// A white man.
    WhiteMan,
    /// A black man.
    BlackMan,
    /// A white king.
    WhiteKing,
    /// A black king.
    BlackKing,
}

impl Piece {
    /// The piece's owner.
    pub const fn color(self) -> Color {
        match self {
            Piece::WhiteMan | Piece::WhiteKing => Color::White,
            Piece::BlackMan | Piece::BlackKing => Color::Black,
        }
    }

    /// Whether the piece is a king.
    pub const fn is_king(self) -> bool {
        matches!(self, Piece::WhiteKing | Piece::BlackKing)
    }

    /// The piece of that colour and kind.
    pub const fn new(color: Color, king: bool) -> Piece {
        match (color, king) {
            (Color::White, false) => Piece::WhiteMan,
            (Color::Black, false) => Piece::BlackMan,
            (Color::White, true) => Piece::WhiteKing,
            (Color::Black, true) => Piece::BlackKing,
        }
    }

    #[inline(always)]
    const fn zobrist_index(color: Color, king: bool) -> usize {
        match (color, king) {
            (Color::White, false) => zobrist::WHITE_MAN,
            (Color::Black, false) => zobrist::BLACK_MAN,
            (Color::White, true) => zobrist::WHITE_KING,
            (Color::Black, true) => zobrist::BLACK_KING,
        }
    }
}

/// Why a set of pieces is not a valid position.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PositionError {
    /// Two pieces on one square.
    #[error("square {0} holds two pieces")]
    Overlap(u32),
    /// A man on the row where it would already have been crowned.
    #[error("a {0} man stands on square {1}, on its promotion row")]
    ManOnPromotionRow(&'static str, u32),
}

/// Turns a layout bitboard of `V` round (square `i` goes to `SQUARES - 1 - i`).
#[inline(always)]
pub fn rotate<V: Variant>(b: u64) -> u64 {
    let last = V::ROWS / 2 * V::STRIDE - 2;
    b.reverse_bits() >> (63 - last)
}

/// A position of variant `V`: pieces as bitboards over `V`'s layout, the side to move and the hash.
///
/// Positions are small and `Copy`; making a move returns a new position (copy-make).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Position<V> {
    white: Bitboard,
    black: Bitboard,
    kings: Bitboard,
    side: Color,
    hash: u64,
    _v: PhantomData<V>,
}

impl<V: Variant> Default for Position<V> {
    fn default() -> Self {
        Self::start()
    }
}

impl<V: Variant> Position<V> {
    /// The variant's initial position.
    pub fn start() -> Self {
        Self::from_bitboards(V::WHITE_START, V::BLACK_START, Bitboard::EMPTY, V::FIRST)
    }

    /// A position from its parts, trusting them (pieces of both colours must not overlap).
    pub(crate) fn from_bitboards(
        white: Bitboard,
        black: Bitboard,
        kings: Bitboard,
        side: Color,
    ) -> Self {
        let mut p = Position {
            white,
            black,
            kings,
            side,
            hash: 0,
            _v: PhantomData,
        };
        p.hash = p.compute_hash();
        p
    }

    /// A position from the squares of each kind of piece, checked for validity.
    pub fn from_pieces(pieces: &[(Square, Piece)], side: Color) -> Result<Self, PositionError> {
        let (mut white, mut black, mut kings) = (Bitboard::EMPTY, Bitboard::EMPTY, Bitboard::EMPTY);
        for &(sq, piece) in pieces {
            let b = Bitboard::from_bit(V::bit(sq));
            if ((white | black) & b).any() {
                return Err(PositionError::Overlap(sq.number()));
            }
            match piece.color() {
                Color::White => white |= b,
                Color::Black => black |= b,
            }
            if piece.is_king() {
                kings |= b;
            } else if (V::promotion_row(piece.color()) & b).any() {
                let name = if piece.color() == Color::White {
                    "white"
                } else {
                    "black"
                };
                return Err(PositionError::ManOnPromotionRow(name, sq.number()));
            }
        }
        Ok(Self::from_bitboards(white, black, kings, side))
    }

    /// The side to move.
    #[inline(always)]
    pub fn side(&self) -> Color {
        self.side
    }

    /// The Zobrist hash (side to move included).
    #[inline(always)]
    pub fn hash(&self) -> u64 {
        self.hash
    }

    /// Every piece of `color`.
    #[inline(always)]
    pub fn pieces(&self, color: Color) -> Bitboard {
        match color {
            Color::White => self.white,
            Color::Black => self.black,
        }
    }

    /// The men of `color`.
    #[inline(always)]
    pub fn men(&self, color: Color) -> Bitboard {
        self.pieces(color) & !self.kings
    }

    /// The kings of `color`.
    #[inline(always)]
    pub fn kings(&self, color: Color) -> Bitboard {
        self.pieces(color) & self.kings
    }

    /// Every king on the board.
    #[inline(always)]
    pub fn all_kings(&self) -> Bitboard {
        self.kings
    }

    /// Every occupied square.
    #[inline(always)]
    pub fn occupied(&self) -> Bitboard {
        self.white | self.black
    }

    /// Every empty playable square.
    #[inline(always)]
    pub fn empty(&self) -> Bitboard {
        V::ALL & !(self.white | self.black)
    }

    /// The piece on a square, if any.
    pub fn piece_at(&self, sq: Square) -> Option<Piece> {
        let b = V::bit(sq);
        let king = self.kings.has(b);
        if self.white.has(b) {
            Some(Piece::new(Color::White, king))
        } else if self.black.has(b) {
            Some(Piece::new(Color::Black, king))
        } else {
            None
        }
    }

    /// Every piece with its square, in square order.
    pub fn piece_list(&self) -> Vec<(Square, Piece)> {
        (0..V::SQUARES as u8)
            .map(Square::from_index)
            .filter_map(|s| self.piece_at(s).map(|p| (s, p)))
            .collect()
    }

    /// The same position seen from the other side: the board turned round, the colours
    /// swapped, the other side to move. The rules are symmetric under this, so both positions
    /// have the same value for their side to move.
    pub fn turned(&self) -> Self {
        let r = |b: Bitboard| Bitboard(rotate::<V>(b.0));
        Self::from_bitboards(
            r(self.black),
            r(self.white),
            r(self.kings),
            self.side.opponent(),
        )
    }

    /// The same pieces with `side` to move (the hash is updated, not recomputed).
    #[inline]
    pub fn with_side(&self, side: Color) -> Self {
        let mut p = *self;
        if side != self.side {
            p.side = side;
            p.hash ^= zobrist::BLACK_TO_MOVE;
        }
        debug_assert_eq!(p.hash, p.compute_hash(), "incremental hash diverged");
        p
    }

    /// The hash computed from scratch (the incremental one must always equal it).
    pub fn compute_hash(&self) -> u64 {
        let mut h = if self.side == Color::Black {
            zobrist::BLACK_TO_MOVE
        } else {
            0
        };
        for color in [Color::White, Color::Black] {
            for b in self.men(color).bits() {
                h ^= zobrist::PIECE[Piece::zobrist_index(color, false)][b as usize];
            }
            for b in self.kings(color).bits() {
                h ^= zobrist::PIECE[Piece::zobrist_index(color, true)][b as usize];
            }
        }
        h
    }

    /// The position after `m` (which must be legal here).
    #[inline]
    pub fn make(&self, m: &Move<V>) -> Self {
        let mut p = self.make_pieces(m);
        p.hash = self.hash_after(m);
        debug_assert_eq!(p.hash, p.compute_hash(), "incremental hash diverged");
        p
    }

    /// The Zobrist hash of the position after `m`, without making it.
    #[inline(always)]
    pub fn hash_after(&self, m: &Move<V>) -> u64 {
        self.hash ^ self.hash_delta(m)
    }

    /// The position after `m` with the pieces moved but the hash left as it was: for leaf
    /// counting (perft), where no hash is read. The result must not reach a hash table.
    #[inline(always)]
    pub(crate) fn make_unhashed(&self, m: &Move<V>) -> Self {
        self.make_pieces(m)
    }

    /// Moves the pieces of `m` and passes the turn; the hash is copied unchanged.
    #[inline(always)]
    fn make_pieces(&self, m: &Move<V>) -> Self {
        let us = self.side;
        let from = 1u64 << (m.from & 63);
        let to = 1u64 << (m.to & 63);
        let crowned = m.is_king_move() || m.is_promotion();
        let cap = m.captured.0;
        let mut p = *self;
        let (own, opp) = match us {
            Color::White => (&mut p.white, &mut p.black),
            Color::Black => (&mut p.black, &mut p.white),
        };
        own.0 = (own.0 & !from) | to;
        opp.0 &= !cap;
        p.kings.0 = (p.kings.0 & !from & !cap) | if crowned { to } else { 0 };
        p.side = us.opponent();
        p
    }

    /// The change of the Zobrist hash made by `m`.
    #[inline(always)]
    fn hash_delta(&self, m: &Move<V>) -> u64 {
        let us = self.side;
        let them = us.opponent();
        let (fb, tb) = ((m.from & 63) as usize, (m.to & 63) as usize);
        let king = m.is_king_move();
        let crowned = king || m.is_promotion();
        let mut h = zobrist::BLACK_TO_MOVE
            ^ zobrist::PIECE[Piece::zobrist_index(us, king)][fb]
            ^ zobrist::PIECE[Piece::zobrist_index(us, crowned)][tb];
        let mut c = m.captured.0;
        if c != 0 {
            let kings = self.kings.0;
            let (man_keys, king_keys) = (
                &zobrist::PIECE[Piece::zobrist_index(them, false)],
                &zobrist::PIECE[Piece::zobrist_index(them, true)],
            );
            while c != 0 {
                let b = c.trailing_zeros() as usize;
                c &= c - 1;
                h ^= if kings >> b & 1 != 0 {
                    king_keys[b]
                } else {
                    man_keys[b]
                };
            }
        }
        h
    }

    /// The Hub position string: the side to move then every square as `w b W B e`.
    pub fn to_hub(&self) -> String {
        self.board_string(['W', 'B'], ['w', 'b', 'W', 'B', 'e'])
    }

    /// The DXP board: the side to move (`W`/`Z`) then every square as `w z W Z e`.
    pub fn to_dxp(&self) -> String {
        self.board_string(['W', 'Z'], ['w', 'z', 'W', 'Z', 'e'])
    }

    fn board_string(&self, sides: [char; 2], pieces: [char; 5]) -> String {
        let mut s = String::with_capacity(1 + V::SQUARES as usize);
        s.push(sides[self.side.index()]);
        for i in 0..V::SQUARES as u8 {
            s.push(match self.piece_at(Square::from_index(i)) {
                Some(Piece::WhiteMan) => pieces[0],
                Some(Piece::BlackMan) => pieces[1],
                Some(Piece::WhiteKing) => pieces[2],
                Some(Piece::BlackKing) => pieces[3],
                None => pieces[4],
            });
        }
        s
    }

    /// Reads a Hub position string (`W`/`B` then `w b W B e` per square).
    pub fn from_hub(s: &str) -> Result<Self, BoardStringError> {
        Self::from_board_string(s, ['W', 'B'], ['w', 'b', 'W', 'B', 'e'])
    }

    /// Reads a DXP board string (`W`/`Z` then `w z W Z e` per square).
    pub fn from_dxp(s: &str) -> Result<Self, BoardStringError> {
        Self::from_board_string(s, ['W', 'Z'], ['w', 'z', 'W', 'Z', 'e'])
    }

    fn from_board_string(
        s: &str,
        sides: [char; 2],
        pieces: [char; 5],
    ) -> Result<Self, BoardStringError> {
        let chars: Vec<char> = s.chars().collect();
        if chars.len() != 1 + V::SQUARES as usize {
            return Err(BoardStringError::Length {
                expected: 1 + V::SQUARES as usize,
                found: chars.len(),
            });
        }
        let side = if chars[0] == sides[0] {
            Color::White
        } else if chars[0] == sides[1] {
            Color::Black
        } else {
            return Err(BoardStringError::Side(chars[0]));
        };
        let mut list = Vec::new();
        for (i, &c) in chars[1..].iter().enumerate() {
            let sq = Square::from_index(i as u8);
            let piece = match pieces.iter().position(|&p| p == c) {
                Some(0) => Piece::WhiteMan,
                Some(1) => Piece::BlackMan,
                Some(2) => Piece::WhiteKing,
                Some(3) => Piece::BlackKing,
                Some(_) => continue,
                None => return Err(BoardStringError::Piece(c, sq.number())),
            };
            list.push((sq, piece));
        }
        Ok(Self::from_pieces(&list, side)?)
    }
}

/// Why a Hub or DXP board string could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BoardStringError {
    /// The string is not one side letter plus one letter per square.
    #[error("board string must have {expected} characters, found {found}")]
    Length {
        /// Expected length.
        expected: usize,
        /// Actual length.
        found: usize,
    },
    /// The first character is not a side letter.
    #[error("bad side to move '{0}'")]
    Side(char),
    /// A square letter is not a piece letter.
    #[error("bad piece letter '{0}' on square {1}")]
    Piece(char, u32),
    /// The pieces do not form a valid position.
    #[error(transparent)]
    Invalid(#[from] PositionError),
}

impl<V: Variant> fmt::Debug for Position<V> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", crate::core::fen::write(self))
    }
}

impl<V: Variant> fmt::Display for Position<V> {
    /// A text diagram of the board, White at the bottom.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for row in 0..V::ROWS {
            for col in 0..2 * V::HALF {
                let c = match crate::core::variant::geometry::at(
                    V::HALF,
                    V::ROWS,
                    row as i32,
                    col as i32,
                ) {
                    None => ' ',
                    Some(i) => match self.piece_at(Square::from_index(i as u8)) {
                        Some(Piece::WhiteMan) => 'o',
                        Some(Piece::BlackMan) => 'x',
                        Some(Piece::WhiteKing) => 'O',
                        Some(Piece::BlackKing) => 'X',
                        None => '.',
                    },
                };
                write!(f, " {c}")?;
            }
            writeln!(f)?;
        }
        write!(
            f,
            "{} to move",
            if self.side == Color::White {
                "White"
            } else {
                "Black"
            }
        )
    }
}
