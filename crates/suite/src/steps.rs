//! The figures of a workload stepped along one axis, as the 2018-2021 reviews charted their
//! random and sequential tests: a point per queue depth (after a burst at QD1) or per read
//! share. The points themselves are the result's curve (`points`, x the step).

use serde::{Deserialize, Serialize};

use engine::driver::Outcome;
use engine::measure::{SecondPoint, Summary};
use engine::pattern::DataKind;
use engine::shape::Shape;
use engine::units::format_size;
use engine::workload::{Access, Limit, Workload};
use engine::Device;

use crate::analysis::Analysis;
use crate::context::Context;
use crate::drive_state::{DriveState, Prepared};
use crate::methodology::{Defaults, TestId};
use crate::params::{ns, Overrides, DEFAULT_SEED};
use crate::result::{append_seconds, CurvePoint, Report, TestResult};
use crate::{Result, SuiteError};

/// What the steps are.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Axis {
    /// Queue depths, doubling from 1.
    QueueDepth,
    /// The share of reads, in percent.
    ReadShare,
}

impl Axis {
    /// The axis' title on a chart.
    pub fn title(self) -> &'static str {
        match self {
            Axis::QueueDepth => "queue depth",
            Axis::ReadShare => "reads (%)",
        }
    }

    /// A step's name, e.g. "QD4" or "70% reads".
    pub fn step(self, x: f64) -> String {
        match self {
            Axis::QueueDepth => format!("QD{x}"),
            Axis::ReadShare => format!("{x}% reads"),
        }
    }
}

/// Short bursts at QD1 with idle between (a duty cycle): the speed a light desktop load sees,
/// before any sustained load has used up the drive's cache.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Burst {
    pub burst_bytes: u64,
    pub busy_pct: f64,
    /// Bytes over the time IOs were in flight: the speed within the bursts.
    pub mbps: f64,
    pub iops: f64,
    pub summary: Summary,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StepsAnalysis {
    pub axis: Axis,
    pub state: DriveState,
    /// The region the steps addressed, from LBA 0.
    pub span_bytes: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub burst: Option<Burst>,
    /// The reviews' summary figure: the mean MB/s of QD1, QD2 and QD4 (a client drive's
    /// depths) for a queue-depth sweep; of every read share for a mixed one.
    pub headline_mbps: f64,
    /// The highest MB/s of any step.
    pub peak_mbps: f64,
}

impl StepsAnalysis {
    /// The steps' headline and peak from their (x, MB/s).
    pub fn figures(axis: Axis, steps: &[(f64, f64)]) -> (f64, f64) {
        let counted: Vec<f64> = steps
            .iter()
            .filter(|(x, _)| axis == Axis::ReadShare || *x <= 4.0)
            .map(|s| s.1)
            .collect();
        let headline = counted.iter().sum::<f64>() / counted.len().max(1) as f64;
        let peak = steps.iter().map(|s| s.1).fold(0.0, f64::max);
        (headline, peak)
    }
}

/// Each step's bound besides its time (`--bytes` changes it).
pub const STEP_BYTES: u64 = 32 << 30;

/// What a stepped test's steps share: the drive brought to the state `--state` asks for,
/// and the access, block size, data and seed of every step.
pub(crate) struct Ground {
    pub defaults: Defaults,
    pub state: DriveState,
    prepared: Prepared,
    access: Access,
    block_bytes: u32,
    data: DataKind,
    seed: u64,
}

impl Ground {
    /// Bring the drive to its state (`validate` has refused what the test fixes itself: its
    /// depths or depth, direction and region).
    pub fn prepare(
        id: TestId,
        access: Access,
        ctx: &mut Context,
        dev: &mut dyn Device,
        o: &Overrides,
    ) -> Result<Ground> {
        let defaults = crate::methodology::get(id)?
            .defaults
            .expect("a stepped test has defaults");
        let block_bytes = o.block_bytes.unwrap_or(defaults.block_bytes);
        let data = o.data.unwrap_or(DataKind::Incompressible);
        let seed = o.seed.unwrap_or(DEFAULT_SEED);
        let state = o.state.unwrap_or_default();
        let prepared = state.prepare(ctx, dev, block_bytes, data, seed)?;
        Ok(Ground {
            defaults,
            state,
            prepared,
            access,
            block_bytes,
            data,
            seed,
        })
    }

    /// The seconds of each step (`--duration`).
    pub fn step_s(&self, o: &Overrides) -> f64 {
        o.duration_s.unwrap_or(self.defaults.duration_s)
    }

    /// A step's bound: its seconds or [`STEP_BYTES`], whichever comes first.
    pub fn step_limit(&self, o: &Overrides) -> Limit {
        Limit {
            bytes: Some(o.bytes.unwrap_or(STEP_BYTES)),
            duration_ns: Some(ns(self.step_s(o))),
            ios: o.ios,
        }
    }

    /// One step's workload over the state's region.
    pub fn workload(&self, read_pct: u8, qd: u32, limit: Limit, shape: Shape) -> Workload {
        Workload {
            access: self.access,
            block_bytes: self.block_bytes,
            offset_bytes: 0,
            span_bytes: self.prepared.span_bytes,
            read_pct,
            op: None,
            data: self.data,
            qd,
            threads: 1,
            limit,
            seed: self.seed,
            shape,
        }
    }

    /// The region the steps address.
    pub fn span_bytes(&self) -> u64 {
        self.prepared.span_bytes
    }

    /// The test's report, "4 KiB random `what`, full drive, incompressible", a variant per
    /// state, with what the user changed.
    pub fn report(&self, id: TestId, what: &str, o: &Overrides) -> Report {
        let access = match self.access {
            Access::Sequential => "sequential",
            _ => "random",
        };
        let mut report = Report::new(
            id,
            format!(
                "{} {access} {what}, {} drive, {}",
                format_size(self.block_bytes.into()),
                self.state,
                self.data.label()
            ),
        );
        report.variant = Some(self.state.name().into());
        self.defaults.note_overrides(&mut report.deviations, o);
        report
    }

    /// Its steps along `axis`, after a burst when given, with `idle_ns` after each step.
    pub fn stepped(
        self,
        axis: Axis,
        burst: Option<Workload>,
        steps: Vec<(f64, Workload)>,
        idle_ns: u64,
    ) -> Stepped {
        Stepped {
            ground: self,
            axis,
            burst,
            steps,
            idle_ns,
        }
    }
}

/// A stepped test on its ground: the burst first, then each step,
/// with `idle_ns` of idle after each step but the last.
pub(crate) struct Stepped {
    ground: Ground,
    axis: Axis,
    burst: Option<Workload>,
    steps: Vec<(f64, Workload)>,
    idle_ns: u64,
}

impl Stepped {
    /// Run the burst and the steps; the result's figures are the peak step's, its seconds
    /// every step's one after the other, its curve a point per step.
    pub fn run(
        self,
        ctx: &mut Context,
        dev: &mut dyn Device,
        mut report: Report,
    ) -> Result<TestResult> {
        let Stepped {
            ground,
            axis,
            burst,
            steps,
            idle_ns,
        } = self;
        let (state, span_bytes) = (ground.state, ground.span_bytes());
        let Prepared {
            phases, adaptation, ..
        } = ground.prepared;
        report.preconditioning = phases;
        if ctx.stopped() {
            return Err(SuiteError::Interrupted);
        }
        let mut burst_figures = None;
        let mut seconds: Vec<SecondPoint> = Vec::new();
        if let Some(w) = &burst {
            let duty = w.shape.duty_cycle.expect("a burst has a duty cycle");
            let outcome = ctx.drive(dev, w, &format!("burst {}", report.label), true)?;
            if outcome.stopped.is_some() {
                return Ok(report.finish(dev, w, outcome));
            }
            let s = &outcome.measurements.summary;
            let busy = s.busy_time_s.max(f64::MIN_POSITIVE);
            burst_figures = Some(Burst {
                burst_bytes: duty.burst_bytes,
                busy_pct: duty.busy_pct,
                mbps: s.bytes as f64 / busy / 1e6,
                iops: s.ios as f64 / busy,
                summary: s.clone(),
            });
            append_seconds(&mut seconds, outcome.measurements.per_second);
        }
        let mut ran: Vec<(f64, Workload, Outcome)> = Vec::new();
        let count = steps.len();
        for (i, (x, w)) in steps.into_iter().enumerate() {
            let label = format!("{}: {}", report.label, axis.step(x));
            let mut outcome = ctx.drive(dev, &w, &label, true)?;
            let stop = outcome.stopped.is_some();
            append_seconds(
                &mut seconds,
                std::mem::take(&mut outcome.measurements.per_second),
            );
            ran.push((x, w, outcome));
            if stop {
                break;
            }
            if i + 1 < count && idle_ns > 0 {
                let idle = ctx.idle(dev, idle_ns, &format!("idle after {}", axis.step(x)))?;
                if idle.stopped.is_some() {
                    break;
                }
            }
        }
        let complete = ran.len() == count && ran.iter().all(|r| r.2.stopped.is_none());
        let pairs: Vec<(f64, f64)> = ran
            .iter()
            .map(|(x, _, o)| (*x, o.measurements.summary.mbps))
            .collect();
        let (headline_mbps, peak_mbps) = StepsAnalysis::figures(axis, &pairs);
        report.points = ran
            .iter()
            .map(|(x, _, o)| CurvePoint {
                x: *x,
                summary: o.measurements.summary.clone(),
            })
            .collect();
        report.analysis = Analysis::Steps(StepsAnalysis {
            axis,
            state,
            span_bytes,
            burst: burst_figures,
            headline_mbps,
            peak_mbps,
        });
        // The headline measurement is the peak step, or the step that stopped.
        let at = match ran.iter().position(|r| r.2.stopped.is_some()) {
            Some(i) => i,
            None => (0..ran.len())
                .max_by(|&a, &b| pairs[a].1.total_cmp(&pairs[b].1))
                .ok_or(crate::SuiteError::Interrupted)?,
        };
        let (_, w, outcome) = ran.swap_remove(at);
        let mut result = report.finish(dev, &w, outcome);
        result.per_second = seconds;
        result.adaptations.extend(adaptation);
        result.complete = result.complete && complete;
        Ok(result)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headline_is_the_low_depths_or_every_share() {
        let qd = [(1.0, 10.0), (2.0, 20.0), (4.0, 30.0), (8.0, 100.0)];
        assert_eq!(StepsAnalysis::figures(Axis::QueueDepth, &qd), (20.0, 100.0));
        let mix = [(0.0, 10.0), (50.0, 20.0), (100.0, 60.0)];
        assert_eq!(StepsAnalysis::figures(Axis::ReadShare, &mix), (30.0, 60.0));
        assert_eq!(StepsAnalysis::figures(Axis::ReadShare, &[]), (0.0, 0.0));
    }

    #[test]
    fn steps_are_named() {
        assert_eq!(Axis::QueueDepth.step(4.0), "QD4");
        assert_eq!(Axis::ReadShare.step(70.0), "70% reads");
    }
}
