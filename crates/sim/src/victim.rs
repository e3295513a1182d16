//! Victim selection: which closed block garbage collection cleans next (MQSim's GC unit).
//!
//! - **greedy** (default): the block with the fewest valid units, found in O(1) amortised
//!   from buckets of blocks indexed by valid count (doubly linked lists in flat arrays);
//! - **cost-benefit** (Rosenblum/Kawaguchi): maximise `(1-u)/2u * age`. Within a bucket of
//!   blocks with the same valid count the score grows with age alone, so only each bucket's
//!   oldest block can win: a heap per bucket by closing time ([`AgeBuckets`]) makes a pick
//!   one look per bucket (the same picks as a scan of every closed block, which made a
//!   240 GB drive's consistency run 5.8 times slower);
//! - **fifo**: the block closed longest ago (LRW in Desnoyers' terms) that has anything to
//!   reclaim: a block whose every unit is still valid is passed over (to the back of the
//!   queue), since cleaning it would erase a block to free none. Without that, cold data
//!   written once (a drive filled, then a region of it rewritten) reaches the front of the
//!   queue block after block and is copied round and round while the host waits.
//!
//! When GC runs and what it costs is `ftl/gc.rs`.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

pub use crate::config::GcPolicy;

const NONE: u32 = u32::MAX;

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
    /// Cost-benefit's buckets, in place of the lists (empty for the other policies).
    by_age: AgeBuckets,
}

impl VictimIndex {
    pub fn new(policy: GcPolicy, blocks: u32, block_units: u32) -> VictimIndex {
        // Cost-benefit's ordered buckets or the other policies' lists, not both.
        let (buckets, listed) = match policy {
            GcPolicy::CostBenefit => (block_units as usize + 1, 0),
            _ => (0, blocks as usize),
        };
        VictimIndex {
            policy,
            head: vec![NONE; block_units as usize + 1],
            next: vec![NONE; listed],
            prev: vec![NONE; listed],
            min_hint: 0,
            fifo: VecDeque::new(),
            len: 0,
            valid_units: 0,
            by_age: AgeBuckets::new(buckets, blocks),
        }
    }

    /// A block's place in its cost-benefit bucket: the oldest first, since the score grows
    /// with age; where every score of the bucket is the same (no valid unit: infinite; all
    /// valid: zero) the lowest block number first, the scan's tie-break.
    fn age_key(&self, b: u32, v: u32, closed_at: u64) -> (u64, u32) {
        let full = (self.head.len() - 1) as u32;
        if v == 0 || v == full {
            (0, b)
        } else {
            (closed_at, b)
        }
    }

    /// File block `b`, closed at `closed_at`, in the bucket of `v` valid units.
    fn file(&mut self, b: u32, v: u32, closed_at: u64) {
        if self.by_age.is_empty() {
            self.link(b, v);
        } else {
            let key = self.age_key(b, v, closed_at);
            self.by_age.file(b, v, key);
        }
    }

    /// Take block `b` out of the bucket of `v` valid units.
    fn unfile(&mut self, b: u32, v: u32) {
        if self.by_age.is_empty() {
            self.unlink(b, v);
        } else {
            self.by_age.unfile(b, v);
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

    /// A block closed (filled) at `closed_at` of the closing sequence holds `valid` valid
    /// units.
    pub fn insert(&mut self, b: u32, valid: u32, closed_at: u64) {
        self.file(b, valid, closed_at);
        if self.policy == GcPolicy::Fifo {
            self.fifo.push_back(b);
        }
        self.len += 1;
        self.valid_units += u64::from(valid);
    }

    /// A closed block lost one valid unit: it now has `valid`. `close_seq` is when every
    /// block was closed; only cost-benefit reads it (this is a host write's path, so
    /// greedy's skips the load).
    #[inline]
    pub fn decremented(&mut self, b: u32, valid: u32, close_seq: &[u64]) {
        let closed_at = match self.by_age.is_empty() {
            true => 0,
            false => close_seq[b as usize],
        };
        self.unfile(b, valid + 1);
        self.file(b, valid, closed_at);
        self.valid_units -= 1;
    }

    /// The next victim by the policy, without removing it. `valid` is every block's valid
    /// units, `now_seq` the closing sequence's count now.
    pub fn pick(&mut self, valid: &[u32], now_seq: u64) -> Option<u32> {
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
                let mut best = (f64::NEG_INFINITY, NONE);
                let units = self.by_age.heaps.len() - 1;
                for v in 0..=units {
                    // A tied bucket's key has no age, and its score needs none.
                    if let Some((closed_at, b)) = self.by_age.first(v) {
                        let score = cost_benefit(v, units, now_seq - closed_at);
                        if score > best.0 || (score == best.0 && b < best.1) {
                            best = (score, b);
                        }
                    }
                }
                (best.1 != NONE).then_some(best.1)
            }
        }
    }

    /// Remove a block about to be cleaned.
    pub fn remove(&mut self, b: u32, valid: u32) {
        self.unfile(b, valid);
        if !self.by_age.is_empty() {
            self.by_age.retire(b);
        }
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

/// Cost-benefit's buckets of closed blocks by valid units, each a heap with the least key
/// ([`VictimIndex::age_key`]) on top. A block leaving a bucket (a unit overwritten, or the
/// block cleaned) stays in its heap, stale, until it reaches the top or the heap is
/// compacted: a host write moves its block a bucket down with one push, where ordered sets
/// took a removal and an insertion, a quarter of a 256 GB drive's consistency run.
struct AgeBuckets {
    /// Per bucket: (key, block, filing) of the blocks filed in it, stale ones among them.
    heaps: Vec<BinaryHeap<Reverse<(u64, u32, u32)>>>,
    /// Per bucket: the blocks in it (its heap's live entries).
    live: Vec<usize>,
    /// Per block: its bucket and filing while indexed. A block is filed anew each time it
    /// closes, so an entry of an earlier filing in the same bucket is not taken for it.
    at: Vec<Option<(u32, u32)>>,
    /// Per block: its filing, one more each time it is cleaned.
    filings: Vec<u32>,
}

impl AgeBuckets {
    fn new(buckets: usize, blocks: u32) -> AgeBuckets {
        let blocks = if buckets == 0 { 0 } else { blocks as usize };
        AgeBuckets {
            heaps: vec![BinaryHeap::new(); buckets],
            live: vec![0; buckets],
            at: vec![None; blocks],
            filings: vec![0; blocks],
        }
    }

    fn is_empty(&self) -> bool {
        self.heaps.is_empty()
    }

    /// File block `b` in bucket `v` under `key`.
    fn file(&mut self, b: u32, v: u32, key: (u64, u32)) {
        let filing = self.filings[b as usize];
        self.at[b as usize] = Some((v, filing));
        self.live[v as usize] += 1;
        self.heaps[v as usize].push(Reverse((key.0, key.1, filing)));
    }

    /// Block `b` left bucket `v`: its entry goes stale, and a heap grown to twice its live
    /// blocks sheds its stale ones (a bucket whose top is never looked at cannot hoard them).
    fn unfile(&mut self, b: u32, v: u32) {
        self.at[b as usize] = None;
        let (heap, live) = (&mut self.heaps[v as usize], &mut self.live[v as usize]);
        *live -= 1;
        if heap.len() > 2 * *live + 16 {
            let at = &self.at;
            heap.retain(|Reverse((_, blk, f))| at[*blk as usize] == Some((v, *f)));
        }
    }

    /// Block `b` left the index (cleaned): when it closes again it is filed anew, and no
    /// entry of this filing can pass for it.
    fn retire(&mut self, b: u32) {
        self.filings[b as usize] = self.filings[b as usize].wrapping_add(1);
    }

    /// The least key of bucket `v`'s blocks, its stale entries above it dropped.
    fn first(&mut self, v: usize) -> Option<(u64, u32)> {
        let heap = &mut self.heaps[v];
        while let Some(&Reverse((key, b, filing))) = heap.peek() {
            if self.at[b as usize] == Some((v as u32, filing)) {
                return Some((key, b));
            }
            heap.pop();
        }
        None
    }
}

/// Rosenblum's cost-benefit score of a block with `v` of `units` valid, closed `age`
/// closings ago: what cleaning it frees, weighted by how long it has stayed cold, per unit
/// it costs to read and rewrite.
fn cost_benefit(v: usize, units: usize, age: u64) -> f64 {
    if v == 0 {
        return f64::INFINITY;
    }
    (units - v) as f64 * (age + 1) as f64 / (2.0 * v as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fifo_passes_over_blocks_with_nothing_to_reclaim() {
        let mut index = VictimIndex::new(GcPolicy::Fifo, 4, 8);
        let valid = [8, 5, 8, 3];
        for b in 0..4 {
            index.insert(b, valid[b as usize], 0);
        }
        // Block 0, the oldest, is all valid: block 1 is the oldest with stale units.
        assert_eq!(index.pick(&valid, 0), Some(1));
        index.remove(1, 5);
        // Block 2 is full too: block 3 next, the full ones waiting behind it.
        assert_eq!(index.pick(&valid, 0), Some(3));
        index.remove(3, 3);
        // Only full blocks left: the oldest of them, as plain FIFO.
        assert_eq!(index.pick(&valid, 0), Some(0));
    }

    #[test]
    fn greedy_picks_the_fewest_valid() {
        let mut index = VictimIndex::new(GcPolicy::Greedy, 3, 8);
        let valid = [6, 2, 7];
        for b in 0..3 {
            index.insert(b, valid[b as usize], 0);
        }
        assert_eq!(index.pick(&valid, 0), Some(1));
    }

    /// The cost-benefit pick as it was: a scan of every indexed block, the highest score,
    /// the lowest block number among equals.
    fn scan(
        indexed: &[bool],
        valid: &[u32],
        closed_at: &[u64],
        units: usize,
        now: u64,
    ) -> Option<u32> {
        let mut best = (f64::NEG_INFINITY, NONE);
        for b in (0..indexed.len()).filter(|&b| indexed[b]) {
            let score = cost_benefit(valid[b] as usize, units, now - closed_at[b]);
            if score > best.0 || (score == best.0 && (b as u32) < best.1) {
                best = (score, b as u32);
            }
        }
        (best.1 != NONE).then_some(best.1)
    }

    #[test]
    fn cost_benefit_picks_what_a_scan_of_every_block_picks() {
        let (blocks, units) = (64, 8);
        let mut rng = engine::pattern::Rng::new(7);
        let mut index = VictimIndex::new(GcPolicy::CostBenefit, blocks, units);
        let mut indexed = vec![false; blocks as usize];
        let mut valid = vec![0u32; blocks as usize];
        let mut closed_at = vec![0u64; blocks as usize];
        let mut now = 0;
        let mut picks = 0;
        for _ in 0..20_000 {
            let b = rng.below(u64::from(blocks)) as usize;
            match (indexed[b], rng.below(4)) {
                // Closed full or nearly (a cleaning stopped short keeps its age).
                (false, 0) => {
                    if rng.below(2) == 0 {
                        now += 1;
                        closed_at[b] = now;
                    }
                    valid[b] = units - rng.below(3) as u32;
                    index.insert(b as u32, valid[b], closed_at[b]);
                    indexed[b] = true;
                }
                // Overwritten: one unit stale.
                (true, 1 | 2) if valid[b] > 0 => {
                    valid[b] -= 1;
                    index.decremented(b as u32, valid[b], &closed_at);
                }
                // Cleaned: the pick leaves, as the GC takes it.
                (true, 3) => {
                    let want = scan(&indexed, &valid, &closed_at, units as usize, now);
                    assert_eq!(index.pick(&valid, now), want);
                    let v = want.unwrap() as usize;
                    index.remove(v as u32, valid[v]);
                    indexed[v] = false;
                    picks += 1;
                }
                _ => {}
            }
        }
        assert!(picks > 1000, "{picks} picks");
        // The stale entries a pick has not dropped are shed as they build up.
        let entries: usize = index.by_age.heaps.iter().map(BinaryHeap::len).sum();
        assert!(
            entries <= 2 * index.len + 16 * (units as usize + 1),
            "{entries} entries"
        );
    }

    #[test]
    fn cost_benefit_ties_go_to_the_lowest_block() {
        // All valid: every score is 0, and the oldest (block 2) does not win the tie.
        let mut index = VictimIndex::new(GcPolicy::CostBenefit, 3, 8);
        for (b, closed_at) in [(0, 3), (1, 2), (2, 1)] {
            index.insert(b, 8, closed_at);
        }
        assert_eq!(index.pick(&[8; 3], 4), Some(0));
        // Nothing valid in blocks 2 and 1 (emptied in that order): infinite scores, the
        // lower number first.
        let mut valid = [8; 3];
        for b in [2, 1] {
            while valid[b] > 0 {
                valid[b] -= 1;
                index.decremented(b as u32, valid[b], &[3, 2, 1]);
            }
        }
        assert_eq!(index.pick(&valid, 4), Some(1));
    }
}
