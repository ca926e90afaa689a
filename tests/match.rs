//! `damast match` end to end: the real binary runs real engines (`damast hub`, and the broken
//! engines of tests/engines/broken_engine.py), and the PDN it writes is read back with the
//! project's own PDN reader and replayed by the rules.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use damast::core::pdn::{self, PdnGame};
use damast::core::{Game, GameResult, International, Variant, VariantKind};
use damast::with_variant;

mod common;
use common::text;

const DAMAST: &str = env!("CARGO_BIN_EXE_damast");

fn engine(name: &str, extra: &[&str]) -> Vec<String> {
    let mut v = vec![
        "--engine".to_string(),
        format!("name={name}"),
        format!("cmd={DAMAST} hub"),
        "option.tt-size=8".to_string(),
    ];
    v.extend(extra.iter().map(|s| s.to_string()));
    v
}

fn broken(mode: &str) -> Vec<String> {
    let script = common::broken_engine_script();
    vec![
        "--engine".to_string(),
        "name=Broken".to_string(),
        format!("cmd=python3 '{}' {mode}", script.display()),
    ]
}

fn run(args: &[String]) -> Output {
    Command::new(DAMAST)
        .arg("match")
        .args(args)
        .env_remove("RUST_LOG")
        .output()
        .expect("run damast match")
}

fn temp(name: &str) -> PathBuf {
    common::temp("match", name)
}

fn args(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| s.to_string()).collect()
}

/// Reads the PDN file and checks every game: the seven tags, an international result that
/// agrees with the result token, a reason, and moves that replay by the rules.
fn read_games(path: &Path) -> Vec<PdnGame> {
    read_games_of::<International>(path)
}

/// [`read_games`] for the games of variant `V`.
fn read_games_of<V: Variant>(path: &Path) -> Vec<PdnGame> {
    let games = pdn::parse(&std::fs::read_to_string(path).unwrap()).unwrap();
    for g in &games {
        for tag in [
            "Event",
            "Site",
            "Date",
            "Round",
            "White",
            "Black",
            "Result",
            "Termination",
        ] {
            assert!(g.tag(tag).is_some(), "missing {tag}: {g:?}");
        }
        let result = g.tag("Result").unwrap();
        assert!(["2-0", "1-1", "0-2"].contains(&result), "{g:?}");
        assert_eq!(g.result.as_deref(), Some(result));
        let game: Game<V> = g.to_game().expect("the moves replay by the rules");
        // a game the rules ended ends in a position where the rules say so
        let reason = g.tag("Termination").unwrap();
        if reason.contains("no legal move") || reason.contains("no pieces") {
            let expected = if result == "2-0" { "0-2" } else { "2-0" };
            assert_ne!(result, expected);
            assert!(matches!(game.result(), GameResult::Win(_)), "{reason}");
        } else if reason.starts_with("draw:") {
            assert_eq!(result, "1-1");
            assert!(matches!(game.result(), GameResult::Draw(_)), "{reason}");
        }
    }
    games
}

#[test]
fn two_damast_engines_play_a_short_match() {
    let openings = temp("openings.pdn");
    // an opening given as a PDN game: the engines take over after its moves
    std::fs::write(
        &openings,
        "[Event \"o1\"]\n1. 32-28 19-23 2. 28x19 14x23 *\n",
    )
    .unwrap();
    let pdn_file = temp("short.pdn");
    let mut a = engine("Alpha", &[]);
    a.extend(engine("Beta", &["option.level=normal"]));
    a.extend(args(&["--depth", "3", "--games", "2"]));
    a.extend(["--openings".into(), openings.display().to_string()]);
    a.extend(["--pdn".into(), pdn_file.display().to_string()]);
    a.extend(args(&[
        "--event",
        "short test",
        "--draw",
        "movenumber=30",
        "movecount=5",
        "score=0.05",
    ]));
    let o = run(&a);
    let (out, err) = (text(&o.stdout), text(&o.stderr));
    assert!(o.status.success(), "{out}\n{err}");
    assert!(out.contains("Finished: 2 of 2 games"), "{out}");
    assert!(out.contains("Alpha vs Beta: 2 games"), "{out}");
    assert!(out.contains("Elo difference: "), "{out}");
    let games = read_games(&pdn_file);
    assert_eq!(games.len(), 2);
    for (i, g) in games.iter().enumerate() {
        assert_eq!(g.tag("Event"), Some("short test"));
        assert_eq!(g.tag("Round"), Some((i + 1).to_string().as_str()));
        assert_eq!(&g.moves[..4], ["32-28", "19-23", "28x19", "14x23"]);
        assert!(
            g.tag("FEN").is_none(),
            "the opening starts from the initial position"
        );
    }
    assert_eq!(games[0].tag("White"), Some("Alpha"));
    assert_eq!(games[1].tag("White"), Some("Beta"));
    // the score line agrees with the PDN results
    let alpha: f64 = games
        .iter()
        .map(|g| {
            let white = g.tag("White") == Some("Alpha");
            match (g.tag("Result").unwrap(), white) {
                ("2-0", true) | ("0-2", false) => 1.0,
                ("1-1", _) => 0.5,
                _ => 0.0,
            }
        })
        .sum();
    let short = |p: f64| {
        if p.fract() == 0.0 {
            format!("{p:.0}")
        } else {
            format!("{p:.1}")
        }
    };
    assert!(
        out.contains(&format!(
            "Alpha {} - {} Beta",
            short(alpha),
            short(2.0 - alpha)
        )),
        "{out}"
    );
}

#[test]
fn every_variant_plays_a_short_self_match_to_the_end() {
    for kind in VariantKind::ALL {
        if kind == VariantKind::International {
            continue;
        }
        let pdn_file = temp(&format!("{kind}.pdn"));
        let mut a = engine("Alpha", &[]);
        a.extend(engine("Beta", &[]));
        a.extend(args(&["--depth", "5", "--games", "2", "--shuffle", "3"]));
        a.extend(["--variant".into(), kind.name().into()]);
        a.extend(["--pdn".into(), pdn_file.display().to_string()]);
        let o = run(&a);
        let (out, err) = (text(&o.stdout), text(&o.stderr));
        assert!(o.status.success(), "{kind}: {out}\n{err}");
        assert!(out.contains("Finished: 2 of 2 games"), "{kind}: {out}");
        let games = with_variant!(kind, V => read_games_of::<V>(&pdn_file));
        assert_eq!(games.len(), 2, "{kind}");
        for g in &games {
            assert_eq!(
                g.tag("GameType"),
                Some(kind.game_type().to_string().as_str()),
                "{kind}"
            );
            // every game ends by the rules of the variant: a win or one of its draw rules
            let reason = g.tag("Termination").unwrap();
            assert!(
                reason.contains("no legal move")
                    || reason.contains("no pieces")
                    || reason.starts_with("draw:"),
                "{kind}: {reason}"
            );
        }
    }
}

#[test]
fn platform_games_end_by_the_move_limit_that_is_set() {
    // a king each (black moves first in platform dama): with a limit of 3 moves the referee
    // draws the game after three moves of each side
    let openings = temp("kings.fen");
    std::fs::write(&openings, "B:WK47:BK4\n").unwrap();
    let pdn_file = temp("platform-limit.pdn");
    let mut a = engine("A", &[]);
    a.extend(engine("B", &[]));
    a.extend(args(&[
        "--variant",
        "platform",
        "--move-limit",
        "3",
        "--depth",
        "3",
        "--games",
        "2",
    ]));
    a.extend(["--openings".into(), openings.display().to_string()]);
    a.extend(["--pdn".into(), pdn_file.display().to_string()]);
    let o = run(&a);
    let (out, err) = (text(&o.stdout), text(&o.stderr));
    assert!(o.status.success(), "{out}\n{err}");
    let games = pdn::parse(&std::fs::read_to_string(&pdn_file).unwrap()).unwrap();
    assert_eq!(games.len(), 2);
    for g in &games {
        assert_eq!(g.tag("Termination"), Some("draw: move-limit rule"), "{g:?}");
        assert_eq!(g.moves.len(), 6, "{:?}", g.moves);
    }
}

#[test]
fn a_pondering_engine_gets_ponder_hits_and_keeps_its_clock() {
    let pdn_file = temp("ponder.pdn");
    let mut a = engine("Ponderer", &["option.ponder=true"]);
    a.extend(engine("Plain", &[]));
    a.extend(args(&[
        "--tc",
        "1+0.05",
        "--timemargin",
        "1",
        "--games",
        "2",
        "--shuffle",
        "3",
        "--draw",
        "movenumber=25",
        "movecount=4",
        "score=0.1",
        "--resign",
        "movecount=3",
        "score=4",
    ]));
    a.extend(["--pdn".into(), pdn_file.display().to_string()]);
    let o = run(&a);
    let (out, err) = (text(&o.stdout), text(&o.stderr));
    assert!(o.status.success(), "{out}\n{err}");
    assert!(out.contains("Finished: 2 of 2 games"), "{out}");
    let games = read_games(&pdn_file);
    assert_eq!(games.len(), 2);
    for g in &games {
        let reason = g.tag("Termination").unwrap();
        assert!(
            !reason.contains("time") && !reason.contains("stall") && !reason.contains("illegal"),
            "{reason}"
        );
    }
    // the ponderer's moves after a hit are marked; the plain engine never ponders
    let raw = std::fs::read_to_string(&pdn_file).unwrap();
    let hits = raw.matches("ponder-hit").count();
    assert!(hits > 0, "no ponder hit in two games:\n{raw}");
    // the report counts the same hits, and only the ponderer's
    let line = |name: &str| {
        out.lines()
            .find(|l| l.starts_with(&format!("Time: {name} ")))
            .unwrap_or_else(|| panic!("no time line for {name}:\n{out}"))
            .to_string()
    };
    let ponderer = line("Ponderer");
    assert!(
        ponderer.contains(&format!(", ponder hits {hits} of ")),
        "{ponderer} against {hits} hits in the PDN"
    );
    assert!(!line("Plain").contains("ponder"), "{out}");
    // every hit is on a move of the ponderer: the comments of a game, in ply order, alternate
    // between the sides from the side to move in its FEN
    for chunk in raw.split("[Event").skip(1) {
        let ponderer_white = chunk.contains("[White \"Ponderer\"]");
        let black_first = chunk.contains("[FEN \"B");
        let comments: Vec<&str> = chunk
            .split('{')
            .skip(1)
            .map(|c| c.split('}').next().unwrap())
            .collect();
        for (ply, c) in comments.iter().enumerate() {
            let white_moved = (ply % 2 == 0) != black_first;
            if c.contains("ponder-hit") {
                assert_eq!(white_moved, ponderer_white, "ply {ply}: {c}\n{chunk}");
            }
        }
    }
}

#[test]
fn timed_match_from_fen_openings_with_concurrency() {
    let openings = temp("openings.fen");
    std::fs::write(
        &openings,
        "# two positions\nB:W28,31-50:B1-20\nW:W31-50:B1-20\n",
    )
    .unwrap();
    let pdn_file = temp("timed.pdn");
    let mut a = engine("A", &[]);
    a.extend(engine("B", &[]));
    // a generous margin: the machine may be busy, and this test is not about time losses
    a.extend(args(&[
        "--tc",
        "0.6+0.02",
        "--timemargin",
        "0.5",
        "--concurrency",
        "2",
    ]));
    a.extend(args(&[
        "--resign",
        "movecount=3",
        "score=3",
        "--draw",
        "movenumber=20",
        "movecount=4",
        "score=0.1",
    ]));
    a.extend(["--openings".into(), openings.display().to_string()]);
    a.extend(["--pdn".into(), pdn_file.display().to_string()]);
    let o = run(&a);
    let (out, err) = (text(&o.stdout), text(&o.stderr));
    assert!(o.status.success(), "{out}\n{err}");
    // every opening once with each colour
    assert!(out.contains("Finished: 4 of 4 games"), "{out}");
    let games = read_games(&pdn_file);
    assert_eq!(games.len(), 4);
    let with_fen = games.iter().filter(|g| g.tag("FEN").is_some()).count();
    assert_eq!(
        with_fen, 2,
        "the black-to-move opening is tagged, the start is not"
    );
    for g in &games {
        assert!(
            !g.tag("Termination").unwrap().contains("loses"),
            "a clean engine failed: {g:?}"
        );
    }
    let mut rounds: Vec<String> = games
        .iter()
        .map(|g| g.tag("Round").unwrap().to_string())
        .collect();
    rounds.sort();
    assert_eq!(rounds, ["1", "2", "3", "4"]);
}

/// Damast against a broken engine: both games are losses for the broken one, with `reason`.
fn broken_loses(mode: &str, reason: &str) {
    let pdn_file = temp(&format!("broken-{mode}.pdn"));
    let mut a = engine("Damast", &[]);
    a.extend(broken(mode));
    a.extend(args(&["--movetime", "0.05", "--games", "2"]));
    a.extend(["--pdn".into(), pdn_file.display().to_string()]);
    let o = run(&a);
    let (out, err) = (text(&o.stdout), text(&o.stderr));
    assert!(o.status.success(), "{mode}: {out}\n{err}");
    assert!(out.contains("Finished: 2 of 2 games"), "{mode}: {out}");
    assert!(
        out.contains("Damast vs Broken: 2 games, +2 =0 -0"),
        "{mode}: {out}"
    );
    let games = read_games(&pdn_file);
    assert_eq!(games.len(), 2, "{mode}");
    for g in &games {
        let broken_white = g.tag("White") == Some("Broken");
        assert_eq!(
            g.tag("Result"),
            Some(if broken_white { "0-2" } else { "2-0" }),
            "{mode}"
        );
        let why = g.tag("Termination").unwrap();
        let side = if broken_white { "white" } else { "black" };
        assert!(
            why.starts_with(side) && why.contains(reason),
            "{mode}: '{why}'"
        );
    }
}

#[test]
fn crashing_engine_loses_and_is_restarted() {
    // the second game needs a new process: the first one died
    broken_loses(
        "crash",
        "engine crashed (exit status: 3): broken engine: boom",
    );
}

#[test]
fn stalling_engine_loses() {
    broken_loses("stall", "engine stalled, did not answer within");
}

#[test]
fn slow_engine_loses_on_time() {
    broken_loses("slow", "loses on time");
}

#[test]
fn illegal_garbage_and_missing_moves_lose() {
    broken_loses("illegal", "illegal move '1-2'");
    broken_loses("garbage", "engine sent garbage: unterminated quote");
    broken_loses("nomove", "answered no move but has legal moves");
}

#[test]
fn round_robin_of_three() {
    let mut a = engine("A", &["depth=2"]);
    a.extend(engine("B", &["depth=1"]));
    a.extend(broken("illegal"));
    a.extend(args(&["--games", "2", "--movetime", "0.5"]));
    let o = run(&a);
    let (out, err) = (text(&o.stdout), text(&o.stderr));
    assert!(o.status.success(), "{out}\n{err}");
    assert!(out.contains("Finished: 6 of 6 games"), "{out}");
    assert!(out.contains("rank"), "{out}");
    assert!(out.contains("A vs Broken: 2 games, +2 =0 -0"), "{out}");
    assert!(out.contains("B vs Broken: 2 games, +2 =0 -0"), "{out}");
    assert!(out.contains("A: 0.5 s/move, depth 2"), "{out}");
}

#[test]
fn sprt_stops_the_match_when_it_decides() {
    // depth 5 against depth 3: H1 (+50 Elo) is accepted long before the 80 games scheduled
    let mut a = engine("Deep", &["depth=5"]);
    a.extend(engine("Shallow", &["depth=3"]));
    a.extend(args(&["--games", "80"]));
    a.extend(args(&[
        "--sprt",
        "elo0=0",
        "elo1=50",
        "alpha=0.1",
        "beta=0.1",
    ]));
    let o = run(&a);
    let (out, err) = (text(&o.stdout), text(&o.stderr));
    assert!(o.status.success(), "{out}\n{err}");
    assert!(out.contains("H1 accepted"), "{out}");
    let finished = out
        .lines()
        .find_map(|l| l.strip_prefix("Finished: "))
        .and_then(|l| l.split_whitespace().next())
        .and_then(|n| n.parse::<u32>().ok())
        .unwrap_or_else(|| panic!("no Finished line: {out}"));
    assert!((2..80).contains(&finished), "{out}");
}

#[test]
fn bad_command_lines_and_engines_fail_cleanly() {
    let cases: [(Vec<String>, &str); 5] = [
        (engine("A", &[]), "at least two engines"),
        (
            [engine("A", &[]), engine("A", &[]), args(&["--depth", "1"])].concat(),
            "two engines are called 'A'",
        ),
        (
            [engine("A", &[]), engine("B", &[])].concat(),
            "no search limit",
        ),
        (
            [engine("A", &[]), engine("B", &[]), args(&["--tc", "fast"])].concat(),
            "bad time control 'fast'",
        ),
        (
            [
                engine("A", &[]),
                args(&[
                    "--engine",
                    "name=B",
                    "cmd=/nonexistent/engine hub",
                    "--depth",
                    "1",
                ]),
            ]
            .concat(),
            "engine 'B' does not start",
        ),
    ];
    for (a, expected) in cases {
        let o = run(&a);
        let err = text(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{a:?}: {err}");
        assert!(err.contains(expected), "{a:?}: {err}");
        assert_eq!(err.trim().lines().count(), 1, "{err}");
    }
    let mut a = engine("A", &[]);
    a.extend(broken("badstart"));
    a.extend(args(&["--depth", "1"]));
    let o = run(&a);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        text(&o.stderr).contains("does not start: crashed"),
        "{}",
        text(&o.stderr)
    );
    let mut a = engine("A", &[]);
    a.extend(engine("B", &[]));
    a.extend(args(&[
        "--depth",
        "1",
        "--openings",
        "/nonexistent/openings.fen",
    ]));
    let o = run(&a);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o.stderr).contains("cannot read openings file"));
}
