//! The pseudo-SLC write cache (SanDisk nCache, Samsung TurboWrite): blocks run at one bit per
//! cell, with faster programs. Host writes land there while it has room. When it is full a
//! host write either bypasses it to the main array or waits while the oldest cached block is
//! folded (`slc_full`). The cache is folded into the main array, oldest first, in idle time,
//! and with `slc_drain=always` also while the host writes, at `slc_drain_rate`, as part of
//! garbage collection: only while the main array is short of free blocks. A drive with free
//! blocks to spare (a clean one) folds in idle time only, so a long write runs at the main
//! array's speed once the cache is full, as a real TurboWrite drive does. Its blocks are
//! a static region, or free main-array blocks borrowed while the drive has room to spare
//! (`slc_region=dynamic`). Every folded unit is programmed twice, which write amplification
//! shows.

use super::backend::Backend;
use super::gc::GcScheduler;
use crate::block_manager::Stream;
use crate::config::{SlcConfig, SlcDrain, SlcRegion, SlcWhenFull};
use crate::geometry::Layout;
use crate::timing::transfer_ns;

/// The pseudo-SLC cache's settings and state: its region, whether it is on, and the drain.
/// It chooses where host units go in the cache and drains it in idle time; folding a block
/// is the GC scheduler's work.
pub(super) struct SlcCache {
    cfg: SlcConfig,
    /// Cache blocks a dynamic cache may borrow at most (0: no cache).
    max_blocks: u32,
    /// `slc_drain=always`: the full cache is being folded (host writes bypass it) and when
    /// the next block may be.
    draining: bool,
    next_fold: u64,
}

impl SlcCache {
    pub fn new(cfg: &SlcConfig, layout: &Layout) -> SlcCache {
        let max_blocks = if layout.slc_block_units == 0 || cfg.bytes == 0 {
            0
        } else {
            cfg.bytes
                .div_ceil(layout.unit_bytes)
                .div_ceil(layout.slc_block_units as u64) as u32
        };
        SlcCache {
            cfg: cfg.clone(),
            max_blocks,
            draining: false,
            next_fold: 0,
        }
    }

    pub fn enabled(&self) -> bool {
        self.max_blocks > 0
    }

    /// Whether a host write of `len` bytes may go to the cache.
    #[inline]
    pub fn takes(&self, len: u64) -> bool {
        self.enabled() && (self.cfg.max_write_bytes == 0 || len <= self.cfg.max_write_bytes)
    }

    /// Forget the drain in progress (a secure erase).
    pub fn reset(&mut self) {
        self.draining = false;
        self.next_fold = 0;
    }

    /// Virtual time to fold one cache block at the drain rate (0: no pacing).
    fn fold_interval_ns(&self, layout: &Layout) -> u64 {
        if self.cfg.drain_mbps <= 0.0 {
            return 0;
        }
        let bytes = layout.slc_block_units as u64 * layout.unit_bytes;
        transfer_ns(bytes, self.cfg.drain_mbps)
    }

    /// The die to put a host unit on in the cache at `t`, or `None` to bypass it.
    ///
    /// With `slc_drain=always`, a full cache is folded whole in the background at the drain
    /// rate while host writes bypass it, and reopens once empty: bursts at the cache's speed
    /// between stretches at the main array's. It folds while the host writes only while the
    /// main array is short of free blocks ([`GcScheduler::short_of_free_blocks`]), when the
    /// firmware is garbage-collecting anyway; on a drive with blocks to spare, folding at a
    /// fixed rate would only take the dies from the host: a clean 840 EVO 120GB's sequential
    /// write swung between 40 and 410 MB/s, below its TLC's 140 on average.
    pub fn take(&mut self, be: &mut Backend, gc: &mut GcScheduler, t: u64) -> Option<u32> {
        if self.draining {
            if be.blocks.slc_closed_count() == 0 {
                self.draining = false;
            } else if t >= self.next_fold
                && gc.short_of_free_blocks(&be.blocks)
                && gc.fold_oldest(be, None, t, true)
            {
                self.next_fold = t + self.fold_interval_ns(&be.layout);
            }
            if self.draining {
                return None;
            }
        }
        let d = be.host_die();
        if self.room(be, gc, d) {
            return Some(d);
        }
        if self.cfg.when_full == SlcWhenFull::Fold
            && gc.fold_oldest(be, Some(d), t, true)
            && self.room(be, gc, d)
        {
            return Some(d);
        }
        if self.cfg.drain == SlcDrain::Always {
            self.draining = true;
            self.next_fold = t;
        }
        None
    }

    /// Whether die `d` can take a host unit in its cache now, opening a cache block if needed.
    fn room(&self, be: &mut Backend, gc: &GcScheduler, d: u32) -> bool {
        if be.blocks.frontier(d, Stream::Slc).has_room() {
            return true;
        }
        match self.cfg.region {
            SlcRegion::Static => {
                be.blocks.has_free(d, Stream::Slc) && be.blocks.open(d, Stream::Slc, &be.layout)
            }
            SlcRegion::Dynamic => {
                be.blocks.slc_borrowed() < self.max_blocks
                    && be.blocks.free_main_count() > gc.bg_threshold()
                    && be.blocks.open_borrowed_slc(d, &be.layout)
            }
        }
    }

    /// Fold cached data in idle time, oldest first, at the drain rate and while the dies are
    /// free before `until`. Partly filled cache blocks are closed and folded too. Returns
    /// whether cached data is left to fold (it stopped only for lack of time).
    pub fn drain(&self, be: &mut Backend, gc: &mut GcScheduler, from: u64, until: u64) -> bool {
        for d in 0..be.layout.dies {
            if be.blocks.frontier(d, Stream::Slc).is_started() {
                be.blocks.close(d, Stream::Slc);
            }
        }
        let interval = self.fold_interval_ns(&be.layout);
        let mut at = from;
        let mut budget = be.layout.total_blocks() as u64;
        while budget > 0 && at < until {
            budget -= 1;
            let Some(d) = be.blocks.oldest_cached_die() else {
                return false;
            };
            if be.tl.die_free_at(d) >= until {
                return true;
            }
            if !gc.fold_oldest(be, Some(d), at, true) {
                return false;
            }
            at += interval;
        }
        be.blocks.slc_closed_count() > 0
    }
}
