//! The pseudo-SLC write cache (SanDisk nCache, Samsung TurboWrite): a fixed set of blocks per
//! die run at one bit per cell, with faster programs. Host writes land there while it has
//! room; when it is full they go straight to the main array (the cache is not emptied in the
//! foreground); in idle time its blocks are migrated, oldest first, to the main array and
//! erased. Every migrated unit is written twice, which write amplification shows.

use crate::block_manager::Stream;
use crate::ftl::Ftl;

impl Ftl {
    /// Whether die `d` can take a host unit in its SLC region now.
    pub(crate) fn slc_room(&mut self, d: u32) -> bool {
        self.blocks.frontiers[d as usize][Stream::Slc as usize].has_room()
            || (self.blocks.has_free(d, Stream::Slc)
                && self.blocks.open(d, Stream::Slc, &self.layout))
    }

    /// Migrate cached data to the main array in idle time, while the dies are free before
    /// `until`. A partly filled cache block is closed and migrated too.
    pub(crate) fn migrate_slc(&mut self, from: u64, until: u64) {
        let mut budget = self.layout.total_blocks() as u64 * 2;
        while budget > 0 {
            budget -= 1;
            let Some(&b) = self.blocks.slc_closed.front() else {
                let open = (0..self.layout.dies).find(|&d| {
                    let f = self.blocks.frontiers[d as usize][Stream::Slc as usize];
                    f.block != crate::block_manager::NO_BLOCK && f.next > 0
                });
                match open {
                    Some(d) => {
                        self.blocks.close(d, Stream::Slc);
                        continue;
                    }
                    None => return,
                }
            };
            let d = self.layout.die_of_block(b);
            if self.tl.die_free[d as usize] >= until {
                return;
            }
            if self.blocks.free_main_count <= self.gc_threshold {
                self.foreground_gc(from);
                if self.blocks.free_main_count <= self.gc_threshold {
                    return;
                }
            }
            self.blocks.slc_closed.pop_front();
            if !self.clean_block(b, from) {
                return;
            }
        }
    }
}
