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
        trace: PathBuf,
        #[arg(long)]
        format: Option<String>,
        #[arg(long)]
        skip_bad: bool,
        /// Print JSON instead of a table.
        #[arg(long)]
        json: bool,
    },
    /// Generate a synthetic Storage Bench trace: heavy-2011, light-2011 or destroyer-2013.
    Gen {
        profile: String,
        /// Output file.
        #[arg(short, long)]
        output: PathBuf,
        /// Size relative to the published trace (1.0 = full size).
        #[arg(long, default_value_t = 1.0)]
        scale: f64,
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

pub fn run(cmd: TraceCmd) -> anyhow::Result<()> {
    match cmd {
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
            Ok(())
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
            Ok(())
        }
        TraceCmd::Gen {
            profile,
            output,
            scale,
            seed,
            to,
        } => {
            let Some(p) = trace::synth::Profile::by_name(&profile) else {
                bail!(
                    "unknown trace profile {profile:?}; expected one of: {}",
                    trace::synth::Profile::NAMES.join(", ")
                );
            };
            let out_format = match parse_format(to.as_deref())? {
                Some(f) => f,
                None => trace::format_for_output(&output),
            };
            let mut w = trace::create_writer(&output, out_format)?;
            let n = trace::synth::generate_into(p, scale, seed, &mut w)?;
            eprintln!("{n} IOs written to {} ({out_format})", output.display());
            Ok(())
        }
    }
}
