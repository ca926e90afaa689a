//! The rules core: board, moves, rules and formats. No I/O, no global mutable state.

pub mod bitboard;
pub mod fen;
pub mod game;
pub mod movegen;
pub mod moves;
pub mod notation;
pub mod pdn;
pub mod position;
pub mod square;
pub mod variant;
mod zobrist;

pub use bitboard::Bitboard;
pub use game::{DrawReason, Game, GameResult};
pub use moves::{Move, MoveList};
pub use position::{Piece, Position};
pub use square::Square;
pub use variant::{
    Brazilian, Color, Czech, English, Filipino, International, Italian, Platform, Pool, Russian,
    Spanish, Thai, Variant, VariantKind,
};
