//! The flash translation layer: where host writes go, what reads cost, flush and idle time.
//!
//! Writes are placed a stripe (one multi-plane page) at a time on each die in turn, so a
//! sequential run lands on all dies in parallel and a later sequential read is parallel too.
//! Three streams write: host data to the main array, host data to the pseudo-SLC cache
//! (`ftl/slc_cache.rs`) and relocations (GC and cache folding, `ftl/gc.rs`), each with its own
//! open block per die. TRIM is `ftl/trim.rs`. The FTL's state changes at submission time; the
//! timing model decides when each operation completes.
//!
//! The FTL composes the units, named as controllers name them: the mapping table
//! ([`Mapping`]), the [`BlockManager`], the GC scheduler, the pseudo-SLC cache, the TRIM unit,
//! the [`WriteBuffer`] and the [`Timeline`]. Each unit's state is private to it; the module of
//! the GC scheduler, of the cache and of the TRIM unit also holds the FTL work that unit
//! drives.

mod gc;
mod slc_cache;
mod trim;

use crate::block_manager::{BlockManager, Stream, NO_BLOCK};
use crate::config::Config;
use crate::counters::Counters;
use crate::energy::{NATIVE, PSLC};
use crate::error::SimError;
use crate::geometry::{Layout, UNIT_BYTES};
use crate::mapping::{Mapping, UNMAPPED};
use crate::timing::{NandLatency, Timeline};
use crate::write_buffer::WriteBuffer;
use gc::GcScheduler;
use slc_cache::SlcCache;
use trim::TrimUnit;

pub struct Ftl {
    layout: Layout,
    map: Mapping,
    blocks: BlockManager,
    tl: Timeline,
    native: NandLatency,
    pslc: NandLatency,
    wbuf: WriteBuffer,
    c: Counters,
    gc: GcScheduler,
    slc: SlcCache,
    trim: TrimUnit,
    read_ahead: bool,
    /// With read priority: the longest a host read waits for the operation in progress.
    read_wait_ns: Option<u64>,
    /// Metadata programs owed, in hundredths of a unit.
    meta_credit: f64,
    meta_pct: f64,
    /// Die cursor and units placed in its current stripe turn: [host (main or SLC), relocation].
    cursor: [u32; 2],
    in_turn: [u32; 2],
    last_read_end: u64,
    last_read_ready: u64,
}

/// The energy model's mode of a stream's programs.
#[inline]
fn mode_of_stream(stream: Stream) -> usize {
    match stream {
        Stream::Slc => PSLC,
        _ => NATIVE,
    }
}

#[inline]
fn turn_index(stream: Stream) -> usize {
    match stream {
        Stream::Gc => 1,
        _ => 0,
    }
}

impl Ftl {
    pub fn new(cfg: &Config) -> Result<Ftl, SimError> {
        let layout = cfg.layout()?;
        let map = Mapping::new(layout.logical_units, layout.physical_slots());
        let blocks = BlockManager::new(&layout, cfg.gc.policy);
        let tl = Timeline::new(
            layout.unit_bytes,
            layout.dies,
            layout.channels,
            cfg.channel_mbps,
            cfg.link_mbps,
            cfg.link_cmd_ns,
            cfg.cmd_read_ns,
            cfg.cmd_write_ns,
            cfg.max_programs,
        );
        let min_buffer = layout.stripe_units as u64 * layout.dies as u64;
        let wbuf =
            WriteBuffer::new((cfg.write_buffer_bytes / layout.unit_bytes).max(min_buffer) as usize);
        Ok(Ftl {
            map,
            blocks,
            tl,
            native: cfg.native,
            pslc: cfg.pslc,
            wbuf,
            c: Counters::default(),
            gc: GcScheduler::new(cfg, &layout),
            slc: SlcCache::new(&cfg.slc, &layout),
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
            cursor: [0, 0],
            in_turn: [0, 0],
            last_read_end: u64::MAX,
            last_read_ready: 0,
            layout,
        })
    }

    pub fn layout(&self) -> &Layout {
        &self.layout
    }

    pub fn blocks(&self) -> &BlockManager {
        &self.blocks
    }

    pub fn timeline(&self) -> &Timeline {
        &self.tl
    }

    pub fn counters(&self) -> &Counters {
        &self.c
    }

    /// An IO the device refused or could not place.
    pub fn count_failed_io(&mut self) {
        self.c.failed_ios += 1;
    }

    /// The physical unit logical unit `lpn` is mapped to, or [`UNMAPPED`].
    #[inline]
    pub fn lookup(&self, lpn: u32) -> u32 {
        self.map.lookup(lpn)
    }

    /// Bytes of RAM the mapping tables take.
    pub fn mapping_ram_bytes(&self) -> u64 {
        self.map.ram_bytes()
    }

    /// Logical units with a deferred TRIM still pending.
    pub fn trim_pending_units(&self) -> u64 {
        self.trim.pending_units()
    }

    #[inline]
    fn block_of(&self, ppa: u32) -> u32 {
        ppa / self.layout.block_units
    }

    fn advance_cursor(&mut self, k: usize) {
        self.cursor[k] = (self.cursor[k] + 1) % self.layout.dies;
        self.in_turn[k] = 0;
    }

    /// Make sure die `d`'s open block for `stream` has room, opening a block if needed.
    /// Opening a main-array block at the threshold is where all-out foreground GC starts.
    fn ensure_room(&mut self, d: u32, stream: Stream, t: u64) -> bool {
        if self.blocks.frontier(d, stream).has_room() {
            return true;
        }
        if stream == Stream::Host
            && !self.gc.running()
            && self.blocks.free_main_count() <= self.gc.threshold()
        {
            self.foreground_gc(t, self.gc.threshold());
        }
        self.blocks.has_free(d, stream) && self.blocks.open(d, stream, &self.layout)
    }

    /// The die for the next unit of a main-array stream: the cursor's, or the next that can
    /// take it.
    fn pick_die(&mut self, stream: Stream, t: u64) -> Option<u32> {
        let k = turn_index(stream);
        for _ in 0..self.layout.dies {
            let d = self.cursor[k];
            if self.ensure_room(d, stream, t) {
                return Some(d);
            }
            self.advance_cursor(k);
        }
        None
    }

    /// The die the host cursor points at (the SLC cache uses the same rotation).
    fn host_die(&self) -> u32 {
        self.cursor[0]
    }

    /// The program time of the stripe starting at unit `next` of a block in `stream`.
    #[inline]
    fn program_ns(&self, stream: Stream, next: u32) -> u64 {
        let lat = if stream == Stream::Slc {
            &self.pslc
        } else {
            &self.native
        };
        lat.program.of_page(next / self.layout.stripe_units)
    }

    /// Program logical unit `lpn` (or padding, `None`) into die `d`'s open block for `stream`
    /// (which has room), its data ready at `t`. Returns when its program completes.
    fn program_at(&mut self, d: u32, stream: Stream, lpn: Option<u32>, t: u64) -> u64 {
        let stripe = self.layout.stripe_units;
        let xfer = self.tl.channel_unit(self.layout.channel_of_die(d), t);
        let next = self.blocks.frontier(d, stream).next;
        if next.is_multiple_of(stripe) {
            // One program per multi-plane page, reserved when its first unit arrives.
            let lat = self.program_ns(stream, next);
            self.blocks.frontier_mut(d, stream).stripe_done = self.tl.die_program(d, xfer, lat);
            self.c.prog_pages[mode_of_stream(stream)] += self.layout.planes as u64;
        }
        let f = self.blocks.frontier_mut(d, stream);
        let ppa = f.block * self.layout.block_units + f.next;
        let done = f.stripe_done;
        f.next += 1;
        let full = f.next == f.limit;
        let b = f.block;
        match lpn {
            Some(lpn) => {
                self.map.map(lpn, ppa);
                self.blocks.add_valid(b, 1);
            }
            None => self.map.pad(ppa),
        }
        if full {
            self.blocks.close(d, stream);
        }
        self.c.nand_write_pages += self.layout.pages_per_unit();
        let k = turn_index(stream);
        self.in_turn[k] += 1;
        if self.in_turn[k] >= stripe {
            self.advance_cursor(k);
        }
        done
    }

    /// Program as many of `units` (unit index in a victim, logical unit) as fit in the current
    /// stripe of die `d`'s relocation block (which has room), data ready at `t`; `channel`:
    /// whether the data crosses the die's channel (not for a copyback). Returns how many were
    /// placed.
    fn program_run(&mut self, d: u32, units: &[(u32, u32)], t: u64, channel: bool) -> u32 {
        let stripe = self.layout.stripe_units;
        let f = *self.blocks.frontier(d, Stream::Gc);
        let n = (stripe - f.next % stripe)
            .min(f.limit - f.next)
            .min(units.len() as u32);
        let xfer = if channel {
            self.tl.channel_units(self.layout.channel_of_die(d), t, n)
        } else {
            t
        };
        if f.next.is_multiple_of(stripe) {
            let lat = self.program_ns(Stream::Gc, f.next);
            self.blocks.frontier_mut(d, Stream::Gc).stripe_done = self.tl.die_program(d, xfer, lat);
            self.c.prog_pages[NATIVE] += self.layout.planes as u64;
        }
        let f = self.blocks.frontier_mut(d, Stream::Gc);
        let base = f.block * self.layout.block_units + f.next;
        f.next += n;
        let full = f.next == f.limit;
        let b = f.block;
        for (k, &(_, lpn)) in units[..n as usize].iter().enumerate() {
            self.map.map(lpn, base + k as u32);
        }
        self.blocks.add_valid(b, n);
        if full {
            self.blocks.close(d, Stream::Gc);
        }
        self.c.nand_write_pages += n as u64 * self.layout.pages_per_unit();
        self.in_turn[1] += n;
        if self.in_turn[1] >= stripe {
            self.advance_cursor(1);
        }
        n
    }

    /// The host's copy of `lpn` is gone (overwritten or trimmed).
    #[inline]
    fn invalidate_lpn(&mut self, lpn: u32, ppa: u32) {
        let b = self.block_of(ppa);
        self.blocks.invalidate(b);
        self.map.unmap(lpn);
    }

    /// A host-initiated page read on die `d`: ahead of queued programs with `read_priority`,
    /// else in line behind them.
    #[inline]
    fn host_read_op(&mut self, d: u32, t: u64, lat: u64) -> u64 {
        match self.read_wait_ns {
            Some(max_wait) => self.tl.die_read(d, t, lat, max_wait),
            None => self.tl.die_op(d, t, lat),
        }
    }

    /// Read the NAND page holding `ppa` (for a read-modify-write); returns when its data is in
    /// the controller.
    fn read_unit(&mut self, ppa: u32, t: u64) -> u64 {
        let b = self.block_of(ppa);
        let d = self.layout.die_of_block(b);
        let slc = self.blocks.is_slc(b);
        let lat = if slc {
            self.pslc.read_ns
        } else {
            self.native.read_ns
        };
        self.c.nand_read_ops += 1;
        self.c.reads[slc as usize] += 1;
        let done = self.host_read_op(d, t, lat);
        self.tl.channel_unit(self.layout.channel_of_die(d), done)
    }

    /// A host write of `len` bytes at `offset` (validated), submitted at `now`. Returns its
    /// completion time, or `None` when no block could be found (never expected; an IO error).
    pub fn write(&mut self, now: u64, offset: u64, len: u64) -> Option<u64> {
        let ub = self.layout.unit_bytes;
        let first = offset / ub;
        let end = (offset + len).div_ceil(ub);
        let unit_ns = self.tl.link_unit_ns();
        let (link_start, link_done) = self.tl.link_transfer(now, len, 0);
        self.c.link_bytes += len;
        let mut complete = self.tl.write_command(link_done);
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
            let old = self.map.lookup(lpn);
            let mut ready = entry;
            if old != UNMAPPED {
                if partial {
                    ready = self.read_unit(old, entry);
                    self.c.read_modify_write_pages += 1;
                }
                self.invalidate_lpn(lpn, old);
            }
            self.trim.written(lpn);
            let done = self.place_host_unit(lpn, ready, cache)?;
            self.wbuf.fill(done);
            self.c.host_write_pages += (to - from).div_ceil(UNIT_BYTES);
            if self.meta_pct > 0.0 {
                self.meta_credit += self.meta_pct;
                if self.meta_credit >= 100.0 {
                    self.meta_credit -= 100.0;
                    self.write_metadata(ready)?;
                }
            }
        }
        Some(complete)
    }

    /// Put one host unit in the SLC cache if it may go there and the cache takes it, else in
    /// the main array. Returns when its program completes.
    fn place_host_unit(&mut self, lpn: u32, t: u64, cache: bool) -> Option<u64> {
        if cache {
            if let Some(d) = self.slc_take(t) {
                self.c.slc_cache_hits += self.layout.pages_per_unit();
                return Some(self.program_at(d, Stream::Slc, Some(lpn), t));
            }
            self.c.slc_cache_bypassed += self.layout.pages_per_unit();
        }
        self.host_gc(t);
        let d = self.pick_die(Stream::Host, t)?;
        self.gc.host_unit_written();
        Some(self.program_at(d, Stream::Host, Some(lpn), t))
    }

    /// One unit of mapping-table journal, programmed with the host's data: it is stale at
    /// once (a newer journal supersedes it), so it only costs program time and space.
    fn write_metadata(&mut self, t: u64) -> Option<()> {
        let d = self.pick_die(Stream::Host, t)?;
        self.program_at(d, Stream::Host, None, t);
        self.c.meta_pages += self.layout.pages_per_unit();
        Some(())
    }

    /// A host read; returns its completion time.
    pub fn read(&mut self, now: u64, offset: u64, len: u64) -> u64 {
        let ub = self.layout.unit_bytes;
        let first = offset / ub;
        let end = (offset + len).div_ceil(ub);
        let ctrl = self.tl.read_command(now);
        // Read-ahead: on a sequential stream the drive started this IO's NAND reads as soon
        // as the previous one's were done.
        let start = if self.read_ahead && offset == self.last_read_end {
            ctrl.min(self.last_read_ready)
        } else {
            ctrl
        };
        let stripe = self.layout.stripe_units;
        let mut last_stripe = u32::MAX;
        let mut die_done = start;
        let (mut first_ready, mut last_ready) = (u64::MAX, start);
        for lpn in first..end {
            let ppa = self.map.lookup(lpn as u32);
            let ready = if ppa == UNMAPPED {
                start
            } else {
                let b = self.block_of(ppa);
                let d = self.layout.die_of_block(b);
                if ppa / stripe != last_stripe {
                    let slc = self.blocks.is_slc(b);
                    let lat = if slc {
                        self.pslc.read_ns
                    } else {
                        self.native.read_ns
                    };
                    die_done = self.host_read_op(d, start, lat);
                    last_stripe = ppa / stripe;
                    self.c.nand_read_ops += 1;
                    self.c.reads[slc as usize] += 1;
                }
                self.tl
                    .channel_unit(self.layout.channel_of_die(d), die_done)
            };
            first_ready = first_ready.min(ready);
            last_ready = last_ready.max(ready);
        }
        self.c.host_read_pages += len.div_ceil(UNIT_BYTES);
        self.last_read_end = offset + len;
        self.last_read_ready = last_ready;
        let xfer = self.tl.link_ns(len);
        // Data goes back once the command is decoded and the first unit is in the controller
        // (read-ahead data may have been ready long before), and ends no earlier than a unit
        // after the last one is.
        let not_before = last_ready + self.tl.link_unit_ns().min(xfer);
        let (_, done) = self
            .tl
            .link_transfer(first_ready.max(ctrl), len, not_before);
        self.c.link_bytes += len;
        done
    }

    /// Make everything written so far durable: partly filled pages of the host streams are
    /// padded and programmed, and the flush completes when the write buffer has drained.
    pub fn flush(&mut self, now: u64) -> u64 {
        let stripe = self.layout.stripe_units;
        for d in 0..self.layout.dies {
            for stream in [Stream::Host, Stream::Slc] {
                let f = self.blocks.frontier_mut(d, stream);
                if f.block == NO_BLOCK || f.next.is_multiple_of(stripe) {
                    continue;
                }
                let pad = stripe - f.next % stripe;
                let base = f.block * self.layout.block_units + f.next;
                for i in 0..pad {
                    self.map.pad(base + i);
                }
                f.next += pad;
                let full = f.next == f.limit;
                self.c.nand_write_pages += pad as u64 * self.layout.pages_per_unit();
                self.c.padded_pages += pad as u64 * self.layout.pages_per_unit();
                if full {
                    self.blocks.close(d, stream);
                }
            }
        }
        if self.in_turn[0] > 0 {
            self.advance_cursor(0);
        }
        self.c.flushes += 1;
        let ctrl = self.tl.dataless_command(now);
        ctrl.max(self.wbuf.drained_at())
    }

    /// A secure erase at `now`: every block erased, every mapping forgotten (counters and wear
    /// carry over). Each die erases its used blocks one after another; returns when all are
    /// done.
    pub fn secure_erase(&mut self, now: u64) -> u64 {
        let start = now.max(self.tl.all_dies_free());
        let per_die = self.blocks.erase_all(&self.layout, self.gc.policy());
        self.map.reset();
        self.trim.reset();
        self.gc.reset();
        self.wbuf = WriteBuffer::new(self.wbuf.units());
        self.cursor = [0, 0];
        self.in_turn = [0, 0];
        self.meta_credit = 0.0;
        self.slc.reset();
        self.last_read_end = u64::MAX;
        let mut done = start;
        for (d, n) in per_die.iter().enumerate() {
            // Every die is free by `start`: its erases run back to back from there.
            let end = self.tl.die_op(d as u32, start, n * self.native.erase_ns);
            done = done.max(end);
            // Timed as native erases, so counted as such.
            self.c.erases[NATIVE] += n;
        }
        done
    }

    /// Idle time from `from` to `until`: deferred TRIM, folding the SLC cache, then cleaning
    /// blocks in the background. The work occupies the dies, so a host IO arriving during it
    /// may wait. Returns whether background work is still owed (it stopped only for lack of
    /// time), which keeps the drive active.
    pub fn idle(&mut self, from: u64, until: u64) -> bool {
        let mut pending = self.process_deferred_trims(from, until);
        if self.slc.enabled() {
            pending |= self.drain_slc(from, until);
        }
        pending | self.background_gc(from, until)
    }
}
