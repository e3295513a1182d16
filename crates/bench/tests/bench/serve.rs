//! `bench serve` over real sockets: hostile clients (pipelining without reading, endless
//! headers, slowloris) do not stop other clients being answered; oversized request lines
//! and headers are refused and closed; HTTP/1.0 keep-alive is answered as such; a server
//! error does not show where the database is. No test depends on the machine's speed: each
//! waits for what it checks (an answer, a close) and asserts that it happened, never how
//! fast; [`SAFETY`] only turns a hang into a failure.

use std::io::{Read, Write};
use std::net::{IpAddr, Ipv4Addr, SocketAddr, TcpStream};
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use bench::db::{Bench, RunRecord};
use test_support::http::{self, status};

use crate::common;

/// How long anything a test waits for may take before the test fails: not a measure of
/// the server (the behaviour checked happens in a second or so on an idle machine), only a
/// hang turned into a failure on a loaded one.
const SAFETY: Duration = Duration::from_secs(60);

/// `bench::web::serve` on a free loopback port, in a thread that lives as long as the test
/// process.
fn start(db: &Path) -> SocketAddr {
    start_with(db, bench::web::Limits::default())
}

fn start_with(db: &Path, limits: bench::web::Limits) -> SocketAddr {
    let (tx, rx) = std::sync::mpsc::channel();
    let db = db.to_path_buf();
    std::thread::spawn(move || {
        bench::web::serve_with(&db, "127.0.0.1:0", limits, |addr| tx.send(addr).unwrap()).unwrap();
    });
    rx.recv_timeout(SAFETY).expect("the server listens")
}

fn new_bench(dir: &Path) -> std::path::PathBuf {
    let db = dir.join("bench.db");
    drop(Bench::open(&db).unwrap());
    db
}

/// Send `request` on a new connection; the whole response as text.
fn exchange(addr: SocketAddr, request: &[u8]) -> std::io::Result<String> {
    let out = http::exchange(addr, request, SAFETY)?;
    Ok(String::from_utf8_lossy(&out).into_owned())
}

fn get(addr: SocketAddr, path: &str) -> std::io::Result<String> {
    http::request(addr, "GET", path, SAFETY)
}

/// Whether a write failed because the peer is gone (closed or reset), not because its
/// buffers are full (a write timeout).
fn gone(e: &std::io::Error) -> bool {
    !matches!(
        e.kind(),
        std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
    )
}

/// A hostile client of `kind` until `stop`. It adds one to `engaged` once its abuse is
/// under way on a connection the server took: the pipeline stuffed (a write blocks, the
/// server no longer reads it), 8 KiB of endless headers sent, the slowloris' head begun.
/// Returns whether the server closed its connection before `stop` (the endless-headers
/// client is refused at the head limit by design, and starts again on a new connection).
fn hostile(addr: SocketAddr, kind: usize, stop: &AtomicBool, engaged: &AtomicUsize) -> bool {
    let connect = || {
        let s = TcpStream::connect_timeout(&addr, SAFETY).expect("the server accepts");
        s.set_write_timeout(Some(Duration::from_millis(200)))
            .unwrap();
        s
    };
    let mut s = connect();
    let mut counted = false;
    let mut count = || {
        if !std::mem::replace(&mut counted, true) {
            engaged.fetch_add(1, Ordering::SeqCst);
        }
    };
    // The pauses below are the hostile clients' pace, not waits for anything.
    match kind {
        // Pipelining: requests without end, never reading an answer.
        0 => {
            let burst = "GET / HTTP/1.1\r\nHost: bench\r\n\r\n".repeat(64);
            while !stop.load(Ordering::SeqCst) {
                match s.write(burst.as_bytes()) {
                    Ok(_) => {}
                    Err(e) if gone(&e) => return true,
                    Err(_) => {
                        count();
                        std::thread::sleep(Duration::from_millis(50));
                    }
                }
            }
        }
        // Endless headers.
        1 => {
            let line = format!("X-Pad: {}\r\n", "a".repeat(1000));
            'connection: while !stop.load(Ordering::SeqCst) {
                if s.write_all(b"GET / HTTP/1.1\r\nHost: bench\r\n").is_err() {
                    s = connect();
                    continue;
                }
                for n in 1.. {
                    if stop.load(Ordering::SeqCst) {
                        break 'connection;
                    }
                    if s.write_all(line.as_bytes()).is_err() {
                        // Refused (431, closed): again, on a new connection.
                        std::thread::sleep(Duration::from_millis(50));
                        s = connect();
                        continue 'connection;
                    }
                    if n == 8 {
                        count();
                    }
                }
            }
        }
        // Slowloris: a byte now and then.
        _ => {
            if s.write_all(b"GET / HTTP/1.1\r\nHost: bench\r\nX-Slow: ")
                .is_err()
            {
                return true;
            }
            count();
            while !stop.load(Ordering::SeqCst) {
                if s.write_all(b"a").is_err() {
                    return true;
                }
                std::thread::sleep(Duration::from_millis(200));
            }
        }
    }
    false
}

#[test]
fn hostile_clients_do_not_stop_others_being_answered() {
    let dir = tempfile::tempdir().unwrap();
    // No limit frees a hostile connection while the test runs (the slowloris and the
    // pipeline are held for as long as they like): what is checked is that holding them
    // does not stop the server answering others, not that the limits free them (below).
    let limits = bench::web::Limits {
        keep_alive_requests: u64::MAX,
        keep_alive_lifetime: Duration::from_secs(3600),
        write_timeout: Duration::from_secs(3600),
        ..patient(256, 32)
    };
    let addr = start_with(&new_bench(dir.path()), limits);
    assert_eq!(status(&get(addr, "/").unwrap()), "200");

    let stop = Arc::new(AtomicBool::new(false));
    let engaged = Arc::new(AtomicUsize::new(0));
    let kinds = [0, 0, 0, 0, 1, 1, 1, 2, 2, 2];
    let hostiles: Vec<_> = kinds
        .iter()
        .map(|&kind| {
            let (stop, engaged) = (Arc::clone(&stop), Arc::clone(&engaged));
            std::thread::spawn(move || hostile(addr, kind, &stop, &engaged))
        })
        .collect();
    // Every hostile client at work before the first request (not a pause that hopes so).
    let deadline = Instant::now() + SAFETY;
    while engaged.load(Ordering::SeqCst) < kinds.len() {
        if Instant::now() > deadline {
            stop.store(true, Ordering::SeqCst);
            panic!(
                "only {} of {} hostile clients got going",
                engaged.load(Ordering::SeqCst),
                kinds.len()
            );
        }
        std::thread::sleep(Duration::from_millis(10));
    }

    // A well-behaved client's requests, meanwhile: every one answered.
    const REQUESTS: u32 = 100;
    let start = Instant::now();
    for i in 0..REQUESTS {
        let r = get(addr, "/").unwrap_or_else(|e| {
            stop.store(true, Ordering::SeqCst);
            panic!("request {i} under the abuse was not answered: {e}")
        });
        assert_eq!(status(&r), "200", "{r}");
    }
    // The figure, for the reader: no assertion rests on it.
    println!(
        "bench serve under {} hostile clients: {:.0} requests/s",
        kinds.len(),
        f64::from(REQUESTS) / start.elapsed().as_secs_f64()
    );
    stop.store(true, Ordering::SeqCst);
    let closed: Vec<bool> = hostiles.into_iter().map(|h| h.join().unwrap()).collect();
    // The pipelines and slowlorises were held all along: the answers came while they were.
    for (kind, closed) in kinds.iter().zip(&closed) {
        assert!(
            *kind == 1 || !closed,
            "a hostile client of kind {kind} was let go: {closed:?}"
        );
    }
}

#[test]
fn oversized_request_lines_and_headers_are_refused_and_closed() {
    let dir = tempfile::tempdir().unwrap();
    let addr = start(&new_bench(dir.path()));
    let long_url = format!(
        "GET /compare?d={} HTTP/1.1\r\nHost: bench\r\n\r\n",
        "1".repeat(9 * 1024)
    );
    let r = exchange(addr, long_url.as_bytes()).unwrap();
    assert_eq!(status(&r), "414", "{r}");
    assert!(r.to_ascii_lowercase().contains("connection: close"), "{r}");

    let mut huge = String::from("GET / HTTP/1.1\r\nHost: bench\r\n");
    for i in 0..80 {
        huge += &format!("X-Pad-{i}: {}\r\n", "a".repeat(1000));
    }
    huge += "\r\n";
    let r = exchange(addr, huge.as_bytes()).unwrap_or_default();
    assert_eq!(status(&r), "431", "{r}");
    // A 100 MB URL is not read to its end: the answer comes, the connection closes.
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(SAFETY)).unwrap();
    s.set_write_timeout(Some(SAFETY)).unwrap();
    let _ = s.write_all(b"GET /");
    let chunk = vec![b'a'; 1 << 20];
    let mut sent = 0;
    while sent < 100 && s.write_all(&chunk).is_ok() {
        sent += 1;
    }
    assert!(
        sent < 100,
        "the server stopped reading a 100 MB request line"
    );
    let mut answer = Vec::new();
    let _ = s.read_to_end(&mut answer);
    let answer = String::from_utf8_lossy(&answer);
    assert!(
        answer.is_empty() || ["414", "431"].contains(&status(&answer)),
        "{answer}"
    );
    // And the server still answers.
    assert_eq!(status(&get(addr, "/").unwrap()), "200");
}

#[test]
fn http_1_0_keep_alive_answers_say_so() {
    let dir = tempfile::tempdir().unwrap();
    let addr = start(&new_bench(dir.path()));
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(SAFETY)).unwrap();
    s.write_all(b"HEAD / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
        .unwrap();
    let mut buf = [0u8; 4096];
    let n = s.read(&mut buf).unwrap();
    let head = String::from_utf8_lossy(&buf[..n]).to_ascii_lowercase();
    assert!(head.contains(" 200 "), "{head}");
    assert!(head.contains("connection: keep-alive"), "{head}");
    // And the connection is kept: a second request on it is answered.
    s.write_all(b"GET / HTTP/1.0\r\n\r\n").unwrap();
    let mut rest = Vec::new();
    let _ = s.read_to_end(&mut rest);
    let rest = String::from_utf8_lossy(&rest);
    assert_eq!(status(&rest), "200", "{rest}");
}

#[test]
fn server_errors_do_not_show_the_database_path() {
    let dir = tempfile::tempdir().unwrap();
    let db = new_bench(dir.path());
    let addr = start(&db);
    std::fs::remove_file(&db).unwrap();
    let r = get(addr, "/").unwrap();
    assert_eq!(status(&r), "500", "{r}");
    assert!(!r.contains(&dir.path().display().to_string()), "{r}");
    assert!(!r.contains("bench.db"), "{r}");
    assert!(r.contains("could not be read"), "{r}");
}

/// Read until the server closes the connection (the end, or a reset): whether it did
/// within [`SAFETY`].
fn closes(s: &mut TcpStream) -> bool {
    let deadline = Instant::now() + SAFETY;
    s.set_read_timeout(Some(SAFETY)).unwrap();
    let mut buf = vec![0u8; 1 << 16];
    loop {
        match s.read(&mut buf) {
            Ok(0) => return true,
            Ok(_) => {}
            Err(e) if e.kind() == std::io::ErrorKind::ConnectionReset => return true,
            Err(_) => return false,
        }
        if Instant::now() > deadline {
            return false;
        }
    }
}

#[test]
fn slow_idle_and_unread_connections_are_closed() {
    let dir = tempfile::tempdir().unwrap();
    let db = new_bench(dir.path());
    let limits = bench::web::Limits {
        head_timeout: Duration::from_secs(1),
        idle_timeout: Duration::from_secs(1),
        write_timeout: Duration::from_secs(1),
        ..Default::default()
    };
    let addr = start_with(&db, limits);

    // Slowloris: a header byte every 100 ms never makes a request. Nothing but the head
    // timeout ends it (never idle, far from the head size limit in SAFETY).
    let mut slow = TcpStream::connect(addr).unwrap();
    slow.write_all(b"GET / HTTP/1.1\r\nHost: bench\r\nX-Slow: ")
        .unwrap();
    let deadline = Instant::now() + SAFETY;
    // The pause is the slowloris' pace; the loop waits for the cut itself.
    while slow.write_all(b"a").is_ok() {
        assert!(
            Instant::now() < deadline,
            "a slow request head is not cut off"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    assert!(closes(&mut slow), "a slow request head is cut off");

    // Idle: connected, saying nothing.
    let mut idle = TcpStream::connect(addr).unwrap();
    assert!(closes(&mut idle), "an idle connection is closed");
    assert_eq!(status(&get(addr, "/").unwrap()), "200");

    // Pipelining without reading: once its answers stop moving, the connection goes. On a
    // server where only the write timeout can end it: no idle or head timeout, no limit on
    // a connection's requests or age.
    let addr = start_with(
        &db,
        bench::web::Limits {
            write_timeout: Duration::from_secs(1),
            keep_alive_requests: u64::MAX,
            keep_alive_lifetime: Duration::from_secs(3600),
            ..patient(256, 32)
        },
    );
    let mut greedy = TcpStream::connect(addr).unwrap();
    greedy
        .set_write_timeout(Some(Duration::from_millis(200)))
        .unwrap();
    let burst = "GET / HTTP/1.1\r\nHost: bench\r\n\r\n".repeat(256);
    // Requests until a write fails for the connection being gone (not for the server not
    // reading them, a write timeout): the server let go of it.
    let deadline = Instant::now() + SAFETY;
    let mut sent = 0usize;
    loop {
        match greedy.write(burst.as_bytes()) {
            Ok(n) => sent += n,
            Err(e) if gone(&e) => break,
            Err(_) => {}
        }
        assert!(
            Instant::now() < deadline,
            "a client that never reads is never let go ({sent} bytes of requests sent)"
        );
    }
    println!(
        "unread pipelined answers: let go after {} requests sent",
        sent / 32
    );
    assert!(closes(&mut greedy), "a client that never reads is let go");
    assert_eq!(status(&get(addr, "/").unwrap()), "200");
}

/// A run of one small consistency result on drive `model` (`vendor`, `host`), as a suite
/// would store it.
fn run_of(model: &str, vendor: &str, host: &str, capacity_bytes: u64, started: &str) -> RunRecord {
    let mut result = common::result("consistency", None, model, started, 100.0);
    result.target.vendor = Some(vendor.into());
    result.target.capacity_bytes = capacity_bytes;
    result.system.hostname = host.into();
    let mut run = common::run(model, started, vec![result]);
    run.results[0].run_id = Some(run.run_id.clone());
    run
}

/// The Bench at `db` serves its drive list, a run and a compare page over a socket.
fn serves_the_drive_list_a_run_and_a_compare_page(db: &Path) {
    let mut b = Bench::open(db).unwrap();
    b.store(&run_of(
        "Alpha 1",
        "Acme",
        "rig-1",
        1_000_000_000_000,
        "2026-01-02T03:04:05Z",
    ))
    .unwrap();
    b.store(&run_of(
        "Beta <2>",
        "Zeta",
        "rig-2",
        2_000_000_000_000,
        "2026-02-02T03:04:05Z",
    ))
    .unwrap();
    drop(b);
    let addr = start(db);
    let list = get(addr, "/").unwrap();
    assert_eq!(status(&list), "200", "{list}");
    assert!(
        list.contains("Alpha 1") && list.contains("Beta &lt;2&gt;"),
        "{list}"
    );
    // The drive list's filters, in the database's own SQL.
    for (query, alpha, beta) in [
        ("vendor=acme", true, false),
        ("host=RIG-2", false, true),
        ("min_gb=1500&max_gb=2000", false, true),
        ("from=2026-01-02&to=2026-01-31", true, false),
        ("q=%3C2", false, true),
        ("q=%25", false, false),
        ("kind=sim&page=1", true, true),
    ] {
        let r = get(addr, &format!("/?{query}")).unwrap();
        assert_eq!(status(&r), "200", "{query}: {r}");
        // The drives table, not the newest runs under it.
        let r = &r[..r.find("id=\"runs\"").unwrap()];
        assert_eq!(r.contains(">Alpha 1</a>"), alpha, "{query}");
        assert_eq!(r.contains(">Beta &lt;2&gt;</a>"), beta, "{query}");
    }
    assert_eq!(status(&get(addr, "/?page=0").unwrap()), "400");
    let run = get(addr, "/run/1").unwrap();
    assert_eq!(status(&run), "200", "{run}");
    assert!(run.contains("Run 1"), "{run}");
    let compare = get(addr, "/compare?d=1&d=2").unwrap();
    assert_eq!(status(&compare), "200", "{compare}");
    assert!(compare.contains("Compare drives") && compare.contains("Alpha 1"));
    // Many requests on the connections the server keeps all see the same Bench.
    for _ in 0..20 {
        assert_eq!(status(&get(addr, "/compare?d=2").unwrap()), "200");
    }
    // What is stored meanwhile is on the next page.
    let mut b = Bench::open(db).unwrap();
    b.store(&run_of(
        "Gamma 3",
        "Acme",
        "rig-1",
        500_000_000_000,
        "2026-03-02T03:04:05Z",
    ))
    .unwrap();
    let mut seen = 0;
    for _ in 0..8 {
        seen += get(addr, "/").unwrap().contains("Gamma 3") as usize;
    }
    assert_eq!(seen, 8, "every page worker sees the new drive");
}

#[test]
fn serves_sqlite() {
    let dir = tempfile::tempdir().unwrap();
    serves_the_drive_list_a_run_and_a_compare_page(&dir.path().join("bench.db"));
}

#[test]
fn serves_postgres() {
    let Some(server) = test_support::postgres::shared() else {
        eprintln!("no PostgreSQL server: skipped");
        return;
    };
    serves_the_drive_list_a_run_and_a_compare_page(Path::new(&server.new_database()));
}

/// The client that hogs connections: another loopback address than the others'.
const HOG: IpAddr = IpAddr::V4(Ipv4Addr::new(127, 0, 0, 2));

/// A keep-alive connection from `from` that has had one answer and now waits, idle; `None`
/// if the server closed it instead of answering.
fn idle_keep_alive(from: IpAddr, addr: SocketAddr) -> Option<TcpStream> {
    let mut s = http::connect_from(from, addr, SAFETY).unwrap();
    s.write_all(b"HEAD / HTTP/1.1\r\nHost: bench\r\n\r\n")
        .ok()?;
    let mut head = Vec::new();
    let mut byte = [0u8];
    while !head.ends_with(b"\r\n\r\n") {
        match s.read(&mut byte) {
            Ok(1) => head.push(byte[0]),
            _ => return None,
        }
    }
    assert!(
        head.starts_with(b"HTTP/1.1 200"),
        "{}",
        String::from_utf8_lossy(&head)
    );
    Some(s)
}

/// Limits where a connection is never closed for being idle or slow while the test runs:
/// only the limits under test free one.
fn patient(max_connections: usize, connections_per_client: usize) -> bench::web::Limits {
    bench::web::Limits {
        max_connections,
        connections_per_client,
        head_timeout: Duration::from_secs(600),
        idle_timeout: Duration::from_secs(600),
        ..Default::default()
    }
}

/// One client holding every keep-alive connection it can (before: all of them, and every
/// other client waited until one timed out) leaves room for the others.
#[test]
fn one_client_cannot_hold_every_connection() {
    let dir = tempfile::tempdir().unwrap();
    let addr = start_with(&new_bench(dir.path()), patient(8, 4));
    let held: Vec<TcpStream> = (0..8).filter_map(|_| idle_keep_alive(HOG, addr)).collect();
    assert_eq!(held.len(), 4, "a client's share: the rest closed at once");
    // Another client is answered at once; before, it never was (until a timeout).
    let r = http::request(addr, "GET", "/", SAFETY).unwrap();
    assert_eq!(status(&r), "200", "{r}");
    drop(held);
}

/// When every connection is taken, the one idle the longest is closed for a new client
/// rather than the new client waiting.
#[test]
fn idle_connections_make_room_for_new_clients() {
    let dir = tempfile::tempdir().unwrap();
    let addr = start_with(&new_bench(dir.path()), patient(4, 4));
    let mut held: Vec<TcpStream> = (0..4)
        .map(|_| idle_keep_alive(HOG, addr).expect("within the limits"))
        .collect();
    let r = http::request(addr, "GET", "/", SAFETY).unwrap();
    assert_eq!(status(&r), "200", "{r}");
    assert!(closes(&mut held[0]), "the longest idle made room");
    // The others are still served.
    let s = &mut held[3];
    s.write_all(b"GET / HTTP/1.1\r\nHost: bench\r\nConnection: close\r\n\r\n")
        .unwrap();
    let mut answer = String::new();
    s.read_to_string(&mut answer).unwrap();
    assert_eq!(status(&answer), "200", "{answer}");
}

/// A connection is kept alive for so many requests, then closed.
#[test]
fn keep_alive_ends_after_its_requests() {
    let dir = tempfile::tempdir().unwrap();
    let limits = bench::web::Limits {
        keep_alive_requests: 3,
        ..patient(8, 8)
    };
    let addr = start_with(&new_bench(dir.path()), limits);
    let mut s = TcpStream::connect(addr).unwrap();
    s.write_all(&b"HEAD / HTTP/1.1\r\nHost: bench\r\n\r\n".repeat(5))
        .unwrap();
    assert!(closes(&mut s), "closed after its 3rd");
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(SAFETY)).unwrap();
    s.write_all(&b"HEAD / HTTP/1.1\r\nHost: bench\r\n\r\n".repeat(3))
        .unwrap();
    let mut answers = String::new();
    s.read_to_string(&mut answers).unwrap();
    assert_eq!(answers.matches("HTTP/1.1 200").count(), 3, "{answers}");
    assert_eq!(answers.matches("Connection: close").count(), 1, "{answers}");
}
