//! Why a tortured drive writes slowly: the TRIM test's dirty pass, instrumented. A sequential
//! fill, `TORTURE` virtual seconds of 4 KiB random writes at QD32, a minute idle, then one
//! 128 KiB QD1 sequential write pass over the drive in twenty segments, each with its MB/s,
//! the units relocated per host unit and the victims' valid units.
//!
//! ```text
//! cargo run --release -p sim --example dirty_pass -- [SPEC] [TORTURE]
//! cargo run --release -p sim --example dirty_pass -- extreme-ii-120,capacity=8GiB 600
//! ```

use engine::{Completion, Device, Io, Op};
use sim::SimSsd;

/// Keep `qd` IOs from `next` in flight until it returns None or `until_ns` of device time.
/// Returns the bytes moved.
fn closed_loop(
    dev: &mut SimSsd,
    qd: u32,
    until_ns: u64,
    mut next: impl FnMut() -> Option<(u64, u32)>,
    op: Op,
) -> u64 {
    dev.prepare(qd, 128 << 10).unwrap();
    let mut free: Vec<u32> = (0..qd).collect();
    let (mut in_flight, mut bytes, mut more) = (0, 0u64, true);
    let mut done: Vec<Completion> = Vec::with_capacity(qd as usize);
    loop {
        while more && dev.now_ns() < until_ns {
            let Some(slot) = free.pop() else { break };
            let Some((offset, len)) = next() else {
                free.push(slot);
                more = false;
                break;
            };
            dev.submit(Io {
                slot,
                op,
                offset,
                len,
            })
            .unwrap();
            in_flight += 1;
        }
        if in_flight == 0 {
            return bytes;
        }
        done.clear();
        dev.reap(1, None, &mut done).unwrap();
        for c in &done {
            assert!(c.result >= 0, "IO failed: {}", c.result);
            bytes += c.result as u64;
            free.push(c.slot);
            in_flight -= 1;
        }
    }
}

fn sequential(dev: &mut SimSsd, from: u64, to: u64, block: u32, qd: u32) -> (u64, f64) {
    let t0 = dev.now_ns();
    let mut at = from;
    let bytes = closed_loop(
        dev,
        qd,
        u64::MAX,
        || {
            (at + block as u64 <= to).then(|| {
                at += block as u64;
                (at - block as u64, block)
            })
        },
        Op::Write,
    );
    (bytes, (dev.now_ns() - t0) as f64 / 1e9)
}

fn counters(dev: &SimSsd) -> engine::counters::SimCounters {
    let c = dev.counters().expect("the simulator keeps counters");
    c.sim().expect("a simulator's counters").clone()
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let spec = args
        .first()
        .map_or("extreme-ii-120,capacity=8GiB", String::as_str);
    let torture_s: u64 = args.get(1).map_or(600, |s| s.parse().expect("seconds"));
    let mut dev = sim::open(spec).unwrap_or_else(|e| panic!("{e}"));
    let cap = dev.geometry().capacity_bytes;
    sequential(&mut dev, 0, cap, 128 << 10, 32);

    let mut x = 0x9E37_79B9_7F4A_7C15u64;
    let units = cap / 4096;
    let t0 = dev.now_ns();
    let bytes = closed_loop(
        &mut dev,
        32,
        t0 + torture_s * 1_000_000_000,
        || {
            x ^= x >> 12;
            x ^= x << 25;
            x ^= x >> 27;
            Some((x.wrapping_mul(0x2545_F491_4F6C_DD1D) % units * 4096, 4096))
        },
        Op::Write,
    );
    println!(
        "{spec}: torture {torture_s} s, {:.2} drive writes; free blocks after a minute idle:",
        bytes as f64 / cap as f64
    );
    engine::driver::idle(&mut dev, 60_000_000_000).unwrap();
    println!("  {}", counters(&dev).free_blocks as f64);

    println!("pass at   MB/s  relocated per host unit  valid per victim (of a block)");
    let block = 128u32 << 10;
    let seg = cap / 20 / block as u64 * block as u64;
    // The counters' pages are 4 KiB; a GC block is one block on every plane of a die.
    let c = dev.config();
    let block_pages = (c.planes * c.pages_per_block) as f64 * c.page_bytes as f64 / 4096.0;
    for s in 0..20 {
        let (h0, r0, v0) = (
            counters(&dev).host_write_pages as f64,
            counters(&dev).gc_relocated_pages as f64,
            counters(&dev).gc_invocations as f64,
        );
        let (bytes, secs) = sequential(&mut dev, s * seg, (s + 1) * seg, block, 1);
        let (h, r, v) = (
            counters(&dev).host_write_pages as f64 - h0,
            counters(&dev).gc_relocated_pages as f64 - r0,
            counters(&dev).gc_invocations as f64 - v0,
        );
        println!(
            "{:>6}%  {:>5.0}  {:>23.2}  {:>29.0}%",
            s * 5,
            bytes as f64 / secs / 1e6,
            r / h,
            r / v.max(1.0) / block_pages * 100.0
        );
    }
}
