//! A PTS test's figures: its rounds, where steady state was found, and every stimulus over
//! the measurement window, with the header the spec's report starts with.

use serde::{Deserialize, Serialize};

use engine::measure::Summary;

use super::{PtsVariant, Stimulus};
use crate::methodology::steady_state::Rule;

/// The figure a test tracks to steady state and reports first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Figure {
    Iops,
    Mbps,
    /// The mean response time (the spec's ART), in microseconds.
    MeanLatency,
}

impl Figure {
    pub fn of(self, s: &Summary) -> f64 {
        match self {
            Figure::Iops => s.iops,
            Figure::Mbps => s.mbps,
            Figure::MeanLatency => {
                let dirs = [&s.read, &s.write];
                let (sum, ios) = dirs
                    .iter()
                    .filter_map(|d| d.as_ref())
                    .fold((0.0, 0u64), |(sum, ios), d| {
                        (sum + d.latency_us.mean * d.ios as f64, ios + d.ios)
                    });
                sum / ios.max(1) as f64
            }
        }
    }

    pub fn unit(self) -> &'static str {
        match self {
            Figure::Iops => "IOPS",
            Figure::Mbps => "MB/s",
            Figure::MeanLatency => "us",
        }
    }
}

/// Response times over the measurement window's IOs together (not averaged per round).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct WindowLatency {
    pub mean_us: f64,
    /// The spec's "five nines" response time.
    pub p99999_us: f64,
    pub max_us: f64,
}

/// Response times up to `upper_us` (from the previous bin's), and how many IOs had them.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Bin {
    pub upper_us: f64,
    pub ios: u64,
}

/// One stimulus: its figure every round and its figures over the measurement window.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Cell {
    #[serde(flatten)]
    pub stimulus: Stimulus,
    /// Its tracked figure in each round, from the first.
    pub rounds: Vec<f64>,
    /// Means over the measurement window's rounds.
    pub iops: f64,
    pub mbps: f64,
    pub latency: WindowLatency,
    /// The window's response times in bins doubling from 1 us, for the stimuli a test plots
    /// them for (a sweep's highest, middle and lowest IOPS points).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub histogram: Option<Vec<Bin>>,
}

/// Rounds of a list of stimuli from one preconditioned drive until the tracking variable is
/// steady. Most tests are one sequence; throughput runs one per block size.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Sequence {
    pub figure: Figure,
    /// The cell whose figure decides steady state (the spec's tracking variable).
    pub tracking: usize,
    pub reached: bool,
    /// Rounds run.
    pub rounds: usize,
    /// The measurement window's first and last round, 1-based: the steady window, or the
    /// last rounds run when steady state was not reached.
    pub window: (usize, usize),
    pub cells: Vec<Cell>,
}

impl Sequence {
    pub fn tracking_cell(&self) -> &Cell {
        &self.cells[self.tracking]
    }

    /// Whether the steady-state rule held, in words: "steady state reached at round 12
    /// (window: rounds 8-12)", or "steady state NOT reached after 25 rounds (the figures are
    /// rounds 21-25's)".
    pub fn verdict(&self) -> String {
        let (first, last) = self.window;
        match (self.reached, self.rounds) {
            (_, 0) => "no round completed".into(),
            (true, _) => format!("steady state reached at round {last} (window: rounds {first}-{last})"),
            (false, n) => format!(
                "steady state NOT reached after {n} round{} (the figures are rounds {first}-{last}'s)",
                if n == 1 { "" } else { "s" }
            ),
        }
    }

    /// The tracking stimulus's answer over the window, as the spec's report gives it:
    /// "RND 4KiB 0/100 3196 IOPS" (a sweep's with its load, "T32Q32"; a response time's
    /// "mean response time 118.2 us").
    pub fn answer(&self) -> String {
        let c = self.tracking_cell();
        let st = &c.stimulus;
        let name = match self
            .cells
            .iter()
            .any(|o| (o.stimulus.threads, o.stimulus.qd) != (st.threads, st.qd))
        {
            true => format!("{} T{}Q{}", st.label(), st.threads, st.qd),
            false => st.label(),
        };
        match self.figure {
            Figure::Iops => format!("{name} {:.0} IOPS", c.iops),
            // Throughput's writes (tracked) and reads, both the spec's figures.
            Figure::Mbps => (self.cells.iter())
                .map(|c| format!("{} {:.1} MB/s", c.stimulus.label(), c.mbps))
                .collect::<Vec<_>>()
                .join(", "),
            Figure::MeanLatency => {
                format!("{name} mean response time {:.1} us", c.latency.mean_us)
            }
        }
    }

    /// [`Self::answer`] with what it is: "..., steady-state window mean (rounds 8-12)" or
    /// "..., mean of rounds 21-25: steady state NOT reached after 25 rounds".
    pub fn headline(&self) -> String {
        let (first, last) = self.window;
        match (self.reached, self.rounds) {
            (_, 0) => format!(
                "{}: no round completed",
                self.tracking_cell().stimulus.label()
            ),
            (true, _) => format!(
                "{}, steady-state window mean (rounds {first}-{last})",
                self.answer()
            ),
            (false, n) => format!(
                "{}, mean of rounds {first}-{last}: steady state NOT reached after {n} rounds",
                self.answer()
            ),
        }
    }

    /// The tracked figure over the window.
    pub fn tracked(&self) -> f64 {
        let c = self.tracking_cell();
        let (first, last) = self.window;
        let w = &c.rounds[first - 1..last];
        w.iter().sum::<f64>() / w.len().max(1) as f64
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PtsAnalysis {
    pub variant: PtsVariant,
    /// 1: the spec's durations; less with `--pts-scale`, a deviation.
    pub scale: f64,
    /// Bytes of 128 KiB sequential writes before the rounds (the spec's WIPC: twice the
    /// capacity).
    pub wipc_bytes: u64,
    /// Seconds each stimulus runs per round.
    pub round_s: f64,
    pub rule: Rule,
    pub sequences: Vec<Sequence>,
}

impl PtsAnalysis {
    /// The test's answer: each sequence's [`Sequence::headline`].
    pub fn headline(&self) -> String {
        let each: Vec<String> = self.sequences.iter().map(Sequence::headline).collect();
        each.join("; ")
    }
}
