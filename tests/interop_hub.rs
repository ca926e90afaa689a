//! Interoperability: complete games between two `damast hub` engines driven by pydraughts (the
//! Hub client of the lidraughts bot), through tests/interop/hub_games.py.
//!
//! The Python interpreter is taken from DAMAST_PYTHON (scripts/test.sh sets it to a venv with
//! pydraughts), else `python3`. Without pydraughts the test fails: it never passes silently.

use std::path::Path;
use std::process::Command;
use std::time::Duration;

const TIMEOUT: Duration = Duration::from_secs(240);

mod common;

/// Runs tests/interop/hub_games.py on `variant` and checks that every game passed.
fn play_through_pydraughts(variant: &str, time_games: u32, depth_games: u32) {
    let py =
        common::pydraughts_python("import draughts; from draughts.engine import HubEngine, Limit");

    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/interop/hub_games.py");
    let run = common::run_with_timeout(
        Command::new(&py)
            .arg(&script)
            .args(["--engine", env!("CARGO_BIN_EXE_damast")])
            .args(["--variant", variant])
            .args(["--time-games", &time_games.to_string()])
            .args(["--depth-games", &depth_games.to_string()])
            .args(["--max-plies", "150"])
            .env_remove("RUST_LOG"),
        TIMEOUT,
    );
    let (status, out, err) = (run.status, run.stdout, run.stderr);
    println!("{out}");
    eprintln!("{err}");
    let status =
        status.unwrap_or_else(|| panic!("the games took more than {TIMEOUT:?}:\n{out}\n{err}"));
    let last = out.lines().last().unwrap_or("");
    assert!(
        status.success(),
        "hub_games.py --variant {variant} failed ({status}):\n{out}\n{err}"
    );
    assert!(
        last.ends_with(" passed, 0 failed") && !last.starts_with("0 "),
        "last line: '{last}'"
    );
}

#[test]
fn pydraughts_plays_complete_games() {
    play_through_pydraughts("international", 2, 2);
}

/// Italian through pydraughts' HubEngine. (English cannot be played this way: pydraughts 0.6.7
/// sends english positions to Hub engines in its internal, turned-round numbering but reads the
/// answers in the usual one, so no engine's legal answer is accepted; `damast match` plays
/// english through `damast hub` in tests/match.rs.)
#[test]
fn pydraughts_plays_italian_games() {
    play_through_pydraughts("italian", 1, 2);
}

/// `damast match` writes PDN that pydraughts reads: every game replays legally on pydraughts'
/// board, with international results and the tags the runner promises
/// (tests/interop/read_match_pdn.py).
#[test]
fn pydraughts_reads_match_pdn() {
    let py =
        common::pydraughts_python("import draughts; from draughts.engine import HubEngine, Limit");
    let dir = std::env::temp_dir().join(format!("damast-interop-match-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("create a temporary directory");
    let pdn = dir.join("match.pdn");
    let _ = std::fs::remove_file(&pdn);
    let cmd = format!("cmd={} hub", env!("CARGO_BIN_EXE_damast"));
    // shuffled openings of the shipped suite: white and black to move at the start
    let out = Command::new(env!("CARGO_BIN_EXE_damast"))
        .args(["match", "--engine", "name=A", &cmd, "option.tt-size=8"])
        .args([
            "--engine",
            "name=B",
            &cmd,
            "option.tt-size=8",
            "option.level=normal",
        ])
        .args(["--depth", "3", "--games", "4", "--shuffle", "5", "--pdn"])
        .arg(&pdn)
        .env_remove("RUST_LOG")
        .output()
        .expect("run damast match");
    assert!(
        out.status.success(),
        "{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let check = Command::new(&py)
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/interop/read_match_pdn.py"))
        .arg(&pdn)
        .arg("4")
        .output()
        .unwrap_or_else(|e| {
            panic!("cannot run Python '{py}': {e}\nRun scripts/test.sh, or set DAMAST_PYTHON.")
        });
    let text = String::from_utf8_lossy(&check.stdout);
    println!("{text}");
    let last = text.lines().last().unwrap_or("");
    assert!(
        check.status.success() && last == "4 passed, 0 failed",
        "read_match_pdn.py failed ({}):\n{text}\n{}\nWithout pydraughts: run scripts/test.sh or set DAMAST_PYTHON.",
        check.status,
        String::from_utf8_lossy(&check.stderr)
    );
}
