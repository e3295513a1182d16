//! Garbage collection: which closed block to clean next (MQSim's GC unit).
//!
//! - **greedy** (default): the block with the fewest valid units, found in O(1) amortised
//!   from buckets of blocks indexed by valid count (doubly linked lists in flat arrays);
//! - **cost-benefit** (Rosenblum/Kawaguchi): maximise `(1-u)/2u * age`, by a scan of every
//!   closed block (slower: O(blocks) per victim);
//! - **fifo**: the block closed longest ago (LRW in Desnoyers' terms).
//!
//! Foreground GC runs when free blocks fall to a threshold, inside the host write that needs a
//! block; background GC runs in idle time up to a higher threshold. Both live in `ftl.rs`.

use std::collections::VecDeque;

use serde::Serialize;

const NONE: u32 = u32::MAX;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum GcPolicy {
    Greedy,
    CostBenefit,
    Fifo,
}

impl GcPolicy {
    pub fn parse(s: &str) -> Option<GcPolicy> {
        match s.to_ascii_lowercase().replace('_', "-").as_str() {
            "greedy" => Some(GcPolicy::Greedy),
            "cost-benefit" | "costbenefit" | "cb" => Some(GcPolicy::CostBenefit),
            "fifo" | "lrw" => Some(GcPolicy::Fifo),
            _ => None,
        }
    }
    pub fn name(self) -> &'static str {
        match self {
            GcPolicy::Greedy => "greedy",
            GcPolicy::CostBenefit => "cost-benefit",
            GcPolicy::Fifo => "fifo",
        }
    }
}

/// The closed main-array blocks, indexed for victim selection.
pub struct VictimIndex {
    policy: GcPolicy,
    /// head[v]: first closed block with v valid units.
    head: Vec<u32>,
    next: Vec<u32>,
    prev: Vec<u32>,
    /// No bucket below this is non-empty.
    min_hint: usize,
    /// Closed blocks in the order they were closed (FIFO policy only).
    fifo: VecDeque<u32>,
    len: usize,
}

impl VictimIndex {
    pub fn new(policy: GcPolicy, blocks: u32, block_units: u32) -> VictimIndex {
        VictimIndex {
            policy,
            head: vec![NONE; block_units as usize + 1],
            next: vec![NONE; blocks as usize],
            prev: vec![NONE; blocks as usize],
            min_hint: 0,
            fifo: VecDeque::new(),
            len: 0,
        }
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    fn link(&mut self, b: u32, v: u32) {
        let h = self.head[v as usize];
        self.next[b as usize] = h;
        self.prev[b as usize] = NONE;
        if h != NONE {
            self.prev[h as usize] = b;
        }
        self.head[v as usize] = b;
        if (v as usize) < self.min_hint {
            self.min_hint = v as usize;
        }
    }

    fn unlink(&mut self, b: u32, v: u32) {
        let (p, n) = (self.prev[b as usize], self.next[b as usize]);
        if p == NONE {
            self.head[v as usize] = n;
        } else {
            self.next[p as usize] = n;
        }
        if n != NONE {
            self.prev[n as usize] = p;
        }
    }

    /// A block was closed (filled) holding `valid` valid units.
    pub fn insert(&mut self, b: u32, valid: u32) {
        self.link(b, valid);
        if self.policy == GcPolicy::Fifo {
            self.fifo.push_back(b);
        }
        self.len += 1;
    }

    /// A closed block lost one valid unit (it now has `valid`).
    #[inline]
    pub fn decremented(&mut self, b: u32, valid: u32) {
        self.unlink(b, valid + 1);
        self.link(b, valid);
    }

    /// The next victim by the policy, without removing it.
    pub fn pick(&mut self, close_seq: &[u64], now_seq: u64) -> Option<u32> {
        if self.len == 0 {
            return None;
        }
        match self.policy {
            GcPolicy::Fifo => self.fifo.front().copied(),
            GcPolicy::Greedy => {
                while self.min_hint < self.head.len() && self.head[self.min_hint] == NONE {
                    self.min_hint += 1;
                }
                self.head.get(self.min_hint).copied()
            }
            GcPolicy::CostBenefit => {
                let units = (self.head.len() - 1) as f64;
                let mut best = (f64::NEG_INFINITY, NONE);
                for v in 0..self.head.len() {
                    let mut b = self.head[v];
                    while b != NONE {
                        let score = if v == 0 {
                            f64::INFINITY
                        } else {
                            let age = (now_seq - close_seq[b as usize] + 1) as f64;
                            (units - v as f64) * age / (2.0 * v as f64)
                        };
                        if score > best.0 || (score == best.0 && b < best.1) {
                            best = (score, b);
                        }
                        b = self.next[b as usize];
                    }
                }
                (best.1 != NONE).then_some(best.1)
            }
        }
    }

    /// Remove a block about to be cleaned.
    pub fn remove(&mut self, b: u32, valid: u32) {
        self.unlink(b, valid);
        if self.policy == GcPolicy::Fifo {
            if self.fifo.front() == Some(&b) {
                self.fifo.pop_front();
            } else if let Some(i) = self.fifo.iter().position(|&x| x == b) {
                self.fifo.remove(i);
            }
        }
        self.len -= 1;
    }
}

use crate::block_manager::{BlockState, Stream};
use crate::ftl::Ftl;

impl Ftl {
    fn pick_victim(&mut self) -> Option<u32> {
        let close = self.blocks.close_counter;
        let (victims, seq) = (&mut self.blocks.victims, &self.blocks.close_seq);
        victims.pick(seq, close)
    }

    /// Foreground GC: clean victims until more than `gc_threshold` blocks are free. Called
    /// when a host write needs a new block; its work delays that write and those after it.
    pub(crate) fn foreground_gc(&mut self, t: u64) {
        if self.in_gc {
            return;
        }
        self.in_gc = true;
        let mut budget = self.layout.main_blocks();
        while self.blocks.free_main_count <= self.gc_threshold && budget > 0 {
            budget -= 1;
            let Some(v) = self.pick_victim() else { break };
            // A full victim frees nothing; only FIFO goes through it (to move its queue on).
            if self.blocks.valid[v as usize] >= self.layout.block_units
                && self.policy != GcPolicy::Fifo
            {
                break;
            }
            if !self.clean_block(v, t) {
                break;
            }
            self.c.gc_invocations += 1;
        }
        self.in_gc = false;
    }

    /// Paced foreground GC, called before each host unit goes to the main array: below the
    /// soft threshold, clean one victim whenever the host has used the space the previous one
    /// freed. This spreads GC evenly over host writes; `foreground_gc` remains the hard stop.
    pub(crate) fn paced_gc(&mut self, t: u64) {
        if self.blocks.free_main_count > self.gc_soft_threshold {
            self.gc_credit = 0;
            return;
        }
        if self.in_gc || self.gc_credit > 0 {
            return;
        }
        let Some(v) = self.pick_victim() else { return };
        let valid = self.blocks.valid[v as usize];
        if valid >= self.layout.block_units && self.policy != GcPolicy::Fifo {
            return;
        }
        self.in_gc = true;
        if self.clean_block(v, t) {
            self.c.gc_invocations += 1;
            self.gc_credit += (self.layout.block_units - valid) as i64;
        }
        self.in_gc = false;
    }

    /// Background GC in idle time: clean while fewer than `bg_gc_threshold` blocks are free,
    /// a victim would free something, and its die is free before `until`. Above the threshold
    /// it still erases blocks that hold nothing valid (trimmed or overwritten): that costs no
    /// copying, and it is what lets a trimmed drive write at its clean speed again.
    pub(crate) fn background_gc(&mut self, from: u64, until: u64) {
        self.in_gc = true;
        let mut budget = self.layout.main_blocks();
        while budget > 0 {
            budget -= 1;
            let Some(v) = self.pick_victim() else { break };
            let valid = self.blocks.valid[v as usize];
            if valid >= self.layout.block_units
                || (valid > 0 && self.blocks.free_main_count >= self.bg_gc_threshold)
            {
                break;
            }
            let d = self.layout.die_of_block(v);
            if self.tl.die_free[d as usize] >= until {
                break;
            }
            if !self.clean_block(v, from) {
                break;
            }
            self.c.gc_invocations += 1;
            self.c.gc_background_invocations += 1;
        }
        self.in_gc = false;
    }

    /// Relocate the valid units of block `b` (main or pseudo-SLC) to the relocation stream and
    /// erase it, starting no earlier than `t`. Main victims must be in the victim index, SLC
    /// ones already taken off their queue. Returns false (leaving the block closed with what
    /// is still valid) if no space could be found, which validation rules out.
    pub(crate) fn clean_block(&mut self, b: u32, t: u64) -> bool {
        let slc = self.layout.is_slc_block(b);
        if !slc {
            self.blocks.victims.remove(b, self.blocks.valid[b as usize]);
        }
        self.blocks.state[b as usize] = BlockState::Open;
        let d = self.layout.die_of_block(b);
        let ch = self.layout.channel_of_die(d);
        let lat = if slc { self.pslc } else { self.native };
        let units = if slc {
            self.layout.slc_block_units
        } else {
            self.layout.block_units
        };
        let base = b * self.layout.block_units;
        let mut scratch = std::mem::take(&mut self.scratch);
        scratch.clear();
        self.map
            .collect_valid(base, units, self.blocks.valid[b as usize], &mut scratch);
        let stripe = self.layout.stripe_units;
        let mut ok = true;
        let mut i = 0;
        while i < scratch.len() {
            // One multi-plane page read on the victim's die, then its valid units out over
            // the channel.
            let s = scratch[i].0 / stripe;
            let mut j = i + 1;
            while j < scratch.len() && scratch[j].0 / stripe == s {
                j += 1;
            }
            let die_done = self.tl.die_op(d, t, lat.read_ns);
            self.c.nand_read_ops += 1;
            self.tl.channel_units(ch, die_done, (j - i) as u32);
            // Into the relocation stream, a destination stripe at a time. The programs are
            // queued from `t`, not from when the read data arrives: with next-free-time
            // timing, waiting for the read would leave idle holes on the destination dies
            // that later work cannot fill, and under-count what the dies can do.
            while i < j {
                let Some(to) = self.pick_die(Stream::Gc, t) else {
                    ok = false;
                    break;
                };
                let n = self.program_run(to, &scratch[i..j], t);
                self.blocks.valid[b as usize] -= n;
                if slc {
                    self.c.slc_migrations += n as u64;
                } else {
                    self.c.gc_relocated_pages += n as u64;
                }
                i += n as usize;
            }
            if !ok {
                break;
            }
        }
        self.scratch = scratch;
        if !ok {
            self.blocks.state[b as usize] = BlockState::Closed;
            if slc {
                self.blocks.slc_closed.push_front(b);
            } else {
                self.blocks.victims.insert(b, self.blocks.valid[b as usize]);
            }
            return false;
        }
        self.tl.die_op(d, t, lat.erase_ns);
        self.blocks.erased(b, &self.layout);
        true
    }
}
