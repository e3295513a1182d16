//! The methodologies `ssdlab suite` follows: the 2013 reviews' suite (the default), the
//! 2018-2021 reviews', CrystalDiskMark's quick profile and the SNIA PTS 2.0.2, client and
//! enterprise. Each is a
//! plan of steps; a suite records which it ran, so `--resume` carries on the same plan.

use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::drive_state::DriveState;
use crate::methodology::TestId;
use crate::params::Overrides;
use crate::pts::PtsVariant;
use crate::runner::{self, Step};
use crate::ChoiceError;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Methodology {
    /// The classic reviews' suite (docs/methodology.md).
    #[default]
    Review2013,
    /// The 2018-2021 reviews' suite: the whole-drive fill, queue-depth and mixed sweeps and
    /// the Storage Bench on an empty and on a full drive, idle wake-up and idle power.
    Review2021,
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
    /// Every methodology, the default first: what `--methodology` takes and its help lists.
    pub const ALL: [Methodology; 5] = [
        Methodology::Review2013,
        Methodology::Review2021,
        Methodology::Quick,
        Methodology::PtsC,
        Methodology::PtsE,
    ];

    /// What it is, in a few words.
    pub fn about(self) -> &'static str {
        match self {
            Methodology::Review2013 => "the classic reviews' suite, the default",
            Methodology::Review2021 => "the 2018-2021 reviews' suite",
            Methodology::Quick => "CrystalDiskMark's default profile, as `ssdlab quick`",
            Methodology::PtsC => "the SNIA PTS 2.0.2 for client drives",
            Methodology::PtsE => "the SNIA PTS 2.0.2 for enterprise drives",
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Methodology::Review2013 => "review-2013",
            Methodology::Review2021 => "review-2021",
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
            Methodology::Review2021 => review_2021(quick),
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

/// The tests the 2018-2021 reviews ran on an empty and again on a full drive.
const BY_STATE: [TestId; 7] = [
    TestId::SweepRandomRead,
    TestId::SweepRandomWrite,
    TestId::SweepSeqRead,
    TestId::SweepSeqWrite,
    TestId::MixedRandom,
    TestId::MixedSeq,
    TestId::StorageBench,
];

/// The 2018-2021 reviews' steps: the whole-drive fill, the tests by drive state, then the
/// idle tests. `quick` runs each step of a sweep 5 s and the Storage Bench at 2% of its size.
fn review_2021(quick: bool) -> Vec<Step> {
    let step = |test: TestId, id: String, overrides: Overrides| Step {
        id,
        test,
        overrides,
    };
    let mut steps = vec![step(
        TestId::WholeDriveFill,
        TestId::WholeDriveFill.name().into(),
        Overrides::default(),
    )];
    for state in [DriveState::Empty, DriveState::Full] {
        steps.extend(BY_STATE.map(|test| {
            let quick = quick.then_some(test);
            let o = Overrides {
                state: Some(state),
                trace_scale: (quick == Some(TestId::StorageBench)).then_some(0.02),
                duration_s: quick.filter(|&t| t != TestId::StorageBench).map(|_| 5.0),
                ..Overrides::default()
            };
            step(test, format!("{test}-{state}"), o)
        }));
    }
    // Quick: rest 1 s, and measure idle power 10 s.
    for test in [TestId::IdleWake, TestId::PowerIdle, TestId::PowerSlumber] {
        let o = match quick {
            false => Overrides::default(),
            true => Overrides {
                rest_s: Some(1.0),
                duration_s: (test != TestId::IdleWake).then_some(10.0),
                ..Overrides::default()
            },
        };
        steps.push(step(test, test.name().into(), o));
    }
    steps
}

impl FromStr for Methodology {
    type Err = ChoiceError;

    fn from_str(text: &str) -> Result<Methodology, ChoiceError> {
        let names: Vec<&str> = Methodology::ALL.iter().map(|m| m.name()).collect();
        Methodology::ALL
            .into_iter()
            .find(|m| m.name() == text)
            .ok_or_else(|| ChoiceError::Unknown {
                what: "methodology",
                given: text.into(),
                choices: names.join(", "),
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_parse_back() {
        for m in Methodology::ALL {
            assert_eq!(m.name().parse::<Methodology>(), Ok(m));
        }
        assert!("review-2022"
            .parse::<Methodology>()
            .unwrap_err()
            .to_string()
            .contains("review-2021"));
        assert_eq!(Methodology::Quick.steps(false)[0].test, TestId::Quick);
        let pts = Methodology::PtsC.steps(true);
        assert_eq!(pts[0].test, TestId::PtsIops);
        assert!(pts
            .iter()
            .all(|s| s.overrides.pts_variant == Some(PtsVariant::Client)
                && s.overrides.pts_scale == Some(PTS_QUICK_SCALE)));
    }

    /// Every test the 2018-2021 reviews ran by state runs once empty and once full, each
    /// step named after both; every step's overrides are ones its test takes.
    #[test]
    fn review_2021_runs_each_state_once_per_test() {
        for quick in [false, true] {
            let steps = Methodology::Review2021.steps(quick);
            for test in BY_STATE {
                for state in [DriveState::Empty, DriveState::Full] {
                    let found: Vec<&Step> = (steps.iter())
                        .filter(|s| s.test == test && s.overrides.state == Some(state))
                        .collect();
                    assert_eq!(found.len(), 1, "{test} {state}");
                    assert_eq!(found[0].id, format!("{test}-{state}"));
                }
            }
            let mut ids: Vec<&str> = steps.iter().map(|s| s.id.as_str()).collect();
            ids.sort();
            ids.dedup();
            assert_eq!(ids.len(), steps.len());
            for s in &steps {
                let test = crate::methodology::get(s.test).unwrap();
                s.overrides.validate(test).unwrap();
            }
        }
    }
}
