//! The physical shape of the NAND array: channels, dies, planes, blocks, pages, page size and
//! the cell type, and the numbers derived from them that the FTL works with.
//!
//! Vocabulary (MQSim's): a die has `planes` planes; a block index is the same block in every
//! plane of a die, erased together (a multi-plane block), so the unit the FTL allocates and
//! garbage-collects is `planes * pages_per_block` pages. A page holds `page_bytes / unit_bytes`
//! mapping units (the mapping unit is 4 KiB unless a drive maps coarser, `map_unit`). A
//! "stripe" is one multi-plane page: the units programmed (or read) by one NAND operation on
//! one die.

use serde::Serialize;

/// The counting unit: host and NAND pages in the counters are 4 KiB, whatever the mapping unit.
pub const UNIT_BYTES: u64 = 4096;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum CellType {
    Slc,
    Mlc,
    Tlc,
}

impl CellType {
    pub fn bits(self) -> u32 {
        match self {
            CellType::Slc => 1,
            CellType::Mlc => 2,
            CellType::Tlc => 3,
        }
    }
    pub fn name(self) -> &'static str {
        match self {
            CellType::Slc => "SLC",
            CellType::Mlc => "MLC",
            CellType::Tlc => "TLC",
        }
    }
    pub fn parse(s: &str) -> Option<CellType> {
        match s.to_ascii_lowercase().as_str() {
            "slc" => Some(CellType::Slc),
            "mlc" => Some(CellType::Mlc),
            "tlc" => Some(CellType::Tlc),
            _ => None,
        }
    }
}

/// Everything the FTL needs to know about the array's shape, derived once from a config.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Layout {
    pub channels: u32,
    pub dies: u32,
    pub planes: u32,
    pub pages_per_block: u32,
    pub page_bytes: u32,
    pub cell: CellType,
    /// The mapping unit: what one L2P entry covers (4 KiB, or more on drives with less DRAM).
    pub unit_bytes: u64,
    /// Mapping units per page.
    pub units_per_page: u32,
    /// Units per multi-plane page (one program or read operation on a die).
    pub stripe_units: u32,
    /// Units per multi-plane block in native (MLC/TLC) mode.
    pub block_units: u32,
    /// Units per block in pseudo-SLC mode (one bit per cell: `pages_per_block / bits` pages).
    pub slc_block_units: u32,
    /// Blocks per die in the main array, then pseudo-SLC blocks per die.
    pub main_blocks_per_die: u32,
    pub slc_blocks_per_die: u32,
    /// Logical (host-visible) mapping units.
    pub logical_units: u64,
}

impl Layout {
    pub fn blocks_per_die(&self) -> u32 {
        self.main_blocks_per_die + self.slc_blocks_per_die
    }
    pub fn total_blocks(&self) -> u32 {
        self.blocks_per_die() * self.dies
    }
    pub fn main_blocks(&self) -> u64 {
        self.main_blocks_per_die as u64 * self.dies as u64
    }
    /// Units of the main array (native mode), the space GC works with.
    pub fn main_units(&self) -> u64 {
        self.main_blocks() * self.block_units as u64
    }
    /// Raw NAND bytes: main array plus the blocks run in pseudo-SLC mode, at native density.
    pub fn raw_bytes(&self) -> u64 {
        self.total_blocks() as u64 * self.block_bytes()
    }
    /// Bytes of one multi-plane block in native mode.
    pub fn block_bytes(&self) -> u64 {
        self.block_units as u64 * self.unit_bytes
    }
    /// 4 KiB counting units in one mapping unit.
    pub fn pages_per_unit(&self) -> u64 {
        self.unit_bytes / UNIT_BYTES
    }
    /// Mapping-unit slots (the physical address space; SLC blocks use only part of theirs).
    pub fn physical_slots(&self) -> u64 {
        self.total_blocks() as u64 * self.block_units as u64
    }
    #[inline]
    pub fn die_of_block(&self, block: u32) -> u32 {
        block / self.blocks_per_die()
    }
    #[inline]
    pub fn channel_of_die(&self, die: u32) -> u32 {
        die % self.channels
    }
    /// Whether a block belongs to the static pseudo-SLC region.
    #[inline]
    pub fn is_slc_region_block(&self, block: u32) -> bool {
        block % self.blocks_per_die() >= self.main_blocks_per_die
    }
    /// Main-array over-provisioning, physical / logical - 1.
    pub fn op_physical_over_logical_minus_one(&self) -> f64 {
        self.main_units() as f64 / self.logical_units as f64 - 1.0
    }
    /// Main-array spare factor, (physical - logical) / physical.
    pub fn spare_factor(&self) -> f64 {
        1.0 - self.logical_units as f64 / self.main_units() as f64
    }
}
