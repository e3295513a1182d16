//! The figures of the PTS tests that change the stimulus and watch the drive recover: host
//! idle recovery (bursts of writes with idle between them, then a return to the baseline) and
//! cross-stimulus recovery (sequential, random, sequential writes). Each is a list of
//! segments on one clock, each a series of points (a burst, or 5 s of continuous IO).

use serde::{Deserialize, Serialize};

use engine::driver::Outcome;

use crate::pts::Figure;
use engine::measure::SecondPoint;

/// Continuous IO is summarised every this many seconds (the spec's burst length).
pub const INTERVAL_S: u64 = 5;

/// A segment's throughput is settled from the first point after which every point is within
/// this share of its mean over its last fifth.
pub const SETTLED_WITHIN: f64 = 0.2;

#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Point {
    /// Seconds from the start of the test's first segment to the point's start.
    pub t_s: f64,
    pub iops: f64,
    pub mbps: f64,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Segment {
    pub label: String,
    /// Idle after each burst (host idle recovery's wait states); `None` for continuous IO.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub idle_s: Option<f64>,
    pub points: Vec<Point>,
    /// Mean over the points.
    pub iops: f64,
    pub mbps: f64,
    /// Seconds from the segment's start until its throughput settled (see [`SETTLED_WITHIN`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub settled_s: Option<f64>,
}

impl Point {
    pub fn value(&self, figure: Figure) -> f64 {
        match figure {
            Figure::Mbps => self.mbps,
            _ => self.iops,
        }
    }
}

impl Segment {
    pub fn value(&self, figure: Figure) -> f64 {
        match figure {
            Figure::Mbps => self.mbps,
            _ => self.iops,
        }
    }

    /// A segment of `points`.
    pub fn of(label: String, idle_s: Option<f64>, points: Vec<Point>) -> Segment {
        let n = points.len().max(1) as f64;
        let iops = points.iter().map(|p| p.iops).sum::<f64>() / n;
        let mbps = points.iter().map(|p| p.mbps).sum::<f64>() / n;
        let settled_s = settled(&points);
        Segment {
            label,
            idle_s,
            points,
            iops,
            mbps,
            settled_s,
        }
    }

    /// Continuous IO's seconds (t from 0), started `start_s` into the test, in
    /// [`INTERVAL_S`] points.
    pub fn continuous(label: String, start_s: f64, seconds: &[SecondPoint]) -> Segment {
        let whole: Vec<&SecondPoint> = seconds.iter().filter(|p| p.covered_s.is_none()).collect();
        let points = whole
            .chunks(INTERVAL_S as usize)
            .map(|c| {
                let n = c.len() as f64;
                Point {
                    t_s: start_s + c[0].t as f64,
                    iops: c.iter().map(|p| p.iops).sum::<f64>() / n,
                    mbps: c.iter().map(|p| p.mbps).sum::<f64>() / n,
                }
            })
            .collect();
        Segment::of(label, None, points)
    }
}

/// Seconds from the first point until the throughput stays within [`SETTLED_WITHIN`] of the
/// mean of the last fifth of the points, `None` for fewer than five points.
fn settled(points: &[Point]) -> Option<f64> {
    if points.len() < 5 {
        return None;
    }
    let tail = &points[points.len() * 4 / 5..];
    let target = tail.iter().map(|p| p.mbps).sum::<f64>() / tail.len() as f64;
    let off = |p: &Point| (p.mbps - target).abs() > SETTLED_WITHIN * target;
    let first = points.iter().rposition(off).map_or(0, |i| i + 1);
    Some(points[first.min(points.len() - 1)].t_s - points[0].t_s)
}

/// Where a test of segments is on its own clock: seconds since its first measured run, runs
/// so far (each run's seed), and every run's seconds placed on that clock.
#[derive(Default)]
pub struct Timeline {
    pub now_s: f64,
    pub runs: u64,
    pub per_second: Vec<SecondPoint>,
}

impl Timeline {
    /// A run that just ended: its whole seconds go on the clock (a last partial second would
    /// share its second with the next run's first).
    pub fn ran(&mut self, outcome: &Outcome) {
        let m = &outcome.measurements;
        let next = self.per_second.last().map_or(0, |p| p.t + 1);
        let offset = (self.now_s.round() as u64).max(next);
        let whole = m.per_second.iter().filter(|p| p.covered_s.is_none());
        self.per_second.extend(whole.map(|p| SecondPoint {
            t: p.t + offset,
            ..p.clone()
        }));
        self.now_s += m.summary.duration_s;
        self.runs += 1;
    }

    /// Idle time that just ended.
    pub fn idled(&mut self, outcome: &Outcome) {
        self.now_s += outcome.measurements.summary.duration_s;
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RecoveryAnalysis {
    /// What the test reports first: IOPS (host idle) or MB/s (cross-stimulus).
    pub figure: Figure,
    /// The baseline the drive recovers to (host idle recovery: the steady-state IOPS reached
    /// before the wait states), where the test has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub baseline_iops: Option<f64>,
    /// The rounds to that steady state (host idle recovery), to say whether it held.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub steady_state: Option<crate::pts::Sequence>,
    pub segments: Vec<Segment>,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn points(mbps: &[f64]) -> Vec<Point> {
        let p = |(i, &mbps): (usize, &f64)| Point {
            t_s: 100.0 + 5.0 * i as f64,
            iops: mbps,
            mbps,
        };
        mbps.iter().enumerate().map(p).collect()
    }

    #[test]
    fn settles_after_the_last_point_out_of_band() {
        // Falls from 500 to 100: the last point above 120 is the fourth (at 15 s).
        let s = Segment::of(
            "x".into(),
            None,
            points(&[
                500.0, 300.0, 200.0, 130.0, 110.0, 100.0, 95.0, 100.0, 105.0, 100.0,
            ]),
        );
        assert_eq!(s.settled_s, Some(20.0));
        // Flat from the start.
        let s = Segment::of("x".into(), None, points(&[100.0; 6]));
        assert_eq!(s.settled_s, Some(0.0));
        assert_eq!(
            Segment::of("x".into(), None, points(&[1.0; 4])).settled_s,
            None
        );
    }

    #[test]
    fn continuous_io_is_summarised_every_five_seconds() {
        let seconds: Vec<SecondPoint> = (0..12)
            .map(|t| {
                let p = serde_json::json!({"t": t, "ios": 10, "iops": t as f64, "mbps": 1.0});
                serde_json::from_value(p).unwrap()
            })
            .collect();
        let s = Segment::continuous("c".into(), 60.0, &seconds);
        let t: Vec<f64> = s.points.iter().map(|p| p.t_s).collect();
        assert_eq!(t, [60.0, 65.0, 70.0]);
        assert_eq!(s.points[0].iops, 2.0);
        assert_eq!(s.points[2].iops, 10.5);
    }
}
