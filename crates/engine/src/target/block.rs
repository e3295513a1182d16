//! Block devices (`/dev/...`): raw and destructive, guarded by the safety checks, opened
//! exclusively with O_DIRECT.

use std::fs::{File, OpenOptions};
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
use std::path::Path;

use super::{on_backend, Backend, OpenRequest, TargetError};
use crate::blockdev;
use crate::device::{Device, Geometry};
use crate::identity::Identity;
use crate::passthrough;
use crate::safety;
use crate::sysfs::{self, BlockNode};
use crate::target_kind::TargetKind;

pub(super) fn open(spec: &str, req: &OpenRequest) -> Result<Box<dyn Device>, TargetError> {
    if req.backend == Backend::UringCmd {
        // The namespace's generic character device carries the passthrough commands.
        return passthrough::open_namespace(Path::new(spec), req);
    }
    on_backend(open_block(Path::new(spec), req)?, req)
}

pub(crate) fn open_block(
    path: &Path,
    req: &OpenRequest,
) -> Result<(File, bool, Geometry, Identity), TargetError> {
    let shown = path.display().to_string();
    let io_err = TargetError::io_at(&shown);
    let meta = std::fs::metadata(path).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => TargetError::Open(format!(
            "{shown} does not exist: `lsblk` lists the block devices (a file is file:PATH[:SIZE], \
             a simulated drive sim:PRESET)"
        )),
        _ => io_err(e),
    })?;
    if !meta.file_type().is_block_device() {
        return Err(TargetError::NotBlock(shown));
    }
    if req.write {
        if blockdev::read_only(path).unwrap_or(false) {
            return Err(TargetError::ReadOnly { path: shown });
        }
        safety::check_destructive(path, req.destroy_data.as_deref())?;
    }
    // Exclusive: nobody may mount or claim the device while we test it. A program that has
    // just closed it may hold it a few milliseconds more (io_uring teardown), so retry briefly.
    let open = || {
        OpenOptions::new()
            .read(true)
            .write(req.write)
            .custom_flags(libc::O_DIRECT | libc::O_EXCL)
            .open(path)
    };
    let mut attempt = open();
    for _ in 0..10 {
        match &attempt {
            Err(e) if e.raw_os_error() == Some(libc::EBUSY) => {
                std::thread::sleep(std::time::Duration::from_millis(50));
                attempt = open();
            }
            _ => break,
        }
    }
    let file = attempt.map_err(|e| match e.raw_os_error() {
        Some(libc::EBUSY) => TargetError::Busy {
            path: shown.clone(),
        },
        _ => io_err(e),
    })?;

    let (capacity, logical, physical) = blockdev::block_sizes(&file).map_err(io_err)?;
    let geometry = Geometry {
        capacity_bytes: capacity,
        logical_block_bytes: logical,
        physical_block_bytes: physical,
    };
    let mut identity = Identity {
        capacity_bytes: capacity,
        logical_block_bytes: logical,
        physical_block_bytes: physical,
        ..Identity::new(TargetKind::Block, shown.clone())
    };
    let node = BlockNode::of_device(path).map_err(io_err)?;
    sysfs::describe_block(&node, &mut identity);
    let identity = ask_the_drive(&file, identity);
    Ok((file, true, geometry, identity))
}

/// Add what the drive says through its own commands (NVMe Identify, ATA IDENTIFY DEVICE),
/// when it speaks one; a drive that will not say (no privileges) is noted, not an error.
fn ask_the_drive(file: &File, mut identity: Identity) -> Identity {
    use std::os::fd::AsFd;
    match drive::Drive::from_fd(file.as_fd()).and_then(|d| d.map(|d| d.identify()).transpose()) {
        Ok(Some(id)) => identity.with_drive(id),
        Ok(None) => identity,
        Err(e) => {
            identity
                .details
                .insert("drive_commands".into(), format!("unavailable: {e}"));
            identity
        }
    }
}
