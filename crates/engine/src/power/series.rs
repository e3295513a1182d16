//! A meter's readings and what they say about a window of a run: mean, min, max, how much
//! of the window they cover, and one value per second beside the IO series. A window
//! without readings is `None` (power missing), never 0 W.

use serde::{Deserialize, Serialize};

/// One reading. `t_s` is seconds since the meter's origin on the monotonic clock
/// (`Instant`) the engine's real devices stamp IOs with; negative before the origin.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct PowerSample {
    pub t_s: f64,
    pub watts: f64,
}

/// Whether the numbers were measured or are an estimate.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Basis {
    /// A meter on the drive's supply (a command, hwmon, powercap).
    Measured,
    /// A figure the drive publishes (the NVMe power-state table), not a measurement.
    Estimate,
    /// The simulator's energy model: power that follows from the simulated work.
    Model,
}

impl Basis {
    /// The basis in a word, as a bar's label or a table cell says it.
    pub fn word(self) -> &'static str {
        match self {
            Basis::Measured => "measured",
            Basis::Estimate => "estimate",
            Basis::Model => "modelled",
        }
    }

    /// The basis explained, as hover text or a line of text says it.
    pub fn sentence(self) -> &'static str {
        match self {
            Basis::Measured => "measured by a power meter",
            Basis::Estimate => {
                "an estimate from the drive's NVMe power-state table, not a measurement"
            }
            Basis::Model => "modelled by the simulator's energy model, not a measurement",
        }
    }
}

/// The meter stopped giving readings: power is unknown from `from_s` to the end. `from_s`
/// is when that became known: the command's exit, the nonsense reading's arrival, or for
/// a meter gone silent its last reading (the origin when there was none).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MissingPower {
    pub from_s: f64,
    pub reason: String,
}

/// Everything a meter recorded.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PowerLog {
    /// The `--power-meter` value.
    pub meter: String,
    pub basis: Basis,
    /// What the numbers are, in words (for an estimate, that it is one).
    pub description: String,
    /// In time order.
    pub samples: Vec<PowerSample>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub missing: Option<MissingPower>,
    /// A reading stands for the power until the next one, but no longer than this: the
    /// meter's silence timeout.
    pub hold_s: f64,
    /// When recording ended, on the same timeline.
    pub end_s: f64,
    /// Readings averaged into the one kept before them: those past
    /// [`MAX_READINGS_PER_S`](super::MAX_READINGS_PER_S) in a second (a meter faster than
    /// any drive's).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub averaged: u64,
    /// How many readings the last sample is the mean of.
    #[serde(skip)]
    pub(super) in_last_sample: u32,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// The power over a window.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct PowerSummary {
    /// The mean of the readings (a meter reads at a steady rate, so each counts once;
    /// weighting by arrival gaps would only add the pipe's jitter).
    pub mean_w: f64,
    pub min_w: f64,
    pub max_w: f64,
    pub readings: usize,
    /// The window's length and how much of it readings cover (see [`PowerLog::hold_s`]).
    pub window_s: f64,
    pub covered_s: f64,
    pub basis: Basis,
}

/// The drive's power over one measured phase of a run and where it comes from (a result's
/// `power`); its per-second values go into the run's per-second series.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PhasePower {
    /// The `--power-meter` value, or "sim" for the simulator's energy model.
    pub source: String,
    /// Measured (a meter), estimate (the NVMe power-state table) or model (the simulator).
    pub basis: Basis,
    /// What the numbers are, in words.
    pub description: String,
    /// Mean, min and max watts over the phase and how much of it readings cover; `None`
    /// when there is no reading at all (power missing, never 0 W).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub summary: Option<PowerSummary>,
    /// The energy used over the phase, where the simulator models it exactly.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub energy_j: Option<f64>,
    /// The meter stopped giving readings: power is missing from `from_s` (seconds since the
    /// phase's start) on, and why.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub missing: Option<MissingPower>,
    /// What was done to the readings, when anything was (a meter too fast averaged).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

impl PhasePower {
    /// The simulator's energy model over a phase of `duration_s` that used `energy_j`: the
    /// mean is exact; min and max are those of the whole seconds.
    pub fn modelled(energy_j: f64, duration_s: f64, per_second: &[Option<f64>]) -> PhasePower {
        let mean_w = energy_j / duration_s.max(1e-9);
        let seconds = per_second.iter().flatten();
        PhasePower {
            source: "sim".into(),
            basis: Basis::Model,
            description: "the simulator's energy model (energy per NAND operation, per byte \
                          moved, controller, DRAM, idle and slumber power)"
                .into(),
            summary: Some(PowerSummary {
                mean_w,
                min_w: seconds.clone().copied().fold(mean_w, f64::min),
                max_w: seconds.copied().fold(mean_w, f64::max),
                readings: per_second.len(),
                window_s: duration_s,
                covered_s: duration_s,
                basis: Basis::Model,
            }),
            energy_j: Some(energy_j),
            missing: None,
            note: None,
        }
    }

    /// A meter's readings over the phase `[from_s, to_s)` of its timeline.
    pub fn metered(log: &PowerLog, from_s: f64, to_s: f64) -> PhasePower {
        PhasePower {
            source: log.meter.clone(),
            basis: log.basis,
            description: log.description.clone(),
            summary: log.summary(from_s, to_s),
            energy_j: None,
            missing: log
                .missing
                .as_ref()
                .filter(|m| m.from_s < to_s)
                .map(|m| MissingPower {
                    from_s: (m.from_s - from_s).max(0.0),
                    reason: m.reason.clone(),
                }),
            note: (log.averaged > 0).then(|| {
                format!(
                    "the meter gave more than {} readings a second: those past that \
                     are averaged into the one kept before them ({} readings folded in)",
                    super::MAX_READINGS_PER_S,
                    log.averaged
                )
            }),
        }
    }

    /// The mean watts, when any reading was taken.
    pub fn mean_w(&self) -> Option<f64> {
        self.summary.map(|s| s.mean_w)
    }
}

impl PowerSummary {
    /// Covered share of the window, 0..=1.
    pub fn coverage(&self) -> f64 {
        if self.window_s > 0.0 {
            (self.covered_s / self.window_s).clamp(0.0, 1.0)
        } else {
            1.0
        }
    }
}

impl PowerLog {
    /// The readings in `[from_s, to_s)`, or the reading still in force at `from_s` when the
    /// window holds none (a meter slower than the window). `None`: power is missing.
    pub fn summary(&self, from_s: f64, to_s: f64) -> Option<PowerSummary> {
        let inside = self.readings_in(from_s, to_s);
        let readings: &[PowerSample] = if inside.is_empty() {
            std::slice::from_ref(self.in_force_at(from_s)?)
        } else {
            inside
        };
        let watts = readings.iter().map(|s| s.watts);
        Some(PowerSummary {
            mean_w: watts.clone().sum::<f64>() / readings.len() as f64,
            min_w: watts.clone().fold(f64::INFINITY, f64::min),
            max_w: watts.fold(f64::NEG_INFINITY, f64::max),
            readings: readings.len(),
            window_s: (to_s - from_s).max(0.0),
            covered_s: self.covered_s(from_s, to_s),
            basis: self.basis,
        })
    }

    /// The mean power of each second of a run that started at `run_start_s` and ended at
    /// `run_end_s` (meter timeline): element `t` is second `t` of the run, as
    /// [`crate::measure::SecondPoint::t`] counts them, the last one possibly partial.
    pub fn per_second(&self, run_start_s: f64, run_end_s: f64) -> Vec<Option<f64>> {
        let seconds = (run_end_s - run_start_s).max(0.0).ceil() as u64;
        (0..seconds)
            .map(|t| {
                let from = run_start_s + t as f64;
                let to = (from + 1.0).min(run_end_s);
                self.summary(from, to).map(|s| s.mean_w)
            })
            .collect()
    }

    fn readings_in(&self, from_s: f64, to_s: f64) -> &[PowerSample] {
        let lo = self.samples.partition_point(|s| s.t_s < from_s);
        let hi = self.samples.partition_point(|s| s.t_s < to_s);
        &self.samples[lo..hi.max(lo)]
    }

    /// The last reading at or before `t_s`, if it still stands for the power then.
    fn in_force_at(&self, t_s: f64) -> Option<&PowerSample> {
        let i = self
            .samples
            .partition_point(|s| s.t_s <= t_s)
            .checked_sub(1)?;
        let s = &self.samples[i];
        (t_s < self.held_until(i)).then_some(s)
    }

    /// Where reading `i` stops standing for the power: the next reading, its hold running
    /// out, the meter failing or the end of recording, whichever comes first.
    fn held_until(&self, i: usize) -> f64 {
        let t = self.samples[i].t_s;
        let next = self.samples.get(i + 1).map_or(f64::INFINITY, |n| n.t_s);
        let failed = self.missing.as_ref().map_or(f64::INFINITY, |m| m.from_s);
        next.min(t + self.hold_s).min(self.end_s).min(failed)
    }

    /// How much of `[from_s, to_s)` readings cover.
    fn covered_s(&self, from_s: f64, to_s: f64) -> f64 {
        let first = self
            .samples
            .partition_point(|s| s.t_s <= from_s)
            .saturating_sub(1);
        (first..self.samples.len())
            .take_while(|&i| self.samples[i].t_s < to_s)
            .map(|i| {
                let lo = self.samples[i].t_s.max(from_s);
                let hi = self.held_until(i).min(to_s);
                (hi - lo).max(0.0)
            })
            .sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn log(samples: &[(f64, f64)], end_s: f64) -> PowerLog {
        PowerLog {
            meter: "test".into(),
            basis: Basis::Measured,
            description: String::new(),
            samples: samples
                .iter()
                .map(|&(t_s, watts)| PowerSample { t_s, watts })
                .collect(),
            missing: None,
            hold_s: 2.0,
            end_s,
            averaged: 0,
            in_last_sample: 0,
        }
    }

    #[test]
    fn summary_of_a_window() {
        let l = log(&[(0.1, 2.0), (0.6, 4.0), (1.1, 3.0), (1.6, 5.0)], 2.0);
        let s = l.summary(0.0, 1.0).unwrap();
        assert_eq!((s.mean_w, s.min_w, s.max_w, s.readings), (3.0, 2.0, 4.0, 2));
        // Nothing before the first reading: 0.9 of the second is covered.
        assert!((s.coverage() - 0.9).abs() < 1e-9);
        let whole = l.summary(0.0, 2.0).unwrap();
        assert_eq!(whole.mean_w, 3.5);
        assert!((whole.covered_s - 1.9).abs() < 1e-9);
    }

    #[test]
    fn no_readings_is_missing_not_zero() {
        let l = log(&[], 5.0);
        assert_eq!(l.summary(0.0, 5.0), None);
        assert_eq!(l.per_second(0.0, 2.5), vec![None, None, None]);
        // Past the hold of the last reading.
        let l = log(&[(0.5, 3.0)], 10.0);
        assert_eq!(l.summary(3.0, 4.0), None);
    }

    #[test]
    fn a_slow_meter_holds_its_reading_over_a_second_without_one() {
        let l = log(&[(0.5, 3.0), (2.5, 4.0)], 3.0);
        assert_eq!(
            l.per_second(0.0, 3.0),
            vec![Some(3.0), Some(3.0), Some(4.0)]
        );
        let s = l.summary(1.0, 2.0).unwrap();
        assert_eq!((s.readings, s.coverage()), (1, 1.0));
    }

    #[test]
    fn per_second_follows_the_run_start_and_a_partial_last_second() {
        // The run starts 0.25 s into the meter's timeline and lasts 1.5 s.
        let l = log(
            &[(0.2, 1.0), (0.3, 2.0), (1.2, 4.0), (1.3, 6.0), (1.8, 9.0)],
            3.0,
        );
        assert_eq!(l.per_second(0.25, 1.75), vec![Some(3.0), Some(6.0)]);
    }

    #[test]
    fn coverage_stops_at_the_end_of_recording() {
        let l = log(&[(0.0, 1.0), (0.5, 1.0)], 1.5);
        let s = l.summary(0.0, 4.0).unwrap();
        assert!((s.covered_s - 1.5).abs() < 1e-9 && s.coverage() < 0.4);
    }

    #[test]
    fn power_is_missing_after_the_meter_failed() {
        let mut l = log(&[(0.0, 2.0), (0.5, 2.0)], 4.0);
        l.missing = Some(MissingPower {
            from_s: 0.75,
            reason: "the meter command exited".into(),
        });
        let s = l.summary(0.0, 4.0).unwrap();
        assert!((s.covered_s - 0.75).abs() < 1e-9);
        assert_eq!(l.per_second(0.0, 3.0), vec![Some(2.0), None, None]);
    }
}
