//! `damast tune spsa`: tuning an engine's numeric Hub parameters by SPSA (simultaneous
//! perturbation stochastic approximation) over games of the match runner.
//!
//! Iteration `k` moves every parameter at once by `±c_k` (a random sign each), plays one game
//! pair (an opening, both colours) between the engine set to `θ + c_k·Δ` and the engine set to
//! `θ − c_k·Δ`, and steps `θ` along `Δ` by the pair's result (wins minus losses of the first,
//! −2 to 2): `θ_i += a_k / c_k · result · Δ_i`. The gains fall as in Spall's schedule,
//! `c_k = c / k^0.101` and `a_k = a / (A + k)^0.602` with `A` a tenth of the iterations, and
//! are set per parameter from the perturbation and the learning rate wanted at the last
//! iteration (`c_end`, `r_end` with `a_end = r_end · c_end²`), as the fishtest framework does.
//! Pairs run in parallel and update `θ` as they finish. The state (θ, the iterations done, the
//! tally) is written after every pair, so an interrupted run resumes where it stopped.

use std::fmt;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use serde::{Deserialize, Serialize};

use crate::core::{Color, Variant};
use crate::engine::rng::Rng;
use crate::with_variant;

use super::r#match::config::{MatchConfig, MatchOptions};
use super::r#match::game_runner::{self, GameSettings};
use super::r#match::openings::{self, Opening};
use super::r#match::tournament::{self, MatchError};
use super::r#match::ConfigError;

/// Exponent of the step size's decay (Spall's recommended value).
const ALPHA: f64 = 0.602;
/// Exponent of the perturbation's decay.
const GAMMA: f64 = 0.101;
/// Learning rate at the last iteration when a parameter does not give one.
pub const DEFAULT_R_END: f64 = 0.002;

/// Why a tuning run cannot start or go on.
#[derive(Debug, thiserror::Error)]
pub enum SpsaError {
    /// A `--param` is not `NAME=START,MIN,MAX,C_END[,R_END]` with sensible numbers.
    #[error("bad --param '{text}': {reason} (expected NAME=START,MIN,MAX,C_END[,R_END])")]
    BadParam {
        /// The text given.
        text: String,
        /// What is wrong with it.
        reason: String,
    },
    /// No parameter to tune, or one given twice.
    #[error("{0}")]
    Params(String),
    /// The engine, limits, openings or adjudication are wrong.
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// The engine does not start, or the openings cannot be read.
    #[error(transparent)]
    Match(#[from] MatchError),
    /// The state file cannot be read, written or used.
    #[error("state file {path}: {reason}")]
    State {
        /// The file.
        path: String,
        /// What went wrong.
        reason: String,
    },
}

/// One parameter to tune: its Hub name, where it starts, its bounds, and the perturbation and
/// learning rate at the last iteration.
#[derive(Clone, Debug, PartialEq)]
pub struct SpsaParam {
    /// The engine's parameter name (sent with `set-param`).
    pub name: String,
    /// The starting value.
    pub start: f64,
    /// The smallest value sent.
    pub min: f64,
    /// The largest value sent.
    pub max: f64,
    /// Perturbation at the last iteration (in the parameter's units).
    pub c_end: f64,
    /// Learning rate at the last iteration.
    pub r_end: f64,
}

impl FromStr for SpsaParam {
    type Err = SpsaError;

    fn from_str(text: &str) -> Result<SpsaParam, SpsaError> {
        let bad = |reason: &str| SpsaError::BadParam {
            text: text.chars().take(80).collect(),
            reason: reason.to_string(),
        };
        let (name, numbers) = text.split_once('=').ok_or_else(|| bad("no '='"))?;
        let name = name.trim();
        if name.is_empty() || name.contains(char::is_whitespace) {
            return Err(bad("the name is empty or has a space"));
        }
        let values = numbers
            .split(',')
            .map(|v| v.trim().parse::<f64>().ok().filter(|x| x.is_finite()))
            .collect::<Option<Vec<f64>>>()
            .ok_or_else(|| bad("a value is not a number"))?;
        let (start, min, max, c_end, r_end) = match values[..] {
            [s, lo, hi, c] => (s, lo, hi, c, DEFAULT_R_END),
            [s, lo, hi, c, r] => (s, lo, hi, c, r),
            _ => return Err(bad("four or five numbers are needed")),
        };
        if min >= max {
            return Err(bad("MIN must be below MAX"));
        }
        if !(min..=max).contains(&start) {
            return Err(bad("START must lie within MIN..MAX"));
        }
        if c_end <= 0.0 || c_end > (max - min) / 2.0 {
            return Err(bad("C_END must be above 0 and at most half of MAX - MIN"));
        }
        if r_end <= 0.0 || r_end > 1.0 {
            return Err(bad("R_END must be above 0 and at most 1"));
        }
        Ok(SpsaParam {
            name: name.to_string(),
            start,
            min,
            max,
            c_end,
            r_end,
        })
    }
}

/// The gain schedule of one parameter over a run of `iterations` pairs.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Gains {
    /// Scale of the step size.
    pub a: f64,
    /// Stability constant of the step size (a tenth of the iterations).
    pub big_a: f64,
    /// Scale of the perturbation.
    pub c: f64,
}

impl Gains {
    /// The gains that reach `param.c_end` and `param.r_end` at iteration `iterations`.
    pub fn new(param: &SpsaParam, iterations: usize) -> Gains {
        let n = iterations.max(1) as f64;
        let big_a = 0.1 * n;
        let a_end = param.r_end * param.c_end * param.c_end;
        Gains {
            a: a_end * (big_a + n).powf(ALPHA),
            big_a,
            c: param.c_end * n.powf(GAMMA),
        }
    }

    /// The perturbation at iteration `k` (from 1).
    pub fn c_k(&self, k: usize) -> f64 {
        self.c / (k.max(1) as f64).powf(GAMMA)
    }

    /// The step size at iteration `k` (from 1).
    pub fn a_k(&self, k: usize) -> f64 {
        self.a / (self.big_a + k.max(1) as f64).powf(ALPHA)
    }
}

/// The signs of iteration `k`'s perturbation, one per parameter: the same for the same seed.
pub fn perturbation(seed: u64, k: usize, n: usize) -> Vec<f64> {
    let mut rng = Rng::new(seed ^ (k as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15));
    (0..n)
        .map(|_| if rng.next_u64() >> 63 == 0 { 1.0 } else { -1.0 })
        .collect()
}

/// A tuned value as the engine is sent it: rounded and kept within the parameter's bounds.
pub fn engine_value(param: &SpsaParam, x: f64) -> i64 {
    x.clamp(param.min, param.max).round() as i64
}

/// Where a run stands; written to the state file after every pair.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct State {
    /// Iterations (game pairs) of the whole run.
    pub iterations: usize,
    /// Seed of the perturbations and of the opening order.
    pub seed: u64,
    /// Iterations finished.
    pub done: usize,
    /// The parameters' names, in order.
    pub names: Vec<String>,
    /// The current values.
    pub theta: Vec<f64>,
    /// Games won by the `θ + cΔ` engine, drawn, and lost.
    pub wins: u64,
    /// Games drawn.
    pub draws: u64,
    /// Games lost by the `θ + cΔ` engine.
    pub losses: u64,
    /// Games lost by a fault (time, crash, illegal move).
    pub faults: u64,
    /// θ after every `TRACE_EVERY` iterations: `(done, theta)`.
    pub trace: Vec<(usize, Vec<f64>)>,
}

/// How often θ is recorded in the state's trace.
const TRACE_EVERY: usize = 50;

impl State {
    /// A fresh run of `iterations` pairs from the parameters' start values.
    pub fn new(params: &[SpsaParam], iterations: usize, seed: u64) -> State {
        State {
            iterations,
            seed,
            done: 0,
            names: params.iter().map(|p| p.name.clone()).collect(),
            theta: params.iter().map(|p| p.start).collect(),
            wins: 0,
            draws: 0,
            losses: 0,
            faults: 0,
            trace: Vec::new(),
        }
    }

    /// The values iteration `k` plays with: `θ + c_k·Δ` and `θ − c_k·Δ`, as engine values.
    pub fn points(&self, params: &[SpsaParam], k: usize) -> (Vec<i64>, Vec<i64>) {
        let delta = perturbation(self.seed, k, params.len());
        let mut plus = Vec::new();
        let mut minus = Vec::new();
        for ((p, &t), d) in params.iter().zip(&self.theta).zip(&delta) {
            let c = Gains::new(p, self.iterations).c_k(k);
            plus.push(engine_value(p, t + c * d));
            minus.push(engine_value(p, t - c * d));
        }
        (plus, minus)
    }

    /// Applies iteration `k`'s result (wins minus losses of the `θ + cΔ` engine over the pair,
    /// −2 to 2) to θ, keeping every value within its bounds.
    pub fn update(&mut self, params: &[SpsaParam], k: usize, result: f64) {
        let delta = perturbation(self.seed, k, params.len());
        for ((p, t), d) in params.iter().zip(self.theta.iter_mut()).zip(&delta) {
            let g = Gains::new(p, self.iterations);
            *t = (*t + g.a_k(k) / g.c_k(k) * result * d).clamp(p.min, p.max);
        }
        self.done += 1;
        if self.done.is_multiple_of(TRACE_EVERY) {
            self.trace.push((self.done, self.theta.clone()));
        }
    }

    /// Applies iteration `k`'s pair to θ (see [`update`](Self::update)) and to the tally.
    pub fn record(&mut self, params: &[SpsaParam], k: usize, pair: &PairResult) {
        self.update(params, k, pair.result());
        self.wins += pair.wins;
        self.draws += pair.draws;
        self.losses += pair.losses;
        self.faults += pair.faults;
    }

    /// Reads the state file at `path`, or `None` if there is none.
    pub fn load(path: &Path) -> Result<Option<State>, SpsaError> {
        let err = |reason: String| SpsaError::State {
            path: path.display().to_string(),
            reason,
        };
        match std::fs::read_to_string(path) {
            Ok(text) => serde_json::from_str(&text)
                .map(Some)
                .map_err(|e| err(format!("not a tuning state ({e})"))),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(err(e.to_string())),
        }
    }

    /// Writes the state to `path` (through a temporary file, so that an interrupt never leaves
    /// half a file).
    pub fn save(&self, path: &Path) -> Result<(), SpsaError> {
        let err = |e: std::io::Error| SpsaError::State {
            path: path.display().to_string(),
            reason: e.to_string(),
        };
        let text = serde_json::to_string_pretty(self).expect("a state serialises");
        let mut tmp = path.as_os_str().to_owned();
        tmp.push(".tmp");
        let tmp = PathBuf::from(tmp);
        std::fs::write(&tmp, text).map_err(err)?;
        std::fs::rename(&tmp, path).map_err(err)
    }

    /// Checks that a loaded state belongs to this run: the same parameters, in order.
    pub fn check(&self, params: &[SpsaParam], path: &Path) -> Result<(), SpsaError> {
        let names: Vec<&str> = params.iter().map(|p| p.name.as_str()).collect();
        if self.names != names || self.theta.len() != names.len() {
            return Err(SpsaError::State {
                path: path.display().to_string(),
                reason: format!(
                    "it tunes {} but this run asks for {}; give the same --param list or \
                     another --state file",
                    self.names.join(", "),
                    names.join(", ")
                ),
            });
        }
        Ok(())
    }

    /// The `option.NAME=VALUE` tokens of the current values, ready for `damast match`.
    pub fn options(&self, params: &[SpsaParam]) -> String {
        params
            .iter()
            .zip(&self.theta)
            .map(|(p, &t)| format!("option.{}={}", p.name, engine_value(p, t)))
            .collect::<Vec<_>>()
            .join(" ")
    }
}

impl fmt::Display for State {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}:", self.done, self.iterations)?;
        for (n, t) in self.names.iter().zip(&self.theta) {
            write!(f, " {n}={t:.2}")?;
        }
        write!(f, "  (+{} ={} -{}", self.wins, self.draws, self.losses)?;
        if self.faults > 0 {
            write!(f, ", {} faults", self.faults)?;
        }
        write!(f, ")")
    }
}

/// A checked tuning run.
#[derive(Clone, Debug)]
pub struct SpsaConfig {
    /// The engine (twice, `plus` and `minus`), the limits, openings and adjudication.
    pub matches: MatchConfig,
    /// The parameters tuned.
    pub params: Vec<SpsaParam>,
    /// Iterations (game pairs) of the whole run.
    pub iterations: usize,
    /// Seed of the perturbations and of the opening order.
    pub seed: u64,
    /// The state file.
    pub state: PathBuf,
}

impl SpsaConfig {
    /// Checks a run: `engine` is one `--engine`'s tokens (as `damast match` takes them, without
    /// a name), `options` the match options (limits, openings, adjudication, concurrency).
    pub fn new(
        engine: &[String],
        options: MatchOptions,
        params: Vec<SpsaParam>,
        iterations: usize,
        seed: u64,
        state: PathBuf,
    ) -> Result<SpsaConfig, SpsaError> {
        if params.is_empty() {
            return Err(SpsaError::Params("give at least one --param".into()));
        }
        for (i, p) in params.iter().enumerate() {
            if params[..i].iter().any(|q| q.name == p.name) {
                return Err(SpsaError::Params(format!(
                    "--param {} is given twice",
                    p.name
                )));
            }
        }
        if iterations == 0 {
            return Err(SpsaError::Params("--iterations must be at least 1".into()));
        }
        let with_name = |name: &str| {
            let mut t = vec![format!("name={name}")];
            t.extend(engine.iter().filter(|t| !t.starts_with("name=")).cloned());
            t
        };
        let matches = options.into_config(&[with_name("plus"), with_name("minus")])?;
        Ok(SpsaConfig {
            matches,
            params,
            iterations,
            seed,
            state,
        })
    }
}

/// Runs (or resumes) the tuning described by `config`: a line of θ every `report` pairs and
/// the final values to `out`, a progress bar on standard error. Returns the final state.
pub fn run(config: &SpsaConfig, report: usize, out: &mut dyn Write) -> Result<State, SpsaError> {
    with_variant!(config.matches.variant, V => run_variant::<V>(config, report, out))
}

fn run_variant<V: Variant>(
    config: &SpsaConfig,
    report: usize,
    out: &mut dyn Write,
) -> Result<State, SpsaError> {
    let params = &config.params;
    let state = match State::load(&config.state)? {
        Some(s) => {
            s.check(params, &config.state)?;
            let _ = writeln!(out, "Resuming {}", s);
            s
        }
        None => State::new(params, config.iterations, config.seed),
    };
    let matches = &config.matches;
    let mut openings: Vec<Opening<V>> = matches.openings.load().map_err(MatchError::from)?;
    openings::shuffle(&mut openings, state.seed);
    let base = tournament::checked_params(matches, 0, &mut |w| eprintln!("damast: warning: {w}"))?;
    let _ = writeln!(
        out,
        "SPSA: {} parameters, {} iterations (game pairs), {} openings, {}, concurrency {}",
        params.len(),
        state.iterations,
        openings.len(),
        matches.limits_of(0),
        matches.concurrency
    );
    let bar =
        ProgressBar::with_draw_target(Some(state.iterations as u64), ProgressDrawTarget::stderr());
    bar.set_style(
        ProgressStyle::with_template("{elapsed_precise} [{bar:30}] {pos}/{len} {msg}")
            .expect("a valid template")
            .progress_chars("=> "),
    );
    bar.set_position(state.done as u64);
    bar.enable_steady_tick(Duration::from_millis(250));
    let total = state.iterations;
    let next = AtomicUsize::new(state.done + 1);
    let shared = Mutex::new(state);
    let stop = AtomicBool::new(false);
    let (tx, rx) = crossbeam_channel::unbounded::<(usize, PairResult)>();
    let mut error = None;
    std::thread::scope(|scope| {
        for _ in 0..matches.concurrency {
            let tx = tx.clone();
            let (next, shared, stop, base, openings) = (&next, &shared, &stop, &base, &openings);
            scope.spawn(move || {
                while !stop.load(Ordering::Relaxed) {
                    let k = next.fetch_add(1, Ordering::Relaxed);
                    if k > total {
                        return;
                    }
                    let (plus, minus) = shared.lock().expect("not poisoned").points(params, k);
                    let with = |values: &[i64]| {
                        let mut p = base.clone();
                        p.extend(
                            params
                                .iter()
                                .zip(values)
                                .map(|(q, v)| (q.name.clone(), v.to_string())),
                        );
                        p
                    };
                    let opening = &openings[(k - 1) % openings.len()];
                    let pair = play_pair(matches, opening, [&with(&plus), &with(&minus)]);
                    if tx.send((k, pair)).is_err() {
                        return;
                    }
                }
            });
        }
        drop(tx);
        for (k, pair) in rx.iter() {
            let mut state = shared.lock().expect("not poisoned");
            state.record(params, k, &pair);
            if let Err(e) = state.save(&config.state) {
                error = Some(e);
                stop.store(true, Ordering::Relaxed);
            }
            bar.set_position(state.done as u64);
            bar.set_message(format!(
                "+{} ={} -{}",
                state.wins, state.draws, state.losses
            ));
            if report > 0 && state.done.is_multiple_of(report) {
                let line = state.to_string();
                bar.suspend(|| {
                    let _ = writeln!(out, "{line}");
                    let _ = out.flush();
                });
            }
        }
    });
    bar.finish_and_clear();
    if let Some(e) = error {
        return Err(e);
    }
    let state = shared.into_inner().expect("not poisoned");
    let _ = writeln!(out, "Finished {state}");
    let _ = writeln!(out, "Tuned: {}", state.options(params));
    Ok(state)
}

/// The games of one pair, from the side of the `θ + cΔ` engine.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct PairResult {
    /// Games won.
    pub wins: u64,
    /// Games drawn.
    pub draws: u64,
    /// Games lost.
    pub losses: u64,
    /// Games lost by either engine's fault (time, crash, illegal move).
    pub faults: u64,
}

impl PairResult {
    /// Wins minus losses.
    pub fn result(&self) -> f64 {
        self.wins as f64 - self.losses as f64
    }
}

/// Plays `opening` twice, `plus` (engine 0 of `matches`, set to `params[0]`) with white, then
/// with black, against `minus` (engine 1, `params[1]`). An engine that fails to start loses.
fn play_pair<V: Variant>(
    matches: &MatchConfig,
    opening: &Opening<V>,
    params: [&[(String, String)]; 2],
) -> PairResult {
    let mut r = PairResult::default();
    let mut engines = [
        tournament::start(matches, 0, params[0]),
        tournament::start(matches, 1, params[1]),
    ];
    for plus_colour in [Color::White, Color::Black] {
        let (white, black) = match plus_colour {
            Color::White => (0, 1),
            Color::Black => (1, 0),
        };
        // the engine (0 for θ + cΔ, 1 for θ − cΔ) playing `colour` in this game
        let engine_of = |colour: Color| if colour == plus_colour { 0 } else { 1 };
        // the engine that lost this game by a fault, if any
        let mut faulty = None;
        let winner = match &mut engines {
            [Ok(a), Ok(b)] => {
                let settings = GameSettings {
                    ponder: [false, false],
                    ..matches.game_settings(white, black)
                };
                let pair = if white == 0 { [a, b] } else { [b, a] };
                let record = game_runner::play(opening, pair, &settings);
                faulty = record.faulty().map(engine_of);
                record.winner().map(engine_of)
            }
            [Err(_), Ok(_)] => Some(1),
            [Ok(_), Err(_)] => Some(0),
            [Err(_), Err(_)] => None,
        };
        r.faults += faulty.is_some() as u64;
        match winner {
            Some(0) => r.wins += 1,
            Some(_) => r.losses += 1,
            None => r.draws += 1,
        }
        if plus_colour == Color::Black {
            break;
        }
        // as in the match runner, an engine that failed (its process died, or it lost by a
        // fault while alive, when a late answer could reach the next game) is not trusted
        // for the second game: it gets a new process
        for (i, e) in engines.iter_mut().enumerate() {
            let failed = faulty == Some(i) || e.as_ref().is_ok_and(|p| !p.is_alive());
            if e.is_ok() && failed {
                *e = tournament::start(matches, i, params[i]);
            }
        }
    }
    for e in engines.iter_mut().flatten() {
        e.quit();
    }
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    fn param(text: &str) -> SpsaParam {
        text.parse().expect("a valid --param")
    }

    #[test]
    fn params_parse_and_bad_ones_say_why() {
        let p = param("search-lmr-divisor=200,100,400,20");
        assert_eq!(
            (p.name.as_str(), p.start, p.min, p.max, p.c_end, p.r_end),
            (
                "search-lmr-divisor",
                200.0,
                100.0,
                400.0,
                20.0,
                DEFAULT_R_END
            )
        );
        assert_eq!(param("x=1,0,10,2,0.05").r_end, 0.05);
        for (text, why) in [
            ("x", "no '='"),
            ("=1,0,10,2", "name"),
            ("x=1,0,10", "four or five"),
            ("x=1,0,ten,2", "not a number"),
            ("x=1,10,0,2", "MIN must be below MAX"),
            ("x=11,0,10,2", "START"),
            ("x=1,0,10,6", "C_END"),
            ("x=1,0,10,0", "C_END"),
            ("x=1,0,10,2,0", "R_END"),
            ("x=1,0,10,2,nan", "not a number"),
        ] {
            let e = text.parse::<SpsaParam>().unwrap_err().to_string();
            assert!(e.contains(why), "{text}: {e}");
        }
    }

    #[test]
    fn gains_reach_the_end_values_at_the_last_iteration() {
        let p = param("x=50,0,100,4,0.01");
        let g = Gains::new(&p, 1000);
        assert!((g.c_k(1000) - 4.0).abs() < 1e-9);
        let r_end = g.a_k(1000) / (g.c_k(1000) * g.c_k(1000));
        assert!((r_end - 0.01).abs() < 1e-12);
        // both fall, the step faster than the perturbation
        assert!(g.c_k(1) > g.c_k(10) && g.c_k(10) > g.c_k(1000));
        assert!(g.a_k(1) / g.a_k(1000) > g.c_k(1) / g.c_k(1000));
    }

    #[test]
    fn perturbations_are_signs_fixed_by_the_seed() {
        let a = perturbation(7, 3, 64);
        assert_eq!(a, perturbation(7, 3, 64));
        assert_ne!(a, perturbation(7, 4, 64));
        assert!(a.iter().all(|&d| d == 1.0 || d == -1.0));
        let plus = a.iter().filter(|&&d| d > 0.0).count();
        assert!((16..=48).contains(&plus), "{plus} of 64 positive");
    }

    #[test]
    fn points_straddle_theta_within_bounds() {
        let params = [param("a=0,0,100,10"), param("b=50,0,100,10")];
        let s = State::new(&params, 100, 1);
        let (plus, minus) = s.points(&params, 1);
        for i in 0..2 {
            assert!((0..=100).contains(&plus[i]) && (0..=100).contains(&minus[i]));
        }
        // b is away from its bounds: the two points are symmetric about 50
        assert_eq!(plus[1] + minus[1], 100);
        assert!((plus[1] - minus[1]).abs() >= 20);
    }

    #[test]
    fn updates_follow_the_result_and_the_sign() {
        let params = [param("a=50,0,100,5,0.01"), param("b=50,0,100,5,0.01")];
        let mut s = State::new(&params, 100, 3);
        let d = perturbation(3, 1, 2);
        s.update(&params, 1, 2.0);
        for (t, d) in s.theta.iter().zip(&d) {
            assert_eq!((t - 50.0).signum(), *d, "moves toward the winner");
        }
        let mut t = State::new(&params, 100, 3);
        t.update(&params, 1, 0.0);
        assert_eq!(t.theta, vec![50.0, 50.0], "a level pair moves nothing");
        assert_eq!(t.done, 1);
    }

    /// SPSA over a simulated match finds a known optimum: the `θ + cΔ` engine wins a game with
    /// a probability that grows as it is nearer (55, 20) than the other engine is.
    #[test]
    fn finds_the_optimum_of_a_simulated_match() {
        let params = [param("a=30,0,100,4,0.02"), param("b=60,0,100,4,0.02")];
        let optimum = [55.0, 20.0];
        let mut s = State::new(&params, 3000, 11);
        let mut rng = Rng::new(5);
        let loss = |v: &[i64]| -> f64 {
            v.iter()
                .zip(optimum)
                .map(|(&x, o)| (x as f64 - o).powi(2))
                .sum()
        };
        for k in 1..=3000 {
            let (plus, minus) = s.points(&params, k);
            // expected score of plus: logistic in the difference of the squared distances
            let p = 1.0 / (1.0 + (-(loss(&minus) - loss(&plus)) / 400.0).exp());
            let mut result = 0.0;
            for _ in 0..2 {
                let u = (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
                result += if u < p { 1.0 } else { -1.0 };
            }
            s.update(&params, k, result);
        }
        for (t, o) in s.theta.iter().zip(optimum) {
            assert!(
                (t - o).abs() < 8.0,
                "{:?} should be near {optimum:?}",
                s.theta
            );
        }
    }

    #[test]
    fn state_saves_loads_and_refuses_other_params() {
        let dir = std::env::temp_dir().join(format!("damast-spsa-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("state.json");
        let params = [param("a=50,0,100,5")];
        assert_eq!(State::load(&path).unwrap(), None);
        let mut s = State::new(&params, 10, 2);
        s.update(&params, 1, 1.0);
        s.save(&path).unwrap();
        let back = State::load(&path).unwrap().unwrap();
        assert_eq!(back, s);
        back.check(&params, &path).unwrap();
        let other = [param("b=50,0,100,5")];
        assert!(back
            .check(&other, &path)
            .unwrap_err()
            .to_string()
            .contains("tunes a"));
        std::fs::write(&path, "{ not json").unwrap();
        assert!(State::load(&path)
            .unwrap_err()
            .to_string()
            .contains("not a tuning state"));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
