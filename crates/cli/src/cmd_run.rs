//! `ssdlab run TEST`: parse the flags, open the target, run, write the results.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use clap::Args;

use std::str::FromStr;

use engine::pattern::DataKind;
use engine::shape::{Arrivals, BlockMix, BlockMixError, Distribution, DutyCycle, Rate, Shape};
use engine::size::{parse_duration, parse_size, Span};
use engine::verify::VerifyOptions;
use engine::workload::{Access, MAX_QD, MAX_THREADS};
use suite::context::Context;
use suite::latency_target::LatencyTarget;
use suite::methodology::{Test, TestId, Verifies};
use suite::params::Overrides;

use crate::output;
use crate::progress::Bar;
use crate::target_args::TargetArgs;

#[derive(Args)]
pub struct RunArgs {
    /// The test to run (`ssdlab tests` lists them).
    pub test: String,
    #[command(flatten)]
    pub common: TargetArgs,
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

/// `--qd`: a depth, and the threads when written as `Q32T16`.
#[derive(Clone, Copy, Debug)]
pub struct Load {
    qd: u32,
    threads: Option<u32>,
}

fn parse_load(text: &str) -> Result<Load, String> {
    let load = load_notation(text)?;
    if !(1..=MAX_QD).contains(&load.qd) {
        return Err(format!(
            "queue depth {} is out of range: use 1 to {MAX_QD}",
            load.qd
        ));
    }
    match load.threads {
        Some(t) if !(1..=MAX_THREADS).contains(&t) => Err(format!(
            "{t} threads is out of range: use 1 to {MAX_THREADS}"
        )),
        _ => Ok(load),
    }
}

/// `32`, `Q32` or `Q32T16`.
fn load_notation(text: &str) -> Result<Load, String> {
    let number = |n: &str| {
        n.parse::<u32>().map_err(|_| {
            format!("'{text}': give a queue depth (32) or a depth and threads as Q32T16")
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

fn parse_block_sizes(text: &str) -> Result<BlockSizes, String> {
    if text.contains([':', ',', '/']) {
        text.parse()
            .map(BlockSizes::Mix)
            .map_err(|e: BlockMixError| e.to_string())
    } else {
        size_u32(text).map(BlockSizes::One)
    }
}

/// A block size: at least 512 bytes (the smallest sector), at most 4 GiB - 1.
fn size_u32(text: &str) -> Result<u32, String> {
    let v = parse_size(text).map_err(|e| e.to_string())?;
    if v < 512 {
        return Err(format!(
            "a block size must be at least 512 bytes (one sector), e.g. 4K; '{text}' is {v} bytes"
        ));
    }
    u32::try_from(v).map_err(|_| format!("'{text}' is too large for one IO (below 4 GiB)"))
}

/// `--spare`: a share of the target in percent, `25` or `25%`, below 100.
fn parse_spare(text: &str) -> Result<f64, String> {
    let number = text.trim();
    let number = number.strip_suffix('%').unwrap_or(number).trim();
    match number.parse::<f64>() {
        Ok(pct) if (0.0..100.0).contains(&pct) => Ok(pct),
        _ => Err(format!(
            "'{text}': give the spare area as a percentage from 0 to below 100, e.g. 25 or 25%"
        )),
    }
}

/// A duration that may be zero (no rest at all).
fn rest_duration(text: &str) -> Result<f64, String> {
    match text.trim() {
        "0" | "0s" => Ok(0.0),
        _ => parse_duration(text).map_err(|e| e.to_string()),
    }
}

fn at_least_one(text: &str) -> Result<u64, String> {
    match text.trim().parse::<u64>() {
        Ok(0) => Err("give at least 1 (a limit of 0 would end the run before it starts)".into()),
        Ok(n) => Ok(n),
        Err(_) => Err(format!("'{text}' is not a whole number")),
    }
}

fn nonzero_size(text: &str) -> Result<u64, String> {
    match parse_size(text).map_err(|e| e.to_string())? {
        0 => Err("give at least 1 byte (a limit of 0 would end the run before it starts)".into()),
        n => Ok(n),
    }
}

fn parse_arrivals(text: &str) -> Result<Arrivals, String> {
    match text {
        "uniform" | "linear" => Ok(Arrivals::Uniform),
        "poisson" => Ok(Arrivals::Poisson),
        other => Err(format!(
            "unknown arrivals '{other}': use uniform or poisson"
        )),
    }
}

fn parse_access(text: &str) -> Result<Access, String> {
    match text {
        "random" | "rand" => Ok(Access::Random),
        "sequential" | "seq" => Ok(Access::Sequential),
        other => Err(format!(
            "unknown access '{other}': use random or sequential"
        )),
    }
}

/// Ctrl-C or SIGTERM sets the flag (the run stops cleanly and keeps its results); a second
/// one exits at once.
pub fn stop_flag() -> anyhow::Result<Arc<AtomicBool>> {
    use signal_hook::consts::{SIGINT, SIGTERM};
    use signal_hook::flag;
    let stop = Arc::new(AtomicBool::new(false));
    for sig in [SIGINT, SIGTERM] {
        flag::register_conditional_shutdown(sig, 130, Arc::clone(&stop))?;
        flag::register(sig, Arc::clone(&stop))?;
    }
    Ok(stop)
}

/// `--verify` and `--verify-backlog`, checked against the test.
fn verify_options(a: &RunArgs, test: &Test) -> anyhow::Result<Option<VerifyOptions>> {
    let always = test.verifies == Verifies::Always;
    if !(a.verify || always) {
        anyhow::ensure!(
            a.verify_backlog.is_none(),
            "--verify-backlog needs --verify"
        );
        return Ok(None);
    }
    anyhow::ensure!(
        test.verifies != Verifies::Never,
        "--verify: {} cannot verify its data (the TRIM test checks what trimmed blocks read as \
         on its own; the Storage Bench replays a trace): use it with a test that writes, or \
         `ssdlab run {}`",
        test.id,
        TestId::Verify
    );
    Ok(Some(VerifyOptions {
        backlog_units: a.verify_backlog.unwrap_or(if always {
            suite::methodology::verify::BACKLOG_UNITS
        } else {
            DEFAULT_BACKLOG_UNITS
        }),
    }))
}

/// `--verify`'s backlog: read back every 16 MiB of 4 KiB units.
const DEFAULT_BACKLOG_UNITS: u64 = 4096;

pub fn run(a: RunArgs) -> anyhow::Result<ExitCode> {
    let Ok(test) = suite::methodology::find(&a.test) else {
        let names = suite::methodology::names();
        anyhow::bail!(
            "unknown test '{}'{}: use one of {} (`ssdlab tests` describes them)",
            a.test,
            crate::suggest::did_you_mean(&a.test, names.iter().copied()),
            names.join(", ")
        );
    };
    let data = a
        .data
        .as_deref()
        .map(|d| DataKind::parse(d, a.compress_pct))
        .transpose()
        .map_err(anyhow::Error::msg)?;
    let (block_bytes, block_mix) = match a.bs.clone() {
        None => (None, None),
        Some(BlockSizes::One(b)) => (Some(b), None),
        // The mix alone: its smallest size is the workload's alignment, derived where used.
        Some(BlockSizes::Mix(mix)) => (None, Some(mix)),
    };
    let threads = match (a.threads, a.qd.and_then(|l| l.threads)) {
        (Some(flag), Some(notation)) if flag != notation => anyhow::bail!(
            "--threads {flag} and --qd Q{}T{notation} disagree: give the threads once",
            a.qd.map_or(0, |l| l.qd)
        ),
        (flag, notation) => flag.or(notation),
    };
    let overrides = Overrides {
        qd: a.qd.map(|l| l.qd),
        threads,
        block_bytes,
        span: a.span,
        offset_bytes: a.offset,
        duration_s: a.duration,
        ios: a.ios,
        bytes: a.bytes,
        read_pct: a.read_pct,
        access: a.access,
        data,
        seed: a.seed,
        spare_pct: a.spare,
        prefill: a.no_prefill.then_some(false),
        trace: a.trace.clone(),
        trace_scale: a.trace_scale,
        rest_s: a.rest,
        pts_variant: a.pts,
        pts_scale: a.pts_scale,
        state: a.state,
        latency_target: a.latency_target,
        shape: Shape {
            distribution: a.distribution.clone().unwrap_or_default(),
            block_mix,
            rate: a.rate_iops.map(|iops| Rate {
                iops,
                arrivals: a.arrivals.unwrap_or_default(),
            }),
            duty_cycle: a
                .burst
                .zip(a.duty)
                .map(|(burst_bytes, busy_pct)| DutyCycle {
                    burst_bytes,
                    busy_pct,
                }),
        },
    };
    let verify = verify_options(&a, test)?;
    execute(
        test,
        &overrides,
        Job {
            common: &a.common,
            out: a.out.clone(),
            json: a.json.clone(),
            iolog: a.iolog.clone(),
            hist_log: a.hist_log.clone(),
            verify,
        },
    )
}

/// Whether a test that issues IOs ran and completed none: a figure of no IOs is none. A run
/// whose IOs failed says so instead, as a failure.
fn completed_no_io(test: &Test, results: &[suite::result::TestResult]) -> bool {
    !matches!(
        test.id,
        suite::TestId::PowerIdle | suite::TestId::PowerSlumber
    ) && !results.is_empty()
        && output::failure(results).is_none()
        && results.iter().all(|r| r.summary.ios == 0)
}

/// Where a test's run goes and what it keeps besides its results.
pub struct Job<'a> {
    pub common: &'a TargetArgs,
    pub out: Option<PathBuf>,
    pub json: Option<PathBuf>,
    pub iolog: Option<PathBuf>,
    pub hist_log: Option<PathBuf>,
    pub verify: Option<VerifyOptions>,
}

/// The logs a run writes can be written: checked before the purge and fill, not after.
fn check_logs(a: &Job) -> anyhow::Result<()> {
    use engine::{iolog::IOLOG_FILE, measure::hist_log::HIST_LOG_FILE};
    let logs = [
        ("--iolog", &a.iolog, IOLOG_FILE),
        ("--hist-log", &a.hist_log, HIST_LOG_FILE),
    ];
    for (flag, path, kind) in logs {
        if let Some(path) = path {
            kind.check_output(path)
                .map_err(|e| anyhow::anyhow!("{flag} {}: {e}", path.display()))?;
        }
    }
    Ok(())
}

/// Open the target, run `test` with `overrides`, write, show and store its results.
pub fn execute(test: &Test, overrides: &Overrides, job: Job) -> anyhow::Result<ExitCode> {
    let a = &job;
    // Everything that needs no target is checked before the target is touched.
    overrides.validate(test)?;
    for (flag, path) in [
        ("json", &a.json),
        ("iolog", &a.iolog),
        ("hist-log", &a.hist_log),
    ] {
        if let Some(path) = path {
            crate::output_paths::check_creatable(flag, path)?;
        }
    }
    a.common
        .precondition
        .check_used_by(&format!("`run {}`", test.name()), test.takes_precondition)
        .map_err(anyhow::Error::msg)?;
    check_logs(a)?;
    let (mut dev, mut created) = a.common.open(&a.common.target, (test.writes)(overrides))?;
    let stop = stop_flag()?;
    let mut bar = Bar::new(a.common.quiet, &stop);
    let mut ctx = Context::new(&stop, &mut bar);
    ctx.purge = a.common.purge;
    ctx.precondition = a.common.precondition;
    ctx.iolog = a.iolog.clone();
    ctx.hist_log = a.hist_log.clone();
    ctx.verify = a.verify;
    ctx.meter = a.common.start_meter(&a.common.target)?;
    // The run's identity, in its directory from the start and in every result.
    let run_id = suite::results_dir::new_run_id();
    let (out_dir, fresh) = match &a.out {
        Some(dir) => {
            let fresh = !dir.exists();
            suite::results_dir::add_run(dir, &run_id, test.name())?;
            (dir.clone(), fresh)
        }
        None => {
            let dir = output::new_dir(test.name())?;
            suite::results_dir::start_run(&dir, &run_id)?;
            (dir, true)
        }
    };
    let outcome = suite::methodology::run(test.id, dev.as_mut(), &mut ctx, overrides);
    let log_failures = std::mem::take(&mut ctx.log_failures);
    bar.close();
    let mut results = match outcome {
        Ok(results) => results,
        Err(e) => {
            if fresh {
                suite::results_dir::abandon_run(&out_dir);
            }
            return Err(e.into());
        }
    };
    for r in &mut results {
        r.run_id = Some(run_id.clone());
        // The results say what of the run was lost besides them.
        r.warnings.extend(log_failures.iter().cloned());
    }
    if results.is_empty() && fresh {
        suite::results_dir::abandon_run(&out_dir);
    }
    if completed_no_io(test, &results) && !stop.load(std::sync::atomic::Ordering::Relaxed) {
        if fresh {
            suite::results_dir::abandon_run(&out_dir);
        }
        anyhow::bail!(
            "the run completed no IO, so there is no figure to keep and nothing is stored: \
             give a longer --duration, or a smaller --bs or --qd"
        );
    }

    let json_failed = output::write(&out_dir, fresh, &results, a.json.as_deref())?;
    // Results refer to the target file now: keep it.
    created.keep();
    let mut lost = log_failures;
    lost.extend(json_failed);
    let report = match results.is_empty() {
        true => None,
        false => Some(output::write_report(&out_dir)?),
    };
    if !a.common.quiet {
        output::print_summary(&results);
        if !results.is_empty() {
            eprintln!("results: {}", out_dir.display());
        }
        if let Some(report) = report {
            eprintln!("report: {}", report.display());
        }
    }
    // Before the store's wait, which Ctrl-C may end: that is no interrupted run.
    let interrupted = stop.load(std::sync::atomic::Ordering::Relaxed);
    if !results.is_empty() {
        a.common
            .store
            .store_at_end(&out_dir, &run_id, &stop, a.common.quiet);
    }
    if !lost.is_empty() && !results.is_empty() {
        for why in &lost {
            eprintln!("{why}");
        }
        eprintln!(
            "  the measurement is kept in {}; only what is named above is lost",
            out_dir.display()
        );
        return Ok(ExitCode::from(1));
    }
    if let Some(text) = output::corruption(&results) {
        eprintln!("{text}");
        return Ok(ExitCode::from(1));
    }
    let complete = !results.is_empty() && results.iter().all(|r| r.complete);
    Ok(if complete {
        ExitCode::SUCCESS
    } else if let Some(why) = output::failure(&results) {
        eprintln!(
            "the run failed: {why}\n  what was measured before is saved with \"complete\": false in {}",
            out_dir.display()
        );
        ExitCode::from(1)
    } else {
        eprintln!("the run did not complete: results so far are saved with \"complete\": false");
        ExitCode::from(if interrupted { 130 } else { 1 })
    })
}
