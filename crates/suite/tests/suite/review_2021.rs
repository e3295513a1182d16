//! The 2018-2021 reviews' tests on a small simulated drive: the drive states, the queue-depth
//! and mixed sweeps, the Storage Bench on a full drive and idle wake-up.

use std::sync::atomic::AtomicBool;

use suite::context::{Context, Silent};
use suite::drive_state::DriveState;
use suite::params::Overrides;
use suite::result::TestResult;
use suite::steps::Axis;

fn run(spec: &str, test: &str, o: Overrides) -> Vec<TestResult> {
    let mut dev = suite::target::open(spec, &Default::default()).expect("open simulated drive");
    let stop = AtomicBool::new(false);
    let mut silent = Silent;
    let mut ctx = Context::new(&stop, &mut silent);
    let test = test.parse().expect("a test name");
    suite::methodology::run(test, dev.as_mut(), &mut ctx, &o).expect("test runs")
}

fn one(spec: &str, test: &str, o: Overrides) -> TestResult {
    let mut results = run(spec, test, o);
    assert_eq!(results.len(), 1);
    results.remove(0)
}

fn short(state: DriveState) -> Overrides {
    Overrides {
        duration_s: Some(2.0),
        state: Some(state),
        ..Overrides::default()
    }
}

const DRIVE: &str = "sim:default,capacity=4GiB";

#[test]
fn a_queue_depth_sweep_bursts_then_steps_through_the_depths() {
    let r = one(DRIVE, "sweep-random-write", short(DriveState::Empty));
    assert!(r.complete);
    assert_eq!(r.file_stem(), "sweep-random-write-empty");
    let a = r.steps().expect("stepped figures");
    assert_eq!((a.axis, a.state), (Axis::QueueDepth, DriveState::Empty));
    // A quarter of a 4 GiB drive is its nearly empty state, and the result says why.
    assert_eq!(a.span_bytes, 1 << 30);
    assert!(
        r.adaptations.iter().any(|n| n.contains("a quarter")),
        "{:?}",
        r.adaptations
    );
    let fill = (r.preconditioning.iter().find(|p| p.name == "fill")).expect("a fill");
    assert_eq!(fill.summary.as_ref().unwrap().bytes, 1 << 30);
    let depths: Vec<f64> = r.points.iter().map(|p| p.x).collect();
    assert_eq!(depths, [1.0, 2.0, 4.0, 8.0, 16.0, 32.0]);
    for p in &r.points {
        assert_eq!(p.summary.read, None);
        assert!(
            (p.summary.duration_s - 2.0).abs() < 0.01,
            "{}",
            p.summary.duration_s
        );
    }
    let mbps: Vec<f64> = r.points.iter().map(|p| p.summary.mbps).collect();
    assert!((a.headline_mbps - (mbps[0] + mbps[1] + mbps[2]) / 3.0).abs() < 1e-9);
    assert_eq!(a.peak_mbps, mbps.iter().copied().fold(0.0, f64::max));
    // Deeper queues are no slower on a drive with many dies.
    assert!(mbps[5] > mbps[0], "{mbps:?}");
    // Bursts: their speed is over the time IOs were in flight, a fifth of the cycle.
    let b = a.burst.as_ref().expect("bursts");
    let s = &b.summary;
    // Up to 1 GiB, or for as long as a step takes per busy second (2 s x 5).
    let bounded = s.bytes == 1 << 30 || (s.duration_s - 10.0).abs() < 0.01;
    assert!(
        bounded && s.bytes <= 1 << 30,
        "{} bytes in {} s",
        s.bytes,
        s.duration_s
    );
    assert!((b.mbps - s.bytes as f64 / s.busy_time_s / 1e6).abs() < 1e-6);
    let busy = s.busy_time_s / s.duration_s;
    assert!((busy - 0.2).abs() < 0.02, "busy {busy}");
    // The result's seconds are the burst's and every step's, one after the other.
    let seconds: f64 = s.duration_s + r.points.iter().map(|p| p.summary.duration_s).sum::<f64>();
    assert!(
        r.per_second.len() as f64 >= seconds.floor(),
        "{}",
        r.per_second.len()
    );
}

#[test]
fn a_full_drive_is_four_fifths_written_and_tested_over_all_of_it() {
    let capacity = 4u64 << 30;
    let r = one(DRIVE, "mixed-random", short(DriveState::Full));
    assert!(r.complete);
    let a = r.steps().expect("stepped figures");
    assert_eq!((a.axis, a.state), (Axis::ReadShare, DriveState::Full));
    let expected = (capacity as f64 * 0.8) as u64 / 4096 * 4096;
    assert_eq!(a.span_bytes, expected);
    assert!(r.adaptations.is_empty(), "{:?}", r.adaptations);
    let shares: Vec<f64> = r.points.iter().map(|p| p.x).collect();
    assert_eq!(
        shares,
        [100.0, 90.0, 80.0, 70.0, 60.0, 50.0, 40.0, 30.0, 20.0, 10.0, 0.0]
    );
    assert_eq!(r.points[0].summary.write, None);
    assert_eq!(r.points[10].summary.read, None);
    let mixed = &r.points[5].summary;
    let (reads, writes) = (
        mixed.read.as_ref().unwrap().ios,
        mixed.write.as_ref().unwrap().ios,
    );
    let share = reads as f64 / (reads + writes) as f64;
    assert!((share - 0.5).abs() < 0.02, "{share}");
    let mean = r.points.iter().map(|p| p.summary.mbps).sum::<f64>() / 11.0;
    assert!((a.headline_mbps - mean).abs() < 1e-9);
}

#[test]
fn the_storage_bench_on_a_full_drive_fills_it_first_and_says_so() {
    let o = Overrides {
        trace: Some("light-2011".into()),
        trace_scale: Some(0.01),
        ..short(DriveState::Full)
    };
    let r = one(
        DRIVE,
        "storage-bench",
        Overrides {
            duration_s: None,
            ..o
        },
    );
    assert_eq!(r.file_stem(), "storage-bench-light-2011-full");
    let phases: Vec<&str> = r.preconditioning.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(phases, ["purge", "fill"]);
    let filled = r.preconditioning[1].summary.as_ref().unwrap().bytes;
    assert_eq!(filled, (4u64 << 30) * 4 / 5 / (128 << 10) * (128 << 10));
}

#[test]
fn idle_wake_times_the_slumber_exit() {
    let r = one(
        "sim:default,slumber_exit=3ms,slumber_after=50ms",
        "idle-wake",
        Overrides {
            rest_s: Some(0.5),
            ..Overrides::default()
        },
    );
    assert!(r.complete, "{:?}", r.deviations);
    let a = r.wake().expect("wake figures");
    assert_eq!(a.wake_us.len(), 10);
    assert_eq!(a.wakeups, Some(10));
    assert_eq!(a.link_power.set.as_deref(), Some("on"));
    assert!(a.link_power.restored);
    // Each read after a rest waits for the drive to wake: 3 ms more than one awake.
    let penalty = a.wake_mean_us - a.awake_mean_us;
    assert!((penalty - 3000.0).abs() < 0.05 * 3000.0, "{penalty} us");
    assert!(a.awake_mean_us < 1000.0);
}

#[test]
fn the_state_is_refused_by_tests_that_set_their_own() {
    let o = Overrides {
        state: Some(DriveState::Full),
        ..Overrides::default()
    };
    let test = suite::methodology::get(suite::TestId::Consistency).unwrap();
    let e = o.validate(test).unwrap_err().to_string();
    assert!(
        e.contains("--state") && e.contains("sweep-random-read"),
        "{e}"
    );
    let o = Overrides {
        qd: Some(8),
        ..Overrides::default()
    };
    let mut dev = suite::target::open(DRIVE, &Default::default()).unwrap();
    let stop = AtomicBool::new(false);
    let mut silent = Silent;
    let mut ctx = Context::new(&stop, &mut silent);
    let e = suite::methodology::run(suite::TestId::SweepSeqRead, dev.as_mut(), &mut ctx, &o)
        .unwrap_err()
        .to_string();
    assert!(e.contains("drop --qd"), "{e}");
}
