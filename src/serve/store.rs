//! The games of the browser board: a bounded map from id to game, idle games expiring, and the
//! pool of engines that runs the games' searches one at a time per engine.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use crossbeam_channel::{Receiver, Sender, TrySendError};

use crate::core::variant::Variant;
use crate::engine::book::BookOptions;
use crate::engine::rng::Rng;
use crate::engine::{Engine, Options};

use super::http::ApiError;
use super::session::{Board, InfoJson, Session};

/// Engine work for one game, run by the pool with one of its engines.
pub type Job = Box<dyn FnOnce(&mut Engine) + Send>;

/// Frames an event stream may hold unread before its client is dropped as too slow.
const STREAM_BACKLOG: usize = 512;
/// Jobs that may wait for an engine before requests are refused.
const QUEUE: usize = 1024;

/// Something that happened to a game, for its event streams.
#[derive(Clone, Debug)]
pub enum Event {
    /// A search report.
    Info(InfoJson),
}

/// One game: its board behind a lock, its event subscribers, and when it was last used.
pub struct Entry {
    /// The game's id.
    pub id: String,
    board: Mutex<Box<dyn Board>>,
    subscribers: Mutex<Vec<Sender<String>>>,
    touched: Mutex<Instant>,
}

/// An event-stream frame: `event: NAME`, then the data line.
fn frame(name: &str, json: &str) -> String {
    format!("event: {name}\ndata: {json}\n\n")
}

impl Entry {
    fn new(id: String, board: Box<dyn Board>) -> Entry {
        Entry {
            id,
            board: Mutex::new(board),
            subscribers: Mutex::new(Vec::new()),
            touched: Mutex::new(Instant::now()),
        }
    }

    /// The game, locked. Never publish while holding it.
    pub fn lock(&self) -> MutexGuard<'_, Box<dyn Board>> {
        // a panic while the lock was held leaves a board that is still consistent: every
        // change to a session is a single assignment or a legal move
        self.board.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Runs `f` on the game if it is of variant `V` (it always is for the jobs it made).
    pub fn with_session<V: Variant>(&self, f: impl FnOnce(&mut Session<V>)) {
        let mut b = self.lock();
        if let Some(s) = b.as_any_mut().downcast_mut::<Session<V>>() {
            f(s);
        }
    }

    /// The state as JSON text.
    pub fn state_json(&self) -> String {
        let state = self.lock().state(&self.id);
        serde_json::to_string(&state).expect("the state serializes")
    }

    /// Sends a frame to every stream. The frame is made while the streams are locked, so that
    /// frames made from the game's state reach every stream in the order the states occurred
    /// (the lock order is always streams, then board; nothing publishes holding the board).
    fn broadcast(&self, make: impl FnOnce() -> Option<String>) {
        let mut subs = self.subscribers.lock().unwrap_or_else(|e| e.into_inner());
        let Some(text) = make() else { return };
        // a closed stream or one that stopped reading is dropped
        subs.retain(|s| match s.try_send(text.clone()) {
            Ok(()) => true,
            Err(TrySendError::Full(_) | TrySendError::Disconnected(_)) => false,
        });
    }

    /// Sends an event to every stream of this game.
    pub fn publish(&self, event: Event) {
        match event {
            Event::Info(info) => self.broadcast(|| {
                Some(frame(
                    "info",
                    &serde_json::to_string(&info).expect("info serializes"),
                ))
            }),
        }
    }

    /// Sends the state to every stream.
    pub fn publish_state(&self) {
        self.broadcast(|| Some(frame("state", &self.state_json())));
    }

    /// Sends the review's progress to every stream.
    pub fn publish_review(&self) {
        self.broadcast(|| {
            let review = self.lock().review_state()?;
            Some(frame(
                "review",
                &serde_json::to_string(&review).expect("review serializes"),
            ))
        });
    }

    /// A new event stream, starting with the current state.
    pub fn subscribe(&self) -> Receiver<String> {
        let (tx, rx) = crossbeam_channel::bounded(STREAM_BACKLOG);
        let mut subs = self.subscribers.lock().unwrap_or_else(|e| e.into_inner());
        let _ = tx.try_send(frame("state", &self.state_json()));
        subs.push(tx);
        rx
    }

    fn touch(&self) {
        *self.touched.lock().unwrap_or_else(|e| e.into_inner()) = Instant::now();
    }

    fn idle(&self) -> Duration {
        self.touched
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .elapsed()
    }

    /// Ends the game's searches and streams (it is being removed).
    fn close(&self) {
        self.lock().abandon();
        self.subscribers
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clear();
    }
}

struct Work {
    entry: Arc<Entry>,
    job: Job,
}

/// Limits of the store.
#[derive(Clone, Copy, Debug)]
pub struct StoreLimits {
    /// Games at most.
    pub max_games: usize,
    /// A game untouched for this long is removed.
    pub idle: Duration,
    /// Engines (searches at once).
    pub engines: usize,
}

/// Every game of the server and the engines that search for them.
pub struct Store {
    games: Mutex<HashMap<String, Arc<Entry>>>,
    limits: StoreLimits,
    work: Sender<Work>,
    rng: Mutex<Rng>,
}

impl Store {
    /// A store with its engine threads started.
    pub fn new(limits: StoreLimits) -> Arc<Store> {
        let (tx, rx) = crossbeam_channel::bounded::<Work>(QUEUE);
        for i in 0..limits.engines.max(1) {
            let rx = rx.clone();
            std::thread::Builder::new()
                .name(format!("engine-{i}"))
                .spawn(move || engine_loop(rx))
                .expect("an engine thread starts");
        }
        Arc::new(Store {
            games: Mutex::new(HashMap::new()),
            limits,
            work: tx,
            rng: Mutex::new(Rng::new(Options::fresh_seed())),
        })
    }

    fn games(&self) -> MutexGuard<'_, HashMap<String, Arc<Entry>>> {
        self.games.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Adds a game; refused when the store is full even after removing idle games.
    pub fn create(&self, board: Box<dyn Board>) -> Result<Arc<Entry>, ApiError> {
        self.sweep();
        let mut games = self.games();
        if games.len() >= self.limits.max_games {
            return Err(ApiError::unavailable(format!(
                "too many games ({}): delete one or wait until one expires",
                games.len()
            )));
        }
        let id = loop {
            let n = self
                .rng
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .next_u64();
            let id = format!("{:012x}", n & 0xFFFF_FFFF_FFFF);
            if !games.contains_key(&id) {
                break id;
            }
        };
        let entry = Arc::new(Entry::new(id.clone(), board));
        games.insert(id, Arc::clone(&entry));
        Ok(entry)
    }

    /// The game with this id (and marks it used).
    pub fn get(&self, id: &str) -> Result<Arc<Entry>, ApiError> {
        let entry = self
            .games()
            .get(id)
            .cloned()
            .ok_or_else(|| ApiError::not_found(format!("no game '{}'", clip(id))))?;
        entry.touch();
        Ok(entry)
    }

    /// Removes a game, ending its searches and streams.
    pub fn remove(&self, id: &str) -> Result<(), ApiError> {
        let entry = self
            .games()
            .remove(id)
            .ok_or_else(|| ApiError::not_found(format!("no game '{}'", clip(id))))?;
        entry.close();
        Ok(())
    }

    /// How many games there are.
    pub fn len(&self) -> usize {
        self.games().len()
    }

    /// Whether there is no game.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Removes the games idle for longer than the limit.
    pub fn sweep(&self) {
        let idle = self.limits.idle;
        let expired: Vec<Arc<Entry>> = {
            let mut games = self.games();
            let ids: Vec<String> = games
                .iter()
                .filter(|(_, e)| e.idle() > idle)
                .map(|(id, _)| id.clone())
                .collect();
            ids.iter().filter_map(|id| games.remove(id)).collect()
        };
        for e in expired {
            log::info!("game {} expired", e.id);
            e.close();
        }
    }

    /// Queues a job of a game for the engines.
    pub fn submit(&self, entry: &Arc<Entry>, job: Job) -> Result<(), ApiError> {
        self.work
            .try_send(Work {
                entry: Arc::clone(entry),
                job,
            })
            .map_err(|_| ApiError::unavailable("the engines are overloaded: try again later"))
    }
}

/// An id as an error message quotes it (untrusted text, kept short).
fn clip(id: &str) -> String {
    id.chars().take(40).collect()
}

/// An engine of the pool: one thread, its own seed, the book on (jobs set it per search).
fn fresh_engine() -> Engine {
    Engine::new(Options {
        seed: Options::fresh_seed(),
        book: BookOptions::on(),
        ..Options::default()
    })
}

fn engine_loop(rx: Receiver<Work>) {
    let mut engine = fresh_engine();
    let mut last_game = String::new();
    while let Ok(Work { entry, job }) = rx.recv() {
        if entry.id != last_game {
            engine.new_game();
            last_game.clone_from(&entry.id);
        }
        // a panicking search must not take the engine thread (and every game) with it
        let run = std::panic::AssertUnwindSafe(|| job(&mut engine));
        if std::panic::catch_unwind(run).is_err() {
            log::error!("a search of game {} panicked", entry.id);
            engine = fresh_engine();
            entry.lock().abandon();
        }
        entry.publish_state();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::variant::VariantKind;
    use crate::serve::session::{new_board, Settings};

    fn board() -> Box<dyn Board> {
        new_board(VariantKind::International, None, None, Settings::default()).unwrap()
    }

    #[test]
    fn games_are_bounded_and_idle_ones_expire() {
        let store = Store::new(StoreLimits {
            max_games: 2,
            idle: Duration::from_millis(50),
            engines: 1,
        });
        let a = store.create(board()).unwrap();
        store.create(board()).unwrap();
        assert_eq!(store.create(board()).err().map(|e| e.status), Some(503));
        assert_eq!(store.len(), 2);
        std::thread::sleep(Duration::from_millis(80));
        // a game in use stays, the other expires
        store.get(&a.id).unwrap();
        store.sweep();
        assert_eq!(store.len(), 1);
        assert!(store.get(&a.id).is_ok());
        // an expired game's streams end
        let rx = a.subscribe();
        assert!(rx.recv().unwrap().starts_with("event: state"));
        store.remove(&a.id).unwrap();
        assert!(rx.recv().is_err());
        assert_eq!(store.remove(&a.id).unwrap_err().status, 404);
        assert!(store.is_empty());
    }
}
