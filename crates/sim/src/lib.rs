//! ssdlab's simulated SSD: NAND geometry and timing, a page-mapping FTL with garbage
//! collection, spare area, TRIM, a pseudo-SLC write cache and a write buffer, behind the
//! engine's [`engine::Device`] contract on a **virtual clock**, so a 2000-second test takes
//! as long as the simulation needs.
//!
//! - [`open`]: a drive from a spec (what follows `sim:`): `default`,
//!   `ultra-plus-256,op=25%,gc=fifo,capacity=8GiB`, or `drive.toml`;
//! - [`presets`], [`resolve`] and [`Config::describe`] for `ssdlab sim list/show`.
//!
//! The simulator looks at data only when asked ([`data`]): with `data=stamp` reads return
//! zeros for unmapped (never written or trimmed) 4 KiB units and a deterministic non-zero
//! stamp of the unit's LBA ([`lba_stamp`]) for mapped ones; with `data=on` it keeps what is
//! written. `faults=` injects lost, flipped, misdirected and torn writes into the kept data
//! ([`faults`]).
//!
//! Files are named after what they model, in MQSim's vocabulary: [`geometry`], [`timing`],
//! [`mapping`], [`block_manager`], [`victim`], [`write_buffer`], [`energy`], [`ftl`] (and its
//! units: the GC scheduler, the pseudo-SLC cache, the TRIM unit), [`preset`] (keys and their
//! [`range`]s), [`config`], [`counters`], [`ssd`]; the data a drive
//! returns in [`data`], injected faults in [`faults`].

pub mod block_manager;
pub mod config;
pub mod counters;
pub mod data;
pub mod describe;
pub mod drives;
pub mod energy;
pub mod error;
pub mod faults;
pub mod ftl;
pub mod geometry;
pub mod mapping;
pub mod preset;
pub mod range;
pub mod ssd;
pub mod timing;
pub mod victim;
pub mod write_buffer;

pub use config::{
    Config, DataMode, GcStyle, LinkKind, SlcDrain, SlcRegion, SlcWhenFull, TrimClaim, TrimStyle,
};
pub use data::lba_stamp;
pub use error::SimError;
pub use faults::{FaultKind, FaultSpec, InjectedFault};
pub use geometry::CellType;
pub use preset::{presets, resolve, KEYS};
pub use ssd::SimSsd;
pub use victim::GcPolicy;

/// Open a simulated drive from a spec: a preset name, optional `key=value` overrides, or a
/// `.toml` file (see [`preset`]).
pub fn open(spec: &str) -> Result<SimSsd, SimError> {
    let cfg = resolve(spec)?;
    SimSsd::new(cfg, spec)
}

/// The human-readable description of a spec's resolved configuration (`ssdlab sim show`).
pub fn describe(spec: &str) -> Result<String, SimError> {
    resolve(spec)?.describe()
}
