//! `ssdlab`: argument parsing, progress display and wiring. The logic lives in the crates.

mod cmd_bench;
mod cmd_identify;
mod cmd_purge;
mod cmd_quick;
mod cmd_run;
mod cmd_sim;
mod cmd_sim_corpus;
mod cmd_sim_fit;
mod cmd_sim_serve;
mod cmd_suite;
mod cmd_trace;
mod live_store;
mod output;
mod progress;
mod pts_summary;
mod table;
mod validate_progress;

// The flags and helpers every command shares live with the run they make.
use run::{suggest, target_flags as target_args};

use std::process::ExitCode;

use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(
    name = "ssdlab",
    version,
    about = "Characterize SSDs: the classic review suite on real drives, files and a simulated SSD"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run one test of the review methodology (see `ssdlab tests`).
    Run(Box<run::flags::RunFlags>),
    /// A CrystalDiskMark profile in a minute: sequential and random, read and write, shown
    /// as CrystalDiskMark shows it and stored like any run.
    Quick(Box<cmd_quick::QuickArgs>),
    /// Purge a whole target as the clean-drive tests do (--purge auto: NVMe Sanitize, else
    /// Format NVM, else ATA SANITIZE or SECURITY ERASE, else discard). Destroys its data.
    Purge(target_args::TargetArgs),
    /// The whole review: every test of the methodology, one results directory (several
    /// --target: side by side, a directory each).
    Suite(run::suite_flags::SuiteFlags),
    /// The Bench: every stored run; compare drives, serve the web page.
    Bench(cmd_bench::BenchArgs),
    /// (Re)write report.html of a results directory.
    Report {
        /// The results directory (of `ssdlab run` or `ssdlab suite`).
        dir: std::path::PathBuf,
    },
    /// List the tests `ssdlab run` knows.
    Tests,
    /// Show what ssdlab knows about a target (identity, geometry), without writing it.
    Identify {
        /// A block device (/dev/...), file:PATH[:SIZE] or sim:PRESET.
        #[arg(long, default_value = suite::target::DEFAULT_TARGET)]
        target: String,
        /// Everything as JSON, the drive's own identify data and health included.
        #[arg(long)]
        json: bool,
    },
    /// Simulated drive presets: list them, show one resolved.
    #[command(subcommand)]
    Sim(cmd_sim::SimCmd),
    /// Traces: convert, statistics, synthesis, replay, record.
    #[command(subcommand)]
    Trace(cmd_trace::TraceCmd),
    /// Per-IO logs written with `run --iolog`.
    #[command(subcommand)]
    Log(LogCmd),
}

#[derive(Subcommand)]
enum LogCmd {
    /// Export a per-IO log as CSV (offset,len,op,submit_ns,complete_ns,latency_ns).
    Csv {
        /// The log, as `run --iolog` wrote it.
        log: std::path::PathBuf,
        /// Write here instead of standard output.
        #[arg(short, long)]
        output: Option<std::path::PathBuf>,
    },
}

fn main() -> ExitCode {
    // Die quietly on a closed pipe (`ssdlab trace stats x | head`), as command-line tools do,
    // instead of panicking in println!.
    // SAFETY: setting a signal disposition before any thread starts.
    unsafe { libc::signal(libc::SIGPIPE, libc::SIG_DFL) };
    let cli = Cli::try_parse().unwrap_or_else(|e| {
        if e.kind() == clap::error::ErrorKind::ArgumentConflict
            && e.to_string().contains("'--target")
        {
            eprint!("{e}");
            eprintln!(
                "only `ssdlab suite` takes several --target (a drive each, side by side): \
                 run this command once per target"
            );
            std::process::exit(2);
        }
        e.exit()
    });
    let result = match cli.command {
        Command::Run(args) => cmd_run::run(*args),
        Command::Quick(args) => cmd_quick::run(*args),
        Command::Purge(args) => cmd_purge::purge(&args),
        Command::Suite(args) => cmd_suite::run(args),
        Command::Bench(args) => cmd_bench::run(args),
        Command::Trace(cmd) => cmd_trace::run(cmd),
        Command::Sim(cmd) => cmd_sim::run(cmd).map(|()| ExitCode::SUCCESS),
        Command::Report { dir } => run::results::write_report(&dir)
            .map_err(Into::into)
            .map(|p| {
                println!("{}", p.display());
                ExitCode::SUCCESS
            }),
        Command::Tests => {
            for t in suite::methodology::TESTS {
                println!("{:<18} {}", t.name(), t.about);
            }
            Ok(ExitCode::SUCCESS)
        }
        Command::Identify { target, json } => cmd_identify::identify(&target, json),
        Command::Log(LogCmd::Csv { log, output }) => log_csv(&log, output.as_deref()),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::from(2)
        }
    }
}

fn log_csv(log: &std::path::Path, output: Option<&std::path::Path>) -> anyhow::Result<ExitCode> {
    use anyhow::Context;
    let mut out: Box<dyn std::io::Write> = match output {
        Some(p) => Box::new(std::io::BufWriter::new(
            std::fs::File::create(p).with_context(|| format!("creating {}", p.display()))?,
        )),
        None => Box::new(std::io::BufWriter::new(std::io::stdout().lock())),
    };
    let n = engine::iolog::to_csv(log, &mut out)
        .with_context(|| format!("reading {}", log.display()))?;
    out.flush()?;
    if output.is_some() {
        eprintln!("{n} IOs exported");
    }
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    /// Every argument, option and subcommand under `cmd` (named `path`) that has no help.
    fn undocumented(cmd: &clap::Command, path: &str, missing: &mut Vec<String>) {
        for arg in cmd.get_arguments() {
            let generated = matches!(arg.get_id().as_str(), "help" | "version");
            if generated || arg.is_hide_set() {
                continue;
            }
            if arg.get_help().is_none() && arg.get_long_help().is_none() {
                missing.push(format!("{path}: {}", arg.get_id()));
            }
        }
        for sub in cmd.get_subcommands().filter(|s| s.get_name() != "help") {
            let name = format!("{path} {}", sub.get_name());
            if sub.get_about().is_none() && sub.get_long_about().is_none() {
                missing.push(format!("{name} (the subcommand)"));
            }
            undocumented(sub, &name, missing);
        }
    }

    #[test]
    fn every_argument_option_and_subcommand_has_help() {
        let mut missing = Vec::new();
        undocumented(&Cli::command(), "ssdlab", &mut missing);
        assert!(missing.is_empty(), "no help text: {missing:#?}");
    }
}
