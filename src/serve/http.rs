//! The HTTP layer of the browser board: reading a request's JSON body within a size limit,
//! answering JSON, text or an error with its status, and holding an event stream open.

use std::io::{Read, Write};
use std::time::Duration;

use crossbeam_channel::{Receiver, RecvTimeoutError};
use serde::de::DeserializeOwned;
use tiny_http::{Header, Request, Response, StatusCode};

/// The largest request body accepted.
pub const MAX_BODY: usize = 64 * 1024;
/// How often an idle event stream sends a comment line to stay open.
pub const KEEP_ALIVE: Duration = Duration::from_secs(15);

/// An API error: the HTTP status and a message the user can act on.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{status}: {message}")]
pub struct ApiError {
    /// The HTTP status code.
    pub status: u16,
    /// What went wrong.
    pub message: String,
}

impl ApiError {
    fn new(status: u16, message: impl Into<String>) -> ApiError {
        ApiError {
            status,
            message: message.into(),
        }
    }

    /// 400: the request is malformed or asks for something impossible.
    pub fn bad(message: impl Into<String>) -> ApiError {
        ApiError::new(400, message)
    }

    /// 404: no such game or path.
    pub fn not_found(message: impl Into<String>) -> ApiError {
        ApiError::new(404, message)
    }

    /// 405: the path exists but not with this method.
    pub fn method(message: impl Into<String>) -> ApiError {
        ApiError::new(405, message)
    }

    /// 409: the request does not fit the game's state.
    pub fn conflict(message: impl Into<String>) -> ApiError {
        ApiError::new(409, message)
    }

    /// 413: the body is too large.
    pub fn too_large() -> ApiError {
        ApiError::new(413, format!("the request body exceeds {MAX_BODY} bytes"))
    }

    /// 503: the server is full or overloaded.
    pub fn unavailable(message: impl Into<String>) -> ApiError {
        ApiError::new(503, message)
    }
}

/// An answer to send.
pub enum Reply {
    /// JSON text with a status.
    Json(u16, String),
    /// Plain text.
    Text(String),
    /// A static file with its content type.
    File(&'static str, Vec<u8>),
    /// No content (204).
    Empty,
    /// An event stream fed by this channel.
    Events(Receiver<String>),
}

fn header(name: &str, value: &str) -> Header {
    Header::from_bytes(name.as_bytes(), value.as_bytes()).expect("static header is valid")
}

/// Reads the request body (at most [`MAX_BODY`] bytes).
pub fn body(request: &mut Request) -> Result<Vec<u8>, ApiError> {
    if request.body_length().is_some_and(|n| n > MAX_BODY) {
        return Err(ApiError::too_large());
    }
    let mut buf = Vec::new();
    request
        .as_reader()
        .take(MAX_BODY as u64 + 1)
        .read_to_end(&mut buf)
        .map_err(|e| ApiError::bad(format!("cannot read the request body: {e}")))?;
    if buf.len() > MAX_BODY {
        return Err(ApiError::too_large());
    }
    Ok(buf)
}

/// Parses a JSON body; an empty body is `{}`.
pub fn json<T: DeserializeOwned>(body: &[u8]) -> Result<T, ApiError> {
    let text = std::str::from_utf8(body).map_err(|_| ApiError::bad("the body is not UTF-8"))?;
    let text = if text.trim().is_empty() { "{}" } else { text };
    serde_json::from_str(text).map_err(|e| ApiError::bad(format!("bad JSON body: {e}")))
}

/// The JSON of an error.
pub fn error_reply(e: &ApiError) -> Reply {
    Reply::Json(
        e.status,
        serde_json::json!({ "error": e.message }).to_string(),
    )
}

/// Sends a reply (an event stream is held open until its channel closes or the client leaves).
pub fn send(request: Request, reply: Reply) {
    let (status, data, kind) = match reply {
        Reply::Json(status, text) => (status, text.into_bytes(), "application/json"),
        Reply::Text(text) => (200, text.into_bytes(), "text/plain; charset=utf-8"),
        Reply::File(kind, data) => (200, data, kind),
        Reply::Empty => (204, Vec::new(), "text/plain"),
        Reply::Events(rx) => return stream(request, rx),
    };
    let response = Response::from_data(data)
        .with_status_code(StatusCode(status))
        .with_header(header("Content-Type", kind))
        .with_header(header("Cache-Control", "no-store"));
    if let Err(e) = request.respond(response) {
        log::debug!("could not answer a request: {e}");
    }
}

/// Writes the event stream by hand: tiny_http buffers chunked bodies, which would hold events
/// back, so the response is written raw, its end marked by closing the connection.
fn stream(request: Request, rx: Receiver<String>) {
    let mut w = request.into_writer();
    let head = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-store\r\n\
                Connection: close\r\nX-Accel-Buffering: no\r\n\r\n";
    if w.write_all(head.as_bytes())
        .and_then(|_| w.flush())
        .is_err()
    {
        return;
    }
    loop {
        let text = match rx.recv_timeout(KEEP_ALIVE) {
            Ok(t) => t,
            Err(RecvTimeoutError::Timeout) => ": keep-alive\n\n".to_string(),
            Err(RecvTimeoutError::Disconnected) => break,
        };
        if w.write_all(text.as_bytes())
            .and_then(|_| w.flush())
            .is_err()
        {
            break;
        }
    }
}
