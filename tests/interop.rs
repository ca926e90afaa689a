//! Interoperability: the legal moves printed by `damast moves` must equal those of the Python
//! library pydraughts on a few hundred positions of every variant both play: international,
//! english, italian, russian and brazilian (tests/interop/pydraughts_moves.py).
//!
//! The interpreter is taken from `DAMAST_PYTHON` (default `python3`). It must be able to import
//! pydraughts; `scripts/test.sh` creates `.venv` with it. Without it this test FAILS: it never passes
//! without having compared anything.

use std::path::PathBuf;
use std::process::Command;

mod common;

const MIN_PASSED: u64 = 200;

/// Python code that succeeds only with pydraughts (not merely some other package called
/// `draughts`).
const PROBE: &str = "from draughts import Board\n\
                     b = Board(variant='standard', fen='W:W31-50:B1-20')\n\
                     m = b.legal_moves()\n\
                     assert len(m) == 9 and m[0].board_move and hasattr(m[0], 'captures')\n";

/// Reads `N passed, M failed` from the last matching line of the script's output.
fn summary(stdout: &str) -> Option<(u64, u64)> {
    stdout.lines().rev().find_map(|line| {
        let (p, f) = line.trim().split_once(" passed, ")?;
        let f = f.strip_suffix(" failed")?;
        Some((p.trim().parse().ok()?, f.trim().parse().ok()?))
    })
}

/// Compares `positions` positions of `variant` (damast's name) and checks that at least
/// `min_passed` were compared and none differed.
fn compare(variant: &str, positions: u32, min_passed: u64) {
    let python = common::pydraughts_python(PROBE);
    let script: PathBuf = [
        env!("CARGO_MANIFEST_DIR"),
        "tests",
        "interop",
        "pydraughts_moves.py",
    ]
    .iter()
    .collect();
    let binary = env!("CARGO_BIN_EXE_damast");
    let out = Command::new(&python)
        .arg(&script)
        .arg(binary)
        .arg(positions.to_string())
        .arg("20240601")
        .arg(variant)
        .output()
        .unwrap_or_else(|e| panic!("cannot run {} with '{python}': {e}", script.display()));
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let report = format!("stdout:\n{stdout}\nstderr:\n{stderr}");
    let (passed, failed) = summary(&stdout)
        .unwrap_or_else(|| panic!("no `N passed, M failed` line in the script's output\n{report}"));
    assert!(
        out.status.success(),
        "the script exited with {} for {variant}: {failed} failed\n{report}",
        out.status
    );
    assert_eq!(
        failed, 0,
        "damast and pydraughts disagree in {variant}\n{report}"
    );
    assert!(
        passed >= min_passed,
        "only {passed} {variant} positions compared (expected at least {min_passed})\n{report}"
    );
    let lines: Vec<&str> = stdout.lines().collect();
    eprintln!("{}", lines[lines.len().saturating_sub(2)..].join("\n"));
}

#[test]
fn legal_moves_match_pydraughts() {
    compare("international", 400, MIN_PASSED);
}

#[test]
fn english_legal_moves_match_pydraughts() {
    compare("english", 300, MIN_PASSED);
}

#[test]
fn italian_legal_moves_match_pydraughts() {
    compare("italian", 300, MIN_PASSED);
}

#[test]
fn russian_legal_moves_match_pydraughts() {
    compare("russian", 300, MIN_PASSED);
}

#[test]
fn brazilian_legal_moves_match_pydraughts() {
    compare("brazilian", 300, MIN_PASSED);
}
