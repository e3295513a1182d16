//! A run's whole-run latencies, read and write, handed out beside its summary so that several
//! runs' percentiles can be taken from their IOs together (the SNIA PTS's measurement window
//! of five rounds) instead of averaged from each run's percentiles, which is wrong for any
//! percentile. They are the summary's source, not part of a stored result.
//!
//! Kept as the histogram's non-empty buckets: a test may hold hundreds of them (every
//! stimulus of five rounds), and a whole histogram of the recorder's range is most of a MiB.

use hdrhistogram::Histogram;

use crate::device::Op;

/// (value, count) of each non-empty bucket: the bucket's highest equivalent value, so that
/// recording it again lands in the same bucket.
type Buckets = Vec<(u64, u64)>;

#[derive(Clone, Debug, Default)]
pub struct LatencyHistograms {
    read: Buckets,
    write: Buckets,
}

impl LatencyHistograms {
    pub(crate) fn new(read: &Histogram<u64>, write: &Histogram<u64>) -> LatencyHistograms {
        let buckets = |h: &Histogram<u64>| -> Buckets {
            h.iter_recorded()
                .map(|v| {
                    (
                        h.highest_equivalent(v.value_iterated_to()),
                        v.count_at_value(),
                    )
                })
                .collect()
        };
        LatencyHistograms {
            read: buckets(read),
            write: buckets(write),
        }
    }

    /// Add `other`'s IOs to these.
    pub fn merge(&mut self, other: &LatencyHistograms) {
        self.read.extend_from_slice(&other.read);
        self.write.extend_from_slice(&other.write);
    }

    /// The latencies of `op`'s IOs (reads or writes), if any completed.
    pub fn of(&self, op: Op) -> Option<Histogram<u64>> {
        match op {
            Op::Read => histogram([&self.read]),
            Op::Write => histogram([&self.write]),
            _ => None,
        }
    }

    /// Reads and writes together in bins doubling from `from_ns`: (upper bound in ns, IOs),
    /// the empty bins left out.
    pub fn doubling_bins(&self, from_ns: u64) -> Vec<(u64, u64)> {
        let Some(h) = self.all() else {
            return Vec::new();
        };
        h.iter_log(from_ns, 2.0)
            .filter(|v| v.count_since_last_iteration() > 0)
            .map(|v| (v.value_iterated_to(), v.count_since_last_iteration()))
            .collect()
    }

    /// Reads and writes together, if any completed.
    pub fn all(&self) -> Option<Histogram<u64>> {
        histogram([&self.read, &self.write])
    }
}

/// The buckets as one histogram (the recorder's precision), `None` when empty.
fn histogram<const N: usize>(parts: [&Buckets; N]) -> Option<Histogram<u64>> {
    let mut h = Histogram::new(3).expect("3 significant digits");
    h.auto(true);
    for &(value, count) in parts.into_iter().flatten() {
        h.record_n(value, count)
            .expect("an auto-resizing histogram");
    }
    (!h.is_empty()).then_some(h)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn of(values: &[u64]) -> Histogram<u64> {
        let mut h = Histogram::new_with_bounds(1, 3_600_000_000_000, 3).unwrap();
        h.auto(true);
        for &v in values {
            h.record(v).unwrap();
        }
        h
    }

    #[test]
    fn merged_percentiles_come_from_every_io() {
        let empty = of(&[]);
        let mut a = LatencyHistograms::new(&of(&[1_000; 99]), &empty);
        assert!(a.of(Op::Write).is_none());
        // One slow read in 100: each run's own p99.5 is 1 us and 1 ms, their mean 0.5 ms;
        // the merged IOs' p99.5 is the slow one.
        a.merge(&LatencyHistograms::new(&of(&[1_000_000]), &of(&[5_000])));
        let read = a.of(Op::Read).unwrap();
        assert_eq!(read.len(), 100);
        assert_eq!(read.value_at_quantile(0.5), of(&[1_000]).max());
        assert_eq!(read.max(), of(&[1_000_000]).max());
        assert_eq!(a.of(Op::Write).unwrap().len(), 1);
        assert_eq!(a.all().unwrap().len(), 101);
        let bins = a.doubling_bins(1_000);
        assert_eq!(bins.iter().map(|b| b.1).sum::<u64>(), 101);
        assert_eq!(bins[0].1, 99, "the 1 us reads in the first bin: {bins:?}");
    }
}
