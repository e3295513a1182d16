//! Open-loop replay on a real file: every scheduled IO is issued once, in order, never before
//! its time, and accounted.

use engine::driver::Hooks;
use engine::iolog::{self, IoLogWriter};
use engine::pattern::DataKind;
use engine::replay::{replay, Pace, ReplayOptions, ScheduledIo};
use engine::target::{Backend, OpenRequest, Registry};
use engine::Op;

fn schedule(n: u64, gap_ns: u64) -> Vec<ScheduledIo> {
    (0..n)
        .map(|i| ScheduledIo {
            at_ns: i * gap_ns,
            op: if i % 3 == 0 { Op::Write } else { Op::Read },
            offset: (i * 7919 % 4096) * 4096,
            len: 4096 * (1 + (i % 4) as u32),
        })
        .collect()
}

fn options(pace: Pace) -> ReplayOptions {
    ReplayOptions {
        pace,
        max_in_flight: 16,
        max_len: 16384,
        data: DataKind::Incompressible,
        seed: 1,
        spin_ns: 20_000,
        expected_ios: None,
    }
}

#[test]
fn timed_replay_issues_every_io_on_or_after_its_time() {
    let dir = tempfile::tempdir().unwrap();
    let spec = format!("file:{}:{}", dir.path().join("t.img").display(), 32 << 20);
    let req = OpenRequest {
        write: true,
        backend: Backend::Auto,
        destroy_data: None,
        ..OpenRequest::default()
    };
    let mut dev = Registry::real().open(&spec, &req).unwrap();
    let sched = schedule(400, 500_000);
    let log_path = dir.path().join("io.log");
    let mut log = IoLogWriter::create(&log_path).unwrap();
    let r = replay(
        dev.as_mut(),
        sched.clone(),
        &options(Pace::Timed),
        Hooks {
            iolog: Some(&mut log),
            ..Hooks::default()
        },
    )
    .unwrap();
    log.finish().unwrap();
    let m = &r.outcome.measurements;
    assert_eq!(r.outcome.stopped, None);
    assert_eq!(m.summary.ios, 400);
    let bytes: u64 = sched
        .iter()
        .filter(|s| s.op != Op::Flush)
        .map(|s| s.len as u64)
        .sum();
    assert_eq!(m.summary.bytes, bytes);
    let recs: Vec<_> = iolog::read(&log_path)
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert_eq!(recs.len(), 400);
    // Never early, and in order: each IO's submission is at or after its scheduled time and
    // not before the IO scheduled ahead of it (IOs due together share a submission).
    let submitted = |s: &ScheduledIo| {
        let rec = recs
            .iter()
            .find(|r| r.offset == s.offset)
            .expect("every IO logged");
        assert_eq!((rec.len, rec.op), (s.len, s.op));
        rec.submit_ns
    };
    let mut previous = 0;
    for s in &sched {
        let at = submitted(s);
        assert!(at >= s.at_ns, "issued {at} before {}", s.at_ns);
        assert!(at >= previous, "issued out of order");
        previous = at;
    }
    assert!(r.fidelity.actual_s >= r.fidelity.scheduled_s);
    assert_eq!(r.fidelity.scheduled_s, 399.0 * 0.0005);
}

#[test]
fn afap_replay_keeps_order_and_the_in_flight_limit() {
    let dir = tempfile::tempdir().unwrap();
    let spec = format!("file:{}:{}", dir.path().join("t.img").display(), 32 << 20);
    let req = OpenRequest {
        write: true,
        backend: Backend::Auto,
        destroy_data: None,
        ..OpenRequest::default()
    };
    let mut dev = Registry::real().open(&spec, &req).unwrap();
    let r = replay(
        dev.as_mut(),
        schedule(3000, 1_000_000_000),
        &options(Pace::Afap),
        Hooks::default(),
    )
    .unwrap();
    let s = &r.outcome.measurements.summary;
    assert_eq!(s.ios, 3000);
    assert!(s.max_in_flight <= 16);
    // As fast as possible: far quicker than the 3000 s schedule.
    assert!(r.fidelity.actual_s < 300.0);
}

/// A device that notes how IOs reach it, around a real one.
struct Batches<D> {
    inner: D,
    sizes: Vec<usize>,
}

impl<D: engine::Device> engine::Device for Batches<D> {
    fn identity(&self) -> engine::Identity {
        self.inner.identity()
    }
    fn geometry(&self) -> engine::Geometry {
        self.inner.geometry()
    }
    fn clock(&self) -> engine::Clock {
        self.inner.clock()
    }
    fn now_ns(&self) -> u64 {
        self.inner.now_ns()
    }
    fn prepare(&mut self, slots: u32, max_len: usize) -> Result<(), engine::DeviceError> {
        self.inner.prepare(slots, max_len)
    }
    fn buffer(&mut self, slot: u32) -> Option<&mut [u8]> {
        self.inner.buffer(slot)
    }
    fn submit(&mut self, io: engine::Io) -> Result<(), engine::DeviceError> {
        self.sizes.push(1);
        self.inner.submit(io)
    }
    fn submit_all(&mut self, ios: &[engine::Io]) -> Result<(), engine::DeviceError> {
        self.sizes.push(ios.len());
        self.inner.submit_all(ios)
    }
    fn reap(
        &mut self,
        min: u32,
        until_ns: Option<u64>,
        done: &mut Vec<engine::Completion>,
    ) -> Result<(), engine::DeviceError> {
        self.inner.reap(min, until_ns, done)
    }
}

#[test]
fn ios_due_together_are_submitted_together() {
    let dir = tempfile::tempdir().unwrap();
    let spec = format!("file:{}:{}", dir.path().join("t.img").display(), 32 << 20);
    let req = OpenRequest {
        write: false,
        backend: Backend::Auto,
        destroy_data: None,
        ..OpenRequest::default()
    };
    let mut dev = Batches {
        inner: Registry::real().open(&spec, &req).unwrap(),
        sizes: Vec::new(),
    };
    // 50 bursts of 8 reads, 1 ms apart: a trace recorded at queue depth 8.
    let bursts: Vec<ScheduledIo> = (0..400u64)
        .map(|i| ScheduledIo {
            at_ns: i / 8 * 1_000_000,
            op: Op::Read,
            offset: i * 4096,
            len: 4096,
        })
        .collect();
    // Slots enough that a burst never waits for one, however slow the machine.
    let opts = ReplayOptions {
        max_in_flight: 400,
        ..options(Pace::Timed)
    };
    let r = replay(&mut dev, bursts, &opts, Hooks::default()).unwrap();
    assert_eq!(r.outcome.measurements.summary.ios, 400);
    // One submission per burst (or per few, when the thread ran late), never a burst split.
    assert!(dev.sizes.len() <= 50, "{:?}", dev.sizes);
    assert!(dev.sizes.iter().all(|&n| n % 8 == 0), "{:?}", dev.sizes);
}
