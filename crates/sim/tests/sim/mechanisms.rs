//! The mechanisms real controllers have, one test each: what switching each on changes, on
//! small drives so every test takes a second or two.

use crate::common::*;
use engine::{Device, Io, Op};

/// A small drive with paced GC and no cache: the baseline the mechanisms are compared with.
const BASE: &str = "default,capacity=512MiB,pages_per_block=32,op=15%,gc_style=paced";

/// Fill, then `secs` of 4 KiB random writes at QD32 over the whole drive.
fn steady(spec: &str, secs: u64, seed: u64) -> (sim::SimSsd, RunStats) {
    let mut dev = sim::open(spec).unwrap();
    let cap = dev.geometry().capacity_bytes;
    fill(&mut dev, cap, 128 << 10);
    random_4k(
        &mut dev,
        Op::Write,
        cap,
        32,
        Some(3 * cap / 4096),
        None,
        seed,
    );
    let st = random_4k(
        &mut dev,
        Op::Write,
        cap,
        32,
        None,
        Some(secs * 1_000_000_000),
        seed + 1,
    );
    (dev, st)
}

fn cv(v: &[u64]) -> f64 {
    let v: Vec<f64> = v[..v.len() - 1].iter().map(|&x| x as f64).collect();
    let mean = v.iter().sum::<f64>() / v.len() as f64;
    let var = v.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / v.len() as f64;
    var.sqrt() / mean
}

fn wa_over(dev: &mut sim::SimSsd, f: impl FnOnce(&mut sim::SimSsd)) -> f64 {
    let (h0, n0) = (
        counters(dev).host_write_pages as f64,
        counters(dev).nand_write_pages as f64,
    );
    f(dev);
    (counters(dev).nand_write_pages as f64 - n0) / (counters(dev).host_write_pages as f64 - h0)
}

#[test]
fn gc_styles_order_the_steady_state_scatter() {
    let mut cvs = Vec::new();
    for style in [
        "latency-first",
        "paced",
        "bursty,gc_burst=16,gc_burst_rate=3,gc_jitter=50%",
    ] {
        let (_, st) = steady(&format!("{BASE},gc_style={style}"), 60, 3);
        let c = cv(&st.per_second);
        println!(
            "{style}: steady {:.0} IOPS, per-second CV {c:.3}",
            st.mean_iops_from(0)
        );
        cvs.push((c, st.mean_iops_from(0)));
    }
    // Latency-first is the flattest and bursty the most scattered...
    assert!(cvs[0].0 < cvs[1].0 && cvs[1].0 < cvs[2].0, "{cvs:?}");
    assert!(cvs[2].0 > 0.2, "bursty GC should scatter: {cvs:?}");
    // ...while the work, and so the mean, stays comparable (cleaning further ahead leaves
    // less spare area, so bursty GC costs somewhat more).
    for (_, mean) in &cvs[1..] {
        assert!((mean / cvs[0].1 - 1.0).abs() < 0.35, "{cvs:?}");
    }
}

/// Bursty GC on a drive whose spare area barely holds the free-block reserve (2 GiB at 7%:
/// 40 spare blocks of 4 MiB against a trigger at 26 free and 16 open blocks). A burst aims at
/// most at half the stale space, so it ends, and the victims keep at least half the stale
/// space paced GC leaves them: as greedy write amplification goes about as the inverse of
/// that space, bursty's is about twice paced's (3x leaves room for the bursts' jitter). Its
/// high watermark used to be beyond anything GC could free: the burst never ended and every
/// host write cost about 1000 relocations (35 IOPS against paced GC's 1757).
#[test]
fn a_burst_ends_on_a_drive_with_little_spare_area() {
    let wa = |spec: &str| {
        let mut dev = sim::open(spec).unwrap();
        let cap = dev.geometry().capacity_bytes;
        fill(&mut dev, cap, 128 << 10);
        wa_over(&mut dev, |d| {
            random_4k(d, Op::Write, cap, 32, None, Some(120_000_000_000), 7);
        })
    };
    let bursty = wa("default,capacity=2GiB");
    let paced = wa("default,capacity=2GiB,gc_style=paced");
    println!("write amplification: bursty {bursty:.1}, paced {paced:.1}");
    assert!(
        bursty < 3.0 * paced,
        "bursty GC's write amplification {bursty:.1}, paced GC's {paced:.1}"
    );
}

#[test]
fn a_coarser_mapping_unit_reads_and_rewrites_small_writes() {
    let (mut fine, _) = steady(BASE, 10, 5);
    let (mut coarse, _) = steady(&format!("{BASE},map_unit=8KiB"), 10, 5);
    let cap = fine.geometry().capacity_bytes;
    let run = |d: &mut sim::SimSsd| {
        random_4k(d, Op::Write, cap, 32, Some(cap / 4096), None, 9);
    };
    let wa4 = wa_over(&mut fine, run);
    let rmw0 = counters(&coarse).read_modify_write_pages as f64;
    let wa8 = wa_over(&mut coarse, run);
    println!("4 KiB mapping WA {wa4:.2}, 8 KiB mapping WA {wa8:.2}");
    // Every 4 KiB write rewrites 8 KiB: about twice the write amplification.
    assert!(wa8 > 1.8 * wa4, "{wa4} vs {wa8}");
    assert!(counters(&coarse).read_modify_write_pages as f64 - rmw0 > 0.9 * (cap / 4096) as f64);
    // Aligned 8 KiB writes need no read.
    let rmw1 = counters(&coarse).read_modify_write_pages as f64;
    closed_loop(&mut coarse, 4, None, {
        let mut at = 0u64;
        move || {
            (at < 64 << 20).then(|| {
                let o = at;
                at += 8192;
                (Op::Write, o, 8192)
            })
        }
    });
    assert_eq!(counters(&coarse).read_modify_write_pages as f64, rmw1);
}

#[test]
fn copyback_relocates_without_crossing_the_channel() {
    // Slow channels make relocation traffic the limit; copyback removes it.
    let slow = format!("{BASE},channel_mbps=40");
    let (_, off) = steady(&slow, 30, 7);
    let (_, on) = steady(&format!("{slow},copyback=on"), 30, 7);
    let (a, b) = (off.mean_iops_from(0), on.mean_iops_from(0));
    println!("steady state: copyback off {a:.0} IOPS, on {b:.0} IOPS");
    assert!(b > 1.3 * a, "{a} vs {b}");
}

/// Relocated units per host unit over one sequential 128 KiB overwrite of a drive filled in
/// order and then lightly tortured (0.2 drive writes of 4 KiB random writes).
fn overwrite_after_torture(spec: &str) -> f64 {
    let mut dev = sim::open(spec).unwrap();
    let cap = dev.geometry().capacity_bytes;
    fill(&mut dev, cap, 128 << 10);
    random_4k(&mut dev, Op::Write, cap, 32, Some(cap / 4096 / 5), None, 5);
    let (h0, r0) = (
        counters(&dev).host_write_pages as f64,
        counters(&dev).gc_relocated_pages as f64,
    );
    let mut at = 0;
    closed_loop(&mut dev, 1, None, move || {
        (at < cap).then(|| {
            at += 128 << 10;
            (Op::Write, at - (128 << 10), 128 << 10)
        })
    });
    (counters(&dev).gc_relocated_pages as f64 - r0) / (counters(&dev).host_write_pages as f64 - h0)
}

#[test]
fn relocating_within_the_victims_die_keeps_its_data_together() {
    // Striped over every die, a victim's units land among other victims' in every die's GC
    // block, so a later sequential pass empties those blocks only at its end; kept on the
    // victim's die, they stay together and the pass empties them as it goes.
    let spec = "default,capacity=1GiB,pages_per_block=32,op=10%,gc_style=paced";
    let stripe = overwrite_after_torture(spec);
    let die = overwrite_after_torture(&format!("{spec},gc_dest=die"));
    println!("relocations per host unit over the pass: stripe {stripe:.2}, die {die:.2}");
    assert!(die < 0.7 * stripe, "{stripe} vs {die}");
}

#[test]
fn controller_time_per_relocated_unit_slows_the_steady_state() {
    let (_, free) = steady(BASE, 30, 11);
    // About a dozen relocations per host write: at 100 us each the controller is the limit.
    let (_, costly) = steady(&format!("{BASE},gc_unit=100us"), 30, 11);
    let (a, b) = (free.mean_iops_from(0), costly.mean_iops_from(0));
    println!("gc_unit 0: {a:.0} IOPS; 100 us: {b:.0} IOPS");
    assert!(b < 0.8 * a, "{a} vs {b}");
}

#[test]
fn program_times_by_page_average_like_a_uniform_program() {
    let write = |spec: &str| {
        let mut dev = sim::open(spec).unwrap();
        fill(&mut dev, 256 << 20, 128 << 10).mbps()
    };
    // Few dies and fast links: the NAND program time is the limit.
    let base = "default,capacity=512MiB,channels=1,dies=2,channel_mbps=800";
    let uniform = write(&format!("{base},t_prog=1ms"));
    let paired = write(&format!("{base},t_prog=500us/1500us"));
    println!("uniform {uniform:.1} MB/s, LSB/MSB {paired:.1} MB/s");
    assert!(
        (paired / uniform - 1.0).abs() < 0.03,
        "{uniform} vs {paired}"
    );
    // And a slower MSB page really is slower than the LSB one.
    let tlc = sim::resolve("default,t_prog=1ms/2ms/4ms").unwrap();
    assert_eq!(tlc.native.program.of_page(0), 1_000_000);
    assert_eq!(tlc.native.program.of_page(5), 4_000_000);
    assert_eq!(tlc.native.program.mean(), 2_333_333);
}

#[test]
fn a_program_budget_caps_sequential_writes_at_the_dies_it_lets_program() {
    // Eight dies on fast channels and link: the dies' programs are the limit, until the
    // controller lets only some of them program at once.
    let write = |spec: &str| {
        let mut dev = sim::open(spec).unwrap();
        fill(&mut dev, 256 << 20, 128 << 10).mbps()
    };
    let base = "default,capacity=2GiB,channels=4,dies=2,channel_mbps=800,link_mbps=4000,t_prog=1ms";
    let every_die = write(base);
    let half = write(&format!("{base},max_programs=4"));
    let unbound = write(&format!("{base},max_programs=8"));
    println!(
        "8 dies: {every_die:.0} MB/s; at most 4 programming: {half:.0}; at most 8: {unbound:.0}"
    );
    assert!(
        (half / every_die - 0.5).abs() < 0.05,
        "{every_die} vs {half}"
    );
    // A budget of every die changes nothing.
    assert!(
        (unbound / every_die - 1.0).abs() < 0.01,
        "{every_die} vs {unbound}"
    );
}

#[test]
fn metadata_writes_are_programmed_with_the_host_data() {
    // A sequential fill of a clean drive needs no GC: every NAND program beyond the host's
    // is the journal's.
    let mut dev = sim::open(&format!("{BASE},meta=5%")).unwrap();
    fill(&mut dev, 256 << 20, 128 << 10);
    let host = counters(&dev).host_write_pages as f64;
    let meta = counters(&dev).meta_pages as f64;
    println!("meta {meta} of {host} host pages");
    assert!((meta / host - 0.05).abs() < 0.001, "{meta} / {host}");
    assert_eq!(counters(&dev).nand_write_pages as f64, host + meta);
}

/// MB/s of each second of a 128 KiB sequential write of `mib` MiB at QD32 from `from`.
fn seq_write(dev: &mut sim::SimSsd, from: u64, mib: u64) -> RunStats {
    let end = from + (mib << 20);
    let mut at = from;
    closed_loop(dev, 32, None, move || {
        (at < end).then(|| {
            let o = at;
            at += 128 << 10;
            (Op::Write, o, 128 << 10)
        })
    })
}

const CACHED: &str = "default,capacity=4GiB,slc_cache=256MiB,gc_style=paced";

#[test]
fn a_folding_cache_writes_twice_in_the_foreground_when_full() {
    let mut bypass = sim::open(CACHED).unwrap();
    let mut fold = sim::open(&format!("{CACHED},slc_full=fold")).unwrap();
    let (a, b) = (
        seq_write(&mut bypass, 0, 1024),
        seq_write(&mut fold, 0, 1024),
    );
    let wa = |d: &sim::SimSsd| counters(d).write_amplification.unwrap();
    println!(
        "1 GiB after a 256 MiB cache: bypass {:.0} MB/s WA {:.2}, fold {:.0} MB/s WA {:.2}",
        a.mbps(),
        wa(&bypass),
        b.mbps(),
        wa(&fold)
    );
    assert!(wa(&fold) > 1.6, "folded data is written twice");
    assert!(wa(&bypass) < 1.05, "bypassed data is written once");
    assert!(b.mbps() < a.mbps());
    assert_eq!(counters(&fold).slc_cache_bypassed, 0);
}

#[test]
fn folding_while_the_host_writes_waits_until_the_drive_is_short_of_free_blocks() {
    // A sequential write on a clean drive the main array is too slow for (8 MLC dies,
    // ~200 MB/s): with free blocks to spare, folding waits for idle time and the write runs
    // flat at the main array's speed once the cache is full, as with idle-only folding.
    let seq = |drain: &str| {
        let mut dev = sim::open(&format!("{CACHED},slc_drain={drain},slc_drain_rate=100")).unwrap();
        let st = seq_write(&mut dev, 0, 3072);
        // The seconds after the cache first filled.
        let secs: Vec<u64> = st.per_second[2..].to_vec();
        let mean = secs[..secs.len() - 1].iter().sum::<u64>() as f64 / (secs.len() - 1) as f64;
        (cv(&secs), mean)
    };
    let (idle_cv, idle_mean) = seq("idle");
    let (always_cv, always_mean) = seq("always");
    println!(
        "sequential: drain idle CV {idle_cv:.3} at {idle_mean:.0} IO/s, always CV {always_cv:.3} at {always_mean:.0} IO/s"
    );
    assert!(always_cv < idle_cv + 0.05, "{idle_cv} vs {always_cv}");
    assert!(
        always_mean > 0.95 * idle_mean,
        "{idle_mean} vs {always_mean}"
    );

    // Random writes in steady state: short of free blocks, the cache folds while the host
    // writes and reopens, and the throughput goes up and down.
    let random = |drain: &str| {
        let spec = format!(
            "default,capacity=512MiB,pages_per_block=32,op=15%,slc_cache=32MiB,slc_drain={drain},slc_drain_rate=100,gc_style=bursty,gc_burst=16"
        );
        let (dev, st) = steady(&spec, 60, 5);
        (cv(&st.per_second), counters(&dev).slc_migrations as f64)
    };
    let (idle_cv, idle_folded) = random("idle");
    let (always_cv, always_folded) = random("always");
    println!("random: drain idle CV {idle_cv:.3} ({idle_folded} folded), always CV {always_cv:.3} ({always_folded} folded)");
    assert!(always_folded > idle_folded);
    assert!(always_cv > 1.1 * idle_cv, "{idle_cv} vs {always_cv}");
}

#[test]
fn idle_folding_runs_at_its_stated_rate() {
    let mut dev = sim::open(&format!("{CACHED},slc_drain_rate=64")).unwrap();
    seq_write(&mut dev, 0, 256);
    let cached = |d: &sim::SimSsd| {
        counters(d).slc_cached_blocks as f64 + counters(d).slc_free_blocks as f64 * 0.0
    };
    let full = cached(&dev);
    assert!(full > 0.0);
    // 256 MiB at 64 MB/s: about 4.2 s.
    let mut secs = 0;
    let mut done = Vec::new();
    while cached(&dev) > 0.0 {
        dev.reap(0, Some(dev.now_ns() + 1_000_000_000), &mut done)
            .unwrap();
        secs += 1;
        assert!(secs < 30);
    }
    println!("folded 256 MiB in {secs} s of idle");
    assert!((4..=6).contains(&secs), "{secs} s");
}

#[test]
fn a_dynamic_cache_uses_free_space_and_vanishes_when_the_drive_is_full() {
    let spec = "default,capacity=2GiB,slc_cache=256MiB,slc_region=dynamic,gc_style=paced";
    let mut dev = sim::open(spec).unwrap();
    let l = sim::resolve(spec).unwrap().layout().unwrap();
    assert_eq!(l.slc_blocks_per_die, 0, "no blocks of its own");
    let fast = seq_write(&mut dev, 0, 128).mbps();
    assert!(counters(&dev).slc_cache_hits > 0);
    // Fill the drive and keep writing: the cache has no room to borrow.
    let cap = dev.geometry().capacity_bytes;
    let mut done = Vec::new();
    dev.reap(0, Some(dev.now_ns() + 30_000_000_000), &mut done)
        .unwrap();
    fill(&mut dev, cap, 128 << 10);
    let hits = counters(&dev).slc_cache_hits as f64;
    random_4k(&mut dev, Op::Write, cap, 32, Some(cap / 4096), None, 3);
    let late = counters(&dev).slc_cache_hits as f64 - hits;
    println!("empty drive {fast:.0} MB/s; cache hits on the full drive: {late}");
    assert_eq!(late, 0.0);
}

fn discard(dev: &mut sim::SimSsd, offset: u64, len: u64) {
    closed_loop(dev, 1, None, {
        let mut at = offset;
        let end = offset + len;
        move || {
            (at < end).then(|| {
                let o = at;
                let n = (end - at).min(1 << 30);
                at += n;
                (Op::Discard, o, n as u32)
            })
        }
    });
}

#[test]
fn partial_trim_keeps_its_share_of_trimmed_data() {
    let mut dev =
        sim::open("default,capacity=1GiB,pages_per_block=32,trim=partial,trim_keep=30%").unwrap();
    let cap = dev.geometry().capacity_bytes;
    fill(&mut dev, cap, 128 << 10);
    discard(&mut dev, 0, cap);
    let (kept, trimmed) = (
        counters(&dev).trim_ignored_pages as f64,
        counters(&dev).trimmed_pages as f64,
    );
    let share = kept / (kept + trimmed);
    println!("partial TRIM kept {:.1}%", share * 100.0);
    assert!((share - 0.30).abs() < 0.01, "{share}");
    // Deterministic: the same units every time.
    let mut again =
        sim::open("default,capacity=1GiB,pages_per_block=32,trim=partial,trim_keep=30%").unwrap();
    fill(&mut again, cap, 128 << 10);
    discard(&mut again, 0, cap);
    assert_eq!(counters(&again).trim_ignored_pages as f64, kept);
}

#[test]
fn deferred_trim_unmaps_in_idle_time_and_never_undoes_a_later_write() {
    let spec = "default,capacity=1GiB,pages_per_block=32,trim=deferred,trim_rate=100,data=stamp";
    let mut dev = sim::open(spec).unwrap();
    let cap = dev.geometry().capacity_bytes;
    fill(&mut dev, cap, 128 << 10);
    discard(&mut dev, 0, 512 << 20);
    assert_eq!(counters(&dev).trimmed_pages as f64, 0.0, "nothing yet");
    assert_eq!(
        counters(&dev).trim_pending_pages as f64,
        (512u64 << 20) as f64 / 4096.0
    );
    // Rewrite the first 4 KiB before the drive gets to it.
    dev.prepare(1, 4096).unwrap();
    dev.submit(Io {
        slot: 0,
        op: Op::Write,
        offset: 0,
        len: 4096,
    })
    .unwrap();
    let mut done = Vec::new();
    dev.reap(1, None, &mut done).unwrap();
    // Two seconds of idle at 100 MB/s unmap about 200 MB.
    dev.reap(0, Some(dev.now_ns() + 2_000_000_000), &mut done)
        .unwrap();
    let trimmed = counters(&dev).trimmed_pages as f64 * 4096.0;
    println!("unmapped {:.0} MB in 2 s", trimmed / 1e6);
    assert!((trimmed / 1e6 - 200.0).abs() < 10.0, "{trimmed}");
    dev.reap(0, Some(dev.now_ns() + 10_000_000_000), &mut done)
        .unwrap();
    assert_eq!(counters(&dev).trim_pending_pages, 0);
    // The rewritten unit still reads as data; a trimmed one reads zeros.
    let read = |dev: &mut sim::SimSsd, offset| {
        dev.submit(Io {
            slot: 0,
            op: Op::Read,
            offset,
            len: 4096,
        })
        .unwrap();
        let mut done = Vec::new();
        dev.reap(1, None, &mut done).unwrap();
        dev.buffer(0).unwrap().iter().any(|&b| b != 0)
    };
    assert!(read(&mut dev, 0));
    assert!(!read(&mut dev, 8192));
}

#[test]
fn a_secure_erase_empties_the_drive_whatever_its_trim_does() {
    let mut dev =
        sim::open("default,capacity=512MiB,pages_per_block=32,trim=off,data=stamp").unwrap();
    let cap = dev.geometry().capacity_bytes;
    fill(&mut dev, cap, 128 << 10);
    let before = dev.now_ns();
    let hosts = counters(&dev).host_write_pages as f64;
    assert!(dev
        .erase(engine::drive::PurgeMethod::Auto, &mut |_| {})
        .unwrap()
        .is_some());
    assert!(dev.now_ns() > before, "erasing takes time");
    assert_eq!(
        counters(&dev).host_write_pages as f64,
        hosts,
        "counters carry over"
    );
    let l = sim::resolve("default,capacity=512MiB,pages_per_block=32")
        .unwrap()
        .layout()
        .unwrap();
    assert_eq!(counters(&dev).free_blocks, l.main_blocks());
    dev.prepare(1, 4096).unwrap();
    dev.submit(Io {
        slot: 0,
        op: Op::Read,
        offset: 4096,
        len: 4096,
    })
    .unwrap();
    let mut done = Vec::new();
    dev.reap(1, None, &mut done).unwrap();
    assert!(dev.buffer(0).unwrap().iter().all(|&b| b == 0));
    // And it writes at a fresh drive's speed again.
    let st = fill(&mut dev, cap, 128 << 10);
    let mut fresh = sim::open("default,capacity=512MiB,pages_per_block=32").unwrap();
    let clean = fill(&mut fresh, cap, 128 << 10);
    assert!(
        (st.mbps() / clean.mbps() - 1.0).abs() < 0.01,
        "{} vs {}",
        st.mbps(),
        clean.mbps()
    );
}
