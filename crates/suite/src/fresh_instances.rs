//! A suite whose steps each start from a purged drive, on a simulated drive: each step runs on
//! a fresh instance of the drive (same spec, same seed), so it measures what it would alone
//! (`ssdlab run`), whatever ran before it, and several can run at once. A purge leaves a
//! simulated drive's history (its clock, wear and counters) as a real drive's; and a real drive
//! cannot run steps at once: each would measure the other.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Mutex;

use serde::{Deserialize, Serialize};

use engine::target::OpenRequest;
use engine::TargetKind;

use crate::context::Context;
use crate::runner::{self, Plan, Start, Status, SuiteRecord};
use crate::SuiteError;

/// How a suite's steps ran on fresh instances, kept in its record: a reader must know they did
/// not run in sequence on one drive.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FreshInstances {
    /// At most this many steps ran at once, each on its own instance.
    pub at_once: usize,
}

/// Calls its body with a context for a step, named by its id: the step's own observer, the
/// suite's stop flag and settings.
pub type InContext<'a> = dyn Fn(&str, &mut dyn FnMut(&mut Context)) + Sync + 'a;

/// Whether the plan's steps may run on fresh instances of `target_spec`: a simulated drive, and
/// a methodology whose steps each start from a purged drive.
pub fn possible(target_spec: &str, plan: &Plan) -> Result<bool, SuiteError> {
    Ok(crate::target::kind(target_spec)? == TargetKind::Sim && plan.methodology.steps_each_purge())
}

/// Run `start`'s plan, each step on an instance of its target opened for it with `request`,
/// `at_once` at a time, each in the context `in_context` gives it. As [`runner::run`]
/// otherwise: the same record, results and resume.
pub fn run(
    start: &Start,
    request: &OpenRequest,
    at_once: usize,
    in_context: &InContext,
) -> Result<SuiteRecord, SuiteError> {
    let Start {
        target_spec,
        plan,
        dir,
        ..
    } = *start;
    if !possible(target_spec, plan)? {
        return Err(SuiteError::Parameter(format!(
            "the steps of {} on {target_spec} cannot run on fresh instances: that needs a \
             simulated drive and steps that each start from a purged drive",
            plan.methodology.name()
        )));
    }
    let open = || crate::target::open(target_spec, request);
    let rec = start.record(open()?.identity(), Some(FreshInstances { at_once }))?;
    let run_id = rec.run_id.clone().unwrap_or_default();
    let steps = &plan.steps;
    let (kept, pending): (Vec<usize>, Vec<usize>) = (0..steps.len())
        .partition(|&i| rec.steps[rec.index_of(&steps[i].id)].status == Status::Complete);
    for i in kept {
        in_context(&steps[i].id, &mut |ctx| {
            ctx.observer.note("already complete, kept")
        });
    }
    let rec = Mutex::new(rec);
    let next = AtomicUsize::new(0);
    // Set by an IO failure or an error: no further step starts, as in sequence.
    let halted = AtomicBool::new(false);
    let error = Mutex::new(None);
    let worker = || {
        while !halted.load(Ordering::Relaxed) {
            let Some(&i) = pending.get(next.fetch_add(1, Ordering::Relaxed)) else {
                return;
            };
            let step = &steps[i];
            in_context(&step.id, &mut |ctx| {
                if ctx.stopped() {
                    return;
                }
                ctx.observer.step(i + 1, steps.len(), &step.id);
                let at = lock(&rec).index_of(&step.id);
                let mut record = lock(&rec).steps[at].clone();
                let ran = open().and_then(|mut dev| {
                    runner::run_step(step, dev.as_mut(), ctx, dir, &run_id, &mut record)
                });
                let ran = ran.and_then(|ran| {
                    let mut rec = lock(&rec);
                    rec.steps[at] = record.clone();
                    runner::save(dir, &mut rec).map(|()| ran)
                });
                match ran {
                    Ok(ran) => {
                        ctx.observer.step_done(record.status, &ran.results);
                        if ran.io_failed {
                            halted.store(true, Ordering::Relaxed);
                        }
                    }
                    Err(e) => {
                        halted.store(true, Ordering::Relaxed);
                        lock(&error).get_or_insert(e);
                    }
                }
            });
        }
    };
    std::thread::scope(|scope| {
        for _ in 0..at_once.min(pending.len()) {
            scope.spawn(worker);
        }
    });
    if let Some(e) = lock(&error).take() {
        return Err(e);
    }
    let mut rec = lock(&rec).clone();
    runner::save(dir, &mut rec)?;
    Ok(rec)
}

/// A lock whose holder panicked still guards whole values: each is replaced in one move.
fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::methodologies::Methodology;

    #[test]
    fn only_a_simulated_drive_with_steps_that_each_purge_takes_fresh_instances() {
        let possible = |target, methodology| possible(target, &Plan::of(methodology, true));
        assert!(possible("sim:default", Methodology::PtsE).unwrap());
        assert!(possible("sim:dc-s3700-200,op=25%", Methodology::PtsC).unwrap());
        assert!(!possible("sim:default", Methodology::Review2013).unwrap());
        assert!(!possible("file:/tmp/x.img:1G", Methodology::PtsE).unwrap());
    }
}
