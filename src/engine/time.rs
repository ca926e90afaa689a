//! Search limits and the time manager that turns them into soft and hard deadlines.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// What bounds a search. Several limits may be combined; the first one reached stops it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Limits {
    /// Maximum iteration depth.
    pub depth: Option<u32>,
    /// Maximum nodes.
    pub nodes: Option<u64>,
    /// Fixed time for this move, in seconds.
    pub move_time: Option<f64>,
    /// Time left on the clock, in seconds.
    pub time: Option<f64>,
    /// Increment added per move, in seconds.
    pub inc: f64,
    /// Moves until the next time control (x moves in y); `None` is sudden death.
    pub moves_to_go: Option<u32>,
    /// Search until stopped.
    pub infinite: bool,
}

impl Limits {
    /// A depth-limited search.
    pub fn depth(d: u32) -> Limits {
        Limits {
            depth: Some(d),
            ..Limits::default()
        }
    }

    /// A search of fixed time per move.
    pub fn move_time(seconds: f64) -> Limits {
        Limits {
            move_time: Some(seconds),
            ..Limits::default()
        }
    }

    /// A node-limited search.
    pub fn nodes(n: u64) -> Limits {
        Limits {
            nodes: Some(n),
            ..Limits::default()
        }
    }
}

/// How a clock's time is shared out among the moves: the settings of the time manager, kept as
/// data so that they can be tuned in matches (Hub parameters `search-time-*`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TimePlan {
    /// The number of moves the remaining time is planned for when the clock gives none
    /// (sudden death), with every man on the board.
    pub moves: u32,
    /// The same with no man left: the plan goes from `moves` to this as the men come off
    /// (see [`at_phase`](Self::at_phase)).
    pub moves_end: u32,
    /// The soft limit (no new iteration after it) in percent of a move's share.
    pub soft: u32,
    /// The hard limit (the search stops) in percent of a move's share.
    pub hard: u32,
    /// Milliseconds kept back from every budget for answering and for the time the move takes
    /// to reach the clock (process and network lag: the move overhead).
    pub overhead_ms: u32,
    /// The percentage of a ponder search's time (on the opponent's clock) that counts against
    /// the budget at `ponder-hit`: 0 gives the whole budget again from the hit (a deeper search
    /// for the same clock time), 100 counts all of it (a ponder search already past the budget
    /// answers at once, and the clock time is kept for later moves).
    pub ponder_credit: u32,
}

impl TimePlan {
    /// The plan the engine plays with: `moves`, `soft` and `hard` tuned by `damast tune spsa`
    /// (1,200 game pairs at 1+0.01, README), 27 moves planned with every man on the board
    /// rising to 30 as they come off.
    pub const DEFAULT: TimePlan = TimePlan {
        moves: 27,
        moves_end: 30,
        soft: 89,
        hard: 352,
        overhead_ms: 30,
        ponder_credit: 0,
    };
}

impl TimePlan {
    /// The plan for a position of `phase` (256 with every man on the board, 0 with none, as
    /// [`eval::phase`](crate::engine::eval::phase) gives it): the planned moves lerped from
    /// `moves_end` to `moves`.
    pub fn at_phase(self, phase: i32) -> TimePlan {
        let phase = phase.clamp(0, 256) as i64;
        let moves = (self.moves_end as i64 * (256 - phase) + self.moves as i64 * phase + 128) / 256;
        TimePlan {
            moves: moves.max(1) as u32,
            ..self
        }
    }
}

impl Default for TimePlan {
    fn default() -> Self {
        Self::DEFAULT
    }
}

/// Soft and hard deadlines for one search, measured from the start, or from `ponder-hit` when
/// the search began as a ponder search.
#[derive(Debug)]
pub struct Clock {
    start: Instant,
    /// Milliseconds after `start` from which the budget counts; `u64::MAX` while pondering.
    origin_ms: AtomicU64,
    soft: Option<f64>,
    hard: Option<f64>,
    /// [`TimePlan::ponder_credit`].
    ponder_credit: u32,
}

impl Clock {
    /// Plans the search's time from the limits with the default plan. `pondering` delays the
    /// budget until [`Clock::ponder_hit`].
    pub fn new(limits: &Limits, pondering: bool) -> Clock {
        Clock::planned(limits, pondering, TimePlan::DEFAULT)
    }

    /// Plans the search's time from the limits by `plan`.
    pub fn planned(limits: &Limits, pondering: bool, plan: TimePlan) -> Clock {
        let (soft, hard) = budget(limits, plan);
        Clock {
            start: Instant::now(),
            origin_ms: AtomicU64::new(if pondering { u64::MAX } else { 0 }),
            soft,
            hard,
            ponder_credit: plan.ponder_credit.min(100),
        }
    }

    /// The opponent played the expected move: the budget starts now, less the plan's credit of
    /// the time pondered. (A second call changes nothing.)
    pub fn ponder_hit(&self) {
        let ms = self.start.elapsed().as_millis() as u64;
        let origin = ms - ms * self.ponder_credit as u64 / 100;
        let _ =
            self.origin_ms
                .compare_exchange(u64::MAX, origin, Ordering::Relaxed, Ordering::Relaxed);
    }

    /// Whether the search is still pondering (no time limit applies).
    pub fn pondering(&self) -> bool {
        self.origin_ms.load(Ordering::Relaxed) == u64::MAX
    }

    /// Seconds since the search started.
    pub fn elapsed(&self) -> f64 {
        self.start.elapsed().as_secs_f64()
    }

    /// Seconds counted against the budget.
    pub fn used(&self) -> f64 {
        let o = self.origin_ms.load(Ordering::Relaxed);
        if o == u64::MAX {
            0.0
        } else {
            (self.elapsed() - o as f64 / 1000.0).max(0.0)
        }
    }

    /// Whether the hard deadline is past (the search must stop now).
    pub fn hard_expired(&self) -> bool {
        !self.pondering() && self.hard.is_some_and(|h| self.used() >= h)
    }

    /// Whether to stop after an iteration, given how stable the best move has been: `factor` is
    /// above 1 when the best move just changed and below 1 when it has been stable.
    pub fn soft_expired(&self, factor: f64) -> bool {
        if self.pondering() {
            return false;
        }
        match (self.soft, self.hard) {
            (Some(s), Some(h)) => self.used() >= (s * factor).min(h * 0.9),
            (Some(s), None) => self.used() >= s * factor,
            _ => false,
        }
    }

    /// The hard limit in seconds, if any.
    pub fn hard(&self) -> Option<f64> {
        self.hard
    }
}

/// The factor on the soft limit from the best move's share (0 to 1) of an iteration's root
/// nodes: `1 + weight/100 · (center/100 − share)`, kept within 0.5 to 2. A move that took
/// nearly all the effort is clear and needs less time; one that shared it, more. A weight of
/// 0 gives 1.
pub fn effort_factor(weight: i32, center: i32, share: f64) -> f64 {
    let k = weight as f64 / 100.0;
    (1.0 + k * (center as f64 / 100.0 - share)).clamp(0.5, 2.0)
}

/// Computes (soft, hard) budgets in seconds.
fn budget(l: &Limits, plan: TimePlan) -> (Option<f64>, Option<f64>) {
    if l.infinite {
        return (None, None);
    }
    let overhead = plan.overhead_ms as f64 / 1000.0;
    if let Some(mt) = l.move_time {
        let t = (mt - overhead).max(0.005);
        return (Some(t), Some(t));
    }
    if let Some(left) = l.time {
        let left = left.max(0.0);
        let mtg = l.moves_to_go.unwrap_or(plan.moves).clamp(1, 50) as f64;
        let usable = (left - overhead).max(0.0);
        let per_move = usable / mtg + l.inc * 0.8;
        let hard_cap = if l.moves_to_go == Some(1) {
            usable * 0.9
        } else {
            usable * 0.4
        };
        let hard = (per_move * plan.hard as f64 / 100.0)
            .min(hard_cap)
            .max(0.005);
        let soft = (per_move * plan.soft as f64 / 100.0).min(hard);
        return (Some(soft), Some(hard));
    }
    (None, None)
}

/// A duration in seconds as a `Duration`.
pub fn seconds(s: f64) -> Duration {
    Duration::from_secs_f64(s.max(0.0))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn effort_scales_the_soft_limit_around_its_center() {
        assert_eq!(effort_factor(0, 75, 0.99), 1.0);
        assert_eq!(effort_factor(200, 75, 0.75), 1.0);
        assert!((effort_factor(200, 75, 0.95) - 0.6).abs() < 1e-9);
        assert!((effort_factor(200, 75, 0.5) - 1.5).abs() < 1e-9);
        assert_eq!(effort_factor(1000, 75, 0.0), 2.0);
        assert_eq!(effort_factor(1000, 75, 1.0), 0.5);
    }

    #[test]
    fn budgets_fit_the_clock() {
        let (s, h) = budget(&Limits::move_time(1.0), TimePlan::DEFAULT);
        assert!(s.unwrap() <= 1.0 && h.unwrap() <= 1.0);
        let l = Limits {
            time: Some(60.0),
            inc: 1.0,
            ..Limits::default()
        };
        let (s, h) = budget(&l, TimePlan::DEFAULT);
        assert!(s.unwrap() < h.unwrap());
        assert!(h.unwrap() <= 60.0 * 0.4);
        let l = Limits {
            time: Some(0.05),
            moves_to_go: Some(1),
            ..Limits::default()
        };
        let (_, h) = budget(&l, TimePlan::DEFAULT);
        assert!(h.unwrap() < 0.05);
        assert_eq!(budget(&Limits::depth(3), TimePlan::DEFAULT), (None, None));
    }

    /// A clock of 10 s with 0.1 s a move, in sudden death.
    fn ten_plus_a_tenth() -> Limits {
        Limits {
            time: Some(10.0),
            inc: 0.1,
            ..Limits::default()
        }
    }

    #[test]
    fn the_plan_shares_out_the_clock() {
        let l = ten_plus_a_tenth();
        let plan = |moves, soft, hard| TimePlan {
            moves,
            moves_end: moves,
            soft,
            hard,
            overhead_ms: 30,
            ponder_credit: 0,
        };
        let (s30, h30) = budget(&l, plan(30, 70, 400));
        let (s15, h15) = budget(&l, plan(15, 70, 400));
        // fewer moves planned, more time for each
        assert!(s15.unwrap() > s30.unwrap() && h15.unwrap() > h30.unwrap());
        // the limits are the plan's shares of a move's time
        let per_move = (10.0 - 0.030) / 30.0 + 0.1 * 0.8;
        assert!((s30.unwrap() - 0.7 * per_move).abs() < 1e-9);
        assert!((h30.unwrap() - 4.0 * per_move).abs() < 1e-9);
        let (s, h) = budget(&l, plan(30, 100, 200));
        assert!((s.unwrap() - per_move).abs() < 1e-9);
        assert!((h.unwrap() - 2.0 * per_move).abs() < 1e-9);
        // the soft limit never passes the hard one
        let (s, h) = budget(&l, plan(30, 500, 150));
        assert_eq!(s, h);
        // a larger move overhead leaves less for the search
        let lag = TimePlan {
            overhead_ms: 500,
            ..plan(30, 70, 400)
        };
        let (s_lag, h_lag) = budget(&l, lag);
        assert!(s_lag.unwrap() < s30.unwrap() && h_lag.unwrap() < h30.unwrap());
        let (_, h) = budget(&Limits::move_time(1.0), lag);
        assert!((h.unwrap() - 0.5).abs() < 1e-9);
        // a clock that names its moves is followed instead of the plan
        let named = Limits {
            moves_to_go: Some(10),
            ..l.clone()
        };
        assert_eq!(
            budget(&named, plan(30, 70, 400)),
            budget(&named, plan(45, 70, 400))
        );
    }

    #[test]
    fn a_ponder_hit_counts_the_credited_share_of_the_ponder_time() {
        let l = ten_plus_a_tenth();
        let clock = |credit| {
            let plan = TimePlan {
                ponder_credit: credit,
                ..TimePlan::DEFAULT
            };
            Clock::planned(&l, true, plan)
        };
        let (none, half, all) = (clock(0), clock(50), clock(100));
        std::thread::sleep(Duration::from_millis(200));
        for c in [&none, &half, &all] {
            // no limit applies while pondering
            assert!(c.pondering() && c.used() == 0.0 && !c.hard_expired());
        }
        let hit = |c: &Clock| {
            c.ponder_hit();
            assert!(!c.pondering());
            c.used()
        };
        // (each hit comes at least 0.2 s after the ponder search began: the lower bounds hold
        // however slow the machine)
        let (n, h, a) = (hit(&none), hit(&half), hit(&all));
        assert!(a >= 0.2, "all of the ponder time counts: {a}");
        assert!(h >= 0.1, "half of it counts: {h}");
        assert!(a > n + 0.19, "none of it counts: {n} against {a}");
        // a second hit does not move the origin
        all.ponder_hit();
        assert!(all.used() >= a);
    }

    #[test]
    fn the_plan_follows_the_phase() {
        let p = TimePlan {
            moves: 30,
            moves_end: 10,
            ..TimePlan::DEFAULT
        };
        assert_eq!(p.at_phase(256).moves, 30);
        assert_eq!(p.at_phase(0).moves, 10);
        assert_eq!(p.at_phase(128).moves, 20);
        let even = TimePlan {
            moves: 30,
            moves_end: 30,
            ..TimePlan::DEFAULT
        };
        assert_eq!(even.at_phase(77), even);
        assert_eq!(
            TimePlan::DEFAULT.at_phase(256).moves,
            TimePlan::DEFAULT.moves
        );
    }
}
