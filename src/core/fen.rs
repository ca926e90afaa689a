//! PDN FEN: reading (ranges, kings, either colour first, empty sides, trailing dot, lidraughts'
//! `:H..:F..` suffix, algebraic squares on 8x8) and writing.

use std::fmt::Write as _;

use crate::core::position::{Piece, Position, PositionError};
use crate::core::square::Square;
use crate::core::variant::{Color, Variant};

/// Why a FEN could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FenError {
    /// Nothing to read.
    #[error("empty FEN")]
    Empty,
    /// The first field is not `W` or `B`.
    #[error("bad side to move '{0}' in FEN (expected W or B)")]
    Side(String),
    /// A section does not start with `W` or `B`.
    #[error("bad FEN section '{0}' (expected W or B followed by squares)")]
    Section(String),
    /// The same colour has two sections.
    #[error("the {0} pieces are given twice in FEN")]
    DuplicateSection(&'static str),
    /// A square is not a square of this board.
    #[error("bad square '{0}' in FEN")]
    Square(String),
    /// A range is malformed or runs backwards.
    #[error("bad range '{0}' in FEN")]
    Range(String),
    /// The pieces do not make a valid position.
    #[error("invalid position in FEN: {0}")]
    Position(#[from] PositionError),
}

/// Reads a PDN FEN for variant `V`.
pub fn parse<V: Variant>(text: &str) -> Result<Position<V>, FenError> {
    let t = text.trim().trim_matches('"');
    let t = t.strip_suffix('.').unwrap_or(t);
    if t.is_empty() {
        return Err(FenError::Empty);
    }
    let mut fields = t.split(':');
    let side = match fields.next().map(str::trim) {
        Some("W") | Some("w") => Color::White,
        Some("B") | Some("b") => Color::Black,
        Some(other) => return Err(FenError::Side(other.chars().take(20).collect())),
        None => return Err(FenError::Empty),
    };
    let mut pieces: Vec<(Square, Piece)> = Vec::new();
    let mut seen = [false; 2];
    for field in fields {
        let f = field.trim();
        let (color, rest) = match f.chars().next() {
            Some('W') | Some('w') => (Color::White, &f[1..]),
            Some('B') | Some('b') => (Color::Black, &f[1..]),
            // lidraughts' halfmove clock and fullmove number
            Some('H') | Some('F') if f[1..].bytes().all(|b| b.is_ascii_digit()) => continue,
            _ => return Err(FenError::Section(f.chars().take(30).collect())),
        };
        if seen[color.index()] {
            return Err(FenError::DuplicateSection(if color == Color::White {
                "white"
            } else {
                "black"
            }));
        }
        seen[color.index()] = true;
        for item in rest.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            let (king, body) = match item.strip_prefix(['K', 'k']) {
                Some(b) => (true, b),
                None => (false, item),
            };
            let piece = Piece::new(color, king);
            if let Some((a, b)) = body.split_once('-') {
                let a = number::<V>(a).ok_or_else(|| FenError::Range(item.to_string()))?;
                let b = number::<V>(b).ok_or_else(|| FenError::Range(item.to_string()))?;
                if a > b {
                    return Err(FenError::Range(item.to_string()));
                }
                for n in a..=b {
                    pieces.push((Square::from_index(n as u8), piece));
                }
            } else {
                let sq = crate::core::notation::parse_square::<V>(body)
                    .ok_or_else(|| FenError::Square(item.chars().take(20).collect()))?;
                pieces.push((sq, piece));
            }
        }
    }
    Ok(Position::from_pieces(&pieces, side)?)
}

fn number<V: Variant>(t: &str) -> Option<usize> {
    crate::core::notation::parse_square::<V>(t.trim()).map(|s| s.index())
}

/// Writes a PDN FEN (numeric squares, white section first, no ranges, no trailing dot).
pub fn write<V: Variant>(pos: &Position<V>) -> String {
    let mut s = String::with_capacity(160);
    s.push(pos.side().letter());
    for color in [Color::White, Color::Black] {
        s.push(':');
        s.push(color.letter());
        let mut first = true;
        for (sq, p) in pos.piece_list() {
            if p.color() != color {
                continue;
            }
            if !first {
                s.push(',');
            }
            first = false;
            if p.is_king() {
                s.push('K');
            }
            let _ = write!(s, "{}", sq.number());
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::variant::{International, Russian};

    #[test]
    fn reads_ranges_kings_and_extensions() {
        let a: Position<International> = parse("W:W31-50:B1-20").unwrap();
        assert_eq!(a, Position::start());
        let b: Position<International> = parse("W:B1-20:W31-50.").unwrap();
        assert_eq!(a, b);
        let c: Position<International> = parse("W:W31-50:B1-20:H0:F1").unwrap();
        assert_eq!(a, c);
        let d: Position<International> =
            parse("B:W18,24,27,28,K10,K15:B12,16,20,K22,K25,K29").unwrap();
        assert_eq!(write(&d), "B:WK10,K15,18,24,27,28:B12,16,20,K22,K25,K29");
        let e: Position<International> = parse("W:W31:B").unwrap();
        assert_eq!(write(&e), "W:W31:B");
    }

    #[test]
    fn reads_algebraic_on_8x8() {
        let a: Position<Russian> = parse("W:WKd2:Bf6,c5,e5,e3").unwrap();
        let b: Position<Russian> = parse("W:WK26:B11,14,15,23").unwrap();
        assert_eq!(a, b);
    }

    #[test]
    fn rejects_bad_input_with_specific_errors() {
        assert_eq!(parse::<International>(""), Err(FenError::Empty));
        assert!(matches!(
            parse::<International>("X:W31:B1"),
            Err(FenError::Side(_))
        ));
        assert!(matches!(
            parse::<International>("W:W51:B1"),
            Err(FenError::Square(_))
        ));
        assert!(matches!(
            parse::<International>("W:W40-31:B1"),
            Err(FenError::Range(_))
        ));
        assert!(matches!(
            parse::<International>("W:W31:W32"),
            Err(FenError::DuplicateSection(_))
        ));
        assert!(matches!(
            parse::<International>("W:W31:B31"),
            Err(FenError::Position(_))
        ));
        assert!(matches!(
            parse::<International>("W:W3:B31"),
            Err(FenError::Position(_))
        ));
        assert!(matches!(
            parse::<International>("W:Q3"),
            Err(FenError::Section(_))
        ));
    }
}
