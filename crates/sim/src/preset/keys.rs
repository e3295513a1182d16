//! The key tables: what every key means, the range of every numeric one, and the defaults
//! every preset starts from.

use crate::range::{Quantity, Range};

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
        Range::new("capacity", Bytes, MIB, PIB, "an SSD holds a few GB to a few hundred TB").when_zero("gives zero blocks"),
        Range::new("op", Percent, 0.0, 1000.0, "spare area as physical/logical - 1: 7% to 40% on real drives"),
        Range::new("channels", Count, 1.0, 64.0, "a controller has 1 to 16 NAND channels").when_zero("gives zero blocks"),
        Range::new("dies", Count, 1.0, 64.0, "a channel has 1 to 16 dies").when_zero("gives zero blocks"),
        Range::new("planes", Count, 1.0, 16.0, "a die has 1 to 8 planes").when_zero("gives zero blocks"),
        Range::new("pages_per_block", Count, 1.0, 4096.0, "a block has 64 to a few thousand pages per plane").when_zero("gives zero blocks"),
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
pub(super) const BASE: &[(&str, &str)] = &[
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

pub(super) fn key_names() -> String {
    KEYS.iter().map(|(k, _)| *k).collect::<Vec<_>>().join(", ")
}
