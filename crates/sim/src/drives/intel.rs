//! Intel's SSD DC S3700, the consistency reference the reviews measure others against.

use super::{assumed, fitted, published, Param, Preset};

const S3700_200_PARTS: &[Param] = &[
    assumed("capacity", "200049647616", "200GB (IDEMA LBA count)"),
    assumed("channels", "8", "Intel's 8-channel controller (not in the seeds)"),
    assumed("dies", "4", "32 dies of 25nm HET MLC (not in the seeds)"),
    assumed("page_size", "8KiB", "8 KiB pages of 25nm MLC"),
    assumed("pages_per_block", "256", "typical of 25nm MLC"),
    assumed("op", "41.7%", "about 264 GiB raw for 200 GB (not in the seeds)"),
    assumed("t_read", "50us", "typical of 25nm MLC"),
    assumed("t_prog", "700us/2100us", "25nm HET MLC, LSB:MSB 1:3"),
    assumed("channel_mbps", "200", "ONFI 2.x channels"),
    assumed("cmd_read", "13us", "75K IOPS random read class"),
    assumed("cmd_write", "13us", "an enterprise controller's per-command cost"),
    published(
        "map_unit",
        "4KiB",
        "000",
        "'Similar to Intel's S3700, SanDisk now uses around 1MB of DRAM per 1GB of NAND': a 4 KiB table",
    ),
    assumed("write_buffer", "16MiB", "part of the DRAM buffers writes"),
    assumed("dram", "256MiB", "about 1MB per GB"),
    published(
        "gc_style",
        "latency-first",
        "002",
        "'The S3700 promised a level of performance consistency that was unmatched in the industry'",
    ),
    fitted("gc", "fifo", "s3700-flattest (victims in the order written keep every second alike)"),
];

/// The DC S3700's power: nothing in the seeds; an enterprise drive's figures.
const S3700_POWER: &[Param] = &[
    assumed(
        "p_idle",
        "0.55W",
        "enterprise controllers keep their clocks up in idle (not in the seeds)",
    ),
    assumed("p_dram", "0.1W", "256MB DDR3 in active standby"),
    assumed(
        "p_slumber",
        "0.3W",
        "enterprise firmware makes little of link power management",
    ),
    assumed(
        "p_active",
        "2W",
        "an 8-channel enterprise controller at work",
    ),
    assumed(
        "p_ctrl",
        "0.3W",
        "the controller's extra power while it processes commands",
    ),
    assumed(
        "e_prog",
        "30uJ",
        "an 8 KiB 25nm MLC page, ~3.5 nJ per byte as other MLC of its time",
    ),
    assumed("e_read", "3uJ", "an 8 KiB MLC page read, ~80 mW for ~50 us"),
    assumed("e_erase", "0.25mJ", "an MLC block erase, ~80 mW for 3 ms"),
    assumed("e_channel", "80pJ", "ONFI 2.x I/O"),
    assumed(
        "e_link",
        "100pJ",
        "a SATA 6Gb/s PHY moving data (~60 mW at the link's rate)",
    ),
];

pub const S3700_200: Preset = Preset {
    name: "dc-s3700-200",
    model_of: Some("Intel SSD DC S3700 200GB"),
    summary: "model of Intel SSD DC S3700 200GB: 8-channel, 25nm HET MLC, ~42% spare, latency-first GC: the consistency reference",
    params: &[S3700_200_PARTS, S3700_POWER],
    facts: &[],
    gaps: &[],
};
