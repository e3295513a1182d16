//! Latency percentiles over time: each second's p50, p99, p99.9 and p99.99 of one direction
//! on a log scale, as the SNIA PTS's response-time plots and the reviews' latency-consistency
//! charts show them. The engine keeps each second's percentiles from that second's own
//! histogram (fio's buckets), so none is an average of percentiles.

use engine::measure::SecondLatency;
use suite::result::TestResult;

use crate::chart::{Axis, Series, XYChart};
use crate::view::Drive;

/// A percentile's name and where a second's figures keep it.
type Percentile = (&'static str, fn(&SecondLatency) -> f64);

const PERCENTILES: [Percentile; 4] = [
    ("p50", |l| l.p50),
    ("p99", |l| l.p99),
    ("p99.9", |l| l.p99_9),
    ("p99.99", |l| l.p99_99),
];

/// The chart of a result's per-second latency percentiles: of its writes where it has any,
/// else of its reads. `None` for a result without them (one stored before they were kept).
/// It carries no caveat: it sits in a section of the result's charts, which says it once.
pub fn over_time(title: &str, d: &Drive, r: &TestResult) -> Option<XYChart> {
    let seconds = r.per_second.iter().filter(|p| p.covered_s.is_none());
    let writes = seconds.clone().any(|p| p.write_latency_us.is_some());
    let direction = if writes { "writes" } else { "reads" };
    let latency: Vec<(f64, SecondLatency)> = seconds
        .filter_map(|p| {
            let l = if writes {
                p.write_latency_us
            } else {
                p.read_latency_us
            };
            Some((p.t as f64, l?))
        })
        .collect();
    if latency.is_empty() {
        return None;
    }
    let mut chart = XYChart::new(
        title,
        Axis::linear("Time (s)"),
        Axis::log10("Completion latency (µs)"),
    )
    .size(560.0, 360.0)
    .subtitle(&format!(
        "{}, {direction}: each second's percentiles",
        d.label
    ));
    for (name, of) in PERCENTILES {
        chart.push(Series::line(name, latency.iter().map(|(t, l)| (*t, of(l)))));
    }
    Some(chart)
}
