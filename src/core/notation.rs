//! Move text: writing moves in Hub, PDN short and full-path forms, and reading any of them
//! against a position.

use std::fmt::Write as _;

use crate::core::movegen::{self, search_captures, CaptureSink};
use crate::core::moves::{Move, MoveFlags};
use crate::core::position::Position;
use crate::core::square::Square;
use crate::core::variant::Variant;

/// Why a move text does not name a legal move.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MoveError {
    /// The text is not a move at all.
    #[error("bad move '{0}': expected squares separated by '-', 'x' or ':' (e.g. 32-28, 28x19, 28x19x23)")]
    Syntax(String),
    /// A square in the text does not exist on this board.
    #[error("bad square '{square}' in move '{text}'")]
    Square {
        /// The whole move text.
        text: String,
        /// The bad square.
        square: String,
    },
    /// The move is well formed but not legal here.
    #[error("illegal move '{0}'")]
    Illegal(String),
    /// Several legal moves fit the text.
    #[error("ambiguous move '{text}': it may be {}", candidates.join(" or "))]
    Ambiguous {
        /// The whole move text.
        text: String,
        /// The legal moves it could mean, in full-path form.
        candidates: Vec<String>,
    },
}

/// The Hub form: `from-to`, or `fromxto` followed by `x` and every captured square in ascending
/// order (e.g. `28x19x23`).
pub fn hub<V: Variant>(m: &Move<V>) -> String {
    let mut s = String::with_capacity(16);
    if m.is_capture() {
        let _ = write!(s, "{}x{}", m.from(), m.to());
        for c in m.captured_squares() {
            let _ = write!(s, "x{c}");
        }
    } else {
        let _ = write!(s, "{}-{}", m.from(), m.to());
    }
    s
}

/// The PDN short form: `from-to` or `fromxto`.
pub fn short<V: Variant>(m: &Move<V>) -> String {
    let sep = if m.is_capture() { 'x' } else { '-' };
    format!("{}{}{}", m.from(), sep, m.to())
}

/// The DXP/Hub-style parts of a move: from, to and captured squares.
pub fn parts<V: Variant>(m: &Move<V>) -> (Square, Square, Vec<Square>) {
    (m.from(), m.to(), m.captured_squares().collect())
}

/// Collects every complete capture path with its landing squares and its rank.
struct PathSink {
    paths: Vec<(u32, u32, u64, MoveFlags, Vec<u8>, u64)>,
}

impl<V: Variant> CaptureSink<V> for PathSink {
    const PATHS: bool = true;
    fn found(
        &mut self,
        from: u32,
        to: u32,
        captured: u64,
        flags: MoveFlags,
        rank: u64,
        path: &[u8],
    ) {
        self.paths
            .push((from, to, captured, flags, path.to_vec(), rank));
    }
}

/// Every legal capture path of the position: (move, squares from start to end).
pub fn capture_paths<V: Variant>(pos: &Position<V>) -> Vec<(Move<V>, Vec<Square>)> {
    if !movegen::has_capture(pos) {
        return Vec::new();
    }
    let mut sink = PathSink { paths: Vec::new() };
    search_captures::<V, _>(pos, &mut sink);
    let best = sink.paths.iter().map(|p| p.5).max().unwrap_or(0);
    sink.paths
        .into_iter()
        .filter(|p| p.5 == best)
        .map(|(from, to, cap, flags, landings, _)| {
            let mut sq = vec![V::square(from)];
            sq.extend(landings.iter().map(|&b| V::square(b as u32)));
            debug_assert_eq!(*sq.last().unwrap(), V::square(to));
            (
                Move::new(from, to, crate::core::bitboard::Bitboard(cap), flags),
                sq,
            )
        })
        .collect()
}

fn same_move<V: Variant>(a: &Move<V>, b: &Move<V>) -> bool {
    a.from == b.from && a.to == b.to && a.captured == b.captured
}

/// Length of each leg of a path in diagonal steps (used to choose the canonical path of a capture:
/// the lexicographically smallest puts every landing right behind the captured piece unless the
/// direction changes there).
fn leg_lengths<V: Variant>(path: &[Square]) -> Vec<i32> {
    path.windows(2)
        .map(|w| {
            let (r0, _) = crate::core::variant::geometry::row_col(V::HALF, w[0].index() as u32);
            let (r1, _) = crate::core::variant::geometry::row_col(V::HALF, w[1].index() as u32);
            (r1 - r0).abs()
        })
        .collect()
}

/// The full path of a move: from, every landing square, to. For a capture whose path may be
/// drawn several ways, each landing is put where the direction changes or right behind the
/// captured piece, as PDN asks.
pub fn full_path<V: Variant>(pos: &Position<V>, m: &Move<V>) -> Vec<Square> {
    if !m.is_capture() {
        return vec![m.from(), m.to()];
    }
    capture_paths(pos)
        .into_iter()
        .filter(|(c, _)| same_move(c, m))
        .map(|(_, p)| p)
        .min_by_key(|p| leg_lengths::<V>(p))
        .unwrap_or_else(|| vec![m.from(), m.to()])
}

/// The PDN form of a legal move: the short form, or the full path when another legal move has the
/// same from and to squares.
pub fn pdn<V: Variant>(pos: &Position<V>, m: &Move<V>) -> String {
    let legal = movegen::legal_moves(pos);
    let ambiguous = legal
        .iter()
        .any(|o| o.from == m.from && o.to == m.to && o.captured != m.captured);
    if !ambiguous {
        return short(m);
    }
    join_path(&full_path(pos, m), 'x')
}

fn join_path(path: &[Square], sep: char) -> String {
    let mut s = String::new();
    for (i, q) in path.iter().enumerate() {
        if i > 0 {
            s.push(sep);
        }
        let _ = write!(s, "{q}");
    }
    s
}

/// Reads a square: a number, or for 8x8 variants also an algebraic name.
pub fn parse_square<V: Variant>(t: &str) -> Option<Square> {
    if t.is_empty() {
        return None;
    }
    if t.bytes().all(|b| b.is_ascii_digit()) {
        if t.len() > 3 {
            return None;
        }
        return Square::from_number(t.parse().ok()?, V::SQUARES);
    }
    if V::ALGEBRAIC {
        return Square::from_algebraic(t, V::HALF, V::ROWS);
    }
    None
}

/// Splits a move text into squares and tells whether it was written as a capture.
fn tokens<V: Variant>(text: &str) -> Result<(Vec<Square>, bool), MoveError> {
    let t = text.trim();
    if t.is_empty() || t.len() > 200 {
        return Err(MoveError::Syntax(t.chars().take(40).collect()));
    }
    let capture = t.contains(['x', 'X', ':']);
    let quiet = t.contains('-');
    if capture && quiet {
        return Err(MoveError::Syntax(t.to_string()));
    }
    let parts: Vec<&str> = t.split(['x', 'X', ':', '-']).collect();
    if parts.len() < 2 || (quiet && parts.len() != 2) {
        return Err(MoveError::Syntax(t.to_string()));
    }
    let mut squares = Vec::with_capacity(parts.len());
    for p in parts {
        if p.is_empty() {
            return Err(MoveError::Syntax(t.to_string()));
        }
        match parse_square::<V>(p) {
            Some(s) => squares.push(s),
            None => {
                return Err(MoveError::Square {
                    text: t.to_string(),
                    square: p.to_string(),
                })
            }
        }
    }
    Ok((squares, capture))
}

fn pick<V: Variant>(
    pos: &Position<V>,
    text: &str,
    found: Vec<Move<V>>,
) -> Result<Move<V>, MoveError> {
    let mut unique: Vec<Move<V>> = Vec::new();
    for m in found {
        if !unique.iter().any(|u| same_move(u, &m)) {
            unique.push(m);
        }
    }
    match unique.len() {
        0 => Err(MoveError::Illegal(text.trim().to_string())),
        1 => Ok(unique[0]),
        _ => Err(MoveError::Ambiguous {
            text: text.trim().to_string(),
            candidates: unique
                .iter()
                .map(|m| join_path(&full_path(pos, m), 'x'))
                .collect(),
        }),
    }
}

/// Reads a move in Hub form only (`from-to`, or `fromxto` then every captured square in any
/// order), as the Hub protocol sends them. `fromxto` alone is accepted when it is unambiguous.
pub fn parse_hub<V: Variant>(pos: &Position<V>, text: &str) -> Result<Move<V>, MoveError> {
    let (sq, _) = tokens::<V>(text)?;
    let legal = movegen::legal_moves(pos);
    let found = legal
        .iter()
        .filter(|m| (sq.len() == 2 && m.from() == sq[0] && m.to() == sq[1]) || is_hub_form(m, &sq))
        .copied()
        .collect();
    pick(pos, text, found)
}

/// Whether `squares` is the Hub form of `m`: from, to, then every captured square in any order.
fn is_hub_form<V: Variant>(m: &Move<V>, squares: &[Square]) -> bool {
    let cap = &squares[2..];
    m.from() == squares[0]
        && m.to() == squares[1]
        && !cap.is_empty()
        && m.capture_count() as usize == cap.len()
        && cap.iter().fold(0u64, |b, c| b | 1u64 << V::bit(*c)) == m.captured().0
}

/// Reads a move in any form in use: PDN short form (`32-28`, `28x19`), full or partial path
/// (`47x38x24x13x36`), or Hub form (`28x19x23`). The text must name exactly one legal move: an
/// ambiguous text is an error that lists the candidates.
pub fn parse<V: Variant>(pos: &Position<V>, text: &str) -> Result<Move<V>, MoveError> {
    let (sq, _) = tokens::<V>(text)?;
    let legal = movegen::legal_moves(pos);
    let n = sq.len();
    let mut found: Vec<Move<V>> = Vec::new();
    // short form, or a path whose intermediate squares lie on the move's path
    let (from, last) = (sq[0], sq[n - 1]);
    // A text that is exactly one capture's whole path names that capture, even where a longer
    // capture's path also passes through its squares (free capture choice allows both).
    let paths = capture_paths(pos);
    let exact: Vec<Move<V>> = paths
        .iter()
        .filter(|(_, p)| p[..] == sq[..])
        .map(|(m, _)| *m)
        .collect();
    if !exact.is_empty() {
        return pick(pos, text, exact);
    }
    if n == 2 {
        found.extend(
            legal
                .iter()
                .filter(|m| m.from() == from && m.to() == last)
                .copied(),
        );
    } else {
        for (m, path) in &paths {
            if m.from() == from
                && m.to() == last
                && is_subsequence(&sq[1..n - 1], &path[1..path.len() - 1])
            {
                found.push(*m);
            }
        }
        found.extend(legal.iter().filter(|m| is_hub_form(m, &sq)).copied());
    }
    pick(pos, text, found)
}

fn is_subsequence(needle: &[Square], hay: &[Square]) -> bool {
    let mut it = hay.iter();
    needle.iter().all(|n| it.any(|h| h == n))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::fen;
    use crate::core::variant::International;

    #[test]
    fn hub_form_lists_captures_ascending() {
        let p: Position<International> = fen::parse("W:W28:B23,33").unwrap();
        let mut texts: Vec<String> = movegen::legal_moves(&p).iter().map(hub).collect();
        texts.sort();
        assert_eq!(texts, vec!["28x19x23", "28x39x33"]);
        let p: Position<International> = fen::parse("W:W32,37:B21,22,23,27,31").unwrap();
        let texts: Vec<String> = movegen::legal_moves(&p).iter().map(hub).collect();
        assert!(texts.iter().all(|t| {
            let caps: Vec<u32> = t.split('x').skip(2).map(|c| c.parse().unwrap()).collect();
            caps.windows(2).all(|w| w[0] < w[1])
        }));
    }

    #[test]
    fn ambiguous_capture_uses_full_path() {
        let p: Position<International> = fen::parse("W:WK4:B13,32,37,20").unwrap();
        let l = movegen::legal_moves(&p);
        let mut pdns: Vec<String> = l.iter().map(|m| pdn(&p, m)).collect();
        pdns.sort();
        assert_eq!(pdns, vec!["4x27x38x15", "4x31x42x15"]);
        assert!(matches!(
            parse(&p, "4x15"),
            Err(MoveError::Ambiguous { .. })
        ));
        assert_eq!(hub(&parse(&p, "4x27x38x15").unwrap()), "4x15x13x20x32");
        assert_eq!(hub(&parse(&p, "4x15x37x20x13").unwrap()), "4x15x13x20x37");
        assert_eq!(
            hub(&parse_hub(&p, "4x15x37x13x20").unwrap()),
            "4x15x13x20x37"
        );
        // a repeated captured square does not stand for a missing one
        assert!(parse_hub(&p, "4x15x37x13x13").is_err());
        assert!(parse(&p, "4x15x37x13x13").is_err());
    }

    #[test]
    fn full_path_prefers_square_behind_captured_piece() {
        let p: Position<International> = fen::parse("W:WK47:B14,19,29,31,42").unwrap();
        assert!(matches!(
            parse(&p, "47x36"),
            Err(MoveError::Ambiguous { .. })
        ));
        let m = parse(&p, "47x33x24x13x36").unwrap();
        let path: Vec<u32> = full_path(&p, &m).iter().map(|s| s.number()).collect();
        assert_eq!(path, vec![47, 38, 24, 13, 36]);
        assert_eq!(pdn(&p, &m), "47x38x24x13x36");
    }

    #[test]
    fn errors_are_specific() {
        let p = Position::<International>::start();
        assert!(matches!(parse(&p, "32-26"), Err(MoveError::Illegal(_))));
        assert!(matches!(parse(&p, "32-99"), Err(MoveError::Square { .. })));
        assert!(matches!(
            parse(&p, "hello"),
            Err(MoveError::Square { .. } | MoveError::Syntax(_))
        ));
        assert!(matches!(parse(&p, "32-"), Err(MoveError::Syntax(_))));
        assert_eq!(hub(&parse(&p, "32-28").unwrap()), "32-28");
    }
}
