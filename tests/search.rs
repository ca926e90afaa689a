//! Search tests: forced wins with their distance, draws by rule inside the tree, determinism of
//! one thread, and move-time limits kept while the machine is busy.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Instant;

use damast::core::{movegen, Game, GameResult, International};
use damast::engine::search::{MATE, MATE_BOUND};
use damast::engine::time::Limits;
use damast::engine::{Engine, Mode, Options, Outcome, SearchHandle};

fn search(game: &Game<International>, limits: Limits, threads: usize) -> Outcome<International> {
    search_with(
        game,
        limits,
        Options {
            threads,
            ..Options::default()
        },
    )
}

/// An analysis of `game` to `limits` by a new engine with `options` and a 16 MiB table.
fn search_with(
    game: &Game<International>,
    limits: Limits,
    options: Options,
) -> Outcome<International> {
    Engine::new(Options {
        tt_mib: 16,
        ..options
    })
    .search_to(game, &limits, Mode::Analyze)
}

/// Asserts that `line` is a sequence of legal moves from `game`'s position.
fn assert_line_is_legal(
    game: &Game<International>,
    line: &[damast::core::moves::Move<International>],
) {
    let mut g = game.clone();
    for m in line {
        assert!(
            movegen::legal_moves(g.position()).iter().any(|x| x == m),
            "illegal move {m:?} in the line {line:?}"
        );
        g.play(*m).unwrap();
    }
}

/// Plays the principal variation and checks that it ends in a win for the root side after exactly
/// the number of plies the score announces.
fn assert_forced_win(fen: &str, plies: i32) {
    assert_forced_win_with(fen, plies, Options::default());
}

/// [`assert_forced_win`] with the threads and search settings of `options`.
fn assert_forced_win_with(fen: &str, plies: i32, options: Options) {
    let game = Game::<International>::from_fen(fen).unwrap();
    let out = search_with(&game, Limits::depth(12), options);
    assert!(
        out.score > MATE_BOUND,
        "{fen}: no win found, score {}",
        out.score
    );
    assert_eq!(MATE - out.score, plies, "{fen}: wrong distance");
    let mut g = game.clone();
    for m in &out.pv {
        g.play(*m).unwrap();
    }
    assert_eq!(out.pv.len() as i32, plies, "{fen}: pv {:?}", out.pv);
    assert_eq!(g.result(), GameResult::Win(game.position().side()), "{fen}");
}

#[test]
fn finds_forced_wins_with_their_distance() {
    assert_forced_win("W:W28,33:B19", 3);
    assert_forced_win("W:WK46,36:B9,10", 5);
    assert_forced_win("W:W32:B27", 1);
}

/// A middle-game position (one of the bench's) for the threaded searches.
const MIDDLE_GAME: &str = "W:W26,29,31,32,33,34,35,37,38,39,41,42,43,44,45,46,47,48,49,50:B1,10,11,12,14,15,16,18,2,20,22,23,24,3,4,5,6,7,8,9";

/// `threads` threads with a 16 MiB table, splitting the tree at `split` (0: Lazy SMP).
fn threaded(threads: usize, split: &str) -> Options {
    let mut o = Options {
        threads,
        tt_mib: 16,
        ..Options::default()
    };
    o.search.set("smp-split", split).unwrap();
    o
}

#[test]
fn threads_that_split_the_tree_find_forced_wins_with_their_distance() {
    for threads in [2, 3] {
        let o = threaded(threads, "2");
        assert_forced_win_with("W:W28,33:B19", 3, o.clone());
        assert_forced_win_with("W:WK46,36:B9,10", 5, o.clone());
        assert_forced_win_with("W:W32:B27", 1, o);
    }
}

#[test]
fn threads_that_split_the_tree_answer_with_legal_lines_and_keep_the_move_time() {
    let game = Game::<International>::from_fen(MIDDLE_GAME).unwrap();
    for threads in [2, 3] {
        let mut e = Engine::new(threaded(threads, "2"));
        // depth-limited: the whole line at the depth asked
        let out = e.search_to(&game, &Limits::depth(10), Mode::Analyze);
        assert_eq!(out.depth, 10);
        assert_eq!(out.pv.first().copied(), out.best);
        assert_line_is_legal(&game, &out.pv);
        assert!(out.score.abs() < MATE_BOUND, "score {}", out.score);
        // time-limited: stopped in the middle of split points, it still answers in time
        e.new_game();
        let t = Instant::now();
        let out = e.search_to(&game, &Limits::move_time(0.3), Mode::Think);
        assert!(t.elapsed().as_secs_f64() < 0.3 + 0.2);
        assert_eq!(out.pv.first().copied(), out.best);
        assert_line_is_legal(&game, &out.pv);
    }
}

#[test]
fn a_lost_position_is_scored_as_lost() {
    // after 33-29 black must play into 28x19 and lose its last man
    let game = Game::<International>::from_fen("B:W28,29:B19").unwrap();
    let out = search(&game, Limits::depth(10), 1);
    assert_eq!(out.score, -(MATE - 2), "score {}", out.score);
}

#[test]
fn the_25_move_rule_is_seen_inside_the_search() {
    // Four kings against one is a win by material, but after 49 plies of king moves any quiet
    // move ends the game by the 25-move rule: the search must call it a draw.
    let mut game = Game::<International>::from_fen("B:WK1,K2,K3,K4:BK46").unwrap();
    let mut seen = std::collections::HashSet::new();
    seen.insert(game.position().hash());
    while game.clocks().reversible < 49 {
        let legal = movegen::legal_moves(game.position());
        let m = legal
            .iter()
            .find(|m| {
                let next = game.position().make(m);
                !m.is_capture() && !seen.contains(&next.hash()) && !movegen::has_capture(&next)
            })
            .copied()
            .expect("a fresh quiet move");
        game.play(m).unwrap();
        seen.insert(game.position().hash());
    }
    assert_eq!(game.result(), GameResult::Ongoing);
    assert!(!movegen::has_capture(game.position()));
    let out = search(&game, Limits::depth(6), 1);
    assert_eq!(out.score, 0, "the draw by the 25-move rule was not seen");
    // the same material without the history is a clear win for White
    let fresh = Game::<International>::new(*game.position());
    let out = search(&fresh, Limits::depth(6), 1);
    let white_to_move = fresh.position().side() == damast::core::Color::White;
    assert!(
        if white_to_move {
            out.score > 300
        } else {
            out.score < -300
        },
        "score {}",
        out.score
    );
}

#[test]
fn repetition_is_a_draw_in_the_search() {
    // Kings shuffle: after 1-6 50-45 6-1 the black reply 45-50 repeats the start a second time
    // on the board; the search must score lines that repeat as draws, so a lone king against a
    // lone king stays at 0.
    let mut game = Game::<International>::from_fen("W:WK1:BK50").unwrap();
    for m in ["1-6", "50-45", "6-1"] {
        game.play_text(m).unwrap();
    }
    let out = search(&game, Limits::depth(8), 1);
    assert_eq!(out.score, 0);
}

#[test]
fn one_thread_is_deterministic() {
    let game = Game::<International>::from_fen("W:W31-50:B1-20").unwrap();
    let a = search(&game, Limits::depth(9), 1);
    let b = search(&game, Limits::depth(9), 1);
    assert_eq!(a.nodes, b.nodes);
    assert_eq!(a.best, b.best);
    assert_eq!(a.score, b.score);
}

#[test]
fn each_iteration_reports_the_best_moves_share_of_the_root_nodes() {
    let game = Game::<International>::default();
    let mut e = Engine::new(Options {
        tt_mib: 16,
        ..Options::default()
    });
    let mut shares = Vec::new();
    e.search(
        &game,
        &Limits::depth(9),
        Mode::Analyze,
        &SearchHandle::new(),
        &mut |info| shares.push((info.depth, info.best_share)),
    );
    assert_eq!(shares.len(), 9, "{shares:?}");
    for (depth, share) in shares {
        let share = share.unwrap_or_else(|| panic!("no share at depth {depth}"));
        // nine moves from the start: the best one never takes every node nor none of them
        assert!(share > 0.0 && share < 1.0, "depth {depth}: {share}");
    }
}

#[test]
fn two_threads_find_a_legal_move() {
    let game = Game::<International>::default();
    let out = search(&game, Limits::depth(8), 2);
    let legal = movegen::legal_moves(game.position());
    assert!(legal.iter().any(|m| Some(*m) == out.best));
}

#[test]
fn a_threaded_search_answers_with_a_whole_line_at_least_as_deep_as_the_main_threads() {
    // with helpers, the answer may come from a helper's deeper iteration: it must still be a
    // legal line that begins with the move played
    let game = Game::<International>::from_fen(MIDDLE_GAME).unwrap();
    for threads in [2, 3] {
        // Lazy SMP, whose helpers run iterations of their own
        let mut o = threaded(threads, "0");
        o.search.set("smp-vote", "on").unwrap();
        o.search
            .set("smp-ahead", if threads == 3 { "on" } else { "off" })
            .unwrap();
        // with two, every thread starts at depth 1 (no helper a ply ahead)
        o.search
            .set("smp-stagger", if threads == 2 { "off" } else { "on" })
            .unwrap();
        let mut e = Engine::new(o);
        let mut main_depth = 0;
        let out = e.search(
            &game,
            &Limits::move_time(0.3),
            Mode::Think,
            &SearchHandle::new(),
            &mut |info| main_depth = main_depth.max(info.depth),
        );
        assert!(out.depth >= main_depth, "{} < {main_depth}", out.depth);
        assert_eq!(out.pv.first().copied(), out.best);
        assert_line_is_legal(&game, &out.pv);
    }
}

#[test]
fn move_time_is_kept_while_the_machine_is_busy() {
    let busy = Arc::new(AtomicBool::new(true));
    let spinner = {
        let busy = busy.clone();
        std::thread::spawn(move || {
            let mut x = 0u64;
            while busy.load(Ordering::Relaxed) {
                x = x.wrapping_mul(6364136223846793005).wrapping_add(1);
                std::hint::black_box(x);
            }
        })
    };
    let game = Game::<International>::default();
    let mut worst = 0.0f64;
    for _ in 0..5 {
        let t = Instant::now();
        let out = search(&game, Limits::move_time(0.2), 1);
        let took = t.elapsed().as_secs_f64();
        worst = worst.max(took);
        assert!(out.best.is_some());
    }
    busy.store(false, Ordering::Relaxed);
    spinner.join().unwrap();
    assert!(worst < 0.2 + 0.1, "a 0.2 s search took {worst:.3} s");
}

#[test]
fn stop_ends_an_infinite_search_promptly() {
    let game = Game::<International>::default();
    let handle = SearchHandle::new();
    let h2 = handle.clone();
    let t = Instant::now();
    let th = std::thread::spawn(move || {
        let mut e = Engine::default();
        let limits = Limits {
            infinite: true,
            ..Limits::default()
        };
        e.search(&game, &limits, Mode::Analyze, &h2, &mut |_| {})
    });
    std::thread::sleep(std::time::Duration::from_millis(300));
    let asked = Instant::now();
    handle.stop();
    let out = th.join().unwrap();
    assert!(asked.elapsed().as_secs_f64() < 0.1);
    assert!(t.elapsed().as_secs_f64() >= 0.3);
    assert!(out.best.is_some());
}

#[test]
fn an_interrupted_iteration_gives_its_proved_move_with_partial_root() {
    // one thread is deterministic, so at the same node limit the two searches walk the same
    // tree and stop at the same node; with `partial-root` the answer may be the better move the
    // interrupted iteration had proved by then (3 of these 48 budgets with the defaults of
    // this writing)
    let game = Game::<International>::from_fen(
        "W:W26,29,31,32,33,34,35,37,38,39,41,42,43,44,45,46,47,48,49,50:B1,10,11,12,14,15,16,18,2,20,22,23,24,3,4,5,6,7,8,9",
    )
    .unwrap();
    let run = |nodes: u64, partial: bool| {
        let mut o = Options {
            tt_mib: 16,
            ..Options::default()
        };
        o.search
            .set("partial-root", if partial { "on" } else { "off" })
            .unwrap();
        let mut e = Engine::new(o);
        e.search(
            &game,
            &Limits::nodes(nodes),
            Mode::Think,
            &SearchHandle::new(),
            &mut |_| {},
        )
    };
    let mut differ = 0;
    for k in 0..48u64 {
        let nodes = 2_000 + k * k * 300;
        let (off, on) = (run(nodes, false), run(nodes, true));
        assert_eq!(off.depth, on.depth, "the iterations completed are the same");
        assert_eq!(on.pv.first().copied(), on.best);
        assert_line_is_legal(&game, &on.pv);
        if on.best != off.best {
            differ += 1;
        }
    }
    assert!(differ > 0, "no interrupted iteration changed the move");
}

/// Plays `fen` out with the engine on both sides, `nodes` a move, and returns the game with
/// each position's distance to conversion (plies) as the database gives it.
fn play_out_with_database<V: damast::core::Variant>(
    fen: &str,
    db: &Arc<damast::engine::egdb::Egdb>,
    nodes: u64,
) -> (Game<V>, Vec<u32>) {
    let mut e = Engine::new(Options {
        tt_mib: 16,
        egdb: Some(db.clone()),
        ..Options::default()
    });
    let mut game = Game::<V>::from_fen(fen).unwrap();
    let mut distances = Vec::new();
    while game.result() == GameResult::Ongoing && game.moves().len() < 200 {
        distances.push(db.probe_entry(game.position()).unwrap().plies);
        let out = e.search(
            &game,
            &Limits {
                nodes: Some(nodes),
                ..Limits::default()
            },
            Mode::Think,
            &SearchHandle::new(),
            &mut |_| {},
        );
        game.play(out.best.expect("a move")).unwrap();
    }
    (game, distances)
}

#[test]
fn a_won_ending_is_won_the_shortest_way_and_the_loser_holds_out_longest() {
    use damast::core::{English, Variant};
    use damast::engine::egdb::Egdb;
    let dir = std::env::temp_dir().join(format!("damast-search-egdb-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    damast::tools::egdb_builder::build::<English>(&dir, 3, None, &mut |_| {}).unwrap();
    let db = Arc::new(Egdb::open(&dir, English::KIND, None));
    // two kings against one: a win in 33 plies with best play on both sides (the lone king
    // is hunted out of the double corner), well inside the 40-move rule
    let fen = "W:WK1,K2:BK32";
    let start = Game::<English>::from_fen(fen).unwrap();
    assert_eq!(db.probe_entry(start.position()).unwrap().plies, 33);
    let (game, distances) = play_out_with_database::<English>(fen, &db, 4_000);
    assert_eq!(game.result(), GameResult::Win(damast::core::Color::White));
    // every move was the best one for its side: the distance falls by one each ply
    let expected: Vec<u32> = (1..=33).rev().collect();
    assert_eq!(distances, expected, "{:?}", game.moves());
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Nodes of two searches to `depth` in one engine: of the start position, then of the position
/// after the first search's first two moves (a new game between them when `new_game`).
fn nodes_of_second_search(keep: &str, new_game: bool, depth: u32) -> (u64, u64) {
    let mut options = Options {
        tt_mib: 16,
        ..Options::default()
    };
    options.search.set("history-keep", keep).unwrap();
    let mut e = Engine::new(options);
    let mut game = Game::<International>::default();
    let first = e.search_to(&game, &Limits::depth(depth), Mode::Analyze);
    for m in &first.pv[..2] {
        game.play(*m).unwrap();
    }
    if new_game {
        e.new_game();
    }
    let second = e.search_to(&game, &Limits::depth(depth), Mode::Analyze);
    (first.nodes, second.nodes)
}

#[test]
fn history_is_carried_to_the_next_search_when_asked_and_forgotten_by_a_new_game() {
    let (first_off, second_off) = nodes_of_second_search("0", false, 9);
    let (first_on, second_on) = nodes_of_second_search("100", false, 9);
    assert_eq!(first_on, first_off, "the first search has nothing to carry");
    assert_ne!(
        second_on, second_off,
        "the carried history orders the second search"
    );
    let (_, half) = nodes_of_second_search("50", false, 9);
    assert_ne!(
        half, second_on,
        "scaled to half, the history orders differently"
    );
    // a new game forgets the table and the history: the same as a fresh engine
    let (_, forgotten) = nodes_of_second_search("100", true, 9);
    let (_, fresh) = nodes_of_second_search("0", true, 9);
    assert_eq!(forgotten, fresh);
}
