//! `damast egdb build` and `verify`: endgame database slices with distances to conversion.
//!
//! Slices are built in the order of [`Signature::up_to`], so the slices that a capture or a
//! promotion leads to are on disk before the slices that need them. A signature and its mirror
//! (the same material with the other side to move) are solved together, as each one's quiet
//! moves lead into the other.
//!
//! The passes settle the positions by their distance to conversion (the plies until a capture,
//! a promotion or the end of the game, the winner hurrying and the loser holding out): pass `p`
//! looks at every unsettled position and sees only the positions of the slices being solved
//! that are settled at a distance below `p` (and every position of the smaller slices, whose
//! values are on disk; a move into them is a conversion, at distance 0 from there). A position
//! without a move is lost at distance 0; one with a move to a lost position is won, at one more
//! than the nearest such loss; one whose every move leads to a won position is lost, at one
//! more than the farthest. By induction pass `p` settles every position at distance `p`, so the
//! distances are exact whatever order the threads take (rayon, in parallel). When a pass settles
//! nothing and no position is settled at a distance of that pass or more, nothing can change
//! again: what is left is drawn (neither side can force the end of the game).
//! A slice already in the directory is kept, so an interrupted build resumes slice by slice.

use std::path::Path;
use std::sync::atomic::{AtomicU16, AtomicU32, Ordering};
use std::time::Instant;

use rayon::prelude::*;

use crate::core::movegen;
use crate::core::position::Position;
use crate::core::variant::Variant;
use crate::engine::egdb::file::{Entry, DRAW, INVALID, LOSS, WIN};
use crate::engine::egdb::{slice_file, white_to_move, Egdb, Indexer, ProbeError, Signature, Slice};

/// What happens during a build, for progress reports.
#[derive(Clone, Debug)]
pub enum Event {
    /// A slice is kept from an earlier run.
    Kept(Signature),
    /// A slice is being solved: its signature and number of indices.
    Start(Signature, u64),
    /// A pass is done: the signature, the pass number and positions solved so far.
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
    /// Passes to the fixed point.
    pub passes: u32,
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
/// signature), with, while solving, one cell per index (the code in the low two bits and the
/// distance above them); when checking, no cells and the values come from the files.
struct Home<'a> {
    sigs: &'a [Signature],
    cells: &'a [&'a [AtomicU16]],
}

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

/// Solves `sigs` (a signature and its mirror, or one symmetric signature) together: each
/// one's stored bytes, the passes, and the positions settled in each pass.
fn solve<V: Variant>(
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
        let (codes, passes) = solve::<V>(&sigs, &db, on_event)?;
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
                passes,
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
            // what the successors say, value and distance, by the rule the passes applied
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
    use crate::core::variant::{English, International};
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

    /// Minutes on two cores: `cargo test --release -- --ignored four_pieces`.
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
