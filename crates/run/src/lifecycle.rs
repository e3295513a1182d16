//! A run's one lifecycle: checked before the target is touched, the target opened, the
//! results directory and run id made, the test run, its results written with their report,
//! shown, stored in the Bench. Each face (the terminal, Python) shows it its own way.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};

use bench::live::LiveStore;
use engine::Device;
use suite::context::{Context, Observer};
use suite::result::TestResult;

use crate::output_paths::check_creatable;
use crate::request::{Request, ResultsDir, Work};
use crate::{results, Outcome, RunError};

/// How a face shows a run as it goes.
pub trait Face {
    /// Progress while the run measures.
    fn observer(&mut self) -> &mut dyn Observer;
    /// Something to say before the measuring starts, even to a face that shows no progress.
    fn warning(&mut self, _text: &str) {}
    /// The measuring is over (a progress bar closes).
    fn measured(&mut self) {}
    /// The results are written: shown before the Bench's wait at the end, which may be long.
    fn written(&mut self, _outcome: &Outcome) {}
    /// Store the run as the command ends; a Bench out of reach is waited for a while
    /// (`LiveStore::finish`), the face showing the wait and where the run is.
    fn store(&mut self, store: &mut LiveStore, stop: &AtomicBool) {
        let until = store.deadline();
        store.finish(until, stop, |_| {});
    }
}

/// Carry out `request` on its target, opened here. A `file:` target it created is removed
/// again when the run fails.
pub fn execute(
    request: &Request,
    face: &mut dyn Face,
    stop: &AtomicBool,
) -> Result<Outcome, RunError> {
    check(request)?;
    let (mut dev, mut created) = suite::target::open_created(&request.target, &request.open)?;
    let outcome = run_on(request, dev.as_mut(), face, stop)?;
    // Results refer to the target file now: keep it.
    created.keep();
    Ok(outcome)
}

/// Carry out `request` on `dev`, already open (a script's simulated drive, in the state the
/// script left it); `request.target` names it in the results.
pub fn execute_on(
    request: &Request,
    dev: &mut dyn Device,
    face: &mut dyn Face,
    stop: &AtomicBool,
) -> Result<Outcome, RunError> {
    check(request)?;
    run_on(request, dev, face, stop)
}

/// Everything that needs no target, checked before the target is touched: a bad path found
/// after an hour's fill loses the hour.
fn check(r: &Request) -> Result<(), RunError> {
    let (test, logs) = match &r.work {
        Work::Test(t) => {
            t.overrides.validate(t.test)?;
            (Some(t.test), [&t.iolog, &t.hist_log])
        }
        Work::FioJobs(jobs) => {
            let custom = suite::methodology::get(suite::TestId::Custom)?;
            for job in &jobs.jobs {
                job.overrides.validate(custom)?;
            }
            (Some(custom), [&None, &None])
        }
        Work::Replay(_) => (None, [&None, &None]),
    };
    let files = [
        ("json", &r.output.json),
        ("fio-job", &r.output.fio_job),
        ("iolog", logs[0]),
        ("hist-log", logs[1]),
    ];
    for (flag, path) in files {
        if let Some(path) = path {
            check_creatable(flag, path)?;
        }
    }
    let (what, uses) = match test {
        Some(t) => (
            format!("`run {}`", t.name()),
            t.takes(suite::methodology::Options::PRECONDITION),
        ),
        None => ("`trace replay`".to_string(), false),
    };
    r.precondition
        .check_used_by(&what, uses)
        .map_err(|e| RunError::Flags(e.to_string()))?;
    check_logs(logs[0], logs[1])
}

/// The logs a run writes can be written.
fn check_logs(iolog: &Option<PathBuf>, hist_log: &Option<PathBuf>) -> Result<(), RunError> {
    use engine::{iolog::IOLOG_FILE, measure::hist_log::HIST_LOG_FILE};
    let logs = [
        ("--iolog", iolog, IOLOG_FILE),
        ("--hist-log", hist_log, HIST_LOG_FILE),
    ];
    for (flag, path, kind) in logs {
        if let Some(path) = path {
            kind.check_output(path)
                .map_err(|e| RunError::OutputPath(format!("{flag} {}: {e}", path.display())))?;
        }
    }
    Ok(())
}

/// Measure `work` on `dev` in `ctx`.
fn measure(
    work: &Work,
    dev: &mut dyn Device,
    ctx: &mut Context,
) -> Result<Vec<TestResult>, RunError> {
    match work {
        Work::Test(t) => {
            ctx.iolog = t.iolog.clone();
            ctx.hist_log = t.hist_log.clone();
            ctx.verify = t.verify;
            Ok(suite::methodology::run(t.test.id, dev, ctx, &t.overrides)?)
        }
        Work::FioJobs(jobs) => Ok(jobs.measure(dev, ctx)?),
        Work::Replay(replay) => replay.measure(dev, ctx),
    }
}

fn run_on(
    r: &Request,
    dev: &mut dyn Device,
    face: &mut dyn Face,
    stop: &AtomicBool,
) -> Result<Outcome, RunError> {
    let meter = match &r.power_meter {
        Some(spec) => crate::target_flags::start_meter(spec, &r.target)?,
        None => None,
    };
    // The run's identity, in its directory from the start and in every result.
    let run_id = suite::results_dir::new_run_id();
    let dir = claim(&r.output.dir, &run_id, r.work.name())?;
    let abandon = |dir: &Option<Claimed>| {
        if let Some(Claimed { path, fresh: true }) = dir {
            suite::results_dir::abandon_run(path);
        }
    };
    if let Work::Replay(replay) = &r.work {
        if let Some(warning) = replay.beyond_target(dev.geometry().capacity_bytes) {
            face.warning(&warning);
        }
    }
    let mut ctx = Context::new(stop, face.observer());
    ctx.purge = r.purge;
    ctx.precondition = r.precondition;
    ctx.meter = meter;
    let measured = measure(&r.work, dev, &mut ctx);
    let log_failures = std::mem::take(&mut ctx.log_failures);
    drop(ctx);
    face.measured();
    let mut results = measured.inspect_err(|_| abandon(&dir))?;
    for result in &mut results {
        result.run_id = Some(run_id.clone());
        // The results say what of the run was lost besides them.
        result.warnings.extend(log_failures.iter().cloned());
    }
    if results.is_empty() {
        abandon(&dir);
    }
    if completed_no_io(&r.work, &results) && !stop.load(Ordering::Relaxed) {
        abandon(&dir);
        return Err(RunError::NoIo);
    }
    let json = r.output.json.as_deref();
    let json_failed = match &dir {
        Some(d) => results::write(&d.path, d.fresh, &results, json)?,
        None => json.and_then(|p| {
            results::write_json(p, &results)
                .err()
                .map(|e| e.to_string())
        }),
    };
    let report = match &dir {
        Some(d) if !results.is_empty() => Some(results::write_report(&d.path)?),
        _ => None,
    };
    let fio_job_failed = r.output.fio_job.as_deref().and_then(|path| {
        let text = crate::fio_job::export::job_file(&results, &r.target);
        suite::results_dir::write_atomic(path, text.as_bytes())
            .err()
            .map(|e| e.to_string())
    });
    let mut lost = log_failures;
    lost.extend(json_failed);
    lost.extend(fio_job_failed);
    let outcome = Outcome {
        dir: dir.map(|d| d.path),
        run_id,
        results,
        report,
        lost,
        // Before the store's wait, which Ctrl-C may end: that is no interrupted run.
        interrupted: stop.load(Ordering::Relaxed),
    };
    face.written(&outcome);
    store(r, &outcome, face, stop);
    Ok(outcome)
}

/// The results directory a run writes, and whether it was made for it.
struct Claimed {
    path: PathBuf,
    fresh: bool,
}

fn claim(dir: &ResultsDir, run_id: &str, name: &str) -> Result<Option<Claimed>, RunError> {
    Ok(match dir {
        ResultsDir::Nowhere => None,
        ResultsDir::At(path) => {
            let fresh = !path.exists();
            suite::results_dir::add_run(path, run_id, name)?;
            Some(Claimed {
                path: path.clone(),
                fresh,
            })
        }
        ResultsDir::New => {
            let path = results::new_dir(name)?;
            suite::results_dir::start_run(&path, run_id)?;
            Some(Claimed { path, fresh: true })
        }
    })
}

/// Store a run that kept results in a directory, unless told not to store.
fn store(r: &Request, outcome: &Outcome, face: &mut dyn Face, stop: &AtomicBool) {
    let (Some(dir), Some(db)) = (&outcome.dir, &r.store.db) else {
        return;
    };
    if outcome.results.is_empty() {
        return;
    }
    let mut live = LiveStore::new(Some(db.clone()), dir, &outcome.run_id, r.store.wait);
    face.store(&mut live, stop);
}

/// Whether a test that issues IOs ran and completed none: a figure of no IOs is none. A run
/// whose IOs failed says so instead, as a failure.
fn completed_no_io(work: &Work, results: &[TestResult]) -> bool {
    let idle = matches!(work, Work::Test(t) if matches!(
        t.test.id,
        suite::TestId::PowerIdle | suite::TestId::PowerSlumber
    ));
    !idle
        && !results.is_empty()
        && results::failure(results).is_none()
        && results.iter().all(|r| r.summary.ios == 0)
}
