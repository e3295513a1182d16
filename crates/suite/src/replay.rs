//! Trace replay: turn a trace's records into an issue schedule for the engine's open-loop
//! replay (ordering, remapping onto the target, alignment, idle capping, speed), run it, and
//! report the Storage Bench metrics with a fidelity report.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use serde::{Deserialize, Serialize};

use engine::driver::Hooks;
use engine::measure::{LatencyStats, Summary};
use engine::pattern::DataKind;
use engine::replay::{self, Fidelity, Pace, ReplayOptions, ScheduledIo};
use engine::shape::Shape;
use engine::{Device, Op};
use trace::Record;

use crate::analysis::Analysis;
use crate::context::Context;
use crate::methodology::TestId;
use crate::result::{Parameters, ReplayParameters, Report, TestResult};
use crate::SuiteError;

/// How the schedule's times are kept.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "mode", rename_all = "kebab-case")]
pub enum Mode {
    /// Open loop on the trace's timestamps, sped up by `speed`.
    Timed { speed: f64 },
    /// In order, as fast as possible, at most `qd` outstanding.
    Afap { qd: u32 },
    /// Timed inside busy periods; idle gaps longer than `cap_ns` cut to it.
    IdleCapped { cap_ns: u64, speed: f64 },
}

/// What to do with offsets beyond the target.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Remap {
    /// offset modulo the target's capacity.
    Wrap,
    /// offset scaled by capacity / `trace_span_bytes` (the trace's highest byte).
    Scale { trace_span_bytes: u64 },
}

#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Plan {
    pub mode: Mode,
    pub remap: Remap,
    /// Slots for the timed modes: enough that the open loop rarely waits.
    pub max_in_flight: u32,
    /// IOs larger than this are issued as several pieces at the same time; it also sizes
    /// the buffers (slots x this).
    pub max_io_bytes: u32,
    pub data: DataKind,
    pub seed: u64,
}

/// The longest a timed replay may run on the wall clock: a week (a week-long capture, as the
/// MSR Cambridge traces are, replays in real time; a trace idle for years does not).
pub const MAX_TIMED_WALL_S: f64 = 7.0 * 86_400.0;

/// Refuse, before anything runs, a replay that would wait out idle gaps for longer than
/// [`MAX_TIMED_WALL_S`] on the wall clock. `span_s` is the trace's first-to-last time. On a
/// virtual clock (the simulator) idle time costs nothing and anything goes.
pub fn check_wall_time(mode: Mode, clock: engine::Clock, span_s: f64) -> Result<(), SuiteError> {
    let Mode::Timed { speed } = mode else {
        return Ok(());
    };
    let wall_s = span_s / speed;
    if clock != engine::Clock::Wall || wall_s <= MAX_TIMED_WALL_S {
        return Ok(());
    }
    Err(SuiteError::Parameter(format!(
        "a timed replay of this trace would run for {} on the wall clock (its timestamps span \
         {span_s:.0} s{}; at most {} is allowed): replay it with --mode idle-capped, which cuts \
         idle gaps to --idle-cap (25 ms by default), or faster with --speed (at least {:.0})",
        human_duration(wall_s),
        if speed == 1.0 {
            String::new()
        } else {
            format!(", at speed {speed}")
        },
        human_duration(MAX_TIMED_WALL_S),
        (span_s / MAX_TIMED_WALL_S).ceil()
    )))
}

/// Refuse, before anything runs, a timed replay of a trace with IOs that carry no time (a fio
/// iolog v2 records none): it could only skip them, and would replay another trace.
pub fn check_timestamps(mode: Mode, untimed_ios: u64, ios: u64) -> Result<(), SuiteError> {
    if untimed_ios == 0 || matches!(mode, Mode::Afap { .. }) {
        return Ok(());
    }
    Err(SuiteError::Parameter(untimed_refusal(
        mode,
        untimed_ios,
        ios,
    )))
}

fn untimed_refusal(mode: Mode, untimed_ios: u64, ios: u64) -> String {
    let mode = match mode {
        Mode::Timed { .. } => "timed",
        Mode::IdleCapped { .. } => "idle-capped",
        Mode::Afap { .. } => "afap",
    };
    format!(
        "{untimed_ios} of the trace's {ios} IOs have no timestamp (a fio iolog v2 records none), \
         and --mode {mode} issues each IO at its time: replay it with `ssdlab trace replay \
         --mode afap`, which plays the IOs in order as fast as possible"
    )
}

fn human_duration(s: f64) -> String {
    match s {
        s if s >= 2.0 * 86_400.0 * 365.0 => format!("{:.0} years", s / (86_400.0 * 365.0)),
        s if s >= 2.0 * 86_400.0 => format!("{:.0} days", s / 86_400.0),
        s if s >= 7200.0 => format!("{:.0} hours", s / 3600.0),
        s => format!("{s:.0} s"),
    }
}

/// The default largest IO before splitting.
pub const MAX_IO_BYTES: u32 = 4 << 20;
/// Buffer memory a replay may use (slots x largest IO).
pub const BUFFER_BUDGET_BYTES: u64 = 1 << 30;

/// Slots and piece size for a trace whose largest IO is `largest` bytes: as many slots as
/// the buffer budget allows, up to the engine's limit, so a timed replay stays open-loop
/// through a device stall.
pub fn sizing(largest: u32) -> (u32, u32) {
    let piece = largest
        .clamp(4096, MAX_IO_BYTES)
        .next_power_of_two()
        .min(MAX_IO_BYTES);
    let slots = (BUFFER_BUDGET_BYTES / piece as u64).min(engine::workload::MAX_QD as u64) as u32;
    (slots, piece)
}
/// Records are put in time order within this window (readers that pair events may emit
/// completions out of issue order).
const REORDER_WINDOW: usize = 1 << 16;

/// Counts of what the schedule had to change.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Adjustments {
    pub remapped_ios: u64,
    pub aligned_ios: u64,
    pub split_ios: u64,
    /// Reads, writes and discards of no bytes, each issued as one logical block.
    #[serde(default)]
    pub zero_length_ios: u64,
    pub merged_skipped: u64,
    pub untimed_skipped: u64,
    pub idle_cut_s: f64,
}

/// The bytes a trace's IOs address, before they are placed on the target.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Addressed {
    /// IOs with bytes to place (reads, writes, discards).
    pub ios: u64,
    pub lowest_byte: Option<u64>,
    /// Just past the highest byte.
    pub end_byte: u64,
}

impl Addressed {
    fn add(&mut self, offset: u64, len: u32) {
        self.ios += 1;
        self.lowest_byte = Some(self.lowest_byte.map_or(offset, |l| l.min(offset)));
        self.end_byte = self.end_byte.max(offset.saturating_add(len as u64));
    }
}

/// A record waiting in the reorder window, ordered by time then arrival.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Pending {
    t: u64,
    seq: u64,
    op: u8,
    offset: u64,
    len: u32,
    /// The recorded (or nominal) service time, for idle detection.
    service: u64,
}

/// The schedule of a trace, streamed.
pub struct Schedule<I: Iterator<Item = Record>> {
    records: I,
    heap: BinaryHeap<Reverse<Pending>>,
    seq: u64,
    plan: Plan,
    capacity: u64,
    align: u64,
    t0: Option<u64>,
    /// The last time read, for an untimed record's place in an as-fast-as-possible replay.
    last_t: u64,
    shift_ns: u64,
    busy_until: u64,
    pieces: Vec<ScheduledIo>,
    pub adjustments: Adjustments,
    pub addressed: Addressed,
}

fn op_code(op: Op) -> u8 {
    op as u8
}

fn op_of(code: u8) -> Op {
    Op::ALL[code as usize]
}

impl<I: Iterator<Item = Record>> Schedule<I> {
    pub fn new(records: I, plan: Plan, capacity: u64, align: u32) -> Schedule<I> {
        Schedule {
            records,
            heap: BinaryHeap::new(),
            seq: 0,
            plan,
            capacity,
            align: align.max(512) as u64,
            t0: None,
            last_t: 0,
            shift_ns: 0,
            busy_until: 0,
            pieces: Vec::new(),
            adjustments: Adjustments::default(),
            addressed: Addressed::default(),
        }
    }

    fn refill(&mut self) {
        while self.heap.len() < REORDER_WINDOW {
            let Some(r) = self.records.next() else { return };
            if r.merged {
                self.adjustments.merged_skipped += 1;
                continue;
            }
            let t = match (r.issue_ns.or(r.queue_ns).or(r.complete_ns), self.plan.mode) {
                (Some(t), _) => t,
                // As fast as possible needs no time: the IO keeps its place in the trace.
                (None, Mode::Afap { .. }) => self.last_t,
                (None, _) => {
                    self.adjustments.untimed_skipped += 1;
                    continue;
                }
            };
            self.last_t = t;
            // Service time as recorded, for idle detection.
            let service = r
                .d2c_ns()
                .unwrap_or_else(|| trace::synth::service_ns(r.op, r.len_bytes));
            self.seq += 1;
            self.heap.push(Reverse(Pending {
                t,
                seq: self.seq,
                op: op_code(r.op),
                offset: r.offset_bytes,
                len: r.len_bytes,
                service,
            }));
        }
    }

    /// Place an IO on the target: remap, then align to the logical block (an IO of no
    /// bytes becomes one block).
    fn place(&mut self, offset: u64, len: u32) -> (u64, u32) {
        self.addressed.add(offset, len);
        let empty = len == 0;
        if empty {
            self.adjustments.zero_length_ios += 1;
        }
        let cap = self.capacity;
        let len = (len.max(1) as u64).min(cap);
        let mut off = offset;
        match self.plan.remap {
            // Every offset moves in proportion: moving only those past the end would squeeze
            // the trace's high LBAs onto its low ones, which kept their place.
            Remap::Scale { trace_span_bytes } if trace_span_bytes > cap => {
                self.adjustments.remapped_ios += 1;
                off = (off as u128 * cap as u128 / trace_span_bytes as u128) as u64;
                off = off.min(cap - len);
            }
            _ if off + len > cap => {
                self.adjustments.remapped_ios += 1;
                off %= cap;
            }
            _ => {}
        }
        let a = self.align;
        let (start, end) = (off / a * a, (off + len).div_ceil(a) * a);
        if !empty && (start != off || end != off + len) {
            self.adjustments.aligned_ios += 1;
        }
        let end = end.min(cap / a * a);
        let start = start.min(end.saturating_sub(a));
        (start, (end - start) as u32)
    }
}

impl<I: Iterator<Item = Record>> Iterator for Schedule<I> {
    type Item = ScheduledIo;

    fn next(&mut self) -> Option<ScheduledIo> {
        if let Some(p) = self.pieces.pop() {
            return Some(p);
        }
        self.refill();
        let Reverse(Pending {
            t,
            op,
            offset,
            len,
            service,
            ..
        }) = self.heap.pop()?;
        let op = op_of(op);
        let t0 = *self.t0.get_or_insert(t);
        let mut rel = t - t0;
        let speed = match self.plan.mode {
            Mode::Timed { speed } => speed,
            Mode::IdleCapped { cap_ns, speed } => {
                // `busy_until` is in the trace's time, before any cut.
                if rel > self.busy_until.saturating_add(cap_ns) {
                    let cut = rel - self.busy_until - cap_ns;
                    self.shift_ns += cut;
                    self.adjustments.idle_cut_s += cut as f64 / 1e9;
                }
                self.busy_until = self.busy_until.max(rel + service);
                rel -= self.shift_ns;
                speed
            }
            Mode::Afap { .. } => 1.0,
        };
        let at_ns = (rel as f64 / speed) as u64;
        if op == Op::Flush {
            return Some(ScheduledIo {
                at_ns,
                op,
                offset: 0,
                len: 0,
            });
        }
        let (offset, len) = self.place(offset, len);
        let max = self.plan.max_io_bytes;
        if len > max {
            self.adjustments.split_ios += 1;
            let end = offset + len as u64;
            let mut at = offset;
            while at < end {
                let piece = (end - at).min(max as u64) as u32;
                self.pieces.push(ScheduledIo {
                    at_ns,
                    op,
                    offset: at,
                    len: piece,
                });
                at += piece as u64;
            }
            self.pieces.reverse();
            return self.pieces.pop();
        }
        Some(ScheduledIo {
            at_ns,
            op,
            offset,
            len,
        })
    }
}

/// The Storage Bench's metrics, defined as the reviews did: average data rate is bytes moved
/// divided by disk busy time (idle excluded), per direction; service time is the mean time
/// from issue to completion.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StorageBenchMetrics {
    pub data_rate_mbps: f64,
    pub read_rate_mbps: Option<f64>,
    pub write_rate_mbps: Option<f64>,
    pub busy_time_s: f64,
    pub read_busy_time_s: Option<f64>,
    pub write_busy_time_s: Option<f64>,
    pub avg_service_time_us: f64,
    pub read_latency_us: Option<LatencyStats>,
    pub write_latency_us: Option<LatencyStats>,
}

impl StorageBenchMetrics {
    pub fn of(s: &Summary) -> StorageBenchMetrics {
        let rate = |bytes: u64, busy: f64| {
            if busy > 0.0 {
                bytes as f64 / busy / 1e6
            } else {
                0.0
            }
        };
        let dirs = [&s.read, &s.write, &s.other];
        let (ios, lat_sum) = dirs
            .iter()
            .flat_map(|d| d.as_ref())
            .fold((0u64, 0.0), |(n, sum), d| {
                (n + d.ios, sum + d.latency_us.mean * d.ios as f64)
            });
        StorageBenchMetrics {
            data_rate_mbps: rate(s.bytes, s.busy_time_s),
            read_rate_mbps: s.read.as_ref().map(|d| rate(d.bytes, d.busy_time_s)),
            write_rate_mbps: s.write.as_ref().map(|d| rate(d.bytes, d.busy_time_s)),
            busy_time_s: s.busy_time_s,
            read_busy_time_s: s.read.as_ref().map(|d| d.busy_time_s),
            write_busy_time_s: s.write.as_ref().map(|d| d.busy_time_s),
            avg_service_time_us: if ios > 0 { lat_sum / ios as f64 } else { 0.0 },
            read_latency_us: s.read.as_ref().map(|d| d.latency_us.clone()),
            write_latency_us: s.write.as_ref().map(|d| d.latency_us.clone()),
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ReplayAnalysis {
    pub trace: String,
    pub plan: Plan,
    pub metrics: StorageBenchMetrics,
    pub fidelity: Fidelity,
    /// Replay duration over the (idle-capped, sped-up) schedule's.
    pub duration_ratio: f64,
    pub achieved_avg_in_flight: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub recorded_avg_queue_depth: Option<f64>,
    pub adjustments: Adjustments,
    /// What the trace's IOs address, before they were placed on the target.
    #[serde(default)]
    pub addressed: Addressed,
}

/// Replay records on a device and make a result.
#[allow(clippy::too_many_arguments)]
pub fn run(
    dev: &mut dyn Device,
    ctx: &mut Context,
    test: TestId,
    variant: Option<String>,
    trace_name: &str,
    records: impl Iterator<Item = Record>,
    plan: Plan,
    recorded_avg_queue_depth: Option<f64>,
    expected_ios: Option<u64>,
) -> Result<TestResult, SuiteError> {
    let geo = dev.geometry();
    let mut schedule = Schedule::new(records, plan, geo.capacity_bytes, geo.logical_block_bytes);
    let (pace, slots) = match plan.mode {
        Mode::Afap { qd } => (Pace::Afap, qd),
        _ => (Pace::Timed, plan.max_in_flight),
    };
    let opts = ReplayOptions {
        pace,
        max_in_flight: slots,
        max_len: plan.max_io_bytes as usize,
        data: plan.data,
        seed: plan.seed,
        spin_ns: 20_000,
        expected_ios,
    };
    let label = format!("replay of {trace_name} ({})", mode_label(plan.mode));
    ctx.observer.phase(&label, dev.clock());
    let observer = &mut *ctx.observer;
    let mut progress = |p: &engine::driver::Progress| observer.progress(p);
    let out = replay::replay(
        dev,
        &mut schedule,
        &opts,
        Hooks {
            stop: Some(ctx.stop),
            progress: Some(&mut progress),
            ..Hooks::default()
        },
    );
    ctx.observer.phase_done();
    let mut out = out?;
    // A result of nothing would read as a drive that did nothing: refuse it, with the reason.
    let s = &out.outcome.measurements.summary;
    if s.ios + s.failed_ios == 0 {
        let skipped = schedule.adjustments.untimed_skipped;
        return Err(match out.outcome.stopped {
            Some(engine::driver::Stopped::Interrupted) => SuiteError::Interrupted,
            _ if skipped > 0 => SuiteError::Parameter(format!(
                "nothing was replayed from {trace_name}: {}",
                untimed_refusal(plan.mode, skipped, skipped)
            )),
            _ => SuiteError::Parameter(format!(
                "nothing was replayed from {trace_name}: it holds no IO to replay"
            )),
        });
    }
    ctx.add_metered_power(&mut out.outcome);
    let s = &out.outcome.measurements.summary;
    let analysis = ReplayAnalysis {
        trace: trace_name.into(),
        plan,
        metrics: StorageBenchMetrics::of(s),
        duration_ratio: out.fidelity.actual_s / out.fidelity.scheduled_s.max(1e-9),
        fidelity: out.fidelity,
        achieved_avg_in_flight: s.avg_in_flight,
        recorded_avg_queue_depth,
        adjustments: schedule.adjustments,
        addressed: schedule.addressed,
    };
    let mut report = Report::new(test, label);
    report.variant = variant;
    // The replay has no closed-loop workload; describe the replay instead.
    let w = engine::workload::Workload {
        access: engine::workload::Access::Sequential,
        block_bytes: geo.logical_block_bytes,
        offset_bytes: 0,
        span_bytes: geo.capacity_bytes,
        read_pct: 0,
        op: None,
        data: plan.data,
        qd: slots,
        limit: engine::workload::Limit::default(),
        seed: plan.seed,
        shape: Shape::default(),
        threads: 1,
    };
    let untimed = (analysis.adjustments.untimed_skipped > 0).then(|| {
        format!(
            "{} IOs of the trace have no timestamp and were not replayed (this replay issues \
             each IO at its time); `ssdlab trace replay --mode afap` replays them all",
            analysis.adjustments.untimed_skipped
        )
    });
    let warning = fell_behind(&analysis, slots);
    let placed = placement_notes(&schedule);
    report.analysis = Analysis::Replay(analysis);
    let mut result = report.finish(dev, &w, out.outcome);
    result.parameters = Parameters::Replay(ReplayParameters {
        trace: trace_name.into(),
        plan,
        trace_scale: None,
        trace_span_bytes: None,
    });
    result
        .warnings
        .extend(placed.into_iter().chain(warning).chain(untimed));
    Ok(result)
}

/// What placing the trace on the target changed, in words: IOs remapped (with the trace's
/// span against the target's capacity), widened to whole blocks, of no bytes, or split.
fn placement_notes<I: Iterator<Item = Record>>(s: &Schedule<I>) -> Vec<String> {
    use engine::units::format_size;
    let (adj, addr) = (&s.adjustments, &s.addressed);
    let mut notes = Vec::new();
    if adj.remapped_ios > 0 {
        let how = match s.plan.remap {
            Remap::Wrap => "wrapped (offset modulo the target's capacity), so the replay's \
                            access pattern is not the trace's: replay it on a target of at least \
                            the trace's highest byte, or with `--remap scale`, which moves every \
                            offset in proportion"
                .to_string(),
            Remap::Scale { trace_span_bytes } => format!(
                "scaled by the target's capacity over the trace's {} (every offset moves in \
                 proportion; the IOs keep their sizes, so the trace's footprint is denser)",
                format_size(trace_span_bytes)
            ),
        };
        notes.push(format!(
            "{} of the trace's {} IOs were remapped: the trace addresses bytes {} to {} ({}), \
             the target holds {}; they were {how}",
            adj.remapped_ios,
            addr.ios,
            addr.lowest_byte.unwrap_or(0),
            addr.end_byte.saturating_sub(1),
            format_size(addr.end_byte),
            format_size(s.capacity)
        ));
    }
    let block = s.align;
    if adj.aligned_ios > 0 {
        notes.push(format!(
            "{} IOs did not start and end on the target's {block}-byte blocks and were \
             widened to whole blocks",
            adj.aligned_ios
        ));
    }
    if adj.zero_length_ios > 0 {
        notes.push(format!(
            "{} IOs of the trace move no bytes and were each issued as one {block}-byte block",
            adj.zero_length_ios
        ));
    }
    if adj.split_ios > 0 {
        notes.push(format!(
            "{} IOs larger than {} were each issued as pieces of at most that size, all at the \
             IO's time",
            adj.split_ios,
            format_size(s.plan.max_io_bytes as u64)
        ));
    }
    notes
}

/// Say so when a timed replay ran out of slots: the drive could not keep up with the trace,
/// the open loop kept every slot busy, and each IO's service time then includes its wait
/// behind that backlog, which grows with the slot count rather than with the drive (on the
/// simulated 8 GiB drive, Heavy 2011 wrapped onto it: 576 ms with 256 slots, 72 ms with 32,
/// 14 ms with 6, at the same 17.2 MB/s and 9007 s busy).
fn fell_behind(a: &ReplayAnalysis, slots: u32) -> Option<String> {
    if matches!(a.plan.mode, Mode::Afap { .. }) || a.fidelity.waited_for_slot == 0 {
        return None;
    }
    let recorded = a
        .recorded_avg_queue_depth
        .map_or(String::new(), |q| format!(" (the trace's own: {q:.1})"));
    Some(format!(
        "the drive fell behind the trace: {} IOs waited for one of the {slots} slots, the \
         replay took {:.2}x the trace's time and kept {:.1} IOs in flight on average{recorded}; \
         the service time ({:.0} us) then includes the wait behind that backlog, which grows \
         with the slot count (--qd), while the data rate and busy time are the drive's \
         throughput",
        a.fidelity.waited_for_slot,
        a.duration_ratio,
        a.achieved_avg_in_flight,
        a.metrics.avg_service_time_us
    ))
}

fn mode_label(m: Mode) -> String {
    match m {
        Mode::Timed { speed } => match speed {
            1.0 => "timed".into(),
            _ => format!("timed x{speed}"),
        },
        Mode::Afap { qd } => format!("as fast as possible, QD{qd}"),
        Mode::IdleCapped { cap_ns, .. } => {
            format!("idle gaps capped at {} ms", cap_ns as f64 / 1e6)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(op: Op, t_us: u64, offset: u64, len: u32) -> Record {
        let mut r = Record::new(op, offset, len, Some(t_us * 1000));
        r.complete_ns = Some(t_us * 1000 + 100_000);
        r
    }

    fn plan(mode: Mode) -> Plan {
        Plan {
            mode,
            remap: Remap::Wrap,
            max_in_flight: 64,
            max_io_bytes: MAX_IO_BYTES,
            data: DataKind::Incompressible,
            seed: 1,
        }
    }

    #[test]
    fn orders_remaps_and_aligns() {
        let recs = vec![
            rec(Op::Write, 200, 8192, 4096),
            rec(Op::Read, 100, (1 << 20) + 4096, 4096), // beyond a 1 MiB target: wraps
            rec(Op::Read, 300, 512, 1024),              // unaligned for 4 KiB blocks
        ];
        let mut s = Schedule::new(
            recs.into_iter(),
            plan(Mode::Timed { speed: 2.0 }),
            1 << 20,
            4096,
        );
        let out: Vec<ScheduledIo> = s.by_ref().collect();
        assert_eq!(
            out[0],
            ScheduledIo {
                at_ns: 0,
                op: Op::Read,
                offset: 4096,
                len: 4096
            }
        );
        assert_eq!(
            out[1],
            ScheduledIo {
                at_ns: 50_000,
                op: Op::Write,
                offset: 8192,
                len: 4096
            }
        );
        assert_eq!(
            out[2],
            ScheduledIo {
                at_ns: 100_000,
                op: Op::Read,
                offset: 0,
                len: 4096
            }
        );
        assert_eq!(s.adjustments.remapped_ios, 1);
        assert_eq!(s.adjustments.aligned_ios, 1);
    }

    #[test]
    fn what_placing_changed_is_counted_and_said() {
        // On a 16 MiB target of 4 KiB blocks: one IO past the end, one unaligned, one of no
        // bytes, one of 9 MiB (split in three).
        let recs = vec![
            rec(Op::Read, 0, 32 << 20, 4096),
            rec(Op::Write, 1, 4096 + 512, 1024),
            rec(Op::Write, 2, 8192, 0),
            rec(Op::Write, 3, 0, 9 << 20),
        ];
        let mut s = Schedule::new(
            recs.into_iter(),
            plan(Mode::Timed { speed: 1.0 }),
            16 << 20,
            4096,
        );
        let out: Vec<ScheduledIo> = s.by_ref().collect();
        assert_eq!(out[2].len, 4096, "the empty write is one block: {out:?}");
        let a = s.adjustments;
        assert_eq!(
            (
                a.remapped_ios,
                a.aligned_ios,
                a.zero_length_ios,
                a.split_ios
            ),
            (1, 1, 1, 1),
            "{a:?}"
        );
        assert_eq!(
            s.addressed,
            Addressed {
                ios: 4,
                lowest_byte: Some(0),
                end_byte: (32 << 20) + 4096
            }
        );
        let notes = placement_notes(&s);
        assert_eq!(notes.len(), 4, "{notes:#?}");
        let remapped = &notes[0];
        assert!(
            remapped.starts_with("1 of the trace's 4 IOs were remapped"),
            "{remapped}"
        );
        assert!(remapped.contains("bytes 0 to 33558527"), "{remapped}");
        assert!(remapped.contains("the target holds 16 MiB"), "{remapped}");
        assert!(remapped.contains("--remap scale"), "{remapped}");
        assert!(
            notes[1].starts_with("1 IOs did not start and end"),
            "{}",
            notes[1]
        );
        assert!(
            notes[2].starts_with("1 IOs of the trace move no bytes"),
            "{}",
            notes[2]
        );
        assert!(
            notes[3].starts_with("1 IOs larger than 4 MiB"),
            "{}",
            notes[3]
        );
        // Nothing changed, nothing said.
        let recs = vec![rec(Op::Read, 0, 0, 4096)];
        let mut s = Schedule::new(recs.into_iter(), plan(Mode::Afap { qd: 1 }), 1 << 20, 4096);
        s.by_ref().for_each(drop);
        assert!(placement_notes(&s).is_empty());
    }

    #[test]
    fn remap_scale_moves_every_offset_in_proportion() {
        // A 2 MiB trace on a 1 MiB target: every offset halves, the last IO ends at the end.
        let recs = vec![
            rec(Op::Read, 0, 256 << 10, 4096),
            rec(Op::Read, 1, 1 << 20, 4096),
            rec(Op::Read, 2, (2 << 20) - 4096, 4096),
        ];
        let mut p = plan(Mode::Timed { speed: 1.0 });
        p.remap = Remap::Scale {
            trace_span_bytes: 2 << 20,
        };
        let mut s = Schedule::new(recs.into_iter(), p, 1 << 20, 4096);
        let offs: Vec<u64> = s.by_ref().map(|io| io.offset).collect();
        assert_eq!(offs, vec![128 << 10, 512 << 10, (1 << 20) - 4096]);
        assert_eq!(s.adjustments.remapped_ios, 3);
    }

    #[test]
    fn idle_gaps_are_capped() {
        // Busy 0..100 us, then idle until 10 s, then another IO.
        let recs = vec![
            rec(Op::Read, 0, 0, 4096),
            rec(Op::Read, 10_000_000, 4096, 4096),
        ];
        let cap = 25_000_000;
        let mut s = Schedule::new(
            recs.into_iter(),
            plan(Mode::IdleCapped {
                cap_ns: cap,
                speed: 1.0,
            }),
            1 << 30,
            4096,
        );
        let out: Vec<ScheduledIo> = s.by_ref().collect();
        assert_eq!(out[1].at_ns, 100_000 + cap);
        assert!((s.adjustments.idle_cut_s - (10.0 - 0.0001 - 0.025)).abs() < 1e-9);
    }

    #[test]
    fn a_timed_replay_waiting_years_on_the_wall_clock_is_refused() {
        use engine::Clock;
        let timed = Mode::Timed { speed: 1.0 };
        let e = check_wall_time(timed, Clock::Wall, 1e8)
            .unwrap_err()
            .to_string();
        assert!(e.contains("3 years"), "{e}");
        assert!(
            e.contains("--mode idle-capped") && e.contains("--speed"),
            "{e}"
        );
        // Virtual time, idle-capped, a week, or sped up enough: fine.
        assert!(check_wall_time(timed, Clock::Virtual, 1e8).is_ok());
        let capped = Mode::IdleCapped {
            cap_ns: 25_000_000,
            speed: 1.0,
        };
        assert!(check_wall_time(capped, Clock::Wall, 1e8).is_ok());
        assert!(check_wall_time(timed, Clock::Wall, MAX_TIMED_WALL_S).is_ok());
        assert!(check_wall_time(Mode::Timed { speed: 200.0 }, Clock::Wall, 1e8).is_ok());
    }

    #[test]
    fn afap_replays_untimed_records_in_their_order() {
        let recs: Vec<Record> = (0..4)
            .map(|i| Record::new(Op::Read, (3 - i) * 4096, 4096, None))
            .collect();
        let mut s = Schedule::new(recs.into_iter(), plan(Mode::Afap { qd: 4 }), 1 << 30, 4096);
        let offsets: Vec<u64> = s.by_ref().map(|io| io.offset).collect();
        assert_eq!(offsets, vec![3 * 4096, 2 * 4096, 4096, 0]);
        assert_eq!(s.adjustments.untimed_skipped, 0);
    }

    #[test]
    fn timed_modes_refuse_untimed_ios_and_name_afap() {
        let capped = Mode::IdleCapped {
            cap_ns: 25_000_000,
            speed: 1.0,
        };
        for mode in [Mode::Timed { speed: 1.0 }, capped] {
            let e = check_timestamps(mode, 3, 10).unwrap_err().to_string();
            assert!(e.contains("3 of the trace's 10 IOs"), "{e}");
            assert!(e.contains("--mode afap"), "{e}");
            assert!(check_timestamps(mode, 0, 10).is_ok());
        }
        assert!(check_timestamps(Mode::Afap { qd: 1 }, 10, 10).is_ok());
    }

    #[test]
    fn large_ios_are_split() {
        let recs = vec![rec(Op::Write, 0, 0, 9 << 20)];
        let s = Schedule::new(
            recs.into_iter(),
            plan(Mode::Timed { speed: 1.0 }),
            1 << 30,
            4096,
        );
        let out: Vec<ScheduledIo> = s.collect();
        let lens: Vec<u32> = out.iter().map(|p| p.len).collect();
        assert_eq!(lens.iter().sum::<u32>(), 9 << 20);
        assert!(lens.iter().all(|&l| l <= MAX_IO_BYTES));
        let mut offs: Vec<u64> = out.iter().map(|p| p.offset).collect();
        offs.sort();
        assert_eq!(offs, vec![0, 4 << 20, 8 << 20]);
    }

    #[test]
    fn storage_bench_rates_are_over_busy_time() {
        use engine::measure::Recorder;
        let mut r = Recorder::new(0);
        // 1 MB read busy 1 s, then idle 9 s, then 1 MB written busy 0.5 s.
        r.submitted(Op::Read, 0);
        r.completed(Op::Read, 1_000_000, 0, 1_000_000_000);
        r.submitted(Op::Write, 10_000_000_000);
        r.completed(Op::Write, 1_000_000, 10_000_000_000, 10_500_000_000);
        let m = StorageBenchMetrics::of(&r.finish(0, None).summary);
        assert!((m.data_rate_mbps - 2.0 / 1.5).abs() < 1e-9);
        assert!((m.read_rate_mbps.unwrap() - 1.0).abs() < 1e-9);
        assert!((m.write_rate_mbps.unwrap() - 2.0).abs() < 1e-9);
        assert!((m.busy_time_s - 1.5).abs() < 1e-9);
    }
}
