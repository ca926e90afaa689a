//! DXP messages: their types, a parser that never panics, and the writer.
//!
//! Every message is one type letter followed by fixed-width fields (docs: dxp-protocol.md). The
//! parser checks every field and returns a [`ParseError`] that says which field is wrong and why;
//! [`Message::encode`] writes the text that goes before the NUL terminator. Pure: no I/O.

use std::fmt;

use crate::core::{movegen, Color, International, Move, Position};

/// The longest message, in bytes, without its NUL terminator.
pub const MAX_MESSAGE: usize = 127;

/// Width of a name field (space padded).
pub const NAME_WIDTH: usize = 32;

/// The protocol version this engine speaks.
pub const VERSION: u8 = 1;

/// Number of squares of the DXP board.
const SQUARES: u8 = 50;

/// Longest chat text.
pub const MAX_CHAT: usize = MAX_MESSAGE - 1;

/// GAMEREQ: the initiator proposes a game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameReq {
    /// Protocol version (this engine speaks 1).
    pub version: u8,
    /// The initiator's name, without padding.
    pub name: String,
    /// The colour the follower plays.
    pub follower: Color,
    /// Thinking time of each player, in minutes (0 is allowed: no time given).
    pub minutes: u16,
    /// Number of moves for that time (0: the time is for the whole game).
    pub moves: u16,
    /// The start position; `None` is the normal start position with White to move.
    pub start: Option<Position<International>>,
}

/// The follower's answer to a GAMEREQ.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AccCode {
    /// `0`: the game is accepted.
    Accept,
    /// `1`: the protocol version is not supported.
    Version,
    /// `2`: this game is refused; another may be proposed.
    Refused,
    /// `3`: no games at all.
    NoGames,
}

impl AccCode {
    fn digit(self) -> char {
        match self {
            AccCode::Accept => '0',
            AccCode::Version => '1',
            AccCode::Refused => '2',
            AccCode::NoGames => '3',
        }
    }
}

/// GAMEACC: the follower accepts or refuses a game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameAcc {
    /// The follower's name, without padding.
    pub name: String,
    /// Accepted or why not.
    pub code: AccCode,
}

/// MOVE: a move as from square, to square and the set of captured squares.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MoveMsg {
    /// Seconds the sender used for this move (informational).
    pub seconds: u16,
    /// Square the piece leaves, 1..=50.
    pub from: u8,
    /// Square the piece ends on, 1..=50 (equal to `from` for a king capture round a loop).
    pub to: u8,
    /// The captured squares, each 1..=50, no square twice, in the order the sender gave them.
    pub captured: Vec<u8>,
}

/// Why a side ends a game (informational; each side speaks for itself).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EndReason {
    /// `0`: no reason given.
    Unknown,
    /// `1`: the sender loses.
    ILose,
    /// `2`: a draw.
    Draw,
    /// `3`: the sender wins.
    IWin,
}

impl EndReason {
    fn digit(self) -> char {
        match self {
            EndReason::Unknown => '0',
            EndReason::ILose => '1',
            EndReason::Draw => '2',
            EndReason::IWin => '3',
        }
    }

    /// The reason in words, as the sender means it.
    pub fn describe(self) -> &'static str {
        match self {
            EndReason::Unknown => "no reason given",
            EndReason::ILose => "it says it loses",
            EndReason::Draw => "it says draw",
            EndReason::IWin => "it says it wins",
        }
    }

    /// The same outcome as the other side says it.
    pub fn mirrored(self) -> EndReason {
        match self {
            EndReason::ILose => EndReason::IWin,
            EndReason::IWin => EndReason::ILose,
            other => other,
        }
    }
}

/// GAMEEND: the game is over.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GameEnd {
    /// The sender's view of the result.
    pub reason: EndReason,
    /// Whether the sender wants to stop altogether (no further game).
    pub stop: bool,
}

/// BACKREQ: take moves back until the given move number with the given side to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BackReq {
    /// The move number (as in game notation, from 1).
    pub move_number: u16,
    /// The side to move in the position asked for.
    pub side: Color,
}

/// BACKACC: the answer to a BACKREQ.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BackAcc {
    /// `0`: the moves were taken back.
    Accepted,
    /// `1`: taking back is not supported.
    NotSupported,
    /// `2`: the sender wants to continue the game as it is.
    Continue,
}

impl BackAcc {
    fn digit(self) -> char {
        match self {
            BackAcc::Accepted => '0',
            BackAcc::NotSupported => '1',
            BackAcc::Continue => '2',
        }
    }
}

/// One DXP message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Message {
    /// `R`: a game request.
    GameReq(GameReq),
    /// `A`: the answer to a game request.
    GameAcc(GameAcc),
    /// `M`: a move.
    Move(MoveMsg),
    /// `E`: the end of a game.
    GameEnd(GameEnd),
    /// `C`: a chat line (printable ASCII).
    Chat(String),
    /// `B`: a request to take moves back.
    BackReq(BackReq),
    /// `K`: the answer to a take-back request.
    BackAcc(BackAcc),
}

/// Why a message could not be read. The text names the message, the field and what was expected.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ParseError {
    /// Nothing but blanks between two NUL terminators.
    #[error("empty message")]
    Empty,
    /// More than [`MAX_MESSAGE`] bytes without a NUL terminator.
    #[error("message longer than {MAX_MESSAGE} characters (or missing its NUL terminator)")]
    Overlong,
    /// The first letter is not a DXP message type.
    #[error("unknown message type '{0}': expected R, A, M, E, C, B or K")]
    UnknownType(String),
    /// The message ends before its last field.
    #[error("{kind} too short: {found} characters, expected {expected}")]
    TooShort {
        /// The message type.
        kind: &'static str,
        /// The length its fields need.
        expected: usize,
        /// The length received.
        found: usize,
    },
    /// Characters after the last field.
    #[error("{kind} too long: {found} characters, expected {expected}")]
    TrailingBytes {
        /// The message type.
        kind: &'static str,
        /// The length its fields need.
        expected: usize,
        /// The length received.
        found: usize,
    },
    /// A numeric field holds something other than decimal digits.
    #[error("{kind}: bad number '{text}' in field {field}")]
    BadNumber {
        /// The message type.
        kind: &'static str,
        /// The field.
        field: &'static str,
        /// The field's text.
        text: String,
    },
    /// A letter or code field holds a value the protocol does not define.
    #[error("{kind}: bad {field} '{text}', expected {expected}")]
    BadValue {
        /// The message type.
        kind: &'static str,
        /// The field.
        field: &'static str,
        /// The field's text.
        text: String,
        /// The values allowed.
        expected: &'static str,
    },
    /// A square outside 1..=50.
    #[error("MOVE: square {square} in field {field} is not on the board (1-50)")]
    Square {
        /// The field.
        field: &'static str,
        /// The number received.
        square: u32,
    },
    /// The same square listed twice as captured.
    #[error("MOVE: square {0} is listed twice as captured")]
    DuplicateCapture(u8),
    /// The board of a GAMEREQ does not describe a valid position.
    #[error("GAMEREQ: bad board: {0}")]
    Board(String),
}

/// Shows a byte string as printable text (for error messages and logs), at most `max` characters.
pub fn printable(bytes: &[u8], max: usize) -> String {
    let mut s: String = bytes
        .iter()
        .take(max)
        .map(|&b| {
            if (0x20..0x7f).contains(&b) {
                b as char
            } else {
                '?'
            }
        })
        .collect();
    if bytes.len() > max {
        s.push_str("...");
    }
    s
}

/// Cursor over a message's bytes that reads fixed-width fields.
struct Fields<'a> {
    kind: &'static str,
    b: &'a [u8],
    at: usize,
}

impl<'a> Fields<'a> {
    fn take(&mut self, len: usize, expected_total: usize) -> Result<&'a [u8], ParseError> {
        if self.at + len > self.b.len() {
            return Err(ParseError::TooShort {
                kind: self.kind,
                expected: expected_total,
                found: self.b.len(),
            });
        }
        let s = &self.b[self.at..self.at + len];
        self.at += len;
        Ok(s)
    }

    fn number(
        &mut self,
        len: usize,
        field: &'static str,
        expected_total: usize,
    ) -> Result<u32, ParseError> {
        let s = self.take(len, expected_total)?;
        if !s.iter().all(u8::is_ascii_digit) {
            return Err(ParseError::BadNumber {
                kind: self.kind,
                field,
                text: printable(s, 8),
            });
        }
        Ok(s.iter().fold(0u32, |n, &d| n * 10 + u32::from(d - b'0')))
    }

    fn letter(
        &mut self,
        field: &'static str,
        allowed: &'static str,
        expected: &'static str,
        expected_total: usize,
    ) -> Result<u8, ParseError> {
        let s = self.take(1, expected_total)?;
        if !allowed.as_bytes().contains(&s[0]) {
            return Err(ParseError::BadValue {
                kind: self.kind,
                field,
                text: printable(s, 1),
                expected,
            });
        }
        Ok(s[0])
    }

    fn end(&self, expected_total: usize) -> Result<(), ParseError> {
        if self.b.len() > self.at {
            return Err(ParseError::TrailingBytes {
                kind: self.kind,
                expected: expected_total,
                found: self.b.len(),
            });
        }
        Ok(())
    }
}

/// A name field as text: padding removed, anything unprintable shown as `?`.
fn name_text(bytes: &[u8]) -> String {
    printable(bytes, NAME_WIDTH).trim().to_string()
}

fn color_of(letter: u8) -> Color {
    if letter == b'W' {
        Color::White
    } else {
        Color::Black
    }
}

fn color_letter(c: Color) -> char {
    match c {
        Color::White => 'W',
        Color::Black => 'Z',
    }
}

impl Message {
    /// Reads one message (the bytes between two NUL terminators, without them).
    ///
    /// Blanks (spaces, tabs, CR, LF) before the type letter are skipped, and after the last field
    /// of every message but a chat; anything else that does not fit the layout is an error.
    pub fn parse(bytes: &[u8]) -> Result<Message, ParseError> {
        if bytes.len() > MAX_MESSAGE {
            return Err(ParseError::Overlong);
        }
        let b = bytes.trim_ascii_start();
        let Some(&kind) = b.first() else {
            return Err(ParseError::Empty);
        };
        let b = if kind == b'C' { b } else { b.trim_ascii_end() };
        match kind {
            b'R' => parse_gamereq(b),
            b'A' => {
                const LEN: usize = 1 + NAME_WIDTH + 1;
                let mut f = Fields {
                    kind: "GAMEACC",
                    b,
                    at: 1,
                };
                let name = name_text(f.take(NAME_WIDTH, LEN)?);
                let code = match f.letter("code", "0123", "0, 1, 2 or 3", LEN)? {
                    b'0' => AccCode::Accept,
                    b'1' => AccCode::Version,
                    b'2' => AccCode::Refused,
                    _ => AccCode::NoGames,
                };
                f.end(LEN)?;
                Ok(Message::GameAcc(GameAcc { name, code }))
            }
            b'M' => parse_move(b),
            b'E' => {
                const LEN: usize = 3;
                let mut f = Fields {
                    kind: "GAMEEND",
                    b,
                    at: 1,
                };
                let reason = match f.letter("reason", "0123", "0, 1, 2 or 3", LEN)? {
                    b'0' => EndReason::Unknown,
                    b'1' => EndReason::ILose,
                    b'2' => EndReason::Draw,
                    _ => EndReason::IWin,
                };
                let stop = f.letter("stop code", "01", "0 or 1", LEN)? == b'1';
                f.end(LEN)?;
                Ok(Message::GameEnd(GameEnd { reason, stop }))
            }
            b'C' => {
                if b.len() < 2 {
                    return Err(ParseError::TooShort {
                        kind: "CHAT",
                        expected: 2,
                        found: b.len(),
                    });
                }
                Ok(Message::Chat(printable(&b[1..], MAX_CHAT)))
            }
            b'B' => {
                const LEN: usize = 5;
                let mut f = Fields {
                    kind: "BACKREQ",
                    b,
                    at: 1,
                };
                let n = f.number(3, "move number", LEN)?;
                let side = color_of(f.letter("colour to move", "WZ", "W or Z", LEN)?);
                f.end(LEN)?;
                Ok(Message::BackReq(BackReq {
                    move_number: n as u16,
                    side,
                }))
            }
            b'K' => {
                const LEN: usize = 2;
                let mut f = Fields {
                    kind: "BACKACC",
                    b,
                    at: 1,
                };
                let code = match f.letter("code", "012", "0, 1 or 2", LEN)? {
                    b'0' => BackAcc::Accepted,
                    b'1' => BackAcc::NotSupported,
                    _ => BackAcc::Continue,
                };
                f.end(LEN)?;
                Ok(Message::BackAcc(code))
            }
            other => Err(ParseError::UnknownType(printable(&[other], 1))),
        }
    }

    /// The message as sent, without its NUL terminator. Names and chat text are cut to their
    /// field and anything unprintable becomes `?`, so the result is always one valid message.
    pub fn encode(&self) -> String {
        match self {
            Message::GameReq(r) => {
                let mut s = format!(
                    "R{:02}{}{}{:03}{:03}",
                    r.version.min(99),
                    pad_name(&r.name),
                    color_letter(r.follower),
                    r.minutes.min(999),
                    r.moves.min(999)
                );
                match &r.start {
                    None => s.push('A'),
                    Some(p) => {
                        s.push('B');
                        s.push_str(&p.to_dxp());
                    }
                }
                s
            }
            Message::GameAcc(a) => format!("A{}{}", pad_name(&a.name), a.code.digit()),
            Message::Move(m) => {
                let mut s = format!(
                    "M{:04}{:02}{:02}{:02}",
                    m.seconds.min(9999),
                    m.from.min(99),
                    m.to.min(99),
                    m.captured.len().min(99)
                );
                for c in m.captured.iter().take(99) {
                    s.push_str(&format!("{:02}", c.min(&99)));
                }
                s
            }
            Message::GameEnd(e) => {
                format!("E{}{}", e.reason.digit(), if e.stop { '1' } else { '0' })
            }
            Message::Chat(text) => {
                let t = printable(text.as_bytes(), MAX_CHAT);
                let t: String = t.chars().take(MAX_CHAT).collect();
                if t.is_empty() {
                    "C ".to_string()
                } else {
                    format!("C{t}")
                }
            }
            Message::BackReq(b) => {
                format!("B{:03}{}", b.move_number.min(999), color_letter(b.side))
            }
            Message::BackAcc(k) => format!("K{}", k.digit()),
        }
    }

    /// The message type's name, for logs.
    pub fn kind(&self) -> &'static str {
        match self {
            Message::GameReq(_) => "GAMEREQ",
            Message::GameAcc(_) => "GAMEACC",
            Message::Move(_) => "MOVE",
            Message::GameEnd(_) => "GAMEEND",
            Message::Chat(_) => "CHAT",
            Message::BackReq(_) => "BACKREQ",
            Message::BackAcc(_) => "BACKACC",
        }
    }
}

/// A name cut or padded with spaces to [`NAME_WIDTH`] printable characters.
fn pad_name(name: &str) -> String {
    let t = printable(name.as_bytes(), NAME_WIDTH);
    let t: String = t.chars().take(NAME_WIDTH).collect();
    format!("{t:<width$}", width = NAME_WIDTH)
}

fn parse_gamereq(b: &[u8]) -> Result<Message, ParseError> {
    const HEAD: usize = 1 + 2 + NAME_WIDTH + 1 + 3 + 3 + 1;
    const FULL: usize = HEAD + 1 + 50;
    let mut f = Fields {
        kind: "GAMEREQ",
        b,
        at: 1,
    };
    let version = f.number(2, "version", HEAD)? as u8;
    let name = name_text(f.take(NAME_WIDTH, HEAD)?);
    let follower = color_of(f.letter("follower colour", "WZ", "W or Z", HEAD)?);
    let minutes = f.number(3, "minutes", HEAD)? as u16;
    let moves = f.number(3, "moves", HEAD)? as u16;
    let start = match f.letter("start", "AB", "A (start position) or B (set-up)", HEAD)? {
        b'A' => {
            f.end(HEAD)?;
            None
        }
        _ => {
            let board = f.take(1 + 50, FULL)?;
            f.end(FULL)?;
            let text = std::str::from_utf8(board)
                .ok()
                .filter(|t| t.is_ascii())
                .ok_or_else(|| ParseError::Board("non-ASCII characters".into()))?;
            let pos = Position::<International>::from_dxp(text)
                .map_err(|e| ParseError::Board(e.to_string()))?;
            Some(pos)
        }
    };
    Ok(Message::GameReq(GameReq {
        version,
        name,
        follower,
        minutes,
        moves,
        start,
    }))
}

fn parse_move(b: &[u8]) -> Result<Message, ParseError> {
    const HEAD: usize = 11;
    let mut f = Fields {
        kind: "MOVE",
        b,
        at: 1,
    };
    let seconds = f.number(4, "time", HEAD)? as u16;
    let square = |f: &mut Fields, field: &'static str, total: usize| -> Result<u8, ParseError> {
        let n = f.number(2, field, total)?;
        if n == 0 || n > u32::from(SQUARES) {
            return Err(ParseError::Square { field, square: n });
        }
        Ok(n as u8)
    };
    let from = square(&mut f, "from", HEAD)?;
    let to = square(&mut f, "to", HEAD)?;
    let count = f.number(2, "capture count", HEAD)? as usize;
    if count > 20 {
        return Err(ParseError::BadValue {
            kind: "MOVE",
            field: "capture count",
            text: format!("{count:02}"),
            expected: "at most 20",
        });
    }
    let total = HEAD + 2 * count;
    let mut captured = Vec::with_capacity(count);
    for _ in 0..count {
        let c = square(&mut f, "captured", total)?;
        if captured.contains(&c) {
            return Err(ParseError::DuplicateCapture(c));
        }
        captured.push(c);
    }
    f.end(total)?;
    Ok(Message::Move(MoveMsg {
        seconds,
        from,
        to,
        captured,
    }))
}

impl MoveMsg {
    /// The message for a move of ours, with the seconds it took (rounded, at most 9999).
    pub fn from_move(m: &Move<International>, seconds: f64) -> MoveMsg {
        let secs = if seconds.is_finite() {
            seconds.round().clamp(0.0, 9999.0) as u16
        } else {
            0
        };
        MoveMsg {
            seconds: secs,
            from: m.from().number() as u8,
            to: m.to().number() as u8,
            captured: m.captured_squares().map(|s| s.number() as u8).collect(),
        }
    }

    /// The legal move of `pos` with the same from square, to square and set of captured squares.
    pub fn find(&self, pos: &Position<International>) -> Option<Move<International>> {
        let mut wanted = self.captured.clone();
        wanted.sort_unstable();
        movegen::legal_moves(pos).iter().copied().find(|m| {
            m.from().number() == u32::from(self.from)
                && m.to().number() == u32::from(self.to)
                && m.captured_squares()
                    .map(|s| s.number() as u8)
                    .eq(wanted.iter().copied())
        })
    }
}

impl fmt::Display for MoveMsg {
    /// Hub form: `32-28`, or `28x19x23` (from, to, then the captured squares as given).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.captured.is_empty() {
            write!(f, "{}-{}", self.from, self.to)
        } else {
            write!(f, "{}x{}", self.from, self.to)?;
            for c in &self.captured {
                write!(f, "x{c}")?;
            }
            Ok(())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn name32(n: &str) -> String {
        format!("{n:<32}")
    }

    #[test]
    fn reads_the_examples_of_the_spec() {
        assert_eq!(
            Message::parse(b"M0012061100"),
            Ok(Message::Move(MoveMsg {
                seconds: 12,
                from: 6,
                to: 11,
                captured: vec![]
            }))
        );
        assert_eq!(
            Message::parse(b"M001205250422122320"),
            Ok(Message::Move(MoveMsg {
                seconds: 12,
                from: 5,
                to: 25,
                captured: vec![22, 12, 23, 20]
            }))
        );
        let r = format!("R01{}W060065A", name32("Tornado voor Windows 4.0"));
        match Message::parse(r.as_bytes()) {
            Ok(Message::GameReq(g)) => {
                assert_eq!(g.version, 1);
                assert_eq!(g.name, "Tornado voor Windows 4.0");
                assert_eq!(g.follower, Color::White);
                assert_eq!((g.minutes, g.moves), (60, 65));
                assert_eq!(g.start, None);
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(
            Message::parse(b"E21"),
            Ok(Message::GameEnd(GameEnd {
                reason: EndReason::Draw,
                stop: true
            }))
        );
        assert_eq!(
            Message::parse(b"B005Z"),
            Ok(Message::BackReq(BackReq {
                move_number: 5,
                side: Color::Black
            }))
        );
        assert_eq!(
            Message::parse(b"K1"),
            Ok(Message::BackAcc(BackAcc::NotSupported))
        );
        assert_eq!(
            Message::parse(b"CWhat about move 35?"),
            Ok(Message::Chat("What about move 35?".into()))
        );
        let a = format!("A{}0", name32("Scan"));
        assert_eq!(
            Message::parse(a.as_bytes()),
            Ok(Message::GameAcc(GameAcc {
                name: "Scan".into(),
                code: AccCode::Accept
            }))
        );
    }

    #[test]
    fn reads_a_set_up_board() {
        let pos = Position::<International>::from_dxp(&format!(
            "Z{}{}{}",
            "z".repeat(20),
            "e".repeat(10),
            "w".repeat(20)
        ))
        .unwrap();
        let req = GameReq {
            version: 1,
            name: "DXP Client".into(),
            follower: Color::Black,
            minutes: 0,
            moves: 0,
            start: Some(pos),
        };
        let text = Message::GameReq(req.clone()).encode();
        assert_eq!(text.len(), 94);
        assert_eq!(Message::parse(text.as_bytes()), Ok(Message::GameReq(req)));
    }

    #[test]
    fn bad_messages_say_what_is_wrong() {
        let name = name32("x");
        let cases: Vec<(Vec<u8>, &str)> = vec![
            (b"".to_vec(), "empty message"),
            (b"  \r\n".to_vec(), "empty message"),
            (b"X123".to_vec(), "unknown message type 'X'"),
            (b"\x01".to_vec(), "unknown message type '?'"),
            (
                b"M00120611".to_vec(),
                "MOVE too short: 9 characters, expected 11",
            ),
            (b"M0012061100x".to_vec(), "MOVE too long"),
            (b"M00120a1100".to_vec(), "bad number '0a' in field from"),
            (b"M0012001100".to_vec(), "square 0 in field from"),
            (b"M0012065100".to_vec(), "square 51 in field to"),
            (
                b"M00120611012".to_vec(),
                "MOVE too short: 12 characters, expected 13",
            ),
            (b"M0012061102121".to_vec(), "MOVE too short"),
            (b"M001206110212131".to_vec(), "MOVE too long"),
            (b"M00120611021212".to_vec(), "listed twice"),
            (b"M0012061121".to_vec(), "at most 20"),
            (b"E0".to_vec(), "GAMEEND too short"),
            (b"E40".to_vec(), "bad reason '4'"),
            (b"E02".to_vec(), "bad stop code '2'"),
            (b"E000".to_vec(), "GAMEEND too long"),
            (b"K3".to_vec(), "bad code '3'"),
            (b"B05Z".to_vec(), "bad number '05Z'"),
            (b"B005X".to_vec(), "bad colour to move 'X'"),
            (b"C".to_vec(), "CHAT too short"),
            (b"A0".to_vec(), "GAMEACC too short"),
            (format!("R01{name}W060").into_bytes(), "GAMEREQ too short"),
            (
                format!("R0x{name}W060065A").into_bytes(),
                "bad number '0x' in field version",
            ),
            (
                format!("R01{name}X060065A").into_bytes(),
                "bad follower colour 'X'",
            ),
            (
                format!("R01{name}W-60065A").into_bytes(),
                "bad number '-60' in field minutes",
            ),
            (format!("R01{name}W060065C").into_bytes(), "bad start 'C'"),
            (
                format!("R01{name}W060065AZ").into_bytes(),
                "GAMEREQ too long",
            ),
            (
                format!("R01{name}W060065BW").into_bytes(),
                "GAMEREQ too short: 44 characters, expected 94",
            ),
            (
                format!("R01{name}W060065BW{}", "q".repeat(50)).into_bytes(),
                "bad board: bad piece letter 'q' on square 1",
            ),
            (
                format!("R01{name}W060065BW{}", "w".repeat(50)).into_bytes(),
                "bad board: a white man stands on square 1",
            ),
            (
                format!("R01{name}W060065BX{}", "e".repeat(50)).into_bytes(),
                "bad board: bad side to move 'X'",
            ),
            (vec![b'C'; 200], "longer than 127"),
        ];
        for (bytes, want) in cases {
            let got = Message::parse(&bytes);
            match &got {
                Err(e) => assert!(
                    e.to_string().contains(want),
                    "{:?}: '{e}' does not contain '{want}'",
                    printable(&bytes, 60)
                ),
                Ok(m) => panic!("{:?} parsed as {m:?}", printable(&bytes, 60)),
            }
        }
    }

    #[test]
    fn blanks_around_a_message_are_tolerated() {
        assert_eq!(
            Message::parse(b"\r\nK0 \r\n"),
            Ok(Message::BackAcc(BackAcc::Accepted))
        );
        assert_eq!(
            Message::parse(b"C hello  "),
            Ok(Message::Chat(" hello  ".into()))
        );
    }

    #[test]
    fn moves_are_matched_by_from_to_and_captured_set() {
        let pos = crate::core::fen::parse::<International>("W:W27,28:B22,23,32,33,19").unwrap();
        let legal = movegen::legal_moves(&pos);
        assert!(!legal.is_empty());
        for m in legal.iter() {
            let mut msg = MoveMsg::from_move(m, 1.4);
            assert_eq!(msg.seconds, 1);
            msg.captured.reverse();
            assert_eq!(msg.find(&pos), Some(*m), "{msg}");
        }
        let start = Position::<International>::start();
        let quiet = |from, to| MoveMsg {
            seconds: 0,
            from,
            to,
            captured: vec![],
        };
        assert!(quiet(32, 28).find(&start).is_some());
        assert!(quiet(32, 27).find(&start).is_some());
        assert!(quiet(32, 26).find(&start).is_none());
        assert!(quiet(19, 23).find(&start).is_none());
        let mut wrong = quiet(32, 28);
        wrong.captured = vec![23];
        assert!(wrong.find(&start).is_none());
    }

    #[test]
    fn encoding_keeps_messages_valid() {
        assert_eq!(
            Message::Chat("a\0b\nc".into()).encode(),
            "Ca?b?c",
            "no NUL may leak into the stream"
        );
        assert_eq!(Message::Chat(String::new()).encode(), "C ");
        assert_eq!(Message::Chat("x".repeat(300)).encode().len(), MAX_MESSAGE);
        let acc = Message::GameAcc(GameAcc {
            name: "a very long engine name that does not fit".into(),
            code: AccCode::Refused,
        })
        .encode();
        assert_eq!(acc.len(), 34);
        assert!(acc.ends_with('2'));
    }

    fn arb_color() -> impl Strategy<Value = Color> {
        prop_oneof![Just(Color::White), Just(Color::Black)]
    }

    fn arb_name() -> impl Strategy<Value = String> {
        "[ -~]{0,32}".prop_map(|s| s.trim().to_string())
    }

    fn arb_message() -> impl Strategy<Value = Message> {
        let req = (
            arb_name(),
            arb_color(),
            0u16..1000,
            0u16..1000,
            any::<bool>(),
            any::<u64>(),
        )
            .prop_map(|(name, follower, minutes, moves, setup, seed)| {
                let start = setup.then(|| {
                    // a position with pieces only where they may stand
                    let mut pieces = Vec::new();
                    for i in 0..50u8 {
                        let r = (seed.rotate_left(u32::from(i)) ^ (u64::from(i) * 0x9E37)) % 7;
                        let sq = crate::core::Square::from_index(i);
                        let p = match r {
                            0 if i >= 5 => Some(crate::core::Piece::WhiteMan),
                            1 if i < 45 => Some(crate::core::Piece::BlackMan),
                            2 => Some(crate::core::Piece::WhiteKing),
                            3 => Some(crate::core::Piece::BlackKing),
                            _ => None,
                        };
                        if let Some(p) = p {
                            pieces.push((sq, p));
                        }
                    }
                    let side = if seed & 1 == 0 {
                        Color::White
                    } else {
                        Color::Black
                    };
                    Position::from_pieces(&pieces, side).unwrap()
                });
                Message::GameReq(GameReq {
                    version: 1,
                    name,
                    follower,
                    minutes,
                    moves,
                    start,
                })
            });
        let acc = (
            arb_name(),
            prop_oneof![
                Just(AccCode::Accept),
                Just(AccCode::Version),
                Just(AccCode::Refused),
                Just(AccCode::NoGames)
            ],
        )
            .prop_map(|(name, code)| Message::GameAcc(GameAcc { name, code }));
        let mv = (
            0u16..10000,
            1u8..=50,
            1u8..=50,
            proptest::collection::btree_set(1u8..=50, 0..=20),
        )
            .prop_map(|(seconds, from, to, caps)| {
                Message::Move(MoveMsg {
                    seconds,
                    from,
                    to,
                    captured: caps.into_iter().rev().collect(),
                })
            });
        let end = (
            prop_oneof![
                Just(EndReason::Unknown),
                Just(EndReason::ILose),
                Just(EndReason::Draw),
                Just(EndReason::IWin)
            ],
            any::<bool>(),
        )
            .prop_map(|(reason, stop)| Message::GameEnd(GameEnd { reason, stop }));
        let chat = "[ -~]{1,126}".prop_map(Message::Chat);
        let back = (0u16..1000, arb_color())
            .prop_map(|(move_number, side)| Message::BackReq(BackReq { move_number, side }));
        let backacc = prop_oneof![
            Just(BackAcc::Accepted),
            Just(BackAcc::NotSupported),
            Just(BackAcc::Continue)
        ]
        .prop_map(Message::BackAcc);
        prop_oneof![req, acc, mv, end, chat, back, backacc]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]

        #[test]
        fn every_message_round_trips(m in arb_message()) {
            let text = m.encode();
            prop_assert!(!text.is_empty() && text.len() <= MAX_MESSAGE, "{}", text);
            prop_assert!(text.bytes().all(|b| (0x20..0x7f).contains(&b)));
            prop_assert_eq!(Message::parse(text.as_bytes()), Ok(m));
        }

        #[test]
        fn any_bytes_parse_or_fail_without_panic(bytes in proptest::collection::vec(any::<u8>(), 0..200)) {
            if let Ok(m) = Message::parse(&bytes) {
                // whatever is accepted writes back as a valid message
                let text = m.encode();
                prop_assert!(text.len() <= MAX_MESSAGE);
                prop_assert!(Message::parse(text.as_bytes()).is_ok());
            }
        }

        #[test]
        fn mutated_messages_never_panic(m in arb_message(), at in any::<usize>(), byte in any::<u8>(), cut in any::<bool>()) {
            let mut bytes = m.encode().into_bytes();
            let i = at % bytes.len();
            if cut {
                bytes.truncate(i);
            } else {
                bytes[i] = byte;
            }
            let _ = Message::parse(&bytes);
        }
    }
}
