//! Perft against the published counts of tests/data/perft.tsv (rows of convention `drop`, for the
//! variants the engine plays). The default test takes the rows up to 2,000,000 nodes on one thread;
//! the ignored one (`cargo test --release --test perft -- --ignored`) takes the rest on two threads.

use std::str::FromStr;

use damast::core::{fen, Position, Variant, VariantKind};
use damast::tools::perft::{perft, perft_parallel};
use damast::with_variant;

const DATA: &str = include_str!("data/perft.tsv");

/// Rows up to this many nodes run in the default test.
const QUICK_LIMIT: u64 = 2_000_000;

#[derive(Debug, Clone)]
struct Row {
    kind: VariantKind,
    name: String,
    fen: String,
    depth: u32,
    nodes: u64,
}

/// Every `drop` row of the variants the engine plays.
fn rows() -> Vec<Row> {
    let mut out = Vec::new();
    for line in DATA.lines() {
        if line.starts_with('#') || line.trim().is_empty() || line.starts_with("variant\t") {
            continue;
        }
        let f: Vec<&str> = line.split('\t').collect();
        assert_eq!(f.len(), 6, "malformed perft.tsv line: {line}");
        if f[5].trim() != "drop" {
            continue;
        }
        // rows of the variants the engine does not play (frisian, turkish) are skipped
        let Ok(kind) = VariantKind::from_str(f[0]) else {
            continue;
        };
        // thai's "start" in the data is 12 men a side on three rows, black first, not the
        // 8-man start of the rules (see the README): counted from that position
        let fen = if kind == VariantKind::Thai && f[2] == "start" {
            THAI_12_MEN.to_string()
        } else {
            f[2].to_string()
        };
        out.push(Row {
            kind,
            name: f[1].to_string(),
            fen,
            depth: f[3].parse().expect("depth"),
            nodes: f[4].parse().expect("nodes"),
        });
    }
    out
}

fn count<V: Variant>(row: &Row, threads: usize) -> Result<u64, String> {
    let pos: Position<V> = if row.fen == "start" {
        Position::start()
    } else {
        fen::parse(&row.fen).map_err(|e| format!("FEN {}: {e}", row.fen))?
    };
    Ok(if threads <= 1 {
        perft(&pos, row.depth)
    } else {
        perft_parallel(&pos, row.depth, threads)
    })
}

/// Checks the rows, returning how many were checked and every mismatch.
fn check(rows: &[Row], threads: usize) -> (usize, Vec<String>) {
    let mut failures = Vec::new();
    for row in rows {
        let t = std::time::Instant::now();
        let got = with_variant!(row.kind, V => count::<V>(row, threads));
        eprintln!(
            "{} {} depth {}: {:?} (expected {}) in {:.2}s",
            row.kind,
            row.name,
            row.depth,
            got,
            row.nodes,
            t.elapsed().as_secs_f64()
        );
        match got {
            Ok(n) if n == row.nodes => {}
            Ok(n) => failures.push(format!(
                "{} {} ({}) depth {}: {n} nodes, expected {}",
                row.kind, row.name, row.fen, row.depth, row.nodes
            )),
            Err(e) => failures.push(format!("{} {}: {e}", row.kind, row.name)),
        }
    }
    (rows.len(), failures)
}

/// The position thai's perft rows start from: 12 men a side, black to move.
const THAI_12_MEN: &str = "B:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,11,12";

/// From the 12-man start, thai counts equal english checkers' until kings appear (flying kings
/// that land right behind, pieces removed as jumped): the data's rows check those rules.
#[test]
fn thai_rows_part_from_english_where_kings_appear() {
    let start: Position<damast::core::Thai> = fen::parse(THAI_12_MEN).unwrap();
    let english = Position::<damast::core::English>::start();
    assert_eq!(perft(&start, 8), perft(&english, 8));
    assert_ne!(perft(&start, 9), perft(&english, 9));
    // the rules' own 8-man start
    assert_eq!(perft(&Position::<damast::core::Thai>::start(), 3), 392);
}

#[test]
fn perft_small_rows() {
    let rows: Vec<Row> = rows()
        .into_iter()
        .filter(|r| r.nodes <= QUICK_LIMIT)
        .collect();
    let (checked, failures) = check(&rows, 1);
    assert!(checked >= 40, "only {checked} perft rows checked");
    assert!(
        failures.is_empty(),
        "{} of {checked} perft rows wrong:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
#[ignore = "long: billions of nodes; run with --ignored"]
fn perft_large_rows() {
    let rows: Vec<Row> = rows()
        .into_iter()
        .filter(|r| r.nodes > QUICK_LIMIT)
        .collect();
    let (checked, failures) = check(&rows, 2);
    assert!(checked > 0, "no large perft rows found");
    assert!(
        failures.is_empty(),
        "{} of {checked} perft rows wrong:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
