//! Adjudication by the engines' own scores: a draw when both agree the game is level for long
//! enough, a resignation when both agree one side is lost. Moves answered without a score (a
//! forced move played at once, for example) neither extend nor break a streak.

use crate::core::Color;

/// `--draw movenumber=N movecount=N score=S`: from full move N on, when the last `move_count`
/// scores of each engine were all within `score` men of 0, the game is drawn.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DrawRule {
    /// Full moves that must have been played first.
    pub move_number: u32,
    /// Consecutive scored moves of each engine.
    pub move_count: u32,
    /// The largest absolute score (men) that counts as level.
    pub score: f64,
}

/// `--resign movecount=N score=S`: when one engine's last `move_count` scores were all at
/// `-score` or below and its opponent's all at `+score` or above, the first loses.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ResignRule {
    /// Consecutive scored moves of each engine.
    pub move_count: u32,
    /// The score (men) at which a side counts as lost.
    pub score: f64,
}

/// The verdict of an adjudication.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Verdict {
    /// Both engines agree the game is level.
    Draw,
    /// Both engines agree that this side is lost.
    Resign(Color),
}

/// Follows the scores of one game.
#[derive(Clone, Debug)]
pub struct Adjudicator {
    draw: Option<DrawRule>,
    resign: Option<ResignRule>,
    /// Consecutive scored moves of each side within the draw score.
    level: [u32; 2],
    /// Consecutive scored moves of each side at or below minus the resign score.
    losing: [u32; 2],
    /// Consecutive scored moves of each side at or above the resign score.
    winning: [u32; 2],
}

impl Adjudicator {
    /// An adjudicator for one game (no rule: it never adjudicates).
    pub fn new(draw: Option<DrawRule>, resign: Option<ResignRule>) -> Adjudicator {
        Adjudicator {
            draw,
            resign,
            level: [0; 2],
            losing: [0; 2],
            winning: [0; 2],
        }
    }

    /// Records the score (men, from the mover's point of view) that `side`'s engine gave for the
    /// move it just played, `plies` being the plies played in the game so far (this move
    /// included). Returns a verdict when one is due.
    pub fn record(&mut self, side: Color, score: Option<f64>, plies: usize) -> Option<Verdict> {
        let score = score.filter(|s| s.is_finite())?;
        let i = side.index();
        let bump = |n: &mut u32, yes: bool| *n = if yes { *n + 1 } else { 0 };
        if let Some(d) = self.draw {
            bump(&mut self.level[i], score.abs() <= d.score);
        }
        if let Some(r) = self.resign {
            bump(&mut self.losing[i], score <= -r.score);
            bump(&mut self.winning[i], score >= r.score);
        }
        if let Some(r) = self.resign {
            let o = side.opponent().index();
            for (loser, winner) in [(i, o), (o, i)] {
                if self.losing[loser] >= r.move_count && self.winning[winner] >= r.move_count {
                    let c = if loser == 0 {
                        Color::White
                    } else {
                        Color::Black
                    };
                    return Some(Verdict::Resign(c));
                }
            }
        }
        if let Some(d) = self.draw {
            let full_moves = (plies / 2) as u32;
            if full_moves >= d.move_number && self.level.iter().all(|&n| n >= d.move_count) {
                return Some(Verdict::Draw);
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use Color::{Black, White};

    #[test]
    fn draw_needs_both_engines_level_long_enough_and_late_enough() {
        let rule = DrawRule {
            move_number: 3,
            move_count: 2,
            score: 0.1,
        };
        let mut a = Adjudicator::new(Some(rule), None);
        assert_eq!(a.record(White, Some(0.05), 1), None);
        assert_eq!(a.record(Black, Some(-0.1), 2), None);
        assert_eq!(a.record(White, Some(0.0), 3), None);
        // both have two level scores, but only 2 full moves are played
        assert_eq!(a.record(Black, Some(0.02), 4), None);
        // a move without a score changes nothing
        assert_eq!(a.record(White, None, 5), None);
        assert_eq!(a.record(Black, Some(0.0), 6), Some(Verdict::Draw));
        // one score outside the window starts that engine's count again
        let mut b = Adjudicator::new(Some(rule), None);
        for (ply, (side, s)) in [
            (White, 0.0),
            (Black, 0.0),
            (White, 0.5),
            (Black, 0.0),
            (White, 0.0),
        ]
        .into_iter()
        .enumerate()
        {
            assert_eq!(b.record(side, Some(s), 10 + ply), None);
        }
        assert_eq!(b.record(Black, Some(0.0), 15), None);
        assert_eq!(b.record(White, Some(0.0), 16), Some(Verdict::Draw));
    }

    #[test]
    fn resignation_needs_both_engines_to_agree() {
        let rule = ResignRule {
            move_count: 2,
            score: 5.0,
        };
        let mut a = Adjudicator::new(None, Some(rule));
        assert_eq!(a.record(White, Some(6.0), 1), None);
        assert_eq!(a.record(Black, Some(-6.0), 2), None);
        assert_eq!(a.record(White, Some(7.0), 3), None);
        assert_eq!(a.record(Black, Some(-5.0), 4), Some(Verdict::Resign(Black)));
        // the losing side's view alone is not enough
        let mut b = Adjudicator::new(None, Some(rule));
        for ply in 0..6 {
            let side = if ply % 2 == 0 { White } else { Black };
            let s = if side == White { -9.0 } else { 1.0 };
            assert_eq!(b.record(side, Some(s), ply + 1), None);
        }
        let mut none = Adjudicator::new(None, None);
        assert_eq!(none.record(White, Some(0.0), 100), None);
    }
}
