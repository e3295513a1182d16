//! Open-loop replay: issue IOs at the times a schedule gives (a recorded trace), or as fast as
//! possible in order, on any device. On the simulator the schedule runs in virtual time.

use std::sync::atomic::Ordering;

use hdrhistogram::Histogram;
use serde::{Deserialize, Serialize};

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
    let geo = dev.geometry();
    let mut free: Vec<u32> = (0..slots_n).rev().collect();
    let mut slots = vec![InFlight::default(); slots_n as usize];
    let mut done: Vec<Completion> = Vec::with_capacity(slots_n as usize);
    let mut batch = Batch::default();
    let mut rng = pattern::Rng::new(opts.seed);
    let mut late = Histogram::<u64>::new_with_bounds(1, 3_600_000_000_000, 3).expect("histogram");
    late.auto(true);
    let mut waited = 0u64;
    let mut waiting_since: Option<u64> = None;
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
    let start = dev.now_ns();
    let mut rec = Recorder::new(start);
    let mut energy = EnergyProbe::start(dev, &mut rec);
    let counters_start = dev.counters();
    let mut stopped = None;
    let (mut last_at, mut done_ios, mut done_bytes) = (0u64, 0u64, 0u64);
    let every = hooks
        .progress_every
        .unwrap_or(std::time::Duration::from_millis(200));
    let mut last_report = std::time::Instant::now();

    loop {
        if hooks.stop.is_some_and(|s| s.load(Ordering::Relaxed)) && stopped.is_none() {
            stopped = Some(Stopped::Interrupted);
        }
        // Issue everything that is due and has a slot. IOs due together (a burst in the
        // trace, or a backlog after the thread was preempted) start with one submission.
        while stopped.is_none() {
            let Some(next) = schedule.peek().copied() else {
                break;
            };
            let due = match opts.pace {
                Pace::Timed => start.saturating_add(next.at_ns),
                Pace::Afap => 0,
            };
            let now = dev.now_ns();
            if now < due {
                if wall && due - now <= opts.spin_ns {
                    if !batch.ios.is_empty() {
                        batch.issue(dev, &mut slots, &mut rec, &mut late)?;
                    }
                    std::hint::spin_loop();
                    continue;
                }
                break;
            }
            let Some(slot) = free.pop() else {
                // Count each IO that waits once, not once per wake-up.
                if waiting_since != Some(next.at_ns) {
                    waiting_since = Some(next.at_ns);
                    waited += 1;
                }
                break;
            };
            schedule.next();
            if next.offset + next.len as u64 > geo.capacity_bytes
                || next.len as usize > opts.max_len.max(4096)
            {
                return Err(DeviceError::Invalid(format!(
                    "scheduled {} of {} bytes at {} is outside the target ({} bytes) or larger than max_len",
                    next.op.name(),
                    next.len,
                    next.offset,
                    geo.capacity_bytes
                ))
                .into());
            }
            if next.op == Op::Write {
                if let Some(buf) = dev.buffer(slot) {
                    pattern::fill(&mut buf[..next.len as usize], opts.data, &mut rng);
                }
            }
            last_at = next.at_ns;
            let io = Io {
                slot,
                op: next.op,
                offset: next.offset,
                len: next.len,
            };
            batch.ios.push(io);
            batch.due.push((opts.pace == Pace::Timed).then_some(due));
        }
        if !batch.ios.is_empty() {
            batch.issue(dev, &mut slots, &mut rec, &mut late)?;
        }
        let pending = schedule.peek().is_some() && stopped.is_none();
        if rec.in_flight() == 0 && !pending {
            break;
        }
        // Wait for a completion, or until the next IO is due.
        let until = match (opts.pace, schedule.peek()) {
            (Pace::Timed, Some(n)) if stopped.is_none() && !free.is_empty() => {
                Some((start.saturating_add(n.at_ns)).saturating_sub(opts.spin_ns * wall as u64))
            }
            _ => None,
        };
        let min = if rec.in_flight() > 0 { 1 } else { 0 };
        done.clear();
        dev.reap(min, until, &mut done)?;
        energy.poll(dev, &mut rec);
        for c in &done {
            let f = slots[c.slot as usize];
            let op = f.op.expect("completion for a slot in flight");
            let bytes = if matches!(op, Op::Read | Op::Write) {
                f.len as u64
            } else {
                0
            };
            free.push(c.slot);
            let ok = match op {
                Op::Read | Op::Write => c.result == f.len as i64,
                Op::Discard | Op::Flush => c.result >= 0,
            };
            if ok {
                rec.completed(op, bytes, f.submit_ns, c.complete_ns);
                done_ios += 1;
                done_bytes += bytes;
            } else {
                rec.failed(op, c.complete_ns);
                if stopped.is_none() {
                    stopped = Some(Stopped::Failed(describe_failure(
                        op, f.offset, f.len, c.result,
                    )));
                }
            }
            if let Some(log) = hooks.iolog.as_deref_mut() {
                log.record(&IoRecord {
                    offset: f.offset,
                    len: f.len,
                    op,
                    submit_ns: f.submit_ns - start,
                    complete_ns: c.complete_ns - start,
                });
            }
        }
        if last_report.elapsed() >= every {
            if let Some(progress) = hooks.progress.as_deref_mut() {
                let now = dev.now_ns();
                let elapsed = (now - start).max(1);
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
            last_report = std::time::Instant::now();
        }
    }
    let end = dev.now_ns();
    let cpu = CpuUsage::now().since(cpu_start);
    energy.finish(dev, &mut rec);
    let latency = rec.latency_histograms();
    Ok(ReplayOutcome {
        outcome: Outcome::of(
            (rec.finish(end, Some(cpu)), latency),
            stopped,
            counters_start.map(|start| crate::driver::CounterSnapshots {
                start,
                checkpoint: None,
                end: dev.counters(),
            }),
            None,
        ),
        fidelity: Fidelity {
            issue_late_us: LatencyStats::of(&late),
            waited_for_slot: waited,
            scheduled_s: last_at as f64 / 1e9,
            actual_s: (end - start) as f64 / 1e9,
        },
    })
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
