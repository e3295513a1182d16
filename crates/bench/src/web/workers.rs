//! The page workers: the threads that make the pages needing the Bench's database (SQLite
//! and the postgres client block), and what the server knows of that database.
//!
//! A database that stops answering (its server stopped or stuck: its sockets stay open, so
//! no socket option notices) must cost a visitor seconds, not a hang: each page is waited
//! for [`Limits::database_timeout`], then answered 503, and the server logs once that the
//! database is not answering. While it is not, a page goes to a worker only if one is free
//! (the others are still waiting on it), so 503s are answered at once and other pages are
//! not held up. The first page made again says it is back. PostgreSQL's own
//! `statement_timeout` ends a statement that runs for longer on a server that answers.
//!
//! A PostgreSQL Bench is opened once per worker and kept (a connection costs
//! authentication and a server process; every query still sees what was stored since). A
//! kept connection the server closed (restarted) is replaced and the page made again, once,
//! so a restart costs no visitor an error.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::Semaphore;

use super::{server_error, Limits, Page, Route};
use crate::db::{with_causes, Bench, BenchError, Location};

pub(super) struct Workers {
    location: Location,
    free: Arc<Semaphore>,
    timeout: Duration,
    health: Arc<Health>,
}

/// Whether the database answers, as the last page found.
struct Health {
    answering: AtomicBool,
}

impl Workers {
    pub(super) fn new(location: Location, limits: &Limits) -> Workers {
        Workers {
            location,
            free: Arc::new(Semaphore::new(limits.page_workers.max(1))),
            timeout: limits.database_timeout,
            health: Arc::new(Health {
                answering: AtomicBool::new(true),
            }),
        }
    }

    /// The page of `route`, within the database timeout: else a 503 saying why.
    pub(super) async fn page(&self, route: Route) -> Page {
        let deadline = tokio::time::Instant::now() + self.timeout;
        let worker = match self.health.answering.load(Ordering::Relaxed) {
            true => tokio::time::timeout_at(deadline, Arc::clone(&self.free).acquire_owned())
                .await
                .ok(),
            false => Arc::clone(&self.free).try_acquire_owned().ok().map(Ok),
        };
        let Some(Ok(worker)) = worker else {
            return self.health.not_answering(self.timeout);
        };
        let (location, health, timeout) = (
            self.location.clone(),
            Arc::clone(&self.health),
            self.timeout,
        );
        let made = tokio::task::spawn_blocking(move || {
            let page = page_on_this_thread(&location, &route, timeout);
            // Told even when no one waits any more: the database is back.
            let page = health.after(page);
            drop(worker);
            page
        });
        match tokio::time::timeout_at(deadline, made).await {
            Ok(Ok(page)) => page,
            Ok(Err(e)) => server_error(&e),
            Err(_) => self.health.not_answering(self.timeout),
        }
    }
}

impl Health {
    /// The page a worker made, or the 503 for an error waiting may cure; the database is
    /// answering if it did.
    fn after(&self, page: Result<Page, BenchError>) -> Page {
        match page {
            Ok(page) => {
                if !self.answering.swap(true, Ordering::Relaxed) {
                    eprintln!("bench serve: the database answers again");
                }
                page
            }
            Err(e) if e.is_transient() => {
                if self.answering.swap(false, Ordering::Relaxed) {
                    eprintln!(
                        "bench serve: the database cannot be reached ({}): pages that need it \
                         answer 503 until it can",
                        with_causes(&e)
                    );
                }
                unavailable("The Bench's database cannot be reached just now.")
            }
            Err(e) => server_error(&with_causes(&e)),
        }
    }

    fn not_answering(&self, timeout: Duration) -> Page {
        if self.answering.swap(false, Ordering::Relaxed) {
            eprintln!(
                "bench serve: the database is not answering (nothing within {} s): pages that \
                 need it answer 503 until it does",
                timeout.as_secs_f64()
            );
        }
        unavailable(&format!(
            "The Bench's database is not answering (nothing within {} s).",
            timeout.as_secs_f64()
        ))
    }
}

/// A 503: `why`, and that the page comes back when the database does.
fn unavailable(why: &str) -> Page {
    Page::error(
        503,
        &format!("{why} This page is back as soon as it answers again: try again in a moment."),
    )
}

thread_local! {
    /// The PostgreSQL Bench this page worker has open, and where it is.
    static KEPT: std::cell::RefCell<Option<(Location, Bench)>> = const { std::cell::RefCell::new(None) };
}

/// The page for a route, made on a page worker. An SQLite file is opened for every request:
/// that takes microseconds, and a kept handle would go on reading a file replaced or removed
/// under it. A failed page drops the kept connection, so the next one connects afresh.
fn page_on_this_thread(
    location: &Location,
    route: &Route,
    timeout: Duration,
) -> Result<Page, BenchError> {
    KEPT.with(|kept| {
        let mut kept = kept.borrow_mut();
        let reused = kept.take().filter(|(at, _)| at == location);
        let page = match reused {
            Some((_, bench)) => match super::render(&bench, route) {
                Ok(page) => Ok((page, bench)),
                // Closed under it (the server restarted): once more on a new connection.
                Err(e) if e.is_transient() => {
                    drop(bench);
                    fresh(location, route, timeout)
                }
                Err(e) => Err(e),
            },
            None => fresh(location, route, timeout),
        };
        let (page, bench) = page?;
        if bench.is_postgres() {
            *kept = Some((location.clone(), bench));
        }
        Ok(page)
    })
}

/// A page on a Bench opened for it.
fn fresh(
    location: &Location,
    route: &Route,
    timeout: Duration,
) -> Result<(Page, Bench), BenchError> {
    let bench = Bench::open_read_only_at(location)?;
    bench.limit_statements(timeout)?;
    let page = super::render(&bench, route)?;
    Ok((page, bench))
}
