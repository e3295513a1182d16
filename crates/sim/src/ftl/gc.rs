//! Garbage collection: when it runs (the style), and what relocating a victim costs.
//!
//! Styles, from the smoothest to the burstiest (all start at `gc_trigger` free blocks; below
//! `gc_threshold` GC runs all-out whatever the style, which validation makes always possible):
//! - **latency-first**: a victim's relocations are spread over the host writes that use the
//!   space it frees, a stripe at a time;
//! - **paced**: a whole victim is cleaned each time the host has used the space the previous
//!   one freed;
//! - **bursty**: below the trigger, GC cleans `gc_burst_rate` times faster than the host uses
//!   space until a high watermark (`gc_burst` beyond the trigger), then rests: stretches of
//!   slow host writes between stretches at full speed.
//!
//! Relocation is on the real path: each valid unit is read on its die, crosses its channel
//! into the controller and crosses the destination's channel to be programmed (or, with
//! copyback, is reprogrammed on the same die without crossing any channel), and may cost
//! controller time. Background GC in idle time is the same for every style.

use engine::pattern::Rng;

use super::Ftl;
use crate::block_manager::{BlockManager, Stream};
use crate::config::{BurstSize, Config, GcStyle};
use crate::geometry::Layout;
use crate::victim::GcPolicy;

/// The GC scheduler (MQSim's GC unit): which victim, when (the style and its burst, credit and
/// incremental state), and the buffers relocation reuses.
pub(super) struct GcScheduler {
    policy: GcPolicy,
    style: GcStyle,
    /// All-out foreground GC at this many free blocks; background GC below the other.
    threshold: u32,
    bg_threshold: u32,
    /// Paced, bursty and latency-first GC start at this many free blocks.
    trigger: u32,
    burst: BurstSize,
    jitter: f64,
    /// Bursty GC bursts only while this share of the main array holds no valid data.
    burst_above: f64,
    /// Bursty GC: how much faster than the host uses space a burst frees it, whether a burst
    /// is on, and the free blocks it stops at.
    burst_rate: f64,
    hot: bool,
    target: u32,
    copyback: bool,
    same_die: bool,
    unit_ns: u64,
    /// GC is running (its own writes must not start GC again).
    running: bool,
    /// Paced GC: units the host may still write before the next victim is cleaned.
    credit: i64,
    inc: Incremental,
    /// The drive's own deterministic variation (burst sizes).
    rng: Rng,
    /// Reused by GC: (unit index in the victim, logical unit), and one stripe's run.
    scratch: Vec<(u32, u32)>,
    run_buf: Vec<(u32, u32)>,
}

impl GcScheduler {
    pub fn new(cfg: &Config, layout: &Layout) -> GcScheduler {
        GcScheduler {
            policy: cfg.gc.policy,
            style: cfg.gc.style,
            threshold: cfg.gc_threshold(),
            bg_threshold: cfg.bg_gc_threshold(),
            trigger: cfg.gc_trigger(),
            burst: cfg.gc_burst(),
            jitter: cfg.gc.jitter_pct / 100.0,
            burst_above: cfg.gc.burst_above_pct / 100.0,
            burst_rate: cfg.gc.burst_rate,
            hot: false,
            target: 0,
            copyback: cfg.gc.copyback,
            same_die: cfg.gc.same_die,
            unit_ns: cfg.gc.unit_ns,
            running: false,
            credit: 0,
            inc: Incremental::default(),
            rng: Rng::new(cfg.seed),
            scratch: Vec::with_capacity(layout.block_units as usize),
            run_buf: Vec::with_capacity(layout.stripe_units as usize),
        }
    }

    pub fn policy(&self) -> GcPolicy {
        self.policy
    }

    /// Free blocks at which foreground GC runs all-out.
    pub fn threshold(&self) -> u32 {
        self.threshold
    }

    /// Free blocks below which background GC cleans in idle time.
    pub fn bg_threshold(&self) -> u32 {
        self.bg_threshold
    }

    /// Free blocks at which the style's GC starts.
    pub fn trigger(&self) -> u32 {
        self.trigger
    }

    pub fn running(&self) -> bool {
        self.running
    }

    /// Mark GC as running or not; returns whether it was.
    pub fn set_running(&mut self, running: bool) -> bool {
        std::mem::replace(&mut self.running, running)
    }

    /// A host unit went to the main array: it uses up paced GC's credit.
    #[inline]
    pub fn host_unit_written(&mut self) {
        self.credit -= 1;
    }

    /// Forget the style's state (a secure erase); the random sequence carries on.
    pub fn reset(&mut self) {
        self.inc = Incremental::default();
        self.credit = 0;
        self.hot = false;
    }

    /// The next victim, if cleaning it would free anything. A full victim frees nothing; only
    /// FIFO goes through it (to move its queue on).
    fn pick_victim(&mut self, blocks: &mut BlockManager, block_units: u32) -> Option<u32> {
        let v = blocks.pick_victim()?;
        if blocks.valid(v) >= block_units && self.policy != GcPolicy::Fifo {
            return None;
        }
        Some(v)
    }

    /// Blocks the next burst frees, jittered deterministically around `burst`;
    /// `reclaimable`: main-array blocks' worth of space holding no valid data.
    fn next_burst(&mut self, reclaimable: u64) -> u32 {
        let base = match self.burst {
            BurstSize::Blocks(n) => n as f64,
            BurstSize::ReclaimablePct(p) => reclaimable as f64 * p / 100.0,
        };
        let x = if self.jitter > 0.0 {
            self.rng.unit() * 2.0 - 1.0
        } else {
            0.0
        };
        (base * (1.0 + self.jitter * x)).round().max(1.0) as u32
    }
}

/// A victim being relocated, possibly a piece at a time.
#[derive(Default)]
pub(super) struct Relocation {
    block: u32,
    /// (unit index in the block, logical unit) of the units valid when it was picked.
    units: Vec<(u32, u32)>,
    pos: usize,
    /// Check each unit is still current (the host may have written it since the pick).
    verify: bool,
    /// The source stripe last read, and when its data reached the controller.
    src_stripe: u32,
    src_ready: u64,
}

/// Latency-first GC's victim in progress and what the host owes.
#[derive(Default)]
struct Incremental {
    reloc: Option<Relocation>,
    /// Relocations owed (each host unit adds `ratio`, each relocation pays one).
    debt: f64,
    /// Relocations per freed unit, smoothed over victims.
    ratio: f64,
    victims: u64,
    spare: Vec<(u32, u32)>,
}

impl Ftl {
    fn pick_victim(&mut self) -> Option<u32> {
        self.gc
            .pick_victim(&mut self.blocks, self.layout.block_units)
    }

    /// Foreground GC, all-out: clean victims until more than `target` blocks are free. Called
    /// when a host write needs a new block (target: the threshold) and by bursty GC (target:
    /// the high watermark); its work delays the writes that follow.
    pub(super) fn foreground_gc(&mut self, t: u64, target: u32) {
        if self.gc.running {
            return;
        }
        self.gc.running = true;
        if let Some(mut r) = self.gc.inc.reloc.take() {
            // Finish latency-first GC's victim first: its block is out of the victim index.
            if self.relocate(&mut r, usize::MAX, t) {
                self.gc.inc.spare = self.finish(r, t);
            } else {
                self.gc.inc.reloc = Some(r);
            }
        }
        let mut budget = self.layout.main_blocks();
        while self.blocks.free_main_count() <= target && budget > 0 {
            budget -= 1;
            // A dynamic cache gives its borrowed blocks back first.
            if self.blocks.slc_borrowed() > 0 && self.fold_oldest(None, t, false) {
                continue;
            }
            let Some(v) = self.pick_victim() else { break };
            if !self.clean_block(v, t) {
                break;
            }
            self.c.gc_invocations += 1;
        }
        self.gc.running = false;
    }

    /// Called before each host unit goes to the main array: the style's foreground GC.
    pub(super) fn host_gc(&mut self, t: u64) {
        if self.gc.running {
            return;
        }
        match self.gc.style {
            GcStyle::Paced => self.paced_gc(t),
            GcStyle::Bursty if self.reclaimable_share() < self.gc.burst_above => self.paced_gc(t),
            GcStyle::Bursty => {
                let free = self.blocks.free_main_count();
                if !self.gc.hot && free <= self.gc.trigger {
                    self.gc.hot = true;
                    self.gc.credit = 0;
                    // A burst frees at most half the stale space in closed blocks: past that
                    // its greedy victims hold more valid data than the average block. On a
                    // drive whose spare area barely holds the free-block reserve, the high
                    // watermark was beyond what GC can free at all and the burst never ended:
                    // at 2 GiB and 7% spare, 1000 relocations per host write and 35 IOPS.
                    let burst = self.gc.next_burst(self.reclaimable_blocks());
                    let reach = free + self.stale_closed_blocks() / 2;
                    self.gc.target = (self.gc.trigger + burst).min(reach);
                }
                if self.gc.hot && free > self.gc.target {
                    self.gc.hot = false;
                    self.gc.credit = 0;
                }
                if self.gc.hot {
                    self.paced_step(t, self.gc.burst_rate);
                }
            }
            GcStyle::LatencyFirst => self.incremental_gc(t),
        }
    }

    /// Main-array blocks' worth of space holding no valid data (free or stale).
    fn reclaimable_blocks(&self) -> u64 {
        let held = self
            .map
            .mapped_units()
            .div_ceil(self.layout.block_units as u64);
        self.layout.main_blocks().saturating_sub(held)
    }

    /// Blocks' worth of stale (overwritten or trimmed) units in closed main-array blocks (the
    /// victim index holds exactly those): the most GC can turn into free blocks.
    fn stale_closed_blocks(&self) -> u32 {
        let stale = self.blocks.stale_closed_units(self.layout.block_units);
        (stale / u64::from(self.layout.block_units)) as u32
    }

    /// The share of the main array holding no valid data, 0..1.
    fn reclaimable_share(&self) -> f64 {
        self.reclaimable_blocks() as f64 / self.layout.main_blocks() as f64
    }

    /// Paced: below the trigger, clean one victim whenever the host has used the space the
    /// previous one freed (`gc_credit`, in units).
    fn paced_gc(&mut self, t: u64) {
        if self.blocks.free_main_count() > self.gc.trigger {
            self.gc.credit = 0;
            return;
        }
        self.paced_step(t, 1.0);
    }

    /// Clean a victim whenever the host has used `1/rate` of the space the previous one
    /// freed: at rate 1 GC keeps pace with the host, above it GC gains on it.
    fn paced_step(&mut self, t: u64, rate: f64) {
        if self.gc.credit > 0 {
            return;
        }
        let Some(v) = self.pick_victim() else { return };
        let valid = self.blocks.valid(v);
        self.gc.running = true;
        if self.clean_block(v, t) {
            self.c.gc_invocations += 1;
            self.gc.credit += ((self.layout.block_units - valid) as f64 / rate).ceil() as i64;
        }
        self.gc.running = false;
    }

    /// Latency-first: below the trigger, every host unit owes the same number of relocations
    /// (the smoothed ratio of valid to freed units over recent victims), moved a stripe's
    /// worth at a time from the victim in progress, so no host write pays for an unlucky
    /// victim and every second looks like the next.
    fn incremental_gc(&mut self, t: u64) {
        if self.gc.inc.reloc.is_none() && self.blocks.free_main_count() > self.gc.trigger {
            self.gc.inc.debt = 0.0;
            return;
        }
        self.gc.inc.debt += self.gc.inc.ratio;
        let stripe = self.layout.stripe_units as f64;
        if self.gc.inc.reloc.is_some() && self.gc.inc.debt < stripe {
            return;
        }
        self.gc.running = true;
        let mut budget = 4;
        while budget > 0 {
            budget -= 1;
            let mut r = match self.gc.inc.reloc.take() {
                Some(r) => r,
                None => {
                    let Some(v) = self.pick_victim() else { break };
                    let units = std::mem::take(&mut self.gc.inc.spare);
                    let mut r = self.begin(v, units);
                    r.verify = true;
                    let valid = r.units.len() as f64;
                    let ratio = valid / (self.layout.block_units as f64 - valid).max(1.0);
                    self.gc.inc.ratio = if self.gc.inc.victims == 0 {
                        ratio
                    } else {
                        0.9 * self.gc.inc.ratio + 0.1 * ratio
                    };
                    self.gc.inc.victims += 1;
                    self.c.gc_invocations += 1;
                    r
                }
            };
            let owed = self.gc.inc.debt.max(0.0) as usize;
            let before = r.pos;
            let ok = self.relocate(&mut r, owed.max(1), t);
            self.gc.inc.debt -= (r.pos - before) as f64;
            if ok && r.pos == r.units.len() {
                self.gc.inc.spare = self.finish(r, t);
                // A victim that needed less than owed leaves the rest to the next.
                if self.gc.inc.debt < stripe {
                    break;
                }
            } else {
                self.gc.inc.reloc = Some(r);
                break;
            }
        }
        self.gc.running = false;
    }

    /// Background GC in idle time: clean while fewer than `bg_gc_threshold` blocks are free, a
    /// victim would free something, and its die is free before `until`. Above the threshold it
    /// still erases blocks that hold nothing valid (trimmed or overwritten): that costs no
    /// copying, and it is what lets a trimmed drive write at its clean speed again.
    pub(super) fn background_gc(&mut self, from: u64, until: u64) -> bool {
        let mut pending = false;
        self.gc.running = true;
        if let Some(mut r) = self.gc.inc.reloc.take() {
            if self.relocate(&mut r, usize::MAX, from) {
                self.gc.inc.spare = self.finish(r, from);
            } else {
                self.gc.inc.reloc = Some(r);
            }
        }
        let mut budget = self.layout.main_blocks();
        loop {
            if budget == 0 {
                pending = true;
                break;
            }
            budget -= 1;
            let Some(v) = self.pick_victim() else { break };
            let valid = self.blocks.valid(v);
            if valid >= self.layout.block_units
                || (valid > 0 && self.blocks.free_main_count() >= self.gc.bg_threshold)
            {
                break;
            }
            let d = self.layout.die_of_block(v);
            if self.tl.die_free_at(d) >= until {
                pending = true;
                break;
            }
            if !self.clean_block(v, from) {
                break;
            }
            self.c.gc_invocations += 1;
            self.c.gc_background_invocations += 1;
        }
        self.gc.running = false;
        pending
    }

    /// Relocate every valid unit of block `b` (main or pseudo-SLC) and erase it, starting no
    /// earlier than `t`. Main victims must be in the victim index, cache blocks already off
    /// their queue. Returns false (leaving the block closed with what is still valid) if no
    /// space could be found, which validation rules out.
    pub(super) fn clean_block(&mut self, b: u32, t: u64) -> bool {
        let units = std::mem::take(&mut self.gc.scratch);
        let mut r = self.begin(b, units);
        if self.relocate(&mut r, usize::MAX, t) {
            self.gc.scratch = self.finish(r, t);
            true
        } else {
            self.blocks.stop_cleaning(b, self.layout.die_of_block(b));
            self.gc.scratch = r.units;
            false
        }
    }

    /// Start relocating block `b`: take it out of the victim index and list its valid units.
    pub(super) fn begin(&mut self, b: u32, mut units: Vec<(u32, u32)>) -> Relocation {
        let slc = self.blocks.is_slc(b);
        self.blocks.start_cleaning(b);
        let n = if slc {
            self.layout.slc_block_units
        } else {
            self.layout.block_units
        };
        units.clear();
        let base = b * self.layout.block_units;
        self.map
            .collect_valid(base, n, self.blocks.valid(b), &mut units);
        Relocation {
            block: b,
            units,
            pos: 0,
            verify: false,
            src_stripe: u32::MAX,
            src_ready: 0,
        }
    }

    /// Move up to `max` of the relocation's units (skipping those the host has overwritten
    /// since), work queued from `t`. Returns false if no destination could be found.
    pub(super) fn relocate(&mut self, r: &mut Relocation, max: usize, t: u64) -> bool {
        let b = r.block;
        let slc = self.blocks.is_slc(b);
        let d = self.layout.die_of_block(b);
        let ch = self.layout.channel_of_die(d);
        let read_ns = if slc {
            self.pslc.read_ns
        } else {
            self.native.read_ns
        };
        let stripe = self.layout.stripe_units;
        let base = b * self.layout.block_units;
        let end = r.units.len().min(r.pos.saturating_add(max));
        let mut moved = 0u64;
        let mut run = std::mem::take(&mut self.gc.run_buf);
        let mut ok = true;
        while r.pos < end {
            // The run of (still) valid units of one source stripe.
            let s = r.units[r.pos].0 / stripe;
            let mut j = r.pos;
            run.clear();
            while j < end && r.units[j].0 / stripe == s {
                let (u, lpn) = r.units[j];
                if !r.verify || self.map.owner(base + u) == Some(lpn) {
                    run.push((u, lpn));
                }
                j += 1;
            }
            r.pos = j;
            if run.is_empty() {
                continue;
            }
            // One multi-plane page read on the victim's die; the data then crosses its
            // channel unless it stays on the die for a copyback.
            let copyback = self.gc.copyback && self.ensure_room(d, Stream::Gc, t);
            if s != r.src_stripe {
                r.src_ready = self.tl.die_op(d, t, read_ns);
                r.src_stripe = s;
                self.c.nand_read_ops += 1;
                self.c.reads[slc as usize] += 1;
            }
            if !copyback {
                self.tl.channel_units(ch, r.src_ready, run.len() as u32);
            }
            // Into the relocation stream, a destination stripe at a time. The programs are
            // queued from `t`, not from when the read data arrives: with next-free-time
            // timing, waiting for the read would leave idle holes on the destination dies
            // that later work cannot fill, and under-count what the dies can do.
            let mut i = 0;
            while i < run.len() {
                let same_die = (copyback || self.gc.same_die) && self.ensure_room(d, Stream::Gc, t);
                let to = if same_die {
                    d
                } else if let Some(to) = self.pick_die(Stream::Gc, t) {
                    to
                } else {
                    ok = false;
                    break;
                };
                let n = self.program_run(to, &run[i..], t, !(same_die && copyback));
                self.blocks.moved_out(b, n);
                i += n as usize;
            }
            moved += i as u64;
            if !ok {
                break;
            }
        }
        self.gc.run_buf = run;
        if slc {
            self.c.slc_migrations += moved * self.layout.pages_per_unit();
        } else {
            self.c.gc_relocated_pages += moved * self.layout.pages_per_unit();
        }
        if self.gc.unit_ns > 0 && moved > 0 {
            self.tl.controller(t, moved * self.gc.unit_ns);
        }
        ok
    }

    /// Erase a fully relocated block; returns its unit list's buffer for reuse.
    pub(super) fn finish(&mut self, r: Relocation, t: u64) -> Vec<(u32, u32)> {
        let b = r.block;
        let d = self.layout.die_of_block(b);
        let slc = self.blocks.is_slc(b);
        let erase_ns = if slc {
            self.pslc.erase_ns
        } else {
            self.native.erase_ns
        };
        self.tl.die_op(d, t, erase_ns);
        self.c.erases[slc as usize] += 1;
        self.blocks.erased(b, &self.layout);
        r.units
    }
}
