//! The review suite: the tests of docs/methodology.md on any target, the preconditioning they
//! need, and the self-describing results they produce.

mod analysis;
mod choice_error;
pub mod console;
pub mod context;
pub mod drive_state;
pub mod fill_curve;
pub mod fresh_instances;
pub mod latency_target;
pub mod methodologies;
pub mod parallel;
pub mod params;
mod precondition;
pub mod pts;
pub mod recovery;
pub mod replay;
pub mod result;
pub mod results_dir;
pub mod runner;
pub mod saturation;
mod stats;
pub mod steps;
pub mod target;

pub use analysis::Analysis;
pub use choice_error::ChoiceError;
pub use methodology::TestId;
pub use precondition::{fill_workload, purge, Precondition, PreconditionUnused};
// The twin's scorecard reads the same statistics of a series as the tests' results.
pub use stats::{deciles, drop_time, series_stats, SeriesStats};
pub mod methodology;

/// What the suite's functions return: most fail with a [`SuiteError`].
pub type Result<T, E = SuiteError> = std::result::Result<T, E>;

#[derive(Debug, thiserror::Error)]
pub enum SuiteError {
    #[error("unknown test '{0}': use one of {1}")]
    UnknownTest(String, String),
    #[error("{0}")]
    Parameter(String),
    #[error("{0}")]
    Target(String),
    #[error(transparent)]
    TargetOpen(#[from] engine::target::TargetError),
    #[error(transparent)]
    Driver(#[from] engine::driver::DriverError),
    #[error("{0}")]
    Output(String),
    #[error("{0}")]
    Unavailable(String),
    #[error("interrupted before anything was measured")]
    Interrupted,
}
