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
    /// What the drive says about itself through its own commands (NVMe Identify, ATA
    /// IDENTIFY DEVICE), when the target is a drive that speaks one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub drive: Option<drive::Identify>,
}

impl Identity {
    /// Take model, serial and firmware from the drive's own answer (sysfs truncates and pads
    /// them), and record the whole of it.
    pub fn with_drive(mut self, id: drive::Identify) -> Identity {
        let set = |field: &mut Option<String>, value: &str| {
            if !value.trim().is_empty() {
                *field = Some(value.trim().to_string());
            }
        };
        set(&mut self.model, &id.model);
        set(&mut self.serial, &id.serial);
        set(&mut self.firmware, &id.firmware);
        self.details
            .insert("interface".into(), id.interface.to_string());
        self.drive = Some(id);
        self
    }
}
