//! What a run left: its results, where they are, what was lost, and how it ended.

use std::path::PathBuf;

use suite::result::TestResult;

use crate::results;

/// A run carried out: its results written (unless to nowhere) and stored.
pub struct Outcome {
    /// The results directory; None for a run whose results go nowhere.
    pub dir: Option<PathBuf>,
    pub run_id: String,
    pub results: Vec<TestResult>,
    pub report: Option<PathBuf>,
    /// What of the run was lost besides its results (a log or `--json` that could not be
    /// written), a sentence each.
    pub lost: Vec<String>,
    /// Ctrl-C came before the run ended.
    pub interrupted: bool,
}

/// How a run ended, worst first.
#[derive(Debug, PartialEq)]
pub enum Ending {
    /// Measured and kept, but something named in [`Outcome::lost`] is not.
    Lost,
    /// Verification found data that did not read back as written: what to tell.
    Corrupt(String),
    /// An IO failed: why.
    Failed(String),
    /// Stopped before its end (interrupted, or a limit), its results kept incomplete.
    Incomplete,
    Complete,
}

impl Outcome {
    pub fn ending(&self) -> Ending {
        let any = !self.results.is_empty();
        if any && !self.lost.is_empty() {
            Ending::Lost
        } else if let Some(text) = results::corruption(&self.results) {
            Ending::Corrupt(text)
        } else if any && self.results.iter().all(|r| r.complete) {
            Ending::Complete
        } else if let Some(why) = results::failure(&self.results) {
            Ending::Failed(why.to_string())
        } else {
            Ending::Incomplete
        }
    }

    /// The command's exit status: 0 complete, 130 interrupted, 1 anything else kept short.
    pub fn exit_code(&self) -> u8 {
        match self.ending() {
            Ending::Complete => 0,
            Ending::Incomplete if self.interrupted => 130,
            _ => 1,
        }
    }
}
