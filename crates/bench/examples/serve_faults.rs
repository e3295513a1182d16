//! How many requests a second `bench serve` answers well-behaved clients while something is
//! wrong: its PostgreSQL database stopped (SIGSTOP: the server and its backends, connections
//! open and nothing answering), and one client (another loopback address) holding every
//! keep-alive connection it can, a HEAD on each every second, reopening those closed (then
//! let go). The peer is the same server with no fault, measured in the same run. A stopped
//! database is noticed after the first pages' wait: a phase of 10 s or more shows both.
//!
//! A PostgreSQL server of its own (started as the tests start theirs) holds an empty Bench;
//! `CLIENTS` clients from 127.0.0.1 ask for the drive list (`/`: four queries) for `SECS`
//! seconds per phase, a new connection each, waiting up to 10 s for an answer. Served by
//! this build in-process, or by the `ssdlab` binary given (`ssdlab bench serve`), which lets
//! one command measure an older build too.
//!
//! ```text
//! cargo run --release -p bench --example serve_faults -- [SECS=5] [CLIENTS=4] [SSDLAB]
//! ```

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{IpAddr, Ipv4Addr, SocketAddr, TcpStream};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use test_support::http;

/// The hog's address: another client than the measured ones.
const HOG: IpAddr = IpAddr::V4(Ipv4Addr::new(127, 0, 0, 2));
/// The connections the hog tries to hold.
const HOG_CONNECTIONS: usize = 300;
/// How long a measured request waits for its answer.
const PATIENCE: Duration = Duration::from_secs(10);

/// What the measured clients got in one phase.
#[derive(Default)]
struct Tally {
    answered: usize,
    ok: usize,
    unavailable: usize,
    unanswered: usize,
    latencies: Vec<Duration>,
}

/// `clients` clients asking for `/` for `secs` seconds.
fn measure(addr: SocketAddr, secs: u64, clients: usize) -> (Tally, f64) {
    let start = Instant::now();
    let workers: Vec<_> = (0..clients)
        .map(|_| {
            std::thread::spawn(move || {
                let mut t = Tally::default();
                while start.elapsed() < Duration::from_secs(secs) {
                    let began = Instant::now();
                    match http::request(addr, "GET", "/", PATIENCE) {
                        Ok(r) if !http::status(&r).is_empty() => {
                            t.answered += 1;
                            t.ok += (http::status(&r) == "200") as usize;
                            t.unavailable += (http::status(&r) == "503") as usize;
                            t.latencies.push(began.elapsed());
                        }
                        _ => t.unanswered += 1,
                    }
                }
                t
            })
        })
        .collect();
    let mut all = Tally::default();
    for w in workers {
        let t = w.join().expect("a client");
        all.answered += t.answered;
        all.ok += t.ok;
        all.unavailable += t.unavailable;
        all.unanswered += t.unanswered;
        all.latencies.extend(t.latencies);
    }
    all.latencies.sort();
    (all, start.elapsed().as_secs_f64())
}

fn row(server: &str, fault: &str, (t, secs): (Tally, f64)) {
    let p99 = t
        .latencies
        .get((t.latencies.len() * 99 / 100).min(t.latencies.len().saturating_sub(1)))
        .map_or("-".to_string(), |d| format!("{:.0}", d.as_secs_f64() * 1e3));
    println!(
        "| {server} | {fault} | {:.0} | {} | {} | {} | {} | {p99} |",
        t.answered as f64 / secs,
        t.answered,
        t.ok,
        t.unavailable,
        t.unanswered
    );
}

/// A keep-alive connection from the hog that has had its answer, or `None`.
fn hog_connection(addr: SocketAddr) -> Option<TcpStream> {
    let mut s = http::connect_from(HOG, addr, Duration::from_secs(2)).ok()?;
    head(&mut s).then_some(s)
}

/// A HEAD on the hog's connection, and its answer read: whether it is still served.
fn head(s: &mut TcpStream) -> bool {
    if s.write_all(b"HEAD / HTTP/1.1\r\nHost: bench\r\n\r\n")
        .is_err()
    {
        return false;
    }
    let mut answer = Vec::new();
    let mut byte = [0u8];
    while !answer.ends_with(b"\r\n\r\n") {
        match s.read(&mut byte) {
            Ok(1) => answer.push(byte[0]),
            _ => return false,
        }
    }
    !answer.windows(17).any(|w| w == b"Connection: close")
}

/// The hog, until `stop`: holds as many connections as it can, a HEAD on each every second,
/// reopening what is closed. `held` is how many it holds.
fn hog(addr: SocketAddr, stop: Arc<AtomicBool>, held: Arc<AtomicUsize>) {
    let mut open: Vec<TcpStream> = Vec::new();
    while !stop.load(Ordering::Relaxed) {
        let round = Instant::now();
        open.retain_mut(head);
        while open.len() < HOG_CONNECTIONS && round.elapsed() < Duration::from_secs(1) {
            match hog_connection(addr) {
                Some(s) => open.push(s),
                None => break,
            }
        }
        held.store(open.len(), Ordering::Relaxed);
        while round.elapsed() < Duration::from_secs(1) && !stop.load(Ordering::Relaxed) {
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

/// The server: this build's, in-process, or `ssdlab bench serve` of the binary given.
fn serve(db: &str, ssdlab: Option<&str>) -> (SocketAddr, Option<Child>) {
    let Some(ssdlab) = ssdlab else {
        let (tx, rx) = std::sync::mpsc::channel();
        let db = db.to_string();
        std::thread::spawn(move || {
            bench::web::serve(Path::new(&db), "127.0.0.1:0", |a| tx.send(a).unwrap())
                .expect("serving")
        });
        let addr = rx.recv_timeout(Duration::from_secs(30)).expect("listening");
        return (addr, None);
    };
    let mut child = Command::new(ssdlab)
        .env("SSDLAB_DB", db)
        .args(["bench", "serve", "--listen", "127.0.0.1:0"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("ssdlab runs");
    let mut line = String::new();
    BufReader::new(child.stdout.take().expect("piped"))
        .read_line(&mut line)
        .expect("its address");
    let addr = line
        .trim()
        .strip_prefix("Bench: http://")
        .and_then(|a| a.trim_end_matches('/').parse().ok())
        .unwrap_or_else(|| panic!("not an address: {line}"));
    (addr, Some(child))
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let secs: u64 = args.first().and_then(|a| a.parse().ok()).unwrap_or(5);
    let clients: usize = args.get(1).and_then(|a| a.parse().ok()).unwrap_or(4);
    let ssdlab = args.get(2).map(String::as_str);
    let Some(pg) = test_support::postgres::private() else {
        eprintln!("PostgreSQL is not installed (apt-get install postgresql)");
        std::process::exit(2);
    };
    let db = pg.new_database();
    drop(bench::db::Bench::open(Path::new(&db)).expect("a new Bench"));
    let (addr, child) = serve(&db, ssdlab);
    let server = ssdlab.map_or("this build", |s| s);
    println!("| server | fault | requests/s answered | answered | 200 | 503 | no answer in 10 s | p99 ms |");
    println!("|---|---|---|---|---|---|---|---|");
    // Every page worker connected.
    let _ = measure(addr, 1, clients);
    row(server, "none (peer)", measure(addr, secs, clients));

    let (stop, held) = (
        Arc::new(AtomicBool::new(false)),
        Arc::new(AtomicUsize::new(0)),
    );
    let hogging = {
        let (stop, held) = (Arc::clone(&stop), Arc::clone(&held));
        std::thread::spawn(move || hog(addr, stop, held))
    };
    // Until the hog holds what it can (its first rounds).
    let settle = Instant::now();
    let mut last = usize::MAX;
    while settle.elapsed() < Duration::from_secs(10) {
        std::thread::sleep(Duration::from_millis(1100));
        let now = held.load(Ordering::Relaxed);
        if now == last || now >= HOG_CONNECTIONS {
            break;
        }
        last = now;
    }
    eprintln!("the hog holds {} connections", held.load(Ordering::Relaxed));
    row(server, "connection hog", measure(addr, secs, clients));
    stop.store(true, Ordering::Relaxed);
    let _ = hogging.join();
    let frozen = pg.freeze().expect("the database stops");
    row(server, "database stopped", measure(addr, secs, clients));
    drop(frozen);
    let back = Instant::now();
    let recovered = loop {
        let r = http::request(addr, "GET", "/", PATIENCE).unwrap_or_default();
        if http::status(&r) == "200" {
            break Some(back.elapsed());
        }
        if back.elapsed() > Duration::from_secs(60) {
            break None;
        }
    };
    match recovered {
        Some(t) => eprintln!(
            "the drive list answered 200 again {:.2} s after the database",
            t.as_secs_f64()
        ),
        None => eprintln!("the drive list did not answer 200 within 60 s of the database"),
    }

    if let Some(mut child) = child {
        let _ = child.kill();
        let _ = child.wait();
    }
}
