//! The `damast` command line: a thin layer over the library.

use std::io::Write;
use std::process::ExitCode;
use std::time::Instant;

use clap::{Parser, Subcommand};
use damast::core::variant::VariantKind;
use damast::core::{fen, movegen, notation, Position, Variant};
use damast::tools::perft;
use damast::with_variant;

#[derive(Parser)]
#[command(name = "damast", version, about = "Damast draughts engine")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Count the leaf positions of the move tree, one line per depth.
    Perft {
        /// Variant: international (alias normal, standard), brazilian, russian.
        #[arg(long, default_value = "international")]
        variant: VariantKind,
        /// Start position as a PDN FEN (default: the variant's initial position).
        #[arg(long)]
        fen: Option<String>,
        /// Depth to count to.
        #[arg(long)]
        depth: u32,
        /// First print the count below each root move.
        #[arg(long)]
        divide: bool,
        /// Threads to count with.
        #[arg(long, default_value_t = 1)]
        threads: usize,
    },
    /// Print every legal move of a position, one per line: `<hub form> <pdn form>`.
    Moves {
        /// Variant: international (alias normal, standard), brazilian, russian.
        #[arg(long, default_value = "international")]
        variant: VariantKind,
        /// The position as a PDN FEN (default: the variant's initial position).
        #[arg(long)]
        fen: Option<String>,
    },
}

fn position<V: Variant>(text: &Option<String>) -> Result<Position<V>, String> {
    match text {
        None => Ok(Position::start()),
        Some(t) => fen::parse(t).map_err(|e| e.to_string()),
    }
}

fn run_perft<V: Variant>(fen_text: &Option<String>, depth: u32, divide: bool, threads: usize) -> Result<(), String> {
    let pos = position::<V>(fen_text)?;
    let threads = threads.max(1);
    let mut out = std::io::stdout().lock();
    if divide {
        for (m, n) in perft::divide(&pos, depth, threads) {
            let _ = writeln!(out, "{} nodes={}", notation::pdn(&pos, &m), n);
        }
    }
    for d in 1..=depth {
        let t = Instant::now();
        let n = perft::perft_parallel(&pos, d, threads);
        let s = t.elapsed().as_secs_f64();
        let mnps = if s > 0.0 { n as f64 / s / 1e6 } else { 0.0 };
        let _ = writeln!(out, "depth={d} nodes={n} time={s:.3} mnps={mnps:.1}");
        let _ = out.flush();
    }
    Ok(())
}

fn run_moves<V: Variant>(fen_text: &Option<String>) -> Result<(), String> {
    let pos = position::<V>(fen_text)?;
    let mut out = std::io::stdout().lock();
    for m in movegen::legal_moves(&pos).iter() {
        let _ = writeln!(out, "{} {}", notation::hub(m), notation::pdn(&pos, m));
    }
    Ok(())
}

fn main() -> ExitCode {
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("warn"))
        .target(env_logger::Target::Stderr)
        .init();
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Perft {
            variant,
            fen,
            depth,
            divide,
            threads,
        } => with_variant!(variant, V => run_perft::<V>(&fen, depth, divide, threads)),
        Command::Moves { variant, fen } => with_variant!(variant, V => run_moves::<V>(&fen)),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("damast: {e}");
            ExitCode::from(2)
        }
    }
}
