//! A set of board squares as a 64-bit mask over the padded layout of a [`Variant`](super::variant::Variant).

use std::ops::{BitAnd, BitAndAssign, BitOr, BitOrAssign, BitXor, BitXorAssign, Not};

/// A set of squares: bit `b` is set when the square stored at bit `b` of the layout is in the set.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Bitboard(pub u64);

impl Bitboard {
    /// The empty set.
    pub const EMPTY: Bitboard = Bitboard(0);

    /// The set holding only `bit`.
    #[inline(always)]
    pub const fn from_bit(bit: u32) -> Bitboard {
        Bitboard(1u64 << bit)
    }

    /// Whether the set is empty.
    #[inline(always)]
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// Whether the set holds something.
    #[inline(always)]
    pub const fn any(self) -> bool {
        self.0 != 0
    }

    /// Number of squares in the set.
    #[inline(always)]
    pub const fn count(self) -> u32 {
        self.0.count_ones()
    }

    /// Whether `bit` is in the set.
    #[inline(always)]
    pub const fn has(self, bit: u32) -> bool {
        self.0 >> bit & 1 != 0
    }

    /// The lowest bit (the set must not be empty).
    #[inline(always)]
    pub const fn lowest(self) -> u32 {
        self.0.trailing_zeros()
    }

    /// The highest bit (the set must not be empty).
    #[inline(always)]
    pub const fn highest(self) -> u32 {
        63 - self.0.leading_zeros()
    }

    /// Shift by a signed amount: positive towards higher bits (down the board).
    #[inline(always)]
    pub const fn shift(self, by: i32) -> Bitboard {
        if by >= 0 {
            Bitboard(self.0 << by)
        } else {
            Bitboard(self.0 >> -by)
        }
    }

    /// Iterate over the bits of the set, lowest first.
    #[inline(always)]
    pub fn bits(self) -> Bits {
        Bits(self.0)
    }
}

/// Iterator over the bits of a [`Bitboard`].
#[derive(Clone, Copy, Debug)]
pub struct Bits(u64);

impl Iterator for Bits {
    type Item = u32;
    #[inline(always)]
    fn next(&mut self) -> Option<u32> {
        if self.0 == 0 {
            None
        } else {
            let b = self.0.trailing_zeros();
            self.0 &= self.0 - 1;
            Some(b)
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.0.count_ones() as usize;
        (n, Some(n))
    }
}

impl ExactSizeIterator for Bits {}

macro_rules! bitop {
    ($tr:ident, $f:ident, $tra:ident, $fa:ident, $op:tt) => {
        impl $tr for Bitboard {
            type Output = Bitboard;
            #[inline(always)]
            fn $f(self, rhs: Bitboard) -> Bitboard {
                Bitboard(self.0 $op rhs.0)
            }
        }
        impl $tra for Bitboard {
            #[inline(always)]
            fn $fa(&mut self, rhs: Bitboard) {
                self.0 = self.0 $op rhs.0;
            }
        }
    };
}

bitop!(BitAnd, bitand, BitAndAssign, bitand_assign, &);
bitop!(BitOr, bitor, BitOrAssign, bitor_assign, |);
bitop!(BitXor, bitxor, BitXorAssign, bitxor_assign, ^);

impl Not for Bitboard {
    type Output = Bitboard;
    #[inline(always)]
    fn not(self) -> Bitboard {
        Bitboard(!self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn iterates_bits_in_order() {
        let b = Bitboard(0b1010_0001);
        assert_eq!(b.bits().collect::<Vec<_>>(), vec![0, 5, 7]);
        assert_eq!(b.count(), 3);
        assert_eq!(b.lowest(), 0);
        assert_eq!(b.highest(), 7);
        assert_eq!(b.shift(-5), Bitboard(0b101));
        assert_eq!(b.shift(1), Bitboard(0b1_0100_0010));
    }
}
