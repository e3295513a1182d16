//! `ssdlab suite`: the flags made a review ([`run::suite_flags`]), carried out by the one
//! lifecycle ([`run::review`]), shown on the terminal: the whole review of a target into one
//! results directory, or of several targets side by side, a worker and a run each.

use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use indicatif::MultiProgress;
use run::suite_flags::SuiteFlags;
use run::{Review, ReviewEnding, ReviewFace, Reviewed, Scope, StepsProgress};
use suite::parallel::Event;
use suite::runner::{Status, SuiteRecord, SUITE_FILE};

use crate::output;
use crate::progress::Bar;

pub fn run(flags: SuiteFlags) -> anyhow::Result<ExitCode> {
    let review = flags.review()?;
    let quiet = flags.common.quiet;
    let stop = crate::cmd_run::stop_flag()?;
    if !quiet {
        say_beginning(&review);
    }
    let face = Terminal {
        quiet,
        stop: Arc::clone(&stop),
        multi: MultiProgress::new(),
        targets: review.drives.iter().map(|d| d.target.clone()).collect(),
    };
    let outcomes = run::review(&review, &face, &stop);
    // Before the store's wait, which Ctrl-C may end: that is no interrupted suite.
    let interrupted = stop.load(Ordering::Relaxed);
    let alone = review.drives.len() == 1;
    let mut status = 0;
    // One wait for every drive's run still out of the Bench.
    let mut until = None;
    for (drive, outcome) in review.drives.iter().zip(outcomes) {
        let mut done = match outcome {
            Ok(done) => done,
            // One drive: the error is the command's.
            Err(e) if alone => {
                if drive.dir.join(SUITE_FILE).exists() {
                    // A step's results that could not be written (a full filesystem): the
                    // steps before are kept.
                    eprintln!(
                        "results so far: {}; carry on with `ssdlab suite --resume {}`",
                        drive.dir.display(),
                        drive.dir.display()
                    );
                }
                return Err(e.into());
            }
            Err(e) => {
                eprintln!("{}: error: {e:#}", drive.target);
                status = status.max(2);
                continue;
            }
        };
        if !quiet {
            match alone {
                true => say_reviewed(&done, &drive.dir)?,
                false => say_reviewed_beside(&done, &drive.target, &drive.dir),
            }
        }
        let until = *until.get_or_insert_with(|| done.store.deadline());
        crate::live_store::finish(&mut done.store, until, &stop, quiet);
        let ending = done.ending(interrupted);
        say_ending(&ending, &drive.dir);
        status = status.max(ending.exit_code());
    }
    Ok(ExitCode::from(status))
}

/// A review on the terminal: a progress bar for the one drive, or bars drawn together for
/// several drives or steps at once.
struct Terminal {
    quiet: bool,
    stop: Arc<AtomicBool>,
    multi: MultiProgress,
    /// The drives' targets, naming a worker's events.
    targets: Vec<String>,
}

impl ReviewFace for Terminal {
    fn progress(&self, scope: Scope) -> Box<dyn StepsProgress + '_> {
        let (quiet, stop) = (self.quiet, &self.stop);
        Box::new(match scope {
            Scope::Alone => Bar::new(quiet, stop),
            Scope::Drive(target) => Bar::for_drive(quiet, stop, target, &self.multi),
            Scope::Step(id) => Bar::for_step(quiet, stop, id, &self.multi),
        })
    }

    fn event(&self, i: usize, event: Event) {
        eprintln!("note: {}: {event}", self.targets[i]);
    }
}

impl StepsProgress for Bar {
    fn close(&mut self) {
        Bar::close(self);
    }
}

/// What is reviewed where, and how.
fn say_beginning(review: &Review) {
    if let [drive] = review.drives.as_slice() {
        let how = match review.at_once {
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
        return;
    }
    for (drive, placement) in review.drives.iter().zip(run::placements(review)) {
        eprintln!(
            "reviewing {} into {} ({placement})",
            drive.target,
            drive.dir.display()
        );
    }
}

/// The one drive's summary, in the suite's order, and where its results and report are.
fn say_reviewed(done: &Reviewed, dir: &std::path::Path) -> anyhow::Result<()> {
    let all = suite::results_dir::read_results(dir)?;
    let results: Vec<_> = (done.record.steps.iter())
        .flat_map(|s| &s.results)
        .filter_map(|stem| all.iter().find(|r| &r.file_stem() == stem).cloned())
        .collect();
    output::print_summary(&results);
    print_unfinished(&done.record, "");
    eprintln!("results: {}", dir.display());
    if let Some(report) = &done.report {
        eprintln!("report: {}", report.display());
    }
    Ok(())
}

/// One of several drives: how it ended, and where its results and report are.
fn say_reviewed_beside(done: &Reviewed, target: &str, dir: &std::path::Path) {
    let state = match done.record.complete {
        true => "complete",
        false => "not complete",
    };
    eprintln!("{target}: {state}");
    print_unfinished(&done.record, "  ");
    eprintln!("  results: {}", dir.display());
    if let Some(report) = &done.report {
        eprintln!("  report: {}", report.display());
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

/// How to carry on a review that did not end complete.
fn say_ending(ending: &ReviewEnding, dir: &std::path::Path) {
    match ending {
        ReviewEnding::Complete | ReviewEnding::Failed => {}
        ReviewEnding::Interrupted => eprintln!(
            "interrupted: carry on with `ssdlab suite --resume {}`",
            dir.display()
        ),
        ReviewEnding::Unfinished(remaining) => eprintln!(
            "not complete: {} still to run; carry on with `ssdlab suite --resume {}`",
            remaining.join(", "),
            dir.display()
        ),
    }
}
