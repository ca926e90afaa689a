//! `damast hub`: the Hub protocol as clients speak it, driven through the real binary with piped
//! standard input and output. A reader thread and timeouts make a hang fail the test instead of
//! blocking it.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use damast::protocol::hub::{parse_line, quote, Line};
use proptest::prelude::*;

const START: &str = "Wbbbbbbbbbbbbbbbbbbbbeeeeeeeeeewwwwwwwwwwwwwwwwwwww";
const SHORT: Duration = Duration::from_secs(5);
const LONG: Duration = Duration::from_secs(30);

/// A running `damast hub` process.
struct Hub {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
    stderr: Arc<Mutex<String>>,
}

impl Hub {
    fn start() -> Hub {
        let mut child = Command::new(env!("CARGO_BIN_EXE_damast"))
            .arg("hub")
            .env_remove("RUST_LOG")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start damast hub");
        let stdout = child.stdout.take().unwrap();
        let (tx, lines) = channel();
        thread::spawn(move || {
            let mut r = BufReader::new(stdout);
            let mut buf = Vec::new();
            loop {
                buf.clear();
                match r.read_until(b'\n', &mut buf) {
                    Ok(0) | Err(_) => return,
                    Ok(_) => {
                        let complete = buf.ends_with(b"\n");
                        let text = String::from_utf8_lossy(&buf)
                            .trim_end_matches('\n')
                            .to_string();
                        // a partial last line is passed on marked, so that a test can fail on it
                        let text = if complete {
                            text
                        } else {
                            format!("PARTIAL LINE: {text}")
                        };
                        if tx.send(text).is_err() {
                            return;
                        }
                    }
                }
            }
        });
        let stderr = Arc::new(Mutex::new(String::new()));
        let mut err = child.stderr.take().unwrap();
        let sink = stderr.clone();
        thread::spawn(move || {
            let mut buf = [0u8; 4096];
            while let Ok(n) = std::io::Read::read(&mut err, &mut buf) {
                if n == 0 {
                    break;
                }
                sink.lock()
                    .unwrap()
                    .push_str(&String::from_utf8_lossy(&buf[..n]));
            }
        });
        let stdin = child.stdin.take();
        Hub {
            child,
            stdin,
            lines,
            stderr,
        }
    }

    /// Starts an engine and runs the handshake up to `ready`.
    fn ready() -> Hub {
        Hub::ready_with(&[])
    }

    /// Starts an engine, sends `params` after `wait` and runs the handshake up to `ready`.
    fn ready_with(params: &[&str]) -> Hub {
        let mut h = Hub::start();
        h.send("hub");
        h.until("wait", SHORT);
        for p in params {
            h.send(p);
        }
        h.send("init");
        h.until("ready", SHORT);
        h
    }

    fn send_bytes(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().expect("stdin is open");
        stdin.write_all(bytes).expect("write to the engine");
        stdin.write_all(b"\n").expect("write to the engine");
        stdin.flush().expect("flush to the engine");
    }

    fn send(&mut self, line: &str) {
        self.send_bytes(line.as_bytes());
    }

    fn recv(&self, timeout: Duration) -> Option<String> {
        match self.lines.recv_timeout(timeout) {
            Ok(l) => {
                assert!(!l.starts_with("PARTIAL LINE"), "{l}");
                Some(l)
            }
            Err(RecvTimeoutError::Timeout) => None,
            Err(RecvTimeoutError::Disconnected) => None,
        }
    }

    /// Reads lines until one whose command is `command`; returns the lines before it and it.
    fn until(&self, command: &str, timeout: Duration) -> (Vec<String>, String) {
        let end = Instant::now() + timeout;
        let mut before = Vec::new();
        loop {
            let left = end.saturating_duration_since(Instant::now());
            match self.recv(left) {
                Some(l) => {
                    if l.split(' ').next() == Some(command) {
                        return (before, l);
                    }
                    before.push(l);
                }
                None => panic!(
                    "no '{command}' within {timeout:?}; got {before:?}; stderr: {}",
                    self.stderr.lock().unwrap()
                ),
            }
        }
    }

    /// Sends `ping` and returns every line before the `pong`.
    fn sync(&mut self) -> Vec<String> {
        self.send("ping");
        self.until("pong", LONG).0
    }

    /// Searches and returns the info lines and the `done` line.
    fn search(&mut self, pos: &str, level: &[&str], go: &str) -> (Vec<String>, String) {
        self.send(pos);
        for l in level {
            self.send(l);
        }
        self.send(go);
        self.until("done", LONG)
    }

    fn close_stdin(&mut self) {
        self.stdin = None;
    }

    fn wait_exit(&mut self, timeout: Duration) -> bool {
        let end = Instant::now() + timeout;
        while Instant::now() < end {
            if let Ok(Some(_)) = self.child.try_wait() {
                return true;
            }
            thread::sleep(Duration::from_millis(2));
        }
        false
    }
}

impl Drop for Hub {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Splits an output line's arguments as pydraughts does, checking that every token is name=value.
fn tokens(line: &str) -> Vec<(String, String)> {
    let l = parse_line(line.as_bytes()).unwrap_or_else(|e| panic!("'{line}' does not parse: {e}"));
    let rest = line[l.command.len()..].trim();
    // every token of an output line has exactly one '=' outside quotes
    let mut in_quote = false;
    let mut eq = 0;
    for c in rest.chars().chain(std::iter::once(' ')) {
        match c {
            '"' => in_quote = !in_quote,
            '=' if !in_quote => eq += 1,
            ' ' if !in_quote => {
                assert!(
                    eq == 1 || (eq == 0 && rest.is_empty()),
                    "token without one '=' in '{line}'"
                );
                eq = 0;
            }
            _ => {}
        }
    }
    l.args
}

fn args_of(line: &str) -> Line {
    parse_line(line.as_bytes()).unwrap()
}

fn done_move(done: &str) -> Option<String> {
    args_of(done).get("move").map(str::to_string)
}

fn legal_moves(fen: &str) -> Vec<String> {
    let out = Command::new(env!("CARGO_BIN_EXE_damast"))
        .args(["moves", "--fen", fen])
        .output()
        .unwrap();
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| l.split(' ').next().unwrap().to_string())
        .collect()
}

fn check_info(line: &str) {
    let args = tokens(line);
    for (name, value) in &args {
        match name.as_str() {
            "depth" | "nodes" => {
                assert!(value.parse::<u64>().unwrap() > 0, "{line}")
            }
            "mean-depth" | "time" | "nps" => assert!(value.parse::<f64>().unwrap() > 0.0, "{line}"),
            "score" => {
                assert!(!value.starts_with('+'), "{line}");
                let dec = value.split('.').nth(1).expect("two decimals");
                assert_eq!(dec.len(), 2, "{line}");
                value.parse::<f64>().unwrap();
            }
            "pv" => assert!(!value.is_empty(), "{line}"),
            other => panic!("unknown info field {other} in {line}"),
        }
    }
    let raw = line.split_once(" pv=").map(|x| x.1);
    if let Some(pv) = raw {
        let quoted = pv.starts_with('"');
        let n = args_of(line).get("pv").unwrap().split(' ').count();
        assert_eq!(quoted, n > 1, "pv quoting in {line}");
    }
}

#[test]
fn handshake() {
    let mut h = Hub::start();
    let t = Instant::now();
    h.send("hub");
    let (lines, _) = h.until("wait", SHORT);
    let id = &lines[0];
    assert_eq!(
        id,
        &format!(
            "id name=Damast version={} author=\"Damast team\" country=NL",
            env!("CARGO_PKG_VERSION")
        )
    );
    tokens(id);
    let mut names = Vec::new();
    for p in &lines[1..] {
        assert!(p.starts_with("param "), "{p}");
        let a = tokens(p);
        let get = |k: &str| a.iter().find(|x| x.0 == k).map(|x| x.1.clone());
        names.push(get("name").unwrap());
        let ty = get("type").unwrap();
        assert!(get("value").is_some(), "{p}");
        match ty.as_str() {
            "int" => {
                let (lo, hi) = (get("min").unwrap(), get("max").unwrap());
                let v: i64 = get("value").unwrap().parse().unwrap();
                assert!(
                    lo.parse::<i64>().unwrap() <= v && v <= hi.parse::<i64>().unwrap(),
                    "{p}"
                );
            }
            "enum" => {
                let values = get("values").unwrap();
                assert!(
                    values
                        .split(' ')
                        .any(|v| Some(v.to_string()) == get("value")),
                    "{p}"
                );
            }
            "bool" => assert!(["true", "false"].contains(&get("value").unwrap().as_str())),
            "string" => assert!(get("value").is_some(), "{p}"),
            other => panic!("type {other}"),
        }
    }
    assert_eq!(
        names,
        [
            "variant",
            "threads",
            "tt-size",
            "ponder",
            "level",
            "strength",
            "eval",
            "eval-file",
            "book",
            "book-ply",
            "book-margin",
            "book-file",
            "egdb-path",
            "egdb-pieces",
            "move-overhead",
            "move-limit"
        ]
    );
    assert!(lines[1].contains("values=\"normal international brazilian russian english italian spanish pool czech platform filipino thai\""));
    h.send("init");
    let (extra, _) = h.until("ready", SHORT);
    assert!(extra.is_empty(), "{extra:?}");
    eprintln!("hub -> ready: {:?}", t.elapsed());
    assert!(h.sync().is_empty());
    h.send("quit");
    assert!(h.wait_exit(SHORT), "quit ends the process");
}

#[test]
fn parameters() {
    let mut h = Hub::start();
    let good = [
        ("variant", "normal"),
        ("variant", "international"),
        ("threads", "2"),
        ("threads", "64"),
        ("threads", "1"),
        ("tt-size", "1"),
        ("tt-size", "16"),
        ("ponder", "true"),
        ("ponder", "false"),
        ("level", "easy"),
        ("level", "normal"),
        ("level", "expert"),
        ("strength", "0"),
        ("strength", "100"),
        ("book", "true"),
        ("move-overhead", "0"),
        ("move-overhead", "250"),
        ("some-bot-option", "\"a b c\""),
    ];
    for (n, v) in good {
        h.send(&format!("set-param name={n} value={v}"));
        assert!(h.sync().is_empty(), "{n}={v} answered");
    }
    let bad = [
        ("threads", "0"),
        ("threads", "65"),
        ("threads", "-1"),
        ("threads", "two"),
        ("threads", "1.5"),
        ("tt-size", "0"),
        ("tt-size", "4097"),
        ("ponder", "maybe"),
        ("level", "hard"),
        ("strength", "101"),
        ("strength", "-3"),
        ("variant", "frisian"),
        ("move-overhead", "-5"),
        ("move-overhead", "10001"),
    ];
    for (n, v) in bad {
        h.send(&format!("set-param name={n} value={v}"));
        let got = h.sync();
        assert_eq!(got.len(), 1, "{n}={v}: {got:?}");
        assert!(
            got[0].starts_with("error message=") && got[0].contains(n),
            "{got:?}"
        );
    }
    // bad values left the good ones in force
    h.send("set-param name=threads value=2");
    h.send("set-param name=threads value=99");
    h.send("set-param name=level value=normal");
    h.send("hub");
    let (lines, _) = h.until("wait", SHORT);
    let err: Vec<_> = lines.iter().filter(|l| l.starts_with("error")).collect();
    assert_eq!(err.len(), 1, "{lines:?}");
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("param name=threads value=2 ")),
        "{lines:?}"
    );
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("param name=tt-size value=16 ")),
        "{lines:?}"
    );
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("param name=level value=normal ")),
        "{lines:?}"
    );
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("param name=strength value=50 ")),
        "{lines:?}"
    );
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("param name=move-overhead value=250 ")),
        "{lines:?}"
    );
    h.send("init");
    h.until("ready", SHORT);
    let (_, done) = h.search("pos start", &["level depth=3"], "go think");
    assert!(
        legal_moves("W:W31-50:B1-20").contains(&done_move(&done).unwrap()),
        "{done}"
    );
}

#[test]
fn variants() {
    let mut h = Hub::start();
    h.send("set-param name=variant value=brazilian");
    h.send("init");
    h.until("ready", SHORT);
    // 8x8: 33 characters; the 10x10 start position is refused
    h.send(&format!("pos pos={START}"));
    assert_eq!(h.sync(), ["error message=\"bad position\""]);
    let start8 = format!("W{}{}{}", "b".repeat(12), "e".repeat(8), "w".repeat(12));
    let (_, done) = h.search(&format!("pos pos={start8}"), &["level depth=4"], "go think");
    assert!(
        ["21-17", "22-17", "22-18", "23-18", "23-19", "24-19", "24-20"]
            .contains(&done_move(&done).unwrap().as_str()),
        "{done}"
    );
    h.send("set-param name=variant value=russian");
    let (_, done) = h.search(
        "pos start moves=\"22-18 11-15 18x11\"",
        &["level depth=3"],
        "go think",
    );
    assert!(done.starts_with("done move="), "{done}");
    // english: black (on 1-12) moves first from `pos start`; italian: white, numbered from a8
    h.send("set-param name=variant value=english");
    let (_, done) = h.search("pos start", &["level depth=4"], "go think");
    assert!(
        ["9-13", "9-14", "10-14", "10-15", "11-15", "11-16", "12-16"]
            .contains(&done_move(&done).unwrap().as_str()),
        "{done}"
    );
    h.send("set-param name=variant value=italian");
    let (_, done) = h.search("pos start", &["level depth=4"], "go think");
    assert!(
        ["21-17", "21-18", "22-18", "22-19", "23-19", "23-20", "24-20"]
            .contains(&done_move(&done).unwrap().as_str()),
        "{done}"
    );
    // platform dama: 10x10, black first
    h.send("set-param name=variant value=platform");
    let (_, done) = h.search("pos start", &["level depth=3"], "go think");
    assert!(
        ["16-21", "17-21", "17-22", "18-22", "18-23", "19-23", "19-24", "20-24", "20-25"]
            .contains(&done_move(&done).unwrap().as_str()),
        "{done}"
    );
    h.send("set-param name=variant value=checkers-of-mars");
    assert_eq!(h.sync(), ["error message=\"bad value for variant\""]);
    h.send("set-param name=variant value=normal");
    let (_, done) = h.search("pos start", &["level depth=2"], "go think");
    assert!(
        legal_moves("W:W31-50:B1-20").contains(&done_move(&done).unwrap()),
        "{done}"
    );
}

#[test]
fn every_level_form() {
    // without the book, so that every search from the start position is a search
    let mut h = Hub::ready_with(&["set-param name=book value=false"]);
    let start_moves = legal_moves("W:W31-50:B1-20");
    let forms: &[(&[&str], f64)] = &[
        (&["level depth=1"], 2.0),
        (&["level depth=5"], 5.0),
        (&["level nodes=3000"], 5.0),
        (&["level move-time=0.3"], 2.0),
        (&["level move-time=1"], 3.0),
        (&["level time=2"], 3.0),
        (&["level time=10 inc=0.5"], 5.0),
        (&["level time=1.9 inc=0.1"], 3.0),
        (&["level moves=20 time=4"], 3.0),
        (&["level moves=1 time=0.25"], 1.0),
        (&["level moves=40 time=20.587 inc=0"], 5.0),
        (&["level time=0.02"], 1.0),
        (&["level time=-0.05 inc=0.1"], 1.0),
        (&["level depth=30", "level move-time=0.4"], 2.0),
        (&["level nodes=1000000000", "level depth=4"], 10.0),
        (&["level depth=3 move-time=5"], 5.0),
    ];
    for (levels, max) in forms {
        let t = Instant::now();
        let (infos, done) = h.search("pos start", levels, "go think");
        let took = t.elapsed().as_secs_f64();
        assert!(took < *max, "{levels:?} took {took:.3}s");
        assert!(
            start_moves.contains(&done_move(&done).unwrap()),
            "{levels:?}: {done}"
        );
        for l in &infos {
            check_info(l);
        }
        if let Some(d) = levels.iter().find_map(|l| l.strip_prefix("level depth=")) {
            let d: u32 = d.split(' ').next().unwrap().parse().unwrap();
            let deepest = infos
                .iter()
                .filter_map(|l| args_of(l).get("depth").map(|x| x.parse::<u32>().unwrap()))
                .max();
            assert!(deepest.unwrap_or(0) <= d, "{levels:?}: {infos:?}");
        }
    }
    // limits are consumed by go and reset by pos: without a level the default time (1 s) applies
    h.send("level depth=1");
    h.send("pos start");
    let t = Instant::now();
    h.send("go think");
    h.until("done", LONG);
    assert!(
        t.elapsed() > Duration::from_millis(500),
        "pos reset the limits: {:?}",
        t.elapsed()
    );
    h.send("pos start");
    h.send("level depth=1");
    h.send("go think");
    h.until("done", LONG);
    let t = Instant::now();
    h.send("go think");
    h.until("done", LONG);
    assert!(
        t.elapsed() > Duration::from_millis(500),
        "go consumed the limits: {:?}",
        t.elapsed()
    );
    // level infinite: only stop ends it
    h.send("pos start");
    h.send("level infinite");
    h.send("go analyze");
    assert!(
        h.recv(Duration::from_millis(100)).is_some(),
        "info lines come"
    );
    thread::sleep(Duration::from_millis(700));
    let before = h.sync();
    assert!(before.iter().all(|l| l.starts_with("info ")), "{before:?}");
    h.send("stop");
    let (_, done) = h.until("done", SHORT);
    assert!(start_moves.contains(&done_move(&done).unwrap()), "{done}");
    assert!(h.sync().is_empty(), "exactly one done");
}

#[test]
fn ping_is_answered_during_a_search() {
    let mut h = Hub::ready();
    h.send("pos start");
    h.send("level infinite");
    h.send("go analyze");
    for _ in 0..5 {
        thread::sleep(Duration::from_millis(100));
        let t = Instant::now();
        let before = h.sync();
        assert!(t.elapsed() < Duration::from_secs(1));
        assert!(
            before.iter().all(|l| l.starts_with("info ")),
            "no done before stop: {before:?}"
        );
    }
    let t = Instant::now();
    h.send("stop");
    let (before, done) = h.until("done", SHORT);
    assert!(
        t.elapsed() < Duration::from_secs(1),
        "stop took {:?}",
        t.elapsed()
    );
    assert!(before.iter().all(|l| l.starts_with("info ")));
    assert!(done.starts_with("done move="), "{done}");
    assert!(h.sync().is_empty(), "exactly one done");
}

#[test]
fn stop_and_other_commands_end_a_search() {
    let mut h = Hub::ready();
    // stop during go think with a long time
    h.send("pos start");
    h.send("level move-time=60");
    h.send("go think");
    thread::sleep(Duration::from_millis(300));
    let t = Instant::now();
    h.send("stop");
    h.until("done", SHORT);
    assert!(t.elapsed() < Duration::from_secs(1));
    // any other line ends the search with done, then is handled
    h.send("level infinite");
    h.send("go analyze");
    thread::sleep(Duration::from_millis(200));
    h.send("pos start moves=\"32-28 19-23\"");
    h.send("level depth=3");
    h.send("go think");
    let (_, d1) = h.until("done", SHORT);
    let (_, d2) = h.until("done", LONG);
    assert!(d1.starts_with("done move="), "{d1}");
    assert_eq!(
        done_move(&d2).as_deref(),
        Some("28x19x23"),
        "the forced capture"
    );
    // stop and ponder-hit with no search are ignored
    h.send("stop");
    h.send("ponder-hit");
    assert!(h.sync().is_empty());
    // every go gets one done, even in quick succession
    for _ in 0..20 {
        h.send("level depth=2");
        h.send("go think");
    }
    for _ in 0..20 {
        h.until("done", SHORT);
    }
    let rest = h.sync();
    assert!(rest.iter().all(|l| l.starts_with("info ")), "{rest:?}");
}

#[test]
fn ponder_then_ponder_hit() {
    let mut h = Hub::ready();
    h.send("set-param name=ponder value=true");
    h.send("pos start moves=\"32-28 18-23\"");
    h.send("level time=1 inc=0.1");
    h.send("go ponder");
    thread::sleep(Duration::from_millis(1500));
    let before = h.sync();
    assert!(
        before.iter().all(|l| l.starts_with("info ")),
        "pondering goes on: {before:?}"
    );
    let t = Instant::now();
    h.send("ponder-hit");
    let (_, done) = h.until("done", SHORT);
    assert!(
        t.elapsed() < Duration::from_millis(1500),
        "ponder-hit then {:?}",
        t.elapsed()
    );
    let m = done_move(&done).unwrap();
    assert!(
        legal_moves("W:W31,33-50,28:B1-17,19,20,23").contains(&m),
        "{done}"
    );
    assert!(h.sync().is_empty());
    // ponder then stop (the opponent played another move)
    h.send("pos start moves=\"32-28 18-23\"");
    h.send("level time=1 inc=0.1");
    h.send("go ponder");
    thread::sleep(Duration::from_millis(200));
    h.send("stop");
    let (_, done) = h.until("done", SHORT);
    assert!(done.starts_with("done"), "{done}");
    assert!(h.sync().is_empty());
}

#[test]
fn eof_during_a_search_ends_the_process() {
    let mut h = Hub::ready();
    h.send("pos start");
    h.send("level infinite");
    h.send("go analyze");
    thread::sleep(Duration::from_millis(300));
    let t = Instant::now();
    h.close_stdin();
    assert!(
        h.wait_exit(Duration::from_secs(2)),
        "still running after EOF"
    );
    eprintln!("EOF -> exit: {:?}", t.elapsed());
    while let Some(l) = h.recv(Duration::from_millis(100)) {
        assert!(!l.is_empty());
    }
    // and EOF while idle, and quit during a search
    let mut h = Hub::ready();
    h.close_stdin();
    assert!(h.wait_exit(Duration::from_secs(2)));
    let mut h = Hub::ready();
    h.send("level infinite");
    h.send("go analyze");
    thread::sleep(Duration::from_millis(100));
    h.send("quit");
    assert!(h.wait_exit(Duration::from_secs(2)));
}

#[test]
fn terminal_positions_answer_a_bare_done() {
    let mut h = Hub::ready();
    // white to move without pieces
    let no_white = format!("W{}{}", "b".repeat(20), "e".repeat(30));
    // white to move, its one man on 46 blocked by black men on 41 and 37
    let mut blocked: Vec<u8> = format!("W{}", "e".repeat(50)).into_bytes();
    blocked[46] = b'w';
    blocked[41] = b'b';
    blocked[37] = b'b';
    let blocked = String::from_utf8(blocked).unwrap();
    for pos in [no_white, blocked] {
        for go in ["go think", "go analyze", "go ponder"] {
            let (_, done) = h.search(&format!("pos pos={pos}"), &["level move-time=1"], go);
            assert_eq!(done, "done", "{pos} {go}");
        }
        let (_, done) = h.search(&format!("pos pos={pos}"), &["level infinite"], "go analyze");
        assert_eq!(done, "done");
        assert!(h.sync().is_empty());
    }
    // a game that ends by its moves: every black piece captured
    let mut p: Vec<u8> = format!("W{}", "e".repeat(50)).into_bytes();
    p[28] = b'w';
    p[23] = b'b';
    let p = String::from_utf8(p).unwrap();
    let (_, done) = h.search(
        &format!("pos pos={p} moves=\"28x19x23\""),
        &["level depth=3"],
        "go think",
    );
    assert_eq!(done, "done");
}

#[test]
fn game_history_is_kept() {
    let mut h = Hub::ready();
    // kings shuffling: a long move list with repetitions is accepted
    let mut p: Vec<u8> = format!("W{}", "e".repeat(50)).into_bytes();
    p[46] = b'W';
    p[5] = b'B';
    p[20] = b'b';
    let p = String::from_utf8(p).unwrap();
    let cycle = "46-41 5-10 41-46 10-5";
    let moves = [cycle; 2].join(" ");
    let (_, done) = h.search(
        &format!("pos pos={p} moves=\"{moves}\""),
        &["level depth=4"],
        "go think",
    );
    assert!(done.starts_with("done move="), "{done}");
    // captures with the captured squares in any order
    let m = "32-28 19-23 28x19 14x23 37-32 10-14 32-28 23x32 38x27";
    let (_, done) = h.search(
        &format!("pos pos={START} moves=\"{m}\""),
        &["level depth=2"],
        "go think",
    );
    assert!(done.starts_with("done move="), "{done}");
    // a long game from pydraughts-like clients: the whole game each time
    let mut played: Vec<String> = Vec::new();
    for _ in 0..30 {
        let pos = if played.is_empty() {
            format!("pos pos={START}")
        } else {
            format!("pos pos={START} moves=\"{}\"", played.join(" "))
        };
        let (_, done) = h.search(&pos, &["level depth=2"], "go think");
        match done_move(&done) {
            Some(m) => played.push(m),
            None => break,
        }
    }
    assert!(played.len() >= 20, "{played:?}");
}

/// One bad line: exactly one `error` line answers it, and the engine goes on.
fn expect_one_error(h: &mut Hub, bytes: &[u8]) {
    h.send_bytes(bytes);
    let got = h.sync();
    let shown = String::from_utf8_lossy(&bytes[..bytes.len().min(80)]).into_owned();
    assert_eq!(got.len(), 1, "{shown:?} got {got:?}");
    assert!(
        got[0].starts_with("error message=\""),
        "{shown:?} got {got:?}"
    );
    let a = tokens(&got[0]);
    assert_eq!(a.len(), 1, "{got:?}");
    assert!(!a[0].1.is_empty());
}

#[test]
fn malformed_input_gets_one_error_each() {
    let mut h = Hub::ready();
    // a position where one move only is legal: the capture 28x19x23
    let forced = format!("pos pos={START} moves=\"32-28 19-23\"");
    h.send(&forced);
    h.send("level depth=3");
    let long_pos = format!("pos pos={START}e");
    let short_pos = format!("pos pos={}", &START[..50]);
    let white_on_1 = format!("pos pos=Ww{}", &START[2..]);
    let black_on_46 = format!("pos pos=W{}b{}", &START[1..46], &START[47..]);
    let no_black = format!("pos pos=W{}{}", "e".repeat(30), "w".repeat(20));
    let lowercase_side = format!("pos pos=w{}", &START[1..]);
    let bad_letter = format!("pos pos=W{}x{}", &START[1..25], &START[26..]);
    let unicode = format!("pos pos=W{}é{}", &START[1..25], &START[26..]);
    let overlong = format!("pos pos={START} moves=\"{}\"", "32-28 ".repeat(200_000));
    let overlong_word = "x".repeat(1_500_000);
    let mut garbage: Vec<u8> = Vec::new();
    let mut x: u32 = 12345;
    for _ in 0..500 {
        x = x.wrapping_mul(1_103_515_245).wrapping_add(12345);
        let b = (x >> 16) as u8;
        if b != b'\n' {
            garbage.push(b);
        }
    }
    let cases: Vec<Vec<u8>> = vec![
        // syntax
        b"".to_vec(),
        b"   ".to_vec(),
        b"\t".to_vec(),
        b"=".to_vec(),
        b"=hub".to_vec(),
        b"= ping".to_vec(),
        b"\"ping\"".to_vec(),
        b"foo".to_vec(),
        b"PING".to_vec(),
        b"ping=1".to_vec(),
        b"pos pos=\"Wbbb".to_vec(),
        b"level depth=\"3".to_vec(),
        b"set-param name=\"threads value=2".to_vec(),
        b"pos pos=a=b".to_vec(),
        b"level =3".to_vec(),
        b"level depth=3\"".to_vec(),
        b"pos moves=\"32-28\"x".to_vec(),
        b"go think \"".to_vec(),
        // positions
        b"pos pos=".to_vec(),
        b"pos pos=\"\"".to_vec(),
        b"pos pos=W".to_vec(),
        long_pos.into_bytes(),
        short_pos.into_bytes(),
        white_on_1.into_bytes(),
        black_on_46.into_bytes(),
        no_black.into_bytes(),
        lowercase_side.into_bytes(),
        bad_letter.into_bytes(),
        unicode.into_bytes(),
        // moves
        b"pos start moves=\"32-28 abc\"".to_vec(),
        b"pos start moves=\"32-28 19-2x\"".to_vec(),
        b"pos start moves=\"99-23\"".to_vec(),
        b"pos start moves=\"32--28\"".to_vec(),
        b"pos start moves=\"32-28-23\"".to_vec(),
        b"pos start moves=\"0-5\"".to_vec(),
        b"pos start moves=\"-\"".to_vec(),
        b"pos start moves=\"32x\"".to_vec(),
        b"pos start moves=\"32-26\"".to_vec(),
        b"pos start moves=\"46-41\"".to_vec(),
        b"pos start moves=\"19-23\"".to_vec(),
        b"pos start moves=\"32-28 32-28\"".to_vec(),
        b"pos start moves=\"32-28 19-23 28-22\"".to_vec(),
        b"pos start moves=\"32-28 19-23 28x19x24\"".to_vec(),
        b"pos start moves=\"32-28 19-23 28x19x23x18\"".to_vec(),
        // parameters
        b"set-param".to_vec(),
        b"set-param value=3".to_vec(),
        b"set-param name= value=3".to_vec(),
        b"set-param name=threads".to_vec(),
        b"set-param name=threads value=0".to_vec(),
        b"set-param name=threads value=abc".to_vec(),
        b"set-param name=tt-size value=-5".to_vec(),
        b"set-param name=ponder value=2".to_vec(),
        b"set-param name=level value=grandmaster".to_vec(),
        b"set-param name=strength value=1e2".to_vec(),
        b"set-param name=variant value=checkers-of-mars".to_vec(),
        // limits
        b"level depth=-1".to_vec(),
        b"level depth=abc".to_vec(),
        b"level depth=0".to_vec(),
        b"level depth=99999999999999999999999".to_vec(),
        b"level nodes=1.5".to_vec(),
        b"level move-time=-2".to_vec(),
        b"level move-time=fast".to_vec(),
        b"level time=abc".to_vec(),
        b"level time=nan".to_vec(),
        b"level time=inf".to_vec(),
        b"level time=-10 inc=1".to_vec(),
        b"level time=10 inc=-1".to_vec(),
        b"level moves=0 time=10".to_vec(),
        // overlong lines
        overlong.into_bytes(),
        overlong_word.into_bytes(),
        // binary garbage and invalid UTF-8
        b"\xff\xfe\xfd".to_vec(),
        b"\x00\x01\x02\x03".to_vec(),
        b"ping \xc3\x28".to_vec(),
        b"pos pos=\xe2\x82".to_vec(),
        b"ping\x00".to_vec(),
        b"\x1b[31mred".to_vec(),
        b"hub\rinit".to_vec(),
        garbage,
    ];
    assert!(cases.len() >= 40);
    for case in &cases {
        expect_one_error(&mut h, case);
    }
    // the state from before every bad line is still there: the forced capture, depth 3
    h.send("go think");
    let (infos, done) = h.until("done", LONG);
    assert_eq!(done, "done move=28x19x23", "{infos:?}");
    // the engine still works, and still gives errors
    let (_, done) = h.search("pos start", &["level depth=2"], "go think");
    assert!(done.starts_with("done move="));
    expect_one_error(&mut h, b"nonsense");
    assert!(
        h.stderr.lock().unwrap().is_empty(),
        "stderr: {}",
        h.stderr.lock().unwrap()
    );
}

/// Sends `line` and checks what comes back before a `ping` answer and in the moment after it:
/// one `error` line naming `error`, or nothing at all when `error` is `None`.
fn expect_answer(h: &mut Hub, line: &str, error: Option<&str>) {
    h.send(line);
    let mut got = h.sync();
    // a search started by mistake would print its info and done lines now
    thread::sleep(Duration::from_millis(300));
    got.extend(h.sync());
    match error {
        Some(e) => assert_eq!(got, [format!("error message=\"{e}\"")], "{line}"),
        None => assert!(got.is_empty(), "{line}: {got:?}"),
    }
}

#[test]
fn unknown_modes_are_errors_and_unknown_arguments_are_ignored() {
    let mut h = Hub::ready_with(&["set-param name=book value=false"]);
    // a position where one move only is legal: the capture 28x19x23
    h.send(&format!("pos pos={START} moves=\"32-28 19-23\""));
    h.send("level depth=3");
    for (line, error) in [
        ("go sideways", Some("bad go mode")),
        ("go", Some("missing go mode")),
        ("go think=1", Some("bad go mode")),
        ("go think ponder", Some("more than one go mode")),
        ("go analyze think", Some("more than one go mode")),
        ("pos", Some("missing position")),
        ("pos sideways", Some("missing position")),
        ("pos moves=\"32-28\"", Some("missing position")),
        (
            &format!("pos start pos={START}"),
            Some("both pos and start"),
        ),
    ] {
        expect_answer(&mut h, line, Some(error.unwrap()));
    }
    // none of that changed the position or the limits: the forced capture, at depth 3
    h.send("go think");
    let (infos, done) = h.until("done", LONG);
    assert_eq!(done, "done move=28x19x23", "{infos:?}");

    // unknown arguments of known commands are accepted and change nothing (documented)
    for line in [
        "pos start colour=red",
        "level depth=2 colour=red",
        "level sideways",
        "new-game extra",
    ] {
        expect_answer(&mut h, line, None);
    }
    h.send("go think hurry=1");
    let (infos, done) = h.until("done", LONG);
    assert!(done.starts_with("done move="), "{done}");
    let depths: Vec<String> = infos
        .iter()
        .filter_map(|l| tokens(l).into_iter().find(|(n, _)| n == "depth"))
        .map(|(_, v)| v)
        .collect();
    assert_eq!(depths.last().map(String::as_str), Some("2"), "{infos:?}");
}

#[test]
fn malformed_input_during_a_search() {
    let mut h = Hub::ready();
    h.send("pos start");
    h.send("level infinite");
    h.send("go analyze");
    thread::sleep(Duration::from_millis(200));
    h.send_bytes(b"\xff garbage");
    let (_, done) = h.until("done", SHORT);
    assert!(done.starts_with("done move="));
    let (before, e) = h.until("error", SHORT);
    assert!(before.is_empty(), "{before:?}");
    assert!(e.starts_with("error message="));
    assert!(h.sync().is_empty());
}

/// Median and worst of some durations, in milliseconds.
fn stats(mut v: Vec<Duration>) -> (f64, f64) {
    v.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    (ms(v[v.len() / 2]), ms(*v.last().unwrap()))
}

#[test]
#[ignore = "timing report: cargo test --release --test hub -- --ignored --nocapture"]
fn latency_report() {
    // start-up: spawn to `ready`
    let mut startup = Vec::new();
    for _ in 0..20 {
        let t = Instant::now();
        let mut h = Hub::start();
        h.send("hub");
        h.send("init");
        h.until("ready", SHORT);
        startup.push(t.elapsed());
    }
    let mut h = Hub::ready();
    // ping during a search
    h.send("pos start");
    h.send("level infinite");
    h.send("go analyze");
    thread::sleep(Duration::from_millis(200));
    let mut ping = Vec::new();
    for _ in 0..100 {
        let t = Instant::now();
        h.sync();
        ping.push(t.elapsed());
        thread::sleep(Duration::from_millis(10));
    }
    h.send("stop");
    h.until("done", SHORT);
    // stop during a search
    let mut stop = Vec::new();
    for i in 0..100 {
        h.send(if i % 2 == 0 {
            "pos start"
        } else {
            "pos start moves=\"32-28 19-23 28x19 14x23\""
        });
        h.send("level infinite");
        h.send("go analyze");
        thread::sleep(Duration::from_millis(20 + (i % 5) * 20));
        let t = Instant::now();
        h.send("stop");
        h.until("done", SHORT);
        stop.push(t.elapsed());
    }
    let (sm, sw) = stats(startup);
    let (pm, pw) = stats(ping);
    let (tm, tw) = stats(stop);
    println!("start-up to ready: median {sm:.2} ms, worst {sw:.2} ms (20 runs)");
    println!("ping during search: median {pm:.3} ms, worst {pw:.3} ms (100 tries)");
    println!("stop during search: median {tm:.3} ms, worst {tw:.3} ms (100 tries)");
    assert!(pw < 1000.0 && tw < 1000.0);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn parser_never_panics(bytes in proptest::collection::vec(any::<u8>(), 0..300)) {
        let _ = parse_line(&bytes);
    }

    #[test]
    fn parser_never_panics_on_protocol_like_text(text in "[a-z0-9=\" \t\\-x\\r]{0,60}") {
        if let Ok(l) = parse_line(text.as_bytes()) {
            prop_assert!(!l.command.is_empty());
            prop_assert!(!l.command.contains(['=', '"', ' ']));
        }
    }

    #[test]
    fn written_lines_read_back(
        command in "[a-z][a-z-]{0,8}",
        args in proptest::collection::vec(("[a-z][a-z0-9-]{0,6}", "[ -!#-<>-~]{0,12}"), 0..6),
    ) {
        let mut text = command.clone();
        for (n, v) in &args {
            text.push(' ');
            text.push_str(n);
            text.push('=');
            text.push_str(&quote(v));
        }
        let l = parse_line(text.as_bytes()).unwrap();
        prop_assert_eq!(l.command, command);
        prop_assert_eq!(l.args, args);
    }
}

#[test]
fn error_messages_follow_the_spec() {
    let mut h = Hub::ready();
    let cases: [(&[u8], &str); 9] = [
        (b"", "missing command"),
        (b"  ", "missing command"),
        (b"frobnicate", "bad command"),
        (b"pos pos=Wbbb", "bad position"),
        (b"pos start moves=\"32-28 ab\"", "bad move"),
        (b"pos start moves=\"32-28 28-23\"", "illegal move"),
        (b"set-param value=1", "missing name"),
        (b"set-param name=threads value=x", "bad value for threads"),
        (b"pos pos=\"Wbb", "unterminated quote"),
    ];
    for (text, message) in cases {
        h.send_bytes(text);
        assert_eq!(
            h.sync(),
            [format!("error message=\"{message}\"")],
            "{}",
            String::from_utf8_lossy(text)
        );
    }
}

#[test]
fn evaluation_parameters() {
    // a net file made by training on a few self-play games, and a damaged copy of it
    let dir = std::env::temp_dir().join(format!("damast-hub-eval-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let net = dir.join("net.pat");
    std::fs::write(&net, damast::engine::pattern::INTERNATIONAL_NET).unwrap();
    let bad = dir.join("bad.pat");
    let bytes = damast::engine::pattern::INTERNATIONAL_NET;
    std::fs::write(&bad, &bytes[..bytes.len() / 2]).unwrap();

    let mut h = Hub::start();
    h.send("set-param name=eval value=classic");
    assert!(h.sync().is_empty());
    h.send("set-param name=eval value=fancy");
    let got = h.sync();
    assert!(
        got.len() == 1 && got[0].starts_with("error") && got[0].contains("eval"),
        "{got:?}"
    );
    h.send(&format!(
        "set-param name=eval-file value=\"{}\"",
        net.display()
    ));
    assert!(h.sync().is_empty());
    // a truncated file is one error line naming the problem; the loaded net stays
    h.send(&format!(
        "set-param name=eval-file value=\"{}\"",
        bad.display()
    ));
    let got = h.sync();
    assert!(
        got.len() == 1 && got[0].starts_with("error") && got[0].contains("truncated"),
        "{got:?}"
    );
    h.send("hub");
    let (lines, _) = h.until("wait", SHORT);
    let shown = format!("value={} ", net.display());
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("param name=eval-file ") && l.contains(&shown)),
        "{lines:?}"
    );
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("param name=eval value=classic ")),
        "{lines:?}"
    );
    h.send("set-param name=eval value=learned");
    h.send("init");
    h.until("ready", SHORT);
    let (_, done) = h.search("pos start", &["level depth=4"], "go think");
    assert!(
        legal_moves("W:W31-50:B1-20").contains(&done_move(&done).unwrap()),
        "{done}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Builds a small book with the real binary; returns its path.
fn tiny_book(dir: &std::path::Path, name: &str, size: &str) -> std::path::PathBuf {
    let path = dir.join(name);
    let _ = std::fs::remove_file(&path);
    let out = Command::new(env!("CARGO_BIN_EXE_damast"))
        .args([
            "book",
            "build",
            "--nodes",
            "500",
            "--max-ply",
            "8",
            "--size",
            size,
        ])
        .args(["--threads", "2", "--out"])
        .arg(&path)
        .env_remove("RUST_LOG")
        .output()
        .expect("run damast book build");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    path
}

/// The first move a fresh engine plays from the start position with these parameters.
fn first_move(params: &[&str]) -> (Vec<String>, String) {
    let mut h = Hub::ready_with(params);
    let (info, done) = h.search("pos start", &["level move-time=20"], "go think");
    (info, done_move(&done).expect("a move"))
}

/// Every variant answers its first move from its built-in book: at once, with no search, a
/// move that `damast book show` lists as leading into the book.
#[test]
fn every_variant_plays_from_its_built_in_book() {
    for v in [
        "brazilian",
        "russian",
        "english",
        "italian",
        "spanish",
        "pool",
        "czech",
        "platform",
        "filipino",
        "thai",
    ] {
        let show = Command::new(env!("CARGO_BIN_EXE_damast"))
            .args(["book", "show", "--variant", v])
            .output()
            .unwrap();
        assert!(show.status.success(), "{v}");
        let text = String::from_utf8_lossy(&show.stdout).into_owned();
        let in_book: Vec<&str> = text
            .lines()
            .skip(1)
            .filter(|l| l.ends_with("book=yes"))
            .filter_map(|l| l.split_whitespace().next())
            .collect();
        assert!(!in_book.is_empty(), "{v}: {text}");
        let t = Instant::now();
        let (info, m) = first_move(&[&format!("set-param name=variant value={v}")]);
        assert!(t.elapsed() < Duration::from_secs(10), "{v}");
        assert!(in_book.contains(&m.as_str()), "{v}: {m} not in {in_book:?}");
        assert!(
            !info.is_empty()
                && info
                    .iter()
                    .all(|l| l.contains(" pv=") && !l.contains("nodes=")),
            "{v}: {info:?}"
        );
    }
}

#[test]
fn opening_book() {
    let dir = std::env::temp_dir().join(format!("damast-hub-book-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let book = tiny_book(&dir, "tiny.book", "40");
    let file = format!("set-param name=book-file value=\"{}\"", book.display());

    // the book's moves of the start position, best first, and those within 0.04
    let show = Command::new(env!("CARGO_BIN_EXE_damast"))
        .args(["book", "show", "--book"])
        .arg(&book)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&show.stdout).into_owned();
    let rows: Vec<(String, f64, bool)> = text
        .lines()
        .skip(1)
        .map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            let score: f64 = f[1].trim_start_matches("score=").parse().unwrap();
            (f[0].to_string(), score, f[2] == "book=yes")
        })
        .collect();
    assert_eq!(rows.len(), 9, "{text}");
    let best = rows[0].1;
    let best_moves: Vec<&str> = rows
        .iter()
        .filter(|r| r.2 && r.1 == best)
        .map(|r| r.0.as_str())
        .collect();
    assert!(!best_moves.is_empty(), "{text}");

    // a book move comes at once, without a search, although 20 s were given
    let t = Instant::now();
    let (info, m) = first_move(&[&file, "set-param name=book-margin value=0"]);
    assert!(t.elapsed() < Duration::from_secs(10));
    assert!(
        best_moves.contains(&m.as_str()),
        "{m} not in {best_moves:?}"
    );
    // a book move's info line has a score and the line, no depth and no nodes
    assert!(
        info.iter()
            .all(|l| l.contains(" pv=") && !l.contains("nodes=") && !l.contains("depth=")),
        "{info:?}"
    );
    assert!(!info.is_empty());

    // games from the start position vary: with a wide margin, fresh engines choose differently
    let firsts: std::collections::HashSet<String> = (0..8)
        .map(|_| first_move(&[&file, "set-param name=book-margin value=100"]).1)
        .collect();
    assert!(firsts.len() > 1, "{firsts:?}");

    // past book-ply, and with the book off, the engine searches
    for off in [
        "set-param name=book-ply value=0",
        "set-param name=book value=false",
    ] {
        let mut h = Hub::start();
        h.send("hub");
        h.until("wait", SHORT);
        h.send(&file);
        h.send(off);
        h.send("init");
        h.until("ready", SHORT);
        let (info, done) = h.search("pos start", &["level depth=3"], "go think");
        assert!(
            info.iter().any(|l| l.contains("depth=3")),
            "{off}: {info:?}"
        );
        assert!(info.iter().all(|l| l.contains("nodes=")), "{info:?}");
        assert!(done_move(&done).is_some());
    }

    // a damaged book file is one error naming the damage; the engine plays on without it
    let bytes = std::fs::read(&book).unwrap();
    let bad = dir.join("bad.book");
    std::fs::write(&bad, &bytes[..bytes.len() - 3]).unwrap();
    let mut h = Hub::start();
    h.send("hub");
    h.until("wait", SHORT);
    h.send("set-param name=book value=false");
    h.send(&format!(
        "set-param name=book-file value=\"{}\"",
        bad.display()
    ));
    let got = h.sync();
    assert!(
        got.len() == 1 && got[0].starts_with("error") && got[0].contains("damaged"),
        "{got:?}"
    );
    h.send("hub");
    let (lines, _) = h.until("wait", SHORT);
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("param name=book-file value=builtin ")),
        "{lines:?}"
    );
    h.send("init");
    h.until("ready", SHORT);
    let (info, done) = h.search("pos start", &["level depth=3"], "go think");
    assert!(info.iter().any(|l| l.contains("depth=3")), "{info:?}");
    assert!(done_move(&done).is_some());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn endgame_database_parameters() {
    let dir = std::env::temp_dir().join(format!("damast-hub-egdb-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let out = Command::new(env!("CARGO_BIN_EXE_damast"))
        .args([
            "egdb",
            "build",
            "--variant",
            "english",
            "--pieces",
            "3",
            "--dir",
        ])
        .arg(&dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut h = Hub::start();
    h.send("set-param name=egdb-path value=/no/such/dir");
    let got = h.sync();
    assert!(
        got.len() == 1 && got[0].starts_with("error") && got[0].contains("egdb-path"),
        "{got:?}"
    );
    h.send("set-param name=variant value=english");
    h.send(&format!(
        "set-param name=egdb-path value=\"{}\"",
        dir.display()
    ));
    assert!(h.sync().is_empty());
    // a directory with a damaged slice is refused, and the database in use stays
    let bad = dir.join("bad");
    std::fs::create_dir_all(&bad).unwrap();
    std::fs::write(bad.join("english-0101.egdb"), b"DMSTEGDB\x03\x00").unwrap();
    h.send(&format!(
        "set-param name=egdb-path value=\"{}\"",
        bad.display()
    ));
    let got = h.sync();
    assert!(
        got.len() == 1 && got[0].contains("egdb-path") && got[0].contains("damaged"),
        "{got:?}"
    );
    h.send("hub");
    let (lines, _) = h.until("wait", SHORT);
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("param name=egdb-pieces value=3 ")),
        "{lines:?}"
    );
    let path_line = lines
        .iter()
        .find(|l| l.starts_with("param name=egdb-path "))
        .unwrap();
    assert!(
        path_line.contains(&dir.display().to_string()) && !path_line.contains("bad"),
        "{path_line}"
    );
    h.send("init");
    h.until("ready", SHORT);
    // two kings against one (english): the search finds its way with the database's bounds
    let pos = format!("pos pos=W{}B", "WW".to_string() + &"e".repeat(29));
    let (info, done) = h.search(&pos, &["level depth=6"], "go think");
    assert!(!info.iter().any(|l| l.starts_with("error")), "{info:?}");
    let m = done_move(&done).unwrap();
    assert!(m.starts_with("1-") || m.starts_with("2-"), "{m}");
    std::fs::remove_dir_all(&dir).unwrap();
}
