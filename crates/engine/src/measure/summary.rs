//! The schema a run's measurements are written as (JSON, CSV) and read back from.

use hdrhistogram::Histogram;
use serde::{Deserialize, Serialize};

use super::SecondLatency;

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
        CpuUsage::of(libc::RUSAGE_SELF)
    }

    /// CPU time the calling thread has used so far.
    pub fn of_this_thread() -> CpuUsage {
        CpuUsage::of(libc::RUSAGE_THREAD)
    }

    fn of(who: libc::c_int) -> CpuUsage {
        // SAFETY: getrusage fills the struct we hand it.
        let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
        unsafe { libc::getrusage(who, &mut ru) };
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

    /// With the CPU per IO of `ios` completed IOs.
    pub fn per_io(mut self, ios: u64) -> CpuUsage {
        self.per_io_us = (self.user_s + self.system_s) * 1e6 / ios.max(1) as f64;
        self
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
    /// The whole process's (every thread's, the backend's workers' too).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cpu: Option<CpuUsage>,
    /// Each submitting thread's own, per IO it completed, when a run has several.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub cpu_by_thread: Vec<CpuUsage>,
    /// Seconds inside long idle periods (nothing in flight for
    /// [`IDLE_RUN_S`](super::IDLE_RUN_S) s or more) that the per-second series leaves out; each
    /// such period keeps its first and last second, at zero. Read `t` of each point for its time.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub idle_seconds_omitted: u64,
    /// The seconds each point of the series stands for: 1 (a point a second) unless the run
    /// had more than [`MAX_POINTS`](super::MAX_POINTS) seconds, whose series is in points of
    /// several seconds (rates averaged over each, its worst second's latency percentiles).
    #[serde(default = "one", skip_serializing_if = "is_one")]
    pub point_s: u64,
    /// IOs that failed (an error, or fewer bytes than asked): not in `ios`, `bytes` or the
    /// latencies. Any failed IO stops a run and marks its result failed.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub failed_ios: u64,
    /// The energy the device used over the run, where it models its own (the simulator);
    /// a real drive's power comes from a meter and is in the result's `power`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub energy_j: Option<f64>,
}

fn is_zero(v: &u64) -> bool {
    *v == 0
}

fn one() -> u64 {
    1
}

fn is_one(v: &u64) -> bool {
    *v == 1
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
    /// The drive's temperature in that second, where it reports one (NVMe), so throttling
    /// shows beside the IOPS it explains.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub temperature_c: Option<f64>,
    /// The drive's mean power in that second: the simulator's energy model, or a meter's
    /// readings (`--power-meter`). `None` where power is missing, never 0 W.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub watts: Option<f64>,
    /// That second's read latencies (completions in it), where any completed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read_latency_us: Option<SecondLatency>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub write_latency_us: Option<SecondLatency>,
}

impl SecondPoint {
    /// Second `t` without IO, power or temperature: what a point starts from.
    pub fn idle(t: u64) -> SecondPoint {
        SecondPoint {
            t,
            ios: 0,
            iops: 0.0,
            mbps: 0.0,
            read_iops: None,
            read_mbps: None,
            write_iops: None,
            write_mbps: None,
            covered_s: None,
            temperature_c: None,
            watts: None,
            read_latency_us: None,
            write_latency_us: None,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Measurements {
    pub summary: Summary,
    pub per_second: Vec<SecondPoint>,
}

impl Measurements {
    /// The per-second series as CSV, with each direction's latency percentiles (us); a
    /// series in points of several seconds (see [`Summary::point_s`]) says so in a last
    /// column, `point_s`.
    pub fn per_second_csv(&self) -> String {
        let mut out =
            String::from("t,ios,iops,mbps,read_iops,read_mbps,write_iops,write_mbps,watts");
        for dir in ["read", "write"] {
            for p in ["p50", "p99", "p99_9", "p99_99", "max"] {
                out += &format!(",{dir}_{p}_us");
            }
        }
        let point_s = self.summary.point_s;
        let coarse = point_s > 1;
        if coarse {
            out += ",point_s";
        }
        out.push('\n');
        let f = |v: Option<f64>| v.map(|v| format!("{v:.3}")).unwrap_or_default();
        for p in &self.per_second {
            out += &format!(
                "{},{},{:.3},{:.3},{},{},{},{},{}",
                p.t,
                p.ios,
                p.iops,
                p.mbps,
                f(p.read_iops),
                f(p.read_mbps),
                f(p.write_iops),
                f(p.write_mbps),
                f(p.watts)
            );
            for l in [p.read_latency_us, p.write_latency_us] {
                let figures = l.map(|l| [l.p50, l.p99, l.p99_9, l.p99_99, l.max]);
                for i in 0..5 {
                    out += &format!(",{}", f(figures.map(|v| v[i])));
                }
            }
            if coarse {
                out += &format!(",{point_s}");
            }
            out.push('\n');
        }
        out
    }
}
