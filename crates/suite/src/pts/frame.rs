//! The frame every PTS test runs in: purge, workload-independent preconditioning (twice the
//! capacity in 128 KiB sequential writes), then rounds of the test's stimuli, each for a
//! minute, until the tracking variable meets the steady-state rule; the figures are taken
//! over the measurement window (the last five rounds).

use std::collections::VecDeque;

use engine::driver::Outcome;
use engine::measure::{LatencyHistograms, SecondPoint, Summary};
use engine::pattern::DataKind;
use engine::units::format_size;
use engine::workload::Workload;
use engine::Device;

use super::{Bin, Cell, PtsAnalysis, PtsVariant, Schedule, Sequence, Stimulus, WindowLatency};
use crate::analysis::Analysis;
use crate::context::Context;
use crate::methodology::steady_state::PTS;
use crate::methodology::TestId;
use crate::params::{Overrides, DEFAULT_SEED};
use crate::precondition;
use crate::result::{append_seconds, Phase, Report, TestResult};
use crate::{Result, SuiteError};

/// The spec's round: one minute per stimulus.
pub const ROUND_S: f64 = 60.0;

/// Workload-independent preconditioning: this many times the capacity.
pub const WIPC_CAPACITIES: u64 = 2;

pub struct Frame {
    pub variant: PtsVariant,
    /// 1: the spec's durations and totals.
    pub scale: f64,
    /// The active range: the stimuli address `0..span_bytes`.
    pub span_bytes: u64,
    pub round_s: f64,
    pub wipc_bytes: u64,
    capacity: u64,
    data: DataKind,
    seed: u64,
}

/// A sequence's rounds as run: its figures, the tracking cell's seconds over the whole
/// sequence, and the tracking cell's last round (for the result's workload and summary), or
/// the run that was interrupted.
pub struct Ran {
    pub sequence: Sequence,
    per_second: Vec<SecondPoint>,
    last: (Workload, Outcome),
}

impl Ran {
    /// Whether it ended interrupted.
    pub fn stopped(&self) -> bool {
        self.last.1.stopped.is_some()
    }

    /// Its figures and its last run, for a test that goes on from the steady state.
    pub fn into_parts(self) -> (Sequence, (Workload, Outcome)) {
        (self.sequence, self.last)
    }
}

impl Frame {
    pub fn of(dev: &dyn Device, o: &Overrides) -> Frame {
        let variant = o.pts_variant.unwrap_or_default();
        let scale = o.pts_scale.unwrap_or(1.0);
        let capacity = dev.geometry().capacity_bytes;
        let span = o
            .span_within(capacity, 4096)
            .unwrap_or((capacity as f64 * variant.active_range_pct() / 100.0) as u64);
        let wipc = (WIPC_CAPACITIES as f64 * capacity as f64 * scale) as u64;
        Frame {
            variant,
            scale,
            span_bytes: span / 4096 * 4096,
            round_s: o.duration_s.unwrap_or(ROUND_S * scale),
            wipc_bytes: (wipc / (128 << 10)).max(1) * (128 << 10),
            capacity,
            data: o.data.unwrap_or(DataKind::Incompressible),
            seed: o.seed.unwrap_or(DEFAULT_SEED),
        }
    }

    /// Refuse, before the purge, a test whose stimuli the target cannot run (a 0.5 KiB cell
    /// on a drive of 4096-byte sectors): found at the first such round, it would have cost
    /// the purge, the preconditioning and the rounds before, and saved nothing.
    pub fn check(&self, dev: &dyn Device, stimuli: &[Stimulus], test: &str) -> Result<()> {
        let geometry = dev.geometry();
        for s in stimuli {
            if let Err(e) = self.workload(s, self.round_s, 0).validate(&geometry) {
                return Err(SuiteError::Parameter(format!(
                    "{test} cannot run its stimulus {} on this target: {e}. The SNIA PTS runs \
                     every stimulus it lists, so nothing was written; run it on a drive \
                     formatted to 512-byte sectors (e.g. `nvme format --lbaf`), or `ssdlab run \
                     custom` for the workloads this target takes",
                    s.label()
                )));
            }
        }
        Ok(())
    }

    /// A PTS test's report: labelled `PTS-C` or `PTS-E` then `what`, with where this run
    /// departs from the spec.
    pub fn report(&self, test: TestId, what: &str, o: &Overrides) -> Report {
        let mut report = Report::new(test, format!("PTS-{} {what}", self.variant.letter()));
        self.note_deviations(&mut report.deviations, o);
        report
    }

    /// Record where this run departs from the spec.
    fn note_deviations(&self, deviations: &mut Vec<String>, o: &Overrides) {
        if self.scale != 1.0 {
            deviations.push(format!(
                "--pts-scale {}: rounds of {} s and {} of preconditioning instead of the spec's \
                 {ROUND_S} s and {WIPC_CAPACITIES}x the capacity",
                self.scale,
                self.round_s,
                format_size(self.wipc_bytes)
            ));
        } else if let Some(d) = o.duration_s.filter(|&d| d != ROUND_S) {
            deviations.push(format!("rounds of {d} s instead of {ROUND_S} s"));
        }
        if o.span.is_some() {
            deviations.push(format!(
                "active range {} instead of {}% of {}",
                format_size(self.span_bytes),
                self.variant.active_range_pct(),
                format_size(self.capacity)
            ));
        }
    }

    /// Purge the whole drive, as every PTS test starts.
    pub fn purge(
        &self,
        ctx: &mut Context,
        dev: &mut dyn Device,
        report: &mut Report,
    ) -> Result<()> {
        report
            .preconditioning
            .push(precondition::purge(ctx, dev, 0, self.capacity));
        match ctx.stopped() {
            true => Err(SuiteError::Interrupted),
            false => Ok(()),
        }
    }

    /// `stimulus` for `seconds` over the active range, the `nth` run of the test (its seed).
    pub fn workload(&self, stimulus: &Stimulus, seconds: f64, nth: u64) -> Workload {
        stimulus.workload(
            self.span_bytes,
            seconds,
            self.data,
            self.seed.wrapping_add(nth),
        )
    }

    /// Purge the drive and precondition it independently of the workload: the
    /// preconditioning's workload and outcome.
    pub fn prepare(
        &self,
        ctx: &mut Context,
        dev: &mut dyn Device,
        report: &mut Report,
    ) -> Result<(Workload, Outcome)> {
        self.purge(ctx, dev, report)?;
        let mut w = precondition::fill_workload(0, self.capacity, self.data, self.seed);
        w.limit.bytes = Some(self.wipc_bytes);
        let what = format!(
            "{} of 128 KiB sequential writes over the whole drive",
            format_size(self.wipc_bytes)
        );
        let outcome = ctx.drive(dev, &w, "PTS preconditioning (WIPC)", false)?;
        report.preconditioning.push(Phase {
            name: "wipc".into(),
            description: format!("workload-independent preconditioning: {what}"),
            method: None,
            summary: Some(outcome.measurements.summary.clone()),
            complete: outcome.stopped.is_none(),
        });
        Ok((w, outcome))
    }

    /// Rounds of the schedule's stimuli, each for a round's time, until the tracking
    /// stimulus's figure is steady or the rule's rounds run out. An interrupted round is not
    /// counted.
    pub fn rounds(
        &self,
        ctx: &mut Context,
        dev: &mut dyn Device,
        schedule: &Schedule,
    ) -> Result<Ran> {
        let Schedule {
            name,
            stimuli,
            tracking,
            figure,
            histograms,
        } = *schedule;
        let n = stimuli.len();
        let mut values: Vec<Vec<f64>> = vec![Vec::new(); n];
        let mut window: VecDeque<Vec<(Summary, LatencyHistograms)>> = VecDeque::new();
        let mut per_second = Vec::new();
        let mut tracked_last = None;
        let mut interrupted = None;
        let mut reached = None;
        let mut completed = 0;
        'rounds: for r in 0..PTS.max_rounds {
            let mut round = Vec::with_capacity(n);
            for (i, s) in stimuli.iter().enumerate() {
                let w = self.workload(s, self.round_s, (r * n + i) as u64);
                let label = format!("{name}: round {}, {}", r + 1, s.label());
                let outcome = ctx.drive(dev, &w, &label, true)?;
                let m = &outcome.measurements;
                if i == tracking {
                    let offset = ((r * n + i) as f64 * self.round_s).round() as u64;
                    per_second.extend(m.per_second.iter().filter(|p| p.covered_s.is_none()).map(
                        |p| SecondPoint {
                            t: p.t + offset,
                            ..p.clone()
                        },
                    ));
                }
                values[i].push(figure.of(&m.summary));
                round.push((m.summary.clone(), outcome.latency.clone()));
                if outcome.stopped.is_some() {
                    interrupted = Some((w, outcome));
                    break 'rounds;
                }
                if i == tracking {
                    tracked_last = Some((w, outcome));
                }
            }
            completed = r + 1;
            window.push_back(round);
            if window.len() > PTS.window {
                window.pop_front();
            }
            reached = PTS.detect(&values[tracking]);
            if reached.is_some() {
                break;
            }
        }
        for v in &mut values {
            v.truncate(completed);
        }
        let mut cells: Vec<Cell> = stimuli
            .iter()
            .zip(values)
            .enumerate()
            .map(|(i, (s, rounds))| window_cell(s.clone(), rounds, window.iter().map(|r| &r[i])))
            .collect();
        if histograms {
            for i in highest_middle_lowest(&cells) {
                let mut merged = LatencyHistograms::default();
                window.iter().for_each(|r| merged.merge(&r[i].1));
                let bins = merged.doubling_bins(1_000).into_iter();
                let bins = bins.map(|(upper_ns, ios)| Bin {
                    upper_us: upper_ns as f64 / 1e3,
                    ios,
                });
                cells[i].histogram = Some(bins.collect());
            }
        }
        Ok(Ran {
            sequence: Sequence {
                figure,
                tracking,
                reached: reached.is_some(),
                rounds: completed,
                window: (completed + 1 - window.len().min(completed), completed),
                cells,
            },
            per_second,
            last: interrupted
                .or(tracked_last)
                .expect("a sequence ends interrupted or after its tracking stimulus ran"),
        })
    }

    /// Purge and precondition, then run the schedule to steady state: one sequence; or, when
    /// the preconditioning was interrupted, its workload and outcome.
    pub fn sequence(
        &self,
        ctx: &mut Context,
        dev: &mut dyn Device,
        report: &mut Report,
        schedule: &Schedule,
    ) -> Result<std::result::Result<Ran, (Workload, Outcome)>> {
        let (w, outcome) = self.prepare(ctx, dev, report)?;
        if outcome.stopped.is_some() {
            return Ok(Err((w, outcome)));
        }
        Ok(Ok(self.rounds(ctx, dev, schedule)?))
    }

    /// A test of one sequence: its result, or the preconditioning's when that was
    /// interrupted.
    pub fn single(
        &self,
        ctx: &mut Context,
        dev: &mut dyn Device,
        mut report: Report,
        schedule: &Schedule,
    ) -> Result<TestResult> {
        Ok(match self.sequence(ctx, dev, &mut report, schedule)? {
            Ok(ran) => self.finish(report, dev, vec![ran]),
            Err((w, outcome)) => report.finish(dev, &w, outcome),
        })
    }

    /// The test's result from its sequences, in the order run: the figures of all, the
    /// tracking cells' seconds one after another, the last sequence's tracking workload as
    /// the result's workload and summary.
    pub fn finish(&self, mut report: Report, dev: &dyn Device, runs: Vec<Ran>) -> TestResult {
        let mut per_second: Vec<SecondPoint> = Vec::new();
        let mut sequences = Vec::new();
        let mut last = None;
        for ran in runs {
            append_seconds(&mut per_second, ran.per_second);
            sequences.push(ran.sequence);
            last = Some(ran.last);
        }
        report
            .deviations
            .extend(rounds_too_short(self.round_s, &sequences));
        report.analysis = Analysis::Pts(PtsAnalysis {
            variant: self.variant,
            scale: self.scale,
            wipc_bytes: self.wipc_bytes,
            round_s: self.round_s,
            rule: PTS,
            sequences,
        });
        let (w, outcome) = last.expect("a PTS test runs at least one sequence");
        let mut result = report.finish(dev, &w, outcome);
        result.per_second = per_second;
        result
    }
}

/// A round must last this many of a cell's mean response times. Shorter, most of what it
/// counts was queued in the round before (a queue of 1 MiB IOs outlasting 0.12 s rounds
/// made a 4 KiB cell read 34 IOPS where the drive does 50,000), so its figures describe
/// the schedule, not the stimulus.
const MIN_RESPONSES_A_ROUND: f64 = 10.0;

/// The deviation of a run whose rounds were too short for some of its cells, naming them.
fn rounds_too_short(round_s: f64, sequences: &[Sequence]) -> Option<String> {
    let short: Vec<String> = sequences
        .iter()
        .flat_map(|s| &s.cells)
        .filter(|c| c.latency.mean_us * 1e-6 * MIN_RESPONSES_A_ROUND > round_s)
        .map(|c| format!("{} ({:.3} s)", c.stimulus.label(), c.latency.mean_us * 1e-6))
        .collect();
    let (n, first) = (short.len(), short.first()?);
    let more = if n > 1 {
        format!(" and {} more", n - 1)
    } else {
        String::new()
    };
    Some(format!(
        "rounds of {round_s} s are shorter than {MIN_RESPONSES_A_ROUND} mean response times \
         of {first}{more}: those cells measured the queue left by the round before, not \
         their stimulus, so their figures are not the drive's; run a larger --pts-scale"
    ))
}

/// The cells of the highest, middle and lowest window IOPS.
fn highest_middle_lowest(cells: &[Cell]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..cells.len()).collect();
    order.sort_by(|&a, &b| cells[b].iops.total_cmp(&cells[a].iops));
    let mut picked = vec![order[0], order[order.len() / 2], order[order.len() - 1]];
    picked.dedup();
    picked
}

/// A stimulus's figures over the measurement window: rates are the rounds' mean (as the spec
/// averages the window), response times are taken from all the window's IOs together.
fn window_cell<'a>(
    stimulus: Stimulus,
    rounds: Vec<f64>,
    window: impl Iterator<Item = &'a (Summary, LatencyHistograms)>,
) -> Cell {
    let (mut iops, mut mbps, mut n) = (0.0, 0.0, 0usize);
    let mut latency = LatencyHistograms::default();
    for (summary, histograms) in window {
        iops += summary.iops;
        mbps += summary.mbps;
        n += 1;
        latency.merge(histograms);
    }
    let us = |ns: u64| ns as f64 / 1e3;
    let latency = match latency.all() {
        Some(h) => WindowLatency {
            mean_us: h.mean() / 1e3,
            p99999_us: us(h.value_at_quantile(0.99999)),
            max_us: us(h.max()),
        },
        None => WindowLatency {
            mean_us: 0.0,
            p99999_us: 0.0,
            max_us: 0.0,
        },
    };
    let n = n.max(1) as f64;
    Cell {
        stimulus,
        rounds,
        iops: iops / n,
        mbps: mbps / n,
        latency,
        histogram: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pts::analysis::Figure;
    use engine::workload::Access;

    fn cell(block_bytes: u32, mean_us: f64) -> Cell {
        Cell {
            stimulus: Stimulus {
                access: Access::Random,
                block_bytes,
                read_pct: 0,
                threads: 4,
                qd: 32,
                shape: Default::default(),
            },
            rounds: vec![],
            iops: 0.0,
            mbps: 0.0,
            latency: WindowLatency {
                mean_us,
                p99999_us: mean_us,
                max_us: mean_us,
            },
            histogram: None,
        }
    }

    fn sequence(cells: Vec<Cell>) -> Sequence {
        Sequence {
            figure: Figure::Iops,
            tracking: 0,
            reached: true,
            rounds: 5,
            window: (1, 5),
            cells,
        }
    }

    #[test]
    fn rounds_shorter_than_ten_responses_are_a_deviation_naming_the_cells() {
        // The probe's run: 0.12 s rounds, a 4 KiB cell waiting 1.9 s behind 1 MiB IOs.
        let probe = [sequence(vec![
            cell(4096, 1_900_000.0),
            cell(1 << 20, 250_000.0),
        ])];
        let said = rounds_too_short(0.12, &probe).expect("a deviation");
        assert!(
            said.contains("RND 4KiB 0/100 (1.900 s) and 1 more"),
            "{said}"
        );
        assert!(said.contains("rounds of 0.12 s"), "{said}");
        // The spec's minute holds 240 of the 1 MiB cell's responses.
        assert_eq!(rounds_too_short(60.0, &probe), None);
        // Exactly ten responses a round are enough.
        assert_eq!(
            rounds_too_short(1.0, &[sequence(vec![cell(4096, 100_000.0)])]),
            None
        );
    }
}
