//! Perft: counts the leaf positions of the move tree to a fixed depth, the standard check of a
//! move generator's correctness and speed. Captures with the same from, to and captured set count
//! once (the `drop` convention).

use rayon::prelude::*;

use crate::core::movegen;
use crate::core::moves::{Move, MoveList};
use crate::core::position::Position;
use crate::core::variant::Variant;

/// Leaf count at `depth` (bulk-counted at the last ply), on the calling thread.
pub fn perft<V: Variant>(pos: &Position<V>, depth: u32) -> u64 {
    match depth {
        0 => 1,
        1 => movegen::count(pos),
        2 => {
            // The last make before the leaves: no hash is read below it.
            let mut list = MoveList::new();
            movegen::generate(pos, &mut list);
            list.iter()
                .map(|m| movegen::count(&pos.make_unhashed(m)))
                .sum()
        }
        _ => {
            let mut list = MoveList::new();
            movegen::generate(pos, &mut list);
            let mut n = 0;
            for m in list.iter() {
                n += perft(&pos.make(m), depth - 1);
            }
            n
        }
    }
}

/// Leaf count below each root move.
pub fn divide<V: Variant>(pos: &Position<V>, depth: u32, threads: usize) -> Vec<(Move<V>, u64)> {
    let list = movegen::legal_moves(pos);
    let moves: Vec<Move<V>> = list.iter().copied().collect();
    let count = |m: &Move<V>| perft(&pos.make(m), depth.saturating_sub(1));
    if threads <= 1 {
        moves.iter().map(|m| (*m, count(m))).collect()
    } else {
        pool(threads).install(|| moves.par_iter().map(|m| (*m, count(m))).collect())
    }
}

/// Leaf count at `depth`, split over `threads` threads (work split two plies below the root so
/// that the load balances).
pub fn perft_parallel<V: Variant>(pos: &Position<V>, depth: u32, threads: usize) -> u64 {
    if threads <= 1 || depth < 3 {
        return perft(pos, depth);
    }
    let mut work: Vec<Position<V>> = Vec::new();
    for m in movegen::legal_moves(pos).iter() {
        let p = pos.make(m);
        for m2 in movegen::legal_moves(&p).iter() {
            work.push(p.make(m2));
        }
    }
    pool(threads).install(|| work.par_iter().map(|p| perft(p, depth - 2)).sum())
}

fn pool(threads: usize) -> rayon::ThreadPool {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("thread pool")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::variant::International;

    #[test]
    fn start_position_small_depths() {
        let p = Position::<International>::start();
        assert_eq!(perft(&p, 1), 9);
        assert_eq!(perft(&p, 3), 658);
        assert_eq!(perft_parallel(&p, 4, 2), 4265);
        let d: u64 = divide(&p, 3, 2).iter().map(|x| x.1).sum();
        assert_eq!(d, 658);
    }
}
