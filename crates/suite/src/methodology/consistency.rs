//! Performance consistency (docs/methodology.md section 1): purge, fill the tested span, then 4 KiB
//! random writes at QD32 over all of it for 2000 s, IOPS every second. With spare area, the
//! whole device is purged and only the first (100 - spare)% of LBAs are touched.

use serde::{Deserialize, Serialize};

use engine::pattern::DataKind;
use engine::size::Span;
use engine::workload::Limit;
use engine::Device;

use super::{Defaults, Kind, Options, ReviewSection, Test, TestId};
use crate::analysis::Analysis;
use crate::context::Context;
use crate::params::{ns, Overrides, DEFAULT_SEED};
use crate::precondition;
use crate::result::{Report, TestResult};
use crate::stats::{find_drop, series_stats, SeriesStats};
use crate::Result;
use crate::SuiteError;

/// The whole span (less any spare area), 2000 s.
pub const DEFAULTS: Defaults = Defaults {
    qd: 32,
    block_bytes: 4096,
    span: Span::Percent(100.0),
    duration_s: 2000.0,
};
/// The articles' steady-state charts start here.
pub const STEADY_FROM_S: f64 = 1400.0;

pub const TEST: Test = Test::writing(
    TestId::Consistency,
    Kind::Consistency,
    Some(ReviewSection::Consistency),
    "IO consistency: purge, fill, 4 KiB random writes at QD32 for 2000 s, IOPS per second",
    DEFAULTS,
    Options::WORKLOAD.with(Options::PRECONDITION),
    |dev, ctx, o| Ok(vec![run(dev, ctx, o)?]),
);

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(from = "StoredAnalysis")]
pub struct ConsistencyAnalysis {
    /// The spare area left untouched, in percent of the device (0 = default OP).
    pub spare_pct: f64,
    /// Where the window of `steady_state` starts (1400 s of 2000 s, scaled with the duration).
    pub steady_from_s: f64,
    /// Whether the window is the methodology's steady state ([`steady_state_reached`]); when
    /// not, `steady_state` holds the figures of the run's last seconds, and says so.
    pub reached: bool,
    /// The figures of the window from `steady_from_s` to the end.
    pub steady_state: Option<SeriesStats>,
    /// The second the opening burst ended: the first sustained step more than 25% below the
    /// plateau before it, standing out of the scatter ([`crate::stats::find_drop`]); `None`
    /// for a run that never falls that far and stays there.
    pub drop_s: Option<usize>,
    /// The plateau before the drop (median IOPS of every second before it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub drop_from_iops: Option<f64>,
    /// The level after it (median IOPS of the 30 s from the drop).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub drop_to_iops: Option<f64>,
    pub whole_run: Option<SeriesStats>,
}

/// docs/methodology.md section 1's rule: the steady state is the window from 1400 s of a 2000 s run,
/// all 600 s of it measured. A shorter run (a quick suite, `--duration`) scales its window
/// down, and one stopped early measures less of it: their last seconds are not a steady
/// state, as the drive may still be spending its spare area.
pub fn steady_state_reached(steady_from_s: f64, window: Option<&SeriesStats>) -> bool {
    let whole_window = DEFAULTS.duration_s - STEADY_FROM_S;
    steady_from_s >= STEADY_FROM_S && window.is_some_and(|w| w.count as f64 >= whole_window)
}

/// The figures as results store them; older results lack `reached`, judged when they load.
#[derive(Deserialize)]
struct StoredAnalysis {
    spare_pct: f64,
    steady_from_s: f64,
    reached: Option<bool>,
    steady_state: Option<SeriesStats>,
    drop_s: Option<usize>,
    #[serde(default)]
    drop_from_iops: Option<f64>,
    #[serde(default)]
    drop_to_iops: Option<f64>,
    whole_run: Option<SeriesStats>,
}

impl From<StoredAnalysis> for ConsistencyAnalysis {
    fn from(s: StoredAnalysis) -> ConsistencyAnalysis {
        let judged = steady_state_reached(s.steady_from_s, s.steady_state.as_ref());
        ConsistencyAnalysis {
            spare_pct: s.spare_pct,
            steady_from_s: s.steady_from_s,
            reached: s.reached.unwrap_or(judged),
            steady_state: s.steady_state,
            drop_s: s.drop_s,
            drop_from_iops: s.drop_from_iops,
            drop_to_iops: s.drop_to_iops,
            whole_run: s.whole_run,
        }
    }
}

impl ConsistencyAnalysis {
    /// What the window's figures are, for a line or a heading: "steady state from 1400 s",
    /// or "not a steady state: the last 18 s of a 60 s run".
    pub fn window_name(&self) -> String {
        let window_s = self.steady_state.as_ref().map_or(0, |s| s.count);
        match (self.reached, &self.whole_run) {
            (true, _) => format!("steady state from {:.0} s", self.steady_from_s),
            (false, Some(run)) => format!(
                "not a steady state: the last {window_s} s of a {} s run",
                run.count
            ),
            (false, None) => format!(
                "not a steady state: the {window_s} s from {:.0} s",
                self.steady_from_s
            ),
        }
    }
}

pub fn run(dev: &mut dyn Device, ctx: &mut Context, o: &Overrides) -> Result<TestResult> {
    let geo = dev.geometry();
    let spare = o.spare_pct.unwrap_or(0.0);
    if !(0.0..100.0).contains(&spare) {
        return Err(SuiteError::Parameter(format!(
            "spare area {spare}% is out of range: use 0 to 99, e.g. --spare 25"
        )));
    }
    let block = o.block_bytes.unwrap_or(DEFAULTS.block_bytes);
    let usable = Span::Percent(100.0 - spare).resolve(geo.capacity_bytes, block as u64);
    let span = o.span_within(usable, block as u64).unwrap_or(usable);
    let duration_s = o.duration_s.unwrap_or(DEFAULTS.duration_s);
    let data = o.data.unwrap_or(DataKind::Incompressible);
    let seed = o.seed.unwrap_or(DEFAULT_SEED);
    let limit = Limit {
        duration_ns: Some(ns(duration_s)),
        ios: o.ios,
        bytes: o.bytes,
    };
    let w = o.random_writes(block, span, o.qd.unwrap_or(DEFAULTS.qd), 1, limit);
    let mut report = Report::new(TestId::Consistency, "");
    let deviations = &mut report.deviations;
    DEFAULTS.note_overrides(deviations, o);
    DEFAULTS.note_span(deviations, o, span, usable);
    report.variant = (spare > 0.0).then(|| format!("spare-{spare}"));
    report.label = format!(
        "IO consistency: 4 KiB random write, QD{}, {}{}",
        w.qd,
        data.label(),
        if spare > 0.0 {
            format!(", {spare}% spare area")
        } else {
            String::new()
        }
    );

    // Clean: the whole device, so that untouched LBAs really are spare area.
    report
        .preconditioning
        .push(precondition::purge(ctx, dev, 0, geo.capacity_bytes));
    if ctx.stopped() {
        return Err(SuiteError::Interrupted);
    }
    let (fill, outcome) = precondition::before_random_writes(ctx, dev, span, block, data, seed)?;
    report.preconditioning.push(fill);
    if outcome.stopped.is_some() {
        return Ok(report.finish(dev, &w, outcome));
    }
    let outcome = ctx.drive(dev, &w, &report.label, true)?;
    let iops: Vec<f64> = outcome
        .measurements
        .per_second
        .iter()
        .filter(|p| p.covered_s.is_none())
        .map(|p| p.iops)
        .collect();
    let steady_from_s = (STEADY_FROM_S / DEFAULTS.duration_s * duration_s).floor();
    let drop = find_drop(&iops);
    let window = series_stats(iops.get(steady_from_s as usize..).unwrap_or(&[]));
    let analysis = ConsistencyAnalysis {
        spare_pct: spare,
        steady_from_s,
        reached: steady_state_reached(steady_from_s, window.as_ref()),
        steady_state: window,
        drop_s: drop.map(|d| d.at_s),
        drop_from_iops: drop.map(|d| d.from),
        drop_to_iops: drop.map(|d| d.to),
        whole_run: series_stats(&iops),
    };
    report.analysis = Analysis::Consistency(analysis);
    Ok(report.finish(dev, &w, outcome))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn window(count: usize) -> SeriesStats {
        let flat = vec![6_000.0; count];
        series_stats(&flat).expect("a window")
    }

    #[test]
    fn a_steady_state_is_the_window_from_1400_s_of_a_whole_run() {
        assert!(steady_state_reached(1400.0, Some(&window(600))));
        assert!(steady_state_reached(2100.0, Some(&window(900))));
        // A quick suite's 60 s run: its window from 42 s is 18 s of the opening burst.
        assert!(!steady_state_reached(42.0, Some(&window(18))));
        // Stopped at 1500 s: a sixth of the window.
        assert!(!steady_state_reached(1400.0, Some(&window(100))));
        assert!(!steady_state_reached(1400.0, None));
    }

    #[test]
    fn an_older_result_is_judged_when_it_loads_and_says_what_its_window_is() {
        let json = |from: f64, count: usize| {
            serde_json::json!({"spare_pct": 0.0, "steady_from_s": from,
                "steady_state": window(count), "drop_s": null, "whole_run": window(60)})
        };
        let quick: ConsistencyAnalysis = serde_json::from_value(json(42.0, 18)).unwrap();
        assert!(!quick.reached);
        assert_eq!(
            quick.window_name(),
            "not a steady state: the last 18 s of a 60 s run"
        );
        let full: ConsistencyAnalysis = serde_json::from_value(json(1400.0, 600)).unwrap();
        assert!(full.reached);
        assert_eq!(full.window_name(), "steady state from 1400 s");
        assert_eq!(serde_json::to_value(&full).unwrap()["reached"], true);
    }
}
