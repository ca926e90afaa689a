//! Damast: a draughts engine for international draughts (10x10, FMJD rules) and 8x8 variants.
//!
//! Layers, each depending only on those below it:
//! - [`core`]: board, moves, rules, notation and formats (no I/O, no global mutable state);
//! - [`tools`]: perft and other utilities built on the core.

#![warn(missing_docs)]

pub mod core;
pub mod tools;
