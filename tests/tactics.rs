//! Tactics suite: positions with a winning shot (a sacrifice that forces the opponent into
//! captures after which a combination wins material or breaks through to a king), solved by the
//! engine within a fixed node budget.
//!
//! The suite in `tests/data/tactics.txt` was made by the ignored `generate_tactics` test below and
//! every answer is established by an oracle that shares nothing with the engine's search: a plain
//! full-width material minimax (man 1, king 3) that resolves every capture. A position is kept
//! only when its best move is a sacrifice, wins at least two men against the current material,
//! is the only move that does so by at least one and a half men, and the oracle agrees on it at
//! two depths. The default test re-checks every answer with the oracle and then asks the engine.

mod common;

use common::Rng;
use damast::core::{fen, movegen, notation, Color, Game, International, Move, Position};
use damast::engine::time::Limits;
use damast::engine::{Engine, Mode, Options, SearchHandle};

type V = International;

const SUITE: &str = include_str!("data/tactics.txt");

/// Nodes the engine may search per position.
const NODE_BUDGET: u64 = 200_000;

/// The share of the suite the engine must solve within the budget (in percent).
const REQUIRED_PERCENT: usize = 95;

const WIN: i32 = 100_000;

/// Material of the side to move minus the opponent's: man 100, king 300.
fn material(pos: &Position<V>) -> i32 {
    let us = pos.side();
    let them = us.opponent();
    let v = |c: Color| {
        pos.men(c).0.count_ones() as i32 * 100 + pos.kings(c).0.count_ones() as i32 * 300
    };
    v(us) - v(them)
}

/// Full-width material minimax with every capture resolved: below depth 0 only positions with
/// a capture pending are searched further.
fn oracle(pos: &Position<V>, depth: i32, mut alpha: i32, beta: i32) -> i32 {
    let list = movegen::legal_moves(pos);
    if list.is_empty() {
        return -WIN;
    }
    if depth <= 0 && !list[0].is_capture() {
        return material(pos);
    }
    let mut best = -WIN - 1;
    for m in list.iter() {
        let s = -oracle(&pos.make(m), depth - 1, -beta, -alpha);
        if s > best {
            best = s;
            if s > alpha {
                alpha = s;
                if alpha >= beta {
                    break;
                }
            }
        }
    }
    best
}

/// Exact oracle value of every root move.
fn root_values(pos: &Position<V>, depth: i32) -> Vec<(Move<V>, i32)> {
    movegen::legal_moves(pos)
        .iter()
        .map(|m| (*m, -oracle(&pos.make(m), depth - 1, -WIN - 1, WIN + 1)))
        .collect()
}

/// A verified shot.
struct Shot {
    fen: String,
    best: Move<V>,
    gain: i32,
    king: bool,
    plies: i32,
}

/// Checks the oracle's claims on `pos` at `depth`: returns the shot if the position is one.
fn classify(pos: &Position<V>, depth: i32) -> Option<Shot> {
    if movegen::has_capture(pos) {
        return None;
    }
    let mut values = root_values(pos, depth);
    if values.len() < 2 {
        return None;
    }
    values.sort_by_key(|v| -v.1);
    let (best, value) = values[0];
    let second = values[1].1;
    let gain = value - material(pos);
    let after = pos.make(&best);
    let sacrifice = movegen::has_capture(&after);
    if !sacrifice || gain < 200 || value - second < 150 || value >= WIN / 2 {
        return None;
    }
    Some(Shot {
        fen: fen::write(pos),
        best,
        gain,
        king: promotes_on_main_line(pos, depth),
        plies: depth,
    })
}

/// Whether the side to move crowns a man on the oracle's main line.
fn promotes_on_main_line(pos: &Position<V>, depth: i32) -> bool {
    let mut p = *pos;
    let mut ours = true;
    for d in (1..=depth).rev() {
        let list = movegen::legal_moves(&p);
        let Some(m) = list
            .iter()
            .max_by_key(|m| -oracle(&p.make(m), d - 1, -WIN - 1, WIN + 1))
            .copied()
        else {
            break;
        };
        if ours && m.is_promotion() {
            return true;
        }
        p = p.make(&m);
        ours = !ours;
    }
    false
}

struct Case {
    fen: String,
    best: String,
    gain: i32,
}

fn suite() -> Vec<Case> {
    SUITE
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|l| {
            let f: Vec<&str> = l.split(';').map(str::trim).collect();
            let field = |key: &str| {
                f.iter()
                    .find_map(|x| x.strip_prefix(key))
                    .unwrap_or_else(|| panic!("{key} missing in: {l}"))
                    .trim()
                    .to_string()
            };
            Case {
                fen: f[0].to_string(),
                best: field("bm "),
                gain: field("gain ").parse().expect("gain"),
            }
        })
        .collect()
}

/// The depth at which the suite's answers are re-checked in the default run.
const CHECK_DEPTH: i32 = 7;

/// The generator keeps shots that a minimax of fewer plies than this does not see.
const MIN_PLIES: i32 = 5;

#[test]
fn suite_answers_are_confirmed_by_the_oracle() {
    let cases = suite();
    assert!(cases.len() >= 50, "suite too small: {}", cases.len());
    for c in &cases {
        let pos: Position<V> = fen::parse(&c.fen).unwrap();
        let best = notation::parse(&pos, &c.best).unwrap();
        let shot = classify(&pos, CHECK_DEPTH)
            .unwrap_or_else(|| panic!("{}: not a shot for the oracle", c.fen));
        assert_eq!(shot.best, best, "{}: oracle prefers another move", c.fen);
        assert_eq!(shot.gain, c.gain, "{}: gain differs", c.fen);
    }
}

#[test]
fn engine_solves_the_tactics_suite_within_the_node_budget() {
    solve_suite(Options {
        threads: 1,
        tt_mib: 16,
        ..Options::default()
    });
}

#[test]
fn two_threads_splitting_the_tree_solve_the_tactics_suite() {
    // (the node budget counts the main thread's nodes)
    let mut options = Options {
        threads: 2,
        tt_mib: 16,
        ..Options::default()
    };
    options.search.set("smp-split", "2").unwrap();
    solve_suite(options);
}

/// Asserts that an engine with `options` solves the suite within the node budget.
fn solve_suite(options: Options) {
    let cases = suite();
    let mut engine = Engine::new(options);
    let mut failed = Vec::new();
    let mut nodes_to_solve = Vec::new();
    for c in &cases {
        let game = Game::<V>::from_fen(&c.fen).unwrap();
        let best = notation::parse(game.position(), &c.best).unwrap();
        engine.new_game();
        let mut first_solved: Option<u64> = None;
        let out = engine.search(
            &game,
            &Limits::nodes(NODE_BUDGET),
            Mode::Analyze,
            &SearchHandle::new(),
            &mut |info| {
                if info.pv.first() == Some(&best) {
                    first_solved.get_or_insert(info.nodes);
                } else {
                    first_solved = None;
                }
            },
        );
        if out.best == Some(best) {
            nodes_to_solve.push(first_solved.unwrap_or(out.nodes));
        } else {
            failed.push(format!(
                "{}: expected {}, engine played {:?}",
                c.fen,
                c.best,
                out.best.map(|m| notation::pdn(game.position(), &m))
            ));
        }
    }
    let solved = cases.len() - failed.len();
    nodes_to_solve.sort_unstable();
    let median = nodes_to_solve.get(nodes_to_solve.len() / 2).copied();
    eprintln!(
        "tactics: {solved}/{} solved within {NODE_BUDGET} nodes; median nodes to solve {:?}",
        cases.len(),
        median
    );
    for f in &failed {
        eprintln!("  unsolved {f}");
    }
    assert!(
        solved * 100 >= cases.len() * REQUIRED_PERCENT,
        "only {solved}/{} solved:\n{}",
        cases.len(),
        failed.join("\n")
    );
}

/// Prints a fresh suite to stdout (`cargo test --release --test tactics -- --ignored
/// --nocapture generate_tactics`). Games are played by a mix of sensible moves (the best by a
/// shallow oracle) and random ones, and every quiet position with a sacrifice on the board is
/// put to the oracle.
#[test]
#[ignore = "generator of tests/data/tactics.txt; minutes"]
fn generate_tactics() {
    let mut rng = Rng(0x7AC7_1C55_EED5_0001);
    let wanted = 60;
    let mut found: Vec<Shot> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    let mut games = 0;
    while found.len() < wanted && games < 20_000 {
        games += 1;
        let mut pos = Position::<V>::start();
        let game_plies = 16 + rng.below(60);
        for _ in 0..game_plies {
            let list = movegen::legal_moves(&pos);
            if list.is_empty() {
                break;
            }
            let m = if rng.below(10) < 8 {
                let vals: Vec<(Move<V>, i32)> = root_values(&pos, 2);
                let top = vals.iter().map(|v| v.1).max().unwrap();
                let best: Vec<&(Move<V>, i32)> = vals.iter().filter(|v| v.1 == top).collect();
                best[rng.below(best.len())].0
            } else {
                list[rng.below(list.len())]
            };
            pos = pos.make(&m);
            if movegen::has_capture(&pos) || !seen.insert(pos.hash()) {
                continue;
            }
            // cheap filter: a sacrifice that gains at a shallow depth
            let sacs: Vec<Move<V>> = movegen::legal_moves(&pos)
                .iter()
                .filter(|m| movegen::has_capture(&pos.make(m)))
                .copied()
                .collect();
            let base = material(&pos);
            if !sacs
                .iter()
                .any(|m| -oracle(&pos.make(m), 4, -WIN - 1, WIN + 1) - base >= 200)
            {
                continue;
            }
            let Some(shot) = classify(&pos, CHECK_DEPTH) else {
                continue;
            };
            match classify(&pos, CHECK_DEPTH + 2) {
                Some(deep) if deep.best == shot.best => {}
                _ => continue,
            }
            // keep the deeper shots: not seen by a minimax of fewer than MIN_PLIES plies
            let plies = (1..=CHECK_DEPTH)
                .find(|&d| {
                    let v = root_values(&pos, d);
                    let top = v.iter().map(|x| x.1).max().unwrap();
                    top - material(&pos) >= 200
                        && v.iter().filter(|x| x.1 == top).count() == 1
                        && v.iter().any(|x| x.0 == shot.best && x.1 == top)
                })
                .unwrap_or(CHECK_DEPTH);
            if plies < MIN_PLIES {
                continue;
            }
            let shot = Shot { plies, ..shot };
            eprintln!("found {} after {games} games", found.len() + 1);
            found.push(shot);
            break;
        }
    }
    println!(
        "# generated by tests/tactics.rs generate_tactics (oracle depth {CHECK_DEPTH} and {})",
        CHECK_DEPTH + 2
    );
    for s in &found {
        let pos: Position<V> = fen::parse(&s.fen).unwrap();
        println!(
            "{} ; bm {} ; gain {} ; plies {} ;{}",
            s.fen,
            notation::pdn(&pos, &s.best),
            s.gain,
            s.plies,
            if s.king { " king shot" } else { "" }
        );
    }
}
