//! The numbering of the positions of one material signature, with the side to move as White.
//!
//! A position's index is a mixed-radix number of four digits: the rank of the set of squares
//! of the white men among the squares a white man may stand on (all but White's crowning row),
//! the same for the black men, then the white kings among the squares the men leave free, and
//! the black kings among those left after them. A set's rank is its place in the colexicographic
//! order of the sets of its size (`sum C(s_i, i+1)`). Men of both colours may fall on the same
//! square: such indices are not positions, and [`Indexer::position`] says so.

use crate::core::bitboard::Bitboard;
use crate::core::position::Position;
use crate::core::variant::{Color, Variant};

use super::Signature;

/// Binomial coefficients `C(n, k)` for `n, k < 65`.
static BINOM: [[u64; 65]; 65] = {
    let mut t = [[0u64; 65]; 65];
    let mut n = 0;
    while n < 65 {
        t[n][0] = 1;
        let mut k = 1;
        while k <= n {
            t[n][k] = t[n - 1][k - 1] + if k < n { t[n - 1][k] } else { 0 };
            k += 1;
        }
        n += 1;
    }
    t
};

/// `C(n, k)`, 0 when `k > n`.
pub fn binom(n: u32, k: u32) -> u64 {
    if k > n {
        0
    } else {
        BINOM[n as usize][k as usize]
    }
}

/// Colexicographic rank of a set of values given as the bits of `set`.
#[inline]
fn rank(mut set: u64) -> u64 {
    let (mut r, mut i) = (0, 1);
    while set != 0 {
        r += binom(set.trailing_zeros(), i);
        set &= set - 1;
        i += 1;
    }
    r
}

/// The sorted set of `k` values with colexicographic rank `r`, written into `out`.
#[inline]
fn unrank(mut r: u64, k: u32, out: &mut [u32]) {
    for i in (0..k).rev() {
        // the largest s with C(s, i+1) <= r: C(i, i+1) = 0 is, C(64, i+1) exceeds any rank
        let (mut lo, mut hi) = (i, 64);
        while hi - lo > 1 {
            let mid = (lo + hi) / 2;
            if binom(mid, i + 1) <= r {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        r -= binom(lo, i + 1);
        out[i as usize] = lo;
    }
}

/// The squares (0-based numbers) of the pieces of `b`, as the bits of a mask.
#[inline]
fn squares<V: Variant>(b: Bitboard) -> u64 {
    b.bits()
        .fold(0, |m, bit| m | 1u64 << V::BIT_TO_SQUARE[bit as usize])
}

/// Positions ↔ indices for one signature of variant `V`.
#[derive(Clone, Copy, Debug)]
pub struct Indexer<V> {
    sig: Signature,
    radix: [u64; 4],
    _v: std::marker::PhantomData<V>,
}

impl<V: Variant> Indexer<V> {
    /// The numbering of `sig`.
    pub fn new(sig: Signature) -> Self {
        let n = V::SQUARES;
        let man_squares = n - V::HALF;
        let men = (sig.men + sig.their_men) as u32;
        let radix = [
            binom(man_squares, sig.men as u32),
            binom(man_squares, sig.their_men as u32),
            binom(n.saturating_sub(men), sig.kings as u32),
            binom(
                n.saturating_sub(men + sig.kings as u32),
                sig.their_kings as u32,
            ),
        ];
        Indexer {
            sig,
            radix,
            _v: std::marker::PhantomData,
        }
    }

    /// The signature.
    pub fn signature(&self) -> Signature {
        self.sig
    }

    /// The number of indices (some of which are not positions).
    pub fn size(&self) -> u64 {
        self.radix.iter().product()
    }

    /// The index of `pos`, which must have White to move and this signature.
    pub fn index(&self, pos: &Position<V>) -> u64 {
        debug_assert_eq!(pos.side(), Color::White);
        debug_assert_eq!(Signature::of(pos), self.sig);
        let white_men = squares::<V>(pos.men(Color::White));
        let black_men = squares::<V>(pos.men(Color::Black));
        // white men: squares HALF.. shifted to 0..
        let mut digits = [rank(white_men >> V::HALF), rank(black_men), 0, 0];
        // kings among the free squares, in square order: a king's place is its square less the
        // squares taken before it
        let mut taken = white_men | black_men;
        for (d, color) in [(2, Color::White), (3, Color::Black)] {
            let kings = squares::<V>(pos.kings(color));
            let (mut k, mut i) = (kings, 1);
            while k != 0 {
                let s = k.trailing_zeros();
                let below = s - (taken & ((1u64 << s) - 1)).count_ones();
                digits[d] += binom(below, i);
                k &= k - 1;
                i += 1;
            }
            taken |= kings;
        }
        ((digits[0] * self.radix[1] + digits[1]) * self.radix[2] + digits[2]) * self.radix[3]
            + digits[3]
    }

    /// The position of index `i` (White to move), or `None` when `i` places two men on one
    /// square.
    pub fn position(&self, i: u64) -> Option<Position<V>> {
        let mut rest = i;
        let mut digits = [0u64; 4];
        for d in (0..4).rev() {
            digits[d] = rest % self.radix[d];
            rest /= self.radix[d];
        }
        let bit = |s: u32| Bitboard::from_bit(V::SQUARE_TO_BIT[s as usize] as u32);
        let mut buf = [0u32; 64];
        let s = self.sig;
        unrank(digits[0], s.men as u32, &mut buf);
        let mut white = Bitboard::EMPTY;
        // squares taken so far, as a mask of square numbers
        let mut taken = 0u64;
        for &x in &buf[..s.men as usize] {
            white |= bit(x + V::HALF);
            taken |= 1u64 << (x + V::HALF);
        }
        unrank(digits[1], s.their_men as u32, &mut buf);
        let mut black = Bitboard::EMPTY;
        for &x in &buf[..s.their_men as usize] {
            if taken >> x & 1 != 0 {
                return None;
            }
            black |= bit(x);
            taken |= 1u64 << x;
        }
        let mut kings = Bitboard::EMPTY;
        let all = (1u64 << V::SQUARES) - 1;
        for (d, n, is_white) in [(2, s.kings, true), (3, s.their_kings, false)] {
            unrank(digits[d], n as u32, &mut buf);
            // the j-th free square, for each j of the set (increasing)
            let mut placed = Bitboard::EMPTY;
            let mut placed_squares = 0u64;
            let (mut free, mut j) = (all & !taken, 0u32);
            for &want in &buf[..n as usize] {
                while j < want {
                    free &= free - 1;
                    j += 1;
                }
                let sq = free.trailing_zeros();
                placed |= bit(sq);
                placed_squares |= 1u64 << sq;
            }
            if is_white {
                white |= placed;
            } else {
                black |= placed;
            }
            kings |= placed;
            taken |= placed_squares;
        }
        Some(Position::from_bitboards(white, black, kings, Color::White))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::variant::{English, International};

    #[test]
    fn ranks_round_trip() {
        let mut out = [0u32; 8];
        for k in 1..=4 {
            for r in 0..binom(50, k) {
                unrank(r, k, &mut out);
                let set = &out[..k as usize];
                assert!(set.windows(2).all(|w| w[0] < w[1]) && set[k as usize - 1] < 50);
                assert_eq!(rank(set.iter().fold(0, |m, &x| m | 1 << x)), r);
            }
        }
    }

    fn round_trip<V: Variant>(sig: Signature) -> u64 {
        let ix = Indexer::<V>::new(sig);
        let mut valid = 0;
        for i in 0..ix.size() {
            if let Some(p) = ix.position(i) {
                valid += 1;
                assert_eq!(Signature::of(&p), sig);
                assert_eq!(ix.index(&p), i, "{sig}");
            }
        }
        valid
    }

    /// The index as first written, counting the free squares one by one: the files on disk
    /// are numbered this way.
    fn index_by_counting<V: Variant>(ix: &Indexer<V>, pos: &Position<V>) -> u64 {
        let sq = |b: u32| V::BIT_TO_SQUARE[b as usize] as u32;
        let rank_sorted = |set: &mut Vec<u32>| {
            set.sort_unstable();
            set.iter()
                .enumerate()
                .map(|(i, &s)| binom(s, i as u32 + 1))
                .sum::<u64>()
        };
        let mut digits = [0u64; 4];
        digits[0] = rank_sorted(
            &mut pos
                .men(Color::White)
                .bits()
                .map(|b| sq(b) - V::HALF)
                .collect(),
        );
        digits[1] = rank_sorted(&mut pos.men(Color::Black).bits().map(sq).collect());
        let mut taken = pos.men(Color::White) | pos.men(Color::Black);
        for (d, color) in [(2, Color::White), (3, Color::Black)] {
            let below = |s: u32| {
                (0..s)
                    .filter(|&t| !taken.has(V::SQUARE_TO_BIT[t as usize] as u32))
                    .count() as u32
            };
            digits[d] = rank_sorted(&mut pos.kings(color).bits().map(|b| below(sq(b))).collect());
            taken |= pos.kings(color);
        }
        ((digits[0] * ix.radix[1] + digits[1]) * ix.radix[2] + digits[2]) * ix.radix[3] + digits[3]
    }

    fn same_numbering<V: Variant>(sig: &str, step: u64) {
        let ix = Indexer::<V>::new(sig.parse().unwrap());
        for i in (0..ix.size()).step_by(step as usize) {
            if let Some(p) = ix.position(i) {
                assert_eq!(index_by_counting(&ix, &p), i, "{sig} {i}");
            }
        }
    }

    #[test]
    fn the_numbering_is_the_one_of_the_files() {
        use crate::core::variant::Italian;
        for sig in ["1111", "2101", "0301", "1003", "2020", "0202"] {
            same_numbering::<International>(sig, 7);
            same_numbering::<English>(sig, 3);
            // a1 light: square numbers run the other way along the rows
            same_numbering::<Italian>(sig, 3);
        }
    }

    #[test]
    fn every_index_is_one_position_and_back() {
        // 1 man and 1 king against 1 man: men never on their crowning row, never two on a square
        let valid = round_trip::<English>(Signature::new(1, 1, 1, 0));
        // (28 * 28 pairs of men, 24 of them on one square) times 30 squares for the king
        assert_eq!(valid, (28 * 28 - 24) * 30);
        assert_eq!(
            Indexer::<English>::new(Signature::new(1, 1, 1, 0)).size(),
            28 * 28 * 30
        );
        round_trip::<International>(Signature::new(0, 2, 0, 1));
        round_trip::<International>(Signature::new(1, 0, 1, 1));
    }
}
