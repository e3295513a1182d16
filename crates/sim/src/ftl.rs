//! The flash translation layer: where host writes go, what reads cost, flush and idle time.
//!
//! Three streams write: host data to the main array, host data to the pseudo-SLC cache
//! (`ftl/slc_cache.rs`) and relocations (GC and cache folding, `ftl/gc.rs`), each with its own
//! open block per die. TRIM is `ftl/trim.rs`. The FTL's state changes at submission time; the
//! timing model decides when each operation completes.
//!
//! The FTL composes the units, named as controllers name them: the GC scheduler, the
//! pseudo-SLC cache, the TRIM unit and the [`WriteBuffer`], over the flash back end they share
//! (`ftl/backend.rs`: the mapping table, the block manager, the timeline and the write
//! cursors). Each unit owns its state and does its work given the back end.

mod backend;
mod gc;
mod invariants;
mod slc_cache;
mod trim;

use crate::block_manager::{BlockManager, Stream};
use crate::config::Config;
use crate::counters::Counters;
use crate::error::SimError;
use crate::geometry::{Layout, UNIT_BYTES};
use crate::mapping::UNMAPPED;
use crate::timing::Timeline;
use crate::write_buffer::WriteBuffer;
use backend::Backend;
use gc::GcScheduler;
use slc_cache::SlcCache;
use trim::TrimUnit;

pub struct Ftl {
    be: Backend,
    wbuf: WriteBuffer,
    gc: GcScheduler,
    slc: SlcCache,
    trim: TrimUnit,
    read_ahead: bool,
    /// With read priority: the longest a host read waits for the operation in progress.
    read_wait_ns: Option<u64>,
    /// Metadata programs owed, in hundredths of a unit.
    meta_credit: f64,
    meta_pct: f64,
    last_read_end: u64,
    last_read_ready: u64,
    /// Units written or trimmed since the invariants were last checked (debug builds).
    unchecked_units: u64,
}

impl Ftl {
    pub fn new(cfg: &Config) -> Result<Ftl, SimError> {
        let be = Backend::new(cfg)?;
        let layout = &be.layout;
        let min_buffer = layout.stripe_units as u64 * layout.dies as u64;
        let wbuf =
            WriteBuffer::new((cfg.write_buffer_bytes / layout.unit_bytes).max(min_buffer) as usize);
        Ok(Ftl {
            wbuf,
            gc: GcScheduler::new(cfg, layout),
            slc: SlcCache::new(&cfg.slc, layout),
            trim: TrimUnit::new(&cfg.trim, cfg.seed, layout.logical_units),
            read_ahead: cfg.read_ahead,
            read_wait_ns: cfg.read_priority.then(|| {
                cfg.native
                    .program
                    .times()
                    .iter()
                    .copied()
                    .max()
                    .unwrap_or(0)
            }),
            meta_credit: 0.0,
            meta_pct: cfg.meta_pct,
            last_read_end: u64::MAX,
            last_read_ready: 0,
            unchecked_units: 0,
            be,
        })
    }

    /// Check the whole back end's state (see `ftl/invariants.rs`); panics at the first
    /// invariant broken.
    pub fn assert_invariants(&self) {
        self.be.assert_invariants();
    }

    /// In debug builds, check the invariants once as many units have been written or trimmed
    /// as the drive has physical units, so the check costs O(1) a unit.
    fn check_now_and_then(&mut self, units: u64) {
        if cfg!(debug_assertions) {
            self.unchecked_units += units;
            if self.unchecked_units >= self.be.layout.physical_slots() {
                self.unchecked_units = 0;
                self.assert_invariants();
            }
        }
    }

    pub fn layout(&self) -> &Layout {
        &self.be.layout
    }

    pub fn blocks(&self) -> &BlockManager {
        &self.be.blocks
    }

    pub fn timeline(&self) -> &Timeline {
        &self.be.tl
    }

    pub fn counters(&self) -> &Counters {
        &self.be.c
    }

    /// An IO the device refused or could not place.
    pub fn count_failed_io(&mut self) {
        self.be.c.failed_ios += 1;
    }

    /// The physical unit logical unit `lpn` is mapped to, or [`UNMAPPED`].
    #[inline]
    pub fn lookup(&self, lpn: u32) -> u32 {
        self.be.map.lookup(lpn)
    }

    /// Bytes of RAM the mapping tables take.
    pub fn mapping_ram_bytes(&self) -> u64 {
        self.be.map.ram_bytes()
    }

    /// Logical units with a deferred TRIM still pending.
    pub fn trim_pending_units(&self) -> u64 {
        self.trim.pending_units()
    }

    /// A host-initiated page read on die `d`: ahead of queued programs with `read_priority`,
    /// else in line behind them.
    #[inline]
    fn host_read_op(&mut self, d: u32, t: u64, lat: u64) -> u64 {
        match self.read_wait_ns {
            Some(max_wait) => self.be.tl.die_read(d, t, lat, max_wait),
            None => self.be.tl.die_op(d, t, lat),
        }
    }

    /// Read the NAND page holding `ppa` (for a read-modify-write); returns when its data is in
    /// the controller.
    fn read_unit(&mut self, ppa: u32, t: u64) -> u64 {
        let b = self.be.block_of(ppa);
        let d = self.be.layout.die_of_block(b);
        let slc = self.be.blocks.is_slc(b);
        let lat = self.be.latency(slc).read_ns;
        self.be.c.nand_read_ops += 1;
        self.be.c.reads[slc as usize] += 1;
        let done = self.host_read_op(d, t, lat);
        self.be
            .tl
            .channel_unit(self.be.layout.channel_of_die(d), done)
    }

    /// A host write of `len` bytes at `offset` (validated), submitted at `now`. Returns its
    /// completion time, or `None` when no block could be found (never expected; an IO error).
    pub fn write(&mut self, now: u64, offset: u64, len: u64) -> Option<u64> {
        let ub = self.be.layout.unit_bytes;
        let first = offset / ub;
        let end = (offset + len).div_ceil(ub);
        let unit_ns = self.be.tl.link_unit_ns();
        let (link_start, link_done) = self.be.tl.link_transfer(now, len, 0);
        self.be.c.link_bytes += len;
        let mut complete = self.be.tl.write_command(link_done);
        let cache = self.slc.takes(len);
        for (j, lpn) in (first..end).enumerate() {
            let lpn = lpn as u32;
            let arrive = (link_start + (j as u64 + 1) * unit_ns).min(link_done);
            let entry = arrive.max(self.wbuf.slot_free_at());
            complete = complete.max(entry);
            let unit_start = lpn as u64 * ub;
            let from = offset.max(unit_start);
            let to = (offset + len).min(unit_start + ub);
            let partial = to - from < ub;
            let old = self.be.map.lookup(lpn);
            let mut ready = entry;
            if old != UNMAPPED {
                if partial {
                    ready = self.read_unit(old, entry);
                    self.be.c.read_modify_write_pages += 1;
                }
                self.be.invalidate_lpn(lpn, old);
            }
            self.trim.written(lpn);
            let done = self.place_host_unit(lpn, ready, cache)?;
            self.wbuf.fill(done);
            self.be.c.host_write_pages += (to - from).div_ceil(UNIT_BYTES);
            if self.meta_pct > 0.0 {
                self.meta_credit += self.meta_pct;
                if self.meta_credit >= 100.0 {
                    self.meta_credit -= 100.0;
                    self.write_metadata(ready)?;
                }
            }
        }
        self.check_now_and_then(end - first);
        Some(complete)
    }

    /// Put one host unit in the SLC cache if it may go there and the cache takes it, else in
    /// the main array. Returns when its program completes.
    fn place_host_unit(&mut self, lpn: u32, t: u64, cache: bool) -> Option<u64> {
        if cache {
            if let Some(d) = self.slc.take(&mut self.be, &mut self.gc, t) {
                self.be.c.slc_cache_hits += self.be.layout.pages_per_unit();
                return Some(self.be.program_at(d, Stream::Slc, Some(lpn), t));
            }
            self.be.c.slc_cache_bypassed += self.be.layout.pages_per_unit();
        }
        self.gc.host_gc(&mut self.be, t);
        let d = self.pick_host_die(t)?;
        self.gc.host_unit_written();
        Some(self.be.program_at(d, Stream::Host, Some(lpn), t))
    }

    /// The die for the next host unit in the main array; a die whose block is full opens a
    /// new one, and at the threshold that is where all-out foreground GC starts.
    fn pick_host_die(&mut self, t: u64) -> Option<u32> {
        let gc = &mut self.gc;
        self.be.pick_die(Stream::Host, |be| gc.make_room(be, t))
    }

    /// One unit of mapping-table journal, programmed with the host's data: it is stale at
    /// once (a newer journal supersedes it), so it only costs program time and space.
    fn write_metadata(&mut self, t: u64) -> Option<()> {
        let d = self.pick_host_die(t)?;
        self.be.program_at(d, Stream::Host, None, t);
        self.be.c.meta_pages += self.be.layout.pages_per_unit();
        Some(())
    }

    /// A host read; returns its completion time.
    pub fn read(&mut self, now: u64, offset: u64, len: u64) -> u64 {
        let ub = self.be.layout.unit_bytes;
        let first = offset / ub;
        let end = (offset + len).div_ceil(ub);
        let ctrl = self.be.tl.read_command(now);
        // Read-ahead: on a sequential stream the drive started this IO's NAND reads as soon
        // as the previous one's were done.
        let start = if self.read_ahead && offset == self.last_read_end {
            ctrl.min(self.last_read_ready)
        } else {
            ctrl
        };
        let stripe = self.be.layout.stripe_units;
        let mut last_stripe = u32::MAX;
        let mut die_done = start;
        let (mut first_ready, mut last_ready) = (u64::MAX, start);
        for lpn in first..end {
            let ppa = self.be.map.lookup(lpn as u32);
            let ready = if ppa == UNMAPPED {
                start
            } else {
                let b = self.be.block_of(ppa);
                let d = self.be.layout.die_of_block(b);
                if ppa / stripe != last_stripe {
                    let slc = self.be.blocks.is_slc(b);
                    let lat = self.be.latency(slc).read_ns;
                    die_done = self.host_read_op(d, start, lat);
                    last_stripe = ppa / stripe;
                    self.be.c.nand_read_ops += 1;
                    self.be.c.reads[slc as usize] += 1;
                }
                self.be
                    .tl
                    .channel_unit(self.be.layout.channel_of_die(d), die_done)
            };
            first_ready = first_ready.min(ready);
            last_ready = last_ready.max(ready);
        }
        self.be.c.host_read_pages += len.div_ceil(UNIT_BYTES);
        self.last_read_end = offset + len;
        self.last_read_ready = last_ready;
        let xfer = self.be.tl.link_ns(len);
        // Data goes back once the command is decoded and the first unit is in the controller
        // (read-ahead data may have been ready long before), and ends no earlier than a unit
        // after the last one is.
        let not_before = last_ready + self.be.tl.link_unit_ns().min(xfer);
        let (_, done) = self
            .be
            .tl
            .link_transfer(first_ready.max(ctrl), len, not_before);
        self.be.c.link_bytes += len;
        done
    }

    /// Make everything written so far durable: partly filled pages of the host streams are
    /// padded and programmed, and the flush completes when the write buffer has drained.
    pub fn flush(&mut self, now: u64) -> u64 {
        self.be.pad_host_stripes();
        self.be.end_host_turn();
        self.be.c.flushes += 1;
        let ctrl = self.be.tl.dataless_command(now);
        ctrl.max(self.wbuf.drained_at())
    }

    /// A secure erase at `now`: every block erased, every mapping forgotten (counters and wear
    /// carry over). Returns when the erases are done.
    pub fn secure_erase(&mut self, now: u64) -> u64 {
        let start = now.max(self.be.tl.all_dies_free());
        let done = self.be.erase_all(start, self.gc.policy());
        self.trim.reset();
        self.gc.reset();
        self.wbuf = WriteBuffer::new(self.wbuf.units());
        self.meta_credit = 0.0;
        self.slc.reset();
        self.last_read_end = u64::MAX;
        if cfg!(debug_assertions) {
            self.assert_invariants();
        }
        done
    }

    /// A host discard of `len` bytes at `offset` (validated) at `now`; returns its completion.
    pub fn discard(&mut self, now: u64, offset: u64, len: u64) -> u64 {
        let done = self.trim.discard(&mut self.be, now, offset, len);
        self.check_now_and_then(len / self.be.layout.unit_bytes);
        done
    }

    /// Idle time from `from` to `until`: deferred TRIM, folding the SLC cache, then cleaning
    /// blocks in the background. The work occupies the dies, so a host IO arriving during it
    /// may wait. Returns whether background work is still owed (it stopped only for lack of
    /// time), which keeps the drive active.
    pub fn idle(&mut self, from: u64, until: u64) -> bool {
        let mut pending = self.trim.process_deferred(&mut self.be, from, until);
        if self.slc.enabled() {
            pending |= self.slc.drain(&mut self.be, &mut self.gc, from, until);
        }
        pending | self.gc.background_gc(&mut self.be, from, until)
    }
}
