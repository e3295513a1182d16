//! `ssdlab suite`: the whole review of a target into one results directory; of several
//! targets side by side, one worker and one results directory (one run) each.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::str::FromStr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use clap::Args;

use suite::context::Context;
use suite::methodologies::Methodology;
use suite::parallel::Workers;
use suite::runner::{self, Plan, Status, SuiteRecord};

use engine::driver::Progress;
use engine::{safety, Clock};
use suite::context::Observer;
use suite::result::TestResult;

use bench::live::LiveStore;

use crate::live_store;
use crate::output;
use crate::progress::Bar;
use run::target_flags::DriveArgs;

#[derive(Args)]
pub struct SuiteArgs {
    /// A block device (/dev/...), file:PATH[:SIZE] or sim:PRESET[,key=value...]. Repeat it to
    /// review several drives at once, a worker each (pinned to a core each when there are
    /// enough), each into its own directory and run.
    #[arg(long = "target", value_name = "TARGET", default_value = suite::target::DEFAULT_TARGET)]
    pub targets: Vec<String>,
    /// Allow writing a block device that holds data (or a file behind a loop device), by
    /// naming it: --destroy-data=/dev/sdX (one for each such --target).
    #[arg(long, value_name = "DEVICE")]
    pub destroy_data: Vec<String>,
    #[command(flatten)]
    pub common: DriveArgs,
    /// Scale durations and regions down for small or slow targets (said in every result).
    #[arg(long)]
    pub quick: bool,
    /// The methodology (listed from the registry).
    #[arg(long, default_value = "review-2013", value_parser = Methodology::from_str, help = methodology_help())]
    pub methodology: Methodology,
    /// pts-c, pts-e: shorten every PTS test's rounds and totals by this factor (0.01 to 1),
    /// a deviation each result states; with --quick, instead of its 0.05.
    #[arg(long, value_name = "FACTOR")]
    pub pts_scale: Option<f64>,
    /// Results directory (default: results/suite-TIMESTAMP); with several targets, a
    /// directory in it for each.
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
    /// Steps run at once (default: the CPUs) on a simulated drive, for a methodology whose steps
    /// each start from a purged drive (pts-c, pts-e): each step runs on a fresh instance of the
    /// drive. Elsewhere steps run one by one on the one drive.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..))]
    pub jobs: Option<u16>,
}

/// `--methodology`'s help: every methodology the suite knows, each with what it is.
fn methodology_help() -> String {
    let each: Vec<String> = Methodology::ALL
        .iter()
        .map(|m| format!("{} ({})", m.name(), m.about()))
        .collect();
    format!(
        "The methodology: {}; with --quick the PTS runs at --pts-scale {}",
        each.join(", "),
        suite::methodologies::PTS_QUICK_SCALE
    )
}

/// One drive's review: what, where, and whether it carries on an earlier one.
struct Drive {
    target: String,
    dir: PathBuf,
    resume: bool,
    destroy_data: Option<String>,
}

/// A review that ran: its record, the report written of it, and its place in the Bench.
struct Reviewed {
    rec: SuiteRecord,
    report: Option<PathBuf>,
    store: LiveStore,
}

pub fn run(a: SuiteArgs) -> anyhow::Result<ExitCode> {
    if a.targets.len() > 1 {
        return run_several(a);
    }
    anyhow::ensure!(
        a.destroy_data.len() <= 1,
        "--destroy-data given {} times for one --target: name the target's device once",
        a.destroy_data.len()
    );
    let destroy_data = a.destroy_data.first().cloned();
    let mut drive = match &a.resume {
        Some(dir) => Drive {
            target: runner::read_suite(dir)?.target_spec,
            dir: dir.clone(),
            resume: true,
            destroy_data,
        },
        None => Drive {
            target: a.targets[0].clone(),
            // Claimed once the plan is known good, below.
            dir: PathBuf::new(),
            resume: false,
            destroy_data,
        },
    };
    let (methodology, quick, pts_scale) = match drive.resume {
        true => {
            let rec = runner::read_suite(&drive.dir)?;
            (rec.methodology, rec.quick, rec.pts_scale)
        }
        false => (a.methodology, a.quick, a.pts_scale),
    };
    let plan = plan(&a, methodology, quick, pts_scale)?;
    let at_once = instances_at_once(&a, &drive.target, &plan)?;
    if !drive.resume {
        drive.dir = run::results::claim_dir(a.out.as_deref(), "suite")?;
    }
    let stop = crate::cmd_run::stop_flag()?;
    let mut bar = Bar::new(a.common.quiet, &stop);
    if !a.common.quiet {
        let how = match at_once {
            None => String::new(),
            Some(n) => {
                format!(" (each step on a fresh instance of the simulated drive, {n} at once)")
            }
        };
        eprintln!(
            "reviewing {} into {}{how}",
            drive.target,
            drive.dir.display()
        );
    }
    let mut done =
        review(&a.common, &drive, &plan, at_once, &stop, &mut bar).inspect_err(|_| {
            // A step's results that could not be written (a full filesystem): the steps before
            // are kept.
            if drive.dir.join(runner::SUITE_FILE).exists() {
                eprintln!(
                    "results so far: {}; carry on with `ssdlab suite --resume {}`",
                    drive.dir.display(),
                    drive.dir.display()
                );
            }
        })?;
    let (dir, rec) = (&drive.dir, &done.rec);
    if !a.common.quiet {
        // In the suite's order.
        let all = suite::results_dir::read_results(dir)?;
        let results: Vec<_> = rec
            .steps
            .iter()
            .flat_map(|s| &s.results)
            .filter_map(|stem| all.iter().find(|r| &r.file_stem() == stem).cloned())
            .collect();
        output::print_summary(&results);
        print_unfinished(rec, "");
        eprintln!("results: {}", dir.display());
        if let Some(report) = &done.report {
            eprintln!("report: {}", report.display());
        }
    }
    // Before the store's wait, which Ctrl-C may end: that is no interrupted suite.
    let interrupted = stop.load(Ordering::Relaxed);
    let until = done.store.deadline();
    live_store::finish(&mut done.store, until, &stop, a.common.quiet);
    Ok(ExitCode::from(exit_status(&done.rec, dir, interrupted)))
}

/// The plan, cut to `--only` and `--skip`: a name in neither is an error naming the steps.
fn plan(
    a: &SuiteArgs,
    methodology: Methodology,
    quick: bool,
    pts_scale: Option<f64>,
) -> anyhow::Result<Plan> {
    let plan = Plan::of(methodology, quick).with_pts_scale(pts_scale)?;
    for name in a.only.iter().chain(&a.skip) {
        if !plan
            .steps
            .iter()
            .any(|s| &s.id == name || s.test.name() == name)
        {
            let ids: Vec<&str> = plan.steps.iter().map(|s| s.id.as_str()).collect();
            anyhow::bail!(
                "no suite step named '{name}'{}: use one of {}",
                crate::suggest::did_you_mean(name, ids.iter().copied()),
                ids.join(", ")
            );
        }
    }
    Ok(Plan {
        steps: runner::select(plan.steps, &a.only, &a.skip)?,
        ..plan
    })
}

/// How the plan's steps run on `target`: on a fresh instance each, --jobs or the CPUs at once,
/// where they can (a simulated drive, and steps that each start from a purged drive, with no
/// meter reading one drive); else None, in sequence on the one drive. --jobs above 1 where
/// they cannot is an error.
fn instances_at_once(a: &SuiteArgs, target: &str, plan: &Plan) -> anyhow::Result<Option<usize>> {
    let possible =
        suite::fresh_instances::possible(target, plan)? && a.common.power_meter.is_none();
    let jobs = a.jobs.map(usize::from);
    Ok(match jobs {
        Some(n) if n > 1 && !possible => anyhow::bail!(
            "--jobs {n}: steps run at once only on a simulated drive (sim:...), for a \
             methodology whose steps each start from a purged drive (pts-c, pts-e), without \
             --power-meter; drop --jobs to run this suite's steps one by one"
        ),
        _ if !possible => None,
        Some(n) => Some(n),
        None => Some(std::thread::available_parallelism().map_or(1, |n| n.get())),
    })
}

/// Review one drive with its own device, Context and run id, or each step on a fresh instance
/// of it, `at_once` at a time; the results directory gets its report. What it measured is
/// kept, complete or not, and stored in the Bench after each step.
fn review(
    common: &DriveArgs,
    drive: &Drive,
    plan: &Plan,
    at_once: Option<usize>,
    stop: &Arc<AtomicBool>,
    bar: &mut Bar,
) -> anyhow::Result<Reviewed> {
    let run_id = run_id(drive);
    let store = Mutex::new(common.store.live(&drive.dir, &run_id));
    let rec = match at_once {
        None => {
            let (mut dev, mut created) =
                common.open(&drive.target, true, drive.destroy_data.clone())?;
            let mut observer = Storing {
                bar: &mut *bar,
                store: &store,
            };
            let mut ctx = context(common, stop, &mut observer);
            ctx.meter = common.start_meter(&drive.target)?;
            let rec = runner::run(
                dev.as_mut(),
                &mut ctx,
                &drive.target,
                plan,
                &drive.dir,
                drive.resume,
                &run_id,
            );
            drop(ctx);
            bar.close();
            let rec = rec?;
            created.keep();
            rec
        }
        Some(at_once) => {
            let multi = indicatif::MultiProgress::new();
            let in_context = |id: &str, body: &mut dyn FnMut(&mut Context)| {
                let mut bar = Bar::for_step(common.quiet, stop, id, &multi);
                let mut observer = Storing {
                    bar: &mut bar,
                    store: &store,
                };
                body(&mut context(common, stop, &mut observer));
                bar.close();
            };
            suite::fresh_instances::run(
                &drive.target,
                &common.request(true, drive.destroy_data.clone()),
                at_once,
                &in_context,
                plan,
                &drive.dir,
                drive.resume,
                &run_id,
            )?
        }
    };
    let report = run::results::write_report(&drive.dir).ok();
    let store = store.into_inner().unwrap_or_else(|p| p.into_inner());
    Ok(Reviewed { rec, report, store })
}

/// A step's context: the suite's stop flag and settings, and its observer.
fn context<'a>(
    common: &DriveArgs,
    stop: &'a AtomicBool,
    observer: &'a mut dyn Observer,
) -> Context<'a> {
    let mut ctx = Context::new(stop, observer);
    ctx.purge = common.purge;
    ctx.precondition = common.precondition;
    ctx
}

/// A new run gets a new identity; a resumed one keeps its own: suite.json's (there from the
/// start, before any result), or for a suite of an earlier version the one the Bench derives
/// from its results, which the runner then writes into suite.json.
fn run_id(drive: &Drive) -> String {
    let resumed = || {
        suite::runner::read_suite(&drive.dir)
            .ok()
            .and_then(|s| s.run_id)
            .or_else(|| {
                bench::db::RunRecord::from_dir(&drive.dir)
                    .ok()?
                    .into_iter()
                    .find(|r| r.kind == "suite")
                    .map(|r| r.run_id)
            })
    };
    match drive.resume {
        true => resumed().unwrap_or_else(suite::results_dir::new_run_id),
        false => suite::results_dir::new_run_id(),
    }
}

/// A suite's observer: the progress display, and the run stored after each step. Storing
/// there keeps it out of every measured phase, and the runner has recorded the step in
/// suite.json by then, so an unfinished suite is stored incomplete. Steps at once share the
/// store.
struct Storing<'a> {
    bar: &'a mut Bar,
    store: &'a Mutex<LiveStore>,
}

impl Observer for Storing<'_> {
    fn phase(&mut self, label: &str, clock: Clock) {
        self.bar.phase(label, clock);
    }
    fn progress(&mut self, p: &Progress) {
        self.bar.progress(p);
    }
    fn phase_done(&mut self) {
        self.bar.phase_done();
    }
    fn note(&mut self, text: &str) {
        self.bar.note(text);
    }
    fn step(&mut self, number: usize, of: usize, id: &str) {
        self.bar.step(number, of, id);
    }
    fn step_done(&mut self, status: Status, results: &[TestResult]) {
        self.bar.step_done(status, results);
        let mut store = self.store.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(note) = store.store() {
            self.bar.note(&note.to_string());
        }
    }
}

/// The steps that did not complete, a line each.
fn print_unfinished(rec: &SuiteRecord, indent: &str) {
    for s in rec.steps.iter().filter(|s| s.status != Status::Complete) {
        println!(
            "{indent}{:<24} {:?}{}",
            s.id,
            s.status,
            s.message
                .as_deref()
                .map(|m| format!(": {m}"))
                .unwrap_or_default()
        );
    }
}

/// 0 for a suite that ran to its end, 130 interrupted (saying how to carry on), 1 with a
/// step failed.
fn exit_status(rec: &SuiteRecord, dir: &Path, interrupted: bool) -> u8 {
    if rec.complete {
        0
    } else if interrupted {
        eprintln!(
            "interrupted: carry on with `ssdlab suite --resume {}`",
            dir.display()
        );
        130
    } else if rec.steps.iter().any(|s| s.status == Status::Failed) {
        1
    } else {
        // Left out of this run by --only or --skip on a resume.
        let remaining: Vec<&str> = rec.unfinished().map(|s| s.id.as_str()).collect();
        eprintln!(
            "not complete: {} still to run; carry on with `ssdlab suite --resume {}`",
            remaining.join(", "),
            dir.display()
        );
        0
    }
}

/// Several targets: a thread each, side by side, one progress display, one Ctrl-C for all.
fn run_several(a: SuiteArgs) -> anyhow::Result<ExitCode> {
    if let Some(dir) = &a.resume {
        anyhow::bail!(
            "--resume carries on one drive's suite: resume each on its own, \
             `ssdlab suite --resume {}/<target's directory>`, without --target",
            dir.display()
        );
    }
    // One meter reads one drive over one command's phases: with several drives at once its
    // readings would mix theirs.
    anyhow::ensure!(
        a.common.power_meter.is_none(),
        "--power-meter (or SSDLAB_POWER_METER) measures one drive: review a metered drive on its \
         own (one --target)"
    );
    anyhow::ensure!(
        a.jobs.is_none(),
        "--jobs runs one drive's steps at once: with several --target, each drive's steps run \
         one by one on it, the drives side by side; drop --jobs"
    );
    let drives = drives(&a)?;
    let plan = plan(&a, a.methodology, a.quick, a.pts_scale)?;
    let stop = crate::cmd_run::stop_flag()?;
    let multi = indicatif::MultiProgress::new();
    let workers = Workers::plan(drives.iter().map(|d| d.dir.clone()).collect());
    if !a.common.quiet {
        for (i, drive) in drives.iter().enumerate() {
            eprintln!(
                "reviewing {} into {} ({})",
                drive.target,
                drive.dir.display(),
                workers.placement(i)
            );
        }
    }
    let outcomes: Vec<anyhow::Result<Reviewed>> = workers.run(
        |i| {
            let mut bar = Bar::for_drive(a.common.quiet, &stop, &drives[i].target, &multi);
            review(&a.common, &drives[i], &plan, None, &stop, &mut bar)
        },
        |i, event| eprintln!("note: {}: {event}", drives[i].target),
    );
    let mut status = 0;
    let interrupted = stop.load(Ordering::Relaxed);
    // One wait for every drive's run still out of the Bench.
    let mut until = None;
    for (drive, outcome) in drives.iter().zip(outcomes) {
        let mut done = match outcome {
            Ok(done) => done,
            Err(e) => {
                eprintln!("{}: error: {e:#}", drive.target);
                status = status.max(2);
                continue;
            }
        };
        let rec = &done.rec;
        if !a.common.quiet {
            let state = match rec.complete {
                true => "complete",
                false => "not complete",
            };
            eprintln!("{}: {state}", drive.target);
            print_unfinished(rec, "  ");
            eprintln!("  results: {}", drive.dir.display());
            if let Some(report) = &done.report {
                eprintln!("  report: {}", report.display());
            }
        }
        let until = *until.get_or_insert_with(|| done.store.deadline());
        live_store::finish(&mut done.store, until, &stop, a.common.quiet);
        status = status.max(exit_status(&done.rec, &drive.dir, interrupted));
    }
    Ok(ExitCode::from(status))
}

/// The drives of several --target: each in a directory of --out named after it, with the
/// --destroy-data naming its device, if any. Two targets that write the same storage (one
/// file or device by two names, a partition of a disk also given, a loop device and its
/// file) are one drive, and refused: each would measure the other's interference.
fn drives(a: &SuiteArgs) -> anyhow::Result<Vec<Drive>> {
    let base = run::results::claim_dir(a.out.as_deref(), "suite")?;
    let registry = suite::target::registry();
    let footprints = a
        .targets
        .iter()
        .map(|t| registry.footprint(t))
        .collect::<Result<Vec<_>, _>>()?;
    for given in &a.destroy_data {
        anyhow::ensure!(
            footprints.iter().any(|f| safety::confirms(given, f)),
            "--destroy-data={given} names none of the targets: give one for each device \
             that holds data, as its --target names it"
        );
    }
    let mut drives: Vec<Drive> = Vec::new();
    for (i, (target, footprint)) in a.targets.iter().zip(&footprints).enumerate() {
        for (earlier, theirs) in a.targets.iter().zip(&footprints).take(i) {
            anyhow::ensure!(
                earlier != target,
                "--target {target} given twice: a drive can run one suite at a time"
            );
            if let Some(why) = theirs.shared_with(footprint) {
                anyhow::bail!(
                    "--target {earlier} and --target {target} are one drive ({why}): a drive \
                     can run one suite at a time, and each would measure the other's \
                     interference; drop one of them"
                );
            }
        }
        let mut name = dir_name(target);
        if drives.iter().any(|d| d.dir == base.join(&name)) {
            name = format!("{name}-{}", drives.len() + 1);
        }
        suite::results_dir::check_unused(&base.join(&name))?;
        drives.push(Drive {
            target: target.clone(),
            dir: base.join(name),
            resume: false,
            destroy_data: a
                .destroy_data
                .iter()
                .find(|d| safety::confirms(d, footprint))
                .cloned(),
        });
    }
    Ok(drives)
}

/// A target as a directory name: /dev/nvme0n1 -> dev_nvme0n1, sim:default,op=25% ->
/// sim_default_op_25.
fn dir_name(target: &str) -> String {
    let name: String = target
        .chars()
        .map(|c| match c {
            'a'..='z' | 'A'..='Z' | '0'..='9' | '.' | '-' | '=' => c,
            _ => '_',
        })
        .collect();
    let name = name.trim_matches('_').replace('=', "_");
    match name.is_empty() {
        true => "target".into(),
        false => name,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn targets_become_directory_names() {
        assert_eq!(dir_name("/dev/nvme0n1"), "dev_nvme0n1");
        assert_eq!(dir_name("sim:default,op=25%"), "sim_default_op_25");
        assert_eq!(dir_name("file:/tmp/x.img:1G"), "file__tmp_x.img_1G");
    }
}
