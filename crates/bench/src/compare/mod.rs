//! Comparisons across drives: the reviews' tables, one per test, one column per drive,
//! with the best value of each row marked. `bench compare` prints them; the web page draws
//! them.
//!
//! The tables' data is here; `select` finds the drives a command names, `text` prints the
//! tables for a terminal.

use crate::db::{DriveRow, StoredResult};
use crate::power;
use suite::methodology::Kind;
use suite::pts::Figure;
use suite::result::TestResult;
use suite::TestId;

mod deviating;
mod select;
#[cfg(test)]
mod tests;
mod text;

pub use deviating::{comparable, deviates, left_out_note, Deviating};
pub use select::{select_drives, SelectError};
pub use text::{format_value, render_text, usd, MAX_PRICE_USD};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Better {
    Higher,
    Lower,
}

/// One row of a comparison: a figure of every drive.
#[derive(Clone, Debug)]
pub struct Metric {
    pub name: &'static str,
    pub unit: &'static str,
    pub better: Better,
    /// One per drive, in the drives' order; None where the drive has no such result.
    pub values: Vec<Option<f64>>,
}

impl Metric {
    /// The drive with the best value, when at least two drives have one and no other drive
    /// ties it.
    pub fn best(&self) -> Option<usize> {
        let have: Vec<(usize, f64)> = self
            .values
            .iter()
            .enumerate()
            .filter_map(|(i, v)| v.filter(|v| v.is_finite()).map(|v| (i, v)))
            .collect();
        if have.len() < 2 {
            return None;
        }
        let pick = |a: &(usize, f64), b: &(usize, f64)| match self.better {
            Better::Higher => a.1.total_cmp(&b.1),
            Better::Lower => b.1.total_cmp(&a.1),
        };
        let best = have.iter().max_by(|a, b| pick(a, b))?;
        let ties = have.iter().filter(|v| v.1 == best.1).count();
        (ties == 1).then_some(best.0)
    }
}

/// The comparison of one test (one result stem, e.g. "consistency-spare-25").
#[derive(Clone, Debug)]
pub struct Table {
    pub stem: String,
    pub test: TestId,
    pub title: String,
    pub metrics: Vec<Metric>,
    /// The stored result behind each drive's column.
    pub result_ids: Vec<Option<i64>>,
    /// What a reader must know about the figures, printed under the title: a power figure
    /// that was modelled or estimated rather than measured, or why one is missing.
    pub notes: Vec<String>,
}

/// A drive and the results it is compared with (its newest of each test).
pub type DriveResults = (DriveRow, Vec<StoredResult>);

/// The tables for the drives, in the order tests were first measured; only tests whose
/// name or stem is `only`, when given.
pub fn tables(drives: &[DriveResults], only: Option<&str>) -> Vec<Table> {
    let mut stems: Vec<(String, TestId, String)> = Vec::new();
    for (_, results) in drives {
        for s in results {
            let r = &s.result;
            let stem = r.file_stem();
            let wanted = only.is_none_or(|o| o == r.test.name() || o == stem);
            if wanted && !stems.iter().any(|(st, _, _)| *st == stem) {
                stems.push((stem, r.test, r.label.clone()));
            }
        }
    }
    stems
        .into_iter()
        .map(|(stem, test, title)| {
            let found: Vec<Option<&StoredResult>> = drives
                .iter()
                .map(|(_, rs)| rs.iter().find(|s| s.result.file_stem() == stem))
                .collect();
            let names = metrics_of(test.kind());
            let metrics = names
                .iter()
                .map(|&(name, unit, better, get)| Metric {
                    name,
                    unit,
                    better,
                    values: found
                        .iter()
                        .map(|s| s.and_then(|s| get(&s.result)))
                        .collect(),
                })
                .filter(|m| m.values.iter().any(Option::is_some))
                .collect();
            let notes = drives
                .iter()
                .zip(&found)
                .filter_map(|((d, _), s)| Some((d, &(*s)?.result)))
                .flat_map(|(d, r)| {
                    [power_note(r), steady_state_note(r), deviation_note(r)]
                        .into_iter()
                        .flatten()
                        .map(move |note| format!("{}: {note}", d.name))
                })
                .collect();
            Table {
                stem,
                test,
                title,
                metrics,
                result_ids: found.iter().map(|s| s.map(|s| s.id)).collect(),
                notes,
            }
        })
        .collect()
}

type Getter = fn(&TestResult) -> Option<f64>;

/// What a power test's figures are when they are not a measurement, or why they are
/// missing.
fn power_note(r: &TestResult) -> Option<String> {
    use engine::power::Basis;
    if !power::is_power_test(r.test) {
        return None;
    }
    let reading = power::Reading::of(r);
    match (reading.mean_w, reading.basis) {
        (None, _) => Some(format!(
            "power missing ({})",
            reading.missing.as_deref().unwrap_or("no reading")
        )),
        (Some(_), Some(b @ (Basis::Model | Basis::Estimate))) => Some(b.sentence().to_string()),
        _ => None,
    }
}

/// A consistency or steady-state result whose figures are not a steady state: what they are
/// instead (their steady-state rows are blank).
fn steady_state_note(r: &TestResult) -> Option<String> {
    match (r.consistency(), r.steady_state()) {
        (Some(a), _) if !a.reached => Some(a.window_name()),
        (_, Some(a)) if !a.reached => Some(a.verdict()),
        _ => None,
    }
}

/// How a result shown in a comparison deviates from the methodology.
fn deviation_note(r: &TestResult) -> Option<String> {
    deviates(r).then(|| format!("(deviates) {}", r.deviations.join("; ")))
}

/// The consistency window's figures, when they are the methodology's steady state.
fn steady(r: &TestResult) -> Option<&suite::SeriesStats> {
    let a = r.consistency()?;
    a.steady_state.as_ref().filter(|_| a.reached)
}

fn mean_w(r: &TestResult) -> Option<f64> {
    power::Reading::of(r).mean_w
}

fn analysis_w(r: &TestResult, f: fn(&power::PowerAnalysis) -> Option<f64>) -> Option<f64> {
    f(power::analysis(r)?)
}

/// Which figures a kind of results is compared on, as the reviews charted them.
fn metrics_of(kind: Kind) -> Vec<(&'static str, &'static str, Better, Getter)> {
    use Better::{Higher, Lower};
    use Kind::*;
    match kind {
        Consistency => vec![
            ("steady-state mean", "IOPS", Higher, |r| {
                steady(r).map(|s| s.mean)
            }),
            ("steady-state median", "IOPS", Higher, |r| {
                steady(r).map(|s| s.median)
            }),
            ("steady-state min", "IOPS", Higher, |r| {
                steady(r).map(|s| s.min)
            }),
            ("steady-state p1", "IOPS", Higher, |r| {
                steady(r).map(|s| s.p1)
            }),
            ("steady-state p99", "IOPS", Higher, |r| {
                steady(r).map(|s| s.p99)
            }),
            ("steady-state stddev", "IOPS", Lower, |r| {
                steady(r).map(|s| s.stddev)
            }),
            ("drop at", "s", Higher, |r| {
                r.consistency()?.drop_s.map(|t| t as f64)
            }),
            ("write amplification (steady)", "x", Lower, |r| {
                r.write_amplification.and_then(|w| w.steady_state)
            }),
        ],
        Replay => vec![
            ("data rate", "MB/s", Higher, |r| {
                Some(r.replay()?.metrics.data_rate_mbps)
            }),
            ("read data rate", "MB/s", Higher, |r| {
                r.replay()?.metrics.read_rate_mbps
            }),
            ("write data rate", "MB/s", Higher, |r| {
                r.replay()?.metrics.write_rate_mbps
            }),
            ("disk busy time", "s", Lower, |r| {
                Some(r.replay()?.metrics.busy_time_s)
            }),
            ("read busy time", "s", Lower, |r| {
                r.replay()?.metrics.read_busy_time_s
            }),
            ("write busy time", "s", Lower, |r| {
                r.replay()?.metrics.write_busy_time_s
            }),
            ("average service time", "us", Lower, |r| {
                Some(r.replay()?.metrics.avg_service_time_us)
            }),
            ("p99 read latency", "us", Lower, |r| {
                Some(r.summary.read.as_ref()?.latency_us.p99)
            }),
            ("p99 write latency", "us", Lower, |r| {
                Some(r.summary.write.as_ref()?.latency_us.p99)
            }),
            ("energy", "J", Lower, energy_j),
        ],
        Trim => vec![
            ("clean", "MB/s", Higher, |r| Some(r.trim()?.clean.mbps)),
            ("dirty", "MB/s", Higher, |r| Some(r.trim()?.dirty.mbps)),
            ("after TRIM", "MB/s", Higher, |r| {
                Some(r.trim()?.after_trim.mbps)
            }),
        ],
        TransferSweep => vec![
            ("peak", "MB/s", Higher, |r| {
                Some(r.transfer_sweep()?.peak_mbps)
            }),
            ("90% of peak from", "size", Lower, |r| {
                r.transfer_sweep()?.reaches_90pct_at_bytes.map(|b| b as f64)
            }),
        ],
        SteadyState => vec![("steady state", "IOPS", Higher, |r| {
            let a = r.steady_state()?;
            a.reached.then_some(a.steady_iops)
        })],
        // The reviews' power charts: lowest best; slumber in milliwatts.
        SlumberPower => vec![
            ("mean power", "mW", Lower, |r| mean_w(r).map(|w| w * 1e3)),
            ("min power", "mW", Lower, |r| {
                power::Reading::of(r).min_w.map(|w| w * 1e3)
            }),
            ("max power", "mW", Lower, |r| {
                power::Reading::of(r).max_w.map(|w| w * 1e3)
            }),
        ],
        IdlePower | LoadPower => vec![
            ("mean power", "W", Lower, mean_w),
            ("min power", "W", Lower, |r| power::Reading::of(r).min_w),
            ("max power", "W", Lower, |r| power::Reading::of(r).max_w),
            ("performance per watt", "MB/s/W", Higher, |r| {
                analysis_w(r, |a| a.mbps_per_w)
            }),
            ("performance per watt", "IOPS/W", Higher, |r| {
                analysis_w(r, |a| a.iops_per_w)
            }),
            ("first 30 s", "W", Lower, |r| {
                analysis_w(r, |a| a.first_30s_w)
            }),
            ("after 30 s", "W", Lower, |r| {
                analysis_w(r, |a| a.after_30s_w)
            }),
            ("tail (60 s after the writes)", "W", Lower, |r| {
                analysis_w(r, |a| a.tail_w)
            }),
        ],
        Saturation => vec![
            ("first round", "IOPS", Higher, |r| {
                Some(r.saturation()?.first()?.iops)
            }),
            ("last round", "IOPS", Higher, |r| {
                Some(r.saturation()?.last()?.iops)
            }),
        ],
        Fill => vec![
            ("SLC cache", "GB", Higher, |r| {
                Some(r.fill()?.cache?.bytes as f64 / 1e9)
            }),
            ("after the cache", "MB/s", Higher, |r| {
                Some(r.fill()?.after_cache_mbps)
            }),
            ("whole fill", "MB/s", Higher, |r| Some(r.summary.mbps)),
        ],
        // A PTS test: its tracking variable over the measurement window, in its own unit
        // (the other two are blank), and how long it took to get there.
        Pts => vec![
            ("tracking variable, steady", "IOPS", Higher, |r| {
                pts_tracked(r, Figure::Iops)
            }),
            ("tracking variable, steady", "MB/s", Higher, |r| {
                pts_tracked(r, Figure::Mbps)
            }),
            ("tracking variable, steady", "us", Lower, |r| {
                pts_tracked(r, Figure::MeanLatency)
            }),
            ("rounds to steady state", "rounds", Lower, |r| {
                let s = r.pts()?.sequences.first()?;
                s.reached.then_some(s.rounds as f64)
            }),
        ],
        // A recovery test: the steady state it starts from, its bursts after idle time, and
        // its slowest change.
        Recovery => vec![
            ("steady state before", "IOPS", Higher, |r| {
                r.recovery()?.baseline_iops
            }),
            ("bursts after idle, mean", "IOPS", Higher, |r| {
                let bursts: Vec<f64> = (r.recovery()?.segments.iter())
                    .filter(|s| s.idle_s.is_some())
                    .map(|s| s.iops)
                    .collect();
                (!bursts.is_empty()).then(|| bursts.iter().sum::<f64>() / bursts.len() as f64)
            }),
            ("slowest to settle", "s", Lower, |r| {
                (r.recovery()?.segments.iter())
                    .filter_map(|s| s.settled_s)
                    .reduce(f64::max)
            }),
        ],
        // The 2018-2021 reviews' stepped tests: the bursts, their summary figure, the peak
        // and the energy per byte.
        Steps => vec![
            ("burst", "MB/s", Higher, |r| {
                Some(r.steps()?.burst.as_ref()?.mbps)
            }),
            ("summary (QD1-4 or every mix)", "MB/s", Higher, |r| {
                Some(r.steps()?.headline_mbps)
            }),
            ("peak", "MB/s", Higher, |r| Some(r.steps()?.peak_mbps)),
            ("efficiency", "MB/J", Higher, mb_per_joule),
        ],
        // Idle wake-up: the reads after a rest, and awake.
        Wake => vec![
            ("after rest, mean", "us", Lower, |r| {
                Some(r.wake()?.wake_mean_us)
            }),
            ("after rest, max", "us", Lower, |r| {
                Some(r.wake()?.wake_max_us)
            }),
            ("awake, mean", "us", Lower, |r| {
                Some(r.wake()?.awake_mean_us)
            }),
        ],
        // The four corners' rows, the sequential tests, custom and verify: throughput and
        // latency.
        Summary | Verify => vec![
            ("throughput", "MB/s", Higher, |r| Some(r.summary.mbps)),
            ("IOPS", "IOPS", Higher, |r| Some(r.summary.iops)),
            ("mean latency", "us", Lower, |r| latency(r).map(|l| l.mean)),
            ("p99 latency", "us", Lower, |r| latency(r).map(|l| l.p99)),
        ],
    }
}

/// The energy a result's measured phase used: modelled by the drive, or metered.
fn energy_j(r: &TestResult) -> Option<f64> {
    let metered = || {
        power::Reading::of(r)
            .mean_w
            .map(|w| w * r.summary.duration_s)
    };
    r.summary.energy_j.or_else(metered)
}

/// Megabytes moved per joule over a stepped test's steps (MB/s per watt), where the drive
/// models its energy.
pub fn mb_per_joule(r: &TestResult) -> Option<f64> {
    let (bytes, joules) = (r.points.iter()).fold((0.0, 0.0), |(b, j), p| {
        (
            b + p.summary.bytes as f64,
            j + p.summary.energy_j.unwrap_or(f64::NAN),
        )
    });
    (joules > 0.0).then(|| bytes / 1e6 / joules)
}

/// The first sequence's tracking variable over the window, when it is a `figure`.
fn pts_tracked(r: &TestResult, figure: Figure) -> Option<f64> {
    let s = r.pts()?.sequences.first()?;
    (s.figure == figure && s.rounds > 0).then(|| s.tracked())
}

fn latency(r: &TestResult) -> Option<&engine::measure::LatencyStats> {
    let s = &r.summary;
    s.write.as_ref().or(s.read.as_ref()).map(|d| &d.latency_us)
}
