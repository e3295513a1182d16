//! Measurements of a run: every completed IO lands in exactly one one-second bucket (by
//! completion time), in a latency histogram of its direction, and in the busy-time and
//! queue-depth integrals. Nothing here allocates per IO.

use hdrhistogram::Histogram;
use serde::{Deserialize, Serialize};

use crate::device::Op;

const NS: u64 = 1_000_000_000;

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
    /// Integral of in_flight over time, in IO-nanoseconds.
    area: u128,
}

impl Occupancy {
    #[inline]
    fn change(&mut self, now_ns: u64, up: bool) {
        // Events arrive in processing order; a backend whose threads stamp completions may
        // hand one over stamped slightly before the last submission. Time never runs back.
        let now_ns = now_ns.max(self.since_ns);
        let dt = now_ns - self.since_ns;
        if self.in_flight > 0 {
            self.busy_ns += dt;
            self.area += dt as u128 * self.in_flight as u128;
        }
        self.since_ns = now_ns;
        if up {
            self.in_flight += 1;
            self.max_in_flight = self.max_in_flight.max(self.in_flight);
        } else {
            self.in_flight -= 1;
        }
    }
}

/// Collects a run's measurements as IOs are submitted and completed.
pub struct Recorder {
    start_ns: u64,
    end_ns: u64,
    buckets: Vec<Bucket>,
    latency_ns: [Histogram<u64>; 3],
    occupancy: [Occupancy; 3],
    all: Occupancy,
}

fn histogram() -> Histogram<u64> {
    // 1 ns .. 1 hour at 3 significant digits; auto-resize past that rather than lose an IO.
    let mut h = Histogram::new_with_bounds(1, 3_600 * NS, 3).expect("histogram bounds");
    h.auto(true);
    h
}

impl Recorder {
    pub fn new(start_ns: u64) -> Recorder {
        Recorder {
            start_ns,
            end_ns: start_ns,
            buckets: Vec::with_capacity(4096),
            latency_ns: [histogram(), histogram(), histogram()],
            occupancy: Default::default(),
            all: Occupancy {
                since_ns: start_ns,
                ..Default::default()
            },
        }
    }

    #[inline]
    pub fn submitted(&mut self, op: Op, now_ns: u64) {
        self.occupancy[dir(op) as usize].change(now_ns, true);
        self.all.change(now_ns, true);
    }

    #[inline]
    pub fn completed(&mut self, op: Op, bytes: u64, submit_ns: u64, complete_ns: u64) {
        let d = dir(op) as usize;
        self.occupancy[d].change(complete_ns, false);
        self.all.change(complete_ns, false);
        let second = (complete_ns.saturating_sub(self.start_ns) / NS) as usize;
        if second >= self.buckets.len() {
            self.buckets.resize(second + 1, Bucket::default());
        }
        let b = &mut self.buckets[second];
        b.ios[d] += 1;
        b.bytes[d] += bytes;
        let _ = self.latency_ns[d].record(complete_ns.saturating_sub(submit_ns).max(1));
        self.end_ns = self.end_ns.max(complete_ns);
    }

    pub fn in_flight(&self) -> u32 {
        self.all.in_flight
    }

    /// IOs and bytes (reads + writes) completed so far.
    pub fn totals(&self) -> (u64, u64) {
        self.buckets.iter().fold((0, 0), |(i, b), k| {
            (i + k.ios.iter().sum::<u64>(), b + k.bytes[0] + k.bytes[1])
        })
    }

    /// Close the run at `end_ns` (at least the last completion) and summarise it.
    pub fn finish(mut self, end_ns: u64, cpu: Option<CpuUsage>) -> Measurements {
        let end_ns = end_ns.max(self.end_ns);
        // Account the tail of any busy period still open (only on an aborted run).
        for o in self
            .occupancy
            .iter_mut()
            .chain(std::iter::once(&mut self.all))
        {
            if o.in_flight > 0 {
                let dt = end_ns.saturating_sub(o.since_ns);
                o.busy_ns += dt;
                o.area += dt as u128 * o.in_flight as u128;
            }
        }
        let duration_ns = end_ns - self.start_ns;
        let duration_s = duration_ns as f64 / NS as f64;
        let both =
            self.buckets.iter().any(|b| b.ios[0] > 0) && self.buckets.iter().any(|b| b.ios[1] > 0);
        let per_second: Vec<SecondPoint> = self
            .buckets
            .iter()
            .enumerate()
            .map(|(t, b)| {
                // The last bucket may cover less than a second; rate it over what it covers.
                let covered =
                    ((end_ns - self.start_ns) as f64 / NS as f64 - t as f64).clamp(1e-9, 1.0);
                let rate = |ios: u64| ios as f64 / covered;
                let mb = |bytes: u64| bytes as f64 / covered / 1e6;
                SecondPoint {
                    t: t as u64,
                    ios: b.ios.iter().sum(),
                    iops: rate(b.ios.iter().sum()),
                    mbps: mb(b.bytes[0] + b.bytes[1]),
                    read_iops: both.then(|| rate(b.ios[0])),
                    read_mbps: both.then(|| mb(b.bytes[0])),
                    write_iops: both.then(|| rate(b.ios[1])),
                    write_mbps: both.then(|| mb(b.bytes[1])),
                    covered_s: (covered < 1.0).then_some(covered),
                }
            })
            .collect();
        let dir_summary = |d: Dir| -> Option<DirSummary> {
            let ios: u64 = self.buckets.iter().map(|b| b.ios[d as usize]).sum();
            if ios == 0 {
                return None;
            }
            let bytes: u64 = self.buckets.iter().map(|b| b.bytes[d as usize]).sum();
            let o = &self.occupancy[d as usize];
            Some(DirSummary {
                ios,
                bytes,
                iops: ios as f64 / duration_s.max(1e-9),
                mbps: bytes as f64 / duration_s.max(1e-9) / 1e6,
                busy_time_s: o.busy_ns as f64 / NS as f64,
                latency_us: LatencyStats::of(&self.latency_ns[d as usize]),
            })
        };
        let read = dir_summary(Dir::Read);
        let write = dir_summary(Dir::Write);
        let other = dir_summary(Dir::Other);
        let ios = [&read, &write, &other]
            .iter()
            .map(|d| d.as_ref().map_or(0, |d| d.ios))
            .sum::<u64>();
        let bytes = [&read, &write]
            .iter()
            .map(|d| d.as_ref().map_or(0, |d| d.bytes))
            .sum::<u64>();
        let cpu = cpu.map(|mut c| {
            c.per_io_us = (c.user_s + c.system_s) * 1e6 / ios.max(1) as f64;
            c
        });
        Measurements {
            summary: Summary {
                ios,
                bytes,
                duration_s,
                iops: ios as f64 / duration_s.max(1e-9),
                mbps: bytes as f64 / duration_s.max(1e-9) / 1e6,
                busy_time_s: self.all.busy_ns as f64 / NS as f64,
                avg_in_flight: self.all.area as f64 / duration_ns.max(1) as f64,
                max_in_flight: self.all.max_in_flight,
                read,
                write,
                other,
                cpu,
            },
            per_second,
        }
    }
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct LatencyStats {
    pub min: f64,
    pub mean: f64,
    pub p50: f64,
    pub p90: f64,
    pub p99: f64,
    pub p999: f64,
    pub max: f64,
}

impl LatencyStats {
    /// Microseconds from a nanosecond histogram.
    pub fn of(h: &Histogram<u64>) -> LatencyStats {
        let us = |ns: u64| ns as f64 / 1000.0;
        LatencyStats {
            min: us(h.min()),
            mean: h.mean() / 1000.0,
            p50: us(h.value_at_quantile(0.5)),
            p90: us(h.value_at_quantile(0.9)),
            p99: us(h.value_at_quantile(0.99)),
            p999: us(h.value_at_quantile(0.999)),
            max: us(h.max()),
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DirSummary {
    pub ios: u64,
    pub bytes: u64,
    pub iops: f64,
    pub mbps: f64,
    pub busy_time_s: f64,
    pub latency_us: LatencyStats,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct CpuUsage {
    pub user_s: f64,
    pub system_s: f64,
    /// CPU microseconds per completed IO.
    pub per_io_us: f64,
}

impl CpuUsage {
    /// CPU time this process has used so far (all threads).
    pub fn now() -> CpuUsage {
        // SAFETY: getrusage fills the struct we hand it.
        let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
        unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut ru) };
        let s = |tv: libc::timeval| tv.tv_sec as f64 + tv.tv_usec as f64 / 1e6;
        CpuUsage {
            user_s: s(ru.ru_utime),
            system_s: s(ru.ru_stime),
            per_io_us: 0.0,
        }
    }

    pub fn since(self, start: CpuUsage) -> CpuUsage {
        CpuUsage {
            user_s: self.user_s - start.user_s,
            system_s: self.system_s - start.system_s,
            per_io_us: 0.0,
        }
    }
}

/// The headline numbers of a run. Field names are a contract: add, don't rename.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    /// Completed IOs of every kind.
    pub ios: u64,
    /// Bytes read and written.
    pub bytes: u64,
    /// From the start to the last completion, on the device's clock.
    pub duration_s: f64,
    pub iops: f64,
    pub mbps: f64,
    /// Time with at least one IO in flight.
    pub busy_time_s: f64,
    /// Time-weighted mean number of IOs in flight.
    pub avg_in_flight: f64,
    pub max_in_flight: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub read: Option<DirSummary>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub write: Option<DirSummary>,
    /// Discards and flushes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub other: Option<DirSummary>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cpu: Option<CpuUsage>,
}

/// One second of a run. `t` is the second since the start.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SecondPoint {
    pub t: u64,
    pub ios: u64,
    pub iops: f64,
    pub mbps: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub read_iops: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub read_mbps: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub write_iops: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub write_mbps: Option<f64>,
    /// Set on a last second that the run covered only partly; rates are over this time.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub covered_s: Option<f64>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Measurements {
    pub summary: Summary,
    pub per_second: Vec<SecondPoint>,
}

impl Measurements {
    /// The per-second series as CSV.
    pub fn per_second_csv(&self) -> String {
        let mut out = String::from("t,ios,iops,mbps,read_iops,read_mbps,write_iops,write_mbps\n");
        let f = |v: Option<f64>| v.map(|v| format!("{v:.3}")).unwrap_or_default();
        for p in &self.per_second {
            out += &format!(
                "{},{},{:.3},{:.3},{},{},{},{}\n",
                p.t,
                p.ios,
                p.iops,
                p.mbps,
                f(p.read_iops),
                f(p.read_mbps),
                f(p.write_iops),
                f(p.write_mbps)
            );
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
