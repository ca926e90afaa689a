//! `damast book build`: grows an opening book from the start position with Damast's own search,
//! by drop-out expansion.
//!
//! Every stored position has each of its legal moves scored by a search of the position after
//! it, at a fixed node budget. The scores are backed up through the book (see
//! [`Book`](crate::engine::book::Book)). Each round expands the positions that are cheapest to
//! reach from the start: a ply costs 1, and a move worse than the best of its position by `g`
//! hundredths of a man costs `g / dropout` more, so the book grows deep along the best lines and
//! wide where moves are close. Moves worse than the best by more than `margin` are not followed;
//! positions `max_ply` plies deep are not expanded.
//!
//! A round expands the [`ROUND`] cheapest positions, searched in parallel, each with a fresh
//! engine and table, so the book depends only on its settings, not on the number of threads.
//! The file is rewritten (safely) after a round every few seconds and at the end, and a build
//! stops only between rounds (it may pass `size` by less than a round), so a build that
//! resumes from the file it was writing makes the same book as one that never stopped.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap, HashSet};
use std::path::Path;
use std::time::{Duration, Instant};

use rayon::prelude::*;

use crate::core::movegen::canonical_moves;
use crate::core::position::Position;
use crate::core::variant::Variant;
use crate::core::Game;
use crate::engine::book::{Book, BookError, RawBook};
use crate::engine::search::MATE;
use crate::engine::time::Limits;
use crate::engine::{Engine, Mode, Options};

/// Positions expanded per round.
pub const ROUND: usize = 16;

/// How to build a book.
#[derive(Clone, Debug)]
pub struct BuildConfig {
    /// Nodes searched per move.
    pub nodes: u64,
    /// Positions this many plies from the start or deeper are not expanded.
    pub max_ply: u32,
    /// Stop after the round in which the book reaches this many positions.
    pub size: usize,
    /// Moves worse than their position's best by more than this (hundredths) are not followed.
    pub margin: i32,
    /// A move this many hundredths worse than the best costs as much as one more ply.
    pub dropout: i32,
    /// Positions searched at once.
    pub threads: usize,
    /// Options of the searching engines (evaluation, table size).
    pub engine: Options,
}

impl Default for BuildConfig {
    fn default() -> Self {
        BuildConfig {
            nodes: 20_000,
            max_ply: 30,
            size: 10_000,
            margin: 40,
            dropout: 10,
            threads: 1,
            engine: Options {
                tt_mib: 16,
                ..Options::default()
            },
        }
    }
}

/// Where a build stands.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Progress {
    /// Positions in the book.
    pub positions: usize,
    /// Positions expanded by this run.
    pub expanded: usize,
    /// Deepest ply expanded by the last round.
    pub ply: u32,
    /// Whether nothing is left to expand within the settings.
    pub complete: bool,
}

/// What can stop a build.
#[derive(Debug, thiserror::Error)]
pub enum BuildError {
    /// The existing file is not a usable book.
    #[error("{path}: {source}")]
    Book {
        /// The file.
        path: String,
        /// What is wrong with it.
        source: BookError,
    },
    /// The existing file was built with another node budget.
    #[error("{path} was built with {found} nodes per move, not {asked}: give --nodes {found} to go on with it, or another --out")]
    Nodes {
        /// The file.
        path: String,
        /// Its budget.
        found: u64,
        /// The budget asked for.
        asked: u64,
    },
    /// Writing failed.
    #[error("cannot write {path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// The system's reason.
        source: std::io::Error,
    },
}

/// The score of each legal move of `pos` (canonical order) for its mover: a search of the
/// position after it, negated; a move that leaves the opponent without a move wins.
pub fn score_moves<V: Variant>(engine: &mut Engine, pos: &Position<V>, nodes: u64) -> Vec<i16> {
    engine.new_game();
    let limits = Limits {
        nodes: Some(nodes),
        ..Limits::default()
    };
    canonical_moves(pos)
        .iter()
        .map(|m| {
            let game = Game::new(pos.make(m));
            let out = engine.search_to(&game, &limits, Mode::Analyze);
            let s = if out.best.is_none() {
                MATE - 1
            } else {
                -out.score
            };
            s.clamp(i16::MIN as i32 + 1, i16::MAX as i32) as i16
        })
        .collect()
}

/// The next positions to expand: up to `count` unstored positions, cheapest first.
fn frontier<V: Variant>(book: &Book, cfg: &BuildConfig, count: usize) -> Vec<(Position<V>, u32)> {
    let start = Position::<V>::start();
    let mut out = Vec::new();
    let mut seen = HashSet::new();
    // costs in 1/1000 of a ply, so the heap orders integers; ties go to the lower hash
    let mut heap = BinaryHeap::new();
    let mut found = vec![start];
    heap.push(Reverse((0u64, 0u32, start.hash(), 0usize)));
    let dropout = cfg.dropout.max(1) as u64;
    while let Some(Reverse((cost, ply, hash, index))) = heap.pop() {
        if !seen.insert(hash) {
            continue;
        }
        let pos = found[index];
        let Some(moves) = book.moves(&pos) else {
            if ply < cfg.max_ply && !movegen_empty(&pos) {
                out.push((pos, ply));
                if out.len() == count {
                    break;
                }
            }
            continue;
        };
        let best = moves.first().map_or(0, |b| b.score);
        for b in moves {
            let gap = (best - b.score) as u64;
            if gap > cfg.margin.max(0) as u64 {
                continue;
            }
            let next = pos.make(&b.mv);
            let step = 1000 + gap * 1000 / dropout;
            found.push(next);
            heap.push(Reverse((
                cost + step,
                ply + 1,
                next.hash(),
                found.len() - 1,
            )));
        }
    }
    out
}

fn movegen_empty<V: Variant>(pos: &Position<V>) -> bool {
    crate::core::movegen::count(pos) == 0
}

/// Builds (or goes on building) the book at `path`, calling `on_round` after every round.
pub fn build<V: Variant>(
    cfg: &BuildConfig,
    path: &Path,
    on_round: &mut dyn FnMut(Progress),
) -> Result<Progress, BuildError> {
    let name = path.display().to_string();
    let start = Position::<V>::start();
    let mut raw = if path.exists() {
        let raw = RawBook::load(path).map_err(|source| BuildError::Book {
            path: name.clone(),
            source,
        })?;
        // checks the variant and the hash keys
        Book::new::<V>(raw.clone()).map_err(|source| BuildError::Book {
            path: name.clone(),
            source,
        })?;
        if raw.nodes != cfg.nodes {
            return Err(BuildError::Nodes {
                path: name,
                found: raw.nodes,
                asked: cfg.nodes,
            });
        }
        raw
    } else {
        RawBook {
            game_type: V::GAME_TYPE as u16,
            start_hash: start.hash(),
            nodes: cfg.nodes,
            positions: Default::default(),
        }
    };
    let save = |raw: &RawBook| {
        raw.save(path).map_err(|source| BuildError::Io {
            path: name.clone(),
            source,
        })
    };
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(cfg.threads.max(1))
        .build()
        .map_err(|e| BuildError::Io {
            path: name.clone(),
            source: std::io::Error::other(e.to_string()),
        })?;
    let mut progress = Progress {
        positions: raw.positions.len(),
        ..Progress::default()
    };
    on_round(progress);
    let mut saved = Instant::now();
    while raw.positions.len() < cfg.size {
        let book = Book::new::<V>(raw.clone()).expect("the book being built is this variant's");
        let todo = frontier::<V>(&book, cfg, ROUND);
        if todo.is_empty() {
            progress.complete = true;
            break;
        }
        let scored: Vec<(u64, Vec<i16>)> = pool.install(|| {
            todo.par_iter()
                .map_init(
                    || Engine::new(cfg.engine.clone()),
                    |engine, (pos, _)| (pos.hash(), score_moves(engine, pos, cfg.nodes)),
                )
                .collect()
        });
        raw.positions.extend(scored);
        progress.positions = raw.positions.len();
        progress.expanded += todo.len();
        progress.ply = todo.iter().map(|t| t.1).max().unwrap_or(0);
        if saved.elapsed() > Duration::from_secs(10) {
            save(&raw)?;
            saved = Instant::now();
        }
        on_round(progress);
    }
    save(&raw)?;
    Ok(progress)
}

/// The result of re-searching book positions deeper: how far the book's choice falls short.
#[derive(Clone, Debug, Default)]
pub struct Soundness {
    /// Positions re-searched.
    pub positions: usize,
    /// Book candidate moves re-searched.
    pub moves: usize,
    /// Per candidate: the deep score of the best move minus that of the candidate (hundredths).
    pub gaps: Vec<i32>,
}

impl Soundness {
    /// The largest gap.
    pub fn worst(&self) -> i32 {
        self.gaps.iter().copied().max().unwrap_or(0)
    }

    /// Candidates whose gap is at most `margin`.
    pub fn within(&self, margin: i32) -> usize {
        self.gaps.iter().filter(|g| **g <= margin).count()
    }
}

/// Re-searches up to `sample` book positions (every `stride`-th reached position by hash
/// order, deterministic) with `nodes` per move, and measures each play candidate at `margin`
/// against the deep best.
pub fn check_soundness<V: Variant>(
    book: &Book,
    margin: i32,
    sample: usize,
    nodes: u64,
    engine: &mut Engine,
) -> Soundness {
    let start = Position::<V>::start();
    // every position reached through candidate moves, in a deterministic order
    let mut reached: HashMap<u64, Position<V>> = HashMap::new();
    let mut stack = vec![start];
    while let Some(pos) = stack.pop() {
        if reached.contains_key(&pos.hash()) || book.moves(&pos).is_none() {
            continue;
        }
        reached.insert(pos.hash(), pos);
        for c in book.candidates(&pos, margin) {
            stack.push(pos.make(&c.mv));
        }
    }
    let mut keys: Vec<u64> = reached
        .iter()
        .filter(|(_, p)| !book.candidates(*p, margin).is_empty())
        .map(|(h, _)| *h)
        .collect();
    keys.sort_unstable();
    let stride = (keys.len() / sample.max(1)).max(1);
    let mut out = Soundness::default();
    for h in keys.iter().step_by(stride).take(sample) {
        let pos = reached[h];
        let deep = score_moves(engine, &pos, nodes);
        let best = deep.iter().copied().max().unwrap_or(0) as i32;
        let moves = canonical_moves(&pos);
        out.positions += 1;
        for c in book.candidates(&pos, margin) {
            let i = moves.iter().position(|m| *m == c.mv).expect("a legal move");
            out.moves += 1;
            out.gaps.push(best - deep[i] as i32);
        }
    }
    out
}

/// The book moves of `pos`, best first, one per line: `<move> score=<men> book=yes|no`, after a
/// first line with the position's ply; a line `not in book` when it is not stored.
pub fn show_text<V: Variant>(book: &Book, pos: &Position<V>) -> String {
    use std::fmt::Write as _;
    let Some(moves) = book.moves(pos) else {
        return "not in book\n".to_string();
    };
    let mut s = match book.ply(pos) {
        Some(p) => format!("ply={p} moves={}\n", moves.len()),
        None => format!("ply=unreached moves={}\n", moves.len()),
    };
    for b in moves {
        let _ = writeln!(
            s,
            "{:<14} score={:<6} book={}",
            crate::core::notation::pdn(pos, &b.mv),
            crate::engine::score_in_men(b.score),
            if b.in_book { "yes" } else { "no" }
        );
    }
    s
}

/// Size and shape of a book as text: totals, then `ply=<p> positions=<n>` lines.
pub fn stats_text(s: &crate::engine::book::BookStats) -> String {
    use std::fmt::Write as _;
    let mut t = format!(
        "positions={} depth={} nodes-per-move={} unreachable={}\n",
        s.positions,
        s.per_ply.len().saturating_sub(1),
        s.nodes,
        s.unreachable
    );
    for (p, n) in s.per_ply.iter().enumerate() {
        let _ = writeln!(t, "ply={p} positions={n}");
    }
    t
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::variant::International;

    fn tiny(size: usize, threads: usize) -> BuildConfig {
        BuildConfig {
            nodes: 300,
            size,
            threads,
            max_ply: 6,
            ..BuildConfig::default()
        }
    }

    #[test]
    fn builds_deterministically_and_resumes() {
        let dir = std::env::temp_dir().join(format!("damast-book-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let (a, b) = (dir.join("a.book"), dir.join("b.book"));
        let _ = std::fs::remove_file(&a);
        let _ = std::fs::remove_file(&b);
        // a build stops after the round that reaches the size
        let done = build::<International>(&tiny(30, 2), &a, &mut |_| {}).unwrap();
        assert!((30..30 + ROUND).contains(&done.positions), "{done:?}");
        // the same book in two steps, on one thread
        let first = build::<International>(&tiny(13, 1), &b, &mut |_| {}).unwrap();
        assert!((13..13 + ROUND).contains(&first.positions), "{first:?}");
        let resumed = build::<International>(&tiny(30, 1), &b, &mut |_| {}).unwrap();
        assert_eq!(resumed.positions, done.positions);
        assert_eq!(resumed.expanded, done.positions - first.positions);
        assert_eq!(std::fs::read(&a).unwrap(), std::fs::read(&b).unwrap());
        // the book starts at the start position and every stored position is reached
        let book = Book::load::<International>(&a).unwrap();
        let stats = book.stats();
        assert_eq!((stats.per_ply[0], stats.unreachable), (1, 0));
        assert!(stats.per_ply.len() > 2, "{stats:?}");
        // another budget is refused and the file kept
        let e = build::<International>(
            &BuildConfig {
                nodes: 301,
                ..tiny(40, 1)
            },
            &a,
            &mut |_| {},
        )
        .unwrap_err();
        assert!(e.to_string().contains("--nodes 300"), "{e}");
        assert_eq!(
            Book::load::<International>(&a).unwrap().len(),
            done.positions
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_narrow_margin_follows_only_the_best_line() {
        let dir = std::env::temp_dir().join(format!("damast-book-n-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join("n.book");
        let _ = std::fs::remove_file(&p);
        let cfg = BuildConfig {
            margin: 0,
            max_ply: 4,
            ..tiny(100, 2)
        };
        let done = build::<International>(&cfg, &p, &mut |_| {}).unwrap();
        // one position per ply along the best line (ties may add one more)
        assert!(done.complete, "{done:?}");
        let stats = Book::load::<International>(&p).unwrap().stats();
        assert!(stats.per_ply.iter().all(|n| *n >= 1), "{stats:?}");
        assert!(done.positions <= 8, "{done:?} {stats:?}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
