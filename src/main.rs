//! The `damast` command line: a thin layer over the library.

use std::io::Write;
use std::process::ExitCode;
use std::time::Instant;

use clap::{Parser, Subcommand};
use damast::core::variant::VariantKind;
use damast::core::{fen, movegen, notation, pdn, Game, Position, Variant};
use damast::engine::time::Limits;
use damast::engine::{Engine, Options};
use damast::tools::{analyze, bench, perft, tune};
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
        #[arg(long, default_value = "international", help = variant_help())]
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
    /// Analyse a position (one line per iteration, then `bestmove=`), or a whole PDN game.
    Analyze {
        #[arg(long, default_value = "international", help = variant_help())]
        variant: VariantKind,
        /// The position as a PDN FEN (default: the variant's initial position).
        #[arg(long)]
        fen: Option<String>,
        /// Moves played from that position, separated by blanks (any notation).
        #[arg(long)]
        moves: Option<String>,
        /// A PDN file: analyse every move of its first game.
        #[arg(long)]
        pdn: Option<std::path::PathBuf>,
        /// Search depth.
        #[arg(long)]
        depth: Option<u32>,
        /// Seconds per position.
        #[arg(long)]
        time: Option<f64>,
        /// Nodes per position.
        #[arg(long)]
        nodes: Option<u64>,
        /// Search threads.
        #[arg(long, default_value_t = 1)]
        threads: usize,
        /// Transposition table size in MiB.
        #[arg(long, default_value_t = 64)]
        tt_size: usize,
        #[command(flatten)]
        eval: EvalArgs,
        #[command(flatten)]
        book: BookArgs,
        #[command(flatten)]
        egdb: EgdbArgs,
    },
    /// Search the built-in bench positions (one thread unless told); prints `nodes=TOTAL nps=...`
    /// last.
    Bench {
        /// Search depth.
        #[arg(long, default_value_t = damast::tools::bench::DEFAULT_DEPTH)]
        depth: u32,
        /// Search threads; the node counts are the signature only with 1, and the per-position
        /// times measure the time to depth.
        #[arg(long, default_value_t = 1)]
        threads: usize,
        /// Table size in MiB for each position (the signature is that of the default).
        #[arg(long, default_value_t = damast::tools::bench::DEFAULT_TT_MIB)]
        tt_size: usize,
        /// Also print, per iteration, where the nodes go: branching factor, quiescence share,
        /// table hits, first-move cutoffs, re-searches of reduced moves.
        #[arg(long)]
        stats: bool,
        /// A search parameter, as the Hub's `search-<NAME>` takes it (repeatable).
        #[arg(long = "search", value_name = "NAME=VALUE")]
        search: Vec<String>,
        /// Time to depth: also run with this many threads (e.g. 1) and print, per position,
        /// the median times of both over `--runs` alternating runs, then the median of their
        /// ratios (`--threads` over this).
        #[arg(long, value_name = "THREADS", conflicts_with = "stats")]
        against_threads: Option<usize>,
        /// Runs of each thread count for `--against-threads`.
        #[arg(long, default_value_t = 3, requires = "against_threads")]
        runs: usize,
        #[command(flatten)]
        eval: EvalArgs,
    },
    /// Speak the Hub protocol on standard input and output.
    Hub,
    /// Serve a board in the browser to play and analyse, and its JSON API (on loopback).
    Serve {
        /// Address to listen on; port 0 picks a free port. The first line printed is
        /// `listening on http://ADDR/`.
        #[arg(long, default_value = "127.0.0.1:8080")]
        listen: std::net::SocketAddr,
        /// Open the page in the default browser.
        #[arg(long)]
        open: bool,
        /// Games kept at most.
        #[arg(long, default_value_t = 64)]
        max_games: usize,
        /// Minutes after which an untouched game is removed.
        #[arg(long, default_value_t = 30)]
        idle_minutes: u64,
        /// Engines, i.e. searches running at once (each one thread).
        #[arg(long, default_value_t = 1)]
        threads: usize,
    },
    /// Play a match (two engines) or a round robin (more) between Hub engines.
    Match(Box<damast::tools::r#match::MatchArgs>),
    /// Play engine against engine over TCP with DXP (DamExchange), as follower or initiator.
    Dxp(DxpArgs),
    /// Tune the evaluation weights from self-play games (Texel's method).
    #[command(subcommand)]
    Tune(TuneCommand),
    /// Play self-play games for training into a binary game file (resumes an existing file).
    Selfplay {
        #[arg(long, default_value = "international", help = variant_help())]
        variant: VariantKind,
        /// Games the file should hold when done.
        #[arg(long, default_value_t = 1000)]
        games: usize,
        /// Nodes per move.
        #[arg(long, default_value_t = 2000)]
        nodes: u64,
        /// Most random plies after the opening (each game draws 0 to this many).
        #[arg(long, default_value_t = 6)]
        random_plies: u16,
        /// Threads (games played at once; default: every core).
        #[arg(long)]
        threads: Option<usize>,
        /// Seed of the games.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Adjudicate a win when both sides' searches agree on this margin (hundredths of a man).
        #[arg(long, default_value_t = 600)]
        adjudicate: i32,
        /// The game file to write or resume.
        #[arg(long)]
        out: std::path::PathBuf,
    },
    /// Train a pattern net on self-play game files (`damast selfplay`) and write it.
    Train {
        #[arg(long, default_value = "international", help = variant_help())]
        variant: VariantKind,
        /// Game files to train on.
        #[arg(long, required = true, num_args = 1..)]
        data: Vec<std::path::PathBuf>,
        /// The net file to write.
        #[arg(long)]
        out: std::path::PathBuf,
        /// Passes over the data.
        #[arg(long, default_value_t = 16)]
        epochs: usize,
        /// Samples per mini-batch.
        #[arg(long, default_value_t = 16384)]
        batch: usize,
        /// Adam's step size (hundredths of a man).
        #[arg(long, default_value_t = 3.0)]
        lr: f32,
        /// The step size at the end: it falls geometrically from --lr to this over the run
        /// (without it: --lr for two thirds of the epochs, 0.3 of it after).
        #[arg(long)]
        lr_final: Option<f32>,
        /// Share of the game result in the target; the rest is the search score.
        #[arg(long, default_value_t = 0.1)]
        lambda: f32,
        /// Seed of the shuffles.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Window configurations seen fewer times than this keep weight 0.
        #[arg(long, default_value_t = 0)]
        min_count: u32,
        /// Threads (default: every core).
        #[arg(long)]
        threads: Option<usize>,
    },
    /// Build, show and measure the opening book.
    #[command(subcommand)]
    Book(BookCommand),
    /// Build, probe and verify endgame databases.
    #[command(subcommand)]
    Egdb(EgdbCommand),
    /// Print every legal move of a position, one per line: `<hub form> <pdn form>`.
    Moves {
        #[arg(long, default_value = "international", help = variant_help())]
        variant: VariantKind,
        /// The position as a PDN FEN (default: the variant's initial position).
        #[arg(long)]
        fen: Option<String>,
    },
}

/// The help text of every `--variant` option.
fn variant_help() -> String {
    format!("Variant: {}", VariantKind::names_text())
}

/// The opening book to play with.
#[derive(clap::Args, Clone, Debug)]
struct BookArgs {
    /// Play without the opening book.
    #[arg(long)]
    no_book: bool,
    /// An opening book file to use instead of the built-in one.
    #[arg(long, value_name = "FILE")]
    book_file: Option<std::path::PathBuf>,
    /// Use the book only in positions fewer than this many plies from the start.
    #[arg(long, default_value_t = damast::engine::book::BookOptions::MAX_PLY)]
    book_ply: u32,
    /// Play book moves within this many hundredths of a man of the best.
    #[arg(long, default_value_t = damast::engine::book::BookOptions::MARGIN)]
    book_margin: i32,
}

impl BookArgs {
    /// `base` with this book; a bad book file is an error.
    fn apply(&self, base: Options) -> Result<Options, String> {
        use damast::engine::book::{Book, BookOptions};
        let file = match &self.book_file {
            Some(p) => Some(std::sync::Arc::new(
                Book::load_any(p).map_err(|e| format!("{}: {e}", p.display()))?,
            )),
            None => None,
        };
        Ok(Options {
            book: BookOptions {
                enabled: !self.no_book,
                max_ply: self.book_ply,
                margin: self.book_margin.max(0),
                file,
            },
            ..base
        })
    }
}

/// The endgame database to search with.
#[derive(clap::Args, Clone, Debug)]
struct EgdbArgs {
    /// A directory of endgame database slices (`damast egdb build`) for the search to use.
    #[arg(long, value_name = "DIR")]
    egdb_dir: Option<std::path::PathBuf>,
    /// Use the database for positions of at most this many pieces (default: every slice).
    #[arg(long, requires = "egdb_dir")]
    egdb_pieces: Option<u32>,
}

impl EgdbArgs {
    /// `base` with this database for variant `kind`; a missing directory is an error.
    fn apply(&self, base: Options, kind: VariantKind) -> Result<Options, String> {
        let egdb = match &self.egdb_dir {
            Some(d) if !d.is_dir() => return Err(format!("{}: no such directory", d.display())),
            Some(d) => {
                let db = damast::engine::egdb::Egdb::open(d, kind, self.egdb_pieces);
                db.check().map_err(|e| e.to_string())?;
                Some(std::sync::Arc::new(db))
            }
            None => None,
        };
        Ok(Options { egdb, ..base })
    }
}

/// The steps of `damast egdb`.
#[derive(Subcommand)]
enum EgdbCommand {
    /// Solve every slice of up to N pieces (resumes: slices already there are kept).
    Build {
        #[arg(long, default_value = "international", help = variant_help())]
        variant: VariantKind,
        /// Most pieces.
        #[arg(long, value_parser = clap::value_parser!(u32).range(2..=6))]
        pieces: u32,
        /// The database directory.
        #[arg(long, default_value = "egdb")]
        dir: std::path::PathBuf,
        /// Build only this slice (four digits: men and kings of the side to move, then of the
        /// opponent); the slices it leads to must be there.
        #[arg(long)]
        only: Option<damast::engine::egdb::Signature>,
        /// Threads (default: every core).
        #[arg(long)]
        threads: Option<usize>,
    },
    /// Print `wdl=win|draw|loss` for the side to move of a position.
    Probe {
        #[arg(long, default_value = "international", help = variant_help())]
        variant: VariantKind,
        /// The database directory.
        #[arg(long, default_value = "egdb")]
        dir: std::path::PathBuf,
        /// The position as a PDN FEN.
        #[arg(long)]
        fen: String,
    },
    /// Check every stored value of every slice against the values of its successors.
    Verify {
        #[arg(long, default_value = "international", help = variant_help())]
        variant: VariantKind,
        /// The database directory.
        #[arg(long, default_value = "egdb")]
        dir: std::path::PathBuf,
        /// Check only this slice.
        #[arg(long)]
        only: Option<damast::engine::egdb::Signature>,
    },
    /// Rewrite every slice in this build's format (version 3: blocks of 4,096 positions, a
    /// checksum each); the values are unchanged. Version 2 directories need it to be probed.
    Repack {
        #[arg(long, default_value = "international", help = variant_help())]
        variant: VariantKind,
        /// The database directory.
        #[arg(long, default_value = "egdb")]
        dir: std::path::PathBuf,
    },
}

/// The steps of `damast book`.
#[derive(Subcommand)]
enum BookCommand {
    /// Grow a book from the start position by drop-out expansion (resumes the file it writes).
    Build {
        #[arg(long, default_value = "international", help = variant_help())]
        variant: VariantKind,
        /// The book file to write or go on with (default: book/<variant>.book).
        #[arg(long)]
        out: Option<std::path::PathBuf>,
        /// Nodes searched per move.
        #[arg(long, default_value_t = 20_000)]
        nodes: u64,
        /// Positions this many plies from the start are not expanded.
        #[arg(long, default_value_t = 30)]
        max_ply: u32,
        /// Positions to reach (the last round may pass it by a few).
        #[arg(long, default_value_t = 10_000)]
        size: usize,
        /// Moves worse than the best by more than this many hundredths of a man are not followed.
        #[arg(long, default_value_t = 40)]
        margin: i32,
        /// A move this many hundredths worse than the best costs as much as a ply more.
        #[arg(long, default_value_t = 10)]
        dropout: i32,
        /// Threads (positions searched at once; default: every core).
        #[arg(long)]
        threads: Option<usize>,
        #[command(flatten)]
        eval: EvalArgs,
    },
    /// Print the book moves of a position with their scores, best first.
    Show {
        #[arg(long, default_value = "international", help = variant_help())]
        variant: VariantKind,
        /// The book file (default: the built-in book).
        #[arg(long)]
        book: Option<std::path::PathBuf>,
        /// The position as a PDN FEN (default: the variant's initial position).
        #[arg(long)]
        fen: Option<String>,
        /// Moves played from that position, separated by blanks (any notation).
        #[arg(long)]
        moves: Option<String>,
    },
    /// Print the book's size, depth and positions per ply.
    Stats {
        #[arg(long, default_value = "international", help = variant_help())]
        variant: VariantKind,
        /// The book file (default: the built-in book).
        #[arg(long)]
        book: Option<std::path::PathBuf>,
    },
    /// Re-search a sample of book positions deeper and report how far the book's candidate
    /// moves fall short of the best.
    Check {
        #[arg(long, default_value = "international", help = variant_help())]
        variant: VariantKind,
        /// The book file (default: the built-in book).
        #[arg(long)]
        book: Option<std::path::PathBuf>,
        /// Positions to re-search.
        #[arg(long, default_value_t = 100)]
        sample: usize,
        /// Nodes per move of the deeper search.
        #[arg(long, default_value_t = 200_000)]
        nodes: u64,
        /// The play margin whose candidates are checked (hundredths of a man).
        #[arg(long, default_value_t = damast::engine::book::BookOptions::MARGIN)]
        margin: i32,
    },
}

/// The evaluation to play with.
#[derive(clap::Args, Clone, Debug)]
struct EvalArgs {
    /// Evaluation: learned (the pattern net) or classic (the handwritten one).
    #[arg(long, default_value = "learned")]
    eval: damast::engine::evaluator::EvalKind,
    /// A pattern net file to use instead of the built-in one.
    #[arg(long, value_name = "FILE")]
    eval_file: Option<std::path::PathBuf>,
}

impl EvalArgs {
    /// `base` with this evaluation; a bad net file is an error.
    fn apply(&self, base: Options) -> Result<Options, String> {
        let net = match &self.eval_file {
            Some(p) => Some(std::sync::Arc::new(damast::engine::pattern::file::load(p)?)),
            None => None,
        };
        Ok(Options {
            eval: self.eval,
            net,
            ..base
        })
    }
}

/// The steps of `damast tune`.
#[derive(Subcommand)]
enum TuneCommand {
    /// Play self-play games at a fixed node count; write each quiet position as `FEN;result`.
    Generate {
        #[arg(long, default_value = "international", help = variant_help())]
        variant: VariantKind,
        /// Number of games.
        #[arg(long, default_value_t = 1000)]
        games: usize,
        /// Nodes per move.
        #[arg(long, default_value_t = 5000)]
        nodes: u64,
        /// Random plies at the start of each game, for variety.
        #[arg(long, default_value_t = 8)]
        random_plies: usize,
        /// Games played at once.
        #[arg(long, default_value_t = 1)]
        threads: usize,
        /// Seed of the random openings.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// The file to write.
        #[arg(long)]
        out: std::path::PathBuf,
    },
    /// Fit the weights to a file of `FEN;result` lines; prints the tuned weights.
    Fit {
        #[arg(long, default_value = "international", help = variant_help())]
        variant: VariantKind,
        /// The training file.
        #[arg(long)]
        data: std::path::PathBuf,
        /// Weights to tune, comma-separated (default: all but `man` and `drawish_divisor`).
        #[arg(long, value_delimiter = ',')]
        weights: Vec<String>,
        /// Passes over the weights, at most.
        #[arg(long, default_value_t = 20)]
        passes: usize,
    },
    /// Tune an engine's numeric Hub parameters (the search settings) by SPSA over game pairs;
    /// resumes from its state file.
    Spsa(Box<SpsaArgs>),
}

/// The options of `damast tune spsa`.
#[derive(clap::Args)]
struct SpsaArgs {
    /// The engine tuned, as `damast match --engine` takes it but without a name:
    /// cmd="PATH ARGS" [dir=DIR] [option.PARAM=VALUE ...] (fixed options, e.g. option.book=false).
    #[arg(long, num_args = 1.., required = true, value_name = "KEY=VALUE")]
    engine: Vec<String>,
    /// A parameter to tune: NAME=START,MIN,MAX,C_END[,R_END], with NAME the engine's Hub
    /// parameter, C_END the perturbation and R_END the learning rate (default 0.002) at the last
    /// iteration. Give it once per parameter.
    #[arg(long = "param", required = true, value_name = "SPEC")]
    params: Vec<String>,
    /// Iterations: game pairs (one opening, both colours) of the whole run.
    #[arg(long, default_value_t = 2000)]
    iterations: usize,
    /// Time control: SECONDS[+INC] or MOVES/SECONDS[+INC].
    #[arg(long)]
    tc: Option<String>,
    /// Fixed nodes per move (instead of, or with, a time control).
    #[arg(long)]
    nodes: Option<u64>,
    /// Seconds a move may exceed its time before it loses on time.
    #[arg(long, default_value_t = 0.1)]
    timemargin: f64,
    /// Openings: a file of FEN lines or PDN games (default: the suite in book/openings/).
    #[arg(long)]
    openings: Option<std::path::PathBuf>,
    #[arg(long, default_value = "international", help = variant_help())]
    variant: VariantKind,
    /// Draw adjudication, as for `damast match`: movenumber=N movecount=N score=S.
    #[arg(long, num_args = 1.., value_name = "KEY=VALUE")]
    draw: Option<Vec<String>>,
    /// Resign adjudication, as for `damast match`: movecount=N score=S.
    #[arg(long, num_args = 1.., value_name = "KEY=VALUE")]
    resign: Option<Vec<String>>,
    /// Game pairs played at once.
    #[arg(long, default_value_t = 1)]
    concurrency: usize,
    /// Seed of the perturbations and the opening order (a resumed run keeps its own).
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// The state file: read to resume, written after every pair.
    #[arg(long)]
    state: std::path::PathBuf,
    /// Print the values every this many pairs (0: only at the end).
    #[arg(long, default_value_t = 50)]
    report: usize,
}

/// The options of `damast dxp`.
#[derive(clap::Args)]
struct DxpArgs {
    /// Listen on ADDR:PORT for the peer (the default, on 127.0.0.1:27531; port 0 picks a free port,
    /// printed on stderr).
    #[arg(long, value_name = "ADDR:PORT", num_args = 0..=1,
          default_missing_value = damast::protocol::dxp::DEFAULT_ADDR, conflicts_with = "connect")]
    listen: Option<String>,
    /// Connect to the peer at ADDR:PORT.
    #[arg(long, value_name = "ADDR:PORT")]
    connect: Option<String>,
    /// Run a match as initiator (propose the games) instead of following the peer's proposals.
    #[arg(long)]
    initiate: bool,
    /// Initiator: number of games (colours alternate, we start with white).
    #[arg(long, default_value_t = 2, requires = "initiate",
          value_parser = clap::value_parser!(u32).range(1..=10_000))]
    games: u32,
    /// Initiator: minutes per player sent in each game request (0: no time, see --zero-time).
    #[arg(long, value_name = "MINUTES", default_value_t = 1, requires = "initiate",
          value_parser = clap::value_parser!(u16).range(0..=999))]
    time: u16,
    /// Initiator: moves for those minutes, and the length of the game: once both sides have
    /// played that many, the game is adjudicated by evaluation (0: the minutes are for the whole
    /// game, no length).
    #[arg(long, default_value_t = 0, requires = "initiate",
          value_parser = clap::value_parser!(u16).range(0..=999))]
    moves: u16,
    /// Initiator: start positions, one FEN per line or PDN games (each opening is played twice,
    /// colours swapped).
    #[arg(long, value_name = "FILE", requires = "initiate")]
    openings: Option<std::path::PathBuf>,
    /// Initiator: moves per side after which a game is adjudicated a draw, at our next turn
    /// (0: no limit).
    #[arg(long, default_value_t = 150, requires = "initiate")]
    max_moves: u32,
    /// Initiator: seconds to wait for the answer to a game request before giving up (exit
    /// status 3: the peer did not accept).
    #[arg(
        long,
        value_name = "SECONDS",
        default_value_t = 30.0,
        requires = "initiate"
    )]
    accept_timeout: f64,
    /// Seconds per player assumed for a game whose request gives 0 minutes.
    #[arg(long, value_name = "SECONDS", default_value_t = 30.0)]
    zero_time: f64,
    /// Cap on the search depth of every move (for quick matches and tests).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=100))]
    depth: Option<u32>,
    /// Cap on the seconds of every move, within the clock (for quick matches and tests).
    #[arg(long, value_name = "SECONDS")]
    move_time: Option<f64>,
    /// Search threads.
    #[arg(long, default_value_t = 1)]
    threads: usize,
    /// Transposition table size in MiB.
    #[arg(long, default_value_t = 64)]
    tt_size: usize,
    /// Our name in game requests and answers (default: Damast and its version).
    #[arg(long)]
    name: Option<String>,
    #[command(flatten)]
    eval: EvalArgs,
    #[command(flatten)]
    book: BookArgs,
    #[command(flatten)]
    egdb: EgdbArgs,
}

fn run_dxp(a: DxpArgs) -> Result<(), damast::protocol::dxp::RunError> {
    use damast::protocol::dxp::{self, clock::Caps, Endpoint, MatchConfig, Settings};
    let positive = |x: f64| x > 0.0 && x.is_finite();
    if !positive(a.zero_time) {
        return Err("--zero-time must be a positive number of seconds"
            .to_string()
            .into());
    }
    if a.move_time.is_some_and(|t| !positive(t)) {
        return Err("--move-time must be a positive number of seconds"
            .to_string()
            .into());
    }
    if !positive(a.accept_timeout) || a.accept_timeout > 1e6 {
        return Err("--accept-timeout must be a positive number of seconds"
            .to_string()
            .into());
    }
    let endpoint = match (a.listen, a.connect) {
        (_, Some(c)) => Endpoint::Connect(c),
        (Some(l), None) => Endpoint::Listen(l),
        (None, None) => Endpoint::Listen(dxp::DEFAULT_ADDR.to_string()),
    };
    let defaults = Settings::default();
    let settings = Settings {
        engine: Options {
            threads: a.threads.clamp(1, 256),
            tt_mib: a.tt_size.clamp(1, 1 << 16),
            seed: damast::engine::Options::fresh_seed(),
            ..a.egdb.apply(
                a.book.apply(a.eval.apply(defaults.engine)?)?,
                VariantKind::International,
            )?
        },
        caps: Caps {
            depth: a.depth,
            move_time: a.move_time,
        },
        zero_minutes: a.zero_time,
        name: a.name.unwrap_or(defaults.name),
    };
    let config = if a.initiate {
        let openings = match &a.openings {
            Some(path) => dxp::load_openings(path)?,
            None => Vec::new(),
        };
        Some(MatchConfig {
            games: a.games,
            minutes: a.time,
            moves: a.moves,
            openings,
            max_moves: a.max_moves,
            accept_timeout: std::time::Duration::from_secs_f64(a.accept_timeout),
        })
    } else {
        None
    };
    dxp::run(&endpoint, &settings, config.as_ref())
}

fn position<V: Variant>(text: &Option<String>) -> Result<Position<V>, String> {
    match text {
        None => Ok(Position::start()),
        Some(t) => fen::parse(t).map_err(|e| e.to_string()),
    }
}

fn run_perft<V: Variant>(
    fen_text: &Option<String>,
    depth: u32,
    divide: bool,
    threads: usize,
) -> Result<(), String> {
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

/// Search limits from the command line (default: 1 second when nothing is given).
fn limits(depth: Option<u32>, time: Option<f64>, nodes: Option<u64>) -> Result<Limits, String> {
    if time.is_some_and(|t| !(t > 0.0 && t.is_finite())) {
        return Err("--time must be a positive number of seconds".into());
    }
    let mut l = Limits {
        depth,
        move_time: time,
        nodes,
        ..Limits::default()
    };
    if depth.is_none() && time.is_none() && nodes.is_none() {
        l.move_time = Some(1.0);
    }
    Ok(l)
}

struct AnalyzeArgs {
    fen: Option<String>,
    moves: Option<String>,
    pdn: Option<std::path::PathBuf>,
    limits: Limits,
    threads: usize,
    tt_size: usize,
    options: Options,
}

fn run_analyze<V: Variant>(a: AnalyzeArgs) -> Result<(), String> {
    let mut engine = Engine::new(Options {
        threads: a.threads.max(1),
        tt_mib: a.tt_size.max(1),
        ..a.options
    });
    let mut out = std::io::stdout().lock();
    if let Some(path) = &a.pdn {
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        let games = pdn::parse(&text).map_err(|e| format!("{}: {e}", path.display()))?;
        let first = games
            .first()
            .ok_or_else(|| format!("{}: no game in file", path.display()))?;
        let game: Game<V> = first
            .to_game()
            .map_err(|e| format!("{}: {e}", path.display()))?;
        let reports = analyze::game(&mut engine, &game, &a.limits);
        let _ = write!(out, "{}", analyze::report_text(&game, &reports));
        let _ = writeln!(out);
        let _ = write!(out, "{}", analyze::report_pdn(&game, &first.tags, &reports));
        return Ok(());
    }
    let start = position::<V>(&a.fen)?;
    let mut game = Game::new(start);
    if let Some(ms) = &a.moves {
        for m in ms.split_whitespace() {
            game.play_text(m).map_err(|e| e.to_string())?;
        }
    }
    analyze::position(&mut engine, &game, &a.limits, &mut |line| {
        let _ = writeln!(out, "{line}");
        let _ = out.flush();
    });
    Ok(())
}

fn run_bench(depth: u32, tt_mib: usize, stats: bool, options: &Options) -> Result<(), String> {
    let r = bench::run_with_table(depth, tt_mib, options);
    let mut out = std::io::stdout().lock();
    if stats {
        let _ = write!(out, "{}", bench::stats_table(&r.iterations));
    }
    for (i, (n, t)) in r
        .per_position
        .iter()
        .zip(&r.per_position_seconds)
        .enumerate()
    {
        let _ = writeln!(out, "position={} nodes={} time={:.3}", i + 1, n, t);
    }
    let _ = writeln!(out, "time={:.3}", r.seconds());
    let _ = writeln!(out, "nodes={} nps={:.0}", r.nodes, r.nps());
    Ok(())
}

/// `damast bench --against-threads`: alternating runs of the baseline thread count and of
/// `options.threads`, then the time-to-depth comparison.
fn run_time_to_depth(
    depth: u32,
    tt_mib: usize,
    base_threads: usize,
    runs: usize,
    options: &Options,
) -> Result<(), String> {
    let runs = runs.clamp(1, 100);
    let base_options = Options {
        threads: base_threads.clamp(1, 256),
        ..options.clone()
    };
    let bar = indicatif::ProgressBar::new(2 * runs as u64);
    let (mut base, mut other) = (Vec::new(), Vec::new());
    for _ in 0..runs {
        base.push(bench::run_with_table(depth, tt_mib, &base_options));
        bar.inc(1);
        other.push(bench::run_with_table(depth, tt_mib, options));
        bar.inc(1);
    }
    bar.finish_and_clear();
    let t = bench::time_to_depth(&base, &other);
    let mut out = std::io::stdout().lock();
    for (i, p) in t.per_position.iter().enumerate() {
        let _ = writeln!(
            out,
            "position={} time-{}={:.3} time-{}={:.3} ratio={:.3} nodes-{}={} nodes-{}={}",
            i + 1,
            base_options.threads,
            p.base_seconds,
            options.threads,
            p.seconds,
            p.ratio(),
            base_options.threads,
            p.base_nodes,
            options.threads,
            p.nodes,
        );
    }
    let _ = writeln!(
        out,
        "time-to-depth threads={} against={} depth={depth} runs={runs} positions={} median-ratio={:.3} total-ratio={:.3} median-node-ratio={:.3}",
        options.threads,
        base_options.threads,
        t.counted,
        t.median_ratio,
        t.total_ratio,
        t.median_node_ratio,
    );
    Ok(())
}

fn run_tune_generate<V: Variant>(
    cfg: &tune::GenerateConfig,
    out: &std::path::Path,
) -> Result<(), String> {
    let file = std::fs::File::create(out).map_err(|e| format!("{}: {e}", out.display()))?;
    let mut w = std::io::BufWriter::new(file);
    let bar = indicatif::ProgressBar::new(cfg.games as u64);
    let lines = tune::generate::<V>(cfg, &mut w, &|n| bar.set_position(n as u64))
        .map_err(|e| format!("{}: {e}", out.display()))?;
    bar.finish_and_clear();
    println!(
        "games={} positions={lines} file={}",
        cfg.games,
        out.display()
    );
    Ok(())
}

fn run_selfplay<V: Variant>(
    cfg: &damast::tools::selfplay::SelfplayConfig,
    out: &std::path::Path,
) -> Result<(), String> {
    let bar = indicatif::ProgressBar::new(cfg.games as u64).with_style(
        indicatif::ProgressStyle::with_template(
            "{bar:30} {pos}/{len} games {msg} [{elapsed_precise}, eta {eta}]",
        )
        .expect("a valid template"),
    );
    let start = Instant::now();
    let mut first: Option<u64> = None;
    let done = damast::tools::selfplay::run::<V>(cfg, out, &mut |p| {
        let base = *first.get_or_insert(p.positions);
        let rate = (p.positions - base) as f64 / start.elapsed().as_secs_f64().max(1e-3);
        bar.set_position(p.games as u64);
        let msg = format!("{} positions, {rate:.0} positions/s", p.positions);
        if bar.is_hidden() {
            // not a terminal: a line now and then
            if p.games % 256 < cfg.threads.max(1) * 4 {
                eprintln!("games={} {msg}", p.games);
            }
        }
        bar.set_message(msg);
    })
    .map_err(|e| e.to_string())?;
    bar.finish_and_clear();
    println!(
        "games={} positions={} seconds={:.1} file={}",
        done.games,
        done.positions,
        start.elapsed().as_secs_f64(),
        out.display()
    );
    Ok(())
}

fn run_book(cmd: BookCommand) -> Result<(), String> {
    use damast::tools::book_builder::{self as builder, BuildConfig};
    match cmd {
        BookCommand::Build {
            variant,
            out,
            nodes,
            max_ply,
            size,
            margin,
            dropout,
            threads,
            eval,
        } => {
            let cfg = BuildConfig {
                nodes: nodes.max(1),
                max_ply,
                size,
                margin: margin.max(0),
                dropout: dropout.max(1),
                threads: threads
                    .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
                    .clamp(1, 256),
                engine: eval.apply(BuildConfig::default().engine)?,
            };
            let out = out.unwrap_or_else(|| {
                std::path::PathBuf::from(format!("book/{}.book", variant.name()))
            });
            with_variant!(variant, V => run_book_build::<V>(&cfg, &out))
        }
        BookCommand::Show {
            variant,
            book,
            fen,
            moves,
        } => with_variant!(variant, V => {
            let book = load_book::<V>(&book)?;
            let start = position::<V>(&fen)?;
            let mut game = Game::new(start);
            for m in moves.as_deref().unwrap_or("").split_whitespace() {
                game.play_text(m).map_err(|e| e.to_string())?;
            }
            print!("{}", builder::show_text(&book, game.position()));
            Ok(())
        }),
        BookCommand::Stats { variant, book } => with_variant!(variant, V => {
            let b = load_book::<V>(&book)?;
            print!("{}", builder::stats_text(&b.stats()));
            Ok(())
        }),
        BookCommand::Check {
            variant,
            book,
            sample,
            nodes,
            margin,
        } => with_variant!(variant, V => {
            let b = load_book::<V>(&book)?;
            let mut engine = Engine::new(BuildConfig::default().engine);
            let s = builder::check_soundness::<V>(&b, margin, sample, nodes.max(1), &mut engine);
            println!(
                "positions={} moves={} within-margin={} worst-gap={} mean-gap={:.3}",
                s.positions,
                s.moves,
                s.within(margin),
                score_text(s.worst()),
                s.gaps.iter().sum::<i32>() as f64 / s.gaps.len().max(1) as f64 / 100.0
            );
            Ok(())
        }),
    }
}

fn run_egdb(cmd: EgdbCommand) -> Result<(), String> {
    match cmd {
        EgdbCommand::Build {
            variant,
            pieces,
            dir,
            only,
            threads,
        } => {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads.unwrap_or(0))
                .build()
                .map_err(|e| e.to_string())?;
            pool.install(|| with_variant!(variant, V => run_egdb_build::<V>(&dir, pieces, only)))
        }
        EgdbCommand::Probe { variant, dir, fen } => with_variant!(variant, V => {
            let pos = position::<V>(&Some(fen))?;
            let db = open_egdb(&dir, variant)?;
            let e = db.probe_entry(&pos).map_err(|e| e.to_string())?;
            println!("wdl={} dtc={}", e.wdl.name(), e.plies);
            Ok(())
        }),
        EgdbCommand::Verify { variant, dir, only } => with_variant!(variant, V => {
            use damast::engine::egdb::{slice_file, Signature};
            let db = open_egdb(&dir, variant)?;
            let mut bad = 0;
            for sig in Signature::up_to(db.pieces()) {
                if !slice_file(&dir, V::KIND, sig).exists() || only.is_some_and(|o| o != sig) {
                    continue;
                }
                let (checked, wrong) = damast::tools::egdb_builder::verify_slice::<V>(&db, sig, 5)
                    .map_err(|e| format!("{sig}: {e}"))?;
                println!("slice={sig} positions={checked} wrong={}", wrong.len());
                for (i, stored, expected) in &wrong {
                    let show = |b: u8| damast::engine::egdb::file::Entry::describe(b);
                    println!(
                        "  index={i} stored={} successors-say={}",
                        show(*stored),
                        show(*expected)
                    );
                }
                bad += wrong.len();
            }
            if bad > 0 {
                return Err(format!("{bad} stored values disagree with their successors"));
            }
            println!("ok");
            Ok(())
        }),
        EgdbCommand::Repack { variant, dir } => {
            use damast::engine::egdb::{slice_file, Signature, Slice};
            let db = open_egdb(&dir, variant)?;
            for sig in Signature::up_to(db.pieces()) {
                let path = slice_file(&dir, variant, sig);
                if !path.exists() {
                    continue;
                }
                let before = std::fs::metadata(&path).map_or(0, |m| m.len());
                let slice = Slice::load(&path, variant.game_type() as u16, sig)
                    .map_err(|e| format!("{}: {e}", path.display()))?;
                slice
                    .save(&path)
                    .map_err(|e| format!("{}: {e}", path.display()))?;
                let after = std::fs::metadata(&path).map_or(0, |m| m.len());
                println!("slice={sig} bytes-before={before} bytes-after={after}");
            }
            println!("ok");
            Ok(())
        }
    }
}

/// The database of `kind` in `dir`; an error when it holds no slice.
fn open_egdb(
    dir: &std::path::Path,
    kind: VariantKind,
) -> Result<damast::engine::egdb::Egdb, String> {
    let db = damast::engine::egdb::Egdb::open(dir, kind, None);
    if db.pieces() == 0 {
        return Err(format!(
            "no {} endgame database in {}",
            kind.name(),
            dir.display()
        ));
    }
    Ok(db)
}

fn run_egdb_build<V: Variant>(
    dir: &std::path::Path,
    pieces: u32,
    only: Option<damast::engine::egdb::Signature>,
) -> Result<(), String> {
    use damast::tools::egdb_builder::{build, Event};
    let mut bar: Option<(indicatif::ProgressBar, Instant)> = None;
    let reports = build::<V>(dir, pieces, only, &mut |e| match e {
        Event::Kept(sig) => eprintln!("slice={sig} kept"),
        Event::Start(sig, size) => {
            let b = indicatif::ProgressBar::new(size).with_style(
                indicatif::ProgressStyle::with_template(
                    "{prefix} {bar:30} {pos}/{len} solved {msg} [{elapsed_precise}]",
                )
                .expect("a valid template"),
            );
            b.set_prefix(format!("slice {sig}"));
            bar = Some((b, Instant::now()));
        }
        Event::Pass(_, level, solved) => {
            if let Some((b, t)) = &bar {
                b.set_position(solved);
                b.set_message(format!(
                    "level {level}, {:.0}s",
                    t.elapsed().as_secs_f64()
                ));
            }
        }
        Event::Done(r) => {
            if let Some((b, _)) = bar.take() {
                b.finish_and_clear();
            }
            println!(
                "slice={} positions={} wins={} draws={} losses={} longest-win={} longest-loss={} levels={} seconds={:.1} bytes={}",
                r.sig,
                r.positions,
                r.wins,
                r.draws,
                r.losses,
                r.longest_win,
                r.longest_loss,
                r.levels,
                r.seconds,
                r.bytes
            );
        }
    })
    .map_err(|e| e.to_string())?;
    println!("built={} dir={}", reports.len(), dir.display());
    Ok(())
}

fn score_text(s: i32) -> String {
    damast::engine::score_in_men(s)
}

/// The book file given, or the variant's built-in book.
fn load_book<V: Variant>(
    path: &Option<std::path::PathBuf>,
) -> Result<damast::engine::book::Book, String> {
    match path {
        Some(p) => {
            damast::engine::book::Book::load::<V>(p).map_err(|e| format!("{}: {e}", p.display()))
        }
        None => damast::engine::book::builtin::<V>()
            .cloned()
            .ok_or_else(|| {
                format!(
                    "there is no built-in {} book (give --book FILE)",
                    V::KIND.name()
                )
            }),
    }
}

fn run_book_build<V: Variant>(
    cfg: &damast::tools::book_builder::BuildConfig,
    out: &std::path::Path,
) -> Result<(), String> {
    let bar = indicatif::ProgressBar::new(cfg.size as u64).with_style(
        indicatif::ProgressStyle::with_template(
            "{bar:30} {pos}/{len} positions {msg} [{elapsed_precise}, eta {eta}]",
        )
        .expect("a valid template"),
    );
    let start = Instant::now();
    let mut first: Option<usize> = None;
    let mut last_line = 0;
    let done = damast::tools::book_builder::build::<V>(cfg, out, &mut |p| {
        let base = *first.get_or_insert(p.positions);
        let rate = (p.positions - base) as f64 / start.elapsed().as_secs_f64().max(1e-3);
        bar.set_position(p.positions.min(cfg.size) as u64);
        let msg = format!("ply {}, {rate:.1} positions/s", p.ply);
        if bar.is_hidden() && p.positions >= last_line + 256 {
            // not a terminal: a line now and then
            last_line = p.positions;
            eprintln!("positions={} {msg}", p.positions);
        }
        bar.set_message(msg);
    })
    .map_err(|e| e.to_string())?;
    bar.finish_and_clear();
    let bytes = std::fs::metadata(out).map_or(0, |m| m.len());
    println!(
        "positions={} expanded={} complete={} seconds={:.1} bytes={bytes} file={}",
        done.positions,
        done.expanded,
        done.complete,
        start.elapsed().as_secs_f64(),
        out.display()
    );
    Ok(())
}

fn run_train<V: Variant>(
    cfg: &damast::tools::train::TrainConfig,
    data: &[std::path::PathBuf],
    out: &std::path::Path,
) -> Result<(), String> {
    use damast::tools::train;
    let start = Instant::now();
    let files = data
        .iter()
        .map(|p| {
            std::fs::read(p)
                .map(|b| (p.display().to_string(), b))
                .map_err(|e| format!("{}: {e}", p.display()))
        })
        .collect::<Result<Vec<_>, _>>()?;
    let (tr, va) = train::load::<V>(&files, cfg.valid_every)?;
    drop(files);
    if tr.is_empty() {
        return Err("no quiet, searched position in the data".into());
    }
    println!(
        "samples train={} valid={} load_seconds={:.1}",
        tr.len(),
        va.len(),
        start.elapsed().as_secs_f64()
    );
    let bar = indicatif::ProgressBar::new(0).with_style(
        indicatif::ProgressStyle::with_template(
            "epoch {msg} {bar:30} {pos}/{len} batches [{elapsed_precise}]",
        )
        .expect("a valid template"),
    );
    let mut epoch = 1;
    bar.set_message(format!("{epoch}/{}", cfg.passes()));
    let net = train::train::<V>(
        cfg,
        &tr,
        &va,
        &mut |done, of| {
            bar.set_length(of as u64);
            bar.set_position(done as u64);
        },
        &mut |r| {
            let line = format!(
                "epoch={} train_loss={:.6} valid_loss={:.6}",
                r.epoch, r.train, r.valid
            );
            if bar.is_hidden() {
                println!("{line}");
            } else {
                bar.println(line);
            }
            epoch = r.epoch + 1;
            bar.set_message(format!("{epoch}/{}", cfg.passes()));
        },
    );
    bar.finish_and_clear();
    let bytes = damast::engine::pattern::file::write(&net);
    std::fs::write(out, &bytes).map_err(|e| format!("{}: {e}", out.display()))?;
    println!(
        "scale={:.1} net_valid_loss={:.6} bytes={} seconds={:.1} file={}",
        net.scale,
        train::net_loss::<V>(&net, &va, cfg.lambda),
        bytes.len(),
        start.elapsed().as_secs_f64(),
        out.display()
    );
    Ok(())
}

fn run_tune_fit<V: Variant>(
    data: &std::path::Path,
    names: &[String],
    passes: usize,
) -> Result<(), String> {
    let text = std::fs::read_to_string(data).map_err(|e| format!("{}: {e}", data.display()))?;
    let samples = tune::load::<V>(&text).map_err(|e| format!("{}: {e}", data.display()))?;
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    let mut out = std::io::stdout().lock();
    tune::fit_and_report(&samples, &names, passes, &mut out).map_err(|e| e.to_string())?;
    Ok(())
}

fn run_spsa(args: SpsaArgs) -> Result<(), String> {
    use damast::tools::r#match::config::{self, MatchOptions};
    use damast::tools::spsa;
    let params = args
        .params
        .iter()
        .map(|p| p.parse::<spsa::SpsaParam>())
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| e.to_string())?;
    let options = MatchOptions {
        tc: args.tc,
        movetime: None,
        depth: None,
        nodes: args.nodes,
        timemargin: args.timemargin,
        openings: args.openings,
        games: None,
        shuffle: None,
        variant: args.variant,
        draw: args.draw,
        resign: args.resign,
        move_limit: None,
        concurrency: args.concurrency,
        sprt: None,
        pdn: None,
        event: "damast tune spsa".into(),
        start_timeout: config::DEFAULT_START_TIMEOUT,
        move_timeout: config::DEFAULT_MOVE_TIMEOUT,
    };
    let config = spsa::SpsaConfig::new(
        &args.engine,
        options,
        params,
        args.iterations,
        args.seed,
        args.state,
    )
    .map_err(|e| e.to_string())?;
    let mut out = std::io::stdout().lock();
    spsa::run(&config, args.report, &mut out).map_err(|e| e.to_string())?;
    Ok(())
}

fn run_match(args: damast::tools::r#match::MatchArgs) -> Result<(), String> {
    let config = args.into_config().map_err(|e| e.to_string())?;
    let mut out = std::io::stdout().lock();
    damast::tools::r#match::run(&config, &mut out).map_err(|e| e.to_string())?;
    Ok(())
}

fn main() -> ExitCode {
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("warn"))
        .target(env_logger::Target::Stderr)
        .init();
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            use clap::error::ErrorKind;
            if matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion) {
                let _ = e.print();
                return ExitCode::SUCCESS;
            }
            // one line, as every other error of the command line
            let text = e.to_string();
            let first: Vec<&str> = text
                .lines()
                .take_while(|l| !l.trim().is_empty())
                .map(str::trim)
                .collect();
            eprintln!("damast: {}", first.join(" ").trim_start_matches("error: "));
            return ExitCode::from(2);
        }
    };
    let result = match cli.command {
        Command::Perft {
            variant,
            fen,
            depth,
            divide,
            threads,
        } => with_variant!(variant, V => run_perft::<V>(&fen, depth, divide, threads)),
        Command::Moves { variant, fen } => with_variant!(variant, V => run_moves::<V>(&fen)),
        Command::Analyze {
            variant,
            fen,
            moves,
            pdn,
            depth,
            time,
            nodes,
            threads,
            tt_size,
            eval,
            book,
            egdb,
        } => limits(depth, time, nodes).and_then(|limits| {
            let a = AnalyzeArgs {
                fen,
                moves,
                pdn,
                limits,
                threads,
                tt_size,
                options: egdb.apply(book.apply(eval.apply(Options::default())?)?, variant)?,
            };
            with_variant!(variant, V => run_analyze::<V>(a))
        }),
        Command::Bench {
            depth,
            threads,
            tt_size,
            stats,
            search,
            against_threads,
            runs,
            eval,
        } => eval
            .apply(Options {
                threads: threads.clamp(1, 256),
                ..Options::default()
            })
            .and_then(|mut o| {
                for kv in &search {
                    let (name, value) = kv
                        .split_once('=')
                        .ok_or_else(|| format!("--search takes NAME=VALUE, not '{kv}'"))?;
                    o.search.set(name, value)?;
                }
                Ok(o)
            })
            .and_then(|o| {
                let (depth, tt_size) = (depth.clamp(1, 40), tt_size.clamp(1, 1 << 16));
                match against_threads {
                    Some(base) => run_time_to_depth(depth, tt_size, base, runs, &o),
                    None => run_bench(depth, tt_size, stats, &o),
                }
            }),
        Command::Tune(TuneCommand::Generate {
            variant,
            games,
            nodes,
            random_plies,
            threads,
            seed,
            out,
        }) => {
            let cfg = tune::GenerateConfig {
                games,
                nodes: nodes.max(1),
                random_plies,
                threads: threads.clamp(1, 256),
                seed,
            };
            with_variant!(variant, V => run_tune_generate::<V>(&cfg, &out))
        }
        Command::Tune(TuneCommand::Fit {
            variant,
            data,
            weights,
            passes,
        }) => with_variant!(variant, V => run_tune_fit::<V>(&data, &weights, passes)),
        Command::Tune(TuneCommand::Spsa(args)) => run_spsa(*args),
        Command::Selfplay {
            variant,
            games,
            nodes,
            random_plies,
            threads,
            seed,
            adjudicate,
            out,
        } => {
            let cfg = damast::tools::selfplay::SelfplayConfig {
                games,
                nodes: nodes.max(1),
                random_plies,
                seed,
                threads: threads
                    .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
                    .clamp(1, 256),
                adjudicate: adjudicate.max(1),
                ..Default::default()
            };
            with_variant!(variant, V => run_selfplay::<V>(&cfg, &out))
        }
        Command::Train {
            lr_final: Some(x), ..
        } if !(x > 0.0 && x.is_finite()) => {
            Err(format!("--lr-final must be a positive step size, not {x}"))
        }
        Command::Train {
            variant,
            data,
            out,
            epochs,
            batch,
            lr,
            lr_final,
            lambda,
            seed,
            min_count,
            threads,
        } => {
            let cfg = damast::tools::train::TrainConfig {
                epochs,
                batch: batch.max(1),
                lr,
                lr_final,
                lambda: lambda.clamp(0.0, 1.0),
                seed,
                min_count,
                ..Default::default()
            };
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads.unwrap_or(0))
                .build()
                .map_err(|e| e.to_string());
            pool.and_then(|pool| {
                pool.install(|| with_variant!(variant, V => run_train::<V>(&cfg, &data, &out)))
            })
        }
        Command::Book(cmd) => run_book(cmd),
        Command::Egdb(cmd) => run_egdb(cmd),
        Command::Hub => return damast::protocol::hub::run(),
        Command::Serve {
            listen,
            open,
            max_games,
            idle_minutes,
            threads,
        } => run_serve(
            &damast::serve::ServeConfig {
                listen,
                max_games,
                idle_minutes,
                engines: threads,
            },
            open,
        ),
        Command::Match(args) => run_match(*args),
        Command::Dxp(args) => match run_dxp(args) {
            Err(damast::protocol::dxp::RunError::NotAccepted(e)) => {
                eprintln!("damast: {e}");
                return ExitCode::from(3);
            }
            other => other.map_err(|e| e.to_string()),
        },
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("damast: {e}");
            ExitCode::from(2)
        }
    }
}

/// `damast serve`: binds, says where, optionally opens a browser, and serves.
fn run_serve(config: &damast::serve::ServeConfig, open: bool) -> Result<(), String> {
    let server = damast::serve::Server::bind(config).map_err(|e| e.to_string())?;
    let addr = server.addr().unwrap_or(config.listen);
    let url = format!("http://{addr}/");
    println!("listening on {url}");
    let _ = std::io::Write::flush(&mut std::io::stdout());
    if open {
        let opener = if cfg!(target_os = "macos") {
            "open"
        } else {
            "xdg-open"
        };
        if let Err(e) = std::process::Command::new(opener).arg(&url).spawn() {
            eprintln!("damast: cannot open a browser ({opener}: {e}); open {url} yourself");
        }
    }
    server.run();
    Ok(())
}
