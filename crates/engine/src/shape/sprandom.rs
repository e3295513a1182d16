//! SPRandom, fio's fast preconditioning (fio 3.41, `sprandom=1`, `spr_op`, `spr_num_regions`,
//! `spr_cs`; fio's `sprandom.c`, after Desnoyers, "Analytic Models of SSD Write
//! Performance", ACM ToS 2012): one pass that writes the drive's physical capacity once, in
//! an order that leaves each erase block as much invalid data as random writes leave it in
//! steady state.
//!
//! The physical capacity (logical size times 1 + OP) is cut into equal regions, written one
//! after the other. Desnoyers' steady state has `validity(i) * share(i)` constant over blocks
//! of `i` valid pages, from all valid down to the validity of greedy GC's victims,
//! `1 - 1/WA` with `WA = 0.5/OP + 0.7`; resampled on equal shares of the capacity, that
//! gives each region its validity, the oldest region the lowest. Each write of a region
//! is kept for rewriting with the probability of its region's invalid share; the next region
//! starts by rewriting the kept offsets (which invalidates them in the region before) and
//! fills the rest with blocks not written yet. A drive with a write cache would drop a
//! rewritten block that is still cached instead of invalidating it in NAND: given the cache's
//! size, the rewrites come at the end of the next region instead, once the cache has flushed
//! their first writes (each region must then be larger than the cache).

use std::collections::VecDeque;

use serde::{Deserialize, Serialize};

use crate::pattern::Rng;

/// SPRandom parameters out of range, or a pass they cannot make.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum SpRandomError {
    #[error(
        "SPRandom's over-provisioning {0} is out of range: give the drive's spare area as \
         physical/logical - 1, between 0 and 1 (exclusive): 0.07 or 7%"
    )]
    OverProvisioning(f64),
    #[error("SPRandom needs at least one region")]
    NoRegions,
    #[error(
        "SPRandom's {regions} regions are more than the span's {units} blocks with spare \
         area: use fewer regions"
    )]
    TooManyRegions { regions: u32, units: u64 },
    #[error(
        "SPRandom's regions ({region_bytes} bytes each) must be larger than the \
         {cache_bytes}-byte cache, or the cache still holds a region's writes when they are \
         rewritten: {}",
        fewer_regions(*pass_bytes, *cache_bytes)
    )]
    RegionsInCache {
        region_bytes: u64,
        pass_bytes: u64,
        cache_bytes: u64,
    },
    /// The workload around the pass is not one an SPRandom pass can be.
    #[error("an SPRandom pass only writes, one block size, over the whole span, on one thread")]
    NotAPlainWrite,
}

/// What makes regions larger than the cache, for a pass of `pass_bytes`.
fn fewer_regions(pass_bytes: u64, cache_bytes: u64) -> String {
    match pass_bytes / cache_bytes {
        // Even one region, the whole pass, fits in the cache: no number of regions helps.
        0 => format!(
            "the whole pass ({pass_bytes} bytes) is not larger than the cache, so no number \
             of regions helps: use a larger span, or precondition with fill"
        ),
        1 => "use 1 region".to_string(),
        most => format!("use at most {most} regions"),
    }
}

/// fio's resolution of an invalid share (`PCT_PRECISION`).
const PCT_PRECISION: u64 = 10_000;

/// The parameters of an SPRandom pass: fio's `spr_op`, `spr_num_regions` and `spr_cs`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct SpRandom {
    over_provisioning: f64,
    regions: u32,
    /// The drive's write cache, 0 for none.
    cache_bytes: u64,
}

impl Default for SpRandom {
    /// fio's defaults: 15% over-provisioning, 100 regions, no cache.
    fn default() -> SpRandom {
        SpRandom {
            over_provisioning: 0.15,
            regions: 100,
            cache_bytes: 0,
        }
    }
}

impl SpRandom {
    /// `over_provisioning` as the drive's physical/logical - 1, in (0, 1) as fio takes it;
    /// `cache_bytes` the drive's write cache (0: rewrite at once, as fio without `spr_cs`).
    pub fn new(
        over_provisioning: f64,
        regions: u32,
        cache_bytes: u64,
    ) -> Result<SpRandom, SpRandomError> {
        if !(over_provisioning > 0.0 && over_provisioning < 1.0) {
            return Err(SpRandomError::OverProvisioning(over_provisioning));
        }
        if regions == 0 {
            return Err(SpRandomError::NoRegions);
        }
        Ok(SpRandom {
            over_provisioning,
            regions,
            cache_bytes,
        })
    }

    pub fn over_provisioning(&self) -> f64 {
        self.over_provisioning
    }

    pub fn regions(&self) -> u32 {
        self.regions
    }

    pub fn cache_bytes(&self) -> u64 {
        self.cache_bytes
    }

    /// Blocks written in each region of a span of `units` blocks of `block` bytes: the
    /// physical size (rounded down to a block) over the regions, as fio's `sprandom_setup`.
    pub fn region_writes(&self, units: u64, block: u64) -> u64 {
        let logical = units * block;
        let physical = logical + (logical as f64 * self.over_provisioning).ceil() as u64;
        let physical = physical - physical % block;
        physical / self.regions as u64 / block
    }

    /// Every write of the pass over `units` blocks of `block` bytes (it may end a little
    /// earlier, when every block has been written once and no rewrite is due).
    pub fn writes(&self, units: u64, block: u64) -> u64 {
        self.region_writes(units, block) * self.regions as u64
    }

    /// Check against a span of `units` blocks of `block` bytes.
    pub fn check(&self, units: u64, block: u64) -> Result<(), SpRandomError> {
        let region_bytes = self.region_writes(units, block) * block;
        if region_bytes == 0 {
            return Err(SpRandomError::TooManyRegions {
                regions: self.regions,
                units,
            });
        }
        if self.cache_bytes > region_bytes {
            return Err(SpRandomError::RegionsInCache {
                region_bytes,
                pass_bytes: region_bytes * self.regions as u64,
                cache_bytes: self.cache_bytes,
            });
        }
        Ok(())
    }

    /// Each region's share of invalid data in steady state, in 1/[`PCT_PRECISION`], the
    /// oldest (first written) region first: fio's `compute_validity_dist`.
    fn invalid_shares(&self) -> Vec<u64> {
        let n = self.regions as usize;
        let wa = 0.5 / self.over_provisioning + 0.7;
        let gc_validity = 1.0 - 1.0 / wa;
        // Validities spaced equally from all valid to the victims', and the share of the
        // drive each takes (validity * share constant), accumulated: a curve of validity
        // against the capacity...
        let validity = linspace(1.0, gc_validity, n);
        let accumulated: Vec<f64> = validity
            .iter()
            .scan(0.0, |acc, v| {
                *acc += 1.0 / v;
                Some(*acc)
            })
            .collect();
        // ... read at equal steps of capacity: the validity of each equal region, newest
        // first, so reversed.
        let steps = linspace(accumulated[0], accumulated[n - 1], n);
        steps
            .iter()
            .rev()
            .map(|&x| {
                let v = interpolate(x, &accumulated, &validity);
                ((1.0 - v) * PCT_PRECISION as f64).round() as u64
            })
            .collect()
    }

    /// The pass's order over `units` blocks of `block` bytes, its permutation keyed by `rng`.
    pub(crate) fn order(&self, units: u64, block: u64, rng: &mut Rng) -> SpRandomOrder {
        let invalid = self.invalid_shares();
        let region_writes = self.region_writes(units, block);
        let deferred = self.cache_bytes > 0;
        // Deferred, the rewrites of two regions wait at once.
        let capacity = rewrite_capacity(region_writes, invalid[0]) * (1 + deferred as usize);
        SpRandomOrder {
            fresh: Permutation::new(units, rng),
            rewrites: VecDeque::with_capacity(capacity),
            deferred,
            committed: 0,
            staged: 0,
            region: 0,
            regions: self.regions as usize,
            region_writes,
            remaining: region_writes,
            invalid,
        }
    }
}

/// `n` values from `start` to `end`, both included (`n` = 1: `start`).
fn linspace(start: f64, end: f64, n: usize) -> Vec<f64> {
    let step = if n > 1 {
        (end - start) / (n - 1) as f64
    } else {
        0.0
    };
    (0..n).map(|i| start + i as f64 * step).collect()
}

/// `ys` at `x` on the polyline through `(xs, ys)` (`xs` increasing), the end values beyond.
fn interpolate(x: f64, xs: &[f64], ys: &[f64]) -> f64 {
    let last = xs.len() - 1;
    if x <= xs[0] {
        return ys[0];
    }
    if x >= xs[last] {
        return ys[last];
    }
    let i = xs.partition_point(|&v| v <= x).clamp(1, last);
    let (x1, x2, y1, y2) = (xs[i - 1], xs[i], ys[i - 1], ys[i]);
    if (x2 - x1).abs() < 1e-9 {
        return y1;
    }
    y1 + (y2 - y1) * (x - x1) / (x2 - x1)
}

/// The rewrites a region keeps, as fio sizes its buffer: the expected count at the highest
/// invalid share plus six standard deviations (more would only make the queue grow).
fn rewrite_capacity(region_writes: u64, invalid: u64) -> usize {
    let p = invalid as f64 / PCT_PRECISION as f64;
    let n = region_writes as f64;
    (n * p + 6.0 * (n * p * (1.0 - p)).sqrt()).ceil() as usize
}

/// The state of a pass: fio's `sprandom_info` and `sprandom_get_next_offset`.
pub(crate) struct SpRandomOrder {
    /// Blocks not written yet, each once (fio takes them from its LFSR).
    fresh: Permutation,
    /// Offsets kept for rewriting: the first `committed` are the previous region's, due
    /// now; the `staged` after them are this region's (fio's two-phase buffer).
    rewrites: VecDeque<u64>,
    /// Rewrites wait for the end of the next region (a cache), not its start.
    deferred: bool,
    committed: usize,
    staged: u64,
    region: usize,
    regions: usize,
    region_writes: u64,
    /// Fresh blocks still to write in this region.
    remaining: u64,
    /// Each region's invalid share, in 1/[`PCT_PRECISION`].
    invalid: Vec<u64>,
}

impl SpRandomOrder {
    /// The next block to write; `None` once the last region is written (or every block was
    /// written and no rewrite is due).
    #[inline]
    pub(crate) fn next(&mut self, rng: &mut Rng) -> Option<u64> {
        if !self.deferred {
            if let Some(block) = self.rewrite() {
                self.keep(block, rng);
                return Some(block);
            }
        }
        if self.remaining == 0 {
            if self.deferred {
                if let Some(block) = self.rewrite() {
                    self.keep(block, rng);
                    return Some(block);
                }
            }
            if self.region + 1 >= self.regions {
                return None;
            }
            // The region's kept offsets are rewritten at the start of the next one (at its
            // end when deferred), which writes that many fewer fresh blocks.
            self.region += 1;
            self.remaining = self.region_writes.saturating_sub(self.staged);
            self.committed = self.rewrites.len();
            self.staged = 0;
        }
        let Some(block) = self.fresh.next() else {
            // Every block written: the rewrites still due end the pass (fio keeps no more).
            return if self.deferred { self.rewrite() } else { None };
        };
        self.remaining = self.remaining.saturating_sub(1);
        self.keep(block, rng);
        Some(block)
    }

    /// The next rewrite due, if any.
    fn rewrite(&mut self) -> Option<u64> {
        if self.committed == 0 {
            return None;
        }
        self.committed -= 1;
        self.rewrites.pop_front()
    }

    /// Keep `block` for rewriting in the next region with its region's invalid share.
    fn keep(&mut self, block: u64, rng: &mut Rng) {
        if rng.below(PCT_PRECISION + 1) <= self.invalid[self.region] {
            self.rewrites.push_back(block);
            self.staged += 1;
        }
    }
}

/// A permutation of `0..units` taken in order: a four-round Feistel network over the
/// smallest even power of two that holds `units`, walked again from any value beyond it
/// (cycle walking keeps it a permutation); its round keys come from the seed.
struct Permutation {
    units: u64,
    next: u64,
    half_bits: u32,
    keys: [u64; 4],
}

impl Permutation {
    fn new(units: u64, rng: &mut Rng) -> Permutation {
        let bits = (64 - units.saturating_sub(1).leading_zeros()).max(2);
        Permutation {
            units,
            next: 0,
            half_bits: bits.div_ceil(2),
            keys: [
                rng.next_u64(),
                rng.next_u64(),
                rng.next_u64(),
                rng.next_u64(),
            ],
        }
    }

    fn next(&mut self) -> Option<u64> {
        if self.next == self.units {
            return None;
        }
        let mut x = self.next;
        self.next += 1;
        // At most four values of the domain for one of the span, on average.
        loop {
            x = self.encrypt(x);
            if x < self.units {
                return Some(x);
            }
        }
    }

    #[inline]
    fn encrypt(&self, x: u64) -> u64 {
        let mask = (1u64 << self.half_bits) - 1;
        let (mut left, mut right) = (x >> self.half_bits, x & mask);
        for key in self.keys {
            (left, right) = (right, left ^ (mix(right ^ key) & mask));
        }
        (left << self.half_bits) | right
    }
}

/// splitmix64's finalizer: every input bit reaches every output bit.
#[inline]
fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_permutation_visits_every_block_once() {
        for units in [1, 2, 3, 1000, 4096, 5001] {
            let mut p = Permutation::new(units, &mut Rng::new(units));
            let mut seen = vec![false; units as usize];
            while let Some(b) = p.next() {
                assert!(!std::mem::replace(&mut seen[b as usize], true), "{b} twice");
            }
            assert!(seen.iter().all(|&s| s), "{units}: every block");
        }
    }

    /// fio's distribution at its default 15% OP: WA 4.03, victims 75% valid; the oldest
    /// region keeps the victims' validity, the newest is all valid.
    #[test]
    fn the_invalid_shares_fall_from_the_victims_to_none() {
        let s = SpRandom::default().invalid_shares();
        assert_eq!(s.len(), 100);
        assert_eq!(s[0], 2479);
        assert_eq!(s[99], 0);
        assert!(s.windows(2).all(|w| w[0] >= w[1]), "{s:?}");
    }

    /// The pass writes the physical size; each region's rewrites invalidate the previous
    /// region's share (at once or, with a cache, a region later), and the fresh blocks are
    /// about every block of the span once.
    #[test]
    fn the_pass_leaves_each_region_its_invalid_share() {
        for cache in [0, 4 << 20] {
            the_pass_leaves_the_shares(SpRandom::new(0.1, 20, cache).unwrap());
        }
    }

    fn the_pass_leaves_the_shares(s: SpRandom) {
        let (units, block) = (200_000u64, 4096);
        assert!(s.check(units, block).is_ok());
        let mut rng = Rng::new(7);
        let mut order = s.order(units, block, &mut rng);
        let per_region = s.region_writes(units, block);
        // Which region wrote each block last.
        let mut home = vec![u32::MAX; units as usize];
        let mut writes = vec![0u64; s.regions as usize];
        let mut n = 0u64;
        while let Some(b) = order.next(&mut rng) {
            let region = (n / per_region) as u32;
            writes[region as usize] += 1;
            home[b as usize] = region;
            n += 1;
        }
        // The physical size, or a little less when the blocks run out before the last
        // rewrites (fio's model wants 0.04% more fresh blocks than there are at 10% OP).
        let physical = s.writes(units, block);
        assert!(
            n <= physical && n as f64 > 0.999 * physical as f64,
            "{n} of {physical}"
        );
        let written = home.iter().filter(|&&r| r != u32::MAX).count() as f64;
        assert!(written > 0.99 * units as f64, "{written} of {units}");
        let mut valid = vec![0u64; s.regions as usize];
        for r in home.into_iter().filter(|&r| r != u32::MAX) {
            valid[r as usize] += 1;
        }
        let want = s.invalid_shares();
        for r in 0..s.regions as usize - 1 {
            let invalid = 1.0 - valid[r] as f64 / writes[r] as f64;
            let share = want[r] as f64 / PCT_PRECISION as f64;
            // Rewrites are rewritten again with the next region's share: within a few %.
            assert!(
                (invalid - share).abs() < 0.03,
                "region {r}: {invalid} vs {share}"
            );
        }
    }

    #[test]
    fn bad_parameters_are_refused() {
        assert!(SpRandom::new(0.0, 100, 0).is_err());
        assert!(SpRandom::new(1.0, 100, 0).is_err());
        assert!(SpRandom::new(f64::NAN, 100, 0).is_err());
        assert!(SpRandom::new(0.07, 0, 0).is_err());
        assert!(SpRandom::new(0.07, 100, 0)
            .unwrap()
            .check(10, 4096)
            .is_err());
        // 100 regions of 1 GiB with spare area, each smaller than a 16 MiB cache.
        let e = SpRandom::new(0.07, 100, 16 << 20)
            .unwrap()
            .check(1 << 18, 4096);
        assert!(e.unwrap_err().to_string().contains("at most 68 regions"));
        // One region already smaller than the cache: fewer regions cannot help.
        let e = SpRandom::new(0.07, 1, 16 << 20)
            .unwrap()
            .check(1024, 4096)
            .unwrap_err()
            .to_string();
        assert!(e.contains("no number of regions helps"), "{e}");
        assert!(!e.contains("at most 1 regions"), "{e}");
        let e = SpRandom::new(0.07, 2, 4 << 20)
            .unwrap()
            .check(1024, 4096)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("use 1 region,") || e.ends_with("use 1 region"),
            "{e}"
        );
    }
}
