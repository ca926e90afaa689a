//! The engine: one API that the protocols and the command line call. Set up a game, give limits,
//! search with a progress callback, stop or ponder through a [`SearchHandle`].
//!
//! The search itself knows nothing of protocols.

pub mod book;
pub mod egdb;
pub mod eval;
pub mod evaluator;
pub mod filefmt;
pub mod history;
pub mod levels;
pub mod pattern;
pub mod rng;
pub mod search;
pub mod time;
pub mod tt;

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;

use crate::core::game::{DrawClocks, Game};
use crate::core::movegen;
use crate::core::moves::Move;
use crate::core::position::Position;
use crate::core::variant::Variant;
use book::BookOptions;
use eval::Weights;
use evaluator::{EvalKind, Evaluator};
use levels::Level;
use pattern::PatternEval;
pub use search::SearchParams;
pub use search::SearchStats;
use search::{Shared, Worker, INF, MATE, MATE_BOUND, MAX_PLY, WIN_BOUND};
use time::{Clock, Limits};
use tt::Tt;

/// What a search is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Find a move to play (a single legal move is answered at once).
    Think,
    /// Search the position after the expected opponent move until ponder-hit or stop.
    Ponder,
    /// Analyse: no shortcuts, full strength.
    Analyze,
}

/// Engine settings.
#[derive(Clone, Debug)]
pub struct Options {
    /// Search threads.
    pub threads: usize,
    /// Transposition table size in MiB.
    pub tt_mib: usize,
    /// Playing level.
    pub level: Level,
    /// Seed of the random choices of the weaker levels.
    pub seed: u64,
    /// The evaluation: the learned net or the handwritten one.
    pub eval: EvalKind,
    /// A net to play with instead of the built-in one (for the variant it was made for).
    pub net: Option<Arc<PatternEval>>,
    /// The opening book (off by default; the protocols turn it on).
    pub book: BookOptions,
    /// The endgame database, used by searches of its variant.
    pub egdb: Option<Arc<egdb::Egdb>>,
    /// The search's settings.
    pub search: SearchParams,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            threads: 1,
            tt_mib: 64,
            level: Level::EXPERT,
            seed: 0x005E_EDDA_3A57,
            eval: EvalKind::default(),
            net: None,
            book: BookOptions::default(),
            egdb: None,
            search: SearchParams::DEFAULT,
        }
    }
}

impl Options {
    /// A seed that differs from process to process and from run to run, so that book choices
    /// vary from game to game (the default seed makes every run the same).
    pub fn fresh_seed() -> u64 {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as u64);
        nanos ^ (u64::from(std::process::id()) << 32) ^ 0x9E37_79B9_7F4A_7C15
    }
}

/// Progress of a search, reported after every iteration.
#[derive(Clone, Debug)]
pub struct Info<V: Variant> {
    /// Iteration depth.
    pub depth: u32,
    /// Average depth of the leaves searched in the iteration.
    pub mean_depth: f64,
    /// Score in hundredths of a man for the side to move; beyond ±9000 a won or lost game.
    pub score: i32,
    /// Nodes searched by all threads.
    pub nodes: u64,
    /// Seconds since the search began.
    pub time: f64,
    /// The principal variation.
    pub pv: Vec<Move<V>>,
    /// The main thread's search counters since the search began.
    pub stats: SearchStats,
    /// The share (0 to 1) of the iteration's root nodes (main thread) that went to its best
    /// move, when known.
    pub best_share: Option<f64>,
}

impl<V: Variant> Info<V> {
    /// Nodes per second.
    pub fn nps(&self) -> f64 {
        if self.time > 0.0 {
            self.nodes as f64 / self.time
        } else {
            0.0
        }
    }
}

/// The answer of a search.
#[derive(Clone, Debug)]
pub struct Outcome<V: Variant> {
    /// The move to play (`None` when there is no legal move).
    pub best: Option<Move<V>>,
    /// The expected reply.
    pub ponder: Option<Move<V>>,
    /// Score of the best line, for the side to move.
    pub score: i32,
    /// Deepest completed iteration.
    pub depth: u32,
    /// Nodes searched.
    pub nodes: u64,
    /// Seconds used.
    pub time: f64,
    /// The principal variation.
    pub pv: Vec<Move<V>>,
}

impl<V: Variant> Outcome<V> {
    /// Answers with the line `pv` (not empty) of score `score`: its first move is played and its
    /// second is the expected reply.
    fn take_line(&mut self, pv: Vec<Move<V>>, score: i32) {
        self.best = Some(pv[0]);
        self.ponder = pv.get(1).copied();
        self.score = score;
        self.pv = pv;
    }
}

/// Controls a running search from another thread: stop it, or tell it the ponder move was played.
#[derive(Clone, Debug, Default)]
pub struct SearchHandle {
    stop: Arc<AtomicBool>,
    ponder_hit: Arc<AtomicBool>,
}

impl SearchHandle {
    /// A fresh handle for one search.
    pub fn new() -> Self {
        Self::default()
    }

    /// Asks the search to stop as soon as possible and answer its best move.
    pub fn stop(&self) {
        self.stop.store(true, Ordering::Relaxed);
    }

    /// The opponent played the expected move: the ponder search becomes a normal timed search.
    pub fn ponder_hit(&self) {
        self.ponder_hit.store(true, Ordering::Relaxed);
    }

    /// Whether stop was asked.
    pub fn is_stopped(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }
}

/// The engine: options and the transposition table that survives between searches of a game.
pub struct Engine {
    options: Options,
    tt: Tt,
    rng: rng::Rng,
    weights: Weights,
    /// The move-ordering history the last search's threads ended with.
    kept_history: history::KeptHistory,
}

impl Default for Engine {
    fn default() -> Self {
        Self::new(Options::default())
    }
}

/// Score as the Hub and the command line print it: men with two decimals.
pub fn score_in_men(score: i32) -> String {
    format!("{:.2}", score as f64 / 100.0)
}

impl Engine {
    /// An engine with the given options.
    pub fn new(options: Options) -> Engine {
        let tt = Tt::new(options.tt_mib);
        let rng = rng::Rng::new(options.seed);
        Engine {
            options,
            tt,
            rng,
            weights: Weights::DEFAULT,
            kept_history: history::KeptHistory::default(),
        }
    }

    /// The current options.
    pub fn options(&self) -> &Options {
        &self.options
    }

    /// Sets the number of search threads (at least 1).
    pub fn set_threads(&mut self, n: usize) {
        self.options.threads = n.clamp(1, 256);
    }

    /// Resizes (and clears) the transposition table.
    pub fn set_tt_mib(&mut self, mib: usize) {
        self.options.tt_mib = mib.max(1);
        self.tt = Tt::new(self.options.tt_mib);
    }

    /// Sets the playing level.
    pub fn set_level(&mut self, level: Level) {
        self.options.level = level;
    }

    /// Sets the evaluation weights (for tuning and for measuring one set against another).
    pub fn set_weights(&mut self, weights: Weights) {
        self.weights = weights;
    }

    /// Chooses the evaluation: the learned net or the handwritten one.
    pub fn set_eval_kind(&mut self, kind: EvalKind) {
        self.options.eval = kind;
    }

    /// Plays with this net (for the variant it was made for) instead of the built-in one;
    /// `None` goes back to the built-in net.
    pub fn set_net(&mut self, net: Option<Arc<PatternEval>>) {
        self.options.net = net;
    }

    /// The evaluation a search of variant `V` uses.
    pub fn evaluator<V: Variant>(&self) -> Evaluator {
        Evaluator::for_variant::<V>(self.options.eval, self.options.net.as_ref(), &self.weights)
    }

    /// Sets the search's selectivity (for tuning and for measuring one setting against another).
    pub fn set_search_params(&mut self, params: SearchParams) {
        self.options.search = params;
    }

    /// Sets the endgame database (`None`: none).
    pub fn set_egdb(&mut self, db: Option<Arc<egdb::Egdb>>) {
        self.options.egdb = db;
    }

    /// The endgame database for a search of variant `V`, if there is one for it.
    pub fn egdb<V: Variant>(&self) -> Option<&egdb::Egdb> {
        self.options
            .egdb
            .as_deref()
            .filter(|d| d.kind() == V::KIND && d.pieces() > 0)
    }

    /// Sets how the opening book is used.
    pub fn set_book(&mut self, book: BookOptions) {
        self.options.book = book;
    }

    /// The book a game of variant `V` is played from, if any (the enabled flag aside): the
    /// book file of the options when it is this variant's, else the built-in one.
    pub fn book<V: Variant>(&self) -> Option<&book::Book> {
        match &self.options.book.file {
            Some(b) if b.game_type() == V::GAME_TYPE as u16 => Some(b),
            Some(_) => None,
            None => book::builtin::<V>(),
        }
    }

    /// The moves the book may play in the game's position: none when the book is off, does not
    /// hold the position, or holds it no closer to the start than the ply limit.
    pub fn book_candidates<V: Variant>(&self, game: &Game<V>) -> Vec<book::BookMove<V>> {
        let o = &self.options.book;
        let pos = game.position();
        match self.book::<V>() {
            Some(b) if o.enabled && b.ply(pos).is_some_and(|p| p < o.max_ply) => {
                b.candidates(pos, o.margin)
            }
            _ => Vec::new(),
        }
    }

    /// The book move to play in the game's position, drawn among the
    /// [`book_candidates`](Self::book_candidates).
    pub fn book_move<V: Variant>(&mut self, game: &Game<V>) -> Option<book::BookMove<V>> {
        let candidates = self.book_candidates(game);
        book::choose_among(&candidates, self.options.book.margin, &mut self.rng)
    }

    /// Forgets everything learnt in earlier searches.
    pub fn new_game(&mut self) {
        self.tt.clear();
        self.kept_history.clear();
    }

    /// Searches the game's current position to `limits` without progress reports or a handle
    /// (for tools that only want the answer).
    pub fn search_to<V: Variant>(
        &mut self,
        game: &Game<V>,
        limits: &Limits,
        mode: Mode,
    ) -> Outcome<V> {
        self.search(game, limits, mode, &SearchHandle::new(), &mut |_| {})
    }

    /// Searches the game's current position.
    pub fn search<V: Variant>(
        &mut self,
        game: &Game<V>,
        limits: &Limits,
        mode: Mode,
        handle: &SearchHandle,
        on_info: &mut dyn FnMut(&Info<V>),
    ) -> Outcome<V> {
        let pos = *game.position();
        let legal = movegen::legal_moves(&pos);
        let params = self.options.search;
        let plan = params.time.at_phase(eval::phase(&pos));
        let clock = Clock::planned(limits, mode == Mode::Ponder, plan);
        let mut out = Outcome {
            best: None,
            ponder: None,
            score: -MATE,
            depth: 0,
            nodes: 0,
            time: 0.0,
            pv: Vec::new(),
        };
        if legal.is_empty() {
            return out;
        }
        // a move to answer even if stopped before the first iteration completes
        out.best = Some(legal[0]);
        out.pv = vec![legal[0]];
        let level = if mode == Mode::Analyze {
            Level::EXPERT
        } else {
            self.options.level
        };
        if legal.len() == 1 && mode == Mode::Think {
            out.best = Some(legal[0]);
            out.pv = vec![legal[0]];
            out.score = 0;
            return out;
        }
        if mode == Mode::Think {
            if let Some(b) = self.book_move(game) {
                out.best = Some(b.mv);
                out.score = b.score;
                out.pv = vec![b.mv];
                let after = game.position().make(&b.mv);
                if let Some(reply) = self.book::<V>().and_then(|book| book.moves(&after)) {
                    out.ponder = reply.first().map(|r| r.mv);
                    out.pv.extend(out.ponder);
                }
                out.time = clock.elapsed();
                on_info(&Info {
                    depth: 0,
                    mean_depth: 0.0,
                    score: out.score,
                    nodes: 0,
                    time: out.time,
                    pv: out.pv.clone(),
                    stats: SearchStats::default(),
                    best_share: None,
                });
                return out;
            }
        }
        self.tt.new_search();
        let mut max_depth = limits
            .depth
            .unwrap_or(MAX_PLY as u32 - 8)
            .clamp(1, MAX_PLY as u32 - 8);
        if let Some(d) = level.max_depth() {
            max_depth = max_depth.min(d);
        }
        let threads = self.options.threads.max(1);
        // each thread's history from the last search of the game, when it is carried over
        let mut seeds = (0..threads)
            .map(|id| self.kept_history.take::<V>(id, params.history_keep))
            .collect::<Vec<_>>()
            .into_iter();
        let main_seed = seeds.next().flatten();
        let shared = Shared {
            tt: &self.tt,
            stop: &handle.stop,
            nodes: AtomicU64::new(0),
            clock: &clock,
            node_limit: limits.nodes,
            eval: self.evaluator::<V>(),
            params,
            ponder_hit: Some(&handle.ponder_hit),
            egdb: self.egdb::<V>(),
        };
        let history = game.reversible_hashes();
        let clocks = game.clocks();
        let root: Vec<Move<V>> = legal.iter().copied().collect();
        let ponder_hit = &handle.ponder_hit;
        // the deepest iteration a helper completed: its depth, score and line
        let helper_best: std::sync::Mutex<(u32, i32, Vec<Move<V>>)> =
            std::sync::Mutex::new((0, 0, Vec::new()));
        // the depth of the main thread's current iteration
        let main_depth = std::sync::atomic::AtomicU32::new(0);
        let ahead = self.options.search.smp_ahead;
        // split points instead of Lazy SMP, when asked and there is a helper
        let board = (params.smp_split > 0 && threads > 1).then(search::SplitBoard::<V>::new);
        let board = board.as_ref();

        let tables = std::thread::scope(|scope| {
            let helpers = (1..threads)
                .zip(seeds)
                .filter_map(|(id, seed)| {
                    let shared = &shared;
                    let history = &history;
                    let helper_best = &helper_best;
                    let main_depth = &main_depth;
                    let root = root.clone();
                    std::thread::Builder::new()
                        .stack_size(64 << 20)
                        .spawn_scoped(scope, move || {
                            let mut w = Worker::<V>::new(shared, false, history)
                                .with_history(seed)
                                .with_split(board);
                            if board.is_some() {
                                w.help();
                                return w.into_history();
                            }
                            let mut order = root;
                            let mut d = params.helper_first_depth(id);
                            let mut score = 0;
                            while d <= max_depth as i32 && !shared.stop.load(Ordering::Relaxed) {
                                score = aspiration(&mut w, &pos, clocks, &order, d, score, params);
                                if w.stopped() {
                                    break;
                                }
                                if !w.root_pv().is_empty() {
                                    w.reorder_root(&mut order);
                                    if let Ok(mut best) = helper_best.lock() {
                                        if d as u32 > best.0 {
                                            *best = (d as u32, score, w.root_pv().to_vec());
                                        }
                                    }
                                }
                                d += 1;
                                if ahead {
                                    d = d.max(main_depth.load(Ordering::Relaxed) as i32 + 1);
                                }
                            }
                            w.finish();
                            w.into_history()
                        })
                        .ok()
                })
                .collect::<Vec<_>>();

            let mut w = Worker::<V>::new(&shared, true, &history)
                .with_history(main_seed)
                .with_split(board);
            let mut order = root.clone();
            let mut score: i32 = 0;
            let mut stable = 0;
            for depth in 1..=max_depth as i32 {
                main_depth.store(depth as u32, Ordering::Relaxed);
                if clock.pondering() && ponder_hit.load(Ordering::Relaxed) {
                    clock.ponder_hit();
                }
                let s = aspiration(&mut w, &pos, clocks, &order, depth, score, params);
                if w.stopped() && out.depth > 0 {
                    // the interrupted iteration may already have proved a better move
                    if params.partial_root && !w.root_pv().is_empty() {
                        out.take_line(w.root_pv().to_vec(), w.root_score());
                    }
                    break;
                }
                let pv = w.root_pv().to_vec();
                if pv.is_empty() {
                    break;
                }
                let changed = out.best != Some(pv[0]);
                // the best move's share of this iteration's effort (before the reordering)
                let best_share = order
                    .iter()
                    .position(|m| *m == pv[0])
                    .and_then(|i| w.root_share(i));
                stable = if changed { 0 } else { stable + 1 };
                let score_before = score;
                score = s;
                w.reorder_root(&mut order);
                out.take_line(pv, s);
                out.depth = depth as u32;
                w.finish();
                let info = Info {
                    depth: depth as u32,
                    mean_depth: w.mean_depth(),
                    score: s,
                    nodes: shared.nodes.load(Ordering::Relaxed),
                    time: clock.elapsed(),
                    pv: out.pv.clone(),
                    stats: w.stats(),
                    best_share,
                };
                on_info(&info);
                if w.stopped() {
                    break;
                }
                // a proven result needs no deeper search when playing
                if mode != Mode::Analyze && s.abs() > MATE_BOUND && depth > (MATE - s.abs()) + 2 {
                    break;
                }
                let mut factor: f64 = if changed && depth > 4 {
                    1.5
                } else if stable >= 3 {
                    0.6
                } else {
                    1.0
                };
                // a falling score asks for more time to find the way out
                if params.time_drop > 0 && depth > 4 && s <= score_before - params.time_drop {
                    factor = factor.max(1.0) * 1.5;
                }
                // a best move that took nearly all the effort is clear, a contested one not
                if let Some(share) = best_share.filter(|_| depth > 4) {
                    factor *=
                        time::effort_factor(params.time_nodes, params.time_nodes_center, share);
                }
                if clock.soft_expired(factor) {
                    break;
                }
                if let Some(limit) = limits.nodes {
                    if shared.nodes.load(Ordering::Relaxed) >= limit {
                        break;
                    }
                }
            }
            // keep pondering/infinite searches alive until told otherwise
            while (clock.pondering() && !ponder_hit.load(Ordering::Relaxed) || limits.infinite)
                && !handle.stop.load(Ordering::Relaxed)
                && mode != Mode::Think
            {
                std::thread::sleep(std::time::Duration::from_millis(2));
            }
            w.finish();
            handle.stop.store(true, Ordering::Relaxed);
            let mut tables = vec![w.into_history()];
            for h in helpers {
                tables.push(h.join().unwrap_or_default());
            }
            tables
        });
        // a helper that completed a deeper iteration than the main thread has the better move
        if let Ok((depth, score, pv)) = helper_best.into_inner() {
            if self.options.search.smp_vote
                && depth > out.depth
                && !pv.is_empty()
                && mode != Mode::Analyze
            {
                out.take_line(pv, score);
                out.depth = depth;
            }
        }
        out.nodes = shared.nodes.load(Ordering::Relaxed);
        out.time = clock.elapsed();
        self.kept_history.keep::<V>(tables);
        if !level.is_full() && mode != Mode::Analyze {
            self.weaken(game, &mut out, level, max_depth);
        }
        out
    }

    /// Chooses a weaker move for the lower levels: every legal move is scored by a short search,
    /// and one is drawn among those not worse than the level's allowed loss, the better ones being
    /// likelier.
    fn weaken<V: Variant>(
        &mut self,
        game: &Game<V>,
        out: &mut Outcome<V>,
        level: Level,
        depth: u32,
    ) {
        let pos = *game.position();
        let legal = movegen::legal_moves(&pos);
        if legal.len() < 2 {
            return;
        }
        let stop = AtomicBool::new(false);
        let clock = Clock::new(&Limits::default(), false);
        let shared = Shared {
            tt: &self.tt,
            stop: &stop,
            nodes: AtomicU64::new(0),
            clock: &clock,
            node_limit: None,
            eval: self.evaluator::<V>(),
            params: self.options.search,
            ponder_hit: None,
            egdb: self.egdb::<V>(),
        };
        let history = game.reversible_hashes();
        let mut w = Worker::<V>::new(&shared, true, &history);
        let d = depth.clamp(1, 4) as i32;
        let scored: Vec<(Move<V>, i32)> = legal
            .iter()
            .map(|m| (*m, w.root(&pos, game.clocks(), &[*m], d, -INF, INF)))
            .collect();
        let best = scored.iter().map(|x| x.1).max().unwrap_or(0);
        let t = level.temperature().max(1.0);
        let ok: Vec<(Move<V>, f64)> = scored
            .iter()
            .filter(|(_, s)| *s >= best - level.max_loss())
            .map(|(m, s)| (*m, (((*s - best) as f64) / t).exp()))
            .collect();
        let total: f64 = ok.iter().map(|x| x.1).sum();
        let mut r = (self.rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64 * total;
        for (m, wgt) in &ok {
            r -= wgt;
            if r <= 0.0 {
                if out.best != Some(*m) {
                    out.best = Some(*m);
                    out.ponder = None;
                    out.pv = vec![*m];
                    out.score = scored.iter().find(|x| x.0 == *m).map_or(out.score, |x| x.1);
                }
                return;
            }
        }
    }
}
/// Searches the root to `depth` in an aspiration window around the previous iteration's
/// `score`, widening it on a fail; the first iterations and mate scores use the full window.
fn aspiration<V: Variant>(
    w: &mut Worker<'_, V>,
    pos: &Position<V>,
    clocks: DrawClocks,
    order: &[Move<V>],
    depth: i32,
    score: i32,
    params: SearchParams,
) -> i32 {
    w.clear_root_nodes();
    let mut delta = params.aspiration;
    let (mut alpha, mut beta) = if depth >= 4 && score.abs() < WIN_BOUND {
        (score - delta, score + delta)
    } else {
        (-INF, INF)
    };
    // plies taken off the re-searches after fail highs
    let mut reduce = 0;
    loop {
        let s = w.root(pos, clocks, order, (depth - reduce).max(1), alpha, beta);
        if w.stopped() {
            return s;
        }
        if s <= alpha {
            if params.aspiration_pull {
                beta = (alpha + beta) / 2;
            }
            alpha = (alpha - delta).max(-INF);
            delta *= 2;
            reduce = 0;
        } else if s >= beta {
            beta = (beta + delta).min(INF);
            delta *= 2;
            reduce = (reduce + 1).min(params.aspiration_reduce);
        } else {
            return s;
        }
        if delta > 400 {
            alpha = -INF;
            beta = INF;
        }
    }
}
