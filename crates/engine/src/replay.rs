//! Open-loop replay: issue IOs at the times a schedule gives (a recorded trace), or as fast as
//! possible in order, on any device. On the simulator the schedule runs in virtual time.

use std::iter::Peekable;
use std::sync::atomic::Ordering;

use hdrhistogram::Histogram;
use serde::{Deserialize, Serialize};

use crate::counters::DeviceCounters;
use crate::device::{Completion, Device, DeviceError, Io, Op};
use crate::driver::{describe_failure, DriverError, Hooks, Outcome, Progress, Stopped};
use crate::iolog::IoRecord;
use crate::measure::{CpuUsage, EnergyProbe, LatencyStats, Recorder};
use crate::pattern::{self, DataKind};

/// One IO of a schedule: when to issue it, relative to the start of the replay.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ScheduledIo {
    pub at_ns: u64,
    pub op: Op,
    pub offset: u64,
    pub len: u32,
}

#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Pace {
    /// Issue each IO at its scheduled time (open loop).
    Timed,
    /// Issue in order as fast as possible, keeping at most `max_in_flight` outstanding.
    Afap,
}

#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct ReplayOptions {
    pub pace: Pace,
    /// Slots: the most IOs outstanding at once. An IO due while all are busy waits (and the
    /// fidelity report counts it).
    pub max_in_flight: u32,
    /// The largest IO in the schedule, for buffers.
    pub max_len: usize,
    pub data: DataKind,
    pub seed: u64,
    /// Spin instead of sleeping for the last few microseconds before an IO is due (wall
    /// clock only): more accurate issue times for a little CPU.
    pub spin_ns: u64,
    /// How many IOs the schedule holds, when known (for progress).
    pub expected_ios: Option<u64>,
}

/// How faithfully the schedule was followed.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Fidelity {
    /// How late IOs were issued against their schedule, in microseconds.
    pub issue_late_us: LatencyStats,
    /// IOs that had to wait for a free slot.
    pub waited_for_slot: u64,
    /// Scheduled span of the replay vs the time it took, in seconds.
    pub scheduled_s: f64,
    pub actual_s: f64,
}

pub struct ReplayOutcome {
    pub outcome: Outcome,
    pub fidelity: Fidelity,
}

#[derive(Clone, Copy, Default)]
struct InFlight {
    op: Option<Op>,
    offset: u64,
    len: u32,
    submit_ns: u64,
}

pub fn replay(
    dev: &mut dyn Device,
    schedule: impl IntoIterator<Item = ScheduledIo>,
    opts: &ReplayOptions,
    mut hooks: Hooks,
) -> Result<ReplayOutcome, DriverError> {
    let slots_n = opts.max_in_flight.max(1);
    dev.prepare(slots_n, opts.max_len.max(4096))?;
    let capacity_bytes = dev.geometry().capacity_bytes;
    let io = Slots::new(slots_n, opts.seed);
    let wall = dev.clock() == crate::Clock::Wall;
    if wall {
        // Linux lets a sleeping thread oversleep by its timer slack (50 us by default), which
        // would be most of an IO's issue-time error; ask for 1 ns.
        // SAFETY: prctl with an integer argument only changes this thread's slack.
        unsafe { libc::prctl(libc::PR_SET_TIMERSLACK, 1 as libc::c_ulong, 0, 0, 0) };
    }

    // The schedule may be lazy (a trace read as it plays): its first IO is read before the
    // clock starts, or the time it takes would make every early IO late.
    let mut schedule = schedule.into_iter().peekable();
    schedule.peek();
    let cpu_start = CpuUsage::now();
    let mut r = Replayer::start(dev, io, &hooks, capacity_bytes, wall);
    let counters_start = dev.counters();

    loop {
        if hooks.stop.is_some_and(|s| s.load(Ordering::Relaxed)) && r.stopped.is_none() {
            r.stopped = Some(Stopped::Interrupted);
        }
        r.issue_due(dev, &mut schedule, opts)?;
        let pending = schedule.peek().is_some() && r.stopped.is_none();
        if r.rec.in_flight() == 0 && !pending {
            break;
        }
        // Wait for a completion, or until the next IO is due.
        let until = match (opts.pace, schedule.peek()) {
            (Pace::Timed, Some(n)) if r.stopped.is_none() && !r.io.free.is_empty() => {
                Some((r.start.saturating_add(n.at_ns)).saturating_sub(opts.spin_ns * wall as u64))
            }
            _ => None,
        };
        let min = if r.rec.in_flight() > 0 { 1 } else { 0 };
        r.io.done.clear();
        dev.reap(min, until, &mut r.io.done)?;
        r.energy.poll(dev, &mut r.rec);
        let done = std::mem::take(&mut r.io.done);
        for c in &done {
            r.complete(c, &mut hooks);
        }
        r.io.done = done;
        r.report_progress(dev, &mut hooks, opts);
    }
    Ok(r.finish(dev, cpu_start, counters_start))
}

/// A replay's slots and buffers, set up before its clock starts.
struct Slots {
    free: Vec<u32>,
    slots: Vec<InFlight>,
    done: Vec<Completion>,
    batch: Batch,
    rng: pattern::Rng,
    /// How late IOs were issued, in ns.
    late: Histogram<u64>,
}

impl Slots {
    fn new(slots_n: u32, seed: u64) -> Slots {
        let mut late =
            Histogram::<u64>::new_with_bounds(1, 3_600_000_000_000, 3).expect("histogram");
        late.auto(true);
        Slots {
            free: (0..slots_n).rev().collect(),
            slots: vec![InFlight::default(); slots_n as usize],
            done: Vec::with_capacity(slots_n as usize),
            batch: Batch::default(),
            rng: pattern::Rng::new(seed),
            late,
        }
    }
}

/// A replay as it runs: its slots, the IOs due together, how late they went, and what has
/// completed.
struct Replayer {
    io: Slots,
    /// IOs that waited for a slot, and the schedule time of the one waiting now.
    waited: u64,
    waiting_since: Option<u64>,
    capacity_bytes: u64,
    wall: bool,
    start: u64,
    rec: Recorder,
    energy: EnergyProbe,
    stopped: Option<Stopped>,
    /// The schedule time of the last IO issued.
    last_at: u64,
    done_ios: u64,
    done_bytes: u64,
    every: std::time::Duration,
    last_report: std::time::Instant,
}

impl Replayer {
    /// Start the clock: the replay's time 0 is now.
    fn start(
        dev: &mut dyn Device,
        io: Slots,
        hooks: &Hooks,
        capacity_bytes: u64,
        wall: bool,
    ) -> Replayer {
        let start = dev.now_ns();
        let mut rec = Recorder::new(start);
        let energy = EnergyProbe::start(dev, &mut rec);
        Replayer {
            io,
            waited: 0,
            waiting_since: None,
            capacity_bytes,
            wall,
            start,
            rec,
            energy,
            stopped: None,
            last_at: 0,
            done_ios: 0,
            done_bytes: 0,
            every: hooks
                .progress_every
                .unwrap_or(std::time::Duration::from_millis(200)),
            last_report: std::time::Instant::now(),
        }
    }

    /// Issue everything that is due and has a slot. IOs due together (a burst in the
    /// trace, or a backlog after the thread was preempted) start with one submission.
    fn issue_due<I: Iterator<Item = ScheduledIo>>(
        &mut self,
        dev: &mut dyn Device,
        schedule: &mut Peekable<I>,
        opts: &ReplayOptions,
    ) -> Result<(), DriverError> {
        while self.stopped.is_none() {
            let Some(next) = schedule.peek().copied() else {
                break;
            };
            let due = match opts.pace {
                Pace::Timed => self.start.saturating_add(next.at_ns),
                Pace::Afap => 0,
            };
            let now = dev.now_ns();
            if now < due {
                if self.wall && due - now <= opts.spin_ns {
                    if !self.io.batch.ios.is_empty() {
                        self.io.batch.issue(
                            dev,
                            &mut self.io.slots,
                            &mut self.rec,
                            &mut self.io.late,
                        )?;
                    }
                    std::hint::spin_loop();
                    continue;
                }
                break;
            }
            let Some(slot) = self.io.free.pop() else {
                // Count each IO that waits once, not once per wake-up.
                if self.waiting_since != Some(next.at_ns) {
                    self.waiting_since = Some(next.at_ns);
                    self.waited += 1;
                }
                break;
            };
            schedule.next();
            if next.offset + next.len as u64 > self.capacity_bytes
                || next.len as usize > opts.max_len.max(4096)
            {
                return Err(DeviceError::Invalid(format!(
                    "scheduled {} of {} bytes at {} is outside the target ({} bytes) or larger than max_len",
                    next.op.name(),
                    next.len,
                    next.offset,
                    self.capacity_bytes
                ))
                .into());
            }
            if next.op == Op::Write {
                if let Some(buf) = dev.buffer(slot) {
                    pattern::fill(&mut buf[..next.len as usize], opts.data, &mut self.io.rng);
                }
            }
            self.last_at = next.at_ns;
            let io = Io {
                slot,
                op: next.op,
                offset: next.offset,
                len: next.len,
            };
            self.io.batch.ios.push(io);
            self.io
                .batch
                .due
                .push((opts.pace == Pace::Timed).then_some(due));
        }
        if !self.io.batch.ios.is_empty() {
            self.io
                .batch
                .issue(dev, &mut self.io.slots, &mut self.rec, &mut self.io.late)?;
        }
        Ok(())
    }

    /// One completed IO: recorded and its slot freed; a failed one stops the replay.
    fn complete(&mut self, c: &Completion, hooks: &mut Hooks) {
        let f = self.io.slots[c.slot as usize];
        let op = f.op.expect("completion for a slot in flight");
        let bytes = if matches!(op, Op::Read | Op::Write) {
            f.len as u64
        } else {
            0
        };
        self.io.free.push(c.slot);
        let ok = match op {
            Op::Read | Op::Write => c.result == f.len as i64,
            Op::Discard | Op::Flush => c.result >= 0,
        };
        if ok {
            self.rec.completed(op, bytes, f.submit_ns, c.complete_ns);
            self.done_ios += 1;
            self.done_bytes += bytes;
        } else {
            self.rec.failed(op, c.complete_ns);
            if self.stopped.is_none() {
                self.stopped = Some(Stopped::Failed(describe_failure(
                    op, f.offset, f.len, c.result,
                )));
            }
        }
        if let Some(log) = hooks.iolog.as_deref_mut() {
            log.record(&IoRecord {
                offset: f.offset,
                len: f.len,
                op,
                submit_ns: f.submit_ns - self.start,
                complete_ns: c.complete_ns - self.start,
            });
        }
    }

    /// Report progress when it is due.
    fn report_progress(&mut self, dev: &mut dyn Device, hooks: &mut Hooks, opts: &ReplayOptions) {
        if self.last_report.elapsed() < self.every {
            return;
        }
        if let Some(progress) = hooks.progress.as_deref_mut() {
            let now = dev.now_ns();
            let elapsed = (now - self.start).max(1);
            let (done_ios, done_bytes) = (self.done_ios, self.done_bytes);
            progress(&Progress {
                fraction: opts
                    .expected_ios
                    .map_or(0.0, |n| (done_ios as f64 / n.max(1) as f64).min(1.0)),
                elapsed_ns: elapsed,
                ios: done_ios,
                bytes: done_bytes,
                recent_iops: done_ios as f64 / (elapsed as f64 / 1e9),
                recent_mbps: done_bytes as f64 / (elapsed as f64 / 1e3),
            });
        }
        self.last_report = std::time::Instant::now();
    }

    /// The replay's measurements, counters and fidelity, at its end.
    fn finish(
        mut self,
        dev: &mut dyn Device,
        cpu_start: CpuUsage,
        counters_start: Option<DeviceCounters>,
    ) -> ReplayOutcome {
        let end = dev.now_ns();
        let cpu = CpuUsage::now().since(cpu_start);
        self.energy.finish(dev, &mut self.rec);
        let latency = self.rec.latency_histograms();
        ReplayOutcome {
            outcome: Outcome::of(
                (self.rec.finish(end, Some(cpu)), latency),
                self.stopped,
                counters_start.map(|start| crate::driver::CounterSnapshots {
                    start,
                    checkpoint: None,
                    end: dev.counters(),
                }),
                None,
            ),
            fidelity: Fidelity {
                issue_late_us: LatencyStats::of(&self.io.late),
                waited_for_slot: self.waited,
                scheduled_s: self.last_at as f64 / 1e9,
                actual_s: (end - self.start) as f64 / 1e9,
            },
        }
    }
}

/// IOs due together, with the times they were due (when timed).
#[derive(Default)]
struct Batch {
    ios: Vec<Io>,
    due: Vec<Option<u64>>,
}

impl Batch {
    /// Submit the IOs at once and record them as issued at the moment of the submission.
    fn issue(
        &mut self,
        dev: &mut dyn Device,
        slots: &mut [InFlight],
        rec: &mut Recorder,
        late: &mut Histogram<u64>,
    ) -> Result<(), DriverError> {
        let now = dev.now_ns();
        dev.submit_all(&self.ios)?;
        for (io, due) in self.ios.drain(..).zip(self.due.drain(..)) {
            if let Some(due) = due {
                let _ = late.record(now.saturating_sub(due).max(1));
            }
            slots[io.slot as usize] = InFlight {
                op: Some(io.op),
                offset: io.offset,
                len: io.len,
                submit_ns: now,
            };
            rec.submitted(io.op, now);
        }
        Ok(())
    }
}
