//! The learned pattern evaluation: the board is covered by overlapping windows of 4 rows by 4
//! columns (8 playable squares each); the configuration of men in a window (each square empty,
//! ours or theirs: 3^8 = 6561 cases) indexes a table of learned weights, one for the middle game
//! and one for the endgame, blended by the number of men left. A few global terms (men and kings
//! of each side, and a bias for having the move) are learned with them.
//!
//! Everything is seen from the side to move: for Black the board is turned round, so one set of
//! tables serves both colours and having the move is part of what is learned. Kings are not part
//! of the windows (their squares count as empty there) but of the global terms.
//!
//! The tables are trained by `damast train` (`crate::tools::train`) on self-play games and stored
//! in the format of [`file`]; the net for international draughts is built into the binary.

pub mod file;

use std::sync::{Arc, OnceLock};

use crate::core::position::Position;
use crate::core::variant::{Color, Variant, VariantKind};

/// Configurations of one window: 3^8.
pub const STATES: usize = 6561;
/// Most windows of any board (10x10: 7 row starts by 4 column starts).
pub const MAX_WINDOWS: usize = 28;
/// The global terms, in order: bias (having the move), our men, their men, our kings, their kings.
pub const EXTRAS: usize = 5;

/// Windows of variant `V`: rows `r..r+4` for `r` in `0..ROWS-3`, columns `c..c+4` for even `c`
/// in `0..2*HALF-3`.
pub const fn windows<V: Variant>() -> usize {
    ((V::ROWS - 3) * (V::HALF - 1)) as usize
}

/// The bit, in the layout, of the left one of the two playable squares that row `row` has in
/// the window columns starting at column `2 * start`; the right one is the next bit.
const fn row_bit<V: Variant>(row: u32, start: u32) -> u32 {
    let i = row * V::HALF + start;
    i + i / (2 * V::HALF)
}

/// The base-9 digit of a window row from its two squares' men: ours (2 bits) and theirs (2 bits),
/// each square 0 empty, 1 ours, 2 theirs, the left square the low trit.
const DIGIT: [u16; 16] = {
    let mut t = [0u16; 16];
    let mut i = 0;
    while i < 16 {
        let ours = i & 3;
        let theirs = i >> 2;
        let ours_trits = (ours & 1) + 3 * (ours >> 1);
        let theirs_trits = (theirs & 1) + 3 * (theirs >> 1);
        t[i] = (ours_trits + 2 * theirs_trits) as u16;
        i += 1;
    }
    t
};

pub use crate::core::position::rotate;

/// The features of a position, from the side to move's point of view.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Features {
    /// The configuration index of every window (the first `windows::<V>()` are used).
    pub index: [u16; MAX_WINDOWS],
    /// Our men, their men, our kings, their kings.
    pub counts: [u8; 4],
    /// Men on the board relative to the start, 0 (none) to 256 (all): the middle-game share.
    pub phase: u16,
}

/// The base-9 digits of one board row, for every window column start at once: indexed by the
/// row's men `ours | theirs << 5` (each 5 bits, the left square lowest), lane `s` (16 bits) is
/// the [`DIGIT`] of the two squares `s` and `s + 1`. Rows of 4 squares use the first 3 lanes.
static ROW_DIGITS: [u64; 1024] = {
    let mut t = [0u64; 1024];
    let mut i = 0;
    while i < 1024 {
        let (ours, theirs) = (i & 31, i >> 5);
        let mut s = 0;
        while s < 4 {
            let pair = ((ours >> s) & 3) | (((theirs >> s) & 3) << 2);
            t[i] |= (DIGIT[pair] as u64) << (16 * s);
            s += 1;
        }
        i += 1;
    }
    t
};

/// Computes the window indices of men `ours` and `theirs` (seen with `ours` moving up) into
/// `index`. Each row's digits come packed from [`ROW_DIGITS`], and four rows' packed digits
/// make the indices of a row of windows (each lane stays below 3^8, so lanes never carry).
#[inline(always)]
fn window_indices<V: Variant>(ours: u64, theirs: u64, index: &mut [u16; MAX_WINDOWS]) {
    const { assert!(V::HALF <= 5 && V::ROWS <= 10) };
    let starts = (V::HALF - 1) as usize;
    let rows = V::ROWS as usize;
    let mask = (1u64 << V::HALF) - 1;
    let mut packed = [0u64; 10];
    for (r, p) in packed.iter_mut().enumerate().take(rows) {
        let b = row_bit::<V>(r as u32, 0);
        let o = (ours >> b) & mask;
        let t = (theirs >> b) & mask;
        *p = ROW_DIGITS[(o | (t << 5)) as usize];
    }
    // window `r * starts + s` covers rows r..r+4 of column start s
    for (r, quad) in packed[..rows].windows(4).enumerate() {
        let w = quad[0] + 9 * quad[1] + 81 * quad[2] + 729 * quad[3];
        for s in 0..starts {
            index[r * starts + s] = (w >> (16 * s)) as u16;
        }
    }
}

/// The features of `pos` for the side to move.
#[inline]
pub fn features<V: Variant>(pos: &Position<V>) -> Features {
    let us = pos.side();
    let them = us.opponent();
    let (mut ours, mut theirs) = (pos.men(us).0, pos.men(them).0);
    if us == Color::Black {
        ours = rotate::<V>(ours);
        theirs = rotate::<V>(theirs);
    }
    let mut index = [0u16; MAX_WINDOWS];
    window_indices::<V>(ours, theirs, &mut index);
    Features {
        index,
        counts: [
            pos.men(us).count() as u8,
            pos.men(them).count() as u8,
            pos.kings(us).count() as u8,
            pos.kings(them).count() as u8,
        ],
        phase: crate::engine::eval::phase(pos) as u16,
    }
}

/// A learned pattern evaluation for one variant: integer weights in hundredths of a man.
#[derive(Clone, PartialEq)]
pub struct PatternEval {
    /// PDN GameType of the variant it was trained for.
    pub game_type: u16,
    /// `[window][configuration]` → (middle game, endgame) weight.
    pub tables: Vec<[i16; 2]>,
    /// The global terms (see [`EXTRAS`]), middle game and endgame.
    pub extras: [[i16; 2]; EXTRAS],
    /// The logistic scale the net was trained with (hundredths of a man per unit of log-odds).
    pub scale: f32,
}

impl std::fmt::Debug for PatternEval {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PatternEval")
            .field("game_type", &self.game_type)
            .field("windows", &(self.tables.len() / STATES))
            .field("extras", &self.extras)
            .field("scale", &self.scale)
            .finish_non_exhaustive()
    }
}

impl PatternEval {
    /// A net of zeros for variant `V` (it evaluates every position as 0).
    pub fn zero<V: Variant>() -> PatternEval {
        PatternEval {
            game_type: V::GAME_TYPE as u16,
            tables: vec![[0; 2]; windows::<V>() * STATES],
            extras: [[0; 2]; EXTRAS],
            scale: 1.0,
        }
    }

    /// Whether the net was made for variant `V` (its GameType and its number of windows).
    pub fn fits<V: Variant>(&self) -> bool {
        self.game_type == V::GAME_TYPE as u16 && self.tables.len() == windows::<V>() * STATES
    }

    /// The (middle game, endgame) sums of the weights of `f`.
    #[inline(always)]
    pub fn sums<V: Variant>(&self, f: &Features) -> (i32, i32) {
        let n = windows::<V>();
        debug_assert_eq!(self.tables.len(), n * STATES);
        let (mut mg, mut eg) = (self.extras[0][0] as i32, self.extras[0][1] as i32);
        for (i, &c) in f.counts.iter().enumerate() {
            mg += self.extras[i + 1][0] as i32 * c as i32;
            eg += self.extras[i + 1][1] as i32 * c as i32;
        }
        let tables = &self.tables[..n * STATES];
        for (w, &idx) in f.index[..n].iter().enumerate() {
            let e = tables[w * STATES + idx as usize];
            mg += e[0] as i32;
            eg += e[1] as i32;
        }
        (mg, eg)
    }

    /// The score of features `f`: their middle-game and endgame sums blended by the phase.
    #[inline(always)]
    pub fn score<V: Variant>(&self, f: &Features) -> i32 {
        let (mg, eg) = self.sums::<V>(f);
        let p = f.phase as i32;
        (mg * p + eg * (256 - p)) / 256
    }

    /// The raw score of `pos` for the side to move, before any drawishness scaling.
    #[inline]
    pub fn raw<V: Variant>(&self, pos: &Position<V>) -> i32 {
        self.score::<V>(&features(pos))
    }
}

/// The bytes of the net built into the binary for international draughts.
pub const INTERNATIONAL_NET: &[u8] = include_bytes!("../../../nets/international.pat");

/// The nets built into the binary: the variants each one plays and its file's bytes. A net
/// serves variants with the same board and rules (filipino plays brazilian's rules).
pub const BUILT_IN: &[(&[VariantKind], &[u8])] = &[
    (&[VariantKind::International], INTERNATIONAL_NET),
    (
        &[VariantKind::Russian],
        include_bytes!("../../../nets/russian.pat"),
    ),
    (
        &[VariantKind::Brazilian, VariantKind::Filipino],
        include_bytes!("../../../nets/brazilian.pat"),
    ),
    (
        &[VariantKind::Pool],
        include_bytes!("../../../nets/pool.pat"),
    ),
    (
        &[VariantKind::Spanish],
        include_bytes!("../../../nets/spanish.pat"),
    ),
    (
        &[VariantKind::Czech],
        include_bytes!("../../../nets/czech.pat"),
    ),
];

/// The built-in nets, read on first use, one slot per variant (in [`VariantKind::ALL`] order).
static LOADED: [OnceLock<Option<Arc<PatternEval>>>; VariantKind::ALL.len()] =
    [const { OnceLock::new() }; VariantKind::ALL.len()];

/// The built-in net for variant `V`, if there is one.
pub fn default_net<V: Variant>() -> Option<Arc<PatternEval>> {
    let slot = VariantKind::ALL
        .iter()
        .position(|k| *k == V::KIND)
        .expect("every variant is in ALL");
    LOADED[slot]
        .get_or_init(|| {
            let (_, bytes) = BUILT_IN
                .iter()
                .find(|(kinds, _)| kinds.contains(&V::KIND))?;
            let mut net =
                file::read(bytes).expect("the built-in nets are valid (checked by a unit test)");
            // a net shared by variants of the same rules is relabelled for this one
            net.game_type = V::GAME_TYPE as u16;
            net.fits::<V>().then(|| Arc::new(net))
        })
        .clone()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::fen;
    use crate::core::movegen;
    use crate::core::variant::{International, Russian};
    use crate::engine::rng::Rng;

    #[test]
    fn rotation_turns_the_board_round() {
        for i in 0..50u32 {
            let b = 1u64 << (i + i / 10);
            let j = 49 - i;
            assert_eq!(
                rotate::<International>(b),
                1u64 << (j + j / 10),
                "square {i}"
            );
        }
        for i in 0..32u32 {
            let b = 1u64 << (i + i / 8);
            let j = 31 - i;
            assert_eq!(rotate::<Russian>(b), 1u64 << (j + j / 8), "square {i}");
        }
    }

    /// The index of window `w` computed square by square from the position's pieces.
    fn slow_index<V: Variant>(pos: &Position<V>, w: usize) -> u16 {
        let starts = (V::HALF - 1) as usize;
        let (r0, c0) = ((w / starts) as i32, 2 * (w % starts) as i32);
        let us = pos.side();
        let mut idx = 0u16;
        let mut place = 1u16;
        for r in r0..r0 + 4 {
            for c in c0..c0 + 4 {
                let Some(i) = crate::core::variant::geometry::at(V::HALF, V::ROWS, r, c) else {
                    continue;
                };
                // the square seen from the side to move
                let sq = if us == Color::Black {
                    V::SQUARES - 1 - i
                } else {
                    i
                };
                let piece = pos.piece_at(crate::core::square::Square::from_index(sq as u8));
                let trit = match piece {
                    Some(p) if !p.is_king() && p.color() == us => 1,
                    Some(p) if !p.is_king() => 2,
                    _ => 0,
                };
                idx += trit * place;
                place *= 3;
            }
        }
        idx
    }

    fn check_random_positions<V: Variant>() {
        let mut rng = Rng::new(11);
        for game in 0..40 {
            let mut pos = Position::<V>::start();
            for ply in 0..150 {
                let f = features(&pos);
                for w in 0..windows::<V>() {
                    assert_eq!(
                        f.index[w],
                        slow_index(&pos, w),
                        "game {game} ply {ply} window {w}"
                    );
                }
                let list = movegen::legal_moves(&pos);
                if list.is_empty() {
                    break;
                }
                pos = pos.make(&list[rng.below(list.len())]);
            }
        }
    }

    #[test]
    fn window_indices_match_a_square_by_square_count() {
        check_random_positions::<International>();
        check_random_positions::<Russian>();
    }

    #[test]
    fn the_same_position_seen_by_either_side_has_the_same_features() {
        // White to move in a position, and Black to move in the same position turned round with
        // the colours swapped
        let p: Position<International> = fen::parse("W:WK2,31,32,40:B4,19,K45").unwrap();
        let q: Position<International> = fen::parse("B:BK49,20,19,11:W47,32,K6").unwrap();
        assert_eq!(features(&p), features(&q));
    }

    #[test]
    fn the_built_in_nets_read_and_fit() {
        for (kinds, bytes) in BUILT_IN {
            let net = file::read(bytes).unwrap();
            for k in *kinds {
                crate::with_variant!(*k, V => {
                    let n = default_net::<V>().expect("a built-in net");
                    assert_eq!(n.tables.len(), net.tables.len());
                    assert!(n.fits::<V>(), "{k}");
                });
            }
        }
        let net = default_net::<International>().unwrap();
        assert!(net.fits::<International>());
        assert!(!net.fits::<Russian>());
        assert!(default_net::<crate::core::variant::Italian>().is_none());
        // the variants the README lists with a net, and only those, have one
        for k in VariantKind::ALL {
            let listed = matches!(
                k,
                VariantKind::International
                    | VariantKind::Russian
                    | VariantKind::Brazilian
                    | VariantKind::Filipino
                    | VariantKind::Pool
                    | VariantKind::Spanish
                    | VariantKind::Czech
            );
            crate::with_variant!(k, V => assert_eq!(default_net::<V>().is_some(), listed, "{k}"));
        }
        // a man up is good, a man down bad
        let up: Position<International> = fen::parse("W:W31-50:B1-19").unwrap();
        let down: Position<International> = fen::parse("B:W31-50:B1-19").unwrap();
        assert!(net.raw(&up) > 50, "{}", net.raw(&up));
        assert!(net.raw(&down) < -50, "{}", net.raw(&down));
    }
}
