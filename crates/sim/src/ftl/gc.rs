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

use super::backend::Backend;
use crate::block_manager::{BlockManager, Stream};
use crate::config::{BurstSize, Config, GcStyle};
use crate::geometry::Layout;
use crate::victim::GcPolicy;

/// The GC scheduler (MQSim's GC unit): which victim, when (the style and its burst, credit and
/// incremental state), and the buffers relocation reuses. It does its work on the back end it
/// is given: foreground, paced, bursty, latency-first and background GC, folding pseudo-SLC
/// cache blocks, and relocating and erasing victims.
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
    /// Bursty GC bursts only while fewer logical units than this are mapped: while at least
    /// `gc_burst_above` of the main array holds no valid data.
    burst_from_mapped: u64,
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
            burst_from_mapped: burst_from_mapped(cfg.gc.burst_above_pct / 100.0, layout),
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

    /// Free blocks below which background GC cleans in idle time.
    pub fn bg_threshold(&self) -> u32 {
        self.bg_threshold
    }

    /// Whether the main array is in garbage collection's territory: fewer than twice the free
    /// blocks at which GC starts (a clean or lightly used drive has many more).
    pub fn short_of_free_blocks(&self, blocks: &BlockManager) -> bool {
        blocks.free_main_count() < 2 * self.trigger
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
    fn pick_victim(&self, be: &mut Backend) -> Option<u32> {
        let v = be.blocks.pick_victim()?;
        if be.blocks.valid(v) >= be.layout.block_units && self.policy != GcPolicy::Fifo {
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

    /// A host-stream block is full and a new one must be opened: at the threshold, all-out
    /// foreground GC starts (not from inside GC).
    pub fn make_room(&mut self, be: &mut Backend, t: u64) {
        if !self.running && be.blocks.free_main_count() <= self.threshold {
            self.foreground_gc(be, t, self.threshold);
        }
    }

    /// Foreground GC, all-out: clean victims until more than `target` blocks are free. Called
    /// when a host write needs a new block (target: the threshold) and by bursty GC (target:
    /// the high watermark); its work delays the writes that follow.
    fn foreground_gc(&mut self, be: &mut Backend, t: u64, target: u32) {
        if self.running {
            return;
        }
        self.running = true;
        if let Some(mut r) = self.inc.reloc.take() {
            // Finish latency-first GC's victim first: its block is out of the victim index.
            if self.relocate(be, &mut r, usize::MAX, t) {
                self.inc.spare = finish(be, r, t);
            } else {
                self.inc.reloc = Some(r);
            }
        }
        let mut budget = be.layout.main_blocks();
        while be.blocks.free_main_count() <= target && budget > 0 {
            budget -= 1;
            // A dynamic cache gives its borrowed blocks back first.
            if be.blocks.slc_borrowed() > 0 && self.fold_oldest(be, None, t, false) {
                continue;
            }
            let Some(v) = self.pick_victim(be) else { break };
            if !self.clean_block(be, v, t) {
                break;
            }
            be.c.gc_invocations += 1;
        }
        self.running = false;
    }

    /// Called before each host unit goes to the main array: the style's foreground GC.
    pub fn host_gc(&mut self, be: &mut Backend, t: u64) {
        if self.running {
            return;
        }
        match self.style {
            GcStyle::Paced => self.paced_gc(be, t),
            GcStyle::Bursty if be.map.mapped_units() >= self.burst_from_mapped => {
                self.paced_gc(be, t)
            }
            GcStyle::Bursty => {
                let free = be.blocks.free_main_count();
                if !self.hot && free <= self.trigger {
                    self.hot = true;
                    self.credit = 0;
                    // A burst frees at most half the stale space in closed blocks: past that
                    // its greedy victims hold more valid data than the average block. On a
                    // drive whose spare area barely holds the free-block reserve, the high
                    // watermark was beyond what GC can free at all and the burst never ended:
                    // at 2 GiB and 7% spare, 1000 relocations per host write and 35 IOPS.
                    let burst =
                        self.next_burst(reclaimable_blocks(be.map.mapped_units(), &be.layout));
                    let reach = free + stale_closed_blocks(be) / 2;
                    self.target = (self.trigger + burst).min(reach);
                }
                if self.hot && free > self.target {
                    self.hot = false;
                    self.credit = 0;
                }
                if self.hot {
                    self.paced_step(be, t, self.burst_rate);
                }
            }
            GcStyle::LatencyFirst => self.incremental_gc(be, t),
        }
    }

    /// Paced: below the trigger, clean one victim whenever the host has used the space the
    /// previous one freed (`gc_credit`, in units).
    fn paced_gc(&mut self, be: &mut Backend, t: u64) {
        if be.blocks.free_main_count() > self.trigger {
            self.credit = 0;
            return;
        }
        self.paced_step(be, t, 1.0);
    }

    /// Clean a victim whenever the host has used `1/rate` of the space the previous one
    /// freed: at rate 1 GC keeps pace with the host, above it GC gains on it.
    fn paced_step(&mut self, be: &mut Backend, t: u64, rate: f64) {
        if self.credit > 0 {
            return;
        }
        let Some(v) = self.pick_victim(be) else {
            return;
        };
        let valid = be.blocks.valid(v);
        self.running = true;
        if self.clean_block(be, v, t) {
            be.c.gc_invocations += 1;
            self.credit += ((be.layout.block_units - valid) as f64 / rate).ceil() as i64;
        }
        self.running = false;
    }

    /// Latency-first: below the trigger, every host unit owes the same number of relocations
    /// (the smoothed ratio of valid to freed units over recent victims), moved a stripe's
    /// worth at a time from the victim in progress, so no host write pays for an unlucky
    /// victim and every second looks like the next.
    fn incremental_gc(&mut self, be: &mut Backend, t: u64) {
        if self.inc.reloc.is_none() && be.blocks.free_main_count() > self.trigger {
            self.inc.debt = 0.0;
            return;
        }
        self.inc.debt += self.inc.ratio;
        let stripe = be.layout.stripe_units as f64;
        if self.inc.reloc.is_some() && self.inc.debt < stripe {
            return;
        }
        self.running = true;
        let mut budget = 4;
        while budget > 0 {
            budget -= 1;
            let mut r = match self.inc.reloc.take() {
                Some(r) => r,
                None => {
                    let Some(v) = self.pick_victim(be) else { break };
                    let units = std::mem::take(&mut self.inc.spare);
                    let mut r = begin(be, v, units);
                    r.verify = true;
                    let valid = r.units.len() as f64;
                    let ratio = valid / (be.layout.block_units as f64 - valid).max(1.0);
                    self.inc.ratio = if self.inc.victims == 0 {
                        ratio
                    } else {
                        0.9 * self.inc.ratio + 0.1 * ratio
                    };
                    self.inc.victims += 1;
                    be.c.gc_invocations += 1;
                    r
                }
            };
            let owed = self.inc.debt.max(0.0) as usize;
            let before = r.pos;
            let ok = self.relocate(be, &mut r, owed.max(1), t);
            self.inc.debt -= (r.pos - before) as f64;
            if ok && r.pos == r.units.len() {
                self.inc.spare = finish(be, r, t);
                // A victim that needed less than owed leaves the rest to the next.
                if self.inc.debt < stripe {
                    break;
                }
            } else {
                self.inc.reloc = Some(r);
                break;
            }
        }
        self.running = false;
    }

    /// Background GC in idle time: clean while fewer than `bg_gc_threshold` blocks are free, a
    /// victim would free something, and its die is free before `until`. Above the threshold it
    /// still erases blocks that hold nothing valid (trimmed or overwritten): that costs no
    /// copying, and it is what lets a trimmed drive write at its clean speed again. Returns
    /// whether work is left (it stopped only for lack of time).
    pub fn background_gc(&mut self, be: &mut Backend, from: u64, until: u64) -> bool {
        let mut pending = false;
        self.running = true;
        if let Some(mut r) = self.inc.reloc.take() {
            if self.relocate(be, &mut r, usize::MAX, from) {
                self.inc.spare = finish(be, r, from);
            } else {
                self.inc.reloc = Some(r);
            }
        }
        let mut budget = be.layout.main_blocks();
        loop {
            if budget == 0 {
                pending = true;
                break;
            }
            budget -= 1;
            let Some(v) = self.pick_victim(be) else { break };
            let valid = be.blocks.valid(v);
            if valid >= be.layout.block_units
                || (valid > 0 && be.blocks.free_main_count() >= self.bg_threshold)
            {
                break;
            }
            let d = be.layout.die_of_block(v);
            if be.tl.die_free_at(d) >= until {
                pending = true;
                break;
            }
            if !self.clean_block(be, v, from) {
                break;
            }
            be.c.gc_invocations += 1;
            be.c.gc_background_invocations += 1;
        }
        self.running = false;
        pending
    }

    /// Fold the oldest closed cache block (of die `d`, or of any die) into the main array,
    /// work queued from `t`; `make_room`: run foreground GC first if the main array is at its
    /// threshold (not from inside GC). Returns whether a block was folded.
    pub fn fold_oldest(
        &mut self,
        be: &mut Backend,
        d: Option<u32>,
        t: u64,
        make_room: bool,
    ) -> bool {
        let die = match d.or_else(|| be.blocks.oldest_cached_die()) {
            Some(d) => d,
            None => return false,
        };
        if !be.blocks.has_cached(die) {
            return false;
        }
        if make_room && be.blocks.free_main_count() <= self.threshold {
            self.foreground_gc(be, t, self.threshold);
            if be.blocks.free_main_count() <= self.threshold {
                return false;
            }
        }
        let b = be.blocks.pop_cached(die).expect("checked non-empty");
        let was = std::mem::replace(&mut self.running, true);
        let ok = self.clean_block(be, b, t);
        self.running = was;
        ok
    }

    /// Relocate every valid unit of block `b` (main or pseudo-SLC) and erase it, starting no
    /// earlier than `t`. Main victims must be in the victim index, cache blocks already off
    /// their queue. Returns false (leaving the block closed with what is still valid) if no
    /// space could be found, which validation rules out.
    fn clean_block(&mut self, be: &mut Backend, b: u32, t: u64) -> bool {
        let units = std::mem::take(&mut self.scratch);
        let mut r = begin(be, b, units);
        if self.relocate(be, &mut r, usize::MAX, t) {
            self.scratch = finish(be, r, t);
            true
        } else {
            be.blocks.stop_cleaning(b, be.layout.die_of_block(b));
            self.scratch = r.units;
            false
        }
    }

    /// Move up to `max` of the relocation's units (skipping those the host has overwritten
    /// since), work queued from `t`. Returns false if no destination could be found.
    fn relocate(&mut self, be: &mut Backend, r: &mut Relocation, max: usize, t: u64) -> bool {
        let b = r.block;
        let slc = be.blocks.is_slc(b);
        let d = be.layout.die_of_block(b);
        let ch = be.layout.channel_of_die(d);
        let read_ns = be.latency(slc).read_ns;
        let stripe = be.layout.stripe_units;
        let base = b * be.layout.block_units;
        let end = r.units.len().min(r.pos.saturating_add(max));
        let mut moved = 0u64;
        let mut run = std::mem::take(&mut self.run_buf);
        let mut ok = true;
        while r.pos < end {
            // The run of (still) valid units of one source stripe.
            let s = r.units[r.pos].0 / stripe;
            let mut j = r.pos;
            run.clear();
            while j < end && r.units[j].0 / stripe == s {
                let (u, lpn) = r.units[j];
                if !r.verify || be.map.owner(base + u) == Some(lpn) {
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
            let copyback = self.copyback && be.ensure_room(d, Stream::Gc);
            if s != r.src_stripe {
                r.src_ready = be.tl.die_op(d, t, read_ns);
                r.src_stripe = s;
                be.c.nand_read_ops += 1;
                be.c.reads[slc as usize] += 1;
            }
            if !copyback {
                be.tl.channel_units(ch, r.src_ready, run.len() as u32);
            }
            // Into the relocation stream, a destination stripe at a time. The programs are
            // queued from `t`, not from when the read data arrives: with next-free-time
            // timing, waiting for the read would leave idle holes on the destination dies
            // that later work cannot fill, and under-count what the dies can do.
            let mut i = 0;
            while i < run.len() {
                let same_die = (copyback || self.same_die) && be.ensure_room(d, Stream::Gc);
                let to = if same_die {
                    d
                } else if let Some(to) = be.pick_die(Stream::Gc, |_| {}) {
                    to
                } else {
                    ok = false;
                    break;
                };
                let n = be.program_run(to, &run[i..], t, !(same_die && copyback));
                be.blocks.moved_out(b, n);
                i += n as usize;
            }
            moved += i as u64;
            if !ok {
                break;
            }
        }
        self.run_buf = run;
        if slc {
            be.c.slc_migrations += moved * be.layout.pages_per_unit();
        } else {
            be.c.gc_relocated_pages += moved * be.layout.pages_per_unit();
        }
        if self.unit_ns > 0 && moved > 0 {
            be.tl.controller(t, moved * self.unit_ns);
        }
        ok
    }
}

/// Main-array blocks' worth of space holding no valid data (free or stale) with `mapped`
/// logical units mapped.
fn reclaimable_blocks(mapped: u64, layout: &Layout) -> u64 {
    let held = mapped.div_ceil(layout.block_units as u64);
    layout.main_blocks().saturating_sub(held)
}

/// The fewest mapped logical units at which less than `share` of the main array holds no
/// valid data (one more than the drive holds: never). The share only falls as more is
/// mapped, so bursty GC compares the mapped count with this rather than work out the share,
/// with a division, for every host unit.
fn burst_from_mapped(share: f64, layout: &Layout) -> u64 {
    let below =
        |mapped| (reclaimable_blocks(mapped, layout) as f64 / layout.main_blocks() as f64) < share;
    let (mut lo, mut hi) = (0, layout.logical_units + 1);
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if below(mid) {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    lo
}

/// Blocks' worth of stale (overwritten or trimmed) units in closed main-array blocks (the
/// victim index holds exactly those): the most GC can turn into free blocks.
fn stale_closed_blocks(be: &Backend) -> u32 {
    let stale = be.blocks.stale_closed_units(be.layout.block_units);
    (stale / u64::from(be.layout.block_units)) as u32
}

/// Start relocating block `b`: take it out of the victim index and list its valid units.
fn begin(be: &mut Backend, b: u32, mut units: Vec<(u32, u32)>) -> Relocation {
    let slc = be.blocks.is_slc(b);
    be.blocks.start_cleaning(b);
    let n = if slc {
        be.layout.slc_block_units
    } else {
        be.layout.block_units
    };
    units.clear();
    let base = b * be.layout.block_units;
    be.map
        .collect_valid(base, n, be.blocks.valid(b), &mut units);
    Relocation {
        block: b,
        units,
        pos: 0,
        verify: false,
        src_stripe: u32::MAX,
        src_ready: 0,
    }
}

/// Erase a fully relocated block; returns its unit list's buffer for reuse.
fn finish(be: &mut Backend, r: Relocation, t: u64) -> Vec<(u32, u32)> {
    be.erase(r.block, t);
    r.units
}

/// A victim being relocated, possibly a piece at a time.
#[derive(Default)]
struct Relocation {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bursts_stop_at_the_mapped_count_where_the_reclaimable_share_drops_below_the_setting() {
        let layout = crate::resolve("default").unwrap().layout().unwrap();
        let share =
            |mapped| reclaimable_blocks(mapped, &layout) as f64 / layout.main_blocks() as f64;
        for setting in [0.0, 0.01, 0.2, 0.5, 0.999, 1.0] {
            let from = burst_from_mapped(setting, &layout);
            assert!(from == 0 || share(from - 1) >= setting, "{setting}: {from}");
            assert!(
                from > layout.logical_units || share(from) < setting,
                "{setting}: {from}"
            );
        }
        assert_eq!(burst_from_mapped(0.0, &layout), layout.logical_units + 1);
        assert!(burst_from_mapped(0.2, &layout) <= layout.logical_units);
    }
}
