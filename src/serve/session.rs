//! One game on the browser board: the game and its redo line, who the engine plays and how, the
//! latest analysis and game review, and the JSON state the page draws from.
//!
//! A session is generic over the variant; the store holds it as a [`Board`] trait object. Engine
//! work leaves a session as a [`Job`] (a closure run by the engine pool); its result comes back
//! through [`Entry`] and is applied only if the game has not changed meanwhile.

use std::any::Any;
use std::sync::Arc;

use serde::Serialize;

use crate::core::game::{Game, GameResult};
use crate::core::moves::Move;
use crate::core::notation;
use crate::core::pdn;
use crate::core::position::{Piece, Position};
use crate::core::square::Square;
use crate::core::variant::{geometry, Color, Variant, VariantKind};
use crate::core::{fen, movegen};
use crate::engine::book::BookOptions;
use crate::engine::levels::Level;
use crate::engine::time::Limits;
use crate::engine::{Engine, Info, Mode, SearchHandle};
use crate::tools::analyze::{self, MoveReport};

use super::http::ApiError;
use super::store::{Entry, Event, Job};

/// Seconds per engine move, and the bounds a request may ask for.
pub const MOVETIME: (f64, f64, f64) = (1.0, 0.05, 30.0);
/// Seconds of a position analysis, and its bounds.
pub const ANALYSE_TIME: (f64, f64, f64) = (3.0, 0.05, 60.0);
/// Seconds per position of a game review, and its bounds.
pub const REVIEW_TIME: (f64, f64, f64) = (0.3, 0.05, 10.0);

/// What a game's engine is busy with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Task {
    /// Choosing a move to play.
    Think,
    /// Analysing the current position.
    Analyse,
    /// Scoring every move of the game.
    Review,
}

/// The engine's current job for a session.
struct Busy {
    task: Task,
    id: u64,
    handle: SearchHandle,
}

/// The settings a request may change.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Settings {
    /// The side the engine plays, if any.
    pub engine: Option<Color>,
    /// Its level.
    pub level: Level,
    /// Its seconds per move.
    pub movetime: f64,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            engine: None,
            level: Level::NORMAL,
            movetime: MOVETIME.0,
        }
    }
}

/// A move as a request gives it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MoveInput {
    /// In notation (`32-28`, `28x19`, a full path).
    Text(String),
    /// The squares the piece stands on, start to end, each landing included.
    Path(Vec<u32>),
}

/// A game on the board, whatever its variant.
pub trait Board: Send {
    /// The variant.
    fn kind(&self) -> VariantKind;
    /// The state the page draws.
    fn state(&self, id: &str) -> State;
    /// The game review, if one was asked for.
    fn review_state(&self) -> Option<ReviewJson>;
    /// Plays a human move; returns the engine's job when it is then the engine's turn.
    fn play(&mut self, input: &MoveInput, entry: &Arc<Entry>) -> Result<Option<Job>, ApiError>;
    /// Takes back one ply, or against the engine back to the human's previous turn.
    fn undo(&mut self) -> Result<(), ApiError>;
    /// Replays what undo took back (one ply, or up to the human's next turn).
    fn redo(&mut self, entry: &Arc<Entry>) -> Result<Option<Job>, ApiError>;
    /// Changes the settings; returns the engine's job when it is then the engine's turn.
    fn configure(&mut self, settings: Settings, entry: &Arc<Entry>) -> Option<Job>;
    /// The settings.
    fn settings(&self) -> Settings;
    /// The engine plays a move for the side to move.
    fn go(&mut self, entry: &Arc<Entry>) -> Result<Job, ApiError>;
    /// Stops the engine: a thinking engine plays the best move it has.
    fn stop(&mut self);
    /// Stops the engine and forgets its job: whatever it finds is ignored.
    fn abandon(&mut self);
    /// Analyses the current position for `seconds`.
    fn analyse(&mut self, seconds: f64, entry: &Arc<Entry>) -> Result<Job, ApiError>;
    /// Scores every move of the game (the redo line included), `seconds` per position.
    fn review(&mut self, seconds: f64, entry: &Arc<Entry>) -> Result<Job, ApiError>;
    /// The game as PDN, with the review's comments when there is one.
    fn pdn(&self) -> String;
    /// For the engine pool's results, which know the concrete type.
    fn as_any_mut(&mut self) -> &mut dyn Any;
}

/// The concrete game of variant `V`.
pub struct Session<V: Variant> {
    game: Game<V>,
    /// Moves undone, the next to replay last.
    redo: Vec<Move<V>>,
    settings: Settings,
    busy: Option<Busy>,
    next_job: u64,
    /// The latest search report on the current position.
    analysis: Option<InfoJson>,
    review: Option<ReviewJson>,
}

/// A new session for a game of the variant of `kind`.
pub fn new_board(
    kind: VariantKind,
    fen: Option<&str>,
    pdn: Option<&str>,
    settings: Settings,
) -> Result<Box<dyn Board>, ApiError> {
    crate::with_variant!(kind, V => {
        let game = start_game::<V>(fen, pdn)?;
        Ok(Box::new(Session::<V>::new(game, settings)) as Box<dyn Board>)
    })
}

fn start_game<V: Variant>(fen: Option<&str>, pdn: Option<&str>) -> Result<Game<V>, ApiError> {
    match (fen, pdn) {
        (Some(_), Some(_)) => Err(ApiError::bad("give either a fen or a pdn, not both")),
        (Some(f), None) => Game::from_fen(f).map_err(|e| ApiError::bad(format!("bad FEN: {e}"))),
        (None, Some(text)) => {
            let games = pdn::parse(text).map_err(|e| ApiError::bad(format!("bad PDN: {e}")))?;
            let first = games
                .first()
                .ok_or_else(|| ApiError::bad("the PDN holds no game"))?;
            first
                .to_game::<V>()
                .map_err(|e| ApiError::bad(format!("bad PDN: {e}")))
        }
        (None, None) => Ok(Game::default()),
    }
}

impl<V: Variant> Session<V> {
    /// A session on `game`.
    pub fn new(game: Game<V>, settings: Settings) -> Self {
        Session {
            game,
            redo: Vec::new(),
            settings,
            busy: None,
            next_job: 0,
            analysis: None,
            review: None,
        }
    }

    fn engine_to_move(&self) -> bool {
        self.settings.engine == Some(self.game.position().side())
            && self.game.result() == GameResult::Ongoing
    }

    fn thinking(&self) -> bool {
        self.busy.as_ref().is_some_and(|b| b.task == Task::Think)
    }

    /// Stops and forgets whatever the engine does for this session (its result will be ignored).
    fn cancel(&mut self) {
        if let Some(b) = self.busy.take() {
            b.handle.stop();
            if b.task == Task::Review {
                // what was scored stays; the rest will not come
                if let Some(r) = self.review.as_mut() {
                    r.running = false;
                }
            }
        }
    }

    /// The game changed: the old analysis no longer applies, and a running search is cancelled.
    fn changed(&mut self) {
        self.analysis = None;
        if self.busy.as_ref().is_some_and(|b| b.task != Task::Review) {
            self.cancel();
        }
    }

    fn begin(&mut self, task: Task) -> (u64, SearchHandle) {
        self.cancel();
        self.next_job += 1;
        let handle = SearchHandle::new();
        self.busy = Some(Busy {
            task,
            id: self.next_job,
            handle: handle.clone(),
        });
        (self.next_job, handle)
    }

    fn is_current(&self, job: u64) -> bool {
        self.busy.as_ref().is_some_and(|b| b.id == job)
    }

    fn finish(&mut self, job: u64) {
        if self.is_current(job) {
            self.busy = None;
        }
    }

    fn ongoing(&self) -> Result<(), ApiError> {
        match self.game.result() {
            GameResult::Ongoing => Ok(()),
            _ => Err(ApiError::conflict("the game is over")),
        }
    }

    fn find_move(&self, input: &MoveInput) -> Result<Move<V>, ApiError> {
        let pos = self.game.position();
        match input {
            MoveInput::Text(t) => notation::parse(pos, t).map_err(|e| ApiError::bad(e.to_string())),
            MoveInput::Path(path) => {
                let squares: Vec<Square> = path
                    .iter()
                    .map(|&n| {
                        Square::from_number(n, V::SQUARES)
                            .ok_or_else(|| ApiError::bad(format!("no square {n} on this board")))
                    })
                    .collect::<Result<_, _>>()?;
                let mut found: Vec<Move<V>> = Vec::new();
                let mut add = |m: Move<V>| {
                    if !found.contains(&m) {
                        found.push(m);
                    }
                };
                let captures = notation::capture_paths(pos);
                if captures.is_empty() {
                    for m in movegen::legal_moves(pos).iter() {
                        if squares == [m.from(), m.to()] {
                            add(*m);
                        }
                    }
                } else {
                    for (m, p) in captures {
                        if p == squares {
                            add(m);
                        }
                    }
                }
                let text = path
                    .iter()
                    .map(|n| n.to_string())
                    .collect::<Vec<_>>()
                    .join("-");
                match found.len() {
                    0 => Err(ApiError::bad(format!("illegal move {text}"))),
                    1 => Ok(found[0]),
                    _ => Err(ApiError::bad(format!(
                        "ambiguous move {text}: it could be {}",
                        found
                            .iter()
                            .map(|m| notation::pdn(pos, m) + " taking " + &captured_text(m))
                            .collect::<Vec<_>>()
                            .join(" or ")
                    ))),
                }
            }
        }
    }

    fn play_move(&mut self, m: Move<V>) {
        self.game
            .play(m)
            .expect("a move found among the legal moves is legal");
        self.changed();
    }

    /// A job that lets the engine play for the side to move.
    fn think_job(&mut self, entry: &Arc<Entry>) -> Job {
        let (job, handle) = self.begin(Task::Think);
        let game = self.game.clone();
        let Settings {
            level, movetime, ..
        } = self.settings;
        let entry = Arc::clone(entry);
        Box::new(move |engine: &mut Engine| {
            engine.set_level(level);
            engine.set_book(if level.strength() >= Level::NORMAL.strength() {
                BookOptions::on()
            } else {
                BookOptions::default()
            });
            let limits = Limits {
                move_time: Some(movetime),
                ..Limits::default()
            };
            let pos = *game.position();
            let out = engine.search(&game, &limits, Mode::Think, &handle, &mut |info| {
                entry.publish(Event::Info(info_json(&pos, info, Task::Think)));
            });
            entry.with_session::<V>(|s| {
                if !s.is_current(job) {
                    return;
                }
                s.busy = None;
                if let Some(m) = out.best {
                    if s.game.play(m).is_ok() {
                        s.redo.clear();
                        s.review = None;
                        s.analysis = None;
                    }
                }
            });
        })
    }

    fn after_change(&mut self, entry: &Arc<Entry>) -> Option<Job> {
        self.engine_to_move().then(|| self.think_job(entry))
    }
}

fn captured_text<V: Variant>(m: &Move<V>) -> String {
    m.captured_squares()
        .map(|s| s.to_string())
        .collect::<Vec<_>>()
        .join(",")
}

impl<V: Variant> Board for Session<V> {
    fn kind(&self) -> VariantKind {
        V::KIND
    }

    fn state(&self, id: &str) -> State {
        state_of(self, id)
    }

    fn review_state(&self) -> Option<ReviewJson> {
        self.review.clone()
    }

    fn play(&mut self, input: &MoveInput, entry: &Arc<Entry>) -> Result<Option<Job>, ApiError> {
        if self.thinking() {
            return Err(ApiError::conflict(
                "the engine is thinking: wait or stop it",
            ));
        }
        self.ongoing()?;
        let m = self.find_move(input)?;
        // a move along the redo line keeps the rest of it (and the review)
        if self.redo.last() == Some(&m) {
            self.redo.pop();
        } else {
            self.redo.clear();
            self.review = None;
            if self.busy.as_ref().is_some_and(|b| b.task == Task::Review) {
                self.cancel();
            }
        }
        self.play_move(m);
        Ok(self.after_change(entry))
    }

    fn undo(&mut self) -> Result<(), ApiError> {
        if self.game.moves().is_empty() {
            return Err(ApiError::conflict("there is no move to take back"));
        }
        if self.thinking() {
            self.cancel();
        }
        while let Some(m) = self.game.undo() {
            self.redo.push(m);
            // against the engine, go back to a position where the human is to move
            let engine_side = self.settings.engine;
            if engine_side != Some(self.game.position().side()) {
                break;
            }
        }
        self.changed();
        Ok(())
    }

    fn redo(&mut self, entry: &Arc<Entry>) -> Result<Option<Job>, ApiError> {
        if self.redo.is_empty() {
            return Err(ApiError::conflict("there is no move to replay"));
        }
        if self.thinking() {
            return Err(ApiError::conflict(
                "the engine is thinking: wait or stop it",
            ));
        }
        while let Some(m) = self.redo.pop() {
            self.game.play(m).expect("the redo line was legal");
            if self.settings.engine != Some(self.game.position().side()) {
                break;
            }
        }
        self.changed();
        Ok(self.after_change(entry))
    }

    fn configure(&mut self, settings: Settings, entry: &Arc<Entry>) -> Option<Job> {
        self.settings = settings;
        if self.thinking() {
            // the engine may have changed sides: think again with the new settings
            self.cancel();
        }
        self.after_change(entry)
    }

    fn settings(&self) -> Settings {
        self.settings
    }

    fn go(&mut self, entry: &Arc<Entry>) -> Result<Job, ApiError> {
        self.ongoing()?;
        Ok(self.think_job(entry))
    }

    fn stop(&mut self) {
        if let Some(b) = &self.busy {
            b.handle.stop();
        }
    }

    fn abandon(&mut self) {
        self.cancel();
    }

    fn analyse(&mut self, seconds: f64, entry: &Arc<Entry>) -> Result<Job, ApiError> {
        if self.thinking() {
            return Err(ApiError::conflict(
                "the engine is thinking: wait or stop it",
            ));
        }
        self.ongoing()?;
        let (job, handle) = self.begin(Task::Analyse);
        let game = self.game.clone();
        let entry = Arc::clone(entry);
        Ok(Box::new(move |engine: &mut Engine| {
            engine.set_book(BookOptions::default());
            let limits = Limits {
                move_time: Some(seconds),
                ..Limits::default()
            };
            let pos = *game.position();
            engine.search(&game, &limits, Mode::Analyze, &handle, &mut |info| {
                let json = info_json(&pos, info, Task::Analyse);
                entry.with_session::<V>(|s| {
                    if s.is_current(job) {
                        s.analysis = Some(json.clone());
                    }
                });
                entry.publish(Event::Info(json));
            });
            entry.with_session::<V>(|s| s.finish(job));
        }))
    }

    fn review(&mut self, seconds: f64, entry: &Arc<Entry>) -> Result<Job, ApiError> {
        if self.thinking() {
            return Err(ApiError::conflict(
                "the engine is thinking: wait or stop it",
            ));
        }
        let line = self.full_line();
        if line.moves().is_empty() {
            return Err(ApiError::conflict("there is no move to analyse"));
        }
        let (job, handle) = self.begin(Task::Review);
        self.review = Some(ReviewJson {
            done: 0,
            total: line.moves().len(),
            running: true,
            entries: Vec::new(),
        });
        let entry = Arc::clone(entry);
        Ok(Box::new(move |engine: &mut Engine| {
            engine.set_book(BookOptions::on());
            let limits = Limits {
                move_time: Some(seconds),
                ..Limits::default()
            };
            let mut ply = 0;
            analyze::game_with(engine, &line, &limits, &handle, &mut |r| {
                let mover = line.positions()[ply].side();
                let e = ReviewEntry {
                    ply,
                    white: if mover == Color::White {
                        r.played_score
                    } else {
                        -r.played_score
                    },
                    report: r.clone(),
                };
                ply += 1;
                entry.with_session::<V>(|s| {
                    if let (true, Some(rv)) = (s.is_current(job), s.review.as_mut()) {
                        rv.entries.push(e);
                        rv.done = rv.entries.len();
                    }
                });
                entry.publish_review();
            });
            entry.with_session::<V>(|s| {
                if s.is_current(job) {
                    if let Some(rv) = s.review.as_mut() {
                        rv.running = false;
                    }
                }
                s.finish(job);
            });
            entry.publish_review();
        }))
    }

    fn pdn(&self) -> String {
        let line = &self.game;
        let tags = vec![
            ("Event".to_string(), "Damast browser game".to_string()),
            ("White".to_string(), self.player_name(Color::White)),
            ("Black".to_string(), self.player_name(Color::Black)),
            (
                "Result".to_string(),
                pdn::result_token(line.result()).to_string(),
            ),
        ];
        let comments: Vec<Option<String>> = match &self.review {
            Some(rv) => (0..line.moves().len())
                .map(|i| rv.entries.get(i).map(|e| analyze::comment(&e.report)))
                .collect(),
            None => Vec::new(),
        };
        pdn::write(line, &tags, &comments, pdn::result_token(line.result()))
    }

    fn as_any_mut(&mut self) -> &mut dyn Any {
        self
    }
}

impl<V: Variant> Session<V> {
    /// The game with the redo line replayed: every move the page can navigate to.
    fn full_line(&self) -> Game<V> {
        let mut g = self.game.clone();
        for m in self.redo.iter().rev() {
            g.play(*m).expect("the redo line was legal");
        }
        g
    }

    fn player_name(&self, c: Color) -> String {
        if self.settings.engine == Some(c) {
            format!("Damast ({})", self.settings.level)
        } else {
            "Human".to_string()
        }
    }
}

// ---------------------------------------------------------------------------------------------
// The JSON the page reads.

/// The state of a game, as the API answers it (documented in the README).
#[derive(Clone, Debug, Serialize)]
pub struct State {
    /// The game's id.
    pub id: String,
    /// The variant's name.
    pub variant: &'static str,
    /// Rows (and columns) of the board.
    pub size: u32,
    /// The current position.
    pub fen: String,
    /// Every playable square.
    pub squares: Vec<SquareJson>,
    /// `white` or `black`.
    pub side: &'static str,
    /// The legal moves.
    pub legal: Vec<MoveJson>,
    /// The pieces that can capture (capturing is compulsory).
    pub must_capture: Vec<u32>,
    /// The moves played.
    pub moves: Vec<PlayedJson>,
    /// How many moves were played.
    pub ply: usize,
    /// How many undone moves can be replayed.
    pub redo: usize,
    /// The last move played.
    pub last_move: Option<MoveJson>,
    /// The result by the rules.
    pub result: Option<ResultJson>,
    /// The draw rule whose count is running.
    pub draw_rule: Option<DrawRuleJson>,
    /// The engine's side: `white`, `black` or `none`.
    pub engine: &'static str,
    /// The engine's level.
    pub level: String,
    /// The engine's seconds per move.
    pub movetime: f64,
    /// Whether the engine is choosing a move.
    pub thinking: bool,
    /// Whether the engine is analysing the position.
    pub analysing: bool,
    /// The latest search report on this position.
    pub analysis: Option<InfoJson>,
    /// The game review.
    pub review: Option<ReviewJson>,
}

/// A playable square.
#[derive(Clone, Debug, Serialize)]
pub struct SquareJson {
    /// Its number.
    pub n: u32,
    /// Its row seen from White, 0 at the top.
    pub row: u32,
    /// Its column seen from White, 0 at the left.
    pub col: u32,
    /// `w`, `W`, `b`, `B` or null.
    pub piece: Option<&'static str>,
}

/// A move.
#[derive(Clone, Debug, Serialize)]
pub struct MoveJson {
    /// In PDN notation.
    pub text: String,
    /// The squares from start to end, each landing included.
    pub path: Vec<u32>,
    /// The squares it takes.
    pub captured: Vec<u32>,
}

/// A move of the game record.
#[derive(Clone, Debug, Serialize)]
pub struct PlayedJson {
    /// The move.
    #[serde(flatten)]
    pub mv: MoveJson,
    /// Its move number as PDN writes it (`1.` or `1...`).
    pub number: String,
    /// Who played it.
    pub side: &'static str,
}

/// The result of a finished game.
#[derive(Clone, Debug, Serialize)]
pub struct ResultJson {
    /// `2-0`, `0-2` or `1-1`.
    pub score: &'static str,
    /// The winner, null for a draw.
    pub winner: Option<&'static str>,
    /// Why, in words.
    pub reason: String,
}

/// A draw rule's running count.
#[derive(Clone, Debug, Serialize)]
pub struct DrawRuleJson {
    /// The rule's name.
    pub rule: &'static str,
    /// Plies left before it draws.
    pub plies_left: u32,
    /// Moves (of each side) left.
    pub moves_left: u32,
}

/// A search report.
#[derive(Clone, Debug, Serialize)]
pub struct InfoJson {
    /// Iteration depth.
    pub depth: u32,
    /// Hundredths of a man, for the side to move.
    pub score: i32,
    /// Hundredths of a man, from White's side.
    pub white: i32,
    /// Nodes searched.
    pub nodes: u64,
    /// Seconds.
    pub time: f64,
    /// The principal variation in PDN notation.
    pub pv: Vec<String>,
    /// `think` or `analyse`.
    pub kind: &'static str,
    /// The best move.
    pub best: Option<String>,
}

/// The review of a game.
#[derive(Clone, Debug, Serialize)]
pub struct ReviewJson {
    /// Moves scored.
    pub done: usize,
    /// Moves to score.
    pub total: usize,
    /// Whether it is still running.
    pub running: bool,
    /// One per scored move.
    pub entries: Vec<ReviewEntry>,
}

/// The verdict on one move of a review: the analysis's report (played and best move, their
/// scores for the mover, blunder, book) with its ply and the score from White's side.
#[derive(Clone, Debug, Serialize)]
pub struct ReviewEntry {
    /// The ply (0 = the first move).
    pub ply: usize,
    /// The score after the played move, from White's side.
    pub white: i32,
    /// The verdict.
    #[serde(flatten)]
    pub report: MoveReport,
}

fn numbers(squares: &[Square]) -> Vec<u32> {
    squares.iter().map(|s| s.number()).collect()
}

fn move_json<V: Variant>(pos: &Position<V>, m: &Move<V>) -> MoveJson {
    MoveJson {
        text: notation::pdn(pos, m),
        path: numbers(&notation::full_path(pos, m)),
        captured: m.captured_squares().map(|s| s.number()).collect(),
    }
}

/// Where square `sq` is drawn, seen from White: (row, column).
pub fn place<V: Variant>(sq: Square) -> (u32, u32) {
    let i = geometry::layout_index(V::HALF, sq.index() as u32, V::MIRRORED);
    let (row, col) = geometry::row_col(V::HALF, i);
    let col = if V::MIRRORED {
        2 * V::HALF as i32 - 1 - col
    } else {
        col
    };
    (row as u32, col as u32)
}

fn info_json<V: Variant>(pos: &Position<V>, info: &Info<V>, task: Task) -> InfoJson {
    let white = if pos.side() == Color::White {
        info.score
    } else {
        -info.score
    };
    let pv = analyze::line_moves(pos, &info.pv);
    InfoJson {
        depth: info.depth,
        score: info.score,
        white,
        nodes: info.nodes,
        time: info.time,
        best: pv.first().cloned(),
        pv,
        kind: match task {
            Task::Think => "think",
            _ => "analyse",
        },
    }
}

fn state_of<V: Variant>(s: &Session<V>, id: &str) -> State {
    let game = &s.game;
    let pos = game.position();
    let squares = (0..V::SQUARES as u8)
        .map(|i| {
            let sq = Square::from_index(i);
            let (row, col) = place::<V>(sq);
            SquareJson {
                n: sq.number(),
                row,
                col,
                piece: pos.piece_at(sq).map(|p| match p {
                    Piece::WhiteMan => "w",
                    Piece::WhiteKing => "W",
                    Piece::BlackMan => "b",
                    Piece::BlackKing => "B",
                }),
            }
        })
        .collect();
    let result = game.result();
    let legal: Vec<MoveJson> = if result == GameResult::Ongoing {
        movegen::legal_moves(pos)
            .iter()
            .map(|m| move_json(pos, m))
            .collect()
    } else {
        Vec::new()
    };
    let mut must_capture: Vec<u32> = legal
        .iter()
        .filter(|m| !m.captured.is_empty())
        .map(|m| m.path[0])
        .collect();
    must_capture.sort_unstable();
    must_capture.dedup();
    let moves: Vec<PlayedJson> = game
        .moves()
        .iter()
        .zip(game.positions())
        .enumerate()
        .map(|(i, (m, before))| PlayedJson {
            mv: move_json(before, m),
            number: pdn::move_number(i, game.start().side()),
            side: before.side().name(),
        })
        .collect();
    let last_move = moves.last().map(|p| p.mv.clone());
    let result_json = game.result_reason().map(|reason| ResultJson {
        score: pdn::result_token(result),
        winner: match result {
            GameResult::Win(c) => Some(c.name()),
            _ => None,
        },
        reason,
    });
    let draw_rule = if result == GameResult::Ongoing {
        game.clocks()
            .running(pos)
            .map(|(rule, plies)| DrawRuleJson {
                rule: rule.describe(),
                plies_left: plies,
                moves_left: plies.div_ceil(2),
            })
    } else {
        None
    };
    State {
        id: id.to_string(),
        variant: V::KIND.name(),
        size: V::ROWS,
        fen: fen::write(pos),
        squares,
        side: pos.side().name(),
        legal,
        must_capture,
        ply: moves.len(),
        moves,
        redo: s.redo.len(),
        last_move,
        result: result_json,
        draw_rule,
        engine: s.settings.engine.map_or("none", Color::name),
        level: s.settings.level.to_string(),
        movetime: s.settings.movetime,
        thinking: s.thinking(),
        analysing: s.busy.as_ref().is_some_and(|b| b.task == Task::Analyse),
        analysis: s.analysis.clone(),
        review: s.review.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::variant::{International, Italian};

    fn state_of_fen<V: Variant>(fen: &str) -> State {
        let s = Session::<V>::new(Game::from_fen(fen).unwrap(), Settings::default());
        s.state("t")
    }

    #[test]
    fn squares_are_placed_as_seen_from_white() {
        let sq = |n| Square::from_number(n, 50).unwrap();
        assert_eq!(place::<International>(sq(1)), (0, 1));
        assert_eq!(place::<International>(sq(6)), (1, 0));
        assert_eq!(place::<International>(sq(46)), (9, 0));
        // italian: a1 light, square 1 on a8 (top-left), 32 on h1 (bottom-right)
        let isq = |n| Square::from_number(n, 32).unwrap();
        assert_eq!(place::<Italian>(isq(1)), (0, 0));
        assert_eq!(place::<Italian>(isq(32)), (7, 7));
    }

    #[test]
    fn state_lists_moves_captures_and_the_draw_count() {
        let st = state_of_fen::<International>("W:W28,K50:B23");
        assert_eq!(st.must_capture, vec![28]);
        assert!(st.legal.iter().all(|m| !m.captured.is_empty()));
        assert_eq!(st.legal[0].path, vec![28, 19]);
        assert!(st.draw_rule.is_none());
        let st = state_of_fen::<International>("W:WK46,40:BK5");
        let d = st.draw_rule.unwrap();
        assert_eq!((d.rule, d.plies_left, d.moves_left), ("5-move rule", 10, 5));
        let st = state_of_fen::<International>("W:W46:B41,37");
        assert_eq!(st.result.unwrap().reason, "white has no legal move");
        assert!(st.legal.is_empty());
    }

    #[test]
    fn paths_find_the_move_and_redo_follows_the_line() {
        let mut s = Session::<International>::new(Game::default(), Settings::default());
        let m = s.find_move(&MoveInput::Path(vec![32, 28])).unwrap();
        assert_eq!(notation::hub(&m), "32-28");
        assert!(s.find_move(&MoveInput::Path(vec![32, 27, 21])).is_err());
        assert!(s.find_move(&MoveInput::Path(vec![99, 28])).is_err());
        assert!(s.find_move(&MoveInput::Text("32-29".into())).is_err());
        s.play_move(m);
        s.undo().unwrap();
        assert_eq!(s.redo.len(), 1);
        assert!(s.undo().is_err());
        assert_eq!(s.game.moves().len(), 0);
    }
}
