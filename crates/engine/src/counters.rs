//! What a device counts about itself ([`crate::Device::counters`]): the simulator's FTL
//! statistics, or a real drive's health. A run takes snapshots at its start, checkpoint and
//! end ([`crate::driver::CounterSnapshots`]); results store them, and write amplification is
//! the difference of two. Field names are stored in results: never rename one.

use serde::{Deserialize, Serialize};

use crate::drive::Health;

/// One snapshot of a device's counters, stored as one flat object: the simulator's fields,
/// or a drive's health. A part whose fields are not all there (a result edited by hand)
/// reads as absent rather than failing the whole result.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct DeviceCounters {
    #[serde(flatten)]
    sim: Option<Box<SimCounters>>,
    /// NVMe SMART / Health log, ATA SMART attributes.
    #[serde(flatten)]
    health: Option<Box<Health>>,
}

impl DeviceCounters {
    pub fn of_sim(c: SimCounters) -> DeviceCounters {
        DeviceCounters {
            sim: Some(Box::new(c)),
            health: None,
        }
    }

    pub fn of_drive(h: Health) -> DeviceCounters {
        DeviceCounters {
            sim: None,
            health: Some(Box::new(h)),
        }
    }

    /// The simulator's counters, when this is a simulated device's snapshot.
    pub fn sim(&self) -> Option<&SimCounters> {
        self.sim.as_deref()
    }

    /// The drive's health, when this is a real drive's snapshot.
    pub fn health(&self) -> Option<&Health> {
        self.health.as_deref()
    }
}

/// The simulator's FTL statistics. Page counts are in 4 KiB units, whatever the mapping unit.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SimCounters {
    /// 4 KiB units the host wrote (a partial unit counts as one).
    pub host_write_pages: u64,
    pub host_read_pages: u64,
    /// Every 4 KiB unit programmed: host data, GC relocations, SLC migrations, padding.
    pub nand_write_pages: u64,
    /// NAND page reads (multi-plane pages; host, GC, migration, read-modify-write).
    pub nand_read_ops: u64,
    /// NAND over host writes since the drive was made; None before the host wrote.
    pub write_amplification: Option<f64>,
    /// Victim blocks cleaned by GC (foreground and background).
    pub gc_invocations: u64,
    pub gc_background_invocations: u64,
    pub gc_relocated_pages: u64,
    /// Erase counts over the blocks of the drive.
    pub erases_min: u32,
    pub erases_mean: f64,
    pub erases_max: u32,
    pub erases_total: u64,
    /// Host units written into the pseudo-SLC cache.
    pub slc_cache_hits: u64,
    /// Host units written straight to the main array while the cache was on but full.
    pub slc_cache_bypassed: u64,
    /// Units moved from the pseudo-SLC cache to the main array.
    pub slc_migrations: u64,
    pub slc_free_blocks: u64,
    /// Closed pseudo-SLC blocks holding data not yet migrated.
    pub slc_cached_blocks: u64,
    /// Mapped units unmapped by discards.
    pub trimmed_pages: u64,
    /// Trimmed units the drive did not reclaim (`trim=off`, or partial TRIM's share).
    pub trim_ignored_pages: u64,
    /// Trimmed units whose reclaim is still owed (a deferred TRIM).
    pub trim_pending_pages: u64,
    /// Mapping-table journal programmed (`meta`).
    pub meta_pages: u64,
    /// Units programmed as padding to close a partly filled page on flush.
    pub padded_pages: u64,
    /// Partial 4 KiB writes that had to read the old unit first.
    pub read_modify_write_pages: u64,
    pub flushes: u64,
    /// IOs that completed with an error (misaligned, out of range, out of space).
    pub failed_ios: u64,
    /// For the energy model, by mode: page reads (one tR each), pages programmed (a
    /// multi-plane program is `planes` pages), block erases.
    pub nand_reads_native: u64,
    pub nand_reads_slc: u64,
    pub nand_programs_native_pages: u64,
    pub nand_programs_slc_pages: u64,
    pub nand_erases_native: u64,
    pub nand_erases_slc: u64,
    /// Bytes over the host link (host reads and writes).
    pub link_bytes: u64,
    pub free_blocks: u64,
    pub logical_pages: u64,
    pub physical_pages: u64,
    pub op_physical_over_logical_minus_one: f64,
    pub spare_factor: f64,
    /// The device's clock.
    pub virtual_time_ns: u64,
    #[serde(flatten)]
    pub energy: EnergyCounters,
    /// Only on a device with fault injection (`faults=`).
    #[serde(flatten)]
    pub faults: Option<FaultCounts>,
}

/// What the simulator's energy model computes from, and what it computes.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct EnergyCounters {
    /// Bytes over the NAND channels.
    pub channel_bytes: u64,
    pub controller_busy_ns: u64,
    pub active_ns: u64,
    /// Time not in slumber (active or idle), and in slumber.
    pub awake_ns: u64,
    pub slumber_ns: u64,
    pub slumber_entries: u64,
    pub wakeups: u64,
    /// Joules: the total and its terms.
    pub energy_j: f64,
    pub energy_nand_j: f64,
    pub energy_transfer_j: f64,
    pub energy_controller_j: f64,
    pub energy_idle_j: f64,
    pub energy_slumber_j: f64,
}

/// Faults injected so far, by kind.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FaultCounts {
    #[serde(rename = "faults_lost")]
    pub lost: u64,
    #[serde(rename = "faults_flip")]
    pub flip: u64,
    #[serde(rename = "faults_misdirect")]
    pub misdirect: u64,
    #[serde(rename = "faults_torn")]
    pub torn: u64,
}
