//! Who a target is, as a review records it: model, serial, firmware, capacity, block sizes.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// The identity of a target. Fields a target cannot tell are `None`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Identity {
    /// "block", "file" or "sim".
    pub kind: String,
    /// The path or target spec the user gave.
    pub path: String,
    pub model: Option<String>,
    pub serial: Option<String>,
    pub firmware: Option<String>,
    pub vendor: Option<String>,
    pub capacity_bytes: u64,
    pub logical_block_bytes: u32,
    pub physical_block_bytes: u32,
    pub rotational: Option<bool>,
    /// Anything else worth recording (transport, filesystem, backing device, preset...).
    #[serde(default)]
    pub details: BTreeMap<String, String>,
}
