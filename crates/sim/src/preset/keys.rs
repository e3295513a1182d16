//! The keys: one record per key, saying what it means, its range, its default and what it
//! sets (see [`Key`]).

use super::key::Key;
use super::values::{
    boolean, choice, duration, energy, factor, number, percent, power, program_times, rate,
    rate_or_zero, size,
};
use crate::config::{
    BurstSize, Config, DataMode, GcStyle, LinkKind, SlcDrain, SlcRegion, SlcWhenFull, TrimClaim,
    TrimStyle,
};
use crate::energy::NandEnergy;
use crate::error::KeyError;
use crate::faults::FaultSpec;
use crate::geometry::CellType;
use crate::range::Quantity::*;
use crate::timing::{NandLatency, ProgramTimes};
use crate::victim::GcPolicy;

/// A setter storing what the value parser `parse` makes of the value in the field.
macro_rules! store {
    ($parse:ident => $($field:ident).+) => {
        |c: &mut Config, k: &Key, v: &str| {
            c.$($field).+ = $parse(k, v)?;
            Ok(())
        }
    };
}

/// A setter storing the name of one of `kind`'s values (`kind::NAMES`) in the field.
macro_rules! pick {
    ($kind:ident => $($field:ident).+) => {
        |c: &mut Config, k: &Key, v: &str| {
            c.$($field).+ = choice(k, v, $kind::parse, $kind::NAMES)?;
            Ok(())
        }
    };
}

// The ranges are in the unit the configuration holds a key in (bytes, ns, MB/s, joules,
// watts, percent): what real drives span, with room to spare. Cross-key limits (a cache
// smaller than the drive, enough spare blocks) are `Config::layout`'s.
const KIB: f64 = 1024.0;
const MIB: f64 = KIB * KIB;
const GIB: f64 = MIB * KIB;
const TIB: f64 = GIB * KIB;
const PIB: f64 = TIB * KIB;
const US: f64 = 1e3;
const MS: f64 = 1e6;
const S: f64 = 1e9;
const MICRO: f64 = 1e-6;
const PICO: f64 = 1e-12;
const PAGE_READ: &str = "a NAND page reads in 3 us (Z-NAND) to a few hundred us (QLC)";
const PAGE_PROG: &str =
    "a NAND page programs in about 100 us (SLC) to a few ms (QLC), each page type in turn";
const COMMAND: &str = "firmware spends a few to a few tens of microseconds per command";
const SHARE: &str = "a share, 0% to 100%";
const PAGE_READ_J: &str = "a NAND page read costs a few uJ";
const PAGE_PROG_J: &str = "a NAND page program costs tens of uJ";
const ERASE_J: &str = "a NAND block erase costs a few hundred uJ";
const DRIVE_W: &str = "an SSD draws at most 25 W (the U.2 limit), most well under 10 W";

/// Every key an override may set, in the order `ssdlab sim show` lists them.
pub static KEYS: &[Key] = &[
    Key::new(
        "capacity",
        "host-visible size: 8GiB, 256G (K/M/G/T are powers of 1024), or bytes",
        store!(size => capacity_bytes),
    )
    .base("8GiB")
    .range(Bytes, MIB, PIB, "an SSD holds a few GB to a few hundred TB")
    .when_zero("gives zero blocks"),
    Key::new(
        "op",
        "main-array over-provisioning as physical/logical - 1, in percent: op=7%, op=25%",
        store!(percent => op_pct),
    )
    .base("7%")
    .range(Percent, 0.0, 1000.0, "spare area as physical/logical - 1: 7% to 40% on real drives"),
    Key::new(
        "channels",
        "NAND channels",
        store!(number => channels),
    )
    .base("4")
    .range(Count, 1.0, 64.0, "a controller has 1 to 16 NAND channels")
    .when_zero("gives zero blocks"),
    Key::new(
        "dies",
        "dies per channel",
        store!(number => dies_per_channel),
    )
    .base("1")
    .alias("dies_per_channel")
    .range(Count, 1.0, 64.0, "a channel has 1 to 16 dies")
    .when_zero("gives zero blocks"),
    Key::new(
        "planes",
        "planes per die (a block spans all planes of a die)",
        store!(number => planes),
    )
    .base("2")
    .range(Count, 1.0, 16.0, "a die has 1 to 8 planes")
    .when_zero("gives zero blocks"),
    Key::new(
        "pages_per_block",
        "pages per block (per plane)",
        store!(number => pages_per_block),
    )
    .base("128")
    .range(Count, 1.0, 4096.0, "a block has 64 to a few thousand pages per plane")
    .when_zero("gives zero blocks"),
    Key::new(
        "page_size",
        "NAND page size, a multiple of 4 KiB: 8KiB, 16KiB",
        set_page_size,
    )
    .base("16KiB")
    .range(Bytes, 4.0 * KIB, 64.0 * KIB, "NAND pages are 4 KiB to 16 KiB, a multiple of 4 KiB"),
    Key::new(
        "cell",
        "slc, mlc or tlc (resets the NAND latencies to that cell's defaults)",
        set_cell,
    )
    .base("mlc")
    .resets(cell_resets)
    .voids_fact("nand"),
    Key::new(
        "map_unit",
        "mapping unit: 4KiB, or 8KiB/16KiB for drives with less DRAM (smaller writes read-modify-write it)",
        store!(size => map_unit_bytes),
    )
    .base("4KiB")
    .range(Bytes, 4.0 * KIB, 64.0 * KIB, "a mapping-table entry covers 4 KiB, or up to 64 KiB on drives with little DRAM"),
    Key::new(
        "t_read",
        "page read latency: 50us",
        store!(duration => native.read_ns),
    )
    .range(Nanos, US, 10.0 * MS, PAGE_READ),
    Key::new(
        "t_prog",
        "page program latency: 1.3ms, or one per page type in turn: 600us/2ms (MLC LSB/MSB), 0.6ms/1.5ms/4ms (TLC)",
        store!(program_times => native.program),
    )
    .range(Nanos, 10.0 * US, 100.0 * MS, PAGE_PROG),
    Key::new(
        "t_erase",
        "block erase latency: 3ms",
        store!(duration => native.erase_ns),
    )
    .range(Nanos, 100.0 * US, 100.0 * MS, "a NAND block erases in about 1 to 25 ms"),
    Key::new(
        "slc_t_read",
        "page read latency in pseudo-SLC mode",
        store!(duration => pslc.read_ns),
    )
    .range(Nanos, US, 10.0 * MS, PAGE_READ),
    Key::new(
        "slc_t_prog",
        "page program latency in pseudo-SLC mode",
        |c, k, v| {
            c.pslc.program = ProgramTimes::uniform(duration(k, v)?);
            Ok(())
        },
    )
    .range(Nanos, 10.0 * US, 100.0 * MS, PAGE_PROG),
    Key::new(
        "channel_mbps",
        "NAND channel transfer rate in MB/s (10^6 bytes/s)",
        store!(rate => channel_mbps),
    )
    .base("200")
    .range(MBps, 1.0, 1e5, "a NAND channel moves 10 MB/s (asynchronous ONFI 1.0) to a few thousand MB/s (Toggle and ONFI at 3600 MT/s)"),
    Key::new(
        "link",
        "host interface: sata or nvme (resets link_mbps and link_cmd)",
        |c, k, v| {
            c.link = choice(k, v, LinkKind::parse, LinkKind::NAMES)?;
            (c.link_mbps, c.link_cmd_ns) = c.link.defaults();
            Ok(())
        },
    )
    .base("sata")
    .resets(|c| {
        vec![
            ("link_mbps", c.link_mbps.to_string()),
            ("link_cmd", ns(c.link_cmd_ns)),
        ]
    }),
    Key::new(
        "link_mbps",
        "host link payload rate in MB/s",
        store!(rate => link_mbps),
    )
    .range(MBps, 1.0, 1e5, "a host link moves 150 MB/s (SATA 1.5 Gb/s) to 64000 MB/s (PCIe 5.0 x16)"),
    Key::new(
        "link_cmd",
        "host link cost per command: 2.5us",
        store!(duration => link_cmd_ns),
    )
    .range(Nanos, 0.0, 10.0 * MS, "a host link's cost per command is a microsecond or a few"),
    Key::new(
        "cmd_read",
        "controller time per read command (serial): 10us",
        store!(duration => cmd_read_ns),
    )
    .base("10us")
    .range(Nanos, 0.0, 10.0 * MS, COMMAND),
    Key::new(
        "cmd_write",
        "controller time per write command (serial): 12us",
        store!(duration => cmd_write_ns),
    )
    .base("12us")
    .range(Nanos, 0.0, 10.0 * MS, COMMAND),
    Key::new(
        "max_programs",
        "dies programming at once at most, the controller's peak-power budget (0: every die may): max_programs=24",
        store!(number => max_programs),
    )
    .base("0")
    .range(Count, 0.0, 4096.0, "a number of dies (a drive has 1 to a few hundred); 0 lets every die program at once"),
    Key::new(
        "write_buffer",
        "DRAM write buffer: 32MiB (at least one page stripe per die is always there)",
        store!(size => write_buffer_bytes),
    )
    .base("8MiB")
    .range(Bytes, 0.0, 16.0 * GIB, "a drive buffers a few MiB to a few GiB of writes"),
    Key::new(
        "dram",
        "DRAM on the drive (informational)",
        store!(size => dram_bytes),
    )
    .base("64MiB")
    .voids_fact("dram")
    .range(Bytes, 0.0, TIB, "a drive has no DRAM to a few tens of GiB"),
    Key::new(
        "meta",
        "mapping-table journal programmed per 100 host units, in percent: meta=2%",
        store!(percent => meta_pct),
    )
    .base("0%")
    .range(Percent, 0.0, 100.0, SHARE),
    Key::new(
        "gc",
        "victim selection: greedy, cost-benefit or fifo",
        pick!(GcPolicy => gc.policy),
    )
    .base("greedy"),
    Key::new(
        "gc_style",
        "when GC runs: paced (a victim per victim's worth of host writes), bursty (to a high watermark, host waits) or latency-first (a stripe at a time)",
        pick!(GcStyle => gc.style),
    )
    .base("paced"),
    Key::new(
        "gc_threshold",
        "all-out foreground GC keeps more than this many free blocks (at least the die count)",
        |c, k, v| {
            c.gc.threshold = Some(number(k, v)?);
            Ok(())
        },
    )
    .range(Count, 0.0, 1e6, "a number of free blocks (a drive has thousands to a few million)"),
    Key::new(
        "bg_gc_threshold",
        "background GC in idle time cleans up to this many free blocks",
        |c, k, v| {
            c.gc.bg_threshold = Some(number(k, v)?);
            Ok(())
        },
    )
    .range(Count, 0.0, 1e6, "a number of free blocks (a drive has thousands to a few million)"),
    Key::new(
        "gc_burst",
        "bursty GC: what a burst frees beyond the trigger, in blocks (gc_burst=32) or as a share of the space holding no valid data (gc_burst=1%)",
        set_gc_burst,
    )
    .range(Count, 1.0, 1e6, "a number of blocks (a drive has thousands to a few million), or a share such as gc_burst=1%")
    .range(Percent, 0.0, 100.0, SHARE),
    Key::new(
        "gc_jitter",
        "bursty GC: burst sizes vary by up to this share either way: gc_jitter=50%",
        store!(percent => gc.jitter_pct),
    )
    .base("0%")
    .range(Percent, 0.0, 100.0, SHARE),
    Key::new(
        "gc_burst_rate",
        "bursty GC: a burst frees space this many times faster than the host uses it: gc_burst_rate=2",
        store!(factor => gc.burst_rate),
    )
    .base("2")
    .range(Factor, 1.0, 1000.0, "a burst frees space a few times faster than the host uses it (1000 times is already a burst the host waits out whole)"),
    Key::new(
        "gc_burst_above",
        "bursty GC: burst only while at least this share of the main array holds no valid data, else paced: gc_burst_above=20%",
        store!(percent => gc.burst_above_pct),
    )
    .base("0%")
    .range(Percent, 0.0, 100.0, SHARE),
    Key::new(
        "copyback",
        "on/off: GC relocates within a die with copyback, crossing no channel",
        store!(boolean => gc.copyback),
    )
    .base("off"),
    Key::new(
        "gc_dest",
        "where GC writes a victim's valid data: stripe (over every die) or die (the victim's own die, crossing its channel twice unless copyback; that die alone then does the victim's work, so foreground GC slows)",
        set_gc_dest,
    ),
    Key::new(
        "gc_unit",
        "controller (firmware) time per relocated mapping unit: 2us",
        store!(duration => gc.unit_ns),
    )
    .base("0ns")
    .range(Nanos, 0.0, 10.0 * MS, "firmware spends a few microseconds per relocated unit"),
    Key::new(
        "slc_cache",
        "pseudo-SLC cache size in user data, 0 for none: 12GiB",
        store!(size => slc.bytes),
    )
    .base("0")
    .range(Bytes, 0.0, PIB, "a pseudo-SLC cache holds a few GiB to a few hundred GiB"),
    Key::new(
        "slc_region",
        "static (blocks of its own) or dynamic (free main-array blocks, while there is room)",
        pick!(SlcRegion => slc.region),
    )
    .base("static"),
    Key::new(
        "slc_full",
        "when the cache is full a host write does: bypass (to the main array) or fold (waits for the oldest block to fold)",
        pick!(SlcWhenFull => slc.when_full),
    )
    .base("bypass"),
    Key::new(
        "slc_drain",
        "when the cache is folded: idle, or always (also while the host writes, when the main array is short of free blocks)",
        pick!(SlcDrain => slc.drain),
    )
    .base("idle"),
    Key::new(
        "slc_drain_rate",
        "folding rate in MB/s of cached data (0: as fast as the dies allow)",
        store!(rate_or_zero => slc.drain_mbps),
    )
    .base("0")
    .range(MBps, 1.0, 1e5, "folding runs at tens to thousands of MB/s; 0 is as fast as the dies allow"),
    Key::new(
        "slc_max_write",
        "only host writes up to this size go to the cache (0: all): slc_max_write=64KiB",
        store!(size => slc.max_write_bytes),
    )
    .base("0")
    .range(Bytes, 0.0, GIB, "a host write size (0: all writes)"),
    Key::new(
        "trim",
        "on (immediate), off (ignored), deferred (in idle time) or partial (a share never reclaimed)",
        pick!(TrimStyle => trim.style),
    )
    .base("on"),
    Key::new(
        "trim_keep",
        "partial TRIM: share of trimmed units never reclaimed: trim_keep=30%",
        store!(percent => trim.keep_pct),
    )
    .base("0%")
    .range(Percent, 0.0, 100.0, SHARE),
    Key::new(
        "trim_rate",
        "deferred TRIM: logical MB/s unmapped in idle time (0: all at once)",
        store!(rate_or_zero => trim.rate_mbps),
    )
    .base("0")
    .range(MBps, 1.0, 1e7, "a drive unmaps GB of logical space per second of idle time; 0 is all at once"),
    Key::new(
        "read_ahead",
        "on/off: sequential read-ahead of one IO",
        store!(boolean => read_ahead),
    )
    .base("on"),
    Key::new(
        "read_priority",
        "on/off: host reads go ahead of queued programs on a die (waiting only for the one in progress)",
        store!(boolean => read_priority),
    )
    .base("on"),
    Key::new(
        "data",
        "off, stamp (reads return zeroes when unmapped, an LBA stamp when mapped; nothing stored) or on (keeps what is written, per 4 KiB; needs RAM for the capacity)",
        pick!(DataMode => data),
    )
    .base("off"),
    Key::new(
        "faults",
        "injected data faults, KIND:1/R (one eligible write in R, seeded) or KIND:N (N of them, every 1000th eligible write), joined by +: faults=lost:1/5000+flip:1/20000+misdirect:1/8000+torn:1. Kinds: lost (acknowledged, never lands), flip (one bit flipped), misdirect (lands at the previous write's LBA), torn (a power cut: a prefix of a multi-4KiB write lands). Implies data=on",
        |c, k, v| {
            c.faults = FaultSpec::parse(v).map_err(|source| KeyError::Faults {
                key: k.name.to_string(),
                value: v.to_string(),
                source,
            })?;
            Ok(())
        },
    )
    .base("none"),
    Key::new(
        "trim_reads",
        "what the drive claims trimmed blocks read as: zeroes, ones, deterministic, unspecified, or auto (zeroes with trim=on)",
        pick!(TrimClaim => trim_reads),
    )
    .base("auto"),
    Key::new(
        "seed",
        "seed of the drive's own variation (burst sizes, which trimmed units partial TRIM keeps)",
        |c, k, v| {
            c.seed = v
                .parse()
                .map_err(|_| KeyError::malformed(k.name, v, "expected a whole number"))?;
            Ok(())
        },
    )
    .base("1"),
    Key::new(
        "e_read",
        "energy per NAND page read (one tR): 4uJ (also nJ, mJ; a bare number is uJ)",
        store!(energy => energy.native.read_j),
    )
    .range(Joules, 0.0, 1e-3, PAGE_READ_J)
    .bare(MICRO),
    Key::new(
        "e_prog",
        "energy per NAND page programmed (a multi-plane program is `planes` pages): 100uJ",
        store!(energy => energy.native.prog_j),
    )
    .range(Joules, 0.0, 1e-2, PAGE_PROG_J)
    .bare(MICRO),
    Key::new(
        "e_erase",
        "energy per block erase (all planes): 250uJ",
        store!(energy => energy.native.erase_j),
    )
    .range(Joules, 0.0, 0.1, ERASE_J)
    .bare(MICRO),
    Key::new(
        "slc_e_read",
        "energy per page read in pseudo-SLC mode",
        store!(energy => energy.pslc.read_j),
    )
    .range(Joules, 0.0, 1e-3, PAGE_READ_J)
    .bare(MICRO),
    Key::new(
        "slc_e_prog",
        "energy per page programmed in pseudo-SLC mode",
        store!(energy => energy.pslc.prog_j),
    )
    .range(Joules, 0.0, 1e-2, PAGE_PROG_J)
    .bare(MICRO),
    Key::new(
        "slc_e_erase",
        "energy per block erase in pseudo-SLC mode",
        store!(energy => energy.pslc.erase_j),
    )
    .range(Joules, 0.0, 0.1, ERASE_J)
    .bare(MICRO),
    Key::new(
        "e_channel",
        "energy per byte over a NAND channel, in pJ: 150pJ",
        store!(energy => energy.channel_j_per_byte),
    )
    .base("150pJ")
    .range(Joules, 0.0, 1e-8, "a byte over a NAND channel costs tens to hundreds of pJ")
    .bare(PICO),
    Key::new(
        "e_link",
        "energy per byte over the host link, in pJ: 300pJ",
        store!(energy => energy.link_j_per_byte),
    )
    .base("300pJ")
    .range(Joules, 0.0, 1e-8, "a byte over the host link costs about a hundred pJ")
    .bare(PICO),
    Key::new(
        "p_ctrl",
        "power while the controller processes commands (per controller-busy ns): 0.5W (also mW)",
        store!(power => energy.ctrl_w),
    )
    .base("0.5W")
    .range(Watts, 0.0, 25.0, DRIVE_W),
    Key::new(
        "p_active",
        "power above the idle floor while the drive has work (IO in flight, background work owed): 1W",
        store!(power => energy.active_w),
    )
    .base("1W")
    .range(Watts, 0.0, 25.0, DRIVE_W),
    Key::new(
        "p_idle",
        "active idle floor: the controller's static power and PHY, off in slumber: 0.3W",
        store!(power => energy.idle_w),
    )
    .base("0.3W")
    .range(Watts, 0.0, 25.0, DRIVE_W),
    Key::new(
        "p_dram",
        "DRAM power, off in slumber: 0.1W",
        store!(power => energy.dram_w),
    )
    .base("0.1W")
    .range(Watts, 0.0, 25.0, DRIVE_W),
    Key::new(
        "p_slumber",
        "power in slumber (link power management on, idle for slumber_after): 50mW",
        store!(power => energy.slumber_w),
    )
    .base("0.05W")
    .range(Watts, 0.0, 25.0, DRIVE_W),
    Key::new(
        "slumber_after",
        "idle time before the drive slumbers (with link_pm=on): 100ms",
        store!(duration => energy.slumber_after_ns),
    )
    .base("100ms")
    .range(Nanos, 0.0, 3600.0 * S, "an idle drive slumbers after milliseconds to seconds"),
    Key::new(
        "slumber_exit",
        "wake-up latency the first command after slumber waits: 10ms",
        store!(duration => energy.slumber_exit_ns),
    )
    .base("10ms")
    .range(Nanos, 0.0, S, "a drive wakes from slumber in microseconds to tens of milliseconds"),
    Key::new(
        "link_pm",
        "on/off: host link power management (SATA HIPM+DIPM, NVMe APST) lets the drive slumber when idle; off (desktop hosts) never slumbers",
        store!(boolean => energy.link_pm),
    )
    .base("off"),
];

fn set_page_size(c: &mut Config, k: &Key, v: &str) -> Result<(), KeyError> {
    let bytes = size(k, v)?;
    c.page_bytes = u32::try_from(bytes).map_err(|_| KeyError::TooLarge {
        key: k.name.to_string(),
        value: v.to_string(),
    })?;
    Ok(())
}

/// The cell type, and the NAND latencies and energies it resets to its own.
fn set_cell(c: &mut Config, k: &Key, v: &str) -> Result<(), KeyError> {
    let cell = CellType::parse(v)
        .ok_or_else(|| KeyError::malformed(k.name, v, "use cell=slc, cell=mlc or cell=tlc"))?;
    c.cell = cell;
    c.native = NandLatency::native(cell);
    c.pslc = NandLatency::pseudo_slc(cell);
    c.energy.native = NandEnergy::native(cell);
    c.energy.pslc = NandEnergy::pseudo_slc(cell);
    Ok(())
}

/// A burst in blocks (`gc_burst=32`) or as a share of the reclaimable space (`gc_burst=1%`).
fn set_gc_burst(c: &mut Config, k: &Key, v: &str) -> Result<(), KeyError> {
    c.gc.burst = Some(if v.ends_with('%') {
        BurstSize::ReclaimablePct(percent(k, v)?)
    } else {
        BurstSize::Blocks(number(k, v)?)
    });
    Ok(())
}

fn set_gc_dest(c: &mut Config, k: &Key, v: &str) -> Result<(), KeyError> {
    c.gc.same_die = match v {
        "stripe" => false,
        "die" => true,
        _ => {
            let takes = format!("use {0}=stripe or {0}=die", k.name);
            return Err(KeyError::malformed(k.name, v, takes));
        }
    };
    Ok(())
}

/// The NAND latencies and energies a cell type implies.
fn cell_resets(c: &Config) -> Vec<(&'static str, String)> {
    let uj = |j: f64| format!("{}uJ", (j * 1e9).round() / 1e3);
    let e = &c.energy;
    vec![
        ("t_read", ns(c.native.read_ns)),
        ("t_prog", ns(c.native.program.mean())),
        ("t_erase", ns(c.native.erase_ns)),
        ("slc_t_read", ns(c.pslc.read_ns)),
        ("slc_t_prog", ns(c.pslc.program.mean())),
        ("e_read", uj(e.native.read_j)),
        ("e_prog", uj(e.native.prog_j)),
        ("e_erase", uj(e.native.erase_j)),
        ("slc_e_read", uj(e.pslc.read_j)),
        ("slc_e_prog", uj(e.pslc.prog_j)),
        ("slc_e_erase", uj(e.pslc.erase_j)),
    ]
}

fn ns(t: u64) -> String {
    format!("{t}ns")
}
