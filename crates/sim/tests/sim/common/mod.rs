//! A tiny closed-loop driver over the `Device` trait, written here so the sim's tests do not
//! depend on the engine's driver: keep `qd` IOs in flight, reap one, resubmit.
#![allow(dead_code)]

use engine::counters::SimCounters;
use engine::{Completion, Device, Io, Op};
use sim::SimSsd;

/// xorshift64*: deterministic, no dependency.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }
    pub fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    pub fn below(&mut self, n: u64) -> u64 {
        ((self.next() >> 32) * n) >> 32
    }
}

#[derive(Clone, Debug, Default)]
pub struct RunStats {
    pub ios: u64,
    pub bytes: u64,
    pub start_ns: u64,
    pub end_ns: u64,
    pub errors: u64,
    /// Completions in each virtual second since the start.
    pub per_second: Vec<u64>,
}

impl RunStats {
    pub fn secs(&self) -> f64 {
        (self.end_ns - self.start_ns) as f64 / 1e9
    }
    pub fn iops(&self) -> f64 {
        self.ios as f64 / self.secs()
    }
    /// Mean IOPS over whole seconds `from..` (the last, partial second left out).
    pub fn mean_iops_from(&self, from: usize) -> f64 {
        let n = self.per_second.len().saturating_sub(1);
        let w = &self.per_second[from.min(n)..n];
        w.iter().sum::<u64>() as f64 / w.len().max(1) as f64
    }
    pub fn mbps(&self) -> f64 {
        self.bytes as f64 / self.secs() / 1e6
    }
}

/// Keep `qd` IOs from `next` in flight until `next` returns None or `limit_ns` of device time
/// has passed since the start. Every completion must succeed.
pub fn closed_loop(
    dev: &mut SimSsd,
    qd: u32,
    limit_ns: Option<u64>,
    mut next: impl FnMut() -> Option<(Op, u64, u32)>,
) -> RunStats {
    dev.prepare(qd, 64 << 20).unwrap();
    let mut st = RunStats {
        start_ns: dev.now_ns(),
        ..RunStats::default()
    };
    let deadline = limit_ns.map(|l| st.start_ns + l);
    let mut free: Vec<u32> = (0..qd).rev().collect();
    let mut lens = vec![0u32; qd as usize];
    let mut in_flight = 0;
    let mut done: Vec<Completion> = Vec::with_capacity(qd as usize);
    let mut exhausted = false;
    loop {
        while !exhausted {
            if deadline.is_some_and(|d| dev.now_ns() >= d) {
                exhausted = true;
                break;
            }
            let Some(slot) = free.pop() else { break };
            match next() {
                Some((op, offset, len)) => {
                    dev.submit(Io {
                        slot,
                        op,
                        offset,
                        len,
                    })
                    .unwrap();
                    lens[slot as usize] = len;
                    in_flight += 1;
                }
                None => {
                    free.push(slot);
                    exhausted = true;
                }
            }
        }
        if in_flight == 0 {
            break;
        }
        done.clear();
        dev.reap(1, None, &mut done).unwrap();
        assert!(
            !done.is_empty(),
            "reap(1) returned nothing with IO in flight"
        );
        for c in &done {
            if c.result < 0 {
                st.errors += 1;
            } else {
                st.bytes += c.result as u64;
            }
            st.ios += 1;
            let sec = ((c.complete_ns - st.start_ns) / 1_000_000_000) as usize;
            if st.per_second.len() <= sec {
                st.per_second.resize(sec + 1, 0);
            }
            st.per_second[sec] += 1;
            in_flight -= 1;
            free.push(c.slot);
        }
    }
    st.end_ns = dev.now_ns();
    assert_eq!(st.errors, 0, "IOs failed");
    st
}

/// One sequential pass of `block`-byte writes over the first `span` bytes at QD32.
pub fn fill(dev: &mut SimSsd, span: u64, block: u32) -> RunStats {
    let mut at = 0u64;
    closed_loop(dev, 32, None, move || {
        if at + block as u64 > span {
            return None;
        }
        let o = at;
        at += block as u64;
        Some((Op::Write, o, block))
    })
}

/// Uniform random 4 KiB-aligned IOs of `op` over the first `span` bytes.
pub fn random_4k(
    dev: &mut SimSsd,
    op: Op,
    span: u64,
    qd: u32,
    ios: Option<u64>,
    limit_ns: Option<u64>,
    seed: u64,
) -> RunStats {
    let mut rng = Rng::new(seed);
    let units = span / 4096;
    let mut n = 0u64;
    closed_loop(dev, qd, limit_ns, move || {
        if ios.is_some_and(|m| n >= m) {
            return None;
        }
        n += 1;
        Some((op, rng.below(units) * 4096, 4096))
    })
}

pub fn counters(dev: &SimSsd) -> SimCounters {
    let c = dev.counters().expect("the simulator keeps counters");
    c.sim().expect("a simulator's counters").clone()
}
