//! The hot path: what each submitted and completed IO updates. Nothing here allocates per IO.

use std::sync::{Arc, Mutex};

use hdrhistogram::Histogram;

use super::coarse::{point_seconds, Coarse};
use super::hist_log::HistLine;
use super::{CpuUsage, DirSummary, LatencyStats, Measurements, SecondPoint, Summary};
use super::{LatencySeconds, LatencyWindow, SecondLatency};
use super::{ENERGY_SAMPLES_PER_S, IDLE_RUN_S, NS};
use crate::device::Op;

/// Directions measured apart: reads, writes, and the rest (discards, flushes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Dir {
    Read = 0,
    Write = 1,
    Other = 2,
}

fn dir(op: Op) -> Dir {
    match op {
        Op::Read => Dir::Read,
        Op::Write => Dir::Write,
        Op::Discard | Op::Flush => Dir::Other,
    }
}

#[derive(Clone, Copy, Default, Debug)]
struct Bucket {
    ios: [u64; 3],
    bytes: [u64; 3],
}

/// Time with at least one IO in flight, and the time-weighted number in flight.
#[derive(Clone, Copy, Default, Debug)]
struct Occupancy {
    in_flight: u32,
    max_in_flight: u32,
    since_ns: u64,
    busy_ns: u64,
    /// The IOs' summed time in flight, in IO-nanoseconds (iostat's weighted time in queue):
    /// each IO adds its completion stamp and takes away its submission stamp. Exact in
    /// whatever order a backend's threads hand completions over, where an integral over
    /// events in processing order is not.
    in_flight_ns: i128,
}

impl Occupancy {
    #[inline]
    fn change(&mut self, stamp_ns: u64, up: bool) {
        self.in_flight_ns += if up {
            -(stamp_ns as i128)
        } else {
            stamp_ns as i128
        };
        // Events arrive in processing order; a backend whose threads stamp completions may
        // hand one over stamped slightly before the last submission. Time never runs back.
        let now_ns = stamp_ns.max(self.since_ns);
        if self.in_flight > 0 {
            self.busy_ns += now_ns - self.since_ns;
        }
        self.since_ns = now_ns;
        if up {
            self.in_flight += 1;
            self.max_in_flight = self.max_in_flight.max(self.in_flight);
        } else {
            self.in_flight -= 1;
        }
    }

    /// Add another thread's occupancy of the same run. The time-weighted depth adds up
    /// exactly; the busy time becomes the longest thread's (the union of busy periods is not
    /// kept: the same when the threads overlap, as closed-loop threads do), and the largest
    /// depth the sum of the threads' largest.
    fn add(&mut self, other: &Occupancy) {
        self.in_flight += other.in_flight;
        self.max_in_flight += other.max_in_flight;
        self.since_ns = self.since_ns.max(other.since_ns);
        self.busy_ns = self.busy_ns.max(other.busy_ns);
        self.in_flight_ns += other.in_flight_ns;
    }
}

/// Where a recorder's closed seconds of latency go: to its own [`LatencySeconds`], or to one
/// the threads of a run share (locked once a second, never per IO).
enum Seconds {
    Own(LatencySeconds),
    Shared {
        seconds: Arc<Mutex<LatencySeconds>>,
        thread: usize,
    },
}

/// The per-second counts of two threads of a run, second by second.
fn merge_buckets(a: &[(u64, Bucket)], b: &[(u64, Bucket)]) -> Vec<(u64, Bucket)> {
    let mut out = Vec::with_capacity(a.len().max(b.len()));
    let (mut a, mut b) = (a.iter().peekable(), b.iter().peekable());
    loop {
        let next = match (a.peek(), b.peek()) {
            (Some(x), Some(y)) if x.0 == y.0 => {
                let (x, y) = (a.next().expect("a"), b.next().expect("b"));
                let mut sum = x.1;
                for d in 0..3 {
                    sum.ios[d] += y.1.ios[d];
                    sum.bytes[d] += y.1.bytes[d];
                }
                (x.0, sum)
            }
            (Some(x), Some(y)) if x.0 < y.0 => *a.next().expect("a"),
            (Some(_), Some(_)) | (None, Some(_)) => *b.next().expect("b"),
            (Some(_), None) => *a.next().expect("a"),
            (None, None) => return out,
        };
        out.push(next);
    }
}

/// The periods in both lists (each in order, not overlapping): when no thread had IO in flight.
fn overlap(a: &[(u64, u64)], b: &[(u64, u64)]) -> Vec<(u64, u64)> {
    let (mut i, mut j, mut out) = (0, 0, Vec::new());
    while let (Some(&(a0, a1)), Some(&(b0, b1))) = (a.get(i), b.get(j)) {
        let (from, to) = (a0.max(b0), a1.min(b1));
        if from < to {
            out.push((from, to));
        }
        if a1 < b1 {
            i += 1;
        } else {
            j += 1;
        }
    }
    out
}

/// Samples a device's energy counter into a [`Recorder`] as a run goes, where the device
/// keeps one (see [`crate::Device::energy_j`]): at the start, at least
/// [`ENERGY_SAMPLES_PER_S`] times a second of its clock, and at the end.
pub struct EnergyProbe {
    next_ns: Option<u64>,
}

impl EnergyProbe {
    /// Take the first sample (none, and none later, when the device keeps no energy).
    pub fn start(dev: &dyn crate::Device, rec: &mut Recorder) -> EnergyProbe {
        let next_ns = dev.energy_j().map(|j| {
            rec.energy(dev.now_ns(), j);
            dev.now_ns() + NS / ENERGY_SAMPLES_PER_S
        });
        EnergyProbe { next_ns }
    }

    /// Sample when the next sample is due.
    #[inline]
    pub fn poll(&mut self, dev: &dyn crate::Device, rec: &mut Recorder) {
        if let Some(next) = self.next_ns {
            let now = dev.now_ns();
            if now >= next {
                self.sample(dev, rec, now);
            }
        }
    }

    /// The last sample, at the run's end.
    pub fn finish(&mut self, dev: &dyn crate::Device, rec: &mut Recorder) {
        if self.next_ns.is_some() {
            self.sample(dev, rec, dev.now_ns());
        }
    }

    fn sample(&mut self, dev: &dyn crate::Device, rec: &mut Recorder, now: u64) {
        if let Some(j) = dev.energy_j() {
            rec.energy(now, j);
        }
        self.next_ns = Some(now + NS / ENERGY_SAMPLES_PER_S);
    }
}

/// Collects a run's measurements as IOs are submitted and completed.
pub struct Recorder {
    start_ns: u64,
    end_ns: u64,
    /// Seconds (since the start) that saw a completion, in increasing order.
    buckets: Vec<(u64, Bucket)>,
    /// Idle periods of at least [`IDLE_RUN_S`] s, as ns since the start, in order.
    idle: Vec<(u64, u64)>,
    /// IOs that completed with an error or short: not counted as IOs, bytes or latency.
    failed: u64,
    latency_ns: [Histogram<u64>; 3],
    /// The open second's read and write latencies. A completion stamped before the open
    /// second (a backend's threads may hand one over late) counts in the open one.
    window: [LatencyWindow; 2],
    window_second: u64,
    /// The percentiles of the seconds closed before it.
    seconds: Seconds,
    occupancy: [Occupancy; 3],
    all: Occupancy,
    /// The drive's temperature by second since the start, where it reports one.
    temperature: Vec<(u64, f64)>,
    /// The device's energy counter (ns, joules) as the run went, where it keeps one (the
    /// simulator's energy model): the per-second power and the run's energy.
    energy: Vec<(u64, f64)>,
}

fn histogram() -> Histogram<u64> {
    // 1 ns .. 1 hour at 3 significant digits; auto-resize past that rather than lose an IO.
    let mut h = Histogram::new_with_bounds(1, 3_600 * NS, 3).expect("histogram bounds");
    h.auto(true);
    h
}

impl Recorder {
    /// The drive's temperature at `now_ns` (the first reading of a second counts).
    pub fn temperature(&mut self, now_ns: u64, celsius: f64) {
        let second = now_ns.saturating_sub(self.start_ns) / NS;
        if self.temperature.last().is_none_or(|&(s, _)| s < second) {
            self.temperature.push((second, celsius));
        }
    }

    /// The device's energy counter at `now_ns` (see [`crate::Device::energy_j`]). The driver
    /// samples it at least [`ENERGY_SAMPLES_PER_S`] times a second of the device's clock, at
    /// the start and at the end; power between samples is taken as steady.
    /// A counter that is not a finite number of joules is no reading: power is missing
    /// there, never a non-finite figure (JSON would write it as null, unreadable back).
    pub fn energy(&mut self, now_ns: u64, joules: f64) {
        if !joules.is_finite() {
            return;
        }
        let second = |t: u64| t.saturating_sub(self.start_ns) / NS;
        match self.energy[..] {
            [.., (last, _)] if last >= now_ns => {
                let last = self.energy.last_mut().expect("a sample");
                last.1 = last.1.max(joules);
            }
            // Only a second's first and last samples are ever read (the power of whole
            // seconds, interpolated at their edges): a third in the same second replaces
            // the last, so a year's run keeps two a second, not ten.
            [.., (a, _), (b, _)] if second(a) == second(b) && second(b) == second(now_ns) => {
                *self.energy.last_mut().expect("a sample") = (now_ns, joules);
            }
            _ => self.energy.push((now_ns, joules)),
        }
    }

    /// The energy counter at `t_ns`, interpolated between samples.
    fn energy_at(&self, t_ns: u64) -> Option<f64> {
        let e = &self.energy;
        let i = e.partition_point(|&(t, _)| t <= t_ns);
        match (i.checked_sub(1).map(|j| e[j]), e.get(i)) {
            (Some((t0, j0)), Some(&(t1, j1))) => {
                Some(j0 + (j1 - j0) * (t_ns - t0) as f64 / (t1 - t0) as f64)
            }
            (Some((t0, j0)), None) if t0 == t_ns => Some(j0),
            _ => None,
        }
    }

    pub fn new(start_ns: u64) -> Recorder {
        Recorder::with_seconds(start_ns, Seconds::Own(LatencySeconds::new(1)))
    }

    /// The recorder of thread `thread` of a run whose threads share `seconds` (see
    /// [`Recorder::merge`]); `start_ns` is the run's, on the clock the threads share.
    pub fn in_team(start_ns: u64, seconds: Arc<Mutex<LatencySeconds>>, thread: usize) -> Recorder {
        Recorder::with_seconds(start_ns, Seconds::Shared { seconds, thread })
    }

    fn with_seconds(start_ns: u64, seconds: Seconds) -> Recorder {
        Recorder {
            start_ns,
            end_ns: start_ns,
            buckets: Vec::with_capacity(4096),
            idle: Vec::new(),
            failed: 0,
            latency_ns: [histogram(), histogram(), histogram()],
            window: Default::default(),
            window_second: 0,
            seconds,
            temperature: Vec::new(),
            energy: Vec::new(),
            occupancy: Default::default(),
            all: Occupancy {
                since_ns: start_ns,
                ..Default::default()
            },
        }
    }

    #[inline]
    pub fn submitted(&mut self, op: Op, now_ns: u64) {
        if self.all.in_flight == 0 {
            // Idle since the last completion (or the start): remember a long idle period so
            // the per-second series can leave it out.
            let since = self.all.since_ns;
            if now_ns >= since + IDLE_RUN_S * NS {
                self.idle
                    .push((since - self.start_ns, now_ns - self.start_ns));
            }
        }
        self.occupancy[dir(op) as usize].change(now_ns, true);
        self.all.change(now_ns, true);
    }

    #[inline]
    pub fn completed(&mut self, op: Op, bytes: u64, submit_ns: u64, complete_ns: u64) {
        let d = dir(op) as usize;
        self.occupancy[d].change(complete_ns, false);
        self.all.change(complete_ns, false);
        let second = complete_ns.saturating_sub(self.start_ns) / NS;
        let b = self.bucket(second);
        b.ios[d] += 1;
        b.bytes[d] += bytes;
        let latency = complete_ns.saturating_sub(submit_ns).max(1);
        let _ = self.latency_ns[d].record(latency);
        if second > self.window_second {
            self.close_window(second);
        }
        if let Some(w) = self.window.get_mut(d) {
            w.record(latency);
        }
        self.end_ns = self.end_ns.max(complete_ns);
    }

    /// Keep each second's bucket counts for a hist log ([`Recorder::take_hist_lines`]).
    pub fn keep_hist_lines(&mut self) {
        self.with_seconds_of(LatencySeconds::keep_hist_lines);
    }

    /// The bucket counts of every second so far, the open one closed (no IO may complete
    /// after).
    pub fn take_hist_lines(&mut self) -> Vec<HistLine> {
        self.close_window(u64::MAX);
        self.with_seconds_of(LatencySeconds::take_hist_lines)
    }

    fn with_seconds_of<T>(&mut self, f: impl FnOnce(&mut LatencySeconds) -> T) -> T {
        match &mut self.seconds {
            Seconds::Own(s) => f(s),
            Seconds::Shared { seconds, .. } => {
                f(&mut seconds.lock().unwrap_or_else(|e| e.into_inner()))
            }
        }
    }

    /// Hand the open second's latencies on and open second `next` (`u64::MAX`: none, the
    /// run is over).
    fn close_window(&mut self, next: u64) {
        let (second, windows) = (self.window_second, &self.window);
        match &mut self.seconds {
            Seconds::Own(s) => s.close(0, second, windows, next),
            Seconds::Shared { seconds, thread } => seconds
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .close(*thread, second, windows, next),
        }
        self.window.iter_mut().for_each(LatencyWindow::clear);
        self.window_second = next;
    }

    /// One recorder of a run of several threads, from each thread's (made by
    /// [`Recorder::in_team`] with the same start): counts, bytes and latencies add up, and
    /// each second's latency percentiles are those of every thread's IOs in it. The drive's
    /// temperature and energy are the first thread's, which samples them.
    pub fn merge(threads: Vec<Recorder>) -> Recorder {
        let mut threads = threads.into_iter();
        let mut merged = threads.next().expect("a thread");
        merged.close_window(u64::MAX);
        for mut other in threads {
            other.close_window(u64::MAX);
            merged.buckets = merge_buckets(&merged.buckets, &other.buckets);
            merged.idle = overlap(&merged.idle, &other.idle);
            merged.failed += other.failed;
            for (h, o) in merged.latency_ns.iter_mut().zip(&other.latency_ns) {
                let _ = h.add(o);
            }
            for (m, o) in merged.occupancy.iter_mut().zip(&other.occupancy) {
                m.add(o);
            }
            merged.all.add(&other.all);
            merged.end_ns = merged.end_ns.max(other.end_ns);
        }
        let seconds = merged.with_seconds_of(|s| std::mem::replace(s, LatencySeconds::new(0)));
        merged.seconds = Seconds::Own(seconds);
        merged
    }

    /// An IO that completed with an error (or transferred less than asked): it leaves the
    /// device's occupancy but counts as no IO, byte or latency; the summary counts it apart.
    #[inline]
    pub fn failed(&mut self, op: Op, complete_ns: u64) {
        let d = dir(op) as usize;
        self.occupancy[d].change(complete_ns, false);
        self.all.change(complete_ns, false);
        self.failed += 1;
        self.end_ns = self.end_ns.max(complete_ns);
    }

    /// The bucket of `second`, made if new. Completions come nearly in time order, so this
    /// is almost always the last bucket or a new one after it.
    #[inline]
    fn bucket(&mut self, second: u64) -> &mut Bucket {
        let i = match self.buckets.last() {
            Some(&(s, _)) if s == second => self.buckets.len() - 1,
            Some(&(s, _)) if s > second => {
                match self.buckets.binary_search_by_key(&second, |&(s, _)| s) {
                    Ok(i) => i,
                    Err(i) => {
                        self.buckets.insert(i, (second, Bucket::default()));
                        i
                    }
                }
            }
            _ => {
                self.buckets.push((second, Bucket::default()));
                self.buckets.len() - 1
            }
        };
        &mut self.buckets[i].1
    }

    /// The seconds the per-second series leaves out: the inside of every idle period that
    /// covers at least [`IDLE_RUN_S`] whole seconds (its first and last whole second stay),
    /// as inclusive ranges in order.
    fn omitted_ranges(&self) -> Vec<(u64, u64)> {
        let mut out: Vec<(u64, u64)> = Vec::new();
        for &(from, to) in &self.idle {
            // Whole seconds inside the idle period: [first, last].
            let first = from.div_ceil(NS);
            let Some(last) = (to / NS).checked_sub(1) else {
                continue;
            };
            if last < first || last - first + 1 < IDLE_RUN_S {
                continue;
            }
            let (lo, hi) = (first + 1, last - 1);
            match out.last_mut() {
                Some(prev) if lo <= prev.1 + 1 => prev.1 = prev.1.max(hi),
                _ => out.push((lo, hi)),
            }
        }
        out
    }

    /// The run's start, on the device's clock.
    pub fn start_ns(&self) -> u64 {
        self.start_ns
    }

    pub fn in_flight(&self) -> u32 {
        self.all.in_flight
    }

    /// The run's read and write latencies so far, whole.
    pub fn latency_histograms(&self) -> super::LatencyHistograms {
        super::LatencyHistograms::new(
            &self.latency_ns[Dir::Read as usize],
            &self.latency_ns[Dir::Write as usize],
        )
    }

    /// IOs and bytes (reads + writes) completed so far.
    pub fn totals(&self) -> (u64, u64) {
        self.buckets.iter().fold((0, 0), |(i, b), (_, k)| {
            (i + k.ios.iter().sum::<u64>(), b + k.bytes[0] + k.bytes[1])
        })
    }

    /// Close the run at `end_ns` (at least the last completion) and summarise it.
    pub fn finish(mut self, end_ns: u64, cpu: Option<CpuUsage>) -> Measurements {
        let end_ns = end_ns.max(self.end_ns);
        self.close_window(u64::MAX);
        let latency_by_second = self.with_seconds_of(|s| s.seconds().to_vec());
        self.close_busy_periods(end_ns);
        let duration_ns = end_ns - self.start_ns;
        let duration_s = duration_ns as f64 / NS as f64;
        let PerSecond {
            points,
            idle_seconds_omitted,
            point_s,
        } = self.per_second(end_ns, duration_s, &latency_by_second);
        let read = self.dir_summary(Dir::Read, duration_s);
        let write = self.dir_summary(Dir::Write, duration_s);
        let other = self.dir_summary(Dir::Other, duration_s);
        let ios = [&read, &write, &other]
            .iter()
            .map(|d| d.as_ref().map_or(0, |d| d.ios))
            .sum::<u64>();
        let bytes = [&read, &write]
            .iter()
            .map(|d| d.as_ref().map_or(0, |d| d.bytes))
            .sum::<u64>();
        let cpu = cpu.map(|c| c.per_io(ios));
        Measurements {
            summary: Summary {
                ios,
                bytes,
                duration_s,
                iops: ios as f64 / duration_s.max(1e-9),
                mbps: bytes as f64 / duration_s.max(1e-9) / 1e6,
                busy_time_s: self.all.busy_ns as f64 / NS as f64,
                avg_in_flight: self.all.in_flight_ns as f64 / duration_ns.max(1) as f64,
                max_in_flight: self.all.max_in_flight,
                read,
                write,
                other,
                cpu,
                cpu_by_thread: Vec::new(),
                idle_seconds_omitted,
                point_s,
                failed_ios: self.failed,
                energy_j: match (self.energy_at(self.start_ns), self.energy_at(end_ns)) {
                    (Some(a), Some(b)) => Some(b - a),
                    _ => None,
                },
            },
            per_second: points,
        }
    }

    /// Account the tail of any busy period still open at `end_ns` (only on an aborted run).
    fn close_busy_periods(&mut self, end_ns: u64) {
        for o in self
            .occupancy
            .iter_mut()
            .chain(std::iter::once(&mut self.all))
        {
            if o.in_flight > 0 {
                o.busy_ns += end_ns.saturating_sub(o.since_ns);
                o.in_flight_ns += end_ns as i128 * o.in_flight as i128;
            }
        }
    }

    /// Every second from the first to the last with a completion, at zero where none
    /// completed, except the inside of long idle periods; coarsened to points of several
    /// seconds on a long run.
    fn per_second(
        &self,
        end_ns: u64,
        duration_s: f64,
        latency_by_second: &[(u64, [Option<SecondLatency>; 2])],
    ) -> PerSecond {
        let both = self.buckets.iter().any(|(_, b)| b.ios[0] > 0)
            && self.buckets.iter().any(|(_, b)| b.ios[1] > 0);
        let point = |t: u64, b: &Bucket| self.second_point(t, b, end_ns, both, latency_by_second);
        let omitted = self.omitted_ranges();
        let mut idle_seconds_omitted = 0;
        // A run without IO (an idle power measurement) still has its seconds of power.
        let last_energy_s = match self.energy.last() {
            Some(&(t, _)) if self.buckets.is_empty() && t > self.start_ns => {
                Some((t - self.start_ns - 1) / NS)
            }
            _ => None,
        };
        let last = self.buckets.last().map(|&(s, _)| s).or(last_energy_s);
        // The seconds the series holds, and so the seconds each of its points stands for.
        let seconds = last.map_or(0, |last| {
            let inside = |&(lo, hi): &(u64, u64)| (lo <= last).then(|| hi.min(last) + 1 - lo);
            last + 1 - omitted.iter().filter_map(inside).sum::<u64>()
        });
        let point_s = point_seconds(seconds);
        let mut series = Coarse::new(point_s, duration_s, seconds as usize);
        if let Some(last) = last {
            let (mut t, mut bi, mut oi) = (0u64, 0usize, 0usize);
            let zero = Bucket::default();
            while t <= last {
                if let Some(&(lo, hi)) = omitted.get(oi) {
                    if t >= lo {
                        idle_seconds_omitted += hi + 1 - t;
                        t = hi + 1;
                        oi += 1;
                        continue;
                    }
                }
                match self.buckets.get(bi) {
                    Some((s, b)) if *s == t => {
                        series.push(point(t, b));
                        bi += 1;
                    }
                    _ => series.push(point(t, &zero)),
                }
                t += 1;
            }
        }
        PerSecond {
            points: series.finish(),
            idle_seconds_omitted,
            point_s,
        }
    }

    /// Second `t`'s point from its bucket `b`; `both`: the run both read and wrote, so the
    /// point splits its rates by direction.
    fn second_point(
        &self,
        t: u64,
        b: &Bucket,
        end_ns: u64,
        both: bool,
        latency_by_second: &[(u64, [Option<SecondLatency>; 2])],
    ) -> SecondPoint {
        let latency = {
            let i = latency_by_second.partition_point(|&(s, _)| s < t);
            latency_by_second
                .get(i)
                .filter(|&&(s, _)| s == t)
                .map(|&(_, l)| l)
        };
        // The last bucket may cover less than a second; rate it over what it covers.
        let covered = ((end_ns - self.start_ns) as f64 / NS as f64 - t as f64).clamp(1e-9, 1.0);
        let from_ns = self.start_ns + t * NS;
        let to_ns = (from_ns + NS).min(end_ns).max(from_ns + 1);
        let watts = match (self.energy_at(from_ns), self.energy_at(to_ns)) {
            (Some(a), Some(b)) => Some((b - a) / ((to_ns - from_ns) as f64 / NS as f64)),
            _ => None,
        };
        let rate = |ios: u64| ios as f64 / covered;
        let mb = |bytes: u64| bytes as f64 / covered / 1e6;
        SecondPoint {
            t,
            ios: b.ios.iter().sum(),
            iops: rate(b.ios.iter().sum()),
            mbps: mb(b.bytes[0] + b.bytes[1]),
            read_iops: both.then(|| rate(b.ios[0])),
            read_mbps: both.then(|| mb(b.bytes[0])),
            write_iops: both.then(|| rate(b.ios[1])),
            write_mbps: both.then(|| mb(b.bytes[1])),
            covered_s: (covered < 1.0).then_some(covered),
            temperature_c: self
                .temperature
                .iter()
                .find(|&&(s, _)| s == t)
                .map(|&(_, c)| c),
            watts,
            read_latency_us: latency.and_then(|l| l[0]),
            write_latency_us: latency.and_then(|l| l[1]),
        }
    }

    /// The run's summary for direction `d`; `None` when it had no IO.
    fn dir_summary(&self, d: Dir, duration_s: f64) -> Option<DirSummary> {
        let ios: u64 = self.buckets.iter().map(|(_, b)| b.ios[d as usize]).sum();
        if ios == 0 {
            return None;
        }
        let bytes: u64 = self.buckets.iter().map(|(_, b)| b.bytes[d as usize]).sum();
        let o = &self.occupancy[d as usize];
        Some(DirSummary {
            ios,
            bytes,
            iops: ios as f64 / duration_s.max(1e-9),
            mbps: bytes as f64 / duration_s.max(1e-9) / 1e6,
            busy_time_s: o.busy_ns as f64 / NS as f64,
            latency_us: LatencyStats::of(&self.latency_ns[d as usize]),
        })
    }
}

/// The per-second series of a run and how it was cut.
struct PerSecond {
    points: Vec<SecondPoint>,
    /// Seconds inside long idle periods, left out of the series.
    idle_seconds_omitted: u64,
    /// The seconds each point stands for.
    point_s: u64,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two threads' recorders of one run: counts and bytes add up per second, the offered
    /// depth is both threads', and a second's percentiles are those of both threads' IOs.
    #[test]
    fn threads_merge_into_one_run() {
        let seconds = Arc::new(Mutex::new(LatencySeconds::new(2)));
        let mut fast = Recorder::in_team(0, Arc::clone(&seconds), 0);
        let mut slow = Recorder::in_team(0, Arc::clone(&seconds), 1);
        // Second 0: 99 fast reads on one thread, one slow read on the other; second 1: one
        // write on the slow thread.
        for i in 0..99 {
            fast.submitted(Op::Read, i * 1000);
            fast.completed(Op::Read, 4096, i * 1000, i * 1000 + 10_000);
        }
        slow.submitted(Op::Read, 0);
        slow.completed(Op::Read, 4096, 0, 5_000_000);
        slow.submitted(Op::Write, NS);
        slow.completed(Op::Write, 8192, NS, NS + 20_000);
        let m = Recorder::merge(vec![fast, slow]).finish(2 * NS, None);
        assert_eq!((m.summary.ios, m.summary.bytes), (101, 100 * 4096 + 8192));
        assert_eq!(m.summary.max_in_flight, 2);
        assert_eq!(m.per_second.len(), 2);
        assert_eq!(m.per_second[0].ios, 100);
        let read = m.per_second[0].read_latency_us.expect("reads in second 0");
        assert!((read.p50 - 10.0).abs() < 0.2, "{read:?}");
        assert_eq!(read.max, 5000.0, "the other thread's slow read");
        assert!(read.p99_9 > 4900.0, "{read:?}");
        assert!(m.per_second[1].write_latency_us.is_some());
        let whole_run = m.summary.read.expect("reads").latency_us;
        assert!((whole_run.max - 5000.0).abs() < 5.0, "{whole_run:?}");
    }

    #[test]
    fn a_non_finite_energy_counter_gives_no_power_rather_than_null() {
        let mut r = Recorder::new(0);
        r.energy(0, 0.0);
        r.submitted(Op::Write, 0);
        r.completed(Op::Write, 4096, 0, NS / 2);
        r.energy(NS / 2, f64::INFINITY);
        r.energy(NS, f64::NAN);
        let m = r.finish(NS, None);
        let figures = m
            .per_second
            .iter()
            .map(|p| p.watts)
            .chain([m.summary.energy_j]);
        for figure in figures {
            assert!(figure.is_none_or(f64::is_finite), "{figure:?}");
        }
    }

    #[test]
    fn every_io_in_exactly_one_bucket() {
        let mut r = Recorder::new(1_000);
        // 10 IOs spread over 3.5 seconds, overlapping.
        let ios: Vec<(u64, u64)> = (0..10u64)
            .map(|i| {
                (
                    1_000 + i * 350_000_000,
                    1_000 + i * 350_000_000 + 100_000_000,
                )
            })
            .collect();
        for &(s, c) in &ios {
            r.submitted(Op::Write, s);
            r.completed(Op::Write, 4096, s, c);
        }
        let m = r.finish(0, None);
        assert_eq!(m.summary.ios, 10);
        assert_eq!(m.per_second.iter().map(|p| p.ios).sum::<u64>(), 10);
        // Completions at .1, .45, .8 | 1.15, 1.5, 1.85 | 2.2, 2.55, 2.9 | 3.25
        let per: Vec<u64> = m.per_second.iter().map(|p| p.ios).collect();
        assert_eq!(per, vec![3, 3, 3, 1]);
        // The last second covers 0.25 s, so its rate is 1 / 0.25.
        let last = m.per_second.last().unwrap();
        assert!((last.iops - 4.0).abs() < 1e-6, "{}", last.iops);
        assert!((m.summary.busy_time_s - 1.0).abs() < 1e-9);
    }

    #[test]
    fn busy_time_and_queue_depth() {
        let mut r = Recorder::new(0);
        // Two overlapping IOs 0..4 s and 1..2 s, then idle, then one 6..7 s.
        r.submitted(Op::Read, 0);
        r.submitted(Op::Write, NS);
        r.completed(Op::Write, 4096, NS, 2 * NS);
        r.completed(Op::Read, 4096, 0, 4 * NS);
        r.submitted(Op::Read, 6 * NS);
        r.completed(Op::Read, 4096, 6 * NS, 7 * NS);
        let m = r.finish(0, None);
        let s = &m.summary;
        assert!((s.busy_time_s - 5.0).abs() < 1e-9);
        assert!((s.read.as_ref().unwrap().busy_time_s - 5.0).abs() < 1e-9);
        assert!((s.write.as_ref().unwrap().busy_time_s - 1.0).abs() < 1e-9);
        assert_eq!(s.max_in_flight, 2);
        assert!((s.avg_in_flight - 6.0 / 7.0).abs() < 1e-9);
        // The histogram keeps 3 significant digits.
        let max = s.read.as_ref().unwrap().latency_us.max;
        assert!((max - 4e6).abs() / 4e6 < 1e-3, "{max}");
        // Both directions occurred, so the series carries them apart.
        assert!(m.per_second[1].write_iops.is_some());
    }

    /// A run longer than the series holds a point a second for (an IO a second for 100,002
    /// s) keeps points of 2 s, each IO in one, its rate over its seconds, and says so in its
    /// summary and CSV (#66 item 11); a day keeps its seconds.
    #[test]
    fn a_very_long_run_is_a_bounded_series_of_points_of_several_seconds() {
        use super::super::{point_seconds, MAX_POINTS};
        let seconds = MAX_POINTS + 2;
        let mut r = Recorder::new(0);
        for s in 0..seconds {
            r.submitted(Op::Write, s * NS);
            r.completed(Op::Write, 4096, s * NS, s * NS + 100_000);
        }
        let m = r.finish(seconds * NS, None);
        assert_eq!(m.summary.point_s, 2);
        assert_eq!(m.per_second.len() as u64, seconds / 2);
        assert_eq!(m.per_second.iter().map(|p| p.ios).sum::<u64>(), seconds);
        let p = &m.per_second[1000];
        assert_eq!((p.t, p.ios, p.covered_s), (2000, 2, None));
        assert!((p.iops - 1.0).abs() < 1e-9, "{p:?}");
        assert!(p.write_latency_us.is_some());
        let csv = m.per_second_csv();
        let mut lines = csv.lines();
        assert!(lines.next().unwrap().ends_with(",point_s"), "{csv:.200}");
        assert!(lines.next().unwrap().ends_with(",2"));
        assert_eq!(point_seconds(86_400), 1, "a day keeps its seconds");
        assert_eq!(point_seconds(31_536_000), 316, "a year: 99,797 points");
    }

    #[test]
    fn idle_gaps_cost_no_memory() {
        // One IO at 0, one a million seconds later: the series holds both IOs' seconds and
        // the idle period's first and last seconds, not a million points.
        let mut r = Recorder::new(0);
        r.submitted(Op::Read, 0);
        r.completed(Op::Read, 4096, 0, 100_000);
        let at = 1_000_000 * NS + NS / 2;
        r.submitted(Op::Read, at);
        r.completed(Op::Read, 4096, at, at + 100_000);
        let m = r.finish(0, None);
        let ts: Vec<u64> = m.per_second.iter().map(|p| p.t).collect();
        assert_eq!(ts, vec![0, 1, 999_999, 1_000_000]);
        assert_eq!(m.summary.idle_seconds_omitted, 999_997);
        assert_eq!(m.per_second[1].ios, 0);
        assert_eq!(m.per_second[2].ios, 0);
        assert_eq!(m.summary.ios, 2);
        // The run's duration and rates still cover the whole span.
        assert!((m.summary.duration_s - 1_000_000.5).abs() < 1e-3);
    }

    #[test]
    fn short_idle_gaps_and_stalls_stay_as_zero_seconds() {
        let mut r = Recorder::new(0);
        // Idle 0.1 .. 2.5 s: two whole seconds, below IDLE_RUN_S, kept as zeros.
        r.submitted(Op::Write, 0);
        r.completed(Op::Write, 4096, 0, NS / 10);
        r.submitted(Op::Write, 5 * NS / 2);
        r.completed(Op::Write, 4096, 5 * NS / 2, 5 * NS / 2 + 1);
        // A stall: an IO in flight for 10 s is not idle; every second stays.
        r.submitted(Op::Write, 3 * NS);
        r.completed(Op::Write, 4096, 3 * NS, 13 * NS + 1);
        let m = r.finish(0, None);
        let ts: Vec<u64> = m.per_second.iter().map(|p| p.t).collect();
        assert_eq!(ts, (0..=13).collect::<Vec<u64>>());
        assert_eq!(m.summary.idle_seconds_omitted, 0);
        assert_eq!(m.per_second.iter().map(|p| p.ios).sum::<u64>(), 3);
    }

    /// `ssdlab run seq-read --target sim:default` reported a mean (250.0 us) above its p99
    /// (249.1 us). Its per-IO log: 39,982 of 40,003 reads took exactly 249.048 us, the first
    /// 20 about 2.16 ms (reads queued behind the fill's writes) and one 1.05 ms. Mean and p99
    /// are of the same reads; a few slow IOs (under 1%) lift the mean and not the p99.
    #[test]
    fn a_few_slow_ios_lift_the_mean_above_p99() {
        let mut r = Recorder::new(0);
        let mut at = 0;
        let mut read = |r: &mut Recorder, latency: u64| {
            r.submitted(Op::Read, at);
            r.completed(Op::Read, 128 << 10, at, at + latency);
            at += latency;
        };
        read(&mut r, 2_269_528);
        for _ in 0..18 {
            read(&mut r, 2_163_840);
        }
        read(&mut r, 1_052_506);
        read(&mut r, 299_714);
        for _ in 0..39_982 {
            read(&mut r, 249_048);
        }
        let m = r.finish(0, None);
        let l = m.summary.read.unwrap().latency_us;
        let exact_mean =
            (2_269_528.0 + 18.0 * 2_163_840.0 + 1_052_506.0 + 299_714.0 + 39_982.0 * 249_048.0)
                / 40_003.0
                / 1000.0;
        // The histogram keeps 3 significant digits: both figures within 0.1% of the truth.
        let close = |got: f64, want: f64| (got - want).abs() / want < 1e-3;
        assert!(close(l.mean, exact_mean), "mean {} vs {exact_mean}", l.mean);
        assert!(close(l.p99, 249.048), "p99 {}", l.p99);
        assert!(close(l.max, 2269.528), "max {}", l.max);
        assert!(l.mean > l.p99, "{l:?}");
    }

    /// Mean and percentiles are of one population, in one unit, whatever the directions mix.
    #[test]
    fn latency_figures_agree_with_the_ios_recorded() {
        let mut r = Recorder::new(0);
        // Reads of 100..=1099 us; writes of 5 ms that must not touch the reads' figures.
        for i in 0..1000u64 {
            let at = i * 10 * NS / 1000;
            r.submitted(Op::Read, at);
            r.completed(Op::Read, 4096, at, at + (100 + i) * 1000);
            r.submitted(Op::Write, at);
            r.completed(Op::Write, 4096, at, at + 5_000_000);
        }
        let m = r.finish(0, None);
        let l = m.summary.read.unwrap().latency_us;
        let close = |got: f64, want: f64| (got - want).abs() / want < 1e-3;
        assert!(close(l.min, 100.0) && close(l.max, 1099.0), "{l:?}");
        assert!(close(l.mean, 599.5), "{l:?}");
        assert!(close(l.p50, 599.0) && close(l.p99, 1089.0), "{l:?}");
        assert!(l.min <= l.p50 && l.p50 <= l.p99 && l.p99 <= l.max, "{l:?}");
        let w = m.summary.write.unwrap().latency_us;
        assert!(close(w.mean, 5000.0) && close(w.p99, 5000.0), "{w:?}");
    }

    #[test]
    fn a_completion_stamped_out_of_order_finds_its_second() {
        let mut r = Recorder::new(0);
        for s in [0, 1, 2] {
            r.submitted(Op::Read, s * NS);
        }
        r.completed(Op::Read, 4096, 2 * NS, 2 * NS + 10);
        r.completed(Op::Read, 4096, 0, 10);
        r.completed(Op::Read, 4096, NS, NS + 10);
        let m = r.finish(3 * NS, None);
        let per: Vec<u64> = m.per_second.iter().map(|p| p.ios).collect();
        assert_eq!(per, vec![1, 1, 1]);
    }
}
