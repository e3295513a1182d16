//! ssdlab's IO engine: every test is a workload driven against a device by the driver.
//!
//! - [`Device`]: the small contract every device implements, real or simulated.
//! - [`target`]: what `--target` names, a registry of openers; real targets run on `uring.rs`
//!   (io_uring, O_DIRECT), `sync.rs` (pread/pwrite threads) or `passthrough.rs` (NVMe commands
//!   through io_uring), each a queue under the one device of `wall.rs`, guarded by [`safety`].
//! - [`workload`] (with its [`shape`]) and [`driver`]: what to issue and the loop that issues it.
//! - [`measure`] and [`iolog`]: per-second buckets, latency histograms, busy time, per-IO log.
//! - [`verify`]: data verification (headers with LBA, generation and crc32c; read-backs).
//! - [`power`]: power meters for real drives (`--power-meter`): commands, hwmon, powercap and
//!   the NVMe power-state table as a labelled estimate.
//! - [`regular_file`]: reading a whole file a user names, refusing what is no regular file
//!   or too long to be what it should be.

mod affinity;
mod blockdev;
mod buffer;
pub mod counters;
mod device;
pub mod driver;
mod erase;
mod identity;
pub mod iolog;
pub mod measure;
mod passthrough;
pub mod pattern;
pub mod polling;
pub mod power;
pub mod regular_file;
pub mod replay;
pub mod safety;
pub mod served;
pub mod shape;
pub mod signatures;
pub mod size;
mod sync;
mod sysfs;
pub mod system;
pub mod target;
pub mod target_kind;
pub mod units;
mod uring;
pub mod verify;
mod wall;
pub mod workload;

pub use device::{
    Clock, Completion, DataNeed, Device, DeviceError, Geometry, Io, Op, QueueMaker, TrimmedReads,
};
/// The drive's own command set (NVMe admin, ATA pass-through), re-exported for the
/// crates that name its types through the device contract.
pub use drive;
pub use identity::Identity;
pub use target_kind::TargetKind;
