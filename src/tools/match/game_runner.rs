//! One game between two Hub engines: the runner keeps the board and the clocks, asks the side to
//! move for a move, checks it, and ends the game by the rules, by adjudication, or with a loss
//! for an engine that fails (time, crash, stall, garbage, an illegal move or no move).

use crate::core::game::MoveLimit;
use crate::core::{notation, Color, Game, GameResult, Variant};
use crate::protocol::hub::quote;

use super::adjudication::{Adjudicator, DrawRule, ResignRule, Verdict};
use super::engine_process::{EngineError, EngineProcess};
use super::openings::Opening;
use super::time_control::{Clock, SearchLimits};

/// How an engine failed.
#[derive(Clone, Debug, PartialEq)]
pub enum Fault {
    /// The move took longer than the clock allowed, margin included.
    Time {
        /// Seconds the move took.
        used: f64,
        /// Seconds it was allowed (without the margin).
        allowed: f64,
    },
    /// No answer in time to a search without a clock, or none even after `stop`.
    Stalled(String),
    /// The process ended.
    Crashed(String),
    /// Output that is not Hub protocol.
    Garbage(String),
    /// A move that is not legal (or not readable) in the position.
    Illegal {
        /// The move as sent.
        text: String,
        /// Why it is refused.
        why: String,
    },
    /// A bare `done` in a position with legal moves.
    NoMove,
    /// The engine could not be started for this game.
    Start(String),
}

impl Fault {
    /// From an engine process error.
    pub fn from_engine(e: EngineError) -> Fault {
        match e {
            EngineError::Stalled { .. } => Fault::Stalled(e.to_string()),
            EngineError::Crashed(_) => Fault::Crashed(e.to_string()),
            EngineError::Garbage(g) => Fault::Garbage(g),
            EngineError::Spawn { .. } => Fault::Start(e.to_string()),
        }
    }
}

/// Why a game ended.
#[derive(Clone, Debug, PartialEq)]
pub enum Ending {
    /// The rules ended it (no piece or no move, or a draw rule).
    Rules(GameResult),
    /// Both engines' scores agreed on a draw.
    AdjudicatedDraw,
    /// Both engines' scores agreed that this side is lost.
    Resigned(Color),
    /// This side's engine failed and loses.
    Forfeit(Color, Fault),
}

/// How an engine spent its clock: in one game, or summed over a match.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct TimeUse {
    /// Moves it answered.
    pub moves: u32,
    /// Seconds those answers took on its clock.
    pub seconds: f64,
    /// Moves answered after `ponder-hit`: the opponent played the expected move.
    pub ponder_hits: u32,
    /// Ponder searches stopped because the opponent played another move.
    pub ponder_misses: u32,
}

impl TimeUse {
    /// Adds `other`'s moves, seconds and ponder outcomes.
    pub fn add(&mut self, other: &TimeUse) {
        self.moves += other.moves;
        self.seconds += other.seconds;
        self.ponder_hits += other.ponder_hits;
        self.ponder_misses += other.ponder_misses;
    }

    /// Mean seconds a move, if it moved.
    pub fn per_move(&self) -> Option<f64> {
        (self.moves > 0).then(|| self.seconds / self.moves as f64)
    }

    /// Its ponder searches that the opponent's move decided (hits and misses).
    pub fn ponder_searches(&self) -> u32 {
        self.ponder_hits + self.ponder_misses
    }

    /// The share of its ponder searches that the opponent's move confirmed, if it pondered.
    pub fn hit_rate(&self) -> Option<f64> {
        let tried = self.ponder_searches();
        (tried > 0).then(|| self.ponder_hits as f64 / tried as f64)
    }
}

/// A played game and how it ended.
#[derive(Clone, Debug)]
pub struct GameRecord<V: Variant> {
    /// The game from the opening's start position (opening moves included).
    pub game: Game<V>,
    /// A comment per move (score/depth and time for the engines' moves).
    pub comments: Vec<Option<String>>,
    /// How it ended.
    pub ending: Ending,
    /// How the white and the black engine spent their clocks.
    pub time: [TimeUse; 2],
}

impl<V: Variant> GameRecord<V> {
    /// The winner, `None` for a draw.
    pub fn winner(&self) -> Option<Color> {
        match &self.ending {
            Ending::Rules(GameResult::Win(c)) => Some(*c),
            Ending::Rules(_) | Ending::AdjudicatedDraw => None,
            Ending::Resigned(c) | Ending::Forfeit(c, _) => Some(c.opponent()),
        }
    }

    /// The international result form: `2-0`, `1-1` or `0-2`.
    pub fn result_token(&self) -> &'static str {
        match self.winner() {
            Some(Color::White) => "2-0",
            Some(Color::Black) => "0-2",
            None => "1-1",
        }
    }

    /// The side whose engine failed, if one did.
    pub fn faulty(&self) -> Option<Color> {
        match &self.ending {
            Ending::Forfeit(c, _) => Some(*c),
            _ => None,
        }
    }

    /// Why the game ended, in words.
    pub fn reason(&self) -> String {
        match &self.ending {
            Ending::Rules(GameResult::Win(w)) => self.game.loss_reason(w.opponent()),
            Ending::Rules(GameResult::Draw(d)) => format!("draw: {}", d.describe()),
            Ending::Rules(GameResult::Ongoing) => "unfinished".to_string(),
            Ending::AdjudicatedDraw => "draw by adjudication: both engines' scores level".into(),
            Ending::Resigned(c) => format!(
                "{} resigns by adjudication: both engines' scores agree",
                c.name()
            ),
            Ending::Forfeit(c, fault) => {
                let who = c.name();
                match fault {
                    Fault::Time { used, allowed } => {
                        format!("{who} loses on time: {used:.3} s used of {allowed:.3} s")
                    }
                    Fault::Stalled(s) => format!("{who} loses: engine stalled, {s}"),
                    Fault::Crashed(s) => format!("{who} loses: engine {s}"),
                    Fault::Garbage(s) => format!("{who} loses: engine sent garbage: {s}"),
                    Fault::Illegal { text, why } => {
                        format!("{who} loses: illegal move '{text}' ({why})")
                    }
                    Fault::NoMove => format!("{who} loses: answered no move but has legal moves"),
                    Fault::Start(s) => format!("{who} loses: engine failed to start: {s}"),
                }
            }
        }
    }
}

/// The settings of every game of a match.
#[derive(Clone, Debug)]
pub struct GameSettings {
    /// The limits of the white and the black engine.
    pub limits: [SearchLimits; 2],
    /// Seconds a move may exceed its time.
    pub time_margin: f64,
    /// Seconds a move may take when no clock or time per move applies.
    pub move_timeout: f64,
    /// Draw adjudication.
    pub draw: Option<DrawRule>,
    /// Resign adjudication.
    pub resign: Option<ResignRule>,
    /// Platform dama's move limit, if not the default.
    pub move_limit: Option<MoveLimit>,
    /// Whether the white and the black engine ponder: after its move, an engine searches the
    /// position after the answer it expects (`go ponder`) while the opponent thinks, and is
    /// told `ponder-hit` when that answer comes (its clock runs from then on).
    pub ponder: [bool; 2],
}

/// The Hub `pos` line of a game: its start position and every move since.
pub fn pos_line<V: Variant>(game: &Game<V>) -> String {
    let start = game.start().to_hub();
    if game.moves().is_empty() {
        return format!("pos pos={start}");
    }
    let moves: Vec<String> = game.moves().iter().map(notation::hub).collect();
    format!("pos pos={start} moves={}", quote(&moves.join(" ")))
}

/// A record of a game that ended before it began because `side`'s engine failed.
pub fn forfeit_before_start<V: Variant>(
    opening: &Opening<V>,
    side: Color,
    fault: Fault,
) -> GameRecord<V> {
    let game = opening.game();
    GameRecord {
        comments: vec![None; game.moves().len()],
        game,
        ending: Ending::Forfeit(side, fault),
        time: [TimeUse::default(); 2],
    }
}

/// Plays a game from `opening`; `engines[0]` plays white and `engines[1]` black. A ponder
/// search still running when the game ends is stopped.
pub fn play<V: Variant>(
    opening: &Opening<V>,
    engines: [&mut EngineProcess; 2],
    settings: &GameSettings,
) -> GameRecord<V> {
    let [white, black] = engines;
    let mut time = [TimeUse::default(); 2];
    let mut record = play_game(opening, [&mut *white, &mut *black], settings, &mut time);
    record.time = time;
    for e in [white, black] {
        if e.is_alive() {
            // a failure here shows at the engine's next command
            let _ = e.end_ponder();
        }
    }
    record
}

/// Plays the game, counting each side's moves, seconds and ponder outcomes in `time`.
fn play_game<V: Variant>(
    opening: &Opening<V>,
    engines: [&mut EngineProcess; 2],
    settings: &GameSettings,
    time: &mut [TimeUse; 2],
) -> GameRecord<V> {
    let mut game = opening.game();
    // the answer each engine ponders on, while it does
    let mut expected: [Option<crate::core::Move<V>>; 2] = [None, None];
    game.set_move_limit(settings.move_limit);
    let mut comments: Vec<Option<String>> = vec![None; game.moves().len()];
    if let Some(last) = comments.last_mut() {
        *last = Some("end of opening".into());
    }
    let mut engines = engines;
    let mut clocks = settings.limits.map(Clock::new);
    let mut adjudicator = Adjudicator::new(settings.draw, settings.resign);
    let end = |game, comments, ending| GameRecord {
        game,
        comments,
        ending,
        time: [TimeUse::default(); 2],
    };
    for (i, e) in engines.iter_mut().enumerate() {
        if let Err(err) = e.new_game() {
            let side = if i == 0 { Color::White } else { Color::Black };
            return end(
                game,
                comments,
                Ending::Forfeit(side, Fault::from_engine(err)),
            );
        }
    }
    loop {
        let result = game.result();
        if result != GameResult::Ongoing {
            return end(game, comments, Ending::Rules(result));
        }
        let side = game.position().side();
        let clock = &mut clocks[side.index()];
        let allowed = clock.allowed();
        let limit = allowed.map_or(settings.move_timeout, |a| a + settings.time_margin);
        let engine = &mut engines[side.index()];
        let pondered = engine.is_pondering();
        let hit = pondered
            && expected[side.index()]
                .take()
                .is_some_and(|e| game.moves().last() == Some(&e));
        let answer = if hit {
            engine.ponder_hit(limit)
        } else {
            engine.think(&pos_line(&game), &clock.level_line(), limit)
        };
        let reply = match answer {
            Ok(r) => r,
            Err(e) => return end(game, comments, Ending::Forfeit(side, Fault::from_engine(e))),
        };
        let spent = &mut time[side.index()];
        spent.moves += 1;
        spent.seconds += reply.elapsed;
        spent.ponder_hits += hit as u32;
        spent.ponder_misses += (pondered && !hit) as u32;
        if !clock.charge(reply.elapsed, settings.time_margin) {
            let fault = Fault::Time {
                used: reply.elapsed,
                allowed: allowed.unwrap_or(0.0),
            };
            return end(game, comments, Ending::Forfeit(side, fault));
        }
        if reply.stopped {
            let fault = Fault::Stalled(format!(
                "no move within the move timeout of {:.1} s",
                settings.move_timeout
            ));
            return end(game, comments, Ending::Forfeit(side, fault));
        }
        let Some(text) = reply.best else {
            return end(game, comments, Ending::Forfeit(side, Fault::NoMove));
        };
        let m = match notation::parse(game.position(), &text) {
            Ok(m) => m,
            Err(e) => {
                let why = match e {
                    notation::MoveError::Illegal(_) => "not legal in the position".to_string(),
                    other => other.to_string(),
                };
                let fault = Fault::Illegal {
                    text: text.chars().take(40).collect(),
                    why,
                };
                return end(game, comments, Ending::Forfeit(side, fault));
            }
        };
        game.play(m).expect("a parsed move is legal");
        let mut comment = match (reply.score, reply.depth) {
            (Some(s), Some(d)) => format!("{s:.2}/{d} "),
            (Some(s), None) => format!("{s:.2} "),
            _ => String::new(),
        };
        comment.push_str(&format!("{:.3}s", reply.elapsed));
        if hit {
            comment.push_str(" ponder-hit");
        }
        comments.push(Some(comment));
        match adjudicator.record(side, reply.score, game.moves().len()) {
            Some(Verdict::Draw) => return end(game, comments, Ending::AdjudicatedDraw),
            Some(Verdict::Resign(c)) => return end(game, comments, Ending::Resigned(c)),
            None => {}
        }
        // ponder on the expected answer (a move that is not legal there is ignored)
        let answer = reply
            .ponder
            .as_deref()
            .and_then(|t| notation::parse(game.position(), t).ok());
        if let (true, Some(answer), GameResult::Ongoing) =
            (settings.ponder[side.index()], answer, game.result())
        {
            let mut after = game.clone();
            after.play(answer).expect("a parsed move is legal");
            let level = clocks[side.index()].level_line();
            if let Err(e) = engines[side.index()].ponder(&pos_line(&after), &level) {
                return end(game, comments, Ending::Forfeit(side, Fault::from_engine(e)));
            }
            expected[side.index()] = Some(answer);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::{DrawReason, International};

    #[test]
    fn pos_lines_carry_the_whole_game() {
        let mut g = Game::<International>::default();
        assert_eq!(
            pos_line(&g),
            "pos pos=Wbbbbbbbbbbbbbbbbbbbbeeeeeeeeeewwwwwwwwwwwwwwwwwwww"
        );
        g.play_text("32-28").unwrap();
        g.play_text("19-23").unwrap();
        g.play_text("28x19").unwrap();
        assert!(pos_line(&g).ends_with(" moves=\"32-28 19-23 28x19x23\""));
    }

    #[test]
    fn results_and_reasons() {
        let g = Game::<International>::from_fen("W:W31:B").unwrap();
        let rec = |ending| GameRecord {
            game: g.clone(),
            comments: Vec::new(),
            ending,
            time: [TimeUse::default(); 2],
        };
        let r = rec(Ending::Rules(GameResult::Win(Color::White)));
        assert_eq!(
            (r.result_token(), r.reason().as_str()),
            ("2-0", "black has no pieces left")
        );
        let r = rec(Ending::Rules(GameResult::Draw(DrawReason::Repetition)));
        assert_eq!(r.result_token(), "1-1");
        assert!(r.reason().contains("repetition"));
        let r = rec(Ending::Forfeit(
            Color::White,
            Fault::Illegal {
                text: "32-29".into(),
                why: "illegal move '32-29'".into(),
            },
        ));
        assert_eq!(r.result_token(), "0-2");
        assert_eq!(r.faulty(), Some(Color::White));
        assert!(r.reason().starts_with("white loses: illegal move '32-29'"));
        let r = rec(Ending::Resigned(Color::Black));
        assert_eq!(r.result_token(), "2-0");
        let r = rec(Ending::Forfeit(
            Color::Black,
            Fault::Time {
                used: 1.5,
                allowed: 1.0,
            },
        ));
        assert_eq!(r.result_token(), "2-0");
        assert!(r.reason().contains("loses on time"));
    }
}
