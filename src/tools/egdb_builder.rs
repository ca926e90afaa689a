//! `damast egdb build` and `verify`: endgame database slices with distances to conversion.
//!
//! Slices are built in the order of [`Signature::up_to`], so the slices that a capture or a
//! promotion leads to are on disk before the slices that need them. A signature and its mirror
//! (the same material with the other side to move) are solved together, as each one's quiet
//! moves lead into the other.
//!
//! The values and distances to conversion (the plies until a capture, a promotion or the end of
//! the game, the winner hurrying and the loser holding out) follow one rule, which `verify`
//! checks position by position ([`solve_one`]): a position without a move is lost at distance
//! 0; one with a move to a lost position is won, at one more than the nearest such loss; one
//! whose every move leads to a won position is lost, at one more than the farthest; a move out
//! of the pair (a capture or a promotion) is a conversion, at distance 0, with the value of the
//! smaller slice on disk. What no chain of such steps settles is drawn.
//!
//! The solver is retrograde. One forward pass generates the moves of every position of the
//! pair: it settles the positions without a move (lost at 0), those with a conversion to a lost
//! position (won at 1) and those whose every move is a conversion to a won position (lost at
//! 1); every other position gets a counter of its quiet moves within the pair, or a mark that
//! it can never be lost when one of its conversions is not won for the opponent. Then level
//! `d = 0, 1, 2, ...` takes every position settled at distance `d` and un-moves the side that
//! just moved (see [`unmoves`]): a predecessor of a lost position is won at `d + 1` unless
//! already settled; a predecessor of a won position has its counter taken down by one, and when
//! it reaches 0 (every move leads to a won position) it is lost at `d + 1`. As the levels come
//! in order of distance, a won position is settled by its nearest lost successor (the first
//! level that reaches it) and a lost one by its farthest won successor (the last of its
//! counter), so the distances are those of the rule above; within a level the threads (rayon)
//! settle a position by compare-and-exchange on its cell, and all writers of a level would
//! write the same value, so the result does not depend on their order. What no level settles
//! is drawn. A slice already in the directory is kept, so an interrupted build resumes slice by
//! slice.
//!
//! Memory while solving: 3 bytes a position of the pair (a 2-byte cell, code and distance, and
//! a 1-byte counter), besides the smaller slices read from disk (a byte a position each).

use std::path::Path;
use std::sync::atomic::{AtomicU16, AtomicU32, AtomicU64, AtomicU8, Ordering};
use std::time::Instant;

use rayon::prelude::*;

use crate::core::bitboard::Bitboard;
use crate::core::movegen;
use crate::core::moves::MoveList;
use crate::core::position::Position;
use crate::core::variant::{Color, Variant};
use crate::engine::egdb::file::{Entry, DRAW, INVALID, LOSS, WIN};
use crate::engine::egdb::{slice_file, white_to_move, Egdb, Indexer, ProbeError, Signature, Slice};

/// What happens during a build, for progress reports.
#[derive(Clone, Debug)]
pub enum Event {
    /// A slice is kept from an earlier run.
    Kept(Signature),
    /// A slice is being solved: its signature and number of indices.
    Start(Signature, u64),
    /// A level of the solver is done: the signature, the level (from 1: the positions at
    /// distance `level - 1` have passed their value to their predecessors) and the positions
    /// settled so far.
    Pass(Signature, u32, u64),
    /// A slice is written.
    Done(SliceReport),
}

/// The result of one slice.
#[derive(Clone, Debug)]
pub struct SliceReport {
    /// The signature.
    pub sig: Signature,
    /// Positions (indices that are positions).
    pub positions: u64,
    /// Won, drawn and lost positions.
    pub wins: u64,
    /// Drawn positions.
    pub draws: u64,
    /// Lost positions.
    pub losses: u64,
    /// The longest distance to conversion of a won position, in plies.
    pub longest_win: u32,
    /// The longest distance to conversion of a lost position, in plies.
    pub longest_loss: u32,
    /// Levels of the solver (one more than the longest distance settled in the pair).
    pub levels: u32,
    /// Seconds to solve it (with its mirror).
    pub seconds: f64,
    /// Size of the file in bytes.
    pub bytes: u64,
}

/// What can stop a build.
#[derive(Debug, thiserror::Error)]
pub enum BuildError {
    /// A slice needed is missing or damaged.
    #[error("{0}")]
    Probe(#[from] ProbeError),
    /// Writing failed.
    #[error("cannot write {path}: {reason}")]
    Io {
        /// The file.
        path: String,
        /// The system's reason.
        reason: String,
    },
}

/// The slices being solved or checked: a signature and its mirror (or one symmetric
/// signature), with, while the pass solver of the tests solves them, one cell per index (see
/// [`pack`]); when checking, no cells and the values come from the files.
struct Home<'a> {
    sigs: &'a [Signature],
    cells: &'a [&'a [AtomicU16]],
}

/// A cell: the code in the low two bits and the distance above them (at most `0x3fff`).
#[inline]
fn pack(code: u8, plies: u32) -> u16 {
    code as u16 | (plies.min(0x3fff) as u16) << 2
}

#[inline]
fn unpack(cell: u16) -> (u8, u32) {
    ((cell & 3) as u8, (cell >> 2) as u32)
}

/// The code and distance of the position after a move, for the opponent, as pass `pass` sees
/// it: a position of the home slices counts only when settled at a distance below `pass` (else
/// it is unknown, [`DRAW`]); a position of a smaller slice is a conversion, at distance 0.
fn successor<V: Variant>(
    after: &Position<V>,
    home: &Home,
    db: &Egdb,
    pass: u32,
) -> Result<(u8, u32), ProbeError> {
    if after.pieces(after.side()).is_empty() {
        return Ok((LOSS, 0));
    }
    let white = white_to_move(after);
    let sig = Signature::of(&white);
    let i = Indexer::<V>::new(sig).index(&white);
    let Some(k) = home.sigs.iter().position(|s| *s == sig) else {
        return Ok((db.slice(sig)?.code(i), 0));
    };
    let (code, plies) = match home.cells.get(k) {
        Some(cells) => unpack(cells[i as usize].load(Ordering::Relaxed)),
        None => Entry::decode(db.slice(sig)?.byte(i)),
    };
    Ok(if code != DRAW && plies < pass {
        (code, plies)
    } else {
        (DRAW, 0)
    })
}

/// The code and distance that the successors prove for `pos` (White to move) in pass `pass`,
/// or [`DRAW`] when they prove nothing (yet, while solving; at all, at the fixed point).
fn solve_one<V: Variant>(
    pos: &Position<V>,
    home: &Home,
    db: &Egdb,
    pass: u32,
) -> Result<(u8, u32), ProbeError> {
    let moves = movegen::legal_moves(pos);
    let mut nearest_loss: Option<u32> = None;
    let mut farthest_win = 0;
    let mut all_won = true;
    for m in moves.iter() {
        match successor(&pos.make(m), home, db, pass)? {
            (LOSS, d) => nearest_loss = Some(nearest_loss.map_or(d, |n| n.min(d))),
            (WIN, d) => farthest_win = farthest_win.max(d),
            _ => all_won = false,
        }
    }
    Ok(match nearest_loss {
        Some(d) => (WIN, d + 1),
        // no move at all is a loss at distance 0
        None if all_won && moves.is_empty() => (LOSS, 0),
        None if all_won => (LOSS, farthest_win + 1),
        None => (DRAW, 0),
    })
}

/// The counter of a position that is never lost: one of its conversions is drawn or won for it.
const NEVER_LOST: u8 = u8::MAX;

/// Writes into `out` (emptied first) every position from which a quiet move of the pair may
/// have led to `pos` (White to move), turned to White to move: the last move taken back, a
/// king along its rays over empty squares (one square for short kings), a man one step back.
/// Captures and promotions leave the pair and are not taken back: a king is un-moved as a
/// king, a man as a man. Such a position is a predecessor only when its side to move has no
/// capture ([`movegen::has_capture`]): captures are compulsory, so the quiet move would not
/// have been legal; the caller tests that last, as it costs the most.
fn unmoves<V: Variant>(pos: &Position<V>, out: &mut Vec<Position<V>>) {
    out.clear();
    // turned round, the side that has just moved is White, and White is to move before it
    let after = pos.turned();
    let (white, black, kings) = (
        after.pieces(Color::White).0,
        after.pieces(Color::Black).0,
        after.all_kings().0,
    );
    let empty = after.empty().0;
    let mut back = |from: u64, to: u64, king: bool| {
        out.push(Position::<V>::from_bitboards(
            Bitboard(white & !to | from),
            Bitboard(black),
            Bitboard(if king { kings & !to | from } else { kings }),
            Color::White,
        ));
    };
    for k in after.kings(Color::White).bits() {
        let to = 1u64 << k;
        for d in 0..4 {
            let mut from = movegen::step::<V>(to, d) & empty;
            while from != 0 {
                back(from, to, true);
                if !V::FLYING_KINGS {
                    break;
                }
                from = movegen::step::<V>(from, d) & empty;
            }
        }
    }
    // white men move up the board: they come back down
    for m in after.men(Color::White).bits() {
        let to = 1u64 << m;
        for d in [movegen::DOWN_LEFT, movegen::DOWN_RIGHT] {
            let from = movegen::step::<V>(to, d) & empty;
            if from != 0 {
                back(from, to, false);
            }
        }
    }
}

/// The cell and counter of `pos` (White to move) after the forward pass: lost at 0 without a
/// move, won at 1 with a conversion to a lost position, lost at 1 when every move is a
/// conversion to a won position; else unsettled, with the number of its moves within the pair
/// `home` as counter, or [`NEVER_LOST`] when a conversion is neither lost nor won for the
/// opponent (as in [`solve_one`], a conversion is at distance 0 and a move that leaves the
/// opponent without pieces is a loss for it).
fn forward<V: Variant>(
    pos: &Position<V>,
    home: &[Signature],
    db: &Egdb,
    moves: &mut MoveList<V>,
) -> Result<(u16, u8), ProbeError> {
    movegen::generate(pos, moves);
    if moves.is_empty() {
        return Ok((pack(LOSS, 0), 0));
    }
    let (mut inside, mut all_won) = (0u32, true);
    for m in moves.iter() {
        let after = pos.make(m);
        if after.pieces(after.side()).is_empty() {
            return Ok((pack(WIN, 1), 0));
        }
        // the signature of `after` from its side to move, as white_to_move(after) has it
        let sig = Signature::of(&after);
        if home.contains(&sig) {
            inside += 1;
            continue;
        }
        let white = white_to_move(&after);
        match db.slice(sig)?.code(Indexer::<V>::new(sig).index(&white)) {
            LOSS => return Ok((pack(WIN, 1), 0)),
            WIN => {}
            _ => all_won = false,
        }
    }
    Ok(if !all_won {
        (pack(DRAW, 0), NEVER_LOST)
    } else if inside == 0 {
        (pack(LOSS, 1), 0)
    } else {
        // at most 8 kings of a side, 17 moves each on 10x10: far fewer than 255 quiet moves
        assert!(inside < NEVER_LOST as u32, "{inside} quiet moves");
        (pack(DRAW, 0), inside as u8)
    })
}

/// Indices a rayon task takes at once in the passes over a table.
const CHUNK: usize = 1 << 12;

/// The cells (code and distance, see [`pack`]) and counters of the positions of one slice of
/// the pair, and for each chunk of [`CHUNK`] indices the levels it has positions of that are
/// still to be processed (bit `level % 64`: only two levels are ever pending).
struct Table<V> {
    ix: Indexer<V>,
    cells: Vec<AtomicU16>,
    counters: Vec<AtomicU8>,
    pending: Vec<AtomicU64>,
}

impl<V> Table<V> {
    /// Notes that index `j` is settled at distance `plies`, for the level of that distance.
    #[inline]
    fn note(&self, j: usize, plies: u32) {
        self.pending[j / CHUNK].fetch_or(1 << (plies % 64), Ordering::Relaxed);
    }
}

/// Passes the value of `pos`, settled at distance `level` with `code` ([`WIN`] or [`LOSS`]),
/// to its unsettled predecessors in `before`: each is won at `level + 1` when `pos` is lost;
/// when `pos` is won, each has its counter taken down and is lost at `level + 1` when it
/// reaches 0. The number of positions settled; `scratch` holds the candidates and indices.
fn propagate<V: Variant>(
    pos: &Position<V>,
    code: u8,
    level: u32,
    before: &Table<V>,
    scratch: &mut (Vec<Position<V>>, Vec<usize>),
) -> u64 {
    let (candidates, open) = scratch;
    unmoves(pos, candidates);
    // the unsettled ones (whose counter can still reach 0, for a win); every cell is read
    // before any is used, so that the reads, far apart in memory, overlap
    open.clear();
    open.extend(candidates.iter().map(|p| before.ix.index(p) as usize));
    for j in open.iter_mut() {
        let unsettled = before.cells[*j].load(Ordering::Relaxed) == pack(DRAW, 0)
            && (code == LOSS || before.counters[*j].load(Ordering::Relaxed) != NEVER_LOST);
        if !unsettled {
            *j = usize::MAX;
        }
    }
    let mut settled = 0;
    for (p, &j) in candidates.iter().zip(open.iter()) {
        if j == usize::MAX || movegen::has_capture(p) {
            continue;
        }
        let cell = &before.cells[j];
        let settle = |value| {
            cell.compare_exchange(pack(DRAW, 0), value, Ordering::Relaxed, Ordering::Relaxed)
                .is_ok()
        };
        if code == LOSS {
            // won one ply beyond its nearest lost successor: this level, the first that
            // reaches it (other threads may settle it at this level too, the same way)
            if settle(pack(WIN, level + 1)) {
                before.note(j, level + 1);
                settled += 1;
            }
        } else if before.counters[j].fetch_sub(1, Ordering::Relaxed) == 1 {
            // lost one ply beyond its farthest won successor: the level that takes its counter
            // to 0 (it has no lost successor, so nothing else settles it)
            let fresh = settle(pack(LOSS, level + 1));
            debug_assert!(fresh, "a lost position settled before");
            before.note(j, level + 1);
            settled += 1;
        }
    }
    settled
}

/// Solves `sigs` (a signature and its mirror, or one symmetric signature) together,
/// retrograde (see the module's documentation): each one's stored bytes and the number of
/// levels. Reports each level with [`Event::Pass`].
fn solve<V: Variant>(
    sigs: &[Signature],
    db: &Egdb,
    on_event: &mut dyn FnMut(Event),
) -> Result<(Vec<Vec<u8>>, u32), ProbeError> {
    // 3 bytes a position of the pair at the peak: its cell and its counter
    let mut tables: Vec<Table<V>> = sigs
        .iter()
        .map(|s| {
            let ix = Indexer::<V>::new(*s);
            let n = ix.size() as usize;
            Table {
                ix,
                cells: std::iter::repeat_with(|| AtomicU16::new(0))
                    .take(n)
                    .collect(),
                counters: std::iter::repeat_with(|| AtomicU8::new(0))
                    .take(n)
                    .collect(),
                pending: std::iter::repeat_with(|| AtomicU64::new(0))
                    .take(n.div_ceil(CHUNK))
                    .collect(),
            }
        })
        .collect();
    // the forward pass
    let longest = AtomicU32::new(0);
    let settled = AtomicU64::new(0);
    for t in &tables {
        t.cells
            .par_chunks(CHUNK)
            .zip(t.counters.par_chunks(CHUNK))
            .enumerate()
            .try_for_each(|(c, (cells, counters))| {
                let (mut here, mut moves) = (0, MoveList::new());
                for (o, (cell, counter)) in cells.iter().zip(counters).enumerate() {
                    let Some(pos) = t.ix.position((c * CHUNK + o) as u64) else {
                        cell.store(pack(INVALID, 0), Ordering::Relaxed);
                        continue;
                    };
                    let (value, count) = forward(&pos, sigs, db, &mut moves)?;
                    cell.store(value, Ordering::Relaxed);
                    counter.store(count, Ordering::Relaxed);
                    let (code, plies) = unpack(value);
                    if code != DRAW {
                        here += 1;
                        longest.fetch_max(plies, Ordering::Relaxed);
                        t.note(c * CHUNK, plies);
                    }
                }
                settled.fetch_add(here, Ordering::Relaxed);
                Ok::<(), ProbeError>(())
            })?;
    }
    // the levels: the predecessors of the positions at distance d settle at d + 1
    let mut level = 0;
    loop {
        // a cell holds distances up to 0x3fff; no slice of up to 9 pieces comes near
        assert!(level < 0x3fff, "a distance beyond what a cell holds");
        let bit = 1u64 << (level % 64);
        for (k, t) in tables.iter().enumerate() {
            // the quiet moves of one slice of the pair lead into the other (or the same one)
            let before = &tables[if tables.len() == 2 { 1 - k } else { 0 }];
            t.cells
                .par_chunks(CHUNK)
                .enumerate()
                .for_each(|(c, cells)| {
                    if t.pending[c].fetch_and(!bit, Ordering::Relaxed) & bit == 0 {
                        return;
                    }
                    let (mut here, mut scratch) = (0, (Vec::new(), Vec::new()));
                    for (o, cell) in cells.iter().enumerate() {
                        let (code, plies) = unpack(cell.load(Ordering::Relaxed));
                        if plies == level && (code == WIN || code == LOSS) {
                            let pos = t.ix.position((c * CHUNK + o) as u64).expect("a position");
                            here += propagate(&pos, code, level, before, &mut scratch);
                        }
                    }
                    if here > 0 {
                        settled.fetch_add(here, Ordering::Relaxed);
                        longest.fetch_max(level + 1, Ordering::Relaxed);
                    }
                });
        }
        let done = settled.load(Ordering::Relaxed);
        on_event(Event::Pass(sigs[0], level + 1, done));
        if level >= longest.load(Ordering::Relaxed) {
            break;
        }
        level += 1;
    }
    for t in &mut tables {
        t.counters = Vec::new();
        t.pending = Vec::new();
    }
    let bytes = tables
        .into_iter()
        .map(|t| {
            t.cells
                .into_par_iter()
                .map(|c| {
                    let (code, plies) = unpack(c.into_inner());
                    Entry::byte(code, plies)
                })
                .collect()
        })
        .collect();
    Ok((bytes, level + 1))
}

/// The solver that [`solve`] replaced, kept to check it: passes over every unsettled position
/// until a fixed point, pass `p` seeing only the positions of the pair settled at a distance
/// below `p` (so it settles exactly the positions at distance `p`, in any order). Each one's
/// stored bytes and the passes.
#[cfg(test)]
fn solve_by_passes<V: Variant>(
    sigs: &[Signature],
    db: &Egdb,
    on_event: &mut dyn FnMut(Event),
) -> Result<(Vec<Vec<u8>>, u32), ProbeError> {
    let tables: Vec<Vec<AtomicU16>> = sigs
        .iter()
        .map(|s| {
            let ix = Indexer::<V>::new(*s);
            (0..ix.size())
                .into_par_iter()
                .map(|i| {
                    let code = if ix.position(i).is_some() {
                        DRAW
                    } else {
                        INVALID
                    };
                    AtomicU16::new(pack(code, 0))
                })
                .collect()
        })
        .collect();
    let cells: Vec<&[AtomicU16]> = tables.iter().map(|t| t.as_slice()).collect();
    let home = Home {
        sigs,
        cells: &cells,
    };
    // the unknown positions of every table, as (table, index)
    let mut unknown: Vec<(u8, u64)> = Vec::new();
    for (t, table) in tables.iter().enumerate() {
        unknown.extend(
            table
                .iter()
                .enumerate()
                .filter(|(_, c)| unpack(c.load(Ordering::Relaxed)).0 == DRAW)
                .map(|(i, _)| (t as u8, i as u64)),
        );
    }
    let total: u64 = unknown.len() as u64;
    // the longest distance settled so far
    let longest = AtomicU32::new(0);
    let mut pass = 0;
    loop {
        let left: Result<Vec<(u8, u64)>, ProbeError> = unknown
            .par_iter()
            .filter_map(|&(t, i)| {
                let ix = Indexer::<V>::new(sigs[t as usize]);
                let pos = ix.position(i).expect("a valid index");
                match solve_one(&pos, &home, db, pass) {
                    Ok((DRAW, _)) => Some(Ok((t, i))),
                    Ok((code, plies)) => {
                        tables[t as usize][i as usize].store(pack(code, plies), Ordering::Relaxed);
                        longest.fetch_max(plies, Ordering::Relaxed);
                        None
                    }
                    Err(e) => Some(Err(e)),
                }
            })
            .collect();
        let left = left?;
        let changed = left.len() != unknown.len();
        unknown = left;
        on_event(Event::Pass(sigs[0], pass + 1, total - unknown.len() as u64));
        // the next pass sees more only if some position is settled at this pass's distance
        if unknown.is_empty() || (!changed && pass > longest.load(Ordering::Relaxed)) {
            break;
        }
        pass += 1;
    }
    let bytes = tables
        .into_iter()
        .map(|t| {
            t.into_par_iter()
                .map(|c| {
                    let (code, plies) = unpack(c.into_inner());
                    Entry::byte(code, plies)
                })
                .collect()
        })
        .collect();
    Ok((bytes, pass + 1))
}

/// Builds every slice of up to `pieces` pieces (or only `only`, whose smaller slices must be
/// there) into `dir`, keeping the slices already there.
pub fn build<V: Variant>(
    dir: &Path,
    pieces: u32,
    only: Option<Signature>,
    on_event: &mut dyn FnMut(Event),
) -> Result<Vec<SliceReport>, BuildError> {
    build_with::<V>(dir, pieces, only, on_event, solve::<V>)
}

/// A solver of a pair of slices: each one's stored bytes and its number of levels or passes.
type Solver =
    fn(&[Signature], &Egdb, &mut dyn FnMut(Event)) -> Result<(Vec<Vec<u8>>, u32), ProbeError>;

/// [`build`] with the solver `solver`.
fn build_with<V: Variant>(
    dir: &Path,
    pieces: u32,
    only: Option<Signature>,
    on_event: &mut dyn FnMut(Event),
    solver: Solver,
) -> Result<Vec<SliceReport>, BuildError> {
    std::fs::create_dir_all(dir).map_err(|e| BuildError::Io {
        path: dir.display().to_string(),
        reason: e.to_string(),
    })?;
    let db = Egdb::open(
        dir,
        V::KIND,
        Some(pieces.max(only.map_or(0, |s| s.pieces()))),
    );
    let mut reports = Vec::new();
    let wanted: Vec<Signature> = match only {
        Some(s) => vec![s],
        None => Signature::up_to(pieces),
    };
    for sig in wanted {
        let path = slice_file(dir, V::KIND, sig);
        if path.exists() && db.slice(sig).is_ok() {
            on_event(Event::Kept(sig));
            continue;
        }
        let mirror = sig.flipped();
        let sigs: Vec<Signature> = if mirror == sig {
            vec![sig]
        } else {
            vec![sig, mirror]
        };
        let size: u64 = sigs.iter().map(|s| Indexer::<V>::new(*s).size()).sum();
        on_event(Event::Start(sig, size));
        let start = Instant::now();
        let (codes, levels) = solver(&sigs, &db, on_event)?;
        let seconds = start.elapsed().as_secs_f64();
        for (s, c) in sigs.iter().zip(codes) {
            let slice = Slice::new(V::GAME_TYPE as u16, *s, c);
            let p = slice_file(dir, V::KIND, *s);
            slice.save(&p).map_err(|e| BuildError::Io {
                path: p.display().to_string(),
                reason: e.to_string(),
            })?;
            let [draws, wins, losses, invalid] = slice.counts();
            let (longest_win, longest_loss) = slice.longest();
            let report = SliceReport {
                longest_win,
                longest_loss,
                sig: *s,
                positions: slice.len() - invalid,
                wins,
                draws,
                losses,
                levels,
                seconds,
                bytes: std::fs::metadata(&p).map_or(0, |m| m.len()),
            };
            on_event(Event::Done(report.clone()));
            reports.push(report);
        }
    }
    Ok(reports)
}

/// A stored value that disagrees with its successors: the index, the stored byte and the byte
/// the successors give (see [`Entry`]).
pub type Disagreement = (u64, u8, u8);

/// Checks every position of a slice against its successors: the number of positions checked
/// and the first `limit` disagreements.
pub fn verify_slice<V: Variant>(
    db: &Egdb,
    sig: Signature,
    limit: usize,
) -> Result<(u64, Vec<Disagreement>), ProbeError> {
    let slice = db.slice(sig)?;
    let ix = Indexer::<V>::new(sig);
    let sigs = [sig, sig.flipped()];
    let home = Home {
        sigs: &sigs,
        cells: &[],
    };
    let checked = std::sync::atomic::AtomicU64::new(0);
    let wrong: Result<Vec<Disagreement>, ProbeError> = (0..ix.size())
        .into_par_iter()
        .filter_map(|i| {
            let pos = ix.position(i)?;
            checked.fetch_add(1, Ordering::Relaxed);
            let stored = slice.byte(i);
            // what the successors say, value and distance, by the rule the solver follows
            // (every successor from the files, this slice's and its mirror's included)
            let expected = match solve_one(&pos, &home, db, u32::MAX) {
                Ok((code, plies)) => Entry::byte(code, plies),
                Err(e) => return Some(Err(e)),
            };
            (expected != stored).then_some(Ok((i, stored, expected)))
        })
        .collect();
    let mut wrong = wrong?;
    wrong.sort_unstable();
    wrong.truncate(limit);
    Ok((checked.into_inner(), wrong))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::fen;
    use crate::core::variant::{Brazilian, English, International, Russian};
    use crate::engine::egdb::Wdl;

    fn dir(name: &str) -> std::path::PathBuf {
        let d = std::env::temp_dir().join(format!("damast-egdb-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        d
    }

    #[test]
    fn three_pieces_international_known_results_and_verify() {
        let d = dir("intl3");
        let reports = build::<International>(&d, 3, None, &mut |_| {}).unwrap();
        assert!(reports.len() >= 14, "{}", reports.len());
        let db = Egdb::open(&d, International::KIND, None);
        assert_eq!(db.pieces(), 3);
        let probe = |f: &str| db.probe(&fen::parse::<International>(f).unwrap()).unwrap();
        // a king against a king is a draw, whoever moves ...
        assert_eq!(probe("W:WK31:BK20"), Wdl::Draw);
        assert_eq!(probe("B:WK31:BK20"), Wdl::Draw);
        // ... unless both stand on the long diagonal: the king to move must step along it
        // (46 is a corner) and is taken
        assert_eq!(probe("W:WK46:BK5"), Wdl::Loss);
        assert_eq!(probe("B:WK46:BK5"), Wdl::Loss);
        // ... two plies from the end: the step, then the capture
        let entry = |f: &str| {
            db.probe_entry(&fen::parse::<International>(f).unwrap())
                .unwrap()
        };
        assert_eq!(entry("W:WK46:BK5").plies, 2);
        assert_eq!(entry("W:W28:B23").plies, 1);
        assert_eq!(entry("W:WK31:BK20").plies, 0);
        // two kings cannot beat a king on the long diagonal
        assert_eq!(probe("W:WK1,K2:BK46"), Wdl::Draw);
        // the side to move takes the last piece: White 28x19, or Black 23x32
        assert_eq!(probe("W:W28:B23"), Wdl::Win);
        assert_eq!(probe("B:W28:B23"), Wdl::Win);
        // more pieces than the database is an error
        assert!(matches!(
            db.probe(&fen::parse::<International>("W:W31,32:B1,2").unwrap()),
            Err(ProbeError::TooManyPieces { pieces: 4, max: 3 })
        ));
        for r in &reports {
            let (checked, wrong) = verify_slice::<International>(&db, r.sig, 5).unwrap();
            assert_eq!(checked, r.positions);
            assert!(wrong.is_empty(), "{}: {wrong:?}", r.sig);
        }
        // a second run keeps everything
        let again = build::<International>(&d, 3, None, &mut |_| {}).unwrap();
        assert!(again.is_empty());
        std::fs::remove_dir_all(&d).unwrap();
    }

    /// A plain search to the end: the value of `pos` if one side can force the end of the game
    /// within `depth` plies.
    fn plain<V: Variant>(
        pos: &Position<V>,
        depth: u32,
        memo: &mut std::collections::HashMap<(u64, u32), Option<Wdl>>,
    ) -> Option<Wdl> {
        if let Some(v) = memo.get(&(pos.hash(), depth)) {
            return *v;
        }
        let moves = movegen::legal_moves(pos);
        let v = if moves.is_empty() {
            Some(Wdl::Loss)
        } else if depth == 0 {
            None
        } else {
            let mut all_won = true;
            let mut found = None;
            for m in moves.iter() {
                let after = pos.make(m);
                let child = if after.pieces(after.side()).is_empty() {
                    Some(Wdl::Loss)
                } else {
                    plain(&after, depth - 1, memo)
                };
                match child {
                    Some(Wdl::Loss) => {
                        found = Some(Wdl::Win);
                        break;
                    }
                    Some(Wdl::Win) => {}
                    _ => all_won = false,
                }
            }
            found.or(if all_won { Some(Wdl::Loss) } else { None })
        };
        memo.insert((pos.hash(), depth), v);
        v
    }

    #[test]
    fn probes_agree_with_a_plain_search_to_the_end() {
        let d = dir("plain");
        build::<English>(&d, 3, None, &mut |_| {}).unwrap();
        let db = Egdb::open(&d, English::KIND, None);
        let mut memo = std::collections::HashMap::new();
        let (mut checked, mut decided) = (0, 0);
        // every position of every 2-piece slice: the search to 40 plies settles each, the same
        // way; every 97th of the 3-piece ones: what the search settles within 16 plies agrees
        // (wins of two kings against one take longer)
        for sig in Signature::up_to(3) {
            let ix = Indexer::<English>::new(sig);
            let (step, depth) = if sig.pieces() == 2 { (1, 40) } else { (97, 16) };
            for i in (0..ix.size()).step_by(step) {
                let Some(pos) = ix.position(i) else { continue };
                let stored = db.probe(&pos).unwrap();
                let searched = plain(&pos, depth, &mut memo);
                if sig.pieces() == 2 {
                    assert_eq!(
                        stored,
                        searched.unwrap_or(Wdl::Draw),
                        "{}",
                        fen::write(&pos)
                    );
                } else if let Some(v) = searched {
                    assert_eq!(stored, v, "{sig} {}", fen::write(&pos));
                    decided += 1;
                }
                checked += 1;
            }
        }
        assert!(checked > 3000 && decided > 300, "{checked} {decided}");
        std::fs::remove_dir_all(&d).unwrap();
    }

    /// Whether a search of `depth` plies proves `pos` won or lost, with every capture or
    /// promotion (a move out of `home`) ending the line with the database's value there.
    fn conversion_search<V: Variant>(
        pos: &Position<V>,
        depth: u32,
        home: &[Signature],
        db: &Egdb,
        memo: &mut std::collections::HashMap<(u64, u32), Option<Wdl>>,
    ) -> Option<Wdl> {
        if let Some(v) = memo.get(&(pos.hash(), depth)) {
            return *v;
        }
        let moves = movegen::legal_moves(pos);
        let v = if moves.is_empty() {
            Some(Wdl::Loss)
        } else if depth == 0 {
            None
        } else {
            let (mut won, mut all_lost) = (false, true);
            for m in moves.iter() {
                let after = pos.make(m);
                let child = if after.pieces(after.side()).is_empty() {
                    Some(Wdl::Loss)
                } else if !home.contains(&Signature::of(&white_to_move(&after))) {
                    Some(db.probe(&after).unwrap())
                } else {
                    conversion_search(&after, depth - 1, home, db, memo)
                };
                match child {
                    Some(Wdl::Loss) => won = true,
                    Some(Wdl::Win) => {}
                    _ => all_lost = false,
                }
            }
            if won {
                Some(Wdl::Win)
            } else if all_lost {
                Some(Wdl::Loss)
            } else {
                None
            }
        };
        memo.insert((pos.hash(), depth), v);
        v
    }

    #[test]
    fn distances_are_the_shortest_search_that_proves_the_value() {
        let d = dir("dtc");
        build::<English>(&d, 3, None, &mut |_| {}).unwrap();
        let db = Egdb::open(&d, English::KIND, None);
        let (mut wins, mut losses, mut draws) = (0, 0, 0);
        for sig in Signature::up_to(3) {
            let home = [sig, sig.flipped()];
            let ix = Indexer::<English>::new(sig);
            let mut memo = std::collections::HashMap::new();
            let step = if sig.pieces() == 2 { 1 } else { 29 };
            for i in (0..ix.size()).step_by(step) {
                let Some(pos) = ix.position(i) else { continue };
                let e = db.probe_entry(&pos).unwrap();
                let mut at = |depth| conversion_search(&pos, depth, &home, &db, &mut memo);
                let f = fen::write(&pos);
                match e.wdl {
                    Wdl::Draw => {
                        // nothing proves a draw won or lost, however deep
                        assert_eq!(at(40), None, "{f}");
                        draws += 1;
                    }
                    wdl => {
                        // proved at the stored distance, not one ply sooner
                        assert_eq!(at(e.plies), Some(wdl), "{f} {e:?}");
                        if e.plies > 0 {
                            assert_eq!(at(e.plies - 1), None, "{f} {e:?}");
                        }
                        if wdl == Wdl::Win {
                            wins += 1;
                        } else {
                            losses += 1;
                        }
                    }
                }
            }
        }
        assert!(
            wins > 500 && losses > 500 && draws > 100,
            "{wins} {losses} {draws}"
        );
        std::fs::remove_dir_all(&d).unwrap();
    }

    /// Every slice file of `dir`, by name.
    fn files(dir: &std::path::Path) -> std::collections::BTreeMap<String, Vec<u8>> {
        std::fs::read_dir(dir)
            .unwrap()
            .map(|e| {
                let p = e.unwrap().path();
                let name = p.file_name().unwrap().to_string_lossy().into_owned();
                (name, std::fs::read(&p).unwrap())
            })
            .collect()
    }

    /// Asserts that two directories hold the same files, byte for byte; their number.
    fn same_files(a: &std::path::Path, b: &std::path::Path) -> usize {
        let (fa, fb) = (files(a), files(b));
        assert_eq!(fa.keys().collect::<Vec<_>>(), fb.keys().collect::<Vec<_>>());
        for (name, bytes) in &fa {
            assert!(bytes == &fb[name], "{name} differs between the solvers");
        }
        fa.len()
    }

    /// Builds every slice of up to `pieces` pieces with the retrograde solver and with the
    /// passes, each into its own directory, and asserts that the files are the same.
    fn solvers_agree<V: Variant>(name: &str, pieces: u32) {
        let (a, b) = (
            dir(&format!("{name}-retro")),
            dir(&format!("{name}-passes")),
        );
        build_with::<V>(&a, pieces, None, &mut |_| {}, solve::<V>).unwrap();
        build_with::<V>(&b, pieces, None, &mut |_| {}, solve_by_passes::<V>).unwrap();
        assert_eq!(same_files(&a, &b), Signature::up_to(pieces).len());
        std::fs::remove_dir_all(&a).unwrap();
        std::fs::remove_dir_all(&b).unwrap();
    }

    /// With the slices of up to `below` pieces in both directories, solves each of `sigs`
    /// (with its mirror; in an order in which the slices that its promotions lead to come
    /// first) with both solvers and asserts that the files are the same.
    fn solvers_agree_on<V: Variant>(name: &str, below: u32, sigs: &[&str]) {
        let (a, b) = (
            dir(&format!("{name}-retro")),
            dir(&format!("{name}-passes")),
        );
        build::<V>(&a, below, None, &mut |_| {}).unwrap();
        std::fs::create_dir_all(&b).unwrap();
        for (file, bytes) in files(&a) {
            std::fs::write(b.join(file), bytes).unwrap();
        }
        for sig in sigs {
            let sig: Signature = sig.parse().unwrap();
            let pieces = sig.pieces();
            let new = build_with::<V>(&a, pieces, Some(sig), &mut |_| {}, solve::<V>).unwrap();
            let old =
                build_with::<V>(&b, pieces, Some(sig), &mut |_| {}, solve_by_passes::<V>).unwrap();
            assert_eq!(new.len(), old.len());
            assert!(!new.is_empty(), "{sig} was there already (as a mirror?)");
        }
        same_files(&a, &b);
        std::fs::remove_dir_all(&a).unwrap();
        std::fs::remove_dir_all(&b).unwrap();
    }

    #[test]
    fn retrograde_equals_passes_on_two_and_three_pieces() {
        solvers_agree::<International>("eq-intl", 3);
        solvers_agree::<English>("eq-eng", 3);
        solvers_agree::<Russian>("eq-rus", 3);
        solvers_agree::<Brazilian>("eq-bra", 3);
    }

    #[test]
    fn retrograde_equals_passes_on_english_four_pieces() {
        // kings against kings, men against kings, men and kings on both sides (each after
        // the slices its promotions lead to)
        solvers_agree_on::<English>(
            "eq-eng4",
            3,
            &["0202", "0301", "1201", "0211", "1111", "2002"],
        );
    }

    /// Minutes, for the passes: `cargo test --release -- --ignored retrograde_equals`.
    #[test]
    #[ignore]
    fn retrograde_equals_passes_on_international_four_pieces() {
        // kings against a king, then men and kings against a king (1201: the longest wins)
        solvers_agree_on::<International>("eq-intl4", 3, &["0301", "1201", "2101"]);
    }

    /// Every quiet move within the pair, as (table, index) to (table, index), found forward
    /// by the move generator and backward by [`unmoves`] (those without a capture).
    fn pair_moves<V: Variant>(sig: Signature) -> (Vec<[u64; 4]>, Vec<[u64; 4]>) {
        let home = if sig == sig.flipped() {
            vec![sig]
        } else {
            vec![sig, sig.flipped()]
        };
        let table = |s: Signature| if s == home[0] { 0 } else { 1 };
        let (mut ahead, mut back) = (Vec::new(), Vec::new());
        for (t, s) in home.iter().enumerate() {
            let ix = Indexer::<V>::new(*s);
            for i in 0..ix.size() {
                let Some(pos) = ix.position(i) else { continue };
                for m in movegen::legal_moves(&pos).iter() {
                    let after = pos.make(m);
                    let to = Signature::of(&after);
                    if !after.pieces(after.side()).is_empty() && home.contains(&to) {
                        let j = Indexer::<V>::new(to).index(&white_to_move(&after));
                        ahead.push([t as u64, i, table(to), j]);
                    }
                }
                let mut candidates = Vec::new();
                unmoves(&pos, &mut candidates);
                for p in candidates.iter().filter(|p| !movegen::has_capture(*p)) {
                    let from = Signature::of(p);
                    assert_eq!(from, s.flipped());
                    let j = Indexer::<V>::new(from).index(p);
                    assert_eq!(Indexer::<V>::new(from).position(j).as_ref(), Some(p));
                    back.push([table(from), j, t as u64, i]);
                }
            }
        }
        ahead.sort_unstable();
        back.sort_unstable();
        (ahead, back)
    }

    fn predecessors_are_the_moves_taken_back<V: Variant>(extra: &[&str]) {
        let mut sigs = Signature::up_to(3);
        sigs.extend(extra.iter().map(|s| s.parse::<Signature>().unwrap()));
        let mut moves = 0;
        for sig in sigs {
            let (ahead, back) = pair_moves::<V>(sig);
            assert!(
                ahead == back,
                "{} {sig}: {} moves, {} taken back",
                V::KIND,
                ahead.len(),
                back.len()
            );
            moves += ahead.len();
        }
        assert!(moves > 10_000, "{moves}");
    }

    #[test]
    fn predecessors_are_the_quiet_moves_taken_back_in_every_variant() {
        use crate::core::variant::*;
        // every variant up to 3 pieces; a man and a king a side where the rules differ most:
        // short kings and men that capture forward only, promotion mid-capture, men that do not
        // take kings, kings that land right behind and pieces removed as they are jumped
        let four = ["1111"];
        predecessors_are_the_moves_taken_back::<International>(&[]);
        predecessors_are_the_moves_taken_back::<Platform>(&[]);
        predecessors_are_the_moves_taken_back::<English>(&four);
        predecessors_are_the_moves_taken_back::<Russian>(&four);
        predecessors_are_the_moves_taken_back::<Brazilian>(&[]);
        predecessors_are_the_moves_taken_back::<Italian>(&four);
        predecessors_are_the_moves_taken_back::<Spanish>(&[]);
        predecessors_are_the_moves_taken_back::<Pool>(&[]);
        predecessors_are_the_moves_taken_back::<Czech>(&[]);
        predecessors_are_the_moves_taken_back::<Filipino>(&[]);
        predecessors_are_the_moves_taken_back::<Thai>(&four);
    }

    /// About a minute and a half on one core: `cargo test --release -- --ignored
    /// four_pieces_international_three`.
    #[test]
    #[ignore]
    fn four_pieces_international_three_kings_against_one() {
        let d = dir("intl4");
        build::<International>(&d, 4, None, &mut |_| {}).unwrap();
        let db = Egdb::open(&d, International::KIND, None);
        let probe = |f: &str| db.probe(&fen::parse::<International>(f).unwrap()).unwrap();
        // three kings beat one, unless the lone king holds the long diagonal
        assert_eq!(probe("W:WK1,K2,K3:BK45"), Wdl::Win);
        assert_eq!(probe("W:WK1,K2,K3:BK46"), Wdl::Draw);
        for sig in Signature::up_to(4) {
            let (_, wrong) = verify_slice::<International>(&db, sig, 5).unwrap();
            assert!(wrong.is_empty(), "{sig}: {wrong:?}");
        }
        std::fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn english_two_kings_beat_one() {
        let d = dir("eng3");
        build::<English>(&d, 3, None, &mut |_| {}).unwrap();
        let db = Egdb::open(&d, English::KIND, None);
        let probe = |f: &str| db.probe(&fen::parse::<English>(f).unwrap()).unwrap();
        // short kings: two kings against one win (the lone king is driven out of the double
        // corner), a king against a king is a draw
        assert_eq!(probe("W:WK1,K2:BK32"), Wdl::Win);
        assert_eq!(probe("B:WK1,K2:BK32"), Wdl::Loss);
        assert_eq!(probe("W:WK1:BK32"), Wdl::Draw);
        // the lone king is caught at last: White's capture ends the game, an odd ply
        let e = db
            .probe_entry(&fen::parse::<English>("W:WK1,K2:BK32").unwrap())
            .unwrap();
        assert!(e.plies > 10 && e.plies % 2 == 1, "{e:?}");
        std::fs::remove_dir_all(&d).unwrap();
    }
}
