//! The Hub protocol (stdin/stdout), as spoken by Scan, the Hub GUI and pydraughts.

use std::process::ExitCode;

/// Runs the Hub protocol on standard input and output until `quit` or end of input.
pub fn run() -> ExitCode {
    eprintln!("damast: the hub protocol is not implemented yet");
    ExitCode::from(2)
}
