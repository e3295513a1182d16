//! `ssdlab run`'s flags: the one declaration of what a run takes, which the CLI parses from
//! its command line and Python from its keyword arguments (`crate::keywords`), each value
//! through the same parser.

use std::path::PathBuf;
use std::str::FromStr;

use clap::Args;

use engine::shape::{Arrivals, BlockMix, Distribution};
use engine::size::{parse_duration, parse_size, Span};
use engine::workload::{Access, MAX_QD, MAX_THREADS};
use suite::latency_target::LatencyTarget;

use crate::target_flags::TargetArgs;

/// Why a flag's value was refused: said after the flag's name.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct BadValue(String);

impl From<String> for BadValue {
    fn from(why: String) -> BadValue {
        BadValue(why)
    }
}

/// The engine's parsers' refusals, said as they are.
macro_rules! bad_value_from {
    ($($error:ty),*) => {$(
        impl From<$error> for BadValue {
            fn from(e: $error) -> BadValue {
                BadValue(e.to_string())
            }
        }
    )*};
}
bad_value_from!(
    engine::size::SizeError,
    engine::size::DurationError,
    engine::shape::BlockMixError
);

impl From<&str> for BadValue {
    fn from(why: &str) -> BadValue {
        BadValue(why.to_string())
    }
}

#[derive(Args, Debug)]
pub struct RunFlags {
    /// The test to run (`ssdlab tests` lists them).
    pub test: String,
    #[command(flatten)]
    pub common: TargetArgs,
    /// Custom workloads: run a fio job file's jobs (one after another, as split by
    /// stonewall) on the target; its options make the workload, so the workload's flags are
    /// not given with it.
    #[arg(long, value_name = "FILE", conflicts_with_all = FIO_SETS)]
    pub fio: Option<PathBuf>,
    /// Queue depth (1-1024) of each thread; or depth and threads in CrystalDiskMark's
    /// notation, e.g. Q32T16.
    #[arg(long, value_parser = parse_load)]
    pub qd: Option<Load>,
    /// Custom workloads: submitting threads (1-256), each with --qd in flight and its own
    /// queue to the target (fio's numjobs, reported as one job).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=256))]
    pub threads: Option<u32>,
    /// Block (transfer) size, e.g. 4K, 128K; or, for custom workloads, a mix of sizes with
    /// their shares of the IOs, e.g. 4K:67,8K:10,16K:23 (fio's bssplit).
    #[arg(long, value_parser = parse_block_sizes)]
    pub bs: Option<BlockSizes>,
    /// Where random accesses land (custom workloads): uniform, zipf:THETA, pareto:H,
    /// normal:DEV%, zoned:ACCESS%/SIZE%:... or zoned_abs:ACCESS%/BYTES:... (fio's
    /// random_distribution), e.g. zoned:50/5:30/15:20/
    #[arg(long, value_parser = Distribution::from_str)]
    pub distribution: Option<Distribution>,
    /// Custom workloads: send IOs at this rate (IOs per second of the target's clock) instead
    /// of whenever one completes, at most --qd in flight (fio's rate_iops).
    #[arg(long)]
    pub rate_iops: Option<f64>,
    /// With --rate-iops: uniform (evenly spaced, the default) or poisson arrivals.
    #[arg(long, value_parser = parse_arrivals, requires = "rate_iops")]
    pub arrivals: Option<Arrivals>,
    /// Custom workloads: send bursts of this many bytes, e.g. 32M, each followed by idle time
    /// so that it is --duty percent of its cycle.
    #[arg(long, value_parser = nonzero_size, requires = "duty")]
    pub burst: Option<u64>,
    /// Custom workloads: the highest queue depth (up to --qd, else 256) whose latency
    /// percentile meets this, e.g. 'p99<1ms' (p50, p90, p99 or p99.9; us, ms or s): depths
    /// are tried doubling from 1, then narrowed, each for --duration (fio's latency_target).
    #[arg(long, value_parser = LatencyTarget::from_str)]
    pub latency_target: Option<LatencyTarget>,
    /// With --burst: the busy share of each burst-and-idle cycle, in percent.
    #[arg(long, requires = "burst")]
    pub duty: Option<f64>,
    /// LBA span: bytes in whole blocks (8G) or a share of the target (75%, rounded down to
    /// whole blocks).
    #[arg(long, value_parser = Span::parse)]
    pub span: Option<Span>,
    /// Where the span starts.
    #[arg(long, value_parser = parse_size)]
    pub offset: Option<u64>,
    /// Length of the measured phase in seconds, or with a unit: 90s, 2m, 1h (virtual time on
    /// sim: targets); at most a week.
    #[arg(long, value_parser = parse_duration)]
    pub duration: Option<f64>,
    /// Stop after this many IOs.
    #[arg(long, value_parser = at_least_one)]
    pub ios: Option<u64>,
    /// Stop after this many bytes, e.g. 1G.
    #[arg(long, value_parser = nonzero_size)]
    pub bytes: Option<u64>,
    /// Share of reads in percent (custom workloads).
    #[arg(long, value_parser = clap::value_parser!(u8).range(0..=100))]
    pub read_pct: Option<u8>,
    /// random or sequential.
    #[arg(long, value_parser = parse_access)]
    pub access: Option<Access>,
    /// incompressible, compressible or zeros.
    #[arg(long)]
    pub data: Option<String>,
    /// How much of compressible data is zeros, in percent.
    #[arg(long, default_value_t = 50, value_parser = clap::value_parser!(u8).range(0..=100))]
    pub compress_pct: u8,
    /// Spare area for consistency, in percent (25 or 25%): purge all, test only the first
    /// (100 - PCT)% of LBAs.
    #[arg(long, value_name = "PCT", value_parser = parse_spare)]
    pub spare: Option<f64>,
    /// Do not fill the span before a test that reads (by default it is filled, so the reads
    /// measure data rather than never-written LBAs; `custom` reads with it write nothing).
    #[arg(long)]
    pub no_prefill: bool,
    /// Storage Bench: a synthetic profile (heavy-2011, light-2011, destroyer-2013) or a trace file.
    #[arg(long)]
    pub trace: Option<String>,
    /// Storage Bench: scale a synthetic trace (1 = its published size).
    #[arg(long)]
    pub trace_scale: Option<f64>,
    /// The SNIA PTS tests: client (PTS-C: 75% active range) or enterprise (PTS-E, the default).
    #[arg(long, value_name = "VARIANT")]
    pub pts: Option<suite::pts::PtsVariant>,
    /// The SNIA PTS tests: shorten rounds and preconditioning by this factor (0.001 <= F <= 1) for
    /// a quick look; recorded as a deviation from the spec.
    #[arg(long, value_name = "F")]
    pub pts_scale: Option<f64>,
    /// The 2018-2021 review tests and the Storage Bench: how full the drive is, empty (its
    /// first 32 GiB written, the default) or full (80% written).
    #[arg(long, value_name = "STATE")]
    pub state: Option<suite::drive_state::DriveState>,
    /// Power idle and slumber: rest this long before measuring (default 60 s; 0 for none).
    #[arg(long, value_parser = rest_duration)]
    pub rest: Option<f64>,
    /// Seed for offsets and data.
    #[arg(long)]
    pub seed: Option<u64>,
    /// Also write the result JSON here (an array for test groups such as corners).
    #[arg(long)]
    pub json: Option<PathBuf>,
    /// Also write a fio job file here that runs each measured phase of the results on the
    /// same target (`run custom --fio` reads it back), to cross-check a figure with fio.
    #[arg(long, value_name = "FILE")]
    pub fio_job: Option<PathBuf>,
    /// Results directory (default: results/TEST-TIMESTAMP).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Write a per-IO log of the measured phase (binary; `ssdlab log csv` exports it).
    #[arg(long)]
    pub iolog: Option<PathBuf>,
    /// Write each second's latency histograms of the measured phase here, in fio's
    /// histogram-log format (`write_hist_log`, `log_hist_msec=1000`), which fio's
    /// fiologparser_hist.py and fio-plot read.
    #[arg(long)]
    pub hist_log: Option<PathBuf>,
    /// Verify the data written by the measured phase: every 4 KiB carries its LBA, a write
    /// generation and a crc32c, read back as the test goes and at the end; corruption is
    /// reported by LBA and the run exits with status 1.
    #[arg(long)]
    pub verify: bool,
    /// With --verify (and `run verify`): read back what was written every this many 4 KiB
    /// units (0: only at the end).
    #[arg(long)]
    pub verify_backlog: Option<u64>,
}

/// The flags `--fio` is not given with: the workload's, which the job file's options stand
/// for, and the logs and verification a job file's run does not make.
const FIO_SETS: [&str; 20] = [
    "qd",
    "threads",
    "bs",
    "distribution",
    "rate_iops",
    "arrivals",
    "burst",
    "duty",
    "latency_target",
    "span",
    "offset",
    "duration",
    "ios",
    "bytes",
    "read_pct",
    "access",
    "no_prefill",
    "verify",
    "iolog",
    "hist_log",
];

/// `--qd`: a depth, and the threads when written as `Q32T16`.
#[derive(Clone, Copy, Debug)]
pub struct Load {
    pub(crate) qd: u32,
    pub(crate) threads: Option<u32>,
}

fn parse_load(text: &str) -> Result<Load, BadValue> {
    let load = load_notation(text)?;
    if !(1..=MAX_QD).contains(&load.qd) {
        return Err(format!("queue depth {} is out of range: use 1 to {MAX_QD}", load.qd).into());
    }
    match load.threads {
        Some(t) if !(1..=MAX_THREADS).contains(&t) => {
            Err(format!("{t} threads is out of range: use 1 to {MAX_THREADS}").into())
        }
        _ => Ok(load),
    }
}

/// `32`, `Q32` or `Q32T16`.
fn load_notation(text: &str) -> Result<Load, BadValue> {
    let number = |n: &str| {
        n.parse::<u32>().map_err(|_| {
            BadValue(format!(
                "'{text}': give a queue depth (32) or a depth and threads as Q32T16"
            ))
        })
    };
    let t = text.trim();
    match t.strip_prefix(['Q', 'q']).map(|r| r.split_once(['T', 't'])) {
        Some(Some((qd, threads))) => Ok(Load {
            qd: number(qd)?,
            threads: Some(number(threads)?),
        }),
        Some(None) => Ok(Load {
            qd: number(&t[1..])?,
            threads: None,
        }),
        None => Ok(Load {
            qd: number(t)?,
            threads: None,
        }),
    }
}

/// `--bs`: one block size, or a mix of them.
#[derive(Clone, Debug)]
pub enum BlockSizes {
    One(u32),
    Mix(BlockMix),
}

fn parse_block_sizes(text: &str) -> Result<BlockSizes, BadValue> {
    if text.contains([':', ',', '/']) {
        Ok(text.parse().map(BlockSizes::Mix)?)
    } else {
        size_u32(text).map(BlockSizes::One)
    }
}

/// A block size: at least 512 bytes (the smallest sector), at most 4 GiB - 1.
fn size_u32(text: &str) -> Result<u32, BadValue> {
    let v = parse_size(text)?;
    if v < 512 {
        return Err(format!(
            "a block size must be at least 512 bytes (one sector), e.g. 4K; '{text}' is {v} bytes"
        )
        .into());
    }
    u32::try_from(v).map_err(|_| format!("'{text}' is too large for one IO (below 4 GiB)").into())
}

/// `--spare`: a share of the target in percent, `25` or `25%`, below 100.
fn parse_spare(text: &str) -> Result<f64, BadValue> {
    let number = text.trim();
    let number = number.strip_suffix('%').unwrap_or(number).trim();
    match number.parse::<f64>() {
        Ok(pct) if (0.0..100.0).contains(&pct) => Ok(pct),
        _ => Err(format!(
            "'{text}': give the spare area as a percentage from 0 to below 100, e.g. 25 or 25%"
        )
        .into()),
    }
}

/// A duration that may be zero (no rest at all).
fn rest_duration(text: &str) -> Result<f64, BadValue> {
    match text.trim() {
        "0" | "0s" => Ok(0.0),
        _ => Ok(parse_duration(text)?),
    }
}

fn at_least_one(text: &str) -> Result<u64, BadValue> {
    match text.trim().parse::<u64>() {
        Ok(0) => Err("give at least 1 (a limit of 0 would end the run before it starts)".into()),
        Ok(n) => Ok(n),
        Err(_) => Err(format!("'{text}' is not a whole number").into()),
    }
}

fn nonzero_size(text: &str) -> Result<u64, BadValue> {
    match parse_size(text)? {
        0 => Err("give at least 1 byte (a limit of 0 would end the run before it starts)".into()),
        n => Ok(n),
    }
}

fn parse_arrivals(text: &str) -> Result<Arrivals, BadValue> {
    match text {
        "uniform" | "linear" => Ok(Arrivals::Uniform),
        "poisson" => Ok(Arrivals::Poisson),
        other => Err(format!("unknown arrivals '{other}': use uniform or poisson").into()),
    }
}

pub fn parse_access(text: &str) -> Result<Access, BadValue> {
    match text {
        "random" | "rand" => Ok(Access::Random),
        "sequential" | "seq" => Ok(Access::Sequential),
        other => Err(format!("unknown access '{other}': use random or sequential").into()),
    }
}
