//! What a test needs from whoever runs it: a way to be stopped, somewhere to report progress,
//! and optional per-IO logging. The CLI supplies a progress bar; tests supply `Silent`.

use std::path::PathBuf;
use std::sync::atomic::AtomicBool;

use engine::drive::PurgeMethod;
use engine::driver::{self, Hooks, Outcome, Progress};
use engine::iolog::IoLogWriter;
use engine::workload::Workload;
use engine::{Clock, Device};

use crate::SuiteError;

/// Receives the progress of a run, phase by phase.
pub trait Observer {
    fn phase(&mut self, label: &str, clock: Clock);
    fn progress(&mut self, p: &Progress);
    fn phase_done(&mut self);
    /// A remark for the user (a deviation, a skipped step).
    fn note(&mut self, text: &str);
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
    /// How a test that starts from a clean drive purges it (`--purge`).
    pub purge: PurgeMethod,
}

impl<'a> Context<'a> {
    pub fn new(stop: &'a AtomicBool, observer: &'a mut dyn Observer) -> Context<'a> {
        Context {
            stop,
            observer,
            iolog: None,
            purge: PurgeMethod::Auto,
        }
    }

    pub fn stopped(&self) -> bool {
        self.stop.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// Run one workload with progress and the stop flag attached. `measured` phases get the
    /// per-IO log and a counter checkpoint half-way.
    pub fn drive(
        &mut self,
        dev: &mut dyn Device,
        w: &Workload,
        label: &str,
        measured: bool,
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
                checkpoint_ns: if measured {
                    w.limit.duration_ns.map(|d| d / 2)
                } else {
                    None
                },
            },
        );
        self.observer.phase_done();
        if let Some(log) = log {
            log.finish()
                .map_err(|e| SuiteError::Output(format!("writing the per-IO log: {e}")))?;
        }
        Ok(outcome?)
    }
}
