//! Presets (models of real drives, built from their spec sheets), `key=value` overrides and
//! TOML files. A spec is what follows `sim:`:
//!
//! - `default`, `ultra-plus-256`, ... a preset by name;
//! - `ultra-plus-256,op=25%,gc=fifo,capacity=8GiB`: a preset with overrides, applied in order
//!   except that `cell` and `link` go first (they reset the timings they imply);
//! - `op=25%,gc=fifo`: overrides on `default`;
//! - `path/to/drive.toml[,key=value...]`: a TOML table of the same keys, with an optional
//!   `preset = "name"` to start from (default `default`).

use crate::config::{
    BurstSize, Config, DataMode, GcConfig, GcStyle, LinkKind, SlcConfig, SlcDrain, SlcRegion,
    SlcWhenFull, TrimClaim, TrimConfig, TrimStyle,
};
use crate::drives;
use crate::energy::{EnergyConfig, NandEnergy};
use crate::error::SimError;
use crate::faults::FaultSpec;
use crate::geometry::{CellType, UNIT_BYTES};
use crate::range::{Quantity, Range};
use crate::timing::{NandLatency, ProgramTimes};
use crate::victim::GcPolicy;

/// Every key an override may set, with what it means.
pub const KEYS: &[(&str, &str)] = &[
    (
        "capacity",
        "host-visible size: 8GiB, 256G (K/M/G/T are powers of 1024), or bytes",
    ),
    (
        "op",
        "main-array over-provisioning as physical/logical - 1, in percent: op=7%, op=25%",
    ),
    ("channels", "NAND channels"),
    ("dies", "dies per channel"),
    (
        "planes",
        "planes per die (a block spans all planes of a die)",
    ),
    ("pages_per_block", "pages per block (per plane)"),
    (
        "page_size",
        "NAND page size, a multiple of 4 KiB: 8KiB, 16KiB",
    ),
    (
        "cell",
        "slc, mlc or tlc (resets the NAND latencies to that cell's defaults)",
    ),
    (
        "map_unit",
        "mapping unit: 4KiB, or 8KiB/16KiB for drives with less DRAM (smaller writes read-modify-write it)",
    ),
    ("t_read", "page read latency: 50us"),
    (
        "t_prog",
        "page program latency: 1.3ms, or one per page type in turn: 600us/2ms (MLC LSB/MSB), 0.6ms/1.5ms/4ms (TLC)",
    ),
    ("t_erase", "block erase latency: 3ms"),
    ("slc_t_read", "page read latency in pseudo-SLC mode"),
    ("slc_t_prog", "page program latency in pseudo-SLC mode"),
    (
        "channel_mbps",
        "NAND channel transfer rate in MB/s (10^6 bytes/s)",
    ),
    (
        "link",
        "host interface: sata or nvme (resets link_mbps and link_cmd)",
    ),
    ("link_mbps", "host link payload rate in MB/s"),
    ("link_cmd", "host link cost per command: 2.5us"),
    (
        "cmd_read",
        "controller time per read command (serial): 10us",
    ),
    (
        "cmd_write",
        "controller time per write command (serial): 12us",
    ),
    (
        "max_programs",
        "dies programming at once at most, the controller's peak-power budget (0: every die may): max_programs=24",
    ),
    (
        "write_buffer",
        "DRAM write buffer: 32MiB (at least one page stripe per die is always there)",
    ),
    ("dram", "DRAM on the drive (informational)"),
    (
        "meta",
        "mapping-table journal programmed per 100 host units, in percent: meta=2%",
    ),
    ("gc", "victim selection: greedy, cost-benefit or fifo"),
    (
        "gc_style",
        "when GC runs: paced (a victim per victim's worth of host writes), bursty (to a high watermark, host waits) or latency-first (a stripe at a time)",
    ),
    (
        "gc_threshold",
        "all-out foreground GC keeps more than this many free blocks (at least the die count)",
    ),
    (
        "bg_gc_threshold",
        "background GC in idle time cleans up to this many free blocks",
    ),
    (
        "gc_burst",
        "bursty GC: what a burst frees beyond the trigger, in blocks (gc_burst=32) or as a share of the space holding no valid data (gc_burst=1%)",
    ),
    (
        "gc_jitter",
        "bursty GC: burst sizes vary by up to this share either way: gc_jitter=50%",
    ),
    (
        "gc_burst_rate",
        "bursty GC: a burst frees space this many times faster than the host uses it: gc_burst_rate=2",
    ),
    (
        "gc_burst_above",
        "bursty GC: burst only while at least this share of the main array holds no valid data, else paced: gc_burst_above=20%",
    ),
    (
        "copyback",
        "on/off: GC relocates within a die with copyback, crossing no channel",
    ),
    (
        "gc_dest",
        "where GC writes a victim's valid data: stripe (over every die) or die (the victim's own die, crossing its channel twice unless copyback; that die alone then does the victim's work, so foreground GC slows)",
    ),
    (
        "gc_unit",
        "controller (firmware) time per relocated mapping unit: 2us",
    ),
    (
        "slc_cache",
        "pseudo-SLC cache size in user data, 0 for none: 12GiB",
    ),
    (
        "slc_region",
        "static (blocks of its own) or dynamic (free main-array blocks, while there is room)",
    ),
    (
        "slc_full",
        "when the cache is full a host write does: bypass (to the main array) or fold (waits for the oldest block to fold)",
    ),
    (
        "slc_drain",
        "when the cache is folded: idle, or always (also while the host writes, when the main array is short of free blocks)",
    ),
    (
        "slc_drain_rate",
        "folding rate in MB/s of cached data (0: as fast as the dies allow)",
    ),
    (
        "slc_max_write",
        "only host writes up to this size go to the cache (0: all): slc_max_write=64KiB",
    ),
    (
        "trim",
        "on (immediate), off (ignored), deferred (in idle time) or partial (a share never reclaimed)",
    ),
    (
        "trim_keep",
        "partial TRIM: share of trimmed units never reclaimed: trim_keep=30%",
    ),
    (
        "trim_rate",
        "deferred TRIM: logical MB/s unmapped in idle time (0: all at once)",
    ),
    ("read_ahead", "on/off: sequential read-ahead of one IO"),
    (
        "read_priority",
        "on/off: host reads go ahead of queued programs on a die (waiting only for the one in progress)",
    ),
    (
        "data",
        "off, stamp (reads return zeroes when unmapped, an LBA stamp when mapped; nothing stored) or on (keeps what is written, per 4 KiB; needs RAM for the capacity)",
    ),
    (
        "faults",
        "injected data faults, KIND:1/R (one eligible write in R, seeded) or KIND:N (N of them, every 1000th eligible write), joined by +: faults=lost:1/5000+flip:1/20000+misdirect:1/8000+torn:1. Kinds: lost (acknowledged, never lands), flip (one bit flipped), misdirect (lands at the previous write's LBA), torn (a power cut: a prefix of a multi-4KiB write lands). Implies data=on",
    ),
    (
        "trim_reads",
        "what the drive claims trimmed blocks read as: zeroes, ones, deterministic, unspecified, or auto (zeroes with trim=on)",
    ),
    (
        "seed",
        "seed of the drive's own variation (burst sizes, which trimmed units partial TRIM keeps)",
    ),
    (
        "e_read",
        "energy per NAND page read (one tR): 4uJ (also nJ, mJ; a bare number is uJ)",
    ),
    (
        "e_prog",
        "energy per NAND page programmed (a multi-plane program is `planes` pages): 100uJ",
    ),
    ("e_erase", "energy per block erase (all planes): 250uJ"),
    ("slc_e_read", "energy per page read in pseudo-SLC mode"),
    ("slc_e_prog", "energy per page programmed in pseudo-SLC mode"),
    ("slc_e_erase", "energy per block erase in pseudo-SLC mode"),
    (
        "e_channel",
        "energy per byte over a NAND channel, in pJ: 150pJ",
    ),
    (
        "e_link",
        "energy per byte over the host link, in pJ: 300pJ",
    ),
    (
        "p_ctrl",
        "power while the controller processes commands (per controller-busy ns): 0.5W (also mW)",
    ),
    (
        "p_active",
        "power above the idle floor while the drive has work (IO in flight, background work owed): 1W",
    ),
    (
        "p_idle",
        "active idle floor: the controller's static power and PHY, off in slumber: 0.3W",
    ),
    ("p_dram", "DRAM power, off in slumber: 0.1W"),
    (
        "p_slumber",
        "power in slumber (link power management on, idle for slumber_after): 50mW",
    ),
    (
        "slumber_after",
        "idle time before the drive slumbers (with link_pm=on): 100ms",
    ),
    (
        "slumber_exit",
        "wake-up latency the first command after slumber waits: 10ms",
    ),
    (
        "link_pm",
        "on/off: host link power management (SATA HIPM+DIPM, NVMe APST) lets the drive slumber when idle; off (desktop hosts) never slumbers",
    ),
];

/// The physical range of every numeric key, in the unit the configuration holds it in
/// (bytes, ns, MB/s, joules, watts, percent): what real drives span, with room to spare.
/// Cross-key limits (a cache smaller than the drive, enough spare blocks) are
/// `Config::layout`'s.
pub const RANGES: &[Range] = {
    use Quantity::*;
    const KIB: f64 = 1024.0;
    const MIB: f64 = KIB * KIB;
    const GIB: f64 = MIB * KIB;
    const TIB: f64 = GIB * KIB;
    const PIB: f64 = TIB * KIB;
    const US: f64 = 1e3;
    const MS: f64 = 1e6;
    const S: f64 = 1e9;
    const PAGE_READ: &str = "a NAND page reads in 3 us (Z-NAND) to a few hundred us (QLC)";
    const PAGE_PROG: &str =
        "a NAND page programs in about 100 us (SLC) to a few ms (QLC), each page type in turn";
    const COMMAND: &str = "firmware spends a few to a few tens of microseconds per command";
    const SHARE: &str = "a share, 0% to 100%";
    const PAGE_READ_J: &str = "a NAND page read costs a few uJ";
    const PAGE_PROG_J: &str = "a NAND page program costs tens of uJ";
    const ERASE_J: &str = "a NAND block erase costs a few hundred uJ";
    const DRIVE_W: &str = "an SSD draws at most 25 W (the U.2 limit), most well under 10 W";
    &[
        Range::new("capacity", Bytes, MIB, PIB, "an SSD holds a few GB to a few hundred TB; 0 gives zero blocks"),
        Range::new("op", Percent, 0.0, 1000.0, "spare area as physical/logical - 1: 7% to 40% on real drives"),
        Range::new("channels", Count, 1.0, 64.0, "a controller has 1 to 16 NAND channels; 0 gives zero blocks"),
        Range::new("dies", Count, 1.0, 64.0, "a channel has 1 to 16 dies; 0 gives zero blocks"),
        Range::new("planes", Count, 1.0, 16.0, "a die has 1 to 8 planes; 0 gives zero blocks"),
        Range::new("pages_per_block", Count, 1.0, 4096.0, "a block has 64 to a few thousand pages per plane; 0 gives zero blocks"),
        Range::new("page_size", Bytes, 4.0 * KIB, 64.0 * KIB, "NAND pages are 4 KiB to 16 KiB, a multiple of 4 KiB"),
        Range::new("map_unit", Bytes, 4.0 * KIB, 64.0 * KIB, "a mapping-table entry covers 4 KiB, or up to 64 KiB on drives with little DRAM"),
        Range::new("t_read", Nanos, US, 10.0 * MS, PAGE_READ),
        Range::new("t_prog", Nanos, 10.0 * US, 100.0 * MS, PAGE_PROG),
        Range::new("t_erase", Nanos, 100.0 * US, 100.0 * MS, "a NAND block erases in about 1 to 25 ms"),
        Range::new("slc_t_read", Nanos, US, 10.0 * MS, PAGE_READ),
        Range::new("slc_t_prog", Nanos, 10.0 * US, 100.0 * MS, PAGE_PROG),
        Range::new("channel_mbps", MBps, 1.0, 1e5, "a NAND channel moves 10 MB/s (asynchronous ONFI 1.0) to a few thousand MB/s (Toggle and ONFI at 3600 MT/s)"),
        Range::new("link_mbps", MBps, 1.0, 1e5, "a host link moves 150 MB/s (SATA 1.5 Gb/s) to 64000 MB/s (PCIe 5.0 x16)"),
        Range::new("link_cmd", Nanos, 0.0, 10.0 * MS, "a host link's cost per command is a microsecond or a few"),
        Range::new("cmd_read", Nanos, 0.0, 10.0 * MS, COMMAND),
        Range::new("cmd_write", Nanos, 0.0, 10.0 * MS, COMMAND),
        Range::new("max_programs", Count, 0.0, 4096.0, "a number of dies (a drive has 1 to a few hundred); 0 lets every die program at once"),
        Range::new("write_buffer", Bytes, 0.0, 16.0 * GIB, "a drive buffers a few MiB to a few GiB of writes"),
        Range::new("dram", Bytes, 0.0, TIB, "a drive has no DRAM to a few tens of GiB"),
        Range::new("meta", Percent, 0.0, 100.0, SHARE),
        Range::new("gc_threshold", Count, 0.0, 1e6, "a number of free blocks (a drive has thousands to a few million)"),
        Range::new("bg_gc_threshold", Count, 0.0, 1e6, "a number of free blocks (a drive has thousands to a few million)"),
        Range::new("gc_burst", Count, 1.0, 1e6, "a number of blocks (a drive has thousands to a few million), or a share such as gc_burst=1%"),
        Range::new("gc_burst", Percent, 0.0, 100.0, SHARE),
        Range::new("gc_jitter", Percent, 0.0, 100.0, SHARE),
        Range::new("gc_burst_above", Percent, 0.0, 100.0, SHARE),
        Range::new("gc_burst_rate", Factor, 1.0, 1000.0, "a burst frees space a few times faster than the host uses it (1000 times is already a burst the host waits out whole)"),
        Range::new("gc_unit", Nanos, 0.0, 10.0 * MS, "firmware spends a few microseconds per relocated unit"),
        Range::new("slc_cache", Bytes, 0.0, PIB, "a pseudo-SLC cache holds a few GiB to a few hundred GiB"),
        Range::new("slc_drain_rate", MBps, 1.0, 1e5, "folding runs at tens to thousands of MB/s; 0 is as fast as the dies allow"),
        Range::new("slc_max_write", Bytes, 0.0, GIB, "a host write size (0: all writes)"),
        Range::new("trim_keep", Percent, 0.0, 100.0, SHARE),
        Range::new("trim_rate", MBps, 1.0, 1e7, "a drive unmaps GB of logical space per second of idle time; 0 is all at once"),
        Range::new("e_read", Joules, 0.0, 1e-3, PAGE_READ_J),
        Range::new("e_prog", Joules, 0.0, 1e-2, PAGE_PROG_J),
        Range::new("e_erase", Joules, 0.0, 0.1, ERASE_J),
        Range::new("slc_e_read", Joules, 0.0, 1e-3, PAGE_READ_J),
        Range::new("slc_e_prog", Joules, 0.0, 1e-2, PAGE_PROG_J),
        Range::new("slc_e_erase", Joules, 0.0, 0.1, ERASE_J),
        Range::new("e_channel", Joules, 0.0, 1e-8, "a byte over a NAND channel costs tens to hundreds of pJ"),
        Range::new("e_link", Joules, 0.0, 1e-8, "a byte over the host link costs about a hundred pJ"),
        Range::new("p_ctrl", Watts, 0.0, 25.0, DRIVE_W),
        Range::new("p_active", Watts, 0.0, 25.0, DRIVE_W),
        Range::new("p_idle", Watts, 0.0, 25.0, DRIVE_W),
        Range::new("p_dram", Watts, 0.0, 25.0, DRIVE_W),
        Range::new("p_slumber", Watts, 0.0, 25.0, DRIVE_W),
        Range::new("slumber_after", Nanos, 0.0, 3600.0 * S, "an idle drive slumbers after milliseconds to seconds"),
        Range::new("slumber_exit", Nanos, 0.0, S, "a drive wakes from slumber in microseconds to tens of milliseconds"),
    ]
};

/// The default configuration every preset starts from: each value is the spec language's,
/// so `ssdlab sim show` can say where every parameter came from.
const BASE: &[(&str, &str)] = &[
    ("capacity", "8GiB"),
    ("op", "7%"),
    ("channels", "4"),
    ("dies", "1"),
    ("planes", "2"),
    ("pages_per_block", "128"),
    ("page_size", "16KiB"),
    ("cell", "mlc"),
    ("map_unit", "4KiB"),
    ("channel_mbps", "200"),
    ("link", "sata"),
    ("cmd_read", "10us"),
    ("cmd_write", "12us"),
    ("max_programs", "0"),
    ("write_buffer", "8MiB"),
    ("dram", "64MiB"),
    ("meta", "0%"),
    ("gc", "greedy"),
    ("gc_style", "paced"),
    ("gc_jitter", "0%"),
    ("gc_burst_above", "0%"),
    ("gc_burst_rate", "2"),
    ("copyback", "off"),
    ("gc_unit", "0ns"),
    ("slc_cache", "0"),
    ("slc_region", "static"),
    ("slc_full", "bypass"),
    ("slc_drain", "idle"),
    ("slc_drain_rate", "0"),
    ("slc_max_write", "0"),
    ("trim", "on"),
    ("trim_keep", "0%"),
    ("trim_rate", "0"),
    ("read_ahead", "on"),
    ("read_priority", "on"),
    ("data", "off"),
    ("faults", "none"),
    ("trim_reads", "auto"),
    ("seed", "1"),
    ("e_channel", "150pJ"),
    ("e_link", "300pJ"),
    ("p_ctrl", "0.5W"),
    ("p_active", "1W"),
    ("p_idle", "0.3W"),
    ("p_dram", "0.1W"),
    ("p_slumber", "0.05W"),
    ("slumber_after", "100ms"),
    ("slumber_exit", "10ms"),
    ("link_pm", "off"),
];

/// Where a value came from, as `ssdlab sim show` prints it.
pub const FROM_DEFAULT: &str = "ssdlab's default (assumed)";
pub const FROM_USER: &str = "your override";

fn base() -> Config {
    let (link_mbps, link_cmd_ns) = LinkKind::Sata.defaults();
    let mut c = Config {
        preset: "default".into(),
        model_of: None,
        summary: String::new(),
        sources: Vec::new(),
        facts: Vec::new(),
        capacity_bytes: 0,
        op_pct: 0.0,
        channels: 0,
        dies_per_channel: 0,
        planes: 0,
        pages_per_block: 0,
        page_bytes: 0,
        cell: CellType::Mlc,
        map_unit_bytes: UNIT_BYTES,
        native: NandLatency::native(CellType::Mlc),
        pslc: NandLatency::pseudo_slc(CellType::Mlc),
        channel_mbps: 0.0,
        link: LinkKind::Sata,
        link_mbps,
        link_cmd_ns,
        cmd_read_ns: 0,
        cmd_write_ns: 0,
        max_programs: 0,
        write_buffer_bytes: 0,
        dram_bytes: 0,
        meta_pct: 0.0,
        gc: GcConfig {
            policy: GcPolicy::Greedy,
            style: GcStyle::Paced,
            threshold: None,
            bg_threshold: None,
            burst: None,
            jitter_pct: 0.0,
            burst_above_pct: 0.0,
            burst_rate: 2.0,
            copyback: false,
            same_die: false,
            unit_ns: 0,
        },
        slc: SlcConfig {
            bytes: 0,
            region: SlcRegion::Static,
            when_full: SlcWhenFull::Bypass,
            drain: SlcDrain::Idle,
            drain_mbps: 0.0,
            max_write_bytes: 0,
        },
        trim: TrimConfig {
            style: TrimStyle::Immediate,
            keep_pct: 0.0,
            rate_mbps: 0.0,
        },
        read_ahead: true,
        read_priority: true,
        data: DataMode::Off,
        faults: FaultSpec::default(),
        trim_reads: TrimClaim::Auto,
        seed: 1,
        energy: EnergyConfig {
            native: NandEnergy::native(CellType::Mlc),
            pslc: NandEnergy::pseudo_slc(CellType::Mlc),
            channel_j_per_byte: 0.0,
            link_j_per_byte: 0.0,
            ctrl_w: 0.0,
            active_w: 0.0,
            idle_w: 0.0,
            dram_w: 0.0,
            slumber_w: 0.0,
            slumber_after_ns: 0,
            slumber_exit_ns: 0,
            link_pm: false,
        },
    };
    let all: Vec<(String, String)> = BASE
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    apply_all(&mut c, &all, FROM_DEFAULT).expect("the base configuration parses");
    c
}

/// (name, one-line description) of every preset.
pub fn presets() -> Vec<(&'static str, &'static str)> {
    drives::PRESETS
        .iter()
        .map(|p| (p.name, p.summary))
        .collect()
}

/// A preset by name: the base configuration with the preset's parameters applied, each
/// recorded with its source.
pub fn preset(name: &str) -> Option<Config> {
    let p = find(name)?;
    let mut c = base();
    c.preset = p.name.into();
    c.model_of = p.model_of.map(str::to_string);
    c.summary = p.summary.into();
    for group in p.params {
        for param in *group {
            let source = param.source.describe();
            apply(&mut c, param.key, param.value)
                .unwrap_or_else(|e| panic!("preset {}: {}: {e}", p.name, param.key));
            record(&mut c, param.key, param.value, &source);
        }
    }
    c.facts = p
        .facts
        .iter()
        .flat_map(|group| group.iter())
        .map(|f| (f.key.into(), f.value.into(), f.seed.into()))
        .collect();
    Some(c)
}

/// The preset named `name` (any case), as the drives module defines it.
pub fn find(name: &str) -> Option<&'static drives::Preset> {
    drives::PRESETS
        .iter()
        .find(|p| p.name.eq_ignore_ascii_case(name))
}

fn preset_names() -> String {
    drives::PRESETS
        .iter()
        .map(|p| p.name)
        .collect::<Vec<_>>()
        .join(", ")
}

/// Why `name` is no preset, with the presets it was probably meant to be and the fix.
pub fn unknown_preset(name: &str) -> String {
    match near_presets(name).as_slice() {
        [] => format!(
            "unknown preset '{name}': use one of {} (`ssdlab sim list` describes them)",
            preset_names()
        ),
        [one] => format!(
            "unknown preset '{name}': did you mean {one}? (`ssdlab sim list` lists them all)"
        ),
        many => format!(
            "unknown preset '{name}': did you mean one of {}? (`ssdlab sim list` lists them all)",
            many.join(", ")
        ),
    }
}

/// The presets `name` is probably a typo or an abbreviation of: those containing it (if not
/// most of them), else those it (or their start) is a few edits from.
fn near_presets(name: &str) -> Vec<&'static str> {
    let name = name.to_ascii_lowercase();
    let names = drives::PRESETS.iter().map(|p| p.name);
    // "840evo" and "840_evo" are abbreviations of "840-evo-250" too.
    let bare = |s: &str| s.replace(['-', '_', ' '], "");
    let containing: Vec<&str> = names
        .clone()
        .filter(|n| bare(n).contains(&bare(&name)))
        .collect();
    // A fragment most presets contain ("0") suggests nothing.
    if !bare(&name).is_empty() && !containing.is_empty() && containing.len() * 2 <= names.len() {
        return containing;
    }
    let most = (name.len() / 3).max(1);
    // Against the whole name, or its start for a mistyped abbreviation ("840-prp").
    let distance = |n: &str| {
        let start: String = n.chars().take(name.chars().count()).collect();
        strsim::levenshtein(&name, n).min(strsim::levenshtein(&name, &start))
    };
    let scored: Vec<(usize, &str)> = names.map(|n| (distance(n), n)).collect();
    let best = scored.iter().map(|&(d, _)| d).min().unwrap_or(usize::MAX);
    if best > most {
        return Vec::new();
    }
    scored
        .into_iter()
        .filter(|&(d, _)| d == best)
        .map(|(_, n)| n)
        .collect()
}

/// Resolve a spec (what follows `sim:`) into a configuration. It is validated too.
pub fn resolve(spec: &str) -> Result<Config, SimError> {
    let err = |msg: String| SimError::Spec {
        spec: spec.to_string(),
        msg,
    };
    let tokens: Vec<&str> = spec
        .split(',')
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .collect();
    let mut overrides: Vec<(String, String)> = Vec::new();
    let mut rest = &tokens[..];
    let mut cfg = match tokens.first() {
        None => preset("default").expect("the default preset exists"),
        Some(first) if first.to_ascii_lowercase().ends_with(".toml") => {
            rest = &tokens[1..];
            let (c, o) = load_toml(first).map_err(|e| match e {
                SimError::Spec { msg, .. } => err(msg),
                other => other,
            })?;
            overrides.extend(o);
            c
        }
        Some(first) if !first.contains('=') => {
            rest = &tokens[1..];
            preset(first)
                .ok_or_else(|| err(format!("{}, or a .toml file", unknown_preset(first))))?
        }
        Some(_) => preset("default").expect("the default preset exists"),
    };
    for t in rest {
        let Some((k, v)) = t.split_once('=') else {
            return Err(err(format!(
                "'{t}' is not key=value: overrides look like op=25% or gc=fifo (keys: {})",
                key_names()
            )));
        };
        overrides.push((k.trim().to_string(), v.trim().to_string()));
    }
    apply_all(&mut cfg, &overrides, FROM_USER).map_err(err)?;
    cfg.layout()?;
    Ok(cfg)
}

fn key_names() -> String {
    KEYS.iter().map(|(k, _)| *k).collect::<Vec<_>>().join(", ")
}

/// Apply `key=value` pairs, `cell` and `link` first since they reset what they imply,
/// recording each with `source`.
pub fn apply_all(
    cfg: &mut Config,
    overrides: &[(String, String)],
    source: &str,
) -> Result<(), String> {
    let first = |k: &str| matches!(k, "cell" | "link");
    let ordered = overrides
        .iter()
        .filter(|(k, _)| first(k))
        .chain(overrides.iter().filter(|(k, _)| !first(k)));
    for (k, v) in ordered {
        apply(cfg, k, v)?;
        record(cfg, k, v, source);
        if source == FROM_USER {
            cfg.facts.retain(|(fact, _, _)| !overridden_by(fact, k));
        }
    }
    Ok(())
}

/// Whether overriding `key` makes a drive fact untrue of the simulated drive.
fn overridden_by(fact: &str, key: &str) -> bool {
    matches!((fact, key), ("nand", "cell") | ("dram", "dram"))
}

/// Record where a value came from, and the values `cell` and `link` reset with it.
fn record(cfg: &mut Config, key: &str, value: &str, source: &str) {
    cfg.sources
        .push((key.to_string(), value.to_string(), source.to_string()));
    let implied = format!("ssdlab's default for {key}={value} (assumed)");
    let ns = |t: u64| format!("{}ns", t);
    let uj = |j: f64| format!("{}uJ", (j * 1e9).round() / 1e3);
    let e = &cfg.energy;
    let reset: Vec<(&str, String)> = match key {
        "cell" => vec![
            ("t_read", ns(cfg.native.read_ns)),
            ("t_prog", ns(cfg.native.program.mean())),
            ("t_erase", ns(cfg.native.erase_ns)),
            ("slc_t_read", ns(cfg.pslc.read_ns)),
            ("slc_t_prog", ns(cfg.pslc.program.mean())),
            ("e_read", uj(e.native.read_j)),
            ("e_prog", uj(e.native.prog_j)),
            ("e_erase", uj(e.native.erase_j)),
            ("slc_e_read", uj(e.pslc.read_j)),
            ("slc_e_prog", uj(e.pslc.prog_j)),
            ("slc_e_erase", uj(e.pslc.erase_j)),
        ],
        "link" => vec![
            ("link_mbps", cfg.link_mbps.to_string()),
            ("link_cmd", ns(cfg.link_cmd_ns)),
        ],
        _ => return,
    };
    for (k, v) in reset {
        cfg.sources.push((k.to_string(), v, implied.clone()));
    }
}

fn choice<T>(
    key: &str,
    v: &str,
    parse: fn(&str) -> Option<T>,
    names: &[&str],
) -> Result<T, String> {
    parse(v).ok_or_else(|| {
        let alternatives: Vec<String> = names.iter().map(|n| format!("{key}={n}")).collect();
        format!("{key}={v}: use {}", alternatives.join(", "))
    })
}

/// The longest value a key takes (a fault list is the longest, a few dozen bytes).
const MAX_VALUE_BYTES: usize = 256;

/// Set one key.
pub fn apply(cfg: &mut Config, key: &str, value: &str) -> Result<(), String> {
    let v = value.trim();
    if v.len() > MAX_VALUE_BYTES {
        return Err(format!(
            "{}: the value {} is longer than any key takes ({MAX_VALUE_BYTES} bytes at most)",
            excerpt(key),
            excerpt(v)
        ));
    }
    match key {
        "capacity" => cfg.capacity_bytes = size(key, v)?,
        "op" => cfg.op_pct = percent(key, v)?,
        "channels" => cfg.channels = count(key, v)?,
        "dies" | "dies_per_channel" => cfg.dies_per_channel = count("dies", v)?,
        "planes" => cfg.planes = count(key, v)?,
        "pages_per_block" => cfg.pages_per_block = count(key, v)?,
        "page_size" => {
            let b = size(key, v)?;
            cfg.page_bytes = u32::try_from(b).map_err(|_| format!("page_size={v} is too large"))?;
        }
        "cell" => {
            let cell = CellType::parse(v)
                .ok_or_else(|| format!("cell={v}: use cell=slc, cell=mlc or cell=tlc"))?;
            cfg.cell = cell;
            cfg.native = NandLatency::native(cell);
            cfg.pslc = NandLatency::pseudo_slc(cell);
            cfg.energy.native = NandEnergy::native(cell);
            cfg.energy.pslc = NandEnergy::pseudo_slc(cell);
        }
        "map_unit" => cfg.map_unit_bytes = size(key, v)?,
        "t_read" => cfg.native.read_ns = duration(key, v)?,
        "t_prog" => cfg.native.program = program_times(key, v)?,
        "t_erase" => cfg.native.erase_ns = duration(key, v)?,
        "slc_t_read" => cfg.pslc.read_ns = duration(key, v)?,
        "slc_t_prog" => cfg.pslc.program = ProgramTimes::uniform(duration(key, v)?),
        "channel_mbps" => cfg.channel_mbps = rate(key, v)?,
        "link" => {
            cfg.link = choice(key, v, LinkKind::parse, LinkKind::NAMES)?;
            (cfg.link_mbps, cfg.link_cmd_ns) = cfg.link.defaults();
        }
        "link_mbps" => cfg.link_mbps = rate(key, v)?,
        "link_cmd" => cfg.link_cmd_ns = duration(key, v)?,
        "cmd_read" => cfg.cmd_read_ns = duration(key, v)?,
        "cmd_write" => cfg.cmd_write_ns = duration(key, v)?,
        "max_programs" => cfg.max_programs = number(key, v)?,
        "write_buffer" => cfg.write_buffer_bytes = size(key, v)?,
        "dram" => cfg.dram_bytes = size(key, v)?,
        "meta" => cfg.meta_pct = percent(key, v)?,
        "gc" => {
            cfg.gc.policy = choice(key, v, GcPolicy::parse, &["greedy", "cost-benefit", "fifo"])?
        }
        "gc_style" => cfg.gc.style = choice(key, v, GcStyle::parse, GcStyle::NAMES)?,
        "gc_threshold" => cfg.gc.threshold = Some(number(key, v)?),
        "bg_gc_threshold" => cfg.gc.bg_threshold = Some(number(key, v)?),
        "gc_burst" => {
            cfg.gc.burst = Some(if v.ends_with('%') {
                BurstSize::ReclaimablePct(percent(key, v)?)
            } else {
                BurstSize::Blocks(number(key, v)?)
            })
        }
        "gc_jitter" => cfg.gc.jitter_pct = percent(key, v)?,
        "gc_burst_above" => cfg.gc.burst_above_pct = percent(key, v)?,
        "gc_burst_rate" => {
            let factor: f64 = v
                .parse()
                .map_err(|_| format!("{key}={v}: expected a number above 1, e.g. {key}=2"))?;
            within(key, Quantity::Factor, v, factor)?;
            cfg.gc.burst_rate = factor
        }
        "copyback" => cfg.gc.copyback = boolean(key, v)?,
        "gc_dest" => {
            cfg.gc.same_die = match v {
                "stripe" => false,
                "die" => true,
                _ => return Err(format!("{key}={v}: use {key}=stripe or {key}=die")),
            }
        }
        "gc_unit" => cfg.gc.unit_ns = duration(key, v)?,
        "slc_cache" => cfg.slc.bytes = size(key, v)?,
        "slc_region" => cfg.slc.region = choice(key, v, SlcRegion::parse, SlcRegion::NAMES)?,
        "slc_full" => cfg.slc.when_full = choice(key, v, SlcWhenFull::parse, SlcWhenFull::NAMES)?,
        "slc_drain" => cfg.slc.drain = choice(key, v, SlcDrain::parse, SlcDrain::NAMES)?,
        "slc_drain_rate" => cfg.slc.drain_mbps = rate_or_zero(key, v)?,
        "slc_max_write" => cfg.slc.max_write_bytes = size(key, v)?,
        "trim" => cfg.trim.style = choice(key, v, TrimStyle::parse, TrimStyle::NAMES)?,
        "trim_keep" => cfg.trim.keep_pct = percent(key, v)?,
        "trim_rate" => cfg.trim.rate_mbps = rate_or_zero(key, v)?,
        "read_ahead" => cfg.read_ahead = boolean(key, v)?,
        "read_priority" => cfg.read_priority = boolean(key, v)?,
        "data" => cfg.data = choice(key, v, DataMode::parse, DataMode::NAMES)?,
        "faults" => cfg.faults = FaultSpec::parse(v).map_err(|e| format!("faults={v}: {e}"))?,
        "trim_reads" => cfg.trim_reads = choice(key, v, TrimClaim::parse, TrimClaim::NAMES)?,
        "e_read" => cfg.energy.native.read_j = energy(key, v, 1e-6)?,
        "e_prog" => cfg.energy.native.prog_j = energy(key, v, 1e-6)?,
        "e_erase" => cfg.energy.native.erase_j = energy(key, v, 1e-6)?,
        "slc_e_read" => cfg.energy.pslc.read_j = energy(key, v, 1e-6)?,
        "slc_e_prog" => cfg.energy.pslc.prog_j = energy(key, v, 1e-6)?,
        "slc_e_erase" => cfg.energy.pslc.erase_j = energy(key, v, 1e-6)?,
        "e_channel" => cfg.energy.channel_j_per_byte = energy(key, v, 1e-12)?,
        "e_link" => cfg.energy.link_j_per_byte = energy(key, v, 1e-12)?,
        "p_ctrl" => cfg.energy.ctrl_w = power(key, v)?,
        "p_active" => cfg.energy.active_w = power(key, v)?,
        "p_idle" => cfg.energy.idle_w = power(key, v)?,
        "p_dram" => cfg.energy.dram_w = power(key, v)?,
        "p_slumber" => cfg.energy.slumber_w = power(key, v)?,
        "slumber_after" => cfg.energy.slumber_after_ns = duration(key, v)?,
        "slumber_exit" => cfg.energy.slumber_exit_ns = duration(key, v)?,
        "link_pm" => cfg.energy.link_pm = boolean(key, v)?,
        "seed" => {
            cfg.seed = v
                .parse()
                .map_err(|_| format!("seed={v}: expected a whole number"))?
        }
        _ => {
            return Err(format!(
                "unknown key {}: the keys are {} (see `ssdlab sim show default`)",
                excerpt(key),
                key_names()
            ))
        }
    }
    Ok(())
}

/// `1.3ms`, or one time per page type in turn: `600us/2ms`.
fn program_times(key: &str, v: &str) -> Result<ProgramTimes, String> {
    let times = v
        .split('/')
        .map(|t| duration(key, t))
        .collect::<Result<Vec<u64>, String>>()?;
    ProgramTimes::per_page(&times).ok_or_else(|| {
        format!("{key}={v}: give one time (1.3ms) or one per page type, at most 3 (600us/2ms)")
    })
}

/// An energy: `4uJ`, `2.5nJ`, `1mJ`, `150pJ`, `0.001J`; a bare number is in `bare` joules.
fn energy(key: &str, v: &str, bare: f64) -> Result<f64, String> {
    let lower = v.to_ascii_lowercase().replace('µ', "u");
    let (num, scale) = match lower.strip_suffix('j') {
        Some(t) => match t.chars().last() {
            Some('p') => (&t[..t.len() - 1], 1e-12),
            Some('n') => (&t[..t.len() - 1], 1e-9),
            Some('u') => (&t[..t.len() - 1], 1e-6),
            Some('m') => (&t[..t.len() - 1], 1e-3),
            _ => (t, 1.0),
        },
        None => (lower.as_str(), bare),
    };
    let x: f64 = num
        .trim()
        .parse()
        .map_err(|_| format!("{key}={v}: expected an energy like {key}=4uJ or {key}=150pJ"))?;
    within(key, Quantity::Joules, v, x * scale)?;
    Ok(x * scale)
}

/// A power: `0.35W`, `80mW`; a bare number is watts.
fn power(key: &str, v: &str) -> Result<f64, String> {
    let lower = v.to_ascii_lowercase();
    let (num, scale) = match lower.strip_suffix("mw") {
        Some(t) => (t, 1e-3),
        None => (lower.strip_suffix('w').unwrap_or(&lower), 1.0),
    };
    let x: f64 = num
        .trim()
        .parse()
        .map_err(|_| format!("{key}={v}: expected a power like {key}=0.35W or {key}=80mW"))?;
    within(key, Quantity::Watts, v, x * scale)?;
    Ok(x * scale)
}

fn rate_or_zero(key: &str, v: &str) -> Result<f64, String> {
    if v.trim() == "0" {
        Ok(0.0)
    } else {
        rate(key, v)
    }
}

fn size(key: &str, v: &str) -> Result<u64, String> {
    let bytes = engine::size::parse_size(v).map_err(|e| format!("{key}: {e}"))?;
    within(key, Quantity::Bytes, v, bytes as f64)?;
    Ok(bytes)
}

fn number(key: &str, v: &str) -> Result<u32, String> {
    let n = v
        .parse::<u32>()
        .map_err(|_| format!("{key}={v}: expected a whole number"))?;
    within(key, Quantity::Count, v, n.into())?;
    Ok(n)
}

/// `value` of `key` (as written, `text`) against the key's range in [`RANGES`].
fn within(key: &str, quantity: Quantity, text: &str, value: f64) -> Result<(), String> {
    match RANGES
        .iter()
        .find(|r| r.key == key && r.quantity == quantity)
    {
        Some(range) => range.check(text, value),
        None => Err(format!(
            "{key}={text}: ssdlab has no range for {key} (a bug in ssdlab: please report it)"
        )),
    }
}

fn count(key: &str, v: &str) -> Result<u32, String> {
    number(key, v)
}

fn percent(key: &str, v: &str) -> Result<f64, String> {
    let t = v.strip_suffix('%').unwrap_or(v).trim();
    let p: f64 = t
        .parse()
        .map_err(|_| format!("{key}={v}: expected a percentage like {key}=7% or {key}=25%"))?;
    within(key, Quantity::Percent, v, p)?;
    Ok(p)
}

fn rate(key: &str, v: &str) -> Result<f64, String> {
    let lower = v.to_ascii_lowercase();
    let t = lower
        .strip_suffix("mb/s")
        .or_else(|| lower.strip_suffix("mbps"))
        .unwrap_or(&lower)
        .trim();
    let r: f64 = t
        .parse()
        .map_err(|_| format!("{key}={v}: expected a rate in MB/s like {key}=400"))?;
    within(key, Quantity::MBps, v, r)?;
    Ok(r)
}

fn boolean(key: &str, v: &str) -> Result<bool, String> {
    match v.to_ascii_lowercase().as_str() {
        "on" | "true" | "yes" | "1" => Ok(true),
        "off" | "false" | "no" | "0" => Ok(false),
        _ => Err(format!("{key}={v}: use {key}=on or {key}=off")),
    }
}

/// `50us`, `1.3ms`, `3ms`, `500ns`, `0.002s`; a bare number is nanoseconds.
fn duration(key: &str, v: &str) -> Result<u64, String> {
    let lower = v.to_ascii_lowercase();
    let split = lower
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(lower.len());
    let (num, unit) = lower.split_at(split);
    let x: f64 = num
        .parse()
        .map_err(|_| format!("{key}={v}: expected a time like 50us, 1.3ms or 3ms"))?;
    let mult = match unit.trim() {
        "" | "ns" => 1.0,
        "us" | "µs" => 1e3,
        "ms" => 1e6,
        "s" => 1e9,
        other => {
            return Err(format!(
                "{key}={v}: unknown time unit '{other}'; use ns, us, ms or s"
            ))
        }
    };
    let ns = x * mult;
    within(key, Quantity::Nanos, v, ns)?;
    Ok(ns.round() as u64)
}

/// A drive's TOML file: a few dozen keys, so a mebibyte is far more than one ever needs.
const DRIVE_TOML: engine::regular_file::RegularFile =
    engine::regular_file::RegularFile::new("a simulated drive's TOML file", 1 << 20);

/// Why `text` (the file `path`) is not valid TOML: where, what, and a short excerpt of the
/// line (the parser's own message quotes the whole line, however long).
fn toml_error(path: &str, text: &str, e: &toml::de::Error) -> String {
    let Some(mut at) = e.span().map(|s| s.start.min(text.len())) else {
        return format!("{path} is not valid TOML: {}", e.message().trim());
    };
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    let line_start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    let line = text[line_start..].lines().next().unwrap_or("");
    let line_number = text[..at].matches('\n').count() + 1;
    let column = text[line_start..at].chars().count() + 1;
    let message = e.message().trim().replace('\n', ": ");
    let shown = match line.trim() {
        "" => String::new(),
        _ => format!(" (the line: {})", excerpt(line)),
    };
    format!("{path} is not valid TOML: line {line_number}, column {column}: {message}{shown}")
}

/// The longest excerpt of a value or line a message quotes.
const EXCERPT_CHARS: usize = 60;

/// `text` quoted, cut to [`EXCERPT_CHARS`] with its length when longer.
fn excerpt(text: &str) -> String {
    match text.char_indices().nth(EXCERPT_CHARS) {
        None => format!("'{text}'"),
        Some((cut, _)) => format!("'{}...', {} bytes", &text[..cut], text.len()),
    }
}

/// Load a TOML file: a table of the override keys, plus `preset = "name"` to start from.
pub fn load_toml(path: &str) -> Result<(Config, Vec<(String, String)>), SimError> {
    let text = DRIVE_TOML
        .read_to_string(path.as_ref())
        .map_err(|source| SimError::Io {
            path: path.to_string(),
            source,
        })?;
    let spec_err = |msg: String| SimError::Spec {
        spec: path.to_string(),
        msg,
    };
    let table: toml::Table = text
        .parse()
        .map_err(|e: toml::de::Error| spec_err(toml_error(path, &text, &e)))?;
    let base_name = match table.get("preset") {
        None => "default".to_string(),
        Some(toml::Value::String(s)) => s.clone(),
        Some(_) => {
            return Err(spec_err(
                "preset must be a string, e.g. preset = \"default\"".into(),
            ))
        }
    };
    let cfg = preset(&base_name).ok_or_else(|| spec_err(unknown_preset(&base_name)))?;
    let mut overrides = Vec::new();
    for (k, v) in &table {
        if k == "preset" {
            continue;
        }
        let s = match v {
            toml::Value::String(s) => s.clone(),
            toml::Value::Integer(i) => i.to_string(),
            toml::Value::Float(f) => f.to_string(),
            toml::Value::Boolean(b) => (if *b { "on" } else { "off" }).to_string(),
            _ => {
                return Err(spec_err(format!(
                    "{k}: expected a string, number or boolean"
                )))
            }
        };
        overrides.push((k.clone(), s));
    }
    Ok((cfg, overrides))
}
