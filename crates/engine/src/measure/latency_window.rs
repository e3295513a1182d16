//! Latency percentiles of each second, kept in fio's latency histogram (`io_u_plat`): 64
//! buckets per power of two of nanoseconds, so a bucket is at most 1/64 (1.6%) wide. A
//! second's percentiles come from its own histogram, never from averaging other windows
//! (which gives wrong percentiles), and are computed by fio's rule, so they are the figures
//! fio's `write_hist_log` and `fiologparser_hist.py` would give for the same IOs.

use serde::{Deserialize, Serialize};

const PLAT_BITS: u32 = 6;
const PLAT_VAL: u64 = 1 << PLAT_BITS;
const PLAT_GROUPS: usize = 29;
/// fio's `FIO_IO_U_PLAT_NR`: the bucket count, and the bins of each line of its hist log.
pub const PLAT_NR: usize = PLAT_GROUPS * PLAT_VAL as usize;

/// fio's `plat_val_to_idx`: values below 128 ns have a bucket each; above, 64 per power of
/// two; past the last group, the last bucket.
#[inline]
pub fn bucket_of(ns: u64) -> usize {
    let msb = 63u32.saturating_sub(ns.leading_zeros());
    if msb <= PLAT_BITS {
        return ns as usize;
    }
    let error_bits = msb - PLAT_BITS;
    let base = ((error_bits + 1) as u64) << PLAT_BITS;
    let offset = (PLAT_VAL - 1) & (ns >> error_bits);
    ((base + offset) as usize).min(PLAT_NR - 1)
}

/// fio's `plat_idx_to_val`: the middle of a bucket, in ns (truncated as fio's integer is).
pub fn bucket_value(index: usize) -> u64 {
    let index = index as u64;
    if index < PLAT_VAL << 1 {
        return index;
    }
    let error_bits = (index >> PLAT_BITS) - 1;
    let base = 1u64 << (error_bits + PLAT_BITS as u64);
    let k = index % PLAT_VAL;
    base + (k << error_bits) + ((1u64 << error_bits) >> 1)
}

/// One window's latencies (one second, one direction). Fixed size: recording allocates
/// nothing.
pub struct LatencyWindow {
    counts: Box<[u64; PLAT_NR]>,
    ios: u64,
    max_ns: u64,
}

impl Default for LatencyWindow {
    fn default() -> Self {
        LatencyWindow {
            counts: Box::new([0; PLAT_NR]),
            ios: 0,
            max_ns: 0,
        }
    }
}

impl LatencyWindow {
    #[inline]
    pub fn record(&mut self, ns: u64) {
        self.counts[bucket_of(ns)] += 1;
        self.ios += 1;
        self.max_ns = self.max_ns.max(ns);
    }

    pub fn is_empty(&self) -> bool {
        self.ios == 0
    }

    /// The bucket counts, as a line of fio's hist log holds them.
    pub fn counts(&self) -> &[u64; PLAT_NR] {
        &self.counts
    }

    /// The `pct` percentile in ns by fio's rule: the value of the first bucket whose
    /// cumulative count reaches `pct` % of the window's IOs.
    pub fn percentile_ns(&self, pct: f64) -> u64 {
        let want = pct / 100.0 * self.ios as f64;
        let mut sum = 0u64;
        for (i, &c) in self.counts.iter().enumerate() {
            sum += c;
            if c > 0 && sum as f64 >= want {
                return bucket_value(i);
            }
        }
        0
    }

    /// The window's percentiles; `None` when no IO completed in it. A bucket's middle can
    /// lie above the exact maximum: a percentile is never reported above it.
    pub fn percentiles(&self) -> Option<SecondLatency> {
        if self.is_empty() {
            return None;
        }
        let us = |pct| self.percentile_ns(pct).min(self.max_ns) as f64 / 1000.0;
        Some(SecondLatency {
            p50: us(50.0),
            p99: us(99.0),
            p99_9: us(99.9),
            p99_99: us(99.99),
            max: self.max_ns as f64 / 1000.0,
        })
    }

    /// Add another window's IOs (another thread's, of the same second).
    pub fn add(&mut self, other: &LatencyWindow) {
        for (c, o) in self.counts.iter_mut().zip(other.counts.iter()) {
            *c += o;
        }
        self.ios += other.ios;
        self.max_ns = self.max_ns.max(other.max_ns);
    }

    pub fn clear(&mut self) {
        self.counts.fill(0);
        self.ios = 0;
        self.max_ns = 0;
    }
}

/// One second's completion latencies of one direction, in microseconds: percentiles to
/// fio's bucket precision (1.6%), the maximum exact.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct SecondLatency {
    pub p50: f64,
    pub p99: f64,
    pub p99_9: f64,
    pub p99_99: f64,
    pub max: f64,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pattern::Rng;

    #[test]
    fn buckets_are_fios() {
        // Below 128 ns, one bucket per ns; then 64 per power of two.
        assert_eq!(bucket_of(0), 0);
        assert_eq!(bucket_of(127), 127);
        assert_eq!(bucket_of(128), 128);
        assert_eq!(bucket_of(130), 129);
        assert_eq!(bucket_value(129), 131);
        assert_eq!(bucket_of(u64::MAX), PLAT_NR - 1);
        // Every value lies in its bucket, within half a bucket (1/128) of the bucket's value.
        let mut rng = Rng::new(1);
        for _ in 0..100_000 {
            let ns = rng.below(1 << 33);
            let v = bucket_value(bucket_of(ns));
            assert!(
                (v as f64 - ns as f64).abs() <= ns as f64 / 128.0 + 1.0,
                "{ns} -> {v}"
            );
        }
    }

    /// Against a hand-computed per-IO log: the k-th smallest latency, k = ceil(p% of n), is
    /// in the bucket whose value the window reports, for every percentile.
    #[test]
    fn percentiles_are_exact_to_the_bucket() {
        let mut rng = Rng::new(2);
        let mut window = LatencyWindow::default();
        // Log-normal-ish latencies: 20 us to 20 ms.
        let mut log: Vec<u64> = (0..50_000)
            .map(|_| (20_000.0 * 1000f64.powf(rng.unit().powi(3))) as u64)
            .collect();
        for &ns in &log {
            window.record(ns);
        }
        log.sort_unstable();
        for pct in [50.0, 90.0, 99.0, 99.9, 99.99] {
            let k = (pct / 100.0 * log.len() as f64).ceil() as usize;
            let exact = log[k - 1];
            assert_eq!(
                window.percentile_ns(pct),
                bucket_value(bucket_of(exact)),
                "p{pct}: exact {exact} ns"
            );
        }
        let p = window.percentiles().unwrap();
        assert_eq!(p.max, *log.last().unwrap() as f64 / 1000.0);
        assert!(p.p99_99 <= p.max);
        window.clear();
        assert!(window.percentiles().is_none());
    }
}
