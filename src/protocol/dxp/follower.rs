//! The follower: accepts or refuses the initiator's game requests and plays the games it
//! proposes, one after another, until the connection closes.
//!
//! Games end when the initiator says so, with one exception: when we have no legal move (the
//! game is lost) it is ours to send GAMEEND. When the rules have drawn the game and it is our
//! move, we wait a moment for the initiator's GAMEEND and then play on (some initiators apply
//! other draw rules and do not cope with a GAMEEND from the engine). Our answer to the
//! initiator's GAMEEND carries reason 0. When the GAMEREQ gives a number of moves, that is the
//! length of the game: a GAMEEND once a side has played that many is recorded as "move limit
//! reached" with the initiator's verdict (`*` when it gives none). Every game is printed as PDN
//! on standard output when it ends.

use std::io::Write;
use std::time::{Duration, Instant};

use super::clock::TimeControl;
use super::link::{Event, Link};
use super::message::{AccCode, BackAcc, EndReason, GameAcc, GameEnd, GameReq, Message, VERSION};
use super::play::{Play, Step};
use super::player::Player;
use super::record::{rules_ending, Record, Verdict};
use super::Settings;
use crate::core::{Color, GameResult, Position};

/// How long we wait for the initiator's GAMEEND in a position the rules have drawn.
const DRAW_GRACE: Duration = Duration::from_millis(1000);

/// What follows a game.
enum After {
    /// Back to waiting for a game request; `expect_end` when we sent a GAMEEND that the peer
    /// still has to answer.
    Idle { expect_end: bool },
    /// The peer proposed a new game during the game.
    Request(GameReq),
    /// The connection is gone.
    Closed,
}

/// Serves one connection as follower until it closes. `games` counts the games played on all
/// connections (it numbers them).
pub fn serve(link: &mut Link, settings: &Settings, player: &mut Player, games: &mut usize) {
    log::info!("dxp: following {}", link.peer());
    let mut expect_end = false;
    let mut pending: Option<GameReq> = None;
    loop {
        let req = match pending.take() {
            Some(r) => r,
            None => match link.next(None) {
                Some(Event::Message(Message::GameReq(r))) => r,
                Some(Event::Closed) | None => return,
                Some(other) => {
                    if !between_games(link, &settings.name, other, &mut expect_end) {
                        return;
                    }
                    continue;
                }
            },
        };
        if let Some((code, why)) = refusal(&req) {
            log::warn!("dxp: refusing a game from {}: {why}", req.name);
            if !(link.chat(&format!("game refused: {why}"))
                && link.send(&Message::GameAcc(GameAcc {
                    name: settings.name.clone(),
                    code,
                })))
            {
                return;
            }
            continue;
        }
        *games += 1;
        match play(link, settings, player, req, *games) {
            After::Idle { expect_end: e } => expect_end = e,
            After::Request(r) => pending = Some(r),
            After::Closed => return,
        }
    }
}

/// Why a game request cannot be accepted, with the GAMEACC code to answer.
fn refusal(req: &GameReq) -> Option<(AccCode, String)> {
    if req.version != VERSION {
        return Some((
            AccCode::Version,
            format!(
                "protocol version {:02} is not supported (only 01)",
                req.version
            ),
        ));
    }
    if let Some(pos) = &req.start {
        if pos.pieces(Color::White).is_empty() || pos.pieces(Color::Black).is_empty() {
            return Some((
                AccCode::Refused,
                "the board must hold pieces of both colours".to_string(),
            ));
        }
    }
    None
}

/// Handles a message between games. Returns false when the connection is gone.
fn between_games(link: &mut Link, name: &str, event: Event, expect_end: &mut bool) -> bool {
    match event {
        Event::Message(Message::GameEnd(_)) if *expect_end => {
            *expect_end = false;
            true
        }
        Event::Message(Message::GameEnd(e)) => {
            log::info!("dxp: GAMEEND outside a game (stop {}): ignored", e.stop);
            true
        }
        Event::Message(Message::Chat(text)) => {
            log::info!("dxp: {} says: {text}", link.peer());
            true
        }
        Event::Message(Message::BackReq(_)) => {
            link.chat("no game in progress: nothing to take back")
                && link.send(&Message::BackAcc(BackAcc::Continue))
        }
        Event::Message(m) => {
            log::warn!("dxp: unexpected {} between games: ignored", m.kind());
            link.chat(&format!("no game in progress: {} ignored", m.kind()))
        }
        Event::Malformed {
            first: Some(b'R'),
            error,
            ..
        } => {
            log::warn!("dxp: unreadable game request: {error}");
            link.chat(&format!("game refused: {error}"))
                && link.send(&Message::GameAcc(GameAcc {
                    name: name.to_string(),
                    code: AccCode::Refused,
                }))
        }
        Event::Malformed {
            first: Some(b'C'),
            error,
            ..
        } => {
            log::info!("dxp: unreadable chat ({error}): ignored");
            true
        }
        Event::Malformed { error, text, .. } => {
            log::warn!("dxp: cannot read '{text}': {error}");
            link.chat(&format!("error: {error}"))
        }
        Event::SearchDone(_) => true,
        Event::Closed => false,
    }
}

/// Prints a finished game on standard output.
fn print(record: &Record, peer: &str) {
    let text = record.pdn("DXP game", peer);
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{text}");
    let _ = out.flush();
}

/// Accepts and plays one game.
fn play(
    link: &mut Link,
    settings: &Settings,
    player: &mut Player,
    req: GameReq,
    round: usize,
) -> After {
    let us = req.follower;
    let start = req.start.unwrap_or_else(Position::start);
    log::info!(
        "dxp: game {round} against {}: we play {}, {} min for {} moves, from {}",
        req.name,
        us.name(),
        req.minutes,
        req.moves,
        crate::core::fen::write(&start)
    );
    let acc = Message::GameAcc(GameAcc {
        name: settings.name.clone(),
        code: AccCode::Accept,
    });
    if !link.send(&acc) {
        return After::Closed;
    }
    let peer = link.peer().to_string();
    let tc = TimeControl {
        minutes: req.minutes,
        moves: req.moves,
    };
    let mut p = Play::new(link, player, settings, &req.name, start, us, tc, true);
    // the end of our wait in a drawn position, with the number of moves it was set at
    let mut grace: Option<(usize, Instant)> = None;
    let mut play_on = false;
    loop {
        let done = |p: &Play, verdict: Verdict, ending: &str| {
            let r = p.record(round, verdict, ending);
            log::info!("dxp: game {round} over: {} ({ending})", verdict.token());
            print(&r, &peer);
        };
        let mut deadline = None;
        if p.our_turn() && !p.is_thinking() {
            match p.game.result() {
                GameResult::Ongoing => p.think(),
                GameResult::Draw(_) if play_on => p.think(),
                GameResult::Draw(_) => {
                    let n = p.game.moves().len();
                    if grace.map(|g| g.0) != Some(n) {
                        grace = Some((n, Instant::now() + DRAW_GRACE));
                    }
                    deadline = grace.map(|g| g.1);
                }
                GameResult::Win(_) => {
                    // we cannot move: the game is lost, and it is ours to say so
                    let verdict = Verdict::by_rules(p.game.result()).unwrap_or(Verdict::Unfinished);
                    let ending = rules_ending(&p.game).unwrap_or_default();
                    let sent = p.send_end(GameEnd {
                        reason: verdict.reason_for(us),
                        stop: false,
                    });
                    done(&p, verdict, &ending);
                    return if sent {
                        After::Idle { expect_end: true }
                    } else {
                        After::Closed
                    };
                }
            }
        }
        match p.step(deadline) {
            // we never evaluate as follower
            Step::Continue | Step::Moved | Step::Evaluated(_) => {}
            Step::Timeout => {
                // the rules drew the game, but the initiator does not end it: play on
                log::info!("dxp: the initiator plays on in a drawn position: so do we");
                play_on = true;
            }
            Step::PeerEnded(e) => {
                let by_rules = Verdict::by_rules(p.game.result());
                let verdict = by_rules.unwrap_or(Verdict::claimed(e.reason, us.opponent()));
                // the GAMEREQ's moves, when not 0, are the game's length: the initiator ends the
                // game once one side has played that many
                let count = usize::from(req.moves);
                let at_count = count > 0
                    && (p.moves_by(Color::White) >= count || p.moves_by(Color::Black) >= count);
                let ending = match rules_ending(&p.game) {
                    Some(r) => r,
                    None if at_count => format!(
                        "move limit reached ({count} moves each): {}",
                        e.reason.describe()
                    ),
                    None => format!("ended by the initiator ({})", e.reason.describe()),
                };
                // the answer to a GAMEEND carries no verdict of its own
                let sent = p.send_end(GameEnd {
                    reason: EndReason::Unknown,
                    stop: false,
                });
                done(&p, verdict, &ending);
                return if sent {
                    After::Idle { expect_end: false }
                } else {
                    After::Closed
                };
            }
            Step::PeerRequest(r) => {
                log::warn!("dxp: a new game request during game {round}: this game is abandoned");
                done(&p, Verdict::Unfinished, "abandoned for a new game request");
                return After::Request(r);
            }
            Step::Broken(why) => {
                let sent = p.fail(&why, false);
                done(&p, Verdict::Unfinished, &why);
                return if sent {
                    After::Idle { expect_end: true }
                } else {
                    After::Closed
                };
            }
            Step::Closed => {
                log::warn!(
                    "dxp: {peer} disconnected during game {round} after {} moves",
                    p.game.moves().len()
                );
                done(&p, Verdict::Unfinished, "the initiator disconnected");
                return After::Closed;
            }
        }
    }
}
