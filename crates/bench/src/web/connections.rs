//! The connections the server holds, so that no client can take them all: at most
//! [`Limits::connections_per_client`] from one address (more are closed at once), and when
//! all [`Limits::max_connections`] are taken a new client is let in by closing the
//! connection idle the longest (between requests, or with no request yet) rather than
//! waiting for one to end. Only when every connection is busy making an answer does a new
//! one wait.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::{Arc, Mutex};

use tokio::sync::Notify;
use tokio::time::Instant;

use super::Limits;

pub(super) struct Connections {
    state: Mutex<State>,
    /// Signalled when a connection ends or is asked to.
    freed: Notify,
    max: usize,
    per_client: usize,
}

#[derive(Default)]
struct State {
    open: HashMap<u64, Open>,
    clients: HashMap<IpAddr, Client>,
    next_id: u64,
    /// Connections asked to close that have not yet: no longer counted against the limit.
    closing: usize,
}

struct Open {
    client: IpAddr,
    /// Since when it waits for a request; `None` while one is being answered.
    idle_since: Option<Instant>,
    /// Notified to ask it to close.
    close: Arc<Notify>,
    closing: bool,
}

#[derive(Default)]
struct Client {
    open: usize,
    /// Whether its refusal was logged since it last had no connection.
    refusal_logged: bool,
}

/// One admitted connection: dropping it ends its place.
pub(super) struct Admitted {
    connections: Arc<Connections>,
    id: u64,
    close: Arc<Notify>,
}

impl Connections {
    pub(super) fn new(limits: &Limits) -> Arc<Connections> {
        Arc::new(Connections {
            state: Mutex::default(),
            freed: Notify::new(),
            max: limits.max_connections.max(1),
            per_client: limits.connections_per_client.max(1),
        })
    }

    /// A place for a new connection from `client`: `None` if it has its share already.
    /// When the server is full the connection idle the longest is asked to close; only when
    /// none is idle does this wait for one to end.
    pub(super) async fn admit(self: &Arc<Connections>, client: IpAddr) -> Option<Admitted> {
        loop {
            let freed = self.freed.notified();
            {
                let mut state = self.state.lock().expect("no panic holds the lock");
                let from_client = state.clients.entry(client).or_default();
                if from_client.open >= self.per_client {
                    if !from_client.refusal_logged {
                        from_client.refusal_logged = true;
                        eprintln!(
                            "bench serve: {client} has {} connections open, as many as one \
                             client may: its further ones are closed until some end",
                            from_client.open
                        );
                    }
                    return None;
                }
                if state.open.len() - state.closing >= self.max {
                    state.close_longest_idle();
                }
                if state.open.len() - state.closing < self.max {
                    return Some(self.add(&mut state, client));
                }
            }
            // Every connection is answering a request: wait for one to end.
            freed.await;
        }
    }

    fn add(self: &Arc<Connections>, state: &mut State, client: IpAddr) -> Admitted {
        let id = state.next_id;
        state.next_id += 1;
        state.clients.entry(client).or_default().open += 1;
        let close = Arc::new(Notify::new());
        state.open.insert(
            id,
            Open {
                client,
                idle_since: Some(Instant::now()),
                close: Arc::clone(&close),
                closing: false,
            },
        );
        Admitted {
            connections: Arc::clone(self),
            id,
            close,
        }
    }

    fn set_idle(&self, id: u64, idle: bool) {
        let mut state = self.state.lock().expect("no panic holds the lock");
        if let Some(open) = state.open.get_mut(&id) {
            open.idle_since = idle.then(Instant::now);
        }
    }
}

impl State {
    fn close_longest_idle(&mut self) {
        let longest = self
            .open
            .values_mut()
            .filter(|o| !o.closing)
            .filter_map(|o| Some((o.idle_since?, o)))
            .min_by_key(|(since, _)| *since);
        if let Some((_, open)) = longest {
            open.closing = true;
            open.close.notify_one();
            self.closing += 1;
        }
    }
}

impl Admitted {
    /// A request arrived: the connection is busy until [`Admitted::idle`].
    pub(super) fn busy(&self) {
        self.connections.set_idle(self.id, false);
    }

    /// Its answer is made: it waits for the next request, and may be closed for another.
    pub(super) fn idle(&self) {
        self.connections.set_idle(self.id, true);
    }

    /// Completes when the connection is asked to close (to make room for another).
    pub(super) async fn asked_to_close(&self) {
        self.close.notified().await
    }
}

impl Drop for Admitted {
    fn drop(&mut self) {
        let c = &self.connections;
        let mut state = c.state.lock().expect("no panic holds the lock");
        if let Some(open) = state.open.remove(&self.id) {
            if open.closing {
                state.closing -= 1;
            }
            if let Some(client) = state.clients.get_mut(&open.client) {
                client.open -= 1;
                if client.open == 0 {
                    state.clients.remove(&open.client);
                }
            }
        }
        drop(state);
        c.freed.notify_waiters();
    }
}
