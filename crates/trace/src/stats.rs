//! `trace stats`: one streaming pass over a trace, O(streams + in-flight) memory.
//!
//! Definitions (they follow blktrace's btt, `btt/trace_*.c` and `btt/aqd.c`):
//! - **IO counts and bytes**: one IO per record (btt: per Q). Bytes of reads and writes.
//! - **Size breakdown**: share of read and write IOs whose length is exactly 4, 8, 16, 32, 64
//!   or 128 KiB; everything else is "other".
//! - **Sequential share**: share of read and write IOs that start exactly where the previous IO
//!   of the same direction *and stream* ended (docs/methodology.md section 7: "the previous one of its
//!   stream"; the stream is the device for blktrace, the scenario for synthetic traces).
//! - **Queue depth**: the number of requests between issue (D) and completion (C), counted
//!   once per request (records flagged `merged` ride on another record's request), as btt's
//!   active-queue-depth data (`btt -Q`, `aqd.c`: +1 at D, -1 at C). `avg_queue_depth` is its
//!   time-weighted mean over busy time (idle excluded, as the Storage Bench reports it);
//!   `avg_queue_depth_span` is the mean over the whole span from first to last event, which is
//!   what integrating btt's aqd step function gives.
//! - **QD1 share**: share of requests issued while no other request was in flight.
//! - **Busy time**: time with at least one request between issue and completion; reads only,
//!   writes only and combined.
//! - **D2C / Q2C**: per IO with data (btt ignores zero-byte events), issue or queue to
//!   completion; mean exact, percentiles from an HDR histogram (3 significant digits).
//!
//! Queue depth needs issue and completion times; D2C needs both, Q2C queue and completion.
//! Formats without them (fio iolog, UMass, Alibaba, Tencent, DiskSim) leave those fields out.
//! Records are expected in nearly increasing issue order; a reorder window of
//! [`REORDER_WINDOW`] records absorbs the block layer's reordering of queued IOs.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};

use hdrhistogram::Histogram;
use serde::Serialize;

use crate::{Op, Record, TraceError};

/// Streams below this id are looked up in a table instead of a hash map.
const DIRECT_STREAMS: usize = 4096;

/// Records held to put issue times in order.
pub const REORDER_WINDOW: usize = 4096;

pub const SIZE_CLASSES: [(&str, u32); 6] = [
    ("4k", 4096),
    ("8k", 8192),
    ("16k", 16384),
    ("32k", 32768),
    ("64k", 65536),
    ("128k", 131072),
];

/// Latency summary in microseconds.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Latency {
    pub count: u64,
    pub mean_us: f64,
    pub p50_us: f64,
    pub p90_us: f64,
    pub p99_us: f64,
    pub p999_us: f64,
    pub max_us: f64,
}

/// Shares of read and write IOs by size.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct SizeBreakdown {
    #[serde(rename = "4k")]
    pub k4: f64,
    #[serde(rename = "8k")]
    pub k8: f64,
    #[serde(rename = "16k")]
    pub k16: f64,
    #[serde(rename = "32k")]
    pub k32: f64,
    #[serde(rename = "64k")]
    pub k64: f64,
    #[serde(rename = "128k")]
    pub k128: f64,
    pub other: f64,
}

/// The result of `trace stats`.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Stats {
    pub ios: u64,
    pub reads: u64,
    pub writes: u64,
    pub discards: u64,
    pub flushes: u64,
    pub bytes_read: u64,
    pub bytes_written: u64,
    pub bytes_discarded: u64,
    pub size_breakdown: SizeBreakdown,
    pub sequential_share: f64,
    /// IOs with no time at all (a fio iolog v2 records none): a timed replay cannot place them.
    pub untimed_ios: u64,
    /// First to last time in the trace, seconds.
    pub duration_s: f64,
    /// The lowest and the highest byte its reads, writes and discards address (none when
    /// they address none): the span a replay lays onto its target.
    pub lowest_byte: Option<u64>,
    pub highest_byte: Option<u64>,
    /// Requests (records not merged into another) with issue and completion times.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub requests_timed: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub avg_queue_depth: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub avg_queue_depth_span: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_queue_depth: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub qd1_share: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub busy_time_s: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub busy_time_read_s: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub busy_time_write_s: Option<f64>,
    /// Bytes read and written per busy second, 10^6 bytes/s (the Storage Bench data rate).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub avg_data_rate_mbps: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub avg_read_rate_mbps: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub avg_write_rate_mbps: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub d2c_mean_us: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub q2c_mean_us: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub d2c: Option<Latency>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub q2c: Option<Latency>,
    /// Records whose issue time came after later ones by more than the reorder window could
    /// absorb (their issue was counted at the time already reached).
    pub out_of_order: u64,
}

struct Lat {
    sum_ns: u128,
    n: u64,
    hist: Histogram<u64>,
}

impl Lat {
    fn new() -> Self {
        Lat {
            sum_ns: 0,
            n: 0,
            hist: Histogram::new_with_bounds(1, 3_600_000_000_000, 3).expect("valid bounds"),
        }
    }
    #[inline]
    fn add(&mut self, ns: u64) {
        self.sum_ns += u128::from(ns);
        self.n += 1;
        self.hist.saturating_record(ns.max(1));
    }
    fn merge(&mut self, other: &Lat) {
        self.sum_ns += other.sum_ns;
        self.n += other.n;
        self.hist.add(&other.hist).expect("same bounds");
    }

    fn summary(&self) -> Option<Latency> {
        if self.n == 0 {
            return None;
        }
        let q = |p: f64| self.hist.value_at_quantile(p) as f64 / 1000.0;
        Some(Latency {
            count: self.n,
            mean_us: self.sum_ns as f64 / self.n as f64 / 1000.0,
            p50_us: q(0.5),
            p90_us: q(0.9),
            p99_us: q(0.99),
            p999_us: q(0.999),
            max_us: self.hist.max() as f64 / 1000.0,
        })
    }
}

/// A request waiting in the reorder window: (issue, arrival order, op, 0, completion).
type Pending = (u64, u64, u8, u8, u64);

#[derive(Clone, Copy, Default)]
struct Ends {
    read: Option<u64>,
    write: Option<u64>,
}

/// Accumulates [`Stats`] one record at a time.
pub struct StatsBuilder {
    counts: [u64; 4],
    bytes: [u64; 4],
    sizes: [u64; 7],
    seq: u64,
    ends: Vec<Ends>,
    stream_index: HashMap<u32, usize>,
    direct: Vec<u32>,
    last_stream: Option<(u32, usize)>,
    first_ns: Option<u64>,
    last_ns: u64,
    untimed: u64,
    lowest_byte: Option<u64>,
    highest_byte: Option<u64>,
    d2c: Lat,
    q2c: Lat,
    both: Lat,
    // queue depth
    pending: BinaryHeap<Reverse<Pending>>,
    max_pushed: u64,
    completions: BinaryHeap<Reverse<(u64, u8)>>,
    now: u64,
    started: bool,
    inflight: [u64; 4],
    area: u128,
    busy: [u64; 3],
    requests: u64,
    qd1: u64,
    max_qd: u64,
    out_of_order: u64,
    order: u64,
}

impl Default for StatsBuilder {
    fn default() -> Self {
        Self::new()
    }
}

impl StatsBuilder {
    pub fn new() -> Self {
        StatsBuilder {
            counts: [0; 4],
            bytes: [0; 4],
            sizes: [0; 7],
            seq: 0,
            ends: Vec::new(),
            stream_index: HashMap::new(),
            direct: vec![u32::MAX; DIRECT_STREAMS],
            last_stream: None,
            first_ns: None,
            last_ns: 0,
            untimed: 0,
            lowest_byte: None,
            highest_byte: None,
            d2c: Lat::new(),
            q2c: Lat::new(),
            both: Lat::new(),
            pending: BinaryHeap::new(),
            max_pushed: 0,
            completions: BinaryHeap::new(),
            now: 0,
            started: false,
            inflight: [0; 4],
            area: 0,
            busy: [0; 3],
            requests: 0,
            qd1: 0,
            max_qd: 0,
            out_of_order: 0,
            order: 0,
        }
    }

    #[inline]
    fn stream_slot(&mut self, stream: u32) -> usize {
        if let Some((s, i)) = self.last_stream {
            if s == stream {
                return i;
            }
        }
        let n = self.ends.len();
        let i = if (stream as usize) < DIRECT_STREAMS {
            let d = &mut self.direct[stream as usize];
            if *d == u32::MAX {
                *d = n as u32;
            }
            *d as usize
        } else {
            *self.stream_index.entry(stream).or_insert(n)
        };
        if i == n {
            self.ends.push(Ends::default());
        }
        self.last_stream = Some((stream, i));
        i
    }

    #[inline]
    pub fn add(&mut self, r: &Record) {
        let oi = r.op.index();
        self.counts[oi] += 1;
        self.bytes[oi] += u64::from(r.len_bytes);
        match r.start_ns() {
            Some(s) => {
                self.first_ns = Some(self.first_ns.map_or(s, |f| f.min(s)));
                self.last_ns = self.last_ns.max(s);
            }
            None => self.untimed += 1,
        }
        if let Some(c) = r.complete_ns {
            self.last_ns = self.last_ns.max(c);
        }
        if matches!(r.op, Op::Read | Op::Write) {
            let class = SIZE_CLASSES
                .iter()
                .position(|&(_, b)| b == r.len_bytes)
                .unwrap_or(6);
            self.sizes[class] += 1;
            let slot = self.stream_slot(r.stream);
            let e = &mut self.ends[slot];
            let last = if r.op == Op::Read {
                &mut e.read
            } else {
                &mut e.write
            };
            if *last == Some(r.offset_bytes) {
                self.seq += 1;
            }
            *last = Some(r.end_bytes());
        }
        if r.len_bytes > 0 && r.op != Op::Flush {
            let last = r.end_bytes() - 1;
            self.lowest_byte = Some(
                self.lowest_byte
                    .map_or(r.offset_bytes, |l| l.min(r.offset_bytes)),
            );
            self.highest_byte = Some(self.highest_byte.map_or(last, |h| h.max(last)));
            match (r.d2c_ns(), r.q2c_ns()) {
                // Q == D (no host queueing): record once, add to both at the end.
                (Some(d), Some(q)) if d == q => self.both.add(d),
                (d, q) => {
                    if let Some(d) = d {
                        self.d2c.add(d);
                    }
                    if let Some(q) = q {
                        self.q2c.add(q);
                    }
                }
            }
        }
        if r.merged {
            return;
        }
        if let (Some(i), Some(c)) = (r.issue_ns, r.complete_ns) {
            let c = c.max(i);
            let op = oi as u8;
            if self.pending.is_empty() && i >= self.max_pushed {
                self.max_pushed = i;
                self.issue(i, c, op);
            } else {
                self.order += 1;
                self.max_pushed = self.max_pushed.max(i);
                self.pending.push(Reverse((i, self.order, op, 0, c)));
                if self.pending.len() > REORDER_WINDOW {
                    let Reverse((i, _, op, _, c)) = self.pending.pop().expect("not empty");
                    self.issue(i, c, op);
                }
            }
        }
    }

    #[inline]
    fn advance(&mut self, t: u64) {
        if t > self.now {
            let dt = t - self.now;
            let total: u64 = self.inflight.iter().sum();
            if total > 0 {
                self.area += u128::from(total) * u128::from(dt);
                self.busy[2] += dt;
                if self.inflight[0] > 0 {
                    self.busy[0] += dt;
                }
                if self.inflight[1] > 0 {
                    self.busy[1] += dt;
                }
            }
            self.now = t;
        }
    }

    #[inline]
    fn complete_until(&mut self, t: u64) {
        while let Some(&Reverse((c, op))) = self.completions.peek() {
            if c > t {
                break;
            }
            self.completions.pop();
            self.advance(c);
            self.inflight[op as usize] -= 1;
        }
    }

    #[inline]
    fn issue(&mut self, i: u64, c: u64, op: u8) {
        if !self.started {
            self.started = true;
            self.now = i;
        }
        let i = if i < self.now {
            self.out_of_order += 1;
            self.now
        } else {
            i
        };
        let c = c.max(i);
        self.complete_until(i);
        self.advance(i);
        let total: u64 = self.inflight.iter().sum();
        if total == 0 {
            self.qd1 += 1;
        }
        self.requests += 1;
        self.inflight[op as usize] += 1;
        self.max_qd = self.max_qd.max(total + 1);
        self.completions.push(Reverse((c, op)));
    }

    pub fn finish(mut self) -> Stats {
        while let Some(Reverse((i, _, op, _, c))) = self.pending.pop() {
            self.issue(i, c, op);
        }
        self.complete_until(u64::MAX);
        let rw = self.counts[0] + self.counts[1];
        let share = |n: u64| if rw == 0 { 0.0 } else { n as f64 / rw as f64 };
        let timed = self.requests > 0;
        let busy_s = |ns: u64| ns as f64 / 1e9;
        let span = self.last_ns.saturating_sub(self.first_ns.unwrap_or(0));
        let rate =
            |bytes: u64, busy: u64| (busy > 0).then(|| bytes as f64 / (busy as f64 / 1e9) / 1e6);
        for l in [&mut self.d2c, &mut self.q2c] {
            l.merge(&self.both);
        }
        let d2c = self.d2c.summary();
        let q2c = self.q2c.summary();
        Stats {
            ios: self.counts.iter().sum(),
            reads: self.counts[0],
            writes: self.counts[1],
            discards: self.counts[2],
            flushes: self.counts[3],
            bytes_read: self.bytes[0],
            bytes_written: self.bytes[1],
            bytes_discarded: self.bytes[2],
            size_breakdown: SizeBreakdown {
                k4: share(self.sizes[0]),
                k8: share(self.sizes[1]),
                k16: share(self.sizes[2]),
                k32: share(self.sizes[3]),
                k64: share(self.sizes[4]),
                k128: share(self.sizes[5]),
                other: share(self.sizes[6]),
            },
            sequential_share: share(self.seq),
            untimed_ios: self.untimed,
            duration_s: span as f64 / 1e9,
            lowest_byte: self.lowest_byte,
            highest_byte: self.highest_byte,
            requests_timed: timed.then_some(self.requests),
            avg_queue_depth: (timed && self.busy[2] > 0)
                .then(|| self.area as f64 / self.busy[2] as f64),
            avg_queue_depth_span: (timed && span > 0).then(|| self.area as f64 / span as f64),
            max_queue_depth: timed.then_some(self.max_qd),
            qd1_share: timed.then(|| self.qd1 as f64 / self.requests as f64),
            busy_time_s: timed.then(|| busy_s(self.busy[2])),
            busy_time_read_s: timed.then(|| busy_s(self.busy[0])),
            busy_time_write_s: timed.then(|| busy_s(self.busy[1])),
            avg_data_rate_mbps: rate(self.bytes[0] + self.bytes[1], self.busy[2]),
            avg_read_rate_mbps: rate(self.bytes[0], self.busy[0]),
            avg_write_rate_mbps: rate(self.bytes[1], self.busy[1]),
            d2c_mean_us: d2c.as_ref().map(|l| l.mean_us),
            q2c_mean_us: q2c.as_ref().map(|l| l.mean_us),
            d2c,
            q2c,
            out_of_order: self.out_of_order,
        }
    }
}

/// Statistics of every record `records` yields.
pub fn stats_of<I>(records: I) -> Result<Stats, TraceError>
where
    I: IntoIterator<Item = Result<Record, TraceError>>,
{
    let mut b = StatsBuilder::new();
    for r in records {
        b.add(&r?);
    }
    Ok(b.finish())
}

impl Stats {
    /// A readable table for people.
    pub fn to_table(&self) -> String {
        use std::fmt::Write;
        let mut s = String::new();
        let gb = |b: u64| b as f64 / 1e9;
        let pct = |x: f64| format!("{:.2}%", x * 100.0);
        let _ = writeln!(s, "{:<28}{:>16}", "IOs", self.ios);
        let _ = writeln!(s, "{:<28}{:>16}", "  reads", self.reads);
        let _ = writeln!(s, "{:<28}{:>16}", "  writes", self.writes);
        let _ = writeln!(s, "{:<28}{:>16}", "  discards", self.discards);
        let _ = writeln!(s, "{:<28}{:>16}", "  flushes", self.flushes);
        let _ = writeln!(s, "{:<28}{:>16.3}", "GB read (10^9 B)", gb(self.bytes_read));
        let _ = writeln!(
            s,
            "{:<28}{:>16.3}",
            "GB written (10^9 B)",
            gb(self.bytes_written)
        );
        let b = &self.size_breakdown;
        for (name, v) in [
            ("4 KiB share", b.k4),
            ("8 KiB share", b.k8),
            ("16 KiB share", b.k16),
            ("32 KiB share", b.k32),
            ("64 KiB share", b.k64),
            ("128 KiB share", b.k128),
            ("other sizes", b.other),
        ] {
            let _ = writeln!(s, "{:<28}{:>16}", name, pct(v));
        }
        let _ = writeln!(
            s,
            "{:<28}{:>16}",
            "sequential share",
            pct(self.sequential_share)
        );
        let _ = writeln!(s, "{:<28}{:>16.3}", "duration (s)", self.duration_s);
        if let (Some(lo), Some(hi)) = (self.lowest_byte, self.highest_byte) {
            let _ = writeln!(s, "{:<28}{:>16}", "lowest byte addressed", lo);
            let _ = writeln!(s, "{:<28}{:>16}", "highest byte addressed", hi);
            let _ = writeln!(
                s,
                "{:<28}{:>16}",
                "span (lowest to highest)",
                engine::units::format_size(hi - lo + 1)
            );
        }
        if self.untimed_ios > 0 {
            let _ = writeln!(s, "{:<28}{:>16}", "IOs without a time", self.untimed_ios);
        }
        match (self.avg_queue_depth, self.qd1_share, self.busy_time_s) {
            (Some(qd), Some(q1), Some(busy)) => {
                let _ = writeln!(s, "{:<28}{:>16.3}", "average queue depth (busy)", qd);
                if let Some(q) = self.avg_queue_depth_span {
                    let _ = writeln!(s, "{:<28}{:>16.3}", "average queue depth (span)", q);
                }
                let _ = writeln!(s, "{:<28}{:>16}", "IOs issued at QD1", pct(q1));
                let _ = writeln!(s, "{:<28}{:>16.3}", "busy time (s)", busy);
                let _ = writeln!(
                    s,
                    "{:<28}{:>16.3}",
                    "  reads (s)",
                    self.busy_time_read_s.unwrap_or(0.0)
                );
                let _ = writeln!(
                    s,
                    "{:<28}{:>16.3}",
                    "  writes (s)",
                    self.busy_time_write_s.unwrap_or(0.0)
                );
                if let Some(r) = self.avg_data_rate_mbps {
                    let _ = writeln!(s, "{:<28}{:>16.2}", "average data rate (MB/s)", r);
                }
            }
            _ => {
                let _ = writeln!(
                    s,
                    "{:<28}{:>16}",
                    "queue depth, busy time",
                    "n/a: the trace records no completion times (fio iolog, DiskSim, UMass, \
                     Alibaba and Tencent traces have none; `trace gen` writes them in native \
                     .ssdt files)"
                );
            }
        }
        for (name, l) in [("D2C", &self.d2c), ("Q2C", &self.q2c)] {
            if let Some(l) = l {
                let _ = writeln!(
                    s,
                    "{name} (us){:<20}mean {:.1}  p50 {:.1}  p90 {:.1}  p99 {:.1}  p99.9 {:.1}  max {:.1}  (n={})",
                    "", l.mean_us, l.p50_us, l.p90_us, l.p99_us, l.p999_us, l.max_us, l.count
                );
            }
        }
        if self.out_of_order > 0 {
            let _ = writeln!(s, "{:<28}{:>16}", "issues out of order", self.out_of_order);
        }
        s
    }
}

/// Statistics of the trace at `path`, decoding on a second thread while this one computes
/// (the two halves cost about the same, so this nearly halves the time on two cores).
/// Returns the statistics and the number of malformed lines skipped.
pub fn stats_of_path(
    path: &std::path::Path,
    opts: crate::ReadOptions,
) -> Result<(Stats, u64), TraceError> {
    const BATCH: usize = 16 * 1024;
    let (tx, rx) = std::sync::mpsc::sync_channel::<Result<Vec<Record>, TraceError>>(4);
    let (back_tx, back_rx) = std::sync::mpsc::channel::<Vec<Record>>();
    let path = path.to_path_buf();
    let reader = std::thread::spawn(move || -> u64 {
        let mut it = match crate::open_with(&path, opts) {
            Ok(it) => it,
            Err(e) => {
                let _ = tx.send(Err(e));
                return 0;
            }
        };
        loop {
            let mut batch = back_rx
                .try_recv()
                .unwrap_or_else(|_| Vec::with_capacity(BATCH));
            batch.clear();
            for r in it.by_ref() {
                match r {
                    Ok(r) => {
                        batch.push(r);
                        if batch.len() == BATCH {
                            break;
                        }
                    }
                    Err(e) => {
                        let _ = tx.send(Err(e));
                        return it.skipped();
                    }
                }
            }
            let last = batch.len() < BATCH;
            if tx.send(Ok(batch)).is_err() || last {
                return it.skipped();
            }
        }
    });
    let mut b = StatsBuilder::new();
    let mut err = None;
    for batch in rx {
        match batch {
            Ok(batch) => {
                for r in &batch {
                    b.add(r);
                }
                let _ = back_tx.send(batch);
            }
            Err(e) => {
                err = Some(e);
                break;
            }
        }
    }
    let skipped = reader.join().expect("trace reader thread panicked");
    match err {
        Some(e) => Err(e),
        None => Ok((b.finish(), skipped)),
    }
}
