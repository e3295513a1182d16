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

use super::Ftl;
use crate::block_manager::{Stream, NO_BLOCK};
use crate::config::{SlcConfig, SlcDrain, SlcRegion, SlcWhenFull};
use crate::geometry::Layout;
use crate::timing::transfer_ns;

/// The pseudo-SLC cache's settings and state: its region, whether it is on, and the drain.
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
}

impl Ftl {
    /// The die to put a host unit on in the cache at `t`, or `None` to bypass it.
    ///
    /// With `slc_drain=always`, a full cache is folded whole in the background at the drain
    /// rate while host writes bypass it, and reopens once empty: bursts at the cache's speed
    /// between stretches at the main array's. It folds while the host writes only while the
    /// main array is short of free blocks ([`Ftl::short_of_free_blocks`]), when the firmware is
    /// garbage-collecting anyway; on a drive with blocks to spare, folding at a fixed rate
    /// would only take the dies from the host: a clean 840 EVO 120GB's sequential write
    /// swung between 40 and 410 MB/s, below its TLC's 140 on average.
    pub(super) fn slc_take(&mut self, t: u64) -> Option<u32> {
        if self.slc.draining {
            if self.blocks.slc_closed_count() == 0 {
                self.slc.draining = false;
            } else if t >= self.slc.next_fold
                && self.short_of_free_blocks()
                && self.fold_oldest(None, t, true)
            {
                self.slc.next_fold = t + self.slc.fold_interval_ns(&self.layout);
            }
            if self.slc.draining {
                return None;
            }
        }
        let d = self.host_die();
        if self.slc_room(d) {
            return Some(d);
        }
        if self.slc.cfg.when_full == SlcWhenFull::Fold
            && self.fold_oldest(Some(d), t, true)
            && self.slc_room(d)
        {
            return Some(d);
        }
        if self.slc.cfg.drain == SlcDrain::Always {
            self.slc.draining = true;
            self.slc.next_fold = t;
        }
        None
    }

    /// Whether the main array is in garbage collection's territory: fewer than twice the free
    /// blocks at which GC starts (a clean or lightly used drive has many more).
    fn short_of_free_blocks(&self) -> bool {
        self.blocks.free_main_count() < 2 * self.gc.trigger()
    }

    /// Whether die `d` can take a host unit in its cache now, opening a cache block if needed.
    fn slc_room(&mut self, d: u32) -> bool {
        if self.blocks.frontier(d, Stream::Slc).has_room() {
            return true;
        }
        match self.slc.cfg.region {
            SlcRegion::Static => {
                self.blocks.has_free(d, Stream::Slc)
                    && self.blocks.open(d, Stream::Slc, &self.layout)
            }
            SlcRegion::Dynamic => {
                self.blocks.slc_borrowed() < self.slc.max_blocks
                    && self.blocks.free_main_count() > self.gc.bg_threshold()
                    && self.blocks.open_borrowed_slc(d, &self.layout)
            }
        }
    }

    /// Fold the oldest closed cache block (of die `d`, or of any die) into the main array,
    /// work queued from `t`; `make_room`: run foreground GC first if the main array is at its
    /// threshold (not from inside GC). Returns whether a block was folded.
    pub(super) fn fold_oldest(&mut self, d: Option<u32>, t: u64, make_room: bool) -> bool {
        let die = match d.or_else(|| self.blocks.oldest_cached_die()) {
            Some(d) => d,
            None => return false,
        };
        if !self.blocks.has_cached(die) {
            return false;
        }
        if make_room && self.blocks.free_main_count() <= self.gc.threshold() {
            self.foreground_gc(t, self.gc.threshold());
            if self.blocks.free_main_count() <= self.gc.threshold() {
                return false;
            }
        }
        let b = self.blocks.pop_cached(die).expect("checked non-empty");
        let was = self.gc.set_running(true);
        let ok = self.clean_block(b, t);
        self.gc.set_running(was);
        ok
    }

    /// Fold cached data in idle time, oldest first, at the drain rate and while the dies are
    /// free before `until`. Partly filled cache blocks are closed and folded too. Returns
    /// whether cached data is left to fold (it stopped only for lack of time).
    pub(super) fn drain_slc(&mut self, from: u64, until: u64) -> bool {
        for d in 0..self.layout.dies {
            let f = *self.blocks.frontier(d, Stream::Slc);
            if f.block != NO_BLOCK && f.next > 0 {
                self.blocks.close(d, Stream::Slc);
            }
        }
        let interval = self.slc.fold_interval_ns(&self.layout);
        let mut at = from;
        let mut budget = self.layout.total_blocks() as u64;
        while budget > 0 && at < until {
            budget -= 1;
            let Some(d) = self.blocks.oldest_cached_die() else {
                return false;
            };
            if self.tl.die_free_at(d) >= until {
                return true;
            }
            if !self.fold_oldest(Some(d), at, true) {
                return false;
            }
            at += interval;
        }
        self.blocks.slc_closed_count() > 0
    }
}
