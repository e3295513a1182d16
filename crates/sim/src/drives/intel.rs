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

pub const S3700_200: Preset = Preset {
    name: "dc-s3700-200",
    model_of: Some("Intel SSD DC S3700 200GB"),
    summary: "model of Intel SSD DC S3700 200GB: 8-channel, 25nm HET MLC, ~42% spare, latency-first GC: the consistency reference",
    params: &[S3700_200_PARTS],
    facts: &[],
};
