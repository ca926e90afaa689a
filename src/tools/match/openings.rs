//! Opening positions for a match: a file of FEN lines or of PDN games (tags and moves; the
//! position after the last move is where the engines take over), or the suite shipped in
//! `book/openings/` for the variant. Every opening is played once with each colour.

use std::path::Path;

use crate::core::{fen, pdn, Game, GameResult, Move, Position, Variant, VariantKind};

/// Why an opening file cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum OpeningError {
    /// The file cannot be read.
    #[error("cannot read openings file {path}: {reason}")]
    Io {
        /// The file.
        path: String,
        /// The operating system's reason.
        reason: String,
    },
    /// A FEN line is invalid.
    #[error("openings line {line}: {error}")]
    Fen {
        /// 1-based line number.
        line: usize,
        /// What is wrong.
        error: String,
    },
    /// The PDN text is invalid, or one of its games is.
    #[error("openings game {game}: {error}")]
    Pdn {
        /// 1-based game number (0: the file as a whole).
        game: usize,
        /// What is wrong.
        error: String,
    },
    /// An opening whose game is already over.
    #[error("opening {0} is a finished game: nothing is left to play")]
    Finished(usize),
    /// No opening in the file.
    #[error("no opening found: give one FEN per line, or PDN games")]
    Empty,
}

/// A start for a game: a position and moves already played from it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Opening<V: Variant> {
    /// The position the game record starts from.
    pub start: Position<V>,
    /// Moves played from `start` before the engines take over.
    pub moves: Vec<Move<V>>,
}

impl<V: Variant> Opening<V> {
    /// The game as the engines receive it.
    pub fn game(&self) -> Game<V> {
        let mut g = Game::new(self.start);
        for m in &self.moves {
            g.play(*m).expect("opening moves were checked when read");
        }
        g
    }
}

fn is_comment(line: &str) -> bool {
    line.is_empty() || line.starts_with('#') || line.starts_with('%')
}

fn looks_like_fen(line: &str) -> bool {
    let b = line.as_bytes();
    b.len() >= 2 && matches!(b[0], b'W' | b'B' | b'w' | b'b') && b[1] == b':'
}

/// Reads openings: one FEN per line (blank lines and lines starting with `#` or `%` are
/// skipped), or PDN games.
pub fn parse<V: Variant>(text: &str) -> Result<Vec<Opening<V>>, OpeningError> {
    let content: Vec<(usize, &str)> = text
        .lines()
        .enumerate()
        .map(|(i, l)| (i + 1, l.trim()))
        .filter(|(_, l)| !is_comment(l))
        .collect();
    if content.is_empty() {
        return Err(OpeningError::Empty);
    }
    let openings = if content.iter().all(|(_, l)| looks_like_fen(l)) {
        content
            .iter()
            .map(|&(line, l)| {
                fen::parse::<V>(l)
                    .map(|start| Opening {
                        start,
                        moves: Vec::new(),
                    })
                    .map_err(|e| OpeningError::Fen {
                        line,
                        error: e.to_string(),
                    })
            })
            .collect::<Result<Vec<_>, _>>()?
    } else {
        let games = pdn::parse(text).map_err(|e| OpeningError::Pdn {
            game: 0,
            error: e.to_string(),
        })?;
        games
            .iter()
            .enumerate()
            .map(|(i, g)| {
                let game: Game<V> = g.to_game().map_err(|e| OpeningError::Pdn {
                    game: i + 1,
                    error: e.to_string(),
                })?;
                Ok(Opening {
                    start: *game.start(),
                    moves: game.moves().to_vec(),
                })
            })
            .collect::<Result<Vec<_>, OpeningError>>()?
    };
    if openings.is_empty() {
        return Err(OpeningError::Empty);
    }
    for (i, o) in openings.iter().enumerate() {
        if o.game().result() != GameResult::Ongoing {
            return Err(OpeningError::Finished(i + 1));
        }
    }
    Ok(openings)
}

/// Reads an openings file.
pub fn load<V: Variant>(path: &Path) -> Result<Vec<Opening<V>>, OpeningError> {
    let bytes = std::fs::read(path).map_err(|e| OpeningError::Io {
        path: path.display().to_string(),
        reason: e.to_string(),
    })?;
    parse(&String::from_utf8_lossy(&bytes))
}

/// The text of the suite shipped for a variant.
pub fn default_text(kind: VariantKind) -> &'static str {
    match kind {
        VariantKind::International => include_str!("../../../book/openings/international.fen"),
        VariantKind::Brazilian => include_str!("../../../book/openings/brazilian.fen"),
        VariantKind::Russian => include_str!("../../../book/openings/russian.fen"),
        VariantKind::English => include_str!("../../../book/openings/english.fen"),
        VariantKind::Italian => include_str!("../../../book/openings/italian.fen"),
        VariantKind::Spanish => include_str!("../../../book/openings/spanish.fen"),
        VariantKind::Pool => include_str!("../../../book/openings/pool.fen"),
        VariantKind::Czech => include_str!("../../../book/openings/czech.fen"),
        VariantKind::Platform => include_str!("../../../book/openings/platform.fen"),
        // the same rules as brazilian, so the same level openings
        VariantKind::Filipino => include_str!("../../../book/openings/brazilian.fen"),
        VariantKind::Thai => include_str!("../../../book/openings/thai.fen"),
    }
}

/// The suite shipped in `book/openings/` for the variant.
pub fn default_suite<V: Variant>() -> Vec<Opening<V>> {
    parse(default_text(V::KIND)).expect("the shipped opening suite is valid")
}

/// Shuffles the openings in place, the same way for the same seed.
pub fn shuffle<T>(items: &mut [T], seed: u64) {
    let mut x = seed ^ 0x9E37_79B9_7F4A_7C15;
    let mut next = || {
        // splitmix64
        x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = x;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    };
    for i in (1..items.len()).rev() {
        let j = (next() % (i as u64 + 1)) as usize;
        items.swap(i, j);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::{Brazilian, International, Russian};

    #[test]
    fn reads_fen_lines_with_comments() {
        let text = "# two openings\n\nW:W31-50:B1-20\n  B:W28,31-50:B1-20  \n";
        let o = parse::<International>(text).unwrap();
        assert_eq!(o.len(), 2);
        assert!(o[0].moves.is_empty());
        assert_eq!(o[1].start.side(), crate::core::Color::Black);
        let err = parse::<International>("W:W31-50:B1-20\nW:W31-50:B1-20,99\n").unwrap_err();
        assert!(matches!(err, OpeningError::Fen { line: 2, .. }), "{err}");
    }

    #[test]
    fn reads_pdn_games() {
        let text = "[Event \"a\"]\n1. 32-28 19-23 2. 28x19 14x23 *\n\n[FEN \"W:W31-50:B1-20\"]\n1. 33-29 *\n";
        let o = parse::<International>(text).unwrap();
        assert_eq!(o.len(), 2);
        assert_eq!(o[0].moves.len(), 4);
        assert_eq!(o[0].game().moves().len(), 4);
        assert_eq!(o[1].moves.len(), 1);
        let err = parse::<International>("1. 32-28 19-23 2. 28-22 *").unwrap_err();
        assert!(matches!(err, OpeningError::Pdn { game: 1, .. }), "{err}");
    }

    #[test]
    fn refuses_empty_and_finished_openings() {
        assert_eq!(
            parse::<International>("# nothing\n"),
            Err(OpeningError::Empty)
        );
        assert_eq!(
            parse::<International>("W:W31:B"),
            Err(OpeningError::Finished(1))
        );
        let missing = load::<International>(Path::new("/nonexistent/openings.fen"));
        assert!(matches!(missing, Err(OpeningError::Io { .. })));
    }

    #[test]
    fn shipped_suites_are_distinct_playable_positions() {
        fn check<V: Variant>(min: usize) {
            let suite = default_suite::<V>();
            assert!(
                suite.len() >= min,
                "{:?}: {} openings",
                V::KIND,
                suite.len()
            );
            let mut seen = std::collections::HashSet::new();
            for o in &suite {
                assert!(seen.insert(o.start), "{:?}: a position twice", V::KIND);
            }
        }
        check::<International>(50);
        check::<Brazilian>(10);
        check::<Russian>(10);
    }

    #[test]
    fn shuffling_is_a_seeded_permutation() {
        let mut a: Vec<u32> = (0..50).collect();
        let mut b = a.clone();
        shuffle(&mut a, 7);
        shuffle(&mut b, 7);
        assert_eq!(a, b);
        assert_ne!(a, (0..50).collect::<Vec<_>>());
        a.sort();
        assert_eq!(a, (0..50).collect::<Vec<_>>());
    }
}
