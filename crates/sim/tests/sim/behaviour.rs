//! What the simulated drive must show: the consistency cliff, spare area and TRIM helping,
//! the SLC cache filling and draining, data-mode reads, determinism, and never stalling.

use crate::common::*;
use engine::{Completion, Device, Io, Op};

const SMALL: &str = "default,capacity=1GiB,pages_per_block=64,gc_style=paced";

/// Fill, then `secs` virtual seconds of random 4 KiB writes at QD32 over the whole span.
fn consistency(spec: &str, secs: u64) -> RunStats {
    let mut dev = sim::open(spec).unwrap();
    let cap = dev.geometry().capacity_bytes;
    fill(&mut dev, cap, 128 << 10);
    random_4k(
        &mut dev,
        Op::Write,
        cap,
        32,
        None,
        Some(secs * 1_000_000_000),
        11,
    )
}

#[test]
fn consistency_shows_a_cliff_and_more_op_means_more_steady_state_iops() {
    let base = consistency(SMALL, 300);
    let op25 = consistency(&format!("{SMALL},op=25%"), 300);
    let first = base.per_second[0] as f64;
    let steady = base.mean_iops_from(150);
    let steady25 = op25.mean_iops_from(150);
    println!(
        "default op: first second {first} IOPS, steady {steady:.0}; op=25%: steady {steady25:.0}"
    );
    assert!(
        first > 3.0 * steady,
        "no cliff: first second {first}, steady {steady}"
    );
    // The drop happens after the spare area is used, not at once.
    let drop_at = base
        .per_second
        .iter()
        .position(|&n| (n as f64) < 2.0 * steady)
        .unwrap();
    assert!(drop_at >= 1, "dropped in the first second");
    assert!(
        steady25 > 1.5 * steady,
        "op=25% steady {steady25} vs default {steady}"
    );
}

#[test]
fn trim_of_half_the_drive_restores_spare_area() {
    let mut dev = sim::open(SMALL).unwrap();
    let cap = dev.geometry().capacity_bytes;
    fill(&mut dev, cap, 128 << 10);
    let half = cap / 2;
    let secs = 120 * 1_000_000_000;
    let measure = |dev: &mut sim::SimSsd, seed| {
        let h0 = counters(dev).host_write_pages as f64;
        let n0 = counters(dev).nand_write_pages as f64;
        let st = random_4k(dev, Op::Write, half, 32, None, Some(secs), seed);
        let wa = (counters(dev).nand_write_pages as f64 - n0)
            / (counters(dev).host_write_pages as f64 - h0);
        (st.mean_iops_from(60), wa)
    };
    measure(&mut dev, 1); // reach steady state on the first half
    let (before, wa_before) = measure(&mut dev, 2);
    let st = closed_loop(&mut dev, 1, None, {
        let mut at = half;
        move || {
            (at < cap).then(|| {
                let o = at;
                at += 1 << 30;
                (Op::Discard, o, ((cap - o).min(1 << 30)) as u32)
            })
        }
    });
    assert_eq!(st.errors, 0);
    assert_eq!(counters(&dev).trimmed_pages, half / 4096);
    measure(&mut dev, 3);
    let (after, wa_after) = measure(&mut dev, 4);
    println!(
        "before TRIM {before:.0} IOPS WA {wa_before:.2}; after {after:.0} IOPS WA {wa_after:.2}"
    );
    assert!(
        after > 1.3 * before,
        "TRIM did not help: {before} -> {after}"
    );
    assert!(wa_after < 0.8 * wa_before, "WA {wa_before} -> {wa_after}");
}

fn io(dev: &mut sim::SimSsd, op: Op, offset: u64, len: u32) -> Completion {
    dev.submit(Io {
        slot: 0,
        op,
        offset,
        len,
    })
    .unwrap();
    let mut done = Vec::new();
    dev.reap(1, None, &mut done).unwrap();
    assert_eq!(done.len(), 1);
    done[0]
}

#[test]
fn data_mode_reads_zeros_when_unmapped_or_trimmed_and_a_stamp_when_mapped() {
    let mut dev = sim::open("default,capacity=64MiB,op=25%,pages_per_block=8,data=stamp").unwrap();
    dev.prepare(1, 1 << 20).unwrap();
    // Never written: zeros.
    assert_eq!(io(&mut dev, Op::Read, 0, 65536).result, 65536);
    assert!(dev.buffer(0).unwrap()[..65536].iter().all(|&b| b == 0));
    // Written: every byte of each 4 KiB unit carries that unit's stamp.
    assert_eq!(io(&mut dev, Op::Write, 0, 65536).result, 65536);
    io(&mut dev, Op::Read, 0, 65536);
    let buf = dev.buffer(0).unwrap()[..65536].to_vec();
    for unit in 0..16u64 {
        let word = sim::lba_stamp(unit).to_le_bytes();
        let chunk = &buf[unit as usize * 4096..(unit as usize + 1) * 4096];
        assert!(chunk.chunks(8).all(|w| w == word), "unit {unit}");
        assert!(chunk.iter().any(|&b| b != 0));
    }
    // Trim 6 KiB .. 58 KiB: units 2..=13 go; units 1 and 14 are only partly covered and stay.
    assert_eq!(io(&mut dev, Op::Discard, 6144, 53248).result, 0);
    io(&mut dev, Op::Read, 0, 65536);
    let buf = dev.buffer(0).unwrap()[..65536].to_vec();
    for unit in 0..16usize {
        let chunk = &buf[unit * 4096..(unit + 1) * 4096];
        let zero = chunk.iter().all(|&b| b == 0);
        assert_eq!(zero, (2..14).contains(&unit), "unit {unit}");
    }
    assert_eq!(counters(&dev).trimmed_pages, 12);
    // A 512-byte read inside a mapped unit gets the right part of the stamp.
    io(&mut dev, Op::Read, 4096 + 512, 512);
    let word = sim::lba_stamp(1).to_le_bytes();
    assert!(dev.buffer(0).unwrap()[..512].chunks(8).all(|w| w == word));
}

#[test]
fn buffers_are_none_without_data_mode() {
    let mut dev = sim::open("default,capacity=64MiB,op=25%,pages_per_block=8").unwrap();
    dev.prepare(4, 4096).unwrap();
    assert!(dev.buffer(0).is_none());
}

#[test]
fn same_spec_gives_identical_results() {
    let run = || {
        let mut dev =
            sim::open("default,capacity=256MiB,pages_per_block=16,slc_cache=32MiB").unwrap();
        let cap = dev.geometry().capacity_bytes;
        fill(&mut dev, cap, 128 << 10);
        let st = random_4k(&mut dev, Op::Write, cap, 32, Some(200_000), None, 5);
        let mut done = Vec::new();
        dev.reap(0, Some(dev.now_ns() + 5_000_000_000), &mut done)
            .unwrap();
        let rd = random_4k(&mut dev, Op::Read, cap, 8, Some(50_000), None, 6);
        (st.per_second, rd.end_ns, dev.counters().unwrap())
    };
    let (a, b) = (run(), run());
    assert_eq!(a, b);
    assert!(a.2.sim().unwrap().gc_invocations > 0);
}

#[test]
fn a_full_drive_rewritten_50_times_never_stalls() {
    // Every victim policy with paced GC, and the other styles with greedy: the longest gap
    // between completions is bounded (a bursty style's bursts are long by design).
    for (gc, style, bound_ns) in [
        ("greedy", "paced", 200_000_000),
        ("fifo", "paced", 200_000_000),
        ("cost-benefit", "paced", 200_000_000),
        ("greedy", "latency-first", 200_000_000),
        ("greedy", "bursty", 2_000_000_000),
    ] {
        let spec = format!(
            "default,capacity=128MiB,op=7%,pages_per_block=8,gc={gc},gc_style={style},slc_cache=8MiB"
        );
        let mut dev = sim::open(&spec).unwrap();
        let cap = dev.geometry().capacity_bytes;
        fill(&mut dev, cap, 128 << 10);
        let passes = 50;
        let mut last = dev.now_ns();
        let mut max_gap = 0u64;
        let mut rng = Rng::new(3);
        let units = cap / 4096;
        dev.prepare(32, 128 << 10).unwrap();
        let mut done = Vec::new();
        let mut free: Vec<u32> = (0..32).collect();
        let total = units * passes;
        let mut issued = 0u64;
        let mut completed = 0u64;
        while completed < total {
            while issued < total {
                let Some(slot) = free.pop() else { break };
                // Every 1000th IO is a flush, every 997th a small discard: the awkward mix.
                let (op, offset, len) = if issued % 1000 == 999 {
                    (Op::Flush, 0, 0)
                } else if issued % 997 == 996 {
                    (Op::Discard, rng.below(units - 4) * 4096, 16384)
                } else {
                    (Op::Write, rng.below(units) * 4096, 4096)
                };
                dev.submit(Io {
                    slot,
                    op,
                    offset,
                    len,
                })
                .unwrap();
                issued += 1;
            }
            done.clear();
            dev.reap(1, None, &mut done).unwrap();
            assert!(!done.is_empty());
            for c in &done {
                assert!(c.result >= 0, "{gc}: IO failed with {}", c.result);
                // While the queue is kept full (the final drain waits for flushes).
                if issued < total {
                    max_gap = max_gap.max(c.complete_ns - last);
                }
                last = c.complete_ns;
                free.push(c.slot);
                completed += 1;
            }
        }
        let hours = dev.now_ns() as f64 / 3.6e12;
        println!("{gc} {style}: {passes} drive writes in {hours:.2} virtual hours, longest gap {max_gap} ns, WA {:.2}", counters(&dev).write_amplification.unwrap());
        assert!(max_gap < bound_ns, "{gc} {style}: stalled for {max_gap} ns");
        assert!(hours > 0.1, "{gc}: only {hours} virtual hours");
        assert!(counters(&dev).free_blocks > 0);
        assert_eq!(counters(&dev).failed_ios, 0);
    }
}

#[test]
fn slc_cache_is_fast_until_full_then_main_array_speed_and_idle_time_drains_it() {
    let mut dev = sim::open("default,capacity=2GiB,slc_cache=256MiB").unwrap();
    let chunk = 128u64 << 10;
    let write_mib = |dev: &mut sim::SimSsd, from: u64, mib: u64| {
        let mut at = from;
        let end = from + (mib << 20);
        closed_loop(dev, 32, None, move || {
            (at < end).then(|| {
                let o = at;
                at += chunk;
                (Op::Write, o, chunk as u32)
            })
        })
        .mbps()
    };
    let cached = write_mib(&mut dev, 0, 192);
    let hits = counters(&dev).slc_cache_hits as f64;
    let _ = write_mib(&mut dev, 192 << 20, 128); // fills the rest of the cache
    let main = write_mib(&mut dev, 320 << 20, 256);
    println!("in cache {cached:.0} MB/s, cache full {main:.0} MB/s");
    assert_eq!(
        hits,
        (192 << 20) as f64 / 4096.0,
        "every write landed in the cache"
    );
    assert!(counters(&dev).slc_cache_bypassed > 0);
    assert!(cached > 2.5 * main, "cache {cached} vs main {main}");
    // Idle: the cache migrates to the main array and takes writes at full speed again.
    let mut done = Vec::new();
    dev.reap(0, Some(dev.now_ns() + 60_000_000_000), &mut done)
        .unwrap();
    assert!(done.is_empty());
    let migrated = counters(&dev).slc_migrations as f64;
    assert!(
        migrated > 0.9 * (256u64 << 20) as f64 / 4096.0,
        "migrated {migrated}"
    );
    let again = write_mib(&mut dev, 576 << 20, 128);
    println!("after idle {again:.0} MB/s");
    assert!(again > 2.5 * main);
    // Migrated data still reads back as written (mapping intact).
    let wa = counters(&dev).write_amplification.unwrap();
    assert!(wa > 1.2, "migration must show in WA: {wa}");
}

#[test]
fn idle_time_runs_background_gc() {
    let mut dev = sim::open(SMALL).unwrap();
    let cap = dev.geometry().capacity_bytes;
    fill(&mut dev, cap, 128 << 10);
    random_4k(&mut dev, Op::Write, cap, 32, Some(cap / 4096), None, 9);
    let free0 = counters(&dev).free_blocks as f64;
    let bg0 = counters(&dev).gc_background_invocations as f64;
    let mut done = Vec::new();
    dev.reap(0, Some(dev.now_ns() + 30_000_000_000), &mut done)
        .unwrap();
    let free1 = counters(&dev).free_blocks as f64;
    assert!(counters(&dev).gc_background_invocations as f64 > bg0);
    assert!(free1 > free0, "free blocks {free0} -> {free1}");
    // The next write burst starts fast: the idle work is done before the next host IO.
    let st = random_4k(&mut dev, Op::Write, cap, 32, Some(2000), None, 10);
    assert!(
        st.iops() > 10_000.0,
        "burst after idle {:.0} IOPS",
        st.iops()
    );
}

#[test]
fn reap_semantics_on_the_virtual_clock() {
    let mut dev = sim::open("default,capacity=64MiB,op=25%,pages_per_block=8").unwrap();
    dev.prepare(2, 4096).unwrap();
    let mut done = Vec::new();
    // Nothing in flight, no deadline: returns at once, clock unchanged.
    dev.reap(1, None, &mut done).unwrap();
    assert!(done.is_empty());
    assert_eq!(dev.now_ns(), 0);
    // Nothing in flight with a deadline: the time passes.
    dev.reap(1, Some(1_000_000), &mut done).unwrap();
    assert_eq!(dev.now_ns(), 1_000_000);
    // A deadline before the completion: the clock stops at the deadline, nothing returned.
    dev.submit(Io {
        slot: 0,
        op: Op::Read,
        offset: 0,
        len: 4096,
    })
    .unwrap();
    dev.reap(1, Some(1_000_001), &mut done).unwrap();
    assert!(done.is_empty());
    assert_eq!(dev.now_ns(), 1_000_001);
    dev.reap(1, None, &mut done).unwrap();
    assert_eq!(done.len(), 1);
    assert!(done[0].complete_ns > 1_000_001 && done[0].complete_ns == dev.now_ns());
    // Completions come back in time order.
    dev.submit(Io {
        slot: 0,
        op: Op::Write,
        offset: 0,
        len: 1 << 16,
    })
    .unwrap();
    dev.submit(Io {
        slot: 1,
        op: Op::Read,
        offset: 8192,
        len: 512,
    })
    .unwrap();
    done.clear();
    dev.reap(2, None, &mut done).unwrap();
    assert_eq!(done.len(), 2);
    assert!(done[0].complete_ns <= done[1].complete_ns);
}

#[test]
fn bad_ios_fail_with_einval_and_large_ios_work() {
    let mut dev = sim::open("default,capacity=256MiB,op=25%,pages_per_block=32").unwrap();
    let cap = dev.geometry().capacity_bytes;
    dev.prepare(1, 64 << 20).unwrap();
    assert_eq!(io(&mut dev, Op::Read, 100, 4096).result, -22);
    assert_eq!(io(&mut dev, Op::Write, 0, 1000).result, -22);
    assert_eq!(io(&mut dev, Op::Write, cap - 4096, 8192).result, -22);
    assert_eq!(io(&mut dev, Op::Discard, cap, 4096).result, -22);
    assert_eq!(counters(&dev).failed_ios, 4);
    // 512-byte IOs are fine (a partial unit is a read-modify-write once mapped).
    assert_eq!(io(&mut dev, Op::Write, 512, 512).result, 512);
    assert_eq!(io(&mut dev, Op::Write, 1024, 512).result, 512);
    assert_eq!(counters(&dev).read_modify_write_pages, 1);
    // 64 MiB transfers.
    let w = io(&mut dev, Op::Write, 0, 64 << 20);
    assert_eq!(w.result, 64 << 20);
    let before = dev.now_ns();
    let r = io(&mut dev, Op::Read, 0, 64 << 20);
    assert_eq!(r.result, 64 << 20);
    let mbps = (64u64 << 20) as f64 / ((r.complete_ns - before) as f64 / 1e9) / 1e6;
    assert!(
        (300.0..600.0).contains(&mbps),
        "64 MiB read at {mbps:.0} MB/s"
    );
    assert_eq!(io(&mut dev, Op::Flush, 0, 0).result, 0);
}

#[test]
fn spare_factor_agrees_with_over_provisioning() {
    let c = counters(&sim::open("default").unwrap());
    let op = c.op_physical_over_logical_minus_one;
    assert!((c.spare_factor - op / (1.0 + op)).abs() < 1e-12);
    assert!((0.07..0.075).contains(&op), "{op}");
}

#[test]
fn flush_pads_partial_pages_and_waits_for_the_buffer() {
    let mut dev = sim::open("default,capacity=64MiB,op=25%,pages_per_block=8").unwrap();
    dev.prepare(1, 4096).unwrap();
    io(&mut dev, Op::Write, 0, 4096);
    let f = io(&mut dev, Op::Flush, 0, 0);
    // One 4 KiB unit in a 2-plane x 16 KiB stripe: 7 units of padding, and the flush
    // completes only after the first page's program (an LSB page: 650 us of the default's
    // 650us/1950us).
    assert_eq!(counters(&dev).padded_pages, 7);
    assert_eq!(counters(&dev).nand_write_pages, 8);
    assert!(f.complete_ns >= 650_000, "flush at {}", f.complete_ns);
}

#[test]
fn read_ahead_never_makes_a_read_free() {
    let mut dev = sim::open("default,capacity=64MiB,op=25%,pages_per_block=8").unwrap();
    dev.prepare(1, 1 << 20).unwrap();
    io(&mut dev, Op::Write, 0, 1 << 20);
    io(&mut dev, Op::Read, 0, 128 << 10);
    let mut done = Vec::new();
    dev.reap(0, Some(dev.now_ns() + 1_000_000_000), &mut done)
        .unwrap();
    let before = dev.now_ns();
    let c = io(&mut dev, Op::Read, 128 << 10, 128 << 10);
    // The prefetched data still crosses the link: 128 KiB at 560 MB/s is 234 us.
    assert!(
        c.complete_ns - before >= 234_000,
        "{} ns",
        c.complete_ns - before
    );
}
