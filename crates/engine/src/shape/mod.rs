//! A workload's shape beyond one block size at uniform offsets, as fio and the SNIA PTS
//! write workloads: where random accesses land ([`Distribution`]), a mix of block sizes
//! ([`BlockMix`]), and when IOs are sent ([`Rate`], [`DutyCycle`]); and fio's fast
//! preconditioning order ([`SpRandom`]).

mod block_mix;
mod distribution;
mod pacing;
mod shares;
mod sprandom;

use serde::{Deserialize, Serialize};

pub use block_mix::{BlockMix, BlockMixError, BlockShare};
pub(crate) use distribution::Sampler;
pub use distribution::{Distribution, DistributionError, Zone, ZoneSize};
pub(crate) use pacing::Pacer;
pub use pacing::{Arrivals, DutyCycle, PacingError, Rate};
pub(crate) use sprandom::SpRandomOrder;
pub use sprandom::{SpRandom, SpRandomError};

/// The plain shape (uniform, one block size) is the default and is not stored, so results
/// of plain workloads read as they always did.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Shape {
    /// Where random accesses land; sequential workloads ignore it.
    #[serde(default, skip_serializing_if = "Distribution::is_uniform")]
    pub distribution: Distribution,
    /// Sizes drawn per IO instead of the workload's one block size, which is then the
    /// alignment of random offsets (the mix's smallest size, as fio's default `blockalign`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub block_mix: Option<BlockMix>,
    /// An open loop: IOs sent at this rate instead of whenever a slot is free.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate: Option<Rate>,
    /// Bursts with idle time between them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duty_cycle: Option<DutyCycle>,
}

impl Shape {
    pub fn is_plain(&self) -> bool {
        *self == Shape::default()
    }

    /// Check the pacing (distributions and mixes are checked against the span by the
    /// workload).
    pub fn check(&self) -> Result<(), PacingError> {
        self.rate.as_ref().map_or(Ok(()), Rate::check)?;
        self.duty_cycle.as_ref().map_or(Ok(()), DutyCycle::check)
    }
}
