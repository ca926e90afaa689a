//! `damast serve`: the JSON API driven through the real binary over HTTP on loopback: games,
//! moves, illegal moves refused, undo and redo, engine replies within their limit, the event
//! stream, game analysis, PDN in and out, errors for bad input, many games at once.

use std::io::{BufRead, BufReader, Read};
use std::process::{Child, Command, Stdio};
use std::thread;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

/// A running `damast serve` on a free port, killed when dropped.
struct Serve {
    child: Child,
    base: String,
}

impl Serve {
    fn start(extra: &[&str]) -> Serve {
        let mut child = Command::new(env!("CARGO_BIN_EXE_damast"))
            .args(["serve", "--listen", "127.0.0.1:0"])
            .args(extra)
            .env_remove("RUST_LOG")
            .env_remove("DAMAST_PAGE_DIR")
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("start damast serve");
        let mut first = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut first)
            .expect("read the first line");
        let url = first
            .trim()
            .strip_prefix("listening on ")
            .unwrap_or_else(|| panic!("first line: {first:?}"));
        Serve {
            child,
            base: url.trim_end_matches('/').to_string(),
        }
    }

    fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    /// A request; answers the status and the body as JSON (or as a JSON string when not JSON).
    fn call(&self, method: &str, path: &str, body: Option<&str>) -> (u16, Value) {
        let req = ureq::request(method, &self.url(path)).timeout(Duration::from_secs(30));
        let res = match body {
            Some(b) => req.send_string(b),
            None => req.call(),
        };
        let res = match res {
            Ok(r) => r,
            Err(ureq::Error::Status(_, r)) => r,
            Err(e) => panic!("{method} {path}: {e}"),
        };
        let status = res.status();
        let text = res.into_string().unwrap();
        let value = serde_json::from_str(&text).unwrap_or(Value::String(text));
        (status, value)
    }

    fn post(&self, path: &str, body: Value) -> (u16, Value) {
        self.call("POST", path, Some(&body.to_string()))
    }

    fn new_game(&self, body: Value) -> Value {
        let (status, state) = self.post("/api/games", body);
        assert_eq!(status, 201, "{state}");
        state
    }

    fn state(&self, id: &str) -> Value {
        let (status, state) = self.call("GET", &format!("/api/games/{id}"), None);
        assert_eq!(status, 200, "{state}");
        state
    }

    /// Polls the game until `done` holds or the time runs out.
    fn wait(&self, id: &str, limit: Duration, done: impl Fn(&Value) -> bool) -> Value {
        let t = Instant::now();
        loop {
            let s = self.state(id);
            if done(&s) {
                return s;
            }
            assert!(t.elapsed() < limit, "timed out waiting; last state {s}");
            thread::sleep(Duration::from_millis(30));
        }
    }
}

impl Drop for Serve {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn id(state: &Value) -> String {
    state["id"].as_str().unwrap().to_string()
}

fn error_of(v: &Value) -> &str {
    v["error"]
        .as_str()
        .unwrap_or_else(|| panic!("no error in {v}"))
}

#[test]
fn the_page_and_the_variants_are_served() {
    let s = Serve::start(&[]);
    let (status, page) = s.call("GET", "/", None);
    assert_eq!(status, 200);
    assert!(page.as_str().unwrap().contains("<html"), "{page}");
    let (status, v) = s.call("GET", "/api/variants", None);
    assert_eq!(status, 200);
    let list = v["variants"].as_array().unwrap();
    assert_eq!(list.len(), 11);
    assert_eq!(list[0], json!({"name": "international", "size": 10}));
    assert!(list
        .iter()
        .any(|x| x == &json!({"name": "english", "size": 8})));
    assert_eq!(s.call("GET", "/nothing.js", None).0, 404);
    assert_eq!(s.call("GET", "/api/nothing", None).0, 404);
}

#[test]
fn a_new_game_shows_the_board_and_takes_moves_by_text_and_by_path() {
    let s = Serve::start(&[]);
    let st = s.new_game(json!({}));
    assert_eq!(st["variant"], "international");
    assert_eq!(st["size"], 10);
    assert_eq!(st["squares"].as_array().unwrap().len(), 50);
    assert_eq!(
        st["squares"][0],
        json!({"n": 1, "row": 0, "col": 1, "piece": "b"})
    );
    assert_eq!(
        st["squares"][45],
        json!({"n": 46, "row": 9, "col": 0, "piece": "w"})
    );
    assert_eq!(st["legal"].as_array().unwrap().len(), 9);
    assert_eq!(
        (st["side"].as_str(), st["ply"].as_u64()),
        (Some("white"), Some(0))
    );
    let g = id(&st);
    let (status, st) = s.post(&format!("/api/games/{g}/move"), json!({"move": "32-28"}));
    assert_eq!(status, 200, "{st}");
    let (status, st) = s.post(&format!("/api/games/{g}/move"), json!({"path": [19, 23]}));
    assert_eq!(status, 200, "{st}");
    // white must take: the capture is marked and listed with its path
    assert_eq!(st["must_capture"], json!([28]));
    assert_eq!(st["legal"][0]["path"], json!([28, 19]));
    assert_eq!(st["legal"][0]["captured"], json!([23]));
    let (status, st) = s.post(&format!("/api/games/{g}/move"), json!({"path": [28, 19]}));
    assert_eq!(status, 200, "{st}");
    assert_eq!(st["ply"], 3);
    assert_eq!(st["last_move"]["captured"], json!([23]));
    assert_eq!(st["moves"][2]["text"], "28x19");
    assert_eq!(st["moves"][1]["number"], "1...");
}

#[test]
fn illegal_moves_and_bad_input_are_refused_with_a_clear_error() {
    let s = Serve::start(&[]);
    let g = id(&s.new_game(json!({})));
    let mv = format!("/api/games/{g}/move");
    let cases = [
        (json!({"move": "32-29"}), 400, "illegal"),
        (json!({"path": [32, 29]}), 400, "illegal"),
        (json!({"path": [99, 28]}), 400, "no square 99"),
        (json!({"move": "32-28", "path": [32, 28]}), 400, "either"),
        (json!({"mvoe": "32-28"}), 400, "unknown field"),
        (json!({"path": [32]}), 400, "2 to 64"),
    ];
    for (body, status, words) in cases {
        let (got, err) = s.post(&mv, body.clone());
        assert_eq!(got, status, "{body}: {err}");
        assert!(error_of(&err).contains(words), "{body}: {err}");
    }
    let (got, err) = s.call("POST", &mv, Some("{not json"));
    assert_eq!(got, 400);
    assert!(error_of(&err).contains("JSON"));
    // nothing was played
    assert_eq!(s.state(&g)["ply"], 0);
    let bad_games = [
        (json!({"fen": "W:W99:B1"}), "FEN"),
        (json!({"variant": "chess"}), "unknown variant"),
        (json!({"pdn": "1. 32-29 *"}), "PDN"),
        (json!({"level": "hard"}), "bad level"),
        (json!({"level": 101}), "bad level"),
        (json!({"engine": "red"}), "engine side"),
        (json!({"movetime": 1000}), "out of range"),
        (json!({"movetime": -1}), "out of range"),
    ];
    for (body, words) in bad_games {
        let (got, err) = s.post("/api/games", body.clone());
        assert_eq!(got, 400, "{body}: {err}");
        assert!(error_of(&err).contains(words), "{body}: {err}");
    }
    assert_eq!(s.call("GET", "/api/games/nosuchgame", None).0, 404);
    assert_eq!(
        s.post("/api/games/nosuchgame/move", json!({"move": "32-28"}))
            .0,
        404
    );
    assert_eq!(s.post(&format!("/api/games/{g}/fly"), json!({})).0, 404);
    assert_eq!(s.call("GET", &format!("/api/games/{g}/undo"), None).0, 405);
    assert_eq!(s.call("PUT", "/api/games", Some("{}")).0, 405);
    let big = format!("{{\"fen\": \"{}\"}}", "x".repeat(70_000));
    let (got, err) = s.call("POST", "/api/games", Some(&big));
    assert_eq!(got, 413, "{err}");
    // the server is still fine
    assert_eq!(s.state(&g)["ply"], 0);
}

#[test]
fn the_engine_replies_within_its_limit_and_undo_goes_back_to_the_human() {
    let s = Serve::start(&[]);
    let st = s.new_game(json!({"engine": "black", "level": "easy", "movetime": 0.2}));
    let g = id(&st);
    assert_eq!(st["engine"], "black");
    assert_eq!(st["level"], "easy");
    let t = Instant::now();
    let (status, st) = s.post(&format!("/api/games/{g}/move"), json!({"move": "32-28"}));
    assert_eq!(status, 200);
    // thinking, unless the easy engine already answered
    assert!(st["thinking"] == true || st["ply"] == 2, "{st}");
    // a move while the engine thinks is refused
    let (status, err) = s.post(&format!("/api/games/{g}/move"), json!({"move": "19-23"}));
    assert!(status == 409 || status == 400, "{status} {err}");
    let st = s.wait(&g, Duration::from_secs(10), |s| s["ply"] == 2);
    assert!(t.elapsed() < Duration::from_secs(5), "{:?}", t.elapsed());
    assert_eq!(
        (st["side"].as_str(), st["thinking"].as_bool()),
        (Some("white"), Some(false))
    );
    let (status, st) = s.post(&format!("/api/games/{g}/undo"), json!({}));
    assert_eq!(status, 200, "{st}");
    assert_eq!(
        (st["ply"].as_u64(), st["redo"].as_u64()),
        (Some(0), Some(2))
    );
    assert_eq!(st["thinking"], false);
    let (status, err) = s.post(&format!("/api/games/{g}/undo"), json!({}));
    assert_eq!(status, 409, "{err}");
    let (status, st) = s.post(&format!("/api/games/{g}/redo"), json!({}));
    assert_eq!(status, 200, "{st}");
    assert_eq!(
        (st["ply"].as_u64(), st["redo"].as_u64()),
        (Some(2), Some(0))
    );
    assert_eq!(st["thinking"], false);
    // the engine may also move on request, for either side
    let (status, st) = s.post(&format!("/api/games/{g}/go"), json!({}));
    assert_eq!(status, 202, "{st}");
    s.wait(&g, Duration::from_secs(10), |s| {
        s["ply"] == 3 && s["thinking"] == false
    });
}

#[test]
fn many_games_at_once_are_bounded_and_all_progress() {
    let s = Serve::start(&["--max-games", "6"]);
    // five games whose engine (white) moves first, all queued on the one engine
    let ids: Vec<String> = (0..5)
        .map(|_| id(&s.new_game(json!({"engine": "white", "level": "easy", "movetime": 0.05}))))
        .collect();
    let extra = id(&s.new_game(json!({})));
    let (status, err) = s.post("/api/games", json!({}));
    assert_eq!(status, 503, "{err}");
    assert!(error_of(&err).contains("too many games"));
    thread::scope(|scope| {
        for g in &ids {
            let s = &s;
            scope.spawn(move || s.wait(g, Duration::from_secs(20), |st| st["ply"] == 1));
        }
    });
    assert_eq!(
        s.call("DELETE", &format!("/api/games/{extra}"), None).0,
        204
    );
    assert_eq!(s.call("GET", &format!("/api/games/{extra}"), None).0, 404);
    s.new_game(json!({}));
}

#[test]
fn the_event_stream_reports_the_state_and_the_search() {
    let s = Serve::start(&[]);
    let g = id(&s.new_game(json!({"engine": "black", "level": "expert", "movetime": 0.3})));
    let url = s.url(&format!("/api/games/{g}/events"));
    let (tx, rx) = std::sync::mpsc::channel::<String>();
    thread::spawn(move || {
        let res = ureq::get(&url).call().expect("open the stream");
        assert_eq!(res.header("Content-Type"), Some("text/event-stream"));
        let mut reader = BufReader::new(res.into_reader());
        let mut line = String::new();
        while reader.read_line(&mut line).unwrap_or(0) > 0 {
            if tx.send(line.trim_end().to_string()).is_err() {
                break;
            }
            line.clear();
        }
    });
    let next = |what: &str| -> Value {
        let t = Instant::now();
        let mut event = String::new();
        loop {
            let left = Duration::from_secs(10).saturating_sub(t.elapsed());
            let line = rx
                .recv_timeout(left)
                .unwrap_or_else(|_| panic!("no {what} event"));
            if let Some(e) = line.strip_prefix("event: ") {
                event = e.to_string();
            } else if let Some(d) = line.strip_prefix("data: ") {
                if event == what {
                    return serde_json::from_str(d).unwrap();
                }
            }
        }
    };
    assert_eq!(next("state")["ply"], 0);
    s.post(&format!("/api/games/{g}/move"), json!({"move": "33-28"}));
    let info = next("info");
    assert_eq!(info["kind"], "think");
    assert!(info["pv"].as_array().is_some());
    loop {
        let st = next("state");
        if st["ply"] == 2 {
            assert_eq!(st["thinking"], false);
            break;
        }
    }
}

#[test]
fn a_game_is_analysed_move_by_move_and_exported_as_pdn() {
    let s = Serve::start(&[]);
    let pdn = "[GameType \"20\"]\n\n1. 32-28 19-23 2. 28x19 14x23 *\n";
    let st = s.new_game(json!({"pdn": pdn}));
    let g = id(&st);
    assert_eq!(st["ply"], 4);
    let (status, st) = s.post(
        &format!("/api/games/{g}/analyse-game"),
        json!({"movetime": 0.05}),
    );
    assert_eq!(status, 202, "{st}");
    let st = s.wait(&g, Duration::from_secs(20), |s| {
        s["review"]["running"] == false
    });
    let entries = st["review"]["entries"].as_array().unwrap();
    assert_eq!(entries.len(), 4);
    assert_eq!(entries[2]["played"], "28x19");
    assert_eq!(st["review"]["done"], 4);
    // the second ply is black's: its white score is minus its own
    assert_eq!(entries[1]["white"], -entries[1]["score"].as_i64().unwrap());
    let (status, text) = s.call("GET", &format!("/api/games/{g}/pdn"), None);
    assert_eq!(status, 200);
    let text = text.as_str().unwrap();
    assert!(text.contains("1. 32-28"), "{text}");
    assert!(text.contains("{score"), "{text}");
    // the export reads back as the same game
    let again = s.new_game(json!({"pdn": text}));
    assert_eq!(again["fen"], st["fen"]);
    // a position analysis reports a line
    let (status, _) = s.post(&format!("/api/games/{g}/analyse"), json!({"movetime": 0.2}));
    assert_eq!(status, 202);
    let st = s.wait(&g, Duration::from_secs(10), |s| s["analysing"] == false);
    assert!(st["analysis"]["depth"].as_u64().unwrap() >= 1, "{st}");
}

#[test]
fn other_variants_draw_rules_and_finished_games() {
    let s = Serve::start(&[]);
    let st = s.new_game(json!({"variant": "english"}));
    assert_eq!(
        (st["size"].as_u64(), st["side"].as_str()),
        (Some(8), Some("black"))
    );
    assert_eq!(st["squares"].as_array().unwrap().len(), 32);
    let st = s.new_game(json!({"fen": "W:WK46,40:BK5"}));
    assert_eq!(st["draw_rule"]["rule"], "5-move rule");
    assert_eq!(st["draw_rule"]["moves_left"], 5);
    let st = s.new_game(json!({"fen": "W:W46:B41,37"}));
    assert_eq!(st["result"]["score"], "0-2");
    assert_eq!(st["result"]["reason"], "white has no legal move");
    let (status, err) = s.post(&format!("/api/games/{}/go", id(&st)), json!({}));
    assert_eq!(status, 409, "{err}");
    // a raw request with a lying Content-Length does not hang or kill the server
    let mut raw = std::net::TcpStream::connect(s.base.trim_start_matches("http://")).unwrap();
    std::io::Write::write_all(
        &mut raw,
        b"POST /api/games HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\n{",
    )
    .unwrap();
    raw.shutdown(std::net::Shutdown::Write).unwrap();
    let mut answer = String::new();
    let _ = raw.read_to_string(&mut answer);
    assert_eq!(s.state(&id(&st))["result"]["score"], "0-2");
}
