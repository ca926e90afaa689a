//! The search: iterative deepening with aspiration windows, principal-variation alpha-beta
//! (fail-soft), a capture-resolving quiescence, a shared transposition table, killer and history
//! ordering, late-move reductions and single-reply extensions. Repetitions and the draw rules are
//! scored inside the tree; won and lost positions carry their distance. With several threads,
//! the moves of principal-variation nodes are shared out between them (split points, in
//! `split.rs`), or each thread runs its own iterations over the shared table (Lazy SMP).

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use crate::core::game::DrawClocks;
use crate::core::movegen;
use crate::core::moves::{Move, MoveList, MAX_MOVES};
use crate::core::position::Position;
use crate::core::variant::Variant;
use crate::engine::evaluator::Evaluator;
use crate::engine::time::Clock;
use crate::engine::tt::{Bound, Entry, Tt};

mod params;
mod split;
mod stats;

pub use params::{FailLowMove, SearchParams};
use split::JobNode;
pub use split::SplitBoard;
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
}

/// Encodes a move for the table and killers: from, to and a check of the captured set.
#[inline(always)]
pub fn encode<V: Variant>(m: &Move<V>) -> u32 {
    let cap = (m.captured().0.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 44) as u32;
    m.from_bit() | m.to_bit() << 6 | cap << 12
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

/// Entries per side of the history table, indexed by a move's from and to.
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
    /// The move (encoded) a singular test leaves out at each ply, 0 for none.
    excluded: Vec<u32>,
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
    stats: SearchStats,
    /// Where split points are posted and joined, when the threads split (`smp_split`).
    split: Option<&'a SplitBoard<V>>,
    /// Whether this worker is searching a split point's moves (it posts none then, and stops
    /// its move when the split point is cut off).
    in_job: bool,
    /// The number of the split point's move this worker is searching.
    job_move: usize,
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
            excluded: vec![0; MAX_PLY + 2],
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
            leaves: 0,
            seldepth: 0,
            root_score: -INF,
            stats: SearchStats::default(),
            split: None,
            in_job: false,
            job_move: 0,
        }
    }

    /// Lets this worker post (the main thread) or join (a helper) split points on `board`.
    pub fn with_split(mut self, board: Option<&'a SplitBoard<V>>) -> Self {
        self.split = board;
        self
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
    /// iteration first, the others in their order.
    pub fn reorder_root(&self, order: &mut [Move<V>]) {
        let Some(best) = self.pv[0].first() else {
            return;
        };
        if let Some(i) = order.iter().position(|m| m == best) {
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
            } else if self.in_job
                && self
                    .split
                    .is_some_and(|b| b.aborted() || b.done(self.job_move))
            {
                // another thread's move cut the split point off, or another thread finished
                // this move: this search is not needed
                self.stopped = true;
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
        self.shared
            .eval
            .evaluate(pos)
            .clamp(-WIN_BOUND + 1, WIN_BOUND - 1)
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
        self.search_node(pos, clocks, alpha, beta, depth, 0, true, Some(root_moves))
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

    /// The late-move reduction of move number `i` (from 0) at a node of `depth`, whose
    /// children are searched to `new_depth`; `reducible` when the move is quiet, not forced
    /// and not extended.
    #[inline]
    fn reduction(
        &mut self,
        depth: i32,
        i: usize,
        reducible: bool,
        pv_node: bool,
        new_depth: i32,
    ) -> i32 {
        let params = &self.shared.params;
        if !(params.lmr && depth >= params.lmr_depth && i >= params.lmr_min_move && reducible) {
            return 0;
        }
        let mut r = if params.lmr_divisor > 0 {
            self.reductions[(depth as usize).min(63)][i.min(63)] as i32
        } else {
            1 + (i >= 8) as i32 + (depth >= 8 && i >= 16) as i32
        };
        r -= pv_node as i32;
        // (below depth 3, with `lmr_depth` 2, a reduced move may go straight to the capture
        // search)
        r = r.min(new_depth - (depth >= 3) as i32).max(0);
        self.stats.reduced += (r > 0) as u64;
        r
    }

    /// Pushes the hash of `child`, reached by `m`, on the line.
    #[inline]
    fn push_line(&mut self, m: &Move<V>, child: &Position<V>) {
        let start = if m.is_irreversible() {
            self.line.len()
        } else {
            *self.line_start.last().unwrap_or(&0)
        };
        self.line.push(child.hash());
        self.line_start.push(start);
    }

    /// Takes the last position off the line.
    #[inline]
    fn pop_line(&mut self) {
        self.line.pop();
        self.line_start.pop();
    }

    /// A helper's life when the threads split: join every split point the main thread posts
    /// and search its moves, until the search is stopped.
    pub fn help(&mut self) {
        let Some(board) = self.split else {
            return;
        };
        let mut idle = 0u32;
        while !self.shared.stop.load(Ordering::Relaxed) {
            match board.join() {
                Some(node) => {
                    idle = 0;
                    self.line.clone_from(&node.line);
                    self.line_start.clone_from(&node.line_start);
                    self.in_job = true;
                    self.work(board, &node);
                    self.in_job = false;
                    board.leave();
                    // a move stopped because the split point was cut off; a stop of the whole
                    // search ends the loop
                    self.stopped = false;
                }
                None => split::back_off(&mut idle),
            }
        }
        self.finish();
    }

    /// Searches the moves of the split point `node` that `board` hands out, until none is
    /// left, the split point is cut off or the search is stopped.
    fn work(&mut self, board: &SplitBoard<V>, node: &JobNode<V>) {
        while let Some((i, m, alpha)) = board.take() {
            self.job_move = i;
            let before = self.nodes;
            let score = self.split_move(board, node, i, m, alpha);
            board.report(i, score, &self.pv[node.ply + 1], self.nodes - before);
            if score.is_none() {
                if self.shared.stop.load(Ordering::Relaxed) || board.aborted() {
                    break;
                }
                // another thread finished this move first
                self.stopped = false;
            }
        }
    }

    /// Searches move number `i` of a split point as its node's loop would (a reduced
    /// null-window search, at full depth if it beats alpha, then with the open window if it is
    /// inside it), against alpha as raised meanwhile by the other threads. `None` if stopped.
    fn split_move(
        &mut self,
        board: &SplitBoard<V>,
        node: &JobNode<V>,
        i: usize,
        m: Move<V>,
        alpha: i32,
    ) -> Option<i32> {
        let child = node.pos.make(&m);
        let child_clocks = node.clocks.after(&m, &child);
        self.push_line(&m, &child);
        let ply = node.ply + 1;
        let quiet = !m.is_capture() && !m.is_promotion();
        let extended = node.singular != 0 && encode(&m) == node.singular;
        let new_depth = node.depth - 1 + extended as i32;
        let reducible = quiet && !node.forced_capture && !extended;
        let r = self.reduction(node.depth, i, reducible, true, new_depth);
        let score = self.later_move(
            &child,
            child_clocks,
            (alpha, node.beta),
            new_depth,
            r,
            ply,
            true,
            Some(board),
        );
        self.pop_line();
        (!self.stopped).then_some(score)
    }

    /// Puts the best-scored of the moves from `i` on of the node at `ply` (by its ordering
    /// scores, the first of equals) at `i`.
    #[inline]
    fn pick_move(&mut self, ply: usize, moves: &mut [Move<V>], i: usize) {
        let scores = &mut self.scores[ply];
        let mut bi = i;
        let mut top = scores[i];
        for (j, &s) in scores[..moves.len()].iter().enumerate().skip(i + 1) {
            if s > top {
                (bi, top) = (j, s);
            }
        }
        moves.swap(i, bi);
        scores.swap(i, bi);
    }

    /// Searches a move after the first of a node, whose child `child` is at `ply`, in the
    /// node's window `(alpha, beta)`: a null-window search reduced by `r`, again at full depth
    /// `new_depth` if it beats alpha, and at a PV node once more with the open window if it is
    /// inside it. At a split point (`board`), a score beating alpha is first checked against
    /// alpha as the other threads have raised it meanwhile (a score between the old and the new
    /// alpha says nothing, and is searched again against the new).
    #[allow(clippy::too_many_arguments)]
    #[inline]
    fn later_move(
        &mut self,
        child: &Position<V>,
        clocks: DrawClocks,
        (mut alpha, beta): (i32, i32),
        new_depth: i32,
        r: i32,
        ply: usize,
        pv_node: bool,
        board: Option<&SplitBoard<V>>,
    ) -> i32 {
        let mut score = self.null_window(child, clocks, alpha, new_depth - r, ply);
        if score > alpha && r > 0 {
            self.stats.reduced_researches += 1;
            score = self.null_window(child, clocks, alpha, new_depth, ply);
        }
        if let Some(board) = board {
            while score > alpha && !self.stopped {
                let now = board.alpha();
                if now <= alpha || score > now {
                    alpha = alpha.max(now);
                    break;
                }
                alpha = now;
                score = self.null_window(child, clocks, alpha, new_depth, ply);
            }
        }
        if score > alpha && score < beta && pv_node {
            self.stats.pv_researches += 1;
            score = -self.search_node(child, clocks, -beta, -alpha, new_depth, ply, true, None);
        }
        score
    }

    /// The score of `child` (at `ply`, to `depth`) from a null-window search just above
    /// `alpha`, from the parent's side.
    #[inline]
    fn null_window(
        &mut self,
        child: &Position<V>,
        clocks: DrawClocks,
        alpha: i32,
        depth: i32,
        ply: usize,
    ) -> i32 {
        -self.search_node(child, clocks, -alpha - 1, -alpha, depth, ply, false, None)
    }

    /// Rewards the quiet move `m` that cut a node at `ply` off (`side` to move, `depth`): it
    /// becomes the first killer, and gains history while the quiet moves `tried` before it
    /// lose some (with `history_malus`; else only it gains, the table halved when large).
    fn reward_cutoff(
        &mut self,
        ply: usize,
        side: usize,
        depth: i32,
        tried: &[Move<V>],
        m: &Move<V>,
    ) {
        let code = encode(m);
        if self.killers[ply][0] != code {
            self.killers[ply][1] = self.killers[ply][0];
            self.killers[ply][0] = code;
        }
        if self.shared.params.history_malus {
            let bonus = (depth * depth).min(HISTORY_MAX / 4);
            for t in tried {
                if !t.is_capture() && !t.is_promotion() {
                    let slot = history_slot(side, t);
                    gravity(&mut self.history[slot], -bonus);
                }
            }
            gravity(&mut self.history[history_slot(side, m)], bonus);
        } else {
            let h = &mut self.history[history_slot(side, m)];
            *h += depth * depth;
            if *h > 1 << 20 {
                for v in self.history.iter_mut() {
                    *v /= 2;
                }
            }
        }
    }

    /// Searches a node (`pv_node`: one on a principal variation, searched with an open window);
    /// `root_moves` is given only at the root.
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
                let threatened =
                    depth == 0 && params.threat_ply && movegen::opponent_has_capture(pos);
                if !threatened {
                    return self.evaluate(pos, ply);
                }
                // already this far below alpha, a threatened side is taken to stay there
                if params.threat_margin > 0 && !pv_node {
                    let e = self.shared.eval.evaluate(pos);
                    if e + params.threat_margin <= alpha {
                        self.stats.threat_prunes += 1;
                        return e;
                    }
                }
                movegen::generate_quiet(pos, &mut list);
            }
            // generated after the table probe, which may cut the node without them
            None => {}
        }
        let generated = !list.is_empty();

        // a singular test searches this node without one move (its result is not stored)
        let excluded = self.excluded[ply];
        let key = pos.hash();
        let mut tt_move = 0;
        let mut tt_entry = None;
        self.stats.tt_probes += 1;
        if let Some(e) = self.shared.tt.probe(key) {
            self.stats.tt_hits += 1;
            tt_move = e.mv;
            tt_entry = Some(e);
            if !pv_node && !is_root && excluded == 0 && e.depth >= depth {
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
        // The static score of a calm non-PV node (no capture for either side) near the leaves,
        // where futility pruning may use it. (A quiet node at depth 0 only gets here when the
        // opponent threatens a capture, so it is not calm: `depth >= 1` spares the check.)
        let rfp = params.futility_margin > 0 && depth <= params.futility_depth;
        let mfp = params.move_futility > 0 && depth <= params.move_futility_depth;
        let calm_eval = (!pv_node
            && !is_root
            && (rfp || mfp)
            && beta.abs() < WIN_BOUND
            && depth >= 1
            && !(if generated {
                list[0].is_capture()
            } else {
                movegen::has_capture(pos)
            })
            && !movegen::opponent_has_capture(pos))
        .then(|| self.shared.eval.evaluate(pos));
        if let Some(stand) = calm_eval.filter(|_| excluded == 0) {
            // Reverse futility: far above beta in a calm position at low depth, the side to
            // move is assumed to keep its edge.
            // (a side without a move has lost: the moves are not generated yet)
            if rfp
                && stand - params.futility_margin * depth >= beta
                && (generated || movegen::has_quiet_move(pos))
            {
                self.stats.futility_prunes += 1;
                return stand;
            }
        }
        // Futility of quiet moves: far below alpha, a quiet move is not expected to bring the
        // score back, so only the first one is searched.
        let futile = mfp && calm_eval.is_some_and(|e| e + params.move_futility * depth <= alpha);

        if !generated {
            movegen::generate(pos, &mut list);
            if list.is_empty() {
                return -MATE + ply as i32;
            }
        }
        let forced_capture = list[0].is_capture();
        // the children's buckets are fetched while the first move's search begins (at a
        // futile node only the first quiet move is searched)
        if !futile {
            for m in list.iter() {
                self.shared.tt.prefetch(pos.hash_after(m));
            }
        }

        // Singular extension: when every other move falls short of the table move's bound by a
        // margin, the table move alone holds the node and is searched one ply deeper; when the
        // others reach beta too, the node is cut (several moves do).
        let mut singular = 0u32;
        if let Some(e) = tt_entry {
            if params.singular_depth > 0
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
                    None,
                );
                self.excluded[ply] = 0;
                if self.stopped {
                    return 0;
                }
                if s < s_beta {
                    self.stats.singular_extensions += 1;
                    singular = e.mv;
                } else if s_beta >= beta && !pv_node {
                    return s_beta;
                }
            }
        }

        let mut depth = depth;
        if list.len() == 1 && depth > 0 && !is_root && ply < MAX_PLY / 2 {
            depth += 1;
        }

        // Order: table move, then by capture size and promotion, killers, history.
        let side = pos.side().index();
        let killers = self.killers[ply];
        let n = list.len();
        if !is_root {
            let scores = &mut self.scores[ply];
            for (i, m) in list.iter().enumerate() {
                let code = encode(m);
                scores[i] = if code == tt_move {
                    1 << 30
                } else if m.is_capture() {
                    (1 << 24) + (m.capture_count() as i32) * 256 + m.is_promotion() as i32 * 64
                } else if m.is_promotion() {
                    1 << 23
                } else if code == killers[0] {
                    (1 << 22) + 1
                } else if code == killers[1] {
                    1 << 22
                } else {
                    self.history[history_slot(side, m)]
                };
            }
        }
        let old_alpha = alpha;
        let mut best = -INF;
        let mut best_code = 0u32;
        let moves = list.as_mut_slice();
        for i in 0..n {
            if !is_root {
                self.pick_move(ply, moves, i);
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
                // pruned too
                let pruned = (n - i) as u64;
                if futility_prune {
                    self.stats.futility_move_prunes += pruned;
                } else {
                    self.stats.late_move_prunes += pruned;
                }
                break;
            }
            let child = pos.make(&m);
            let child_clocks = clocks.after(&m, &child);
            self.push_line(&m, &child);

            let extended = singular != 0 && code == singular;
            let new_depth = depth - 1 + extended as i32;
            let nodes_before = self.nodes;
            let score = if i == 0 {
                -self.search_node(
                    &child,
                    child_clocks,
                    -beta,
                    -alpha,
                    new_depth,
                    ply + 1,
                    pv_node,
                    None,
                )
            } else {
                let r = self.reduction(
                    depth,
                    i,
                    quiet && !forced_capture && !extended,
                    pv_node,
                    new_depth,
                );
                self.later_move(
                    &child,
                    child_clocks,
                    (alpha, beta),
                    new_depth,
                    r,
                    ply + 1,
                    pv_node,
                    None,
                )
            };
            self.pop_line();
            if is_root {
                if self.root_nodes.len() <= i {
                    self.root_nodes.resize(i + 1, 0);
                }
                self.root_nodes[i] += self.nodes - nodes_before;
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
                            self.reward_cutoff(ply, side, depth, &moves[..i], &m);
                        }
                        self.stats.cutoffs += 1;
                        self.stats.first_move_cutoffs += (i == 0) as u64;
                        break;
                    }
                }
            }
            // Split point: the moves after the first are shared with the idle helpers.
            if i == 0
                && pv_node
                && n > 1
                && excluded == 0
                && params.smp_split > 0
                && depth >= params.smp_split
                && self.main
                && !self.in_job
            {
                if let Some(board) = self.split.filter(|b| b.idle()) {
                    if !is_root {
                        // the rest in the order the loop would pick them
                        for a in 1..n {
                            self.pick_move(ply, moves, a);
                        }
                    }
                    let node = JobNode {
                        pos: *pos,
                        clocks,
                        ply,
                        depth,
                        beta,
                        forced_capture,
                        singular,
                        root: is_root,
                        line: self.line.clone(),
                        line_start: self.line_start.clone(),
                    };
                    board.post(node.clone(), moves, 1, alpha, best);
                    self.in_job = true;
                    self.work(board, &node);
                    self.in_job = false;
                    let job = board.close();
                    for (k, v) in job.root_nodes.iter().enumerate() {
                        if self.root_nodes.len() <= k {
                            self.root_nodes.resize(k + 1, 0);
                        }
                        self.root_nodes[k] += v;
                    }
                    // this thread's move may have been stopped only because another's cut
                    // the node off
                    self.stopped = self.shared.stop.load(Ordering::Relaxed);
                    if job.best > best {
                        best = job.best;
                        best_code = encode(&moves[job.best_index]);
                    }
                    if job.alpha > alpha {
                        alpha = job.alpha;
                        if is_root {
                            self.root_score = alpha;
                        }
                        self.pv[ply].clone_from(&job.line);
                    }
                    if self.stopped {
                        return 0;
                    }
                    if best >= beta {
                        let cut = moves[job.best_index];
                        if !cut.is_capture() && !cut.is_promotion() {
                            self.reward_cutoff(ply, side, depth, &moves[..job.best_index], &cut);
                        }
                        self.stats.cutoffs += 1;
                    }
                    break;
                }
            }
        }

        if excluded != 0 {
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
        self.shared.tt.store(
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
            },
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

    /// What the main thread's search of the start position to depth 10 counts, with the
    /// default settings changed by `set`.
    fn search_start_with(set: impl FnOnce(&mut SearchParams)) -> SearchStats {
        use crate::core::variant::International;
        let mut params = SearchParams::DEFAULT;
        set(&mut params);
        let start = Position::<International>::start();
        searched_in(&Tt::new(16), params, true, &start, 10, |w| w.stats())
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
        }
    }

    #[test]
    fn late_moves_are_reduced_at_depth_two_only_when_told() {
        let off = search_start_with(|p| p.lmr_depth = 3);
        let on = search_start_with(|p| p.lmr_depth = 2);
        assert!(on.reduced > off.reduced, "{} {}", on.reduced, off.reduced);
        assert_ne!(on.nodes, off.nodes);
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
    fn a_side_without_a_move_loses_even_where_reverse_futility_would_cut() {
        use crate::core::variant::International;
        // black's only piece, a king on 46, is shut in by the men on 41 and 37: no move, no
        // capture for either side, so the node is calm and the moves are not generated yet when
        // reverse futility looks at it
        let pos: Position<International> = crate::core::fen::parse("B:W41,37:BK46").unwrap();
        assert!(movegen::legal_moves(&pos).is_empty());
        let tt = Tt::new(1);
        let stop = AtomicBool::new(false);
        let clock = unlimited_clock();
        let shared = test_shared(&tt, &stop, &clock, SearchParams::DEFAULT);
        let mut w = Worker::new(&shared, true, &[pos.hash()]);
        // a window far below any static score, at a non-PV node within futility's depth
        let beta = -WIN_BOUND + 10;
        for depth in 1..=shared.params.futility_depth {
            let s = w.search_node(
                &pos,
                DrawClocks::initial(&pos),
                beta - 1,
                beta,
                depth,
                2,
                false,
                None,
            );
            assert_eq!(s, -MATE + 2, "depth {depth}");
        }
        assert_eq!(w.stats().futility_prunes, 0);
    }

    #[test]
    fn the_best_root_move_comes_first_and_the_others_keep_their_order() {
        use crate::core::variant::International;
        let pos = Position::<International>::start();
        let moves = movegen::legal_moves(&pos);
        let moves = moves.as_slice();
        searched_in(&Tt::new(16), SearchParams::DEFAULT, true, &pos, 8, |w| {
            let best = w.root_pv()[0];
            let mut order = moves.to_vec();
            w.reorder_root(&mut order);
            let rest: Vec<_> = moves.iter().filter(|m| **m != best).copied().collect();
            assert_eq!(order[0], best);
            assert_eq!(order[1..], rest[..]);
            // the best move is not the first generated, so the order did change
            assert_ne!(order, moves);
        });
    }
}
