//! `run custom --latency-target 'p99<1ms'`: the highest queue depth at which a latency
//! percentile stays under a limit, the question fio's `latency_target` answers. Depths are
//! tried doubling from 1 up to `--qd`, then the gap between the last that met the target and
//! the first that did not is halved until it closes. The result is the run at the depth
//! found (or at depth 1, marked as missing the target); every depth tried is in its notes.

use std::fmt;
use std::str::FromStr;

use engine::measure::Summary;

use crate::result::TestResult;
use crate::{ChoiceError, Result};

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LatencyTarget {
    pub percentile: Percentile,
    pub limit_us: f64,
}

/// The percentiles a run's summary keeps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Percentile {
    P50,
    P90,
    P99,
    P99_9,
}

impl Percentile {
    fn name(self) -> &'static str {
        match self {
            Percentile::P50 => "p50",
            Percentile::P90 => "p90",
            Percentile::P99 => "p99",
            Percentile::P99_9 => "p99.9",
        }
    }
}

impl LatencyTarget {
    /// The run's latency at the percentile, in µs: the worse of reads and writes, as every
    /// IO counts against the target.
    pub fn latency_us(&self, s: &Summary) -> Option<f64> {
        [&s.read, &s.write]
            .into_iter()
            .flatten()
            .map(|d| match self.percentile {
                Percentile::P50 => d.latency_us.p50,
                Percentile::P90 => d.latency_us.p90,
                Percentile::P99 => d.latency_us.p99,
                Percentile::P99_9 => d.latency_us.p999,
            })
            .reduce(f64::max)
    }

    fn met(&self, r: &TestResult) -> bool {
        r.complete
            && self
                .latency_us(&r.summary)
                .is_some_and(|l| l <= self.limit_us)
    }

    /// Try depths up to `max_qd` with `probe` (a run at that depth, its span filled only
    /// before the first); the result at the highest depth that met the target.
    pub fn search(
        &self,
        max_qd: u32,
        mut probe: impl FnMut(u32, bool) -> Result<TestResult>,
    ) -> Result<TestResult> {
        let mut tried: Vec<(u32, TestResult)> = Vec::new();
        let mut run = |qd: u32, tried: &mut Vec<(u32, TestResult)>| -> Result<bool> {
            let r = probe(qd, tried.is_empty())?;
            let met = self.met(&r);
            let stopped = r.stopped.is_some();
            tried.push((qd, r));
            // An interrupted or failed run ends the search with what it has.
            Ok(met && !stopped)
        };
        let (mut good, mut bad) = (0u32, None);
        let mut qd = 1;
        loop {
            if run(qd, &mut tried)? {
                good = qd;
                if qd >= max_qd {
                    break;
                }
                qd = (qd * 2).min(max_qd);
            } else {
                bad = Some(qd);
                break;
            }
        }
        if let (Some(mut hi), true) = (bad, good > 0) {
            while hi - good > 1 && tried.last().is_some_and(|(_, r)| r.stopped.is_none()) {
                let mid = good + (hi - good) / 2;
                if run(mid, &mut tried)? {
                    good = mid;
                } else {
                    hi = mid;
                }
            }
        }
        let notes: Vec<String> = tried
            .iter()
            .map(|(qd, r)| match self.latency_us(&r.summary) {
                Some(l) => format!(
                    "QD{qd}: {} {:.1} us, {:.0} IOPS ({})",
                    self.percentile.name(),
                    l,
                    r.summary.iops,
                    if self.met(r) { "met" } else { "missed" }
                ),
                None => format!("QD{qd}: no IO completed"),
            })
            .collect();
        let chosen = if good > 0 { good } else { 1 };
        let i = tried
            .iter()
            .rposition(|(qd, _)| *qd == chosen)
            .expect("depth 1 is always tried");
        let (_, mut result) = tried.swap_remove(i);
        result.label = match good {
            0 => format!("{} (no depth meets {self})", result.label),
            _ => format!("{} (the highest depth meeting {self})", result.label),
        };
        result.adaptations.push(format!(
            "latency target {self}: depths tried, in order: {}",
            notes.join("; ")
        ));
        Ok(result)
    }
}

impl fmt::Display for LatencyTarget {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}<{}us", self.percentile.name(), self.limit_us)
    }
}

impl FromStr for LatencyTarget {
    type Err = ChoiceError;

    fn from_str(s: &str) -> std::result::Result<LatencyTarget, ChoiceError> {
        const SYNTAX: &str = "write a latency target as PERCENTILE<TIME, e.g. 'p99<1ms' or \
                              'p99.9<500us' (p50, p90, p99 or p99.9; us, ms or s)";
        let bad = |given: &str, problem: &str| ChoiceError::Malformed {
            given: given.into(),
            problem: problem.into(),
            usage: SYNTAX,
        };
        let (pct, limit) = s
            .split_once('<')
            .ok_or_else(|| bad(s, "is not a latency target"))?;
        let percentile = match pct.trim() {
            "p50" => Percentile::P50,
            "p90" => Percentile::P90,
            "p99" => Percentile::P99,
            "p99.9" => Percentile::P99_9,
            other => return Err(bad(other, "is not a percentile")),
        };
        let limit = limit.trim();
        let split = limit
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .unwrap_or(limit.len());
        let (number, unit) = limit.split_at(split);
        let scale = match unit.trim() {
            "us" | "µs" => 1.0,
            "ms" => 1e3,
            "s" => 1e6,
            _ => return Err(bad(limit, "is not a time")),
        };
        let value: f64 = number
            .parse()
            .ok()
            .filter(|v: &f64| *v > 0.0 && v.is_finite())
            .ok_or_else(|| bad(limit, "is not a positive time"))?;
        Ok(LatencyTarget {
            percentile,
            limit_us: value * scale,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn targets_parse_and_say_what_to_write() {
        let t: LatencyTarget = "p99<1ms".parse().unwrap();
        assert_eq!((t.percentile, t.limit_us), (Percentile::P99, 1000.0));
        let t: LatencyTarget = "p99.9 < 500us".parse().unwrap();
        assert_eq!((t.percentile, t.limit_us), (Percentile::P99_9, 500.0));
        for bad in ["p99", "p42<1ms", "p99<1 parsec", "p99<0ms"] {
            assert!(
                bad.parse::<LatencyTarget>()
                    .unwrap_err()
                    .to_string()
                    .contains("p99<1ms"),
                "{bad}"
            );
        }
    }
}
