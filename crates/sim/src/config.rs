//! A resolved simulator configuration, its validation (impossible drives get an error that
//! names the problem and the fix) and its human-readable description (`ssdlab sim show`).

use std::fmt::Write as _;

use serde::Serialize;

use crate::error::SimError;
use crate::gc::GcPolicy;
use crate::geometry::{CellType, Layout, UNIT_BYTES};
use crate::timing::NandLatency;

/// The host interface.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum LinkKind {
    Sata,
    Nvme,
}

impl LinkKind {
    pub fn name(self) -> &'static str {
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

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Config {
    /// The preset this configuration started from.
    pub preset: String,
    /// The real drive a preset models, when it models one.
    pub model_of: Option<String>,
    /// One line about the preset.
    pub summary: String,
    /// Where the preset's numbers come from.
    pub sources: String,
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
    pub native: NandLatency,
    pub pslc: NandLatency,
    pub channel_mbps: f64,
    pub link: LinkKind,
    pub link_mbps: f64,
    pub link_cmd_ns: u64,
    pub cmd_read_ns: u64,
    pub cmd_write_ns: u64,
    pub write_buffer_bytes: u64,
    /// DRAM on the drive (informational: the whole mapping table is assumed to fit).
    pub dram_bytes: u64,
    /// User data the pseudo-SLC cache holds (0: no cache).
    pub slc_cache_bytes: u64,
    pub gc: GcPolicy,
    /// Foreground GC keeps more than this many free main-array blocks (None: dies + 2).
    pub gc_threshold: Option<u32>,
    /// Background (idle) GC cleans up to this many free blocks (None: threshold + 2 per die).
    pub bg_gc_threshold: Option<u32>,
    /// Sequential read-ahead of one IO.
    pub read_ahead: bool,
    /// Whether the drive honours TRIM. Off models a drive (or OS path) that ignores it: a
    /// discard completes but unmaps nothing.
    pub trim: bool,
    /// Data mode: real buffers, reads return zeros or an LBA stamp.
    pub data: bool,
}

impl Config {
    pub fn dies(&self) -> u32 {
        self.channels.saturating_mul(self.dies_per_channel)
    }

    pub fn gc_threshold(&self) -> u32 {
        self.gc_threshold.unwrap_or(self.dies() + 2)
    }

    pub fn bg_gc_threshold(&self) -> u32 {
        self.bg_gc_threshold
            .unwrap_or(self.gc_threshold() + 2 * self.dies())
    }

    /// Check the configuration and derive the array's layout.
    pub fn layout(&self) -> Result<Layout, SimError> {
        let bad = |m: String| Err(SimError::Config(m));
        for (name, v) in [
            ("channels", self.channels),
            ("dies (per channel)", self.dies_per_channel),
            ("planes", self.planes),
            ("pages_per_block", self.pages_per_block),
        ] {
            if v == 0 {
                return bad(format!(
                    "{name}=0 gives zero blocks: every level of the geometry needs at least 1"
                ));
            }
        }
        if self.capacity_bytes == 0 {
            return bad(
                "capacity=0 gives zero blocks: give a capacity such as capacity=8GiB".into(),
            );
        }
        if !self.capacity_bytes.is_multiple_of(UNIT_BYTES) {
            return bad(format!(
                "capacity {} bytes is not a multiple of 4 KiB: round it, e.g. capacity={}",
                self.capacity_bytes,
                self.capacity_bytes / UNIT_BYTES * UNIT_BYTES
            ));
        }
        if self.page_bytes == 0 || !(self.page_bytes as u64).is_multiple_of(UNIT_BYTES) {
            return bad(format!(
                "page size {} bytes is not a multiple of 4 KiB: use page_size=4KiB, 8KiB or 16KiB",
                self.page_bytes
            ));
        }
        if !(self.op_pct.is_finite() && self.op_pct > 0.0 && self.op_pct <= 1000.0) {
            return bad(format!(
                "op={}% is out of range: give the spare area as physical/logical - 1, e.g. op=7%",
                self.op_pct
            ));
        }
        for (name, v) in [
            ("channel_mbps", self.channel_mbps),
            ("link_mbps", self.link_mbps),
        ] {
            if !(v.is_finite() && v > 0.0) {
                return bad(format!("{name}={v} must be a positive rate in MB/s"));
            }
        }
        let dies = self.dies();
        let units_per_page = (self.page_bytes as u64 / UNIT_BYTES) as u32;
        let stripe = self.planes as u64 * units_per_page as u64;
        let block_units = stripe * self.pages_per_block as u64;
        if block_units > 1 << 20 {
            return bad(format!(
                "a block of {} units (planes x pages_per_block x page_size/4KiB) is too large: at most 1M units (4 GiB)",
                block_units
            ));
        }
        let block_units = block_units as u32;
        let logical_units = self.capacity_bytes / UNIT_BYTES;
        let bits = self.cell.bits();
        let slc_block_units = (self.pages_per_block / bits) * stripe as u32;
        let slc_blocks_per_die = if self.slc_cache_bytes == 0 {
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
            let units = self.slc_cache_bytes.div_ceil(UNIT_BYTES);
            let blocks = units.div_ceil(slc_block_units as u64);
            blocks.div_ceil(dies as u64) as u32
        };
        let main_needed = (logical_units as f64 * (1.0 + self.op_pct / 100.0)).ceil() as u64;
        let die_block_units = block_units as u64 * dies as u64;
        let main_blocks_per_die = main_needed.div_ceil(die_block_units) as u32;
        let layout = Layout {
            channels: self.channels,
            dies,
            planes: self.planes,
            pages_per_block: self.pages_per_block,
            page_bytes: self.page_bytes,
            cell: self.cell,
            units_per_page,
            stripe_units: stripe as u32,
            block_units,
            slc_block_units,
            main_blocks_per_die,
            slc_blocks_per_die,
            logical_units,
        };
        if layout.physical_slots() >= u32::MAX as u64 {
            return bad(format!(
                "{} of raw NAND is more than the simulator addresses (16 TiB): use a smaller capacity",
                fmt_bytes(layout.raw_bytes())
            ));
        }
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
            return bad(format!(
                "op={}% leaves {spare} spare blocks of {}, but GC needs at least {needed} \
                 (2 open blocks per die for {dies} dies + gc_threshold {thr} + 1): raise op to at least {:.1}%, \
                 or use a larger capacity, smaller blocks (pages_per_block) or fewer dies",
                self.op_pct,
                fmt_bytes(block_units as u64 * UNIT_BYTES),
                (min_op * 10.0).ceil() / 10.0
            ));
        }
        Ok(layout)
    }

    /// What `ssdlab sim show` prints.
    pub fn describe(&self) -> Result<String, SimError> {
        let l = self.layout()?;
        let mut s = String::new();
        let w = &mut s;
        let _ = writeln!(w, "preset            {}", self.preset);
        if let Some(m) = &self.model_of {
            let _ = writeln!(w, "models            {m} (a model: calibrated to the spec sheet, not the drive's firmware)");
        }
        let _ = writeln!(w, "summary           {}", self.summary);
        let _ = writeln!(w, "sources           {}", self.sources);
        let _ = writeln!(
            w,
            "capacity          {} ({} bytes, {} LBAs of 512 B)",
            fmt_bytes(self.capacity_bytes),
            self.capacity_bytes,
            self.capacity_bytes / 512
        );
        let _ = writeln!(
            w,
            "over-provisioning {:.2}% as physical/logical - 1 (spare factor {:.2}% as (physical-logical)/physical), main array; asked op={}%",
            l.op_physical_over_logical_minus_one() * 100.0,
            l.spare_factor() * 100.0,
            self.op_pct
        );
        let _ = writeln!(
            w,
            "raw NAND          {} ({:.2}% over the capacity, including the pseudo-SLC region)",
            fmt_bytes(l.raw_bytes()),
            (l.raw_bytes() as f64 / self.capacity_bytes as f64 - 1.0) * 100.0
        );
        let _ = writeln!(
            w,
            "geometry          {} channels x {} dies, {} planes, {} pages of {} per block ({} per multi-plane block), {} blocks per plane ({} main + {} pseudo-SLC)",
            l.channels,
            self.dies_per_channel,
            l.planes,
            l.pages_per_block,
            fmt_bytes(l.page_bytes as u64),
            fmt_bytes(l.block_units as u64 * UNIT_BYTES),
            l.blocks_per_die(),
            l.main_blocks_per_die,
            l.slc_blocks_per_die
        );
        let _ = writeln!(
            w,
            "NAND              {} ({} bits/cell): read {}, program {}, erase {}; pseudo-SLC read {}, program {}",
            l.cell.name(),
            l.cell.bits(),
            fmt_ns(self.native.read_ns),
            fmt_ns(self.native.program_ns),
            fmt_ns(self.native.erase_ns),
            fmt_ns(self.pslc.read_ns),
            fmt_ns(self.pslc.program_ns)
        );
        let _ = writeln!(w, "channel           {} MB/s each", self.channel_mbps);
        let _ = writeln!(
            w,
            "host link         {}: {} MB/s, {} per command",
            self.link.name(),
            self.link_mbps,
            fmt_ns(self.link_cmd_ns)
        );
        let _ = writeln!(
            w,
            "controller        {} per read command, {} per write command (one serial firmware pipeline)",
            fmt_ns(self.cmd_read_ns),
            fmt_ns(self.cmd_write_ns)
        );
        let _ = writeln!(
            w,
            "DRAM              {} on the drive, {} of it as write buffer ({} minimum: one page stripe per die)",
            fmt_bytes(self.dram_bytes),
            fmt_bytes(self.write_buffer_bytes),
            fmt_bytes(l.stripe_units as u64 * l.dies as u64 * UNIT_BYTES)
        );
        if self.slc_cache_bytes > 0 {
            let _ = writeln!(
                w,
                "pseudo-SLC cache  {} of user data in {} blocks ({} of raw NAND); host writes land there, bypass it when full, migrate to the main array when idle",
                fmt_bytes(l.slc_units() * UNIT_BYTES),
                l.slc_blocks_per_die as u64 * l.dies as u64,
                fmt_bytes(l.slc_blocks_per_die as u64 * l.dies as u64 * l.block_units as u64 * UNIT_BYTES)
            );
        } else {
            let _ = writeln!(w, "pseudo-SLC cache  none");
        }
        let _ = writeln!(
            w,
            "GC                {}; paced with host writes from {} free blocks down, all-out at {}, background (idle) up to {}",
            self.gc.name(),
            self.gc_threshold() + l.dies,
            self.gc_threshold(),
            self.bg_gc_threshold()
        );
        let _ = writeln!(
            w,
            "TRIM              {}",
            if self.trim {
                "honoured"
            } else {
                "ignored (trim=off)"
            }
        );
        let _ = writeln!(
            w,
            "read-ahead        {}",
            if self.read_ahead {
                "on (one IO ahead on sequential reads)"
            } else {
                "off"
            }
        );
        let _ = writeln!(
            w,
            "data mode         {}",
            if self.data {
                "on: reads return zeros (unmapped) or an LBA stamp (mapped); no user data is stored"
            } else {
                "off (the simulator stores no data)"
            }
        );
        let ram = 4 * (l.logical_units + l.physical_slots());
        let _ = writeln!(
            w,
            "simulator RAM     about {} for the mapping tables ({:.1} bytes per 4 KiB of capacity)",
            fmt_bytes(ram),
            ram as f64 / l.logical_units as f64
        );
        Ok(s)
    }
}

pub fn fmt_bytes(b: u64) -> String {
    engine::size::format_size(b)
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
