//! Tuning the evaluation weights from games, by Texel's method: self-play games give quiet
//! positions labelled with the game's result, and a local search over the weights minimises the
//! mean squared error between each result and a logistic function of the evaluation.
//!
//! `generate` plays the games (a few random plies, then the engine at a fixed node count for both
//! sides) and writes one `FEN;result` line per quiet position, the result from White's side (1,
//! 0.5 or 0). `fit` reads such lines and returns the weights that fit them best.

use std::io::Write;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use rayon::prelude::*;

use crate::core::game::{Game, GameResult};
use crate::core::position::Position;
use crate::core::variant::{Color, Variant};
use crate::core::{fen, movegen};
use crate::engine::eval::{evaluate_with, Weights};
use crate::engine::rng::Rng;
use crate::engine::time::Limits;
use crate::engine::{Engine, Mode, Options};

/// A game longer than this many plies is scored as a draw.
const MAX_PLIES: usize = 400;

/// How to generate training games.
#[derive(Clone, Debug)]
pub struct GenerateConfig {
    /// Number of games.
    pub games: usize,
    /// Nodes per move.
    pub nodes: u64,
    /// Random plies played before the engine takes over, for variety.
    pub random_plies: usize,
    /// Games played at once.
    pub threads: usize,
    /// Seed of the random openings (game `i` uses `seed + i`).
    pub seed: u64,
}

/// A position labelled with the result of its game.
#[derive(Clone, Debug)]
pub struct Sample<V: Variant> {
    /// The position, quiet: no capture for either side.
    pub pos: Position<V>,
    /// The game's result from White's side: 1 win, 0.5 draw, 0 loss.
    pub result: f64,
}

/// A line of a training file that could not be read.
#[derive(Debug, thiserror::Error)]
pub enum TuneError {
    /// The line is not `FEN;result`.
    #[error("line {line}: expected `FEN;result` with result 1, 0.5 or 0, got {text:?}")]
    Line {
        /// 1-based line number.
        line: usize,
        /// The line's text.
        text: String,
    },
    /// A weight name that `Weights` does not have.
    #[error("unknown weight {name:?}; the weights are {}", Weights::NAMES.join(", "))]
    UnknownWeight {
        /// The name given.
        name: String,
    },
    /// Writing the report failed.
    #[error("{0}")]
    Io(#[from] std::io::Error),
    /// The FEN part does not parse.
    #[error("line {line}: {message}")]
    Fen {
        /// 1-based line number.
        line: usize,
        /// What the FEN parser said.
        message: String,
    },
}

/// Whether neither side has a capture in `pos`: its static evaluation then means something.
pub fn is_quiet<V: Variant>(pos: &Position<V>) -> bool {
    !movegen::has_capture(pos) && !movegen::opponent_has_capture(pos)
}

/// Plays game number `index` with `engine`; returns its quiet positions after the random
/// opening, each as a `FEN;result` line.
fn play_game<V: Variant>(engine: &mut Engine, cfg: &GenerateConfig, index: usize) -> Vec<String> {
    let mut rng = Rng::new(cfg.seed.wrapping_add(index as u64));
    let mut game = Game::<V>::new(Position::start());
    engine.new_game();
    let limits = Limits::nodes(cfg.nodes);
    let mut quiet = Vec::new();
    let result = loop {
        match game.result() {
            GameResult::Win(c) => break if c == Color::White { 1.0 } else { 0.0 },
            GameResult::Draw(_) => break 0.5,
            GameResult::Ongoing => {}
        }
        if game.moves().len() >= MAX_PLIES {
            break 0.5;
        }
        let m = if game.moves().len() < cfg.random_plies {
            let legal = movegen::legal_moves(game.position());
            legal[rng.below(legal.len())]
        } else {
            if is_quiet(game.position()) {
                quiet.push(fen::write(game.position()));
            }
            let outcome = engine.search_to(&game, &limits, Mode::Think);
            match outcome.best {
                Some(m) => m,
                None => {
                    break if game.position().side() == Color::White {
                        0.0
                    } else {
                        1.0
                    }
                }
            }
        };
        if game.play(m).is_err() {
            break 0.5;
        }
    };
    quiet.into_iter().map(|f| format!("{f};{result}")).collect()
}

/// Plays `cfg.games` self-play games and writes their quiet positions to `out`, one
/// `FEN;result` line each; `on_game` is told the number of games finished so far. Returns the
/// number of lines written, or the first write error (the games stop at once then).
pub fn generate<V: Variant>(
    cfg: &GenerateConfig,
    out: &mut (dyn Write + Send),
    on_game: &(dyn Fn(usize) + Sync),
) -> std::io::Result<usize> {
    let next = AtomicUsize::new(0);
    let done = AtomicUsize::new(0);
    let sink = Mutex::new((out, 0usize, None::<std::io::Error>));
    std::thread::scope(|scope| {
        for _ in 0..cfg.threads.max(1) {
            scope.spawn(|| {
                let mut engine = Engine::new(Options {
                    tt_mib: 16,
                    ..Options::default()
                });
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    if i >= cfg.games {
                        break;
                    }
                    let lines = play_game::<V>(&mut engine, cfg, i);
                    let mut s = sink.lock().unwrap_or_else(|e| e.into_inner());
                    if s.2.is_some() {
                        // writing failed already: no use playing on
                        break;
                    }
                    if let Err(e) = lines.iter().try_for_each(|l| writeln!(s.0, "{l}")) {
                        s.2 = Some(e);
                        break;
                    }
                    s.1 += lines.len();
                    drop(s);
                    on_game(done.fetch_add(1, Ordering::Relaxed) + 1);
                }
            });
        }
    });
    let (out, lines, err) = sink.into_inner().unwrap_or_else(|e| e.into_inner());
    match err {
        Some(e) => Err(e),
        None => out.flush().map(|_| lines),
    }
}

/// Reads `FEN;result` lines (blank lines and lines starting with `#` are skipped).
pub fn load<V: Variant>(text: &str) -> Result<Vec<Sample<V>>, TuneError> {
    let mut samples = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let bad = || TuneError::Line {
            line: i + 1,
            text: line.chars().take(120).collect(),
        };
        let (f, r) = line.rsplit_once(';').ok_or_else(bad)?;
        let result = match r.trim() {
            "1" => 1.0,
            "0.5" => 0.5,
            "0" => 0.0,
            _ => return Err(bad()),
        };
        let pos = fen::parse::<V>(f.trim()).map_err(|e| TuneError::Fen {
            line: i + 1,
            message: e.to_string(),
        })?;
        samples.push(Sample { pos, result });
    }
    Ok(samples)
}

/// The expected score for White of a position that White's side evaluates as `score`
/// (hundredths of a man), with scaling `k`.
fn expected(score: i32, k: f64) -> f64 {
    1.0 / (1.0 + (-k * score as f64 / 100.0).exp())
}

/// Mean squared error of the predictions of weights `w` on `samples`.
pub fn loss<V: Variant>(samples: &[Sample<V>], w: &Weights, k: f64) -> f64 {
    if samples.is_empty() {
        return 0.0;
    }
    let sum: f64 = samples
        .par_iter()
        .map(|s| {
            let e = evaluate_with(&s.pos, w);
            let white = if s.pos.side() == Color::White { e } else { -e };
            let d = s.result - expected(white, k);
            d * d
        })
        .sum();
    sum / samples.len() as f64
}

/// The scaling `k` (to 0.01) that fits weights `w` best: it maps the evaluation's hundredths of a
/// man onto winning chances.
pub fn best_scaling<V: Variant>(samples: &[Sample<V>], w: &Weights) -> f64 {
    let mut best = (f64::MAX, 1.0);
    for i in 1..=300 {
        let k = i as f64 / 100.0;
        let l = loss(samples, w, k);
        if l < best.0 {
            best = (l, k);
        }
    }
    best.1
}

/// Texel's local search: each weight named in `names`, in turn, is moved by a step up (or down)
/// for as long as that lowers the loss. A pass that changes nothing halves the step (from 8 to
/// 1); the search ends when a pass at step 1 changes nothing, or after `passes` passes. `report`
/// is told each pass's loss. Returns the tuned weights.
pub fn fit<V: Variant>(
    samples: &[Sample<V>],
    start: Weights,
    names: &[&str],
    k: f64,
    passes: usize,
    report: &mut dyn FnMut(usize, f64, &Weights),
) -> Weights {
    let mut w = start;
    let mut best = loss(samples, &w, k);
    let mut step = 8;
    for pass in 1..=passes {
        let mut improved = false;
        for name in names {
            for delta in [step, -step] {
                let mut moved = false;
                loop {
                    let mut t = w;
                    let Some(v) = t.get_mut(name) else { break };
                    *v += delta;
                    let l = loss(samples, &t, k);
                    if l >= best {
                        break;
                    }
                    (best, w, moved) = (l, t, true);
                }
                if moved {
                    improved = true;
                    break;
                }
            }
        }
        report(pass, best, &w);
        if !improved {
            if step == 1 {
                break;
            }
            step /= 2;
        }
    }
    w
}

/// The weights that [`fit_and_report`] tunes when none are named: all but the man (the unit of
/// the scale) and the drawish divisor (not a linear term).
pub fn default_names() -> Vec<&'static str> {
    Weights::NAMES
        .iter()
        .copied()
        .filter(|n| !matches!(*n, "man" | "drawish_divisor"))
        .collect()
}

/// Fits the weights `names` (all of [`default_names`] when empty), starting from the defaults,
/// and writes to `out` the scaling and loss, each pass's loss, and then every weight as
/// `name = value`, marked `(was N)` where it changed. Returns the tuned weights.
pub fn fit_and_report<V: Variant>(
    samples: &[Sample<V>],
    names: &[&str],
    passes: usize,
    out: &mut dyn Write,
) -> Result<Weights, TuneError> {
    let names = if names.is_empty() {
        default_names()
    } else {
        names.to_vec()
    };
    if let Some(bad) = names.iter().find(|n| Weights::DEFAULT.get(n).is_none()) {
        return Err(TuneError::UnknownWeight {
            name: bad.to_string(),
        });
    }
    let start = Weights::DEFAULT;
    let k = best_scaling(samples, &start);
    let before = loss(samples, &start, k);
    writeln!(out, "positions={} k={k:.2} loss={before:.6}", samples.len())?;
    let mut failed = None;
    let tuned = fit(samples, start, &names, k, passes, &mut |pass, l, _| {
        if let Err(e) = writeln!(out, "pass={pass} loss={l:.6}") {
            failed.get_or_insert(e);
        }
    });
    if let Some(e) = failed {
        return Err(e.into());
    }
    for n in Weights::NAMES {
        let (new, old) = (tuned.get(n).unwrap_or(0), start.get(n).unwrap_or(0));
        if new == old {
            writeln!(out, "{n} = {new}")?;
        } else {
            writeln!(out, "{n} = {new} (was {old})")?;
        }
    }
    Ok(tuned)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::variant::International;

    #[test]
    fn reads_labelled_positions_and_rejects_bad_lines() {
        let text = "# comment\nW:W31-50:B1-20;0.5\n\nB:W31-50:B1-15;1\n";
        let s = load::<International>(text).unwrap();
        assert_eq!(s.len(), 2);
        assert_eq!(s[1].result, 1.0);
        for bad in [
            "W:W31-50:B1-20",
            "W:W31-50:B1-20;2",
            "W:W99:B1;1",
            "nonsense;0",
        ] {
            assert!(load::<International>(bad).is_err(), "{bad}");
        }
        let err = load::<International>("W:W31-50:B1-20;1\nxx;1").unwrap_err();
        assert!(err.to_string().starts_with("line 2"), "{err}");
    }

    #[test]
    fn fit_moves_a_weight_towards_the_results() {
        // White is a man up in every position and always wins: a larger man value fits better.
        let s = load::<International>("W:W31-45:B1-14;1\nB:W31-45:B1-14;1\nW:W30-45:B1-15;1\n")
            .unwrap();
        let start = Weights {
            man: 20,
            ..Weights::DEFAULT
        };
        let before = loss(&s, &start, 1.0);
        let mut passes = 0;
        let tuned = fit(&s, start, &["man"], 1.0, 5, &mut |_, _, _| passes += 1);
        assert!(tuned.man > 20, "{}", tuned.man);
        assert!(loss(&s, &tuned, 1.0) < before);
        assert!(passes >= 1);
    }

    /// A writer that always fails.
    struct Broken;
    impl Write for Broken {
        fn write(&mut self, _: &[u8]) -> std::io::Result<usize> {
            Err(std::io::Error::other("disk full"))
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn a_write_error_stops_generation_and_is_returned() {
        let cfg = GenerateConfig {
            games: 50,
            nodes: 300,
            random_plies: 4,
            threads: 2,
            seed: 3,
        };
        let finished = AtomicUsize::new(0);
        let err =
            generate::<International>(&cfg, &mut Broken, &|n| finished.store(n, Ordering::Relaxed))
                .unwrap_err();
        assert_eq!(err.to_string(), "disk full");
        assert_eq!(finished.load(Ordering::Relaxed), 0);
    }

    #[test]
    fn generates_quiet_labelled_positions() {
        let cfg = GenerateConfig {
            games: 2,
            nodes: 300,
            random_plies: 4,
            threads: 2,
            seed: 7,
        };
        let mut out = Vec::new();
        let n = generate::<International>(&cfg, &mut out, &|_| {}).unwrap();
        let text = String::from_utf8(out).unwrap();
        let samples = load::<International>(&text).unwrap();
        assert_eq!(samples.len(), n);
        assert!(n > 20, "{n}");
        assert!(samples.iter().all(|s| is_quiet(&s.pos)));
        // both games' lines carry one result each
        let results: std::collections::BTreeSet<String> = text
            .lines()
            .map(|l| l.rsplit_once(';').unwrap().1.to_string())
            .collect();
        assert!(results.len() <= 2);
    }
}
