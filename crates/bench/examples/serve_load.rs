//! How many pages a second `bench serve` answers many readers of a lab-sized Bench: fills a
//! Bench (SQLite, then PostgreSQL: a server of its own, started as the tests start theirs)
//! with `DRIVES` drives, each one run of a real quick suite's consistency, transfer-size
//! sweep and sequential results (measured once on a simulated drive, stored under each
//! drive's name), serves it on 127.0.0.1 only, and sends `REQUESTS` requests each for the
//! drive list, a filtered page of it, a 5-drive compare page and an unticked Compare, from
//! `CONCURRENCY` clients at once (a new connection each). Prints requests/s and errors;
//! exits 1 on any error.
//!
//! ```text
//! cargo run --release -p bench --example serve_load -- [DRIVES=500] [REQUESTS=4000] [CONCURRENCY=50]
//! ```

use std::net::SocketAddr;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use bench::db::{Bench, RunRecord, Specs};
use suite::context::{Context, Silent};
use suite::result::TestResult;
use suite::TestId;

/// A quick suite's consistency, sweep and sequential results on a simulated drive.
fn suite_results() -> Vec<TestResult> {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let spec = "sim:default";
    let mut dev = suite::target::open(spec, &Default::default()).expect("the simulated drive");
    let stop = AtomicBool::new(false);
    let mut silent = Silent;
    let mut ctx = Context::new(&stop, &mut silent);
    let only: Vec<String> = [
        TestId::Consistency,
        TestId::TransferSweep,
        TestId::SeqIncompressible,
    ]
    .map(|t| t.name().to_string())
    .to_vec();
    let steps = suite::runner::select(suite::runner::plan(true), &only, &[]).expect("the tests");
    let plan = suite::runner::Plan {
        steps,
        ..suite::runner::Plan::of(suite::methodologies::Methodology::Review2013, true)
    };
    suite::runner::run(
        dev.as_mut(),
        &mut ctx,
        &suite::runner::Start {
            target_spec: spec,
            plan: &plan,
            dir: dir.path(),
            previous: None,
            run_id: &suite::results_dir::new_run_id(),
        },
    )
    .expect("the suite runs");
    suite::results_dir::read_results(dir.path()).expect("its results")
}

/// Store `drives` drives: drive `i` is "Drive NNN" of vendor Acme or Zeta, NVMe (every third)
/// or SATA, `i` x 4 GB, on bench host rig-0..3, its run on a day of 2026.
fn fill(db: &Path, drives: usize, results: &[TestResult]) {
    let mut bench = Bench::open(db).expect("the Bench opens");
    for i in 1..=drives {
        let run_id = uuid::Uuid::new_v4().to_string();
        let model = format!("Drive {i:03}");
        let started = format!("2026-{:02}-{:02}T10:00:00Z", 1 + i % 12, 1 + i % 28);
        let results: Vec<TestResult> = results
            .iter()
            .cloned()
            .map(|mut r| {
                r.run_id = Some(run_id.clone());
                r.target.model = Some(model.clone());
                // A simulated drive is known by its spec: one of its own per drive.
                r.target.path = format!("sim:default,model={i}");
                r.target.vendor = Some(if i % 2 == 0 { "Acme" } else { "Zeta" }.into());
                r.target.capacity_bytes = i as u64 * 4_000_000_000;
                r.system.hostname = format!("rig-{}", i % 4);
                let link = if i % 3 == 0 {
                    "NVMe (PCIe 3.0 x4)"
                } else {
                    "SATA 6 Gb/s"
                };
                r.target.details.insert("link".into(), link.into());
                r.started_at = started.clone();
                r
            })
            .collect();
        let run = bench
            .store(&RunRecord {
                run_id: run_id.clone(),
                kind: "suite".into(),
                target_spec: format!("sim:default,model={i}"),
                started_at: started,
                quick: true,
                complete: true,
                source: None,
                results,
            })
            .expect("the run is stored")
            .id();
        let drive = bench.run(run).expect("the run").expect("stored").drive_id;
        bench
            .annotate(
                drive,
                &Specs {
                    nand: Some(if i % 3 == 0 { "TLC" } else { "QLC" }.into()),
                    price_usd: Some(50.0 + i as f64),
                    ..Default::default()
                },
            )
            .expect("annotated");
    }
}

/// One GET on a new connection: Ok if it was answered 200 in full.
fn get(addr: SocketAddr, path: &str) -> Result<(), String> {
    let r = test_support::http::request(addr, "GET", path, Duration::from_secs(30))
        .map_err(|e| e.to_string())?;
    match r.starts_with("HTTP/1.1 200 ") && r.ends_with("</html>") {
        true => Ok(()),
        false => Err(r.chars().take(60).collect()),
    }
}

/// `requests` GETs of `path` from `concurrency` clients; requests/s, errors, p99 latency.
fn hammer(addr: SocketAddr, path: &str, requests: usize, concurrency: usize) -> (f64, usize, f64) {
    let next = Arc::new(AtomicUsize::new(0));
    let errors = Arc::new(AtomicUsize::new(0));
    let start = Instant::now();
    let clients: Vec<_> = (0..concurrency)
        .map(|_| {
            let (next, errors, path) = (Arc::clone(&next), Arc::clone(&errors), path.to_string());
            std::thread::spawn(move || {
                let mut latencies = Vec::new();
                while next.fetch_add(1, Ordering::Relaxed) < requests {
                    let t = Instant::now();
                    if let Err(e) = get(addr, &path) {
                        if errors.fetch_add(1, Ordering::Relaxed) < 5 {
                            eprintln!("{path}: {e}");
                        }
                    }
                    latencies.push(t.elapsed().as_secs_f64());
                }
                latencies
            })
        })
        .collect();
    let mut latencies: Vec<f64> = clients
        .into_iter()
        .flat_map(|c| c.join().expect("a client"))
        .collect();
    let secs = start.elapsed().as_secs_f64();
    latencies.sort_by(f64::total_cmp);
    let p99 = latencies[(latencies.len() * 99 / 100).min(latencies.len() - 1)];
    (
        requests as f64 / secs,
        errors.load(Ordering::Relaxed),
        p99 * 1e3,
    )
}

fn measure(
    name: &str,
    db: &Path,
    drives: usize,
    results: &[TestResult],
    requests: usize,
    concurrency: usize,
) -> usize {
    let t = Instant::now();
    fill(db, drives, results);
    eprintln!(
        "{name}: {drives} drives stored in {:.1} s",
        t.elapsed().as_secs_f64()
    );
    let (tx, rx) = std::sync::mpsc::channel();
    let served = db.to_path_buf();
    // Loopback only: nothing here listens on, or sends to, any other address.
    std::thread::spawn(move || {
        bench::web::serve(&served, "127.0.0.1:0", |a| tx.send(a).unwrap()).expect("serving")
    });
    let addr = rx
        .recv_timeout(Duration::from_secs(30))
        .expect("the server listens");
    assert!(addr.ip().is_loopback());
    let bench = Bench::open_read_only(db).expect("the Bench");
    let ids: Vec<i64> = bench
        .drives()
        .expect("drives")
        .iter()
        .step_by(drives / 5)
        .take(5)
        .map(|d| d.id)
        .collect();
    let compare = format!(
        "/compare?{}",
        ids.iter()
            .map(|id| format!("d={id}"))
            .collect::<Vec<_>>()
            .join("&")
    );
    let mut errors = 0;
    // The drive list, a filtered page of it, five drives compared, and Compare unticked
    // (more drives than a comparison charts: the page that asks for fewer).
    let pages = [
        "/",
        "/?vendor=acme&interface=NVMe&min_gb=400&page=2",
        compare.as_str(),
        "/compare",
    ];
    for path in pages {
        // Warm up: every page worker connects, caches fill.
        let _ = hammer(addr, path, concurrency, concurrency);
        let (rate, failed, p99_ms) = hammer(addr, path, requests, concurrency);
        println!(
            "| {name} | `{path}` | {requests} | {concurrency} | {rate:.0} | {failed} | {p99_ms:.0} |"
        );
        errors += failed;
    }
    errors
}

fn main() {
    let args: Vec<usize> = std::env::args()
        .skip(1)
        .map(|a| {
            a.parse()
                .expect("usage: serve_load [DRIVES] [REQUESTS] [CONCURRENCY]")
        })
        .collect();
    let drives = args.first().copied().unwrap_or(500).max(5);
    let requests = args.get(1).copied().unwrap_or(4000).max(1);
    let concurrency = args.get(2).copied().unwrap_or(50).max(1);
    let results = suite_results();
    println!("| Bench | page | requests | clients | requests/s | errors | p99 ms |");
    println!("|---|---|---|---|---|---|---|");
    let dir = tempfile::tempdir().expect("a temporary directory");
    let mut errors = measure(
        "SQLite",
        &dir.path().join("bench.db"),
        drives,
        &results,
        requests,
        concurrency,
    );
    match test_support::postgres::shared() {
        Some(server) => {
            errors += measure(
                "PostgreSQL",
                Path::new(&server.new_database()),
                drives,
                &results,
                requests,
                concurrency,
            )
        }
        None => eprintln!("PostgreSQL is not installed: measured SQLite only"),
    }
    if errors > 0 {
        std::process::exit(1);
    }
}
