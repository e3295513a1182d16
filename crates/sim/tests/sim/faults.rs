//! The verifier against the simulator's injected faults: nothing found on a healthy drive,
//! and every injected fault found, classified by kind, at its LBA. Also: faults never change
//! the drive's timing, and keeping data is refused for a drive too large to keep.

use engine::driver::{self, Hooks};
use engine::pattern::DataKind;
use engine::shape::Shape;
use engine::system::MemoryBudget;
use engine::verify::{Mismatch, MismatchKind, Verification, VerifyOptions, VerifyReport};
use engine::workload::{Access, Limit, Workload};
use engine::Device;
use sim::{FaultKind, InjectedFault};

const DRIVE: &str = "default,capacity=256MiB,op=25%,pages_per_block=8";
const SPAN: u64 = 16 << 20;

fn workload(access: Access, block: u32, qd: u32, ios: u64, seed: u64) -> Workload {
    Workload {
        access,
        block_bytes: block,
        offset_bytes: 0,
        span_bytes: SPAN,
        read_pct: 0,
        op: None,
        data: DataKind::Incompressible,
        qd,
        limit: Limit {
            ios: Some(ios),
            ..Limit::default()
        },
        seed,
        shape: Shape::default(),
        threads: 1,
    }
}

/// A verified run: a sequential 128 KiB pass over the span, then 16 KiB random writes at
/// QD8 (4 units each, so a write can tear), read back every 32 units and once at the end.
fn verified(spec: &str) -> (sim::SimSsd, VerifyReport) {
    let mut dev = sim::open(spec).unwrap();
    let opts = VerifyOptions { backlog_units: 32 };
    let mut v = Verification::new(&mut dev, 0, SPAN, 4096, 9, opts).unwrap();
    for w in [
        workload(Access::Sequential, 128 << 10, 4, SPAN / (128 << 10), 9),
        workload(Access::Random, 16 << 10, 8, 4500, 10),
    ] {
        let hooks = Hooks {
            verify: Some(&mut v),
            ..Hooks::default()
        };
        let out = driver::run(&mut dev, &w, hooks).unwrap();
        assert!(out.stopped.is_none(), "{:?}", out.stopped);
    }
    v.read_back_all(&mut dev, 8, None).unwrap();
    (dev, v.report())
}

fn find(r: &VerifyReport, offset: u64, kind: MismatchKind) -> Option<&Mismatch> {
    r.first
        .iter()
        .find(|m| m.offset == offset && m.kind == kind)
}

#[test]
fn a_healthy_drive_verifies_clean() {
    let (dev, r) = verified(DRIVE);
    assert!(r.ok(), "{}: {:?}", r.headline(), r.first);
    assert!(r.complete && r.final_pass);
    assert_eq!(r.units_written, SPAN / 4096 + 4500 * 4);
    assert!(r.backlog_checks > 100, "{}", r.backlog_checks);
    // The backlogs and the final pass read back everything at least once.
    assert!(r.units_checked >= r.units_written, "{r:?}");
    assert!(dev.injected_faults().is_empty());
}

/// Run with one fault kind injected twice (at the 1000th and 2000th eligible write).
fn with(kind: &str) -> (Vec<InjectedFault>, VerifyReport) {
    let (dev, r) = verified(&format!("{DRIVE},faults={kind}:2"));
    let injected = dev.injected_faults().to_vec();
    assert_eq!(injected.len(), 2, "{injected:?}");
    println!("{}", r.headline());
    for m in &r.first {
        println!("  {m}");
    }
    (injected, r)
}

#[test]
fn lost_writes_are_found_as_stale_at_every_unit() {
    let (injected, r) = with("lost");
    for f in &injected {
        assert_eq!(f.kind, FaultKind::Lost);
        for unit in 0..f.len as u64 / 4096 {
            let m = find(&r, f.offset + unit * 4096, MismatchKind::Stale)
                .unwrap_or_else(|| panic!("{f:?} not found at unit {unit}"));
            assert!(m.found_generation.unwrap() < m.expected_generation, "{m}");
            assert!(m.to_string().contains("lost write"), "{m}");
        }
    }
    assert_eq!(r.mismatches, 8, "2 writes of 4 units, nothing else");
    assert_eq!(r.by_kind.stale, 8);
}

#[test]
fn bit_flips_are_found_as_corrupt_at_their_unit() {
    let (injected, r) = with("flip");
    for f in &injected {
        let byte = f.flipped_byte.unwrap();
        assert!((f.offset..f.offset + f.len as u64).contains(&byte));
        let m = find(&r, byte / 4096 * 4096, MismatchKind::Corrupt)
            .unwrap_or_else(|| panic!("{f:?} not found"));
        assert_eq!(m.lba, byte / 4096 * 8, "LBAs are 512-byte sectors");
    }
    assert_eq!(r.mismatches, 2);
    assert_eq!(r.by_kind.corrupt, 2);
}

#[test]
fn misdirected_writes_are_found_where_they_landed_naming_their_lba() {
    let (injected, r) = with("misdirect");
    for f in &injected {
        let at = f.landed_at.unwrap();
        for unit in 0..f.len as u64 / 4096 {
            let m = find(&r, at + unit * 4096, MismatchKind::Misdirected)
                .unwrap_or_else(|| panic!("{f:?} not found at unit {unit}"));
            assert_eq!(m.found_lba, Some((f.offset + unit * 4096) / 512), "{m}");
            // The target kept its old data: a lost write there.
            assert!(find(&r, f.offset + unit * 4096, MismatchKind::Stale).is_some());
        }
    }
    assert_eq!(r.by_kind.misdirected, 8);
    assert_eq!(r.by_kind.stale, 8);
    assert_eq!(r.mismatches, 16);
}

#[test]
fn torn_writes_are_found_as_torn_past_the_cut() {
    let (injected, r) = with("torn");
    let mut missing = 0;
    for f in &injected {
        let landed = f.landed_bytes.unwrap() as u64;
        assert!(landed > 0 && landed < f.len as u64 && landed.is_multiple_of(4096));
        for at in (f.offset + landed..f.offset + f.len as u64).step_by(4096) {
            let m = find(&r, at, MismatchKind::Torn).unwrap_or_else(|| panic!("{f:?} at {at}"));
            assert!(m.to_string().contains("torn write"), "{m}");
            missing += 1;
        }
        // What landed is intact.
        assert!(r
            .first
            .iter()
            .all(|m| m.offset >= f.offset + landed || m.offset < f.offset));
    }
    assert_eq!(r.mismatches, missing);
    assert_eq!(r.by_kind.torn, missing);
}

#[test]
fn faults_never_change_the_drives_timing() {
    let run = |spec: &str| {
        let mut dev = sim::open(spec).unwrap();
        let w = workload(Access::Random, 16 << 10, 8, 20_000, 3);
        let out = driver::run(&mut dev, &w, Hooks::default()).unwrap();
        (out.measurements.per_second, dev.now_ns())
    };
    let plain = run(DRIVE);
    assert_eq!(
        plain,
        run(&format!(
            "{DRIVE},faults=lost:1/50+flip:1/50+misdirect:1/50+torn:1/50"
        ))
    );
    assert_eq!(plain, run(&format!("{DRIVE},data=on")));
}

#[test]
fn keeping_data_is_refused_for_a_drive_too_large_to_keep() {
    let cfg = sim::resolve("default,capacity=64GiB,faults=lost:1").unwrap();
    let e = sim::check_data_memory(&cfg, MemoryBudget::machine(24 << 30))
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("64 GiB") && e.contains("capacity=12G fits"),
        "{e}"
    );
    assert!(sim::check_data_memory(&cfg, MemoryBudget::machine(200 << 30)).is_ok());
}
