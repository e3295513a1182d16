//! `ssdlab suite`: every test of the methodology in the order of the preconditioning state it
//! needs (clean first, torture last; each test purges as the methodology says), into one
//! results directory with `suite.json`, resumable after an interruption.

use std::path::Path;

use serde::{Deserialize, Serialize};

use engine::size::Span;
use engine::system::SystemInfo;
use engine::{Device, Identity};

use crate::context::Context;
use crate::fresh_instances::FreshInstances;
use crate::methodologies::Methodology;
use crate::methodology::TestId;
use crate::params::Overrides;
use crate::result::{utc_now, TestResult, Tool};
use crate::results_dir::{write_atomic, write_result};
use crate::SuiteError;

/// One step of the suite: a test with its parameters.
#[derive(Clone, Debug, PartialEq)]
pub struct Step {
    /// Unique within the suite, e.g. "consistency-spare-25".
    pub id: String,
    pub test: TestId,
    pub overrides: Overrides,
}

/// What a suite runs: a methodology's steps (perhaps cut to some), scaled or not.
#[derive(Clone, Debug, PartialEq)]
pub struct Plan {
    pub methodology: Methodology,
    pub steps: Vec<Step>,
    /// Durations and regions scaled down for small or slow targets.
    pub quick: bool,
    /// The SNIA PTS steps' `--pts-scale`, when the operator chose one.
    pub pts_scale: Option<f64>,
}

impl Plan {
    /// Every step of `methodology`.
    pub fn of(methodology: Methodology, quick: bool) -> Plan {
        Plan {
            methodology,
            steps: methodology.steps(quick),
            quick,
            pts_scale: None,
        }
    }

    /// The plan with its SNIA PTS steps run at `scale` (`--pts-scale`); refused for a
    /// methodology with no PTS step, or a scale the PTS tests would refuse.
    pub fn with_pts_scale(mut self, scale: Option<f64>) -> Result<Plan, SuiteError> {
        let Some(scale) = scale else {
            return Ok(self);
        };
        let mut scaled = 0;
        for step in &mut self.steps {
            let test = crate::methodology::get(step.test)?;
            if test.takes(crate::methodology::Options::PTS) {
                step.overrides.pts_scale = Some(scale);
                step.overrides.validate(test)?;
                scaled += 1;
            }
        }
        if scaled == 0 {
            return Err(SuiteError::Parameter(format!(
                "--pts-scale shortens the SNIA PTS tests: the {} methodology has none; drop \
                 --pts-scale, or use --methodology pts-c or pts-e",
                self.methodology.name()
            )));
        }
        self.pts_scale = Some(scale);
        Ok(self)
    }
}

/// The 2013 review's steps. `quick` scales durations and regions for small or slow targets.
pub fn plan(quick: bool) -> Vec<Step> {
    let q = |full: Overrides, quick_o: Overrides| if quick { quick_o } else { full };
    let none = Overrides::default;
    vec![
        Step {
            id: TestId::TransferSweep.name().into(),
            test: TestId::TransferSweep,
            overrides: q(
                none(),
                Overrides {
                    span: Some(Span::Bytes(32 << 20)),
                    ..none()
                },
            ),
        },
        Step {
            id: TestId::SeqIncompressible.name().into(),
            test: TestId::SeqIncompressible,
            overrides: none(),
        },
        Step {
            id: TestId::Corners.name().into(),
            test: TestId::Corners,
            overrides: q(
                none(),
                Overrides {
                    duration_s: Some(10.0),
                    ..none()
                },
            ),
        },
        Step {
            id: TestId::Consistency.name().into(),
            test: TestId::Consistency,
            overrides: q(
                none(),
                Overrides {
                    duration_s: Some(60.0),
                    ..none()
                },
            ),
        },
        Step {
            id: format!("{}-spare-25", TestId::Consistency),
            test: TestId::Consistency,
            overrides: q(
                Overrides {
                    spare_pct: Some(25.0),
                    ..none()
                },
                Overrides {
                    spare_pct: Some(25.0),
                    duration_s: Some(60.0),
                    ..none()
                },
            ),
        },
        Step {
            id: TestId::SteadyState.name().into(),
            test: TestId::SteadyState,
            overrides: q(
                none(),
                Overrides {
                    duration_s: Some(5.0),
                    ..none()
                },
            ),
        },
        Step {
            id: TestId::Trim.name().into(),
            test: TestId::Trim,
            overrides: q(
                none(),
                Overrides {
                    duration_s: Some(30.0),
                    ..none()
                },
            ),
        },
        Step {
            id: TestId::StorageBench.name().into(),
            test: TestId::StorageBench,
            overrides: q(
                none(),
                Overrides {
                    trace_scale: Some(0.02),
                    ..none()
                },
            ),
        },
    ]
    .into_iter()
    // Power last, as the reviews had it: idle and slumber after the drive has rested.
    .chain(crate::methodology::power::TESTS.map(|test| Step {
        id: test.name().into(),
        test,
        overrides: q(
            none(),
            Overrides {
                duration_s: Some(10.0),
                rest_s: matches!(test, TestId::PowerIdle | TestId::PowerSlumber).then_some(5.0),
                ..none()
            },
        ),
    }))
    .collect()
}

/// Keep the steps named by `only` (if any) and not named by `skip`; names are step ids or
/// test names. Unknown names are an error.
pub fn select(steps: Vec<Step>, only: &[String], skip: &[String]) -> Result<Vec<Step>, SuiteError> {
    for name in only.iter().chain(skip) {
        if !steps.iter().any(|s| &s.id == name || s.test.name() == name) {
            let ids: Vec<&str> = steps.iter().map(|s| s.id.as_str()).collect();
            return Err(SuiteError::Parameter(format!(
                "no suite step named '{name}': use one of {}",
                ids.join(", ")
            )));
        }
    }
    let named = |s: &Step, names: &[String]| names.iter().any(|n| n == &s.id || n == s.test.name());
    Ok(steps
        .into_iter()
        .filter(|s| (only.is_empty() || named(s, only)) && !named(s, skip))
        .collect())
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    Complete,
    /// Interrupted or failed part-way; what it measured is kept.
    Incomplete,
    /// The test cannot run yet (storage-bench without trace replay).
    Unavailable,
    Failed,
    Pending,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StepRecord {
    pub id: String,
    pub test: TestId,
    pub status: Status,
    /// Result file stems in the directory.
    #[serde(default)]
    pub results: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// Headline numbers of each result, for readers of suite.json alone.
    #[serde(default)]
    pub summaries: Vec<serde_json::Value>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SuiteRecord {
    pub tool: Tool,
    /// The run's identity (a UUID), kept by `--resume`; absent in suites of earlier versions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run_id: Option<String>,
    pub started_at: String,
    pub updated_at: String,
    pub target_spec: String,
    pub target: Identity,
    pub system: SystemInfo,
    /// The plan it follows; absent (the 2013 review) in suites of earlier versions.
    #[serde(default, skip_serializing_if = "Methodology::is_default")]
    pub methodology: Methodology,
    pub quick: bool,
    /// The SNIA PTS steps' `--pts-scale`, when the operator chose one (`--resume` keeps it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pts_scale: Option<f64>,
    /// Each step ran on a fresh instance of the simulated drive, some at once, not in sequence
    /// on one drive; absent when they ran in sequence on one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fresh_instances: Option<FreshInstances>,
    pub complete: bool,
    pub steps: Vec<StepRecord>,
}

pub const SUITE_FILE: &str = "suite.json";

pub fn read_suite(dir: &Path) -> Result<SuiteRecord, SuiteError> {
    let path = dir.join(SUITE_FILE);
    let text = crate::results_dir::read_capped(&path)
        .map_err(|e| SuiteError::Output(format!("{e}: is it a suite results directory?")))?;
    serde_json::from_slice(&text)
        .map_err(|e| SuiteError::Output(format!("{}: {e}", path.display())))
}

pub(crate) fn save(dir: &Path, rec: &mut SuiteRecord) -> Result<(), SuiteError> {
    rec.updated_at = utc_now();
    rec.complete = rec
        .steps
        .iter()
        .all(|s| matches!(s.status, Status::Complete | Status::Unavailable));
    let text = serde_json::to_string_pretty(rec).map_err(|e| SuiteError::Output(e.to_string()))?;
    write_atomic(&dir.join(SUITE_FILE), text.as_bytes())
}

/// Run `start`'s plan on `dev`. Resuming, the steps already complete in the previous record
/// are kept and the rest run again from the first one not completed; the run keeps the
/// identity that record gives it (`start.run_id` is for a suite of an earlier version that
/// has none).
pub fn run(
    dev: &mut dyn Device,
    ctx: &mut Context,
    start: &Start,
) -> Result<SuiteRecord, SuiteError> {
    let (plan, dir) = (start.plan, start.dir);
    let mut rec = start.record(dev.identity(), None)?;
    let run_id = rec.run_id.clone().unwrap_or_default();
    let steps = &plan.steps;
    for (number, step) in steps.iter().enumerate() {
        let i = rec.index_of(&step.id);
        if rec.steps[i].status == Status::Complete {
            ctx.observer
                .note(&format!("{}: already complete, kept", step.id));
            continue;
        }
        if ctx.stopped() {
            break;
        }
        ctx.observer.step(number + 1, steps.len(), &step.id);
        let ran = run_step(step, dev, ctx, dir, &run_id, &mut rec.steps[i])?;
        save(dir, &mut rec)?;
        ctx.observer.step_done(rec.steps[i].status, &ran.results);
        if ran.io_failed {
            break;
        }
    }
    save(dir, &mut rec)?;
    Ok(rec)
}

/// Where and what a suite runs, and the earlier record it carries on, if any.
#[derive(Clone, Copy)]
pub struct Start<'a> {
    pub target_spec: &'a str,
    pub plan: &'a Plan,
    /// The results directory, `suite.json` in it.
    pub dir: &'a Path,
    /// The record of the suite it resumes, read once ([`read_suite`]) from `dir`.
    pub previous: Option<&'a SuiteRecord>,
    /// The run's identity, unless `previous` has one.
    pub run_id: &'a str,
}

impl Start<'_> {
    /// The suite's record as it begins, saved in `dir` (the earlier record's completed steps
    /// kept when resuming); `fresh_instances` when its steps run each on its own instance.
    pub(crate) fn record(
        &self,
        target: Identity,
        fresh_instances: Option<FreshInstances>,
    ) -> Result<SuiteRecord, SuiteError> {
        let Start {
            target_spec,
            plan,
            dir,
            previous,
            run_id,
        } = *self;
        let Plan {
            methodology,
            ref steps,
            quick,
            pts_scale,
        } = *plan;
        std::fs::create_dir_all(dir)
            .map_err(|e| SuiteError::Output(format!("{}: {e}", dir.display())))?;
        if let Some(p) = previous {
            if p.target_spec != target_spec {
                return Err(SuiteError::Parameter(format!(
                    "{} holds a suite of {}, not {target_spec}: resume with --target {}",
                    dir.display(),
                    p.target_spec,
                    p.target_spec
                )));
            }
            if p.methodology != methodology {
                return Err(SuiteError::Parameter(format!(
                    "{} holds a {} suite, not {}: resume with --methodology {}",
                    dir.display(),
                    p.methodology.name(),
                    methodology.name(),
                    p.methodology.name()
                )));
            }
        }
        let run_id = previous
            .and_then(|p| p.run_id.clone())
            .unwrap_or_else(|| run_id.to_string());
        let mut rec = SuiteRecord {
            tool: Tool::default(),
            run_id: Some(run_id.clone()),
            started_at: previous.map_or_else(utc_now, |p| p.started_at.clone()),
            updated_at: utc_now(),
            target_spec: target_spec.into(),
            target,
            system: SystemInfo::probe(),
            methodology,
            quick: previous.map_or(quick, |p| p.quick),
            pts_scale: previous.map_or(pts_scale, |p| p.pts_scale),
            // Steps kept from an earlier run on fresh instances ran so.
            fresh_instances: fresh_instances.or(previous.and_then(|p| p.fresh_instances)),
            complete: false,
            steps: step_records(steps, previous),
        };
        match previous {
            Some(_) => crate::results_dir::resume_run(dir, &run_id)?,
            None => crate::results_dir::start_run(dir, &run_id)?,
        }
        save(dir, &mut rec)?;
        Ok(rec)
    }
}

/// The record's steps as a run of `steps` begins: each pending, or kept when complete in the
/// `previous` record of a resumed suite. The previous record's steps this run leaves out
/// (`--only`, `--skip`) stay as they were, in their places: a resume of some steps leaves the
/// others to a later one, the suite incomplete until they have run.
fn step_records(steps: &[Step], previous: Option<&SuiteRecord>) -> Vec<StepRecord> {
    let planned = |s: &Step| {
        let done_before = previous
            .and_then(|p| (p.steps.iter()).find(|r| r.id == s.id && r.status == Status::Complete));
        done_before.cloned().unwrap_or(StepRecord {
            id: s.id.clone(),
            test: s.test,
            status: Status::Pending,
            results: Vec::new(),
            message: None,
            summaries: Vec::new(),
        })
    };
    let Some(previous) = previous else {
        return steps.iter().map(planned).collect();
    };
    let in_plan = |id: &str| steps.iter().find(|s| s.id == id);
    let was_there = |s: &&Step| previous.steps.iter().any(|r| r.id == s.id);
    let kept =
        (previous.steps.iter()).map(|old| in_plan(&old.id).map_or_else(|| old.clone(), planned));
    let added = steps.iter().filter(|s| !was_there(s)).map(planned);
    kept.chain(added).collect()
}

impl SuiteRecord {
    /// Where step `id` of the plan is in the record (which holds every planned step).
    pub(crate) fn index_of(&self, id: &str) -> usize {
        self.steps
            .iter()
            .position(|r| r.id == id)
            .expect("the record holds every step of the plan")
    }

    /// The steps not yet complete (pending, incomplete or failed), by id.
    pub fn unfinished(&self) -> impl Iterator<Item = &StepRecord> {
        self.steps
            .iter()
            .filter(|s| !matches!(s.status, Status::Complete | Status::Unavailable))
    }
}

/// A step that ran: its results, and whether an IO failed (a target whose IOs fail would fail
/// every later step too: none should run).
pub(crate) struct Ran {
    pub results: Vec<TestResult>,
    pub io_failed: bool,
}

/// Run `step`, its results written into `dir` as run `run_id` and `record` updated.
pub(crate) fn run_step(
    step: &Step,
    dev: &mut dyn Device,
    ctx: &mut Context,
    dir: &Path,
    run_id: &str,
    record: &mut StepRecord,
) -> Result<Ran, SuiteError> {
    let mut ran = Ran {
        results: Vec::new(),
        io_failed: false,
    };
    match crate::methodology::run(step.test, dev, ctx, &step.overrides) {
        Ok(mut results) => {
            record.results.clear();
            record.summaries.clear();
            for r in &mut results {
                r.run_id = Some(run_id.to_string());
                write_result(dir, r)?;
                record.results.push(r.file_stem());
                record.summaries.push(serde_json::json!({
                    "file": format!("{}.json", r.file_stem()),
                    "label": r.label,
                    "complete": r.complete,
                    "iops": r.summary.iops,
                    "mbps": r.summary.mbps,
                    "analysis": r.analysis,
                }));
            }
            let complete = !results.is_empty() && results.iter().all(|r| r.complete);
            let failed = results.iter().find_map(|r| match &r.stopped {
                Some(engine::driver::Stopped::Failed(why)) => Some(why.clone()),
                _ => None,
            });
            record.status = if complete {
                Status::Complete
            } else if failed.is_some() {
                Status::Failed
            } else {
                Status::Incomplete
            };
            record.message = None;
            if let Some(why) = failed {
                let message = format!(
                    "an IO failed: {why}; the suite stopped here (fix the target, then carry on with --resume)"
                );
                ctx.observer.note(&format!("{}: {message}", step.id));
                record.message = Some(message);
                ran.io_failed = true;
            }
            ran.results = results;
        }
        Err(SuiteError::Unavailable(why)) => {
            ctx.observer.note(&why);
            record.status = Status::Unavailable;
            record.message = Some(why);
        }
        Err(SuiteError::Interrupted) => {
            record.status = Status::Incomplete;
            record.message = Some("interrupted".into());
        }
        Err(e) => {
            ctx.observer.note(&format!("{} failed: {e}", step.id));
            record.status = Status::Failed;
            record.message = Some(e.to_string());
        }
    }
    Ok(ran)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plan_orders_clean_first_and_torture_last() {
        let ids: Vec<String> = plan(false).into_iter().map(|s| s.id).collect();
        let pos = |id: &str| ids.iter().position(|i| i == id).unwrap();
        assert!(pos("transfer-sweep") < pos("consistency"));
        assert!(pos("corners") < pos("consistency"));
        assert!(pos("consistency") < pos("trim"));
        assert!(pos("steady-state") < pos("trim"));
    }

    #[test]
    fn selection_by_id_or_test() {
        let s = select(plan(false), &["consistency".into()], &[]).unwrap();
        assert_eq!(s.len(), 2);
        let s = select(
            plan(false),
            &[],
            &["consistency-spare-25".into(), "trim".into()],
        )
        .unwrap();
        assert!(s
            .iter()
            .all(|s| s.id != "trim" && s.id != "consistency-spare-25"));
        let e = select(plan(false), &["nope".into()], &[])
            .unwrap_err()
            .to_string();
        assert!(e.contains("no suite step named 'nope'"), "{e}");
    }
}
