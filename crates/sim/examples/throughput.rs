//! How fast the simulator runs: fill a preset sequentially, warm it up with uniform random
//! 4 KiB writes at QD32 until garbage collection is in steady state, then measure simulated
//! IOs per wall-clock second, virtual IOPS, write amplification, and peak memory.
//!
//! ```text
//! cargo run --release -p sim --example throughput -- [SPEC] [WARMUP_DRIVE_WRITES] [MEASURED_IOS]
//! cargo run --release -p sim --example throughput -- ultra-plus-256 1 20000000
//! ```
//!
//! Everything goes through the `engine::Device` trait with a tiny closed loop (submit QD32,
//! reap one, resubmit), the way the driver uses it.

use std::time::Instant;

use engine::{Completion, Device, Io, Op};

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
}

/// Run `ios` IOs at QD32 from `gen`; returns (virtual ns elapsed).
fn run(dev: &mut dyn Device, ios: u64, mut gen: impl FnMut() -> (Op, u64, u32)) -> u64 {
    let qd = 32u32;
    let start = dev.now_ns();
    let mut done: Vec<Completion> = Vec::with_capacity(qd as usize);
    let mut issued = 0u64;
    let mut in_flight = 0u32;
    let mut free: Vec<u32> = (0..qd).collect();
    loop {
        while issued < ios {
            let Some(slot) = free.pop() else { break };
            let (op, offset, len) = gen();
            dev.submit(Io {
                slot,
                op,
                offset,
                len,
            })
            .expect("submit");
            issued += 1;
            in_flight += 1;
        }
        if in_flight == 0 {
            break;
        }
        done.clear();
        dev.reap(1, None, &mut done).expect("reap");
        for c in &done {
            assert!(c.result >= 0, "IO failed: {}", c.result);
            free.push(c.slot);
            in_flight -= 1;
        }
    }
    dev.now_ns() - start
}

fn vm_hwm_bytes() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = s.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

fn counters(dev: &dyn Device) -> engine::counters::SimCounters {
    let c = dev.counters().expect("the simulator keeps counters");
    c.sim().expect("a simulator's counters").clone()
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let spec = args.first().map(String::as_str).unwrap_or("ultra-plus-256");
    let warmup: f64 = args
        .get(1)
        .map(|s| s.parse().expect("warm-up drive writes"))
        .unwrap_or(1.0);
    let measured: u64 = args
        .get(2)
        .map(|s| s.parse().expect("measured IOs"))
        .unwrap_or(20_000_000);

    let t0 = Instant::now();
    let mut dev = sim::open(spec).unwrap_or_else(|e| panic!("{e}"));
    dev.prepare(32, 128 << 10).unwrap();
    let cap = dev.geometry().capacity_bytes;
    let units = cap / 4096;
    println!("spec {spec}: {} bytes, {units} 4 KiB units", cap);

    let block = 128u64 << 10;
    let fills = cap / block;
    let mut at = 0u64;
    let t = Instant::now();
    let v = run(&mut dev, fills, || {
        let o = at;
        at += block;
        (Op::Write, o, block as u32)
    });
    let fill_wall = t.elapsed().as_secs_f64();
    println!(
        "fill: {fills} x 128 KiB in {fill_wall:.2} s wall, {:.1} s virtual ({:.0} MB/s simulated)",
        v as f64 / 1e9,
        cap as f64 / (v as f64 / 1e9) / 1e6
    );

    let mut rng = Rng(0x1234_5678_9abc_def1);
    let warm = (units as f64 * warmup) as u64;
    let t = Instant::now();
    let v = run(&mut dev, warm, || {
        (Op::Write, (rng.next() % units) * 4096, 4096)
    });
    println!(
        "warm-up: {warm} random 4 KiB writes in {:.2} s wall, {:.1} s virtual, WA so far {:.3}",
        t.elapsed().as_secs_f64(),
        v as f64 / 1e9,
        counters(&dev).write_amplification.unwrap_or(0.0)
    );

    let (h0, n0) = (
        counters(&dev).host_write_pages as f64,
        counters(&dev).nand_write_pages as f64,
    );
    let g0 = counters(&dev).gc_invocations as f64;
    let t = Instant::now();
    let v = run(&mut dev, measured, || {
        (Op::Write, (rng.next() % units) * 4096, 4096)
    });
    let wall = t.elapsed().as_secs_f64();
    let (h1, n1) = (
        counters(&dev).host_write_pages as f64,
        counters(&dev).nand_write_pages as f64,
    );
    let g1 = counters(&dev).gc_invocations as f64;
    println!(
        "steady state: {measured} random 4 KiB writes at QD32 in {wall:.2} s wall = {:.0} simulated IOs per wall second",
        measured as f64 / wall
    );
    println!(
        "  virtual: {:.1} s, {:.0} IOPS; WA over this phase {:.3}; {} GC victims",
        v as f64 / 1e9,
        measured as f64 / (v as f64 / 1e9),
        (n1 - n0) / (h1 - h0),
        g1 - g0
    );
    let hwm = vm_hwm_bytes().unwrap_or(0);
    println!(
        "peak RSS (VmHWM) {:.1} MiB = {:.2} bytes per 4 KiB of capacity (mapping tables {:.2}); total wall {:.1} s",
        hwm as f64 / (1 << 20) as f64,
        hwm as f64 / units as f64,
        dev.mapping_ram_bytes() as f64 / units as f64,
        t0.elapsed().as_secs_f64()
    );
}
