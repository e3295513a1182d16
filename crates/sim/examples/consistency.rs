//! The review's performance-consistency test on a simulated drive, timed: a sequential fill,
//! then 4 KiB random writes at QD32 over the whole drive for 2000 virtual seconds, with IOPS
//! in one-second buckets. Prints the shape (mean IOPS per 100 s) and the wall time.
//!
//! ```text
//! cargo run --release -p sim --example consistency -- [SPEC] [SECONDS]
//! cargo run --release -p sim --example consistency -- ultra-plus-256 2000
//! ```

use std::time::Instant;

use engine::counters::DeviceCounters;
use engine::{Completion, Device, Io, Op};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let spec = args.first().map(String::as_str).unwrap_or("default");
    let secs: u64 = args
        .get(1)
        .map(|s| s.parse().expect("seconds"))
        .unwrap_or(2000);
    let t0 = Instant::now();
    let mut dev = sim::open(spec).unwrap_or_else(|e| panic!("{e}"));
    let cap = dev.geometry().capacity_bytes;
    let units = cap / 4096;
    dev.prepare(32, 128 << 10).unwrap();
    let mut done: Vec<Completion> = Vec::with_capacity(32);

    // Sequential fill, 128 KiB at QD32.
    let block = 128u64 << 10;
    let (mut at, mut in_flight) = (0u64, 0u32);
    let mut free: Vec<u32> = (0..32).collect();
    loop {
        while at + block <= cap {
            let Some(slot) = free.pop() else { break };
            dev.submit(Io {
                slot,
                op: Op::Write,
                offset: at,
                len: block as u32,
            })
            .unwrap();
            at += block;
            in_flight += 1;
        }
        if in_flight == 0 {
            break;
        }
        done.clear();
        dev.reap(1, None, &mut done).unwrap();
        for c in &done {
            free.push(c.slot);
            in_flight -= 1;
        }
    }
    let fill_wall = t0.elapsed().as_secs_f64();

    // 4 KiB random writes, QD32, `secs` virtual seconds.
    let start = dev.now_ns();
    let end = start + secs * 1_000_000_000;
    let mut buckets = vec![0u64; secs as usize + 1];
    let mut x = 0x9E37_79B9_7F4A_7C15u64;
    let c0 = dev.counters().unwrap();
    let mut c_mid = None;
    let t = Instant::now();
    loop {
        while dev.now_ns() < end {
            let Some(slot) = free.pop() else { break };
            x ^= x >> 12;
            x ^= x << 25;
            x ^= x >> 27;
            let lba = x.wrapping_mul(0x2545_F491_4F6C_DD1D) % units;
            dev.submit(Io {
                slot,
                op: Op::Write,
                offset: lba * 4096,
                len: 4096,
            })
            .unwrap();
            in_flight += 1;
        }
        if in_flight == 0 {
            break;
        }
        done.clear();
        dev.reap(1, None, &mut done).unwrap();
        for c in &done {
            assert!(c.result >= 0);
            let s = ((c.complete_ns - start) / 1_000_000_000) as usize;
            if s < buckets.len() {
                buckets[s] += 1;
            }
            free.push(c.slot);
            in_flight -= 1;
        }
        if c_mid.is_none() && dev.now_ns() >= start + secs * 500_000_000 {
            c_mid = dev.counters();
        }
    }
    let wall = t.elapsed().as_secs_f64();
    if std::env::var_os("SHOW_SECONDS").is_some() {
        println!("{:?}", &buckets[1000..1040]);
    }
    let c1 = dev.counters().unwrap();
    let wa = |a: &DeviceCounters, b: &DeviceCounters| {
        let (a, b) = (a.sim().unwrap(), b.sim().unwrap());
        (b.nand_write_pages - a.nand_write_pages) as f64
            / (b.host_write_pages - a.host_write_pages) as f64
    };
    println!("{spec}: fill {fill_wall:.2} s wall; {secs} s virtual of 4K random writes QD32 in {wall:.2} s wall");
    let step = (secs as usize / 20).max(1);
    for (i, chunk) in buckets[..secs as usize].chunks(step).enumerate() {
        let mean = chunk.iter().sum::<u64>() as f64 / chunk.len() as f64;
        let min = chunk.iter().min().unwrap();
        let max = chunk.iter().max().unwrap();
        println!(
            "  t={:5}s  mean {mean:8.0} IOPS  min {min:7}  max {max:7}",
            i * step
        );
    }
    println!(
        "  first second {} IOPS; WA cumulative {:.3}, steady state (second half) {:.3}; total wall {:.1} s",
        buckets[0],
        wa(&c0, &c1),
        wa(c_mid.as_ref().unwrap(), &c1),
        t0.elapsed().as_secs_f64()
    );
}
