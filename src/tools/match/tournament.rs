//! Running a whole match: checking that every engine starts, scheduling the games over worker
//! threads (each keeps its own engine processes and restarts one that failed), and collecting
//! results in the order games finish: PDN, a line per game, the progress bar and the SPRT.

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use crossbeam_channel::{unbounded, Receiver, Sender};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::core::{Color, Variant, VariantKind};
use crate::with_variant;

use super::config::MatchConfig;
use super::engine_process::{EngineError, EngineProcess};
use super::game_runner::{self, Fault, GameRecord};
use super::openings::{self, Opening, OpeningError};
use super::pdn_out::{self, GameTags};
use super::results::{sprt_line, Standings};
use super::schedule::{schedule, Job};
use super::stats::SprtDecision;

/// Why a match cannot run.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum MatchError {
    /// The openings cannot be used.
    #[error(transparent)]
    Openings(#[from] OpeningError),
    /// An engine does not start (checked once before the first game).
    #[error("engine '{name}' does not start: {error}")]
    EngineStart {
        /// The engine's name.
        name: String,
        /// What went wrong.
        error: EngineError,
    },
    /// An engine declares a variant parameter without the variant played.
    #[error(
        "engine '{name}' does not play {variant}: its variant parameter allows only '{values}'"
    )]
    Variant {
        /// The engine's name.
        name: String,
        /// The variant of the match.
        variant: VariantKind,
        /// The values it declares.
        values: String,
    },
    /// The PDN file cannot be written.
    #[error("cannot write PDN file {path}: {reason}")]
    Pdn {
        /// The file.
        path: String,
        /// The operating system's reason.
        reason: String,
    },
}

/// What a finished match reports.
#[derive(Clone, Debug)]
pub struct Summary {
    /// The results.
    pub standings: Standings,
    /// The SPRT's decision, when one ran.
    pub sprt: Option<SprtDecision>,
    /// Games scheduled.
    pub scheduled: usize,
    /// Seconds the match took.
    pub seconds: f64,
}

/// The `set-param` list for engine `spec`: the variant (when the engine declares it and the
/// command line does not set it), then the command line's options. Warnings go to `warn`.
fn init_params(
    config: &MatchConfig,
    i: usize,
    engine: &EngineProcess,
    warn: &mut dyn FnMut(String),
) -> Result<Vec<(String, String)>, MatchError> {
    let spec = &config.engines[i];
    let mut params = Vec::new();
    let user_sets_variant = spec.options.iter().any(|(n, _)| n == "variant");
    match engine.param("variant") {
        Some(p) if !user_sets_variant => {
            // the Hub's name first, then every other name of the variant
            let mut names = vec![config.variant.hub_name()];
            names.extend(config.variant.names());
            let value = if p.values.is_empty() {
                Some(names[0].to_string())
            } else {
                names
                    .iter()
                    .find_map(|n| p.values.iter().find(|v| v.eq_ignore_ascii_case(n)).cloned())
            };
            match value {
                Some(v) => params.push(("variant".to_string(), v)),
                None => {
                    return Err(MatchError::Variant {
                        name: spec.name.clone(),
                        variant: config.variant,
                        values: p.values.join(" "),
                    })
                }
            }
        }
        None if config.variant != VariantKind::International && !user_sets_variant => {
            warn(format!(
                "engine '{}' declares no variant parameter: it may not play {}",
                spec.name, config.variant
            ))
        }
        _ => {}
    }
    for (name, value) in &spec.options {
        if engine.param(name).is_none() {
            warn(format!(
                "engine '{}' does not declare parameter '{name}'; sending it anyway",
                spec.name
            ));
        }
        params.push((name.clone(), value.clone()));
    }
    Ok(params)
}

/// Starts engine `i` of `config` once, to check that it runs, and returns the `set-param` list
/// it is to be initialised with (see [`init_params`]). Warnings go to `warn`.
pub fn checked_params(
    config: &MatchConfig,
    i: usize,
    warn: &mut dyn FnMut(String),
) -> Result<Vec<(String, String)>, MatchError> {
    let spec = &config.engines[i];
    let fail = |error| MatchError::EngineStart {
        name: spec.name.clone(),
        error,
    };
    let mut e = EngineProcess::launch(spec, config.start_timeout).map_err(fail)?;
    let p = init_params(config, i, &e, warn)?;
    e.init(&p, config.start_timeout).map_err(fail)?;
    e.quit();
    Ok(p)
}

/// Starts engine `i` of `config` and initialises it with `params`.
pub fn start(
    config: &MatchConfig,
    i: usize,
    params: &[(String, String)],
) -> Result<EngineProcess, EngineError> {
    let mut e = EngineProcess::launch(&config.engines[i], config.start_timeout)?;
    e.init(params, config.start_timeout)?;
    Ok(e)
}

/// A finished game.
struct Finished<V: Variant> {
    job: Job,
    record: GameRecord<V>,
}

/// Plays jobs until there are none left or the match is stopped.
fn worker<V: Variant>(
    config: &MatchConfig,
    params: &[Vec<(String, String)>],
    openings: &[Opening<V>],
    jobs: &Receiver<Job>,
    results: &Sender<Finished<V>>,
    stop: &AtomicBool,
) {
    let mut engines: Vec<Option<EngineProcess>> = (0..config.engines.len()).map(|_| None).collect();
    while !stop.load(Ordering::Relaxed) {
        let Ok(job) = jobs.recv() else { break };
        let opening = &openings[job.opening];
        let mut failed = None;
        for (side, i) in [(Color::White, job.white), (Color::Black, job.black)] {
            if engines[i].as_ref().is_some_and(|e| !e.is_alive()) {
                engines[i] = None;
            }
            if engines[i].is_none() {
                match start(config, i, &params[i]) {
                    Ok(e) => engines[i] = Some(e),
                    Err(e) => {
                        failed = Some((side, Fault::Start(e.to_string())));
                        break;
                    }
                }
            }
        }
        let record = match failed {
            Some((side, fault)) => game_runner::forfeit_before_start(opening, side, fault),
            None => {
                let settings = config.game_settings(job.white, job.black);
                let (w, b) = two_mut(&mut engines, job.white, job.black);
                game_runner::play(opening, [w, b], &settings)
            }
        };
        // an engine that failed is not trusted again: the next game starts a new process
        match record.faulty() {
            Some(Color::White) => engines[job.white] = None,
            Some(Color::Black) => engines[job.black] = None,
            None => {}
        }
        if results.send(Finished { job, record }).is_err() {
            break;
        }
    }
}

/// Two distinct started engines of the list, mutably.
fn two_mut(
    engines: &mut [Option<EngineProcess>],
    a: usize,
    b: usize,
) -> (&mut EngineProcess, &mut EngineProcess) {
    assert_ne!(a, b, "an engine does not play itself");
    let (lo, hi) = (a.min(b), a.max(b));
    let (left, right) = engines.split_at_mut(hi);
    let (x, y) = (
        left[lo].as_mut().expect("engine started"),
        right[0].as_mut().expect("engine started"),
    );
    if a < b {
        (x, y)
    } else {
        (y, x)
    }
}

/// Runs the match described by `config`, writing a line per game and the final report to `out`
/// and warnings to standard error.
pub fn run(config: &MatchConfig, out: &mut dyn Write) -> Result<Summary, MatchError> {
    with_variant!(config.variant, V => run_variant::<V>(config, out))
}

fn run_variant<V: Variant>(
    config: &MatchConfig,
    out: &mut dyn Write,
) -> Result<Summary, MatchError> {
    let began = Instant::now();
    let mut openings: Vec<Opening<V>> = config.openings.load()?;
    if let Some(seed) = config.shuffle {
        openings::shuffle(&mut openings, seed);
    }
    // every engine must start once before the match begins
    let params = (0..config.engines.len())
        .map(|i| checked_params(config, i, &mut |w| eprintln!("damast: warning: {w}")))
        .collect::<Result<Vec<_>, _>>()?;
    let mut pdn = match &config.pdn {
        Some(path) => Some(
            OpenOptions::new()
                .create(true)
                .append(true)
                .open(path)
                .map_err(|e| MatchError::Pdn {
                    path: path.display().to_string(),
                    reason: e.to_string(),
                })?,
        ),
        None => None,
    };
    let games = config.games.unwrap_or(2 * openings.len());
    let jobs = schedule(config.engines.len(), openings.len(), games);
    let names: Vec<String> = config.engines.iter().map(|e| e.name.clone()).collect();
    let mut standings = Standings::new(names.clone());
    let date = pdn_out::today();
    let _ = writeln!(
        out,
        "Match: {} engines, {} games, {} openings, {}, concurrency {}",
        names.len(),
        jobs.len(),
        openings.len(),
        config.variant,
        config.concurrency
    );
    for (i, n) in names.iter().enumerate() {
        let _ = writeln!(out, "  {n}: {}", config.limits_of(i));
    }
    let bar = ProgressBar::with_draw_target(Some(jobs.len() as u64), ProgressDrawTarget::stderr());
    bar.set_style(
        ProgressStyle::with_template("{elapsed_precise} [{bar:30}] {pos}/{len} {msg}")
            .expect("a valid template")
            .progress_chars("=> "),
    );
    bar.enable_steady_tick(Duration::from_millis(250));

    let (job_tx, job_rx) = unbounded();
    for j in &jobs {
        let _ = job_tx.send(*j);
    }
    drop(job_tx);
    let (res_tx, res_rx) = unbounded::<Finished<V>>();
    let stop = AtomicBool::new(false);
    let mut decision = None;
    let mut pdn_error = None;
    std::thread::scope(|scope| {
        for _ in 0..config.concurrency.min(jobs.len().max(1)) {
            let (job_rx, res_tx, stop, params, openings) =
                (&job_rx, res_tx.clone(), &stop, &params, &openings);
            scope.spawn(move || worker(config, params, openings, job_rx, &res_tx, stop));
        }
        drop(res_tx);
        for Finished { job, record } in res_rx.iter() {
            standings.record(job.white, job.black, record.winner());
            standings.record_time(job.white, &record.time[0]);
            standings.record_time(job.black, &record.time[1]);
            let (white, black) = (&names[job.white], &names[job.black]);
            if let (Some(file), None) = (pdn.as_mut(), &pdn_error) {
                let tags = GameTags {
                    event: &config.event,
                    date: &date,
                    round: job.number,
                    white,
                    black,
                };
                if let Err(e) = write_game(file, &pdn_out::game_text(&record, &tags)) {
                    pdn_error = Some(e);
                    stop.store(true, Ordering::Relaxed);
                }
            }
            let line = format!(
                "Game {} ({white} vs {black}, opening {}): {} {{{}}}  [{}]",
                job.number,
                job.opening + 1,
                record.result_token(),
                record.reason(),
                standings.short()
            );
            bar.suspend(|| {
                let _ = writeln!(out, "{line}");
                let _ = out.flush();
            });
            bar.set_message(standings.short());
            bar.inc(1);
            if let (Some(sprt), None) = (&config.sprt, decision) {
                let d = sprt.decide(sprt.llr(&standings.pair(0, 1)));
                if d != SprtDecision::Continue {
                    decision = Some(d);
                    stop.store(true, Ordering::Relaxed);
                    bar.suspend(|| {
                        let _ = writeln!(out, "{}", sprt_line(sprt, &standings.pair(0, 1)));
                    });
                }
            }
        }
    });
    bar.finish_and_clear();
    if let (Some(e), Some(path)) = (pdn_error, &config.pdn) {
        return Err(MatchError::Pdn {
            path: path.display().to_string(),
            reason: e.to_string(),
        });
    }
    let seconds = began.elapsed().as_secs_f64();
    let _ = writeln!(
        out,
        "\nFinished: {} of {} games in {:.1} s",
        standings.games(),
        jobs.len(),
        seconds
    );
    for line in standings.report(config.sprt.as_ref()) {
        let _ = writeln!(out, "{line}");
    }
    Ok(Summary {
        sprt: config
            .sprt
            .map(|s| decision.unwrap_or_else(|| s.decide(s.llr(&standings.pair(0, 1))))),
        standings,
        scheduled: jobs.len(),
        seconds,
    })
}

fn write_game(file: &mut File, text: &str) -> std::io::Result<()> {
    file.write_all(text.as_bytes())?;
    file.flush()
}
