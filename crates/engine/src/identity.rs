//! Who a target is, as a review records it: model, serial, firmware, capacity, block sizes.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::target_kind::TargetKind;

/// The identity of a target. Fields a target cannot tell are `None`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Identity {
    pub kind: TargetKind,
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
    /// A target of `kind` at `path` that has told nothing else yet.
    pub fn new(kind: TargetKind, path: impl Into<String>) -> Identity {
        Identity {
            kind,
            path: path.into(),
            model: None,
            serial: None,
            firmware: None,
            vendor: None,
            capacity_bytes: 0,
            logical_block_bytes: 0,
            physical_block_bytes: 0,
            rotational: None,
            details: BTreeMap::new(),
            drive: None,
        }
    }

    /// The host interface the drive is reached through, as a lab sorts drives: "NVMe",
    /// "SATA", "SAS", "SCSI", "USB", "virtio", "loop", "ublk" or "file"; `None` where nothing says.
    /// The drive's own answer wins over sysfs; a simulated drive has its modelled link.
    pub fn interface(&self) -> Option<&'static str> {
        if self.kind == TargetKind::File {
            return Some("file");
        }
        let detail = |k: &str| self.details.get(k).map(String::as_str);
        match detail("interface") {
            Some("NVMe") => return Some("NVMe"),
            Some("ATA") => return Some("SATA"),
            _ => {}
        }
        if let Some(link) = detail("link") {
            for name in ["SATA", "NVMe"] {
                if link.starts_with(name) {
                    return Some(name);
                }
            }
        }
        Some(match detail("transport")? {
            "nvme" => "NVMe",
            "sata" => "SATA",
            "sas" => "SAS",
            "scsi" => "SCSI",
            "usb" => "USB",
            "virtio" => "virtio",
            "loop" => "loop",
            "ublk" => "ublk",
            _ => return None,
        })
    }

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

#[cfg(test)]
mod tests {
    use super::Identity;
    use crate::target_kind::TargetKind;

    fn with(kind: TargetKind, details: &[(&str, &str)]) -> Identity {
        Identity {
            details: details
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
            ..Identity::new(kind, "")
        }
    }

    #[test]
    fn interface_prefers_the_drive_then_the_link_then_sysfs() {
        let ata_on_usb = with(
            TargetKind::Block,
            &[("interface", "ATA"), ("transport", "usb")],
        );
        assert_eq!(ata_on_usb.interface(), Some("SATA"));
        assert_eq!(
            with(TargetKind::Block, &[("transport", "usb")]).interface(),
            Some("USB")
        );
        assert_eq!(
            with(TargetKind::Block, &[("transport", "nvme")]).interface(),
            Some("NVMe")
        );
        assert_eq!(
            with(TargetKind::Sim, &[("link", "NVMe (PCIe 3.0 x4)")]).interface(),
            Some("NVMe")
        );
        assert_eq!(
            with(TargetKind::Sim, &[("link", "SATA 6 Gb/s")]).interface(),
            Some("SATA")
        );
        assert_eq!(with(TargetKind::File, &[]).interface(), Some("file"));
        // Recorded before sysfs told SATA from SCSI: unknown, not a guess.
        assert_eq!(
            with(TargetKind::Block, &[("transport", "scsi/sata")]).interface(),
            None
        );
        assert_eq!(with(TargetKind::Block, &[]).interface(), None);
    }

    #[test]
    fn a_stored_identity_loads_and_saves_as_it_was() {
        for (kind, name) in [
            (TargetKind::Block, "block"),
            (TargetKind::File, "file"),
            (TargetKind::Sim, "sim"),
        ] {
            let stored = format!(
                r#"{{"kind":"{name}","path":"p","model":null,"serial":null,"firmware":null,"vendor":null,"capacity_bytes":1,"logical_block_bytes":512,"physical_block_bytes":4096,"rotational":null,"details":{{}}}}"#
            );
            let id: Identity = serde_json::from_str(&stored).unwrap();
            assert_eq!(id.kind, kind);
            assert_eq!(serde_json::to_string(&id).unwrap(), stored);
        }
    }
}
