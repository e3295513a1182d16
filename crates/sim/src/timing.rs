//! Timing by "next free time", as FEMU does: every resource (each die, each channel, the
//! controller, the host link) remembers when it is next free, and an operation on it
//! completes at `max(ready, next_free) + latency`. No event queue, no bus cycles: fast, and
//! close enough to show queueing, die parallelism, channel limits and GC interference.
//!
//! All times are virtual nanoseconds.

use serde::Serialize;

use crate::geometry::CellType;

/// Program times by page type. MLC and TLC wordlines hold two or three pages whose programs
/// take very different times (LSB fast, MSB slow); a uniform drive has one entry.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ProgramTimes {
    ns: [u64; 3],
    kinds: usize,
}

impl ProgramTimes {
    pub const fn uniform(ns: u64) -> ProgramTimes {
        ProgramTimes {
            ns: [ns, ns, ns],
            kinds: 1,
        }
    }
    /// One time per page type in order (at most 3); `None` if the list is empty or too long.
    pub fn per_page(times: &[u64]) -> Option<ProgramTimes> {
        if times.is_empty() || times.len() > 3 {
            return None;
        }
        let mut ns = [0; 3];
        ns[..times.len()].copy_from_slice(times);
        Some(ProgramTimes {
            ns,
            kinds: times.len(),
        })
    }
    pub fn times(&self) -> &[u64] {
        &self.ns[..self.kinds]
    }
    /// The mean over page types: what a long sequential program runs at.
    pub fn mean(&self) -> u64 {
        self.times().iter().sum::<u64>() / self.kinds as u64
    }
    /// The program time of the `page`-th page of a block.
    #[inline]
    pub fn of_page(&self, page: u32) -> u64 {
        self.ns[page as usize % self.kinds]
    }
}

impl Serialize for ProgramTimes {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.times().serialize(s)
    }
}

/// NAND latencies of one operating mode.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct NandLatency {
    pub read_ns: u64,
    pub program: ProgramTimes,
    pub erase_ns: u64,
}

impl NandLatency {
    /// Defaults near the literature for 19-25 nm planar NAND (e.g. MLC read ~50 us,
    /// program ~1.3 ms, erase ~3 ms; TLC about 50% slower than MLC), uniform across pages.
    pub fn native(cell: CellType) -> NandLatency {
        let (read_ns, program_ns, erase_ns) = match cell {
            CellType::Slc => (25_000, 250_000, 1_500_000),
            CellType::Mlc => (50_000, 1_300_000, 3_000_000),
            CellType::Tlc => (75_000, 2_000_000, 4_500_000),
        };
        NandLatency {
            read_ns,
            program: ProgramTimes::uniform(program_ns),
            erase_ns,
        }
    }
    /// MLC/TLC cells run with one bit per cell (SanDisk nCache, Samsung TurboWrite).
    pub fn pseudo_slc(cell: CellType) -> NandLatency {
        let (read_ns, program_ns, erase_ns) = match cell {
            CellType::Slc | CellType::Mlc => (30_000, 300_000, 3_000_000),
            CellType::Tlc => (35_000, 400_000, 4_500_000),
        };
        NandLatency {
            read_ns,
            program: ProgramTimes::uniform(program_ns),
            erase_ns,
        }
    }
}

/// Nanoseconds to move `bytes` at `mbps` (10^6 bytes/s).
pub fn transfer_ns(bytes: u64, mbps: f64) -> u64 {
    (bytes as f64 * 1000.0 / mbps).round() as u64
}

/// The next-free times of every resource, plus the per-unit transfer costs. Each resource's
/// next-free time changes in one method, by one rule: the dies in [`Timeline::die_op`] (which
/// prioritised reads and budgeted programs go through), the channels in
/// [`Timeline::channel_units`], the controller in [`Timeline::controller`] and the host link in
/// [`Timeline::link_transfer`].
#[derive(Clone, Debug)]
pub struct Timeline {
    die_free: Vec<u64>,
    /// When each die's last prioritised read ends (`die_read`).
    read_free: Vec<u64>,
    chan_free: Vec<u64>,
    /// When each of the controller's program slots is next free (empty: no budget). A
    /// controller keeps its peak power under a budget by letting only so many dies program at
    /// once; a program waits for its die and for a slot.
    prog_slots: Vec<u64>,
    ctrl_free: u64,
    link_free: u64,
    /// The mapping unit, in bytes.
    unit_bytes: u64,
    /// One mapping unit over a NAND channel.
    chan_unit_ns: u64,
    /// One mapping unit over the host link, and the link's per-command cost (FIS/doorbell).
    link_unit_ns: u64,
    link_cmd_ns: u64,
    /// Controller (firmware) time per command; the controller is one serial resource.
    cmd_read_ns: u64,
    cmd_write_ns: u64,
    /// When the last operation scheduled on any resource ends: the drive has work until then.
    work_end: u64,
    /// What the energy model counts: mapping units moved over the channels, controller time.
    chan_units: u64,
    ctrl_busy_ns: u64,
}

impl Timeline {
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        unit_bytes: u64,
        dies: u32,
        channels: u32,
        channel_mbps: f64,
        link_mbps: f64,
        link_cmd_ns: u64,
        cmd_read_ns: u64,
        cmd_write_ns: u64,
        max_programs: u32,
    ) -> Timeline {
        // A budget of every die (or more) never binds: no slots to keep.
        let slots = if max_programs < dies { max_programs } else { 0 };
        Timeline {
            die_free: vec![0; dies as usize],
            read_free: vec![0; dies as usize],
            chan_free: vec![0; channels as usize],
            prog_slots: vec![0; slots as usize],
            ctrl_free: 0,
            link_free: 0,
            unit_bytes,
            chan_unit_ns: transfer_ns(unit_bytes, channel_mbps).max(1),
            link_unit_ns: transfer_ns(unit_bytes, link_mbps).max(1),
            link_cmd_ns,
            cmd_read_ns,
            cmd_write_ns,
            work_end: 0,
            chan_units: 0,
            ctrl_busy_ns: 0,
        }
    }

    /// Note work on some resource that ends at `end`.
    #[inline]
    fn busy_to(&mut self, end: u64) {
        self.work_end = self.work_end.max(end);
    }

    /// When the last operation scheduled on any resource ends.
    pub fn work_end(&self) -> u64 {
        self.work_end
    }

    /// Mapping units moved over the channels so far (energy model).
    pub fn chan_units(&self) -> u64 {
        self.chan_units
    }

    /// Controller time spent so far (energy model).
    pub fn ctrl_busy_ns(&self) -> u64 {
        self.ctrl_busy_ns
    }

    /// A host read on a die that serves reads first: it waits for the operation in progress
    /// (at most `max_wait`, one program) and for earlier reads, not for the whole queue of
    /// programs and erases, which it pushes back by its own duration. Returns its end.
    #[inline]
    pub fn die_read(&mut self, die: u32, ready: u64, ns: u64, max_wait: u64) -> u64 {
        let wait = self.die_free[die as usize]
            .saturating_sub(ready)
            .min(max_wait);
        let r = &mut self.read_free[die as usize];
        let end = (ready + wait).max(*r) + ns;
        *r = end;
        let last = self.die_op(die, ready, ns);
        self.busy_to(last.max(end));
        end
    }

    /// Occupy a die for `ns` starting no earlier than `ready`; returns the end.
    #[inline]
    pub fn die_op(&mut self, die: u32, ready: u64, ns: u64) -> u64 {
        let d = &mut self.die_free[die as usize];
        let end = (*d).max(ready) + ns;
        *d = end;
        self.busy_to(end);
        end
    }

    /// A program of `ns` on die `d`, its data there at `ready`: it starts when the die and a
    /// program slot are both free (the slot free earliest). Returns its end.
    #[inline]
    pub fn die_program(&mut self, die: u32, ready: u64, ns: u64) -> u64 {
        let earliest = (0..self.prog_slots.len()).min_by_key(|&i| self.prog_slots[i]);
        let Some(slot) = earliest else {
            return self.die_op(die, ready, ns);
        };
        let end = self.die_op(die, ready.max(self.prog_slots[slot]), ns);
        self.prog_slots[slot] = end;
        end
    }

    /// When die `die` is next free.
    #[inline]
    pub fn die_free_at(&self, die: u32) -> u64 {
        self.die_free[die as usize]
    }

    /// The earliest time every die is idle.
    pub fn all_dies_free(&self) -> u64 {
        self.die_free.iter().copied().max().unwrap_or(0)
    }

    /// Move one unit over a channel, no earlier than `ready`; returns the end.
    #[inline]
    pub fn channel_unit(&mut self, channel: u32, ready: u64) -> u64 {
        self.channel_units(channel, ready, 1)
    }

    /// Move `n` units over a channel back to back, no earlier than `ready`; returns the end.
    #[inline]
    pub fn channel_units(&mut self, channel: u32, ready: u64, n: u32) -> u64 {
        let c = &mut self.chan_free[channel as usize];
        let end = (*c).max(ready) + self.chan_unit_ns * n as u64;
        *c = end;
        self.chan_units += n as u64;
        self.busy_to(end);
        end
    }

    /// The controller's work of `ns`, no earlier than `ready`; returns the end.
    #[inline]
    pub fn controller(&mut self, ready: u64, ns: u64) -> u64 {
        self.ctrl_free = self.ctrl_free.max(ready) + ns;
        self.ctrl_busy_ns += ns;
        self.busy_to(self.ctrl_free);
        self.ctrl_free
    }

    /// When a command without data to send (a read, discard or flush) submitted at `now`
    /// reaches the controller: one command cost later, without queueing on the link. Unlike
    /// a write's command, which travels with its data ([`Timeline::link_transfer`]), it does
    /// not wait for (nor reserve) the link: the presets were fitted with command frames
    /// passing queued data transfers, and making them queue would change every result.
    #[inline]
    fn command_arrives(&self, now: u64) -> u64 {
        now + self.link_cmd_ns
    }

    /// A host read's command, submitted at `now`: decoded by the controller; returns when.
    #[inline]
    pub fn read_command(&mut self, now: u64) -> u64 {
        self.controller(self.command_arrives(now), self.cmd_read_ns)
    }

    /// A discard or flush, submitted at `now`: decoded by the controller (at a write's cost);
    /// returns when.
    #[inline]
    pub fn dataless_command(&mut self, now: u64) -> u64 {
        self.controller(self.command_arrives(now), self.cmd_write_ns)
    }

    /// A host write's command, decoded once its data is in (`data_in`); returns when.
    #[inline]
    pub fn write_command(&mut self, data_in: u64) -> u64 {
        self.controller(data_in, self.cmd_write_ns)
    }

    /// One mapping unit over the host link.
    #[inline]
    pub fn link_unit_ns(&self) -> u64 {
        self.link_unit_ns
    }

    /// `bytes` over the host link.
    #[inline]
    pub fn link_ns(&self, bytes: u64) -> u64 {
        bytes * self.link_unit_ns / self.unit_bytes
    }

    /// A command and its `bytes` of data over the host link (a write's from the host, a read's
    /// back to it), in line behind earlier transfers and no earlier than `ready`, ending no
    /// earlier than `not_before`. Returns (when the data starts to move, when it is done).
    #[inline]
    pub fn link_transfer(&mut self, ready: u64, bytes: u64, not_before: u64) -> (u64, u64) {
        let data_start = self.link_free.max(ready) + self.link_cmd_ns;
        let done = (data_start + self.link_ns(bytes)).max(not_before);
        self.link_free = done;
        self.busy_to(done);
        (data_start, done)
    }
}
