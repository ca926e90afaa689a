//! One DXP connection: a reader thread that splits and parses the incoming stream into
//! [`Event`]s, and the writer, which sends every message with its NUL terminator.
//!
//! Some clients (pydraughts) cannot tell two messages apart when they arrive in one read, so the
//! writer leaves at least [`PAUSE`] between two messages of ours that no message of the peer
//! separates (a peer that has answered has read what came before).

use std::io::{self, Read, Write};
use std::net::{Shutdown, TcpStream};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

use crossbeam_channel::{unbounded, Receiver, RecvTimeoutError, Sender};

use super::framing::{Frame, Framer};
use super::message::{printable, Message, ParseError, MAX_MESSAGE};

/// Least time between two messages we send.
pub const PAUSE: Duration = Duration::from_millis(150);

/// Longest wait for the peer to take our bytes before the connection is given up.
const WRITE_TIMEOUT: Duration = Duration::from_secs(20);

/// Something that happened on a connection, in the order it happened.
#[derive(Debug)]
pub enum Event {
    /// A well-formed message from the peer.
    Message(Message),
    /// A message that could not be read.
    Malformed {
        /// Its first non-blank byte (its type letter, if it has one).
        first: Option<u8>,
        /// What is wrong with it.
        error: ParseError,
        /// The message as printable text, for logs.
        text: String,
    },
    /// The peer closed the connection, or it broke.
    Closed,
    /// The search with this id has finished (sent by the search thread).
    SearchDone(u64),
}

/// A connection to a DXP peer.
pub struct Link {
    stream: TcpStream,
    peer: String,
    tx: Sender<Event>,
    rx: Receiver<Event>,
    reader: Option<JoinHandle<()>>,
    last_send: Option<Instant>,
    broken: bool,
    closed: bool,
}

impl Link {
    /// Wraps a connected stream and starts its reader thread.
    pub fn new(stream: TcpStream) -> io::Result<Link> {
        stream.set_nodelay(true)?;
        stream.set_write_timeout(Some(WRITE_TIMEOUT))?;
        let peer = stream
            .peer_addr()
            .map_or_else(|_| "?".to_string(), |a| a.to_string());
        let read = stream.try_clone()?;
        let (tx, rx) = unbounded();
        let events = tx.clone();
        let reader = thread::Builder::new()
            .name("dxp-read".into())
            .spawn(move || read_stream(read, &events))?;
        Ok(Link {
            stream,
            peer,
            tx,
            rx,
            reader: Some(reader),
            last_send: None,
            broken: false,
            closed: false,
        })
    }

    /// The peer's address.
    pub fn peer(&self) -> &str {
        &self.peer
    }

    /// A sender into this connection's event queue (for the search thread).
    pub fn sender(&self) -> Sender<Event> {
        self.tx.clone()
    }

    /// Sends one message. Returns false when the connection is broken (the message is lost).
    pub fn send(&mut self, m: &Message) -> bool {
        if self.broken {
            return false;
        }
        if let Some(t) = self.last_send {
            let since = t.elapsed();
            if since < PAUSE {
                thread::sleep(PAUSE - since);
            }
        }
        let text = m.encode();
        debug_assert!(text.len() <= MAX_MESSAGE);
        log::debug!("dxp > {text}");
        let mut bytes = text.into_bytes();
        bytes.push(0);
        let sent = self
            .stream
            .write_all(&bytes)
            .and_then(|_| self.stream.flush());
        self.last_send = Some(Instant::now());
        if let Err(e) = sent {
            log::warn!("dxp: cannot send to {}: {e}", self.peer);
            self.broken = true;
            return false;
        }
        true
    }

    /// Sends a chat line (cut to fit one message).
    pub fn chat(&mut self, text: &str) -> bool {
        log::info!("dxp: telling {}: {text}", self.peer);
        self.send(&Message::Chat(text.to_string()))
    }

    /// The next event, waiting until `deadline` (`None`: as long as it takes). Returns `None` at
    /// the deadline. Once the connection has closed, every call returns [`Event::Closed`].
    pub fn next(&mut self, deadline: Option<Instant>) -> Option<Event> {
        if self.closed {
            return Some(Event::Closed);
        }
        let got = match deadline {
            None => self.rx.recv().map_err(|_| RecvTimeoutError::Disconnected),
            Some(d) => self.rx.recv_deadline(d),
        };
        match got {
            Ok(Event::Closed) | Err(RecvTimeoutError::Disconnected) => {
                self.closed = true;
                Some(Event::Closed)
            }
            Ok(e) => {
                if matches!(e, Event::Message(_) | Event::Malformed { .. }) {
                    self.last_send = None;
                }
                Some(e)
            }
            Err(RecvTimeoutError::Timeout) => None,
        }
    }

    /// Closes the connection and waits for the reader thread.
    pub fn close(&mut self) {
        let _ = self.stream.shutdown(Shutdown::Both);
        self.broken = true;
        if let Some(r) = self.reader.take() {
            let _ = r.join();
        }
    }
}

impl Drop for Link {
    fn drop(&mut self) {
        self.close();
    }
}

/// Reads the stream until it ends, passing on every message or error as an event.
fn read_stream(mut stream: TcpStream, tx: &Sender<Event>) {
    let mut framer = Framer::new();
    let mut buf = [0u8; 4096];
    let mut frames = Vec::new();
    loop {
        let n = match stream.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => {
                log::debug!("dxp: read error: {e}");
                break;
            }
        };
        framer.push(&buf[..n], &mut frames);
        for f in frames.drain(..) {
            let event = match f {
                Frame::Message(bytes) => {
                    log::debug!("dxp < {}", printable(&bytes, MAX_MESSAGE));
                    match Message::parse(&bytes) {
                        Ok(m) => Event::Message(m),
                        Err(error) => Event::Malformed {
                            first: bytes.trim_ascii_start().first().copied(),
                            error,
                            text: printable(&bytes, 60),
                        },
                    }
                }
                Frame::Overlong { first } => {
                    log::debug!("dxp < (overlong message starting with {first:#04x})");
                    Event::Malformed {
                        first: Some(first),
                        error: ParseError::Overlong,
                        text: printable(&[first], 1) + "...",
                    }
                }
            };
            if tx.send(event).is_err() {
                return;
            }
        }
    }
    if framer.pending() > 0 {
        log::warn!(
            "dxp: the connection closed in the middle of a message ({} bytes without NUL)",
            framer.pending()
        );
    }
    let _ = tx.send(Event::Closed);
}
