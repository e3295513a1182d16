//! What `ssdlab sim show` prints: the drive as its mechanisms derive from the configuration,
//! then every parameter with its value and where the value comes from.

use std::fmt::Write as _;

use crate::config::{
    fmt_bytes, fmt_ns, BurstSize, Config, DataMode, GcStyle, SlcRegion, TrimStyle,
};
use crate::error::SimError;
use crate::geometry::{Layout, UNIT_BYTES};
use crate::preset::KEYS;

impl Config {
    /// The human-readable description of this drive.
    pub fn describe(&self) -> Result<String, SimError> {
        let l = self.layout()?;
        let mut s = String::new();
        let w = &mut s;
        self.describe_drive(w, &l);
        self.describe_nand(w, &l);
        self.describe_policies(w, &l);
        self.describe_limits(w, &l);
        let _ = writeln!(w);
        let _ = writeln!(w, "parameters (value, and where it comes from):");
        for key in KEYS.iter().map(|k| k.name) {
            if let Some((_, value, source)) = self.sources.iter().rev().find(|(k, _, _)| k == key) {
                let _ = writeln!(w, "  {key:16} {value:14} {source}");
            }
        }
        Ok(s)
    }

    /// The drive: its preset, capacity, spare area and geometry.
    fn describe_drive(&self, w: &mut String, l: &Layout) {
        let _ = writeln!(w, "preset            {}", self.preset);
        if let Some(m) = &self.model_of {
            let _ = writeln!(
                w,
                "models            {m} (a model fitted to its reviews, not the drive's firmware)"
            );
        }
        let _ = writeln!(w, "summary           {}", self.summary);
        if !self.facts.is_empty() {
            let facts: Vec<String> = self
                .facts
                .iter()
                .map(|(key, value, seed)| format!("{key} {value} [{seed}]"))
                .collect();
            let _ = writeln!(w, "reviewed hardware {}", facts.join(", "));
        }
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
            fmt_bytes(l.block_bytes()),
            l.blocks_per_die(),
            l.main_blocks_per_die,
            l.slc_blocks_per_die
        );
    }

    /// The NAND and the channels: program and read times, parallelism.
    fn describe_nand(&self, w: &mut String, l: &Layout) {
        let progs: Vec<String> = self
            .native
            .program
            .times()
            .iter()
            .map(|&t| fmt_ns(t))
            .collect();
        let _ = writeln!(
            w,
            "NAND              {} ({} bits/cell): read {}, program {} (mean {}), erase {}; pseudo-SLC read {}, program {}",
            l.cell.name(),
            l.cell.bits(),
            fmt_ns(self.native.read_ns),
            progs.join(" / "),
            fmt_ns(self.native.program.mean()),
            fmt_ns(self.native.erase_ns),
            fmt_ns(self.pslc.read_ns),
            fmt_ns(self.pslc.program.mean())
        );
        let _ = writeln!(
            w,
            "mapping           {} units{}",
            fmt_bytes(self.map_unit_bytes),
            if self.map_unit_bytes > UNIT_BYTES {
                " (a smaller write reads and rewrites its whole unit)"
            } else {
                ""
            }
        );
        let _ = writeln!(w, "channel           {} MB/s each", self.channel_mbps);
        if self.max_programs > 0 && self.max_programs < self.dies() {
            let _ = writeln!(
                w,
                "program budget    at most {} of the {} dies program at once (the controller's peak-power budget)",
                self.max_programs,
                self.dies()
            );
        }
        let _ = writeln!(
            w,
            "host link         {}: {} MB/s, {} per command",
            self.link.label(),
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
            fmt_bytes(l.stripe_units as u64 * l.dies as u64 * l.unit_bytes)
        );
    }

    /// The pseudo-SLC cache, garbage collection and TRIM.
    fn describe_policies(&self, w: &mut String, l: &Layout) {
        let slc = &self.slc;
        if slc.bytes > 0 {
            let region = match slc.region {
                SlcRegion::Static => format!(
                    "a static region of {} blocks ({} of raw NAND)",
                    l.slc_blocks_per_die as u64 * l.dies as u64,
                    fmt_bytes(l.slc_blocks_per_die as u64 * l.dies as u64 * l.block_bytes())
                ),
                SlcRegion::Dynamic => "free main-array blocks while the drive has room".into(),
            };
            let _ = writeln!(
                w,
                "pseudo-SLC cache  {} of user data in {region}; takes {}; when full a write {}; folded {}{}",
                fmt_bytes(slc.bytes),
                if slc.max_write_bytes > 0 {
                    format!("writes up to {}", fmt_bytes(slc.max_write_bytes))
                } else {
                    "every write".into()
                },
                slc.when_full.name(),
                match slc.drain {
                    crate::config::SlcDrain::Idle => "in idle time",
                    crate::config::SlcDrain::Always => {
                        "in idle time and while the host writes (short of free blocks)"
                    }
                },
                if slc.drain_mbps > 0.0 {
                    format!(" at {} MB/s", slc.drain_mbps)
                } else {
                    String::new()
                }
            );
        } else {
            let _ = writeln!(w, "pseudo-SLC cache  none");
        }
        let style = match self.gc.style {
            GcStyle::Paced => "paced (a victim per victim's worth of host writes)".to_string(),
            GcStyle::LatencyFirst => {
                "latency-first (relocations spread over host writes, a stripe at a time)".into()
            }
            GcStyle::Bursty => {
                format!(
                    "bursty (at {}x the host's pace to {} beyond the trigger{}, then resting)",
                    self.gc.burst_rate,
                    match self.gc_burst() {
                        BurstSize::Blocks(n) => format!("{n} blocks"),
                        BurstSize::ReclaimablePct(p) =>
                            format!("{p}% of the space holding no valid data"),
                    },
                    if self.gc.jitter_pct > 0.0 {
                        format!(", +/-{}%", self.gc.jitter_pct)
                    } else {
                        String::new()
                    }
                ) + &if self.gc.burst_above_pct > 0.0 {
                    format!(
                        ", while {}% or more of the main array holds no valid data, paced below",
                        self.gc.burst_above_pct
                    )
                } else {
                    String::new()
                }
            }
        };
        let _ = writeln!(
            w,
            "GC                {} victims, {style}; starts at {} free blocks, all-out at {}, background (idle) up to {}; {}{}",
            self.gc.policy.name(),
            self.gc_trigger(),
            self.gc_threshold(),
            self.bg_gc_threshold(),
            if self.gc.copyback {
                "copyback within a die"
            } else if self.gc.same_die {
                "relocations stay on the victim's die, crossing its channel twice"
            } else {
                "relocations cross the channels"
            },
            if self.gc.unit_ns > 0 {
                format!(", {} of controller time per relocated unit", fmt_ns(self.gc.unit_ns))
            } else {
                String::new()
            }
        );
        let trim = match self.trim.style {
            TrimStyle::Immediate => "honoured at once".to_string(),
            TrimStyle::Ignored => "ignored (trim=off)".into(),
            TrimStyle::Deferred => format!(
                "deferred to idle time{}",
                if self.trim.rate_mbps > 0.0 {
                    format!(" at {} MB/s of logical space", self.trim.rate_mbps)
                } else {
                    String::new()
                }
            ),
            TrimStyle::Partial => format!(
                "partial: {}% of trimmed units are never reclaimed",
                self.trim.keep_pct
            ),
        };
        let _ = writeln!(w, "TRIM              {trim}");
    }

    /// The rest of the controller, the energy model and the simulator's own RAM.
    fn describe_limits(&self, w: &mut String, l: &Layout) {
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
            "read priority     {}",
            if self.read_priority {
                "on (a host read waits for the operation in progress, not the queue)"
            } else {
                "off (host reads queue behind programs and erases)"
            }
        );
        let _ = writeln!(
            w,
            "data mode         {}",
            match self.data_mode() {
                DataMode::Off => "off (the simulator stores no data; a test that needs data turns it on)",
                DataMode::Stamp =>
                    "stamp: reads return zeros (unmapped) or an LBA stamp (mapped); no user data is stored",
                DataMode::On => "on: the drive keeps what is written, per 4 KiB unit (RAM for what is written)",
            }
        );
        let _ = writeln!(
            w,
            "injected faults   {}",
            if self.faults.is_empty() {
                "none".to_string()
            } else {
                format!(
                    "{} (into the kept data only: the FTL and timing never see them; KIND:N hits every {}th eligible write)",
                    self.faults.label(),
                    crate::faults::COUNT_SPACING
                )
            }
        );
        let _ = writeln!(
            w,
            "trimmed reads     {} (trim_reads)",
            match self.trimmed_reads() {
                engine::TrimmedReads::Unspecified =>
                    "no claim: old data, zeroes or anything".into(),
                claim => format!("the drive claims {}", claim.name()),
            }
        );
        let e = &self.energy;
        let _ = writeln!(
            w,
            "power             {:.3} W active idle (p_idle + p_dram), +{} W while working (p_active), {} W in slumber after {} idle with link_pm=on (now {}), {} to wake",
            e.idle_w + e.dram_w,
            e.active_w,
            e.slumber_w,
            fmt_ns(e.slumber_after_ns),
            if e.link_pm { "on" } else { "off" },
            fmt_ns(e.slumber_exit_ns),
        );
        let ram = self.ram_estimate(l);
        let _ = writeln!(
            w,
            "simulator RAM     about {} ({:.1} bytes per 4 KiB of capacity)",
            fmt_bytes(ram),
            ram as f64 / (self.capacity_bytes / UNIT_BYTES) as f64
        );
    }
}
