//! Open-loop replay on a real file: every scheduled IO is issued once, in order, never before
//! its time, and accounted.

use engine::driver::Hooks;
use engine::iolog::{self, IoLogWriter};
use engine::pattern::DataKind;
use engine::replay::{replay, Pace, ReplayOptions, ScheduledIo};
use engine::target::{open_real, Backend, OpenRequest, TargetSpec};
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
    let spec = TargetSpec::File {
        path: dir.path().join("t.img"),
        size: Some(32 << 20),
    };
    let req = OpenRequest {
        write: true,
        backend: Backend::Auto,
        destroy_data: None,
    };
    let mut dev = open_real(&spec, &req).unwrap();
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
    // Never early: each IO's submission is at or after its scheduled time.
    let mut by_submit = recs.clone();
    by_submit.sort_by_key(|r| r.submit_ns);
    for (rec, s) in by_submit.iter().zip(&sched) {
        assert_eq!((rec.offset, rec.len, rec.op), (s.offset, s.len, s.op));
        assert!(
            rec.submit_ns >= s.at_ns,
            "issued {} before {}",
            rec.submit_ns,
            s.at_ns
        );
    }
    assert!(r.fidelity.actual_s >= r.fidelity.scheduled_s);
    assert_eq!(r.fidelity.scheduled_s, 399.0 * 0.0005);
}

#[test]
fn afap_replay_keeps_order_and_the_in_flight_limit() {
    let dir = tempfile::tempdir().unwrap();
    let spec = TargetSpec::File {
        path: dir.path().join("t.img"),
        size: Some(32 << 20),
    };
    let req = OpenRequest {
        write: true,
        backend: Backend::Auto,
        destroy_data: None,
    };
    let mut dev = open_real(&spec, &req).unwrap();
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
