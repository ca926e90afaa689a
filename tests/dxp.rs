//! `damast dxp`: two real processes playing a match on loopback (both TCP roles with both DXP
//! roles), a real clock, hostile input against the follower and a misbehaving follower against the
//! initiator. Processes and sockets all have timeouts, so a hang fails a test instead of blocking
//! it. Every port is picked by the system (`127.0.0.1:0`), so the tests can run in parallel.

mod common;

use common::Rng;
use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::path::PathBuf;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::mpsc::{channel, Receiver};
use std::sync::{Arc, Mutex};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

use damast::core::pdn::{self, PdnGame};
use damast::core::{movegen, Color, Game, International, Position};
use damast::protocol::dxp::framing::{Frame, Framer};
use damast::protocol::dxp::message::{
    AccCode, BackAcc, BackReq, EndReason, GameAcc, GameEnd, GameReq, Message, MoveMsg,
};

const SHORT: Duration = Duration::from_secs(5);
const LONG: Duration = Duration::from_secs(90);

// ---------------------------------------------------------------------------------------------
// Processes
// ---------------------------------------------------------------------------------------------

/// A running `damast dxp` process.
struct Damast {
    child: Child,
    stdout: Option<JoinHandle<String>>,
    stderr: Arc<Mutex<String>>,
    port: Receiver<u16>,
}

impl Damast {
    fn start(args: &[&str]) -> Damast {
        let mut child = Command::new(env!("CARGO_BIN_EXE_damast"))
            .arg("dxp")
            .args(args)
            .env("RUST_LOG", "damast=info")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start damast dxp");
        let mut out = child.stdout.take().unwrap();
        let stdout = thread::spawn(move || {
            let mut s = String::new();
            let _ = out.read_to_string(&mut s);
            s
        });
        let stderr = Arc::new(Mutex::new(String::new()));
        let sink = stderr.clone();
        let err = child.stderr.take().unwrap();
        let (tx, port) = channel();
        thread::spawn(move || {
            for line in BufReader::new(err).lines().map_while(Result::ok) {
                if let Some(addr) = line.strip_prefix("damast: listening on ") {
                    if let Some(p) = addr.rsplit(':').next().and_then(|p| p.parse().ok()) {
                        let _ = tx.send(p);
                    }
                }
                let mut s = sink.lock().unwrap();
                s.push_str(&line);
                s.push('\n');
            }
        });
        Damast {
            child,
            stdout: Some(stdout),
            stderr,
            port,
        }
    }

    /// The port it listens on (from its `listening on` line).
    fn port(&self) -> u16 {
        self.port
            .recv_timeout(SHORT)
            .unwrap_or_else(|_| panic!("no 'listening on' line:\n{}", self.stderr()))
    }

    fn stderr(&self) -> String {
        self.stderr.lock().unwrap().clone()
    }

    fn alive(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(None))
    }

    /// Waits for the process to exit; returns its status, standard output and standard error.
    fn wait(mut self, timeout: Duration) -> (ExitStatus, String, String) {
        let start = Instant::now();
        let status = loop {
            if let Some(s) = self.child.try_wait().expect("wait for damast") {
                break s;
            }
            if start.elapsed() > timeout {
                let _ = self.child.kill();
                let _ = self.child.wait();
                panic!(
                    "damast dxp did not finish within {timeout:?}:\n{}",
                    self.stderr()
                );
            }
            thread::sleep(Duration::from_millis(20));
        };
        let out = self.stdout.take().unwrap().join().unwrap_or_default();
        // the stderr thread ends with the process; give it a moment to take the last lines
        thread::sleep(Duration::from_millis(50));
        (status, out, self.stderr())
    }

    /// Kills the process; returns its standard output and standard error.
    fn kill(mut self) -> (String, String) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let out = self.stdout.take().unwrap().join().unwrap_or_default();
        thread::sleep(Duration::from_millis(50));
        (out, self.stderr())
    }
}

impl Drop for Damast {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A file in the temporary directory that is removed at the end of the test.
struct TempFile(PathBuf);

impl TempFile {
    fn new(name: &str, text: &str) -> TempFile {
        let path = std::env::temp_dir().join(format!("damast-{}-{name}", std::process::id()));
        std::fs::write(&path, text).expect("write a temporary file");
        TempFile(path)
    }

    fn path(&self) -> &str {
        self.0.to_str().unwrap()
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

// ---------------------------------------------------------------------------------------------
// Results
// ---------------------------------------------------------------------------------------------

/// The PDN games in a process's standard output (after any table).
fn games_in(text: &str) -> Vec<PdnGame> {
    let at = text.find("[Event").unwrap_or(text.len());
    pdn::parse(&text[at..]).unwrap_or_else(|e| panic!("bad PDN ({e}):\n{text}"))
}

/// The numbers of the initiator's summary line: wins, draws, losses, unfinished, refused.
fn summary(text: &str) -> [u32; 5] {
    let line = text
        .lines()
        .find(|l| l.contains(": wins "))
        .unwrap_or_else(|| panic!("no summary line:\n{text}"));
    let mut n = [0; 5];
    for (i, key) in ["wins ", "draws ", "losses ", "unfinished ", "refused "]
        .iter()
        .enumerate()
    {
        let rest = &line[line.find(key).unwrap() + key.len()..];
        let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
        n[i] = digits.parse().unwrap();
    }
    n
}

/// Checks that both sides recorded the same games: moves, start, players and result; and that
/// every game replays by the rules.
fn assert_same_games(a: &[PdnGame], b: &[PdnGame]) {
    assert_eq!(a.len(), b.len(), "number of games");
    for (x, y) in a.iter().zip(b) {
        assert_eq!(x.moves, y.moves, "moves differ");
        for tag in ["White", "Black", "Result", "FEN"] {
            assert_eq!(x.tag(tag), y.tag(tag), "tag {tag} differs");
        }
        assert_eq!(x.result, y.result);
        let g: Game<International> = x.to_game().expect("the game replays by the rules");
        assert_eq!(g.moves().len(), x.moves.len());
    }
}

// ---------------------------------------------------------------------------------------------
// A raw DXP client
// ---------------------------------------------------------------------------------------------

/// A raw TCP peer that speaks DXP by hand.
struct Peer {
    s: TcpStream,
    framer: Framer,
    queue: VecDeque<Message>,
    seen: Vec<String>,
}

impl Peer {
    fn connect(port: u16) -> Peer {
        let s = TcpStream::connect(("127.0.0.1", port)).expect("connect to damast");
        Peer::over(s)
    }

    fn over(s: TcpStream) -> Peer {
        s.set_read_timeout(Some(Duration::from_millis(50))).unwrap();
        s.set_nodelay(true).unwrap();
        Peer {
            s,
            framer: Framer::new(),
            queue: VecDeque::new(),
            seen: Vec::new(),
        }
    }

    fn send(&mut self, bytes: &[u8]) {
        self.s.write_all(bytes).expect("send to damast");
    }

    fn send_msg(&mut self, m: &Message) {
        let mut b = m.encode().into_bytes();
        b.push(0);
        self.send(&b);
    }

    /// The next message within `timeout`. Everything damast sends must be a valid message.
    fn next(&mut self, timeout: Duration) -> Option<Message> {
        let until = Instant::now() + timeout;
        loop {
            if let Some(m) = self.queue.pop_front() {
                self.seen.push(m.encode());
                return Some(m);
            }
            if Instant::now() > until {
                return None;
            }
            let mut buf = [0u8; 4096];
            match self.s.read(&mut buf) {
                Ok(0) => return None,
                Ok(n) => {
                    let mut frames = Vec::new();
                    self.framer.push(&buf[..n], &mut frames);
                    for f in frames {
                        match f {
                            Frame::Message(b) => {
                                self.queue.push_back(Message::parse(&b).unwrap_or_else(|e| {
                                    panic!(
                                        "damast sent a bad message {:?}: {e}",
                                        String::from_utf8_lossy(&b)
                                    )
                                }))
                            }
                            Frame::Overlong { .. } => panic!("damast sent an overlong message"),
                        }
                    }
                }
                Err(e)
                    if matches!(
                        e.kind(),
                        std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                    ) => {}
                Err(_) => return None,
            }
        }
    }

    /// Skips messages until one satisfies `want`; panics with the transcript at the timeout.
    fn expect(&mut self, what: &str, want: impl Fn(&Message) -> bool) -> Message {
        let until = Instant::now() + SHORT;
        while Instant::now() < until {
            if let Some(m) = self.next(Duration::from_millis(100)) {
                if want(&m) {
                    return m;
                }
            }
        }
        panic!("expected {what}; damast sent {:?}", self.seen);
    }

    /// Expects a chat that contains `text`, then a GAMEEND (the game ended after an error), then
    /// no move at all.
    fn expect_error_end(&mut self, text: &str) {
        let chat = self.expect(&format!("a chat about '{text}'"), |m| {
            matches!(m, Message::Chat(_))
        });
        let Message::Chat(t) = chat else {
            unreachable!()
        };
        assert!(t.contains(text), "chat '{t}' does not mention '{text}'");
        self.expect("GAMEEND", |m| matches!(m, Message::GameEnd(_)));
        self.expect_no_move(Duration::from_millis(300));
    }

    fn expect_no_move(&mut self, d: Duration) {
        let until = Instant::now() + d;
        while Instant::now() < until {
            if let Some(m @ Message::Move(_)) = self.next(Duration::from_millis(50)) {
                panic!("damast played on: {m:?}");
            }
        }
    }

    fn expect_acc(&mut self, code: AccCode) {
        self.expect(
            &format!("GAMEACC {code:?}"),
            |m| matches!(m, Message::GameAcc(GameAcc { code: c, .. }) if *c == code),
        );
    }

    fn expect_move(&mut self) -> MoveMsg {
        match self.expect("a MOVE", |m| matches!(m, Message::Move(_))) {
            Message::Move(m) => m,
            _ => unreachable!(),
        }
    }
}

fn gamereq(follower: Color, start: Option<Position<International>>) -> Message {
    Message::GameReq(GameReq {
        version: 1,
        name: "tester".into(),
        follower,
        minutes: 0,
        moves: 0,
        start,
    })
}

fn bytes(m: &Message) -> Vec<u8> {
    let mut b = m.encode().into_bytes();
    b.push(0);
    b
}

/// The DXP message of the first legal move of `game`.
fn first_move(game: &Game<International>) -> MoveMsg {
    let m = movegen::legal_moves(game.position())[0];
    MoveMsg::from_move(&m, 0.0)
}

fn name_field(n: &str) -> String {
    format!("{n:<32}")
}

// ---------------------------------------------------------------------------------------------
// Engine against engine
// ---------------------------------------------------------------------------------------------

#[test]
fn two_engines_play_a_match_and_agree_on_every_game() {
    let openings = TempFile::new(
        "openings.txt",
        "# the start position, then a set-up position with black to move\n\
         W:W31-50:B1-20\n\
         B:W31,32,33,34,35,36,37,38,39,40:B11,12,13,14,15,16,17,18,19,20\n",
    );
    let follower = Damast::start(&[
        "--listen",
        "127.0.0.1:0",
        "--depth",
        "3",
        "--name",
        "Follower",
    ]);
    let port = follower.port().to_string();
    let addr = format!("127.0.0.1:{port}");
    let started = Instant::now();
    let initiator = Damast::start(&[
        "--connect",
        &addr,
        "--initiate",
        "--games",
        "4",
        "--time",
        "0",
        "--zero-time",
        "20",
        "--openings",
        openings.path(),
        "--max-moves",
        "30",
        "--depth",
        "3",
        "--name",
        "Initiator",
    ]);
    let (status, out, err) = initiator.wait(LONG);
    println!("match: {:.1} s\n{out}", started.elapsed().as_secs_f64());
    assert!(
        status.success(),
        "initiator failed ({status}):\n{out}\n{err}"
    );
    let [w, d, l, u, r] = summary(&out);
    assert_eq!((w + d + l, u, r), (4, 0, 0), "{out}");
    let ours = games_in(&out);
    assert_eq!(ours.len(), 4);
    // colours alternate, and the second opening is a set-up position
    for (i, g) in ours.iter().enumerate() {
        let white = if i % 2 == 0 { "Initiator" } else { "Follower" };
        assert_eq!(g.tag("White"), Some(white), "game {}", i + 1);
        assert_eq!(g.tag("FEN").is_some(), i >= 2, "game {}", i + 1);
        assert!(!g.moves.is_empty());
    }

    // the follower keeps listening: a second match on a new connection
    let again = Damast::start(&[
        "--connect",
        &addr,
        "--initiate",
        "--games",
        "1",
        "--time",
        "0",
        "--zero-time",
        "10",
        "--max-moves",
        "10",
        "--depth",
        "2",
        "--name",
        "Second",
    ]);
    let (status, out2, err2) = again.wait(LONG);
    assert!(status.success(), "second initiator failed:\n{out2}\n{err2}");
    let second = games_in(&out2);

    let mut follower = follower;
    assert!(follower.alive(), "the follower exited");
    let (fout, ferr) = follower.kill();
    let theirs = games_in(&fout);
    assert_eq!(theirs.len(), 5, "follower output:\n{fout}\n{ferr}");
    assert_same_games(&ours, &theirs[..4]);
    assert_same_games(&second, &theirs[4..]);
    for text in [&err, &err2, &ferr] {
        assert!(!text.contains("illegal"), "{text}");
        assert!(!text.contains("ending the game"), "{text}");
        assert!(!text.contains("ERROR"), "{text}");
    }
}

#[test]
fn listening_initiator_and_connecting_follower_with_moves_in_time() {
    let initiator = Damast::start(&[
        "--listen",
        "127.0.0.1:0",
        "--initiate",
        "--games",
        "2",
        "--time",
        "1",
        "--moves",
        "20",
        "--max-moves",
        "12",
        "--move-time",
        "0.05",
    ]);
    let addr = format!("127.0.0.1:{}", initiator.port());
    let follower = Damast::start(&["--connect", &addr, "--move-time", "0.05"]);
    let (status, out, err) = initiator.wait(LONG);
    assert!(
        status.success(),
        "initiator failed ({status}):\n{out}\n{err}"
    );
    // the follower leaves when the initiator closes the connection
    let (fstatus, fout, ferr) = follower.wait(SHORT);
    assert!(
        fstatus.success(),
        "follower failed ({fstatus}):\n{fout}\n{ferr}"
    );
    let ours = games_in(&out);
    assert_eq!(ours.len(), 2);
    assert_same_games(&ours, &games_in(&fout));
    for g in &ours {
        // twelve moves each, then a draw by the move limit at the initiator's next turn (unless
        // the rules ended the game first)
        assert!(g.moves.len() <= 25, "{:?}", g.moves);
        if g.moves.len() >= 24 {
            assert_eq!(g.result.as_deref(), Some("1-1"));
        }
    }
}

#[test]
fn a_real_clock_is_never_exceeded() {
    // 000 minutes: both sides budget a sudden-death game of 2 seconds each with the time manager
    let follower = Damast::start(&["--listen", "127.0.0.1:0", "--zero-time", "2"]);
    let addr = format!("127.0.0.1:{}", follower.port());
    let initiator = Damast::start(&[
        "--connect",
        &addr,
        "--initiate",
        "--games",
        "1",
        "--time",
        "0",
        "--zero-time",
        "2",
        "--max-moves",
        "40",
    ]);
    let (status, out, err) = initiator.wait(LONG);
    assert!(
        status.success(),
        "initiator failed ({status}):\n{out}\n{err}"
    );
    let (fout, _) = follower.kill();
    for (who, text) in [("initiator", &out), ("follower", &fout)] {
        let games = games_in(text);
        assert_eq!(games.len(), 1);
        let used: Vec<f64> = games[0]
            .tag("TimeUsed")
            .unwrap()
            .split_whitespace()
            .map(|t| t.parse().unwrap())
            .collect();
        println!(
            "{who}: time used white {:.2} s, black {:.2} s",
            used[0], used[1]
        );
        // our own clock (white for the initiator, black for the follower) is exact; the peer's
        // as we see it includes the transit of messages
        let own = if who == "initiator" { used[0] } else { used[1] };
        assert!(own > 0.2 && own <= 2.0, "{who} used {own} s of 2 s");
        assert!(used.iter().all(|&t| t <= 2.2), "{who}: {used:?}");
    }
    assert!(!err.contains("clock is exceeded"), "{err}");
}

// ---------------------------------------------------------------------------------------------
// Hostile input against the follower
// ---------------------------------------------------------------------------------------------

/// One scenario of bad input: what the peer does and what damast must answer.
struct Case {
    name: &'static str,
    run: fn(&mut Peer),
}

fn hostile_cases() -> Vec<Case> {
    vec![
        Case {
            name: "wrong header",
            run: |p| {
                p.send(b"X123\0");
                let m = p.expect("a chat", |m| matches!(m, Message::Chat(_)));
                assert!(
                    matches!(&m, Message::Chat(t) if t.contains("unknown message type 'X'")),
                    "{m:?}"
                );
            },
        },
        Case {
            name: "non-ASCII bytes and empty messages",
            run: |p| {
                p.send(b"\0\0\xff\xfe\x80\0");
                p.expect(
                    "a chat",
                    |m| matches!(m, Message::Chat(t) if t.contains("unknown message type")),
                );
            },
        },
        Case {
            name: "short GAMEREQ",
            run: |p| {
                p.send(b"R01Tester\0");
                p.expect(
                    "a chat",
                    |m| matches!(m, Message::Chat(t) if t.contains("too short")),
                );
                p.expect_acc(AccCode::Refused);
            },
        },
        Case {
            name: "bad number in GAMEREQ",
            run: |p| {
                p.send(format!("R01{}W0x0000A\0", name_field("t")).as_bytes());
                p.expect(
                    "a chat",
                    |m| matches!(m, Message::Chat(t) if t.contains("bad number '0x0'")),
                );
                p.expect_acc(AccCode::Refused);
            },
        },
        Case {
            name: "unsupported version",
            run: |p| {
                p.send(format!("R02{}W000000A\0", name_field("t")).as_bytes());
                p.expect(
                    "a chat",
                    |m| matches!(m, Message::Chat(t) if t.contains("version 02")),
                );
                p.expect_acc(AccCode::Version);
            },
        },
        Case {
            name: "bad board letter",
            run: |p| {
                p.send(format!("R01{}W000000BW{}\0", name_field("t"), "q".repeat(50)).as_bytes());
                p.expect(
                    "a chat",
                    |m| matches!(m, Message::Chat(t) if t.contains("bad piece letter")),
                );
                p.expect_acc(AccCode::Refused);
            },
        },
        Case {
            name: "board without black pieces",
            run: |p| {
                p.send(format!("R01{}W000000BW{}w\0", name_field("t"), "e".repeat(49)).as_bytes());
                p.expect(
                    "a chat",
                    |m| matches!(m, Message::Chat(t) if t.contains("both colours")),
                );
                p.expect_acc(AccCode::Refused);
            },
        },
        Case {
            name: "illegal move",
            run: |p| {
                p.send_msg(&gamereq(Color::Black, None));
                p.expect_acc(AccCode::Accept);
                p.send(b"M0000322600\0");
                p.expect_error_end("illegal move 32-26");
            },
        },
        Case {
            name: "move with a wrong capture set",
            run: |p| {
                p.send_msg(&gamereq(Color::Black, None));
                p.expect_acc(AccCode::Accept);
                p.send(b"M000032280119\0");
                p.expect_error_end("illegal move 32x28x19");
            },
        },
        Case {
            name: "short move fields",
            run: |p| {
                p.send_msg(&gamereq(Color::Black, None));
                p.expect_acc(AccCode::Accept);
                p.send(b"M00003228\0");
                p.expect_error_end("too short");
            },
        },
        Case {
            name: "bad numbers in a move",
            run: |p| {
                p.send_msg(&gamereq(Color::Black, None));
                p.expect_acc(AccCode::Accept);
                p.send(b"M00aa322800\0");
                p.expect_error_end("bad number");
            },
        },
        Case {
            name: "square off the board",
            run: |p| {
                p.send_msg(&gamereq(Color::Black, None));
                p.expect_acc(AccCode::Accept);
                p.send(b"M0000327700\0");
                p.expect_error_end("not on the board");
            },
        },
        Case {
            name: "move out of turn",
            run: |p| {
                // glued to the request: damast (white) is to move when it reads the move
                let mut b = bytes(&gamereq(Color::White, None));
                b.extend_from_slice(b"M0000192300\0");
                p.send(&b);
                p.expect_acc(AccCode::Accept);
                p.expect_error_end("out of turn");
            },
        },
        Case {
            name: "trailing bytes in GAMEEND",
            run: |p| {
                p.send_msg(&gamereq(Color::Black, None));
                p.expect_acc(AccCode::Accept);
                p.send(b"E000\0");
                p.expect_error_end("GAMEEND too long");
            },
        },
        Case {
            name: "10 000 bytes without NUL",
            run: |p| {
                p.send_msg(&gamereq(Color::Black, None));
                p.expect_acc(AccCode::Accept);
                p.send(&vec![b'M'; 10_000]);
                p.expect_error_end("longer than 127");
                // the stream is usable again after the next NUL
                p.send(b"\0");
                p.send_msg(&gamereq(Color::Black, None));
                p.expect_acc(AccCode::Accept);
            },
        },
        Case {
            name: "a GAMEREQ during a game",
            run: |p| {
                p.send_msg(&gamereq(Color::Black, None));
                p.expect_acc(AccCode::Accept);
                p.send(b"M0000322800\0");
                p.expect_move();
                // a new game replaces the old one: damast is white now and moves first
                p.send_msg(&gamereq(Color::White, None));
                p.expect_acc(AccCode::Accept);
                let m = p.expect_move();
                assert!(m.find(&Position::start()).is_some(), "{m}");
            },
        },
        Case {
            name: "GAMEEND during a game",
            run: |p| {
                p.send_msg(&gamereq(Color::Black, None));
                p.expect_acc(AccCode::Accept);
                p.send_msg(&Message::GameEnd(GameEnd {
                    reason: EndReason::Unknown,
                    stop: false,
                }));
                p.expect("GAMEEND", |m| matches!(m, Message::GameEnd(_)));
                p.expect_no_move(Duration::from_millis(200));
            },
        },
        Case {
            name: "messages in pieces and glued together",
            run: |p| {
                for b in bytes(&gamereq(Color::Black, None)) {
                    p.send(&[b]);
                    thread::sleep(Duration::from_millis(1));
                }
                p.expect_acc(AccCode::Accept);
                p.send(b"M00003228");
                thread::sleep(Duration::from_millis(30));
                p.send(b"00\0Chello\0Cworld, with a move glued before\0");
                p.expect_move();
            },
        },
        Case {
            name: "take-back",
            run: |p| {
                let mut game = Game::<International>::default();
                p.send_msg(&gamereq(Color::Black, None));
                p.expect_acc(AccCode::Accept);
                for _ in 0..2 {
                    let ours = first_move(&game);
                    game.play(ours.find(game.position()).unwrap()).unwrap();
                    p.send_msg(&Message::Move(ours));
                    let reply = p.expect_move();
                    game.play(reply.find(game.position()).expect("a legal reply"))
                        .unwrap();
                }
                // back to move 2 with white to move, then a move number that does not exist
                p.send_msg(&Message::BackReq(BackReq {
                    move_number: 2,
                    side: Color::White,
                }));
                p.expect("BACKACC 0", |m| {
                    matches!(m, Message::BackAcc(BackAcc::Accepted))
                });
                game.undo();
                game.undo();
                p.send(b"B099W\0");
                p.expect("BACKACC 2", |m| {
                    matches!(m, Message::BackAcc(BackAcc::Continue))
                });
                // the game goes on from the position taken back to
                let ours = first_move(&game);
                game.play(ours.find(game.position()).unwrap()).unwrap();
                p.send_msg(&Message::Move(ours));
                let reply = p.expect_move();
                assert!(reply.find(game.position()).is_some(), "{reply}");
            },
        },
        Case {
            name: "a move with no game",
            run: |p| {
                p.send(b"M0000322800\0");
                p.expect(
                    "a chat",
                    |m| matches!(m, Message::Chat(t) if t.contains("no game in progress")),
                );
                p.expect_no_move(Duration::from_millis(200));
            },
        },
        Case {
            name: "disconnect right after the request",
            run: |p| {
                p.send_msg(&gamereq(Color::White, None));
                let _ = p.s.shutdown(Shutdown::Both);
            },
        },
        Case {
            name: "disconnect in the middle of a message",
            run: |p| {
                p.send_msg(&gamereq(Color::Black, None));
                p.expect_acc(AccCode::Accept);
                p.send(b"M00003");
                let _ = p.s.shutdown(Shutdown::Both);
            },
        },
    ]
}

#[test]
fn hostile_input_never_crashes_the_follower() {
    let mut follower = Damast::start(&["--listen", "127.0.0.1:0", "--depth", "2"]);
    let port = follower.port();
    let started = Instant::now();
    for case in hostile_cases() {
        let mut p = Peer::connect(port);
        let run = case.run;
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| run(&mut p)));
        if let Err(e) = result {
            let why = e
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default();
            panic!(
                "case '{}': {why}\nfollower log:\n{}",
                case.name,
                follower.stderr()
            );
        }
        drop(p);
        assert!(
            follower.alive(),
            "the follower died in case '{}'",
            case.name
        );
    }
    println!("hostile cases: {:.1} s", started.elapsed().as_secs_f64());
    // after all that it still plays a clean game
    let check = Damast::start(&[
        "--connect",
        &format!("127.0.0.1:{port}"),
        "--initiate",
        "--games",
        "1",
        "--time",
        "0",
        "--zero-time",
        "5",
        "--max-moves",
        "10",
        "--depth",
        "2",
    ]);
    let (status, out, err) = check.wait(LONG);
    assert!(status.success(), "a clean game failed:\n{out}\n{err}");
    assert_eq!(summary(&out)[3], 0, "{out}");
    let (_, ferr) = follower.kill();
    assert!(!ferr.contains("panicked"), "{ferr}");
}

// ---------------------------------------------------------------------------------------------
// A misbehaving follower against the initiator
// ---------------------------------------------------------------------------------------------

#[test]
fn the_initiator_survives_a_misbehaving_follower() {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let initiator = Damast::start(&[
        "--connect",
        &format!("127.0.0.1:{port}"),
        "--initiate",
        "--games",
        "4",
        "--time",
        "0",
        "--zero-time",
        "5",
        "--max-moves",
        "20",
        "--depth",
        "2",
    ]);
    let (s, _) = listener.accept().unwrap();
    let mut p = Peer::over(s);
    let acc = |code| {
        Message::GameAcc(GameAcc {
            name: "Rogue".into(),
            code,
        })
    };

    // game 1: an illegal reply
    let r = p.expect("GAMEREQ", |m| matches!(m, Message::GameReq(_)));
    assert!(matches!(
        r,
        Message::GameReq(GameReq {
            follower: Color::Black,
            start: None,
            ..
        })
    ));
    p.send_msg(&acc(AccCode::Accept));
    p.expect_move();
    p.send(b"M0000010600\0");
    p.expect_error_end("illegal move 1-6");
    p.send(b"E00\0");

    // game 2: refused
    let r = p.expect("GAMEREQ", |m| matches!(m, Message::GameReq(_)));
    assert!(matches!(
        r,
        Message::GameReq(GameReq {
            follower: Color::White,
            ..
        })
    ));
    p.send_msg(&acc(AccCode::Refused));

    // game 3: a message of an unknown type, then the connection drops without a GAMEEND
    p.expect("GAMEREQ", |m| matches!(m, Message::GameReq(_)));
    p.send_msg(&acc(AccCode::Accept));
    p.expect_move();
    p.send(b"Zjunk\0");
    p.expect_error_end("unknown message type 'Z'");
    drop(p);

    let (status, out, err) = initiator.wait(LONG);
    assert_eq!(status.code(), Some(2), "{out}\n{err}");
    assert!(err.contains("stopped early"), "{err}");
    assert_eq!(summary(&out), [0, 0, 0, 2, 1], "{out}");
    assert_eq!(games_in(&out).len(), 2);
    assert!(!err.contains("panicked"), "{err}");
}

/// Random bytes built from pieces of real messages, digits, letters, NULs and noise.
fn random_stream(rng: &mut Rng) -> Vec<u8> {
    let pieces: [&[u8]; 12] = [
        b"M0000322800\0",
        b"M0000",
        b"R01",
        b"E00\0",
        b"E10\0",
        b"B001W\0",
        b"K0\0",
        b"Chi\0",
        b"\0",
        b"A",
        b"W000000B",
        b"Wzzzzzzzzzzzzzzzzzzzzeeeeeeeeeewwwwwwwwwwwwwwwwwwww",
    ];
    let mut out = Vec::new();
    for _ in 0..1 + rng.below(12) {
        match rng.below(4) {
            0 => out.extend_from_slice(pieces[rng.below(pieces.len())]),
            1 => out.extend((0..rng.below(40)).map(|_| b'0' + rng.below(10) as u8)),
            2 => out.extend((0..rng.below(300)).map(|_| rng.next() as u8)),
            _ => out.extend_from_slice(&bytes(&gamereq(
                if rng.below(2) == 0 {
                    Color::White
                } else {
                    Color::Black
                },
                None,
            ))),
        }
    }
    out
}

#[test]
fn random_streams_never_crash_the_follower() {
    let mut follower = Damast::start(&["--listen", "127.0.0.1:0", "--depth", "1"]);
    let port = follower.port();
    let mut rng = Rng(0x0D15_EA5E_DA7A_5EED);
    for round in 0..40 {
        let mut p = Peer::connect(port);
        for _ in 0..1 + rng.below(3) {
            let chunk = random_stream(&mut rng);
            if p.s.write_all(&chunk).is_err() {
                break;
            }
            // whatever damast answers must be valid DXP (Peer::next checks it)
            while p.next(Duration::from_millis(20)).is_some() {}
        }
        drop(p);
        assert!(
            follower.alive(),
            "the follower died in round {round}:\n{}",
            follower.stderr()
        );
    }
    // and it still plays
    let mut p = Peer::connect(port);
    p.send_msg(&gamereq(Color::White, None));
    p.expect_acc(AccCode::Accept);
    p.expect_move();
    let (_, err) = follower.kill();
    assert!(!err.contains("panicked"), "{err}");
}

#[test]
fn bad_options_are_one_line_errors() {
    for (args, want) in [
        (vec!["--zero-time", "0"], "--zero-time must be a positive"),
        (vec!["--move-time=-1"], "--move-time must be a positive"),
        (
            vec!["--initiate", "--accept-timeout", "0"],
            "--accept-timeout must be a positive",
        ),
        (vec!["--accept-timeout", "5"], "--initiate"),
        (vec!["--listen", "nowhere"], "bad address 'nowhere'"),
        (vec!["--games", "3"], "--initiate"),
        (
            vec!["--listen", "127.0.0.1:0", "--connect", "127.0.0.1:1"],
            "cannot be used with",
        ),
        (vec!["--initiate", "--time", "1000"], "1000"),
        (
            vec![
                "--connect",
                "127.0.0.1:1",
                "--initiate",
                "--openings",
                "/nonexistent/file",
            ],
            "cannot read /nonexistent/file",
        ),
    ] {
        let o = Command::new(env!("CARGO_BIN_EXE_damast"))
            .arg("dxp")
            .args(&args)
            .env_remove("RUST_LOG")
            .output()
            .expect("run damast");
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert_eq!(err.trim().lines().count(), 1, "{args:?}: {err}");
        assert!(err.contains(want), "{args:?}: '{err}' lacks '{want}'");
    }
}

// ---------------------------------------------------------------------------------------------
// Scripted peers that behave as the real engines do (issue 11)
// ---------------------------------------------------------------------------------------------

/// The scripted engine's move: the first legal move after which the other side has no capture,
/// else the first legal move. Like the real peers it knows no 5-, 16- or 25-move rule: it plays
/// on as long as it has a move.
fn safe_move(game: &Game<International>) -> MoveMsg {
    let moves = movegen::legal_moves(game.position());
    let safe = moves.iter().find(|m| {
        let mut g = game.clone();
        g.play(**m).unwrap();
        !movegen::legal_moves(g.position())
            .iter()
            .any(|r| r.is_capture())
    });
    MoveMsg::from_move(safe.unwrap_or(&moves[0]), 0.0)
}

/// Plays `m` (a message from damast or ours) on `game`.
fn play_msg(game: &mut Game<International>, m: &MoveMsg) {
    let mv = m.find(game.position()).unwrap_or_else(|| {
        panic!(
            "{m} is illegal in {}",
            damast::core::fen::write(game.position())
        )
    });
    game.play(mv).unwrap();
}

fn accept(p: &mut Peer, name: &str) {
    p.send_msg(&Message::GameAcc(GameAcc {
        name: name.into(),
        code: AccCode::Accept,
    }));
}

fn end_msg(reason: EndReason) -> Message {
    Message::GameEnd(GameEnd {
        reason,
        stop: false,
    })
}

/// A damast initiator connected to a scripted follower: the process and the peer.
fn initiator_against_script(args: &[&str]) -> (Damast, Peer, TcpListener) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let addr = format!("127.0.0.1:{port}");
    let mut all = vec!["--connect", &addr, "--initiate"];
    all.extend_from_slice(args);
    let damast = Damast::start(&all);
    let s = accept_within(&listener, &damast);
    (damast, Peer::over(s), listener)
}

/// The next connection to `listener` from `damast`; panics when none comes within `SHORT`.
fn accept_within(listener: &TcpListener, damast: &Damast) -> TcpStream {
    listener.set_nonblocking(true).unwrap();
    let until = Instant::now() + SHORT;
    loop {
        match listener.accept() {
            Ok((s, _)) => {
                s.set_nonblocking(false).unwrap();
                return s;
            }
            Err(_) if Instant::now() < until => thread::sleep(Duration::from_millis(10)),
            Err(e) => panic!("damast did not connect ({e}):\n{}", damast.stderr()),
        }
    }
}

/// The single game damast printed, checked against the peer's own record of it.
fn the_game(out: &str, peer_game: &Game<International>) -> PdnGame {
    let games = games_in(out);
    assert_eq!(games.len(), 1, "{out}");
    let g: Game<International> = games[0].to_game().expect("damast's game replays");
    assert_eq!(
        g.moves(),
        peer_game.moves(),
        "damast's record and the peer's differ:\n{out}"
    );
    games[0].clone()
}

#[test]
fn our_move_that_ends_the_game_by_a_rule_the_peer_does_not_apply_waits_for_the_peer() {
    // two kings against one, black (the scripted peer, with the lone king) to move: the 5-move
    // rule draws the game with white's (damast's) fifth move
    let fen = "B:WK3,K48:BK28";
    let openings = TempFile::new("five-moves.txt", &format!("{fen}\n"));
    let (damast, mut p, _l) = initiator_against_script(&[
        "--games",
        "1",
        "--time",
        "1",
        "--depth",
        "3",
        "--max-moves",
        "0",
        "--openings",
        openings.path(),
    ]);
    let mut game: Game<International> = Game::from_fen(fen).unwrap();
    match p.expect("GAMEREQ", |m| matches!(m, Message::GameReq(_))) {
        Message::GameReq(r) => assert_eq!(r.follower, Color::Black),
        _ => unreachable!(),
    }
    accept(&mut p, "Script");
    let mut drawn_by_damast = false;
    let mut out_of_turn_end = None;
    let damast_end = loop {
        if game.position().side() == Color::Black {
            // the peer "searches" for a while, longer than the old grace of 300 ms after a
            // drawing move, reading what comes meanwhile
            let think = Duration::from_millis(if drawn_by_damast { 800 } else { 30 });
            let until = Instant::now() + think;
            while Instant::now() < until {
                match p.next(Duration::from_millis(20)) {
                    Some(Message::GameEnd(e)) => out_of_turn_end = Some(e),
                    Some(Message::Chat(_)) | None => {}
                    Some(other) => panic!("damast sent {other:?} while the peer was to move"),
                }
            }
            let m = safe_move(&game);
            play_msg(&mut game, &m);
            p.send_msg(&Message::Move(m));
            if let Some(e) = out_of_turn_end {
                // as the real engine did: its move after the unexpected GAMEEND, then its answer
                p.send_msg(&end_msg(EndReason::Unknown));
                break e;
            }
        } else {
            match p.expect("a MOVE or GAMEEND", |m| {
                matches!(m, Message::Move(_) | Message::GameEnd(_))
            }) {
                Message::Move(m) => {
                    play_msg(&mut game, &m);
                    drawn_by_damast |= matches!(game.result(), damast::core::GameResult::Draw(_));
                }
                Message::GameEnd(e) => {
                    p.send_msg(&end_msg(EndReason::Unknown));
                    break e;
                }
                _ => unreachable!(),
            }
        }
        assert!(
            game.moves().len() < 40,
            "the game does not end: {:?}",
            p.seen
        );
    };
    let (status, out, err) = damast.wait(LONG);
    assert!(
        drawn_by_damast,
        "the scenario needs damast's move to draw it:\n{out}\n{err}"
    );
    assert_eq!(
        out_of_turn_end, None,
        "damast sent GAMEEND while the peer was to move:\n{err}"
    );
    assert!(status.success(), "{out}\n{err}");
    assert_eq!(damast_end.reason, EndReason::Draw, "{:?}", p.seen);
    // both records end identically: with the peer's move after the drawing move
    let g = the_game(&out, &game);
    assert_eq!(g.result.as_deref(), Some("1-1"));
    let t = g.tag("Termination").unwrap_or("");
    assert!(t.contains("5-move rule"), "{t}");
    assert!(!err.contains("ignored after our GAMEEND"), "{err}");
}

#[test]
fn the_answer_to_a_gameend_carries_reason_0() {
    // damast as initiator: the follower ends the game on its turn, claiming a draw
    let (damast, mut p, _l) =
        initiator_against_script(&["--games", "1", "--time", "1", "--depth", "2"]);
    p.expect("GAMEREQ", |m| matches!(m, Message::GameReq(_)));
    accept(&mut p, "Script");
    let mut game = Game::<International>::default();
    play_msg(&mut game, &p.expect_move());
    p.send_msg(&end_msg(EndReason::Draw));
    let answer = p.expect("GAMEEND", |m| matches!(m, Message::GameEnd(_)));
    let (status, out, err) = damast.wait(LONG);
    assert!(status.success(), "{out}\n{err}");
    assert!(
        matches!(
            answer,
            Message::GameEnd(GameEnd {
                reason: EndReason::Unknown,
                ..
            })
        ),
        "initiator's answer: {answer:?}"
    );
    assert_eq!(the_game(&out, &game).result.as_deref(), Some("1-1"));

    // damast as follower: the initiator ends the game on its turn, saying it loses
    let follower = Damast::start(&["--listen", "127.0.0.1:0", "--depth", "2"]);
    let mut p = Peer::connect(follower.port());
    p.send_msg(&gamereq(Color::Black, None));
    p.expect_acc(AccCode::Accept);
    let mut game = Game::<International>::default();
    let m = safe_move(&game);
    play_msg(&mut game, &m);
    p.send_msg(&Message::Move(m));
    play_msg(&mut game, &p.expect_move());
    p.send_msg(&end_msg(EndReason::ILose));
    let answer = p.expect("GAMEEND", |m| matches!(m, Message::GameEnd(_)));
    drop(p);
    thread::sleep(Duration::from_millis(200));
    let (out, err) = follower.kill();
    assert!(
        matches!(
            answer,
            Message::GameEnd(GameEnd {
                reason: EndReason::Unknown,
                ..
            })
        ),
        "follower's answer: {answer:?}"
    );
    let g = the_game(&out, &game);
    assert_eq!(g.result.as_deref(), Some("0-2"), "{err}");
}

#[test]
fn the_initiator_ends_the_game_at_the_move_count() {
    let (damast, mut p, _l) = initiator_against_script(&[
        "--games",
        "1",
        "--time",
        "1",
        "--moves",
        "6",
        "--max-moves",
        "0",
        "--depth",
        "2",
    ]);
    match p.expect("GAMEREQ", |m| matches!(m, Message::GameReq(_))) {
        Message::GameReq(r) => assert_eq!((r.minutes, r.moves), (1, 6)),
        _ => unreachable!(),
    }
    accept(&mut p, "Script");
    let mut game = Game::<International>::default();
    let mut chats = Vec::new();
    let end = loop {
        if game.position().side() == Color::Black {
            let m = safe_move(&game);
            play_msg(&mut game, &m);
            p.send_msg(&Message::Move(m));
            continue;
        }
        match p.expect("a MOVE, CHAT or GAMEEND", |m| {
            matches!(m, Message::Move(_) | Message::Chat(_) | Message::GameEnd(_))
        }) {
            Message::Move(m) => {
                assert!(
                    game.moves().len() < 12,
                    "damast played on past 6 moves each: {m} ({:?})",
                    p.seen
                );
                play_msg(&mut game, &m);
            }
            Message::Chat(t) => chats.push(t),
            Message::GameEnd(e) => {
                p.send_msg(&end_msg(EndReason::Unknown));
                break e;
            }
            _ => unreachable!(),
        }
    };
    let (status, out, err) = damast.wait(LONG);
    assert!(status.success(), "{out}\n{err}");
    assert_eq!(game.moves().len(), 12, "{:?}", p.seen);
    assert!(
        chats
            .iter()
            .any(|c| c.contains("move limit reached (6 moves each)")),
        "{chats:?}"
    );
    let g = the_game(&out, &game);
    let t = g.tag("Termination").unwrap_or("");
    assert!(
        t.contains("move limit reached (6 moves each): adjudicated"),
        "{t}"
    );
    // the GAMEEND says the verdict of the record (white is damast)
    let said = match g.result.as_deref() {
        Some("2-0") => EndReason::IWin,
        Some("0-2") => EndReason::ILose,
        Some("1-1") => EndReason::Draw,
        other => panic!("result {other:?}"),
    };
    assert_eq!(end.reason, said);
}

#[test]
fn the_follower_records_a_gameend_at_the_move_count_as_the_move_limit() {
    let follower = Damast::start(&["--listen", "127.0.0.1:0", "--depth", "2"]);
    let mut p = Peer::connect(follower.port());
    for reason in [EndReason::ILose, EndReason::Unknown] {
        p.send_msg(&Message::GameReq(GameReq {
            version: 1,
            name: "Script".into(),
            follower: Color::Black,
            minutes: 1,
            moves: 4,
            start: None,
        }));
        p.expect_acc(AccCode::Accept);
        let mut game = Game::<International>::default();
        while game.moves().len() < 8 {
            let m = safe_move(&game);
            play_msg(&mut game, &m);
            p.send_msg(&Message::Move(m));
            play_msg(&mut game, &p.expect_move());
        }
        // four moves each: the initiator ends the game, as the real engines do
        if reason == EndReason::Unknown {
            p.send_msg(&Message::Chat("unknown result".into()));
        }
        p.send_msg(&end_msg(reason));
        p.expect("GAMEEND", |m| matches!(m, Message::GameEnd(_)));
    }
    drop(p);
    thread::sleep(Duration::from_millis(200));
    let (out, err) = follower.kill();
    let games = games_in(&out);
    assert_eq!(games.len(), 2, "{out}\n{err}");
    for (g, (result, verdict)) in games
        .iter()
        .zip([("0-2", "it says it loses"), ("*", "no reason given")])
    {
        assert_eq!(g.result.as_deref(), Some(result), "{out}");
        assert_eq!(
            g.tag("Termination"),
            Some(format!("move limit reached (4 moves each): {verdict}").as_str()),
            "{out}"
        );
    }
}

#[test]
fn a_peer_that_never_answers_the_gamereq_did_not_accept() {
    let (damast, mut p, listener) =
        initiator_against_script(&["--games", "2", "--time", "0", "--accept-timeout", "0.5"]);
    // like the real engine for time 000: no GAMEACC at all
    p.expect("GAMEREQ", |m| matches!(m, Message::GameReq(_)));
    let started = Instant::now();
    let (status, out, err) = damast.wait(LONG);
    assert!(started.elapsed() < SHORT, "{:?}", started.elapsed());
    assert_eq!(status.code(), Some(3), "{out}\n{err}");
    assert!(
        err.contains("the peer did not accept game request 1: no answer within 0.5 s"),
        "{err}"
    );
    assert_eq!(
        err.trim()
            .lines()
            .filter(|l| l.starts_with("damast: "))
            .count(),
        1
    );
    // damast says why, then closes the connection cleanly
    p.expect(
        "a chat",
        |m| matches!(m, Message::Chat(t) if t.contains("giving up")),
    );
    assert!(p.next(Duration::from_millis(300)).is_none());
    // the listening peer serves the next connection: a second match, refused outright
    let port = listener.local_addr().unwrap().port();
    let again = Damast::start(&[
        "--connect",
        &format!("127.0.0.1:{port}"),
        "--initiate",
        "--games",
        "1",
    ]);
    let mut p = Peer::over(accept_within(&listener, &again));
    p.expect("GAMEREQ", |m| matches!(m, Message::GameReq(_)));
    p.send_msg(&Message::GameAcc(GameAcc {
        name: "Script".into(),
        code: AccCode::NoGames,
    }));
    let (status, out, err) = again.wait(LONG);
    assert_eq!(status.code(), Some(3), "{out}\n{err}");
    assert!(err.contains("plays no games"), "{err}");
}
