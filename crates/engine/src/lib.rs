//! ssdlab's IO engine: every test is a workload driven against a device by the driver.
//!
//! - [`device`]: the small contract every device implements (real or simulated).
//! - backends: [`uring`] (io_uring, O_DIRECT) and [`sync`] (pread/pwrite threads).
//! - [`workload`] and [`driver`]: what to issue and the loop that issues it.
//! - [`measure`]: per-second buckets, latency histograms, busy time, per-IO log.

pub mod device;
pub mod identity;

pub use device::{Clock, Completion, Device, DeviceError, Geometry, Io, Op};
pub use identity::Identity;
