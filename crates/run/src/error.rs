//! Why a run could not be made or carried out, each naming the flag or file and the fix.

use std::fmt;
use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum RunError {
    #[error("unknown test '{name}'{hint}: use one of {names} (`ssdlab tests` describes them)")]
    UnknownTest {
        name: String,
        /// " (did you mean ...?)", or empty.
        hint: String,
        names: String,
    },
    /// Flags that do not go together, or a value only the test or target can check.
    #[error("{0}")]
    Flags(String),
    #[error(transparent)]
    Data(#[from] engine::pattern::UnknownDataKind),
    /// A file the run would write (`--json`, `--iolog`, `--hist-log`) cannot be.
    #[error("{0}")]
    OutputPath(String),
    #[error(transparent)]
    Suite(#[from] suite::SuiteError),
    /// A worker of several drives' reviews panicked.
    #[error(transparent)]
    Panicked(#[from] suite::parallel::Panicked),
    #[error(transparent)]
    MeterSpec(#[from] engine::power::SpecError),
    #[error(transparent)]
    Meter(#[from] engine::power::MeterError),
    /// The results directory could not be written: what of it was kept.
    #[error("{error}\n  {kept}")]
    ResultsUnwritten {
        error: suite::SuiteError,
        kept: Kept,
    },
    #[error(transparent)]
    Trace(#[from] trace::TraceError),
    /// A malformed line in the trace ended its replay.
    #[error("{0} (replayed up to there; use `trace convert --skip-bad` to clean the trace)")]
    BadTrace(trace::TraceError),
    #[error("--fio {}: {error}", path.display())]
    FioJob {
        path: PathBuf,
        error: crate::fio_job::FioJobError,
    },
    #[error("{} holds no ssdlab results", .0.display())]
    NoResults(PathBuf),
    #[error(
        "the run completed no IO, so there is no figure to keep and nothing is stored: give a \
         longer --duration, or a smaller --bs or --qd"
    )]
    NoIo,
}

/// What a results directory that could not be written holds.
#[derive(Debug)]
pub struct Kept {
    pub dir: PathBuf,
    /// The results written before the failure.
    pub results: usize,
}

impl fmt::Display for Kept {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self.results {
            0 => write!(f, "no result could be written: nothing is kept"),
            n => write!(
                f,
                "results: {} (the {n} result(s) written before the failure)",
                self.dir.display()
            ),
        }
    }
}
