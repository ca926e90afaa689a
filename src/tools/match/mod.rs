//! `damast match`: a match runner for Hub engines (Damast, Scan, Kingsrow's Hub build, ...).
//!
//! Two engines play a match, more a round robin, from an opening suite with each opening played
//! once with each colour. The runner keeps the board and the clocks itself: the rules decide
//! every game, optionally shortened by score adjudication, and an engine that loses on time,
//! crashes, stalls, sends garbage or plays an illegal move loses that game, is restarted, and
//! the match goes on. Results come as wins/draws/losses, score, Elo with a 95% interval and an
//! optional SPRT; every game can be written as PDN.
//!
//! Modules, one concept each:
//! - [`config`]: the command line (engine specs, adjudication, SPRT) and its checks;
//! - [`time_control`]: time controls, limits and the runner's clocks;
//! - [`engine_process`]: the Hub client over a child process;
//! - [`openings`]: opening files and the shipped suite;
//! - [`adjudication`]: draw and resign adjudication by engine scores;
//! - [`game_runner`]: one game;
//! - [`schedule`]: the order of the games;
//! - [`results`]: the tally and its report;
//! - [`stats`]: Elo, interval, LOS and SPRT arithmetic;
//! - [`pdn_out`]: games as PDN;
//! - [`tournament`]: the whole match over worker threads.

pub mod adjudication;
pub mod config;
pub mod engine_process;
pub mod game_runner;
pub mod openings;
pub mod pdn_out;
pub mod results;
pub mod schedule;
pub mod stats;
pub mod time_control;
pub mod tournament;

pub use config::{ConfigError, EngineSpec, MatchArgs, MatchConfig};
pub use tournament::{run, MatchError, Summary};
