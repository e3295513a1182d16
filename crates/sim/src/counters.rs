//! What the FTL counts about itself. `counters()` on the device returns them in a snapshot
//! ([`SimCounters`]); the suite diffs two snapshots (e.g. at half time and at the end) to get steady-state write
//! amplification. Page counts are in 4 KiB units, whatever the mapping unit.

use engine::counters::{EnergyCounters, FaultCounts, SimCounters};

use crate::block_manager::BlockManager;
use crate::energy::{NATIVE, PSLC};
use crate::geometry::Layout;

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Counters {
    /// 4 KiB units the host wrote (a partial unit counts as one).
    pub host_write_pages: u64,
    pub host_read_pages: u64,
    /// Every 4 KiB unit programmed: host data, GC relocations, SLC migrations, padding.
    pub nand_write_pages: u64,
    /// NAND page reads (multi-plane pages; host, GC, migration, read-modify-write).
    pub nand_read_ops: u64,
    /// Victim blocks cleaned by GC (foreground and background).
    pub gc_invocations: u64,
    pub gc_background_invocations: u64,
    pub gc_relocated_pages: u64,
    /// Host units written into the pseudo-SLC cache.
    pub slc_cache_hits: u64,
    /// Host units written straight to the main array while the cache was on but full.
    pub slc_cache_bypassed: u64,
    /// Units moved from the pseudo-SLC cache to the main array.
    pub slc_migrations: u64,
    /// Mapped units unmapped by discards.
    pub trimmed_pages: u64,
    /// Trimmed units the drive did not reclaim (`trim=off`, or partial TRIM's share).
    pub trim_ignored_pages: u64,
    /// Mapping-table journal programmed (`meta`).
    pub meta_pages: u64,
    /// Units programmed as padding to close a partly filled page on flush.
    pub padded_pages: u64,
    /// Partial 4 KiB writes that had to read the old unit first.
    pub read_modify_write_pages: u64,
    pub flushes: u64,
    /// IOs that completed with an error (misaligned, out of range, out of space).
    pub failed_ios: u64,
    /// For the energy model, by mode (`energy::NATIVE`, `energy::PSLC`): page reads (one tR
    /// each), pages programmed (a multi-plane program is `planes` pages), block erases.
    pub reads: [u64; 2],
    pub prog_pages: [u64; 2],
    pub erases: [u64; 2],
    /// Bytes over the host link (host reads and writes).
    pub link_bytes: u64,
}

impl Counters {
    /// The snapshot [`engine::Device::counters`] reports: these counts with the drive's state
    /// (wear, free blocks, layout, clock) and what the caller adds (energy, faults).
    pub fn snapshot(
        &self,
        layout: &Layout,
        blocks: &BlockManager,
        trim_pending_units: u64,
        now_ns: u64,
        energy: EnergyCounters,
        faults: Option<FaultCounts>,
    ) -> SimCounters {
        let n = blocks.erases().len().max(1);
        let (mut min, mut max, mut sum) = (u32::MAX, 0u32, 0u64);
        for &e in blocks.erases() {
            min = min.min(e);
            max = max.max(e);
            sum += e as u64;
        }
        if blocks.erases().is_empty() {
            min = 0;
        }
        SimCounters {
            host_write_pages: self.host_write_pages,
            host_read_pages: self.host_read_pages,
            nand_write_pages: self.nand_write_pages,
            nand_read_ops: self.nand_read_ops,
            write_amplification: (self.host_write_pages > 0)
                .then(|| self.nand_write_pages as f64 / self.host_write_pages as f64),
            gc_invocations: self.gc_invocations,
            gc_background_invocations: self.gc_background_invocations,
            gc_relocated_pages: self.gc_relocated_pages,
            erases_min: min,
            erases_mean: sum as f64 / n as f64,
            erases_max: max,
            erases_total: sum,
            slc_cache_hits: self.slc_cache_hits,
            slc_cache_bypassed: self.slc_cache_bypassed,
            slc_migrations: self.slc_migrations,
            slc_free_blocks: blocks.free_slc_count() as u64,
            slc_cached_blocks: blocks.slc_closed_count() as u64,
            trimmed_pages: self.trimmed_pages,
            trim_ignored_pages: self.trim_ignored_pages,
            trim_pending_pages: trim_pending_units * layout.pages_per_unit(),
            meta_pages: self.meta_pages,
            padded_pages: self.padded_pages,
            read_modify_write_pages: self.read_modify_write_pages,
            flushes: self.flushes,
            failed_ios: self.failed_ios,
            nand_reads_native: self.reads[NATIVE],
            nand_reads_slc: self.reads[PSLC],
            nand_programs_native_pages: self.prog_pages[NATIVE],
            nand_programs_slc_pages: self.prog_pages[PSLC],
            nand_erases_native: self.erases[NATIVE],
            nand_erases_slc: self.erases[PSLC],
            link_bytes: self.link_bytes,
            free_blocks: blocks.free_main_count().into(),
            logical_pages: layout.logical_units * layout.pages_per_unit(),
            physical_pages: layout.main_units() * layout.pages_per_unit(),
            op_physical_over_logical_minus_one: layout.op_physical_over_logical_minus_one(),
            spare_factor: layout.spare_factor(),
            virtual_time_ns: now_ns,
            energy,
            faults,
        }
    }
}
