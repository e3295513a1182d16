//! Load for `bench serve` under abuse (benches/serve-abuse.sh runs it): 10 hostile clients
//! (4 pipelining without reading, 3 sending endless headers, 3 slowloris) and `CLIENTS`
//! well-behaved ones asking for `PATHS` in turn for `SECS` seconds; prints the requests/s
//! answered, their latency and any failure.
//!
//!   cargo run --release -p bench --example serve_abuse -- ADDR [SECS=20] [CLIENTS=4] [PATHS=/]

use std::io::Write;
use std::net::{SocketAddr, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

fn hostile(addr: SocketAddr, kind: usize, stop: Arc<AtomicBool>) {
    let go = || !stop.load(Ordering::Relaxed);
    while go() {
        let Ok(mut s) = TcpStream::connect(addr) else {
            std::thread::sleep(Duration::from_millis(100));
            continue;
        };
        let _ = s.set_write_timeout(Some(Duration::from_millis(200)));
        // Each kind keeps at it on one connection until the server drops it, then reconnects.
        let mut failures = 0;
        match kind {
            0 => {
                let burst = "GET / HTTP/1.1\r\nHost: bench\r\n\r\n".repeat(64);
                while go() && failures < 50 {
                    match s.write_all(burst.as_bytes()) {
                        Ok(()) => failures = 0,
                        Err(_) => failures += 1,
                    }
                }
            }
            1 => {
                let _ = s.write_all(b"GET / HTTP/1.1\r\nHost: bench\r\n");
                let line = format!("X-Pad: {}\r\n", "a".repeat(1000));
                while go() && s.write_all(line.as_bytes()).is_ok() {}
            }
            _ => {
                let _ = s.write_all(b"GET / HTTP/1.1\r\nHost: bench\r\nX-Slow: ");
                while go() && s.write_all(b"a").is_ok() {
                    std::thread::sleep(Duration::from_millis(500));
                }
            }
        }
    }
}

fn get(addr: SocketAddr, path: &str) -> Result<(), String> {
    let r = test_support::http::request(addr, "GET", path, Duration::from_secs(10))
        .map_err(|e| e.to_string())?;
    match r.starts_with("HTTP/1.1 200 ") {
        true => Ok(()),
        false => Err(r.chars().take(60).collect()),
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(addr) = args.first().and_then(|a| a.parse::<SocketAddr>().ok()) else {
        eprintln!("usage: serve_abuse ADDR [SECS=20] [CLIENTS=4] [PATHS=/,/compare]");
        std::process::exit(2);
    };
    let secs: u64 = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(20);
    let clients: usize = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(4);
    let paths: Vec<String> = args
        .get(3)
        .map_or("/".into(), |p| p.clone())
        .split(',')
        .map(String::from)
        .collect();

    let stop = Arc::new(AtomicBool::new(false));
    let hostiles: Vec<_> = [0, 0, 0, 0, 1, 1, 1, 2, 2, 2]
        .into_iter()
        .map(|kind| {
            let stop = Arc::clone(&stop);
            std::thread::spawn(move || hostile(addr, kind, stop))
        })
        .collect();
    std::thread::sleep(Duration::from_secs(1));

    let start = Instant::now();
    let workers: Vec<_> = (0..clients)
        .map(|c| {
            let paths = paths.clone();
            std::thread::spawn(move || {
                let (mut ok, mut failed, mut latencies) = (0u64, Vec::new(), Vec::new());
                let mut i = c;
                while start.elapsed() < Duration::from_secs(secs) {
                    let t = Instant::now();
                    match get(addr, &paths[i % paths.len()]) {
                        Ok(()) => {
                            ok += 1;
                            latencies.push(t.elapsed());
                        }
                        Err(e) => failed.push(e),
                    }
                    i += 1;
                }
                (ok, failed, latencies)
            })
        })
        .collect();
    let (mut ok, mut failed, mut latencies) = (0, Vec::new(), Vec::new());
    for w in workers {
        let (o, f, l) = w.join().unwrap();
        ok += o;
        failed.extend(f);
        latencies.extend(l);
    }
    let elapsed = start.elapsed().as_secs_f64();
    stop.store(true, Ordering::Relaxed);
    for h in hostiles {
        let _ = h.join();
    }
    latencies.sort();
    let at = |q: f64| {
        latencies
            .get(((latencies.len() as f64 * q) as usize).min(latencies.len().saturating_sub(1)))
            .map_or(0.0, |d| d.as_secs_f64() * 1e3)
    };
    println!(
        "{ok} answers in {elapsed:.1} s from {clients} clients beside 10 hostile ones: {:.0} requests/s; \
         latency p50 {:.1} ms, p99 {:.1} ms, max {:.1} ms; {} failed",
        ok as f64 / elapsed,
        at(0.5),
        at(0.99),
        at(1.0),
        failed.len()
    );
    for f in failed.iter().take(5) {
        println!("  failed: {f}");
    }
    if !failed.is_empty() {
        std::process::exit(1);
    }
}
