//! The FTL's invariants (the map and its reverse, the free pools, every block's valid count)
//! hold after every step of a mixed workload, on drives whose mechanisms move data in
//! different ways: a static and a dynamic SLC cache folding, 8 KiB mapping units written
//! in part, deferred TRIM, greedy and paced GC, idle-time cleaning and a secure erase.

use crate::common::*;
use engine::{Device, Op};

/// Small drives, so GC and folding run within a few passes.
const DRIVES: &[&str] = &[
    "default,capacity=256MiB,pages_per_block=16",
    "default,capacity=256MiB,pages_per_block=16,gc_style=paced,op=25%",
    "840-evo-250,capacity=512MiB,slc_cache=64MiB,pages_per_block=16,dies=2",
    "default,capacity=256MiB,pages_per_block=16,slc_cache=32MiB,slc_region=dynamic",
    "default,capacity=256MiB,pages_per_block=16,map_unit=8KiB",
    "default,capacity=256MiB,pages_per_block=16,trim=deferred",
];

/// One step: `n` IOs of random writes of 0.5-64 KiB, some TRIMs and flushes, at QD8.
fn step(dev: &mut sim::SimSsd, rng: &mut Rng, n: u32) {
    let cap = dev.geometry().capacity_bytes;
    let mut left = n;
    closed_loop(dev, 8, None, || {
        left = left.checked_sub(1)?;
        let len = 512 * (1 + rng.below(128)) as u32;
        let offset = rng.below((cap - len as u64) / 512) * 512;
        Some(match rng.below(20) {
            0 => (Op::Flush, 0, 0),
            1 | 2 => (Op::Discard, rng.below((cap >> 20) - 1) << 20, 1 << 20),
            _ => (Op::Write, offset, len),
        })
    });
}

#[test]
fn the_ftls_invariants_hold_after_every_step() {
    for spec in DRIVES {
        let mut dev = sim::open(spec).unwrap_or_else(|e| panic!("{spec}: {e}"));
        let mut rng = Rng::new(7);
        let cap = dev.geometry().capacity_bytes;
        dev.assert_invariants();
        fill(&mut dev, cap, 128 << 10);
        dev.assert_invariants();
        for round in 0..6 {
            step(&mut dev, &mut rng, 20_000);
            dev.assert_invariants();
            // Idle: deferred TRIM, folding and background cleaning run.
            let until = dev.now_ns() + 2_000_000_000;
            dev.reap(0, Some(until), &mut Vec::new()).unwrap();
            dev.assert_invariants();
            if round == 3 {
                closed_loop(&mut dev, 1, None, {
                    let mut once = Some((Op::Discard, 0, (cap.min(1 << 30)) as u32));
                    move || once.take()
                });
                dev.assert_invariants();
            }
        }
        let counters = counters(&dev);
        assert!(counters.erases_total > 0, "{spec}: GC never ran");
    }
}
