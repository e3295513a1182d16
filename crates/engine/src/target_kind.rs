//! What kind of target a device is, and what that kind tells about it: whether the host has
//! it as a device node (sysfs, link power, the drive's own commands) and how it unmaps.

use std::fmt;

use serde::{Deserialize, Serialize};

/// The kind of a target. Results and the Bench record it by [`TargetKind::name`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum TargetKind {
    /// A block device (`/dev/sdX`, `/dev/nvme0n1`), also when reached through NVMe
    /// passthrough.
    Block,
    /// An NVMe generic character device (`/dev/ngXnY`) as a spec names it.
    NvmeGeneric,
    /// A regular file (`file:PATH`).
    File,
    /// A simulated drive (`sim:PRESET`).
    Sim,
}

impl TargetKind {
    /// The name results and the Bench record: "block", "nvme-generic", "file", "sim".
    pub fn name(self) -> &'static str {
        match self {
            TargetKind::Block => "block",
            TargetKind::NvmeGeneric => "nvme-generic",
            TargetKind::File => "file",
            TargetKind::Sim => "sim",
        }
    }

    /// Whether the target is one of the host's device nodes: it has sysfs attributes (link
    /// power management) and may be a drive that speaks NVMe or ATA.
    pub fn is_device_node(self) -> bool {
        matches!(self, TargetKind::Block | TargetKind::NvmeGeneric)
    }

    /// How a discard unmaps blocks on this kind of target, as a purge reports it.
    pub fn discard_method(self) -> &'static str {
        match self {
            TargetKind::Block => "BLKDISCARD",
            TargetKind::NvmeGeneric => "NVMe Dataset Management (deallocate)",
            TargetKind::File => "hole punch (fallocate)",
            TargetKind::Sim => "TRIM (simulated)",
        }
    }
}

impl fmt::Display for TargetKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::TargetKind;

    const ALL: [TargetKind; 4] = [
        TargetKind::Block,
        TargetKind::NvmeGeneric,
        TargetKind::File,
        TargetKind::Sim,
    ];

    #[test]
    fn serializes_as_the_names_results_have_always_recorded() {
        let names: Vec<&str> = ALL.iter().map(|k| k.name()).collect();
        assert_eq!(names, ["block", "nvme-generic", "file", "sim"]);
        for kind in ALL {
            let json = serde_json::to_string(&kind).unwrap();
            assert_eq!(json, format!("\"{}\"", kind.name()));
            assert_eq!(serde_json::from_str::<TargetKind>(&json).unwrap(), kind);
            assert_eq!(kind.to_string(), kind.name());
        }
        assert!(serde_json::from_str::<TargetKind>("\"loop\"").is_err());
    }
}
