//! Split points: the moves of a principal-variation node after the first, shared out between
//! the threads so that each is searched once, by one of them (the young-brothers-wait idea,
//! splitting only on the principal variation).
//!
//! The main thread, once it has searched a PV node's first move, posts the node on the
//! [`SplitBoard`]; idle helpers join, and every thread inside takes the next untried move until
//! none is left or one reaches beta, which aborts the moves still being searched. A thread that
//! finds no untried move searches one that another thread is still on (the shared table makes
//! the second search quick to catch up), and the first result of a move counts: the other
//! thread's search of it is cancelled. The main thread then closes the job, waits for the
//! helpers to leave and goes on with the best result. One job is posted at a time.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Mutex, MutexGuard};

use crate::core::game::DrawClocks;
use crate::core::moves::{Move, MAX_MOVES};
use crate::core::position::Position;
use crate::core::variant::Variant;

/// What a thread needs to search a posted node's moves; fixed while the job is posted.
#[derive(Clone)]
pub struct JobNode<V> {
    /// The node's position.
    pub pos: Position<V>,
    /// Its draw clocks.
    pub clocks: DrawClocks,
    /// Its ply from the root.
    pub ply: usize,
    /// Its depth (extensions included).
    pub depth: i32,
    /// The window's upper bound.
    pub beta: i32,
    /// Whether its moves are captures (forced).
    pub forced_capture: bool,
    /// The move (encoded) its singular test extends, 0 for none.
    pub singular: u32,
    /// Whether it is the root.
    pub root: bool,
    /// The hashes of the line up to and including the node, with the game's history.
    pub line: Vec<u64>,
    /// For each entry of `line`, where its reversible stretch begins.
    pub line_start: Vec<usize>,
}

/// The result of a closed job.
pub struct JobResult<V> {
    /// The best score of the moves searched in the job (`-INF` if none completed).
    pub best: i32,
    /// The number of the move that scored `best`.
    pub best_index: usize,
    /// The window's lower bound at the end (raised by the moves that beat it).
    pub alpha: i32,
    /// The line of the move that last raised alpha (empty if none did).
    pub line: Vec<Move<V>>,
    /// Nodes searched under each move, by its number (kept at the root only).
    pub root_nodes: Vec<u64>,
}

/// A job's progress.
struct Job<V> {
    node: Option<JobNode<V>>,
    moves: Vec<Move<V>>,
    next: usize,
    alpha: i32,
    best: i32,
    best_index: usize,
    line: Vec<Move<V>>,
    root_nodes: Vec<u64>,
    /// The numbers of the moves being searched (one entry per thread on it).
    working: Vec<usize>,
}

/// The board on which the main thread posts split points and helpers find them.
pub struct SplitBoard<V> {
    /// A job is posted (it may have no untried move left).
    open: AtomicBool,
    /// The posted job reached beta: the threads inside stop their moves.
    abort: AtomicBool,
    /// Helpers inside the posted job.
    inside: AtomicUsize,
    /// For each move of the posted job, whether its result is in.
    done: Box<[AtomicBool; MAX_MOVES]>,
    job: Mutex<Job<V>>,
}

impl<V: Variant> Default for SplitBoard<V> {
    fn default() -> Self {
        Self::new()
    }
}

impl<V: Variant> SplitBoard<V> {
    /// A board with no job.
    pub fn new() -> Self {
        SplitBoard {
            open: AtomicBool::new(false),
            abort: AtomicBool::new(false),
            inside: AtomicUsize::new(0),
            done: Box::new(std::array::from_fn(|_| AtomicBool::new(false))),
            job: Mutex::new(Job {
                node: None,
                moves: Vec::new(),
                next: 0,
                alpha: 0,
                best: 0,
                best_index: 0,
                line: Vec::new(),
                root_nodes: Vec::new(),
                working: Vec::new(),
            }),
        }
    }

    fn lock(&self) -> MutexGuard<'_, Job<V>> {
        // a thread that panicked inside leaves nothing half-written that matters here
        self.job.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Whether a job may be posted: none is, and no helper is still inside the last one.
    pub fn idle(&self) -> bool {
        !self.open.load(Ordering::Acquire) && self.inside.load(Ordering::Acquire) == 0
    }

    /// Posts `node` with its `moves` in order, `first` of them still to search, the window's
    /// lower bound `alpha` and the best score so far `best` (of the moves before `first`).
    pub fn post(&self, node: JobNode<V>, moves: &[Move<V>], first: usize, alpha: i32, best: i32) {
        let mut job = self.lock();
        job.moves.clear();
        job.moves.extend_from_slice(moves);
        job.next = first;
        job.alpha = alpha;
        job.best = best;
        job.best_index = 0;
        job.line.clear();
        job.root_nodes.clear();
        job.working.clear();
        for d in self.done.iter() {
            d.store(false, Ordering::Relaxed);
        }
        if node.root {
            job.root_nodes.resize(moves.len(), 0);
        }
        job.node = Some(node);
        self.abort.store(false, Ordering::Release);
        self.open.store(true, Ordering::Release);
    }

    /// The move of `job` a thread without one should search: the next untried, else the
    /// earliest one another thread is still on.
    fn next_move(&self, job: &Job<V>) -> Option<usize> {
        if job.node.is_none() || self.aborted() {
            return None;
        }
        if job.next < job.moves.len() {
            return Some(job.next);
        }
        job.working.iter().copied().filter(|&i| !self.done(i)).min()
    }

    /// A helper joins the posted job if it has a move to search: a copy of its node. The
    /// helper must [`leave`](Self::leave) when done.
    pub fn join(&self) -> Option<JobNode<V>> {
        if !self.open.load(Ordering::Acquire) {
            return None;
        }
        let job = self.lock();
        self.next_move(&job)?;
        let node = job.node.as_ref()?;
        self.inside.fetch_add(1, Ordering::AcqRel);
        Some(node.clone())
    }

    /// A helper is through with the job it joined.
    pub fn leave(&self) {
        self.inside.fetch_sub(1, Ordering::AcqRel);
    }

    /// Whether the posted job reached beta (its threads stop their moves).
    pub fn aborted(&self) -> bool {
        self.abort.load(Ordering::Relaxed)
    }

    /// Whether the result of move `i` of the posted job is in (a thread still searching it
    /// stops).
    pub fn done(&self, i: usize) -> bool {
        self.done.get(i).is_some_and(|d| d.load(Ordering::Relaxed))
    }

    /// The next move to search: its number, the move and the window's lower bound now. The
    /// next untried one, else one another thread is still on; `None` when every result is in
    /// or the job was cut off. Each move taken is [`report`](Self::report)ed.
    pub fn take(&self) -> Option<(usize, Move<V>, i32)> {
        let mut job = self.lock();
        let i = self.next_move(&job)?;
        if i == job.next {
            job.next += 1;
        }
        job.working.push(i);
        Some((i, job.moves[i], job.alpha))
    }

    /// The window's lower bound now (raised by every move that beat it).
    pub fn alpha(&self) -> i32 {
        self.lock().alpha
    }

    /// Reports move `i`: `score` if its search completed (`None` if it was stopped), the line
    /// below it and the nodes it took. Only a move's first result counts; a score at or above
    /// beta aborts the job.
    pub fn report(&self, i: usize, score: Option<i32>, below: &[Move<V>], nodes: u64) {
        let mut job = self.lock();
        if let Some(n) = job.root_nodes.get_mut(i) {
            *n += nodes;
        }
        if let Some(w) = job.working.iter().position(|&k| k == i) {
            job.working.swap_remove(w);
        }
        let Some(s) = score else {
            return;
        };
        if self.done(i) {
            return;
        }
        self.done[i].store(true, Ordering::Relaxed);
        if s > job.best {
            job.best = s;
            job.best_index = i;
            if s > job.alpha {
                job.alpha = s;
                let m = job.moves[i];
                job.line.clear();
                job.line.push(m);
                job.line.extend_from_slice(below);
                let beta = job.node.as_ref().map_or(i32::MAX, |n| n.beta);
                if s >= beta {
                    self.abort.store(true, Ordering::Release);
                }
            }
        }
    }

    /// Closes the posted job (no helper may join it any more), waits until every helper has
    /// left, and returns what the job found.
    pub fn close(&self) -> JobResult<V> {
        self.lock().node = None;
        self.open.store(false, Ordering::Release);
        let mut spins = 0u32;
        while self.inside.load(Ordering::Acquire) > 0 {
            back_off(&mut spins);
        }
        self.abort.store(false, Ordering::Release);
        let mut job = self.lock();
        JobResult {
            best: job.best,
            best_index: job.best_index,
            alpha: job.alpha,
            line: std::mem::take(&mut job.line),
            root_nodes: std::mem::take(&mut job.root_nodes),
        }
    }
}

/// One wait of a polling loop, `spins` counting the waits since the loop last found work:
/// a spin for the first 255, then the core is yielded.
pub fn back_off(spins: &mut u32) {
    *spins = spins.saturating_add(1);
    if *spins < 256 {
        std::hint::spin_loop();
    } else {
        std::thread::yield_now();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::movegen;
    use crate::core::moves::MoveList;
    use crate::core::variant::International;

    fn start_node() -> (JobNode<International>, Vec<Move<International>>) {
        let pos = Position::<International>::start();
        let mut list = MoveList::new();
        movegen::generate(&pos, &mut list);
        let node = JobNode {
            pos,
            clocks: DrawClocks::default(),
            ply: 0,
            depth: 5,
            beta: 50,
            forced_capture: false,
            singular: 0,
            root: true,
            line: vec![pos.hash()],
            line_start: vec![0],
        };
        (node, list.iter().copied().collect())
    }

    #[test]
    fn every_move_after_the_first_is_handed_out_once() {
        let board = SplitBoard::new();
        assert!(board.idle());
        let (node, moves) = start_node();
        board.post(node, &moves, 1, -10, -10);
        assert!(!board.idle());
        let helper = board
            .join()
            .expect("a posted job with moves left can be joined");
        assert_eq!(helper.depth, 5);
        let mut taken = Vec::new();
        for _ in 1..moves.len() {
            let (i, m, alpha) = board.take().expect("an untried move");
            assert_eq!(m, moves[i]);
            assert_eq!(alpha, -10);
            taken.push(i);
        }
        assert_eq!(taken, (1..moves.len()).collect::<Vec<_>>());
        // with every move taken, a thread without one searches the earliest still going
        assert_eq!(board.take().map(|t| t.0), Some(1));
        board.report(1, Some(-30), &[], 10);
        assert!(board.done(1));
        assert_eq!(board.take().map(|t| t.0), Some(2));
        for &i in &taken[1..] {
            board.report(i, Some(-40), &[], 10);
        }
        board.report(2, Some(100), &[], 10);
        assert_eq!(board.alpha(), -10, "only a move's first result counts");
        assert!(board.take().is_none(), "every result is in");
        assert!(board.join().is_none(), "no move left to join for");
        board.leave();
        let result = board.close();
        assert_eq!(result.best, -10);
        assert!(result.line.is_empty());
        assert!(board.idle());
    }

    #[test]
    fn a_better_move_raises_alpha_and_beta_aborts_the_job() {
        let board = SplitBoard::new();
        let (node, moves) = start_node();
        board.post(node, &moves, 1, -10, -10);
        let (i, _, _) = board.take().unwrap();
        board.report(i, Some(-20), &[], 100);
        assert_eq!(board.alpha(), -10, "a worse move changes nothing");
        let (j, _, _) = board.take().unwrap();
        board.report(j, Some(5), &[moves[0]], 50);
        assert_eq!(board.alpha(), 5);
        assert!(!board.aborted());
        let (k, _, _) = board.take().unwrap();
        board.report(k, None, &[], 7);
        assert!(!board.done(k), "a stopped search leaves the move open");
        let (l, _, _) = board.take().unwrap();
        board.report(l, Some(60), &[], 10);
        assert!(board.aborted());
        assert!(
            board.take().is_none(),
            "a job cut off hands out no more moves"
        );
        let result = board.close();
        assert_eq!((result.best, result.best_index, result.alpha), (60, l, 60));
        assert_eq!(result.line, vec![moves[l]]);
        assert_eq!(result.root_nodes[i], 100);
        assert_eq!(result.root_nodes[k], 7);
        assert!(
            !board.aborted(),
            "closing clears the abort for the next job"
        );
    }
}
