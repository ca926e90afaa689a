//! PDN games: reading (tags, move text with numbers, comments, variations, NAGs and results) and
//! writing (tags, numbered moves, comments).

use std::fmt::Write as _;

use crate::core::game::{Game, GameResult};
use crate::core::notation::{self, MoveError};
use crate::core::variant::{Color, Variant};

/// Why a PDN text could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PdnError {
    /// A tag pair is not `[Name "value"]`.
    #[error("bad tag pair near '{0}'")]
    Tag(String),
    /// A comment or variation is never closed.
    #[error("unterminated {0} in move text")]
    Unterminated(&'static str),
    /// A token of the move text is not a move, number, result or annotation.
    #[error("unexpected '{0}' in move text")]
    Token(String),
    /// The FEN tag is invalid.
    #[error("bad FEN tag: {0}")]
    Fen(String),
    /// A move is illegal or unreadable in its position.
    #[error("move {number}: {error}")]
    Move {
        /// Ply number, from 1.
        number: usize,
        /// What is wrong with it.
        error: MoveError,
    },
}

/// One game as written: tags, the moves as text, the result token.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PdnGame {
    /// Tag pairs in file order.
    pub tags: Vec<(String, String)>,
    /// Moves of the main line, as written.
    pub moves: Vec<String>,
    /// The result token, if any (`2-0`, `1-1`, `0-2`, `*`, ...).
    pub result: Option<String>,
}

impl PdnGame {
    /// The value of a tag.
    pub fn tag(&self, name: &str) -> Option<&str> {
        self.tags
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// Replays the game by the rules of `V`.
    pub fn to_game<V: Variant>(&self) -> Result<Game<V>, PdnError> {
        let mut g = match self.tag("FEN") {
            Some(f) => Game::from_fen(f).map_err(|e| PdnError::Fen(e.to_string()))?,
            None => Game::default(),
        };
        for (i, m) in self.moves.iter().enumerate() {
            g.play_text(m).map_err(|error| PdnError::Move {
                number: i + 1,
                error,
            })?;
        }
        Ok(g)
    }
}

fn is_result(t: &str) -> bool {
    matches!(
        t,
        "2-0" | "0-2" | "1-1" | "0-0" | "*" | "1-0" | "0-1" | "1/2-1/2"
    )
}

fn is_move(t: &str) -> bool {
    let parts: Vec<&str> = t.split(['-', 'x', 'X', ':']).collect();
    parts.len() >= 2
        && parts.iter().all(|p| {
            !p.is_empty()
                && (p.bytes().all(|b| b.is_ascii_digit())
                    || (p.len() == 2
                        && p.as_bytes()[0].is_ascii_lowercase()
                        && p.as_bytes()[1].is_ascii_digit()))
        })
}

/// Reads every game of a PDN text.
pub fn parse(text: &str) -> Result<Vec<PdnGame>, PdnError> {
    let mut games = Vec::new();
    let mut cur = PdnGame::default();
    let mut has_content = false;
    let chars: Vec<char> = text.chars().collect();
    let mut i = 0;
    let n = chars.len();
    while i < n {
        let c = chars[i];
        if c.is_whitespace() {
            i += 1;
        } else if c == '[' {
            if !cur.moves.is_empty() || cur.result.is_some() {
                games.push(std::mem::take(&mut cur));
            }
            let end = chars[i..]
                .iter()
                .position(|&x| x == ']')
                .ok_or_else(|| PdnError::Tag(chars[i..].iter().take(30).collect()))?;
            let body: String = chars[i + 1..i + end].iter().collect();
            let body = body.trim();
            let (name, rest) = body
                .split_once(char::is_whitespace)
                .ok_or_else(|| PdnError::Tag(body.to_string()))?;
            let value = rest.trim().trim_matches('"').to_string();
            cur.tags.push((name.to_string(), value));
            has_content = true;
            i += end + 1;
        } else if c == '{' {
            let end = chars[i..]
                .iter()
                .position(|&x| x == '}')
                .ok_or(PdnError::Unterminated("comment"))?;
            i += end + 1;
        } else if c == '%' && (i == 0 || chars[i - 1] == '\n') {
            while i < n && chars[i] != '\n' {
                i += 1;
            }
        } else if c == '(' {
            let mut depth = 0;
            loop {
                if i >= n {
                    return Err(PdnError::Unterminated("variation"));
                }
                match chars[i] {
                    '(' => depth += 1,
                    ')' => {
                        depth -= 1;
                        if depth == 0 {
                            i += 1;
                            break;
                        }
                    }
                    '{' => {
                        let end = chars[i..]
                            .iter()
                            .position(|&x| x == '}')
                            .ok_or(PdnError::Unterminated("comment"))?;
                        i += end;
                    }
                    _ => {}
                }
                i += 1;
            }
        } else {
            let start = i;
            while i < n && !chars[i].is_whitespace() && !matches!(chars[i], '{' | '(' | '[') {
                i += 1;
            }
            let tok: String = chars[start..i].iter().collect();
            // strip move numbers glued to the move ("1.32-28") and strength marks
            let mut t = tok.as_str();
            if let Some(p) = t.rfind('.') {
                if t[..p].bytes().all(|b| b.is_ascii_digit() || b == b'.') {
                    t = &t[p + 1..];
                }
            }
            let t = t.trim_end_matches(['!', '?']);
            if t.is_empty() || t.starts_with('$') {
                continue;
            }
            if is_result(t) {
                cur.result = Some(t.to_string());
                games.push(std::mem::take(&mut cur));
                has_content = false;
            } else if is_move(t) {
                cur.moves.push(t.to_string());
                has_content = true;
            } else {
                return Err(PdnError::Token(tok.chars().take(30).collect()));
            }
        }
    }
    if has_content || !cur.moves.is_empty() {
        games.push(cur);
    }
    Ok(games)
}

/// The international result token of a game result (`2-0`, `1-1`, `0-2`, or `*`).
pub fn result_token(r: GameResult) -> &'static str {
    match r {
        GameResult::Win(Color::White) => "2-0",
        GameResult::Win(Color::Black) => "0-2",
        GameResult::Draw(_) => "1-1",
        GameResult::Ongoing => "*",
    }
}

/// The number PDN gives move `i` (from 0) of a game whose first mover is `first`: `1.` for a
/// white move, `1...` for a black one.
pub fn move_number(i: usize, first: Color) -> String {
    let ply = i + usize::from(first == Color::Black);
    if ply.is_multiple_of(2) {
        format!("{}.", ply / 2 + 1)
    } else {
        format!("{}...", ply / 2 + 1)
    }
}

/// Writes a game as PDN: the given tags (a FEN tag is added for a set-up start), numbered moves in
/// PDN notation with an optional comment after each, and the result.
pub fn write<V: Variant>(
    game: &Game<V>,
    tags: &[(String, String)],
    comments: &[Option<String>],
    result: &str,
) -> String {
    let mut s = String::new();
    for (n, v) in tags {
        let _ = writeln!(s, "[{n} \"{v}\"]");
    }
    let start = game.start();
    if *start != crate::core::position::Position::start() && !tags.iter().any(|(n, _)| n == "FEN") {
        let _ = writeln!(s, "[SetUp \"1\"]");
        let _ = writeln!(s, "[FEN \"{}\"]", crate::core::fen::write(start));
    }
    if !tags.iter().any(|(n, _)| n == "GameType") && V::GAME_TYPE != 20 {
        let _ = writeln!(s, "[GameType \"{}\"]", V::GAME_TYPE);
    }
    s.push('\n');
    let mut line = String::new();
    let first_black = start.side() == Color::Black;
    for (i, m) in game.moves().iter().enumerate() {
        let pos = &game.positions()[i];
        let ply = i + usize::from(first_black);
        if ply % 2 == 0 {
            let _ = write!(line, "{}. ", ply / 2 + 1);
        } else if i == 0 {
            let _ = write!(line, "{}... ", ply / 2 + 1);
        }
        line.push_str(&notation::pdn(pos, m));
        line.push(' ');
        if let Some(Some(c)) = comments.get(i) {
            let _ = write!(line, "{{{}}} ", c.replace('}', ")"));
        }
        if line.len() > 72 {
            s.push_str(line.trim_end());
            s.push('\n');
            line.clear();
        }
    }
    line.push_str(result);
    s.push_str(line.trim_end());
    s.push('\n');
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::variant::International;

    #[test]
    fn reads_tags_moves_comments_and_results() {
        let text = "[Event \"t\"]\n[White \"a\"]\n1. 32-28 19-23 {a comment} 2. 28x19 14x23 (2... 13x24) 3. 37-32 $1 2-0\n\n[Event \"u\"]\n1.33-28 *";
        let games = parse(text).unwrap();
        assert_eq!(games.len(), 2);
        assert_eq!(
            games[0].moves,
            vec!["32-28", "19-23", "28x19", "14x23", "37-32"]
        );
        assert_eq!(games[0].result.as_deref(), Some("2-0"));
        assert_eq!(games[0].tag("white"), Some("a"));
        assert_eq!(games[1].moves, vec!["33-28"]);
        let g: Game<International> = games[0].to_game().unwrap();
        assert_eq!(g.moves().len(), 5);
    }

    #[test]
    fn round_trips_through_the_writer() {
        let mut g: Game<International> = Game::default();
        for m in ["32-28", "19-23", "28x19", "14x23"] {
            g.play_text(m).unwrap();
        }
        let text = write(&g, &[("Event".into(), "x".into())], &[], "*");
        let back = parse(&text).unwrap();
        assert_eq!(back.len(), 1);
        let g2: Game<International> = back[0].to_game().unwrap();
        assert_eq!(g2.position(), g.position());
    }

    #[test]
    fn reports_bad_moves_with_their_number() {
        let games = parse("1. 32-28 19-23 2. 28-22 *").unwrap();
        let err = games[0].to_game::<International>().unwrap_err();
        assert!(matches!(err, PdnError::Move { number: 3, .. }), "{err}");
        assert!(parse("1. 32-28 {open").is_err());
        assert!(parse("1. hello").is_err());
    }
}
