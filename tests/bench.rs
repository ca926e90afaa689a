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
