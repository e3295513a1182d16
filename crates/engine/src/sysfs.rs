//! What Linux's sysfs says about a block device: who made it, its serial and firmware, its
//! partitions and who holds it. Every attribute is optional: a VM disk or a loop device has
//! fewer than an NVMe SSD.

use std::fs;
use std::io;
use std::os::unix::fs::{FileTypeExt, MetadataExt};
use std::path::{Path, PathBuf};

use crate::identity::Identity;

/// A block device node as sysfs sees it, e.g. `sda`, `sda1`, `nvme0n1`, `loop3`.
#[derive(Clone, Debug, PartialEq)]
pub struct BlockNode {
    pub name: String,
    /// `/sys/class/block/NAME` resolved.
    pub sys: PathBuf,
    pub major: u32,
    pub minor: u32,
}

fn attr(dir: &Path, name: &str) -> Option<String> {
    let text = fs::read_to_string(dir.join(name)).ok()?;
    let text = text.trim();
    (!text.is_empty()).then(|| text.to_string())
}

impl BlockNode {
    /// The node of a device special file such as `/dev/sda`.
    pub fn of_device(path: &Path) -> io::Result<BlockNode> {
        let meta = fs::metadata(path)?;
        if !meta.file_type().is_block_device() {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("{} is not a block device", path.display()),
            ));
        }
        let rdev = meta.rdev();
        BlockNode::of_dev_t(libc::major(rdev), libc::minor(rdev))
    }

    pub fn of_dev_t(major: u32, minor: u32) -> io::Result<BlockNode> {
        let sys = fs::canonicalize(format!("/sys/dev/block/{major}:{minor}"))?;
        let name = sys
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        Ok(BlockNode {
            name,
            sys,
            major,
            minor,
        })
    }

    pub fn is_partition(&self) -> bool {
        self.sys.join("partition").exists()
    }

    /// The whole disk a partition belongs to (itself when it is one).
    pub fn whole_disk(&self) -> BlockNode {
        if !self.is_partition() {
            return self.clone();
        }
        let parent = self.sys.parent().map(Path::to_path_buf).unwrap_or_default();
        let (major, minor) = attr(&parent, "dev")
            .and_then(|d| {
                let (a, b) = d.split_once(':')?;
                Some((a.parse().ok()?, b.parse().ok()?))
            })
            .unwrap_or((self.major, 0));
        BlockNode {
            name: parent
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default(),
            sys: parent,
            major,
            minor,
        }
    }

    /// Partitions of a whole disk.
    pub fn partitions(&self) -> Vec<BlockNode> {
        let Ok(entries) = fs::read_dir(&self.sys) else {
            return Vec::new();
        };
        let mut parts: Vec<BlockNode> = entries
            .flatten()
            .filter(|e| e.path().join("partition").exists())
            .filter_map(|e| {
                let dev = attr(&e.path(), "dev")?;
                let (a, b) = dev.split_once(':')?;
                Some(BlockNode {
                    name: e.file_name().to_string_lossy().into_owned(),
                    sys: e.path(),
                    major: a.parse().ok()?,
                    minor: b.parse().ok()?,
                })
            })
            .collect();
        parts.sort_by(|a, b| a.name.cmp(&b.name));
        parts
    }

    /// Devices stacked on this one (LVM, md, dm-crypt...).
    pub fn holders(&self) -> Vec<String> {
        fs::read_dir(self.sys.join("holders"))
            .map(|d| {
                d.flatten()
                    .map(|e| e.file_name().to_string_lossy().into_owned())
                    .collect()
            })
            .unwrap_or_default()
    }

    pub fn attr(&self, name: &str) -> Option<String> {
        attr(&self.sys, name)
    }
}

/// The serial number from the places Linux exposes it.
fn serial(disk: &BlockNode) -> Option<String> {
    if let Some(s) = disk.attr("device/serial").or_else(|| disk.attr("serial")) {
        return Some(s);
    }
    // SCSI/SATA: VPD page 0x80 is a 4-byte header and the serial.
    if let Ok(page) = fs::read(disk.sys.join("device/vpd_pg80")) {
        if page.len() > 4 {
            let s = String::from_utf8_lossy(&page[4..]).trim().to_string();
            if !s.is_empty() {
                return Some(s);
            }
        }
    }
    // udev's by-id names end in _SERIAL.
    let entries = fs::read_dir("/dev/disk/by-id").ok()?;
    for e in entries.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        if name.starts_with("wwn-") || name.contains("-part") {
            continue;
        }
        let target = fs::canonicalize(e.path()).ok()?;
        if target
            .file_name()
            .is_some_and(|n| n.to_string_lossy() == disk.name)
        {
            if let Some((_, s)) = name.rsplit_once('_') {
                return Some(s.to_string());
            }
        }
    }
    None
}

/// How the host reaches a disk, from its name and its place in the device tree: an `sd`
/// disk is SATA behind an ATA port (`ata3/...`), USB behind a USB port, SAS behind a SAS
/// expander or HBA port (`end_device-...`), else SCSI (a virtio-scsi or iSCSI disk).
fn transport(name: &str, sys: &Path) -> &'static str {
    let under = |prefix: &str| {
        sys.components().any(|c| {
            let c = c.as_os_str().to_string_lossy();
            c.strip_prefix(prefix)
                .is_some_and(|rest| rest.starts_with(|ch: char| ch.is_ascii_digit()))
        })
    };
    match name {
        n if n.starts_with("nvme") => "nvme",
        n if n.starts_with("loop") => "loop",
        n if n.starts_with("ublkb") => "ublk",
        n if n.starts_with("vd") => "virtio",
        n if n.starts_with("sd") && under("ata") => "sata",
        n if n.starts_with("sd") && under("usb") => "usb",
        n if n.starts_with("sd") && (under("end_device-") || under("port-")) => "sas",
        n if n.starts_with("sd") => "scsi",
        _ => "other",
    }
}

/// Fill identity fields of a block device from sysfs.
pub fn describe_block(node: &BlockNode, id: &mut Identity) {
    let disk = node.whole_disk();
    id.model = disk.attr("device/model");
    id.vendor = disk.attr("device/vendor");
    id.firmware = disk
        .attr("device/firmware_rev")
        .or_else(|| disk.attr("device/rev"));
    id.serial = serial(&disk);
    id.rotational = disk.attr("queue/rotational").map(|r| r == "1");
    id.details
        .insert("transport".into(), transport(&disk.name, &disk.sys).into());
    id.details.insert("kernel_name".into(), node.name.clone());
    if node.is_partition() {
        id.details.insert("partition_of".into(), disk.name.clone());
    }
    if let Some(back) = disk.attr("loop/backing_file") {
        id.model.get_or_insert_with(|| "Linux loop device".into());
        id.details.insert("loop_backing_file".into(), back);
        if let Some(dio) = disk.attr("loop/dio") {
            id.details.insert("loop_direct_io".into(), dio);
        }
    }
    if let Some(served) = crate::served::ServedDrive::of(&disk.name) {
        id.model = Some(served.model.clone());
        id.vendor = Some("ssdlab (simulated)".into());
        id.rotational = Some(false);
        id.details
            .insert("served_drive".into(), served.target.clone());
        id.details.insert(
            "served_by".into(),
            format!("ssdlab sim serve (pid {})", served.pid),
        );
        if served.slowdown > 1 {
            id.details
                .insert("served_slowdown".into(), served.slowdown.to_string());
        }
    }
    if let Some(s) = disk.attr("queue/scheduler") {
        id.details.insert("scheduler".into(), s);
    }
    if let Some(s) = disk.attr("queue/discard_max_bytes") {
        id.details.insert("discard_max_bytes".into(), s);
    }
}

/// Name a filesystem from statfs's magic number.
fn fs_name(magic: i64) -> String {
    match magic {
        0xEF53 => "ext2/3/4".into(),
        0x5846_5342 => "xfs".into(),
        0x9123_683E => "btrfs".into(),
        0x0102_1994 => "tmpfs".into(),
        0x794C_7630 => "overlayfs".into(),
        0x2FC1_2FC1 => "zfs".into(),
        0xF2F5_2010 => "f2fs".into(),
        0x6969 => "nfs".into(),
        other => format!("unknown (magic {other:#x})"),
    }
}

/// Fill identity fields of a regular file: its filesystem and the device behind it.
pub fn describe_file(path: &Path, id: &mut Identity) {
    if let Ok(c) = std::ffi::CString::new(path.as_os_str().as_encoded_bytes()) {
        // SAFETY: statfs fills the struct we hand it.
        let mut st: libc::statfs = unsafe { std::mem::zeroed() };
        if unsafe { libc::statfs(c.as_ptr(), &mut st) } == 0 {
            id.details
                .insert("filesystem".into(), fs_name(st.f_type as i64));
        }
    }
    if let Ok(meta) = fs::metadata(path) {
        let dev = meta.dev();
        if let Ok(node) = BlockNode::of_dev_t(libc::major(dev), libc::minor(dev)) {
            let disk = node.whole_disk();
            id.details
                .insert("backing_device".into(), format!("/dev/{}", node.name));
            if let Some(model) = disk.attr("device/model") {
                id.details.insert("backing_model".into(), model);
            }
            id.rotational = disk.attr("queue/rotational").map(|r| r == "1");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::transport;
    use std::path::Path;

    #[test]
    fn transport_follows_the_device_tree() {
        let cases = [
            ("nvme0n1", "/sys/devices/pci0000:00/0000:00:04.0/nvme/nvme0/nvme0n1", "nvme"),
            ("sda", "/sys/devices/pci0000:00/0000:00:1f.2/ata3/host2/target2:0:0/2:0:0:0/block/sda", "sata"),
            ("sdb", "/sys/devices/pci0000:00/0000:00:14.0/usb2/2-1/2-1:1.0/host4/target4:0:0/4:0:0:0/block/sdb", "usb"),
            ("sdc", "/sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0/host0/port-0:0/end_device-0:0/target0:0:0/0:0:0:0/block/sdc", "sas"),
            ("sdd", "/sys/devices/pci0000:00/0000:00:03.0/virtio0/host0/target0:0:0/0:0:0:0/block/sdd", "scsi"),
            ("vda", "/sys/devices/pci0000:00/0000:00:05.0/virtio1/block/vda", "virtio"),
            ("loop3", "/sys/devices/virtual/block/loop3", "loop"),
            ("md0", "/sys/devices/virtual/block/md0", "other"),
        ];
        for (name, sys, want) in cases {
            assert_eq!(transport(name, Path::new(sys)), want, "{sys}");
        }
    }
}
