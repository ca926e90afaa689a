//! The file format of a pattern net.
//!
//! All integers little-endian:
//!
//! | bytes | field |
//! |---|---|
//! | 8 | magic `DMSTPAT1` |
//! | 2 | format version (1) |
//! | 2 | PDN GameType of the variant |
//! | 2 | number of windows `w` |
//! | 2 | configurations per window (6561) |
//! | 2 | number of global terms `e` (5) |
//! | 2 | reserved (0) |
//! | 4 | logistic scale (f32) |
//! | 4·w·6561 | per window, per configuration: middle-game weight, endgame weight (i16 each) |
//! | 4·e | per global term: middle-game weight, endgame weight (i16 each) |
//! | 4 | FNV-1a (32-bit) checksum of every byte before it |

use super::{PatternEval, EXTRAS, STATES};
use crate::engine::filefmt::fnv1a;

/// The file's first bytes.
pub const MAGIC: &[u8; 8] = b"DMSTPAT1";
/// The format version.
pub const VERSION: u16 = 1;
const HEADER: usize = 24;

/// What is wrong with a net file.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum NetFileError {
    /// Not a net file.
    #[error("not a Damast pattern net (the file does not start with DMSTPAT1)")]
    BadMagic,
    /// A version this build does not read.
    #[error("net format version {0} is not supported (this build reads version {VERSION})")]
    Version(u16),
    /// The header's sizes are not those of a pattern net.
    #[error("the net has {windows} windows of {states} configurations and {extras} global terms; expected {STATES} configurations and {EXTRAS} global terms")]
    Shape {
        /// Windows.
        windows: u16,
        /// Configurations per window.
        states: u16,
        /// Global terms.
        extras: u16,
    },
    /// The file is shorter or longer than its header says.
    #[error("the net file has {found} bytes where its header announces {expected} (truncated or damaged)")]
    Length {
        /// Bytes announced.
        expected: usize,
        /// Bytes found.
        found: usize,
    },
    /// The checksum does not match.
    #[error("the net file's checksum does not match (damaged)")]
    Checksum,
}

/// The bytes of `net` in the file format.
pub fn write(net: &PatternEval) -> Vec<u8> {
    let windows = net.tables.len() / STATES;
    let mut b = Vec::with_capacity(HEADER + 4 * net.tables.len() + 4 * EXTRAS + 4);
    b.extend_from_slice(MAGIC);
    b.extend_from_slice(&VERSION.to_le_bytes());
    b.extend_from_slice(&net.game_type.to_le_bytes());
    b.extend_from_slice(&(windows as u16).to_le_bytes());
    b.extend_from_slice(&(STATES as u16).to_le_bytes());
    b.extend_from_slice(&(EXTRAS as u16).to_le_bytes());
    b.extend_from_slice(&0u16.to_le_bytes());
    b.extend_from_slice(&net.scale.to_le_bytes());
    for pair in net.tables.iter().chain(net.extras.iter()) {
        b.extend_from_slice(&pair[0].to_le_bytes());
        b.extend_from_slice(&pair[1].to_le_bytes());
    }
    let sum = fnv1a(&b);
    b.extend_from_slice(&sum.to_le_bytes());
    b
}

/// Reads a net from the bytes of a file.
pub fn read(bytes: &[u8]) -> Result<PatternEval, NetFileError> {
    if bytes.len() < 8 || &bytes[..8] != MAGIC {
        return Err(NetFileError::BadMagic);
    }
    if bytes.len() < HEADER {
        return Err(NetFileError::Length {
            expected: HEADER,
            found: bytes.len(),
        });
    }
    let u16_at = |i: usize| u16::from_le_bytes([bytes[i], bytes[i + 1]]);
    let version = u16_at(8);
    if version != VERSION {
        return Err(NetFileError::Version(version));
    }
    let (game_type, windows, states, extras) = (u16_at(10), u16_at(12), u16_at(14), u16_at(16));
    if states as usize != STATES || extras as usize != EXTRAS || windows == 0 {
        return Err(NetFileError::Shape {
            windows,
            states,
            extras,
        });
    }
    let pairs = windows as usize * STATES + EXTRAS;
    let expected = HEADER + 4 * pairs + 4;
    if bytes.len() != expected {
        return Err(NetFileError::Length {
            expected,
            found: bytes.len(),
        });
    }
    let body = &bytes[..expected - 4];
    let sum = u32::from_le_bytes(bytes[expected - 4..].try_into().unwrap());
    if fnv1a(body) != sum {
        return Err(NetFileError::Checksum);
    }
    let scale = f32::from_le_bytes(bytes[20..24].try_into().unwrap());
    let pair = |k: usize| {
        let i = HEADER + 4 * k;
        [
            i16::from_le_bytes([bytes[i], bytes[i + 1]]),
            i16::from_le_bytes([bytes[i + 2], bytes[i + 3]]),
        ]
    };
    let n = windows as usize * STATES;
    let tables = (0..n).map(pair).collect();
    let mut ex = [[0i16; 2]; EXTRAS];
    for (k, e) in ex.iter_mut().enumerate() {
        *e = pair(n + k);
    }
    Ok(PatternEval {
        game_type,
        tables,
        extras: ex,
        scale,
    })
}

/// Reads a net file from disk, with the path in the error.
pub fn load(path: &std::path::Path) -> Result<PatternEval, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
    read(&bytes).map_err(|e| format!("{}: {e}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::variant::{International, Russian};

    fn sample() -> PatternEval {
        let mut net = PatternEval::zero::<Russian>();
        for (i, t) in net.tables.iter_mut().enumerate() {
            *t = [(i % 997) as i16 - 400, -((i % 301) as i16)];
        }
        net.extras[2] = [-100, -120];
        net.scale = 123.5;
        net
    }

    #[test]
    fn a_net_round_trips() {
        let net = sample();
        let bytes = write(&net);
        assert_eq!(read(&bytes).unwrap(), net);
        let big = PatternEval::zero::<International>();
        assert_eq!(read(&write(&big)).unwrap(), big);
        assert_eq!(write(&big).len(), 24 + 4 * (28 * 6561 + 5) + 4);
    }

    #[test]
    fn bad_files_are_errors() {
        let bytes = write(&sample());
        assert_eq!(read(b"hello").unwrap_err(), NetFileError::BadMagic);
        assert_eq!(
            read(&bytes[..20]).unwrap_err(),
            NetFileError::Length {
                expected: 24,
                found: 20
            }
        );
        assert!(matches!(
            read(&bytes[..bytes.len() - 10]).unwrap_err(),
            NetFileError::Length { .. }
        ));
        let mut damaged = bytes.clone();
        damaged[5000] ^= 1;
        assert_eq!(read(&damaged).unwrap_err(), NetFileError::Checksum);
        let mut v2 = bytes.clone();
        v2[8] = 2;
        assert_eq!(read(&v2).unwrap_err(), NetFileError::Version(2));
        let mut shape = bytes;
        shape[14] = 0;
        assert!(matches!(
            read(&shape).unwrap_err(),
            NetFileError::Shape { .. }
        ));
        let e = load(std::path::Path::new("/no/such/net.pat")).unwrap_err();
        assert!(e.contains("/no/such/net.pat"), "{e}");
    }
}
