//! Energy: what the simulated work costs, so power follows from it. GC, write amplification
//! and the pseudo-SLC cache show up in watts because every NAND operation, every byte over a
//! channel or the host link and every nanosecond the drive is busy is counted where the FTL
//! schedules it, and priced here.
//!
//! The drive is in one of three power states:
//! - **active**: it has work, from a command's arrival (or the start of background work)
//!   until the last resource it occupied is free; folding or background GC still owed keeps
//!   it active through idle time. It draws `p_active` above the idle floor;
//! - **idle** (active idle): awake with nothing to do, `p_idle + p_dram`;
//! - **slumber**: with link power management on (`link_pm=on`, SATA HIPM+DIPM / NVMe APST),
//!   once it has been idle for `slumber_after`; it draws `p_slumber` instead of the idle
//!   floor and DRAM, and the first command after it waits `slumber_exit`.
//!
//! Energy at `now` = Σ NAND operations × their energy (by mode) + bytes × per-byte energy
//! (channels, host link) + `p_ctrl` × controller-busy ns + `p_active` × active ns +
//! (`p_idle` + `p_dram`) × awake ns + `p_slumber` × slumber ns: exactly what
//! [`Tally::energy`] computes from the counters, nothing else.
//!
//! Why an active state on top of per-operation energy: the 840 EVO drew ~3.5 W for a minute
//! while folding 12 GB at ~210 MB/s [004], and 2.2-2.5 W while TurboWrite absorbed writes at
//! the SATA link's rate; no per-byte price fits both, a controller that clocks up while it
//! has work does (and is how real controllers save power).

use serde::Serialize;

use crate::geometry::CellType;

/// Energy of one NAND operation of one mode, in joules.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct NandEnergy {
    /// One page read (one tR on a die).
    pub read_j: f64,
    /// One page programmed (a multi-plane program is `planes` pages).
    pub prog_j: f64,
    /// One block erase (one tBERS on a die, all planes).
    pub erase_j: f64,
}

/// A NAND die draws about 25 mA at 3.3 V while it reads, programs or erases (ONFI datasheets'
/// typical ICC1-3), so an operation costs about 82.5 mW times its duration.
const NAND_ACTIVE_W: f64 = 0.025 * 3.3;

impl NandEnergy {
    fn of_latency(read_ns: u64, prog_ns: u64, erase_ns: u64) -> NandEnergy {
        let j = |ns: u64| NAND_ACTIVE_W * ns as f64 * 1e-9;
        NandEnergy {
            read_j: j(read_ns),
            prog_j: j(prog_ns),
            erase_j: j(erase_ns),
        }
    }

    /// Defaults from the cell's default latencies (`timing::NandLatency::native`).
    pub fn native(cell: CellType) -> NandEnergy {
        let l = crate::timing::NandLatency::native(cell);
        NandEnergy::of_latency(l.read_ns, l.program.mean(), l.erase_ns)
    }

    /// Defaults for pseudo-SLC mode (`timing::NandLatency::pseudo_slc`).
    pub fn pseudo_slc(cell: CellType) -> NandEnergy {
        let l = crate::timing::NandLatency::pseudo_slc(cell);
        NandEnergy::of_latency(l.read_ns, l.program.mean(), l.erase_ns)
    }
}

/// The energy model's parameters (`e_*`, `p_*`, `slumber_*`, `link_pm`).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct EnergyConfig {
    pub native: NandEnergy,
    pub pslc: NandEnergy,
    /// Per byte over a NAND channel and over the host link, joules.
    pub channel_j_per_byte: f64,
    pub link_j_per_byte: f64,
    /// Watts while the controller processes commands (per controller-busy ns).
    pub ctrl_w: f64,
    /// Watts above the idle floor while the drive has work.
    pub active_w: f64,
    /// Active idle floor (controller's static power, PHY), and DRAM; both off in slumber.
    pub idle_w: f64,
    pub dram_w: f64,
    pub slumber_w: f64,
    pub slumber_after_ns: u64,
    pub slumber_exit_ns: u64,
    /// Host link power management (HIPM+DIPM / APST): lets the drive slumber.
    pub link_pm: bool,
}

/// Mode index of the per-mode counts: the cell's native mode, or pseudo-SLC.
pub const NATIVE: usize = 0;
pub const PSLC: usize = 1;

/// Everything energy is computed from, as the counters report it.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Tally {
    /// Page reads, pages programmed and block erases, by mode ([`NATIVE`], [`PSLC`]).
    pub reads: [u64; 2],
    pub prog_pages: [u64; 2],
    pub erases: [u64; 2],
    pub channel_bytes: u64,
    pub link_bytes: u64,
    pub ctrl_busy_ns: u64,
    pub active_ns: u64,
    /// Time not in slumber (active or idle), and in slumber.
    pub awake_ns: u64,
    pub slumber_ns: u64,
}

/// Energy by where it went, joules.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct Breakdown {
    pub nand_j: f64,
    pub transfer_j: f64,
    /// Command processing and the active state.
    pub controller_j: f64,
    pub idle_j: f64,
    pub slumber_j: f64,
}

impl Breakdown {
    pub fn total_j(&self) -> f64 {
        self.nand_j + self.transfer_j + self.controller_j + self.idle_j + self.slumber_j
    }
}

impl Tally {
    pub fn energy(&self, e: &EnergyConfig) -> Breakdown {
        let ns = |n: u64| n as f64 * 1e-9;
        let mut nand_j = 0.0;
        for (m, per) in [(NATIVE, &e.native), (PSLC, &e.pslc)] {
            nand_j += self.reads[m] as f64 * per.read_j
                + self.prog_pages[m] as f64 * per.prog_j
                + self.erases[m] as f64 * per.erase_j;
        }
        Breakdown {
            nand_j,
            transfer_j: self.channel_bytes as f64 * e.channel_j_per_byte
                + self.link_bytes as f64 * e.link_j_per_byte,
            controller_j: e.ctrl_w * ns(self.ctrl_busy_ns) + e.active_w * ns(self.active_ns),
            idle_j: (e.idle_w + e.dram_w) * ns(self.awake_ns),
            slumber_j: e.slumber_w * ns(self.slumber_ns),
        }
    }
}

/// The drive's power state over time: active intervals, slumber, wake-ups. Time moves only
/// when the device's clock does, so every interval is closed or counted up to `now`.
#[derive(Clone, Debug, Default)]
pub struct PowerStates {
    /// Active time of intervals already over, and the current (or last) interval.
    active_closed_ns: u64,
    active_start: u64,
    /// When the work known so far ends.
    busy_until: u64,
    pub slumber_ns: u64,
    pub slumber_entries: u64,
    pub wakeups: u64,
    /// When the drive last became quiet (nothing in flight, no background work owed, every
    /// resource free); `None` while it has work.
    quiet_at: Option<u64>,
}

impl PowerStates {
    /// Work from `start` (no earlier than any earlier start) to `end`.
    #[inline]
    pub fn work(&mut self, start: u64, end: u64) {
        if start > self.busy_until {
            self.active_closed_ns += self.busy_until - self.active_start;
            self.active_start = start;
        }
        self.busy_until = self.busy_until.max(end);
        self.quiet_at = None;
    }

    /// Active time up to `now`.
    pub fn active_ns(&self, now: u64) -> u64 {
        self.active_closed_ns + now.min(self.busy_until).saturating_sub(self.active_start)
    }

    /// The clock moved from `from` to `until` with nothing in flight: `work_end` is when the
    /// work scheduled so far ends, `pending` whether background work is still owed (which
    /// keeps the drive active to `until`). Counts slumber when link power management allows.
    pub fn idle(
        &mut self,
        cfg: &EnergyConfig,
        from: u64,
        until: u64,
        work_end: u64,
        pending: bool,
    ) {
        if pending {
            self.work(from, until.max(work_end));
            return;
        }
        if work_end > self.busy_until {
            self.work(from, work_end);
        }
        let quiet = *self.quiet_at.get_or_insert(self.busy_until);
        if !cfg.link_pm {
            return;
        }
        let enter = quiet.saturating_add(cfg.slumber_after_ns);
        if enter < until {
            let start = enter.max(from);
            self.slumber_ns += until - start;
            if enter >= from {
                self.slumber_entries += 1;
            }
        }
    }

    /// A command arrives at `now`: when it can start (after a wake-up from slumber).
    #[inline]
    pub fn arrive(&mut self, cfg: &EnergyConfig, now: u64) -> u64 {
        match self.quiet_at {
            Some(q) if cfg.link_pm && now >= q.saturating_add(cfg.slumber_after_ns) => {
                self.wakeups += 1;
                now + cfg.slumber_exit_ns
            }
            _ => now,
        }
    }
}
