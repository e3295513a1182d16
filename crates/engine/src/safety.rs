//! Before a destructive test touches a block device: is it mounted, swapped on, stacked
//! under LVM/md/dm, opened exclusively elsewhere, or holding a partition table, filesystem
//! or RAID signature at either end, or any data at all where it is sampled? Devices in use are refused
//! outright; devices holding data only with `--destroy-data=/dev/THAT-DEVICE`. A regular file
//! behind a loop device is that device, and passes the same checks.

use std::fs::{self, File, OpenOptions};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

use crate::signatures;
use crate::sysfs::BlockNode;
use crate::target::{file, loop_devices_over, Footprint};

/// Something found on a device that makes writing it dangerous.
#[derive(Clone, Debug, PartialEq)]
pub enum Finding {
    /// In use now: writing would corrupt a live system. Never overridden.
    InUse(String),
    /// Holds data that writing destroys. Overridden by naming the device.
    HoldsData(String),
}

#[derive(Debug, thiserror::Error)]
pub enum SafetyError {
    #[error("refusing to write {device}: it is in use ({}). Stop using it first (unmount, swapoff, remove LVM/md/dm holders); ssdlab never writes a device in use.", .found.join("; "))]
    InUse { device: String, found: Vec<String> },
    #[error("refusing to write {device}: it holds data ({}). Everything on it will be destroyed; if that is what you want, add --destroy-data={device}", .found.join("; "))]
    HoldsData { device: String, found: Vec<String> },
    #[error(
        "--destroy-data names {given}, but the target is {device}: they must be the same device"
    )]
    WrongDevice { given: String, device: String },
    #[error("refusing to write {file}: it is the backing file of the loop device {device}, which is in use ({}). Stop using it first (unmount, swapoff, remove LVM/md/dm holders, then `losetup -d {device}`); ssdlab never writes a device in use.", .found.join("; "))]
    BackingInUse {
        file: String,
        device: String,
        found: Vec<String>,
    },
    #[error("refusing to write {file}: it is the backing file of the loop device {device}, which holds data ({}). Everything on it will be destroyed; if that is what you want, add --destroy-data={file}", .found.join("; "))]
    BackingHoldsData {
        file: String,
        device: String,
        found: Vec<String>,
    },
    #[error("refusing to write {file}: it holds data ({}) and ssdlab did not create it. Everything in it will be destroyed; if that is what you want, add --destroy-data={file} (or give a new file: file:PATH:SIZE)", .found.join("; "))]
    FileHoldsData { file: String, found: Vec<String> },
    #[error("cannot inspect {device}: {reason}")]
    Inspect { device: String, reason: String },
}

/// What a device or file of `size` bytes holds, read through `file`: the signatures at its
/// ends, else the first non-zero bytes found in its ends or in samples across it (data of a
/// kind no probe knows, such as a filesystem whose superblock was wiped, is data too).
pub fn contents(file: &File, size: u64) -> std::io::Result<Vec<String>> {
    let edge = signatures::EDGE.min(size);
    let head = read_at(file, 0, edge)?;
    let tail = read_at(file, size - edge, edge)?;
    let edges = signatures::Edges {
        size,
        head: &head,
        tail: &tail,
    };
    let found: Vec<String> = signatures::probe(&edges)
        .into_iter()
        .map(|s| format!("found {s}"))
        .collect();
    if !found.is_empty() {
        return Ok(found);
    }
    let first_data = match nonzero(&head) {
        Some(at) => Some(at as u64),
        None => {
            sampled_data(file, size)?.or_else(|| nonzero(&tail).map(|at| size - edge + at as u64))
        }
    };
    Ok(first_data
        .map(|at| match at {
            0 => "data of unknown kind (not all zeros) from its first byte".to_string(),
            _ => format!(
                "data of unknown kind (not all zeros) at byte {at} ({})",
                crate::units::format_size(at)
            ),
        })
        .into_iter()
        .collect())
}

const SAMPLE: u64 = 4096;

/// Where a 4 KiB sample holds a non-zero byte: one at every MiB of the first 64 MiB, and
/// about a thousand spread over the rest, so that data written anywhere in a region of a
/// MiB or more is seen.
fn sampled_data(file: &File, size: u64) -> std::io::Result<Option<u64>> {
    const MIB: u64 = 1 << 20;
    let spread = (size / 1024).next_multiple_of(MIB);
    let dense = (0..64).map(|i| i * MIB);
    let sparse = (1..1024).map(|i| i * spread);
    for at in dense.chain(sparse).filter(|at| at + SAMPLE <= size) {
        if let Some(i) = nonzero(&read_at(file, at, SAMPLE)?) {
            return Ok(Some(at + i as u64));
        }
    }
    Ok(None)
}

fn nonzero(bytes: &[u8]) -> Option<usize> {
    bytes.iter().position(|&b| b != 0)
}

fn read_at(file: &File, at: u64, len: u64) -> std::io::Result<Vec<u8>> {
    use std::os::unix::fs::FileExt;
    let mut buf = vec![0u8; len as usize];
    let mut n = 0;
    while n < buf.len() {
        match file.read_at(&mut buf[n..], at + n as u64)? {
            0 => break,
            k => n += k,
        }
    }
    buf.truncate(n);
    Ok(buf)
}

fn mounted_devices() -> Vec<(u32, u32, String)> {
    // /proc/self/mountinfo: id parent MAJ:MIN root mountpoint ...
    fs::read_to_string("/proc/self/mountinfo")
        .unwrap_or_default()
        .lines()
        .filter_map(|l| {
            let mut f = l.split_whitespace();
            let dev = f.nth(2)?;
            let mount = f.nth(1)?;
            let (a, b) = dev.split_once(':')?;
            Some((a.parse().ok()?, b.parse().ok()?, mount.to_string()))
        })
        .collect()
}

fn swaps() -> Vec<PathBuf> {
    fs::read_to_string("/proc/swaps")
        .unwrap_or_default()
        .lines()
        .skip(1)
        .filter_map(|l| l.split_whitespace().next())
        .filter_map(|p| fs::canonicalize(p).ok())
        .collect()
}

/// Everything that makes writing `device` dangerous. `read_contents`: whether to read its
/// signatures and sample its data too; a device the user named with `--destroy-data` is
/// not read, so no IO but the test's reaches it (a trace of the run records only the test's).
pub fn inspect(device: &Path, read_contents: bool) -> Result<Vec<Finding>, SafetyError> {
    let shown = device.display().to_string();
    let err = |reason: String| SafetyError::Inspect {
        device: shown.clone(),
        reason,
    };
    let node = BlockNode::of_device(device).map_err(|e| err(e.to_string()))?;
    let disk = node.whole_disk();
    let mut nodes = vec![node.clone()];
    if !node.is_partition() {
        nodes.extend(node.partitions());
    }
    let mut findings = Vec::new();

    let mounts = mounted_devices();
    let swaps = swaps();
    for n in &nodes {
        for (_, _, mount) in mounts
            .iter()
            .filter(|(a, b, _)| *a == n.major && *b == n.minor)
        {
            findings.push(Finding::InUse(format!(
                "/dev/{} is mounted on {mount}",
                n.name
            )));
        }
        if swaps
            .iter()
            .any(|s| s.file_name().is_some_and(|f| f.to_string_lossy() == n.name))
        {
            findings.push(Finding::InUse(format!("/dev/{} is in use as swap", n.name)));
        }
        let holders = n.holders();
        if !holders.is_empty() {
            findings.push(Finding::InUse(format!(
                "/dev/{} is held by {} (LVM, md, dm-crypt or similar)",
                n.name,
                holders.join(", ")
            )));
        }
    }
    if node.is_partition() {
        findings.push(Finding::HoldsData(format!(
            "it is a partition of /dev/{}",
            disk.name
        )));
    } else {
        let parts = node.partitions();
        if !parts.is_empty() {
            let names: Vec<String> = parts.iter().map(|p| p.name.clone()).collect();
            findings.push(Finding::HoldsData(format!(
                "it has partitions: {}",
                names.join(", ")
            )));
        }
    }

    // O_EXCL on a block device fails with EBUSY while anyone else holds it exclusively
    // (a mounted filesystem, md, LVM, another ssdlab).
    match open_exclusive(device) {
        Ok(_) if !read_contents => {}
        Ok(f) => {
            let (size, _, _) = crate::blockdev::block_sizes(&f).map_err(|e| err(e.to_string()))?;
            let found = contents(&f, size).map_err(|e| err(e.to_string()))?;
            findings.extend(found.into_iter().map(Finding::HoldsData));
        }
        Err(e) if e.raw_os_error() == Some(libc::EBUSY) => {
            if !findings.iter().any(|f| matches!(f, Finding::InUse(_))) {
                findings.push(Finding::InUse(
                    "it is opened exclusively by another program".into(),
                ));
            }
        }
        Err(e) => return Err(err(e.to_string())),
    }
    Ok(findings)
}

/// Open with O_EXCL, retrying briefly: a program that just closed the device (an io_uring
/// ring being torn down) may hold it for a few milliseconds more.
fn open_exclusive(device: &Path) -> std::io::Result<File> {
    let mut tries = 0;
    loop {
        match OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_EXCL)
            .open(device)
        {
            Err(e) if e.raw_os_error() == Some(libc::EBUSY) && tries < 10 => {
                tries += 1;
                std::thread::sleep(std::time::Duration::from_millis(50));
            }
            other => return other,
        }
    }
}

/// Decide whether a destructive test may write `device`. `confirm` is the device named by
/// `--destroy-data`, if given.
pub fn check_destructive(device: &Path, confirm: Option<&str>) -> Result<(), SafetyError> {
    let shown = device.display().to_string();
    check_confirmation(confirm, device)?;
    let (in_use, data) = sort(inspect(device, confirm.is_none())?);
    if !in_use.is_empty() {
        return Err(SafetyError::InUse {
            device: shown,
            found: in_use,
        });
    }
    if !data.is_empty() && confirm.is_none() {
        return Err(SafetyError::HoldsData {
            device: shown,
            found: data,
        });
    }
    Ok(())
}

/// Decide whether a destructive test may write the regular file `file`: behind a loop device
/// it is that device, refused as it would be. `confirm` is what `--destroy-data` names.
pub fn check_backing_file(file: &Path, confirm: Option<&str>) -> Result<(), SafetyError> {
    let shown = file.display().to_string();
    for device in loop_devices_over(file) {
        check_confirmation(confirm, file)?;
        let (in_use, data) = sort(inspect(&device, confirm.is_none())?);
        let device = device.display().to_string();
        if !in_use.is_empty() {
            return Err(SafetyError::BackingInUse {
                file: shown,
                device,
                found: in_use,
            });
        }
        if !data.is_empty() && confirm.is_none() {
            return Err(SafetyError::BackingHoldsData {
                file: shown,
                device,
                found: data,
            });
        }
    }
    Ok(())
}

/// Decide whether a destructive test may write the existing regular file `file`: one ssdlab
/// created (or was allowed to destroy before) may be; one holding anything but zeros and
/// holes only when `confirm` names it.
pub fn check_existing_file(file: &Path, confirm: Option<&str>) -> Result<(), SafetyError> {
    let shown = file.display().to_string();
    check_confirmation(confirm, file)?;
    let err = |e: std::io::Error| SafetyError::Inspect {
        device: shown.clone(),
        reason: e.to_string(),
    };
    // Non-blocking: a FIFO swapped in for the file does not hang the check.
    let f = OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(file)
        .map_err(err)?;
    let meta = f.metadata().map_err(err)?;
    if !meta.is_file() || crate::target::mark::is_marked(&f) {
        return Ok(());
    }
    let found = contents(&f, meta.len()).map_err(err)?;
    if !found.is_empty() && confirm.is_none() {
        return Err(SafetyError::FileHoldsData { file: shown, found });
    }
    Ok(())
}

/// A `--destroy-data` that names another device than `target` is no confirmation.
fn check_confirmation(confirm: Option<&str>, target: &Path) -> Result<(), SafetyError> {
    match confirm.filter(|given| !confirms(given, &Footprint::of_path(target))) {
        Some(given) => Err(SafetyError::WrongDevice {
            given: given.to_string(),
            device: target.display().to_string(),
        }),
        None => Ok(()),
    }
}

/// Whether `--destroy-data=given` names the storage `target` writes, by any of its names: a
/// link, an NVMe namespace's block or generic device, a loop device or the file behind it
/// (given as PATH or file:PATH).
pub fn confirms(given: &str, target: &Footprint) -> bool {
    let path = match given.starts_with("file:") {
        true => file::parse(given).map_or_else(|_| PathBuf::from(given), |(path, _)| path),
        false => PathBuf::from(given),
    };
    Footprint::of_path(&path).same(target)
}

/// Findings as (in use, holding data).
fn sort(findings: Vec<Finding>) -> (Vec<String>, Vec<String>) {
    let (mut in_use, mut data) = (Vec::new(), Vec::new());
    for f in findings {
        match f {
            Finding::InUse(s) => in_use.push(s),
            Finding::HoldsData(s) => data.push(s),
        }
    }
    (in_use, data)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An NVMe namespace has two names, its block device and its generic character device:
    /// `--destroy-data` takes either for either (issue #22). No NVMe here: the names resolve
    /// as the kernel makes them.
    #[test]
    fn destroy_data_names_a_namespace_by_either_device() {
        for (given, target) in [
            ("/dev/ng0n1", "/dev/nvme0n1"),
            ("/dev/nvme0n1", "/dev/ng0n1"),
            ("/dev/ng3n2", "/dev/nvme3n2"),
            ("/dev/nvme0n1", "/dev/nvme0n1"),
        ] {
            let target_footprint = Footprint::of_path(Path::new(target));
            assert!(confirms(given, &target_footprint), "{given} for {target}");
        }
        for (given, target) in [
            ("/dev/ng0n2", "/dev/nvme0n1"),
            ("/dev/ng1n1", "/dev/nvme0n1"),
            ("/dev/nvme0n1", "/dev/ng0n2"),
        ] {
            let target_footprint = Footprint::of_path(Path::new(target));
            assert!(!confirms(given, &target_footprint), "{given} for {target}");
        }
    }
}
