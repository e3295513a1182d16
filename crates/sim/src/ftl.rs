//! The flash translation layer: where host writes go, what reads cost, TRIM and flush.
//!
//! Writes are placed a stripe (one multi-plane page) at a time on each die in turn, so a
//! sequential run lands on all dies in parallel and a later sequential read is parallel too.
//! Three streams write: host data to the main array, host data to the pseudo-SLC cache (see
//! `slc_cache.rs`) and relocations (GC and SLC migration, see `gc.rs`), each with its own open
//! block per die. The FTL's state changes at submission time; the timing model decides when
//! each operation completes.

use crate::block_manager::{BlockManager, Stream, NO_BLOCK};
use crate::config::Config;
use crate::counters::Counters;
use crate::error::SimError;
use crate::gc::GcPolicy;
use crate::geometry::{Layout, UNIT_BYTES};
use crate::mapping::{Mapping, UNMAPPED};
use crate::timing::{NandLatency, Timeline};
use crate::write_buffer::WriteBuffer;

pub struct Ftl {
    pub layout: Layout,
    pub map: Mapping,
    pub blocks: BlockManager,
    pub tl: Timeline,
    pub native: NandLatency,
    pub pslc: NandLatency,
    pub wbuf: WriteBuffer,
    pub c: Counters,
    pub policy: GcPolicy,
    pub gc_threshold: u32,
    pub bg_gc_threshold: u32,
    pub slc_enabled: bool,
    read_ahead: bool,
    /// Die cursor and units placed in its current stripe turn: [host (main or SLC), relocation].
    cursor: [u32; 2],
    in_turn: [u32; 2],
    pub(crate) in_gc: bool,
    /// Paced GC: free blocks at or below which each victim is cleaned as host writes use up
    /// the space the previous one freed (`gc_credit`, in units), interleaving GC with host
    /// writes instead of doing it in bursts.
    pub(crate) gc_soft_threshold: u32,
    pub(crate) gc_credit: i64,
    /// Reused by GC: (unit index in the victim, logical unit).
    pub(crate) scratch: Vec<(u32, u32)>,
    last_read_end: u64,
    last_read_ready: u64,
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
        let blocks = BlockManager::new(&layout, cfg.gc);
        let tl = Timeline::new(
            layout.dies,
            layout.channels,
            cfg.channel_mbps,
            cfg.link_mbps,
            cfg.link_cmd_ns,
            cfg.cmd_read_ns,
            cfg.cmd_write_ns,
        );
        let min_buffer = layout.stripe_units as u64 * layout.dies as u64;
        let wbuf = WriteBuffer::new((cfg.write_buffer_bytes / UNIT_BYTES).max(min_buffer) as usize);
        Ok(Ftl {
            map,
            blocks,
            tl,
            native: cfg.native,
            pslc: cfg.pslc,
            wbuf,
            c: Counters::default(),
            policy: cfg.gc,
            gc_threshold: cfg.gc_threshold(),
            bg_gc_threshold: cfg.bg_gc_threshold(),
            slc_enabled: layout.slc_blocks_per_die > 0,
            read_ahead: cfg.read_ahead,
            cursor: [0, 0],
            in_turn: [0, 0],
            in_gc: false,
            gc_soft_threshold: cfg.gc_threshold() + layout.dies,
            gc_credit: 0,
            scratch: Vec::with_capacity(layout.block_units as usize),
            last_read_end: u64::MAX,
            last_read_ready: 0,
            layout,
        })
    }

    #[inline]
    pub(crate) fn block_of(&self, ppa: u32) -> u32 {
        ppa / self.layout.block_units
    }

    fn advance_cursor(&mut self, k: usize) {
        self.cursor[k] = (self.cursor[k] + 1) % self.layout.dies;
        self.in_turn[k] = 0;
    }

    /// Make sure die `d`'s open block for `stream` has room, opening a block if needed.
    /// Opening a host block is where foreground GC starts.
    fn ensure_room(&mut self, d: u32, stream: Stream, t: u64) -> bool {
        if self.blocks.frontiers[d as usize][stream as usize].has_room() {
            return true;
        }
        if stream == Stream::Host && !self.in_gc && self.blocks.free_main_count <= self.gc_threshold
        {
            self.foreground_gc(t);
        }
        self.blocks.has_free(d, stream) && self.blocks.open(d, stream, &self.layout)
    }

    /// The die for the next unit of a main-array stream: the cursor's, or the next that can
    /// take it.
    pub(crate) fn pick_die(&mut self, stream: Stream, t: u64) -> Option<u32> {
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
    pub(crate) fn host_die(&self) -> u32 {
        self.cursor[0]
    }

    /// Program logical unit `lpn` into die `d`'s open block for `stream` (which has room),
    /// its data ready at `t`. Returns the physical unit and when its program completes.
    pub(crate) fn program_at(&mut self, d: u32, stream: Stream, lpn: u32, t: u64) -> (u32, u64) {
        let lat = if stream == Stream::Slc {
            self.pslc.program_ns
        } else {
            self.native.program_ns
        };
        let stripe = self.layout.stripe_units;
        let xfer = self.tl.channel_unit(self.layout.channel_of_die(d), t);
        let f = &mut self.blocks.frontiers[d as usize][stream as usize];
        if f.next.is_multiple_of(stripe) {
            // One program per multi-plane page, reserved when its first unit arrives.
            f.stripe_done = self.tl.die_op(d, xfer, lat);
        }
        let ppa = f.block * self.layout.block_units + f.next;
        let done = f.stripe_done;
        f.next += 1;
        let full = f.next == f.limit;
        let b = f.block;
        self.map.map(lpn, ppa);
        self.blocks.valid[b as usize] += 1;
        if full {
            self.blocks.close(d, stream);
        }
        self.c.nand_write_pages += 1;
        let k = turn_index(stream);
        self.in_turn[k] += 1;
        if self.in_turn[k] >= stripe {
            self.advance_cursor(k);
        }
        (ppa, done)
    }

    /// Program as many of `units` (unit index in a victim, logical unit) as fit in the current
    /// stripe of die `d`'s relocation block (which has room), data ready at `t`. Returns how
    /// many were placed.
    pub(crate) fn program_run(&mut self, d: u32, units: &[(u32, u32)], t: u64) -> u32 {
        let stripe = self.layout.stripe_units;
        let f = self.blocks.frontiers[d as usize][Stream::Gc as usize];
        let n = (stripe - f.next % stripe)
            .min(f.limit - f.next)
            .min(units.len() as u32);
        let xfer = self.tl.channel_units(self.layout.channel_of_die(d), t, n);
        let f = &mut self.blocks.frontiers[d as usize][Stream::Gc as usize];
        if f.next.is_multiple_of(stripe) {
            f.stripe_done = self.tl.die_op(d, xfer, self.native.program_ns);
        }
        let base = f.block * self.layout.block_units + f.next;
        f.next += n;
        let full = f.next == f.limit;
        let b = f.block;
        for (k, &(_, lpn)) in units[..n as usize].iter().enumerate() {
            self.map.map(lpn, base + k as u32);
        }
        self.blocks.valid[b as usize] += n;
        if full {
            self.blocks.close(d, Stream::Gc);
        }
        self.c.nand_write_pages += n as u64;
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
        let slc = self.layout.is_slc_block(b);
        self.blocks.invalidate(b, slc);
        self.map.unmap(lpn);
    }

    /// Read the NAND page holding `ppa` (for a read-modify-write); returns when its data is in
    /// the controller.
    fn read_unit(&mut self, ppa: u32, t: u64) -> u64 {
        let b = self.block_of(ppa);
        let d = self.layout.die_of_block(b);
        let lat = if self.layout.is_slc_block(b) {
            self.pslc.read_ns
        } else {
            self.native.read_ns
        };
        self.c.nand_read_ops += 1;
        let done = self.tl.die_op(d, t, lat);
        self.tl.channel_unit(self.layout.channel_of_die(d), done)
    }

    /// A host write of `len` bytes at `offset` (validated), submitted at `now`. Returns its
    /// completion time, or `None` when no block could be found (never expected; an IO error).
    pub fn write(&mut self, now: u64, offset: u64, len: u64) -> Option<u64> {
        let first = offset / UNIT_BYTES;
        let end = (offset + len).div_ceil(UNIT_BYTES);
        let unit_ns = self.tl.link_unit_ns;
        let link_start = self.tl.link_free.max(now) + self.tl.link_cmd_ns;
        let link_done = link_start + len * unit_ns / UNIT_BYTES;
        self.tl.link_free = link_done;
        let mut complete = self.tl.controller(link_done, self.tl.cmd_write_ns);
        for (j, lpn) in (first..end).enumerate() {
            let lpn = lpn as u32;
            let arrive = (link_start + (j as u64 + 1) * unit_ns).min(link_done);
            let entry = arrive.max(self.wbuf.slot_free_at());
            complete = complete.max(entry);
            let unit_start = lpn as u64 * UNIT_BYTES;
            let partial = offset > unit_start || offset + len < unit_start + UNIT_BYTES;
            let old = self.map.lookup(lpn);
            let mut ready = entry;
            if old != UNMAPPED {
                if partial {
                    ready = self.read_unit(old, entry);
                    self.c.read_modify_write_pages += 1;
                }
                self.invalidate_lpn(lpn, old);
            }
            let done = self.place_host_unit(lpn, ready)?;
            self.wbuf.fill(done);
            self.c.host_write_pages += 1;
        }
        Some(complete)
    }

    /// Put one host unit in the SLC cache if it has room on the cursor's die, else in the
    /// main array. Returns when its program completes.
    fn place_host_unit(&mut self, lpn: u32, t: u64) -> Option<u64> {
        if self.slc_enabled {
            let d = self.host_die();
            if self.slc_room(d) {
                self.c.slc_cache_hits += 1;
                return Some(self.program_at(d, Stream::Slc, lpn, t).1);
            }
            self.c.slc_cache_bypassed += 1;
        }
        self.paced_gc(t);
        let d = self.pick_die(Stream::Host, t)?;
        self.gc_credit -= 1;
        Some(self.program_at(d, Stream::Host, lpn, t).1)
    }

    /// A host read; returns its completion time.
    pub fn read(&mut self, now: u64, offset: u64, len: u64) -> u64 {
        let first = offset / UNIT_BYTES;
        let end = (offset + len).div_ceil(UNIT_BYTES);
        let ctrl = self
            .tl
            .controller(now + self.tl.link_cmd_ns, self.tl.cmd_read_ns);
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
                    let lat = if self.layout.is_slc_block(b) {
                        self.pslc.read_ns
                    } else {
                        self.native.read_ns
                    };
                    die_done = self.tl.die_op(d, start, lat);
                    last_stripe = ppa / stripe;
                    self.c.nand_read_ops += 1;
                }
                self.tl
                    .channel_unit(self.layout.channel_of_die(d), die_done)
            };
            first_ready = first_ready.min(ready);
            last_ready = last_ready.max(ready);
            self.c.host_read_pages += 1;
        }
        self.last_read_end = offset + len;
        self.last_read_ready = last_ready;
        let xfer = len * self.tl.link_unit_ns / UNIT_BYTES;
        // Data goes back once the command is decoded and the first unit is in the controller
        // (read-ahead data may have been ready long before).
        let link_start = self.tl.link_free.max(first_ready).max(ctrl);
        let done = (link_start + self.tl.link_cmd_ns + xfer)
            .max(last_ready + self.tl.link_unit_ns.min(xfer));
        self.tl.link_free = done;
        done
    }

    /// Unmap the 4 KiB units entirely inside the range; partial units at the edges stay.
    pub fn discard(&mut self, now: u64, offset: u64, len: u64) -> u64 {
        let first = offset.div_ceil(UNIT_BYTES);
        let end = (offset + len) / UNIT_BYTES;
        for lpn in first..end {
            let lpn = lpn as u32;
            let old = self.map.lookup(lpn);
            if old != UNMAPPED {
                self.invalidate_lpn(lpn, old);
                self.c.trimmed_pages += 1;
            }
        }
        self.tl
            .controller(now + self.tl.link_cmd_ns, self.tl.cmd_write_ns)
    }

    /// Make everything written so far durable: partly filled pages of the host streams are
    /// padded and programmed, and the flush completes when the write buffer has drained.
    pub fn flush(&mut self, now: u64) -> u64 {
        let stripe = self.layout.stripe_units;
        for d in 0..self.layout.dies {
            for stream in [Stream::Host, Stream::Slc] {
                let f = &mut self.blocks.frontiers[d as usize][stream as usize];
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
                self.c.nand_write_pages += pad as u64;
                self.c.padded_pages += pad as u64;
                if full {
                    self.blocks.close(d, stream);
                }
            }
        }
        if self.in_turn[0] > 0 {
            self.advance_cursor(0);
        }
        self.c.flushes += 1;
        let ctrl = self
            .tl
            .controller(now + self.tl.link_cmd_ns, self.tl.cmd_write_ns);
        ctrl.max(self.wbuf.drained_at())
    }

    /// Idle time from `from` to `until`: migrate the SLC cache, then clean blocks in the
    /// background. The work occupies the dies, so a host IO arriving during it may wait.
    pub fn idle(&mut self, from: u64, until: u64) {
        if self.slc_enabled {
            self.migrate_slc(from, until);
        }
        self.background_gc(from, until);
    }
}
