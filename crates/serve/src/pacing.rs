//! How well the served drive kept to the simulation: for every request, how much later than
//! the simulated drive completed it the host did (the pacing error), in one histogram per
//! queue, merged at the end. Recording allocates nothing.

use hdrhistogram::Histogram;

use engine::Op;

/// A request is late when its pacing error exceeds its own simulated service time: the host
/// saw it take more than twice as long as the drive would have.
pub(crate) struct Pacing {
    errors_ns: Histogram<u64>,
    late: u64,
    ios: [u64; 4],
    bytes_read: u64,
    bytes_written: u64,
}

/// An hour: longer errors are recorded as an hour.
const MAX_ERROR_NS: u64 = 3_600_000_000_000;

impl Pacing {
    pub(crate) fn new() -> Pacing {
        Pacing {
            errors_ns: Histogram::new_with_bounds(1, MAX_ERROR_NS, 3).expect("valid bounds"),
            late: 0,
            ios: [0; 4],
            bytes_read: 0,
            bytes_written: 0,
        }
    }

    /// A request completed `error_ns` after the drive did, which served it in `service_ns`.
    pub(crate) fn record(&mut self, op: Op, bytes: u64, service_ns: u64, error_ns: u64) {
        self.errors_ns.saturating_record(error_ns.max(1));
        if error_ns > service_ns {
            self.late += 1;
        }
        self.ios[op.index()] += 1;
        match op {
            Op::Read => self.bytes_read += bytes,
            Op::Write => self.bytes_written += bytes,
            Op::Discard | Op::Flush => {}
        }
    }

    pub(crate) fn merge(&mut self, other: &Pacing) {
        // Both have the same bounds, so adding cannot fail.
        let _ = self.errors_ns.add(&other.errors_ns);
        self.late += other.late;
        for (a, b) in self.ios.iter_mut().zip(other.ios) {
            *a += b;
        }
        self.bytes_read += other.bytes_read;
        self.bytes_written += other.bytes_written;
    }

    pub(crate) fn ios(&self, op: Op) -> u64 {
        self.ios[op.index()]
    }

    pub(crate) fn total_ios(&self) -> u64 {
        self.ios.iter().sum()
    }

    pub(crate) fn bytes_read(&self) -> u64 {
        self.bytes_read
    }

    pub(crate) fn bytes_written(&self) -> u64 {
        self.bytes_written
    }

    pub(crate) fn late(&self) -> u64 {
        self.late
    }

    /// The pacing error at quantile `q` (0..=1), in ns; `None` before any request.
    pub(crate) fn error_ns(&self, q: f64) -> Option<u64> {
        (!self.errors_ns.is_empty()).then(|| self.errors_ns.value_at_quantile(q))
    }

    pub(crate) fn max_error_ns(&self) -> Option<u64> {
        (!self.errors_ns.is_empty()).then(|| self.errors_ns.max())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn late_requests_and_merged_percentiles() {
        let mut a = Pacing::new();
        let mut b = Pacing::new();
        for i in 0..99 {
            a.record(Op::Write, 4096, 100_000, 1_000 + i);
        }
        // Its error is longer than its service time.
        b.record(Op::Read, 8192, 50_000, 2_000_000);
        a.merge(&b);
        assert_eq!(a.total_ios(), 100);
        assert_eq!((a.ios(Op::Write), a.ios(Op::Read)), (99, 1));
        assert_eq!((a.bytes_written(), a.bytes_read()), (99 * 4096, 8192));
        assert_eq!(a.late(), 1);
        let p50 = a.error_ns(0.5).unwrap();
        assert!((1_000..1_100).contains(&p50), "{p50}");
        assert!(a.max_error_ns().unwrap() >= 1_999_000);
    }
}
