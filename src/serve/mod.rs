//! `damast serve`: a board in the browser to play and analyse against the engine, and the
//! documented JSON API behind it, served on loopback by a small HTTP server.
//!
//! Layers: [`http`] reads and answers requests, [`api`] routes them, [`store`] holds the games
//! and the engines, [`session`] is one game, [`page`] the page itself.

pub mod api;
pub mod http;
pub mod page;
pub mod session;
pub mod store;

use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use store::{Store, StoreLimits};

/// Requests handled at once (event streams included); more are answered 503.
const MAX_CONNECTIONS: usize = 256;

/// How the server runs.
#[derive(Clone, Debug)]
pub struct ServeConfig {
    /// Address to listen on (port 0: any free port).
    pub listen: SocketAddr,
    /// Games at most.
    pub max_games: usize,
    /// Minutes after which an untouched game is removed.
    pub idle_minutes: u64,
    /// Engines, i.e. searches running at once.
    pub engines: usize,
}

impl Default for ServeConfig {
    fn default() -> Self {
        ServeConfig {
            listen: SocketAddr::from(([127, 0, 0, 1], 8080)),
            max_games: 64,
            idle_minutes: 30,
            engines: 1,
        }
    }
}

/// A server that cannot start.
#[derive(Debug, thiserror::Error)]
#[error("cannot listen on {addr}: {reason}")]
pub struct ServeError {
    /// The address asked for.
    pub addr: SocketAddr,
    /// Why not.
    pub reason: String,
}

/// A bound server, ready to run.
pub struct Server {
    http: Arc<tiny_http::Server>,
    store: Arc<Store>,
}

impl Server {
    /// Binds the address and starts the engines.
    pub fn bind(config: &ServeConfig) -> Result<Server, ServeError> {
        let http = tiny_http::Server::http(config.listen).map_err(|e| ServeError {
            addr: config.listen,
            reason: e.to_string(),
        })?;
        let store = Store::new(StoreLimits {
            max_games: config.max_games.max(1),
            idle: Duration::from_secs(config.idle_minutes.max(1) * 60),
            engines: config.engines.max(1),
        });
        Ok(Server {
            http: Arc::new(http),
            store,
        })
    }

    /// The address it listens on.
    pub fn addr(&self) -> Option<SocketAddr> {
        self.http.server_addr().to_ip()
    }

    /// Serves until the process ends: each request on its own thread, at most
    /// [`MAX_CONNECTIONS`] at once; idle games are swept every minute.
    pub fn run(self) {
        let store = Arc::clone(&self.store);
        std::thread::spawn(move || loop {
            std::thread::sleep(Duration::from_secs(60));
            store.sweep();
        });
        let busy = Arc::new(AtomicUsize::new(0));
        for request in self.http.incoming_requests() {
            if busy.load(Ordering::Relaxed) >= MAX_CONNECTIONS {
                let e = http::ApiError::unavailable("too many connections: try again later");
                http::send(request, http::error_reply(&e));
                continue;
            }
            busy.fetch_add(1, Ordering::Relaxed);
            let store = Arc::clone(&self.store);
            let count = Arc::clone(&busy);
            let spawned = std::thread::Builder::new()
                .name("http".into())
                .spawn(move || {
                    api::handle(&store, request);
                    count.fetch_sub(1, Ordering::Relaxed);
                });
            if let Err(e) = spawned {
                log::error!("cannot start a request thread: {e}");
                busy.fetch_sub(1, Ordering::Relaxed);
            }
        }
    }
}
