//! Tools built on the engine: analysis, bench, perft, the match runner and weight tuning.

pub mod analyze;
pub mod bench;
pub mod gamefile;
pub mod r#match;
pub mod perft;
pub mod selfplay;
pub mod train;
pub mod tune;
