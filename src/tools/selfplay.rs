//! Self-play data for training: games between two copies of the current engine at a fixed node
//! budget per move, from the shipped opening suite plus random plies, written to a game file
//! ([`gamefile`](crate::tools::gamefile)) with the search score of every move.
//!
//! Games are played in parallel in batches and written in order, so a file holds games
//! `0..n` with nothing missing; an interrupted run resumes after the last complete game. Game
//! `i` depends only on the seed and `i` (a fresh engine with one thread per game), so the file
//! is the same for the same settings whatever the number of threads.

use std::fs::OpenOptions;
use std::io::{Seek, SeekFrom, Write};
use std::path::Path;

use rayon::prelude::*;

use crate::core::game::{Game, GameResult};
use crate::core::movegen;
use crate::core::position::Position;
use crate::core::variant::Variant;
use crate::engine::rng::Rng;
use crate::engine::search::MATE_BOUND;
use crate::engine::time::Limits;
use crate::engine::{Engine, Mode, Options};
use crate::tools::gamefile::{self, GameFileError, GameRecord, Header, Outcome};
use crate::tools::r#match::openings;

/// How to play the self-play games.
#[derive(Clone, Debug)]
pub struct SelfplayConfig {
    /// Games the file should hold when done.
    pub games: usize,
    /// Nodes per move.
    pub nodes: u64,
    /// Most random plies after the opening (each game draws 0 to this many).
    pub random_plies: u16,
    /// Seed: game `i` uses `seed` and `i`.
    pub seed: u64,
    /// Threads (games played at once).
    pub threads: usize,
    /// A game is adjudicated as won once both sides' searches agree that one side is ahead by
    /// at least this much (hundredths of a man) for two moves in a row.
    pub adjudicate: i32,
    /// A game still going after this many plies is scored a draw.
    pub max_plies: usize,
}

impl Default for SelfplayConfig {
    fn default() -> Self {
        SelfplayConfig {
            games: 1000,
            nodes: 2000,
            random_plies: 6,
            seed: 1,
            threads: 1,
            adjudicate: 600,
            max_plies: 300,
        }
    }
}

/// Progress reported after each batch.
#[derive(Clone, Copy, Debug)]
pub struct Progress {
    /// Games in the file.
    pub games: usize,
    /// Positions (searched moves) in the file.
    pub positions: u64,
}

/// Plays game number `index` and returns its record.
pub fn play_game<V: Variant>(
    cfg: &SelfplayConfig,
    openings: &[Position<V>],
    index: usize,
) -> GameRecord<V> {
    let mut rng = Rng::new(
        cfg.seed
            .wrapping_mul(0x9E37_79B9_7F4A_7C15)
            .wrapping_add(index as u64 + 1),
    );
    let start = if openings.is_empty() {
        Position::start()
    } else {
        openings[rng.below(openings.len())]
    };
    let mut engine = Engine::new(Options {
        tt_mib: 4,
        ..Options::default()
    });
    let mut game = Game::<V>::new(start);
    let mut moves = Vec::new();
    let random = rng.below(cfg.random_plies as usize + 1);
    let limits = Limits::nodes(cfg.nodes);
    // the last search's score, for the side that searched
    let mut last: Option<i32> = None;
    let mut ahead_run = 0;
    let outcome = loop {
        match game.result() {
            GameResult::Win(c) => break Outcome::win(c),
            GameResult::Draw(_) => break Outcome::Draw,
            GameResult::Ongoing => {}
        }
        if moves.len() >= cfg.max_plies {
            break Outcome::Draw;
        }
        let side = game.position().side();
        if moves.len() < random {
            let legal = movegen::legal_moves(game.position());
            let m = legal[rng.below(legal.len())];
            game.play(m).expect("a generated move is legal");
            moves.push((m, None));
            continue;
        }
        let out = engine.search_to(&game, &limits, Mode::Analyze);
        let Some(m) = out.best else {
            break Outcome::win(side.opponent());
        };
        let score = out.score.clamp(-32000, 32000);
        moves.push((m, Some(score as i16)));
        // adjudication: this side and the other agree, twice
        if let Some(prev) = last {
            let agree_ahead = score >= cfg.adjudicate && prev <= -cfg.adjudicate;
            let agree_behind = score <= -cfg.adjudicate && prev >= cfg.adjudicate;
            if agree_ahead || agree_behind || score.abs() >= MATE_BOUND {
                ahead_run += 1;
            } else {
                ahead_run = 0;
            }
            if ahead_run >= 2 {
                game.play(m).expect("the engine's move is legal");
                break if score > 0 {
                    Outcome::win(side)
                } else {
                    Outcome::win(side.opponent())
                };
            }
        }
        last = Some(score);
        game.play(m).expect("the engine's move is legal");
    };
    GameRecord {
        start,
        moves,
        outcome,
    }
}

/// What went wrong while playing self-play games.
#[derive(Debug, thiserror::Error)]
pub enum SelfplayError {
    /// The existing file cannot be resumed.
    #[error("{path}: {source}")]
    File {
        /// The file.
        path: String,
        /// Why.
        source: GameFileError,
    },
    /// The existing file was made with other settings.
    #[error("{path} was made with other settings ({found}); use them, or another --out")]
    Settings {
        /// The file.
        path: String,
        /// The settings in the file.
        found: String,
    },
    /// Reading or writing failed.
    #[error("{0}")]
    Io(#[from] std::io::Error),
}

/// Plays games into `path` until it holds `cfg.games`, resuming after the last complete game of
/// an existing file. `on_batch` is told the progress after every batch written.
pub fn run<V: Variant>(
    cfg: &SelfplayConfig,
    path: &Path,
    on_batch: &mut dyn FnMut(Progress),
) -> Result<Progress, SelfplayError> {
    let header = Header {
        game_type: V::GAME_TYPE as u16,
        seed: cfg.seed,
        nodes: cfg.nodes,
        random_plies: cfg.random_plies,
    };
    let file_err = |source| SelfplayError::File {
        path: path.display().to_string(),
        source,
    };
    let mut progress = Progress {
        games: 0,
        positions: 0,
    };
    let mut file = OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(path)?;
    let existing = std::fs::read(path)?;
    if existing.is_empty() {
        gamefile::write_header(&mut file, &header)?;
    } else {
        let (found, mut games) = gamefile::games::<V>(&existing).map_err(file_err)?;
        if found != header {
            return Err(SelfplayError::Settings {
                path: path.display().to_string(),
                found: format!(
                    "seed {}, nodes {}, random plies {}",
                    found.seed, found.nodes, found.random_plies
                ),
            });
        }
        // keep every complete game; a record cut by an interrupt is dropped
        for g in games.by_ref() {
            match g {
                Ok(g) => {
                    progress.positions += g.moves.iter().filter(|m| m.1.is_some()).count() as u64
                }
                Err(GameFileError::Game { .. }) => break,
                Err(e) => return Err(file_err(e)),
            }
        }
        progress.games = games.complete();
        let end = games.offset();
        file.set_len(end as u64)?;
        file.seek(SeekFrom::Start(end as u64))?;
    }
    on_batch(progress);
    let openings: Vec<Position<V>> = openings::default_suite::<V>()
        .iter()
        .map(|o| *o.game().position())
        .collect();
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(cfg.threads.max(1))
        .build()
        .map_err(|e| std::io::Error::other(e.to_string()))?;
    let batch = (cfg.threads.max(1) * 4).max(4);
    while progress.games < cfg.games {
        let range = progress.games..(progress.games + batch).min(cfg.games);
        let records: Vec<_> = pool.install(|| {
            range
                .clone()
                .into_par_iter()
                .map(|i| play_game::<V>(cfg, &openings, i))
                .collect()
        });
        let mut buf = Vec::new();
        for (i, record) in range.zip(&records) {
            gamefile::encode_game(&mut buf, i as u32, record);
            progress.positions += record.moves.iter().filter(|m| m.1.is_some()).count() as u64;
        }
        file.write_all(&buf)?;
        file.flush()?;
        progress.games += records.len();
        on_batch(progress);
    }
    Ok(progress)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::variant::International;

    fn tiny() -> SelfplayConfig {
        SelfplayConfig {
            games: 6,
            nodes: 300,
            random_plies: 4,
            seed: 3,
            threads: 2,
            adjudicate: 400,
            max_plies: 120,
        }
    }

    #[test]
    fn games_are_deterministic_and_resume_after_an_interrupt() {
        let dir = std::env::temp_dir().join(format!("damast-selfplay-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let a = dir.join("a.games");
        let b = dir.join("b.games");
        let _ = std::fs::remove_file(&a);
        let _ = std::fs::remove_file(&b);
        let cfg = tiny();
        let done = run::<International>(&cfg, &a, &mut |_| {}).unwrap();
        assert_eq!(done.games, 6);
        assert!(done.positions > 0);
        // the same games in two steps, with a cut record in between, on one thread
        let first = SelfplayConfig {
            games: 3,
            threads: 1,
            ..cfg.clone()
        };
        run::<International>(&first, &b, &mut |_| {}).unwrap();
        let mut bytes = std::fs::read(&b).unwrap();
        bytes.extend_from_slice(&[3, 0, 0, 0, 1, 40]); // a record cut short
        std::fs::write(&b, &bytes).unwrap();
        let resumed = run::<International>(
            &SelfplayConfig {
                threads: 1,
                ..cfg.clone()
            },
            &b,
            &mut |_| {},
        )
        .unwrap();
        assert_eq!(resumed.games, 6);
        assert_eq!(std::fs::read(&a).unwrap(), std::fs::read(&b).unwrap());
        // other settings are refused, and the file is kept
        let other = SelfplayConfig {
            nodes: 301,
            ..cfg.clone()
        };
        let e = run::<International>(&other, &a, &mut |_| {}).unwrap_err();
        assert!(e.to_string().contains("other settings"), "{e}");
        let bytes = std::fs::read(&a).unwrap();
        let (_, games) = gamefile::games::<International>(&bytes).unwrap();
        let all: Vec<_> = games.map(|g| g.unwrap()).collect();
        assert_eq!(all.len(), 6);
        // every game is played by the rules to its end or adjudicated, and varied
        assert!(all
            .iter()
            .any(|g| g.start != all[0].start || g.moves != all[0].moves));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
