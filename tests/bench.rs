//! The bench node count is the search's signature: any change of search or evaluation behaviour
//! changes it. When a change is intended, update tests/data/bench-signature.txt with the new
//! total printed by `damast bench --depth 7`.

use std::process::Command;

#[test]
fn bench_signature_is_unchanged() {
    let out = Command::new(env!("CARGO_BIN_EXE_damast"))
        .args(["bench", "--depth", "7"])
        .output()
        .expect("run damast bench");
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let last = text.lines().last().expect("output");
    let nodes: u64 = last
        .split_whitespace()
        .find_map(|t| t.strip_prefix("nodes="))
        .and_then(|n| n.parse().ok())
        .expect("nodes= on the last line");
    assert!(last.contains("nps="), "{last}");
    let expected: u64 = include_str!("data/bench-signature.txt")
        .trim()
        .parse()
        .unwrap();
    assert_eq!(
        nodes, expected,
        "bench signature changed: update tests/data/bench-signature.txt if intended"
    );
}

/// Runs `damast bench` with `args`, returning whether it succeeded, its output and its errors.
fn bench(args: &[&str]) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_damast"))
        .arg("bench")
        .args(args)
        .output()
        .expect("run damast bench");
    (
        out.status.success(),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

/// The total node count on the last line.
fn total_nodes(text: &str) -> u64 {
    text.lines()
        .last()
        .and_then(|l| l.split_whitespace().find_map(|t| t.strip_prefix("nodes=")))
        .and_then(|n| n.parse().ok())
        .expect("nodes= on the last line")
}

#[test]
fn bench_search_settings_change_the_tree_and_bad_ones_are_refused() {
    let (ok, base, _) = bench(&["--depth", "6"]);
    assert!(ok);
    let (ok, cut, _) = bench(&["--depth", "6", "--search", "lmr-divisor=120"]);
    assert!(ok);
    assert_ne!(
        total_nodes(&base),
        total_nodes(&cut),
        "stronger reductions must change the tree"
    );
    let (ok, out, err) = bench(&["--depth", "6", "--search", "no-such-setting=1"]);
    assert!(!ok && out.is_empty(), "{out}");
    assert!(err.contains("no-such-setting"), "{err}");
    let (ok, _, err) = bench(&["--depth", "6", "--search", "lmr-divisor"]);
    assert!(!ok);
    assert!(err.contains("NAME=VALUE"), "{err}");
}

#[test]
fn bench_with_two_threads_reports_the_time_to_depth_of_every_position() {
    let (ok, out, _) = bench(&["--depth", "5", "--threads", "2"]);
    assert!(ok);
    let rows: Vec<&str> = out.lines().filter(|l| l.starts_with("position=")).collect();
    assert_eq!(rows.len(), 39, "{out}");
    for r in rows {
        let t: f64 = r
            .split_whitespace()
            .find_map(|t| t.strip_prefix("time="))
            .and_then(|t| t.parse().ok())
            .unwrap_or_else(|| panic!("time= in {r}"));
        assert!(t >= 0.0);
    }
    assert!(total_nodes(&out) > 0);
}

#[test]
fn bench_table_size_is_a_setting_whose_default_keeps_the_signature() {
    let (ok, base, _) = bench(&["--depth", "7"]);
    assert!(ok);
    let (ok, same, _) = bench(&["--depth", "7", "--tt-size", "16"]);
    assert!(ok);
    assert_eq!(total_nodes(&base), total_nodes(&same));
    // a 1 MiB table is full at depth 7 on some positions, so the tree differs
    let (ok, small, _) = bench(&["--depth", "7", "--tt-size", "1"]);
    assert!(ok);
    assert_ne!(total_nodes(&base), total_nodes(&small));
}

#[test]
fn bench_compares_the_time_to_depth_of_two_thread_counts() {
    let (ok, out, _) = bench(&[
        "--depth",
        "5",
        "--threads",
        "2",
        "--against-threads",
        "1",
        "--runs",
        "2",
    ]);
    assert!(ok);
    let rows: Vec<&str> = out.lines().filter(|l| l.starts_with("position=")).collect();
    assert_eq!(rows.len(), 39, "{out}");
    for r in &rows {
        assert!(
            r.contains("time-1=") && r.contains("time-2=") && r.contains("ratio="),
            "{r}"
        );
    }
    // one thread is deterministic: its node counts are the single-thread bench's
    let (ok, single, _) = bench(&["--depth", "5"]);
    assert!(ok);
    let one: u64 = rows
        .iter()
        .map(|r| {
            r.split_whitespace()
                .find_map(|t| t.strip_prefix("nodes-1="))
                .and_then(|n| n.parse::<u64>().ok())
                .unwrap_or_else(|| panic!("nodes-1= in {r}"))
        })
        .sum();
    assert_eq!(one, total_nodes(&single));
    let last = out.lines().last().expect("a summary line");
    assert!(
        last.starts_with("time-to-depth threads=2 against=1 depth=5 runs=2"),
        "{last}"
    );
    let ratio: f64 = last
        .split_whitespace()
        .find_map(|t| t.strip_prefix("median-ratio="))
        .and_then(|t| t.parse().ok())
        .expect("median-ratio= on the summary line");
    assert!(ratio >= 0.0);
    // --runs without a comparison, or --stats with one, is refused rather than ignored
    let (ok, _, err) = bench(&["--depth", "1", "--runs", "2"]);
    assert!(!ok && err.contains("--against-threads"), "{err}");
    let (ok, _, err) = bench(&["--depth", "1", "--stats", "--against-threads", "1"]);
    assert!(!ok && err.contains("--stats"), "{err}");
}
