//! A run of several threads on a real target, as fio's `numjobs` with one job's results:
//! each thread has its own queue (ring, buffers, registered file), is pinned to its own core
//! where there are more cores than threads, and drives its part of the workload ([`Workload::for_thread`]);
//! their measurements merge into one run's. Nothing is shared per IO: a thread adds its
//! counts to the team's every 64 reaps and hands its latencies over once a second.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use super::{drive, prepare, wrap_up, write_hist_log, DriverError, Drove, Hooks, Outcome, Stopped};
use crate::affinity;
use crate::device::{Device, QueueMaker};
use crate::measure::{CpuUsage, LatencySeconds, Recorder};
use crate::workload::Workload;

/// What the threads of a run share: whether one has failed, and their progress.
#[derive(Default)]
pub(super) struct Team {
    halt: AtomicBool,
    ios: AtomicU64,
    bytes: AtomicU64,
}

impl Team {
    /// Stop every thread: one has failed.
    pub(super) fn halt(&self) {
        self.halt.store(true, Ordering::Relaxed);
    }

    pub(super) fn halted(&self) -> bool {
        self.halt.load(Ordering::Relaxed)
    }

    pub(super) fn add(&self, ios: u64, bytes: u64) {
        self.ios.fetch_add(ios, Ordering::Relaxed);
        self.bytes.fetch_add(bytes, Ordering::Relaxed);
    }

    /// IOs and bytes completed by all threads, as of their last [`Team::add`].
    pub(super) fn totals(&self) -> (u64, u64) {
        (
            self.ios.load(Ordering::Relaxed),
            self.bytes.load(Ordering::Relaxed),
        )
    }
}

/// Queues for the threads after the first, or `None` where the device has one queue (the
/// simulator, which runs the threads as streams on its own clock).
pub(super) fn queues(
    dev: &dyn Device,
    threads: u32,
) -> Result<Option<Vec<QueueMaker>>, DriverError> {
    (1..threads)
        .map(|_| dev.another_queue().transpose())
        .collect::<Result<Option<Vec<_>>, _>>()
        .map_err(DriverError::from)
}

/// One thread's part of the run, when it ended well.
type Part = (Recorder, Option<Stopped>, CpuUsage);

pub(super) fn run(
    dev: &mut dyn Device,
    w: &Workload,
    mut hooks: Hooks,
    makers: Vec<QueueMaker>,
) -> Result<Outcome, DriverError> {
    if hooks.iolog.is_some() {
        return Err(DriverError::Threads(
            "the per-IO log is written by one thread: drop --iolog or --threads".into(),
        ));
    }
    let cores = affinity::cores();
    // Pinned only with a core to spare for the kernel's side of the IO (completions, a loop
    // device's workers): on 2 cores, 2 pinned threads measured 0.97 of fio's IOPS, unpinned
    // 1.06 (BENCHMARKS.md).
    let pin = cores.len() > w.threads as usize;
    let seconds = Arc::new(Mutex::new(LatencySeconds::new(w.threads as usize)));
    if hooks.hist_log.is_some() {
        seconds
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .keep_hist_lines();
    }
    let team = Team::default();
    let start_ns = dev.now_ns();
    let cpu_start = CpuUsage::now();
    let user_stop = hooks.stop;
    let (lead, others) = std::thread::scope(|scope| {
        let handles: Vec<_> = makers
            .into_iter()
            .enumerate()
            .map(|(i, make)| {
                let t = i + 1;
                let part = w.for_thread(t as u32);
                let (team, seconds) = (&team, Arc::clone(&seconds));
                let core = pin.then(|| cores[t]);
                scope.spawn(move || -> Result<Part, DriverError> {
                    let _pinned = core.map(affinity::pin);
                    let cpu = CpuUsage::of_this_thread();
                    let drove = make().map_err(DriverError::from).and_then(|mut dev| {
                        let mut hooks = Hooks {
                            stop: user_stop,
                            ..Hooks::default()
                        };
                        let rec = Recorder::in_team(start_ns, seconds, t);
                        prepare(&mut *dev, &part)?;
                        drive(&mut *dev, &part, &mut hooks, rec, Some((team, t)))
                    });
                    if drove.is_err() {
                        team.halt();
                    }
                    let cpu = CpuUsage::of_this_thread().since(cpu);
                    drove.map(|d| (d.rec, d.stopped, cpu))
                })
            })
            .collect();
        // The first thread is this one, on the queue it was given.
        let pinned = pin.then(|| affinity::pin(cores[0]));
        let cpu = CpuUsage::of_this_thread();
        let rec = Recorder::in_team(start_ns, Arc::clone(&seconds), 0);
        let lead = prepare(dev, &w.for_thread(0))
            .and_then(|()| drive(dev, &w.for_thread(0), &mut hooks, rec, Some((&team, 0))));
        if lead.is_err() {
            team.halt();
        }
        let cpu = CpuUsage::of_this_thread().since(cpu);
        drop(pinned);
        let others: Vec<Result<Part, DriverError>> = handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
            .collect();
        (lead.map(|d| (d, cpu)), others)
    });
    let (lead, lead_cpu) = lead?;
    let Drove {
        rec,
        energy,
        counters,
        mut stopped,
    } = lead;
    let mut cpu_by_thread = vec![lead_cpu.per_io(rec.totals().0)];
    let mut recs = vec![rec];
    for part in others {
        let (rec, part_stopped, cpu) = part?;
        cpu_by_thread.push(cpu.per_io(rec.totals().0));
        // A failure says more than an interruption.
        if stopped.is_none() || matches!(part_stopped, Some(Stopped::Failed(_))) {
            stopped = part_stopped.or(stopped);
        }
        recs.push(rec);
    }
    let mut rec = Recorder::merge(recs);
    if let Some(log) = hooks.hist_log {
        write_hist_log(log, &mut rec);
    }
    let ((mut measurements, latency), counters) = wrap_up(dev, rec, energy, counters, cpu_start);
    measurements.summary.cpu_by_thread = cpu_by_thread;
    Ok(Outcome::of(
        (measurements, latency),
        stopped,
        counters,
        None,
    ))
}
