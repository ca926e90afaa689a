//! DXP, the DamExchange Protocol: engine-versus-engine play over TCP (docs: dxp-protocol.md).
//!
//! Either side of a TCP connection can take either DXP role: listen or connect, then follow (accept
//! the peer's game requests and play them) or initiate (run a match of our own).
//!
//! - [`message`]: message types, parser and writer (pure);
//! - [`framing`]: splitting the byte stream on NUL (pure);
//! - [`clock`]: the GAMEREQ's time control as search limits (pure);
//! - `link`: a connection (reader thread, writer);
//! - `player`: the engine on its search thread;
//! - `play`: a game in progress, shared by both roles;
//! - `follower` and `initiator`: the two roles;
//! - [`record`]: finished games, as PDN.
//!
//! Conformance with the real peers (Scan, Moby Dam): GAMEEND is sent only by the side to move, in
//! place of a move, and answered with reason 0; the GAMEREQ's moves (when not `000`) are the
//! length of the game, with the minutes as the time for them: the initiator ends the game once
//! both sides have played that many moves, adjudicated by evaluation (see `initiator`). A peer
//! that answers no game request within the timeout did not accept: [`RunError::NotAccepted`].

pub mod clock;
mod follower;
pub mod framing;
mod initiator;
mod link;
pub mod message;
mod play;
mod player;
pub mod record;

use std::io::Write;
use std::net::{SocketAddr, TcpListener, TcpStream, ToSocketAddrs};
use std::time::{Duration, Instant};

use crate::core::{fen, pdn, Game, International, Position};
use crate::engine::Options;

pub use initiator::{MatchConfig, MatchReport};
use link::Link;
use player::Player;

/// The customary DXP address: loopback, port 27531.
pub const DEFAULT_ADDR: &str = "127.0.0.1:27531";

/// How long `--connect` keeps trying to reach the peer.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// How we play, whatever the role.
#[derive(Clone, Debug)]
pub struct Settings {
    /// Our name in GAMEREQ and GAMEACC.
    pub name: String,
    /// Engine options (threads, hash size, level).
    pub engine: Options,
    /// Caps on every search, on top of the clock.
    pub caps: clock::Caps,
    /// Game time in seconds assumed when a GAMEREQ gives 0 minutes.
    pub zero_minutes: f64,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            name: format!("Damast {}", env!("CARGO_PKG_VERSION")),
            engine: Options::default(),
            caps: clock::Caps::default(),
            zero_minutes: 30.0,
        }
    }
}

/// Which end of the TCP connection we are.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Endpoint {
    /// Listen on this address and wait for the peer.
    Listen(String),
    /// Connect to the peer at this address.
    Connect(String),
}

fn resolve(addr: &str) -> Result<SocketAddr, String> {
    addr.to_socket_addrs()
        .map_err(|e| format!("bad address '{addr}': {e} (expected HOST:PORT)"))?
        .next()
        .ok_or_else(|| format!("address '{addr}' resolves to nothing"))
}

fn connect(addr: &str) -> Result<TcpStream, String> {
    let target = resolve(addr)?;
    let until = Instant::now() + CONNECT_TIMEOUT;
    loop {
        match TcpStream::connect_timeout(&target, Duration::from_secs(2)) {
            Ok(s) => return Ok(s),
            Err(e) if Instant::now() < until => {
                log::debug!("dxp: cannot connect to {target} yet: {e}");
                std::thread::sleep(Duration::from_millis(100));
            }
            Err(e) => return Err(format!("cannot connect to {target}: {e}")),
        }
    }
}

fn listen(addr: &str) -> Result<TcpListener, String> {
    let target = resolve(addr)?;
    let l = TcpListener::bind(target).map_err(|e| format!("cannot listen on {target}: {e}"))?;
    let local = l.local_addr().map_err(|e| e.to_string())?;
    // the address actually bound (port 0 picks a free port): tools and tests read this line
    eprintln!("damast: listening on {local}");
    Ok(l)
}

fn accept(l: &TcpListener) -> Result<TcpStream, String> {
    loop {
        match l.accept() {
            Ok((s, a)) => {
                log::info!("dxp: connection from {a}");
                return Ok(s);
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => {
                // e.g. too many open files: wait and try again rather than give up
                log::warn!("dxp: accept failed: {e}");
                std::thread::sleep(Duration::from_millis(200));
            }
        }
    }
}

/// Why [`run`] failed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RunError {
    /// The connection could not be made, or the match stopped early for another reason.
    Failed(String),
    /// As initiator: the peer did not accept a game (it answered no GAMEREQ in time, refused
    /// every game, or plays no games at all).
    NotAccepted(String),
}

impl RunError {
    /// The process exit status for this error: 3 when the peer did not accept, else 2.
    pub fn exit_code(&self) -> u8 {
        match self {
            RunError::Failed(_) => 2,
            RunError::NotAccepted(_) => 3,
        }
    }
}

impl std::fmt::Display for RunError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RunError::Failed(s) | RunError::NotAccepted(s) => f.write_str(s),
        }
    }
}

impl From<String> for RunError {
    fn from(s: String) -> Self {
        RunError::Failed(s)
    }
}

/// Runs DXP: as follower when `initiate` is `None`, else as initiator of that match. A listening
/// follower serves one connection after another and never returns; every other form returns when
/// its connection ends. The initiator prints the result table and every game as PDN.
pub fn run(
    endpoint: &Endpoint,
    settings: &Settings,
    initiate: Option<&MatchConfig>,
) -> Result<(), RunError> {
    let mut player = Player::new(settings.engine.clone());
    let mut games = 0usize;
    match (endpoint, initiate) {
        (Endpoint::Listen(addr), None) => {
            let l = listen(addr)?;
            loop {
                let stream = accept(&l)?;
                match Link::new(stream) {
                    Ok(mut link) => {
                        follower::serve(&mut link, settings, &mut player, &mut games);
                        link.close();
                        log::info!("dxp: connection closed; waiting for the next one");
                    }
                    Err(e) => log::warn!("dxp: cannot use the connection: {e}"),
                }
            }
        }
        (Endpoint::Connect(addr), None) => {
            let mut link = Link::new(connect(addr)?).map_err(|e| e.to_string())?;
            follower::serve(&mut link, settings, &mut player, &mut games);
            link.close();
            Ok(())
        }
        (endpoint, Some(cfg)) => {
            let stream = match endpoint {
                Endpoint::Listen(addr) => accept(&listen(addr)?)?,
                Endpoint::Connect(addr) => connect(addr)?,
            };
            let mut link = Link::new(stream).map_err(|e| e.to_string())?;
            let site = link.peer().to_string();
            let report = initiator::run(&mut link, settings, &mut player, cfg);
            link.close();
            let mut out = std::io::stdout().lock();
            let _ = write!(out, "{}", initiator::table(&report, &settings.name));
            for r in &report.records {
                let _ = write!(out, "\n{}", r.pdn("DXP match", &site));
            }
            let _ = out.flush();
            match report.problem {
                Some(p) if report.not_accepted => Err(RunError::NotAccepted(format!(
                    "the match stopped early: {p}"
                ))),
                Some(p) => Err(RunError::Failed(format!("the match stopped early: {p}"))),
                None => Ok(()),
            }
        }
    }
}

/// Reads an openings file: either one FEN per line (blank lines and lines starting with `#` or
/// `%` are skipped), or PDN games, each giving the position after its moves.
pub fn load_openings(path: &std::path::Path) -> Result<Vec<Position<International>>, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let lines: Vec<&str> = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#') && !l.starts_with('%'))
        .collect();
    let is_fen = |l: &&str| l.starts_with("W:") || l.starts_with("B:");
    let openings = if !lines.is_empty() && lines.iter().all(is_fen) {
        lines
            .iter()
            .enumerate()
            .map(|(i, l)| {
                fen::parse::<International>(l)
                    .map_err(|e| format!("{} line {}: {e}", path.display(), i + 1))
            })
            .collect::<Result<Vec<_>, _>>()?
    } else {
        let games = pdn::parse(&text).map_err(|e| format!("{}: {e}", path.display()))?;
        games
            .iter()
            .enumerate()
            .map(|(i, g)| {
                g.to_game::<International>()
                    .map(|game: Game<International>| *game.position())
                    .map_err(|e| format!("{} game {}: {e}", path.display(), i + 1))
            })
            .collect::<Result<Vec<_>, _>>()?
    };
    if openings.is_empty() {
        return Err(format!("{}: no opening found", path.display()));
    }
    for (i, p) in openings.iter().enumerate() {
        if crate::core::movegen::legal_moves(p).is_empty() {
            return Err(format!(
                "{}: opening {} has no legal move",
                path.display(),
                i + 1
            ));
        }
    }
    Ok(openings)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with_file(name: &str, text: &str) -> Result<Vec<Position<International>>, String> {
        let path =
            std::env::temp_dir().join(format!("damast-openings-{}-{name}", std::process::id()));
        std::fs::write(&path, text).unwrap();
        let r = load_openings(&path);
        let _ = std::fs::remove_file(&path);
        r
    }

    #[test]
    fn openings_from_fen_lines_or_pdn_games() {
        let fens = with_file("fen", "# two\nW:W31-50:B1-20\n\nB:W28,K46:B12,13\n").unwrap();
        assert_eq!(fens.len(), 2);
        assert_eq!(fens[0], Position::start());
        let pdn = with_file(
            "pdn",
            "[Event \"a\"]\n1. 32-28 19-23 *\n\n[FEN \"B:W28,K46:B12,13\"]\n*\n",
        )
        .unwrap();
        assert_eq!(pdn.len(), 2);
        let mut g: Game<International> = Game::default();
        g.play_text("32-28").unwrap();
        g.play_text("19-23").unwrap();
        assert_eq!(pdn[0], *g.position());
        assert_eq!(pdn[1], fens[1]);
        assert!(with_file("empty", "# nothing\n").is_err());
        assert!(with_file("bad", "W:W31-50:B1-20\nW:X\n")
            .unwrap_err()
            .contains("line 2"));
        assert!(with_file("lost", "W:W46:B41,37\n")
            .unwrap_err()
            .contains("no legal move"));
    }
}
