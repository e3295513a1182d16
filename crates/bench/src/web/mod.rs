//! The Bench on the web (`ssdlab bench serve`): server-rendered pages over the Bench
//! database. The drive list (`/?vendor=..&page=N`: filtered and paged in SQL), comparisons
//! of any drives (`/compare?d=ID&d=ID`), a run's full review report (`/run/ID`) and one
//! stored result with its parameters (`/result/ID`).
//!
//! Read only: GET and HEAD, the database opened read-only and queried again for every
//! request, so runs stored while the server runs appear on the next page load. Routing
//! matches the parsed path exactly and nothing in a request ever names a file. Pages carry
//! their CSS, SVG charts and the little script of the selectors inline; nothing is loaded
//! from anywhere else.
//!
//! [`respond`] makes a page without a socket (the tests use it); [`serve`] is the socket
//! side around it (`server.rs`): concurrent, with limits and timeouts per connection, so no
//! client holds up another.

mod compare;
mod connections;
mod pages;
mod query_error;
mod server;
#[cfg(test)]
mod tests;
mod workers;

pub use server::{serve_with, Limits};

use std::net::SocketAddr;
use std::path::Path;

use maud::html;

use crate::db::{Bench, Result};
use crate::view::page;
use query_error::QueryError;

pub const HTML: &str = "text/html; charset=utf-8";
pub const TEXT: &str = "text/plain; charset=utf-8";

/// One response: its status, content type and body.
#[derive(Clone, Debug, PartialEq)]
pub struct Page {
    pub status: u16,
    pub content_type: &'static str,
    pub body: String,
}

impl Page {
    /// A 200 HTML page, made by the template layer.
    pub(crate) fn html_page(body: String) -> Page {
        Page {
            status: 200,
            content_type: HTML,
            body,
        }
    }

    /// An error page; `message` is plain text.
    pub(crate) fn error(status: u16, message: &str) -> Page {
        let title = match status {
            400 => "Bad request",
            404 => "Not found",
            405 => "Method not allowed",
            414 => "Address too long",
            431 => "Headers too large",
            503 => "Unavailable",
            _ => "Server error",
        };
        let body = html! {
            h1 { (status) " " (title) }
            p { (message) }
            p { a href="/" { "Back to the Bench" } }
        };
        Page {
            status,
            content_type: HTML,
            body: page(title, "ssdlab Bench", Some(pages::nav()), body),
        }
    }

    pub(crate) fn not_found() -> Page {
        Page::error(404, "There is no such page on the Bench.")
    }
}

/// Serve the Bench database at `db` on `listen` (e.g. "127.0.0.1:8080"; port 0 picks a free
/// one) until the process is killed, with the default [`Limits`]. `ready` gets the bound
/// address once the server listens. A database that cannot be opened is an error before
/// anything listens.
pub fn serve(db: &Path, listen: &str, ready: impl FnOnce(SocketAddr)) -> Result<()> {
    serve_with(db, listen, Limits::default(), ready)
}

pub(crate) fn method_not_allowed() -> Page {
    Page::error(405, "The Bench is read only: GET and HEAD only.")
}

/// A 500 page that says nothing of the server (where the database is, what failed):
/// that goes to the log, standard error.
pub(crate) fn server_error(detail: &dyn std::fmt::Display) -> Page {
    eprintln!("bench serve: {detail}");
    Page::error(
        500,
        "The Bench could not be read just now; the terminal running `ssdlab bench serve` says why.",
    )
}

/// The page for `method` and `url` (the request target as sent: path and query).
pub fn respond(bench: &Bench, method: &str, url: &str) -> Page {
    match route(method, url) {
        Ok(route) => render(bench, &route).unwrap_or_else(|e| server_error(&e)),
        Err(page) => page,
    }
}

/// A request for a page the Bench's database makes, checked whole before the database is
/// asked anything.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Route {
    Index(Query),
    Compare(Query),
    Run(i64),
    Result(i64),
    View { kind: String, id: i64, query: Query },
}

/// A query string's name=value pairs, decoded.
pub(crate) type Query = Vec<(String, String)>;

/// What `method` and `url` ask for, or the answer when that needs no database: 405 for a
/// method other than GET and HEAD, 404 for no such page, 400 for a malformed query.
pub(crate) fn route(method: &str, url: &str) -> std::result::Result<Route, Page> {
    if method != "GET" && method != "HEAD" {
        return Err(method_not_allowed());
    }
    let url = url.split_once('#').map_or(url, |(u, _)| u);
    let (path, query) = url.split_once('?').unwrap_or((url, ""));
    let query = || parse_query(query).map_err(|e| Page::error(400, &e.to_string()));
    match path {
        "/" => Ok(Route::Index(query()?)),
        "/compare" => Ok(Route::Compare(query()?)),
        _ => {
            if let Some(id) = path.strip_prefix("/run/").and_then(parse_id) {
                Ok(Route::Run(id))
            } else if let Some(id) = path.strip_prefix("/result/").and_then(parse_id) {
                Ok(Route::Result(id))
            } else if let Some((kind, id)) = path
                .strip_prefix("/view/")
                .and_then(|rest| rest.split_once('/'))
                .and_then(|(kind, id)| Some((kind, parse_id(id)?)))
            {
                Ok(Route::View {
                    kind: kind.to_string(),
                    id,
                    query: query()?,
                })
            } else {
                Err(Page::not_found())
            }
        }
    }
}

/// The page of a route, from the Bench.
pub(crate) fn render(bench: &Bench, route: &Route) -> Result<Page> {
    match route {
        Route::Index(q) => pages::index(bench, q),
        Route::Compare(q) => compare::page_of(bench, q),
        Route::Run(id) => pages::run(bench, *id),
        Route::Result(id) => pages::result(bench, *id),
        Route::View { kind, id, query } => compare::view(bench, kind, *id, query),
    }
}

/// An id in a path: ASCII digits only.
fn parse_id(s: &str) -> Option<i64> {
    if s.is_empty() || s.len() > 18 || !s.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse().ok()
}

/// A query string's name=value pairs, percent-decoded ('+' is a space).
pub(crate) fn parse_query(query: &str) -> std::result::Result<Vec<(String, String)>, QueryError> {
    query
        .split('&')
        .filter(|p| !p.is_empty())
        .map(|pair| {
            let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
            Ok((percent_decode(k)?, percent_decode(v)?))
        })
        .collect()
}

fn percent_decode(s: &str) -> std::result::Result<String, QueryError> {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'+' => out.push(b' '),
            b'%' => {
                let hex = bytes
                    .get(i + 1..i + 3)
                    .and_then(|h| std::str::from_utf8(h).ok())
                    .and_then(|h| u8::from_str_radix(h, 16).ok())
                    .ok_or(QueryError::PercentEncoding)?;
                out.push(hex);
                i += 2;
            }
            b => out.push(b),
        }
        i += 1;
    }
    let text = String::from_utf8(out).map_err(|_| QueryError::NotUtf8)?;
    // No database stores a NUL in text (PostgreSQL refuses it), and no name holds one.
    if text.contains('\0') {
        return Err(QueryError::Nul);
    }
    Ok(text)
}

/// A drive id from a query value.
pub(crate) fn query_id(name: &str, value: &str) -> std::result::Result<i64, QueryError> {
    parse_id(value.trim()).ok_or_else(|| {
        QueryError::bad_value(name, value, "not a drive id (a number from the drive list)")
    })
}
