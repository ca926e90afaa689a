//! Our side of the board: the engine, searching on a thread of its own so that the peer's
//! messages are still read (and a search can be cancelled) while it thinks.

use std::panic::{self, AssertUnwindSafe};
use std::thread::{self, JoinHandle};

use crossbeam_channel::Sender;

use super::link::Event;
use crate::core::{movegen, Game, International, Move};
use crate::engine::time::Limits;
use crate::engine::{Engine, Mode, Options, SearchHandle};

/// Stack size of the search thread.
const SEARCH_STACK: usize = 64 << 20;

type Found = Option<Move<International>>;

/// The answer of a search: the move (`None` when there is none) and its score in hundredths of
/// a man for the side to move (`None` when no search ran).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Answer {
    /// The move to play.
    pub best: Found,
    /// The score of the position for the side to move.
    pub score: Option<i32>,
}

impl Answer {
    fn unsearched(best: Found) -> Answer {
        Answer { best, score: None }
    }
}

/// A search in progress.
struct Running {
    id: u64,
    handle: SearchHandle,
    thread: Option<JoinHandle<(Engine, Answer)>>,
    /// The answer when no thread could be started.
    fallback: Answer,
}

/// The engine and at most one running search.
pub struct Player {
    options: Options,
    engine: Option<Engine>,
    running: Option<Running>,
    next_id: u64,
}

/// The first legal move: the answer when the search cannot run.
fn first_legal(game: &Game<International>) -> Found {
    movegen::legal_moves(game.position()).iter().next().copied()
}

impl Player {
    /// A player with these engine options (the engine is created on first use).
    pub fn new(options: Options) -> Player {
        Player {
            options,
            engine: None,
            running: None,
            next_id: 1,
        }
    }

    /// Prepares for a new game: cancels any search and clears what the engine learnt.
    pub fn new_game(&mut self) {
        self.cancel();
        if let Some(e) = self.engine.as_mut() {
            e.new_game();
        }
    }

    /// Starts searching the game's position; `done` gets [`Event::SearchDone`] with the returned
    /// id when the answer is ready (collect it with [`Player::finish`]).
    pub fn start(
        &mut self,
        game: &Game<International>,
        limits: Limits,
        done: Sender<Event>,
    ) -> u64 {
        self.cancel();
        let id = self.next_id;
        self.next_id += 1;
        let handle = SearchHandle::new();
        let options = self.options.clone();
        let mut engine = self
            .engine
            .take()
            .unwrap_or_else(|| Engine::new(options.clone()));
        let g = game.clone();
        let h = handle.clone();
        let tx = done.clone();
        let spawned = thread::Builder::new()
            .name("dxp-search".into())
            .stack_size(SEARCH_STACK)
            .spawn(move || {
                let result = panic::catch_unwind(AssertUnwindSafe(|| {
                    engine.search(&g, &limits, Mode::Think, &h, &mut |info| {
                        log::debug!(
                            "dxp: depth {} score {} nodes {} time {:.3}",
                            info.depth,
                            info.score,
                            info.nodes,
                            info.time
                        )
                    })
                }));
                let found = match result {
                    Ok(o) => Answer {
                        best: o.best,
                        score: Some(o.score),
                    },
                    Err(_) => {
                        log::error!("dxp: the search failed; playing the first legal move");
                        engine = Engine::new(options);
                        Answer::unsearched(first_legal(&g))
                    }
                };
                let _ = tx.send(Event::SearchDone(id));
                (engine, found)
            });
        let running = match spawned {
            Ok(t) => Running {
                id,
                handle,
                thread: Some(t),
                fallback: Answer::unsearched(None),
            },
            Err(e) => {
                log::error!(
                    "dxp: cannot start the search thread ({e}); playing the first legal move"
                );
                let _ = done.send(Event::SearchDone(id));
                Running {
                    id,
                    handle,
                    thread: None,
                    fallback: Answer::unsearched(first_legal(game)),
                }
            }
        };
        self.running = Some(running);
        id
    }

    /// Takes the answer of search `id`. `None` when `id` is not the running search (a search
    /// that was cancelled).
    pub fn finish(&mut self, id: u64) -> Option<Answer> {
        if self.running.as_ref().map(|r| r.id) != Some(id) {
            return None;
        }
        let r = self.running.take()?;
        Some(self.join(r))
    }

    /// Stops the running search, if any, and forgets its answer.
    pub fn cancel(&mut self) {
        if let Some(r) = self.running.take() {
            r.handle.stop();
            let _ = self.join(r);
        }
    }

    fn join(&mut self, r: Running) -> Answer {
        match r.thread {
            None => r.fallback,
            Some(t) => match t.join() {
                Ok((engine, found)) => {
                    self.engine = Some(engine);
                    found
                }
                Err(_) => {
                    log::error!("dxp: the search thread died");
                    Answer::unsearched(None)
                }
            },
        }
    }
}

impl Drop for Player {
    fn drop(&mut self) {
        self.cancel();
    }
}
