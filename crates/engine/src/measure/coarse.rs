//! A long run's series in points of several seconds, as fio's `log_avg_msec` averages its
//! logs: at most [`MAX_POINTS`] points however long the run, so a year's run writes
//! megabytes, not gigabytes. A run of up to [`MAX_POINTS`] seconds (27 hours) keeps its
//! point a second, so the analyses of runs of normal length are those of their seconds.

use super::{SecondLatency, SecondPoint};

/// Points a run's series holds at most: one a second for 27 hours.
pub const MAX_POINTS: u64 = 100_000;

/// The seconds each point stands for in a series of `seconds` seconds.
pub fn point_seconds(seconds: u64) -> u64 {
    seconds.div_ceil(MAX_POINTS).max(1)
}

/// A run's seconds, in order, folded into points of `n` seconds. A point's `t` is its first
/// second; its rates are over the time it covers (`covered_s` where that is less than `n`,
/// the run's end); its watts the mean of its seconds'; its temperature and latency
/// percentiles those of its worst second (percentiles of seconds do not average).
pub(super) struct Coarse {
    n: u64,
    run_s: f64,
    points: Vec<SecondPoint>,
    /// The open point, its rates still amounts (IOs, MB), and the seconds with watts in it.
    open: Option<(SecondPoint, f64)>,
}

impl Coarse {
    pub(super) fn new(n: u64, run_s: f64, capacity: usize) -> Coarse {
        Coarse {
            n,
            run_s,
            points: Vec::with_capacity(capacity.min(MAX_POINTS as usize + 1)),
            open: None,
        }
    }

    pub(super) fn push(&mut self, p: SecondPoint) {
        if self.n == 1 {
            self.points.push(p);
            return;
        }
        let t = p.t / self.n * self.n;
        if self.open.as_ref().is_some_and(|(o, _)| o.t != t) {
            self.close();
        }
        let covered = p.covered_s.unwrap_or(1.0);
        let (acc, watt_s) = self.open.get_or_insert_with(|| (SecondPoint::idle(t), 0.0));
        let amount = |sum: &mut Option<f64>, rate: Option<f64>| {
            if let Some(r) = rate {
                *sum = Some(sum.unwrap_or(0.0) + r * covered);
            }
        };
        acc.ios += p.ios;
        acc.iops += p.iops * covered;
        acc.mbps += p.mbps * covered;
        amount(&mut acc.read_iops, p.read_iops);
        amount(&mut acc.read_mbps, p.read_mbps);
        amount(&mut acc.write_iops, p.write_iops);
        amount(&mut acc.write_mbps, p.write_mbps);
        if p.watts.is_some() {
            amount(&mut acc.watts, p.watts);
            *watt_s += covered;
        }
        acc.temperature_c = worst(acc.temperature_c, p.temperature_c, f64::max);
        acc.read_latency_us = worst(acc.read_latency_us, p.read_latency_us, worst_latency);
        acc.write_latency_us = worst(acc.write_latency_us, p.write_latency_us, worst_latency);
    }

    /// Amounts to rates over the time the open point covers.
    fn close(&mut self) {
        let Some((mut p, watt_s)) = self.open.take() else {
            return;
        };
        let n = self.n as f64;
        let covered = (self.run_s - p.t as f64).clamp(1e-9, n);
        let rate = |v: &mut f64| *v /= covered;
        rate(&mut p.iops);
        rate(&mut p.mbps);
        for v in [
            &mut p.read_iops,
            &mut p.read_mbps,
            &mut p.write_iops,
            &mut p.write_mbps,
        ] {
            v.iter_mut().for_each(rate);
        }
        p.watts = p.watts.map(|joules| joules / watt_s.max(1e-9));
        p.covered_s = (covered < n).then_some(covered);
        self.points.push(p);
    }

    pub(super) fn finish(mut self) -> Vec<SecondPoint> {
        self.close();
        self.points
    }
}

fn worst<T: Copy>(a: Option<T>, b: Option<T>, pick: fn(T, T) -> T) -> Option<T> {
    match (a, b) {
        (Some(a), Some(b)) => Some(pick(a, b)),
        (a, b) => a.or(b),
    }
}

fn worst_latency(a: SecondLatency, b: SecondLatency) -> SecondLatency {
    SecondLatency {
        p50: a.p50.max(b.p50),
        p99: a.p99.max(b.p99),
        p99_9: a.p99_9.max(b.p99_9),
        p99_99: a.p99_99.max(b.p99_99),
        max: a.max.max(b.max),
    }
}
