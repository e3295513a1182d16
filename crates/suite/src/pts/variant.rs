//! The PTS's two variants: client (PTS-C) and enterprise (PTS-E).

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::ChoiceError;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PtsVariant {
    /// PTS-C: the drive's write cache on, stimuli over the first 75% of its LBAs.
    Client,
    /// PTS-E: the write cache off where the drive allows, stimuli over all of it.
    #[default]
    Enterprise,
}

impl PtsVariant {
    pub fn name(self) -> &'static str {
        match self {
            PtsVariant::Client => "client",
            PtsVariant::Enterprise => "enterprise",
        }
    }

    /// PTS-C or PTS-E's letter.
    pub fn letter(self) -> char {
        match self {
            PtsVariant::Client => 'C',
            PtsVariant::Enterprise => 'E',
        }
    }

    /// The share of the LBAs the stimuli address (the spec's ActiveRange).
    pub fn active_range_pct(self) -> f64 {
        match self {
            PtsVariant::Client => 75.0,
            PtsVariant::Enterprise => 100.0,
        }
    }

    /// Threads and IOs in flight per thread for the IOPS test. The spec leaves them to the
    /// operator and asks the report to state them; these are the values its reference
    /// reports use (T2Q16 for a client drive, T4Q32 for an enterprise one, as WSAT).
    pub fn load(self) -> (u32, u32) {
        match self {
            PtsVariant::Client => (2, 16),
            PtsVariant::Enterprise => (4, 32),
        }
    }

    /// What the spec asks of the write cache.
    pub fn write_cache(self) -> &'static str {
        match self {
            PtsVariant::Client => "enabled",
            PtsVariant::Enterprise => "disabled where the drive allows",
        }
    }
}

impl fmt::Display for PtsVariant {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for PtsVariant {
    type Err = ChoiceError;

    fn from_str(text: &str) -> Result<PtsVariant, ChoiceError> {
        match text {
            "client" | "c" | "pts-c" => Ok(PtsVariant::Client),
            "enterprise" | "e" | "pts-e" => Ok(PtsVariant::Enterprise),
            other => Err(ChoiceError::Unknown {
                what: "PTS variant",
                given: other.into(),
                choices: "client (PTS-C) or enterprise (PTS-E)".into(),
            }),
        }
    }
}
