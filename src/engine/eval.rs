//! Static evaluation, in hundredths of a man, from the side to move's point of view.
//!
//! Every weight lives in [`Weights`], as data, so that it can be tuned from games later.

use crate::core::position::Position;
use crate::core::variant::{Color, Variant};

/// The evaluation weights. Values are in hundredths of a man; `_mg` weights apply with all men on
/// the board and `_eg` weights with none, interpolated in between.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Weights {
    /// A man.
    pub man: i32,
    /// A king in the middle game.
    pub king_mg: i32,
    /// A king in the endgame.
    pub king_eg: i32,
    /// Per row a man has advanced, middle game.
    pub advance_mg: i32,
    /// Per row a man has advanced, endgame.
    pub advance_eg: i32,
    /// A man on the central columns in the middle rows.
    pub center: i32,
    /// Penalty per man of difference between the left and right wings.
    pub balance: i32,
    /// A man still guarding its back row (middle game, while the opponent has no king).
    pub back_rank: i32,
    /// A man that nothing can stop from promoting, per row it has advanced.
    pub runaway: i32,
    /// Per square a king can move to.
    pub king_mobility: i32,
    /// A man protected from behind on both sides (a solid formation).
    pub support: i32,
    /// A man on the outpost square in the centre of the opponent's half, supported from behind.
    pub outpost: i32,
    /// Having the move.
    pub tempo: i32,
    /// Per free forward step of a man (men mobility: a side that runs out of safe moves loses).
    pub man_mobility: i32,
    /// Penalty per locked man: a man whose forward squares are all occupied, so that it is
    /// stuck until something in front of it moves.
    pub locked: i32,
    /// Divisor applied to a score when the stronger side cannot win by material (a lone king
    /// against up to three pieces).
    pub drawish_divisor: i32,
}

impl Weights {
    /// The weights in use.
    pub const DEFAULT: Weights = Weights {
        man: 100,
        king_mg: 300,
        king_eg: 350,
        advance_mg: 2,
        advance_eg: 8,
        center: 6,
        balance: 4,
        back_rank: 5,
        runaway: 20,
        king_mobility: 2,
        support: 3,
        outpost: 10,
        tempo: 3,
        man_mobility: 2,
        locked: 4,
        drawish_divisor: 16,
    };
}

impl Default for Weights {
    fn default() -> Self {
        Weights::DEFAULT
    }
}

/// Forward direction steps for a man of `color` (both diagonals), as a set.
#[inline(always)]
fn forward<V: Variant>(b: u64, color: Color) -> u64 {
    match color {
        Color::White => (b >> V::HALF) | (b >> (V::HALF + 1)),
        Color::Black => (b << V::HALF) | (b << (V::HALF + 1)),
    }
}

/// One side's score (positive is good for `color`), without material scaling.
fn side_score<V: Variant>(
    pos: &Position<V>,
    color: Color,
    w: &Weights,
    phase: i32,
    opp_has_king: bool,
) -> i32 {
    let men = pos.men(color).0;
    let kings = pos.kings(color).0;
    let occ = pos.occupied().0;
    let full = 256;
    let king_value = (w.king_mg * phase + w.king_eg * (full - phase)) / full;
    let advance_w = (w.advance_mg * phase + w.advance_eg * (full - phase)) / full;
    let mut s = men.count_ones() as i32 * w.man + kings.count_ones() as i32 * king_value;

    let rows = V::ROWS as i32;
    let cols = 2 * V::HALF as i32;
    let mut left: i32 = 0;
    let mut right = 0;
    let mut m = men;
    while m != 0 {
        let b = m.trailing_zeros();
        m &= m - 1;
        let row = V::ROW_OF[b as usize] as i32;
        let col = V::COL_OF[b as usize] as i32;
        let adv = if color == Color::White {
            rows - 1 - row
        } else {
            row
        };
        s += adv * advance_w;
        if col >= 2 && col <= cols - 3 && adv >= 3 && adv <= rows - 4 {
            s += w.center;
        }
        if col < cols / 2 {
            left += 1;
        } else {
            right += 1;
        }
        if adv == 0 && !opp_has_king {
            s += w.back_rank * phase / full;
        }
        // protected from behind on both diagonals (or by the edge)
        let behind = match color {
            Color::White => ((1u64 << b) << V::HALF) | ((1u64 << b) << (V::HALF + 1)),
            Color::Black => ((1u64 << b) >> V::HALF) | ((1u64 << b) >> (V::HALF + 1)),
        } & V::ALL.0;
        if behind != 0 && behind & !pos.pieces(color).0 == 0 {
            s += w.support;
        }
        if adv == rows / 2 && col >= 3 && col <= cols - 4 && behind & pos.pieces(color).0 != 0 {
            s += w.outpost;
        }
        // runaway: nothing in the cone in front of the man
        if adv >= rows / 2 && !opp_has_king {
            let mut cone = 1u64 << b;
            let mut clear = true;
            for _ in adv..rows - 1 {
                cone = forward::<V>(cone, color) & V::ALL.0;
                if cone & occ != 0 {
                    clear = false;
                    break;
                }
            }
            if clear {
                s += w.runaway * adv;
            }
        }
    }
    s -= (left - right).abs() * w.balance * phase / full;

    // men mobility and locked men, set-wise
    let empty = pos.empty().0;
    let (d0, d1) = match color {
        Color::White => (V::HALF + 1, V::HALF),
        Color::Black => (V::HALF, V::HALF + 1),
    };
    let (step0, step1) = match color {
        Color::White => (men >> d0, men >> d1),
        Color::Black => (men << d0, men << d1),
    };
    let free0 = step0 & empty;
    let free1 = step1 & empty;
    s += (free0.count_ones() + free1.count_ones()) as i32 * w.man_mobility;
    let can_move = match color {
        Color::White => (free0 << d0) | (free1 << d1),
        Color::Black => (free0 >> d0) | (free1 >> d1),
    };
    s -= (men & !can_move).count_ones() as i32 * w.locked * phase / full;

    let mob = crate::core::movegen::king_quiet_count::<V>(kings, pos.empty().0) as i32;
    s += mob * w.king_mobility;
    s
}

/// Evaluates `pos` for the side to move, with the default weights.
pub fn evaluate<V: Variant>(pos: &Position<V>) -> i32 {
    evaluate_with(pos, &Weights::DEFAULT)
}

/// Evaluates `pos` for the side to move with the given weights.
pub fn evaluate_with<V: Variant>(pos: &Position<V>, w: &Weights) -> i32 {
    let us = pos.side();
    let them = us.opponent();
    let start_men = 2 * (V::WHITE_START.count()) as i32;
    let men_now = (pos.men(Color::White).count() + pos.men(Color::Black).count()) as i32;
    let phase = (men_now * 256 / start_men.max(1)).clamp(0, 256);
    let our_kings = pos.kings(us).any();
    let their_kings = pos.kings(them).any();
    let mine = side_score(pos, us, w, phase, their_kings);
    let theirs = side_score(pos, them, w, phase, our_kings);
    let mut score = mine - theirs + w.tempo;

    // A lone king holds a draw against up to three pieces in most endings.
    let (n_us, n_them) = (pos.pieces(us).count(), pos.pieces(them).count());
    let lone = |c: Color| pos.pieces(c).count() == 1 && pos.kings(c).count() == 1;
    if (lone(them) && n_us <= 3 && score > 0) || (lone(us) && n_them <= 3 && score < 0) {
        score /= w.drawish_divisor;
    } else if our_kings && their_kings && (n_us as i32 - n_them as i32).abs() <= 1 {
        score /= 2;
    }
    score
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::fen;
    use crate::core::variant::International;

    #[test]
    fn start_position_is_balanced_and_symmetric() {
        let p = Position::<International>::start();
        assert_eq!(evaluate(&p), Weights::DEFAULT.tempo);
    }

    #[test]
    fn material_counts() {
        let p: Position<International> = fen::parse("W:W31-50:B1-19").unwrap();
        assert!(evaluate(&p) > 60);
        let q: Position<International> = fen::parse("B:W31-50:B1-19").unwrap();
        assert!(evaluate(&q) < -60);
    }

    #[test]
    fn men_mobility_and_locked_men() {
        // White: 41 is locked by 36 and 37, 48 has two free steps (42, 43). Black: 36 (on the
        // edge) is locked by 41, 37 has one free step (42).
        let p: Position<International> = fen::parse("W:W41,48:B36,37").unwrap();
        let base = Weights {
            man_mobility: 0,
            locked: 0,
            ..Weights::DEFAULT
        };
        let mobility = Weights {
            man_mobility: 10,
            ..base
        };
        let locked = Weights { locked: 10, ..base };
        let score = |c: Color, w: &Weights| side_score(&p, c, w, 256, false);
        assert_eq!(
            score(Color::White, &mobility) - score(Color::White, &base),
            20
        );
        assert_eq!(
            score(Color::Black, &mobility) - score(Color::Black, &base),
            10
        );
        assert_eq!(
            score(Color::White, &locked) - score(Color::White, &base),
            -10
        );
        assert_eq!(
            score(Color::Black, &locked) - score(Color::Black, &base),
            -10
        );
    }

    #[test]
    fn lone_king_against_three_is_drawish() {
        let p: Position<International> = fen::parse("W:WK1,K2,K3:BK50").unwrap();
        let q: Position<International> = fen::parse("W:WK1,K2,K3,K4:BK50").unwrap();
        assert!(evaluate(&p) < 100, "{}", evaluate(&p));
        assert!(evaluate(&q) > 500);
    }
}
