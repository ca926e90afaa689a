//! The search: iterative deepening with aspiration windows, principal-variation alpha-beta
//! (fail-soft), a capture-resolving quiescence, a shared transposition table, killer and history
//! ordering, late-move reductions and single-reply extensions. Repetitions and the draw rules are
//! scored inside the tree; won and lost positions carry their distance.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use crate::core::game::DrawClocks;
use crate::core::movegen;
use crate::core::moves::{Move, MoveList, MAX_MOVES};
use crate::core::position::Position;
use crate::core::variant::Variant;
use crate::engine::evaluator::Evaluator;
use crate::engine::time::Clock;
use crate::engine::tt::{Bound, Entry, Tt};

mod busy;
mod params;
mod stats;

pub use busy::Busy;
pub use params::{FailLowMove, SearchParams};
pub use stats::SearchStats;

/// Score of a won game at the root (a win in `n` plies scores `MATE - n`).
pub const MATE: i32 = 10_000;
/// Scores beyond this are wins or losses.
pub const MATE_BOUND: i32 = MATE - 1_000;
/// Score of a won endgame from the database at the root, with the distance to conversion fit
/// in the draw clocks: a win `n` plies from the root and `d` plies from conversion scores
/// `DB_WIN - n - d` (about 88 to 89 men, "won endgame reached soon").
pub const DB_WIN: i32 = MATE - 1_100;
/// Scores beyond this are proven wins or losses (mates or database wins); the evaluation stays
/// inside it.
pub const WIN_BOUND: i32 = MATE - 2_000;
/// Larger than any score.
pub const INF: i32 = 30_000;
/// Deepest ply searched.
pub const MAX_PLY: usize = 128;
/// Most double singular extensions on one line.
const MAX_DOUBLES: u8 = 4;

/// State shared by every thread of one search.
pub struct Shared<'a> {
    /// The transposition table.
    pub tt: &'a Tt,
    /// Set to stop every thread.
    pub stop: &'a AtomicBool,
    /// Nodes searched by all threads (updated in batches).
    pub nodes: AtomicU64,
    /// The time plan.
    pub clock: &'a Clock,
    /// Node limit.
    pub node_limit: Option<u64>,
    /// The evaluation.
    pub eval: Evaluator,
    /// Selectivity settings.
    pub params: SearchParams,
    /// Set by the protocol when the ponder move was played (the clock starts then).
    pub ponder_hit: Option<&'a AtomicBool>,
    /// The endgame database of the variant searched, if any.
    pub egdb: Option<&'a crate::engine::egdb::Egdb>,
    /// The moves threads are searching, when several threads defer them (`smp-defer`).
    pub busy: Option<Busy>,
}

/// Most moves one node puts off for other threads (the rest are searched at once).
const MAX_DEFERRED: usize = 32;

/// Encodes a move for the table and killers: from, to and a check of the captured set.
#[inline(always)]
pub fn encode<V: Variant>(m: &Move<V>) -> u32 {
    let cap = (m.captured().0.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 44) as u32;
    m.from_bit() | m.to_bit() << 6 | cap << 12
}

/// log2 of the entries of each correction table.
const CORR_BITS: u32 = 14;
/// Correction entries are kept in this fraction of a score unit.
const CORR_GRAIN: i32 = 16;
/// The largest error (in score units) a correction entry learns from one search.
const CORR_CLAMP: i32 = 150;

/// The two correction entries of `pos`: for its side to move, one keyed by the white men and
/// one by the black men.
#[inline]
fn correction_slots<V: Variant>(pos: &Position<V>) -> [usize; 2] {
    use crate::core::variant::Color;
    let hash = |men: u64| (men.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (64 - CORR_BITS)) as usize;
    let base = pos.side().index() << (CORR_BITS + 1);
    [
        base + hash(pos.men(Color::White).0),
        base + (1 << CORR_BITS) + hash(pos.men(Color::Black).0),
    ]
}

/// What a singular test's key is mixed with: the excluded move's code spread over the word.
#[inline]
fn excluded_key(code: u32) -> u64 {
    (u64::from(code) | 1 << 40).wrapping_mul(0xD6E8_FEB8_6659_FD93)
}

/// Adjusts a proven score (a mate or a database win) from "distance from root" to "distance
/// from this node" for storing.
fn to_tt(score: i32, ply: usize) -> i32 {
    if score > WIN_BOUND {
        score + ply as i32
    } else if score < -WIN_BOUND {
        score - ply as i32
    } else {
        score
    }
}

fn from_tt(score: i32, ply: usize) -> i32 {
    if score > WIN_BOUND {
        score - ply as i32
    } else if score < -WIN_BOUND {
        score + ply as i32
    } else {
        score
    }
}

/// Entries per side of the tables indexed by a move's from and to (history, counter moves).
const FROM_TO: usize = 4096;

/// The index of a quiet move's history score: by the side that plays it, from and to.
#[inline]
fn history_slot<V: Variant>(side: usize, m: &Move<V>) -> usize {
    side * FROM_TO + m.from_to_code()
}

/// The bound of a history score under gravity: it stays within ±this.
pub(super) const HISTORY_MAX: i32 = 1 << 14;

/// Moves a history score by `bonus`, less the closer it already is to the bound in that
/// direction (so scores saturate and old ones fade as new ones come).
#[inline]
fn gravity(h: &mut i32, bonus: i32) {
    *h += bonus - *h * bonus.abs() / HISTORY_MAX;
}

/// Moves the offers among `moves` (quiet moves after which the opponent must capture) to the
/// front, with their ordering scores, keeping their order; returns how many there are.
fn keep_offers<V: Variant>(pos: &Position<V>, moves: &mut [Move<V>], scores: &mut [i32]) -> usize {
    let mut k = 0;
    for j in 0..moves.len() {
        if movegen::has_capture(&pos.make(&moves[j])) {
            moves.swap(k, j);
            scores.swap(k, j);
            k += 1;
        }
    }
    k
}

/// The late-move reductions by depth and move number (from 0): they grow with the logarithms of
/// both, scaled down by `divisor` (hundredths).
fn reductions(divisor: i32) -> Box<[[u8; 64]; 64]> {
    let mut t = Box::new([[0u8; 64]; 64]);
    if divisor > 0 {
        // the logarithms of 1..=64, computed once (index 0 is never read)
        let ln: [f64; 65] = std::array::from_fn(|x| (x as f64).ln());
        for (d, row) in t.iter_mut().enumerate().skip(1) {
            for (i, r) in row.iter_mut().enumerate() {
                let v = ln[d] * ln[i + 1] * 100.0 / divisor as f64;
                *r = (v + 0.5).min(60.0) as u8;
            }
        }
    }
    t
}

/// One search thread's private state.
pub struct Worker<'a, V: Variant> {
    shared: &'a Shared<'a>,
    /// Whether this is the main thread (it keeps time).
    main: bool,
    killers: Vec<[u32; 2]>,
    history: Vec<i32>,
    /// The quiet move (encoded) that last refuted each move, by the refuted move's side,
    /// from and to.
    counters: Vec<u32>,
    /// The from-to code of the move that led to each ply (the root's is 0).
    came_by: Vec<u16>,
    /// The move (encoded) a singular test leaves out at each ply, 0 for none.
    excluded: Vec<u32>,
    /// Double singular extensions on the line down to each ply.
    doubles: Vec<u8>,
    /// Whether the quiescence above each ply has already given a threat ply (`threat_deep`).
    threat_taken: Vec<bool>,
    /// Whether each ply's node was reached by a pass (a null move).
    passed: Vec<bool>,
    /// The static score of each ply's node on the line, when it was calm (for `improving`).
    static_evals: Vec<Option<i32>>,
    /// Correction history (see `SearchParams::correction`), in 1/`CORR_GRAIN` of a score unit.
    corrections: Vec<i16>,
    /// Hashes of the positions on the current line, the game's reversible history first.
    line: Vec<u64>,
    /// For each entry of `line`, the index where its reversible stretch begins.
    line_start: Vec<usize>,
    pv: Vec<Vec<Move<V>>>,
    nodes: u64,
    flushed: u64,
    stopped: bool,
    leaf_depth_sum: u64,
    leaves: u64,
    /// Deepest ply reached.
    pub seldepth: usize,
    /// The score of the root's best move so far in the current (or last) root search; it
    /// belongs to [`root_pv`](Self::root_pv) when that is not empty.
    root_score: i32,
    /// Late-move reductions by depth and move number.
    reductions: Box<[[u8; 64]; 64]>,
    /// Move ordering scores, one row per ply (kept here so that no node clears a large array).
    scores: Vec<[i32; MAX_MOVES]>,
    /// Nodes spent under each root move (by its place in the root list) since
    /// [`clear_root_nodes`](Self::clear_root_nodes).
    root_nodes: Vec<u64>,
    /// The history of captures (see `SearchParams::capture_history`), by side, from and to.
    capture_history: Vec<i32>,
    stats: SearchStats,
}

impl<'a, V: Variant> Worker<'a, V> {
    /// A worker for a search; `history` holds the hashes of the game's positions since the last
    /// irreversible move, the root last.
    pub fn new(shared: &'a Shared<'a>, main: bool, history: &[u64]) -> Self {
        let mut line: Vec<u64> = history.to_vec();
        if line.is_empty() {
            line.push(0);
        }
        let line_start = vec![0; line.len()];
        Worker {
            shared,
            main,
            killers: vec![[0; 2]; MAX_PLY + 2],
            history: vec![0; 2 * FROM_TO],
            counters: vec![0; 2 * FROM_TO],
            came_by: vec![0; MAX_PLY + 2],
            excluded: vec![0; MAX_PLY + 2],
            doubles: vec![0; MAX_PLY + 2],
            threat_taken: vec![false; MAX_PLY + 2],
            passed: vec![false; MAX_PLY + 2],
            static_evals: vec![None; MAX_PLY + 2],
            corrections: if shared.params.correction > 0 {
                vec![0; 4 << CORR_BITS]
            } else {
                Vec::new()
            },
            line,
            line_start,
            pv: vec![Vec::new(); MAX_PLY + 2],
            nodes: 0,
            flushed: 0,
            stopped: false,
            leaf_depth_sum: 0,
            reductions: reductions(shared.params.lmr_divisor),
            scores: vec![[0; MAX_MOVES]; MAX_PLY],
            root_nodes: Vec::new(),
            capture_history: if shared.params.capture_history {
                vec![0; 2 * FROM_TO]
            } else {
                Vec::new()
            },
            leaves: 0,
            seldepth: 0,
            root_score: -INF,
            stats: SearchStats::default(),
        }
    }

    /// Starts this worker's move-ordering history from `table` (one an earlier worker ended
    /// with, see [`into_history`](Self::into_history)); `None` or a table of another size
    /// leaves it empty.
    pub fn with_history(mut self, table: Option<Vec<i32>>) -> Self {
        if let Some(t) = table.filter(|t| t.len() == self.history.len()) {
            self.history = t;
        }
        self
    }

    /// The move-ordering history this worker ended with.
    pub fn into_history(self) -> Vec<i32> {
        self.history
    }

    /// This worker's counters since it was made.
    pub fn stats(&self) -> SearchStats {
        SearchStats {
            nodes: self.nodes,
            ..self.stats
        }
    }

    /// Nodes searched by this worker.
    pub fn nodes(&self) -> u64 {
        self.nodes
    }

    /// Average depth of the leaves of the last iteration.
    pub fn mean_depth(&self) -> f64 {
        if self.leaves == 0 {
            0.0
        } else {
            self.leaf_depth_sum as f64 / self.leaves as f64
        }
    }

    /// Forgets the nodes counted under each root move (at the start of an iteration, whose
    /// aspiration re-searches then add up).
    pub fn clear_root_nodes(&mut self) {
        self.root_nodes.clear();
    }

    /// The share (0 to 1) of the root nodes counted since
    /// [`clear_root_nodes`](Self::clear_root_nodes) that went to the root move at `index` of
    /// the root list; `None` before any.
    pub fn root_share(&self, index: usize) -> Option<f64> {
        let total: u64 = self.root_nodes.iter().sum();
        (total > 0).then(|| self.root_nodes.get(index).copied().unwrap_or(0) as f64 / total as f64)
    }

    /// Orders `order`, the root moves of the last iteration, for the next: the best move of the
    /// iteration first, then (with `by_nodes`) the others by the nodes their searches took, most
    /// first, as those came closest to the best; without it the others keep their order.
    pub fn reorder_root(&self, order: &mut [Move<V>], by_nodes: bool) {
        let Some(best) = self.pv[0].first() else {
            return;
        };
        if by_nodes {
            let mut keyed: Vec<(u64, Move<V>)> = order
                .iter()
                .enumerate()
                .map(|(i, m)| {
                    let n = self.root_nodes.get(i).copied().unwrap_or(0);
                    (if m == best { u64::MAX } else { n }, *m)
                })
                .collect();
            keyed.sort_by_key(|&(n, _)| std::cmp::Reverse(n));
            for (slot, (_, m)) in order.iter_mut().zip(keyed) {
                *slot = m;
            }
        } else if let Some(i) = order.iter().position(|m| m == best) {
            order[..=i].rotate_right(1);
        }
    }

    /// Whether the search was stopped.
    pub fn stopped(&self) -> bool {
        self.stopped
    }

    /// The principal variation of the last root search: when that search was stopped, the
    /// line of the best move it had proved by then (empty if none).
    pub fn root_pv(&self) -> &[Move<V>] {
        &self.pv[0]
    }

    /// The score of [`root_pv`](Self::root_pv)'s first move (fail-soft: a lower bound when it
    /// reached the window's upper bound).
    pub fn root_score(&self) -> i32 {
        self.root_score
    }

    fn flush_nodes(&mut self) {
        self.shared
            .nodes
            .fetch_add(self.nodes - self.flushed, Ordering::Relaxed);
        self.flushed = self.nodes;
    }

    #[inline]
    fn check_stop(&mut self) -> bool {
        if self.stopped {
            return true;
        }
        if let Some(limit) = self.shared.node_limit {
            if self.main && self.nodes >= limit {
                self.stopped = true;
                self.shared.stop.store(true, Ordering::Relaxed);
                return true;
            }
        }
        if self.nodes & 1023 == 0 {
            self.flush_nodes();
            if self.shared.stop.load(Ordering::Relaxed) {
                self.stopped = true;
            } else if self.main
                && self.shared.clock.pondering()
                && self
                    .shared
                    .ponder_hit
                    .is_some_and(|f| f.load(Ordering::Relaxed))
            {
                self.shared.clock.ponder_hit();
            } else if self.main && self.shared.clock.hard_expired() {
                self.stopped = true;
                self.shared.stop.store(true, Ordering::Relaxed);
            }
        }
        self.stopped
    }

    /// Whether the current position (last on the line) repeats an earlier one with the same side
    /// to move since the last irreversible move.
    fn repeats(&self) -> bool {
        let n = self.line.len() - 1;
        let h = self.line[n];
        let start = self.line_start[n];
        let mut i = n;
        while i >= start + 2 {
            i -= 2;
            if self.line[i] == h {
                return true;
            }
        }
        false
    }

    fn evaluate(&mut self, pos: &Position<V>, ply: usize) -> i32 {
        self.leaves += 1;
        self.leaf_depth_sum += ply as u64;
        let mut e = self.shared.eval.evaluate(pos);
        if self.shared.params.correction_leaves {
            e += self.correction(pos);
        }
        e.clamp(-WIN_BOUND + 1, WIN_BOUND - 1)
    }

    /// The static score of `pos` with what the correction history adds: the score pruning
    /// decisions compare with the window.
    fn corrected_eval(&self, pos: &Position<V>) -> i32 {
        self.shared.eval.evaluate(pos) + self.correction(pos)
    }

    /// What the correction history adds to the static score of `pos` (0 when it is off).
    #[inline]
    fn correction(&self, pos: &Position<V>) -> i32 {
        let weight = self.shared.params.correction;
        if weight == 0 {
            return 0;
        }
        let [a, b] = correction_slots(pos);
        let sum = self.corrections[a] as i32 + self.corrections[b] as i32;
        sum * weight / (2 * CORR_GRAIN * 100)
    }

    /// Moves the correction entries of `pos` towards the error of its static score `raw`
    /// (before correction) that a search to `depth` found, `best`.
    fn learn_correction(&mut self, pos: &Position<V>, raw: i32, best: i32, depth: i32) {
        let error = (best - raw).clamp(-CORR_CLAMP, CORR_CLAMP) * CORR_GRAIN;
        let rate = depth.clamp(1, 8);
        for slot in correction_slots(pos) {
            let e = self.corrections[slot] as i32;
            self.corrections[slot] = (e + (error - e) * rate / 64) as i16;
        }
    }

    /// Searches the root position to `depth` (at least 1) in the window (alpha, beta);
    /// `root_moves` is the root move list in the order to try.
    pub fn root(
        &mut self,
        pos: &Position<V>,
        clocks: DrawClocks,
        root_moves: &[Move<V>],
        depth: i32,
        alpha: i32,
        beta: i32,
    ) -> i32 {
        self.leaves = 0;
        self.leaf_depth_sum = 0;
        self.search_node(
            pos,
            clocks,
            alpha,
            beta,
            depth,
            0,
            true,
            false,
            Some(root_moves),
        )
    }

    /// What the endgame database settles at this node. A stored draw is exact under every draw
    /// rule (rules that count moves only turn wins into draws). A stored win whose distance to
    /// conversion fits in the plies the draw clocks leave is exact too, scored by that distance
    /// (so the search hurries a won ending and the losing side holds out); one that does not
    /// fit is a win or, by such a rule, a draw: at least 0, which ends the node when 0 already
    /// reaches `beta`. A stored loss likewise.
    #[inline]
    fn egdb_cut(
        &self,
        pos: &Position<V>,
        clocks: &DrawClocks,
        alpha: i32,
        beta: i32,
        ply: usize,
    ) -> Option<i32> {
        use crate::engine::egdb::{file::MAX_LOSS_PLIES, Wdl};
        let db = self.shared.egdb?;
        if pos.occupied().count() > db.pieces() {
            return None;
        }
        let e = db.probe_entry(pos).ok()?;
        // a distance cut to the byte's range is not known exactly
        let fits = || e.plies < MAX_LOSS_PLIES && e.plies <= clocks.plies_left(pos);
        let won = || DB_WIN - ply as i32 - e.plies as i32;
        match e.wdl {
            Wdl::Draw => Some(0),
            // no piece or no move left: the game is over
            Wdl::Loss if e.plies == 0 => Some(-MATE + ply as i32),
            Wdl::Win if fits() => Some(won()),
            Wdl::Loss if fits() => Some(-won()),
            Wdl::Win if beta <= 0 => Some(0),
            Wdl::Loss if alpha >= 0 => Some(0),
            _ => None,
        }
    }

    /// Searches a node. `cut_node` marks a non-PV node expected to fail high; `root_moves` is
    /// given only at the root.
    #[allow(clippy::too_many_arguments)]
    fn search_node(
        &mut self,
        pos: &Position<V>,
        clocks: DrawClocks,
        mut alpha: i32,
        mut beta: i32,
        depth: i32,
        ply: usize,
        pv_node: bool,
        cut_node: bool,
        root_moves: Option<&[Move<V>]>,
    ) -> i32 {
        self.pv[ply].clear();
        self.nodes += 1;
        if ply > self.seldepth {
            self.seldepth = ply;
        }
        if self.check_stop() {
            return 0;
        }
        let is_root = root_moves.is_some();
        if !is_root {
            if self.repeats() || clocks.draw(pos).is_some() {
                return 0;
            }
            alpha = alpha.max(-MATE + ply as i32);
            beta = beta.min(MATE - ply as i32 - 1);
            if alpha >= beta {
                return alpha;
            }
            if let Some(s) = self.egdb_cut(pos, &clocks, alpha, beta, ply) {
                self.stats.egdb_cuts += 1;
                return s;
            }
        }
        if depth <= 0 {
            self.stats.qnodes += 1;
        }
        if ply >= MAX_PLY - 1 {
            return self.evaluate(pos, ply);
        }

        let mut list = MoveList::new();
        match root_moves {
            Some(r) => {
                debug_assert!(depth >= 1, "the root is searched to depth 1 at least");
                for m in r {
                    list.push(*m);
                }
            }
            None if depth <= 0 && !movegen::has_capture(pos) => {
                // A quiet position is scored statically, unless the side to move has no move
                // (it has lost) or the opponent threatens a capture: then every move is tried
                // once more (at depth 0 only, so this adds one ply at most). The moves are only
                // generated in that case.
                if !movegen::has_quiet_move(pos) {
                    return -MATE + ply as i32;
                }
                let params = &self.shared.params;
                let deep = params.threat_deep && depth < 0 && !self.threat_taken[ply];
                let threatened = (depth == 0 || deep)
                    && ((params.threat_ply && movegen::opponent_has_capture(pos))
                        || (params.promo_ply && movegen::has_promotion_move(pos)));
                if !threatened {
                    return self.evaluate(pos, ply);
                }
                // already this far below alpha, a threatened side is taken to stay there
                if params.threat_margin > 0 && !pv_node {
                    let e = self.corrected_eval(pos);
                    if e + params.threat_margin <= alpha {
                        self.stats.threat_prunes += 1;
                        return e;
                    }
                }
                movegen::generate_quiet(pos, &mut list);
            }
            None => movegen::generate(pos, &mut list),
        }
        if list.is_empty() {
            return -MATE + ply as i32;
        }
        let forced_capture = list[0].is_capture();
        // the children's buckets are fetched while this node's own is awaited
        for m in list.iter() {
            self.shared.tt.prefetch(pos.hash_after(m));
        }

        // a singular test searches this node without one move, under the same key or (with
        // `singular_key`) under one of its own
        let excluded = self.excluded[ply];
        let own_key = excluded != 0 && self.shared.params.singular_key;
        let key = if own_key {
            pos.hash() ^ excluded_key(excluded)
        } else {
            pos.hash()
        };
        let mut tt_move = 0;
        let mut tt_entry = None;
        // whether this position is or was a PV node
        let mut tt_pv = pv_node;
        self.stats.tt_probes += 1;
        if let Some(e) = self.shared.tt.probe(key) {
            self.stats.tt_hits += 1;
            tt_move = e.mv;
            tt_entry = Some(e);
            tt_pv |= e.pv;
            if !pv_node && !is_root && (excluded == 0 || own_key) && e.depth >= depth {
                let s = from_tt(e.score, ply);
                let cut = match e.bound {
                    Bound::Exact => true,
                    Bound::Lower => s >= beta,
                    Bound::Upper => s <= alpha,
                };
                if cut {
                    self.stats.tt_cutoffs += 1;
                    return s;
                }
            }
        }

        // (a copy of the shared reference, so that `params` outlives the searches below)
        let shared = self.shared;
        let params = &shared.params;
        // The static score of a calm node (no capture for either side) near the leaves, where
        // futility pruning may use it. (A quiet node at depth 0 only gets here when the opponent
        // threatens a capture, so it is not calm: `depth >= 1` spares the check.)
        // With `improving`, every calm node of depth 1 or more is scored, to compare with the
        // same side's score two plies up.
        let rfp = params.futility_margin > 0 && depth <= params.futility_depth;
        let mfp = params.move_futility > 0 && depth <= params.move_futility_depth;
        let razor = params.razor_margin > 0 && depth <= 2;
        let prunable = !pv_node && !is_root && (rfp || mfp || razor) && beta.abs() < WIN_BOUND;
        let raw_eval = if (prunable || params.improving)
            && !forced_capture
            && depth >= 1
            && !movegen::opponent_has_capture(pos)
        {
            Some(self.shared.eval.evaluate(pos))
        } else {
            None
        };
        let static_eval = raw_eval.map(|e| e + self.correction(pos));
        let improving = params.improving && {
            self.static_evals[ply] = static_eval;
            // the same side's last calm score, two or four plies up
            let before = [2, 4]
                .into_iter()
                .filter_map(|up| ply.checked_sub(up))
                .find_map(|p| self.static_evals[p]);
            static_eval.is_some_and(|now| before.is_none_or(|b| now > b))
        };
        // the table's bound, where it is tighter, says more than the static score
        let calm_eval = static_eval
            .filter(|_| prunable)
            .map(|stand| match tt_entry {
                Some(e) if params.futility_tt && e.score.abs() < WIN_BOUND => {
                    let t = from_tt(e.score, ply);
                    match e.bound {
                        Bound::Exact => t,
                        Bound::Lower => stand.max(t),
                        Bound::Upper => stand.min(t),
                    }
                }
                _ => stand,
            });
        if let Some(stand) = calm_eval.filter(|_| excluded == 0) {
            // Reverse futility: far above beta in a calm position at low depth, the side to
            // move is assumed to keep its edge.
            let margin = params.futility_margin * (depth - improving as i32);
            // Razoring: far below alpha with no promotion to make, no move is tried.
            if (rfp && stand - margin >= beta)
                || (razor
                    && stand + params.razor_margin * depth <= alpha
                    && !movegen::has_promotion_move(pos))
            {
                self.stats.futility_prunes += 1;
                return stand;
            }
        }
        // Futility of quiet moves: far below alpha, a quiet move is not expected to bring the
        // score back, so only the first one is searched.
        let futile = mfp && calm_eval.is_some_and(|e| e + params.move_futility * depth <= alpha);
        // the opponent threatens a capture here, so the quiet moves that parry it matter most
        let threatened = params.lmr_parry > 0
            && depth >= 3
            && !forced_capture
            && movegen::opponent_has_capture(pos);

        // Null move: a calm side to move that is already at beta passes; if the opponent,
        // moving twice, still cannot bring the score below beta in a shallower search, the
        // node is cut.
        if params.null_depth > 0
            && !pv_node
            && !is_root
            && excluded == 0
            && depth >= params.null_depth
            && !forced_capture
            && !self.passed[ply]
            && ply < MAX_PLY / 2
            && beta.abs() < WIN_BOUND
            && pos.pieces(pos.side()).count() >= params.null_pieces
            && !movegen::opponent_has_capture(pos)
        {
            let stand = static_eval.unwrap_or_else(|| self.corrected_eval(pos));
            if stand >= beta {
                let r = params.null_reduction + depth / 4;
                let child = pos.with_side(pos.side().opponent());
                self.line.push(child.hash());
                self.line_start.push(self.line.len() - 1);
                self.came_by[ply + 1] = 0;
                self.passed[ply + 1] = true;
                let s = -self.search_node(
                    &child,
                    clocks,
                    -beta,
                    -beta + 1,
                    depth - 1 - r,
                    ply + 1,
                    false,
                    !cut_node,
                    None,
                );
                self.passed[ply + 1] = false;
                self.line.pop();
                self.line_start.pop();
                if self.stopped {
                    return 0;
                }
                if s >= beta {
                    self.stats.null_cuts += 1;
                    return if s >= WIN_BOUND { beta } else { s };
                }
            }
        }

        // Enhanced transposition cutoff: the children's buckets were fetched when the moves
        // were generated; one whose entry is deep enough and bounds its score at or below
        // -beta proves that its move reaches beta.
        if params.etc_depth > 0
            && !pv_node
            && !is_root
            && excluded == 0
            && depth >= params.etc_depth
        {
            for m in list.iter() {
                let Some(e) = self.shared.tt.probe(pos.hash_after(m)) else {
                    continue;
                };
                if e.depth >= depth - 1 && e.bound != Bound::Lower {
                    let s = -from_tt(e.score, ply + 1);
                    if s >= beta {
                        self.stats.etc_cuts += 1;
                        return s;
                    }
                }
            }
        }

        // ProbCut: a shallower search of this node that clears beta by a margin is taken as
        // proof that the full search would too.
        if !pv_node
            && !is_root
            && params.probcut_margin > 0
            && depth >= params.probcut_depth
            && beta.abs() < WIN_BOUND
        {
            let rbeta = beta + params.probcut_margin;
            let s = self.search_node(
                pos,
                clocks,
                rbeta - 1,
                rbeta,
                depth - 4,
                ply,
                false,
                cut_node,
                None,
            );
            if self.stopped {
                return 0;
            }
            if s >= rbeta {
                self.stats.probcuts += 1;
                return s;
            }
        }

        // Singular extension: when every other move falls short of the table move's bound by a
        // margin, the table move alone holds the node and is searched one ply deeper; when the
        // others reach beta too, the node is cut (several moves do).
        let mut singular = 0u32;
        // the table move's extension in plies (-1 to 2)
        let mut singular_ext = 0i32;
        if let Some(e) = tt_entry {
            if params.singular_depth > 0
                && (self.main || params.smp_helper_singular)
                && !is_root
                && excluded == 0
                && depth >= params.singular_depth
                && list.len() > 1
                && ply < MAX_PLY / 2
                && e.mv != 0
                && e.depth >= depth - 3
                && matches!(e.bound, Bound::Lower | Bound::Exact)
                && e.score.abs() < WIN_BOUND
            {
                let s_beta = e.score - params.singular_margin * depth;
                self.stats.singular_tests += 1;
                self.excluded[ply] = e.mv;
                let s = self.search_node(
                    pos,
                    clocks,
                    s_beta - 1,
                    s_beta,
                    (depth - 1) / 2,
                    ply,
                    false,
                    cut_node,
                    None,
                );
                self.excluded[ply] = 0;
                if self.stopped {
                    return 0;
                }
                if s < s_beta {
                    self.stats.singular_extensions += 1;
                    singular = e.mv;
                    singular_ext = if params.singular_double > 0
                        && !pv_node
                        && s < s_beta - params.singular_double
                        && self.doubles[ply] < MAX_DOUBLES
                    {
                        2
                    } else {
                        1
                    };
                } else if s_beta >= beta && !pv_node {
                    return s_beta;
                } else if params.singular_negative && e.score >= beta {
                    singular = e.mv;
                    singular_ext = -1;
                }
            }
        }

        let mut depth = depth;
        if list.len() == 1 && depth > 0 && !is_root && ply < MAX_PLY / 2 {
            depth += 1;
        } else if tt_move == 0 && params.iir_depth > 0 && depth >= params.iir_depth && !is_root {
            depth -= 1;
        }

        // Order: table move, then by capture size and promotion, killers, history.
        let side = pos.side().index();
        let killers = self.killers[ply];
        // the refutation of the opponent's last move (none at the root)
        let counter_slot = (1 - side) * FROM_TO + self.came_by[ply] as usize;
        let counter = if params.counter_move && ply > 0 {
            self.counters[counter_slot]
        } else {
            0
        };
        let mut n = list.len();
        let by_eval = params.order_eval > 0 && depth >= params.order_eval_depth && !forced_capture;
        if !is_root {
            let eval = &self.shared.eval;
            // the score a move that offers a capture is taken to keep
            let level = if by_eval {
                static_eval
                    .unwrap_or_else(|| eval.evaluate(pos))
                    .clamp(-1000, 1000)
            } else {
                0
            };
            let capture_history = params.capture_history && forced_capture && list.len() > 1;
            // the kings a capture would take, when they order the captures
            let their_kings = if params.capture_kings && forced_capture {
                pos.kings(pos.side().opponent()).0
            } else {
                0
            };
            let scores = &mut self.scores[ply];
            for (i, m) in list.iter().enumerate() {
                let code = encode(m);
                scores[i] = if code == tt_move {
                    1 << 30
                } else if m.is_capture() {
                    if capture_history {
                        let h = self.capture_history[history_slot(side, m)];
                        (1 << 24)
                            + (m.capture_count() as i32) * (1 << 16)
                            + m.is_promotion() as i32 * (1 << 15)
                            + h / 2
                    } else {
                        let kings = (m.captured().0 & their_kings).count_ones() as i32;
                        (1 << 24)
                            + (m.capture_count() as i32) * 256
                            + kings.min(2) * 96
                            + m.is_promotion() as i32 * 64
                    }
                } else if m.is_promotion() {
                    1 << 23
                } else if code == killers[0] {
                    (1 << 22) + 1
                } else if code == killers[1] {
                    1 << 22
                } else if code == counter {
                    1 << 21
                } else if by_eval {
                    let child = pos.make(m);
                    let e = if movegen::has_capture(&child) {
                        level
                    } else {
                        -eval.evaluate(&child).clamp(-1000, 1000)
                    };
                    (self.history[history_slot(side, m)] + params.order_eval * e)
                        .clamp(-(1 << 20), 1 << 20)
                } else {
                    self.history[history_slot(side, m)]
                };
            }
        }

        // below the horizon, one threat ply a line (a node there that searches quiet moves is
        // one that took a threat ply)
        if params.threat_deep {
            self.threat_taken[ply + 1] = depth <= 0 && (self.threat_taken[ply] || !forced_capture);
        }
        let old_alpha = alpha;
        let mut best = -INF;
        let mut best_code = 0u32;
        let moves = list.as_mut_slice();
        // Lazy SMP deferral: moves another thread is searching are put off to the end
        let busy = match &self.shared.busy {
            Some(b) if !is_root && depth >= params.smp_defer_depth => Some(b),
            _ => None,
        };
        let mut deferred = [0u16; MAX_DEFERRED];
        let (mut n_deferred, mut next_deferred) = (0, 0);
        let mut next = 0;
        // whether shallow pruning spares the offers here, and whether it has left only them
        let keep = params.keep_offers > 0 && depth <= params.keep_offers;
        let mut offers_only = false;
        loop {
            let i;
            let first_pass = next < n;
            if first_pass {
                i = next;
                next += 1;
                if !is_root {
                    // pick the best remaining move
                    let scores = &mut self.scores[ply];
                    let mut bi = i;
                    let mut top = scores[i];
                    for (j, &s) in scores[..n].iter().enumerate().skip(i + 1) {
                        if s > top {
                            (bi, top) = (j, s);
                        }
                    }
                    moves.swap(i, bi);
                    scores.swap(i, bi);
                }
            } else if next_deferred < n_deferred {
                i = deferred[next_deferred] as usize;
                next_deferred += 1;
            } else {
                break;
            }
            let m = moves[i];
            let code = encode(&m);
            if excluded != 0 && code == excluded {
                continue;
            }
            let quiet = !m.is_capture() && !m.is_promotion();
            // Quiet-move futility, and late-move pruning (near the leaves, quiet moves far down
            // the order are skipped).
            let futility_prune = futile && quiet && i > 0 && best > -WIN_BOUND;
            let late_prune = !pv_node
                && !is_root
                && quiet
                && !forced_capture
                && (1..=params.late_move_depth).contains(&depth)
                && params.late_move_count > 0
                && i >= params.late_move_count * depth as usize
                && best > -WIN_BOUND;
            if futility_prune || late_prune {
                // the order puts quiet moves last (promotions first), so every later move is
                // pruned too, but for the offers when they are kept
                let mut pruned = 0;
                if first_pass && !offers_only {
                    let end = if keep {
                        offers_only = true;
                        next + keep_offers(pos, &mut moves[next..n], &mut self.scores[ply][next..n])
                    } else {
                        next
                    };
                    pruned = (n - end) as u64;
                    n = end;
                }
                let searched = keep && movegen::has_capture(&pos.make(&m));
                pruned += !searched as u64;
                if futility_prune {
                    self.stats.futility_move_prunes += pruned;
                } else {
                    self.stats.late_move_prunes += pruned;
                }
                if !searched {
                    continue;
                }
            }
            // History pruning: near the leaves, a quiet move that has mostly failed is skipped
            // (counted with the late-move prunes).
            if params.history_prune > 0
                && !pv_node
                && !is_root
                && quiet
                && !forced_capture
                && i > 0
                && (1..=3).contains(&depth)
                && best > -WIN_BOUND
                && self.history[history_slot(side, &m)] < -params.history_prune * depth
            {
                self.stats.late_move_prunes += 1;
                continue;
            }
            let busy_key = match busy {
                Some(b) if i > 0 => {
                    let k = Busy::key(key, code);
                    if first_pass && n_deferred < MAX_DEFERRED && b.is_busy(k) {
                        deferred[n_deferred] = i as u16;
                        n_deferred += 1;
                        continue;
                    }
                    b.enter(k);
                    Some(k)
                }
                _ => None,
            };
            let child = pos.make(&m);
            let child_clocks = clocks.after(&m, &child);
            let start = if m.is_irreversible() {
                self.line.len()
            } else {
                *self.line_start.last().unwrap_or(&0)
            };
            self.line.push(child.hash());
            self.line_start.push(start);
            self.came_by[ply + 1] = m.from_to_code() as u16;

            // a man arriving on the row before promotion threatens to crown
            let promo_threat = params.promo_ext
                && quiet
                && !m.is_king_move()
                && ply < MAX_PLY / 2
                && V::ROW_OF[m.to_bit() as usize] as u32 == if side == 0 { 1 } else { V::ROWS - 2 };
            let ext = if singular != 0 && code == singular {
                singular_ext
            } else {
                promo_threat as i32
            };
            let extended = ext > 0;
            self.doubles[ply + 1] = self.doubles[ply] + (ext == 2) as u8;
            let new_depth = depth - 1 + ext;
            let nodes_before = self.nodes;
            let mut score;
            if i == 0 {
                score = -self.search_node(
                    &child,
                    child_clocks,
                    -beta,
                    -alpha,
                    new_depth,
                    ply + 1,
                    pv_node,
                    !pv_node && !cut_node,
                    None,
                );
            } else {
                let mut r = 0;
                if params.lmr
                    && depth >= params.lmr_depth
                    && i >= params.lmr_min_move
                    && quiet
                    && !forced_capture
                    && !extended
                {
                    r = if params.lmr_divisor > 0 {
                        self.reductions[(depth as usize).min(63)][i.min(63)] as i32
                    } else {
                        1 + (i >= 8) as i32 + (depth >= 8 && i >= 16) as i32
                    };
                    if pv_node {
                        r -= 1;
                    } else if tt_pv {
                        r -= params.lmr_tt_pv;
                    }
                    if cut_node {
                        r += params.lmr_cut;
                    }
                    if params.lmr_killer > 0 && (code == killers[0] || code == killers[1]) {
                        r -= params.lmr_killer;
                    }
                    // whether the move leaves the opponent a capture, asked only when needed
                    if params.lmr_forcing != 0 || threatened {
                        if movegen::has_capture(&child) {
                            r -= params.lmr_forcing;
                        } else if threatened {
                            r -= params.lmr_parry;
                        }
                    }
                    if params.improving && !improving && !pv_node {
                        r += 1;
                    }
                    if params.lmr_history > 0 {
                        let h = self.history[history_slot(side, &m)];
                        r -= (h / params.lmr_history).clamp(-2, 2);
                    }
                    // (below depth 3, with `lmr_depth` 2, a reduced move may go straight to the
                    // capture search)
                    r = r.min(new_depth - (depth >= 3) as i32).max(0);
                    self.stats.reduced += (r > 0) as u64;
                } else if params.lmr_capture > 0
                    && forced_capture
                    && !pv_node
                    && depth >= 3
                    && i >= 2
                    && !extended
                {
                    r = params.lmr_capture.min(new_depth - 1).max(0);
                    self.stats.reduced += (r > 0) as u64;
                }
                score = -self.search_node(
                    &child,
                    child_clocks,
                    -alpha - 1,
                    -alpha,
                    new_depth - r,
                    ply + 1,
                    false,
                    true,
                    None,
                );
                // how far the reduced search cleared the best so far says how deep to look
                let adjust = if params.lmr_deeper > 0 && score > alpha && best > -WIN_BOUND {
                    (score > best + params.lmr_deeper) as i32
                        - (score < best + params.lmr_deeper / 8) as i32
                } else {
                    0
                };
                // (a re-search no deeper than the reduced search would tell nothing new)
                if score > alpha && r > 0 && r + adjust > 0 {
                    self.stats.reduced_researches += 1;
                    score = -self.search_node(
                        &child,
                        child_clocks,
                        -alpha - 1,
                        -alpha,
                        new_depth + adjust,
                        ply + 1,
                        false,
                        !cut_node,
                        None,
                    );
                }
                if score > alpha && score < beta && pv_node {
                    self.stats.pv_researches += 1;
                    score = -self.search_node(
                        &child,
                        child_clocks,
                        -beta,
                        -alpha,
                        new_depth,
                        ply + 1,
                        true,
                        false,
                        None,
                    );
                }
            }
            self.line.pop();
            self.line_start.pop();
            if is_root {
                if self.root_nodes.len() <= i {
                    self.root_nodes.resize(i + 1, 0);
                }
                self.root_nodes[i] += self.nodes - nodes_before;
            }
            if let (Some(b), Some(k)) = (busy, busy_key) {
                b.leave(k);
            }
            if self.stopped {
                return 0;
            }
            if score > best {
                best = score;
                best_code = code;
                if score > alpha {
                    alpha = score;
                    if is_root {
                        self.root_score = score;
                    }
                    let (head, tail) = self.pv.split_at_mut(ply + 1);
                    let line = &mut head[ply];
                    line.clear();
                    line.push(m);
                    line.extend_from_slice(&tail[0]);
                    if score >= beta {
                        if quiet {
                            if self.killers[ply][0] != code {
                                self.killers[ply][1] = self.killers[ply][0];
                                self.killers[ply][0] = code;
                            }
                            if params.counter_move && ply > 0 {
                                self.counters[counter_slot] = code;
                            }
                            if params.history_malus {
                                let bonus = (depth * depth).min(HISTORY_MAX / 4);
                                for tried in &moves[..i] {
                                    if !tried.is_capture() && !tried.is_promotion() {
                                        let slot = history_slot(side, tried);
                                        gravity(&mut self.history[slot], -bonus);
                                    }
                                }
                                gravity(&mut self.history[history_slot(side, &m)], bonus);
                            } else {
                                let h = &mut self.history[history_slot(side, &m)];
                                *h += depth * depth;
                                if *h > 1 << 20 {
                                    for v in self.history.iter_mut() {
                                        *v /= 2;
                                    }
                                }
                            }
                        }
                        if params.capture_history && m.is_capture() && n > 1 {
                            let bonus = (depth.max(1) * depth.max(1)).min(HISTORY_MAX / 4);
                            for tried in &moves[..i] {
                                let slot = history_slot(side, tried);
                                gravity(&mut self.capture_history[slot], -bonus);
                            }
                            gravity(&mut self.capture_history[history_slot(side, &m)], bonus);
                        }
                        self.stats.cutoffs += 1;
                        self.stats.first_move_cutoffs += (i == 0) as u64;
                        break;
                    }
                }
            }
        }

        if excluded != 0 && !own_key {
            // a singular test's result is not this node's value
            return best;
        }
        let bound = if best >= beta {
            Bound::Lower
        } else if alpha > old_alpha {
            Bound::Exact
        } else {
            Bound::Upper
        };
        // the static score's error, where the search's bound tells it
        match (raw_eval, static_eval) {
            (Some(raw), Some(se)) if params.correction > 0 && best.abs() < WIN_BOUND => {
                let told = match bound {
                    Bound::Exact => true,
                    Bound::Lower => best > se,
                    Bound::Upper => best < se,
                };
                if told {
                    self.learn_correction(pos, raw, best, depth);
                }
            }
            _ => {}
        }
        self.shared.tt.store_keeping(
            key,
            Entry {
                score: to_tt(best, ply),
                depth,
                bound,
                mv: match params.fail_low_move {
                    FailLowMove::Keep if bound == Bound::Upper => 0,
                    FailLowMove::Searched if bound == Bound::Upper && tt_move != 0 => tt_move,
                    _ => best_code,
                },
                pv: tt_pv,
            },
            params.tt_keep,
        );
        best
    }

    /// Adds this worker's unreported nodes to the shared count.
    pub fn finish(&mut self) {
        self.flush_nodes();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn history_saturates_by_gravity() {
        let mut h = 0;
        for _ in 0..1000 {
            gravity(&mut h, 400);
        }
        assert!(h > 0 && h <= HISTORY_MAX, "{h}");
        gravity(&mut h, -400);
        assert!(h < HISTORY_MAX);
    }

    /// What one worker's search of the start position to `depth` counts.
    fn search_start(params: SearchParams, main: bool, depth: i32) -> SearchStats {
        search_start_in(&Tt::new(16), params, main, depth)
    }

    /// [`search_start`] to depth 10 on the main thread with the default settings changed by
    /// `set`.
    fn search_start_with(set: impl FnOnce(&mut SearchParams)) -> SearchStats {
        let mut params = SearchParams::DEFAULT;
        set(&mut params);
        search_start(params, true, 10)
    }

    /// [`search_start`] with the given table.
    fn search_start_in(tt: &Tt, params: SearchParams, main: bool, depth: i32) -> SearchStats {
        use crate::core::variant::International;
        search_in(tt, params, main, &Position::<International>::start(), depth)
    }

    /// What one worker's search of `pos` to `depth` with table `tt` counts.
    fn search_in(
        tt: &Tt,
        params: SearchParams,
        main: bool,
        pos: &Position<crate::core::variant::International>,
        depth: i32,
    ) -> SearchStats {
        searched_in(tt, params, main, pos, depth, |w| w.stats())
    }

    /// What `look` finds in one worker after its search of `pos` to `depth` (iterations 1 to
    /// `depth`, full window) with table `tt`.
    fn searched_in<R>(
        tt: &Tt,
        params: SearchParams,
        main: bool,
        pos: &Position<crate::core::variant::International>,
        depth: i32,
        look: impl FnOnce(&Worker<'_, crate::core::variant::International>) -> R,
    ) -> R {
        let stop = AtomicBool::new(false);
        let clock = unlimited_clock();
        let shared = test_shared(tt, &stop, &clock, params);
        let moves = movegen::legal_moves(pos);
        let mut w = Worker::new(&shared, main, &[pos.hash()]);
        for d in 1..=depth {
            w.root(
                pos,
                DrawClocks::initial(pos),
                moves.as_slice(),
                d,
                -INF,
                INF,
            );
        }
        look(&w)
    }

    /// A clock without limits, for test searches.
    fn unlimited_clock() -> Clock {
        Clock::new(&crate::engine::time::Limits::default(), false)
    }

    /// The state a test search shares: the learned international evaluation, no node limit, no
    /// endgame database, one thread.
    fn test_shared<'a>(
        tt: &'a Tt,
        stop: &'a AtomicBool,
        clock: &'a Clock,
        params: SearchParams,
    ) -> Shared<'a> {
        use crate::core::variant::International;
        use crate::engine::evaluator::EvalKind;
        Shared {
            tt,
            stop,
            nodes: AtomicU64::new(0),
            clock,
            node_limit: None,
            eval: Evaluator::for_variant::<International>(
                EvalKind::Learned,
                None,
                &Default::default(),
            ),
            params,
            ponder_hit: None,
            egdb: None,
            busy: None,
        }
    }

    /// The singular tests one worker makes searching the start position to depth 12.
    fn singular_tests(main: bool, helper_singular: bool) -> u64 {
        let params = SearchParams {
            smp_helper_singular: helper_singular,
            ..SearchParams::DEFAULT
        };
        search_start(params, main, 12).singular_tests
    }

    #[test]
    fn razoring_cuts_nodes_below_alpha() {
        let off = search_start_with(|_| {});
        let on = search_start_with(|p| p.razor_margin = 1);
        assert!(on.futility_prunes > off.futility_prunes, "{on:?} {off:?}");
        assert!(on.nodes < off.nodes, "{} >= {}", on.nodes, off.nodes);
    }

    /// How many table entries a search of the start position to depth 12 leaves under a
    /// singular test's key (a position up to 4 plies deep, less one of its moves).
    fn singular_entries(singular_key: bool) -> usize {
        use crate::core::variant::International;
        let tt = Tt::new(16);
        let params = SearchParams {
            singular_key,
            ..SearchParams::DEFAULT
        };
        assert!(search_start_in(&tt, params, true, 12).singular_tests > 0);
        let mut found = 0;
        let mut layer = vec![Position::<International>::start()];
        for _ in 0..4 {
            let mut next = Vec::new();
            for pos in &layer {
                for m in movegen::legal_moves(pos).iter() {
                    let key = pos.hash() ^ excluded_key(encode(m));
                    found += tt.probe(key).is_some() as usize;
                    next.push(pos.make(m));
                }
            }
            next.sort_by_key(|p| p.hash());
            next.dedup_by_key(|p| p.hash());
            layer = next;
        }
        found
    }

    #[test]
    fn singular_tests_are_kept_under_their_own_key_only_when_told() {
        assert_eq!(singular_entries(false), 0);
        assert!(singular_entries(true) > 0);
    }

    #[test]
    fn quiet_moves_are_ordered_by_eval_only_where_told() {
        let with = |order_eval, order_eval_depth| {
            search_start_with(|p| {
                p.order_eval = order_eval;
                p.order_eval_depth = order_eval_depth;
            })
            .nodes
        };
        let off = with(0, 4);
        // deeper than the search reaches: the same tree
        assert_eq!(with(10, 20), off);
        assert_ne!(with(10, 4), off);
    }

    #[test]
    fn corrections_learn_the_static_error_of_their_men_and_side() {
        use crate::core::variant::International;
        let stop = AtomicBool::new(false);
        let clock = unlimited_clock();
        let tt = Tt::new(1);
        let shared = |correction| {
            let params = SearchParams {
                correction,
                ..SearchParams::DEFAULT
            };
            test_shared(&tt, &stop, &clock, params)
        };
        let pos = Position::<International>::start();
        let other_side = pos.with_side(pos.side().opponent());
        let on = shared(100);
        let mut w = Worker::new(&on, true, &[pos.hash()]);
        assert_eq!(w.correction(&pos), 0);
        w.learn_correction(&pos, 10, 70, 8);
        let first = w.correction(&pos);
        assert!(first > 0 && first < 60, "{first}");
        for _ in 0..200 {
            w.learn_correction(&pos, 10, 70, 8);
        }
        let learned = w.correction(&pos);
        assert!((55..=60).contains(&learned), "{learned}");
        // the other side to move has tables of its own
        assert_eq!(w.correction(&other_side), 0);
        // one error this large teaches no more than the clamp
        let mut w = Worker::new(&on, true, &[pos.hash()]);
        for _ in 0..400 {
            w.learn_correction(&pos, 0, 5000, 8);
        }
        assert!(w.correction(&pos) <= CORR_CLAMP, "{}", w.correction(&pos));
        // half the weight, half the correction
        let half = shared(50);
        let mut w = Worker::new(&half, true, &[pos.hash()]);
        for _ in 0..400 {
            w.learn_correction(&pos, 10, 70, 8);
        }
        assert!(
            (27..=30).contains(&w.correction(&pos)),
            "{}",
            w.correction(&pos)
        );
        // off: nothing kept, nothing added
        let off = shared(0);
        let w = Worker::new(&off, true, &[pos.hash()]);
        assert!(w.corrections.is_empty());
        assert_eq!(w.correction(&pos), 0);
    }

    #[test]
    fn corrections_change_the_tree_only_when_on() {
        let with = |correction, correction_leaves| {
            search_start_with(|p| {
                p.correction = correction;
                p.correction_leaves = correction_leaves;
            })
            .nodes
        };
        let off = with(0, true);
        assert_eq!(with(0, false), off);
        let leaves = with(100, true);
        let pruning = with(100, false);
        assert_ne!(leaves, off);
        assert_ne!(pruning, off);
        assert_ne!(leaves, pruning);
    }

    #[test]
    fn former_pv_nodes_are_marked_and_reduced_less_only_when_told() {
        use crate::core::variant::International;
        let with = |lmr_tt_pv| {
            let tt = Tt::new(16);
            let params = SearchParams {
                lmr_tt_pv,
                ..SearchParams::DEFAULT
            };
            let nodes = search_start_in(&tt, params, true, 10).nodes;
            let root = tt.probe(Position::<International>::start().hash());
            (nodes, root.map(|e| e.pv))
        };
        let (off, root_pv) = with(0);
        assert_eq!(root_pv, Some(true), "the root is a PV node");
        let (on, _) = with(1);
        assert_ne!(on, off, "the reductions change the tree");
    }

    #[test]
    fn reduced_moves_are_re_searched_deeper_or_shallower_only_when_told() {
        let off = search_start_with(|p| p.lmr_deeper = 0);
        let on = search_start_with(|p| p.lmr_deeper = 40);
        assert!(off.reduced_researches > 0);
        assert_ne!(on.nodes, off.nodes);
    }

    #[test]
    fn null_moves_cut_only_when_told_and_with_enough_pieces() {
        let with = |null_depth, null_pieces| {
            search_start_with(|p| {
                p.null_depth = null_depth;
                p.null_pieces = null_pieces;
            })
        };
        let off = with(0, 8);
        let on = with(4, 8);
        // the start has 20 pieces a side: asking for 21 leaves no node where a side may pass
        let too_few = with(4, 21);
        assert_eq!(off.null_cuts, 0);
        assert!(on.null_cuts > 0);
        assert_ne!(on.nodes, off.nodes);
        assert_eq!(too_few.null_cuts, 0);
        assert_eq!(too_few.nodes, off.nodes);
    }

    #[test]
    fn children_entries_cut_only_when_told() {
        let off = search_start_with(|p| p.etc_depth = 0);
        let on = search_start_with(|p| p.etc_depth = 3);
        assert_eq!(off.etc_cuts, 0);
        assert!(on.etc_cuts > 0);
        assert_ne!(on.nodes, off.nodes);
    }

    /// An international position with kings and men of both sides, full of captures.
    const KING_FIGHT: &str = "W:WK46,K47,28,32,33,38:BK5,K4,17,18,19,22,23";

    /// What the main thread's search of the position `fen` (international) to `depth` counts,
    /// with the default settings changed by `set`.
    fn search_fen_with(fen: &str, depth: i32, set: impl FnOnce(&mut SearchParams)) -> SearchStats {
        let mut params = SearchParams::DEFAULT;
        set(&mut params);
        let pos = crate::core::fen::parse(fen).unwrap();
        search_in(&Tt::new(16), params, true, &pos, depth)
    }

    #[test]
    fn later_captures_are_reduced_only_when_told() {
        let off = search_fen_with(KING_FIGHT, 8, |p| p.lmr_capture = 0);
        let on = search_fen_with(KING_FIGHT, 8, |p| p.lmr_capture = 1);
        // (the reduced searches change the tree, so their counts alone do not tell)
        assert_ne!(on.nodes, off.nodes);
    }

    /// After 32-28 18-23: White to move, no capture, several offers among the quiet moves.
    const OFFERS: &str = "W:W28,31,33,34,35,36,37,38,39,40,41,42,43,44,45,46,47,48,49,50\
        :B1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,19,20,23";

    #[test]
    fn offers_are_moved_to_the_front_with_their_scores() {
        let pos: Position<crate::core::variant::International> =
            crate::core::fen::parse(OFFERS).unwrap();
        assert!(!movegen::has_capture(&pos));
        let mut list = MoveList::new();
        movegen::generate(&pos, &mut list);
        let before: Vec<_> = list.iter().copied().collect();
        let mut scores: Vec<i32> = (0..before.len() as i32).collect();
        let kept = keep_offers(&pos, list.as_mut_slice(), &mut scores);
        let offers: Vec<_> = before
            .iter()
            .copied()
            .filter(|m| movegen::has_capture(&pos.make(m)))
            .collect();
        assert!(
            kept > 0 && kept < before.len(),
            "{kept} of {}",
            before.len()
        );
        assert_eq!(&list.as_mut_slice()[..kept], &offers[..]);
        for (m, &s) in list.iter().zip(&scores) {
            assert_eq!(before[s as usize], *m, "a score left its move");
        }
    }

    #[test]
    fn offers_are_kept_from_shallow_pruning_only_when_told() {
        let off = search_fen_with(OFFERS, 9, |p| p.keep_offers = 0);
        let on = search_fen_with(OFFERS, 9, |p| p.keep_offers = 2);
        let pruned = |s: &SearchStats| s.futility_move_prunes + s.late_move_prunes;
        assert!(
            pruned(&on) < pruned(&off),
            "{} {}",
            pruned(&on),
            pruned(&off)
        );
        assert_ne!(on.nodes, off.nodes);
    }

    #[test]
    fn late_moves_are_reduced_at_depth_two_only_when_told() {
        let off = search_start_with(|p| p.lmr_depth = 3);
        let on = search_start_with(|p| p.lmr_depth = 2);
        assert!(on.reduced > off.reduced, "{} {}", on.reduced, off.reduced);
        assert_ne!(on.nodes, off.nodes);
    }

    #[test]
    fn captures_are_ordered_by_their_history_only_when_told() {
        let off = search_start_with(|p| p.capture_history = false);
        let on = search_start_with(|p| p.capture_history = true);
        assert_ne!(on.nodes, off.nodes);
    }

    #[test]
    fn captures_of_kings_come_first_only_when_told() {
        // from the start, no king is taken within depth 10: the same tree either way
        let off = search_start_with(|p| p.capture_kings = false);
        let on = search_start_with(|p| p.capture_kings = true);
        assert_eq!(on.nodes, off.nodes);
        // with kings on the board, they change the order
        let ending = |kings: bool| search_fen_with(KING_FIGHT, 8, |p| p.capture_kings = kings);
        assert_ne!(ending(true).nodes, ending(false).nodes);
    }

    #[test]
    fn helpers_start_a_ply_ahead_only_when_staggered() {
        let on = SearchParams::DEFAULT;
        assert_eq!(
            [1, 2, 3, 4].map(|id| on.helper_first_depth(id)),
            [2, 1, 2, 1]
        );
        let off = SearchParams {
            smp_stagger: false,
            ..on
        };
        assert_eq!([1, 2, 3, 4].map(|id| off.helper_first_depth(id)), [1; 4]);
    }

    #[test]
    fn late_moves_are_pruned_only_as_deep_as_told() {
        let shallow = search_start_with(|p| p.late_move_count = 4);
        let deeper = search_start_with(|p| {
            p.late_move_count = 4;
            p.late_move_depth = 3;
        });
        assert!(deeper.late_move_prunes > shallow.late_move_prunes);
        assert_ne!(deeper.nodes, shallow.nodes);
    }

    #[test]
    fn deep_entries_are_kept_only_when_told() {
        let on = search_start_with(|p| p.tt_keep = 2);
        let off = search_start_with(|p| p.tt_keep = 0);
        assert_ne!(on.nodes, off.nodes);
    }

    #[test]
    fn helpers_make_singular_tests_only_when_told() {
        let main = singular_tests(true, false);
        assert!(main > 0);
        assert_eq!(main, singular_tests(true, true));
        assert_eq!(singular_tests(false, false), 0);
        assert_eq!(singular_tests(false, true), main);
    }

    #[test]
    fn root_moves_are_ordered_by_their_nodes_only_when_told() {
        use crate::core::variant::International;
        let pos = Position::<International>::start();
        let moves = movegen::legal_moves(&pos);
        let moves = moves.as_slice();
        searched_in(&Tt::new(16), SearchParams::DEFAULT, true, &pos, 8, |w| {
            let best = w.root_pv()[0];
            let nodes = |m: &Move<International>| {
                let i = moves.iter().position(|x| x == m).expect("a root move");
                w.root_nodes.get(i).copied().unwrap_or(0)
            };
            let mut by_nodes = moves.to_vec();
            w.reorder_root(&mut by_nodes, true);
            assert_eq!(by_nodes[0], best);
            assert!(by_nodes[1..]
                .windows(2)
                .all(|p| nodes(&p[0]) >= nodes(&p[1])));
            let mut kept = moves.to_vec();
            w.reorder_root(&mut kept, false);
            let rest: Vec<_> = moves.iter().filter(|m| **m != best).copied().collect();
            assert_eq!(kept[0], best);
            assert_eq!(kept[1..], rest[..]);
            // the same moves, in another order
            assert_ne!(by_nodes, kept);
            let key = |m: &Move<International>| encode(m);
            by_nodes.sort_by_key(key);
            kept.sort_by_key(key);
            assert_eq!(by_nodes, kept);
        });
    }
}
