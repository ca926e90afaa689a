//! Tools built on the core: perft.

pub mod perft;
