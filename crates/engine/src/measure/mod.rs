//! Measurements of a run: every completed IO lands in exactly one one-second bucket (by
//! completion time), in a latency histogram of its direction, and in the busy-time and
//! queue-depth integrals. Nothing here allocates per IO.
//!
//! Memory grows with the seconds that saw IO, never with the run's span: only seconds with a
//! completion are kept as buckets, and an idle period (nothing in flight) covering
//! [`IDLE_RUN_S`] or more whole seconds appears in the per-second series as its first and
//! last second only (at zero); [`Summary::idle_seconds_omitted`] counts the seconds left out.
//! A trace idle for years between two IOs costs a few points, not years of them.
//!
//! Three concepts, a file each: `recorder` is the hot path each IO goes through ([`Recorder`],
//! [`EnergyProbe`]); `latency_window` keeps each second's latency percentiles in fio's
//! histogram ([`LatencyWindow`]); `summary` is the schema a run's result is written as
//! ([`Measurements`], [`Summary`] and the records in it), whose field names are a contract.

mod coarse;
pub mod hist_log;
mod latency_histograms;
mod latency_seconds;
mod latency_window;
mod recorder;
mod summary;

pub use coarse::{point_seconds, MAX_POINTS};
pub use latency_histograms::LatencyHistograms;
pub use latency_seconds::LatencySeconds;
pub use latency_window::{bucket_of, bucket_value, LatencyWindow, SecondLatency, PLAT_NR};
pub use recorder::{EnergyProbe, Recorder};
pub use summary::{CpuUsage, DirSummary, LatencyStats, Measurements, SecondPoint, Summary};

const NS: u64 = 1_000_000_000;

/// An idle period covering at least this many whole seconds is kept in the per-second series
/// as its first and last second only.
pub const IDLE_RUN_S: u64 = 3;

/// How often a run samples a device's energy counter, per second of its clock.
pub const ENERGY_SAMPLES_PER_S: u64 = 10;
