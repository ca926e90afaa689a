//! Protocols that connect the engine to the outside world.

pub mod dxp;
pub mod hub;
pub mod lines;
