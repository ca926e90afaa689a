//! `damast bench`: a fixed search over built-in positions whose node total is the search's
//! signature (any unintended change of search behaviour changes it), and a speed measure.

use std::time::Instant;

use crate::core::game::Game;
use crate::core::variant::International;
use crate::engine::time::Limits;
use crate::engine::{Engine, Mode, Options, SearchHandle, SearchStats};

/// The bench positions (international draughts): openings, middle games, and endgames with kings.
pub const POSITIONS: &[&str] = &[
    "W:W31-50:B1-20",
    "W:W25,29,31,33,35,36,37,39,40,41,42,43,44,45,46,47,48,49,50:B1,10,11,12,13,14,15,16,18,19,2,3,32,4,5,6,7,8,9",
    "W:W26,29,31,32,33,34,35,37,38,39,41,42,43,44,45,46,47,48,49,50:B1,10,11,12,14,15,16,18,2,20,22,23,24,3,4,5,6,7,8,9",
    "W:W26,30,32,33,36,37,38,39,40,41,42,43,44,45,46,47,48,49,50:B1,10,11,14,15,16,18,19,2,20,21,23,3,4,5,6,7,8,9",
    "W:W27,31,32,33,34,36,37,39,40,41,42,43,44,45,46,47,48,49,50:B1,10,11,12,15,16,17,18,19,2,20,29,3,4,5,6,7,8,9",
    "W:W27,31,33,34,36,37,38,39,40,41,42,44,45,46,47,48,49,50:B1,10,11,12,13,14,15,17,18,19,2,3,35,4,5,6,7,8,9",
    "W:W28,31,33,36,37,38,39,40,41,42,43,44,45,46,47,48,49,50:B1,10,11,12,13,14,15,17,18,2,26,29,3,4,5,6,7,8,9",
    "W:W22,28,32,33,34,35,36,39,40,41,42,43,44,45,46,47,48,49,50:B1,10,11,12,13,14,15,16,2,20,21,23,3,4,5,6,7,9",
    "W:W26,28,30,32,34,36,37,39,40,41,42,44,45,46,47,48,49,50:B1,10,12,13,14,15,16,19,2,20,22,3,4,5,6,7,8,9",
    "W:W28,30,31,32,33,34,37,39,40,41,42,43,44,45,46,47,48,49,50:B1,10,11,14,15,16,17,19,2,22,25,29,3,4,5,6,7,8,9",
    "W:W31,32,33,34,35,36,37,40,41,42,44,45,46,47,48,49,50:B1,10,11,12,15,16,17,18,2,24,3,4,5,6,7,8,9",
    "W:W15,31,32,36,37,38,40,41,42,43,44,45,46,47,48,49,50:B1,10,11,12,13,2,21,25,28,3,4,5,6,7,8,9",
    "W:W26,29,32,33,35,36,37,39,41,42,44,45,46,47,48,49,50:B1,11,12,15,17,18,19,2,20,21,3,4,5,6,7,8,9",
    "W:W31,35,36,38,39,40,41,42,43,44,45,46,47,48,49,50:B1,10,14,15,16,18,2,25,3,32,4,5,6,7,8,9",
    "W:W34,35,36,38,40,41,42,43,44,45,46,47,48,49,50:B1,10,11,12,13,14,15,2,26,29,3,4,5,6,7,8",
    "W:W24,32,33,36,37,38,40,41,43,44,45,46,47,48,49,50:B1,10,11,13,14,17,2,20,25,26,3,4,5,6,7,8,9",
    "W:W28,29,31,35,36,38,39,41,42,43,45,46,47,48,49,50:B1,10,11,12,13,14,15,16,18,2,25,3,5,6,7,9",
    "W:W28,31,35,36,37,39,40,41,42,43,45,46,47,48,49:B1,11,12,13,15,16,18,2,21,23,3,4,5,6,7,9",
    "W:W31,33,35,36,38,39,40,41,43,44,45,46,48,49,50:B1,10,14,15,17,18,2,24,25,3,4,5,6,7,8,9",
    "W:W26,27,31,32,33,34,38,40,41,43,44,45,46,47,48,49,50:B1,10,11,13,15,16,18,19,23,3,4,5,6,7,8,9",
    "W:W15,23,31,35,36,37,39,41,42,46,47,48,49,50:B1,10,13,14,16,2,21,3,4,45,5,6,7,8",
    "W:W26,29,31,34,35,36,40,42,44,45,46,47,48,49,50:B1,13,14,15,16,17,19,2,20,21,27,4,5,6,7,9",
    "W:W16,26,31,32,35,36,39,40,41,43,44,46,48,49,50:B1,10,11,19,2,20,22,23,24,29,3,5,6,7,8,9",
    "W:W29,31,33,34,36,37,38,39,44,45,46,47,48,50:B10,11,13,14,15,16,18,25,26,3,4,5,6",
    "W:W31,33,34,35,36,37,39,40,42,43,46,47,48,50:B10,15,16,2,22,23,25,3,4,5,6,7,8",
    "W:W17,25,36,38,41,44,45,46,48,49,50:B1,10,15,23,3,35,4,5,6,9",
    "W:W27,34,36,38,39,42,43,44,45,46,47,50:B13,14,16,18,19,2,25,30,35,4,5,6,8",
    "W:W31,32,33,35,36,39,40,42,43,45,46,50:B10,11,13,15,17,19,2,23,4,5,6,8,9",
    "W:W28,33,36,39,40,45,46,50:B10,13,15,19,3,4,6,8",
    "W:W31,33,35,36,37,38,42,43,44,49:B1,10,13,14,17,22,25,34,4,6,7",
    "W:W31,36,37,41,44,49:B1,14,15,20,28,4,5",
    "W:B12,13,14,16,18,19,21,23,24,26:W25,27,28,30,32,33,34,35,37,38",
    "B:BK17,K24:W6,9,10,11,20,21,22,23,30,K31,33,37,41,42,43,44,46",
    "W:W6,7,8,9,10:B41,42,43,44,45",
    "W:WK46,28,33:BK5,19",
    "W:WK1,K2,K3:BK50",
    "B:WK10,31,36,37:BK44,15,16,20",
    "W:WK26,27,28,33:BK3,9,13",
    "W:WK47,K48,35:BK3,K4,16",
];

/// Default bench depth.
pub const DEFAULT_DEPTH: u32 = 9;

/// The result of a bench run.
#[derive(Clone, Debug, PartialEq)]
pub struct BenchResult {
    /// Nodes per position.
    pub per_position: Vec<u64>,
    /// Seconds per position: the time to reach the depth.
    pub per_position_seconds: Vec<f64>,
    /// Total nodes: the signature.
    pub nodes: u64,
    /// The search counters of each iteration (index 0: depth 1), summed over the positions.
    pub iterations: Vec<SearchStats>,
}

impl BenchResult {
    /// Seconds taken by the searches in all.
    pub fn seconds(&self) -> f64 {
        self.per_position_seconds.iter().sum()
    }

    /// Nodes per second.
    pub fn nps(&self) -> f64 {
        let seconds = self.seconds();
        if seconds > 0.0 {
            self.nodes as f64 / seconds
        } else {
            0.0
        }
    }
}

/// The table size of the bench searches unless told otherwise (the signature's).
pub const DEFAULT_TT_MIB: usize = 16;

/// Searches every bench position to `depth` with the threads, the evaluation and the search
/// settings of `options` and a fresh table of [`DEFAULT_TT_MIB`] each. The time counted is that of
/// the searches (not of setting up each engine and its table). With one thread the node counts
/// are the search's signature; with more they vary from run to run, and the times measure how fast
/// the threads reach the depth together.
pub fn run(depth: u32, options: &Options) -> BenchResult {
    run_with_table(depth, DEFAULT_TT_MIB, options)
}

/// [`run`] with a fresh table of `tt_mib` MiB for each position (the signature holds only for
/// [`DEFAULT_TT_MIB`]).
pub fn run_with_table(depth: u32, tt_mib: usize, options: &Options) -> BenchResult {
    let mut per_position = Vec::with_capacity(POSITIONS.len());
    let mut per_position_seconds = Vec::with_capacity(POSITIONS.len());
    let mut iterations: Vec<SearchStats> = Vec::new();
    for fen in POSITIONS {
        let game: Game<International> = Game::from_fen(fen).expect("bench positions are valid");
        let mut engine = Engine::new(Options {
            threads: options.threads.max(1),
            tt_mib: tt_mib.max(1),
            ..options.clone()
        });
        let start = Instant::now();
        let mut before = SearchStats::default();
        let out = engine.search(
            &game,
            &Limits::depth(depth),
            Mode::Analyze,
            &SearchHandle::new(),
            &mut |info| {
                let d = info.depth as usize;
                if iterations.len() < d {
                    iterations.resize(d, SearchStats::default());
                }
                iterations[d - 1] += info.stats - before;
                before = info.stats;
            },
        );
        per_position_seconds.push(start.elapsed().as_secs_f64());
        per_position.push(out.nodes);
    }
    BenchResult {
        nodes: per_position.iter().sum(),
        per_position,
        per_position_seconds,
        iterations,
    }
}

/// Positions whose baseline time to depth is below this many seconds are left out of the
/// time-to-depth ratios (timer noise and set-up dominate them).
pub const TTD_MIN_SECONDS: f64 = 0.05;

/// How fast one thread count reaches the bench depth against another (time to depth): per
/// position the median time of several runs of each, then ratios over the positions.
#[derive(Clone, Debug, PartialEq)]
pub struct TimeToDepth {
    /// Per position: the baseline's median seconds, the compared runs' median seconds and the
    /// medians of their node counts (baseline, compared).
    pub per_position: Vec<TtdPosition>,
    /// The positions counted in the ratios (baseline median of [`TTD_MIN_SECONDS`] or more).
    pub counted: usize,
    /// The median over the counted positions of compared time / baseline time.
    pub median_ratio: f64,
    /// The compared runs' total time over the baseline's (all positions, medians).
    pub total_ratio: f64,
    /// The median over the counted positions of compared nodes / baseline nodes.
    pub median_node_ratio: f64,
}

/// One position of a [`TimeToDepth`] comparison (medians over the runs).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TtdPosition {
    /// Baseline seconds to the depth.
    pub base_seconds: f64,
    /// Compared seconds to the depth.
    pub seconds: f64,
    /// Baseline nodes.
    pub base_nodes: u64,
    /// Compared nodes.
    pub nodes: u64,
}

impl TtdPosition {
    /// Compared time over baseline time (0 when the baseline took no measurable time).
    pub fn ratio(&self) -> f64 {
        if self.base_seconds > 0.0 {
            self.seconds / self.base_seconds
        } else {
            0.0
        }
    }
}

/// The median of `v` (the mean of the middle two for an even count); 0 for none.
fn median(v: &mut [f64]) -> f64 {
    if v.is_empty() {
        return 0.0;
    }
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

/// Compares runs over the same positions: `base` (e.g. one thread) against `other` (e.g. two),
/// each position's time and nodes taken as the median over the runs. Runs of different lengths
/// are compared over the positions they share.
pub fn time_to_depth(base: &[BenchResult], other: &[BenchResult]) -> TimeToDepth {
    let positions = base
        .iter()
        .chain(other)
        .map(|r| r.per_position.len().min(r.per_position_seconds.len()))
        .min()
        .unwrap_or(0);
    let med = |runs: &[BenchResult], value: &dyn Fn(&BenchResult) -> f64| {
        median(&mut runs.iter().map(value).collect::<Vec<f64>>())
    };
    let per_position: Vec<TtdPosition> = (0..positions)
        .map(|i| {
            let seconds = |r: &BenchResult| r.per_position_seconds[i];
            let nodes = |r: &BenchResult| r.per_position[i] as f64;
            TtdPosition {
                base_seconds: med(base, &seconds),
                seconds: med(other, &seconds),
                base_nodes: med(base, &nodes).round() as u64,
                nodes: med(other, &nodes).round() as u64,
            }
        })
        .collect();
    let counted: Vec<&TtdPosition> = per_position
        .iter()
        .filter(|p| p.base_seconds >= TTD_MIN_SECONDS)
        .collect();
    let mut times: Vec<f64> = counted.iter().map(|p| p.ratio()).collect();
    let mut nodes: Vec<f64> = counted
        .iter()
        .filter(|p| p.base_nodes > 0)
        .map(|p| p.nodes as f64 / p.base_nodes as f64)
        .collect();
    let base_total: f64 = per_position.iter().map(|p| p.base_seconds).sum();
    let total: f64 = per_position.iter().map(|p| p.seconds).sum();
    TimeToDepth {
        counted: counted.len(),
        median_ratio: median(&mut times),
        total_ratio: if base_total > 0.0 {
            total / base_total
        } else {
            0.0
        },
        median_node_ratio: median(&mut nodes),
        per_position,
    }
}

/// The table of `damast bench --stats`: for each iteration, its nodes, the effective branching
/// factor (its nodes over the previous iteration's), the share of nodes at depth 0 or below, the
/// table's hit and cutoff rates, how often the first move caused a beta cutoff, and how often a
/// reduced search had to be searched again.
pub fn stats_table(iterations: &[SearchStats]) -> String {
    use std::fmt::Write as _;
    let pct = |a: u64, b: u64| {
        if b == 0 {
            0.0
        } else {
            100.0 * a as f64 / b as f64
        }
    };
    let mut t = String::from(
        "depth        nodes    ebf  quiesc%  tt-hit%  tt-cut%  first-cut%  reduced  re-search%  futile  futile-mv  threat  lmp  singular  sing-ext\n",
    );
    let mut prev = 0u64;
    for (i, s) in iterations.iter().enumerate() {
        let ebf = if prev > 0 {
            format!("{:.2}", s.nodes as f64 / prev as f64)
        } else {
            "-".to_string()
        };
        let _ = writeln!(
            t,
            "{:>5} {:>12} {:>6} {:>8.1} {:>8.1} {:>8.1} {:>11.1} {:>8} {:>11.1} {:>7} {:>10} {:>7} {:>4} {:>9} {:>9}",
            i + 1,
            s.nodes,
            ebf,
            pct(s.qnodes, s.nodes),
            pct(s.tt_hits, s.tt_probes),
            pct(s.tt_cutoffs, s.tt_probes),
            pct(s.first_move_cutoffs, s.cutoffs),
            s.reduced,
            pct(s.reduced_researches, s.reduced),
            s.futility_prunes,
            s.futility_move_prunes,
            s.threat_prunes,
            s.late_move_prunes,
            s.singular_tests,
            s.singular_extensions,
        );
        prev = s.nodes;
    }
    t
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A bench result with the given seconds and nodes per position.
    fn result(seconds: &[f64], nodes: &[u64]) -> BenchResult {
        BenchResult {
            per_position: nodes.to_vec(),
            per_position_seconds: seconds.to_vec(),
            nodes: nodes.iter().sum(),
            iterations: Vec::new(),
        }
    }

    #[test]
    fn time_to_depth_takes_medians_of_runs_then_of_ratios() {
        // three positions; the last is too quick for the baseline to count
        let base = [
            result(&[1.0, 2.0, 0.01], &[100, 200, 1]),
            result(&[3.0, 2.2, 0.01], &[100, 220, 1]),
            result(&[1.2, 1.8, 0.01], &[100, 180, 1]),
        ];
        let two = [
            result(&[0.6, 1.0, 0.5], &[150, 300, 9]),
            result(&[0.9, 1.4, 0.5], &[130, 260, 9]),
        ];
        let t = time_to_depth(&base, &two);
        assert_eq!(t.counted, 2);
        // position medians: base 1.2 and 2.0, compared 0.75 and 1.2
        assert!((t.per_position[0].base_seconds - 1.2).abs() < 1e-12);
        assert!((t.per_position[1].seconds - 1.2).abs() < 1e-12);
        assert_eq!(t.per_position[0].nodes, 140);
        // ratios 0.625 and 0.6: their median is their mean
        assert!((t.median_ratio - 0.6125).abs() < 1e-12);
        // node ratios 1.4 and 1.4
        assert!((t.median_node_ratio - 1.4).abs() < 1e-12);
        // totals: 0.75 + 1.2 + 0.5 against 1.2 + 2.0 + 0.01
        assert!((t.total_ratio - 2.45 / 3.21).abs() < 1e-12);
    }

    #[test]
    fn time_to_depth_of_nothing_is_zero() {
        let t = time_to_depth(&[], &[]);
        assert_eq!(t.counted, 0);
        assert_eq!(t.median_ratio, 0.0);
        assert_eq!(t.total_ratio, 0.0);
    }

    #[test]
    fn bench_positions_are_valid_and_varied() {
        assert!(POSITIONS.len() >= 30);
        let mut kings = 0;
        for f in POSITIONS {
            let g: Game<International> = Game::from_fen(f).unwrap();
            assert_eq!(g.result(), crate::core::game::GameResult::Ongoing, "{f}");
            if g.position().all_kings().any() {
                kings += 1;
            }
        }
        assert!(kings >= 6);
    }

    #[test]
    fn iteration_counters_add_up_to_the_nodes() {
        let r = run(5, &Options::default());
        assert_eq!(r.iterations.len(), 5);
        let counted: u64 = r.iterations.iter().map(|s| s.nodes).sum();
        assert_eq!(counted, r.nodes, "every node belongs to one iteration");
        for s in &r.iterations {
            assert!(s.qnodes <= s.nodes && s.tt_hits <= s.tt_probes);
            assert!(s.first_move_cutoffs <= s.cutoffs);
            assert!(s.reduced_researches <= s.reduced);
        }
        // deeper iterations cost more, and the table has a row per iteration
        assert!(r.iterations[4].nodes > r.iterations[0].nodes);
        assert_eq!(stats_table(&r.iterations).lines().count(), 6);
    }

    #[test]
    fn bench_is_deterministic() {
        let a = run(3, &Options::default());
        let b = run(3, &Options::default());
        assert_eq!(a.per_position, b.per_position);
        assert!(a.nodes > 0);
    }

    #[test]
    fn shallower_re_searches_after_root_fail_highs_change_only_those_positions() {
        let base = run(7, &Options::default());
        let mut o = Options::default();
        o.search.set("aspiration-reduce", "2").unwrap();
        let reduced = run(7, &o);
        let changed = reduced
            .per_position
            .iter()
            .zip(&base.per_position)
            .filter(|(a, b)| a != b)
            .count();
        // only positions whose root fails high somewhere change
        assert!(
            changed > 0 && changed < base.per_position.len(),
            "{changed}"
        );
    }

    #[test]
    fn futility_depth_aspiration_and_fail_low_move_variants_change_the_tree() {
        let with = |pairs: &[(&str, &str)]| {
            let mut o = Options::default();
            o.search.set("singular-depth", "4").unwrap();
            for (n, v) in pairs {
                o.search.set(n, v).unwrap();
            }
            run(8, &o).per_position
        };
        let base = with(&[]);
        for (name, value) in [
            ("move-futility-depth", "3"),
            ("aspiration-pull", "on"),
            ("fail-low-move", "0"),
            ("fail-low-move", "2"),
        ] {
            assert_ne!(with(&[(name, value)]), base, "{name}={value}");
        }
    }

    #[test]
    fn singular_extensions_test_and_extend() {
        let mut off = Options::default();
        off.search.set("singular-depth", "0").unwrap();
        let base = run(8, &off);
        let tests_of = |r: &BenchResult| r.iterations.iter().map(|s| s.singular_tests).sum::<u64>();
        assert_eq!(tests_of(&base), 0, "0 turns them off");
        let mut o = Options::default();
        o.search.set("singular-depth", "4").unwrap();
        let sing = run(8, &o);
        let tests = tests_of(&sing);
        let ext: u64 = sing.iterations.iter().map(|s| s.singular_extensions).sum();
        assert!(tests > 0 && ext > 0 && ext < tests, "{ext} of {tests}");
        assert_ne!(sing.per_position, base.per_position);
    }
}
