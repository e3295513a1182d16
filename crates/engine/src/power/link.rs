//! Link power management: what lets an idle drive drop to its slumber state. The host
//! decides it, so it lives in sysfs, not on the drive:
//!
//! - SATA: the AHCI port's `link_power_management_policy` (`min_power` is HIPM+DIPM with
//!   slumber; `med_power_with_dipm` DIPM with partial; `max_performance` neither);
//! - NVMe: Autonomous Power State Transitions (APST), on while the controller's
//!   `power/pm_qos_latency_tolerance_us` is above 0 (the kernel's default is 100000 us);
//! - the simulator: its `link_pm` switch.
//!
//! The power tests record the setting they found, set the one they need and put the found
//! one back.

use std::io;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::target_kind::TargetKind;

/// Where a device's link power management is set, its value now, and the values that
/// allow and forbid slumber.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LinkPowerControl {
    /// The sysfs file, or "sim:link_pm".
    pub control: String,
    /// Its value when read.
    pub value: String,
    /// The value that lets the drive slumber when idle (HIPM+DIPM, APST).
    pub slumber: String,
    /// The value that keeps it in active idle (no link power management).
    pub active: String,
}

impl LinkPowerControl {
    /// Whether `value` allows slumber.
    pub fn allows_slumber(&self) -> bool {
        self.value != self.active
    }
}

/// Why a device has no link power control ssdlab can read or set. OS errors are in the
/// messages, not the source chain: `{:#}` would print them twice.
#[derive(Debug, thiserror::Error)]
pub enum LinkPowerError {
    #[error("a {0} target has no link power management")]
    NotADeviceNode(TargetKind),
    #[error("{0} names no device")]
    NoDeviceName(String),
    #[error("{name} is not in sysfs ({error})")]
    NotInSysfs { name: String, error: io::Error },
    #[error(
        "{0} has no link power management in sysfs (no SATA host's \
         link_power_management_policy, no NVMe controller's APST latency tolerance): \
         a loop device, a USB bridge or a virtual disk has none"
    )]
    NoControl(String),
    #[error("cannot list {dir}: {error}")]
    Unlistable { dir: String, error: io::Error },
    #[error(
        "the NVMe controller ({0}) does not support APST (Linux shows no latency tolerance \
         for it): the drive manages its power states on its own, if at all"
    )]
    NoApst(String),
    #[error("the namespace is reached through {0} controllers: set APST on each by hand")]
    ManyControllers(usize),
    #[error("cannot read {path}: {error}")]
    Unreadable { path: String, error: io::Error },
    #[error("cannot set {control} to '{value}': {error}{}", needs_root(error))]
    Unsettable {
        control: String,
        value: String,
        error: io::Error,
    },
}

/// The hint for a control's write that was refused for want of privilege.
fn needs_root(error: &io::Error) -> &'static str {
    if error.kind() == io::ErrorKind::PermissionDenied {
        " (setting link power management needs root)"
    } else {
        ""
    }
}

/// The link power control of a block device, looked up under `sys_root` (`/sys`): the
/// SATA host's policy, or the NVMe controller's APST latency tolerance. `Err` says why
/// there is none (a loop device, a USB bridge, a kernel without the attribute).
pub fn control_of(sys_root: &Path, device: &Path) -> Result<LinkPowerControl, LinkPowerError> {
    let mut name = device
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .ok_or_else(|| LinkPowerError::NoDeviceName(device.display().to_string()))?;
    // An NVMe namespace's generic device (ng0n1) shares its block device's controller.
    if let Some(rest) = name.strip_prefix("ng") {
        name = format!("nvme{rest}");
    }
    // A partition's link is its disk's.
    let block =
        std::fs::canonicalize(sys_root.join("class/block").join(&name)).map_err(|error| {
            LinkPowerError::NotInSysfs {
                name: name.clone(),
                error,
            }
        })?;
    let disk = if block.join("partition").exists() {
        block.parent().map(Path::to_path_buf).unwrap_or(block)
    } else {
        block
    };
    for dir in disk.ancestors() {
        if let Some(c) = sata_policy(dir) {
            return c;
        }
        if dir.join("subsysnqn").exists() {
            return nvme_apst(dir);
        }
    }
    Err(LinkPowerError::NoControl(name))
}

/// APST's latency tolerance of the NVMe controller a namespace hangs from: the controller
/// itself, or (native multipath) the one controller its subsystem links to.
fn nvme_apst(dir: &Path) -> Result<LinkPowerControl, LinkPowerError> {
    const APST: &str = "power/pm_qos_latency_tolerance_us";
    if dir.join(APST).exists() {
        return read(&dir.join(APST), "100000", "0");
    }
    let mut controllers: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|error| LinkPowerError::Unlistable {
            dir: dir.display().to_string(),
            error,
        })?
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
            name.strip_prefix("nvme")
                .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
                && p.join(APST).exists()
        })
        .collect();
    controllers.sort();
    match controllers.as_slice() {
        [one] => read(&one.join(APST), "100000", "0"),
        // Linux shows the tolerance only for a controller that supports APST.
        [] => Err(LinkPowerError::NoApst(dir.display().to_string())),
        many => Err(LinkPowerError::ManyControllers(many.len())),
    }
}

/// `host*/scsi_host/host*/link_power_management_policy` under an ancestor of the disk.
fn sata_policy(dir: &Path) -> Option<Result<LinkPowerControl, LinkPowerError>> {
    let name = dir.file_name()?.to_str()?;
    if !name.starts_with("host") {
        return None;
    }
    let file: PathBuf = dir
        .join("scsi_host")
        .join(name)
        .join("link_power_management_policy");
    file.exists()
        .then(|| read(&file, "min_power", "max_performance"))
}

fn read(file: &Path, slumber: &str, active: &str) -> Result<LinkPowerControl, LinkPowerError> {
    let value = super::read_sysfs(file).map_err(|error| LinkPowerError::Unreadable {
        path: file.display().to_string(),
        error,
    })?;
    Ok(LinkPowerControl {
        control: file.display().to_string(),
        value: value.trim().to_string(),
        slumber: slumber.into(),
        active: active.into(),
    })
}

/// Write `value` to a control found by [`control_of`].
pub fn set(control: &LinkPowerControl, value: &str) -> Result<(), LinkPowerError> {
    std::fs::write(&control.control, value).map_err(|error| LinkPowerError::Unsettable {
        control: control.control.clone(),
        value: value.to_string(),
        error,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn put(root: &Path, rel: &str, text: &str) {
        let p = root.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }

    fn link(root: &Path, from: &str, to: &str) {
        let f = root.join(from);
        std::fs::create_dir_all(f.parent().unwrap()).unwrap();
        std::os::unix::fs::symlink(root.join(to), f).unwrap();
    }

    #[test]
    fn a_sata_disk_has_its_hosts_policy_and_a_partition_its_disks() {
        let t = tempfile::tempdir().unwrap();
        let r = t.path();
        let host = "devices/pci0000:00/0000:00:1f.2/ata1/host0";
        put(
            r,
            &format!("{host}/scsi_host/host0/link_power_management_policy"),
            "max_performance\n",
        );
        put(
            r,
            &format!("{host}/target0:0:0/0:0:0:0/block/sda/sda1/partition"),
            "1",
        );
        link(
            r,
            "class/block/sda",
            &format!("{host}/target0:0:0/0:0:0:0/block/sda"),
        );
        link(
            r,
            "class/block/sda1",
            &format!("{host}/target0:0:0/0:0:0:0/block/sda/sda1"),
        );
        for dev in ["/dev/sda", "/dev/sda1"] {
            let c = control_of(r, Path::new(dev)).unwrap();
            assert!(
                c.control.ends_with("host0/link_power_management_policy"),
                "{c:?}"
            );
            assert_eq!(
                (c.value.as_str(), c.slumber.as_str()),
                ("max_performance", "min_power")
            );
            assert!(!c.allows_slumber());
        }
        let c = control_of(r, Path::new("/dev/sda")).unwrap();
        set(&c, "min_power").unwrap();
        assert!(control_of(r, Path::new("/dev/sda"))
            .unwrap()
            .allows_slumber());
    }

    #[test]
    fn an_nvme_namespace_has_its_controllers_apst_tolerance() {
        let t = tempfile::tempdir().unwrap();
        let r = t.path();
        let ctrl = "devices/pci0000:00/0000:00:04.0/nvme/nvme0";
        put(r, &format!("{ctrl}/subsysnqn"), "nqn.test");
        put(
            r,
            &format!("{ctrl}/power/pm_qos_latency_tolerance_us"),
            "100000\n",
        );
        put(r, &format!("{ctrl}/nvme0n1/size"), "1");
        link(r, "class/block/nvme0n1", &format!("{ctrl}/nvme0n1"));
        let c = control_of(r, Path::new("/dev/nvme0n1")).unwrap();
        assert_eq!((c.value.as_str(), c.active.as_str()), ("100000", "0"));
        assert!(c.allows_slumber());
    }

    #[test]
    fn a_multipath_namespace_has_its_one_controllers_tolerance() {
        let t = tempfile::tempdir().unwrap();
        let r = t.path();
        let subsys = "devices/virtual/nvme-subsystem/nvme-subsys0";
        let ctrl = "devices/pci0000:00/0000:00:04.0/nvme/nvme0";
        put(r, &format!("{subsys}/subsysnqn"), "nqn.test");
        put(r, &format!("{subsys}/nvme0n1/size"), "1");
        put(
            r,
            &format!("{ctrl}/power/pm_qos_latency_tolerance_us"),
            "0\n",
        );
        link(r, &format!("{subsys}/nvme0"), ctrl);
        link(r, "class/block/nvme0n1", &format!("{subsys}/nvme0n1"));
        let c = control_of(r, Path::new("/dev/ng0n1")).unwrap();
        assert!(
            c.control
                .ends_with("nvme0/power/pm_qos_latency_tolerance_us"),
            "{c:?}"
        );
        assert!(!c.allows_slumber());
    }

    #[test]
    fn a_loop_device_has_none_and_says_why() {
        let t = tempfile::tempdir().unwrap();
        let r = t.path();
        put(r, "devices/virtual/block/loop0/size", "1");
        link(r, "class/block/loop0", "devices/virtual/block/loop0");
        let e = control_of(r, Path::new("/dev/loop0"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("loop device"), "{e}");
    }
}
