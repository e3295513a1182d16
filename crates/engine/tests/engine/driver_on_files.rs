//! The driver against real files through both backends, checked against the per-IO log.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};

use engine::driver::{self, Hooks, Stopped};
use engine::iolog::{self, IoLogWriter, IoRecord};
use engine::pattern::DataKind;
use engine::shape::Shape;
use engine::target::{Backend, OpenRequest, Registry};
use engine::workload::{Access, Limit, Workload};
use engine::{Device, Op};

fn file_target(dir: &tempfile::TempDir, backend: Backend) -> Box<dyn Device> {
    let spec = format!(
        "file:{}:{}",
        dir.path().join("target.img").display(),
        64 << 20
    );
    Registry::real()
        .open(
            &spec,
            &OpenRequest {
                write: true,
                backend,
                destroy_data: None,
                ..OpenRequest::default()
            },
        )
        .expect("open file target")
}

fn workload(qd: u32, ios: u64) -> Workload {
    Workload {
        access: Access::Random,
        block_bytes: 4096,
        offset_bytes: 8 << 20,
        span_bytes: 16 << 20,
        read_pct: 50,
        op: None,
        data: DataKind::Incompressible,
        qd,
        limit: Limit {
            ios: Some(ios),
            ..Limit::default()
        },
        seed: 42,
        shape: Shape::default(),
        threads: 1,
    }
}

fn run_logged(
    dev: &mut dyn Device,
    w: &Workload,
    dir: &tempfile::TempDir,
) -> (driver::Outcome, Vec<IoRecord>) {
    let path = dir.path().join("io.log");
    let mut log = IoLogWriter::create(&path).unwrap();
    let outcome = driver::run(
        dev,
        w,
        Hooks {
            iolog: Some(&mut log),
            ..Hooks::default()
        },
    )
    .expect("run");
    log.finish().unwrap();
    let recs = iolog::read(&path).unwrap().map(Result::unwrap).collect();
    (outcome, recs)
}

/// The largest number of IOs whose [submit, complete] intervals overlap.
fn max_overlap(recs: &[IoRecord]) -> u32 {
    let mut events: Vec<(u64, i32)> = recs
        .iter()
        .flat_map(|r| [(r.submit_ns, 1), (r.complete_ns, -1)])
        .collect();
    // Completions before submissions at the same instant: a slot is reused only after it
    // completed.
    events.sort();
    let (mut now, mut max) = (0i32, 0i32);
    for (_, d) in events {
        now += d;
        max = max.max(now);
    }
    max as u32
}

fn check_backend(backend: Backend) {
    let dir = tempfile::tempdir().unwrap();
    let mut dev = file_target(&dir, backend);
    let w = workload(16, 20_000);
    let (outcome, recs) = run_logged(dev.as_mut(), &w, &dir);
    let m = &outcome.measurements;
    assert_eq!(outcome.stopped, None);

    // Every IO counted exactly once, in the bucket of its completion second.
    assert_eq!(recs.len() as u64, 20_000);
    assert_eq!(m.summary.ios, 20_000);
    assert_eq!(m.per_second.iter().map(|p| p.ios).sum::<u64>(), 20_000);
    let mut from_log: BTreeMap<u64, u64> = BTreeMap::new();
    for r in &recs {
        *from_log.entry(r.complete_ns / 1_000_000_000).or_default() += 1;
    }
    for p in &m.per_second {
        assert_eq!(
            from_log.get(&p.t).copied().unwrap_or(0),
            p.ios,
            "second {}",
            p.t
        );
    }
    let reads = recs.iter().filter(|r| r.op == Op::Read).count() as u64;
    assert_eq!(m.summary.read.as_ref().unwrap().ios, reads);
    assert_eq!(m.summary.write.as_ref().unwrap().ios, 20_000 - reads);

    // Span and alignment.
    for r in &recs {
        assert!(r.offset >= w.offset_bytes && r.offset + 4096 <= w.offset_bytes + w.span_bytes);
        assert_eq!(r.offset % 4096, 0);
        assert_eq!(r.len, 4096);
    }

    // The queue depth was held: never more than QD in flight, and QD reached.
    assert_eq!(m.summary.max_in_flight, 16);
    assert!(max_overlap(&recs) <= 16);
    // The average depth is the IOs' summed time in flight over the run, as the log has them,
    // in whatever order the backend's threads handed completions over. (How full the queue
    // stays depends on how promptly the host schedules the driver, so a floor on it would
    // test the machine's load.)
    let in_flight_ns: u64 = recs.iter().map(|r| r.complete_ns - r.submit_ns).sum();
    let from_log = in_flight_ns as f64 / (m.summary.duration_s * 1e9);
    assert!(
        (m.summary.avg_in_flight - from_log).abs() <= 1e-6 * from_log,
        "avg in flight {} against the log's {from_log}",
        m.summary.avg_in_flight
    );
    assert!(m.summary.avg_in_flight > 1.0, "IOs overlapped");
    assert!(m.summary.busy_time_s > 0.0 && m.summary.busy_time_s <= m.summary.duration_s + 1e-6);
}

#[test]
fn io_uring_backend_accounts_every_io() {
    check_backend(Backend::Uring);
}

#[test]
fn sync_backend_accounts_every_io() {
    check_backend(Backend::Sync);
}

#[test]
fn sequential_bytes_bound_and_data_written() {
    let dir = tempfile::tempdir().unwrap();
    let mut dev = file_target(&dir, Backend::Auto);
    let w = Workload {
        access: Access::Sequential,
        block_bytes: 128 << 10,
        offset_bytes: 0,
        span_bytes: 4 << 20,
        read_pct: 0,
        op: None,
        data: DataKind::Zeros,
        qd: 1,
        limit: Limit {
            bytes: Some(4 << 20),
            ..Limit::default()
        },
        seed: 1,
        shape: Shape::default(),
        threads: 1,
    };
    let (outcome, recs) = run_logged(dev.as_mut(), &w, &dir);
    assert_eq!(outcome.measurements.summary.bytes, 4 << 20);
    let offsets: Vec<u64> = recs.iter().map(|r| r.offset).collect();
    let expected: Vec<u64> = (0..32).map(|i| i * (128 << 10)).collect();
    assert_eq!(offsets, expected);
    assert_eq!(max_overlap(&recs), 1);

    // Incompressible data lands in the file.
    let w = Workload {
        data: DataKind::Incompressible,
        ..w
    };
    driver::run(dev.as_mut(), &w, Hooks::default()).unwrap();
    drop(dev);
    let bytes = std::fs::read(dir.path().join("target.img")).unwrap();
    let head = &bytes[..4 << 20];
    let packed = miniz_oxide::deflate::compress_to_vec(head, 6);
    assert!(packed.len() as f64 > 0.99 * head.len() as f64);
    // Nothing written past the span.
    assert!(bytes[4 << 20..].iter().all(|&b| b == 0));
}

#[test]
fn interruption_keeps_what_was_measured() {
    let dir = tempfile::tempdir().unwrap();
    let mut dev = file_target(&dir, Backend::Auto);
    let stop = AtomicBool::new(false);
    let w = Workload {
        limit: Limit {
            duration_ns: Some(60_000_000_000),
            ..Limit::default()
        },
        ..workload(8, 0)
    };
    let mut progress = |p: &driver::Progress| {
        if p.ios > 1000 {
            stop.store(true, Ordering::Relaxed);
        }
    };
    let outcome = driver::run(
        dev.as_mut(),
        &w,
        Hooks {
            stop: Some(&stop),
            progress: Some(&mut progress),
            progress_every: Some(std::time::Duration::from_millis(1)),
            ..Hooks::default()
        },
    )
    .unwrap();
    // Ended by the stop, not by its 60 s limit (which only keeps a stop that fails from
    // hanging the test; how soon the run stopped is the machine's business).
    assert_eq!(outcome.stopped, Some(Stopped::Interrupted));
    let m = outcome.measurements;
    assert!(m.summary.ios > 1000);
    assert_eq!(
        m.per_second.iter().map(|p| p.ios).sum::<u64>(),
        m.summary.ios
    );
}

#[test]
fn discard_punches_holes_in_files() {
    let dir = tempfile::tempdir().unwrap();
    let mut dev = file_target(&dir, Backend::Uring);
    let w = Workload {
        access: Access::Sequential,
        read_pct: 0,
        offset_bytes: 0,
        span_bytes: 1 << 20,
        limit: Limit {
            bytes: Some(1 << 20),
            ..Limit::default()
        },
        ..workload(4, 0)
    };
    driver::run(dev.as_mut(), &w, Hooks::default()).unwrap();
    let n = driver::discard_range(dev.as_mut(), 0, 512 << 10, 256 << 10).unwrap();
    assert_eq!(n, 2);
    drop(dev);
    let bytes = std::fs::read(dir.path().join("target.img")).unwrap();
    assert!(bytes[..512 << 10].iter().all(|&b| b == 0));
    assert!(bytes[512 << 10..1 << 20].iter().any(|&b| b != 0));
}

#[test]
fn bad_workloads_are_refused_before_io() {
    let dir = tempfile::tempdir().unwrap();
    let mut dev = file_target(&dir, Backend::Auto);
    let w = Workload {
        span_bytes: 1 << 30,
        ..workload(4, 10)
    };
    let e = driver::run(dev.as_mut(), &w, Hooks::default())
        .err()
        .unwrap()
        .to_string();
    assert!(e.contains("does not fit"), "{e}");
    let w = Workload {
        block_bytes: 1000,
        ..workload(4, 10)
    };
    let e = driver::run(dev.as_mut(), &w, Hooks::default())
        .err()
        .unwrap()
        .to_string();
    assert!(e.contains("multiple"), "{e}");
}
