//! Analysis for the command line: a position (one line per iteration, then the best move) or a
//! whole game (each move scored against the engine's choice, blunders flagged, annotated PDN).

use std::fmt::Write as _;

use crate::core::game::Game;
use crate::core::notation;
use crate::core::pdn;
use crate::core::position::Position;
use crate::core::variant::Variant;
use crate::engine::time::Limits;
use crate::engine::{score_in_men, Engine, Info, Mode, SearchHandle};

/// A played move that loses at least this much (hundredths of a man) against the best is a blunder.
pub const BLUNDER: i32 = 150;

/// The moves of a line in PDN notation, starting from `pos`.
pub fn line_moves<V: Variant>(pos: &Position<V>, pv: &[crate::core::Move<V>]) -> Vec<String> {
    let mut p = *pos;
    let mut parts = Vec::with_capacity(pv.len());
    for m in pv {
        parts.push(notation::pdn(&p, m));
        p = p.make(m);
    }
    parts
}

/// The moves of a line in PDN notation, starting from `pos`, separated by blanks.
pub fn line_text<V: Variant>(pos: &Position<V>, pv: &[crate::core::Move<V>]) -> String {
    line_moves(pos, pv).join(" ")
}

/// One iteration's line: `depth= mean-depth= score= nodes= time= nps= [best-share=] pv="..."`,
/// with `best-share` the best move's share of the iteration's root nodes.
pub fn info_line<V: Variant>(pos: &Position<V>, info: &Info<V>) -> String {
    let share = info
        .best_share
        .map(|s| format!(" best-share={s:.2}"))
        .unwrap_or_default();
    format!(
        "depth={} mean-depth={:.1} score={} nodes={} time={:.3} nps={:.2}M{share} pv=\"{}\"",
        info.depth,
        info.mean_depth,
        score_in_men(info.score),
        info.nodes,
        info.time,
        info.nps() / 1e6,
        line_text(pos, &info.pv)
    )
}

/// Analyses the game's current position, writing iteration lines and `bestmove=` to `out`.
pub fn position<V: Variant>(
    engine: &mut Engine,
    game: &Game<V>,
    limits: &Limits,
    out: &mut dyn FnMut(&str),
) {
    let pos = *game.position();
    if let Some(Ok(e)) = engine.egdb::<V>().map(|db| db.probe_entry(&pos)) {
        out(&format!("egdb={} dtc={}", e.wdl.name(), e.plies));
    }
    for b in engine.book_candidates(game) {
        out(&format!(
            "book={} score={}",
            notation::pdn(&pos, &b.mv),
            score_in_men(b.score)
        ));
    }
    let result = engine.search(
        game,
        limits,
        Mode::Analyze,
        &SearchHandle::new(),
        &mut |info| {
            out(&info_line(&pos, info));
        },
    );
    match result.best {
        Some(m) => {
            let mut s = format!("bestmove={}", notation::pdn(&pos, &m));
            if let Some(p) = result.ponder {
                let _ = write!(s, " ponder={}", notation::pdn(&pos.make(&m), &p));
            }
            let _ = write!(s, " score={}", score_in_men(result.score));
            out(&s);
        }
        None => out("bestmove=none"),
    }
}

/// The verdict on one played move (in JSON, `played_score` is `score`).
#[derive(Clone, Debug, serde::Serialize)]
pub struct MoveReport {
    /// The move as played, in PDN notation.
    pub played: String,
    /// The engine's preferred move.
    pub best: String,
    /// Score of the position after the best move, for the mover.
    pub best_score: i32,
    /// Score after the played move, for the mover.
    #[serde(rename = "score")]
    pub played_score: i32,
    /// Whether the played move loses clearly against the best.
    pub blunder: bool,
    /// Whether the played move is one the opening book plays.
    pub book: bool,
}

/// Analyses every move of a game with `limits` per position.
pub fn game<V: Variant>(engine: &mut Engine, game: &Game<V>, limits: &Limits) -> Vec<MoveReport> {
    game_with(engine, game, limits, &SearchHandle::new(), &mut |_| {})
}

/// Analyses every move of a game with `limits` per position, calling `on_report` after each
/// move; stops early (with the moves done so far) when `cancel` is stopped. Each search has a
/// handle of its own (a search stops its handle when its time is up); `cancel` is looked at
/// between searches.
pub fn game_with<V: Variant>(
    engine: &mut Engine,
    game: &Game<V>,
    limits: &Limits,
    cancel: &SearchHandle,
    on_report: &mut dyn FnMut(&MoveReport),
) -> Vec<MoveReport> {
    let mut replay = Game::new(*game.start());
    let mut reports = Vec::new();
    for m in game.moves() {
        if cancel.is_stopped() {
            break;
        }
        let pos = *replay.position();
        let book = engine.book_candidates(&replay).iter().any(|b| b.mv == *m);
        let best = engine.search_to(&replay, limits, Mode::Analyze);
        let best_move = best.best.unwrap_or(*m);
        let _ = replay.play(*m);
        let played_score = if Some(*m) == best.best {
            best.score
        } else {
            let after = engine.search_to(&replay, limits, Mode::Analyze);
            if after.best.is_none() {
                // the opponent has no move: the played move wins
                crate::engine::search::MATE - 1
            } else {
                -after.score
            }
        };
        if cancel.is_stopped() {
            // stopped meanwhile: the caller no longer wants this move's verdict
            break;
        }
        reports.push(MoveReport {
            played: notation::pdn(&pos, m),
            best: notation::pdn(&pos, &best_move),
            best_score: best.score,
            played_score,
            blunder: best.score - played_score >= BLUNDER && Some(*m) != best.best,
            book,
        });
        on_report(reports.last().expect("just pushed"));
    }
    reports
}

/// The human-readable table of a game analysis.
pub fn report_text<V: Variant>(game: &Game<V>, reports: &[MoveReport]) -> String {
    let mut s = String::new();
    for (i, r) in reports.iter().enumerate() {
        let num = pdn::move_number(i, game.start().side());
        let _ = writeln!(
            s,
            "{num:<6} {:<14} score={:>7} best={:<14} best-score={:>7}{}{}",
            r.played,
            score_in_men(r.played_score),
            r.best,
            score_in_men(r.best_score),
            if r.book { "  book" } else { "" },
            if r.blunder { "  BLUNDER" } else { "" }
        );
    }
    s
}

/// The game as PDN with a comment on every move (score, preferred move, blunder mark).
pub fn report_pdn<V: Variant>(
    game: &Game<V>,
    tags: &[(String, String)],
    reports: &[MoveReport],
) -> String {
    let comments: Vec<Option<String>> = reports.iter().map(|r| Some(comment(r))).collect();
    pdn::write(game, tags, &comments, pdn::result_token(game.result()))
}

/// The PDN comment on an analysed move: its score, `book`, the preferred move if another, and
/// `blunder`.
pub fn comment(r: &MoveReport) -> String {
    let mut c = format!("score {}", score_in_men(r.played_score));
    if r.book {
        c.push_str(", book");
    }
    if r.best != r.played {
        let _ = write!(c, ", best {} {}", r.best, score_in_men(r.best_score));
    }
    if r.blunder {
        c.push_str(", blunder");
    }
    c
}
