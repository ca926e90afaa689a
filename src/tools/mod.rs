//! Tools built on the engine: analysis, bench, perft, the match runner, self-play,
//! training, weight tuning, search-parameter tuning (SPSA) and the opening book builder.

pub mod analyze;
pub mod bench;
pub mod book_builder;
pub mod egdb_builder;
pub mod gamefile;
pub mod r#match;
pub mod perft;
pub mod selfplay;
pub mod spsa;
pub mod train;
pub mod tune;
