//! A trace played back on a target (`ssdlab trace replay`): a run of its own kind, carried
//! by the same lifecycle as a test's.

use std::path::PathBuf;

use engine::units::format_size;
use engine::Device;
use suite::context::Context;
use suite::replay::{Plan, Remap};
use suite::result::TestResult;

use crate::RunError;

/// What a replay plays and how: the trace, its first pass's figures and the plan made of it.
pub struct Replay {
    pub trace: PathBuf,
    pub read: trace::ReadOptions,
    /// The trace's own figures, from a pass before the replay: for progress, the fidelity
    /// report and the warnings.
    pub stats: trace::Stats,
    pub plan: Plan,
}

impl Replay {
    /// Before the replay starts, when the trace addresses bytes past the target's end: those
    /// IOs land elsewhere than the trace put them.
    pub fn beyond_target(&self, capacity: u64) -> Option<String> {
        let highest = self.stats.highest_byte.filter(|&h| h >= capacity)?;
        let how = match self.plan.remap {
            Remap::Scale { .. } => {
                "every offset is scaled by the target's capacity over the trace's span"
            }
            Remap::Wrap => {
                "the IOs past its end wrap (offset modulo its capacity): give `--remap scale` \
                 to move every offset in proportion"
            }
        };
        Some(format!(
            "{} addresses bytes {} to {highest} ({}), the target holds {}: {how}; the result \
             counts the IOs remapped",
            self.trace.display(),
            self.stats.lowest_byte.unwrap_or(0),
            format_size(highest + 1),
            format_size(capacity)
        ))
    }

    /// Play the trace on `dev`; a malformed line ends it, an error naming the line.
    pub fn measure(
        &self,
        dev: &mut dyn Device,
        ctx: &mut Context,
    ) -> Result<Vec<TestResult>, RunError> {
        let reader = trace::open_with(&self.trace, self.read)?;
        let mut bad = None;
        let records = reader.map_while(|r| r.map_err(|e| bad = Some(e)).ok());
        let name = self.trace.display().to_string();
        let result = suite::replay::run(
            dev,
            ctx,
            suite::TestId::Replay,
            None,
            &name,
            records,
            self.plan,
            self.stats.avg_queue_depth,
            Some(self.stats.ios),
        )?;
        match bad {
            Some(error) => Err(RunError::BadTrace(error)),
            None => Ok(vec![result]),
        }
    }
}
