//! The driver: keeps a device busy with a workload and measures what comes back. It sees only
//! the [`Device`] contract, so the same loop measures a drive on the wall clock and the
//! simulator on its virtual clock.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use crate::counters::DeviceCounters;
use crate::device::{Completion, Device, DeviceError, Io, Op};
use crate::iolog::{IoLogWriter, IoRecord};
use crate::measure::hist_log::HistLogWriter;
use crate::measure::{CpuUsage, EnergyProbe, LatencyHistograms, Measurements, Recorder};
use crate::pattern;
use crate::power::PhasePower;
use crate::shape::Pacer;
use crate::verify::{Verification, VerifyError, VerifyReport};
use crate::workload::{IoGen, NextIo, Workload, WorkloadError};

mod run_counters;
mod team;

use run_counters::RunCounters;

#[derive(Debug, thiserror::Error)]
pub enum DriverError {
    #[error(transparent)]
    Workload(#[from] WorkloadError),
    #[error(transparent)]
    Device(#[from] DeviceError),
    #[error(transparent)]
    Verify(#[from] VerifyError),
    /// What a run on several threads cannot do here.
    #[error("{0}")]
    Threads(String),
}

/// A snapshot for a progress display.
#[derive(Clone, Copy, Debug)]
pub struct Progress {
    /// 0..=1 of the workload's nearest limit.
    pub fraction: f64,
    /// On the device's clock.
    pub elapsed_ns: u64,
    pub ios: u64,
    pub bytes: u64,
    /// Over the last progress interval, on the device's clock.
    pub recent_iops: f64,
    pub recent_mbps: f64,
}

/// Why a run ended before its limit.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "reason", content = "detail", rename_all = "lowercase")]
pub enum Stopped {
    /// The user interrupted it (Ctrl-C, SIGTERM).
    Interrupted,
    /// An IO failed; the message says which.
    Failed(String),
}

pub struct Outcome {
    pub measurements: Measurements,
    /// The whole run's latencies, for percentiles over several runs' IOs together.
    pub latency: LatencyHistograms,
    /// `None` when the run reached its limit.
    pub stopped: Option<Stopped>,
    /// The device's own counters (see [`Device::counters`]) at the start, at the checkpoint
    /// and at the end, when the device keeps any.
    pub counters: Option<CounterSnapshots>,
    /// What data verification found, when the run was verified.
    pub verify: Option<VerifyReport>,
    /// The drive's power over the run, where it is known (the simulator's energy model; a
    /// meter's readings are added by whoever runs the meter).
    pub power: Option<PhasePower>,
}

impl Outcome {
    /// An outcome of `measurements`, with the modelled power where the device models energy.
    pub fn of(
        (measurements, latency): (Measurements, LatencyHistograms),
        stopped: Option<Stopped>,
        counters: Option<CounterSnapshots>,
        verify: Option<VerifyReport>,
    ) -> Outcome {
        let power = measurements.summary.energy_j.map(|j| {
            let watts: Vec<Option<f64>> = measurements.per_second.iter().map(|p| p.watts).collect();
            PhasePower::modelled(j, measurements.summary.duration_s, &watts)
        });
        Outcome {
            measurements,
            latency,
            stopped,
            counters,
            verify,
            power,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CounterSnapshots {
    pub start: DeviceCounters,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub checkpoint: Option<DeviceCounters>,
    /// None (stored as null) when the device could not be read at the end.
    pub end: Option<DeviceCounters>,
}

/// Hooks a caller may attach to a run.
#[derive(Default)]
pub struct Hooks<'a> {
    /// Checked between IOs; set it to stop early (results so far are kept).
    pub stop: Option<&'a AtomicBool>,
    /// Called about every `progress_every` of wall time.
    pub progress: Option<&'a mut dyn FnMut(&Progress)>,
    pub progress_every: Option<Duration>,
    /// Receives every completed IO.
    pub iolog: Option<&'a mut IoLogWriter>,
    /// Receives each second's latency histograms at the end (fio's hist log).
    pub hist_log: Option<&'a mut HistLogWriter>,
    /// When to snapshot the device's counters mid-run, in ns after the start (e.g. half the
    /// duration, to measure steady-state write amplification over the second half).
    pub checkpoint_ns: Option<u64>,
    /// Verify the run's writes: stamp them, and read back each backlog as it fills (the
    /// caller runs the final pass, [`Verification::read_back_all`]).
    pub verify: Option<&'a mut Verification>,
}

#[derive(Clone, Copy)]
struct InFlight {
    op: Op,
    offset: u64,
    len: u32,
    submit_ns: u64,
    busy: bool,
}

/// Run a closed-loop workload: keep `qd` IOs in flight on each of its threads until a
/// limit is reached.
pub fn run(dev: &mut dyn Device, w: &Workload, mut hooks: Hooks) -> Result<Outcome, DriverError> {
    let geo = dev.geometry();
    w.validate(&geo)?;
    if hooks.verify.is_some() && w.shape.block_mix.is_some() {
        return Err(VerifyError::BlockMix.into());
    }
    if hooks.verify.is_some() && w.threads > 1 {
        return Err(VerifyError::Threads.into());
    }
    if w.threads > 1 {
        if let Some(makers) = team::queues(dev, w.threads)? {
            return team::run(dev, w, hooks, makers);
        }
    }
    let cpu_start = CpuUsage::now();
    prepare(dev, w)?;
    let mut rec = Recorder::new(dev.now_ns());
    if hooks.hist_log.is_some() {
        rec.keep_hist_lines();
    }
    let Drove {
        mut rec,
        energy,
        counters,
        stopped,
    } = drive(dev, w, &mut hooks, rec, None)?;
    if let Some(log) = hooks.hist_log {
        write_hist_log(log, &mut rec);
    }
    let (measurements, counters) = wrap_up(dev, rec, energy, counters, cpu_start);
    Ok(Outcome::of(
        measurements,
        stopped,
        counters,
        hooks.verify.map(|v| v.report()),
    ))
}

/// `dev`'s buffers for `w`'s IOs in flight, set up before the clock starts: setting them up
/// (io_uring pins them, a second for a GiB) is no part of the measured time, which it could
/// use up before the first IO.
fn prepare(dev: &mut dyn Device, w: &Workload) -> Result<(), DriverError> {
    Ok(dev.prepare(w.qd * w.threads, w.largest_block_bytes() as usize)?)
}

/// The run's histogram lines into `log`; a failure is the log's to report as it finishes.
fn write_hist_log(log: &mut HistLogWriter, rec: &mut Recorder) {
    for line in rec.take_hist_lines() {
        log.write(&line);
    }
}

/// What one thread's loop leaves for the end of the run.
struct Drove {
    rec: Recorder,
    energy: EnergyProbe,
    counters: RunCounters,
    stopped: Option<Stopped>,
}

/// The loop of one submitting thread: keep `w.qd` IOs in flight on each of the workload's
/// `w.threads` streams (several only on a device with one queue, the simulator) until a
/// limit is reached. In a team (`team`: it and this thread's number), the first thread
/// samples the drive (counters, temperature) and reports progress for all. The caller has
/// prepared `dev`'s buffers for `w`.
fn drive(
    dev: &mut dyn Device,
    w: &Workload,
    hooks: &mut Hooks,
    rec: Recorder,
    team: Option<(&team::Team, usize)>,
) -> Result<Drove, DriverError> {
    if hooks.verify.is_some() && dev.buffer(0).is_none() {
        return Err(VerifyError::NoData.into());
    }
    let mut l = Loop::start(dev, w, hooks, rec, team);
    loop {
        l.submit_ready(dev, hooks)?;
        if let Some(p) = l
            .pacer
            .as_mut()
            .filter(|p| p.draining() && l.rec.in_flight() == 0)
        {
            p.drained(dev.now_ns());
        }
        if l.wait_for_pace(dev)? {
            continue;
        }
        if l.rec.in_flight() == 0 {
            if l.read_back_backlog(dev, hooks)? {
                continue;
            }
            break;
        }
        l.reap(dev, hooks)?;
        l.reaps += 1;
        l.sample(dev);
        if l.reaps.is_multiple_of(64) {
            l.report_progress(dev, hooks);
        }
    }
    Ok(Drove {
        rec: l.rec,
        energy: l.energy,
        counters: l.counters,
        stopped: l.stopped,
    })
}

/// One submitting thread's loop as it runs: its IOs in flight and to come, what it has
/// issued and completed, and when it last sampled the drive and reported progress.
struct Loop<'w, 't> {
    w: &'w Workload,
    team: Option<(&'t team::Team, usize)>,
    /// Verification (one block size only) reads its backlogs back in blocks of this.
    verify_block: u32,
    /// Slot s belongs to stream s / qd, whose IOs refill it.
    streams: Vec<IoGen>,
    data_rng: pattern::Rng,
    free: Vec<u32>,
    slots: Vec<InFlight>,
    done: Vec<Completion>,
    /// While verifying: an IO held back because it overlaps a write in flight, and whether
    /// the queue is draining for a backlog read-back.
    held: Option<NextIo>,
    backlog_due: bool,
    start_ns: u64,
    deadline_ns: Option<u64>,
    rec: Recorder,
    energy: EnergyProbe,
    issued_ios: u64,
    issued_bytes: u64,
    stopped: Option<Stopped>,
    submitting: bool,
    pacer: Option<Pacer>,
    every: Duration,
    last_report: Instant,
    last_ios: u64,
    last_bytes: u64,
    last_ns: u64,
    done_ios: u64,
    done_bytes: u64,
    /// What this thread has added to the team's totals.
    published: (u64, u64),
    reaps: u32,
    counters: RunCounters,
    /// Once a second of the device's clock, where the drive reports its temperature.
    sample_temperature: bool,
    next_sample_ns: u64,
}

impl<'w, 't> Loop<'w, 't> {
    fn start(
        dev: &mut dyn Device,
        w: &'w Workload,
        hooks: &Hooks,
        mut rec: Recorder,
        team: Option<(&'t team::Team, usize)>,
    ) -> Loop<'w, 't> {
        let lead = team.is_none_or(|(_, t)| t == 0);
        let slot_count = w.qd * w.threads;
        let streams = (0..w.threads)
            .map(|t| w.for_thread(t).generator())
            .collect();
        let free = (0..slot_count).rev().collect();
        let idle = InFlight {
            op: Op::Read,
            offset: 0,
            len: 0,
            submit_ns: 0,
            busy: false,
        };
        let slots = vec![idle; slot_count as usize];
        let done = Vec::with_capacity(slot_count as usize);
        let start_ns = rec.start_ns();
        let energy = EnergyProbe::start(dev, &mut rec);
        Loop {
            w,
            team,
            verify_block: w.block_bytes,
            streams,
            data_rng: pattern::Rng::new(w.seed ^ 0x5EED_DA7A),
            free,
            slots,
            done,
            held: None,
            backlog_due: false,
            start_ns,
            deadline_ns: w.limit.duration_ns.map(|d| start_ns.saturating_add(d)),
            rec,
            energy,
            issued_ios: 0,
            issued_bytes: 0,
            stopped: None,
            submitting: true,
            pacer: Pacer::new(w.shape.rate, w.shape.duty_cycle, start_ns, w.seed),
            every: hooks.progress_every.unwrap_or(Duration::from_millis(200)),
            last_report: Instant::now(),
            last_ios: 0,
            last_bytes: 0,
            last_ns: start_ns,
            done_ios: 0,
            done_bytes: 0,
            published: (0, 0),
            reaps: 0,
            counters: if lead {
                RunCounters::start(dev, hooks.checkpoint_ns.map(|c| start_ns.saturating_add(c)))
            } else {
                RunCounters::none()
            },
            sample_temperature: lead && dev.clock() == crate::device::Clock::Wall,
            next_sample_ns: start_ns,
        }
    }

    /// Submit IOs while a slot is free and the workload, its pace and verification let one
    /// go; stop submitting for good at a limit, an interruption or the workload's end.
    fn submit_ready(&mut self, dev: &mut dyn Device, hooks: &mut Hooks) -> Result<(), DriverError> {
        let w = self.w;
        while self.submitting && !self.backlog_due {
            let halted = self.team.is_some_and(|(t, _)| t.halted());
            if halted || hooks.stop.is_some_and(|stop| stop.load(Ordering::Relaxed)) {
                if !halted {
                    self.stopped = Some(Stopped::Interrupted);
                }
                self.submitting = false;
                break;
            }
            let exhausted = w.limit.ios.is_some_and(|n| self.issued_ios >= n)
                || w.limit.bytes.is_some_and(|n| self.issued_bytes >= n)
                || self.deadline_ns.is_some_and(|d| dev.now_ns() >= d);
            if exhausted {
                self.submitting = false;
                break;
            }
            let Some(&slot) = self.free.last() else {
                break;
            };
            if self
                .pacer
                .as_ref()
                .is_some_and(|p| dev.now_ns() < p.due_ns())
            {
                break;
            }
            let Some(next) = self
                .held
                .take()
                .or_else(|| self.streams[(slot / w.qd) as usize].next_io())
            else {
                // The workload's order is done (an SPRandom pass, one stream): as if at its
                // limit.
                self.submitting = false;
                break;
            };
            if hooks.verify.is_some() && next.op == Op::Write && self.overlaps_a_write(&next) {
                // Two overlapping writes in flight land in an undefined order: wait.
                self.held = Some(next);
                break;
            }
            self.free.pop();
            self.issue(dev, hooks, slot, next)?;
        }
        Ok(())
    }

    /// Whether a write in flight overlaps `next`.
    fn overlaps_a_write(&self, next: &NextIo) -> bool {
        let NextIo { offset, len, .. } = *next;
        self.slots.iter().any(|f| {
            f.busy
                && f.op == Op::Write
                && f.offset < offset + len as u64
                && offset < f.offset + f.len as u64
        })
    }

    /// Fill a write's buffer and send the IO from `slot`.
    fn issue(
        &mut self,
        dev: &mut dyn Device,
        hooks: &mut Hooks,
        slot: u32,
        NextIo { op, offset, len }: NextIo,
    ) -> Result<(), DriverError> {
        if op == Op::Write {
            if let Some(buf) = dev.buffer(slot) {
                let buf = &mut buf[..len as usize];
                pattern::fill(buf, self.w.data, &mut self.data_rng);
                if let Some(v) = hooks.verify.as_deref_mut() {
                    v.stamp_write(buf, offset);
                }
            }
        }
        let now = dev.now_ns();
        dev.submit(Io {
            slot,
            op,
            offset,
            len,
        })?;
        self.slots[slot as usize] = InFlight {
            op,
            offset,
            len,
            submit_ns: now,
            busy: true,
        };
        self.rec.submitted(op, now);
        self.issued_ios += 1;
        self.issued_bytes += len as u64;
        if let Some(p) = self.pacer.as_mut() {
            p.issued(now, len as u64);
        }
        Ok(())
    }

    /// A paced run with nothing in flight waits for its next IO's time; whether it waited.
    fn wait_for_pace(&mut self, dev: &mut dyn Device) -> Result<bool, DriverError> {
        if let Some(due) = self.pacer.as_ref().map(Pacer::due_ns) {
            if self.submitting
                && !self.backlog_due
                && self.rec.in_flight() == 0
                && dev.now_ns() < due
            {
                let until = self.deadline_ns.map_or(due, |d| due.min(d));
                self.done.clear();
                dev.reap(0, Some(until), &mut self.done)?;
                self.energy.poll(dev, &mut self.rec);
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// With nothing in flight: read a verification backlog back when one is due (or left
    /// at a good end); whether the run goes on.
    fn read_back_backlog(
        &mut self,
        dev: &mut dyn Device,
        hooks: &mut Hooks,
    ) -> Result<bool, DriverError> {
        if let Some(v) = hooks.verify.as_deref_mut() {
            // A full backlog, or what is left of one when the run ends well.
            if self.backlog_due || (self.stopped.is_none() && v.backlog_pending()) {
                v.check_backlog(dev, self.w.qd, self.verify_block)?;
            }
        }
        Ok(std::mem::take(&mut self.backlog_due))
    }

    /// Wait for completions (paced: only until the next IO is due) and account for them.
    fn reap(&mut self, dev: &mut dyn Device, hooks: &mut Hooks) -> Result<(), DriverError> {
        self.done.clear();
        // Paced: back in time to send the next IO, whether or not one completed by then.
        let due = self
            .pacer
            .as_ref()
            .map(Pacer::due_ns)
            .filter(|&d| d != u64::MAX);
        dev.reap(1, due.filter(|&d| d > dev.now_ns()), &mut self.done)?;
        let done = std::mem::take(&mut self.done);
        for c in &done {
            self.complete(c, hooks);
        }
        self.done = done;
        Ok(())
    }

    /// One completed IO: recorded, its slot freed; a failed one stops the run.
    fn complete(&mut self, c: &Completion, hooks: &mut Hooks) {
        self.slots[c.slot as usize].busy = false;
        let f = self.slots[c.slot as usize];
        let bytes = if matches!(f.op, Op::Read | Op::Write) {
            f.len as u64
        } else {
            0
        };
        self.free.push(c.slot);
        let ok = match f.op {
            Op::Read | Op::Write => c.result == f.len as i64,
            Op::Discard | Op::Flush => c.result >= 0,
        };
        if ok {
            self.rec.completed(f.op, bytes, f.submit_ns, c.complete_ns);
            self.done_ios += 1;
            self.done_bytes += bytes;
        } else {
            // Any failed IO fails the run: it stops, keeping what was measured, and
            // says which IO failed and why.
            self.rec.failed(f.op, c.complete_ns);
            if self.stopped.is_none() {
                self.stopped = Some(Stopped::Failed(describe_failure(
                    f.op, f.offset, f.len, c.result,
                )));
            }
            self.submitting = false;
            if let Some((team, _)) = self.team {
                team.halt();
            }
        }
        if f.op == Op::Write {
            if let Some(v) = hooks.verify.as_deref_mut() {
                v.write_done(f.offset, f.len, ok);
                self.backlog_due |= self.submitting && v.backlog_due();
            }
        }
        if let Some(log) = hooks.iolog.as_deref_mut() {
            log.record(&IoRecord {
                offset: f.offset,
                len: f.len,
                op: f.op,
                submit_ns: f.submit_ns - self.start_ns,
                complete_ns: c.complete_ns - self.start_ns,
            });
        }
    }

    /// After a reap: the energy, the counters and, every 64 reaps, the temperature.
    fn sample(&mut self, dev: &mut dyn Device) {
        self.energy.poll(dev, &mut self.rec);
        self.counters.poll(dev);
        if self.sample_temperature
            && self.reaps.is_multiple_of(64)
            && dev.now_ns() >= self.next_sample_ns
        {
            match dev.temperature_c() {
                Some(celsius) => self.rec.temperature(dev.now_ns(), celsius),
                None => self.sample_temperature = false,
            }
            self.next_sample_ns += 1_000_000_000;
        }
    }

    /// Publish this thread's completions to its team and, when due, report progress.
    fn report_progress(&mut self, dev: &mut dyn Device, hooks: &mut Hooks) {
        // The team's totals so far: each thread adds what it completed since it last did.
        let (ios, bytes) = match self.team {
            Some((team, _)) => {
                team.add(
                    self.done_ios - self.published.0,
                    self.done_bytes - self.published.1,
                );
                self.published = (self.done_ios, self.done_bytes);
                team.totals()
            }
            None => (self.done_ios, self.done_bytes),
        };
        if self.last_report.elapsed() < self.every {
            return;
        }
        if let Some(progress) = hooks.progress.as_deref_mut() {
            let now = dev.now_ns();
            let dt = (now - self.last_ns).max(1) as f64 / 1e9;
            progress(&Progress {
                fraction: fraction(
                    self.w,
                    now - self.start_ns,
                    self.issued_ios,
                    self.issued_bytes,
                ),
                elapsed_ns: now - self.start_ns,
                ios,
                bytes,
                recent_iops: (ios - self.last_ios) as f64 / dt,
                recent_mbps: (bytes - self.last_bytes) as f64 / dt / 1e6,
            });
            (self.last_ios, self.last_bytes, self.last_ns) = (ios, bytes, now);
        }
        self.last_report = Instant::now();
    }
}

/// The end of a run: the last energy sample, the device's counters and the measurements.
fn wrap_up(
    dev: &mut dyn Device,
    mut rec: Recorder,
    mut energy: EnergyProbe,
    counters: RunCounters,
    cpu_start: CpuUsage,
) -> ((Measurements, LatencyHistograms), Option<CounterSnapshots>) {
    let cpu = CpuUsage::now().since(cpu_start);
    energy.finish(dev, &mut rec);
    let counters = counters.end(dev);
    let latency = rec.latency_histograms();
    ((rec.finish(dev.now_ns(), Some(cpu)), latency), counters)
}

fn fraction(w: &Workload, elapsed_ns: u64, ios: u64, bytes: u64) -> f64 {
    let parts = [
        w.limit.duration_ns.map(|d| elapsed_ns as f64 / d as f64),
        w.limit.ios.map(|n| ios as f64 / n as f64),
        w.limit.bytes.map(|n| bytes as f64 / n as f64),
    ];
    parts.into_iter().flatten().fold(0.0, f64::max).min(1.0)
}

pub fn describe_failure(op: Op, offset: u64, len: u32, result: i64) -> String {
    if result < 0 {
        format!(
            "{} of {len} bytes at offset {offset} failed: {}",
            op.name(),
            std::io::Error::from_raw_os_error(-result as i32)
        )
    } else {
        format!(
            "{} of {len} bytes at offset {offset} transferred only {result} bytes",
            op.name()
        )
    }
}

/// Unmap `offset .. offset+len` with discards of at most `chunk` bytes, one at a time.
/// Returns the completed discard count.
pub fn discard_range(
    dev: &mut dyn Device,
    offset: u64,
    len: u64,
    chunk: u64,
) -> Result<u64, DriverError> {
    dev.prepare(1, 4096)?;
    let mut done = Vec::with_capacity(1);
    let (mut at, end, mut n) = (offset, offset + len, 0);
    while at < end {
        let this = (end - at).min(chunk) as u32;
        dev.submit(Io {
            slot: 0,
            op: Op::Discard,
            offset: at,
            len: this,
        })?;
        done.clear();
        while done.is_empty() {
            dev.reap(1, None, &mut done)?;
        }
        if done[0].result < 0 {
            return Err(DeviceError::Other(describe_failure(
                Op::Discard,
                at,
                this,
                done[0].result,
            ))
            .into());
        }
        at += this as u64;
        n += 1;
    }
    Ok(n)
}

/// Measure the device sitting idle for `ns` on its own clock, as a run without IO: its
/// per-second power where it models its energy, and its counters (the power tests' idle and
/// slumber phases). Stops early, keeping what it measured, when `hooks.stop` is set;
/// reports progress every step (a tenth of a second of the device's clock).
pub fn idle_run(dev: &mut dyn Device, ns: u64, mut hooks: Hooks) -> Result<Outcome, DriverError> {
    let start_ns = dev.now_ns();
    let until = start_ns.saturating_add(ns);
    let mut rec = Recorder::new(start_ns);
    let mut energy = EnergyProbe::start(dev, &mut rec);
    let mut counters = RunCounters::start(dev, Some(start_ns + ns / 2));
    let cpu_start = CpuUsage::now();
    let mut stopped = None;
    let mut done = Vec::new();
    // Steps short enough for a stop to be noticed and energy sampled.
    let step = 100_000_000;
    while dev.now_ns() < until {
        if hooks.stop.is_some_and(|s| s.load(Ordering::Relaxed)) {
            stopped = Some(Stopped::Interrupted);
            break;
        }
        let to = (dev.now_ns() + step).min(until);
        dev.reap(0, Some(to), &mut done)?;
        energy.poll(dev, &mut rec);
        counters.poll(dev);
        if let Some(progress) = hooks.progress.as_deref_mut() {
            let elapsed_ns = dev.now_ns() - start_ns;
            progress(&Progress {
                fraction: elapsed_ns as f64 / ns.max(1) as f64,
                elapsed_ns,
                ios: 0,
                bytes: 0,
                recent_iops: 0.0,
                recent_mbps: 0.0,
            });
        }
    }
    let (measurements, counters) = wrap_up(dev, rec, energy, counters, cpu_start);
    Ok(Outcome::of(measurements, stopped, counters, None))
}

/// Let the device sit idle for `ns` on its own clock (a drive may garbage-collect or erase
/// in the background meanwhile). Nothing may be in flight.
pub fn idle(dev: &mut dyn Device, ns: u64) -> Result<(), DriverError> {
    let until = dev.now_ns() + ns;
    let mut done = Vec::new();
    while dev.now_ns() < until {
        dev.reap(0, Some(until), &mut done)?;
    }
    Ok(())
}
