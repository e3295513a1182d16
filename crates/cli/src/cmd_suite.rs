//! `ssdlab suite`: the whole review of one target into one results directory.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;

use suite::context::Context;
use suite::runner::{self, Status};

use crate::output;
use crate::progress::Bar;
use crate::target_args::TargetArgs;

#[derive(Args)]
pub struct SuiteArgs {
    #[command(flatten)]
    pub common: TargetArgs,
    /// Scale durations and regions down for small or slow targets (said in every result).
    #[arg(long)]
    pub quick: bool,
    /// Results directory (default: results/suite-TIMESTAMP).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Run only these steps or tests (repeatable), e.g. --only consistency.
    #[arg(long)]
    pub only: Vec<String>,
    /// Skip these steps or tests (repeatable), e.g. --skip trim.
    #[arg(long)]
    pub skip: Vec<String>,
    /// Carry on an interrupted suite in DIR from the first step not completed.
    #[arg(long, value_name = "DIR", conflicts_with = "out")]
    pub resume: Option<PathBuf>,
}

pub fn run(a: SuiteArgs) -> anyhow::Result<ExitCode> {
    let (dir, resume) = match &a.resume {
        Some(dir) => (dir.clone(), true),
        None => (
            a.out
                .clone()
                .unwrap_or_else(|| output::default_dir("suite")),
            false,
        ),
    };
    let (target, quick) = match resume {
        true => {
            let prev = runner::read_suite(&dir)?;
            (prev.target_spec, prev.quick)
        }
        false => (a.common.target.clone(), a.quick),
    };
    let plan = runner::plan(quick);
    for name in a.only.iter().chain(&a.skip) {
        if !plan.iter().any(|s| &s.id == name || s.test == name) {
            let ids: Vec<&str> = plan.iter().map(|s| s.id.as_str()).collect();
            anyhow::bail!(
                "no suite step named '{name}'{}: use one of {}",
                crate::suggest::did_you_mean(name, ids.iter().copied()),
                ids.join(", ")
            );
        }
    }
    let steps = runner::select(plan, &a.only, &a.skip)?;
    let (mut dev, mut created) = a.common.open(&target, true)?;
    let stop = crate::cmd_run::stop_flag()?;
    let mut bar = Bar::new(a.common.quiet, &stop);
    let mut ctx = Context::new(&stop, &mut bar);
    ctx.purge = a.common.purge;
    ctx.meter = a.common.start_meter(&target)?;
    if !a.common.quiet {
        eprintln!("reviewing {target} into {}", dir.display());
    }
    // A new run gets a new identity; a resumed one keeps its own (suite.json's, or for a
    // suite of an earlier version the one the Bench derives from its results).
    let run_id = match resume {
        true => bench::db::RunRecord::from_dir(&dir)
            .ok()
            .and_then(|runs| runs.into_iter().find(|r| r.kind == "suite"))
            .map_or_else(suite::results_dir::new_run_id, |r| r.run_id),
        false => suite::results_dir::new_run_id(),
    };
    let rec = runner::run(
        dev.as_mut(),
        &mut ctx,
        &target,
        &steps,
        quick,
        &dir,
        resume,
        &run_id,
    );
    bar.close();
    let rec = rec?;
    created.keep();
    let report = output::write_report(&dir).ok();
    if !a.common.quiet {
        // In the suite's order.
        let all = suite::results_dir::read_results(&dir)?;
        let results: Vec<_> = rec
            .steps
            .iter()
            .flat_map(|s| &s.results)
            .filter_map(|stem| all.iter().find(|r| &r.file_stem() == stem).cloned())
            .collect();
        output::print_summary(&results);
        for s in &rec.steps {
            if s.status != Status::Complete {
                println!(
                    "{:<24} {:?}{}",
                    s.id,
                    s.status,
                    s.message
                        .as_deref()
                        .map(|m| format!(": {m}"))
                        .unwrap_or_default()
                );
            }
        }
        eprintln!("results: {}", dir.display());
        if let Some(report) = report {
            eprintln!("report: {}", report.display());
        }
    }
    if let Some(id) = &rec.run_id {
        a.common.store.store(&dir, id, a.common.quiet);
    }
    let interrupted = stop.load(std::sync::atomic::Ordering::Relaxed);
    Ok(if rec.complete {
        ExitCode::SUCCESS
    } else if interrupted {
        eprintln!(
            "interrupted: carry on with `ssdlab suite --resume {}`",
            dir.display()
        );
        ExitCode::from(130)
    } else if rec.steps.iter().any(|s| s.status == Status::Failed) {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}
