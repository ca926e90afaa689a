//! Zobrist keys, generated at compile time from a fixed seed (no global mutable state).

/// A piece kind as a row index of the key table.
pub(crate) const WHITE_MAN: usize = 0;
pub(crate) const BLACK_MAN: usize = 1;
pub(crate) const WHITE_KING: usize = 2;
pub(crate) const BLACK_KING: usize = 3;

const fn splitmix(state: u64) -> (u64, u64) {
    let s = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = s;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    (s, z ^ (z >> 31))
}

const fn make_keys() -> ([[u64; 64]; 4], u64) {
    let mut t = [[0u64; 64]; 4];
    let mut s = 0x00DA_3A57_0000_0001u64;
    let mut p = 0;
    while p < 4 {
        let mut b = 0;
        while b < 64 {
            let (ns, k) = splitmix(s);
            s = ns;
            t[p][b] = k;
            b += 1;
        }
        p += 1;
    }
    let (_, side) = splitmix(s);
    (t, side)
}

const KEYS: ([[u64; 64]; 4], u64) = make_keys();

/// Key of a piece kind on a bit of the layout.
pub(crate) static PIECE: [[u64; 64]; 4] = KEYS.0;
/// Key XORed in when Black is to move.
pub(crate) const BLACK_TO_MOVE: u64 = KEYS.1;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_distinct() {
        let mut all: Vec<u64> = PIECE.iter().flatten().copied().collect();
        all.push(BLACK_TO_MOVE);
        let n = all.len();
        all.sort_unstable();
        all.dedup();
        assert_eq!(all.len(), n);
    }
}
