//! Victim selection: which closed block garbage collection cleans next (MQSim's GC unit).
//!
//! - **greedy** (default): the block with the fewest valid units, found in O(1) amortised
//!   from buckets of blocks indexed by valid count (doubly linked lists in flat arrays);
//! - **cost-benefit** (Rosenblum/Kawaguchi): maximise `(1-u)/2u * age`, by a scan of every
//!   closed block (slower: O(blocks) per victim);
//! - **fifo**: the block closed longest ago (LRW in Desnoyers' terms) that has anything to
//!   reclaim: a block whose every unit is still valid is passed over (to the back of the
//!   queue), since cleaning it would erase a block to free none. Without that, cold data
//!   written once (a drive filled, then a region of it rewritten) reaches the front of the
//!   queue block after block and is copied round and round while the host waits.
//!
//! When GC runs and what it costs is `ftl/gc.rs`.

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
pub(crate) struct VictimIndex {
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
    /// Valid units in the indexed blocks, so their stale space is known without a scan.
    valid_units: u64,
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
            valid_units: 0,
        }
    }

    /// Stale (overwritten or trimmed) units in the indexed blocks: what GC can reclaim.
    pub fn stale_units(&self) -> u64 {
        let block_units = (self.head.len() - 1) as u64;
        self.len as u64 * block_units - self.valid_units
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
        self.valid_units += u64::from(valid);
    }

    /// A closed block lost one valid unit (it now has `valid`).
    #[inline]
    pub fn decremented(&mut self, b: u32, valid: u32) {
        self.unlink(b, valid + 1);
        self.link(b, valid);
        self.valid_units -= 1;
    }

    /// The next victim by the policy, without removing it. `valid` is every block's valid
    /// units.
    pub fn pick(&mut self, close_seq: &[u64], valid: &[u32], now_seq: u64) -> Option<u32> {
        if self.len == 0 {
            return None;
        }
        match self.policy {
            GcPolicy::Fifo => {
                let full = (self.head.len() - 1) as u32;
                for _ in 0..self.fifo.len() {
                    let b = *self.fifo.front()?;
                    if valid[b as usize] < full {
                        return Some(b);
                    }
                    self.fifo.rotate_left(1);
                }
                // Nothing anywhere to reclaim: the oldest, as ever.
                self.fifo.front().copied()
            }
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
        self.valid_units -= u64::from(valid);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fifo_passes_over_blocks_with_nothing_to_reclaim() {
        let mut index = VictimIndex::new(GcPolicy::Fifo, 4, 8);
        let valid = [8, 5, 8, 3];
        for b in 0..4 {
            index.insert(b, valid[b as usize]);
        }
        let seq = [0; 4];
        // Block 0, the oldest, is all valid: block 1 is the oldest with stale units.
        assert_eq!(index.pick(&seq, &valid, 0), Some(1));
        index.remove(1, 5);
        // Block 2 is full too: block 3 next, the full ones waiting behind it.
        assert_eq!(index.pick(&seq, &valid, 0), Some(3));
        index.remove(3, 3);
        // Only full blocks left: the oldest of them, as plain FIFO.
        assert_eq!(index.pick(&seq, &valid, 0), Some(0));
    }

    #[test]
    fn greedy_picks_the_fewest_valid() {
        let mut index = VictimIndex::new(GcPolicy::Greedy, 3, 8);
        let valid = [6, 2, 7];
        for b in 0..3 {
            index.insert(b, valid[b as usize]);
        }
        assert_eq!(index.pick(&[0; 3], &valid, 0), Some(1));
    }
}
