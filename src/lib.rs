//! Damast: a draughts engine for international draughts (10x10, FMJD rules) and 8x8 variants.
//!
//! Layers, each depending only on those below it:
//! - [`core`]: board, moves, rules, notation and formats (no I/O, no global mutable state);
//! - [`engine`]: evaluation, search, transposition table, time and levels;
//! - [`protocol`]: Hub and DXP, on top of the engine API;
//! - [`tools`]: perft, bench and other utilities built on the engine;
//! - [`serve`]: the browser board and its JSON API.

#![warn(missing_docs)]

pub mod core;
pub mod engine;
pub mod protocol;
pub mod serve;
pub mod tools;
