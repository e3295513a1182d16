//! The block manager (MQSim's vocabulary): per-block valid counts, erase counts and states,
//! the free block pools of each die (main array and pseudo-SLC region), and the write
//! frontiers (open blocks being filled).
//!
//! Free blocks are handed out oldest-erased first (a queue per die), which levels wear
//! without a separate wear-levelling pass.

use std::collections::VecDeque;

use crate::gc::{GcPolicy, VictimIndex};
use crate::geometry::Layout;

pub const NO_BLOCK: u32 = u32::MAX;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BlockState {
    Free,
    Open,
    Closed,
}

/// An open block being filled, one per die and stream.
#[derive(Clone, Copy, Debug)]
pub struct Frontier {
    pub block: u32,
    /// Next unit to write within the block.
    pub next: u32,
    /// Units the block holds (fewer in pseudo-SLC mode).
    pub limit: u32,
    /// When the program of the current stripe (multi-plane page) completes.
    pub stripe_done: u64,
}

impl Frontier {
    pub const EMPTY: Frontier = Frontier {
        block: NO_BLOCK,
        next: 0,
        limit: 0,
        stripe_done: 0,
    };
    #[inline]
    pub fn has_room(&self) -> bool {
        self.block != NO_BLOCK && self.next < self.limit
    }
}

/// The streams that write: host data to the main array, host data to the pseudo-SLC cache,
/// and relocations (GC and SLC migration) to the main array.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stream {
    Host = 0,
    Slc = 1,
    Gc = 2,
}

pub struct BlockManager {
    pub valid: Vec<u32>,
    pub erases: Vec<u32>,
    pub state: Vec<BlockState>,
    /// Value of `close_counter` when the block was closed (its age for cost-benefit).
    pub close_seq: Vec<u64>,
    pub close_counter: u64,
    free_main: Vec<VecDeque<u32>>,
    free_slc: Vec<VecDeque<u32>>,
    pub free_main_count: u32,
    pub frontiers: Vec<[Frontier; 3]>,
    pub victims: VictimIndex,
    /// Closed pseudo-SLC blocks, oldest first (migrated in that order).
    pub slc_closed: VecDeque<u32>,
}

impl BlockManager {
    pub fn new(layout: &Layout, policy: GcPolicy) -> BlockManager {
        let n = layout.total_blocks();
        let bpd = layout.blocks_per_die();
        let mut free_main = Vec::with_capacity(layout.dies as usize);
        let mut free_slc = Vec::with_capacity(layout.dies as usize);
        for d in 0..layout.dies {
            let base = d * bpd;
            free_main.push((base..base + layout.main_blocks_per_die).collect());
            free_slc.push((base + layout.main_blocks_per_die..base + bpd).collect());
        }
        BlockManager {
            valid: vec![0; n as usize],
            erases: vec![0; n as usize],
            state: vec![BlockState::Free; n as usize],
            close_seq: vec![0; n as usize],
            close_counter: 0,
            free_main,
            free_slc,
            free_main_count: layout.main_blocks() as u32,
            frontiers: vec![[Frontier::EMPTY; 3]; layout.dies as usize],
            victims: VictimIndex::new(policy, n, layout.block_units),
            slc_closed: VecDeque::new(),
        }
    }

    /// Take a free block of the die for `stream`, if the die has one.
    pub fn open(&mut self, die: u32, stream: Stream, layout: &Layout) -> bool {
        let (pool, limit) = match stream {
            Stream::Slc => (&mut self.free_slc[die as usize], layout.slc_block_units),
            _ => (&mut self.free_main[die as usize], layout.block_units),
        };
        let Some(b) = pool.pop_front() else {
            return false;
        };
        if stream != Stream::Slc {
            self.free_main_count -= 1;
        }
        self.state[b as usize] = BlockState::Open;
        self.valid[b as usize] = 0;
        self.frontiers[die as usize][stream as usize] = Frontier {
            block: b,
            next: 0,
            limit,
            stripe_done: 0,
        };
        true
    }

    pub fn has_free(&self, die: u32, stream: Stream) -> bool {
        match stream {
            Stream::Slc => !self.free_slc[die as usize].is_empty(),
            _ => !self.free_main[die as usize].is_empty(),
        }
    }

    /// The frontier block is full: it joins the GC candidates (or the SLC migration queue).
    pub fn close(&mut self, die: u32, stream: Stream) {
        let f = &mut self.frontiers[die as usize][stream as usize];
        let b = f.block;
        f.block = NO_BLOCK;
        self.state[b as usize] = BlockState::Closed;
        self.close_counter += 1;
        self.close_seq[b as usize] = self.close_counter;
        if stream == Stream::Slc {
            self.slc_closed.push_back(b);
        } else {
            self.victims.insert(b, self.valid[b as usize]);
        }
    }

    /// One unit of a block became stale (overwritten, trimmed or relocated).
    #[inline]
    pub fn invalidate(&mut self, b: u32, is_slc: bool) {
        let v = &mut self.valid[b as usize];
        *v -= 1;
        let v = *v;
        if !is_slc && self.state[b as usize] == BlockState::Closed {
            self.victims.decremented(b, v);
        }
    }

    /// The block was erased: back to its die's free pool.
    pub fn erased(&mut self, b: u32, layout: &Layout) {
        let die = layout.die_of_block(b) as usize;
        self.erases[b as usize] += 1;
        self.valid[b as usize] = 0;
        self.state[b as usize] = BlockState::Free;
        if layout.is_slc_block(b) {
            self.free_slc[die].push_back(b);
        } else {
            self.free_main[die].push_back(b);
            self.free_main_count += 1;
        }
    }

    pub fn free_slc_count(&self) -> usize {
        self.free_slc.iter().map(|q| q.len()).sum()
    }
}
