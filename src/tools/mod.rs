//! Tools built on the engine: analysis, bench, perft and the match runner.

pub mod analyze;
pub mod bench;
pub mod r#match;
pub mod perft;
