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

/// Colexicographic rank of a sorted set of distinct values.
fn rank(set: &[u32]) -> u64 {
    set.iter()
        .enumerate()
        .map(|(i, &s)| binom(s, i as u32 + 1))
        .sum()
}

/// The sorted set of `k` values with colexicographic rank `r`, written into `out`.
fn unrank(mut r: u64, k: u32, out: &mut [u32]) {
    for i in (0..k).rev() {
        // the largest s with C(s, i+1) <= r
        let mut s = i;
        while binom(s + 1, i + 1) <= r {
            s += 1;
        }
        r -= binom(s, i + 1);
        out[i as usize] = s;
    }
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
        let sq = |b: u32| V::BIT_TO_SQUARE[b as usize] as u32;
        let mut buf = [0u32; 64];
        let mut digits = [0u64; 4];
        // white men: squares HALF.. shifted to 0..
        let mut k = 0;
        for b in pos.men(Color::White).bits() {
            buf[k] = sq(b) - V::HALF;
            k += 1;
        }
        buf[..k].sort_unstable();
        digits[0] = rank(&buf[..k]);
        k = 0;
        for b in pos.men(Color::Black).bits() {
            buf[k] = sq(b);
            k += 1;
        }
        buf[..k].sort_unstable();
        digits[1] = rank(&buf[..k]);
        // kings among the free squares, in square order
        let mut taken = pos.men(Color::White) | pos.men(Color::Black);
        for (d, color) in [(2, Color::White), (3, Color::Black)] {
            let kings = pos.kings(color);
            k = 0;
            for b in kings.bits() {
                let s = sq(b);
                let below = (0..s)
                    .filter(|&t| !taken.has(V::SQUARE_TO_BIT[t as usize] as u32))
                    .count() as u32;
                buf[k] = below;
                k += 1;
            }
            buf[..k].sort_unstable();
            digits[d] = rank(&buf[..k]);
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
        for &x in &buf[..s.men as usize] {
            white |= bit(x + V::HALF);
        }
        unrank(digits[1], s.their_men as u32, &mut buf);
        let mut black = Bitboard::EMPTY;
        for &x in &buf[..s.their_men as usize] {
            let b = bit(x);
            if (white & b).any() {
                return None;
            }
            black |= b;
        }
        let mut kings = Bitboard::EMPTY;
        let mut taken = white | black;
        for (d, n, is_white) in [(2, s.kings, true), (3, s.their_kings, false)] {
            unrank(digits[d], n as u32, &mut buf);
            // the j-th free square, for each j in the set
            let mut placed = Bitboard::EMPTY;
            let (mut j, mut want) = (0u32, 0usize);
            for sq in 0..V::SQUARES {
                if want == n as usize {
                    break;
                }
                let b = bit(sq);
                if (taken & b).any() {
                    continue;
                }
                if buf[want] == j {
                    placed |= b;
                    want += 1;
                }
                j += 1;
            }
            if is_white {
                white |= placed;
            } else {
                black |= placed;
            }
            kings |= placed;
            taken |= placed;
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
        for r in 0..binom(12, 3) {
            unrank(r, 3, &mut out);
            assert!(out[0] < out[1] && out[1] < out[2] && out[2] < 12);
            assert_eq!(rank(&out[..3]), r);
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
