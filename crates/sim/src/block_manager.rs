//! The block manager (MQSim's vocabulary): per-block valid counts, erase counts, states and
//! modes, the free block pools of each die (main array and static pseudo-SLC region), and the
//! write frontiers (open blocks being filled).
//!
//! Free blocks are handed out oldest-erased first (a queue per die), which levels wear
//! without a separate wear-levelling pass. A block runs in pseudo-SLC mode when it belongs to
//! the static cache region, or while a dynamic cache has borrowed it from the main array.

use std::collections::VecDeque;

use crate::geometry::Layout;
use crate::victim::{GcPolicy, VictimIndex};

const NO_BLOCK: u32 = u32::MAX;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum BlockState {
    Free,
    Open,
    Closed,
}

/// An open block being filled, one per die and stream.
#[derive(Clone, Copy, Debug)]
pub struct Frontier {
    block: u32,
    /// Next unit to write within the block.
    next: u32,
    /// Units the block holds (fewer in pseudo-SLC mode).
    limit: u32,
    /// When the program of the current stripe (multi-plane page) completes.
    stripe_done: u64,
}

impl Frontier {
    const EMPTY: Frontier = Frontier {
        block: NO_BLOCK,
        next: 0,
        limit: 0,
        stripe_done: 0,
    };

    #[inline]
    pub fn has_room(&self) -> bool {
        self.block != NO_BLOCK && self.next < self.limit
    }

    /// Whether a block is open and holds something.
    pub fn is_started(&self) -> bool {
        self.block != NO_BLOCK && self.next > 0
    }

    /// Next unit to write within the block.
    #[inline]
    pub fn next(&self) -> u32 {
        self.next
    }

    /// Units left in the current stripe of `stripe` units, and in the block.
    #[inline]
    pub fn stripe_room(&self, stripe: u32) -> u32 {
        (stripe - self.next % stripe).min(self.limit - self.next)
    }

    /// When the program of the current stripe completes.
    #[inline]
    pub fn stripe_done(&self) -> u64 {
        self.stripe_done
    }

    /// The current stripe's program was reserved to complete at `t`.
    #[inline]
    pub fn set_stripe_done(&mut self, t: u64) {
        self.stripe_done = t;
    }

    /// Take the next `n` units (which fit): returns the block and the first unit's index in
    /// it, and whether the block is now full.
    #[inline]
    pub fn take(&mut self, n: u32) -> (u32, u32, bool) {
        let first = self.next;
        self.next += n;
        (self.block, first, self.next == self.limit)
    }
}

/// The streams that write: host data to the main array, host data to the pseudo-SLC cache,
/// and relocations (GC and SLC folding) to the main array.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stream {
    Host = 0,
    Slc = 1,
    Gc = 2,
}

pub struct BlockManager {
    valid: Vec<u32>,
    erases: Vec<u32>,
    state: Vec<BlockState>,
    /// Whether the block runs in pseudo-SLC mode now.
    slc_mode: Vec<bool>,
    /// Value of `close_counter` when the block was closed (its age for cost-benefit).
    close_seq: Vec<u64>,
    close_counter: u64,
    free_main: Vec<VecDeque<u32>>,
    free_slc: Vec<VecDeque<u32>>,
    free_main_count: u32,
    frontiers: Vec<[Frontier; 3]>,
    victims: VictimIndex,
    /// Closed pseudo-SLC blocks of each die, oldest first (folded in that order).
    slc_closed: Vec<VecDeque<u32>>,
    /// Blocks in pseudo-SLC mode borrowed from the main array (dynamic cache).
    slc_borrowed: u32,
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
            slc_mode: (0..n).map(|b| layout.is_slc_region_block(b)).collect(),
            close_seq: vec![0; n as usize],
            close_counter: 0,
            free_main,
            free_slc,
            free_main_count: layout.main_blocks() as u32,
            frontiers: vec![[Frontier::EMPTY; 3]; layout.dies as usize],
            victims: VictimIndex::new(policy, n, layout.block_units),
            slc_closed: vec![VecDeque::new(); layout.dies as usize],
            slc_borrowed: 0,
        }
    }

    /// Every block erased at once (a secure erase); returns how many blocks each die erased.
    /// Wear (erase counts) carries over.
    pub fn erase_all(&mut self, layout: &Layout, policy: GcPolicy) -> Vec<u64> {
        let mut per_die = vec![0u64; layout.dies as usize];
        let mut fresh = BlockManager::new(layout, policy);
        for (b, (&state, &erases)) in self.state.iter().zip(&self.erases).enumerate() {
            let used = state != BlockState::Free;
            fresh.erases[b] = erases + used as u32;
            per_die[layout.die_of_block(b as u32) as usize] += used as u64;
        }
        *self = fresh;
        per_die
    }

    #[inline]
    pub fn is_slc(&self, b: u32) -> bool {
        self.slc_mode[b as usize]
    }

    /// Units of block `b` holding current data.
    #[inline]
    pub fn valid(&self, b: u32) -> u32 {
        self.valid[b as usize]
    }

    /// Each block's erase count.
    pub fn erases(&self) -> &[u32] {
        &self.erases
    }

    /// Free main-array blocks, over all dies.
    #[inline]
    pub fn free_main_count(&self) -> u32 {
        self.free_main_count
    }

    /// Blocks a dynamic cache has borrowed from the main array.
    #[inline]
    pub fn slc_borrowed(&self) -> u32 {
        self.slc_borrowed
    }

    /// Die `die`'s open block for `stream`.
    #[inline]
    pub fn frontier(&self, die: u32, stream: Stream) -> &Frontier {
        &self.frontiers[die as usize][stream as usize]
    }

    #[inline]
    pub fn frontier_mut(&mut self, die: u32, stream: Stream) -> &mut Frontier {
        &mut self.frontiers[die as usize][stream as usize]
    }

    /// `n` units were programmed into block `b`.
    #[inline]
    pub fn add_valid(&mut self, b: u32, n: u32) {
        self.valid[b as usize] += n;
    }

    /// `n` units of block `b`, which is being cleaned, were relocated.
    #[inline]
    pub fn moved_out(&mut self, b: u32, n: u32) {
        self.valid[b as usize] -= n;
    }

    /// The victim index's pick (see [`VictimIndex::pick`]).
    #[inline]
    pub fn pick_victim(&mut self) -> Option<u32> {
        self.victims.pick(&self.valid, self.close_counter)
    }

    /// Stale (overwritten or trimmed) units in closed main-array blocks: the victim index
    /// holds exactly those blocks.
    pub fn stale_closed_units(&self, block_units: u32) -> u64 {
        let stale = self.victims.stale_units();
        debug_assert_eq!(
            stale,
            (0..self.state.len())
                .filter(|&i| self.state[i] == BlockState::Closed && !self.slc_mode[i])
                .map(|i| u64::from(block_units - self.valid[i]))
                .sum::<u64>()
        );
        stale
    }

    /// Block `b` is being cleaned: out of the victim index (a main-array block), open again.
    pub fn start_cleaning(&mut self, b: u32) {
        if !self.slc_mode[b as usize] {
            self.victims.remove(b, self.valid[b as usize]);
        }
        self.state[b as usize] = BlockState::Open;
    }

    /// Cleaning block `b` (on die `die`) stopped short: closed again with what is still
    /// valid, back among the victims or at the head of its die's folding queue.
    pub fn stop_cleaning(&mut self, b: u32, die: u32) {
        self.state[b as usize] = BlockState::Closed;
        if self.slc_mode[b as usize] {
            self.slc_closed[die as usize].push_front(b);
        } else {
            self.victims
                .insert(b, self.valid[b as usize], self.close_seq[b as usize]);
        }
    }

    /// Whether die `die` has closed cache blocks to fold.
    pub fn has_cached(&self, die: u32) -> bool {
        !self.slc_closed[die as usize].is_empty()
    }

    /// Take die `die`'s oldest closed cache block off its folding queue.
    pub fn pop_cached(&mut self, die: u32) -> Option<u32> {
        self.slc_closed[die as usize].pop_front()
    }

    /// The die holding the oldest closed cache block.
    pub fn oldest_cached_die(&self) -> Option<u32> {
        self.slc_closed
            .iter()
            .enumerate()
            .filter_map(|(d, q)| q.front().map(|&b| (d as u32, self.close_seq[b as usize])))
            .min_by_key(|&(_, closed)| closed)
            .map(|(d, _)| d)
    }

    fn start(&mut self, die: u32, stream: Stream, b: u32, limit: u32) {
        self.state[b as usize] = BlockState::Open;
        self.valid[b as usize] = 0;
        self.frontiers[die as usize][stream as usize] = Frontier {
            block: b,
            next: 0,
            limit,
            stripe_done: 0,
        };
    }

    /// Take a free block of the die for `stream`, if the die has one: main-array streams and
    /// the static cache from their own pools.
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
        self.start(die, stream, b, limit);
        true
    }

    /// Borrow a free main-array block of the die as a dynamic cache block.
    pub fn open_borrowed_slc(&mut self, die: u32, layout: &Layout) -> bool {
        let Some(b) = self.free_main[die as usize].pop_front() else {
            return false;
        };
        self.free_main_count -= 1;
        self.slc_borrowed += 1;
        self.slc_mode[b as usize] = true;
        self.start(die, Stream::Slc, b, layout.slc_block_units);
        true
    }

    pub fn has_free(&self, die: u32, stream: Stream) -> bool {
        match stream {
            Stream::Slc => !self.free_slc[die as usize].is_empty(),
            _ => !self.free_main[die as usize].is_empty(),
        }
    }

    /// The frontier block is full: it joins the GC candidates (or its die's folding queue).
    pub fn close(&mut self, die: u32, stream: Stream) {
        let f = &mut self.frontiers[die as usize][stream as usize];
        let b = f.block;
        f.block = NO_BLOCK;
        self.state[b as usize] = BlockState::Closed;
        self.close_counter += 1;
        self.close_seq[b as usize] = self.close_counter;
        if stream == Stream::Slc {
            self.slc_closed[die as usize].push_back(b);
        } else {
            self.victims
                .insert(b, self.valid[b as usize], self.close_seq[b as usize]);
        }
    }

    /// One unit of a block became stale (overwritten, trimmed or relocated).
    #[inline]
    pub fn invalidate(&mut self, b: u32) {
        let v = &mut self.valid[b as usize];
        *v -= 1;
        let v = *v;
        if !self.slc_mode[b as usize] && self.state[b as usize] == BlockState::Closed {
            self.victims.decremented(b, v, &self.close_seq);
        }
    }

    /// The block was erased: back to its die's free pool (a borrowed cache block goes back to
    /// the main array).
    pub fn erased(&mut self, b: u32, layout: &Layout) {
        let die = layout.die_of_block(b) as usize;
        self.erases[b as usize] += 1;
        self.valid[b as usize] = 0;
        self.state[b as usize] = BlockState::Free;
        if layout.is_slc_region_block(b) {
            self.free_slc[die].push_back(b);
        } else {
            if self.slc_mode[b as usize] {
                self.slc_mode[b as usize] = false;
                self.slc_borrowed -= 1;
            }
            self.free_main[die].push_back(b);
            self.free_main_count += 1;
        }
    }

    /// The free pools agree with the blocks' states: every pooled block is free, holds nothing
    /// valid and is in its die's and its region's pool, there are as many pooled as free
    /// blocks (so none is lost or pooled twice), the main array's count is the sum of its
    /// pools, and the borrowed count is the main array's blocks in pseudo-SLC mode. O(blocks),
    /// and allocation-free: debug builds run it while serving requests.
    pub fn assert_consistent(&self, layout: &Layout) {
        for die in 0..layout.dies {
            let d = die as usize;
            for (pool, slc) in [(&self.free_main[d], false), (&self.free_slc[d], true)] {
                for &b in pool {
                    let i = b as usize;
                    assert_eq!(self.state[i], BlockState::Free, "block {b} pooled free");
                    assert_eq!(self.valid[i], 0, "free block {b} holds valid units");
                    assert_eq!(layout.die_of_block(b), die, "block {b} in die {die}'s pool");
                    assert_eq!(
                        layout.is_slc_region_block(b),
                        slc,
                        "block {b} in the wrong pool"
                    );
                }
            }
        }
        let free = self
            .state
            .iter()
            .filter(|&&s| s == BlockState::Free)
            .count();
        let main: usize = self.free_main.iter().map(|q| q.len()).sum();
        let pooled = main + self.free_slc_count();
        assert_eq!(
            pooled, free,
            "{free} free blocks, {pooled} in the free pools"
        );
        assert_eq!(
            main, self.free_main_count as usize,
            "free main-array blocks"
        );
        let borrowed = (0..self.state.len() as u32)
            .filter(|&b| self.slc_mode[b as usize] && !layout.is_slc_region_block(b))
            .count();
        assert_eq!(
            borrowed, self.slc_borrowed as usize,
            "borrowed cache blocks"
        );
    }

    pub fn free_slc_count(&self) -> usize {
        self.free_slc.iter().map(|q| q.len()).sum()
    }

    pub fn slc_closed_count(&self) -> usize {
        self.slc_closed.iter().map(|q| q.len()).sum()
    }
}
