//! ssdlab's IO engine: every test is a workload driven against a device by the driver.
//!
//! - [`device`]: the small contract every device implements, real or simulated.
//! - [`target`]: what `--target` names; real targets run on [`uring`] (io_uring, O_DIRECT)
//!   or [`sync`] (pread/pwrite threads), guarded by [`safety`].
//! - [`workload`] and [`driver`]: what to issue and the loop that issues it.
//! - [`measure`] and [`iolog`]: per-second buckets, latency histograms, busy time, per-IO log.
//! - [`verify`]: data verification (headers with LBA, generation and crc32c; read-backs).

pub mod blockdev;
pub mod buffer;
pub mod device;
pub mod driver;
pub mod identity;
pub mod iolog;
pub mod measure;
pub mod pattern;
pub mod replay;
pub mod safety;
pub mod size;
pub mod sync;
pub mod sysfs;
pub mod system;
pub mod target;
pub mod uring;
pub mod verify;
pub mod workload;

pub use device::{
    Clock, Completion, DataNeed, Device, DeviceError, Geometry, Io, Op, TrimmedReads,
};
pub use identity::Identity;
