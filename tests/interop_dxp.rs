//! Interoperability: pydraughts' DXP client (DXPEngine, the initiator) plays complete games
//! against `damast dxp --listen` (the follower), through tests/interop/dxp_games.py. pydraughts
//! checks every move damast sends against its own board; the other side is played by
//! `damast hub` (through pydraughts' HubEngine) or by a seeded random mover.
//!
//! DXPEngine connects to 127.0.0.1:27531 unless told another port: the script passes the free
//! port damast picked, so this test never collides with anything on 27531.
//!
//! The Python interpreter is taken from DAMAST_PYTHON (scripts/test.sh sets it to a venv with
//! pydraughts), else `python3`. Without pydraughts the test fails: it never passes silently.

use std::io::{BufRead, BufReader, Read};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::mpsc::channel;
use std::sync::{Arc, Mutex};
use std::time::Duration;

const TIMEOUT: Duration = Duration::from_secs(240);

mod common;

#[test]
fn pydraughts_dxp_client_plays_complete_games() {
    let py = common::pydraughts_python(
        "import draughts; from draughts.engine import DXPEngine, HubEngine, Limit",
    );

    // the follower, on a free port
    let mut damast = Command::new(env!("CARGO_BIN_EXE_damast"))
        .args(["dxp", "--listen", "127.0.0.1:0", "--move-time", "0.05"])
        .env("RUST_LOG", "damast=info")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start damast dxp");
    let mut dout = damast.stdout.take().unwrap();
    let damast_out = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = dout.read_to_string(&mut s);
        s
    });
    let log = Arc::new(Mutex::new(String::new()));
    let sink = log.clone();
    let derr = damast.stderr.take().unwrap();
    let (port_tx, port_rx) = channel();
    std::thread::spawn(move || {
        for line in BufReader::new(derr).lines().map_while(Result::ok) {
            if let Some(addr) = line.strip_prefix("damast: listening on ") {
                let _ = port_tx.send(addr.rsplit(':').next().unwrap_or("").to_string());
            }
            let mut s = sink.lock().unwrap();
            s.push_str(&line);
            s.push('\n');
        }
    });
    let port = port_rx
        .recv_timeout(Duration::from_secs(10))
        .expect("damast prints the address it listens on");

    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/interop/dxp_games.py");
    let run = common::run_with_timeout(
        Command::new(&py)
            .arg(&script)
            .args(["--port", &port])
            .args(["--hub-engine", env!("CARGO_BIN_EXE_damast")])
            .args(["--max-plies", "160", "--timeout", "60"])
            .env_remove("RUST_LOG"),
        TIMEOUT,
    );
    let alive = matches!(damast.try_wait(), Ok(None));
    let _ = damast.kill();
    let _ = damast.wait();
    let (status, out, err) = (run.status, run.stdout, run.stderr);
    let games = damast_out.join().unwrap_or_default();
    std::thread::sleep(Duration::from_millis(50));
    let log = log.lock().unwrap().clone();
    println!("{out}\n({:.1} s)", run.seconds);
    eprintln!("{err}");
    let status = status.unwrap_or_else(|| {
        panic!("the games took more than {TIMEOUT:?}:\n{out}\n{err}\ndamast:\n{log}")
    });
    let last = out.lines().last().unwrap_or("");
    assert!(
        status.success(),
        "dxp_games.py failed ({status}):\n{out}\n{err}\ndamast:\n{log}"
    );
    assert!(
        last.ends_with(" passed, 0 failed") && !last.starts_with("0 "),
        "last line: '{last}'"
    );
    assert!(alive, "damast exited during the games:\n{log}");
    // damast's side: one PDN record per game, no protocol error, no broken-off game
    let played = out.lines().filter(|l| l.starts_with("game ")).count();
    let records = games.matches("[Event \"DXP game\"]").count();
    assert_eq!(records, played, "damast's records:\n{games}\n{log}");
    for bad in [
        "ending the game",
        "disconnected during",
        "ERROR",
        "panicked",
    ] {
        assert!(!log.contains(bad), "damast logged '{bad}':\n{log}");
    }
}
