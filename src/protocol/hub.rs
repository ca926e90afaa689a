//! The Hub protocol (stdin/stdout), as spoken by Scan, the Hub GUI and pydraughts.
//!
//! Standard input is read as bytes on its own thread, so that `ping`, `stop` and `ponder-hit` are
//! answered while a search runs on a worker thread. Every answer is one whole line, flushed at
//! once; logs go to standard error only. Bad input of any kind gets one `error message="..."`
//! line and leaves the state as it was.
//!
//! What counts as bad input: an unknown command; a `go` whose first argument is not a mode
//! (`think`, `ponder`, `analyze`), or with two modes; a `pos` with neither `pos=` nor `start` (or
//! both); a bad value of a known argument. Deliberately accepted, as the protocol says unknown
//! arguments are ignored: any other unknown argument of a known command (`level` keys such as
//! `level depth=3 colour=red`, `pos start frob`, `new-game extra`, `ping x`, unknown `set-param`
//! names); they are logged at debug level and change nothing.

use std::fmt::Write as _;
use std::io::{self, BufRead, Write};
use std::panic::{self, AssertUnwindSafe};
use std::process::ExitCode;
use std::sync::Arc;
use std::thread::{self, JoinHandle};

use crossbeam_channel::{bounded, select, unbounded, Receiver, Sender};

use crate::core::game::MoveLimit;
use crate::core::movegen;
use crate::core::notation::{self, MoveError};
use crate::core::{Game, Position, Variant, VariantKind};
use crate::engine::book::{Book, BookOptions};
use crate::engine::egdb::Egdb;
use crate::engine::evaluator::EvalKind;
use crate::engine::levels::Level;
use crate::engine::pattern::PatternEval;
use crate::engine::time::Limits;
use crate::engine::{
    score_in_men, Engine, Info, Mode, Options, Outcome, SearchHandle, SearchParams,
};
use crate::with_variant;

/// The longest input line accepted, in bytes (without the line end). Longer lines are skipped
/// up to their end and answered with an error.
pub const MAX_LINE: usize = 1 << 20;

/// Stack size of the search thread.
const SEARCH_STACK: usize = 64 << 20;

/// Seconds per move when `go think` or `go ponder` comes without any `level`.
const DEFAULT_MOVE_TIME: f64 = 1.0;

// ---------------------------------------------------------------------------------------------
// Line syntax
// ---------------------------------------------------------------------------------------------

/// One input line: the command and its arguments in order (a bare flag has an empty value).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Line {
    /// The command word.
    pub command: String,
    /// The arguments as (name, value) pairs, in the order given.
    pub args: Vec<(String, String)>,
}

impl Line {
    /// The value of the last argument called `name`.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.args
            .iter()
            .rev()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    /// Whether an argument called `name` is present (as a flag or with a value).
    pub fn has(&self, name: &str) -> bool {
        self.args.iter().any(|(n, _)| n == name)
    }
}

/// Why a line could not be read.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SyntaxError {
    /// The line is empty, blank, or does not start with a command word.
    #[error("missing command")]
    MissingCommand,
    /// The line is longer than [`MAX_LINE`].
    #[error("line too long")]
    TooLong,
    /// The line is not valid UTF-8.
    #[error("invalid UTF-8")]
    Encoding,
    /// The line holds a control character other than a tab.
    #[error("control character in line")]
    Control,
    /// A quoted value has no closing quote.
    #[error("unterminated quote")]
    UnterminatedQuote,
    /// An `=` with no name before it, or a second `=` in a token.
    #[error("stray '='")]
    StrayEquals,
    /// A quote that does not start a value.
    #[error("stray quote")]
    StrayQuote,
    /// Text right after a closing quote.
    #[error("text after closing quote")]
    AfterQuote,
}

fn is_blank(b: u8) -> bool {
    b == b' ' || b == b'\t'
}

fn word_end(b: &[u8], mut i: usize) -> usize {
    while i < b.len() && !is_blank(b[i]) && b[i] != b'=' && b[i] != b'"' {
        i += 1;
    }
    i
}

/// Reads one Hub line (without its line end; a trailing `\r` is ignored).
///
/// Syntax: `<command> <name>=<value> ...`, where a value is a run of characters with no blank,
/// `=` or `"`, or a double-quoted string (no escapes); a bare `<name>` is a flag. Never panics.
pub fn parse_line(bytes: &[u8]) -> Result<Line, SyntaxError> {
    let mut bytes = bytes;
    while let [rest @ .., b'\r' | b'\n'] = bytes {
        bytes = rest;
    }
    if bytes.len() > MAX_LINE {
        return Err(SyntaxError::TooLong);
    }
    let s = std::str::from_utf8(bytes).map_err(|_| SyntaxError::Encoding)?;
    if s.chars().any(|c| c.is_control() && c != '\t') {
        return Err(SyntaxError::Control);
    }
    let b = s.as_bytes();
    let n = b.len();
    let mut i = 0;
    while i < n && is_blank(b[i]) {
        i += 1;
    }
    if i == n || b[i] == b'=' || b[i] == b'"' {
        return Err(SyntaxError::MissingCommand);
    }
    let end = word_end(b, i);
    let command = s[i..end].to_string();
    i = end;
    if i < n && b[i] == b'=' {
        return Err(SyntaxError::StrayEquals);
    }
    if i < n && b[i] == b'"' {
        return Err(SyntaxError::StrayQuote);
    }
    let mut args = Vec::new();
    loop {
        while i < n && is_blank(b[i]) {
            i += 1;
        }
        if i == n {
            break;
        }
        match b[i] {
            b'=' => return Err(SyntaxError::StrayEquals),
            b'"' => return Err(SyntaxError::StrayQuote),
            _ => {}
        }
        let end = word_end(b, i);
        let name = &s[i..end];
        i = end;
        let value = if i < n && b[i] == b'=' {
            i += 1;
            if i < n && b[i] == b'"' {
                let close = b[i + 1..]
                    .iter()
                    .position(|&c| c == b'"')
                    .ok_or(SyntaxError::UnterminatedQuote)?;
                let v = &s[i + 1..i + 1 + close];
                i += close + 2;
                if i < n && !is_blank(b[i]) {
                    return Err(SyntaxError::AfterQuote);
                }
                v
            } else {
                let end = word_end(b, i);
                let v = &s[i..end];
                i = end;
                if i < n && b[i] == b'=' {
                    return Err(SyntaxError::StrayEquals);
                }
                if i < n && b[i] == b'"' {
                    return Err(SyntaxError::StrayQuote);
                }
                v
            }
        } else if i < n && b[i] == b'"' {
            return Err(SyntaxError::StrayQuote);
        } else {
            ""
        };
        args.push((name.to_string(), value.to_string()));
    }
    Ok(Line { command, args })
}

/// Writes a value for an output line: bare when it is a plain word, quoted otherwise (a `"` in
/// the text becomes `'`).
pub fn quote(value: &str) -> String {
    let plain = !value.is_empty() && !value.bytes().any(|b| is_blank(b) || b == b'=' || b == b'"');
    if plain {
        value.to_string()
    } else {
        format!("\"{}\"", value.replace('"', "'"))
    }
}

/// Makes text safe to echo inside a quoted value: printable characters only, no quote, short.
fn clean(text: &str) -> String {
    let mut s: String = text
        .chars()
        .filter(|c| !c.is_control())
        .map(|c| if c == '"' { '\'' } else { c })
        .take(40)
        .collect();
    if text.chars().count() > 40 {
        s.push_str("...");
    }
    s
}

// ---------------------------------------------------------------------------------------------
// Input and output
// ---------------------------------------------------------------------------------------------

/// What the input thread passes on.
#[derive(Debug, PartialEq, Eq)]
enum Input {
    /// A line, without its `\n`.
    Line(Vec<u8>),
    /// A line longer than the limit (its bytes were dropped).
    TooLong,
    /// End of input (or a read error).
    Eof,
}

/// Reads lines of at most `max` bytes and sends them on; stops after sending `Eof`.
fn read_lines<R: BufRead>(reader: R, tx: &Sender<Input>, max: usize) {
    super::lines::read_lines(reader, max, |item| {
        tx.send(match item {
            Ok(line) => Input::Line(line),
            Err(()) => Input::TooLong,
        })
        .is_ok()
    });
    let _ = tx.send(Input::Eof);
}

/// Standard output, one whole flushed line at a time.
#[derive(Clone, Copy, Debug)]
struct Out;

impl Out {
    fn line(&self, text: &str) {
        log::debug!("hub > {text}");
        let mut buf = String::with_capacity(text.len() + 1);
        buf.push_str(text);
        buf.push('\n');
        let mut o = io::stdout().lock();
        if o.write_all(buf.as_bytes()).and_then(|_| o.flush()).is_err() {
            // nobody reads our answers any more
            std::process::exit(0);
        }
    }

    fn error(&self, message: &str) {
        self.line(&format!("error message={}", quote(message)));
    }
}

/// Ends the process at once, never in the middle of an output line.
fn exit_now() -> ! {
    let mut o = io::stdout().lock();
    let _ = o.flush();
    std::process::exit(0)
}

// ---------------------------------------------------------------------------------------------
// Parameters
// ---------------------------------------------------------------------------------------------

/// The engine parameters a client can set.
#[derive(Clone, Debug)]
struct Settings {
    variant: VariantKind,
    threads: usize,
    tt_mib: usize,
    ponder: bool,
    level: Level,
    /// The evaluation (`eval` parameter).
    eval: EvalKind,
    /// The net loaded by the `eval-file` parameter, with its path.
    net: Option<(String, Arc<PatternEval>)>,
    /// The opening book settings (`book`, `book-ply`, `book-margin`).
    book: BookOptions,
    /// The path of the `book-file` parameter (its book is in `book.file`).
    book_path: Option<String>,
    /// Seed of the book's random choices and of the weaker levels.
    seed: u64,
    /// The `egdb-path` parameter.
    egdb_path: Option<String>,
    /// The `egdb-pieces` parameter (`None`: every slice found).
    egdb_pieces: Option<u32>,
    /// The database opened from them for the current variant.
    egdb: Option<Arc<Egdb>>,
    /// The search's settings (`search-*` parameters).
    search: SearchParams,
    /// Platform dama's move limit (`move-limit`; `None`: the default 25 moves).
    move_limit: Option<MoveLimit>,
}

impl Default for Settings {
    fn default() -> Self {
        let o = Options::default();
        Settings {
            variant: VariantKind::International,
            threads: 1,
            tt_mib: o.tt_mib,
            ponder: false,
            level: Level::EXPERT,
            eval: EvalKind::default(),
            net: None,
            book: BookOptions::on(),
            book_path: None,
            seed: Options::fresh_seed(),
            egdb_path: None,
            egdb_pieces: None,
            egdb: None,
            search: SearchParams::DEFAULT,
            move_limit: None,
        }
    }
}

/// What a `set-param` changed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Change {
    Nothing,
    Variant,
    Threads,
    TtSize,
    Level,
    Eval,
    Book,
    Egdb,
    Search,
    MoveLimit,
}

/// The values declared for the `variant` parameter: "normal" (what Hub clients send for
/// international draughts), then every variant's name.
fn variant_values() -> String {
    let mut names = vec!["normal"];
    names.extend(VariantKind::ALL.iter().map(|v| v.name()));
    names.join(" ")
}

fn level_value(l: Level) -> &'static str {
    l.name().unwrap_or(match l.strength() {
        0..=29 => "easy",
        30..=74 => "normal",
        _ => "expert",
    })
}

/// Reads a whole number of decimal digits (no sign).
fn parse_uint(text: &str) -> Option<u64> {
    if text.is_empty() || text.len() > 19 || !text.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    text.parse().ok()
}

/// Reads a finite real number (`291.587`, `2`, `1e-05`).
fn parse_real(text: &str) -> Option<f64> {
    if text.is_empty() || text.len() > 40 || !text.bytes().all(|b| b"0123456789.eE+-".contains(&b))
    {
        return None;
    }
    text.parse::<f64>().ok().filter(|x| x.is_finite())
}

fn parse_bool(text: &str) -> Option<bool> {
    match text.to_ascii_lowercase().as_str() {
        "true" | "1" | "yes" | "on" => Some(true),
        "false" | "0" | "no" | "off" => Some(false),
        _ => None,
    }
}

impl Settings {
    fn id_line() -> String {
        format!(
            "id name=Damast version={} author=\"Damast team\" country=NL",
            quote(env!("CARGO_PKG_VERSION"))
        )
    }

    fn param_lines(&self) -> Vec<String> {
        vec![
            format!(
                "param name=variant value={} type=enum values=\"{}\"",
                self.variant.hub_name(),
                variant_values()
            ),
            format!(
                "param name=threads value={} type=int min=1 max=64",
                self.threads
            ),
            format!(
                "param name=tt-size value={} type=int min=1 max=4096",
                self.tt_mib
            ),
            format!("param name=ponder value={} type=bool", self.ponder),
            format!(
                "param name=level value={} type=enum values=\"easy normal expert\"",
                level_value(self.level)
            ),
            format!(
                "param name=strength value={} type=int min=0 max=100",
                self.level.strength()
            ),
            format!(
                "param name=eval value={} type=enum values=\"learned classic\"",
                self.eval.name()
            ),
            format!(
                "param name=eval-file value={} type=string",
                quote(self.net.as_ref().map_or("builtin", |(p, _)| p.as_str()))
            ),
            format!("param name=book value={} type=bool", self.book.enabled),
            format!(
                "param name=book-ply value={} type=int min=0 max={}",
                self.book.max_ply,
                BookOptions::MAX_PLY
            ),
            format!(
                "param name=book-margin value={} type=int min=0 max=100",
                self.book.margin
            ),
            format!(
                "param name=book-file value={} type=string",
                quote(self.book_path.as_deref().unwrap_or("builtin"))
            ),
            format!(
                "param name=egdb-path value={} type=string",
                quote(self.egdb_path.as_deref().unwrap_or("none"))
            ),
            format!(
                "param name=egdb-pieces value={} type=int min=0 max=9",
                self.egdb.as_ref().map_or(0, |d| d.pieces())
            ),
            format!(
                "param name=move-overhead value={} type=int min=0 max=10000",
                self.search.time.overhead_ms
            ),
            format!(
                "param name=move-limit value={} type=int min=1 max=1000",
                self.move_limit
                    .map_or(MoveLimit::DEFAULT_MOVES, MoveLimit::moves)
            ),
        ]
    }

    /// Applies one parameter; a bad value changes nothing and is described in the error.
    fn set(&mut self, name: &str, value: Option<&str>) -> Result<Change, String> {
        let known = [
            "variant",
            "threads",
            "tt-size",
            "ponder",
            "level",
            "strength",
            "eval",
            "eval-file",
            "book",
            "book-ply",
            "book-margin",
            "book-file",
            "egdb-path",
            "egdb-pieces",
            "move-limit",
            "move-overhead",
        ];
        if let Some(p) = name.strip_prefix("search-") {
            let value = value.ok_or_else(|| format!("missing value for {name}"))?;
            self.search.set(p, value)?;
            return Ok(Change::Search);
        }
        if !known.contains(&name) {
            log::debug!("hub: ignoring unknown parameter '{name}'");
            return Ok(Change::Nothing);
        }
        let bad = || format!("bad value for {name}");
        let value = value.ok_or_else(|| format!("missing value for {name}"))?;
        let int = |lo: u64, hi: u64| parse_uint(value).filter(|n| (lo..=hi).contains(n));
        match name {
            "variant" => {
                let v: VariantKind = value.parse().map_err(|_| bad())?;
                let changed = v != self.variant;
                self.variant = v;
                self.open_egdb();
                Ok(if changed {
                    Change::Variant
                } else {
                    Change::Nothing
                })
            }
            "move-overhead" => {
                self.search.time.overhead_ms = int(0, 10_000).ok_or_else(bad)? as u32;
                Ok(Change::Search)
            }
            "threads" => {
                self.threads = int(1, 64).ok_or_else(bad)? as usize;
                Ok(Change::Threads)
            }
            "tt-size" => {
                let mib = int(1, 4096).ok_or_else(bad)? as usize;
                let changed = mib != self.tt_mib;
                self.tt_mib = mib;
                Ok(if changed {
                    Change::TtSize
                } else {
                    Change::Nothing
                })
            }
            "ponder" => {
                self.ponder = parse_bool(value).ok_or_else(bad)?;
                Ok(Change::Nothing)
            }
            "level" => {
                self.level = match value.to_ascii_lowercase().as_str() {
                    "easy" => Level::EASY,
                    "normal" => Level::NORMAL,
                    "expert" => Level::EXPERT,
                    _ => return Err(bad()),
                };
                Ok(Change::Level)
            }
            "eval" => {
                self.eval = value.parse().map_err(|_| bad())?;
                Ok(Change::Eval)
            }
            "eval-file" => {
                if value.is_empty() || value == "builtin" {
                    self.net = None;
                } else {
                    let net = crate::engine::pattern::file::load(std::path::Path::new(value))?;
                    self.net = Some((value.to_string(), Arc::new(net)));
                }
                Ok(Change::Eval)
            }
            "book" => {
                self.book.enabled = parse_bool(value).ok_or_else(bad)?;
                Ok(Change::Book)
            }
            "egdb-path" => {
                if value.is_empty() || value == "none" {
                    self.egdb_path = None;
                } else if !std::path::Path::new(value).is_dir() {
                    return Err(format!("bad value for egdb-path: no directory {value}"));
                } else {
                    let db = Egdb::open(std::path::Path::new(value), self.variant, None);
                    db.check()
                        .map_err(|e| format!("bad value for egdb-path: {e}"))?;
                    self.egdb_path = Some(value.to_string());
                }
                self.open_egdb();
                Ok(Change::Egdb)
            }
            "egdb-pieces" => {
                self.egdb_pieces = Some(int(0, 9).ok_or_else(bad)? as u32);
                self.open_egdb();
                Ok(Change::Egdb)
            }
            "move-limit" => {
                let n = int(1, 1000).ok_or_else(bad)?;
                self.move_limit = MoveLimit::new(n as u32).filter(|l| !l.is_default());
                Ok(Change::MoveLimit)
            }
            "book-ply" => {
                self.book.max_ply = int(0, BookOptions::MAX_PLY as u64).ok_or_else(bad)? as u32;
                Ok(Change::Book)
            }
            "book-margin" => {
                self.book.margin = int(0, 100).ok_or_else(bad)? as i32;
                Ok(Change::Book)
            }
            "book-file" => {
                if value.is_empty() || value == "builtin" {
                    self.book.file = None;
                    self.book_path = None;
                } else {
                    let book = Book::load_any(std::path::Path::new(value))
                        .map_err(|e| format!("bad value for book-file: {e}"))?;
                    self.book.file = Some(Arc::new(book));
                    self.book_path = Some(value.to_string());
                }
                Ok(Change::Book)
            }
            _ => {
                self.level = Level::from_strength(int(0, 100).ok_or_else(bad)? as u32);
                Ok(Change::Level)
            }
        }
    }

    /// Opens the database of the current variant from `egdb-path` and `egdb-pieces`.
    fn open_egdb(&mut self) {
        self.egdb = self.egdb_path.as_ref().map(|p| {
            Arc::new(Egdb::open(
                std::path::Path::new(p),
                self.variant,
                self.egdb_pieces,
            ))
        });
    }

    fn options(&self) -> Options {
        Options {
            threads: self.threads,
            tt_mib: self.tt_mib,
            level: self.level,
            eval: self.eval,
            net: self.net.as_ref().map(|(_, n)| n.clone()),
            book: self.book.clone(),
            seed: self.seed,
            egdb: self.egdb.clone(),
            search: self.search,
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Positions, moves and limits
// ---------------------------------------------------------------------------------------------

/// Reads a Hub position string and checks that it can arise in a game.
fn parse_position<V: Variant>(text: &str) -> Result<Position<V>, &'static str> {
    if !text.is_ascii() {
        return Err("bad position");
    }
    let pos = Position::<V>::from_hub(text).map_err(|_| "bad position")?;
    if pos.pieces(pos.side().opponent()).is_empty() {
        return Err("bad position");
    }
    Ok(pos)
}

/// The game of a `pos` line: its position (or the start position) and every move of `moves=`.
/// Either `pos=` or the flag `start` must be given (not both); other arguments are ignored.
fn parse_game<V: Variant>(line: &Line) -> Result<Game<V>, &'static str> {
    let start = match (line.get("pos"), line.has("start")) {
        (Some(text), false) => parse_position::<V>(text)?,
        (None, true) => Position::start(),
        (None, false) => return Err("missing position"),
        (Some(_), true) => return Err("both pos and start"),
    };
    let mut game = Game::new(start);
    for text in line.get("moves").unwrap_or("").split_ascii_whitespace() {
        let m = notation::parse_hub(game.position(), text).map_err(|e| match e {
            MoveError::Syntax(_) | MoveError::Square { .. } => "bad move",
            MoveError::Illegal(_) | MoveError::Ambiguous { .. } => "illegal move",
        })?;
        game.play(m).map_err(|_| "illegal move")?;
    }
    Ok(game)
}

/// The mode of a `go` line: its first argument, `think`, `ponder` or `analyze` (`analyse` too).
/// A missing or unknown mode, or a second mode, is an error (nothing is started); other
/// arguments after the mode are ignored, as the protocol says of unknown arguments.
fn go_mode(line: &Line) -> Result<Mode, &'static str> {
    let mode = |name: &str| match name {
        "think" => Some(Mode::Think),
        "ponder" => Some(Mode::Ponder),
        "analyze" | "analyse" => Some(Mode::Analyze),
        _ => None,
    };
    let Some((first, value)) = line.args.first() else {
        return Err("missing go mode");
    };
    let found = mode(first)
        .filter(|_| value.is_empty())
        .ok_or("bad go mode")?;
    if line.args[1..].iter().any(|(n, _)| mode(n).is_some()) {
        return Err("more than one go mode");
    }
    Ok(found)
}

/// Adds the limits of a `level` line to `limits`; on a bad value nothing changes.
fn parse_level(line: &Line, limits: &Limits) -> Result<Limits, String> {
    let mut l = limits.clone();
    let mut time = None;
    for (name, value) in &line.args {
        let bad = || format!("bad value for {name}");
        let uint = |min: u64| parse_uint(value).filter(|&n| n >= min).ok_or_else(bad);
        let real = || parse_real(value).filter(|&x| x >= 0.0).ok_or_else(bad);
        match name.as_str() {
            "depth" => l.depth = Some(uint(1)?.min(u32::MAX as u64) as u32),
            "nodes" => l.nodes = Some(uint(1)?),
            "move-time" => l.move_time = Some(real()?),
            "inc" => l.inc = real()?,
            "moves" => l.moves_to_go = Some(uint(1)?.min(u32::MAX as u64) as u32),
            "time" => time = Some(parse_real(value).ok_or_else(bad)?),
            "infinite" => l.infinite = true,
            _ => log::debug!("hub: ignoring level argument '{name}'"),
        }
    }
    if let Some(t) = time {
        // pydraughts sends the time left minus the increment, which can fall below zero
        if t < 0.0 && t + l.inc < -1e-9 {
            return Err("bad value for time".into());
        }
        l.time = Some(t.max(0.0));
    }
    Ok(l)
}

/// The `info` line of a search iteration; unknown or zero fields are left out.
pub fn info_line<V: Variant>(info: &Info<V>) -> String {
    let mut s = String::from("info");
    if info.depth > 0 {
        let _ = write!(s, " depth={}", info.depth);
    }
    if info.mean_depth.is_finite() && info.mean_depth >= 0.05 {
        let _ = write!(s, " mean-depth={:.1}", info.mean_depth);
    }
    let _ = write!(s, " score={}", score_in_men(info.score));
    if info.nodes > 0 {
        let _ = write!(s, " nodes={}", info.nodes);
    }
    if info.time.is_finite() && info.time >= 0.0005 {
        let _ = write!(s, " time={:.3}", info.time);
    }
    let nps = info.nps() / 1e6;
    if nps.is_finite() && nps >= 0.0005 {
        if nps >= 0.1 {
            let _ = write!(s, " nps={nps:.1}");
        } else {
            let _ = write!(s, " nps={nps:.3}");
        }
    }
    if !info.pv.is_empty() {
        let pv: Vec<String> = info.pv.iter().map(notation::hub).collect();
        let _ = write!(s, " pv={}", quote(&pv.join(" ")));
    }
    s
}

/// The `done` line of a search: `done move=<m> [ponder=<m>]`, or a bare `done` with no move.
pub fn done_line<V: Variant>(outcome: &Outcome<V>) -> String {
    match outcome.best {
        None => "done".to_string(),
        Some(m) => match outcome.ponder {
            Some(p) => format!(
                "done move={} ponder={}",
                notation::hub(&m),
                notation::hub(&p)
            ),
            None => format!("done move={}", notation::hub(&m)),
        },
    }
}

// ---------------------------------------------------------------------------------------------
// The session
// ---------------------------------------------------------------------------------------------

/// State that outlives a change of variant.
struct Hub {
    settings: Settings,
    engine: Option<Engine>,
    input: Receiver<Input>,
    out: Out,
}

impl Hub {
    fn engine(&mut self) -> &mut Engine {
        let options = self.settings.options();
        self.engine.get_or_insert_with(|| Engine::new(options))
    }
}

/// A search running on the worker thread.
struct Running {
    id: u64,
    mode: Mode,
    handle: SearchHandle,
    thread: JoinHandle<Engine>,
}

/// Why a session ended.
enum Exit {
    /// The variant changed: start a session of the new one.
    Switch,
}

/// The protocol for one variant.
struct Session<'a, V: Variant> {
    hub: &'a mut Hub,
    game: Game<V>,
    limits: Limits,
    search: Option<Running>,
    done_tx: Sender<u64>,
    done_rx: Receiver<u64>,
    next_id: u64,
}

impl<'a, V: Variant> Session<'a, V> {
    fn new(hub: &'a mut Hub) -> Self {
        let (done_tx, done_rx) = unbounded();
        let mut game = Game::default();
        game.set_move_limit(hub.settings.move_limit);
        Session {
            hub,
            game,
            limits: Limits::default(),
            search: None,
            done_tx,
            done_rx,
            next_id: 1,
        }
    }

    fn run(&mut self) -> Exit {
        loop {
            let input = match self.search.as_ref().map(|s| s.id) {
                None => self.hub.input.recv().unwrap_or(Input::Eof),
                Some(id) => {
                    let got = select! {
                        recv(self.hub.input) -> m => Some(m.unwrap_or(Input::Eof)),
                        recv(self.done_rx) -> d => {
                            if d == Ok(id) {
                                self.finish_search();
                            }
                            None
                        }
                    };
                    match got {
                        Some(i) => i,
                        None => continue,
                    }
                }
            };
            let line = match input {
                Input::Eof => exit_now(),
                Input::TooLong => Err(SyntaxError::TooLong),
                Input::Line(bytes) => {
                    log::debug!(
                        "hub < {}",
                        String::from_utf8_lossy(&bytes[..bytes.len().min(200)])
                    );
                    parse_line(&bytes)
                }
            };
            if let Some(s) = &self.search {
                if let Ok(l) = &line {
                    match l.command.as_str() {
                        "ping" => {
                            self.hub.out.line("pong");
                            continue;
                        }
                        "stop" => {
                            s.handle.stop();
                            continue;
                        }
                        "ponder-hit" => {
                            if s.mode == Mode::Ponder {
                                s.handle.ponder_hit();
                            }
                            continue;
                        }
                        _ => {}
                    }
                }
                // any other line ends the search, then is handled as usual
                self.end_search();
            }
            match line {
                Err(e) => self.hub.out.error(&e.to_string()),
                Ok(l) => {
                    if let Some(exit) = self.command(&l) {
                        return exit;
                    }
                }
            }
        }
    }

    /// Handles one command while no search runs.
    fn command(&mut self, line: &Line) -> Option<Exit> {
        let out = self.hub.out;
        match line.command.as_str() {
            "hub" => {
                out.line(&Settings::id_line());
                for p in self.hub.settings.param_lines() {
                    out.line(&p);
                }
                out.line("wait");
            }
            "set-param" => return self.set_param(line),
            "init" => {
                self.hub.engine();
                out.line("ready");
            }
            "pos" => match parse_game::<V>(line) {
                Ok(mut game) => {
                    game.set_move_limit(self.hub.settings.move_limit);
                    self.game = game;
                    self.limits = Limits::default();
                }
                Err(e) => out.error(e),
            },
            "level" => match parse_level(line, &self.limits) {
                Ok(l) => self.limits = l,
                Err(e) => out.error(&e),
            },
            "go" => self.go(line),
            "new-game" => self.hub.engine().new_game(),
            "ping" => out.line("pong"),
            // a search that already ended: nothing to do
            "stop" | "ponder-hit" => {}
            "quit" => exit_now(),
            other => {
                log::debug!("hub: unknown command '{}'", clean(other));
                out.error("bad command");
            }
        }
        None
    }

    fn set_param(&mut self, line: &Line) -> Option<Exit> {
        let name = match line.get("name") {
            Some(n) if !n.is_empty() => n,
            _ => {
                self.hub.out.error("missing name");
                return None;
            }
        };
        match self.hub.settings.set(name, line.get("value")) {
            Err(e) => self.hub.out.error(&e),
            Ok(change) => {
                let s = self.hub.settings.clone();
                if let Some(engine) = self.hub.engine.as_mut() {
                    match change {
                        Change::Threads => engine.set_threads(s.threads),
                        Change::TtSize => engine.set_tt_mib(s.tt_mib),
                        Change::Level => engine.set_level(s.level),
                        Change::Eval => {
                            engine.set_eval_kind(s.eval);
                            engine.set_net(s.net.as_ref().map(|(_, n)| n.clone()));
                        }
                        Change::Book => engine.set_book(s.book.clone()),
                        Change::Egdb => engine.set_egdb(s.egdb.clone()),
                        Change::Search => engine.set_search_params(s.search),
                        Change::Variant => engine.new_game(),
                        Change::MoveLimit | Change::Nothing => {}
                    }
                }
                if change == Change::MoveLimit {
                    self.game.set_move_limit(s.move_limit);
                }
                if change == Change::Variant {
                    return Some(Exit::Switch);
                }
            }
        }
        None
    }

    fn go(&mut self, line: &Line) {
        let mode = match go_mode(line) {
            Ok(m) => m,
            Err(e) => {
                // bad input: nothing starts, the position and the limits stay as they were
                self.hub.out.error(e);
                return;
            }
        };
        let mut limits = std::mem::take(&mut self.limits);
        if limits == Limits::default() {
            if mode == Mode::Analyze {
                limits.infinite = true;
            } else {
                limits.move_time = Some(DEFAULT_MOVE_TIME);
            }
        }
        let options = self.hub.settings.options();
        let mut engine = match self.hub.engine.take() {
            Some(e) => e,
            None => Engine::new(options.clone()),
        };
        let id = self.next_id;
        self.next_id += 1;
        let handle = SearchHandle::new();
        let game = self.game.clone();
        let out = self.hub.out;
        let done = self.done_tx.clone();
        let h = handle.clone();
        let spawned = thread::Builder::new()
            .name("hub-search".into())
            .stack_size(SEARCH_STACK)
            .spawn(move || {
                let result = panic::catch_unwind(AssertUnwindSafe(|| {
                    engine.search(&game, &limits, mode, &h, &mut |info: &Info<V>| {
                        out.line(&info_line(info))
                    })
                }));
                let text = match result {
                    // the engine answers a move whenever one is legal, a bare done otherwise
                    Ok(outcome) => done_line(&outcome),
                    Err(_) => {
                        log::error!("hub: the search failed; answering the first legal move");
                        engine = Engine::new(options);
                        fallback_done(&game)
                    }
                };
                h.stop();
                out.line(&text);
                let _ = done.send(id);
                engine
            });
        match spawned {
            Ok(thread) => {
                self.search = Some(Running {
                    id,
                    mode,
                    handle,
                    thread,
                })
            }
            Err(e) => {
                log::error!("hub: cannot start the search thread: {e}");
                self.hub.engine = Some(Engine::new(self.hub.settings.options()));
                self.hub.out.error("cannot start search");
                self.hub.out.line(&fallback_done(&self.game));
            }
        }
    }

    /// Takes back the engine of a search that has printed its `done`.
    fn finish_search(&mut self) {
        if let Some(s) = self.search.take() {
            match s.thread.join() {
                Ok(engine) => self.hub.engine = Some(engine),
                Err(_) => self.hub.engine = Some(Engine::new(self.hub.settings.options())),
            }
        }
    }

    /// Stops the running search, if any, and waits for its `done`.
    fn end_search(&mut self) {
        if let Some(s) = &self.search {
            s.handle.stop();
        }
        self.finish_search();
    }
}

/// `done` with the first legal move, for a search that could not run.
fn fallback_done<V: Variant>(game: &Game<V>) -> String {
    match movegen::legal_moves(game.position()).iter().next() {
        Some(m) => format!("done move={}", notation::hub(m)),
        None => "done".to_string(),
    }
}

/// Runs the Hub protocol on standard input and output until `quit` or end of input.
pub fn run() -> ExitCode {
    let (tx, rx) = bounded(1024);
    let reader = thread::Builder::new()
        .name("hub-stdin".into())
        .spawn(move || read_lines(io::stdin().lock(), &tx, MAX_LINE));
    if let Err(e) = reader {
        eprintln!("damast: cannot start the input thread: {e}");
        return ExitCode::from(2);
    }
    let mut hub = Hub {
        settings: Settings::default(),
        engine: None,
        input: rx,
        out: Out,
    };
    loop {
        let kind = hub.settings.variant;
        let Exit::Switch = with_variant!(kind, V => Session::<V>::new(&mut hub).run());
        log::debug!("hub: variant is now {}", hub.settings.variant);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::International;

    fn args(l: &Line) -> Vec<(&str, &str)> {
        l.args
            .iter()
            .map(|(a, b)| (a.as_str(), b.as_str()))
            .collect()
    }

    #[test]
    fn lines_parse() {
        let l = parse_line(b"pos pos=Wbbe moves=\"32-28 19-23\" start\r").unwrap();
        assert_eq!(l.command, "pos");
        assert_eq!(
            args(&l),
            [("pos", "Wbbe"), ("moves", "32-28 19-23"), ("start", "")]
        );
        let l = parse_line(b"  \tgo   think  ").unwrap();
        assert_eq!((l.command.as_str(), args(&l)), ("go", vec![("think", "")]));
        let l = parse_line(b"set-param name=x value=\"\"").unwrap();
        assert_eq!(l.get("value"), Some(""));
        let l = parse_line("id author=\"Jan Éé\" a=b".as_bytes()).unwrap();
        assert_eq!(l.get("author"), Some("Jan Éé"));
    }

    #[test]
    fn bad_lines_are_errors() {
        use SyntaxError::*;
        let cases: [(&[u8], SyntaxError); 12] = [
            (b"", MissingCommand),
            (b"   ", MissingCommand),
            (b"=x", MissingCommand),
            (b"\"hub\"", MissingCommand),
            (b"hub=1", StrayEquals),
            (b"a b=\"c", UnterminatedQuote),
            (b"a =c", StrayEquals),
            (b"a b=c=d", StrayEquals),
            (b"a b\"c\"", StrayQuote),
            (b"a b=\"c\"d", AfterQuote),
            (b"a \xff\xfe", Encoding),
            (b"a\x00b", Control),
        ];
        for (text, e) in cases {
            assert_eq!(
                parse_line(text),
                Err(e),
                "{:?}",
                String::from_utf8_lossy(text)
            );
        }
        assert_eq!(parse_line(&vec![b'a'; MAX_LINE + 1]), Err(TooLong));
    }

    #[test]
    fn quoting() {
        assert_eq!(quote("32-28"), "32-28");
        assert_eq!(quote("32-28 17-22"), "\"32-28 17-22\"");
        assert_eq!(quote(""), "\"\"");
        assert_eq!(quote("a=b"), "\"a=b\"");
    }

    #[test]
    fn reader_splits_and_caps_lines() {
        let (tx, rx) = unbounded();
        let mut data = b"ping\r\n\nabc".to_vec();
        data.splice(6..6, vec![b'x'; 100].into_iter().chain(*b"\n"));
        read_lines(io::Cursor::new(data), &tx, 50);
        let got: Vec<Input> = rx.try_iter().collect();
        assert_eq!(
            got,
            vec![
                Input::Line(b"ping\r".to_vec()),
                Input::TooLong,
                Input::Line(Vec::new()),
                Input::Line(b"abc".to_vec()),
                Input::Eof
            ]
        );
    }

    #[test]
    fn levels_add_up_and_bad_values_change_nothing() {
        let l = parse_level(&parse_line(b"level depth=5").unwrap(), &Limits::default()).unwrap();
        let l = parse_level(
            &parse_line(b"level time=291.587 inc=2 moves=40").unwrap(),
            &l,
        )
        .unwrap();
        assert_eq!(l.depth, Some(5));
        assert_eq!(l.time, Some(291.587));
        assert_eq!(l.inc, 2.0);
        assert_eq!(l.moves_to_go, Some(40));
        let l2 = parse_level(
            &parse_line(b"level time=-0.05 inc=0.1").unwrap(),
            &Limits::default(),
        )
        .unwrap();
        assert_eq!(l2.time, Some(0.0));
        for bad in [
            "depth=-1",
            "depth=x",
            "depth=0",
            "nodes=1.5",
            "move-time=-1",
            "time=-3",
            "time=nan",
            "time=inf",
            "inc=abc",
        ] {
            let line = parse_line(format!("level {bad}").as_bytes()).unwrap();
            assert!(parse_level(&line, &l).is_err(), "{bad}");
        }
    }

    #[test]
    fn positions_are_checked() {
        use crate::core::International as I;
        let start = Position::<I>::start().to_hub();
        assert!(parse_position::<I>(&start).is_ok());
        let mut s: Vec<u8> = start.clone().into_bytes();
        s[1] = b'w'; // a white man on square 1
        assert!(parse_position::<I>(std::str::from_utf8(&s).unwrap()).is_err());
        let only_white = format!("W{}{}", "e".repeat(30), "w".repeat(20));
        assert!(parse_position::<I>(&only_white).is_err());
        let black_to_move_lost = format!("B{}{}", "e".repeat(30), "w".repeat(20));
        assert!(parse_position::<I>(&black_to_move_lost).is_ok());
        assert!(parse_position::<I>(&start[..50]).is_err());
    }

    #[test]
    fn games_are_all_or_nothing() {
        let line = parse_line(b"pos start moves=\"32-28 19-23 28x19\"").unwrap();
        let g = parse_game::<International>(&line).unwrap();
        assert_eq!(g.moves().len(), 3);
        let bad = parse_line(b"pos start moves=\"32-28 19-23 28-22\"").unwrap();
        assert_eq!(
            parse_game::<International>(&bad).err(),
            Some("illegal move")
        );
        let bad = parse_line(b"pos start moves=\"32-28 19-2x\"").unwrap();
        assert_eq!(parse_game::<International>(&bad).err(), Some("bad move"));
        let bad = parse_line(b"pos start moves=\"32-28 99-23\"").unwrap();
        assert_eq!(parse_game::<International>(&bad).err(), Some("bad move"));
    }

    #[test]
    fn settings_reject_bad_values() {
        let mut s = Settings::default();
        assert_eq!(s.set("threads", Some("4")), Ok(Change::Threads));
        assert_eq!(s.threads, 4);
        for (n, v) in [
            ("threads", "0"),
            ("threads", "65"),
            ("threads", "-1"),
            ("tt-size", "x"),
            ("ponder", "maybe"),
            ("level", "hard"),
            ("strength", "101"),
            ("variant", "frisian"),
            ("eval", "fancy"),
            ("eval-file", "/no/such/net.pat"),
            ("book", "whatever"),
            ("book-ply", "61"),
            ("book-margin", "-1"),
            ("book-file", "/no/such/book"),
            ("egdb-path", "/no/such/dir"),
            ("egdb-pieces", "10"),
            ("search-iir-depth", "-1"),
            ("search-history-malus", "maybe"),
            ("search-nonsense", "1"),
            ("move-limit", "0"),
            ("move-limit", "1001"),
            ("move-limit", "x"),
        ] {
            assert!(s.set(n, Some(v)).is_err(), "{n}={v}");
        }
        assert_eq!(s.search, SearchParams::DEFAULT);
        assert_eq!(s.move_limit, None);
        assert_eq!(s.set("move-limit", Some("30")), Ok(Change::MoveLimit));
        assert_eq!(s.move_limit, MoveLimit::new(30));
        assert_eq!(s.set("move-limit", Some("25")), Ok(Change::MoveLimit));
        assert_eq!(s.move_limit, None);
        assert_eq!(s.set("search-lmr-depth", Some("5")), Ok(Change::Search));
        assert_eq!(s.options().search.lmr_depth, 5);
        assert!(s.set("threads", None).is_err());
        assert_eq!(s.threads, 4);
        assert!(s.net.is_none());
        assert_eq!(s.set("eval", Some("classic")), Ok(Change::Eval));
        assert_eq!(s.eval, EvalKind::Classic);
        assert_eq!(s.options().eval, EvalKind::Classic);
        assert_eq!(s.set("bb-size", Some("whatever")), Ok(Change::Nothing));
        assert_eq!(s.set("book-margin", Some("10")), Ok(Change::Book));
        assert_eq!(s.options().book.margin, 10);
        assert!(s.options().book.enabled);
        for p in s.param_lines() {
            let l = parse_line(p.as_bytes()).unwrap();
            assert!(l.args.iter().all(|(_, v)| !v.is_empty()), "{p}");
        }
    }
}
