//! Criterion bench: endgame database probes per second (`cargo bench --bench egdb`), on
//! positions drawn from every slice. It builds the 3-piece international database in a
//! temporary directory, or probes the one in `DAMAST_EGDB_DIR` (e.g. the 4-piece set).

use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use damast::core::{International, Position, Variant};
use damast::engine::egdb::{Egdb, Indexer, Signature};

/// Up to `per_slice` positions from each slice of `db`, spread over its indices.
fn sample(db: &Egdb, per_slice: u64) -> Vec<Position<International>> {
    let mut out = Vec::new();
    for sig in Signature::up_to(db.pieces()) {
        let ix = Indexer::<International>::new(sig);
        let step = (ix.size() / per_slice).max(1) | 1;
        out.extend(
            (0..ix.size())
                .step_by(step as usize)
                .filter_map(|i| ix.position(i)),
        );
    }
    out
}

fn probe_bench(c: &mut Criterion) {
    let (dir, temporary) = match std::env::var_os("DAMAST_EGDB_DIR") {
        Some(d) => (std::path::PathBuf::from(d), false),
        None => {
            let d = std::env::temp_dir().join(format!("damast-bench-egdb-{}", std::process::id()));
            damast::tools::egdb_builder::build::<International>(&d, 3, None, &mut |_| {})
                .expect("the 3-piece build");
            (d, true)
        }
    };
    let db = Egdb::open(&dir, International::KIND, None);
    let positions = sample(&db, 2_000);
    // load every slice before timing
    for p in &positions {
        db.probe_entry(p).expect("a probe");
    }
    let mut g = c.benchmark_group("egdb");
    g.throughput(Throughput::Elements(positions.len() as u64));
    g.bench_function(format!("probe/{}-pieces", db.pieces()), |b| {
        b.iter(|| {
            positions
                .iter()
                .map(|p| db.probe_entry(black_box(p)).unwrap().plies)
                .sum::<u32>()
        })
    });
    g.finish();
    if temporary {
        let _ = std::fs::remove_dir_all(&dir);
    }
}

criterion_group!(benches, probe_bench);
criterion_main!(benches);
