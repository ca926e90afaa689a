//! The `damast` binary: `moves` and `perft` output, and bad input (exit code 2, one line on
//! stderr naming the problem).

use std::process::{Command, Output};

fn damast(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_damast"))
        .args(args)
        .env_remove("RUST_LOG")
        .output()
        .expect("run the damast binary")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Runs a command that must succeed and returns its stdout lines.
fn ok_lines(args: &[&str]) -> Vec<String> {
    let o = damast(args);
    assert!(
        o.status.success(),
        "damast {args:?} failed ({:?}): {}",
        o.status,
        stderr(&o)
    );
    stdout(&o).lines().map(str::to_string).collect()
}

/// Splits `moves` output into (hub, pdn) pairs, sorted.
fn move_pairs(lines: &[String]) -> Vec<(String, String)> {
    let mut v: Vec<(String, String)> = lines
        .iter()
        .map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            assert_eq!(f.len(), 2, "line '{l}' is not '<hub> <pdn>'");
            (f[0].to_string(), f[1].to_string())
        })
        .collect();
    v.sort();
    v
}

fn is_quiet_text(t: &str) -> bool {
    let p: Vec<&str> = t.split('-').collect();
    p.len() == 2
        && p.iter()
            .all(|s| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()))
}

#[test]
fn moves_start_position() {
    let lines = ok_lines(&["moves"]);
    assert_eq!(lines.len(), 9, "{lines:?}");
    let pairs = move_pairs(&lines);
    for (hub, pdn) in &pairs {
        assert!(is_quiet_text(hub), "hub form '{hub}'");
        assert_eq!(hub, pdn, "a quiet move has one form");
    }
    let hubs: Vec<&str> = pairs.iter().map(|p| p.0.as_str()).collect();
    assert_eq!(
        hubs,
        ["31-26", "31-27", "32-27", "32-28", "33-28", "33-29", "34-29", "34-30", "35-30"]
    );
    // the default is international, so naming it gives the same output
    let named = ok_lines(&[
        "moves",
        "--variant",
        "international",
        "--fen",
        "W:W31-50:B1-20",
    ]);
    assert_eq!(move_pairs(&named), pairs);
}

#[test]
fn moves_capture_lists_captured_squares() {
    let lines = ok_lines(&["moves", "--fen", "W:W28:B23,33"]);
    assert_eq!(
        move_pairs(&lines),
        [
            ("28x19x23".to_string(), "28x19".to_string()),
            ("28x39x33".to_string(), "28x39".to_string()),
        ]
    );
    // multi-capture: captured squares in ascending order
    let lines = ok_lines(&["moves", "--fen", "W:W15:B8,19,20"]);
    assert_eq!(
        move_pairs(&lines),
        [("15x2x8x19x20".to_string(), "15x2".to_string())]
    );
}

#[test]
fn moves_ambiguous_capture_uses_full_path() {
    let lines = ok_lines(&["moves", "--fen", "W:WK4:B13,32,37,20"]);
    assert_eq!(
        move_pairs(&lines),
        [
            ("4x15x13x20x32".to_string(), "4x27x38x15".to_string()),
            ("4x15x13x20x37".to_string(), "4x31x42x15".to_string()),
        ]
    );
}

#[test]
fn moves_russian() {
    let lines = ok_lines(&["moves", "--variant", "russian"]);
    let pairs = move_pairs(&lines);
    let hubs: Vec<&str> = pairs.iter().map(|p| p.0.as_str()).collect();
    assert_eq!(
        hubs,
        ["21-17", "22-17", "22-18", "23-18", "23-19", "24-19", "24-20"]
    );
    // men capture backward, free choice; PDN may use ':' as the russian capture separator
    let lines = ok_lines(&["moves", "--variant", "russian", "--fen", "W:W18:B22,15"]);
    let pairs = move_pairs(&lines);
    assert_eq!(pairs.len(), 2, "{pairs:?}");
    assert_eq!(pairs[0].0, "18x11x15");
    assert_eq!(pairs[1].0, "18x25x22");
    assert_eq!(pairs[0].1.replace(':', "x"), "18x11");
    assert_eq!(pairs[1].1.replace(':', "x"), "18x25");
    // algebraic FEN on 8x8
    let lines = ok_lines(&[
        "moves",
        "--variant",
        "russian",
        "--fen",
        "W:WKd2:Bf6,c5,e5,e3",
    ]);
    assert_eq!(lines.len(), 4, "{lines:?}");
    assert!(lines.iter().all(|l| l.starts_with("26x")), "{lines:?}");
}

/// Reads `depth=D nodes=N time=S mnps=M` into (D, N).
fn perft_line(l: &str) -> (u32, u64) {
    let f: Vec<&str> = l.split_whitespace().collect();
    assert_eq!(f.len(), 4, "perft line '{l}'");
    let value = |i: usize, key: &str| -> String {
        f[i].strip_prefix(key)
            .unwrap_or_else(|| panic!("field {i} of '{l}' is not {key}..."))
            .to_string()
    };
    let d = value(0, "depth=").parse().expect("depth");
    let n = value(1, "nodes=").parse().expect("nodes");
    value(2, "time=").parse::<f64>().expect("time");
    value(3, "mnps=").parse::<f64>().expect("mnps");
    (d, n)
}

#[test]
fn perft_depth_3() {
    let lines = ok_lines(&["perft", "--depth", "3"]);
    assert_eq!(lines.len(), 3, "{lines:?}");
    let got: Vec<(u32, u64)> = lines.iter().map(String::as_str).map(perft_line).collect();
    assert_eq!(got, [(1, 9), (2, 81), (3, 658)]);
    let lines = ok_lines(&["perft", "--depth", "3", "--threads", "2"]);
    let got: Vec<(u32, u64)> = lines.iter().map(String::as_str).map(perft_line).collect();
    assert_eq!(got, [(1, 9), (2, 81), (3, 658)]);
}

#[test]
fn perft_divide_depth_2() {
    let lines = ok_lines(&["perft", "--divide", "--depth", "2"]);
    assert_eq!(lines.len(), 9 + 2, "{lines:?}");
    let mut total = 0;
    let mut moves = Vec::new();
    for l in &lines[..9] {
        let f: Vec<&str> = l.split_whitespace().collect();
        assert_eq!(f.len(), 2, "divide line '{l}'");
        assert!(is_quiet_text(f[0]), "divide line '{l}'");
        let n: u64 = f[1]
            .strip_prefix("nodes=")
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("divide line '{l}'"));
        assert_eq!(n, 9, "each opening move leaves 9 replies: '{l}'");
        total += n;
        moves.push(f[0].to_string());
    }
    moves.sort();
    moves.dedup();
    assert_eq!(moves.len(), 9);
    assert_eq!(total, 81);
    let got: Vec<(u32, u64)> = lines[9..]
        .iter()
        .map(String::as_str)
        .map(perft_line)
        .collect();
    assert_eq!(got, [(1, 9), (2, 81)]);
}

#[test]
fn perft_russian_and_fen() {
    let lines = ok_lines(&["perft", "--variant", "russian", "--depth", "3"]);
    let got: Vec<(u32, u64)> = lines.iter().map(String::as_str).map(perft_line).collect();
    assert_eq!(got, [(1, 7), (2, 49), (3, 302)]);
    let fen = "W:B12,13,14,16,18,19,21,23,24,26:W25,27,28,30,32,33,34,35,37,38";
    let lines = ok_lines(&["perft", "--fen", fen, "--depth", "4"]);
    let got: Vec<(u32, u64)> = lines.iter().map(String::as_str).map(perft_line).collect();
    assert_eq!(got, [(1, 6), (2, 12), (3, 30), (4, 73)]);
}

/// A run that must fail with exit code 2 and one line on stderr mentioning each of `words`
/// (case-insensitive).
fn check_error(args: &[&str], words: &[&str]) -> Result<(), String> {
    let o = damast(args);
    let err = stderr(&o);
    let mut problems = Vec::new();
    if o.status.code() != Some(2) {
        problems.push(format!("exit status {:?}, expected 2", o.status.code()));
    }
    let lines: Vec<&str> = err.trim_end().lines().collect();
    if lines.len() != 1 {
        problems.push(format!("{} lines on stderr, expected 1", lines.len()));
    }
    let lower = err.to_lowercase();
    for w in words {
        if !lower.contains(&w.to_lowercase()) {
            problems.push(format!("stderr does not mention '{w}'"));
        }
    }
    if !o.stdout.is_empty() {
        problems.push(format!("unexpected stdout: {}", stdout(&o)));
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "damast {args:?}: {}\n--- stderr ---\n{err}--------------",
            problems.join("; ")
        ))
    }
}

fn check_errors(cases: &[(&[&str], &[&str])]) {
    let failures: Vec<String> = cases
        .iter()
        .filter_map(|(args, words)| check_error(args, words).err())
        .collect();
    assert!(
        failures.is_empty(),
        "{} of {} bad inputs not reported as expected:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}

#[test]
fn bad_fen_is_reported() {
    check_errors(&[
        (&["moves", "--fen", "X:W31:B1"], &["fen"]),
        (&["moves", "--fen", "W:W51:B1"], &["fen", "51"]),
        (&["moves", "--fen", "W:W31:B31"], &["fen", "31"]),
        (&["moves", "--fen", ""], &["fen"]),
        (&["perft", "--fen", "W:W3:B31", "--depth", "1"], &["fen"]),
        (
            &["moves", "--variant", "russian", "--fen", "W:W33:B1"],
            &["fen", "33"],
        ),
    ]);
}

#[test]
fn bad_variant_is_reported() {
    check_errors(&[
        (&["moves", "--variant", "chess"], &["variant", "chess"]),
        (
            &["perft", "--variant", "frisian", "--depth", "1"],
            &["variant", "frisian"],
        ),
    ]);
}

#[test]
fn missing_or_bad_arguments_are_reported() {
    check_errors(&[
        (&["perft"], &["depth"]),
        (&["moves", "--fen"], &["fen"]),
        (&["perft", "--depth", "x"], &["depth"]),
        (&["frobnicate"], &["frobnicate"]),
    ]);
}

#[test]
fn tune_generates_labelled_positions_and_fits_weights() {
    let dir = std::env::temp_dir().join(format!("damast-tune-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let data = dir.join("data.txt");
    let data_arg = data.to_str().unwrap();
    let out = ok_lines(&[
        "tune",
        "generate",
        "--games",
        "2",
        "--nodes",
        "300",
        "--threads",
        "2",
        "--out",
        data_arg,
    ]);
    let last = out.last().expect("a summary line");
    let positions: usize = last
        .split_whitespace()
        .find_map(|f| f.strip_prefix("positions="))
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no positions= in {last:?}"));
    let text = std::fs::read_to_string(&data).unwrap();
    assert_eq!(text.lines().count(), positions);
    assert!(positions > 20, "{positions}");

    let fit = ok_lines(&[
        "tune",
        "fit",
        "--data",
        data_arg,
        "--weights",
        "center,tempo",
        "--passes",
        "2",
    ]);
    assert!(
        fit[0].starts_with(&format!("positions={positions} k=")),
        "{fit:?}"
    );
    // every weight is printed once, as `name = value`
    for name in ["man", "center", "tempo", "hook", "wing_lock"] {
        let n = fit
            .iter()
            .filter(|l| l.starts_with(&format!("{name} = ")))
            .count();
        assert_eq!(n, 1, "{name} in {fit:?}");
    }

    let bad = dir.join("bad.txt");
    std::fs::write(&bad, "W:W31-50:B1-20;1\nW:W31-50:B1-20;3\n").unwrap();
    let bad_arg = bad.to_str().unwrap();
    check_errors(&[
        (
            &["tune", "fit", "--data", data_arg, "--weights", "nosuch"],
            &["unknown weight", "nosuch"],
        ),
        (&["tune", "fit", "--data", bad_arg], &["line 2"]),
        (
            &["tune", "fit", "--data", "/nonexistent/damast.txt"],
            &["/nonexistent/damast.txt"],
        ),
        (&["tune", "generate", "--out"], &["out"]),
    ]);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn selfplay_then_train_then_play_with_the_net() {
    let dir = std::env::temp_dir().join(format!("damast-cli-train-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let games = dir.join("g.games");
    let net = dir.join("n.pat");
    let g = games.to_str().unwrap();
    let n = net.to_str().unwrap();
    let lines = ok_lines(&[
        "selfplay",
        "--games",
        "4",
        "--nodes",
        "200",
        "--threads",
        "2",
        "--out",
        g,
    ]);
    assert!(
        lines.last().unwrap().starts_with("games=4 positions="),
        "{lines:?}"
    );
    // asking for more resumes the file
    let lines = ok_lines(&[
        "selfplay",
        "--games",
        "6",
        "--nodes",
        "200",
        "--threads",
        "1",
        "--out",
        g,
    ]);
    assert!(lines.last().unwrap().starts_with("games=6 "), "{lines:?}");
    let lines = ok_lines(&[
        "train", "--data", g, "--out", n, "--epochs", "2", "--batch", "64",
    ]);
    assert!(
        lines.iter().any(|l| l.starts_with("epoch=2 train_loss=")),
        "{lines:?}"
    );
    let lines = ok_lines(&["analyze", "--eval-file", n, "--depth", "3"]);
    assert!(lines.last().unwrap().starts_with("bestmove="), "{lines:?}");
    let lines = ok_lines(&["analyze", "--eval", "classic", "--depth", "3"]);
    assert!(lines.last().unwrap().starts_with("bestmove="), "{lines:?}");
    // bad files are one-line errors
    std::fs::write(&net, b"DMSTPAT1 not really").unwrap();
    let o = damast(&["analyze", "--eval-file", n, "--depth", "3"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("n.pat"), "{}", stderr(&o));
    std::fs::write(&games, b"garbage").unwrap();
    let o = damast(&["train", "--data", g, "--out", n]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("not a Damast game file"),
        "{}",
        stderr(&o)
    );
    let o = damast(&["selfplay", "--games", "2", "--out", g]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("not a Damast game file"),
        "{}",
        stderr(&o)
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn book_build_show_stats_check_and_bad_books() {
    let dir = std::env::temp_dir().join(format!("damast-cli-book-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let book = dir.join("b.book");
    let _ = std::fs::remove_file(&book);
    let b = book.to_str().unwrap();
    let built = ok_lines(&[
        "book",
        "build",
        "--nodes",
        "400",
        "--size",
        "25",
        "--max-ply",
        "6",
        "--threads",
        "2",
        "--out",
        b,
    ]);
    let last = built.last().unwrap();
    assert!(
        last.starts_with("positions=") && last.contains("bytes="),
        "{last}"
    );
    let stats = ok_lines(&["book", "stats", "--book", b]);
    assert!(stats[0].starts_with("positions="), "{stats:?}");
    assert_eq!(stats[1], "ply=0 positions=1");
    let show = ok_lines(&["book", "show", "--book", b, "--moves", "32-28"]);
    assert!(show[0].starts_with("ply=1 moves="), "{show:?}");
    assert!(show[1..]
        .iter()
        .all(|l| l.contains(" score=") && l.contains(" book=")));
    let off = ok_lines(&["book", "show", "--book", b, "--moves", "32-28 19-23 28x19"]);
    assert_eq!(off, vec!["not in book"]);
    let check = ok_lines(&[
        "book", "check", "--book", b, "--sample", "3", "--nodes", "2000", "--margin", "10",
    ]);
    assert!(check[0].starts_with("positions=3 moves="), "{check:?}");
    // analyse shows the book's candidates before searching
    let analysed = ok_lines(&[
        "analyze",
        "--book-file",
        b,
        "--book-margin",
        "100",
        "--depth",
        "2",
    ]);
    assert!(analysed[0].starts_with("book="), "{analysed:?}");
    assert!(analysed.last().unwrap().starts_with("bestmove="));

    // damaged, foreign and missing books are one clear error each
    let bytes = std::fs::read(&book).unwrap();
    let cut = dir.join("cut.book");
    std::fs::write(&cut, &bytes[..bytes.len() / 2]).unwrap();
    let flipped = dir.join("flipped.book");
    let mut f = bytes.clone();
    f[40] ^= 0x10;
    std::fs::write(&flipped, &f).unwrap();
    let (cut, flipped) = (cut.to_str().unwrap(), flipped.to_str().unwrap());
    let missing = dir.join("missing.book");
    let missing = missing.to_str().unwrap();
    check_errors(&[
        (&["book", "stats", "--book", cut], &["cut.book", "damaged"]),
        (&["book", "show", "--book", flipped], &["damaged"]),
        (
            &["book", "stats", "--book", missing],
            &["missing.book", "cannot read"],
        ),
        (
            &["book", "stats", "--variant", "russian", "--book", b],
            &["gametype 20"],
        ),
        (
            &["analyze", "--book-file", cut, "--depth", "1"],
            &["damaged"],
        ),
        (
            &[
                "book", "build", "--nodes", "401", "--size", "30", "--out", b,
            ],
            &["--nodes 400"],
        ),
    ]);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn egdb_build_probe_verify_and_damaged_slices() {
    let dir = std::env::temp_dir().join(format!("damast-cli-egdb-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let d = dir.to_str().unwrap();
    let built = ok_lines(&[
        "egdb",
        "build",
        "--variant",
        "english",
        "--pieces",
        "3",
        "--dir",
        d,
    ]);
    assert!(
        built
            .iter()
            .any(|l| l.starts_with("slice=0201 ") && l.contains(" wins=")),
        "{built:?}"
    );
    assert!(built.last().unwrap().starts_with("built="), "{built:?}");
    // resumes: everything is kept
    let again = ok_lines(&[
        "egdb",
        "build",
        "--variant",
        "english",
        "--pieces",
        "3",
        "--dir",
        d,
    ]);
    assert_eq!(again, vec![format!("built=0 dir={d}")]);
    let probe = |fen: &str| {
        ok_lines(&[
            "egdb",
            "probe",
            "--variant",
            "english",
            "--dir",
            d,
            "--fen",
            fen,
        ])
    };
    // the value for the side to move and its distance to conversion in plies
    assert_eq!(probe("W:WK1,K2:BK32"), vec!["wdl=win dtc=33"]);
    assert_eq!(probe("B:WK1,K2:BK32"), vec!["wdl=loss dtc=30"]);
    assert_eq!(probe("W:WK1:BK32"), vec!["wdl=draw dtc=0"]);
    let verified = ok_lines(&["egdb", "verify", "--variant", "english", "--dir", d]);
    assert_eq!(verified.last().unwrap(), "ok");
    let one = ok_lines(&[
        "egdb",
        "verify",
        "--variant",
        "english",
        "--dir",
        d,
        "--only",
        "0201",
    ]);
    assert_eq!(one.len(), 2, "{one:?}");
    assert!(one[0].starts_with("slice=0201 "), "{one:?}");
    assert!(verified
        .iter()
        .all(|l| l == "ok" || l.ends_with(" wrong=0")));
    // analyse reports the database's verdict before searching
    let analysed = ok_lines(&[
        "analyze",
        "--variant",
        "english",
        "--fen",
        "W:WK1,K2:BK32",
        "--depth",
        "4",
        "--egdb-dir",
        d,
    ]);
    assert_eq!(analysed[0], "egdb=win dtc=33", "{analysed:?}");
    // and the search scores it as a won ending, not as a material count
    let last = analysed.last().unwrap();
    let score: f64 = last
        .split("score=")
        .nth(1)
        .unwrap()
        .split_whitespace()
        .next()
        .unwrap()
        .parse()
        .unwrap();
    assert!((80.0..90.0).contains(&score), "{last}");
    // a damaged slice, too many pieces and no database are one clear error each
    let slice = dir.join("english-0201.egdb");
    let mut bytes = std::fs::read(&slice).unwrap();
    let n = bytes.len();
    // every block damaged (a probe reads only its own block)
    for i in (80..n - 8).step_by(50) {
        bytes[i] ^= 0x40;
    }
    std::fs::write(&slice, &bytes).unwrap();
    let empty = dir.join("empty");
    std::fs::create_dir_all(&empty).unwrap();
    check_errors(&[
        (
            &[
                "egdb",
                "probe",
                "--variant",
                "english",
                "--dir",
                d,
                "--fen",
                "W:WK1,K2:BK32",
            ],
            &["damaged"],
        ),
        (
            &[
                "egdb",
                "probe",
                "--variant",
                "english",
                "--dir",
                d,
                "--fen",
                "W:W21,22:B1,2",
            ],
            &["4 pieces", "up to 3"],
        ),
        (
            &[
                "egdb",
                "probe",
                "--dir",
                empty.to_str().unwrap(),
                "--fen",
                "W:WK1:BK5",
            ],
            &["no international endgame database"],
        ),
        (&["egdb", "build", "--pieces", "9", "--dir", d], &["pieces"]),
    ]);
    let o = damast(&["egdb", "verify", "--variant", "english", "--dir", d]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("english-0201.egdb") && stderr(&o).contains("damaged"));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_search_takes_draws_from_the_endgame_database() {
    let dir = std::env::temp_dir().join(format!("damast-cli-egdb-s-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let d = dir.to_str().unwrap();
    ok_lines(&["egdb", "build", "--pieces", "3", "--dir", d]);
    // a king against two men: a draw by the database, which the search alone scores below 0
    // at this depth
    let fen = "W:WK1:B40,45";
    let score = |extra: &[&str]| -> f64 {
        let mut args = vec!["analyze", "--fen", fen, "--depth", "6"];
        args.extend_from_slice(extra);
        let lines = ok_lines(&args);
        let last = lines.last().unwrap();
        let s = last.split("score=").nth(1).unwrap();
        s.split_whitespace().next().unwrap().parse().unwrap()
    };
    assert!(score(&[]) < -0.05);
    assert_eq!(score(&["--egdb-dir", d]), 0.0);
    std::fs::remove_dir_all(&dir).unwrap();
}
