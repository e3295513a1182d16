//! The methodologies `ssdlab suite` follows: the 2013 reviews' suite (the default),
//! CrystalDiskMark's quick profile and the SNIA PTS 2.0.2, client and enterprise. Each is a
//! plan of steps; a suite records which it ran, so `--resume` carries on the same plan.

use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::methodology::TestId;
use crate::params::Overrides;
use crate::pts::PtsVariant;
use crate::runner::{self, Step};

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Methodology {
    /// The classic reviews' suite (METHODOLOGY.md).
    #[default]
    Review2013,
    /// CrystalDiskMark's default profile (`ssdlab quick`).
    Quick,
    /// The SNIA PTS 2.0.2 for client drives.
    PtsC,
    /// The SNIA PTS 2.0.2 for enterprise drives.
    PtsE,
}

/// The PTS tests built so far, in the spec's order.
const PTS_TESTS: [TestId; 8] = [
    TestId::PtsIops,
    TestId::PtsThroughput,
    TestId::PtsLatency,
    TestId::Wsat,
    TestId::PtsHir,
    TestId::PtsXsr,
    TestId::PtsCbw,
    TestId::PtsDirth,
];

/// `suite --quick` runs the PTS at this `--pts-scale`.
pub const PTS_QUICK_SCALE: f64 = 0.05;

impl Methodology {
    pub fn name(self) -> &'static str {
        match self {
            Methodology::Review2013 => "review-2013",
            Methodology::Quick => "quick",
            Methodology::PtsC => "pts-c",
            Methodology::PtsE => "pts-e",
        }
    }

    pub fn is_default(&self) -> bool {
        *self == Methodology::default()
    }

    /// Whether each of its steps starts from a purged drive, owing nothing to the steps before
    /// it (the PTS purges before every test): then they may run at once, each on a fresh
    /// instance of a simulated drive.
    pub fn steps_each_purge(self) -> bool {
        matches!(self, Methodology::PtsC | Methodology::PtsE)
    }

    /// Its steps; `quick` scales the review's durations and regions for small or slow
    /// targets, the PTS's by [`PTS_QUICK_SCALE`] (the quick profile is short already).
    pub fn steps(self, quick: bool) -> Vec<Step> {
        match self {
            Methodology::Review2013 => runner::plan(quick),
            Methodology::Quick => vec![Step {
                id: TestId::Quick.name().into(),
                test: TestId::Quick,
                overrides: Overrides::default(),
            }],
            Methodology::PtsC | Methodology::PtsE => {
                let variant = match self {
                    Methodology::PtsC => PtsVariant::Client,
                    _ => PtsVariant::Enterprise,
                };
                let overrides = Overrides {
                    pts_variant: Some(variant),
                    pts_scale: quick.then_some(PTS_QUICK_SCALE),
                    ..Overrides::default()
                };
                PTS_TESTS
                    .iter()
                    .map(|&test| Step {
                        id: test.name().into(),
                        test,
                        overrides: overrides.clone(),
                    })
                    .collect()
            }
        }
    }
}

impl FromStr for Methodology {
    type Err = String;

    fn from_str(text: &str) -> Result<Methodology, String> {
        match text {
            "review-2013" => Ok(Methodology::Review2013),
            "quick" => Ok(Methodology::Quick),
            "pts-c" => Ok(Methodology::PtsC),
            "pts-e" => Ok(Methodology::PtsE),
            "review-2021" => Err(format!(
                "the {text} methodology is not built yet: use review-2013 (the default), quick, \
                 pts-c or pts-e"
            )),
            other => Err(format!(
                "unknown methodology '{other}': use review-2013 (the default), quick, pts-c or \
                 pts-e"
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_parse_back() {
        for m in [
            Methodology::Review2013,
            Methodology::Quick,
            Methodology::PtsC,
            Methodology::PtsE,
        ] {
            assert_eq!(m.name().parse::<Methodology>(), Ok(m));
        }
        assert!("review-2021"
            .parse::<Methodology>()
            .unwrap_err()
            .contains("not built yet"));
        assert_eq!(Methodology::Quick.steps(false)[0].test, TestId::Quick);
        let pts = Methodology::PtsC.steps(true);
        assert_eq!(pts[0].test, TestId::PtsIops);
        assert!(pts
            .iter()
            .all(|s| s.overrides.pts_variant == Some(PtsVariant::Client)
                && s.overrides.pts_scale == Some(PTS_QUICK_SCALE)));
    }
}
