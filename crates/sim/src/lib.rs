//! ssdlab's simulated SSD: NAND geometry and timing, a page-mapping FTL with garbage
//! collection, spare area, TRIM, a pseudo-SLC write cache and a write buffer, behind the
//! engine's [`engine::Device`] contract on a **virtual clock**, so a 2000-second test takes
//! as long as the simulation needs.
//!
//! - [`open`]: a drive from a spec (what follows `sim:`): `default`,
//!   `ultra-plus-256,op=25%,gc=fifo,capacity=8GiB`, or `drive.toml`;
//! - [`presets`], [`resolve`] and [`Config::describe`] for `ssdlab sim list/show`.
//!
//! The simulator looks at data only when asked (`data.rs`): with `data=stamp` reads return
//! zeros for unmapped (never written or trimmed) 4 KiB units and a deterministic non-zero
//! stamp of the unit's LBA ([`lba_stamp`]) for mapped ones; with `data=on` it keeps what is
//! written. `faults=` injects lost, flipped, misdirected and torn writes into the kept data
//! (`faults.rs`).
//!
//! Files are named after what they model, in MQSim's vocabulary: `geometry`, `timing`,
//! `mapping`, `block_manager`, `victim`, `write_buffer`, `energy`, `ftl` (and its units: the
//! GC scheduler, the pseudo-SLC cache, the TRIM unit), [`preset`] (keys and their `range`s),
//! `config`, `counters`, `ssd`; the data a drive returns in `data`, injected faults in
//! `faults`. Only the preset language and the preset drives are public modules; the rest is
//! re-exported below where other crates need it.

mod block_manager;
mod config;
mod counters;
mod data;
mod describe;
pub mod drives;
mod energy;
mod error;
mod faults;
mod ftl;
mod geometry;
mod mapping;
pub mod preset;
mod range;
mod ssd;
mod timing;
mod victim;
mod write_buffer;

pub use config::{
    Config, DataMode, GcStyle, LinkKind, SlcDrain, SlcRegion, SlcWhenFull, TrimClaim, TrimStyle,
};
pub use data::lba_stamp;
pub use error::{KeyError, SimError};
pub use faults::{FaultError, FaultKind, FaultSpec, InjectedFault};
pub use geometry::CellType;
pub use preset::{presets, resolve, spec_of, target_spec, KEYS, TARGET_PREFIX};
pub use range::Quantity;
pub use ssd::{check_data_memory, check_memory, SimSsd};
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
