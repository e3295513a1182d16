//! `ssdlab trace ...`: argument parsing and printing only; the work is in the `trace` crate.

use std::path::PathBuf;

use anyhow::{bail, Context};

#[derive(clap::Subcommand, Debug)]
pub enum TraceCmd {
    /// Convert a trace to another format (native, fio-iolog or disksim).
    Convert {
        /// Input trace (for blktrace, any of NAME.blktrace.N or NAME).
        input: PathBuf,
        /// Output file.
        output: PathBuf,
        /// Input format instead of detecting it: blkparse, blktrace, fio-iolog, msr, umass,
        /// disksim, alibaba, tencent, native.
        #[arg(long)]
        format: Option<String>,
        /// Output format; by default from the extension (.fio/.iolog fio-iolog,
        /// .trace/.disksim disksim, anything else native).
        #[arg(long)]
        to: Option<String>,
        /// Count and skip malformed lines instead of stopping at the first.
        #[arg(long)]
        skip_bad: bool,
    },
    /// Statistics of a trace, with btt's definitions (counts, bytes, sizes, sequentiality,
    /// queue depth, busy time, D2C/Q2C).
    Stats {
        /// The trace (for blktrace, any of NAME.blktrace.N or NAME).
        trace: PathBuf,
        /// Its format instead of detecting it: blkparse, blktrace, fio-iolog, msr, umass,
        /// disksim, alibaba, tencent, native.
        #[arg(long)]
        format: Option<String>,
        /// Count and skip malformed lines instead of stopping at the first.
        #[arg(long)]
        skip_bad: bool,
        /// Print JSON instead of a table.
        #[arg(long)]
        json: bool,
    },
    /// Play a trace back on a target and report the Storage Bench metrics and fidelity.
    Replay(Box<ReplayArgs>),
    /// Record a device's IO with blktrace (root, and a kernel that permits tracing); Ctrl-C
    /// ends it early.
    Record {
        /// The block device to trace, e.g. /dev/nvme0n1.
        device: PathBuf,
        /// Seconds to record (at least 1).
        #[arg(long, default_value_t = 60, value_parser = clap::value_parser!(u64).range(1..))]
        duration: u64,
        /// Output trace (native unless the extension says otherwise).
        #[arg(short, long)]
        output: PathBuf,
    },
    /// Generate a synthetic Storage Bench trace: heavy-2011, light-2011 or destroyer-2013.
    Gen {
        /// The profile: heavy-2011, light-2011 or destroyer-2013.
        profile: String,
        /// Output file.
        #[arg(short, long)]
        output: PathBuf,
        /// Size relative to the published trace (1.0 = full size).
        #[arg(long, default_value_t = 1.0)]
        scale: f64,
        /// Seed of the trace's random choices: the same seed, the same trace.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Output format (default: from the extension, native otherwise).
        #[arg(long)]
        to: Option<String>,
    },
}

fn parse_format(s: Option<&str>) -> anyhow::Result<Option<trace::Format>> {
    s.map(|f| f.parse::<trace::Format>().map_err(anyhow::Error::from))
        .transpose()
}

pub fn run(cmd: TraceCmd) -> anyhow::Result<std::process::ExitCode> {
    let ok = std::process::ExitCode::SUCCESS;
    match cmd {
        TraceCmd::Replay(args) => replay(*args),
        TraceCmd::Record {
            device,
            duration,
            output,
        } => record(&device, duration, &output).map(|()| ok),
        TraceCmd::Convert {
            input,
            output,
            format,
            to,
            skip_bad,
        } => {
            let opts = trace::ReadOptions {
                format: parse_format(format.as_deref())?,
                skip_bad,
            };
            let out_format = match parse_format(to.as_deref())? {
                Some(f) => f,
                None => trace::format_for_output(&output),
            };
            if !out_format.writable() {
                bail!("ssdlab cannot write {out_format}; use native, fio-iolog or disksim");
            }
            if !out_format.records_completions() {
                eprintln!(
                    "note: {out_format} records no completion times: any in {} are dropped (a \
                     native .ssdt file keeps them)",
                    input.display()
                );
            }
            let s = trace::convert(&input, opts, &output, out_format)
                .with_context(|| format!("converting {}", input.display()))?;
            eprintln!(
                "{} records written to {} ({out_format}){}",
                s.records,
                output.display(),
                if s.skipped > 0 {
                    format!(", {} malformed lines skipped", s.skipped)
                } else {
                    String::new()
                }
            );
            Ok(ok)
        }
        TraceCmd::Stats {
            trace: path,
            format,
            skip_bad,
            json,
        } => {
            let opts = trace::ReadOptions {
                format: parse_format(format.as_deref())?,
                skip_bad,
            };
            let (stats, skipped) = trace::stats::stats_of_path(&path, opts)?;
            if json {
                let mut v = serde_json::to_value(&stats)?;
                v["file"] = serde_json::json!(path.display().to_string());
                v["skipped_lines"] = serde_json::json!(skipped);
                println!("{}", serde_json::to_string_pretty(&v)?);
            } else {
                println!("{}", path.display());
                print!("{}", stats.to_table());
                if skipped > 0 {
                    println!("{:<28}{:>16}", "malformed lines skipped", skipped);
                }
            }
            Ok(ok)
        }
        TraceCmd::Gen {
            profile,
            output,
            scale,
            seed,
            to,
        } => generate(&profile, &output, scale, seed, to.as_deref()).map(|()| ok),
    }
}

/// `trace gen`: a synthetic trace of `profile` into `output`, refused before anything is
/// written when it would lose the completion times, or not fit.
fn generate(
    profile: &str,
    output: &std::path::Path,
    scale: f64,
    seed: u64,
    to: Option<&str>,
) -> anyhow::Result<()> {
    let Some(p) = trace::synth::Profile::by_name(profile) else {
        bail!(
            "unknown trace profile {profile:?}; expected one of: {}",
            trace::synth::Profile::NAMES.join(", ")
        );
    };
    let out_format = match parse_format(to)? {
        Some(f) => f,
        None => trace::format_for_output(output),
    };
    // The synthetic traces carry the completion times the original captures had (their
    // queue depth and QD1 share are published figures): an extension must not drop
    // them unasked.
    if !out_format.records_completions() {
        if to.is_none() {
            bail!(
                "{}: the extension chooses {out_format}, which records no completion \
                 times, so the trace would lose its queue depth ({}), QD1 share and busy \
                 time: write a native trace (e.g. -o {}), or pass --to {out_format} to \
                 write {out_format} anyway",
                output.display(),
                p.avg_queue_depth,
                output.with_extension("ssdt").display()
            );
        }
        eprintln!(
            "note: {out_format} records no completion times: `trace stats` of {} cannot \
             give its queue depth, QD1 share or busy time (a native .ssdt file keeps them)",
            output.display()
        );
    }
    check_room(output, &p, scale, seed, out_format)?;
    let mut w = trace::create_writer(output, out_format)?;
    let n = trace::synth::generate_into(p, scale, seed, &mut w).inspect_err(|_| {
        // Half a trace is of no use to anyone: do not leave it behind.
        let _ = std::fs::remove_file(output);
    })?;
    eprintln!("{n} IOs written to {} ({out_format})", output.display());
    Ok(())
}

/// Refuse, before writing anything, a generated trace its output's filesystem has not the
/// room for.
fn check_room(
    output: &std::path::Path,
    profile: &trace::synth::Profile,
    scale: f64,
    seed: u64,
    format: trace::Format,
) -> anyhow::Result<()> {
    use engine::units::format_size;
    let needed = trace::synth::estimated_bytes(profile, scale, seed, format)?;
    let dir = match output.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => std::path::Path::new("."),
    };
    let free = std::fs::File::open(dir)
        .and_then(|d| engine::target::file::free_bytes(&d))
        .with_context(|| format!("checking the free space in {}", dir.display()))?;
    // Overwriting a trace frees its bytes first.
    let free = free + std::fs::metadata(output).map_or(0, |m| m.len());
    anyhow::ensure!(
        needed <= free,
        "{}: {} at scale {scale} needs about {} ({format}), but {} has only {} free: free some \
         space, write it elsewhere (-o) or give a smaller --scale",
        output.display(),
        profile.name,
        format_size(needed),
        dir.display(),
        format_size(free)
    );
    Ok(())
}

/// `ssdlab trace replay`: play a trace back on a target.
#[derive(clap::Args, Debug)]
pub struct ReplayArgs {
    /// The trace to play back (for blktrace, any of NAME.blktrace.N or NAME).
    pub trace: PathBuf,
    #[command(flatten)]
    pub common: run::target_flags::TargetArgs,
    /// timed (open loop on the timestamps), afap (in order, as fast as possible) or
    /// idle-capped (timed, idle gaps cut to --idle-cap).
    #[arg(long, default_value = "idle-capped")]
    pub mode: String,
    /// Speed factor for the timed modes (2 = twice as fast).
    #[arg(long, default_value_t = 1.0)]
    pub speed: f64,
    /// Most IOs outstanding (afap: the queue depth, default 32; timed: slots, by default as
    /// many as 1 GiB of buffers allows, up to 1024).
    #[arg(long)]
    pub qd: Option<u32>,
    /// Longest idle gap kept in idle-capped mode, in milliseconds.
    #[arg(long, default_value_t = 25.0)]
    pub idle_cap: f64,
    /// Offsets beyond the target: wrap (modulo capacity) or scale (by capacity / trace span).
    #[arg(long, default_value = "wrap")]
    pub remap: String,
    /// The trace's format instead of detecting it: blkparse, blktrace, fio-iolog, msr,
    /// umass, disksim, alibaba, tencent, native.
    #[arg(long)]
    pub format: Option<String>,
    /// Results directory (default: results/replay-TIMESTAMP).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Also write the result JSON here.
    #[arg(long)]
    pub json: Option<PathBuf>,
}

pub fn replay(a: ReplayArgs) -> anyhow::Result<std::process::ExitCode> {
    use suite::replay::{Mode, Plan, Remap};
    let opts = trace::ReadOptions {
        format: parse_format(a.format.as_deref())?,
        skip_bad: false,
    };
    anyhow::ensure!(
        a.speed > 0.0 && a.speed.is_finite(),
        "--speed {}: give a positive factor",
        a.speed
    );
    let max_qd = engine::workload::MAX_QD;
    if let Some(qd) = a.qd {
        anyhow::ensure!(
            (1..=max_qd).contains(&qd),
            "--qd {qd} is out of range: give 1 to {max_qd} IOs in flight"
        );
    }
    anyhow::ensure!(
        a.idle_cap >= 0.0 && a.idle_cap.is_finite(),
        "--idle-cap {} is out of range: give the longest idle gap to keep in milliseconds, 0 or \
         more (0 removes idle gaps)",
        a.idle_cap
    );
    // One pass first: the trace's own figures, for progress and the fidelity report.
    let (stats, _) = trace::stats::stats_of_path(&a.trace, opts)
        .with_context(|| format!("reading {}", a.trace.display()))?;
    let mode = match a.mode.as_str() {
        "timed" => Mode::Timed { speed: a.speed },
        "afap" => Mode::Afap {
            qd: a.qd.unwrap_or(32),
        },
        "idle-capped" => Mode::IdleCapped {
            cap_ns: (a.idle_cap * 1e6) as u64,
            speed: a.speed,
        },
        other => bail!("unknown replay mode '{other}': use timed, afap or idle-capped"),
    };
    // Waiting out a trace's idle gaps on the wall clock is refused before the target is
    // touched when it would take longer than a week.
    let clock = match suite::target::kind(&a.common.target) {
        Ok(engine::TargetKind::Sim) => engine::Clock::Virtual,
        _ => engine::Clock::Wall,
    };
    anyhow::ensure!(
        stats.ios > 0,
        "{} holds no IOs: there is nothing to replay, and no result is stored",
        a.trace.display()
    );
    suite::replay::check_timestamps(mode, stats.untimed_ios, stats.ios)?;
    suite::replay::check_wall_time(mode, clock, stats.duration_s)?;
    // A second pass for the largest IO (buffers) and the highest byte (remap=scale).
    let (mut span, mut largest) = (0u64, 0u32);
    for r in trace::open_with(&a.trace, opts)? {
        let r = r?;
        span = span.max(r.end_bytes());
        largest = largest.max(r.len_bytes);
    }
    let remap = match a.remap.as_str() {
        "wrap" => Remap::Wrap,
        "scale" => Remap::Scale {
            trace_span_bytes: span,
        },
        other => bail!("unknown remap '{other}': use wrap or scale"),
    };
    let (slots, piece) = suite::replay::sizing(largest);
    let plan = Plan {
        mode,
        remap,
        max_in_flight: a.qd.unwrap_or(slots),
        max_io_bytes: piece,
        data: engine::pattern::DataKind::Incompressible,
        seed: suite::params::DEFAULT_SEED,
    };
    let replay = run::replay::Replay {
        trace: a.trace.clone(),
        read: opts,
        stats,
        plan,
    };
    let output = run::Output {
        dir: a.out.map_or(run::ResultsDir::New, run::ResultsDir::At),
        json: a.json,
        fio_job: None,
    };
    let request = a.common.request_for(run::Work::Replay(replay), output)?;
    crate::cmd_run::execute(&request, "replay", a.common.quiet)
}

/// `ssdlab trace record`: capture with blktrace and convert.
pub fn record(
    device: &std::path::Path,
    duration: u64,
    output: &std::path::Path,
) -> anyhow::Result<()> {
    let format = trace::format_for_output(output);
    let stop = crate::cmd_run::stop_flag()?;
    let s = trace::capture::record(device, duration, output, format, &stop, || {
        eprintln!(
            "recording {} for {duration} s (Ctrl-C ends it early and keeps what was recorded)",
            device.display()
        )
    })?;
    eprintln!(
        "{} IOs recorded to {} ({format})",
        s.records,
        output.display()
    );
    Ok(())
}
