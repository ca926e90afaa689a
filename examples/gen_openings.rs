//! Generates the opening suites shipped in `book/openings/`: every position reached from the
//! start position by the given numbers of plies (moves of one side), without a capture pending,
//! searched to a fixed depth with one thread, kept when the score lies within a window of 0.
//!
//! ```sh
//! cargo run --release --example gen_openings -- --variant international --plies 2,3 \
//!     --depth 12 --window 0.02 > book/openings/international.fen
//! ```
//!
//! The output is one FEN per line, in the order of the move sequences that reach them; the
//! search is deterministic, so the same arguments give the same file. A summary goes to
//! standard error.

use std::collections::HashSet;
use std::process::ExitCode;

use damast::core::{
    fen, movegen, notation, Game, GameResult, Move, Position, Variant, VariantKind,
};
use damast::engine::time::Limits;
use damast::engine::{Engine, Mode, Options, SearchHandle};
use damast::with_variant;

struct Args {
    variant: VariantKind,
    plies: Vec<usize>,
    depth: u32,
    window: f64,
}

fn parse_args() -> Result<Args, String> {
    let mut a = Args {
        variant: VariantKind::International,
        plies: vec![2, 3],
        depth: 12,
        window: 0.02,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let value = it.next().ok_or_else(|| format!("{flag} needs a value"))?;
        match flag.as_str() {
            "--variant" => a.variant = value.parse().map_err(|e| format!("{e}"))?,
            "--plies" => {
                a.plies = value
                    .split(',')
                    .map(|p| {
                        p.trim()
                            .parse::<usize>()
                            .map_err(|_| format!("bad --plies '{value}'"))
                    })
                    .collect::<Result<_, _>>()?
            }
            "--depth" => {
                a.depth = value
                    .parse()
                    .map_err(|_| format!("bad --depth '{value}'"))?
            }
            "--window" => {
                a.window = value
                    .parse()
                    .map_err(|_| format!("bad --window '{value}'"))?
            }
            _ => {
                return Err(format!(
                    "unknown option {flag} (known: --variant --plies --depth --window)"
                ))
            }
        }
    }
    Ok(a)
}

/// Every sequence of `plies` moves from `game`'s position, depth first in move-generation order.
fn sequences<V: Variant>(game: &mut Game<V>, plies: usize, out: &mut Vec<Vec<Move<V>>>) {
    if plies == 0 {
        out.push(game.moves().to_vec());
        return;
    }
    if game.result() != GameResult::Ongoing {
        return;
    }
    for m in movegen::legal_moves(game.position()).iter() {
        game.play(*m).expect("a generated move is legal");
        sequences(game, plies - 1, out);
        game.undo();
    }
}

fn run<V: Variant>(a: &Args) {
    let mut engine = Engine::new(Options {
        tt_mib: 64,
        ..Options::default()
    });
    let mut seen = HashSet::new();
    let (mut searched, mut kept) = (0, 0);
    for &plies in &a.plies {
        let mut seqs = Vec::new();
        sequences(&mut Game::<V>::new(Position::start()), plies, &mut seqs);
        for seq in seqs {
            let mut game = Game::<V>::new(Position::start());
            for m in &seq {
                game.play(*m).expect("legal");
            }
            let pos = *game.position();
            if game.result() != GameResult::Ongoing
                || movegen::has_capture(&pos)
                || !seen.insert(pos)
            {
                continue;
            }
            engine.new_game();
            let out = engine.search(
                &game,
                &Limits::depth(a.depth),
                Mode::Analyze,
                &SearchHandle::new(),
                &mut |_| {},
            );
            searched += 1;
            let score = out.score as f64 / 100.0;
            let mut text = Vec::new();
            let mut p = Position::<V>::start();
            for m in &seq {
                text.push(notation::pdn(&p, m));
                p = p.make(m);
            }
            eprintln!("{:<24} {score:+.2} {}", text.join(" "), fen::write(&pos));
            if score.abs() <= a.window + 1e-9 {
                kept += 1;
                println!("{}", fen::write(&pos));
            }
        }
    }
    eprintln!(
        "{}: plies {:?}, depth {}, window {:.2}: {searched} positions searched, {kept} kept",
        V::KIND,
        a.plies,
        a.depth,
        a.window
    );
}

fn main() -> ExitCode {
    match parse_args() {
        Ok(a) => {
            with_variant!(a.variant, V => run::<V>(&a));
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("gen_openings: {e}");
            ExitCode::from(2)
        }
    }
}
