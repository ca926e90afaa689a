//! One game in progress, as both roles play it: our moves from the engine, the peer's moves
//! checked against the legal moves, both clocks, take-backs, and every incoming event sorted
//! into what the role must decide ([`Step`]).

use std::time::Instant;

use super::clock::{Caps, GameClock, TimeControl};
use super::link::{Event, Link};
use super::message::{BackAcc, BackReq, GameEnd, GameReq, Message, MoveMsg};
use super::player::Player;
use super::record::{Record, Verdict};
use super::Settings;
use crate::core::{movegen, Color, Game, International, Position};

/// What an event meant for the game.
#[derive(Debug)]
pub enum Step {
    /// Nothing the role has to decide (a chat, a take-back, a search that was cancelled).
    Continue,
    /// A move was played, ours or the peer's.
    Moved,
    /// The peer ended the game.
    PeerEnded(GameEnd),
    /// The peer proposed a new game in the middle of this one.
    PeerRequest(GameReq),
    /// The peer broke the protocol (an illegal, malformed or untimely message): the game cannot
    /// go on. The text says what was wrong.
    Broken(String),
    /// The connection is gone.
    Closed,
    /// The deadline passed.
    Timeout,
    /// The search started by [`Play::evaluate`] ended with this score, in hundredths of a man
    /// for the side to move (`None`: no search could run).
    Evaluated(Option<i32>),
}

/// A game being played on a connection.
pub struct Play<'a> {
    /// The connection.
    pub link: &'a mut Link,
    player: &'a mut Player,
    caps: Caps,
    our_name: String,
    peer_name: String,
    /// The game so far.
    pub game: Game<International>,
    /// The colour we play.
    pub us: Color,
    clock: GameClock,
    peer_clock: GameClock,
    turn_started: Instant,
    thinking: Option<u64>,
    /// The running search is an evaluation, not a move to send.
    evaluating: bool,
    accept_takeback: bool,
}

impl<'a> Play<'a> {
    /// Starts a game from `start` in which we play `us` under the time control `tc`.
    /// `accept_takeback` says whether BACKREQ is honoured (the follower) or declined (the
    /// initiator, whose match results must stand).
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        link: &'a mut Link,
        player: &'a mut Player,
        settings: &Settings,
        peer_name: &str,
        start: Position<International>,
        us: Color,
        tc: TimeControl,
        accept_takeback: bool,
    ) -> Play<'a> {
        player.new_game();
        Play {
            link,
            player,
            caps: settings.caps,
            our_name: settings.name.clone(),
            peer_name: if peer_name.is_empty() {
                "peer".to_string()
            } else {
                peer_name.to_string()
            },
            game: Game::new(start),
            us,
            clock: GameClock::new(tc, settings.zero_minutes),
            peer_clock: GameClock::new(tc, settings.zero_minutes),
            turn_started: Instant::now(),
            thinking: None,
            evaluating: false,
            accept_takeback,
        }
    }

    /// Whether it is our move.
    pub fn our_turn(&self) -> bool {
        self.game.position().side() == self.us
    }

    /// The moves `c` has played in this game.
    pub fn moves_by(&self, c: Color) -> usize {
        let n = self.game.moves().len();
        if self.game.start().side() == c {
            n.div_ceil(2)
        } else {
            n / 2
        }
    }

    /// Whether our search is running.
    pub fn is_thinking(&self) -> bool {
        self.thinking.is_some()
    }

    /// When the current turn began.
    pub fn turn_started(&self) -> Instant {
        self.turn_started
    }

    /// Seconds the peer has left on its clock as we keep it.
    pub fn peer_left(&self) -> f64 {
        self.peer_clock.left()
    }

    /// Starts our search if it is our move, we have a move and no search runs yet.
    pub fn think(&mut self) {
        if !self.our_turn() || self.thinking.is_some() {
            return;
        }
        if movegen::legal_moves(self.game.position()).is_empty() {
            return;
        }
        let limits = self.clock.limits(&self.caps);
        log::debug!(
            "dxp: thinking with {:.2} s left ({:?} moves to go)",
            self.clock.left(),
            self.clock.moves_to_go()
        );
        self.thinking = Some(self.player.start(&self.game, limits, self.link.sender()));
    }

    /// Starts a search of at most `seconds` (and within our clock) whose score is reported as
    /// [`Step::Evaluated`] instead of a move being played: for adjudication.
    pub fn evaluate(&mut self, seconds: f64) {
        self.stop_thinking();
        let caps = Caps {
            depth: self.caps.depth,
            move_time: Some(seconds),
        };
        let limits = self.clock.limits(&caps);
        self.evaluating = true;
        self.thinking = Some(self.player.start(&self.game, limits, self.link.sender()));
    }

    /// Cancels our search, if one runs.
    pub fn stop_thinking(&mut self) {
        self.evaluating = false;
        if self.thinking.take().is_some() {
            self.player.cancel();
        }
    }

    /// Waits for the next event (until `deadline`) and handles what needs no decision.
    pub fn step(&mut self, deadline: Option<Instant>) -> Step {
        let Some(event) = self.link.next(deadline) else {
            return Step::Timeout;
        };
        match event {
            Event::SearchDone(id) => self.search_done(id),
            Event::Closed => {
                self.stop_thinking();
                Step::Closed
            }
            Event::Message(Message::Move(m)) => self.peer_move(&m),
            Event::Message(Message::GameEnd(e)) => {
                self.stop_thinking();
                Step::PeerEnded(e)
            }
            Event::Message(Message::GameReq(r)) => {
                self.stop_thinking();
                Step::PeerRequest(r)
            }
            Event::Message(Message::Chat(text)) => {
                log::info!("dxp: {} says: {text}", self.peer_name);
                Step::Continue
            }
            Event::Message(Message::BackReq(b)) => self.take_back(b),
            Event::Message(m @ (Message::GameAcc(_) | Message::BackAcc(_))) => {
                log::warn!("dxp: unexpected {} during a game: ignored", m.kind());
                if self
                    .link
                    .chat(&format!("unexpected {} during a game: ignored", m.kind()))
                {
                    Step::Continue
                } else {
                    Step::Closed
                }
            }
            Event::Malformed {
                first: Some(b'C'),
                error,
                text,
            } => {
                log::info!("dxp: unreadable chat '{text}' ({error}): ignored");
                Step::Continue
            }
            Event::Malformed { error, text, .. } => {
                Step::Broken(format!("cannot read message '{text}': {error}"))
            }
        }
    }

    fn search_done(&mut self, id: u64) -> Step {
        if self.thinking != Some(id) {
            return Step::Continue;
        }
        let Some(answer) = self.player.finish(id) else {
            return Step::Continue;
        };
        self.thinking = None;
        if std::mem::take(&mut self.evaluating) {
            return Step::Evaluated(answer.score);
        }
        let pos = *self.game.position();
        let Some(m) = answer
            .best
            .or_else(|| movegen::legal_moves(&pos).iter().next().copied())
        else {
            return Step::Continue;
        };
        let msg = MoveMsg::from_move(&m, self.turn_started.elapsed().as_secs_f64());
        if !self.link.send(&Message::Move(msg)) {
            return Step::Closed;
        }
        let spent = self.turn_started.elapsed().as_secs_f64();
        self.clock.spend(spent);
        if self.clock.left() < 0.0 {
            log::warn!("dxp: our clock is exceeded by {:.3} s", -self.clock.left());
        }
        if let Err(e) = self.game.play(m) {
            // cannot happen: the move came from the legal moves of this position
            log::error!("dxp: our own move was rejected: {e}");
        }
        self.turn_started = Instant::now();
        Step::Moved
    }

    fn peer_move(&mut self, m: &MoveMsg) -> Step {
        if self.our_turn() {
            return Step::Broken(format!("move {m} out of turn: it is my move"));
        }
        let Some(mv) = m.find(self.game.position()) else {
            return Step::Broken(format!(
                "illegal move {m} in {}",
                crate::core::fen::write(self.game.position())
            ));
        };
        self.peer_clock
            .spend(self.turn_started.elapsed().as_secs_f64());
        if let Err(e) = self.game.play(mv) {
            return Step::Broken(format!("move {m}: {e}"));
        }
        self.turn_started = Instant::now();
        Step::Moved
    }

    /// The index in the game of the position with move number `number` and `side` to move.
    fn ply_of(&self, b: BackReq) -> Option<usize> {
        let first_black = usize::from(self.game.start().side() == Color::Black);
        let i =
            (usize::from(b.move_number)).checked_sub(1)? * 2 + usize::from(b.side == Color::Black);
        let i = i.checked_sub(first_black)?;
        (i <= self.game.moves().len()).then_some(i)
    }

    fn take_back(&mut self, b: BackReq) -> Step {
        let target = if self.accept_takeback {
            self.ply_of(b)
        } else {
            None
        };
        let Some(target) = target else {
            log::info!("dxp: take-back to move {} declined", b.move_number);
            return if self.link.send(&Message::BackAcc(BackAcc::Continue)) {
                Step::Continue
            } else {
                Step::Closed
            };
        };
        self.stop_thinking();
        while self.game.moves().len() > target {
            self.game.undo();
        }
        let ours = self.game.positions()[..self.game.moves().len()]
            .iter()
            .filter(|p| p.side() == self.us)
            .count();
        self.clock.set_moves_made(ours as u32);
        self.turn_started = Instant::now();
        log::info!(
            "dxp: took back to move {} ({} plies played)",
            b.move_number,
            target
        );
        if self.link.send(&Message::BackAcc(BackAcc::Accepted)) {
            Step::Continue
        } else {
            Step::Closed
        }
    }

    /// Sends our GAMEEND.
    pub fn send_end(&mut self, end: GameEnd) -> bool {
        self.stop_thinking();
        self.link.send(&Message::GameEnd(end))
    }

    /// Ends the game after a protocol error: says what was wrong in a chat, then sends GAMEEND
    /// with reason 0.
    pub fn fail(&mut self, why: &str, stop: bool) -> bool {
        self.stop_thinking();
        log::warn!("dxp: {why}: ending the game");
        self.link.chat(&format!("error: {why}; ending the game"))
            && self.send_end(GameEnd {
                reason: super::message::EndReason::Unknown,
                stop,
            })
    }

    /// The record of the game as it stands.
    pub fn record(&self, round: usize, verdict: Verdict, ending: &str) -> Record {
        let mut seconds = [0.0; 2];
        seconds[self.us.index()] = self.clock.used();
        seconds[self.us.opponent().index()] = self.peer_clock.used();
        Record {
            round,
            game: self.game.clone(),
            us: self.us,
            our_name: self.our_name.clone(),
            peer_name: self.peer_name.clone(),
            verdict,
            ending: ending.to_string(),
            seconds,
        }
    }
}

impl Drop for Play<'_> {
    fn drop(&mut self) {
        self.stop_thinking();
    }
}
