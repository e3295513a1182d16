//! `bench serve` when its PostgreSQL database misbehaves or holds a secret: a password in
//! the connection string never reaches a page; a database that stops answering costs a
//! visitor seconds (a 503 that says why), not a hang, and other pages are answered
//! meanwhile; one that comes back, or restarts, is used again without an error.

use std::net::SocketAddr;
use std::path::Path;
use std::time::{Duration, Instant};

use bench::db::Bench;
use test_support::http::{self, status};

fn start_with(db: &str, limits: bench::web::Limits) -> SocketAddr {
    let (tx, rx) = std::sync::mpsc::channel();
    let db = db.to_string();
    std::thread::spawn(move || {
        bench::web::serve_with(Path::new(&db), "127.0.0.1:0", limits, |addr| {
            tx.send(addr).unwrap()
        })
        .unwrap();
    });
    rx.recv_timeout(Duration::from_secs(30))
        .expect("the server listens")
}

/// GET `path`, waiting up to `secs` for the answer.
fn get(addr: SocketAddr, path: &str, secs: u64) -> std::io::Result<String> {
    http::request(addr, "GET", path, Duration::from_secs(secs))
}

/// A new, empty Bench in a new database of `server`; its URL.
fn a_bench(server: &test_support::postgres::Server) -> String {
    let url = server.new_database();
    drop(Bench::open(Path::new(&url)).unwrap());
    url
}

/// Every way a connection string carries a password (the tests' server trusts any).
#[test]
fn a_password_in_the_database_url_never_reaches_a_page() {
    let Some(server) = test_support::postgres::shared() else {
        return;
    };
    let url = a_bench(server);
    let (db, dir) = {
        let rest = url.strip_prefix("postgres://ssdlab@/").unwrap();
        let (db, host) = rest.split_once("?host=").unwrap();
        (db.to_string(), host.to_string())
    };
    for with_password in [
        format!("postgres:///{db}?host={dir}&user=ssdlab&password=S3cretQ"),
        format!("postgresql:///{db}?host={dir}&user=ssdlab&pass%77ord=S3cret%51"),
        format!("postgres://ssdlab:S3cretU@/{db}?host={dir}"),
        format!("host={dir} dbname={db} user=ssdlab password=S3cretW"),
    ] {
        let addr = start_with(&with_password, Default::default());
        for path in ["/", "/compare", "/run/999", "/nowhere"] {
            let r = get(addr, path, 20).unwrap();
            assert!(!r.contains("S3cret"), "{with_password} {path}: {r}");
        }
        let r = get(addr, "/", 20).unwrap();
        assert_eq!(status(&r), "200", "{r}");
        assert!(
            r.contains("***"),
            "the page says where, without the password: {r}"
        );
    }
}

/// Limits for the tests: a short database timeout, two page workers.
fn quick() -> bench::web::Limits {
    bench::web::Limits {
        database_timeout: Duration::from_secs(2),
        page_workers: 2,
        ..Default::default()
    }
}

/// Requests for `path` until one is answered `want`, for up to `secs`: the answers seen.
fn until_status(addr: SocketAddr, path: &str, want: &str, secs: u64) -> Vec<String> {
    let deadline = Instant::now() + Duration::from_secs(secs);
    let mut seen = Vec::new();
    while Instant::now() < deadline {
        let r = get(addr, path, secs).unwrap_or_else(|e| format!("no answer: {e}"));
        let done = status(&r) == want;
        seen.push(r);
        if done {
            break;
        }
    }
    seen
}

#[test]
fn a_stopped_database_is_a_503_within_seconds_and_other_pages_go_on() {
    let Some(server) = test_support::postgres::private() else {
        return;
    };
    let url = a_bench(&server);
    let addr = start_with(&url, quick());
    // Both workers hold a connection.
    let warm: Vec<_> = (0..4)
        .map(|_| std::thread::spawn(move || get(addr, "/", 20)))
        .collect();
    for w in warm {
        assert_eq!(status(&w.join().unwrap().unwrap()), "200");
    }

    let frozen = server.freeze().unwrap();
    // Before: no answer for 30 s, then the connection dropped. Now a 503 that says why,
    // every time, and the pages that need no database as ever.
    for path in ["/", "/compare?d=1", "/", "/run/1"] {
        let r = get(addr, path, 20).unwrap();
        assert_eq!(status(&r), "503", "{path}: {r}");
        assert!(r.contains("not answering"), "{r}");
        assert!(r.contains("Retry-After: 5"), "{r}");
        assert!(!r.contains("ssdlab@"), "{r}");
    }
    assert_eq!(status(&get(addr, "/nowhere", 20).unwrap()), "404");
    assert_eq!(status(&get(addr, "/?page=%00", 20).unwrap()), "400");

    drop(frozen);
    let seen = until_status(addr, "/", "200", 30);
    assert_eq!(status(seen.last().unwrap()), "200", "back: {seen:?}");
    assert!(
        seen.iter().all(|r| status(r) != "500"),
        "no error on the way back: {seen:?}"
    );
}

#[test]
fn a_restarted_database_costs_no_visitor_an_error() {
    let Some(server) = test_support::postgres::private() else {
        return;
    };
    let url = a_bench(&server);
    let limits = bench::web::Limits {
        page_workers: 1,
        ..quick()
    };
    let addr = start_with(&url, limits);
    assert_eq!(status(&get(addr, "/", 20).unwrap()), "200");

    // Down: a 503 that says so (before: a 500).
    server.stop().unwrap();
    let r = get(addr, "/", 20).unwrap();
    assert_eq!(status(&r), "503", "{r}");
    assert!(r.contains("cannot be reached"), "{r}");

    // Restarted: the worker's connection was closed under it; the first page is made on a
    // new one (before: a 500, then the next worked).
    server.start().unwrap();
    let r = get(addr, "/", 20).unwrap();
    assert_eq!(status(&r), "200", "{r}");

    // Restarted while the worker kept a connection: the same.
    server.stop().unwrap();
    server.start().unwrap();
    for _ in 0..3 {
        let r = get(addr, "/", 20).unwrap();
        assert_eq!(status(&r), "200", "{r}");
    }
}
