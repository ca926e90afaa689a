//! Squares by their number in the variant's numeric notation.

use std::fmt;

/// A playable square, stored as its 0-based index (square number minus one).
///
/// The number runs 1..=50 on 10x10 and 1..=32 on 8x8, row by row from the top-left playable square
/// seen from White. Which bit of a [`Bitboard`](super::bitboard::Bitboard) it occupies depends on the
/// variant's layout: see [`Variant::bit`](super::variant::Variant::bit).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Square(u8);

impl Square {
    /// The square with the given 1-based number, if it is in `1..=squares`.
    pub fn from_number(number: u32, squares: u32) -> Option<Square> {
        (1..=squares)
            .contains(&number)
            .then(|| Square((number - 1) as u8))
    }

    /// The square with the given 0-based index.
    #[inline(always)]
    pub const fn from_index(index: u8) -> Square {
        Square(index)
    }

    /// The 0-based index.
    #[inline(always)]
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    /// The 1-based number used in notation.
    #[inline(always)]
    pub const fn number(self) -> u32 {
        self.0 as u32 + 1
    }

    /// The algebraic name (`a1`..`h8`) of this square on a board with `half` squares per row and
    /// `rows` rows, where the top-left playable square is number 1.
    pub fn algebraic(self, half: u32, rows: u32) -> String {
        let (row, col) = super::variant::geometry::row_col(half, self.0 as u32);
        let file = (b'a' + col as u8) as char;
        format!("{}{}", file, rows as i32 - row)
    }

    /// The square named algebraically (`a1`..), if it is a playable square of the board.
    pub fn from_algebraic(text: &str, half: u32, rows: u32) -> Option<Square> {
        let bytes = text.as_bytes();
        if bytes.len() < 2 || !bytes[0].is_ascii_lowercase() {
            return None;
        }
        let col = (bytes[0] - b'a') as i32;
        let rank: i32 = text[1..].parse().ok()?;
        let row = rows as i32 - rank;
        super::variant::geometry::at(half, rows, row, col).map(|i| Square(i as u8))
    }
}

impl fmt::Display for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.number())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_and_algebraic_names() {
        let s = Square::from_number(29, 32).unwrap();
        assert_eq!(s.algebraic(4, 8), "a1");
        assert_eq!(Square::from_number(1, 32).unwrap().algebraic(4, 8), "b8");
        assert_eq!(Square::from_number(32, 32).unwrap().algebraic(4, 8), "g1");
        assert_eq!(Square::from_algebraic("d2", 4, 8).unwrap().number(), 26);
        assert_eq!(Square::from_algebraic("a2", 4, 8), None);
        assert_eq!(Square::from_number(0, 50), None);
        assert_eq!(Square::from_number(51, 50), None);
        assert_eq!(Square::from_number(46, 50).unwrap().algebraic(5, 10), "a1");
    }
}
