//! `damast tune spsa` end to end: the real binary tunes two search settings of real `damast hub`
//! engines over a few game pairs at a small node count, writes its state, resumes from it, and
//! refuses bad parameters and a state file of another run.

use std::path::PathBuf;
use std::process::{Command, Output};

mod common;
use common::text;

const DAMAST: &str = env!("CARGO_BIN_EXE_damast");

fn temp(name: &str) -> PathBuf {
    common::temp("spsa", name)
}

fn spsa(state: &PathBuf, params: &[&str], iterations: usize) -> Output {
    let mut c = Command::new(DAMAST);
    c.args(["tune", "spsa", "--engine"])
        .arg(format!("cmd={DAMAST} hub"))
        .args(["option.tt-size=8", "option.book=false"]);
    for p in params {
        c.args(["--param", p]);
    }
    c.args(["--iterations", &iterations.to_string(), "--nodes", "400"])
        .args(["--concurrency", "2", "--report", "1", "--seed", "5"])
        .args(["--draw", "movenumber=30", "movecount=4", "score=0.1"])
        .args(["--resign", "movecount=3", "score=2"])
        .arg("--state")
        .arg(state)
        .env_remove("RUST_LOG")
        .output()
        .expect("run damast tune spsa")
}

fn state(path: &PathBuf) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

const PARAMS: [&str; 2] = [
    "search-lmr-divisor=200,100,400,20,0.05",
    "search-move-futility=40,0,120,8,0.05",
];

#[test]
fn tunes_writes_its_state_and_resumes() {
    let path = temp("run.json");
    let out = spsa(&path, &PARAMS, 3);
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{stdout}\n{}", text(&out.stderr));
    assert!(
        stdout.contains("SPSA: 2 parameters, 3 iterations"),
        "{stdout}"
    );
    assert!(
        stdout.contains("Finished 3/3: search-lmr-divisor="),
        "{stdout}"
    );
    let tuned = stdout
        .lines()
        .find_map(|l| l.strip_prefix("Tuned: "))
        .expect("a Tuned line");
    let tokens: Vec<&str> = tuned.split(' ').collect();
    assert_eq!(tokens.len(), 2, "{tuned}");
    assert!(tokens[0].starts_with("option.search-lmr-divisor="));
    assert!(tokens[1].starts_with("option.search-move-futility="));
    let s = state(&path);
    assert_eq!(s["done"], 3);
    let games = ["wins", "draws", "losses"].map(|k| s[k].as_u64().unwrap());
    assert_eq!(games.iter().sum::<u64>(), 6, "two games a pair: {s}");
    assert_eq!(s["faults"], 0, "{s}");
    // every value stays within its bounds
    let theta: Vec<f64> = serde_json::from_value(s["theta"].clone()).unwrap();
    assert!((100.0..=400.0).contains(&theta[0]) && (0.0..=120.0).contains(&theta[1]));

    // an interrupted run (as if stopped after its second pair) plays only the pairs left
    let mut cut = s.clone();
    cut["done"] = 2.into();
    cut["wins"] = 0.into();
    cut["draws"] = 0.into();
    cut["losses"] = 0.into();
    std::fs::write(&path, cut.to_string()).unwrap();
    let out = spsa(&path, &PARAMS, 3);
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{stdout}\n{}", text(&out.stderr));
    assert!(stdout.contains("Resuming 2/3"), "{stdout}");
    let s = state(&path);
    assert_eq!(s["done"], 3);
    let games = ["wins", "draws", "losses"].map(|k| s[k].as_u64().unwrap());
    assert_eq!(games.iter().sum::<u64>(), 2, "one more pair: {s}");

    // a finished run resumes to nothing more, and a run of other parameters is refused
    let out = spsa(&path, &PARAMS, 3);
    assert!(out.status.success());
    assert_eq!(state(&path)["done"], 3);
    let before = std::fs::read_to_string(&path).unwrap();
    let out = spsa(&path, &["search-aspiration=25,5,100,5"], 3);
    let stderr = text(&out.stderr);
    assert!(!out.status.success());
    assert!(
        stderr.contains("it tunes search-lmr-divisor, search-move-futility"),
        "{stderr}"
    );
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        before,
        "the state is kept"
    );
}

#[test]
fn refuses_bad_parameters_and_state_files_with_a_reason() {
    let path = temp("bad.json");
    for (param, why) in [
        ("search-lmr-divisor=200,100,400", "four or five numbers"),
        ("search-lmr-divisor=500,100,400,20", "START must lie within"),
        ("search-lmr-divisor", "no '='"),
    ] {
        let out = spsa(&path, &[param], 2);
        let stderr = text(&out.stderr);
        assert!(!out.status.success(), "{param}");
        assert!(stderr.contains(why), "{param}: {stderr}");
        assert!(!path.exists(), "nothing written for {param}");
    }
    let out = spsa(&path, &[PARAMS[0], PARAMS[0]], 2);
    assert!(text(&out.stderr).contains("given twice"));
    std::fs::write(&path, "not json at all").unwrap();
    let out = spsa(&path, &PARAMS, 2);
    let stderr = text(&out.stderr);
    assert!(!out.status.success());
    assert!(stderr.contains("not a tuning state"), "{stderr}");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "not json at all");
}

/// An engine that loses by a fault while its process lives on is not trusted for the pair's
/// second game: the tuner starts a new process for it, as the match runner does.
#[test]
fn an_engine_that_faulted_is_restarted_for_the_second_game() {
    let path = temp("faults.json");
    let log = temp("starts.log");
    let script = common::broken_engine_script();
    let out = Command::new(DAMAST)
        .args(["tune", "spsa", "--engine"])
        .arg(format!("cmd=python3 '{}' illegal", script.display()))
        .args(["--param", "weight=5,0,10,1"])
        .args(["--iterations", "1", "--nodes", "100", "--concurrency", "1"])
        .arg("--state")
        .arg(&path)
        .env("BROKEN_ENGINE_LOG", &log)
        .env_remove("RUST_LOG")
        .output()
        .expect("run damast tune spsa");
    assert!(out.status.success(), "{}", text(&out.stderr));
    let s = state(&path);
    // White answers an illegal move in both games: one loss for each side of the pair
    assert_eq!(s["faults"], 2, "{s}");
    assert_eq!(
        (s["wins"].as_u64(), s["losses"].as_u64()),
        (Some(1), Some(1))
    );
    let starts = std::fs::read_to_string(&log).unwrap().lines().count();
    // one start to check the parameters, two for the pair, one to replace the engine that
    // faulted in the first game (none after the last game)
    assert_eq!(starts, 4, "processes started");
}
