//! What a test needs from whoever runs it: a way to be stopped, somewhere to report progress,
//! and optional per-IO logging. The CLI supplies a progress bar; tests supply `Silent`.

use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;

use engine::drive::PurgeMethod;
use engine::driver::{self, DriverError, Hooks, Outcome, Progress};
use engine::iolog::IoLogWriter;
use engine::measure::hist_log::HistLogWriter;
use engine::measure::SecondPoint;
use engine::power::{Meter, PhasePower};
use engine::verify::{Verification, VerifyOptions};
use engine::workload::Workload;
use engine::{Clock, Device, Op};

use crate::precondition::Precondition;
use crate::SuiteError;

/// Receives the progress of a run, phase by phase.
pub trait Observer {
    fn phase(&mut self, label: &str, clock: Clock);
    fn progress(&mut self, p: &Progress);
    fn phase_done(&mut self);
    /// A remark for the user (a deviation, a skipped step).
    fn note(&mut self, text: &str);
    /// A suite's step `number` (from 1) of `of` begins.
    fn step(&mut self, _number: usize, _of: usize, _id: &str) {}
    /// The step begun last ended with `status` and these results (none if it did not run).
    fn step_done(
        &mut self,
        _status: crate::runner::Status,
        _results: &[crate::result::TestResult],
    ) {
    }
}

/// An observer that shows nothing.
pub struct Silent;

impl Observer for Silent {
    fn phase(&mut self, _: &str, _: Clock) {}
    fn progress(&mut self, _: &Progress) {}
    fn phase_done(&mut self) {}
    fn note(&mut self, _: &str) {}
}

pub struct Context<'a> {
    pub stop: &'a AtomicBool,
    pub observer: &'a mut dyn Observer,
    /// Write a per-IO log of the measured phase here.
    pub iolog: Option<PathBuf>,
    /// Write each second's latency histograms of the measured phase here (fio's hist log).
    pub hist_log: Option<PathBuf>,
    /// Why a log of the run (--iolog, --hist-log) could not be written, once it failed.
    pub log_failures: Vec<String>,
    /// How a test that starts from a clean drive purges it (`--purge`).
    pub purge: PurgeMethod,
    /// How a test of random writes in steady state prepares the purged drive
    /// (`--precondition`).
    pub precondition: Precondition,
    /// Verify the data of measured phases that write (`--verify`).
    pub verify: Option<VerifyOptions>,
    /// The power meter running for the whole command (`--power-meter`): its readings over
    /// each measured phase become the result's power and per-second watts.
    pub meter: Option<Meter>,
}

impl<'a> Context<'a> {
    pub fn new(stop: &'a AtomicBool, observer: &'a mut dyn Observer) -> Context<'a> {
        Context {
            stop,
            observer,
            iolog: None,
            hist_log: None,
            log_failures: Vec::new(),
            purge: PurgeMethod::Auto,
            precondition: Precondition::Fill,
            verify: None,
            meter: None,
        }
    }

    pub fn stopped(&self) -> bool {
        self.stop.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// Run one workload with progress and the stop flag attached. `measured` phases get the
    /// per-IO log, a counter checkpoint half-way and, when asked, data verification: their
    /// writes are read back as they go and all at once at the end (the outcome's `verify`).
    pub fn drive(
        &mut self,
        dev: &mut dyn Device,
        w: &Workload,
        label: &str,
        measured: bool,
    ) -> Result<Outcome, SuiteError> {
        let writes = w.op.map_or(w.read_pct < 100, |op| op == Op::Write);
        let mut verification = match measured && writes {
            true => self.verification(dev, w)?,
            false => None,
        };
        let mut outcome = self.run(dev, w, label, measured, verification.as_mut())?;
        if let Some(v) = verification.as_mut() {
            self.finish_verify(dev, v, w.qd, &mut outcome)?;
        }
        Ok(outcome)
    }

    /// Run one workload whose writes `v` verifies, reading back each backlog as it fills;
    /// [`Context::finish_verify`] reads back the rest. Several workloads may share one
    /// verification, measured or not (a read test's prefill is verified by its reads).
    pub fn drive_verified(
        &mut self,
        dev: &mut dyn Device,
        w: &Workload,
        label: &str,
        measured: bool,
        v: &mut Verification,
    ) -> Result<Outcome, SuiteError> {
        self.run(dev, w, label, measured, Some(v))
    }

    /// A verification of the writes to `w`'s region, when `--verify` asked for one.
    pub fn verification(
        &self,
        dev: &mut dyn Device,
        w: &Workload,
    ) -> Result<Option<Verification>, SuiteError> {
        let Some(opts) = self.verify else {
            return Ok(None);
        };
        let v = Verification::new(
            dev,
            w.offset_bytes,
            w.span_bytes,
            w.block_bytes,
            w.seed,
            opts,
        )
        .map_err(DriverError::from)?;
        Ok(Some(v))
    }

    /// Read back everything `v` expects (unless the run stopped: then verification is
    /// incomplete) and put its report in `outcome`.
    pub fn finish_verify(
        &mut self,
        dev: &mut dyn Device,
        v: &mut Verification,
        qd: u32,
        outcome: &mut Outcome,
    ) -> Result<(), SuiteError> {
        if outcome.stopped.is_none() {
            self.observer
                .phase("verifying: reading back everything written", dev.clock());
            let done = v.read_back_all(dev, qd, Some(self.stop));
            self.observer.phase_done();
            done.map_err(DriverError::from)?;
        } else {
            v.incomplete();
        }
        let report = v.report();
        self.observer.note(&report.headline());
        outcome.verify = Some(report);
        Ok(())
    }

    /// Measure the device idle for `ns` (power idle and slumber, the tail after writes).
    pub fn idle(
        &mut self,
        dev: &mut dyn Device,
        ns: u64,
        label: &str,
    ) -> Result<Outcome, SuiteError> {
        self.observer.phase(label, dev.clock());
        let observer = &mut *self.observer;
        let mut progress = |p: &Progress| observer.progress(p);
        let hooks = Hooks {
            stop: Some(self.stop),
            progress: Some(&mut progress),
            ..Hooks::default()
        };
        let outcome = driver::idle_run(dev, ns, hooks);
        self.observer.phase_done();
        let mut outcome = outcome?;
        self.add_metered_power(&mut outcome);
        Ok(outcome)
    }

    /// The meter's readings over the run that just ended, as its power and per-second watts.
    /// The run ended now and lasted its duration: that places it on the meter's timeline.
    pub fn add_metered_power(&self, outcome: &mut Outcome) {
        let Some(meter) = &self.meter else {
            return;
        };
        let end_s = meter.now_s();
        let start_s = end_s - outcome.measurements.summary.duration_s;
        let log = meter.snapshot();
        let watts = log.per_second(start_s, end_s);
        let seconds = &mut outcome.measurements.per_second;
        if seconds.is_empty() {
            // A run without IO on the wall clock: its seconds are the meter's.
            let duration = outcome.measurements.summary.duration_s;
            seconds.extend((0..watts.len() as u64).map(|t| SecondPoint {
                covered_s: (duration - (t as f64) < 1.0).then_some(duration - t as f64),
                ..SecondPoint::idle(t)
            }));
        }
        for p in seconds.iter_mut() {
            p.watts = watts.get(p.t as usize).copied().flatten();
        }
        outcome.power = Some(PhasePower::metered(&log, start_s, end_s));
        // Later phases start after this one: its readings are done with.
        meter.forget_before(end_s);
    }

    fn run(
        &mut self,
        dev: &mut dyn Device,
        w: &Workload,
        label: &str,
        measured: bool,
        verify: Option<&mut Verification>,
    ) -> Result<Outcome, SuiteError> {
        self.observer.phase(label, dev.clock());
        let mut log = match (&self.iolog, measured) {
            (Some(path), true) => Some(IoLogWriter::create(path).map_err(|e| {
                SuiteError::Output(format!(
                    "cannot create the per-IO log {}: {e}",
                    path.display()
                ))
            })?),
            _ => None,
        };
        let mut hist_log = match (&self.hist_log, measured) {
            (Some(path), true) => {
                Some(HistLogWriter::create(path, w.block_bytes).map_err(|e| {
                    SuiteError::Output(format!(
                        "cannot create the histogram log {}: {e}",
                        path.display()
                    ))
                })?)
            }
            _ => None,
        };
        let observer = &mut *self.observer;
        let mut progress = |p: &Progress| observer.progress(p);
        let outcome = driver::run(
            dev,
            w,
            Hooks {
                stop: Some(self.stop),
                progress: Some(&mut progress),
                progress_every: None,
                iolog: log.as_mut(),
                hist_log: hist_log.as_mut(),
                checkpoint_ns: if measured {
                    w.limit.duration_ns.map(|d| d / 2)
                } else {
                    None
                },
                verify,
            },
        );
        self.observer.phase_done();
        // A log that failed loses the log, never the measurement: the run's results are kept
        // and the failure reported with them.
        if let Some(Err(e)) = log.map(IoLogWriter::finish) {
            let path = self.iolog.as_deref().unwrap_or(Path::new("")).display();
            self.log_failures
                .push(format!("writing the per-IO log {path} failed: {e}"));
        }
        if let Some(Err(e)) = hist_log.map(HistLogWriter::finish) {
            let path = self.hist_log.as_deref().unwrap_or(Path::new("")).display();
            self.log_failures
                .push(format!("writing the histogram log {path} failed: {e}"));
        }
        let mut outcome = outcome?;
        if measured {
            self.add_metered_power(&mut outcome);
        }
        Ok(outcome)
    }
}
