//! Helpers shared by the integration tests (each test crate uses only some of them).

#![allow(dead_code)]

use std::io::Read;
use std::process::{Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

/// A small deterministic random generator (xorshift64*), so that a failure can be replayed.
pub struct Rng(pub u64);

impl Rng {
    /// The next 64 random bits.
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// A number below `n`.
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// The Python interpreter for the tests that talk to pydraughts: `DAMAST_PYTHON` (scripts/test.sh
/// sets it to a venv with pydraughts), else `python3`. Fails the test, with advice, unless the
/// Python code `probe` runs successfully with it: these tests never pass silently.
pub fn pydraughts_python(probe: &str) -> String {
    let python = std::env::var("DAMAST_PYTHON")
        .ok()
        .filter(|s| !s.trim().is_empty())
        .unwrap_or_else(|| "python3".to_string());
    let problem = match Command::new(&python).args(["-c", probe]).output() {
        Err(e) => format!("cannot run the interpreter '{python}': {e}"),
        Ok(o) if !o.status.success() => format!(
            "the interpreter '{python}' cannot use pydraughts ({}):\n{}",
            o.status,
            String::from_utf8_lossy(&o.stderr).trim()
        ),
        Ok(_) => return python,
    };
    panic!(
        "{problem}\n\nThis test needs a Python with pydraughts installed. Run `scripts/test.sh` (it \
         creates .venv with pydraughts and sets DAMAST_PYTHON), or set DAMAST_PYTHON to an \
         interpreter that has it (e.g. DAMAST_PYTHON=.venv/bin/python)."
    );
}

/// How a child process ended.
pub struct Finished {
    /// Its exit status; `None` when it ran past the time allowed and was killed.
    pub status: Option<ExitStatus>,
    /// Everything it wrote on standard output.
    pub stdout: String,
    /// Everything it wrote on standard error.
    pub stderr: String,
    /// Seconds it ran.
    pub seconds: f64,
}

/// Runs `cmd` with its output captured, killing it after `timeout`.
pub fn run_with_timeout(cmd: &mut Command, timeout: Duration) -> Finished {
    let mut child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start {cmd:?}: {e}"));
    let capture = |mut pipe: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut s = String::new();
            let _ = pipe.read_to_string(&mut s);
            s
        })
    };
    let out = capture(Box::new(child.stdout.take().unwrap()));
    let err = capture(Box::new(child.stderr.take().unwrap()));
    let start = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().expect("wait for the child") {
            break Some(s);
        }
        if start.elapsed() > timeout {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    Finished {
        status,
        stdout: out.join().unwrap_or_default(),
        stderr: err.join().unwrap_or_default(),
        seconds: start.elapsed().as_secs_f64(),
    }
}

/// Output bytes as text (lossy), for assertions and their messages.
pub fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// A fresh path `name` in this test process's own temporary directory for `suite` (any file
/// already there is removed).
pub fn temp(suite: &str, name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("damast-{suite}-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    let _ = std::fs::remove_file(&p);
    p
}

/// The deliberately broken Hub engine of the match runner's and the tuner's tests.
pub fn broken_engine_script() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/engines/broken_engine.py")
}
