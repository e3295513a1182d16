//! The SNIA Solid State Storage Performance Test Specification 2.0.2 (PTS): what its tests
//! share. A PTS test purges the drive, preconditions it independently of the workload, then
//! runs its stimuli in rounds until its tracking variable is steady, and reports each
//! stimulus over the last five rounds (the measurement window). The tests themselves (IOPS,
//! throughput, latency) are files of `methodology`, each a list of stimuli over this frame.

mod analysis;
pub mod demand;
mod frame;
mod stimulus;
mod variant;
mod write_cache;

pub use analysis::{Bin, Cell, Figure, PtsAnalysis, Sequence, WindowLatency};
pub use frame::{Frame, ROUND_S};
pub use stimulus::{size_label, Schedule, Stimulus};
pub use variant::PtsVariant;
pub use write_cache::WriteCacheRecord;
