//! A run as one typed value: the target, what it measures (a test with its overrides, or a
//! trace), where its results go and where it is stored. The faces build it ([`RunFlags::request`]); [`crate::execute`]
//! carries it out.

use std::path::PathBuf;
use std::time::Duration;

use engine::pattern::DataKind;
use engine::power::MeterSpec;
use engine::shape::{DutyCycle, Rate, Shape};
use engine::target::OpenRequest;
use engine::verify::VerifyOptions;
use suite::methodology::{Test, TestId, Verifies};
use suite::params::Overrides;

use crate::fio_job::FioJobs;
use crate::flags::{BlockSizes, RunFlags};
use crate::replay::Replay;
use crate::target_flags::TargetArgs;
use crate::RunError;

/// One run: a test, or a trace played back, on one target.
pub struct Request {
    /// The target's spec, as `--target` names it.
    pub target: String,
    /// How it is opened (`write` as the work needs): backend, polling, the device it may
    /// destroy.
    pub open: OpenRequest,
    pub work: Work,
    /// How a test from a clean drive purges it.
    pub purge: engine::drive::PurgeMethod,
    /// How a test of random writes in steady state prepares the purged drive.
    pub precondition: suite::Precondition,
    /// The drive's power meter, read over every measured phase.
    pub power_meter: Option<MeterSpec>,
    pub output: Output,
    pub store: Store,
}

/// What a run measures.
pub enum Work {
    Test(TestWork),
    /// A fio job file's jobs, each a custom workload (`run custom --fio`).
    FioJobs(FioJobs),
    Replay(Replay),
}

/// A test of the methodology, with what the user changed of it.
pub struct TestWork {
    pub test: &'static Test,
    pub overrides: Overrides,
    /// A per-IO log and the fio histogram log of the measured phase.
    pub iolog: Option<PathBuf>,
    pub hist_log: Option<PathBuf>,
    pub verify: Option<VerifyOptions>,
}

impl Work {
    /// Its name, as its results and results directory have it.
    pub fn name(&self) -> &'static str {
        match self {
            Work::Test(t) => t.test.name(),
            Work::FioJobs(_) => suite::TestId::Custom.name(),
            Work::Replay(_) => suite::TestId::Replay.name(),
        }
    }
}

/// Where a run's results go.
pub struct Output {
    pub dir: ResultsDir,
    /// Also the result JSON here (an array for a group of results).
    pub json: Option<PathBuf>,
    /// Also a fio job file that runs each result's measured phase on the same target.
    pub fio_job: Option<PathBuf>,
}

/// The run's results directory.
pub enum ResultsDir {
    /// A new one, `results/TEST-STAMP`.
    New,
    /// This one: made, or added to when it holds no other run's results.
    At(PathBuf),
    /// None: the results are only returned (a script's run), so nothing is stored either.
    Nowhere,
}

/// Where finished runs are kept.
pub struct Store {
    /// The Bench database; None: not stored.
    pub db: Option<PathBuf>,
    /// How long the run's end waits for a Bench out of reach.
    pub wait: Duration,
}

impl TargetArgs {
    /// A request of `work` on these flags' target, its results to `output`.
    pub fn request_for(&self, work: Work, output: Output) -> Result<Request, RunError> {
        let write = match &work {
            Work::Test(t) => (t.test.writes)(&t.overrides),
            Work::FioJobs(jobs) => jobs.writes(),
            Work::Replay(r) => r.stats.writes > 0 || r.stats.discards > 0,
        };
        Ok(Request {
            open: self.request(write, self.destroy_data.clone()),
            target: self.target.clone(),
            work,
            purge: self.purge,
            precondition: self.precondition,
            power_meter: self.power_meter.as_deref().map(str::parse).transpose()?,
            output,
            store: self.store.store(),
        })
    }
}

impl TestWork {
    /// `test` with `overrides`: no logs, no verification.
    pub fn of(test: &'static Test, overrides: Overrides) -> TestWork {
        TestWork {
            test,
            overrides,
            iolog: None,
            hist_log: None,
            verify: None,
        }
    }
}

/// `--verify`'s backlog: read back every 16 MiB of 4 KiB units.
const DEFAULT_BACKLOG_UNITS: u64 = 4096;

impl RunFlags {
    /// The request these flags make: the test found, the flags that go together combined,
    /// each refusal naming the flags.
    pub fn request(self) -> Result<Request, RunError> {
        let test = find_test(&self.test)?;
        let output = Output {
            dir: self.out.clone().map_or(ResultsDir::New, ResultsDir::At),
            json: self.json.clone(),
            fio_job: self.fio_job.clone(),
        };
        if let Some(path) = &self.fio {
            return self
                .common
                .request_for(Work::FioJobs(self.fio_jobs(test, path)?), output);
        }
        let work = TestWork {
            test,
            verify: self.verify_options(test)?,
            overrides: self.overrides()?,
            iolog: self.iolog.clone(),
            hist_log: self.hist_log.clone(),
        };
        self.common.request_for(Work::Test(work), output)
    }

    /// `--fio FILE`'s jobs, on the custom test only; `--seed` and `--data`, given, override
    /// each job's `randseed` and buffer contents.
    fn fio_jobs(&self, test: &Test, path: &std::path::Path) -> Result<FioJobs, RunError> {
        if test.id != TestId::Custom {
            return Err(RunError::Flags(format!(
                "--fio runs a job file's workload as `run {}`, not `run {}`",
                TestId::Custom,
                test.id
            )));
        }
        let mut jobs = FioJobs::read(path).map_err(|error| RunError::FioJob {
            path: path.to_path_buf(),
            error,
        })?;
        let base = self.overrides()?;
        for job in &mut jobs.jobs {
            job.overrides.seed = base.seed.or(job.overrides.seed);
            job.overrides.data = base.data.or(job.overrides.data);
        }
        Ok(jobs)
    }

    fn overrides(&self) -> Result<Overrides, RunError> {
        let data = self
            .data
            .as_deref()
            .map(|d| DataKind::parse(d, self.compress_pct))
            .transpose()?;
        let (block_bytes, block_mix) = match self.bs.clone() {
            None => (None, None),
            Some(BlockSizes::One(b)) => (Some(b), None),
            // The mix alone: its smallest size is the workload's alignment, derived where used.
            Some(BlockSizes::Mix(mix)) => (None, Some(mix)),
        };
        let threads = match (self.threads, self.qd.and_then(|l| l.threads)) {
            (Some(flag), Some(notation)) if flag != notation => {
                return Err(RunError::Flags(format!(
                    "--threads {flag} and --qd Q{}T{notation} disagree: give the threads once",
                    self.qd.map_or(0, |l| l.qd)
                )))
            }
            (flag, notation) => flag.or(notation),
        };
        Ok(Overrides {
            qd: self.qd.map(|l| l.qd),
            threads,
            block_bytes,
            span: self.span,
            offset_bytes: self.offset,
            duration_s: self.duration,
            ios: self.ios,
            bytes: self.bytes,
            read_pct: self.read_pct,
            access: self.access,
            data,
            seed: self.seed,
            spare_pct: self.spare,
            prefill: self.no_prefill.then_some(false),
            trace: self.trace.clone(),
            trace_scale: self.trace_scale,
            rest_s: self.rest,
            pts_variant: self.pts,
            pts_scale: self.pts_scale,
            state: self.state,
            latency_target: self.latency_target,
            shape: Shape {
                distribution: self.distribution.clone().unwrap_or_default(),
                block_mix,
                rate: self.rate_iops.map(|iops| Rate {
                    iops,
                    arrivals: self.arrivals.unwrap_or_default(),
                }),
                duty_cycle: self
                    .burst
                    .zip(self.duty)
                    .map(|(burst_bytes, busy_pct)| DutyCycle {
                        burst_bytes,
                        busy_pct,
                    }),
            },
        })
    }

    /// `--verify` and `--verify-backlog`, checked against the test.
    fn verify_options(&self, test: &Test) -> Result<Option<VerifyOptions>, RunError> {
        let always = test.verifies == Verifies::Always;
        if !(self.verify || always) {
            return match self.verify_backlog {
                Some(_) => Err(RunError::Flags("--verify-backlog needs --verify".into())),
                None => Ok(None),
            };
        }
        if test.verifies == Verifies::Never {
            return Err(RunError::Flags(format!(
                "--verify: {} cannot verify its data (the TRIM test checks what trimmed blocks \
                 read as on its own; the Storage Bench replays a trace): use it with a test \
                 that writes, or `ssdlab run {}`",
                test.id,
                TestId::Verify
            )));
        }
        Ok(Some(VerifyOptions {
            backlog_units: self.verify_backlog.unwrap_or(if always {
                suite::methodology::verify::BACKLOG_UNITS
            } else {
                DEFAULT_BACKLOG_UNITS
            }),
        }))
    }
}

/// The test `name` names, or an error listing them with the closest.
pub fn find_test(name: &str) -> Result<&'static Test, RunError> {
    suite::methodology::find(name).map_err(|_| {
        let names = suite::methodology::names();
        RunError::UnknownTest {
            name: name.to_string(),
            hint: crate::suggest::did_you_mean(name, names.iter().copied()),
            names: names.join(", "),
        }
    })
}
