//! `ssdlab suite`'s flags, and the [`Review`] they make: the plan cut to `--only` and
//! `--skip`, each drive's results directory and run id, a resumed suite's record read once.

use std::path::PathBuf;
use std::str::FromStr;

use clap::Args;

use engine::safety;
use suite::methodologies::Methodology;
use suite::runner::{self, Plan};

use crate::review::{Review, ReviewDrive};
use crate::target_flags::DriveArgs;
use crate::RunError;

#[derive(Args, Debug)]
pub struct SuiteFlags {
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

fn refuse(text: impl Into<String>) -> RunError {
    RunError::Flags(text.into())
}

impl SuiteFlags {
    /// The review these flags ask for. Every check that needs no target comes before a
    /// results directory is claimed.
    pub fn review(&self) -> Result<Review, RunError> {
        let one = self.targets.len() == 1;
        if one && self.destroy_data.len() > 1 {
            return Err(refuse(format!(
                "--destroy-data given {} times for one --target: name the target's device once",
                self.destroy_data.len()
            )));
        }
        let resumed = match (&self.resume, one) {
            (None, _) => None,
            (Some(dir), true) => Some(self.resumed(dir)?),
            (Some(dir), false) => {
                return Err(refuse(format!(
                    "--resume carries on one drive's suite: resume each on its own, \
                     `ssdlab suite --resume {}/<target's directory>`, without --target",
                    dir.display()
                )))
            }
        };
        let plan = match resumed.as_ref().and_then(|d| d.previous.as_ref()) {
            Some(rec) => self.plan(rec.methodology, rec.quick, rec.pts_scale)?,
            None => self.plan(self.methodology, self.quick, self.pts_scale)?,
        };
        let (at_once, drives) = match resumed {
            Some(drive) => (self.instances_at_once(&drive.target, &plan)?, vec![drive]),
            None if one => {
                let at_once = self.instances_at_once(&self.targets[0], &plan)?;
                (at_once, vec![self.fresh(&self.targets[0])?])
            }
            None => (None, self.several()?),
        };
        let c = &self.common;
        Ok(Review {
            plan,
            drives,
            at_once,
            open: c.request(true, None),
            purge: c.purge,
            precondition: c.precondition,
            power_meter: c.power_meter.as_deref().map(str::parse).transpose()?,
            store: c.store.store(),
        })
    }

    /// The one drive of a new suite, in its own directory (--out, or a new one).
    fn fresh(&self, target: &str) -> Result<ReviewDrive, RunError> {
        Ok(ReviewDrive {
            target: target.into(),
            dir: crate::results::claim_dir(self.out.as_deref(), "suite")?,
            previous: None,
            destroy_data: self.destroy_data.first().cloned(),
            run_id: suite::results_dir::new_run_id(),
        })
    }

    /// The suite in `dir` carried on: its target, plan and run id are its record's.
    fn resumed(&self, dir: &std::path::Path) -> Result<ReviewDrive, RunError> {
        let record = runner::read_suite(dir)?;
        let run_id = record.run_id.clone().or_else(|| legacy_run_id(dir));
        Ok(ReviewDrive {
            target: record.target_spec.clone(),
            dir: dir.to_path_buf(),
            destroy_data: self.destroy_data.first().cloned(),
            run_id: run_id.unwrap_or_else(suite::results_dir::new_run_id),
            previous: Some(record),
        })
    }

    /// The plan, cut to `--only` and `--skip`: a name in neither is an error naming the steps.
    fn plan(
        &self,
        methodology: Methodology,
        quick: bool,
        pts_scale: Option<f64>,
    ) -> Result<Plan, RunError> {
        let plan = Plan::of(methodology, quick).with_pts_scale(pts_scale)?;
        for name in self.only.iter().chain(&self.skip) {
            if !plan
                .steps
                .iter()
                .any(|s| &s.id == name || s.test.name() == name)
            {
                let ids: Vec<&str> = plan.steps.iter().map(|s| s.id.as_str()).collect();
                return Err(refuse(format!(
                    "no suite step named '{name}'{}: use one of {}",
                    crate::suggest::did_you_mean(name, ids.iter().copied()),
                    ids.join(", ")
                )));
            }
        }
        Ok(Plan {
            steps: runner::select(plan.steps, &self.only, &self.skip)?,
            ..plan
        })
    }

    /// How the plan's steps run on `target`: on a fresh instance each, --jobs or the CPUs at
    /// once, where they can (a simulated drive, and steps that each start from a purged drive,
    /// with no meter reading one drive); else None, in sequence on the one drive. --jobs above
    /// 1 where they cannot is an error.
    fn instances_at_once(&self, target: &str, plan: &Plan) -> Result<Option<usize>, RunError> {
        let possible =
            suite::fresh_instances::possible(target, plan)? && self.common.power_meter.is_none();
        Ok(match self.jobs.map(usize::from) {
            Some(n) if n > 1 && !possible => {
                return Err(refuse(format!(
                    "--jobs {n}: steps run at once only on a simulated drive (sim:...), for a \
                     methodology whose steps each start from a purged drive (pts-c, pts-e), \
                     without --power-meter; drop --jobs to run this suite's steps one by one"
                )))
            }
            _ if !possible => None,
            Some(n) => Some(n),
            None => Some(std::thread::available_parallelism().map_or(1, |n| n.get())),
        })
    }

    /// The drives of several --target: each in a directory of --out named after it, with the
    /// --destroy-data naming its device, if any. Two targets that write the same storage (one
    /// file or device by two names, a partition of a disk also given, a loop device and its
    /// file) are one drive, and refused: each would measure the other's interference.
    fn several(&self) -> Result<Vec<ReviewDrive>, RunError> {
        // One meter reads one drive over one command's phases: with several drives at once
        // its readings would mix theirs.
        if self.common.power_meter.is_some() {
            return Err(refuse(
                "--power-meter (or SSDLAB_POWER_METER) measures one drive: review a metered \
                 drive on its own (one --target)",
            ));
        }
        if self.jobs.is_some() {
            return Err(refuse(
                "--jobs runs one drive's steps at once: with several --target, each drive's \
                 steps run one by one on it, the drives side by side; drop --jobs",
            ));
        }
        let registry = suite::target::registry();
        let footprints = (self.targets.iter())
            .map(|t| registry.footprint(t))
            .collect::<Result<Vec<_>, _>>()
            .map_err(suite::SuiteError::from)?;
        for given in &self.destroy_data {
            if !footprints.iter().any(|f| safety::confirms(given, f)) {
                return Err(refuse(format!(
                    "--destroy-data={given} names none of the targets: give one for each device \
                     that holds data, as its --target names it"
                )));
            }
        }
        for (i, (target, footprint)) in self.targets.iter().zip(&footprints).enumerate() {
            for (earlier, theirs) in self.targets.iter().zip(&footprints).take(i) {
                if earlier == target {
                    return Err(refuse(format!(
                        "--target {target} given twice: a drive can run one suite at a time"
                    )));
                }
                if let Some(why) = theirs.shared_with(footprint) {
                    return Err(refuse(format!(
                        "--target {earlier} and --target {target} are one drive ({why}): a \
                         drive can run one suite at a time, and each would measure the other's \
                         interference; drop one of them"
                    )));
                }
            }
        }
        let base = crate::results::claim_dir(self.out.as_deref(), "suite")?;
        let mut drives: Vec<ReviewDrive> = Vec::new();
        for (target, footprint) in self.targets.iter().zip(&footprints) {
            let mut name = dir_name(target);
            if drives.iter().any(|d| d.dir == base.join(&name)) {
                name = format!("{name}-{}", drives.len() + 1);
            }
            suite::results_dir::check_unused(&base.join(&name))?;
            drives.push(ReviewDrive {
                target: target.clone(),
                dir: base.join(name),
                previous: None,
                destroy_data: (self.destroy_data.iter())
                    .find(|d| safety::confirms(d, footprint))
                    .cloned(),
                run_id: suite::results_dir::new_run_id(),
            });
        }
        Ok(drives)
    }
}

/// The identity the Bench derives for a suite of an earlier version, whose record has none
/// (the runner then writes it into the record).
fn legacy_run_id(dir: &std::path::Path) -> Option<String> {
    bench::db::RunRecord::from_dir(dir)
        .ok()?
        .into_iter()
        .find(|r| r.kind == "suite")
        .map(|r| r.run_id)
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
