//! A resolved simulator configuration and its validation: impossible drives get an error that
//! names the problem and the fix. The mechanisms a controller has are grouped as controllers
//! name them: garbage collection ([`GcConfig`]), the pseudo-SLC cache ([`SlcConfig`]) and TRIM
//! ([`TrimConfig`]). Every field is a `key=value` of the spec language (`preset/`).

use serde::Serialize;

use crate::error::SimError;
use crate::geometry::{CellType, Layout, UNIT_BYTES};
use crate::timing::NandLatency;

/// A small enum with a name per variant (and aliases) for the spec language.
macro_rules! named_enum {
    ($(#[$m:meta])* $name:ident { $($(#[$vm:meta])* $variant:ident = $text:literal $(| $alias:literal)*,)+ }) => {
        $(#[$m])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
        #[serde(rename_all = "kebab-case")]
        pub enum $name { $($(#[$vm])* $variant,)+ }
        impl $name {
            pub const NAMES: &'static [&'static str] = &[$($text),+];
            pub fn name(self) -> &'static str {
                match self { $($name::$variant => $text,)+ }
            }
            pub fn parse(s: &str) -> Option<$name> {
                match s.to_ascii_lowercase().replace('_', "-").as_str() {
                    $($text $(| $alias)* => Some($name::$variant),)+
                    _ => None,
                }
            }
        }
    };
}

named_enum! {
    /// The host interface.
    LinkKind {
        Sata = "sata",
        Nvme = "nvme" | "pcie",
    }
}

impl LinkKind {
    pub fn label(self) -> &'static str {
        match self {
            LinkKind::Sata => "SATA 6 Gb/s",
            LinkKind::Nvme => "NVMe (PCIe 3.0 x4)",
        }
    }
    /// Effective payload rate and per-command link cost.
    pub fn defaults(self) -> (f64, u64) {
        match self {
            // 600 MB/s after 8b/10b, less FIS framing: ~560 MB/s of payload.
            LinkKind::Sata => (560.0, 2_500),
            LinkKind::Nvme => (3_500.0, 1_000),
        }
    }
}

named_enum! {
    /// Which closed block GC cleans next.
    GcPolicy {
        /// The one with the fewest valid units.
        Greedy = "greedy",
        /// The one that maximises `(1-u)/2u * age` (Rosenblum and Kawaguchi).
        CostBenefit = "cost-benefit" | "costbenefit" | "cb",
        /// The one closed longest ago (LRW) that has anything to reclaim.
        Fifo = "fifo" | "lrw",
    }
}

named_enum! {
    /// When foreground garbage collection runs, which shapes the steady state's scatter.
    GcStyle {
        /// One victim each time the host has used the space the previous one freed: GC
        /// interleaved with host writes block by block.
        Paced = "paced",
        /// Free blocks down to the threshold, then clean until a high watermark while host
        /// writes wait: high peaks, deep troughs.
        Bursty = "bursty",
        /// A victim's relocations spread over the host writes that use the space it frees, a
        /// stripe at a time: every second looks like the next (the DC S3700's way).
        LatencyFirst = "latency-first" | "latency",
    }
}

named_enum! {
    /// Where the pseudo-SLC cache's blocks come from.
    SlcRegion {
        /// A fixed set of blocks per die, outside the main array (TurboWrite, nCache).
        Static = "static",
        /// Free main-array blocks run in SLC mode while the drive has room to spare.
        Dynamic = "dynamic",
    }
}

named_enum! {
    /// What a host write does when the pseudo-SLC cache is full.
    SlcWhenFull {
        /// Goes straight to the main array (at its native rate).
        Bypass = "bypass",
        /// Waits while the oldest cached block is folded into the main array, then goes to
        /// the cache (every unit is programmed twice in the foreground).
        Fold = "fold",
    }
}

named_enum! {
    /// When the cache is emptied (folded into the main array).
    SlcDrain {
        /// Only in idle time.
        Idle = "idle",
        /// Also while the host writes, at `slc_drain_rate`, when the main array is short of
        /// free blocks (garbage collection's territory): the cache keeps reopening and host
        /// throughput goes up and down. A drive with blocks to spare folds in idle time only.
        Always = "always",
    }
}

named_enum! {
    /// What the drive does with TRIM (discard).
    TrimStyle {
        /// Trimmed space is unmapped at once.
        Immediate = "on" | "immediate",
        /// TRIM completes but unmaps nothing (a drive or OS path that ignores it).
        Ignored = "off" | "ignored",
        /// Trimmed ranges are queued and unmapped in idle time at `trim_rate`; a write to a
        /// pending unit supersedes it.
        Deferred = "deferred",
        /// A share (`trim_keep`) of trimmed units is never reclaimed: TRIM "not fully working".
        Partial = "partial",
    }
}

named_enum! {
    /// What reads return: the simulator looks at data only when asked.
    DataMode {
        /// Nothing: no buffers, reads return no data.
        Off = "off" | "false" | "no" | "0",
        /// Reads return zeroes for unmapped (never written or trimmed) 4 KiB units and a
        /// deterministic non-zero stamp of the unit's LBA for mapped ones; nothing is stored.
        Stamp = "stamp",
        /// The drive keeps what is written (sparse, per written 4 KiB unit) and reads return it.
        On = "on" | "true" | "yes" | "1",
    }
}

named_enum! {
    /// What the drive claims trimmed blocks read back as (NVMe DLFEAT, ATA RZAT/DRAT).
    TrimClaim {
        /// Zeroes when TRIM unmaps at once (trim=on), otherwise no promise.
        Auto = "auto",
        Zeroes = "zeroes" | "zeros" | "zero",
        Ones = "ones",
        Deterministic = "deterministic",
        Unspecified = "unspecified" | "any" | "none",
    }
}

/// How much a bursty GC frees per burst.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum BurstSize {
    Blocks(u32),
    /// A share of the space holding no valid data (free or stale): with more spare area the
    /// firmware cleans further ahead.
    ReclaimablePct(f64),
}

/// Garbage collection: victim selection, scheduling and cost.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct GcConfig {
    pub policy: GcPolicy,
    pub style: GcStyle,
    /// Foreground GC keeps more than this many free main-array blocks (None: dies + 2).
    pub threshold: Option<u32>,
    /// Background (idle) GC cleans up to this many free blocks (None: threshold + 2 per die).
    pub bg_threshold: Option<u32>,
    /// Bursty: how much each burst frees beyond the trigger (None: 4 blocks per die).
    pub burst: Option<BurstSize>,
    /// Bursty: each burst's size varies by up to this share either way (deterministic).
    pub jitter_pct: f64,
    /// Bursty: burst only while at least this share of the main array holds no valid data
    /// (free or stale), percent; below it GC is paced. Firmware that chases peak speed when
    /// it has room to spare.
    pub burst_above_pct: f64,
    /// Bursty: how many times faster than the host uses space a burst frees it (a large
    /// value makes host writes wait for the whole burst).
    pub burst_rate: f64,
    /// Relocate within a die with the NAND's copyback, crossing no channel.
    pub copyback: bool,
    /// Relocate into the victim's own die (its GC write frontier, as MQSim's per-plane
    /// `GC_wf`), so one victim's data stays together; else striped over every die.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub same_die: bool,
    /// Controller (firmware) time per relocated mapping unit, on the serial controller.
    pub unit_ns: u64,
}

/// The pseudo-SLC write cache (SanDisk nCache, Samsung TurboWrite).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SlcConfig {
    /// User data the cache holds (0: no cache).
    pub bytes: u64,
    pub region: SlcRegion,
    pub when_full: SlcWhenFull,
    pub drain: SlcDrain,
    /// Folding rate in MB/s of cached user data (0: as fast as the dies allow).
    pub drain_mbps: f64,
    /// Only host writes up to this many bytes use the cache (0: all).
    pub max_write_bytes: u64,
}

/// TRIM handling.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TrimConfig {
    pub style: TrimStyle,
    /// Partial: the share of trimmed units never reclaimed, in percent.
    pub keep_pct: f64,
    /// Deferred: logical space unmapped per second of idle time, MB/s (0: all at once).
    pub rate_mbps: f64,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Config {
    /// The preset this configuration started from.
    pub preset: String,
    /// The real drive a preset models, when it models one.
    pub model_of: Option<String>,
    /// One line about the preset.
    pub summary: String,
    /// Where each parameter's value comes from: (key, value, source), in the order applied.
    pub sources: Vec<(String, String, String)>,
    /// What the modelled drive's review states about its hardware, for drive tables:
    /// (key, value, seed) for "controller", "nand" and "dram", only those stated. An
    /// override of what a fact describes (`cell`, `dram`) drops it: the drive is no longer
    /// the one reviewed.
    pub facts: Vec<(String, String, String)>,
    /// A twin fitted by `ssdlab sim fit`: its fit report (the file's path), which a run's
    /// report names beside the drive.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fit_report: Option<String>,
    /// Host-visible capacity.
    pub capacity_bytes: u64,
    /// Main-array over-provisioning in percent, as physical / logical - 1.
    pub op_pct: f64,
    pub channels: u32,
    pub dies_per_channel: u32,
    pub planes: u32,
    pub pages_per_block: u32,
    pub page_bytes: u32,
    pub cell: CellType,
    /// What one mapping-table entry covers: 4 KiB, or more on drives with less DRAM (smaller
    /// host writes then need a read-modify-write of the whole unit).
    pub map_unit_bytes: u64,
    pub native: NandLatency,
    pub pslc: NandLatency,
    pub channel_mbps: f64,
    pub link: LinkKind,
    pub link_mbps: f64,
    pub link_cmd_ns: u64,
    pub cmd_read_ns: u64,
    pub cmd_write_ns: u64,
    /// Dies the controller lets program at once (0: every die): its peak-power budget.
    pub max_programs: u32,
    pub write_buffer_bytes: u64,
    /// DRAM on the drive (informational: the whole mapping table is assumed to fit).
    pub dram_bytes: u64,
    /// Mapping-table and journal programs, per 100 host units written.
    pub meta_pct: f64,
    pub gc: GcConfig,
    pub slc: SlcConfig,
    pub trim: TrimConfig,
    /// Sequential read-ahead of one IO.
    pub read_ahead: bool,
    /// Host reads go ahead of queued programs on a die (waiting only for the one in progress).
    pub read_priority: bool,
    /// What reads return (`faults` imply `DataMode::On`).
    pub data: DataMode,
    /// Injected data faults (lost, flipped, misdirected and torn writes).
    pub faults: crate::faults::FaultSpec,
    /// What the drive claims trimmed blocks read back as.
    pub trim_reads: TrimClaim,
    /// Seed of the drive's own variation (burst sizes, which trimmed units are kept).
    pub seed: u64,
    /// The energy model (`energy.rs`).
    pub energy: crate::energy::EnergyConfig,
}

impl Config {
    pub fn dies(&self) -> u32 {
        self.channels.saturating_mul(self.dies_per_channel)
    }

    pub fn gc_threshold(&self) -> u32 {
        self.gc.threshold.unwrap_or(self.dies() + 2)
    }

    pub fn bg_gc_threshold(&self) -> u32 {
        self.gc
            .bg_threshold
            .unwrap_or(self.gc_threshold() + 2 * self.dies())
    }

    /// Paced, bursty and latency-first GC start at this many free blocks: two blocks per die
    /// above the all-out threshold, since host writes striped over every die open a block on
    /// each at about the same time.
    pub fn gc_trigger(&self) -> u32 {
        self.gc_threshold() + 2 * self.dies()
    }

    /// The data mode the drive runs in: faults need the data kept.
    pub fn data_mode(&self) -> DataMode {
        if self.faults.is_empty() {
            self.data
        } else {
            DataMode::On
        }
    }

    /// What the drive claims trimmed blocks read as (`trim_reads`, resolved).
    pub fn trimmed_reads(&self) -> engine::TrimmedReads {
        use engine::TrimmedReads as T;
        match self.trim_reads {
            TrimClaim::Auto if self.trim.style == TrimStyle::Immediate => T::Zeroes,
            TrimClaim::Auto | TrimClaim::Unspecified => T::Unspecified,
            TrimClaim::Zeroes => T::Zeroes,
            TrimClaim::Ones => T::Ones,
            TrimClaim::Deterministic => T::Deterministic,
        }
    }

    /// Whether this drive's other settings leave `key` unread: a bursty GC's knobs under
    /// another style, the share partial TRIM keeps under another TRIM, the writes a cache
    /// takes where there is none. Its value then says nothing of the drive (a fit's
    /// reference outside the space by it is not outside).
    pub fn ignores(&self, key: &str) -> bool {
        match key {
            "gc_burst" | "gc_jitter" | "gc_burst_rate" | "gc_burst_above" => {
                self.gc.style != GcStyle::Bursty
            }
            "trim_keep" => self.trim.style != TrimStyle::Partial,
            "slc_max_write" => self.slc.bytes == 0,
            _ => false,
        }
    }

    pub fn gc_burst(&self) -> BurstSize {
        self.gc.burst.unwrap_or(BurstSize::Blocks(4 * self.dies()))
    }

    /// Check what one key's range cannot (each key's record in `preset::KEYS` bounds it): how
    /// the keys fit together, and derive the array's layout.
    pub fn layout(&self) -> Result<Layout, SimError> {
        self.check_sizes()?;
        let bad = |m: String| Err(SimError::Config(m));
        let unit = self.map_unit_bytes;
        let dies = self.dies();
        let units_per_page = (self.page_bytes as u64 / unit) as u32;
        let stripe = self.planes as u64 * units_per_page as u64;
        let block_units = stripe * self.pages_per_block as u64;
        if block_units > 1 << 20 {
            return bad(format!(
                "a block of {} units (planes x pages_per_block x page_size/map_unit) is too large: at most 1M units",
                block_units
            ));
        }
        let block_units = block_units as u32;
        let logical_units = self.capacity_bytes / unit;
        let bits = self.cell.bits();
        let slc_block_units = (self.pages_per_block / bits) * stripe as u32;
        let cache_blocks = if self.slc.bytes == 0 {
            0
        } else {
            if self.cell == CellType::Slc {
                return bad("slc_cache needs MLC or TLC cells (cell=mlc or cell=tlc); on SLC NAND use slc_cache=0".into());
            }
            if slc_block_units == 0 {
                return bad(format!(
                    "pages_per_block={} is too few to run a block in pseudo-SLC mode ({bits} bits per cell): use at least {bits}",
                    self.pages_per_block
                ));
            }
            let units = self.slc.bytes.div_ceil(unit);
            let blocks = units.div_ceil(slc_block_units as u64);
            blocks.div_ceil(dies as u64)
        };
        let slc_blocks_per_die = match self.slc.region {
            SlcRegion::Static => cache_blocks,
            SlcRegion::Dynamic => 0,
        };
        let main_needed = (logical_units as f64 * (1.0 + self.op_pct / 100.0)).ceil() as u64;
        let die_block_units = block_units as u64 * dies as u64;
        let main_blocks_per_die = main_needed.div_ceil(die_block_units);
        // In u64, before the layout's u32 block counts could wrap.
        let physical_slots =
            (main_blocks_per_die + slc_blocks_per_die).saturating_mul(die_block_units);
        if physical_slots >= u32::MAX as u64 {
            return bad(format!(
                "{} of raw NAND is more than the simulator addresses (2^32 mapping units): use a smaller capacity or a larger map_unit",
                fmt_bytes(physical_slots.saturating_mul(unit))
            ));
        }
        let layout = Layout {
            channels: self.channels,
            dies,
            planes: self.planes,
            pages_per_block: self.pages_per_block,
            page_bytes: self.page_bytes,
            cell: self.cell,
            unit_bytes: unit,
            units_per_page,
            stripe_units: stripe as u32,
            block_units,
            slc_block_units,
            main_blocks_per_die: main_blocks_per_die as u32,
            slc_blocks_per_die: slc_blocks_per_die as u32,
            logical_units,
        };
        self.check_spare(&layout)?;
        Ok(layout)
    }

    /// The sizes a layout divides: the mapping unit, the capacity and page size in it, and the
    /// cache and write buffer within the capacity.
    fn check_sizes(&self) -> Result<(), SimError> {
        let bad = |m: String| Err(SimError::Config(m));
        let unit = self.map_unit_bytes;
        if unit < UNIT_BYTES || !unit.is_power_of_two() || unit > 64 << 10 {
            return bad(format!(
                "map_unit={} bytes: the mapping unit must be 4 KiB, 8 KiB, 16 KiB, 32 KiB or 64 KiB",
                unit
            ));
        }
        if !self.capacity_bytes.is_multiple_of(unit) {
            return bad(format!(
                "capacity {} bytes is not a multiple of the {} mapping unit: round it, e.g. capacity={}",
                self.capacity_bytes,
                fmt_bytes(unit),
                self.capacity_bytes / unit * unit
            ));
        }
        if self.page_bytes == 0 || !(self.page_bytes as u64).is_multiple_of(unit) {
            return bad(format!(
                "page size {} bytes is not a multiple of 4 KiB and of the mapping unit ({}): use page_size=4KiB, 8KiB or 16KiB",
                self.page_bytes,
                fmt_bytes(unit)
            ));
        }
        if self.gc.burst_rate <= 1.0 {
            return bad(format!(
                "gc_burst_rate={} must be above 1: a burst must free space faster than the host uses it",
                self.gc.burst_rate
            ));
        }
        for (key, bytes, what) in [
            (
                "slc_cache",
                self.slc.bytes,
                "a pseudo-SLC cache holds a part of what the drive stores",
            ),
            (
                "write_buffer",
                self.write_buffer_bytes,
                "a write buffer holds a part of what the drive stores",
            ),
        ] {
            let capacity = self.capacity_bytes;
            if bytes >= capacity {
                let by = match bytes - capacity {
                    0 => "is the whole capacity".to_string(),
                    over => format!(
                        "is {} more than the capacity ({})",
                        fmt_bytes(over),
                        fmt_bytes(capacity)
                    ),
                };
                return bad(format!(
                    "{key}={} {by}: {what}; use a smaller one, e.g. {key}={}",
                    fmt_bytes(bytes),
                    size_arg(capacity / 4)
                ));
            }
        }
        Ok(())
    }

    /// GC's thresholds, and the spare blocks of `layout` they need.
    fn check_spare(&self, layout: &Layout) -> Result<(), SimError> {
        let bad = |m: String| Err(SimError::Config(m));
        let dies = layout.dies;
        let (logical_units, block_units) = (layout.logical_units, layout.block_units);
        let thr = self.gc_threshold();
        if thr < dies {
            return bad(format!(
                "gc_threshold={thr} is below the die count ({dies}): GC must be able to open a block on every die; use gc_threshold={dies} or more"
            ));
        }
        if self.bg_gc_threshold() < thr {
            return bad(format!(
                "bg_gc_threshold={} is below gc_threshold={thr}: background GC must aim at least as high",
                self.bg_gc_threshold()
            ));
        }
        let data_blocks = logical_units.div_ceil(block_units as u64);
        let spare = layout.main_blocks().saturating_sub(data_blocks);
        let needed = 2 * dies as u64 + thr as u64 + 1;
        if spare < needed {
            let min_units = (data_blocks + needed) * block_units as u64;
            let min_op = (min_units as f64 / logical_units as f64 - 1.0) * 100.0;
            // More spare than data is past any drive's (7% to 40% on real ones): it is the
            // drive that is too small for its blocks.
            if min_op > 100.0 {
                return bad(self.too_small(needed, data_blocks, layout.block_bytes(), min_op));
            }
            return bad(format!(
                "op={}% leaves {spare} spare blocks of {}, but GC needs at least {needed} \
                 (2 open blocks per die for {dies} dies + gc_threshold {thr} + 1): raise op to at least {:.1}%, \
                 or use a larger capacity, smaller blocks (pages_per_block) or fewer dies",
                self.op_pct,
                fmt_bytes(layout.block_bytes()),
                (min_op * 10.0).ceil() / 10.0
            ));
        }
        Ok(())
    }

    /// The drive's capacity is too small for the spare blocks GC needs: the capacity that
    /// holds them at its spare area, or the other ways out.
    fn too_small(&self, needed: u64, data_blocks: u64, block_bytes: u64, min_op: f64) -> String {
        let op = self.op_pct / 100.0;
        let capacity = if op > 0.0 {
            let blocks = (needed as f64 / op).ceil() as u64;
            let mib = (blocks * block_bytes).div_ceil(1 << 20);
            format!("give capacity={mib}MiB or more (at op={}%), ", self.op_pct)
        } else {
            "give it spare area (op), ".to_string()
        };
        format!(
            "capacity={} is too small for its NAND: GC needs at least {needed} spare blocks of {}, \
             and the drive holds {data_blocks} blocks of data (op would have to be {min_op:.1}%, \
             past any drive's): {capacity}or use smaller blocks (pages_per_block) or fewer dies",
            fmt_bytes(self.capacity_bytes),
            fmt_bytes(block_bytes)
        )
    }

    /// Bytes of RAM the simulator will take for this drive: the mapping tables (4 bytes per
    /// logical and per physical unit) and the per-block state, plus buffers.
    pub fn ram_estimate(&self, layout: &Layout) -> u64 {
        let tables = 4 * (layout.logical_units + layout.physical_slots());
        let per_block = 40 * layout.total_blocks() as u64;
        let trim_bits = layout.logical_units / 8;
        let wbuf = 8 * (self.write_buffer_bytes / layout.unit_bytes);
        tables + per_block + trim_bits + wbuf
    }
}

pub fn fmt_bytes(b: u64) -> String {
    engine::units::format_size(b)
}

/// `bytes` as a value a key takes: `8GiB` when that is exact, else the bytes.
pub fn size_arg(bytes: u64) -> String {
    let short = fmt_bytes(bytes).replace(' ', "");
    match engine::size::parse_size(&short) {
        Ok(b) if b == bytes => short,
        _ => bytes.to_string(),
    }
}

pub fn fmt_ns(ns: u64) -> String {
    if ns >= 1_000_000 && ns.is_multiple_of(1_000) {
        format!("{} ms", ns as f64 / 1e6)
    } else if ns >= 1_000 {
        format!("{} us", ns as f64 / 1e3)
    } else {
        format!("{ns} ns")
    }
}
