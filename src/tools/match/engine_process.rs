//! The runner's side of the Hub protocol: one engine as a child process, driven through pipes.
//!
//! A reader thread turns the engine's standard output into time-stamped lines on a channel, so
//! that every wait has a deadline and a crash (end of output) is seen at once; another thread
//! keeps the last lines of its standard error for error reports. The engine runs in its own
//! process group, so that killing it also ends anything it started.

use crate::protocol::lines::read_lines;
use std::collections::VecDeque;
use std::io::{BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use crossbeam_channel::{unbounded, Receiver, RecvTimeoutError};

use crate::protocol::hub::{parse_line, quote, Line};

use super::config::EngineSpec;

/// The longest output line accepted from an engine, in bytes.
pub const MAX_LINE: usize = 1 << 20;
/// Seconds an engine is given to answer `stop` once its time is up.
pub const STOP_GRACE: f64 = 1.0;
/// Lines of standard error kept for error reports.
const STDERR_LINES: usize = 8;

/// What went wrong with an engine process.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum EngineError {
    /// The program could not be started at all.
    #[error("cannot start '{program}': {reason}")]
    Spawn {
        /// The program.
        program: String,
        /// The operating system's reason.
        reason: String,
    },
    /// The process ended (or closed its output or input).
    #[error("crashed{0}")]
    Crashed(String),
    /// No answer in time.
    #[error("did not answer within {seconds:.2} s (waiting for '{waiting_for}')")]
    Stalled {
        /// The answer awaited.
        waiting_for: &'static str,
        /// Seconds waited.
        seconds: f64,
    },
    /// A line that is not Hub protocol.
    #[error("sent garbage: {0}")]
    Garbage(String),
}

/// A parameter the engine declared with `param`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Param {
    /// Its name.
    pub name: String,
    /// Its type (`bool`, `int`, `real`, `string`, `enum`).
    pub kind: String,
    /// The values of an `enum`.
    pub values: Vec<String>,
}

/// An engine's answer to `go think`.
#[derive(Clone, Debug, PartialEq)]
pub struct Reply {
    /// The move of `done move=...` (`None` for a bare `done`).
    pub best: Option<String>,
    /// The expected answer of `done ... ponder=...`, if any.
    pub ponder: Option<String>,
    /// The last score of an `info` line, in men from the engine's point of view.
    pub score: Option<f64>,
    /// The last depth of an `info` line.
    pub depth: Option<u32>,
    /// Seconds from sending `go` to receiving `done`.
    pub elapsed: f64,
    /// Whether the runner had to send `stop` because the time was up.
    pub stopped: bool,
}

/// What the reader thread passes on.
#[derive(Debug)]
enum Event {
    Line(Instant, Vec<u8>),
    TooLong,
    Eof,
}

/// A printable, short version of an engine's line for messages.
pub fn shorten(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(bytes);
    let mut s: String = text
        .trim_end_matches(['\r', '\n'])
        .chars()
        .map(|c| if c.is_control() { '?' } else { c })
        .take(60)
        .collect();
    if text.chars().count() > 60 {
        s.push_str("...");
    }
    s
}

/// A running engine.
pub struct EngineProcess {
    child: Child,
    stdin: Option<ChildStdin>,
    events: Receiver<Event>,
    stderr: Arc<Mutex<VecDeque<String>>>,
    /// The thread reading standard error (it ends when the process's error output closes).
    err_reader: Option<thread::JoinHandle<()>>,
    /// Whether the process is known to have ended.
    dead: bool,
    /// The `id` line's fields (`name`, `version`, `author`, `country`).
    pub id: Vec<(String, String)>,
    /// The parameters the engine declared.
    pub params: Vec<Param>,
    /// Whether a `go ponder` search is running.
    pondering: bool,
}

impl std::fmt::Debug for EngineProcess {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EngineProcess")
            .field("pid", &self.child.id())
            .field("id", &self.id)
            .finish()
    }
}

impl EngineProcess {
    /// Starts the engine and runs the first half of the handshake: `hub`, then the `id` and
    /// `param` lines up to `wait`.
    pub fn launch(spec: &EngineSpec, timeout: f64) -> Result<EngineProcess, EngineError> {
        let mut cmd = Command::new(&spec.cmd[0]);
        cmd.args(&spec.cmd[1..])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        if let Some(dir) = &spec.dir {
            cmd.current_dir(dir);
        }
        #[cfg(unix)]
        {
            use std::os::unix::process::CommandExt;
            cmd.process_group(0);
        }
        let mut child = cmd.spawn().map_err(|e| EngineError::Spawn {
            program: spec.cmd[0].clone(),
            reason: e.to_string(),
        })?;
        let stdout = child.stdout.take().expect("piped stdout");
        let stderr_pipe = child.stderr.take().expect("piped stderr");
        let (tx, events) = unbounded();
        let reader = thread::Builder::new()
            .name("engine-stdout".into())
            .spawn(move || {
                read_lines(BufReader::new(stdout), MAX_LINE, |item| {
                    let now = Instant::now();
                    let ev = match item {
                        Ok(l) => Event::Line(now, l),
                        Err(()) => Event::TooLong,
                    };
                    tx.send(ev).is_ok()
                });
                let _ = tx.send(Event::Eof);
            });
        let stderr = Arc::new(Mutex::new(VecDeque::new()));
        let sink = stderr.clone();
        let err_reader = thread::Builder::new()
            .name("engine-stderr".into())
            .spawn(move || {
                read_lines(BufReader::new(stderr_pipe), 4096, |item| {
                    if let (Ok(l), Ok(mut q)) = (item, sink.lock()) {
                        if q.len() == STDERR_LINES {
                            q.pop_front();
                        }
                        q.push_back(shorten(&l));
                    }
                    true
                });
            });
        let err_reader = match reader.and(err_reader) {
            Ok(h) => h,
            Err(e) => {
                return Err(EngineError::Spawn {
                    program: spec.cmd[0].clone(),
                    reason: format!("cannot start a reader thread: {e}"),
                })
            }
        };
        let mut engine = EngineProcess {
            stdin: child.stdin.take(),
            child,
            events,
            stderr,
            err_reader: Some(err_reader),
            dead: false,
            id: Vec::new(),
            params: Vec::new(),
            pondering: false,
        };
        engine.send("hub")?;
        let deadline = Instant::now() + Duration::from_secs_f64(timeout);
        loop {
            let Some((_, bytes)) = engine.next_line(deadline, "wait", timeout)? else {
                continue;
            };
            // free text before `wait` is tolerated
            let Ok(line) = parse_line(&bytes) else {
                continue;
            };
            match line.command.as_str() {
                "id" => engine.id = line.args.clone(),
                "param" => engine.params.push(Param {
                    name: line.get("name").unwrap_or("").to_string(),
                    kind: line.get("type").unwrap_or("").to_string(),
                    values: line
                        .get("values")
                        .unwrap_or("")
                        .split_whitespace()
                        .map(str::to_string)
                        .collect(),
                }),
                "wait" => return Ok(engine),
                _ => {}
            }
        }
    }

    /// Sends the parameters (`set-param`), then `init`, and waits for `ready`.
    pub fn init(&mut self, params: &[(String, String)], timeout: f64) -> Result<(), EngineError> {
        for (name, value) in params {
            self.send(&format!(
                "set-param name={} value={}",
                quote(name),
                quote(value)
            ))?;
        }
        self.send("init")?;
        let deadline = Instant::now() + Duration::from_secs_f64(timeout);
        loop {
            // anything before `ready` is informational
            if let Some((_, bytes)) = self.next_line(deadline, "ready", timeout)? {
                if parse_line(&bytes).is_ok_and(|l| l.command == "ready") {
                    return Ok(());
                }
            }
        }
    }

    /// The parameter called `name`, if the engine declared it.
    pub fn param(&self, name: &str) -> Option<&Param> {
        self.params.iter().find(|p| p.name == name)
    }

    /// Tells the engine that a new game begins (ending a ponder search left running).
    pub fn new_game(&mut self) -> Result<(), EngineError> {
        self.end_ponder()?;
        self.send("new-game")
    }

    /// Sends `pos`, `level` and `go think`, and reads `info` lines up to `done`.
    ///
    /// After `limit` seconds the runner sends `stop`; an answer within [`STOP_GRACE`] seconds
    /// more is returned with `stopped` set, no answer is [`EngineError::Stalled`]. A line that is
    /// not Hub syntax is [`EngineError::Garbage`].
    pub fn think(&mut self, pos: &str, level: &str, limit: f64) -> Result<Reply, EngineError> {
        self.end_ponder()?;
        self.drain()?;
        self.send(pos)?;
        self.send(level)?;
        self.send("go think")?;
        self.await_done(limit)
    }

    /// Starts a ponder search: `pos` is the position after the expected opponent move, `level`
    /// the engine's clock as it stands. The search runs until [`ponder_hit`](Self::ponder_hit)
    /// or until it is ended (by the next [`think`](Self::think) or game).
    pub fn ponder(&mut self, pos: &str, level: &str) -> Result<(), EngineError> {
        self.end_ponder()?;
        self.drain()?;
        self.send(pos)?;
        self.send(level)?;
        self.send("go ponder")?;
        self.pondering = true;
        Ok(())
    }

    /// Whether a ponder search is running.
    pub fn is_pondering(&self) -> bool {
        self.pondering
    }

    /// The opponent played the expected move: sends `ponder-hit` and reads up to `done` as
    /// [`think`](Self::think) does, the time counting from now (a `done` the engine sent before,
    /// having ended its search on its own, counts as no time).
    pub fn ponder_hit(&mut self, limit: f64) -> Result<Reply, EngineError> {
        self.pondering = false;
        self.send("ponder-hit")?;
        self.await_done(limit)
    }

    /// Ends a running ponder search: `stop`, then its `done` is read and thrown away.
    pub fn end_ponder(&mut self) -> Result<(), EngineError> {
        if !std::mem::replace(&mut self.pondering, false) {
            return Ok(());
        }
        self.send("stop")?;
        let deadline = Instant::now() + Duration::from_secs_f64(STOP_GRACE);
        loop {
            if let Some((_, bytes)) = self.next_line(deadline, "done", STOP_GRACE)? {
                if parse_line(&bytes).is_ok_and(|l| l.command == "done") {
                    return Ok(());
                }
            }
        }
    }

    /// Reads `info` lines up to `done`, sending `stop` after `limit` seconds (see
    /// [`think`](Self::think)).
    fn await_done(&mut self, limit: f64) -> Result<Reply, EngineError> {
        let start = Instant::now();
        let mut stop_at = Some(start + Duration::from_secs_f64(limit));
        let give_up = start + Duration::from_secs_f64(limit + STOP_GRACE);
        let mut reply = Reply {
            best: None,
            ponder: None,
            score: None,
            depth: None,
            elapsed: 0.0,
            stopped: false,
        };
        loop {
            let deadline = stop_at.unwrap_or(give_up);
            let (at, bytes) = match self.next_line(deadline, "done", limit + STOP_GRACE) {
                Ok(Some(l)) => l,
                Ok(None) => continue,
                Err(EngineError::Stalled { .. }) if stop_at.is_some() => {
                    stop_at = None;
                    reply.stopped = true;
                    self.send("stop")?;
                    continue;
                }
                Err(e) => return Err(e),
            };
            let line: Line = parse_line(&bytes)
                .map_err(|e| EngineError::Garbage(format!("{e}: '{}'", shorten(&bytes))))?;
            match line.command.as_str() {
                "info" => {
                    if let Some(s) = line.get("score").and_then(|s| s.parse::<f64>().ok()) {
                        reply.score = Some(s).filter(|s| s.is_finite());
                    }
                    if let Some(d) = line.get("depth").and_then(|d| d.parse::<u32>().ok()) {
                        reply.depth = Some(d);
                    }
                }
                "done" => {
                    reply.best = line
                        .get("move")
                        .filter(|m| !m.is_empty())
                        .map(str::to_string);
                    reply.ponder = line
                        .get("ponder")
                        .filter(|m| !m.is_empty())
                        .map(str::to_string);
                    reply.elapsed = at.saturating_duration_since(start).as_secs_f64();
                    return Ok(reply);
                }
                "error" => log::warn!(
                    "engine said: {}",
                    line.get("message").unwrap_or("(no message)")
                ),
                // unknown commands are ignored, as the protocol says
                _ => {}
            }
        }
    }

    /// Whether the engine is still thought to be running.
    pub fn is_alive(&self) -> bool {
        !self.dead
    }

    /// Throws away lines left over from earlier commands; notices a crash between games.
    fn drain(&mut self) -> Result<(), EngineError> {
        if self.dead {
            return Err(self.crash());
        }
        while let Ok(ev) = self.events.try_recv() {
            if let Event::Eof = ev {
                self.dead = true;
                return Err(self.crash());
            }
        }
        Ok(())
    }

    /// The next line before `deadline` (`None` for an overlong line, which is skipped).
    fn next_line(
        &mut self,
        deadline: Instant,
        waiting_for: &'static str,
        seconds: f64,
    ) -> Result<Option<(Instant, Vec<u8>)>, EngineError> {
        if self.dead {
            return Err(self.crash());
        }
        match self.events.recv_deadline(deadline) {
            Ok(Event::Line(at, bytes)) => {
                log::trace!("engine > {}", shorten(&bytes));
                Ok(Some((at, bytes)))
            }
            Ok(Event::TooLong) => Err(EngineError::Garbage(format!(
                "a line longer than {MAX_LINE} bytes"
            ))),
            Ok(Event::Eof) | Err(RecvTimeoutError::Disconnected) => {
                self.dead = true;
                Err(self.crash())
            }
            Err(RecvTimeoutError::Timeout) => Err(EngineError::Stalled {
                waiting_for,
                seconds,
            }),
        }
    }

    fn send(&mut self, line: &str) -> Result<(), EngineError> {
        log::trace!("engine < {line}");
        let ok = match self.stdin.as_mut() {
            Some(s) => s
                .write_all(line.as_bytes())
                .and_then(|_| s.write_all(b"\n"))
                .and_then(|_| s.flush())
                .is_ok(),
            None => false,
        };
        if ok {
            Ok(())
        } else {
            self.dead = true;
            Err(self.crash())
        }
    }

    /// Describes a crash: the exit status if the process has ended, and its last error line.
    fn crash(&mut self) -> EngineError {
        // Give the process up to half a second to be reaped, and then the error reader as long
        // to take in its last lines (both lag behind the end of standard output under load).
        let mut status = None;
        for _ in 0..100 {
            if let Ok(Some(s)) = self.child.try_wait() {
                status = Some(s);
                break;
            }
            thread::sleep(Duration::from_millis(5));
        }
        if status.is_some() {
            for _ in 0..100 {
                if self.err_reader.as_ref().is_none_or(|h| h.is_finished()) {
                    break;
                }
                thread::sleep(Duration::from_millis(5));
            }
        }
        let mut text = match status {
            Some(s) => format!(" ({s})"),
            None => " (closed its output)".to_string(),
        };
        if let Some(last) = self.stderr.lock().ok().and_then(|q| q.back().cloned()) {
            text.push_str(&format!(": {last}"));
        }
        EngineError::Crashed(text)
    }

    /// Ends the process and everything it started, at once.
    pub fn kill(&mut self) {
        self.stdin = None;
        if let Ok(Some(_)) = self.child.try_wait() {
            return;
        }
        #[cfg(unix)]
        {
            // the process has not been reaped, so its id (and process group) is still its own
            let pid = self.child.id() as libc::pid_t;
            // SAFETY: kill(2) with a negative pid signals the process group created for this
            // child at spawn; it has no memory-safety requirements.
            unsafe {
                libc::kill(-pid, libc::SIGKILL);
            }
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
        self.dead = true;
    }

    /// Asks the engine to quit, waits a moment, then kills it.
    pub fn quit(&mut self) {
        if !self.dead {
            let _ = self.send("quit");
        }
        self.stdin = None;
        let end = Instant::now() + Duration::from_millis(300);
        while Instant::now() < end {
            if let Ok(Some(_)) = self.child.try_wait() {
                self.dead = true;
                return;
            }
            thread::sleep(Duration::from_millis(5));
        }
        self.kill();
    }
}

impl Drop for EngineProcess {
    fn drop(&mut self) {
        self.quit();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read;

    fn read_all_lines(data: impl Read, max: usize) -> Vec<Result<String, ()>> {
        let mut out = Vec::new();
        read_lines(BufReader::new(data), max, |item| {
            out.push(item.map(|l| String::from_utf8_lossy(&l).into_owned()));
            true
        });
        out
    }

    #[test]
    fn lines_are_split_and_capped() {
        let data = b"a\nbbbbbbbbbbbb\n\nlast".to_vec();
        let got = read_all_lines(&data[..], 5);
        assert_eq!(
            got,
            vec![Ok("a".into()), Err(()), Ok("".into()), Ok("last".into())]
        );
        assert_eq!(shorten(b"done move=\x01x\r\n"), "done move=?x");
        assert!(shorten(&[b'a'; 100]).ends_with("..."));
    }

    fn spec(cmd: &[&str]) -> EngineSpec {
        EngineSpec {
            name: "t".into(),
            cmd: cmd.iter().map(|s| s.to_string()).collect(),
            dir: None,
            options: Vec::new(),
            limits: Default::default(),
        }
    }

    #[test]
    fn a_missing_program_cannot_start() {
        let e = EngineProcess::launch(&spec(&["/nonexistent/engine"]), 1.0).unwrap_err();
        assert!(matches!(e, EngineError::Spawn { .. }), "{e}");
    }

    #[cfg(unix)]
    #[test]
    fn silent_and_dying_programs_fail_the_handshake() {
        let e = EngineProcess::launch(&spec(&["sleep", "5"]), 0.2).unwrap_err();
        assert!(
            matches!(
                e,
                EngineError::Stalled {
                    waiting_for: "wait",
                    ..
                }
            ),
            "{e}"
        );
        let e =
            EngineProcess::launch(&spec(&["sh", "-c", "echo oops >&2; exit 3"]), 5.0).unwrap_err();
        let text = e.to_string();
        assert!(
            text.starts_with("crashed") && text.contains('3') && text.contains("oops"),
            "{text}"
        );
    }
}
