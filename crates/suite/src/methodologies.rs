//! The methodologies `ssdlab suite` follows: the 2013 reviews' suite (the default) and
//! CrystalDiskMark's quick profile. Each is a plan of steps; a suite records which it ran,
//! so `--resume` carries on the same plan.

use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::methodology::TestId;
use crate::params::Overrides;
use crate::runner::{self, Step};

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Methodology {
    /// The classic reviews' suite (METHODOLOGY.md).
    #[default]
    Review2013,
    /// CrystalDiskMark's default profile (`ssdlab quick`).
    Quick,
}

impl Methodology {
    pub fn name(self) -> &'static str {
        match self {
            Methodology::Review2013 => "review-2013",
            Methodology::Quick => "quick",
        }
    }

    pub fn is_default(&self) -> bool {
        *self == Methodology::default()
    }

    /// Its steps; `quick` scales the review's durations and regions for small or slow
    /// targets (the quick profile is short already).
    pub fn steps(self, quick: bool) -> Vec<Step> {
        match self {
            Methodology::Review2013 => runner::plan(quick),
            Methodology::Quick => vec![Step {
                id: TestId::Quick.name().into(),
                test: TestId::Quick,
                overrides: Overrides::default(),
            }],
        }
    }
}

impl FromStr for Methodology {
    type Err = String;

    fn from_str(text: &str) -> Result<Methodology, String> {
        match text {
            "review-2013" => Ok(Methodology::Review2013),
            "quick" => Ok(Methodology::Quick),
            "pts-c" | "pts-e" | "review-2021" => Err(format!(
                "the {text} methodology is not built yet: use review-2013 (the default) or quick"
            )),
            other => Err(format!(
                "unknown methodology '{other}': use review-2013 (the default) or quick"
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_parse_back() {
        for m in [Methodology::Review2013, Methodology::Quick] {
            assert_eq!(m.name().parse::<Methodology>(), Ok(m));
        }
        assert!("pts-e"
            .parse::<Methodology>()
            .unwrap_err()
            .contains("not built yet"));
        assert_eq!(Methodology::Quick.steps(false)[0].test, TestId::Quick);
    }
}
