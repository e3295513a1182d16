//! Write saturation's figures (SNIA PTS WSAT): a drive written from clean, IOPS round by round
//! against the time and against the total bytes written (TGBW), which shows where the write
//! cliff comes and how much data it takes to reach it.

use serde::{Deserialize, Serialize};

use engine::measure::SecondPoint;

/// The spec's round: IOPS are reported per minute.
pub const ROUND_S: u64 = 60;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SaturationAnalysis {
    /// The bytes that end the run: the spec's four times the capacity, or `--bytes`.
    pub bound_bytes: u64,
    /// One per round of [`ROUND_S`]; the last covers what remained of the run.
    pub rounds: Vec<Round>,
}

/// One round of the run.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Round {
    /// Seconds from the start of the run to the end of the round.
    pub end_s: f64,
    pub iops: f64,
    /// Total gigabytes (10^9 bytes) written by the end of the round.
    pub tgbw: f64,
}

impl SaturationAnalysis {
    /// The rounds of a run of `block_bytes` writes, from its IOs of every second.
    pub fn of(per_second: &[SecondPoint], block_bytes: u32, bound_bytes: u64) -> Self {
        let mut rounds = Vec::new();
        let (mut end_s, mut ios_total) = (0.0, 0u64);
        for round in per_second.chunk_by(|a, b| a.t / ROUND_S == b.t / ROUND_S) {
            let seconds: f64 = round.iter().map(|p| p.covered_s.unwrap_or(1.0)).sum();
            let ios: u64 = round.iter().map(|p| p.ios).sum();
            end_s += seconds;
            ios_total += ios;
            rounds.push(Round {
                end_s,
                iops: ios as f64 / seconds,
                tgbw: (ios_total * u64::from(block_bytes)) as f64 / 1e9,
            });
        }
        SaturationAnalysis {
            bound_bytes,
            rounds,
        }
    }

    pub fn first(&self) -> Option<&Round> {
        self.rounds.first()
    }

    pub fn last(&self) -> Option<&Round> {
        self.rounds.last()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn second(t: u64, ios: u64, covered_s: Option<f64>) -> SecondPoint {
        let mut p: SecondPoint = serde_json::from_value(serde_json::json!(
            {"t": t, "ios": ios, "iops": 0.0, "mbps": 0.0}))
        .unwrap();
        p.covered_s = covered_s;
        p
    }

    #[test]
    fn rounds_are_minutes_and_tgbw_adds_up() {
        // 90 s at 1000 IOs, the last second half covered.
        let mut run: Vec<SecondPoint> = (0..89).map(|t| second(t, 1000, None)).collect();
        run.push(second(89, 500, Some(0.5)));
        let a = SaturationAnalysis::of(&run, 4096, 1 << 30);
        assert_eq!(a.rounds.len(), 2);
        assert_eq!(a.rounds[0].end_s, 60.0);
        assert_eq!(a.rounds[0].iops, 1000.0);
        assert_eq!(a.rounds[0].tgbw, 60_000.0 * 4096.0 / 1e9);
        assert_eq!(a.rounds[1].end_s, 89.5);
        assert_eq!(a.rounds[1].iops, 29_500.0 / 29.5);
        assert_eq!(a.last().unwrap().tgbw, 89_500.0 * 4096.0 / 1e9);
    }
}
