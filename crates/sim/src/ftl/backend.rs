//! The flash back end the FTL's units share: the mapping table, the block manager, the
//! timeline with the NAND's latencies, the write cursors and the counters, and the operations
//! every unit uses on them: choosing a die, programming units, invalidating and erasing.
//!
//! Writes are placed a stripe (one multi-plane page) at a time on each die in turn, so a
//! sequential run lands on all dies in parallel and a later sequential read is parallel too.
//! Host data (main array or pseudo-SLC cache) and relocations each have their own die cursor.

use crate::block_manager::{BlockManager, Stream};
use crate::config::Config;
use crate::counters::Counters;
use crate::energy::{NATIVE, PSLC};
use crate::error::SimError;
use crate::geometry::Layout;
use crate::mapping::Mapping;
use crate::timing::{NandLatency, Timeline};
use crate::victim::GcPolicy;

pub(super) struct Backend {
    pub(super) layout: Layout,
    pub(super) map: Mapping,
    pub(super) blocks: BlockManager,
    pub(super) tl: Timeline,
    native: NandLatency,
    pslc: NandLatency,
    pub(super) c: Counters,
    /// Die cursor and units placed in its current stripe turn: [host (main or SLC), relocation].
    cursor: [u32; 2],
    in_turn: [u32; 2],
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

impl Backend {
    pub fn new(cfg: &Config) -> Result<Backend, SimError> {
        let layout = cfg.layout()?;
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
        Ok(Backend {
            map: Mapping::new(layout.logical_units, layout.physical_slots()),
            blocks: BlockManager::new(&layout, cfg.gc.policy),
            tl,
            native: cfg.native,
            pslc: cfg.pslc,
            c: Counters::default(),
            cursor: [0, 0],
            in_turn: [0, 0],
            layout,
        })
    }

    /// The NAND latencies of a block in pseudo-SLC mode (`slc`) or native mode.
    #[inline]
    pub fn latency(&self, slc: bool) -> &NandLatency {
        if slc {
            &self.pslc
        } else {
            &self.native
        }
    }

    #[inline]
    pub fn block_of(&self, ppa: u32) -> u32 {
        ppa / self.layout.block_units
    }

    fn advance_cursor(&mut self, k: usize) {
        self.cursor[k] = (self.cursor[k] + 1) % self.layout.dies;
        self.in_turn[k] = 0;
    }

    /// The die the host cursor points at (the SLC cache uses the same rotation).
    pub fn host_die(&self) -> u32 {
        self.cursor[0]
    }

    /// A partly placed host stripe turn ends (a flush): the next host unit starts on the next
    /// die.
    pub fn end_host_turn(&mut self) {
        if self.in_turn[0] > 0 {
            self.advance_cursor(0);
        }
    }

    /// Make sure die `d`'s open block for `stream` has room, opening a block if needed.
    pub fn ensure_room(&mut self, d: u32, stream: Stream) -> bool {
        self.blocks.frontier(d, stream).has_room()
            || (self.blocks.has_free(d, stream) && self.blocks.open(d, stream, &self.layout))
    }

    /// The die for the next unit of a main-array stream: the cursor's, or the next that can
    /// take it. `before_open` runs whenever a die's block is full and a new one must be
    /// opened: for the host stream, where all-out foreground GC starts.
    pub fn pick_die(
        &mut self,
        stream: Stream,
        mut before_open: impl FnMut(&mut Backend),
    ) -> Option<u32> {
        let k = turn_index(stream);
        for _ in 0..self.layout.dies {
            let d = self.cursor[k];
            if self.blocks.frontier(d, stream).has_room() {
                return Some(d);
            }
            before_open(self);
            if self.blocks.has_free(d, stream) && self.blocks.open(d, stream, &self.layout) {
                return Some(d);
            }
            self.advance_cursor(k);
        }
        None
    }

    /// Reserve the program of the stripe starting at unit `next` of die `d`'s open block for
    /// `stream`, its data in the die's page register at `xfer`.
    #[inline]
    fn program_stripe(&mut self, d: u32, stream: Stream, next: u32, xfer: u64) {
        let lat = self
            .latency(stream == Stream::Slc)
            .program
            .of_page(next / self.layout.stripe_units);
        let done = self.tl.die_program(d, xfer, lat);
        self.blocks.frontier_mut(d, stream).set_stripe_done(done);
        self.c.prog_pages[mode_of_stream(stream)] += self.layout.planes as u64;
    }

    /// `n` units went into `stream`'s current stripe turn: the cursor moves on when the
    /// stripe is done.
    #[inline]
    fn placed(&mut self, stream: Stream, n: u32) {
        self.c.nand_write_pages += n as u64 * self.layout.pages_per_unit();
        let k = turn_index(stream);
        self.in_turn[k] += n;
        if self.in_turn[k] >= self.layout.stripe_units {
            self.advance_cursor(k);
        }
    }

    /// Program logical unit `lpn` (or padding, `None`) into die `d`'s open block for `stream`
    /// (which has room), its data ready at `t`. Returns when its program completes.
    pub fn program_at(&mut self, d: u32, stream: Stream, lpn: Option<u32>, t: u64) -> u64 {
        let xfer = self.tl.channel_unit(self.layout.channel_of_die(d), t);
        let next = self.blocks.frontier(d, stream).next();
        if next.is_multiple_of(self.layout.stripe_units) {
            // One program per multi-plane page, reserved when its first unit arrives.
            self.program_stripe(d, stream, next, xfer);
        }
        let f = self.blocks.frontier_mut(d, stream);
        let done = f.stripe_done();
        let (b, unit, full) = f.take(1);
        let ppa = b * self.layout.block_units + unit;
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
        self.placed(stream, 1);
        done
    }

    /// Program as many of `units` (unit index in a victim, logical unit) as fit in the current
    /// stripe of die `d`'s relocation block (which has room), data ready at `t`; `channel`:
    /// whether the data crosses the die's channel (not for a copyback). Returns how many were
    /// placed.
    pub fn program_run(&mut self, d: u32, units: &[(u32, u32)], t: u64, channel: bool) -> u32 {
        let stripe = self.layout.stripe_units;
        let f = self.blocks.frontier(d, Stream::Gc);
        let next = f.next();
        let n = f.stripe_room(stripe).min(units.len() as u32);
        let xfer = if channel {
            self.tl.channel_units(self.layout.channel_of_die(d), t, n)
        } else {
            t
        };
        if next.is_multiple_of(stripe) {
            self.program_stripe(d, Stream::Gc, next, xfer);
        }
        let (b, first, full) = self.blocks.frontier_mut(d, Stream::Gc).take(n);
        let base = b * self.layout.block_units + first;
        for (k, &(_, lpn)) in units[..n as usize].iter().enumerate() {
            self.map.map(lpn, base + k as u32);
        }
        self.blocks.add_valid(b, n);
        if full {
            self.blocks.close(d, Stream::Gc);
        }
        self.placed(Stream::Gc, n);
        n
    }

    /// Pad the partly filled stripes of the host streams' open blocks (a flush): the padding
    /// is programmed with the data before it.
    pub fn pad_host_stripes(&mut self) {
        let stripe = self.layout.stripe_units;
        let per = self.layout.pages_per_unit();
        for d in 0..self.layout.dies {
            for stream in [Stream::Host, Stream::Slc] {
                let f = self.blocks.frontier_mut(d, stream);
                if !f.is_started() || f.next().is_multiple_of(stripe) {
                    continue;
                }
                let pad = stripe - f.next() % stripe;
                let (b, first, full) = f.take(pad);
                let base = b * self.layout.block_units + first;
                for i in 0..pad {
                    self.map.pad(base + i);
                }
                self.c.nand_write_pages += pad as u64 * per;
                self.c.padded_pages += pad as u64 * per;
                if full {
                    self.blocks.close(d, stream);
                }
            }
        }
    }

    /// The host's copy of `lpn` is gone (overwritten or trimmed).
    #[inline]
    pub fn invalidate_lpn(&mut self, lpn: u32, ppa: u32) {
        let b = self.block_of(ppa);
        self.blocks.invalidate(b);
        self.map.unmap(lpn);
    }

    /// Erase block `b`, queued on its die from `t`: back to its free pool.
    pub fn erase(&mut self, b: u32, t: u64) {
        let d = self.layout.die_of_block(b);
        let slc = self.blocks.is_slc(b);
        self.tl.die_op(d, t, self.latency(slc).erase_ns);
        self.c.erases[slc as usize] += 1;
        self.blocks.erased(b, &self.layout);
    }

    /// A secure erase at `start` (every die free by then): every block erased, every mapping
    /// forgotten (counters and wear carry over). Each die erases its used blocks one after
    /// another; returns when all are done.
    pub fn erase_all(&mut self, start: u64, policy: GcPolicy) -> u64 {
        let per_die = self.blocks.erase_all(&self.layout, policy);
        self.map.reset();
        self.cursor = [0, 0];
        self.in_turn = [0, 0];
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
}
