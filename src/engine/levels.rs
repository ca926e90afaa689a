//! Playing levels: how strongly the engine plays, from a beginner's partner to full strength.

use std::fmt;
use std::str::FromStr;

/// A playing strength from 0 (weakest) to 100 (full strength).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Level(u8);

impl Level {
    /// Plays loosely and makes deliberate, human-looking mistakes so that a beginner can win.
    pub const EASY: Level = Level(10);
    /// Looks ahead and punishes big mistakes, but does not play the best move every time.
    pub const NORMAL: Level = Level(50);
    /// Full strength.
    pub const EXPERT: Level = Level(100);

    /// A level from a strength of 0..=100 (larger values are clamped).
    pub fn from_strength(s: u32) -> Level {
        Level(s.min(100) as u8)
    }

    /// The strength, 0..=100.
    pub fn strength(self) -> u32 {
        self.0 as u32
    }

    /// Whether this level plays at full strength.
    pub fn is_full(self) -> bool {
        self.0 >= 100
    }

    /// The deepest iteration this level searches (`None`: unlimited).
    pub fn max_depth(self) -> Option<u32> {
        if self.is_full() {
            None
        } else {
            Some(1 + self.strength() / 8)
        }
    }

    /// How far below the best score (hundredths of a man) a chosen move may be.
    pub fn max_loss(self) -> i32 {
        if self.is_full() {
            0
        } else {
            (100 - self.strength() as i32) * 3
        }
    }

    /// The softmax temperature used to choose among the acceptable moves (hundredths of a man).
    pub fn temperature(self) -> f64 {
        if self.is_full() {
            0.0
        } else {
            let weak = 100.0 - self.strength() as f64;
            weak * weak / 80.0 + 2.0
        }
    }

    /// The level's name, when it is one of the named ones.
    pub fn name(self) -> Option<&'static str> {
        match self {
            Level::EASY => Some("easy"),
            Level::NORMAL => Some("normal"),
            Level::EXPERT => Some("expert"),
            _ => None,
        }
    }
}

impl Default for Level {
    fn default() -> Self {
        Level::EXPERT
    }
}

impl fmt::Display for Level {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.name() {
            Some(n) => f.write_str(n),
            None => write!(f, "{}", self.0),
        }
    }
}

/// A level text that is neither a name nor a number in 0..=100.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("bad level '{0}' (expected easy, normal, expert or a strength 0-100)")]
pub struct BadLevel(pub String);

impl FromStr for Level {
    type Err = BadLevel;
    fn from_str(s: &str) -> Result<Level, BadLevel> {
        match s.trim().to_ascii_lowercase().as_str() {
            "easy" => Ok(Level::EASY),
            "normal" => Ok(Level::NORMAL),
            "expert" => Ok(Level::EXPERT),
            t => match t.parse::<u32>() {
                Ok(n) if n <= 100 => Ok(Level::from_strength(n)),
                _ => Err(BadLevel(s.chars().take(30).collect())),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_names_and_numbers() {
        assert_eq!("easy".parse::<Level>().unwrap(), Level::EASY);
        assert_eq!("EXPERT".parse::<Level>().unwrap(), Level::EXPERT);
        assert_eq!("37".parse::<Level>().unwrap().strength(), 37);
        assert!("101".parse::<Level>().is_err());
        assert!("hard".parse::<Level>().is_err());
        assert!(Level::EASY.max_depth().unwrap() < Level::NORMAL.max_depth().unwrap());
        assert!(Level::EXPERT.max_depth().is_none());
    }
}
