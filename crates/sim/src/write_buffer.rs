//! The controller's write buffer (DRAM on drives that have it, at least the page registers
//! and SRAM on those that don't): host writes are acknowledged once their data is in the
//! buffer, and a buffer slot is released when the NAND program of the unit it held completes.
//!
//! Modelled as a FIFO ring of release times, one per 4 KiB slot: a new unit takes the oldest
//! slot and may enter only when that slot's unit is on NAND. Bursts are absorbed at link
//! speed; sustained writes run at the NAND's (and GC's) pace.

pub struct WriteBuffer {
    release_ns: Vec<u64>,
    pos: usize,
    /// The latest release time of anything ever buffered: when a flush can complete.
    drained_ns: u64,
}

impl WriteBuffer {
    pub fn new(units: usize) -> WriteBuffer {
        WriteBuffer {
            release_ns: vec![0; units.max(1)],
            pos: 0,
            drained_ns: 0,
        }
    }

    pub fn units(&self) -> usize {
        self.release_ns.len()
    }

    /// When the next unit can enter (the slot it takes is released).
    #[inline]
    pub fn slot_free_at(&self) -> u64 {
        self.release_ns[self.pos]
    }

    /// The unit that took the slot will be on NAND at `release`.
    #[inline]
    pub fn fill(&mut self, release: u64) {
        self.release_ns[self.pos] = release;
        self.pos += 1;
        if self.pos == self.release_ns.len() {
            self.pos = 0;
        }
        if release > self.drained_ns {
            self.drained_ns = release;
        }
    }

    /// When everything buffered so far is on NAND.
    pub fn drained_at(&self) -> u64 {
        self.drained_ns
    }
}
