//! TRIM (discard), in the styles drives have: immediate (unmapped at once), ignored
//! (`trim=off`), deferred (queued and unmapped in idle time at `trim_rate`; a write to a
//! pending unit supersedes it) and partial (a fixed share of trimmed units, `trim_keep`, is
//! never reclaimed, spread evenly over the LBA range: a TRIM that "does not fully work").
//!
//! Only whole mapping units inside the range are trimmed; partial units at the edges stay.

use std::collections::VecDeque;

use super::backend::Backend;
use crate::config::{TrimConfig, TrimStyle};
use crate::mapping::UNMAPPED;

/// The TRIM unit: its style, and deferred TRIM's queue (ranges of logical units, and a bit per
/// unit still pending).
pub(super) struct TrimUnit {
    cfg: TrimConfig,
    /// Where partial TRIM's kept units fall.
    seed: u64,
    pending: Vec<u64>,
    pending_count: u64,
    queue: VecDeque<(u32, u32)>,
}

impl TrimUnit {
    pub fn new(cfg: &TrimConfig, seed: u64, logical_units: u64) -> TrimUnit {
        TrimUnit {
            cfg: cfg.clone(),
            seed,
            pending: vec![0; logical_units.div_ceil(64) as usize],
            pending_count: 0,
            queue: VecDeque::new(),
        }
    }

    /// Forget every pending TRIM (a secure erase).
    pub fn reset(&mut self) {
        self.pending.fill(0);
        self.pending_count = 0;
        self.queue.clear();
    }

    #[inline]
    fn is_pending(&self, lpn: u32) -> bool {
        self.pending[lpn as usize / 64] & (1 << (lpn % 64)) != 0
    }

    #[inline]
    fn clear(&mut self, lpn: u32) -> bool {
        let w = &mut self.pending[lpn as usize / 64];
        let bit = 1 << (lpn % 64);
        let was = *w & bit != 0;
        *w &= !bit;
        if was {
            self.pending_count -= 1;
        }
        was
    }

    fn mark(&mut self, lpn: u32) {
        let w = &mut self.pending[lpn as usize / 64];
        let bit = 1 << (lpn % 64);
        if *w & bit == 0 {
            *w |= bit;
            self.pending_count += 1;
        }
    }

    /// The host wrote `lpn`: a pending TRIM of it no longer applies.
    #[inline]
    pub fn written(&mut self, lpn: u32) {
        if self.pending_count > 0 {
            self.clear(lpn);
        }
    }

    pub fn pending_units(&self) -> u64 {
        self.pending_count
    }

    /// A host discard of `len` bytes at `offset` (validated) at `now`; returns its completion.
    pub fn discard(&mut self, be: &mut Backend, now: u64, offset: u64, len: u64) -> u64 {
        let ub = be.layout.unit_bytes;
        let first = offset.div_ceil(ub) as u32;
        let end = ((offset + len) / ub) as u32;
        let per = be.layout.pages_per_unit();
        match self.cfg.style {
            TrimStyle::Ignored => {
                be.c.trim_ignored_pages += (end.saturating_sub(first)) as u64 * per;
            }
            TrimStyle::Immediate | TrimStyle::Partial => {
                let keep = (self.cfg.style == TrimStyle::Partial).then_some(self.cfg.keep_pct);
                for lpn in first..end {
                    let old = be.map.lookup(lpn);
                    if old == UNMAPPED {
                        continue;
                    }
                    if keep.is_some_and(|k| kept(lpn, self.seed, k)) {
                        be.c.trim_ignored_pages += per;
                        continue;
                    }
                    be.invalidate_lpn(lpn, old);
                    be.c.trimmed_pages += per;
                }
            }
            TrimStyle::Deferred => {
                for lpn in first..end {
                    if be.map.lookup(lpn) != UNMAPPED {
                        self.mark(lpn);
                    }
                }
                if end > first {
                    self.queue.push_back((first, end));
                }
            }
        }
        be.tl.dataless_command(now)
    }

    /// Deferred TRIM's work in idle time: unmap pending units, oldest range first, at
    /// `trim_rate` (all at once when 0).
    /// Returns whether trimmed ranges are left to unmap.
    pub fn process_deferred(&mut self, be: &mut Backend, from: u64, until: u64) -> bool {
        if self.queue.is_empty() {
            return false;
        }
        let rate = self.cfg.rate_mbps;
        let mut budget = if rate > 0.0 {
            ((until - from) as f64 * rate * 1e-3 / be.layout.unit_bytes as f64) as u64
        } else {
            u64::MAX
        };
        let per = be.layout.pages_per_unit();
        while budget > 0 {
            let Some((first, end)) = self.queue.pop_front() else {
                break;
            };
            // Saturating: the budget of `trim_rate=0` is unbounded (u64::MAX).
            let stop = (first as u64).saturating_add(budget).min(end as u64) as u32;
            for lpn in first..stop {
                if self.is_pending(lpn) {
                    self.clear(lpn);
                    let old = be.map.lookup(lpn);
                    if old != UNMAPPED {
                        be.invalidate_lpn(lpn, old);
                        be.c.trimmed_pages += per;
                    }
                }
            }
            budget -= (stop - first) as u64;
            if stop < end {
                self.queue.push_front((stop, end));
            }
        }
        !self.queue.is_empty()
    }
}

/// Whether partial TRIM keeps `lpn` (a fixed, even spread of `keep` of the units).
fn kept(lpn: u32, seed: u64, keep: f64) -> bool {
    let mut z = (lpn as u64 ^ seed).wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^= z >> 31;
    ((z % 1_000_000) as f64) < keep * 10_000.0
}
