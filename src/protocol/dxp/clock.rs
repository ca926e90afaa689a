//! Our clock in a DXP game: the GAMEREQ's minutes and moves turned into time left and moves to
//! go, and from them the search limits of each move.
//!
//! With moves `000` the minutes are the whole game's time (sudden death); otherwise they are the
//! time for that many moves, which are the length of the game (the initiator ends it there).
//! Should a peer play on past the count, the same time is added again for every further period
//! of that many moves, so that we never run out of time. Minutes `000` give no time at all (pydraughts sends it for games under a minute):
//! the game is then budgeted as a sudden-death game of a configurable number of seconds.
//! A safety margin is kept back from every budget so that the clock is never exceeded.

use crate::engine::time::Limits;

/// Optional caps on every search, on top of the clock (for tests and quick matches).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Caps {
    /// Deepest iteration.
    pub depth: Option<u32>,
    /// Longest time per move, in seconds.
    pub move_time: Option<f64>,
}

/// The time control of a game, as the GAMEREQ gives it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TimeControl {
    /// Minutes per player (for the whole game, or per period of `moves` moves).
    pub minutes: u16,
    /// Moves per period; 0 means the time is for the whole game.
    pub moves: u16,
}

/// One player's clock for one game.
#[derive(Clone, Debug, PartialEq)]
pub struct GameClock {
    period: f64,
    moves_per_period: Option<u32>,
    left: f64,
    moves_made: u32,
    used: f64,
}

/// Seconds kept back from a period of `period` seconds: a quarter of a second plus 1 %, at most 3.
fn margin(period: f64) -> f64 {
    (0.25 + period * 0.01).min(3.0)
}

impl GameClock {
    /// The clock at the start of a game. `zero_minutes` is the game time in seconds assumed when the
    /// time control gives 0 minutes.
    pub fn new(tc: TimeControl, zero_minutes: f64) -> GameClock {
        let period = if tc.minutes == 0 {
            zero_minutes.max(0.1)
        } else {
            f64::from(tc.minutes) * 60.0
        };
        GameClock {
            period,
            moves_per_period: (tc.moves > 0).then_some(u32::from(tc.moves)),
            left: period,
            moves_made: 0,
            used: 0.0,
        }
    }

    /// Seconds left in the current period.
    pub fn left(&self) -> f64 {
        self.left
    }

    /// Seconds used in the whole game.
    pub fn used(&self) -> f64 {
        self.used
    }

    /// Moves to play before the current period ends (`None`: sudden death).
    pub fn moves_to_go(&self) -> Option<u32> {
        self.moves_per_period.map(|n| n - self.moves_made % n)
    }

    /// The limits of our next search: the time left less the safety margin, the moves to go, and
    /// the caps.
    pub fn limits(&self, caps: &Caps) -> Limits {
        let left = (self.left - margin(self.period)).max(0.0);
        let mut l = Limits {
            time: Some(left),
            moves_to_go: self.moves_to_go(),
            depth: caps.depth,
            ..Limits::default()
        };
        if let Some(mt) = caps.move_time {
            // a fixed time per move replaces the time manager: keep it well inside the clock
            let cap = match l.moves_to_go {
                Some(1) => left * 0.9,
                _ => left * 0.4,
            };
            l.move_time = Some(mt.min(cap).max(0.001));
        }
        l
    }

    /// Records one of our moves that took `seconds`; a new period adds its time.
    pub fn spend(&mut self, seconds: f64) {
        let s = seconds.max(0.0);
        self.left -= s;
        self.used += s;
        self.moves_made += 1;
        if let Some(n) = self.moves_per_period {
            if self.moves_made.is_multiple_of(n) {
                self.left += self.period;
            }
        }
    }

    /// After a take-back: the period count follows the moves of ours left in the game (the time
    /// already used is not given back).
    pub fn set_moves_made(&mut self, moves: u32) {
        self.moves_made = moves;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::time::Clock;

    #[test]
    fn sudden_death_and_moves_in_time() {
        let c = GameClock::new(
            TimeControl {
                minutes: 1,
                moves: 0,
            },
            30.0,
        );
        let l = c.limits(&Caps::default());
        assert_eq!(l.moves_to_go, None);
        let t = l.time.unwrap();
        assert!(t < 60.0 && t > 59.0, "{t}");

        let mut c = GameClock::new(
            TimeControl {
                minutes: 2,
                moves: 3,
            },
            30.0,
        );
        assert_eq!(c.moves_to_go(), Some(3));
        c.spend(10.0);
        c.spend(10.0);
        assert_eq!(c.moves_to_go(), Some(1));
        assert!((c.left() - 100.0).abs() < 1e-9);
        c.spend(10.0);
        // a new period: its time is added
        assert_eq!(c.moves_to_go(), Some(3));
        assert!((c.left() - 210.0).abs() < 1e-9);
        assert!((c.used() - 30.0).abs() < 1e-9);
    }

    #[test]
    fn zero_minutes_uses_the_fallback() {
        let c = GameClock::new(
            TimeControl {
                minutes: 0,
                moves: 0,
            },
            5.0,
        );
        assert!((c.left() - 5.0).abs() < 1e-9);
        let l = c.limits(&Caps::default());
        assert!(l.time.unwrap() < 5.0);
    }

    #[test]
    fn budgets_stay_inside_the_clock() {
        // even when every search runs to its hard limit, for a long game's worth of moves
        for (minutes, moves) in [(0, 0), (1, 0), (1, 1), (5, 40), (90, 75), (999, 0)] {
            let mut c = GameClock::new(TimeControl { minutes, moves }, 3.0);
            for _ in 0..60 {
                let l = c.limits(&Caps::default());
                let hard = Clock::new(&l, false).hard().unwrap();
                assert!(
                    hard < c.left(),
                    "{minutes}/{moves}: hard {hard} >= left {}",
                    c.left()
                );
                c.spend(hard);
            }
            assert!(c.left() > 0.0, "{minutes}/{moves}: {}", c.left());
        }
    }

    #[test]
    fn caps_apply_within_the_clock() {
        let c = GameClock::new(
            TimeControl {
                minutes: 0,
                moves: 0,
            },
            1.0,
        );
        let l = c.limits(&Caps {
            depth: Some(4),
            move_time: Some(5.0),
        });
        assert_eq!(l.depth, Some(4));
        assert!(l.move_time.unwrap() < 0.5);
        let big = GameClock::new(
            TimeControl {
                minutes: 10,
                moves: 0,
            },
            1.0,
        );
        let l = big.limits(&Caps {
            depth: None,
            move_time: Some(0.05),
        });
        assert_eq!(l.move_time, Some(0.05));
    }
}
