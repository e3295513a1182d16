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
    mut rec: Recorder,
    team: Option<(&team::Team, usize)>,
) -> Result<Drove, DriverError> {
    let lead = team.is_none_or(|(_, t)| t == 0);
    // Verification (one block size only) reads its backlogs back in blocks of this.
    let verify_block = w.block_bytes;
    let slot_count = w.qd * w.threads;

    // Slot s belongs to stream s / qd, whose IOs refill it.
    let mut streams: Vec<IoGen> = (0..w.threads)
        .map(|t| w.for_thread(t).generator())
        .collect();
    let mut data_rng = pattern::Rng::new(w.seed ^ 0x5EED_DA7A);
    let mut free: Vec<u32> = (0..slot_count).rev().collect();
    let mut slots = vec![
        InFlight {
            op: Op::Read,
            offset: 0,
            len: 0,
            submit_ns: 0,
            busy: false,
        };
        slot_count as usize
    ];
    let mut done: Vec<Completion> = Vec::with_capacity(slot_count as usize);
    if hooks.verify.is_some() && dev.buffer(0).is_none() {
        return Err(VerifyError::NoData.into());
    }
    // While verifying: an IO held back because it overlaps a write in flight, and whether
    // the queue is draining for a backlog read-back.
    let mut held: Option<NextIo> = None;
    let mut backlog_due = false;

    let start_ns = rec.start_ns();
    let deadline_ns = w.limit.duration_ns.map(|d| start_ns.saturating_add(d));
    let mut energy = EnergyProbe::start(dev, &mut rec);
    let (mut issued_ios, mut issued_bytes) = (0u64, 0u64);
    let mut stopped: Option<Stopped> = None;
    let mut submitting = true;
    let mut pacer = Pacer::new(w.shape.rate, w.shape.duty_cycle, start_ns, w.seed);

    let every = hooks.progress_every.unwrap_or(Duration::from_millis(200));
    let mut last_report = Instant::now();
    let (mut last_ios, mut last_bytes, mut last_ns) = (0u64, 0u64, start_ns);
    let (mut done_ios, mut done_bytes) = (0u64, 0u64);
    let mut published = (0u64, 0u64);
    let mut reaps = 0u32;
    let mut counters = if lead {
        RunCounters::start(dev, hooks.checkpoint_ns.map(|c| start_ns.saturating_add(c)))
    } else {
        RunCounters::none()
    };
    // Once a second of the device's clock, where the drive reports its temperature.
    let mut sample_temperature = lead && dev.clock() == crate::device::Clock::Wall;
    let mut next_sample_ns = start_ns;

    loop {
        while submitting && !backlog_due {
            let halted = team.is_some_and(|(t, _)| t.halted());
            if halted || hooks.stop.is_some_and(|stop| stop.load(Ordering::Relaxed)) {
                if !halted {
                    stopped = Some(Stopped::Interrupted);
                }
                submitting = false;
                break;
            }
            let exhausted = w.limit.ios.is_some_and(|n| issued_ios >= n)
                || w.limit.bytes.is_some_and(|n| issued_bytes >= n)
                || deadline_ns.is_some_and(|d| dev.now_ns() >= d);
            if exhausted {
                submitting = false;
                break;
            }
            let Some(&slot) = free.last() else {
                break;
            };
            if pacer.as_ref().is_some_and(|p| dev.now_ns() < p.due_ns()) {
                break;
            }
            let Some(next) = held
                .take()
                .or_else(|| streams[(slot / w.qd) as usize].next_io())
            else {
                // The workload's order is done (an SPRandom pass, one stream): as if at its
                // limit.
                submitting = false;
                break;
            };
            let NextIo { op, offset, len } = next;
            if hooks.verify.is_some()
                && op == Op::Write
                && slots.iter().any(|f| {
                    f.busy
                        && f.op == Op::Write
                        && f.offset < offset + len as u64
                        && offset < f.offset + f.len as u64
                })
            {
                // Two overlapping writes in flight land in an undefined order: wait.
                held = Some(next);
                break;
            }
            free.pop();
            if op == Op::Write {
                if let Some(buf) = dev.buffer(slot) {
                    let buf = &mut buf[..len as usize];
                    pattern::fill(buf, w.data, &mut data_rng);
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
            slots[slot as usize] = InFlight {
                op,
                offset,
                len,
                submit_ns: now,
                busy: true,
            };
            rec.submitted(op, now);
            issued_ios += 1;
            issued_bytes += len as u64;
            if let Some(p) = pacer.as_mut() {
                p.issued(now, len as u64);
            }
        }
        if let Some(p) = pacer
            .as_mut()
            .filter(|p| p.draining() && rec.in_flight() == 0)
        {
            p.drained(dev.now_ns());
        }
        // A paced run with nothing in flight waits for its next IO's time.
        if let Some(due) = pacer.as_ref().map(Pacer::due_ns) {
            if submitting && !backlog_due && rec.in_flight() == 0 && dev.now_ns() < due {
                let until = deadline_ns.map_or(due, |d| due.min(d));
                done.clear();
                dev.reap(0, Some(until), &mut done)?;
                energy.poll(dev, &mut rec);
                continue;
            }
        }
        if rec.in_flight() == 0 {
            if let Some(v) = hooks.verify.as_deref_mut() {
                // A full backlog, or what is left of one when the run ends well.
                if backlog_due || (stopped.is_none() && v.backlog_pending()) {
                    v.check_backlog(dev, w.qd, verify_block)?;
                }
            }
            if backlog_due {
                backlog_due = false;
                continue;
            }
            break;
        }
        done.clear();
        // Paced: back in time to send the next IO, whether or not one completed by then.
        let due = pacer.as_ref().map(Pacer::due_ns).filter(|&d| d != u64::MAX);
        dev.reap(1, due.filter(|&d| d > dev.now_ns()), &mut done)?;
        for c in &done {
            slots[c.slot as usize].busy = false;
            let f = slots[c.slot as usize];
            let bytes = if matches!(f.op, Op::Read | Op::Write) {
                f.len as u64
            } else {
                0
            };
            free.push(c.slot);
            let ok = match f.op {
                Op::Read | Op::Write => c.result == f.len as i64,
                Op::Discard | Op::Flush => c.result >= 0,
            };
            if ok {
                rec.completed(f.op, bytes, f.submit_ns, c.complete_ns);
                done_ios += 1;
                done_bytes += bytes;
            } else {
                // Any failed IO fails the run: it stops, keeping what was measured, and
                // says which IO failed and why.
                rec.failed(f.op, c.complete_ns);
                if stopped.is_none() {
                    stopped = Some(Stopped::Failed(describe_failure(
                        f.op, f.offset, f.len, c.result,
                    )));
                }
                submitting = false;
                if let Some((team, _)) = team {
                    team.halt();
                }
            }
            if f.op == Op::Write {
                if let Some(v) = hooks.verify.as_deref_mut() {
                    v.write_done(f.offset, f.len, ok);
                    backlog_due |= submitting && v.backlog_due();
                }
            }
            if let Some(log) = hooks.iolog.as_deref_mut() {
                log.record(&IoRecord {
                    offset: f.offset,
                    len: f.len,
                    op: f.op,
                    submit_ns: f.submit_ns - start_ns,
                    complete_ns: c.complete_ns - start_ns,
                });
            }
        }
        reaps += 1;
        energy.poll(dev, &mut rec);
        counters.poll(dev);
        if sample_temperature && reaps.is_multiple_of(64) && dev.now_ns() >= next_sample_ns {
            match dev.temperature_c() {
                Some(celsius) => rec.temperature(dev.now_ns(), celsius),
                None => sample_temperature = false,
            }
            next_sample_ns += 1_000_000_000;
        }
        if !reaps.is_multiple_of(64) {
            continue;
        }
        // The team's totals so far: each thread adds what it completed since it last did.
        let (ios, bytes) = match team {
            Some((team, _)) => {
                team.add(done_ios - published.0, done_bytes - published.1);
                published = (done_ios, done_bytes);
                team.totals()
            }
            None => (done_ios, done_bytes),
        };
        if last_report.elapsed() >= every {
            if let Some(progress) = hooks.progress.as_deref_mut() {
                let now = dev.now_ns();
                let dt = (now - last_ns).max(1) as f64 / 1e9;
                progress(&Progress {
                    fraction: fraction(w, now - start_ns, issued_ios, issued_bytes),
                    elapsed_ns: now - start_ns,
                    ios,
                    bytes,
                    recent_iops: (ios - last_ios) as f64 / dt,
                    recent_mbps: (bytes - last_bytes) as f64 / dt / 1e6,
                });
                (last_ios, last_bytes, last_ns) = (ios, bytes, now);
            }
            last_report = Instant::now();
        }
    }
    Ok(Drove {
        rec,
        energy,
        counters,
        stopped,
    })
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
