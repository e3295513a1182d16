//! Steady-state 4 KiB random write (docs/methodology.md section 3), detected as the SNIA PTS does:
//! rounds of random writes over the whole span until a window of 5 rounds is flat enough.

use serde::{Deserialize, Serialize};

use engine::pattern::DataKind;
use engine::shape::Shape;
use engine::size::Span;
use engine::workload::{Access, Limit, Workload};
use engine::Device;

use super::{Defaults, Kind, Options, ReviewSection, Test, TestId};
use crate::analysis::Analysis;
use crate::context::Context;
use crate::params::{ns, Overrides, DEFAULT_SEED};
use crate::precondition;
use crate::result::{CurvePoint, Report, TestResult};
use crate::Result;

/// The PTS steady-state rule.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Rule {
    /// Rounds in the measurement window.
    pub window: usize,
    /// Max - min of the window's values within this share of the window mean.
    pub max_excursion: f64,
    /// The least-squares line's rise across the window within this share of the mean.
    pub max_slope_excursion: f64,
    pub max_rounds: usize,
}

pub const PTS: Rule = Rule {
    window: 5,
    max_excursion: 0.20,
    max_slope_excursion: 0.10,
    max_rounds: 25,
};

/// The whole span; `duration_s` is a round's (PTS uses one-minute rounds).
pub const DEFAULTS: Defaults = Defaults {
    qd: 32,
    block_bytes: 4096,
    span: Span::Percent(100.0),
    duration_s: 60.0,
};

pub const TEST: Test = Test::writing(
    TestId::SteadyState,
    Kind::SteadyState,
    Some(ReviewSection::SteadyState),
    "4 KiB random writes over the whole span in 60 s rounds until the SNIA PTS steady-state rule holds (at most 25 rounds)",
    DEFAULTS,
    Options::WORKLOAD.with(Options::PRECONDITION),
    |dev, ctx, o| Ok(vec![run(dev, ctx, o)?]),
);

impl Rule {
    /// Whether a window of round values is steady.
    pub fn steady(&self, window: &[f64]) -> bool {
        let n = window.len() as f64;
        let mean = window.iter().sum::<f64>() / n;
        if window.len() < 2 || mean.is_nan() || mean <= 0.0 {
            return false;
        }
        let (min, max) = window
            .iter()
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &v| {
                (lo.min(v), hi.max(v))
            });
        let slope = Rule::slope(window);
        max - min <= self.max_excursion * mean
            && (slope * (n - 1.0)).abs() <= self.max_slope_excursion * mean
    }

    /// The least-squares slope of a window's values per round (x = 0..n-1), as fio's
    /// `ss=iops_slope` computes it.
    pub fn slope(window: &[f64]) -> f64 {
        let n = window.len() as f64;
        let mean = window.iter().sum::<f64>() / n;
        let x_mean = (n - 1.0) / 2.0;
        let (num, den) = window
            .iter()
            .enumerate()
            .fold((0.0, 0.0), |(num, den), (i, &y)| {
                let dx = i as f64 - x_mean;
                (num + dx * (y - mean), den + dx * dx)
            });
        num / den
    }

    /// The 0-based round that completes the first steady window, if any.
    pub fn detect(&self, rounds: &[f64]) -> Option<usize> {
        (self.window..=rounds.len())
            .find(|&end| self.steady(&rounds[end - self.window..end]))
            .map(|end| end - 1)
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(from = "StoredAnalysis")]
pub struct SteadyStateAnalysis {
    pub rule: Rule,
    pub round_s: f64,
    /// Whether the rule held on rounds of the PTS's length ([`steady_state_reached`]).
    pub reached: bool,
    /// 1-based round that completed the first window the rule accepted; on rounds shorter
    /// than the PTS's, that window is not a steady state (`reached` is false).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub round: Option<usize>,
    pub rounds_iops: Vec<f64>,
    /// Mean IOPS over the steady window (or the last window when not reached).
    pub steady_iops: f64,
}

/// The rule held on rounds of at least the PTS's minute. Five rounds of a few seconds (a quick
/// suite) can all fall in the opening burst, flat at the fresh drive's speed.
pub fn steady_state_reached(round_s: f64, rule_held_at: Option<usize>) -> bool {
    rule_held_at.is_some() && round_s >= DEFAULTS.duration_s
}

/// The figures as results store them; those of older results said `reached` for the rule
/// alone, judged again when they load.
#[derive(Deserialize)]
struct StoredAnalysis {
    rule: Rule,
    round_s: f64,
    reached: bool,
    round: Option<usize>,
    rounds_iops: Vec<f64>,
    steady_iops: f64,
}

impl From<StoredAnalysis> for SteadyStateAnalysis {
    fn from(s: StoredAnalysis) -> SteadyStateAnalysis {
        SteadyStateAnalysis {
            reached: s.reached && steady_state_reached(s.round_s, s.round),
            rule: s.rule,
            round_s: s.round_s,
            round: s.round,
            rounds_iops: s.rounds_iops,
            steady_iops: s.steady_iops,
        }
    }
}

impl SteadyStateAnalysis {
    /// The verdict in a sentence: reached at a round, held on rounds too short, or not.
    pub fn verdict(&self) -> String {
        match self.round {
            Some(round) if self.reached => format!(
                "steady state reached at round {round}: {:.0} IOPS",
                self.steady_iops
            ),
            Some(round) => format!(
                "steady state NOT reached: the rule held at round {round}, but on rounds of {} s, \
                 shorter than the PTS's {} s; last window {:.0} IOPS",
                self.round_s, DEFAULTS.duration_s, self.steady_iops
            ),
            None => format!(
                "steady state NOT reached in {} rounds; last window {:.0} IOPS",
                self.rounds_iops.len(),
                self.steady_iops
            ),
        }
    }
}

pub fn run(dev: &mut dyn Device, ctx: &mut Context, o: &Overrides) -> Result<TestResult> {
    let geo = dev.geometry();
    let block = o.block_bytes.unwrap_or(DEFAULTS.block_bytes);
    let span = o
        .span
        .map_or(geo.capacity_bytes / block as u64 * block as u64, |s| {
            s.resolve(geo.capacity_bytes, block as u64)
        });
    let round_s = o.duration_s.unwrap_or(DEFAULTS.duration_s);
    let data = o.data.unwrap_or(DataKind::Incompressible);
    let seed = o.seed.unwrap_or(DEFAULT_SEED);
    let mut report = Report::new(TestId::SteadyState, "");
    DEFAULTS.note_overrides(&mut report.deviations, o);
    let round_workload = |round: u64| Workload {
        access: Access::Random,
        block_bytes: block,
        offset_bytes: 0,
        span_bytes: span,
        read_pct: 0,
        op: None,
        data,
        qd: o.qd.unwrap_or(DEFAULTS.qd),
        limit: Limit {
            duration_ns: Some(ns(round_s)),
            ..Limit::default()
        },
        seed: seed.wrapping_add(round),
        shape: Shape::default(),
        threads: 1,
    };
    report.label = format!(
        "steady-state 4 KiB random write, QD{}, rounds of {round_s} s",
        o.qd.unwrap_or(DEFAULTS.qd)
    );
    report
        .preconditioning
        .push(precondition::purge(ctx, dev, 0, geo.capacity_bytes));
    let (fill, outcome) = precondition::before_random_writes(ctx, dev, span, block, data, seed)?;
    report.preconditioning.push(fill);
    if outcome.stopped.is_some() {
        return Ok(report.finish(dev, &round_workload(0), outcome));
    }

    let mut rounds = Vec::new();
    let mut series = Vec::new();
    let mut last = None;
    let mut reached = None;
    // Every round is verified on its own (--verify); the result carries them all.
    let mut verified: Option<engine::verify::VerifyReport> = None;
    for r in 0..PTS.max_rounds {
        let w = round_workload(r as u64);
        let outcome = ctx.drive(dev, &w, &format!("steady state: round {}", r + 1), true)?;
        if let Some(v) = &outcome.verify {
            match verified.as_mut() {
                Some(all) => all.merge(v),
                None => verified = Some(v.clone()),
            }
        }
        let m = &outcome.measurements;
        rounds.push(m.summary.iops);
        report.points.push(CurvePoint {
            x: (r + 1) as f64,
            summary: m.summary.clone(),
        });
        let offset = (r as f64 * round_s).round() as u64;
        series.extend(
            m.per_second
                .iter()
                .filter(|p| p.covered_s.is_none())
                .map(|p| {
                    let mut p = p.clone();
                    p.t += offset;
                    p
                }),
        );
        let stopped = outcome.stopped.is_some();
        last = Some((w, outcome));
        reached = PTS.detect(&rounds);
        if stopped || reached.is_some() {
            break;
        }
    }
    let window = &rounds[rounds.len().saturating_sub(PTS.window)..];
    let analysis = SteadyStateAnalysis {
        rule: PTS,
        round_s,
        reached: steady_state_reached(round_s, reached),
        round: reached.map(|r| r + 1),
        steady_iops: window.iter().sum::<f64>() / window.len().max(1) as f64,
        rounds_iops: rounds,
    };
    if !analysis.reached {
        ctx.observer.note(&analysis.verdict());
    }
    report.analysis = Analysis::SteadyState(analysis);
    let (w, outcome) = last.expect("at least one round ran");
    let mut result = report.finish(dev, &w, outcome);
    result.per_second = series;
    result.verify = verified;
    Ok(result)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepts_a_flat_series() {
        let flat = [10_000.0, 10_200.0, 9_900.0, 10_100.0, 9_950.0];
        assert!(PTS.steady(&flat));
        let mut rounds = vec![80_000.0, 40_000.0, 20_000.0, 12_000.0];
        rounds.extend(flat);
        assert_eq!(PTS.detect(&rounds), Some(8));
    }

    #[test]
    fn rejects_a_drifting_series() {
        // Within the 20% excursion, but falling 3% a round: 12% across the window.
        let drifting: Vec<f64> = (0..25)
            .map(|i| 10_000.0 * (1.0 - 0.03 * i as f64))
            .collect();
        assert!(!PTS.steady(&drifting[..5]));
        assert_eq!(PTS.detect(&drifting[..10]), None);
    }

    #[test]
    fn rejects_a_noisy_series() {
        // Flat on average but with a 30% swing.
        let noisy = [10_000.0, 13_000.0, 10_000.0, 13_000.0, 10_000.0];
        assert!(!PTS.steady(&noisy));
    }

    #[test]
    fn excursion_limit_is_twenty_percent_of_the_mean() {
        // Worked by hand: [900, 1100, 1000, 1100, 900] has mean 1000, range 200 (20.0%) and a
        // least-squares slope of 0: steady, on the boundary.
        assert!(PTS.steady(&[900.0, 1100.0, 1000.0, 1100.0, 900.0]));
        // Range 202 on a mean of 1000.4: 20.19%, out.
        assert!(!PTS.steady(&[899.0, 1101.0, 1002.0, 1101.0, 899.0]));
    }

    #[test]
    fn reached_at_the_first_steady_window_or_not_in_25_rounds() {
        // Steady from the start: the earliest round the rule allows, the fifth.
        assert_eq!(PTS.detect(&[500.0; 25]), Some(4));
        // Fewer than five rounds never decide.
        assert_eq!(PTS.detect(&[500.0; 4]), None);
        // Falling 4% a round for 25 rounds: each window's slope is 16% of its mean, never
        // steady, so the test reports its last five rounds as not reached.
        let falling: Vec<f64> = (0..25).map(|i| 10_000.0 * 0.96f64.powi(i)).collect();
        assert_eq!(PTS.detect(&falling), None);
        // A falling start (20000 down to 11000), then flat at 10000 from round 11. The first
        // window accepted still holds the last falling round: rounds 10-14, [11000, 10000 x 4],
        // mean 10200, range 1000 (9.8%), least-squares slope -200 a round, 800 across the
        // window (7.8%).
        let mut settling: Vec<f64> = (0..10).map(|i| 20_000.0 - 1_000.0 * i as f64).collect();
        settling.extend([10_000.0; 15]);
        assert_eq!(PTS.detect(&settling), Some(13));
    }

    #[test]
    fn slope_and_verdict_agree_with_fio_on_recorded_series() {
        // fio 3.33's own steady-state output for five runs (commands in the file): the
        // window's IOPS per second, its least-squares slope and whether `iops_slope:L%`
        // (|slope| / mean within L%) was attained. The PTS's slope rule is the same test
        // with the line's rise across the window: L% x (n - 1).
        let runs: serde_json::Value =
            serde_json::from_str(include_str!("../../tests/fixtures/fio-steadystate.json"))
                .unwrap();
        let runs = runs.as_array().unwrap();
        assert_eq!(runs.len(), 5);
        let mut verdicts = Vec::new();
        for run in runs {
            let ss = &run["steadystate"];
            let iops: Vec<f64> = (ss["data"]["iops"].as_array().unwrap().iter())
                .map(|v| v.as_f64().unwrap())
                .collect();
            let fio_slope = ss["slope"].as_f64().unwrap();
            assert!((Rule::slope(&iops) - fio_slope).abs() < 0.05, "{run}");
            let text = ss["ss"].as_str().unwrap();
            let limit_pct: f64 = text["iops_slope:".len()..text.len() - 1].parse().unwrap();
            let n = iops.len();
            let rule = Rule {
                window: n,
                max_excursion: f64::INFINITY,
                max_slope_excursion: limit_pct / 100.0 * (n - 1) as f64,
                max_rounds: n,
            };
            let attained = ss["attained"].as_i64().unwrap() == 1;
            assert_eq!(rule.steady(&iops), attained, "{run}");
            verdicts.push(attained);
        }
        // Both verdicts are among them.
        assert!(verdicts.contains(&true) && verdicts.contains(&false));
    }

    #[test]
    fn the_rule_on_rounds_shorter_than_a_minute_is_not_a_steady_state() {
        assert!(steady_state_reached(60.0, Some(4)));
        assert!(!steady_state_reached(5.0, Some(4)));
        assert!(!steady_state_reached(60.0, None));
        // A quick suite's result stored before this rule: the rule held at round 5 on 5 s
        // rounds, all of them in the opening burst.
        let stored = serde_json::json!({"rule": PTS, "round_s": 5.0, "reached": true,
            "round": 5, "rounds_iops": [65781.0, 65789.0, 65789.0, 65789.0, 65789.0],
            "steady_iops": 65787.4});
        let a: SteadyStateAnalysis = serde_json::from_value(stored).unwrap();
        assert!(!a.reached);
        assert_eq!(
            a.verdict(),
            "steady state NOT reached: the rule held at round 5, but on rounds of 5 s, \
             shorter than the PTS's 60 s; last window 65787 IOPS"
        );
    }

    #[test]
    fn slope_limit_is_ten_percent() {
        // Rising 2.4% of the mean per round: 9.6% across 5 rounds passes; 2.6% (10.4%) fails.
        let ramp =
            |step: f64| -> Vec<f64> { (0..5).map(|i| 1000.0 + step * (i as f64 - 2.0)).collect() };
        assert!(PTS.steady(&ramp(24.0)));
        assert!(!PTS.steady(&ramp(26.0)));
        assert!(!PTS.steady(&[]));
        assert!(!PTS.steady(&[0.0; 5]));
    }
}
