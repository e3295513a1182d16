//! SanDisk's Marvell-based drives with SanDisk firmware and 19nm eX2 ABL MLC with nCache:
//! Extreme II (88SS9187), Ultra Plus (88SS9175, four channels) and X300s.

use super::{assumed, derived, fact, fitted, gap, published, Fact, Gap, Param, Preset};

/// 19nm eX2 ABL MLC, with a pseudo-SLC nCache for small writes, folded in idle time.
const EX2_ABL: &[Param] = &[
    published("cell", "mlc", "002", "SanDisk's 19nm eX2 ABL MLC NAND, 2 bits per cell"),
    assumed("page_size", "16KiB", "16 KiB pages, typical of 19nm 64Gb MLC"),
    assumed("pages_per_block", "256", "typical of 19nm 64Gb MLC"),
    assumed("t_read", "60us", "typical of 19nm MLC"),
    fitted(
        "t_prog",
        "770us/2310us",
        "xii-120-spec-seq-write (340 MB/s on 16 dies: 1.54 ms mean per 32 KiB); LSB:MSB 1:3 assumed",
    ),
    assumed("t_erase", "3ms", "typical of 19nm MLC"),
    assumed("slc_t_prog", "350us", "pseudo-SLC programs about 4x faster than MLC"),
    published(
        "slc_max_write",
        "64KiB",
        "002",
        "'Small file writes are sent to the nCache' (the 64 KiB limit is assumed)",
    ),
    published(
        "slc_drain",
        "idle",
        "002",
        "'idle time garbage collection likely dumps the nCache out to the much larger MLC array'",
    ),
    assumed("channel_mbps", "200", "ONFI 2.x channels of the 88SS917x/9187 generation"),
];

/// eX2 ABL's energy per operation: MLC pages as Samsung's per byte, nCache (pseudo-SLC)
/// programs far cheaper, which is where small random writes go.
const EX2_ABL_ENERGY: &[Param] = &[
    fitted("e_prog", "62uJ", "xii-seq-write-samsung-like (~3.8 nJ per byte of 19nm MLC)"),
    fitted("slc_e_prog", "6uJ", "xii-random-write-low, ultra-plus-random-write-low-power-half-perf (small writes go to the nCache)"),
    assumed("e_read", "5uJ", "a 16 KiB MLC page read, ~80 mW for ~60 us"),
    assumed("slc_e_read", "3uJ", "a pseudo-SLC read, ~80 mW for ~35 us"),
    assumed("e_erase", "0.25mJ", "an MLC block erase, ~80 mW for 3 ms"),
    assumed("slc_e_erase", "0.25mJ", "the same physical erase as MLC"),
    assumed("e_channel", "80pJ", "ONFI 2.x I/O at 3.3 V"),
    assumed("e_link", "100pJ", "a SATA 6Gb/s PHY moving data (~60 mW at the link's rate)"),
];

/// The Extreme II's power [000]: idle and slumber a little above Samsung's, load power
/// Samsung-like.
const EXTREME_II_POWER: &[Param] = &[
    fitted("p_idle", "0.4W", "xii-idle-above-samsung"),
    assumed("p_dram", "0.1W", "DDR3-1600 in active standby"),
    fitted(
        "p_slumber",
        "0.12W",
        "xii-slumber-above-840-pro, xii-slumber-under-500mw ('a bit more power hungry')",
    ),
    fitted(
        "p_active",
        "1W",
        "xii-seq-write-samsung-like, xii-random-write-low",
    ),
    fitted(
        "p_ctrl",
        "0.1W",
        "xii-random-write-low ('amazingly low' with a random write workload)",
    ),
];

/// The Ultra Plus's power [002]: the 88SS9175 is 'a light version' of the 9174 'with a big
/// focus on reducing power consumption'.
const ULTRA_PLUS_POWER: &[Param] = &[
    assumed(
        "p_idle",
        "0.3W",
        "a low-power controller ('a big focus on reducing power consumption' [002])",
    ),
    assumed("p_dram", "0.06W", "128MB DDR2-800 in active standby"),
    fitted(
        "p_slumber",
        "0.1W",
        "xii-slumber-above-840-pro, xii-slumber-under-500mw",
    ),
    fitted(
        "p_active",
        "0.9W",
        "ultra-plus-random-write-low-power-half-perf",
    ),
    assumed(
        "p_ctrl",
        "0.2W",
        "a light controller's extra power while it processes commands",
    ),
];

/// SanDisk's firmware on Marvell controllers: GC whose firmware time per relocated unit
/// sets the steady state (the same cost fits both drives the seeds quote at ~5K), cleaning
/// in bursts at 1.5x the host's pace.
const SANDISK_FIRMWARE: &[Param] = &[
    fitted(
        "gc_unit",
        "22us",
        "up-256-steady-5k, x300s-steady-5k (one firmware cost fits both)",
    ),
    fitted(
        "gc_style",
        "bursty",
        "up-256-more-consistent-than-pro, xii-480-spare-less-consistent",
    ),
    fitted("gc_burst_rate", "1.5", "client-scatter"),
    fitted("gc_jitter", "50%", "client-scatter"),
    assumed(
        "meta",
        "1%",
        "the mapping table's journal, kept in nCache [000]",
    ),
];

/// The Extreme II's newer firmware prioritises consistency: paced GC unless a quarter of the
/// main array or more holds no valid data, when it cleans ahead in long bursts to chase peak
/// speed.
const CONSISTENCY_FIRST: &[Param] = &[
    published(
        "gc_burst_above",
        "20%",
        "001",
        "'increasing the amount of spare area on the drive actually reduces IO consistency ... as SanDisk's firmware aggressively attempts to improve the overall performance' (the 20% threshold is fitted)",
    ),
    fitted("gc_burst", "0.5%", "xii-480-spare-less-consistent"),
];

/// Where SanDisk's presets are off against reviews outside the seeds (issue #23), measured with
/// `cargo run --release -p sim --example dirty_pass -- PRESET 600`.
const SANDISK_GAPS: &[Gap] = &[gap(
    "sequential writes on a drive tortured with 4 KiB random writes (the TRIM test's dirty pass): far too slow, in the first minute and over the whole pass",
    "greedy GC cleans whichever block holds the fewest valid units the moment it needs space, and after even a short torture every block holds most of its units: after 0.11 drive writes the Ultra Plus 64's victims are 87% valid, each host unit costs 7 relocations and the pass writes at 9 MB/s (age-aware cost-benefit victims: 10-13). Relocating into the victim's own die (gc_dest=die, as MQSim's per-plane GC write frontier) keeps a victim's data together, so the pass empties blocks as it goes: 3.5 relocations per host unit at its start and 0.7 half way, against 7 and 4. Adopting it needs foreground GC scheduled per die: cleaning on one die at a time drops the Ultra Plus 256's fitted 5K steady state to 700 IOPS. Reclaiming more free space in idle time (a minute of unrestricted idle GC frees 4 GB on the Extreme II 120) helps only the first minute",
)];

/// Extreme II: Marvell 88SS9187, ~14% spare area, ~1 MB DRAM per GB.
const EXTREME_II: &[Param] = &[
    assumed(
        "channels",
        "8",
        "the 88SS9187 is an 8-channel controller (Marvell; not in the seeds)",
    ),
    derived(
        "map_unit",
        "4KiB",
        "000",
        "'around 1MB of DRAM per 1GB of NAND capacity' is 4 bytes per 4 KiB: a flat 4 KiB table",
    ),
    fitted("cmd_read", "10.5us", "xii-480-spec-random-read (95K IOPS)"),
    fitted(
        "cmd_write",
        "12.8us",
        "xii-480-spec-random-write (75K IOPS)",
    ),
    assumed("write_buffer", "32MiB", "part of the DRAM buffers writes"),
];

/// The Extreme II's spec table [000].
const EXTREME_II_FACTS: &[Fact] = &[
    fact("controller", "Marvell 88SS9187", "000"),
    fact("nand", "SanDisk 19nm eX2 ABL MLC", "000"),
];

pub const EXTREME_II_120: Preset = Preset {
    name: "extreme-ii-120",
    model_of: Some("SanDisk Extreme II 120GB"),
    summary: "model of SanDisk Extreme II 120GB: 8-channel Marvell 88SS9187, 16 dies of 19nm eX2 ABL MLC with nCache, ~14% spare, 128MB DRAM",
    params: &[
        EX2_ABL,
        EX2_ABL_ENERGY,
        SANDISK_FIRMWARE,
        CONSISTENCY_FIRST,
        EXTREME_II,
        EXTREME_II_POWER,
        &[
            published("capacity", "120034123776", "000", "120GB (IDEMA LBA count)"),
            derived("dies", "2", "000", "8 GB dies (as the Ultra Plus's [002]) and ~14% spare: 128 GiB raw, 16 dies"),
            derived("op", "13.6%", "000", "128 GiB raw less the nCache's blocks, over 120 GB ('doubled the amount of spare area')"),
            assumed("slc_cache", "512MiB", "nCache size not published; it comes out of the spare area"),
            published("dram", "128MiB", "000", "128MB DDR3-1600"),
        ],
    ],
    facts: &[EXTREME_II_FACTS, &[fact("dram", "128MB DDR3-1600", "000")]],
    gaps: &[SANDISK_GAPS],
};

pub const EXTREME_II_240: Preset = Preset {
    name: "extreme-ii-240",
    model_of: Some("SanDisk Extreme II 240GB"),
    summary: "model of SanDisk Extreme II 240GB: 8-channel Marvell 88SS9187, 32 dies of 19nm eX2 ABL MLC with nCache, ~14% spare, 256MB DRAM",
    params: &[
        EX2_ABL,
        EX2_ABL_ENERGY,
        SANDISK_FIRMWARE,
        CONSISTENCY_FIRST,
        EXTREME_II,
        EXTREME_II_POWER,
        &[
            published("capacity", "240057409536", "000", "240GB (IDEMA LBA count)"),
            derived("dies", "4", "000", "8 GB dies and ~14% spare: 256 GiB raw, 32 dies"),
            derived("op", "13.6%", "000", "256 GiB raw less the nCache's blocks, over 240 GB"),
            assumed("slc_cache", "1GiB", "nCache size not published"),
            published("dram", "256MiB", "000", "256MB DDR3-1600"),
        ],
    ],
    facts: &[EXTREME_II_FACTS, &[fact("dram", "256MB DDR3-1600", "000")]],
    gaps: &[SANDISK_GAPS],
};

pub const EXTREME_II_480: Preset = Preset {
    name: "extreme-ii-480",
    model_of: Some("SanDisk Extreme II 480GB"),
    summary: "model of SanDisk Extreme II 480GB: 8-channel Marvell 88SS9187, 64 dies of 19nm eX2 ABL MLC with nCache, ~14% spare, 512MB DRAM",
    params: &[
        EX2_ABL,
        EX2_ABL_ENERGY,
        SANDISK_FIRMWARE,
        CONSISTENCY_FIRST,
        EXTREME_II,
        EXTREME_II_POWER,
        &[
            published("capacity", "480103981056", "000", "480GB (IDEMA LBA count)"),
            derived("dies", "8", "000", "8 GB dies and ~14% spare: 512 GiB raw, 64 dies"),
            derived("op", "13.6%", "000", "512 GiB raw less the nCache's blocks, over 480 GB"),
            assumed("slc_cache", "2GiB", "nCache size not published"),
            published("dram", "512MiB", "000", "512MB DDR3-1600"),
        ],
    ],
    facts: &[EXTREME_II_FACTS, &[fact("dram", "512MB DDR3-1600", "000")]],
    gaps: &[SANDISK_GAPS],
};

/// Ultra Plus: Marvell 88SS9175, four channels, ~7% spare, half the DRAM of a 4 KiB table.
const ULTRA_PLUS: &[Param] = &[
    published("channels", "4", "002", "'four independent NAND channels'"),
    published(
        "map_unit",
        "4KiB",
        "000",
        "'The indirection/page table is stored in nCache' (128MB of DRAM holds half of a 4 KiB table; paging the rest is not modelled)",
    ),
    fitted(
        "planes",
        "1",
        "up-atto-write-trails (the 'light version' of the 9174 programs one plane at a time)",
    ),
    fitted("cmd_read", "11us", "up-qd3-read-below-pro"),
    fitted(
        "cmd_write",
        "60us",
        "up-qd32-write-no-scaling, up-random-write-below-pro, pro-256-gains-more-from-spare (a write costs the light controller more than its relocations do, so spare area helps less)",
    ),
    fitted("gc_unit", "16us", "up-256-steady-5k"),
    fitted("gc_burst", "3", "up-256-more-consistent-than-pro, client-scatter"),
    fitted("gc_burst_rate", "1.2", "up-256-steady-5k (the cluster), client-scatter"),
    assumed(
        "write_buffer",
        "16MiB",
        "part of the 128MB DRAM buffers writes",
    ),
    published(
        "dram",
        "128MiB",
        "002",
        "128MB of Samsung DDR2-800 (256GB; assumed the same on smaller capacities)",
    ),
];

/// The Ultra Plus review [002] names the controller ("Marvell's SS889175", the 88SS9175) and
/// the NAND; its DRAM only on the 256GB it tested.
const ULTRA_PLUS_FACTS: &[Fact] = &[
    fact("controller", "Marvell 88SS9175", "002"),
    fact("nand", "SanDisk 19nm eX2 ABL MLC", "002"),
];

pub const ULTRA_PLUS_64: Preset = Preset {
    name: "ultra-plus-64",
    model_of: Some("SanDisk Ultra Plus 64GB"),
    summary: "model of SanDisk Ultra Plus 64GB: 4-channel Marvell 88SS9175, 8 dies of 19nm eX2 ABL MLC with a small nCache, ~7% spare",
    params: &[
        EX2_ABL,
        EX2_ABL_ENERGY,
        SANDISK_FIRMWARE,
        ULTRA_PLUS,
        ULTRA_PLUS_POWER,
        &[
            published("capacity", "64023257088", "002", "64GB (priced in the review's table; IDEMA LBA count)"),
            derived("dies", "2", "002", "the 256GB's 8 GB dies: 64 GiB raw, 8 dies"),
            derived("op", "6.5%", "002", "'~7% spare area', less the nCache's blocks"),
            assumed("slc_cache", "256MiB", "nCache size not published; 'not much NAND allocated to the nCache'"),
        ],
    ],
    facts: &[ULTRA_PLUS_FACTS],
    gaps: &[SANDISK_GAPS],
};

pub const ULTRA_PLUS_128: Preset = Preset {
    name: "ultra-plus-128",
    model_of: Some("SanDisk Ultra Plus 128GB"),
    summary: "model of SanDisk Ultra Plus 128GB: 4-channel Marvell 88SS9175, 16 dies of 19nm eX2 ABL MLC with a small nCache, ~7% spare",
    params: &[
        EX2_ABL,
        EX2_ABL_ENERGY,
        SANDISK_FIRMWARE,
        ULTRA_PLUS,
        ULTRA_PLUS_POWER,
        &[
            published("capacity", "128035676160", "002", "128GB (priced in the review's table; IDEMA LBA count)"),
            derived("dies", "4", "002", "the 256GB's 8 GB dies: 128 GiB raw, 16 dies"),
            derived("op", "6.5%", "002", "'~7% spare area', less the nCache's blocks"),
            assumed("slc_cache", "512MiB", "nCache size not published"),
        ],
    ],
    facts: &[ULTRA_PLUS_FACTS],
    gaps: &[SANDISK_GAPS],
};

pub const ULTRA_PLUS_256: Preset = Preset {
    name: "ultra-plus-256",
    model_of: Some("SanDisk Ultra Plus 256GB"),
    summary: "model of SanDisk Ultra Plus 256GB: 4-channel Marvell 88SS9175, 32 dies of 19nm eX2 ABL MLC with a small nCache, ~7% spare, 128MB DRAM",
    params: &[
        EX2_ABL,
        EX2_ABL_ENERGY,
        SANDISK_FIRMWARE,
        ULTRA_PLUS,
        ULTRA_PLUS_POWER,
        &[
            published("capacity", "256060514304", "002", "256GB (IDEMA LBA count)"),
            published("dies", "8", "002", "'four SanDisk NAND packages ... 8 x 8GB die per package': 32 dies"),
            derived("op", "6.5%", "002", "'~7% spare area', less the nCache's blocks"),
            assumed("slc_cache", "1GiB", "nCache size not published"),
        ],
    ],
    facts: &[ULTRA_PLUS_FACTS, &[fact("dram", "128MB Samsung DDR2-800", "002")]],
    gaps: &[SANDISK_GAPS],
};

pub const X300S_512: Preset = Preset {
    name: "x300s-512",
    model_of: Some("SanDisk X300s 512GB"),
    summary: "model of SanDisk X300s 512GB: the Extreme II's platform with 7% spare area (the Extreme Pro has 12%)",
    params: &[
        EX2_ABL,
        EX2_ABL_ENERGY,
        SANDISK_FIRMWARE,
        CONSISTENCY_FIRST,
        EXTREME_II,
        EXTREME_II_POWER,
        &[
            published("capacity", "512110190592", "003", "512GB (IDEMA LBA count)"),
            assumed("dies", "8", "64 dies of 8 GB, as the 480GB Extreme II"),
            derived("op", "6.5%", "003", "'lower over-provisioning (7% vs 12%)', less the nCache's blocks"),
            assumed("slc_cache", "2GiB", "nCache size not published"),
            assumed("dram", "512MiB", "not published"),
        ],
    ],
    facts: &[],
    gaps: &[SANDISK_GAPS],
};
