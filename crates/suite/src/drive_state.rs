//! How full the drive is when a 2018-2021 review test runs: the reviews ran every synthetic
//! test and the Storage Bench twice, on a nearly empty drive and on a full one, since a
//! drive's SLC cache and its garbage collection both shrink as it fills.

use std::fmt;
use std::str::FromStr;

use engine::pattern::DataKind;
use engine::units::format_size;
use engine::Device;
use serde::{Deserialize, Serialize};

use crate::context::Context;
use crate::precondition;
use crate::result::Phase;
use crate::{ChoiceError, SuiteError};

/// The nearly empty drive's data, and the span its tests address.
pub const EMPTY_SPAN_BYTES: u64 = 32 << 30;
/// On a drive smaller than four times [`EMPTY_SPAN_BYTES`], the share it keeps for the
/// nearly empty state (a quarter: still mostly empty).
const EMPTY_SHARE: f64 = 0.25;
/// The full drive's share of its LBAs written.
pub const FULL_PCT: f64 = 80.0;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum DriveState {
    /// Purged, then its first 32 GiB written once; tests address those 32 GiB.
    #[default]
    Empty,
    /// Purged, then its first 80% written once; tests address all of that 80%.
    Full,
}

/// A drive brought to a state: what was done, and the region its tests address.
pub struct Prepared {
    pub phases: Vec<Phase>,
    pub span_bytes: u64,
    /// Why the region differs from the methodology's, on a small drive.
    pub adaptation: Option<String>,
}

impl DriveState {
    pub fn name(self) -> &'static str {
        match self {
            DriveState::Empty => "empty",
            DriveState::Full => "full",
        }
    }

    /// The region (from LBA 0) that holds data in this state, a multiple of `block`.
    pub fn span(self, capacity: u64, block: u32) -> (u64, Option<String>) {
        let block = u64::from(block.max(1));
        let (want, adaptation) = match self {
            DriveState::Full => ((capacity as f64 * FULL_PCT / 100.0) as u64, None),
            DriveState::Empty if EMPTY_SPAN_BYTES as f64 <= capacity as f64 * EMPTY_SHARE => {
                (EMPTY_SPAN_BYTES, None)
            }
            DriveState::Empty => {
                let span = (capacity as f64 * EMPTY_SHARE) as u64;
                let note = format!(
                    "nearly empty: {} written and tested (a quarter of the drive) instead of {}",
                    format_size(span / block * block),
                    format_size(EMPTY_SPAN_BYTES)
                );
                (span, Some(note))
            }
        };
        (want / block * block, adaptation)
    }

    /// Purge the drive, then write its state's region once, sequentially.
    pub fn prepare(
        self,
        ctx: &mut Context,
        dev: &mut dyn Device,
        block: u32,
        data: DataKind,
        seed: u64,
    ) -> Result<Prepared, SuiteError> {
        let capacity = dev.geometry().capacity_bytes;
        let (span_bytes, adaptation) = self.span(capacity, block);
        let mut phases = vec![precondition::purge(ctx, dev, 0, capacity)];
        if !ctx.stopped() {
            let (fill, _) = precondition::fill(ctx, dev, 0, span_bytes, data, seed, None)?;
            phases.push(fill);
        }
        Ok(Prepared {
            phases,
            span_bytes,
            adaptation,
        })
    }
}

impl fmt::Display for DriveState {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for DriveState {
    type Err = ChoiceError;

    fn from_str(text: &str) -> Result<DriveState, ChoiceError> {
        match text {
            "empty" => Ok(DriveState::Empty),
            "full" => Ok(DriveState::Full),
            other => Err(ChoiceError::Unknown {
                what: "drive state",
                given: other.into(),
                choices: format!("empty (its first 32 GiB written) or full ({FULL_PCT}% written)"),
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spans() {
        let gb = 1u64 << 30;
        assert_eq!(DriveState::Empty.span(250 * gb, 4096), (32 * gb, None));
        let (span, note) = DriveState::Empty.span(8 * gb, 4096);
        assert_eq!(span, 2 * gb);
        assert!(note.unwrap().contains("2 GiB"));
        assert_eq!(DriveState::Full.span(100 * gb, 128 << 10).0, 80 * gb);
        assert_eq!(DriveState::Full.span(1000, 512).0, 512);
    }

    #[test]
    fn names_parse_back() {
        for s in [DriveState::Empty, DriveState::Full] {
            assert_eq!(s.name().parse::<DriveState>(), Ok(s));
        }
        assert!("half"
            .parse::<DriveState>()
            .unwrap_err()
            .to_string()
            .contains("empty"));
    }
}
