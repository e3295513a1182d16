//! How many runs a second separate writer processes store into one Bench, as a lab's
//! machines would: 16 processes against PostgreSQL (a server of its own, started as the
//! tests start theirs), 4 against an SQLite file (whose writers take turns), each storing
//! 50 runs of two results. Checks every run is stored exactly once.
//!
//! ```text
//! cargo run -p bench --example writers
//! ```

use std::path::Path;
use std::process::Command;
use std::time::Instant;

use bench::db::{Bench, RunRecord, Stored};
use suite::result::TestResult;
use suite::TestId;

const RUNS_PER_WRITER: usize = 50;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if let [_, flag, db, writer] = &args[..] {
        assert_eq!(flag, "--writer", "usage: writers [--writer DB N]");
        write(Path::new(db), writer.parse().expect("a writer number"));
        return;
    }
    let dir = tempfile::tempdir().expect("a temporary directory");
    let sqlite = dir.path().join("bench.db");
    measure("SQLite", &sqlite.display().to_string(), 4);
    match test_support::postgres::shared() {
        Some(server) => measure("PostgreSQL", &server.new_database(), 16),
        None => eprintln!("PostgreSQL is not installed: measured SQLite only"),
    }
}

/// Start `processes` writers against `db`, wait for them, check and print.
fn measure(name: &str, db: &str, processes: usize) {
    // The schema first, so the writers time storing, not migrating.
    drop(Bench::open(Path::new(db)).expect("the Bench opens"));
    let exe = std::env::current_exe().expect("this program's path");
    let started = Instant::now();
    let children: Vec<_> = (0..processes)
        .map(|w| {
            Command::new(&exe)
                .args(["--writer", db, &w.to_string()])
                .spawn()
                .expect("a writer starts")
        })
        .collect();
    for mut c in children {
        assert!(
            c.wait().expect("a writer ends").success(),
            "a writer failed"
        );
    }
    let seconds = started.elapsed().as_secs_f64();
    let b = Bench::open_read_only(Path::new(db)).expect("the Bench opens");
    let runs = b.runs().expect("runs read");
    let mut uuids: Vec<&str> = runs.iter().map(|r| r.uuid.as_str()).collect();
    uuids.sort();
    uuids.dedup();
    let expected = processes * RUNS_PER_WRITER;
    assert_eq!(runs.len(), expected, "{name}: every run stored");
    assert_eq!(uuids.len(), expected, "{name}: none twice");
    println!(
        "{name}: {processes} processes x {RUNS_PER_WRITER} runs: {expected} stored once each in {seconds:.2} s: {:.0} runs/s",
        expected as f64 / seconds
    );
}

/// One writer process: store its runs, each a new one.
fn write(db: &Path, writer: usize) {
    let mut b = Bench::open(db).expect("the Bench opens");
    let model = format!("m{}", writer % 3);
    for i in 0..RUNS_PER_WRITER {
        let started = format!("2026-01-01T{:02}:{:02}:00Z", writer, i);
        let run = RunRecord {
            run_id: uuid::Uuid::new_v4().to_string(),
            kind: "suite".into(),
            target_spec: format!("sim:{model}"),
            started_at: started.clone(),
            quick: true,
            complete: true,
            source: None,
            results: vec![
                result(TestId::SeqWrite, &model, &started),
                result(TestId::SeqRead, &model, &started),
            ],
        };
        assert!(matches!(b.store(&run).expect("stored"), Stored::New(_)));
    }
}

/// A small complete result with ten seconds of measurements.
fn result(test: TestId, model: &str, started: &str) -> TestResult {
    let seconds: Vec<_> = (0..10)
        .map(|t| serde_json::json!({"t": t, "ios": 1000, "iops": 1000.0, "mbps": 4.096}))
        .collect();
    serde_json::from_value(serde_json::json!({
        "schema_version": 1,
        "tool": {"name": "ssdlab", "version": "0.1.0"},
        "test": test, "variant": null, "label": format!("{test} on {model}"),
        "started_at": started, "complete": true, "parameters": {"qd": 32},
        "target": {
            "kind": "sim", "path": format!("sim:{model}"), "model": model, "serial": "SIM-1",
            "firmware": "1", "vendor": null, "capacity_bytes": 8_000_000_000u64,
            "logical_block_bytes": 512, "physical_block_bytes": 4096, "rotational": false
        },
        "clock": "virtual",
        "system": {"cpu": "cpu", "cores": 2, "memory_bytes": 1, "kernel": "6", "os": "linux", "hostname": "h"},
        "summary": {
            "ios": 10000, "bytes": 40_960_000, "duration_s": 10.0, "iops": 1000.0, "mbps": 4.096,
            "busy_time_s": 10.0, "avg_in_flight": 1.0, "max_in_flight": 1
        },
        "per_second": seconds,
        "analysis": null
    }))
    .expect("the result parses")
}
