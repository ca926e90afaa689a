//! The initiator: runs a match of several games on one connection. It proposes each game
//! (colours alternating, starting positions from an opening list if given), plays it, decides
//! its end by the rules or a move limit, sends GAMEEND, and reports the results.
//!
//! GAMEEND goes only in place of a move, on our turn. When the follower's move ended the game (by
//! our rules), at the move limit, or at the GAMEREQ's move count, we send it at once. When our
//! own move ended the game, the follower is to move, and it may apply other rules (real engines
//! know no 5-, 16- or 25-move rule): we wait for its move or its GAMEEND as long as its clock
//! allows, and send GAMEEND on our next turn. The first end the rules gave stands, and both
//! records hold the same moves.
//!
//! The GAMEREQ's moves, when not 0, are the length of the game (the model of Scan and Moby Dam):
//! the minutes are the time for those moves, and once both sides have played that many, we end
//! the game on our turn, adjudicated by a short search: a win for the side ahead by at least
//! [`ADJUDICATION_MARGIN`], else a draw. A CHAT and the PDN Termination say so.
//! The answer to the follower's GAMEEND carries reason 0, and a game request that gets no
//! answer within [`MatchConfig::accept_timeout`] stops the match: the peer did not accept.

use std::fmt::Write as _;
use std::time::{Duration, Instant};

use super::clock::TimeControl;
use super::link::{Event, Link};
use super::message::{AccCode, EndReason, GameEnd, GameReq, Message, VERSION};
use super::play::{Play, Step};
use super::player::Player;
use super::record::{rules_ending, Record, Verdict};
use super::Settings;
use crate::core::{Color, International, Position};
use crate::engine::score_in_men;

/// How long we wait for the answer to our GAMEEND.
const END_TIMEOUT: Duration = Duration::from_secs(10);

/// Seconds of the search that adjudicates a game at the GAMEREQ's move count (within the clock
/// and the caps).
const ADJUDICATION_TIME: f64 = 1.0;

/// The evaluation margin, in hundredths of a man, that adjudicates a game at the move count as a
/// win: two men.
pub const ADJUDICATION_MARGIN: i32 = 200;

/// How much longer than its clock shows we wait for a peer's move.
const MOVE_SLACK: f64 = 60.0;

/// What to play.
#[derive(Clone, Debug)]
pub struct MatchConfig {
    /// Number of games.
    pub games: u32,
    /// Minutes per player, as sent in the GAMEREQ.
    pub minutes: u16,
    /// Moves for those minutes, and the length of the game (0: no length, the minutes are for
    /// the whole game).
    pub moves: u16,
    /// Start positions; each is played twice, colours swapped. Empty: the start position.
    pub openings: Vec<Position<International>>,
    /// Moves per side after which a game is adjudicated a draw (0: no limit).
    pub max_moves: u32,
    /// How long we wait for the answer to a game request before giving up.
    pub accept_timeout: Duration,
}

impl MatchConfig {
    /// The start position of game `i` (from 0).
    fn start(&self, i: u32) -> Position<International> {
        if self.openings.is_empty() {
            Position::start()
        } else {
            self.openings[(i / 2) as usize % self.openings.len()]
        }
    }
}

/// The outcome of a match.
#[derive(Debug, Default)]
pub struct MatchReport {
    /// Every game played, finished or not.
    pub records: Vec<Record>,
    /// Games the peer refused.
    pub refused: u32,
    /// Why the match stopped early, if it did.
    pub problem: Option<String>,
    /// The match stopped because the peer did not accept a game (no answer, or a refusal of
    /// every game).
    pub not_accepted: bool,
}

/// How one game went.
enum Outcome {
    /// Played (maybe broken off); `stop` when the peer wants no further game.
    Played { record: Record, stop: bool },
    /// The peer refused the game with this code.
    Refused(AccCode),
    /// The peer did not answer the game request in time.
    Unanswered(String),
    /// The match cannot go on.
    Aborted { record: Option<Record>, why: String },
}

/// Plays the match on a connected link.
pub fn run(
    link: &mut Link,
    settings: &Settings,
    player: &mut Player,
    cfg: &MatchConfig,
) -> MatchReport {
    let mut report = MatchReport::default();
    for i in 0..cfg.games {
        let last = i + 1 == cfg.games;
        let us = if i % 2 == 0 {
            Color::White
        } else {
            Color::Black
        };
        let round = i as usize + 1;
        match game(link, settings, player, cfg, round, us, cfg.start(i), last) {
            Outcome::Played { record, stop } => {
                report.records.push(record);
                if stop && !last {
                    report.problem = Some(format!("the peer asked to stop after game {round}"));
                    break;
                }
            }
            Outcome::Refused(AccCode::Refused) => {
                log::warn!("dxp: the peer refused game {round}");
                report.refused += 1;
            }
            Outcome::Unanswered(why) => {
                report.problem = Some(why);
                report.not_accepted = true;
                break;
            }
            Outcome::Refused(code) => {
                report.not_accepted = true;
                report.problem = Some(match code {
                    AccCode::Version => "the peer does not support protocol version 01".into(),
                    _ => "the peer plays no games".into(),
                });
                break;
            }
            Outcome::Aborted { record, why } => {
                report.records.extend(record);
                report.problem = Some(why);
                break;
            }
        }
    }
    if report.records.is_empty() && report.refused > 0 && report.problem.is_none() {
        report.not_accepted = true;
        report.problem = Some("the peer refused every game".into());
    }
    report
}

/// Waits for the answer to our GAMEEND. Returns whether the peer wants to stop.
fn await_end(link: &mut Link) -> bool {
    let deadline = Instant::now() + END_TIMEOUT;
    loop {
        match link.next(Some(deadline)) {
            None => {
                log::warn!("dxp: no GAMEEND in answer to ours");
                return false;
            }
            Some(Event::Message(Message::GameEnd(e))) => return e.stop,
            Some(Event::Closed) => return true,
            Some(Event::Message(Message::Chat(t))) => log::info!("dxp: {} says: {t}", link.peer()),
            Some(other) => log::debug!("dxp: ignored after our GAMEEND: {other:?}"),
        }
    }
}

/// Proposes and plays game `round`.
#[allow(clippy::too_many_arguments)]
fn game(
    link: &mut Link,
    settings: &Settings,
    player: &mut Player,
    cfg: &MatchConfig,
    round: usize,
    us: Color,
    start: Position<International>,
    last: bool,
) -> Outcome {
    let req = GameReq {
        version: VERSION,
        name: settings.name.clone(),
        follower: us.opponent(),
        minutes: cfg.minutes,
        moves: cfg.moves,
        start: (start != Position::start()).then_some(start),
    };
    log::info!(
        "dxp: proposing game {round}: we play {}, from {}",
        us.name(),
        crate::core::fen::write(&start)
    );
    if !link.send(&Message::GameReq(req)) {
        return Outcome::Aborted {
            record: None,
            why: "the connection broke".into(),
        };
    }
    let deadline = Instant::now() + cfg.accept_timeout;
    let peer_name = loop {
        match link.next(Some(deadline)) {
            None => {
                let secs = cfg.accept_timeout.as_secs_f64();
                link.chat(&format!(
                    "no answer to the game request within {secs} s: giving up"
                ));
                return Outcome::Unanswered(format!(
                    "the peer did not accept game request {round}: no answer within {secs} s{}",
                    if cfg.minutes == 0 {
                        " (some engines answer none for time 000: try --time 1 or more)"
                    } else {
                        ""
                    }
                ));
            }
            Some(Event::Message(Message::GameAcc(a))) => {
                if a.code != AccCode::Accept {
                    return Outcome::Refused(a.code);
                }
                break a.name;
            }
            Some(Event::Closed) => {
                return Outcome::Aborted {
                    record: None,
                    why: format!(
                        "the peer closed the connection before answering game request {round}"
                    ),
                }
            }
            Some(Event::Message(Message::Chat(t))) => log::info!("dxp: {} says: {t}", link.peer()),
            Some(Event::Malformed { first, error, text }) if first != Some(b'C') => {
                log::warn!("dxp: cannot read '{text}': {error}");
                link.chat(&format!("error: {error}"));
                if first == Some(b'A') {
                    return Outcome::Aborted {
                        record: None,
                        why: format!("unreadable answer to game request {round}: {error}"),
                    };
                }
            }
            Some(other) => log::debug!("dxp: ignored while waiting for GAMEACC: {other:?}"),
        }
    };
    let tc = TimeControl {
        minutes: cfg.minutes,
        moves: cfg.moves,
    };
    let mut p = Play::new(link, player, settings, &peer_name, start, us, tc, false);
    // the end the rules (or a move limit) gave, once they gave one: it stands even if the
    // follower plays on
    let mut over: Option<(Verdict, String)> = None;
    // the GAMEREQ's move count is reached: the adjudication search runs
    let mut adjudicating = false;
    loop {
        if over.is_none() {
            over = rules_ending(&p.game)
                .and_then(|e| Verdict::by_rules(p.game.result()).map(|v| (v, e)));
        }
        if over.is_none() && p.our_turn() && !adjudicating {
            let moves = |n: usize| p.moves_by(Color::White) >= n && p.moves_by(Color::Black) >= n;
            if cfg.max_moves > 0 && moves(cfg.max_moves as usize) {
                over = Some((
                    Verdict::Draw,
                    format!(
                        "draw adjudicated at the move limit ({} moves)",
                        cfg.max_moves
                    ),
                ));
            } else if cfg.moves > 0 && moves(usize::from(cfg.moves)) {
                log::info!("dxp: game {round}: {} moves each: adjudicating", cfg.moves);
                adjudicating = true;
                p.evaluate(ADJUDICATION_TIME);
            }
        }
        let peer_deadline = |p: &Play| {
            p.turn_started() + Duration::from_secs_f64(p.peer_left().max(0.0) + MOVE_SLACK)
        };
        let deadline = match &over {
            // we are to move: GAMEEND goes in place of a move
            Some((verdict, ending)) if p.our_turn() => {
                return end(&mut p, round, *verdict, ending, last);
            }
            // our move ended the game by our rules, which the follower may not apply: it is to
            // move, and only it may send GAMEEND now; we wait for its move or its GAMEEND
            Some(_) => Some(peer_deadline(&p)),
            None if p.our_turn() => {
                if !adjudicating {
                    p.think();
                }
                None
            }
            None => Some(peer_deadline(&p)),
        };
        match p.step(deadline) {
            Step::Continue | Step::Moved => {}
            Step::Evaluated(score) => {
                adjudicating = false;
                let (verdict, ending) = adjudicate(score, us, cfg.moves);
                log::info!("dxp: game {round}: {ending}");
                p.link.chat(&ending);
                over = Some((verdict, ending));
            }
            Step::Timeout => {
                if let Some((verdict, ending)) = &over {
                    log::warn!(
                        "dxp: the peer neither moved nor ended game {round} within its time: we end it"
                    );
                    return end(&mut p, round, *verdict, ending, last);
                }
                let why = "no move in time".to_string();
                let record = match broken(&mut p, round, &why, true) {
                    Outcome::Played { record, .. } => Some(record),
                    _ => None,
                };
                return Outcome::Aborted {
                    record,
                    why: format!(
                        "the peer made no move in game {round} within its time and {MOVE_SLACK} s"
                    ),
                };
            }
            Step::PeerEnded(e) => {
                let (verdict, ending) = match over.take() {
                    Some(o) => o,
                    None => match rules_ending(&p.game) {
                        Some(ending) => (
                            Verdict::by_rules(p.game.result()).unwrap_or(Verdict::Unfinished),
                            ending,
                        ),
                        None => (
                            Verdict::claimed(e.reason, us.opponent()),
                            format!("ended by the peer ({})", e.reason.describe()),
                        ),
                    },
                };
                // the answer to a GAMEEND carries no verdict of its own
                let sent = p.send_end(GameEnd {
                    reason: EndReason::Unknown,
                    stop: last,
                });
                log::info!("dxp: game {round} over: {} ({ending})", verdict.token());
                return Outcome::Played {
                    record: p.record(round, verdict, &ending),
                    stop: e.stop || !sent,
                };
            }
            Step::PeerRequest(_) => {
                return broken(&mut p, round, "a GAMEREQ from the follower", last);
            }
            Step::Broken(why) => return broken(&mut p, round, &why, last),
            Step::Closed => {
                let record = p.record(round, Verdict::Unfinished, "the peer disconnected");
                return Outcome::Aborted {
                    record: Some(record),
                    why: format!("the peer closed the connection during game {round}"),
                };
            }
        }
    }
}

/// The verdict at the GAMEREQ's move count (`moves` each), from the score of our adjudication
/// search (hundredths of a man for us, to move): a win for the side ahead by at least
/// [`ADJUDICATION_MARGIN`], else a draw; no score, no verdict.
fn adjudicate(score: Option<i32>, us: Color, moves: u16) -> (Verdict, String) {
    let head = format!("move limit reached ({moves} moves each)");
    let Some(s) = score else {
        return (
            Verdict::Unfinished,
            format!("{head}: unknown result (no evaluation)"),
        );
    };
    let white = if us == Color::White { s } else { -s };
    let verdict = if white >= ADJUDICATION_MARGIN {
        Verdict::Win(Color::White)
    } else if white <= -ADJUDICATION_MARGIN {
        Verdict::Win(Color::Black)
    } else {
        Verdict::Draw
    };
    let what = match verdict {
        Verdict::Win(c) => format!("a win for {}", c.name()),
        _ => "a draw".to_string(),
    };
    (
        verdict,
        format!(
            "{head}: adjudicated {what} by evaluation (white {}, margin {})",
            score_in_men(white),
            score_in_men(ADJUDICATION_MARGIN)
        ),
    )
}

/// Ends a decided game: our GAMEEND, then the peer's answer.
fn end(p: &mut Play, round: usize, verdict: Verdict, ending: &str, last: bool) -> Outcome {
    let sent = p.send_end(GameEnd {
        reason: verdict.reason_for(p.us),
        stop: last,
    });
    let record = p.record(round, verdict, ending);
    let stop = !sent || await_end(p.link);
    log::info!("dxp: game {round} over: {} ({ending})", verdict.token());
    Outcome::Played { record, stop }
}

/// Ends a game after a protocol error by the peer; the game is recorded as unfinished.
fn broken(p: &mut Play, round: usize, why: &str, last: bool) -> Outcome {
    let sent = p.fail(why, last);
    let record = p.record(round, Verdict::Unfinished, why);
    let stop = !sent || await_end(p.link);
    Outcome::Played { record, stop }
}

/// The result table: one line per game, then wins, draws, losses and score from our side.
pub fn table(report: &MatchReport, our_name: &str) -> String {
    let mut s = String::new();
    let (mut w, mut d, mut l, mut u) = (0, 0, 0, 0);
    let _ = writeln!(
        s,
        "{:<5} {:<20} {:<20} {:<6} {:>5} {:>13}  ending",
        "game", "white", "black", "result", "plies", "time w/b (s)"
    );
    for r in &report.records {
        match r.verdict {
            Verdict::Win(c) if c == r.us => w += 1,
            Verdict::Win(_) => l += 1,
            Verdict::Draw => d += 1,
            Verdict::Unfinished => u += 1,
        }
        let _ = writeln!(
            s,
            "{:<5} {:<20} {:<20} {:<6} {:>5} {:>6.1}/{:<6.1}  {}",
            r.round,
            r.name(Color::White),
            r.name(Color::Black),
            r.verdict.token(),
            r.game.moves().len(),
            r.seconds[0],
            r.seconds[1],
            r.ending
        );
    }
    let scored = w + d + l;
    let points = f64::from(w) + f64::from(d) / 2.0;
    let pct = if scored > 0 {
        100.0 * points / f64::from(scored)
    } else {
        0.0
    };
    let _ = writeln!(
        s,
        "{our_name}: wins {w}, draws {d}, losses {l}, unfinished {u}, refused {}, score {points}/{scored} ({pct:.1}%)",
        report.refused
    );
    if let Some(p) = &report.problem {
        let _ = writeln!(s, "match stopped early: {p}");
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn adjudication_at_the_move_count_needs_the_margin() {
        let v = |score, us| adjudicate(score, us, 40).0;
        assert_eq!(
            v(Some(ADJUDICATION_MARGIN), Color::White),
            Verdict::Win(Color::White)
        );
        assert_eq!(
            v(Some(ADJUDICATION_MARGIN), Color::Black),
            Verdict::Win(Color::Black)
        );
        assert_eq!(
            v(Some(-ADJUDICATION_MARGIN), Color::Black),
            Verdict::Win(Color::White)
        );
        assert_eq!(
            v(Some(ADJUDICATION_MARGIN - 1), Color::White),
            Verdict::Draw
        );
        assert_eq!(
            v(Some(1 - ADJUDICATION_MARGIN), Color::Black),
            Verdict::Draw
        );
        assert_eq!(v(None, Color::White), Verdict::Unfinished);
        let (_, text) = adjudicate(Some(-250), Color::Black, 40);
        assert_eq!(
            text,
            "move limit reached (40 moves each): adjudicated a win for white by evaluation \
             (white 2.50, margin 2.00)"
        );
    }
}
