//! Tools built on the engine: analysis, bench and perft.

pub mod analyze;
pub mod bench;
pub mod perft;
