//! What a result says on a terminal: its answer in a few words (the headline) and its rows
//! in the summary table, decided by its figures' kind. A test whose results are of a new kind
//! adds its arm to [`TestResult::console`]; the CLI only renders (aligns and formats) them.
//!
//! The summary table's columns are shared by every result: IOPS, MB/s, latency (mean, p99,
//! max) and a name. A result's first row is its own (named by its label); the rows under it
//! are its parts (a transfer size, a queue depth, a direction, a pass), so that every figure a
//! row shows is the one its name says.

use engine::measure::{DirSummary, LatencyStats, Summary};
use engine::units::{self, format_size};

use crate::analysis::Analysis;
use crate::fill_curve::FillAnalysis;
use crate::methodology::idle_wake::WakeAnalysis;
use crate::methodology::power::PowerAnalysis;
use crate::methodology::transfer_sweep::SweepAnalysis;
use crate::methodology::trim::TrimAnalysis;
use crate::replay::ReplayAnalysis;
use crate::result::{Parameters, TestResult};
use crate::steps::StepsAnalysis;

/// A result on the terminal.
#[derive(Clone, Debug, PartialEq)]
pub struct Console {
    /// The test's answer in a few words: what the reviews charted for it.
    pub headline: String,
    /// The result's own row (the CLI names it by the result's label).
    pub figures: Row,
    /// Rows of its parts under it, each named.
    pub parts: Vec<Row>,
    /// What the test says under its rows (a verdict, where its peak is).
    pub notes: Vec<String>,
}

/// Figures in the summary table's columns; `None` where the column does not apply.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Row {
    /// A part's name (a transfer size, "reads"); empty for the result's own row.
    pub name: String,
    pub iops: Option<f64>,
    pub mbps: Option<f64>,
    pub mean_us: Option<f64>,
    pub p99_us: Option<f64>,
    pub max_us: Option<f64>,
}

impl Row {
    fn named(name: impl Into<String>) -> Row {
        Row {
            name: name.into(),
            ..Row::default()
        }
    }

    /// Throughput over a run's time and one direction's latencies.
    fn of(name: impl Into<String>, s: &Summary, latency: Option<&LatencyStats>) -> Row {
        Row {
            iops: Some(s.iops),
            mbps: Some(s.mbps),
            ..Row::named(name).latency(latency)
        }
    }

    fn direction(name: &str, d: &DirSummary) -> Row {
        Row {
            iops: Some(d.iops),
            mbps: Some(d.mbps),
            ..Row::named(name).latency(Some(&d.latency_us))
        }
    }

    fn latency(self, l: Option<&LatencyStats>) -> Row {
        Row {
            mean_us: l.map(|l| l.mean),
            p99_us: l.map(|l| l.p99),
            max_us: l.map(|l| l.max),
            ..self
        }
    }
}

/// The one direction a run has (or, of a mixed one, none: its parts carry each's).
fn only_direction(s: &Summary) -> Option<&DirSummary> {
    match (&s.read, &s.write) {
        (Some(d), None) | (None, Some(d)) => Some(d),
        _ => None,
    }
}

/// A mixed run's directions as parts, each with its own latencies.
fn directions(s: &Summary) -> Vec<Row> {
    match (&s.read, &s.write) {
        (Some(r), Some(w)) => vec![Row::direction("reads", r), Row::direction("writes", w)],
        _ => Vec::new(),
    }
}

impl TestResult {
    /// What this result says on a terminal.
    pub fn console(&self) -> Console {
        match &self.analysis {
            Analysis::TransferSweep(a) => a.console(self),
            Analysis::Fill(a) => a.console(self),
            Analysis::Steps(a) => a.console(self),
            Analysis::Replay(a) => a.console(),
            Analysis::Trim(a) => a.console(self),
            Analysis::Wake(a) => a.console(self),
            Analysis::Power(a) => a.console(self),
            // The CLI adds these kinds' own lines (its `output.rs`) until they have theirs here.
            Analysis::Consistency(_)
            | Analysis::SteadyState(_)
            | Analysis::Pts(_)
            | Analysis::Recovery(_)
            | Analysis::Saturation(_)
            | Analysis::Verify(_)
            | Analysis::None => summary(self),
        }
    }
}

/// One workload's figures: its throughput, its one direction's latencies (a mixed run's
/// directions each in a row of its own), and what a duty cycle's bursts ran at.
fn summary(r: &TestResult) -> Console {
    let s = &r.summary;
    let mut headline = format!("{:.0} IOPS, {} MB/s", s.iops, units::mbps(s.mbps));
    let mut parts = directions(s);
    let duty = match &r.parameters {
        Parameters::Workload(w) => w.shape.duty_cycle,
        _ => None,
    };
    if let Some(duty) = duty.filter(|_| s.busy_time_s > 0.0) {
        // Over the time IOs were in flight: the speed within the bursts, not the average.
        let within = Row {
            iops: Some(s.ios as f64 / s.busy_time_s),
            mbps: Some(s.bytes as f64 / s.busy_time_s / 1e6),
            ..Row::named(format!(
                "within the bursts ({} each, {}% busy)",
                format_size(duty.burst_bytes),
                duty.busy_pct
            ))
        };
        headline = format!(
            "{} MB/s within the bursts, {} MB/s on average",
            units::mbps(within.mbps.unwrap_or_default()),
            units::mbps(s.mbps)
        );
        parts.insert(0, within);
    }
    Console {
        headline,
        figures: Row::of("", s, only_direction(s).map(|d| &d.latency_us)),
        parts,
        notes: Vec::new(),
    }
}

impl SweepAnalysis {
    /// A row per transfer size; the peak and where the speed reaches 90% of it.
    fn console(&self, r: &TestResult) -> Console {
        let parts = (r.points.iter())
            .map(|p| {
                let s = &p.summary;
                Row::of(
                    format_size(p.x as u64),
                    s,
                    only_direction(s).map(|d| &d.latency_us),
                )
            })
            .collect();
        let peak = format!(
            "peak {} MB/s at {}",
            units::mbps(self.peak_mbps),
            format_size(self.peak_at_bytes)
        );
        let mut note = peak.clone();
        if let Some(from) = self.reaches_90pct_at_bytes {
            note += &format!("; 90% of peak from {}", format_size(from));
        }
        Console {
            headline: peak,
            figures: Row::default(),
            parts,
            notes: vec![note],
        }
    }
}

impl FillAnalysis {
    /// The write cache found (its size and speed) and the speed after it.
    fn console(&self, r: &TestResult) -> Console {
        let after = |name: &str| Row {
            mbps: Some(self.after_cache_mbps),
            ..Row::named(name)
        };
        let (headline, parts) = match self.cache {
            Some(c) => {
                let gb = format!("{:.1} GB", c.bytes as f64 / 1e9);
                let within = Row {
                    mbps: Some(c.mbps),
                    ..Row::named(format!("in the write cache (its first {gb})"))
                };
                (
                    format!(
                        "{gb} cache at {} MB/s, then {} MB/s",
                        units::mbps(c.mbps),
                        units::mbps(self.after_cache_mbps)
                    ),
                    vec![within, after("after it (median)")],
                )
            }
            None => match crate::fill_curve::stopped_short(r) {
                Some((written, span)) => (
                    format!(
                        "no cache in the {} written (of {}): {} MB/s",
                        format_size(written),
                        format_size(span),
                        units::mbps(self.after_cache_mbps)
                    ),
                    vec![after("no write cache found in the part written (median)")],
                ),
                None => (
                    format!("no cache: {} MB/s", units::mbps(self.after_cache_mbps)),
                    vec![after("no write cache found (median)")],
                ),
            },
        };
        Console {
            headline,
            figures: Row::of(
                "",
                &r.summary,
                only_direction(&r.summary).map(|d| &d.latency_us),
            ),
            parts,
            notes: Vec::new(),
        }
    }
}

impl StepsAnalysis {
    /// The burst, then a row per step; the reviews' figure (a mean over steps) in the headline.
    fn console(&self, r: &TestResult) -> Console {
        let mut parts = Vec::new();
        if let Some(b) = &self.burst {
            parts.push(Row {
                iops: Some(b.iops),
                mbps: Some(b.mbps),
                ..Row::named(format!(
                    "bursts of {} at {}% busy (while busy)",
                    format_size(b.burst_bytes),
                    b.busy_pct
                ))
                .latency(only_direction(&b.summary).map(|d| &d.latency_us))
            });
        }
        for p in &r.points {
            let s = &p.summary;
            parts.push(Row::of(
                self.axis.step(p.x),
                s,
                only_direction(s).map(|d| &d.latency_us),
            ));
        }
        let over = match self.axis {
            crate::steps::Axis::QueueDepth => "QD1-QD4",
            crate::steps::Axis::ReadShare => "every share",
        };
        Console {
            headline: format!("mean over {over} {} MB/s", units::mbps(self.headline_mbps)),
            figures: Row::default(),
            parts,
            notes: Vec::new(),
        }
    }
}

impl ReplayAnalysis {
    /// The data rate over busy time (the reviews' figure), and each direction's latencies: a
    /// replay's throughput over wall time would be a second, different "MB/s".
    fn console(&self) -> Console {
        let m = &self.metrics;
        let rate = m.data_rate_text();
        let dirs = [
            ("reads", &m.read_latency_us),
            ("writes", &m.write_latency_us),
        ];
        let parts = (dirs.into_iter())
            .filter_map(|(name, l)| l.as_ref().map(|l| Row::named(name).latency(Some(l))))
            .collect();
        Console {
            notes: vec![format!(
                "{rate}; disk busy {:.1} s; average service time {:.0} us",
                m.busy_time_s, m.avg_service_time_us
            )],
            headline: rate,
            figures: Row::default(),
            parts,
        }
    }
}

impl TrimAnalysis {
    /// The read speed of each pass, and the verdict.
    fn console(&self, _: &TestResult) -> Console {
        let pass = |name: &str, p: &crate::methodology::trim::Pass| Row {
            mbps: Some(p.mbps),
            ..Row::named(name)
        };
        let mut notes = vec![self.verdict.clone()];
        if let Some(t) = &self.trimmed_reads {
            notes.push(format!("trimmed reads: {}", t.verdict));
        }
        Console {
            headline: format!(
                "clean {} MB/s, dirty {}, after TRIM {}",
                units::mbps(self.clean.mbps),
                units::mbps(self.dirty.mbps),
                units::mbps(self.after_trim.mbps)
            ),
            figures: Row::default(),
            parts: vec![
                pass("clean", &self.clean),
                pass("dirty", &self.dirty),
                pass("after TRIM", &self.after_trim),
            ],
            notes,
        }
    }
}

impl WakeAnalysis {
    /// The reads after a rest against the reads awake.
    fn console(&self, _: &TestResult) -> Console {
        let woken = Row {
            mean_us: Some(self.wake_mean_us),
            max_us: Some(self.wake_max_us),
            ..Row::named(format!("after {} s of rest", self.rest_s))
        };
        let awake = Row {
            mean_us: Some(self.awake_mean_us),
            p99_us: Some(self.awake_p99_us),
            ..Row::named("awake, back to back")
        };
        Console {
            headline: format!(
                "{:.1} us after a rest, {:.1} us awake",
                self.wake_mean_us, self.awake_mean_us
            ),
            figures: Row::default(),
            parts: vec![woken, awake],
            notes: vec![format!(
                "{} wake-ups counted",
                self.wakeups.map_or("no".into(), |n| n.to_string())
            )],
        }
    }
}

impl PowerAnalysis {
    /// The mean power; the workload's figures when there was one (the CLI prints the power's
    /// line, as for every result measured with a meter).
    fn console(&self, r: &TestResult) -> Console {
        let mut c = summary(r);
        c.headline = match self.mean_w {
            Some(w) => units::watts(w),
            None => "power missing".into(),
        };
        if r.summary.ios == 0 {
            c.figures = Row::default();
        }
        c
    }
}
