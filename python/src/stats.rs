//! `ssdlab.trace.Stats`: `trace stats`'s figures as typed attributes (btt's definitions).
//!
//! Figures a trace cannot give (no completion times: no queue depth, busy time or D2C) are
//! `None`, as the CLI's JSON leaves them out.

use pyo3::prelude::*;

/// Latency summary in microseconds (btt's D2C or Q2C).
#[pyclass(module = "ssdlab.trace", frozen, get_all, skip_from_py_object)]
#[derive(Clone, Debug)]
pub struct Latency {
    pub count: u64,
    pub mean_us: f64,
    pub p50_us: f64,
    pub p90_us: f64,
    pub p99_us: f64,
    pub p999_us: f64,
    pub max_us: f64,
}

/// Shares of the read and write IOs by size (`k4` is exactly 4 KiB, ..., `other` the rest).
#[pyclass(module = "ssdlab.trace", frozen, get_all, skip_from_py_object)]
#[derive(Clone, Debug)]
pub struct SizeBreakdown {
    pub k4: f64,
    pub k8: f64,
    pub k16: f64,
    pub k32: f64,
    pub k64: f64,
    pub k128: f64,
    pub other: f64,
}

/// The statistics of a trace, as `ssdlab trace stats --json` gives them.
#[pyclass(module = "ssdlab.trace", frozen, get_all, skip_from_py_object)]
#[derive(Clone, Debug)]
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
    pub untimed_ios: u64,
    pub duration_s: f64,
    pub requests_timed: Option<u64>,
    pub avg_queue_depth: Option<f64>,
    pub avg_queue_depth_span: Option<f64>,
    pub max_queue_depth: Option<u64>,
    pub qd1_share: Option<f64>,
    pub busy_time_s: Option<f64>,
    pub busy_time_read_s: Option<f64>,
    pub busy_time_write_s: Option<f64>,
    pub avg_data_rate_mbps: Option<f64>,
    pub avg_read_rate_mbps: Option<f64>,
    pub avg_write_rate_mbps: Option<f64>,
    pub d2c_mean_us: Option<f64>,
    pub q2c_mean_us: Option<f64>,
    pub d2c: Option<Latency>,
    pub q2c: Option<Latency>,
    pub out_of_order: u64,
    /// The lowest and the highest byte the trace addresses (its span on a target).
    pub lowest_byte: Option<u64>,
    pub highest_byte: Option<u64>,
    /// Malformed lines skipped (`skip_bad=True`).
    pub skipped_lines: u64,
}

impl Latency {
    fn new(l: trace::stats::Latency) -> Self {
        Latency {
            count: l.count,
            mean_us: l.mean_us,
            p50_us: l.p50_us,
            p90_us: l.p90_us,
            p99_us: l.p99_us,
            p999_us: l.p999_us,
            max_us: l.max_us,
        }
    }
}

impl Stats {
    pub fn new(s: trace::Stats, skipped_lines: u64) -> Self {
        let b = s.size_breakdown;
        Stats {
            ios: s.ios,
            reads: s.reads,
            writes: s.writes,
            discards: s.discards,
            flushes: s.flushes,
            bytes_read: s.bytes_read,
            bytes_written: s.bytes_written,
            bytes_discarded: s.bytes_discarded,
            size_breakdown: SizeBreakdown {
                k4: b.k4,
                k8: b.k8,
                k16: b.k16,
                k32: b.k32,
                k64: b.k64,
                k128: b.k128,
                other: b.other,
            },
            sequential_share: s.sequential_share,
            untimed_ios: s.untimed_ios,
            duration_s: s.duration_s,
            requests_timed: s.requests_timed,
            avg_queue_depth: s.avg_queue_depth,
            avg_queue_depth_span: s.avg_queue_depth_span,
            max_queue_depth: s.max_queue_depth,
            qd1_share: s.qd1_share,
            busy_time_s: s.busy_time_s,
            busy_time_read_s: s.busy_time_read_s,
            busy_time_write_s: s.busy_time_write_s,
            avg_data_rate_mbps: s.avg_data_rate_mbps,
            avg_read_rate_mbps: s.avg_read_rate_mbps,
            avg_write_rate_mbps: s.avg_write_rate_mbps,
            d2c_mean_us: s.d2c_mean_us,
            q2c_mean_us: s.q2c_mean_us,
            d2c: s.d2c.map(Latency::new),
            q2c: s.q2c.map(Latency::new),
            out_of_order: s.out_of_order,
            lowest_byte: s.lowest_byte,
            highest_byte: s.highest_byte,
            skipped_lines,
        }
    }
}

#[pymethods]
impl Stats {
    fn __repr__(&self) -> String {
        format!(
            "Stats(ios={}, reads={}, writes={}, duration_s={}, avg_queue_depth={})",
            self.ios,
            self.reads,
            self.writes,
            self.duration_s,
            self.avg_queue_depth
                .map_or_else(|| "None".to_string(), |q| q.to_string())
        )
    }
}
