//! The JSON API of the browser board: one function per route, each validating its input and
//! answering the game's state or an error (documented in the README).

use std::sync::Arc;

use serde::Deserialize;
use serde_json::Value;
use tiny_http::{Method, Request};

use crate::core::pdn;
use crate::core::variant::{Color, VariantKind};
use crate::engine::levels::Level;

use super::http::{self, ApiError, Reply};
use super::page;
use super::session::{self, MoveInput, Settings, ANALYSE_TIME, MOVETIME, REVIEW_TIME};
use super::store::{Entry, Job, Store};

/// A new game.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct NewGame {
    variant: Option<String>,
    fen: Option<String>,
    pdn: Option<String>,
    engine: Option<String>,
    level: Option<Value>,
    movetime: Option<f64>,
}

/// A move: in notation or as a path of squares.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct MoveBody {
    #[serde(rename = "move")]
    text: Option<String>,
    path: Option<Vec<u32>>,
}

/// New settings.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct SettingsBody {
    engine: Option<String>,
    level: Option<Value>,
    movetime: Option<f64>,
}

/// A search time.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct TimeBody {
    movetime: Option<f64>,
}

/// Answers one request.
pub fn handle(store: &Arc<Store>, mut request: Request) {
    let method = request.method().clone();
    let url = request.url().to_string();
    let path = url.split(['?', '#']).next().unwrap_or("").to_string();
    let reply = http::body(&mut request)
        .and_then(|body| route(store, &method, &path, &body))
        .unwrap_or_else(|e| http::error_reply(&e));
    http::send(request, reply);
}

fn route(store: &Arc<Store>, method: &Method, path: &str, body: &[u8]) -> Result<Reply, ApiError> {
    let parts: Vec<&str> = path.trim_matches('/').split('/').collect();
    let get = *method == Method::Get || *method == Method::Head;
    let post = *method == Method::Post;
    let wrong = || ApiError::method(format!("{method} is not allowed on {}", clip(path)));
    match parts.as_slice() {
        [""] | ["index.html"] | ["app.js"] | ["style.css"] => {
            if !get {
                return Err(wrong());
            }
            let (kind, data) = page::file(parts[0])
                .ok_or_else(|| ApiError::not_found(format!("no page {}", clip(path))))?;
            Ok(Reply::File(kind, data))
        }
        ["api", "variants"] if get => Ok(ok(variants())),
        ["api", "games"] if post => new_game(store, body),
        ["api", "games", id] => match *method {
            Method::Get => Ok(state(&*store.get(id)?)),
            Method::Delete => {
                store.remove(id)?;
                Ok(Reply::Empty)
            }
            _ => Err(wrong()),
        },
        ["api", "games", id, "events"] if get => Ok(Reply::Events(store.get(id)?.subscribe())),
        ["api", "games", id, "pdn"] if get => Ok(Reply::Text(store.get(id)?.lock().pdn())),
        ["api", "games", id, action] if post => game_action(store, id, action, body),
        // a known path asked with the wrong method
        ["api", "variants"] | ["api", "games"] | ["api", "games", _, "events" | "pdn"] => {
            Err(wrong())
        }
        ["api", "games", _, a] if ACTIONS.contains(a) => Err(wrong()),
        ["api", ..] => Err(ApiError::not_found(format!("no API path {}", clip(path)))),
        _ => Err(ApiError::not_found(format!("no page {}", clip(path)))),
    }
}

/// The actions of `POST /api/games/{id}/ACTION`.
const ACTIONS: [&str; 8] = [
    "move",
    "undo",
    "redo",
    "settings",
    "go",
    "stop",
    "analyse",
    "analyse-game",
];

fn clip(text: &str) -> String {
    text.chars().take(60).collect()
}

fn ok(value: Value) -> Reply {
    Reply::Json(200, value.to_string())
}

fn state(entry: &Entry) -> Reply {
    Reply::Json(200, entry.state_json())
}

fn variants() -> Value {
    let list: Vec<Value> = VariantKind::ALL
        .iter()
        .map(|k| {
            crate::with_variant!(*k, V => serde_json::json!({
                "name": k.name(),
                "size": <V as crate::core::variant::Variant>::ROWS,
            }))
        })
        .collect();
    serde_json::json!({ "variants": list, "levels": ["easy", "normal", "expert"] })
}

fn parse_level(v: &Value) -> Result<Level, ApiError> {
    match v {
        Value::String(s) => s
            .parse()
            .map_err(|e: crate::engine::levels::BadLevel| ApiError::bad(e.to_string())),
        Value::Number(n) => match n.as_u64() {
            Some(k) if k <= 100 => Ok(Level::from_strength(k as u32)),
            _ => Err(ApiError::bad(format!(
                "bad level {n} (expected easy, normal, expert or a strength 0-100)"
            ))),
        },
        _ => Err(ApiError::bad(
            "bad level (expected easy, normal, expert or a strength 0-100)",
        )),
    }
}

fn parse_side(s: &str) -> Result<Option<Color>, ApiError> {
    match s.to_ascii_lowercase().as_str() {
        "white" => Ok(Some(Color::White)),
        "black" => Ok(Some(Color::Black)),
        "none" => Ok(None),
        _ => Err(ApiError::bad(format!(
            "bad engine side '{}' (expected white, black or none)",
            clip(s)
        ))),
    }
}

/// Seconds within `(default, min, max)`.
fn seconds(v: Option<f64>, (default, min, max): (f64, f64, f64)) -> Result<f64, ApiError> {
    match v {
        None => Ok(default),
        Some(t) if t.is_finite() && (min..=max).contains(&t) => Ok(t),
        Some(t) => Err(ApiError::bad(format!(
            "movetime {t} is out of range: give {min} to {max} seconds"
        ))),
    }
}

fn settings(
    old: Settings,
    engine: Option<&str>,
    level: Option<&Value>,
    movetime: Option<f64>,
) -> Result<Settings, ApiError> {
    Ok(Settings {
        engine: match engine {
            Some(s) => parse_side(s)?,
            None => old.engine,
        },
        level: match level {
            Some(v) => parse_level(v)?,
            None => old.level,
        },
        movetime: match movetime {
            Some(_) => seconds(movetime, MOVETIME)?,
            None => old.movetime,
        },
    })
}

fn new_game(store: &Arc<Store>, body: &[u8]) -> Result<Reply, ApiError> {
    let req: NewGame = http::json(body)?;
    let kind = match (&req.variant, &req.pdn) {
        (Some(v), _) => v
            .parse::<VariantKind>()
            .map_err(|e| ApiError::bad(e.to_string()))?,
        // a PDN names its variant in its GameType tag
        (None, Some(text)) => pdn::parse(text)
            .ok()
            .and_then(|games| {
                let t = games.first()?.tag("GameType")?.to_string();
                let number = t.split(',').next()?.trim().parse().ok()?;
                VariantKind::from_game_type(number)
            })
            .unwrap_or(VariantKind::International),
        (None, None) => VariantKind::International,
    };
    let s = settings(
        Settings::default(),
        req.engine.as_deref(),
        req.level.as_ref(),
        req.movetime,
    )?;
    let board = session::new_board(kind, req.fen.as_deref(), req.pdn.as_deref(), s)?;
    let entry = store.create(board)?;
    // the engine may have the first move
    let job = entry.lock().configure(s, &entry);
    submit(store, &entry, job)?;
    Ok(Reply::Json(201, entry.state_json()))
}

fn submit(store: &Store, entry: &Arc<Entry>, job: Option<Job>) -> Result<(), ApiError> {
    match job {
        Some(j) => store
            .submit(entry, j)
            .inspect_err(|_| entry.lock().abandon()),
        None => Ok(()),
    }
}

fn game_action(store: &Arc<Store>, id: &str, action: &str, body: &[u8]) -> Result<Reply, ApiError> {
    let entry = store.get(id)?;
    let mut status = 200;
    let job = match action {
        "move" => {
            let b: MoveBody = http::json(body)?;
            let input = match (b.text, b.path) {
                (Some(t), None) => MoveInput::Text(t),
                (None, Some(p)) if p.len() >= 2 && p.len() <= 64 => MoveInput::Path(p),
                (None, Some(_)) => {
                    return Err(ApiError::bad("a path has 2 to 64 squares"));
                }
                _ => return Err(ApiError::bad("give either \"move\" or \"path\"")),
            };
            entry.lock().play(&input, &entry)?
        }
        "undo" => {
            http::json::<TimeBody>(body)?;
            entry.lock().undo()?;
            None
        }
        "redo" => {
            http::json::<TimeBody>(body)?;
            entry.lock().redo(&entry)?
        }
        "settings" => {
            let b: SettingsBody = http::json(body)?;
            let mut board = entry.lock();
            let s = settings(
                board.settings(),
                b.engine.as_deref(),
                b.level.as_ref(),
                b.movetime,
            )?;
            board.configure(s, &entry)
        }
        "go" => {
            http::json::<TimeBody>(body)?;
            status = 202;
            Some(entry.lock().go(&entry)?)
        }
        "stop" => {
            http::json::<TimeBody>(body)?;
            entry.lock().stop();
            None
        }
        "analyse" => {
            let b: TimeBody = http::json(body)?;
            let t = seconds(b.movetime, ANALYSE_TIME)?;
            status = 202;
            Some(entry.lock().analyse(t, &entry)?)
        }
        "analyse-game" => {
            let b: TimeBody = http::json(body)?;
            let t = seconds(b.movetime, REVIEW_TIME)?;
            status = 202;
            Some(entry.lock().review(t, &entry)?)
        }
        _ => {
            return Err(ApiError::not_found(format!(
                "no game action '{}' (expected one of: {})",
                clip(action),
                ACTIONS.join(", ")
            )))
        }
    };
    submit(store, &entry, job)?;
    entry.publish_state();
    Ok(Reply::Json(status, entry.state_json()))
}
