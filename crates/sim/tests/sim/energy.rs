//! The energy model: exact accounting, the power states, timing left alone, and background
//! work showing up as power.

use crate::common::counters;
use engine::counters::SimCounters;
use engine::{Completion, Device, Io, Op};
use sim::SimSsd;

const S: u64 = 1_000_000_000;
/// A small drive with a pseudo-SLC cache folded at a paced rate, and power figures that
/// differ, so a term counted in the wrong place shows.
const BASE: &str = "default,capacity=512MiB,pages_per_block=32,op=15%,slc_cache=32MiB,slc_drain_rate=20,\
    p_idle=0.3W,p_dram=0.07W,p_slumber=0.011W,p_active=1.3W,p_ctrl=0.7W,slumber_after=50ms,slumber_exit=7ms";

/// Run `ios` at QD `qd` from `gen`, returning every completion time in submission order.
fn run(
    dev: &mut SimSsd,
    qd: u32,
    ios: u64,
    mut gen: impl FnMut(u64) -> (Op, u64, u32),
) -> Vec<u64> {
    dev.prepare(qd, 128 << 10).unwrap();
    let mut free: Vec<u32> = (0..qd).collect();
    let mut slot_io = vec![0u64; qd as usize];
    let mut times = vec![0u64; ios as usize];
    let (mut issued, mut in_flight) = (0u64, 0u32);
    let mut done: Vec<Completion> = Vec::new();
    loop {
        while issued < ios {
            let Some(slot) = free.pop() else { break };
            let (op, offset, len) = gen(issued);
            dev.submit(Io {
                slot,
                op,
                offset,
                len,
            })
            .unwrap();
            slot_io[slot as usize] = issued;
            issued += 1;
            in_flight += 1;
        }
        if in_flight == 0 {
            return times;
        }
        done.clear();
        dev.reap(1, None, &mut done).unwrap();
        for c in &done {
            assert!(c.result >= 0);
            times[slot_io[c.slot as usize] as usize] = c.complete_ns;
            free.push(c.slot);
            in_flight -= 1;
        }
    }
}

fn idle(dev: &mut SimSsd, ns: u64) {
    let until = dev.now_ns() + ns;
    dev.reap(0, Some(until), &mut Vec::new()).unwrap();
}

fn rng(seed: u64) -> impl FnMut() -> u64 {
    let mut x = seed;
    move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    }
}

/// A mixed workload with gaps: fills, random overwrites (GC), reads, idle time (folding,
/// background GC) and, with link_pm=on, slumber and wake-ups.
fn mixed(dev: &mut SimSsd) -> Vec<u64> {
    let cap = dev.geometry().capacity_bytes;
    let mut r = rng(7);
    let mut times = run(dev, 32, cap / (128 << 10), |i| {
        (Op::Write, i * (128 << 10), 128 << 10)
    });
    for round in 0..4 {
        let n = 40_000 + round * 5_000;
        times.extend(run(dev, 32, n, |_| {
            (Op::Write, (r() % (cap / 4096)) * 4096, 4096)
        }));
        idle(dev, S / 2 + round * S);
        times.extend(run(dev, 4, 2_000, |_| {
            (Op::Read, (r() % (cap / 4096)) * 4096, 4096)
        }));
        idle(dev, 3 * S);
        times.extend(run(dev, 1, 1, |_| (Op::Write, 0, 8192)));
    }
    times
}

fn energy_from_counters(c: &SimCounters, cfg: &sim::Config) -> f64 {
    let (e, t) = (&cfg.energy, &c.energy);
    let n = |v: u64| v as f64;
    n(c.nand_reads_native) * e.native.read_j
        + n(c.nand_programs_native_pages) * e.native.prog_j
        + n(c.nand_erases_native) * e.native.erase_j
        + n(c.nand_reads_slc) * e.pslc.read_j
        + n(c.nand_programs_slc_pages) * e.pslc.prog_j
        + n(c.nand_erases_slc) * e.pslc.erase_j
        + n(t.channel_bytes) * e.channel_j_per_byte
        + n(c.link_bytes) * e.link_j_per_byte
        + n(t.controller_busy_ns) * 1e-9 * e.ctrl_w
        + n(t.active_ns) * 1e-9 * e.active_w
        + n(t.awake_ns) * 1e-9 * (e.idle_w + e.dram_w)
        + n(t.slumber_ns) * 1e-9 * e.slumber_w
}

#[test]
fn total_energy_is_the_sum_of_its_terms_recomputed_from_the_counters() {
    let mut dev = sim::open(&format!("{BASE},link_pm=on")).unwrap();
    mixed(&mut dev);
    let c = counters(&dev);
    let t = &c.energy;
    // The workload reached every term.
    for (k, v) in [
        ("gc_invocations", c.gc_invocations),
        ("gc_background_invocations", c.gc_background_invocations),
        ("slc_migrations", c.slc_migrations),
        ("nand_reads_slc", c.nand_reads_slc),
        ("nand_programs_slc_pages", c.nand_programs_slc_pages),
        ("nand_erases_slc", c.nand_erases_slc),
        ("nand_erases_native", c.nand_erases_native),
        ("slumber_ns", t.slumber_ns),
        ("wakeups", t.wakeups),
        ("slumber_entries", t.slumber_entries),
    ] {
        assert!(v > 0, "{k} is 0: {c:?}");
    }
    // The counts agree with the FTL's own counters, and time is all accounted for.
    assert_eq!(c.nand_reads_native + c.nand_reads_slc, c.nand_read_ops);
    assert_eq!(c.nand_erases_native + c.nand_erases_slc, c.erases_total);
    assert_eq!(t.awake_ns + t.slumber_ns, c.virtual_time_ns);
    assert!(t.active_ns <= t.awake_ns);
    assert!(c.link_bytes >= c.host_write_pages * 4096);
    let total = dev.energy_j().unwrap();
    let recomputed = energy_from_counters(&c, dev.config());
    assert!(
        ((total - recomputed) / total).abs() < 1e-9,
        "energy_j {total} but the counters give {recomputed}"
    );
    let parts = t.energy_nand_j
        + t.energy_transfer_j
        + t.energy_controller_j
        + t.energy_idle_j
        + t.energy_slumber_j;
    assert!(((t.energy_j - parts) / parts).abs() < 1e-12);
    assert!(t.energy_slumber_j > 0.0);
}

/// Mean watts over `ns` of idle time from now.
fn idle_watts(dev: &mut SimSsd, ns: u64) -> f64 {
    let j0 = dev.energy_j().unwrap();
    idle(dev, ns);
    (dev.energy_j().unwrap() - j0) / (ns as f64 * 1e-9)
}

#[test]
fn an_idle_drive_draws_its_floor_a_slumbering_one_less_and_waking_costs_the_exit_latency() {
    let close = |a: f64, b: f64| (a - b).abs() < 1e-9 * b.max(1e-3);
    // Desktop host: never slumbers.
    let mut awake = sim::open(BASE).unwrap();
    let w = idle_watts(&mut awake, 10 * S);
    assert!(
        close(w, 0.37),
        "idle {w} W, expected p_idle + p_dram = 0.37 W"
    );
    // Link power management: after slumber_after of quiet, p_slumber.
    let mut dozy = sim::open(BASE).unwrap();
    dozy.set_link_power("on").unwrap();
    assert_eq!(dozy.link_power().unwrap().value, "on");
    let first = idle_watts(&mut dozy, S);
    assert!(
        close(first, 0.37 * 0.05 + 0.011 * 0.95),
        "first second {first} W"
    );
    let w = idle_watts(&mut dozy, 10 * S);
    assert!(close(w, 0.011), "slumber {w} W, expected 0.011 W");
    // The first IO after slumber waits slumber_exit; the next does not.
    let read = |dev: &mut SimSsd| {
        let t0 = dev.now_ns();
        run(dev, 1, 1, |_| (Op::Read, 1 << 20, 4096))[0] - t0
    };
    let (asleep, awake_lat) = (read(&mut dozy), read(&mut awake));
    assert_eq!(asleep, awake_lat + 7_000_000, "wake-up latency");
    assert_eq!(read(&mut dozy), awake_lat);
    assert_eq!(counters(&dozy).energy.wakeups, 1);
    assert!(dozy.set_link_power("sometimes").is_err());
}

#[test]
fn energy_terms_and_link_pm_off_leave_timing_unchanged() {
    let zero = "e_read=0,e_prog=0,e_erase=0,slc_e_read=0,slc_e_prog=0,slc_e_erase=0,\
        e_channel=0,e_link=0,p_ctrl=0,p_active=0,p_idle=0,p_dram=0,p_slumber=0";
    let mut reference = sim::open(&format!("{BASE},{zero}")).unwrap();
    let mut modelled = sim::open(BASE).unwrap();
    let mut off = sim::open(&format!("{BASE},link_pm=off")).unwrap();
    let t = mixed(&mut reference);
    assert_eq!(reference.energy_j(), Some(0.0));
    assert_eq!(mixed(&mut modelled), t);
    assert_eq!(mixed(&mut off), t);
    assert_eq!(counters(&off).energy.slumber_ns, 0);
    // With link_pm=on the gaps end in slumber, and wake-ups delay IOs.
    let mut on = sim::open(&format!("{BASE},link_pm=on")).unwrap();
    assert_ne!(mixed(&mut on), t);
}

#[test]
fn folding_after_writes_stop_draws_power_above_idle_until_the_cache_is_folded() {
    let mut dev = sim::open(&format!("{BASE},link_pm=on")).unwrap();
    // 24 MiB of small writes into the 32 MiB cache, folded at 20 MB/s: over a second.
    run(&mut dev, 32, 6144, |i| (Op::Write, i * 4096, 4096));
    let cached = |dev: &SimSsd| counters(dev).slc_cached_blocks;
    let floor = 0.37;
    let mut watts = Vec::new();
    let mut folded_at = None;
    for s in 0..4 {
        let before = cached(&dev);
        watts.push(idle_watts(&mut dev, S / 2));
        if before > 0 && cached(&dev) == 0 {
            folded_at = Some(s);
        }
    }
    let folded_at = folded_at.expect("the cache is folded within 2 s");
    assert!(
        folded_at >= 1,
        "folding 24 MiB at 20 MB/s takes more than half a second"
    );
    for w in &watts[..folded_at] {
        assert!(
            *w > floor + 1.0,
            "folding draws the active state's power: {watts:?}"
        );
    }
    // Folding kept the drive out of slumber until it was done; then it slumbered.
    let slumber_ns = counters(&dev).energy.slumber_ns;
    assert!(slumber_ns > 0);
    assert!(
        slumber_ns < (4 - folded_at as u64) * S / 2,
        "slumber began only after folding: {watts:?}"
    );
    assert!((watts[3] - 0.011).abs() < 1e-9, "then slumber: {watts:?}");
}
