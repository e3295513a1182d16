//! A methodology's review (`ssdlab suite`) of one drive, or of several side by side: each
//! drive with its own results directory, run id and run in the Bench, stored after each step;
//! a resumed suite carried on from its record. Each face shows it its own way.

use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::sync::Mutex;

use bench::live::LiveStore;
use engine::drive::PurgeMethod;
use engine::driver::Progress;
use engine::power::MeterSpec;
use engine::target::OpenRequest;
use engine::Clock;
use suite::context::{Context, Observer};
use suite::parallel::{Event, Workers};
use suite::result::TestResult;
use suite::runner::{Plan, Start, Status, SuiteRecord};
use suite::Precondition;

use crate::{RunError, Store};

/// What a review does: the plan, the drives and how their steps run, and where the runs go.
pub struct Review {
    pub plan: Plan,
    pub drives: Vec<ReviewDrive>,
    /// Each step on a fresh instance of the (one, simulated) drive, this many at once; `None`
    /// runs the steps in sequence on each drive.
    pub at_once: Option<usize>,
    /// How each drive is opened, but for the device its `destroy_data` names.
    pub open: OpenRequest,
    pub purge: PurgeMethod,
    pub precondition: Precondition,
    pub power_meter: Option<MeterSpec>,
    pub store: Store,
}

/// One drive of a review.
pub struct ReviewDrive {
    pub target: String,
    /// Its results directory, claimed for it.
    pub dir: PathBuf,
    /// The record of the suite it carries on (`--resume`), read once.
    pub previous: Option<SuiteRecord>,
    /// The device it may destroy the data of, as `--destroy-data` names it.
    pub destroy_data: Option<String>,
    /// The run's identity, unless `previous` has its own.
    pub run_id: String,
}

/// A drive's review that ran: its record, the report written of it, and its place in the
/// Bench, which the face finishes (its wait for a Bench out of reach is the face's to show).
pub struct Reviewed {
    pub record: SuiteRecord,
    pub report: Option<PathBuf>,
    pub store: LiveStore,
}

/// What a display of a review's progress is for.
pub enum Scope<'a> {
    /// The one drive's steps in sequence.
    Alone,
    /// A drive's steps in sequence, beside other drives: its target.
    Drive(&'a str),
    /// One step, at once with others on fresh instances: its id.
    Step(&'a str),
}

/// How a face shows a review as it goes; shared by the workers of drives or steps at once.
pub trait ReviewFace: Sync {
    /// A display of the progress of `scope`, closed when its steps are done.
    fn progress(&self, scope: Scope) -> Box<dyn StepsProgress + '_>;
    /// What a worker of several drives tells, about drive `i`.
    fn event(&self, _i: usize, _event: Event) {}
}

/// A review's progress display.
pub trait StepsProgress: Observer {
    /// Its steps are done (a progress bar closes).
    fn close(&mut self) {}
}

// A script's review shows nothing.
impl StepsProgress for suite::context::Silent {}

/// Review every drive of `review`, side by side when there are several: the outcomes in the
/// drives' order.
pub fn review(
    review: &Review,
    face: &dyn ReviewFace,
    stop: &AtomicBool,
) -> Vec<Result<Reviewed, RunError>> {
    if let [drive] = review.drives.as_slice() {
        return vec![review_drive(review, drive, Scope::Alone, face, stop)];
    }
    let workers = Workers::plan(review.drives.iter().map(|d| d.dir.clone()).collect());
    workers.run(
        |i| {
            let drive = &review.drives[i];
            review_drive(review, drive, Scope::Drive(&drive.target), face, stop)
        },
        |i, event| face.event(i, event),
    )
}

/// Where each worker of several drives runs, in the drives' order (a core each, or shared).
pub fn placements(review: &Review) -> Vec<String> {
    let workers = Workers::plan(review.drives.iter().map(|d| d.dir.clone()).collect());
    (0..review.drives.len())
        .map(|i| workers.placement(i).to_string())
        .collect()
}

/// Review one drive with its own device, context and run id, or each step on a fresh instance
/// of it, `review.at_once` at a time; the results directory gets its report. What it measured
/// is kept, complete or not, and stored in the Bench after each step.
fn review_drive(
    review: &Review,
    drive: &ReviewDrive,
    scope: Scope,
    face: &dyn ReviewFace,
    stop: &AtomicBool,
) -> Result<Reviewed, RunError> {
    let store = &review.store;
    let live = Mutex::new(LiveStore::new(
        store.db.clone(),
        &drive.dir,
        &drive.run_id,
        store.wait,
    ));
    let start = Start {
        target_spec: &drive.target,
        plan: &review.plan,
        dir: &drive.dir,
        previous: drive.previous.as_ref(),
        run_id: &drive.run_id,
    };
    let open = OpenRequest {
        destroy_data: drive.destroy_data.clone(),
        ..review.open.clone()
    };
    let record = match review.at_once {
        None => {
            let (mut dev, mut created) = suite::target::open_created(&drive.target, &open)?;
            let meter = match &review.power_meter {
                Some(spec) => crate::target_flags::start_meter(spec, &drive.target)?,
                None => None,
            };
            let mut progress = face.progress(scope);
            let mut observer = Storing {
                progress: progress.as_mut(),
                live: &live,
            };
            let mut ctx = review.context(stop, &mut observer);
            ctx.meter = meter;
            let record = suite::runner::run(dev.as_mut(), &mut ctx, &start);
            drop(ctx);
            progress.close();
            let record = record?;
            created.keep();
            record
        }
        Some(at_once) => {
            let in_context = |id: &str, body: &mut dyn FnMut(&mut Context)| {
                let mut progress = face.progress(Scope::Step(id));
                let mut observer = Storing {
                    progress: progress.as_mut(),
                    live: &live,
                };
                body(&mut review.context(stop, &mut observer));
                progress.close();
            };
            suite::fresh_instances::run(&start, &open, at_once, &in_context)?
        }
    };
    let report = crate::results::write_report(&drive.dir).ok();
    let store = live.into_inner().unwrap_or_else(|p| p.into_inner());
    Ok(Reviewed {
        record,
        report,
        store,
    })
}

impl Review {
    /// A step's context: the review's stop flag and settings, and its observer.
    fn context<'a>(&self, stop: &'a AtomicBool, observer: &'a mut dyn Observer) -> Context<'a> {
        let mut ctx = Context::new(stop, observer);
        ctx.purge = self.purge;
        ctx.precondition = self.precondition;
        ctx
    }
}

/// How a drive's review ended.
#[derive(Debug, PartialEq)]
pub enum ReviewEnding<'a> {
    Complete,
    /// Stopped (Ctrl-C) before its end.
    Interrupted,
    /// A step failed.
    Failed,
    /// Ran what it was asked to, but steps left out (`--only`, `--skip` on a resume) remain.
    Unfinished(Vec<&'a str>),
}

impl Reviewed {
    /// How it ended, `interrupted` or not (read before the Bench's wait, which Ctrl-C may end:
    /// that is no interrupted review).
    pub fn ending(&self, interrupted: bool) -> ReviewEnding<'_> {
        let rec = &self.record;
        if rec.complete {
            ReviewEnding::Complete
        } else if interrupted {
            ReviewEnding::Interrupted
        } else if rec.steps.iter().any(|s| s.status == Status::Failed) {
            ReviewEnding::Failed
        } else {
            ReviewEnding::Unfinished(rec.unfinished().map(|s| s.id.as_str()).collect())
        }
    }
}

impl ReviewEnding<'_> {
    /// 0 for a review that ran to its end (or all it was asked), 130 interrupted, 1 with a
    /// step failed.
    pub fn exit_code(&self) -> u8 {
        match self {
            ReviewEnding::Complete | ReviewEnding::Unfinished(_) => 0,
            ReviewEnding::Interrupted => 130,
            ReviewEnding::Failed => 1,
        }
    }
}

/// A review's observer: the face's progress display, and the run stored after each step.
/// Storing there keeps it out of every measured phase, and the runner has recorded the step
/// in suite.json by then, so an unfinished suite is stored incomplete. Steps at once share
/// the store.
struct Storing<'a> {
    progress: &'a mut dyn StepsProgress,
    live: &'a Mutex<LiveStore>,
}

impl Observer for Storing<'_> {
    fn phase(&mut self, label: &str, clock: Clock) {
        self.progress.phase(label, clock);
    }
    fn progress(&mut self, p: &Progress) {
        self.progress.progress(p);
    }
    fn phase_done(&mut self) {
        self.progress.phase_done();
    }
    fn note(&mut self, text: &str) {
        self.progress.note(text);
    }
    fn step(&mut self, number: usize, of: usize, id: &str) {
        self.progress.step(number, of, id);
    }
    fn step_done(&mut self, status: Status, results: &[TestResult]) {
        self.progress.step_done(status, results);
        let mut live = self.live.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(note) = live.store() {
            self.progress.note(&note.to_string());
        }
    }
}
