//! The self-play game file: a compact, versioned binary record of games with the search score
//! of every move, the input of `damast train`.
//!
//! A position is not stored: a game is its start position and its moves, and each move is the
//! index of the move played in the position's legal moves sorted by (from, to, captured set),
//! which does not depend on the order of the move generator. That costs 3 bytes per position.
//!
//! Layout, all integers little-endian:
//!
//! | bytes | field |
//! |---|---|
//! | 8 | magic `DMSTGAME` |
//! | 2 | format version (1) |
//! | 2 | PDN GameType of the variant (20 international, 26 brazilian, 25 russian) |
//! | 8 | seed of the games |
//! | 8 | nodes per move |
//! | 2 | most random plies at the start of a game |
//! | 6 | reserved (0) |
//!
//! then games, one after another:
//!
//! | bytes | field |
//! |---|---|
//! | 4 | game number (0, 1, 2, ... in file order) |
//! | 1 | result: 0 Black won, 1 draw, 2 White won |
//! | 1 | length `n` of the start FEN |
//! | n | start FEN (ASCII) |
//! | 2 | number of moves `k` |
//! | 3k | per move: index of the move (1 byte), then the search score of the position before it for the side to move (i16; `i16::MIN` for a move not searched, such as a random opening ply) |

use std::io::Write;

use crate::core::fen;
use crate::core::moves::Move;
use crate::core::position::Position;
use crate::core::variant::{Color, Variant};
use crate::core::Game;

/// The file's first bytes.
pub const MAGIC: &[u8; 8] = b"DMSTGAME";
/// The format version written.
pub const VERSION: u16 = 1;
/// Size of the header in bytes.
pub const HEADER_LEN: usize = 36;
/// The score of a move that was not searched.
pub const NO_SCORE: i16 = i16::MIN;

/// The settings recorded in a file's header.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Header {
    /// PDN GameType of the variant.
    pub game_type: u16,
    /// Seed of the games.
    pub seed: u64,
    /// Nodes per move.
    pub nodes: u64,
    /// Most random plies at the start of a game.
    pub random_plies: u16,
}

impl Header {
    /// The header's bytes.
    pub fn to_bytes(&self) -> [u8; HEADER_LEN] {
        let mut b = [0u8; HEADER_LEN];
        b[..8].copy_from_slice(MAGIC);
        b[8..10].copy_from_slice(&VERSION.to_le_bytes());
        b[10..12].copy_from_slice(&self.game_type.to_le_bytes());
        b[12..20].copy_from_slice(&self.seed.to_le_bytes());
        b[20..28].copy_from_slice(&self.nodes.to_le_bytes());
        b[28..30].copy_from_slice(&self.random_plies.to_le_bytes());
        b
    }
}

/// The outcome of a recorded game.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Black won.
    BlackWin,
    /// A draw.
    Draw,
    /// White won.
    WhiteWin,
}

impl Outcome {
    /// The result for `color`: 1 a win, 0.5 a draw, 0 a loss.
    pub fn score_for(self, color: Color) -> f32 {
        match (self, color) {
            (Outcome::Draw, _) => 0.5,
            (Outcome::WhiteWin, Color::White) | (Outcome::BlackWin, Color::Black) => 1.0,
            _ => 0.0,
        }
    }

    /// A win for `color`.
    pub fn win(color: Color) -> Outcome {
        match color {
            Color::White => Outcome::WhiteWin,
            Color::Black => Outcome::BlackWin,
        }
    }

    fn code(self) -> u8 {
        self as u8
    }

    fn from_code(c: u8) -> Option<Outcome> {
        match c {
            0 => Some(Outcome::BlackWin),
            1 => Some(Outcome::Draw),
            2 => Some(Outcome::WhiteWin),
            _ => None,
        }
    }
}

/// A move with the search score of the position before it (side to move), if it was searched.
pub type ScoredMove<V> = (Move<V>, Option<i16>);

/// One game: where it started, its moves with their scores, and how it ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameRecord<V: Variant> {
    /// The start position.
    pub start: Position<V>,
    /// Each move with the search score of the position before it (side to move), if searched.
    pub moves: Vec<ScoredMove<V>>,
    /// The result.
    pub outcome: Outcome,
}

impl<V: Variant> GameRecord<V> {
    /// Calls `f` with every position before a move, its score (if searched) and the result for
    /// the side to move there.
    pub fn for_each_position(&self, mut f: impl FnMut(&Position<V>, Option<i16>, f32)) {
        let mut pos = self.start;
        for (m, score) in &self.moves {
            f(&pos, *score, self.outcome.score_for(pos.side()));
            pos = pos.make(m);
        }
    }
}

/// What is wrong with a game file.
#[derive(Debug, thiserror::Error)]
pub enum GameFileError {
    /// The file does not start with the magic bytes.
    #[error("not a Damast game file (it does not start with DMSTGAME)")]
    BadMagic,
    /// The header is cut short.
    #[error("the file is shorter than its {HEADER_LEN}-byte header")]
    ShortHeader,
    /// A version this build cannot read.
    #[error("game file version {0} is not supported (this build reads version {VERSION})")]
    Version(u16),
    /// The games are of another variant.
    #[error("the games are of PDN GameType {found}, not {expected}")]
    Variant {
        /// The GameType asked for.
        expected: u16,
        /// The GameType in the file.
        found: u16,
    },
    /// A game record is invalid.
    #[error("game {game} (byte {offset}): {reason}")]
    Game {
        /// Game number.
        game: usize,
        /// Byte offset of the game's record.
        offset: usize,
        /// What is wrong.
        reason: String,
    },
    /// Reading or writing failed.
    #[error("{0}")]
    Io(#[from] std::io::Error),
}

pub use crate::core::movegen::canonical_moves;

/// Appends the record of `game` (game number `number`) to `out`.
pub fn encode_game<V: Variant>(out: &mut Vec<u8>, number: u32, game: &GameRecord<V>) {
    let (start, moves, outcome) = (&game.start, &game.moves, game.outcome);
    let start_fen = fen::write(start);
    assert!(start_fen.len() <= 255, "a FEN is at most 255 bytes");
    assert!(moves.len() <= u16::MAX as usize);
    out.extend_from_slice(&number.to_le_bytes());
    out.push(outcome.code());
    out.push(start_fen.len() as u8);
    out.extend_from_slice(start_fen.as_bytes());
    out.extend_from_slice(&(moves.len() as u16).to_le_bytes());
    let mut pos = *start;
    for (m, score) in moves {
        let list = canonical_moves(&pos);
        let index = list
            .iter()
            .position(|x| x == m)
            .expect("a recorded move is legal");
        out.push(index as u8);
        out.extend_from_slice(&score.unwrap_or(NO_SCORE).to_le_bytes());
        pos = pos.make(m);
    }
}

/// Reads the header of a game file.
pub fn read_header(bytes: &[u8]) -> Result<Header, GameFileError> {
    if bytes.len() < 8 || &bytes[..8] != MAGIC {
        return Err(if bytes.len() < 8 && MAGIC.starts_with(bytes) {
            GameFileError::ShortHeader
        } else {
            GameFileError::BadMagic
        });
    }
    if bytes.len() < HEADER_LEN {
        return Err(GameFileError::ShortHeader);
    }
    let u16_at = |i: usize| u16::from_le_bytes([bytes[i], bytes[i + 1]]);
    let u64_at = |i: usize| u64::from_le_bytes(bytes[i..i + 8].try_into().unwrap());
    let version = u16_at(8);
    if version != VERSION {
        return Err(GameFileError::Version(version));
    }
    Ok(Header {
        game_type: u16_at(10),
        seed: u64_at(12),
        nodes: u64_at(20),
        random_plies: u16_at(28),
    })
}

/// The games of a file, read one by one.
pub struct Games<'a, V: Variant> {
    bytes: &'a [u8],
    offset: usize,
    number: usize,
    failed: bool,
    _v: std::marker::PhantomData<V>,
}

/// Opens the games of a file of variant `V`, checking the header.
pub fn games<V: Variant>(bytes: &[u8]) -> Result<(Header, Games<'_, V>), GameFileError> {
    let header = read_header(bytes)?;
    if header.game_type != V::GAME_TYPE as u16 {
        return Err(GameFileError::Variant {
            expected: V::GAME_TYPE as u16,
            found: header.game_type,
        });
    }
    Ok((
        header,
        Games {
            bytes,
            offset: HEADER_LEN,
            number: 0,
            failed: false,
            _v: std::marker::PhantomData,
        },
    ))
}

impl<V: Variant> Games<'_, V> {
    /// Byte offset just past the last game read whole.
    pub fn offset(&self) -> usize {
        self.offset
    }

    /// Games read whole so far.
    pub fn complete(&self) -> usize {
        self.number
    }

    fn next_game(&mut self) -> Result<GameRecord<V>, GameFileError> {
        let at = self.offset;
        let game = self.number;
        let bad = |reason: String| GameFileError::Game {
            game,
            offset: at,
            reason,
        };
        let b = &self.bytes[at..];
        let cut = || bad("the record is cut short".to_string());
        if b.len() < 6 {
            return Err(cut());
        }
        let number = u32::from_le_bytes(b[..4].try_into().unwrap()) as usize;
        if number != game {
            return Err(bad(format!("numbered {number}, expected {game}")));
        }
        let outcome = Outcome::from_code(b[4]).ok_or_else(|| bad(format!("result {}", b[4])))?;
        let n = b[5] as usize;
        if b.len() < 8 + n {
            return Err(cut());
        }
        let fen_text =
            std::str::from_utf8(&b[6..6 + n]).map_err(|_| bad("the FEN is not text".into()))?;
        let start: Position<V> =
            fen::parse(fen_text).map_err(|e| bad(format!("bad start FEN: {e}")))?;
        let k = u16::from_le_bytes([b[6 + n], b[7 + n]]) as usize;
        let body = 8 + n;
        if b.len() < body + 3 * k {
            return Err(cut());
        }
        let mut moves = Vec::with_capacity(k);
        let mut game_state = Game::new(start);
        for i in 0..k {
            let r = &b[body + 3 * i..body + 3 * i + 3];
            let list = canonical_moves(game_state.position());
            let m = *list
                .as_slice()
                .get(r[0] as usize)
                .ok_or_else(|| bad(format!("move {} is not legal", i + 1)))?;
            let score = i16::from_le_bytes([r[1], r[2]]);
            moves.push((m, (score != NO_SCORE).then_some(score)));
            game_state
                .play(m)
                .map_err(|e| bad(format!("move {}: {e}", i + 1)))?;
        }
        self.offset = at + body + 3 * k;
        self.number += 1;
        Ok(GameRecord {
            start,
            moves,
            outcome,
        })
    }
}

impl<V: Variant> Iterator for Games<'_, V> {
    type Item = Result<GameRecord<V>, GameFileError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.failed || self.offset >= self.bytes.len() {
            return None;
        }
        let r = self.next_game();
        // stop after the first error
        self.failed = r.is_err();
        Some(r)
    }
}

/// Writes a header to a new file.
pub fn write_header(out: &mut impl Write, header: &Header) -> std::io::Result<()> {
    out.write_all(&header.to_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::movegen;
    use crate::core::variant::{International, Russian};

    fn sample_game() -> (Position<International>, Vec<ScoredMove<International>>) {
        let mut pos = Position::<International>::start();
        let mut moves = Vec::new();
        for i in 0..30 {
            let list = movegen::legal_moves(&pos);
            let m = list[(i * 7) % list.len()];
            moves.push((m, if i < 3 { None } else { Some(i as i16 * 3 - 40) }));
            pos = pos.make(&m);
        }
        (Position::start(), moves)
    }

    fn header() -> Header {
        Header {
            game_type: 20,
            seed: 7,
            nodes: 1000,
            random_plies: 4,
        }
    }

    #[test]
    fn games_round_trip() {
        let (start, moves) = sample_game();
        let mut bytes = header().to_bytes().to_vec();
        let record = |moves: &[ScoredMove<International>], outcome| GameRecord {
            start,
            moves: moves.to_vec(),
            outcome,
        };
        encode_game(&mut bytes, 0, &record(&moves, Outcome::WhiteWin));
        encode_game(&mut bytes, 1, &record(&moves[..5], Outcome::Draw));
        let (h, games) = games::<International>(&bytes).unwrap();
        assert_eq!(h, header());
        let read: Vec<_> = games.map(|g| g.unwrap()).collect();
        assert_eq!(read.len(), 2);
        assert_eq!(read[0].moves, moves);
        assert_eq!(read[0].outcome, Outcome::WhiteWin);
        assert_eq!(read[1].moves, moves[..5].to_vec());
        // 3 bytes per move
        let one = bytes.len() - HEADER_LEN;
        let fen_len = fen::write(&start).len();
        assert_eq!(one, 2 * (8 + fen_len) + 3 * 35);
        let mut seen = 0;
        read[0].for_each_position(|p, s, r| {
            assert_eq!(r, if p.side() == Color::White { 1.0 } else { 0.0 });
            assert_eq!(s, moves[seen].1);
            seen += 1;
        });
        assert_eq!(seen, 30);
    }

    #[test]
    fn bad_files_are_errors() {
        assert!(matches!(
            read_header(b"DMSTGA"),
            Err(GameFileError::ShortHeader)
        ));
        assert!(matches!(
            read_header(b"PK\x03\x04xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"),
            Err(GameFileError::BadMagic)
        ));
        let mut h = header().to_bytes();
        h[8] = 9;
        assert!(matches!(read_header(&h), Err(GameFileError::Version(9))));
        let h = header().to_bytes();
        assert!(matches!(
            games::<Russian>(&h),
            Err(GameFileError::Variant { found: 20, .. })
        ));
        // a cut record and an illegal move index are reported with the game's number
        let (start, moves) = sample_game();
        let mut bytes = h.to_vec();
        let record = GameRecord {
            start,
            moves,
            outcome: Outcome::Draw,
        };
        encode_game(&mut bytes, 0, &record);
        let full = bytes.len();
        let (_, mut g) = games::<International>(&bytes[..full - 1]).unwrap();
        let e = g.next().unwrap().unwrap_err().to_string();
        assert!(e.contains("game 0") && e.contains("cut short"), "{e}");
        assert!(g.next().is_none());
        let fen_len = fen::write(&start).len();
        bytes[HEADER_LEN + 8 + fen_len] = 200;
        let (_, mut g) = games::<International>(&bytes).unwrap();
        let e = g.next().unwrap().unwrap_err().to_string();
        assert!(e.contains("move 1 is not legal"), "{e}");
    }
}
