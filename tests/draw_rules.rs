//! The international (FMJD) draw-rule vectors of tests/data/draw-rules.txt, as assertions on
//! `Game::result()` and `Game::clocks()`: the 5-move, 16-move and 25-move rules, threefold
//! repetition, the endgame_limits table on concrete positions, and colour-swap symmetry.
//!
//! Every vector given by a concrete FEN and moves is also played with the colours swapped (square
//! n becomes 51 - n, White becomes Black), which must give the same clocks and results.

use std::collections::HashSet;

use damast::core::game::{DrawClocks, DrawReason, Game, GameResult};
use damast::core::{movegen, International, Move, Position};

type G = Game<International>;

/// The colour-swapped form of a FEN: side letters exchanged, square n becomes 51 - n.
fn mirror_fen(text: &str) -> String {
    let mut out = String::new();
    let mut num = String::new();
    let flush = |num: &mut String, out: &mut String| {
        if !num.is_empty() {
            let n: u32 = num.parse().expect("square number");
            out.push_str(&(51 - n).to_string());
            num.clear();
        }
    };
    for c in text.chars() {
        if c.is_ascii_digit() {
            num.push(c);
            continue;
        }
        flush(&mut num, &mut out);
        out.push(match c {
            'W' => 'B',
            'B' => 'W',
            other => other,
        });
    }
    flush(&mut num, &mut out);
    out
}

/// The colour-swapped form of a move text.
fn mirror_move(text: &str) -> String {
    mirror_fen(text)
}

fn game(fen: &str) -> G {
    G::from_fen(fen).unwrap_or_else(|e| panic!("FEN {fen}: {e}"))
}

fn play(g: &mut G, mv: &str, ctx: &str) {
    if let Err(e) = g.play_text(mv) {
        panic!("{ctx}: move {mv} not playable in {:?}: {e}", g.position());
    }
}

/// Runs `f` on the vector as written and on its colour-swapped form.
fn both_colours(fen: &str, moves: &[&str], f: impl Fn(&str, &[String], &str)) {
    let plain: Vec<String> = moves.iter().copied().map(String::from).collect();
    f(fen, &plain, fen);
    let mfen = mirror_fen(fen);
    let mirrored: Vec<String> = moves.iter().copied().map(mirror_move).collect();
    f(&mfen, &mirrored, &format!("{fen} colour-swapped as {mfen}"));
}

// ---------------------------------------------------------------------------------------------
// 5-move rule

/// `W:WK1:BK50`: not drawn after 9 plies of the cycle 1-7,50-44,7-12,44-39,12-1,39-50; drawn after
/// the 10th.
#[test]
fn five_move_rule_lone_kings() {
    let cycle = ["1-7", "50-44", "7-12", "44-39", "12-1", "39-50"];
    let moves: Vec<&str> = cycle.iter().cycle().take(10).copied().collect();
    both_colours("W:WK1:BK50", &moves, |fen, moves, ctx| {
        let mut g = game(fen);
        assert_eq!(
            g.clocks().short_endgame,
            Some(10),
            "{ctx}: initial 5-move clock"
        );
        assert_eq!(g.clocks().long_endgame, None, "{ctx}: no 16-move clock");
        assert_eq!(g.result(), GameResult::Ongoing, "{ctx}: at start");
        for (i, mv) in moves.iter().enumerate() {
            play(&mut g, mv, ctx);
            let ply = i as u32 + 1;
            assert_eq!(
                g.clocks().short_endgame,
                Some(10 - ply),
                "{ctx}: 5-move clock after {ply} plies"
            );
            if ply < 10 {
                assert_eq!(g.result(), GameResult::Ongoing, "{ctx}: after {ply} plies");
            }
        }
        assert_eq!(
            g.result(),
            GameResult::Draw(DrawReason::FiveMoves),
            "{ctx}: after the 10th ply"
        );
    });
}

/// `B:WK1,K2,K33:BK50`: 16-move clock 32, no 5-move clock; after 50x28 the state is (31, 10).
#[test]
fn capture_into_five_move_ending_keeps_sixteen_move_clock() {
    both_colours("B:WK1,K2,K33:BK50", &["50x28"], |fen, moves, ctx| {
        let mut g = game(fen);
        let c = g.clocks();
        assert_eq!(
            (c.long_endgame, c.short_endgame),
            (Some(32), None),
            "{ctx}: initial clocks"
        );
        play(&mut g, &moves[0], ctx);
        assert!(g.moves()[0].is_capture(), "{ctx}: 50x28 captures");
        let c = g.clocks();
        assert_eq!(
            (c.long_endgame, c.short_endgame),
            (Some(31), Some(10)),
            "{ctx}: clocks after 50x28"
        );
        assert_eq!(g.result(), GameResult::Ongoing, "{ctx}");
    });
}

/// `W:W31,K1:BK50`: the 5-move clock runs from the start (10); the man move 31-26 does not reset
/// it (9 left).
#[test]
fn five_move_clock_not_reset_by_man_move() {
    both_colours("W:W31,K1:BK50", &["31-26"], |fen, moves, ctx| {
        let mut g = game(fen);
        assert_eq!(g.clocks().short_endgame, Some(10), "{ctx}: initial");
        play(&mut g, &moves[0], ctx);
        assert_eq!(g.clocks().short_endgame, Some(9), "{ctx}: after 31-26");
        assert_eq!(g.result(), GameResult::Ongoing, "{ctx}");
    });
}

// ---------------------------------------------------------------------------------------------
// Threefold repetition, FEN W:WK1,31:BK50,20

/// The cycle 1-6,50-45,6-1,45-50 twice is threefold (the initial position counts); once is not.
#[test]
fn threefold_four_ply_cycle() {
    let cycle = ["1-6", "50-45", "6-1", "45-50"];
    let moves: Vec<&str> = cycle.iter().cycle().take(8).copied().collect();
    both_colours("W:WK1,31:BK50,20", &moves, |fen, moves, ctx| {
        let mut g = game(fen);
        assert_eq!(g.repetitions(), 1, "{ctx}: at start");
        for (i, mv) in moves.iter().enumerate() {
            play(&mut g, mv, ctx);
            let ply = i + 1;
            if ply < 8 {
                assert_eq!(g.result(), GameResult::Ongoing, "{ctx}: after {ply} plies");
            }
            if ply == 4 {
                assert_eq!(g.repetitions(), 2, "{ctx}: after the first cycle");
            }
        }
        assert_eq!(g.repetitions(), 3, "{ctx}: after two cycles");
        assert_eq!(
            g.result(),
            GameResult::Draw(DrawReason::Repetition),
            "{ctx}: after two cycles"
        );
    });
}

/// The 6-ply cycle 1-7,50-44,7-12,44-39,12-1,39-50 twice is also threefold.
#[test]
fn threefold_six_ply_cycle() {
    let cycle = ["1-7", "50-44", "7-12", "44-39", "12-1", "39-50"];
    let moves: Vec<&str> = cycle.iter().cycle().take(12).copied().collect();
    both_colours("W:WK1,31:BK50,20", &moves, |fen, moves, ctx| {
        let mut g = game(fen);
        for (i, mv) in moves.iter().enumerate() {
            play(&mut g, mv, ctx);
            let ply = i + 1;
            if ply < 12 {
                assert_eq!(g.result(), GameResult::Ongoing, "{ctx}: after {ply} plies");
            }
            if ply == 6 {
                assert_eq!(g.repetitions(), 2, "{ctx}: after the first cycle");
            }
        }
        assert_eq!(g.repetitions(), 3, "{ctx}: after two cycles");
        assert_eq!(
            g.result(),
            GameResult::Draw(DrawReason::Repetition),
            "{ctx}: after two cycles"
        );
    });
}

/// 1-6,20-24,6-1,24-30,1-6,30-34,6-1,34-39,1-6: the same king moves but different positions.
#[test]
fn same_king_moves_different_positions_no_repetition() {
    let moves = [
        "1-6", "20-24", "6-1", "24-30", "1-6", "30-34", "6-1", "34-39", "1-6",
    ];
    both_colours("W:WK1,31:BK50,20", &moves, |fen, moves, ctx| {
        let mut g = game(fen);
        for (i, mv) in moves.iter().enumerate() {
            play(&mut g, mv, ctx);
            assert_eq!(
                g.repetitions(),
                1,
                "{ctx}: after {} plies the position is new",
                i + 1
            );
            assert_eq!(
                g.result(),
                GameResult::Ongoing,
                "{ctx}: after {} plies",
                i + 1
            );
        }
    });
}

// ---------------------------------------------------------------------------------------------
// endgame_limits table and colour-swap symmetry

/// A position with the given material: white men on 31.., white kings on 46.., black men on 20
/// downwards, black kings on 1..; `side` to move.
fn material_fen(wm: usize, wk: usize, bm: usize, bk: usize, side: char) -> String {
    let mut white: Vec<String> = (0..wm).map(|i| (31 + i).to_string()).collect();
    white.extend((0..wk).map(|i| format!("K{}", 46 + i)));
    let mut black: Vec<String> = (0..bm).map(|i| (20 - i).to_string()).collect();
    black.extend((0..bk).map(|i| format!("K{}", 1 + i)));
    format!("{side}:W{}:B{}", white.join(","), black.join(","))
}

fn limit(n: i32) -> Option<u32> {
    (n >= 0).then_some(n as u32)
}

/// endgame_limits(white_men, white_kings, black_men, black_kings) -> (16-move plies, 5-move
/// plies), -1 = not active; symmetric under colour swap.
/// (white men, white kings, black men, black kings) and (16-move plies, 5-move plies).
type LimitRow = ((usize, usize, usize, usize), (i32, i32));

#[test]
fn endgame_limits_table() {
    let table: [LimitRow; 8] = [
        ((0, 1, 0, 1), (-1, 10)),
        ((0, 2, 0, 1), (-1, 10)),
        ((1, 1, 0, 1), (-1, 10)),
        ((0, 3, 0, 1), (32, -1)),
        ((1, 2, 0, 1), (32, -1)),
        ((2, 1, 0, 1), (32, -1)),
        ((0, 2, 0, 2), (-1, -1)),
        ((2, 0, 0, 1), (-1, -1)),
    ];
    let mut failures = Vec::new();
    for ((wm, wk, bm, bk), (long, short)) in table {
        let want = (limit(long), limit(short));
        // as written and colour-swapped, with either side to move
        for (m, side) in [
            ((wm, wk, bm, bk), 'W'),
            ((wm, wk, bm, bk), 'B'),
            ((bm, bk, wm, wk), 'W'),
            ((bm, bk, wm, wk), 'B'),
        ] {
            let fen = material_fen(m.0, m.1, m.2, m.3, side);
            let g = game(&fen);
            let c = g.clocks();
            let got = (c.long_endgame, c.short_endgame);
            if got != want {
                failures.push(format!(
                    "{m:?} ({fen}): clocks (16-move, 5-move) = {got:?}, expected {want:?}"
                ));
            }
            if g.result() != GameResult::Ongoing {
                failures.push(format!("{m:?} ({fen}): result {:?} at start", g.result()));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

// ---------------------------------------------------------------------------------------------
// Quiet walks

/// Finds `plies` non-capturing moves from the current position such that no position repeats
/// and neither side ever has a capture (so no clock is reset by a capture and no repetition rule
/// interferes). Men move only if `men` is set. Depth-first with backtracking.
fn plan(g: &G, plies: usize, men: bool, ctx: &str) -> Vec<Move<International>> {
    fn go(
        pos: Position<International>,
        left: usize,
        men: bool,
        seen: &mut HashSet<Position<International>>,
        path: &mut Vec<Move<International>>,
        budget: &mut u32,
    ) -> bool {
        if left == 0 {
            return true;
        }
        if *budget == 0 {
            return false;
        }
        *budget -= 1;
        for m in movegen::legal_moves(&pos).iter() {
            if m.is_capture() || (!men && !m.is_king_move()) {
                continue;
            }
            let next = pos.make(m);
            if seen.contains(&next)
                || movegen::has_capture(&next)
                || movegen::has_capture(&next.with_side(pos.side()))
                || movegen::count(&next) == 0
            {
                continue;
            }
            seen.insert(next);
            path.push(*m);
            if go(next, left - 1, men, seen, path, budget) {
                return true;
            }
            path.pop();
            seen.remove(&next);
        }
        false
    }
    let mut seen: HashSet<Position<International>> = g.positions().iter().copied().collect();
    let mut path = Vec::new();
    let mut budget = 1_000_000;
    assert!(
        go(*g.position(), plies, men, &mut seen, &mut path, &mut budget),
        "{ctx}: no walk of {plies} quiet non-repeating plies from {:?}",
        g.position()
    );
    path
}

/// Plays a walk found by [`plan`].
fn walk(g: &mut G, plies: usize, men: bool, ctx: &str) {
    for m in plan(g, plies, men, ctx) {
        g.play(m).expect("legal");
    }
}

// ---------------------------------------------------------------------------------------------
// 16-move rule

/// Three kings against a lone king: drawn after 16 moves each (32 plies), not before.
#[test]
fn sixteen_move_rule_three_kings() {
    for fen in ["W:WK46,K47,K48:BK3", "B:WK46,K47,K48:BK3"] {
        for fen in [fen.to_string(), mirror_fen(fen)] {
            let mut g = game(&fen);
            assert_eq!(
                g.clocks().long_endgame,
                Some(32),
                "{fen}: initial 16-move clock"
            );
            assert_eq!(g.clocks().short_endgame, None, "{fen}: no 5-move clock");
            let path = plan(&g, 32, false, &fen);
            for m in &path[..31] {
                g.play(*m).expect("legal");
            }
            assert_eq!(g.clocks().long_endgame, Some(1), "{fen}: after 31 plies");
            assert_eq!(g.result(), GameResult::Ongoing, "{fen}: after 31 plies");
            g.play(path[31]).expect("legal");
            assert_eq!(g.clocks().long_endgame, Some(0), "{fen}: after 32 plies");
            assert_eq!(
                g.result(),
                GameResult::Draw(DrawReason::SixteenMoves),
                "{fen}: after 32 plies"
            );
        }
    }
}

/// King and two men against a lone king: man moves do not stop the 16-move count.
#[test]
fn sixteen_move_rule_king_and_two_men() {
    for fen in [
        "W:WK46,31,32:BK3".to_string(),
        mirror_fen("W:WK46,31,32:BK3"),
    ] {
        let mut g = game(&fen);
        assert_eq!(g.clocks().long_endgame, Some(32), "{fen}: initial");
        walk(&mut g, 32, true, &fen);
        assert_eq!(
            g.result(),
            GameResult::Draw(DrawReason::SixteenMoves),
            "{fen}"
        );
    }
}

/// The capture that first creates the ending starts the count and is not counted itself.
#[test]
fn sixteen_move_count_starts_after_creating_capture() {
    // 46x23 takes the last black man, leaving three kings against a lone king
    both_colours("W:WK46,K47,K48:BK3,28", &["46x23"], |fen, moves, ctx| {
        let mut g = game(fen);
        assert_eq!(g.clocks().long_endgame, None, "{ctx}: not yet the ending");
        play(&mut g, &moves[0], ctx);
        assert_eq!(
            g.clocks().long_endgame,
            Some(32),
            "{ctx}: after the capture"
        );
        assert_eq!(g.clocks().short_endgame, None, "{ctx}: after the capture");
        walk(&mut g, 1, false, ctx);
        assert_eq!(g.clocks().long_endgame, Some(31), "{ctx}: one ply later");
    });
}

/// The 5-move count likewise starts after the capture that creates its ending.
#[test]
fn five_move_count_starts_after_creating_capture() {
    both_colours("W:WK46,K47:BK3,28", &["46x23"], |fen, moves, ctx| {
        let mut g = game(fen);
        assert_eq!(g.clocks().short_endgame, None, "{ctx}: not yet the ending");
        play(&mut g, &moves[0], ctx);
        assert_eq!(
            g.clocks().short_endgame,
            Some(10),
            "{ctx}: after the capture"
        );
        let path = plan(&g, 10, false, ctx);
        for m in &path[..9] {
            g.play(*m).expect("legal");
        }
        assert_eq!(g.clocks().short_endgame, Some(1), "{ctx}: 9 plies later");
        assert_eq!(g.result(), GameResult::Ongoing, "{ctx}: 9 plies later");
        g.play(path[9]).expect("legal");
        assert_eq!(
            g.result(),
            GameResult::Draw(DrawReason::FiveMoves),
            "{ctx}: 10 plies later"
        );
    });
}

// ---------------------------------------------------------------------------------------------
// 25-move rule

/// 25 moves each (50 plies) of king moves without capture draw; 49 plies do not.
#[test]
fn twenty_five_move_rule() {
    // two kings each (no lone-king rule), plus a man each that never moves
    for fen in [
        "W:WK46,K45,31:BK5,K6,20".to_string(),
        mirror_fen("W:WK46,K45,31:BK5,K6,20"),
    ] {
        let mut g = game(&fen);
        let c = g.clocks();
        assert_eq!((c.long_endgame, c.short_endgame), (None, None), "{fen}");
        let path = plan(&g, 50, false, &fen);
        for m in &path[..49] {
            g.play(*m).expect("legal");
        }
        assert_eq!(g.clocks().reversible, 49, "{fen}: after 49 plies");
        assert_eq!(g.result(), GameResult::Ongoing, "{fen}: after 49 plies");
        g.play(path[49]).expect("legal");
        assert_eq!(g.clocks().reversible, 50, "{fen}: after 50 plies");
        assert_eq!(
            g.result(),
            GameResult::Draw(DrawReason::TwentyFiveMoves),
            "{fen}: after 50 plies"
        );
    }
}

/// A legal quiet man move of the side to move that `pred` accepts.
fn man_move(g: &G, pred: impl Fn(&Move<International>) -> bool, ctx: &str) -> Move<International> {
    movegen::legal_moves(g.position())
        .iter()
        .copied()
        .find(|m| !m.is_king_move() && !m.is_capture() && pred(m))
        .unwrap_or_else(|| panic!("{ctx}: no such man move in {:?}", g.position()))
}

/// A man move resets the 25-move count.
#[test]
fn twenty_five_move_count_reset_by_man_move() {
    both_colours("W:WK46,K45,31:BK5,K6,20", &[], |fen, _, ctx| {
        let mut g = game(fen);
        walk(&mut g, 20, false, ctx);
        assert_eq!(g.clocks().reversible, 20, "{ctx}");
        let m = man_move(&g, |m| !m.is_promotion(), ctx);
        g.play(m).expect("legal");
        assert_eq!(g.clocks().reversible, 0, "{ctx}: after the man move {m}");
        walk(&mut g, 3, false, ctx);
        assert_eq!(g.clocks().reversible, 3, "{ctx}: counting again");
    });
}

/// A capture resets the 25-move count.
#[test]
fn twenty_five_move_count_reset_by_capture() {
    // White: kings 46 and 45; Black: kings 6, 3 and 4. After five king moves Black puts a king on
    // 28, on the long diagonal of K46, which must capture it.
    let moves = ["45-40", "3-8", "40-45", "8-3", "45-40", "6-28"];
    both_colours("W:WK46,K45:BK6,K3,K4", &moves, |fen, moves, ctx| {
        let mut g = game(fen);
        for mv in moves {
            play(&mut g, mv, ctx);
        }
        assert_eq!(g.clocks().reversible, 6, "{ctx}: six king moves");
        let legal = movegen::legal_moves(g.position());
        assert!(
            !legal.is_empty() && legal.iter().all(|m| m.is_capture()),
            "{ctx}: a capture is forced"
        );
        g.play(legal[0]).expect("legal");
        assert_eq!(g.clocks().reversible, 0, "{ctx}: after the capture");
    });
}

/// The move that promotes resets the 25-move count.
#[test]
fn twenty_five_move_count_reset_by_promotion() {
    both_colours("W:WK46,K45,7:BK35,K36,44", &[], |fen, _, ctx| {
        let mut g = game(fen);
        walk(&mut g, 10, false, ctx);
        assert_eq!(g.clocks().reversible, 10, "{ctx}");
        let m = man_move(&g, |m| m.is_promotion(), ctx);
        g.play(m).expect("legal");
        assert_eq!(g.clocks().reversible, 0, "{ctx}: after the promotion {m}");
    });
}

/// The clocks of a set-up position equal `DrawClocks::initial`.
#[test]
fn clocks_of_set_up_position() {
    let g = game("W:WK46,K47,K48:BK3");
    assert_eq!(g.clocks(), DrawClocks::initial(g.position()));
}
