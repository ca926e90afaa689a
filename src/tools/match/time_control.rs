//! Search limits of a match and the clocks the runner keeps: time controls (`60+0.5`, `40/120`,
//! `40/120+1`), fixed time per move, depth and nodes, turned into Hub `level` lines and deadlines.
//!
//! Clock model (the Hub's): the increment is added before every move. The engine is sent the
//! time it has left before that increment, so it may use `time + inc` on this move; a move that
//! takes longer than that plus the time margin loses on time.

use std::fmt;

/// Why a time control text could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TimeControlError {
    /// The text does not have the shape of a time control.
    #[error("bad time control '{0}': expected SECONDS[+INC] or MOVES/SECONDS[+INC], e.g. 60+0.5 or 40/120")]
    Syntax(String),
    /// A number is negative, zero where it may not be, or not finite.
    #[error("bad time control '{0}': the base time must be positive, the increment not negative and the moves a whole number from 1")]
    Value(String),
}

/// A chess-clock time control.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TimeControl {
    /// Moves per period (`40/120`: 40); `None` for one period for the whole game.
    pub moves: Option<u32>,
    /// Seconds per period.
    pub base: f64,
    /// Seconds added before every move.
    pub inc: f64,
}

fn seconds(text: &str) -> Option<f64> {
    // minutes:seconds is accepted too
    let value = match text.split_once(':') {
        Some((m, s)) => m.parse::<f64>().ok()? * 60.0 + s.parse::<f64>().ok()?,
        None => text.parse::<f64>().ok()?,
    };
    value.is_finite().then_some(value)
}

impl std::str::FromStr for TimeControl {
    type Err = TimeControlError;

    /// Reads `SECONDS[+INC]` or `MOVES/SECONDS[+INC]` (seconds may be `M:SS`).
    fn from_str(text: &str) -> Result<TimeControl, TimeControlError> {
        let t = text.trim();
        let syntax = || TimeControlError::Syntax(text.chars().take(40).collect());
        let value = || TimeControlError::Value(text.chars().take(40).collect());
        let (moves, rest) = match t.split_once('/') {
            Some((m, r)) => {
                let m: u32 = m.trim().parse().map_err(|_| syntax())?;
                if m == 0 {
                    return Err(value());
                }
                (Some(m), r)
            }
            None => (None, t),
        };
        let (base, inc) = match rest.split_once('+') {
            Some((b, i)) => (
                seconds(b.trim()).ok_or_else(syntax)?,
                seconds(i.trim()).ok_or_else(syntax)?,
            ),
            None => (seconds(rest.trim()).ok_or_else(syntax)?, 0.0),
        };
        if base <= 0.0 || inc < 0.0 {
            return Err(value());
        }
        Ok(TimeControl { moves, base, inc })
    }
}

impl fmt::Display for TimeControl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(m) = self.moves {
            write!(f, "{m}/")?;
        }
        write!(f, "{}", self.base)?;
        if self.inc > 0.0 {
            write!(f, "+{}", self.inc)?;
        }
        Ok(())
    }
}

/// Everything that bounds an engine's search in a match; several may be combined.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SearchLimits {
    /// A clock.
    pub tc: Option<TimeControl>,
    /// Fixed seconds per move.
    pub movetime: Option<f64>,
    /// Maximum depth.
    pub depth: Option<u32>,
    /// Maximum nodes.
    pub nodes: Option<u64>,
}

impl SearchLimits {
    /// Whether no limit at all is set.
    pub fn is_empty(&self) -> bool {
        self.tc.is_none() && self.movetime.is_none() && self.depth.is_none() && self.nodes.is_none()
    }

    /// These limits with every limit set in `over` replacing the same kind here.
    pub fn overridden_by(&self, over: &SearchLimits) -> SearchLimits {
        SearchLimits {
            tc: over.tc.or(self.tc),
            movetime: over.movetime.or(self.movetime),
            depth: over.depth.or(self.depth),
            nodes: over.nodes.or(self.nodes),
        }
    }
}

impl fmt::Display for SearchLimits {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut parts = Vec::new();
        if let Some(tc) = self.tc {
            parts.push(format!("tc {tc}"));
        }
        if let Some(t) = self.movetime {
            parts.push(format!("{t} s/move"));
        }
        if let Some(d) = self.depth {
            parts.push(format!("depth {d}"));
        }
        if let Some(n) = self.nodes {
            parts.push(format!("{n} nodes"));
        }
        if parts.is_empty() {
            parts.push("no limit".into());
        }
        f.write_str(&parts.join(", "))
    }
}

/// One side's clock during a game.
#[derive(Clone, Debug)]
pub struct Clock {
    limits: SearchLimits,
    /// Seconds left before the next move's increment (clocked games only).
    left: f64,
    /// Moves made in the current period.
    moves_in_period: u32,
}

impl Clock {
    /// A clock at the start of a game.
    pub fn new(limits: SearchLimits) -> Clock {
        Clock {
            limits,
            left: limits.tc.map_or(0.0, |tc| tc.base),
            moves_in_period: 0,
        }
    }

    /// Seconds left on the clock (0 for a game without a clock).
    pub fn left(&self) -> f64 {
        self.left
    }

    /// The Hub `level` line for the next move.
    pub fn level_line(&self) -> String {
        let mut s = String::from("level");
        let l = &self.limits;
        if let Some(d) = l.depth {
            s.push_str(&format!(" depth={d}"));
        }
        if let Some(n) = l.nodes {
            s.push_str(&format!(" nodes={n}"));
        }
        if let Some(t) = l.movetime {
            s.push_str(&format!(" move-time={t:.3}"));
        }
        if let Some(tc) = l.tc {
            if let Some(m) = tc.moves {
                s.push_str(&format!(" moves={}", m - self.moves_in_period));
            }
            s.push_str(&format!(" time={:.3}", self.left.max(0.0)));
            if tc.inc > 0.0 {
                s.push_str(&format!(" inc={:.3}", tc.inc));
            }
        }
        s
    }

    /// Seconds the next move may take before it loses on time, margin not included (`None`
    /// when neither a clock nor a time per move applies).
    pub fn allowed(&self) -> Option<f64> {
        let clock = self.limits.tc.map(|tc| self.left + tc.inc);
        match (clock, self.limits.movetime) {
            (Some(c), Some(m)) => Some(c.min(m)),
            (c, m) => c.or(m),
        }
    }

    /// Charges a move that took `used` seconds: adds the increment, takes the time off and starts
    /// the next period when this one's moves are made. Returns false when the move was over its
    /// allowance by more than `margin`.
    pub fn charge(&mut self, used: f64, margin: f64) -> bool {
        let in_time = self.allowed().is_none_or(|a| used <= a + margin);
        if let Some(tc) = self.limits.tc {
            self.left = (self.left + tc.inc - used).max(0.0);
            if let Some(m) = tc.moves {
                self.moves_in_period += 1;
                if self.moves_in_period >= m {
                    self.moves_in_period = 0;
                    self.left += tc.base;
                }
            }
        }
        in_time
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tc(t: &str) -> TimeControl {
        t.parse().unwrap()
    }

    #[test]
    fn reads_time_controls() {
        assert_eq!(
            tc("60+0.5"),
            TimeControl {
                moves: None,
                base: 60.0,
                inc: 0.5
            }
        );
        assert_eq!(
            tc("40/120"),
            TimeControl {
                moves: Some(40),
                base: 120.0,
                inc: 0.0
            }
        );
        assert_eq!(tc("40/2:00+1").base, 120.0);
        assert_eq!(tc("1:30").base, 90.0);
        assert_eq!(tc("0.5+0.05").inc, 0.05);
        for bad in [
            "", "abc", "60+", "+1", "0/60", "x/60", "-1+1", "0", "60+-1", "nan", "inf+1",
        ] {
            assert!(bad.parse::<TimeControl>().is_err(), "{bad}");
        }
        assert_eq!(tc("40/120+1").to_string(), "40/120+1");
    }

    #[test]
    fn fischer_clock_adds_the_increment_before_each_move() {
        let mut c = Clock::new(SearchLimits {
            tc: Some(tc("10+1")),
            ..SearchLimits::default()
        });
        assert_eq!(c.level_line(), "level time=10.000 inc=1.000");
        assert_eq!(c.allowed(), Some(11.0));
        assert!(c.charge(3.0, 0.0));
        assert_eq!(c.left(), 8.0);
        assert!(c.charge(9.05, 0.1), "within the margin");
        assert_eq!(c.left(), 0.0);
        assert!(!c.charge(1.2, 0.1), "over increment plus margin");
    }

    #[test]
    fn moves_per_period_refill_the_clock() {
        let mut c = Clock::new(SearchLimits {
            tc: Some(tc("2/10")),
            depth: Some(7),
            ..SearchLimits::default()
        });
        assert_eq!(c.level_line(), "level depth=7 moves=2 time=10.000");
        assert!(c.charge(4.0, 0.0));
        assert_eq!(c.level_line(), "level depth=7 moves=1 time=6.000");
        assert!(c.charge(5.0, 0.0));
        assert_eq!(c.left(), 11.0);
        assert_eq!(c.level_line(), "level depth=7 moves=2 time=11.000");
    }

    #[test]
    fn fixed_limits() {
        let mut c = Clock::new(SearchLimits {
            movetime: Some(0.2),
            nodes: Some(1000),
            ..SearchLimits::default()
        });
        assert_eq!(c.level_line(), "level nodes=1000 move-time=0.200");
        assert_eq!(c.allowed(), Some(0.2));
        assert!(c.charge(0.25, 0.1));
        assert!(!c.charge(0.31, 0.1));
        let mut d = Clock::new(SearchLimits {
            depth: Some(3),
            ..SearchLimits::default()
        });
        assert_eq!(d.allowed(), None);
        assert!(d.charge(1000.0, 0.0));
        let a = SearchLimits {
            depth: Some(3),
            movetime: Some(1.0),
            ..SearchLimits::default()
        };
        let b = SearchLimits {
            depth: Some(5),
            ..SearchLimits::default()
        };
        assert_eq!(a.overridden_by(&b).depth, Some(5));
        assert_eq!(a.overridden_by(&b).movetime, Some(1.0));
    }
}
