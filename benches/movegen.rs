//! Criterion benches: move generation on typical positions and perft from the start position.

use criterion::{black_box, criterion_group, criterion_main, Criterion};
use damast::core::{fen, movegen, International, MoveList, Position};
use damast::tools::perft;

const POSITIONS: &[(&str, &str)] = &[
    ("start", "W:W31-50:B1-20"),
    (
        "woldouby",
        "W:B12,13,14,16,18,19,21,23,24,26:W25,27,28,30,32,33,34,35,37,38",
    ),
    (
        "random178",
        "B:BK17,K24:W6,9,10,11,20,21,22,23,30,K31,33,37,41,42,43,44,46",
    ),
    ("all-kings", "W:WK31-50:BK1-20"),
];

fn movegen_bench(c: &mut Criterion) {
    for (name, f) in POSITIONS {
        let pos: Position<International> = fen::parse(f).unwrap();
        c.bench_function(&format!("generate/{name}"), |b| {
            let mut list = MoveList::new();
            b.iter(|| {
                movegen::generate(black_box(&pos), &mut list);
                list.len()
            })
        });
        c.bench_function(&format!("count/{name}"), |b| {
            b.iter(|| movegen::count(black_box(&pos)))
        });
    }
}

fn perft_bench(c: &mut Criterion) {
    let start = Position::<International>::start();
    let mut g = c.benchmark_group("perft");
    g.sample_size(10);
    g.bench_function("start/7", |b| b.iter(|| perft::perft(black_box(&start), 7)));
    let wold: Position<International> = fen::parse(POSITIONS[1].1).unwrap();
    g.bench_function("woldouby/11", |b| {
        b.iter(|| perft::perft(black_box(&wold), 11))
    });
    g.finish();
}

criterion_group!(benches, movegen_bench, perft_bench);
criterion_main!(benches);
