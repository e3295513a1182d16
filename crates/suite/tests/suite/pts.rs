//! The SNIA PTS tests on a small simulated drive at a small `--pts-scale`: every stimulus is
//! run round after round, steady state is decided on the tracking variable and the window's
//! figures are its rounds' (rates) and its IOs' (response times).

use std::sync::atomic::AtomicBool;

use suite::context::{Context, Silent};
use suite::params::Overrides;
use suite::pts::{Figure, PtsVariant, Sequence};
use suite::result::TestResult;

fn run(spec: &str, test: &str, o: Overrides) -> TestResult {
    let mut dev = suite::target::open(spec, &Default::default()).expect("open simulated drive");
    let stop = AtomicBool::new(false);
    let mut silent = Silent;
    let mut ctx = Context::new(&stop, &mut silent);
    let test = test.parse().expect("a test name");
    let mut results = suite::methodology::run(test, dev.as_mut(), &mut ctx, &o).expect("test runs");
    assert_eq!(results.len(), 1);
    results.remove(0)
}

fn scaled(variant: PtsVariant) -> Overrides {
    Overrides {
        pts_variant: Some(variant),
        pts_scale: Some(0.05),
        ..Overrides::default()
    }
}

/// The window is the steady one (or the last rounds), and the tracked figure is its mean.
fn check_window(s: &Sequence) {
    assert!(s.rounds >= 5 && s.rounds <= 25, "{} rounds", s.rounds);
    assert_eq!(s.window, (s.rounds - 4, s.rounds));
    let rule = suite::methodology::steady_state::PTS;
    let tracked = &s.tracking_cell().rounds;
    assert_eq!(tracked.len(), s.rounds);
    assert_eq!(
        rule.detect(tracked).map(|r| r + 1 == s.rounds),
        s.reached.then_some(true)
    );
    let mean = tracked[s.rounds - 5..].iter().sum::<f64>() / 5.0;
    assert!((s.tracked() - mean).abs() < 1e-9 * mean);
    for c in &s.cells {
        assert_eq!(c.rounds.len(), s.rounds, "{}", c.stimulus.label());
        let l = c.latency;
        assert!(l.mean_us > 0.0 && l.mean_us <= l.p99999_us && l.p99999_us <= l.max_us);
    }
}

#[test]
fn pts_iops_runs_the_matrix_to_steady_state() {
    let r = run(
        "sim:default,capacity=2GiB",
        "pts-iops",
        scaled(PtsVariant::Enterprise),
    );
    assert!(r.complete, "{:?}", r.deviations);
    assert!(r.deviations.iter().any(|d| d.contains("--pts-scale 0.05")));
    // The simulator has no write cache to switch: PTS-E's result says so, as a deviation.
    let cache = r.write_cache.as_ref().expect("the write cache recorded");
    assert_eq!((cache.found, cache.set), (None, None));
    assert!(
        cache.note.as_deref().unwrap().contains("write_buffer"),
        "{cache:?}"
    );
    assert!(
        r.deviations
            .iter()
            .any(|d| d.contains("PTS-E asks for it disabled")),
        "{:?}",
        r.deviations
    );
    let a = r.pts().expect("PTS figures");
    assert_eq!(
        (a.variant, a.variant.active_range_pct(), a.round_s),
        (PtsVariant::Enterprise, 100.0, 3.0)
    );
    assert_eq!(a.wipc_bytes, (2 << 30) / 10 / (128 << 10) * (128 << 10));
    let s = &a.sequences[0];
    assert_eq!(s.cells.len(), 56);
    assert_eq!(s.figure, Figure::Iops);
    assert_eq!(s.tracking_cell().stimulus.label(), "RND 4KiB 0/100");
    assert!(
        s.reached,
        "the tracking variable steadies on a simulated drive"
    );
    check_window(s);
    let iops = |label: &str| {
        s.cells
            .iter()
            .find(|c| c.stimulus.label() == label)
            .expect(label)
            .iops
    };
    // Reads beat writes in steady state; small blocks beat large ones in IOPS.
    assert!(iops("RND 4KiB 100/0") > 2.0 * iops("RND 4KiB 0/100"));
    assert!(iops("RND 4KiB 100/0") > 10.0 * iops("RND 1024KiB 100/0"));
    // The stimuli ran at the enterprise load, over the whole drive.
    let w = match &r.parameters {
        suite::result::Parameters::Workload(w) => w,
        other => panic!("{other:?}"),
    };
    assert_eq!(
        (w.threads, w.qd, w.block_bytes, w.read_pct),
        (4, 32, 4096, 0)
    );
}

#[test]
fn pts_latency_and_throughput_report_their_figures() {
    let lat = run(
        "sim:default,capacity=2GiB",
        "pts-latency",
        scaled(PtsVariant::Client),
    );
    let a = lat.pts().unwrap();
    assert_eq!(a.variant.active_range_pct(), 75.0);
    let s = &a.sequences[0];
    assert_eq!((s.cells.len(), s.figure), (9, Figure::MeanLatency));
    check_window(s);
    assert!(s
        .cells
        .iter()
        .all(|c| (c.stimulus.threads, c.stimulus.qd) == (1, 1)));

    let tp = run(
        "sim:default,capacity=2GiB",
        "pts-throughput",
        scaled(PtsVariant::Enterprise),
    );
    let a = tp.pts().unwrap();
    let sizes: Vec<u32> = a
        .sequences
        .iter()
        .map(|s| s.cells[0].stimulus.block_bytes)
        .collect();
    assert_eq!(sizes, [128 << 10, 1 << 20]);
    for s in &a.sequences {
        check_window(s);
        assert_eq!(s.figure, Figure::Mbps);
        assert!(
            s.cells[1].mbps > s.cells[0].mbps,
            "sequential reads beat writes"
        );
    }
    // Each block size starts from a purged, preconditioned drive.
    let phases: Vec<&str> = tp.preconditioning.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(phases, ["purge", "wipc", "purge", "wipc"]);
}

#[test]
fn pts_flags_are_checked() {
    let refused = |test: &str, o: Overrides| {
        let mut dev =
            suite::target::open("sim:default,capacity=2GiB", &Default::default()).unwrap();
        let stop = AtomicBool::new(false);
        let mut silent = Silent;
        let mut ctx = Context::new(&stop, &mut silent);
        suite::methodology::run(test.parse().unwrap(), dev.as_mut(), &mut ctx, &o)
            .unwrap_err()
            .to_string()
    };
    let e = refused(
        "pts-iops",
        Overrides {
            block_bytes: Some(8192),
            ..Overrides::default()
        },
    );
    assert!(e.contains("--bs") && e.contains("--pts-scale"), "{e}");
    let e = refused("consistency", scaled(PtsVariant::Client));
    assert!(e.contains("pts-iops"), "{e}");
    let e = refused(
        "pts-latency",
        Overrides {
            pts_scale: Some(2.0),
            ..Overrides::default()
        },
    );
    assert!(e.contains("--pts-scale 2"), "{e}");
    // Rounds of nanoseconds would "reach" a steady state that means nothing.
    let e = refused(
        "pts-iops",
        Overrides {
            pts_scale: Some(1e-9),
            ..Overrides::default()
        },
    );
    assert!(e.contains("from 0.001 (rounds of 0.06 s"), "{e}");
}

#[test]
fn pts_hir_bursts_after_idle_and_returns_to_baseline() {
    let r = run(
        "sim:default,capacity=2GiB",
        "pts-hir",
        scaled(PtsVariant::Enterprise),
    );
    assert!(r.complete, "{:?}", r.deviations);
    let a = r.recovery().expect("recovery figures");
    let baseline = a.baseline_iops.expect("the steady state it starts from");
    assert_eq!(a.segments.len(), 10);
    let idles: Vec<Option<f64>> = a.segments.iter().map(|s| s.idle_s).collect();
    assert_eq!(idles[0], Some(5.0));
    assert_eq!(idles[8], Some(50.0));
    assert!(idles.iter().skip(1).step_by(2).all(Option::is_none));
    for s in a.segments.iter().step_by(2) {
        // 360 bursts at --pts-scale 0.05; each starts a burst and an idle time after the last.
        assert_eq!(s.points.len(), 18, "{}", s.label);
        let gap = s.points[1].t_s - s.points[0].t_s;
        // A burst ends when its last IOs complete, a little after its 5 s.
        let idle = s.idle_s.unwrap();
        assert!(gap >= 5.0 + idle && gap < 6.0 + idle, "{}: {gap}", s.label);
    }
    let seconds: Vec<u64> = r.per_second.iter().map(|p| p.t).collect();
    assert!(seconds.windows(2).all(|w| w[0] < w[1]), "one clock");
    eprintln!(
        "baseline {baseline:.0}, segments {:?}",
        a.segments
            .iter()
            .map(|s| s.iops.round())
            .collect::<Vec<_>>()
    );
}

#[test]
fn pts_xsr_changes_stimulus_and_settles() {
    let r = run(
        "sim:default,capacity=2GiB",
        "pts-xsr",
        scaled(PtsVariant::Enterprise),
    );
    assert!(r.complete, "{:?}", r.deviations);
    let a = r.recovery().expect("recovery figures");
    let labels: Vec<&str> = a.segments.iter().map(|s| s.label.as_str()).collect();
    assert_eq!(
        labels,
        ["SEQ 1024KiB 0/100", "RND 8KiB 0/100", "SEQ 1024KiB 0/100"]
    );
    for s in &a.segments {
        // An hour at --pts-scale 0.05, in 5 s points (and the seconds its last IOs took).
        assert!((36..=37).contains(&s.points.len()), "{}", s.label);
        assert!(s.settled_s.is_some());
    }
    assert!(a.segments[0].mbps > a.segments[1].mbps);
    eprintln!(
        "segments {:?} settled {:?}",
        a.segments
            .iter()
            .map(|s| s.mbps.round())
            .collect::<Vec<_>>(),
        a.segments.iter().map(|s| s.settled_s).collect::<Vec<_>>()
    );
}

#[test]
fn pts_dirth_and_the_composite_sweep_the_load() {
    let o = Overrides {
        block_bytes: Some(8192),
        read_pct: Some(65),
        pts_scale: Some(0.02),
        ..Overrides::default()
    };
    let r = run("sim:default,capacity=2GiB", "pts-dirth", o);
    assert!(r.complete, "{:?}", r.deviations);
    let s = &r.pts().unwrap().sequences[0];
    check_window(s);
    assert_eq!(s.cells.len(), 49);
    let at = |threads, qd| {
        let c = s
            .cells
            .iter()
            .find(|c| (c.stimulus.threads, c.stimulus.qd) == (threads, qd));
        c.expect("every load")
    };
    assert_eq!(at(32, 32).stimulus.label(), "RND 8KiB 65/35");
    assert_eq!(s.tracking_cell(), at(32, 32));
    // The histograms of the highest, middle and lowest IOPS points hold their windows' IOs.
    let plotted: Vec<&suite::pts::Cell> =
        s.cells.iter().filter(|c| c.histogram.is_some()).collect();
    assert_eq!(plotted.len(), 3);
    for c in plotted {
        let ios: u64 = c.histogram.as_ref().unwrap().iter().map(|b| b.ios).sum();
        let window_ios = c.iops * 5.0 * r.pts().unwrap().round_s;
        // Rounds end when their last IOs complete, so a busy point runs (and counts) more
        // than its rounds' seconds.
        let share = ios as f64 / window_ios;
        assert!((0.99..2.0).contains(&share), "{ios} vs {window_ios}");
    }
    // In GC steady state the drive's IOPS hardly depends on the load: 1024 IOs in flight
    // wait in line where one does not.
    assert!(at(32, 32).latency.mean_us > 100.0 * at(1, 1).latency.mean_us);

    let r = run(
        "sim:default,capacity=2GiB",
        "pts-cbw",
        scaled(PtsVariant::Enterprise),
    );
    assert!(r.complete, "{:?}", r.deviations);
    let s = &r.pts().unwrap().sequences[0];
    check_window(s);
    assert_eq!(s.cells.len(), 49);
    assert_eq!(s.cells[0].stimulus.label(), "RND composite 40/60");
    // Its reads and writes are the mix's sizes: more bytes per IO than 4 KiB on average.
    let c = &s.cells[0];
    assert!(
        c.mbps * 1e6 / c.iops > 4096.0,
        "{} bytes per IO",
        c.mbps * 1e6 / c.iops
    );
}

/// The simulated drive as one of 4096-byte sectors would be seen: a block size it does not
/// divide is refused by the workload's check; every IO and erase it is asked for is counted.
struct FourKSectors {
    sim: Box<dyn engine::Device>,
    asked: usize,
}

impl engine::Device for FourKSectors {
    fn identity(&self) -> engine::Identity {
        self.sim.identity()
    }
    fn geometry(&self) -> engine::Geometry {
        engine::Geometry {
            logical_block_bytes: 4096,
            ..self.sim.geometry()
        }
    }
    fn clock(&self) -> engine::Clock {
        self.sim.clock()
    }
    fn now_ns(&self) -> u64 {
        self.sim.now_ns()
    }
    fn prepare(&mut self, slots: u32, max_len: usize) -> Result<(), engine::DeviceError> {
        self.sim.prepare(slots, max_len)
    }
    fn buffer(&mut self, slot: u32) -> Option<&mut [u8]> {
        self.sim.buffer(slot)
    }
    fn submit(&mut self, io: engine::Io) -> Result<(), engine::DeviceError> {
        self.asked += 1;
        self.sim.submit(io)
    }
    fn reap(
        &mut self,
        min: u32,
        until_ns: Option<u64>,
        done: &mut Vec<engine::Completion>,
    ) -> Result<(), engine::DeviceError> {
        self.sim.reap(min, until_ns, done)
    }
    fn erase(
        &mut self,
        method: engine::drive::PurgeMethod,
        progress: &mut dyn FnMut(f64),
    ) -> Result<Option<String>, engine::DeviceError> {
        self.asked += 1;
        self.sim.erase(method, progress)
    }
}

/// A stimulus the target cannot take (the 0.5 KiB cells on 4096-byte sectors) is refused
/// before the purge, naming it: found at its round, it cost the purge, the preconditioning
/// and the rounds before, and saved nothing.
#[test]
fn pts_stimuli_the_target_cannot_take_are_refused_before_the_purge() {
    for (test, refused) in [
        ("pts-iops", "RND 0.5KiB 100/0"),
        ("pts-latency", "RND 0.5KiB 100/0"),
        ("pts-cbw", "RND composite 40/60"),
    ] {
        let sim = suite::target::open("sim:default,capacity=2GiB", &Default::default()).unwrap();
        let mut dev = FourKSectors { sim, asked: 0 };
        let stop = AtomicBool::new(false);
        let mut silent = Silent;
        let mut ctx = Context::new(&stop, &mut silent);
        let e = suite::methodology::run(
            test.parse().unwrap(),
            &mut dev,
            &mut ctx,
            &scaled(PtsVariant::Enterprise),
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains(test) && e.contains(refused), "{test}: {e}");
        assert!(e.contains("4096-byte logical block"), "{test}: {e}");
        assert_eq!(dev.asked, 0, "{test}: IO or an erase before the refusal");
    }
}
