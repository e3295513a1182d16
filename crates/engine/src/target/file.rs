//! Files (`file:PATH[:SIZE]`): created at SIZE (whole 4 KiB blocks) if absent, never
//! written beyond it, with O_DIRECT where the filesystem has it. A file behind a loop device
//! is guarded as that device is.

use std::fs::{File, OpenOptions};
use std::io;
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

use super::{lock, mark, on_backend, Footprint, OpenRequest, TargetError};
use crate::device::{Device, Geometry};
use crate::identity::Identity;
use crate::safety;
use crate::size::{parse_size, SizeError};
use crate::sysfs::{self, BlockNode};
use crate::target_kind::TargetKind;

/// A file target is whole blocks of 4 KiB: safe for O_DIRECT on every filesystem and device
/// we meet.
const BLOCK: u64 = 4096;

/// What a `file:` spec names: the path and, when given, the size (whole 4 KiB blocks).
pub fn parse(spec: &str) -> Result<(PathBuf, Option<u64>), TargetError> {
    let rest = spec.strip_prefix("file:").unwrap_or(spec);
    // The size is the part after the last ':', when that parses as a size.
    if let Some((path, size)) = rest.rsplit_once(':') {
        if size.starts_with(|c: char| c.is_ascii_digit()) {
            let size = parse_size(size)
                .map_err(FileSizeError::from)
                .and_then(|size| whole_blocks(path, size))
                .map_err(|reason| TargetError::Size {
                    spec: spec.to_string(),
                    reason,
                })?;
            return Ok((PathBuf::from(path), Some(size)));
        }
    }
    if rest.is_empty() {
        return Err(TargetError::Open(format!(
            "'{spec}' names no file: use file:PATH[:SIZE]"
        )));
    }
    Ok((PathBuf::from(rest), None))
}

/// A size given for the file at `path`, refused unless it is whole 4 KiB blocks (the user
/// asked for something exact), naming the nearest sizes that are.
fn whole_blocks(path: &str, size: u64) -> Result<u64, FileSizeError> {
    let spec = |bytes: u64| format!("file:{path}:{}", exact_size(bytes));
    if size < BLOCK {
        return Err(FileSizeError::BelowOneBlock {
            size,
            smallest: spec(BLOCK),
        });
    }
    if !size.is_multiple_of(BLOCK) {
        let down = size / BLOCK * BLOCK;
        let nearest = match down.checked_add(BLOCK) {
            Some(up) => format!("{} or {}", spec(down), spec(up)),
            None => spec(down),
        };
        return Err(FileSizeError::NotWholeBlocks { size, nearest });
    }
    Ok(size)
}

/// Why the SIZE of a `file:PATH:SIZE` spec is refused; the specs it suggests are whole
/// blocks.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum FileSizeError {
    #[error(transparent)]
    Size(#[from] SizeError),
    #[error("{size} bytes is below the 4 KiB minimum (one block): give at least {smallest}")]
    BelowOneBlock { size: u64, smallest: String },
    #[error("{size} bytes is not a multiple of 4 KiB (the target's block): give {nearest}")]
    NotWholeBlocks { size: u64, nearest: String },
}

/// A size as the largest unit that holds it exactly: 8K, 3M, 1G, 1000004K.
fn exact_size(bytes: u64) -> String {
    [("T", 40), ("G", 30), ("M", 20), ("K", 10)]
        .into_iter()
        .find(|(_, shift)| bytes >= 1 << shift && bytes.is_multiple_of(1 << shift))
        .map_or_else(
            || bytes.to_string(),
            |(unit, shift)| format!("{}{unit}", bytes >> shift),
        )
}

pub(super) fn open(spec: &str, req: &OpenRequest) -> Result<Box<dyn Device>, TargetError> {
    let (path, size) = parse(spec)?;
    on_backend(open_file(&path, size, req)?, req)
}

/// Where a `file:` spec writes: the file, however linked, or where it would be created.
pub(super) fn locate(spec: &str) -> Result<Footprint, TargetError> {
    Ok(Footprint::of_path(&parse(spec)?.0))
}

fn open_file(
    path: &Path,
    size: Option<u64>,
    req: &OpenRequest,
) -> Result<(File, bool, Geometry, Identity), TargetError> {
    let shown = path.display().to_string();
    let io_err = TargetError::io_at(&shown);
    let existing = std::fs::metadata(path).ok();
    if existing
        .as_ref()
        .is_some_and(|m| m.file_type().is_block_device())
    {
        // By the kernel's name: a link outside /dev is no target.
        let device = BlockNode::of_device(path)
            .map(|n| format!("/dev/{}", n.name))
            .unwrap_or_else(|_| shown.clone());
        return Err(TargetError::Open(format!(
            "file:{shown} is the block device {device}, not a file: use --target {device}"
        )));
    }
    if existing.as_ref().is_some_and(|m| !m.is_file()) {
        return Err(TargetError::Open(format!(
            "file:{shown} is not a regular file (a FIFO, character device, socket or \
             directory): give the path of a file, or of one to create (file:PATH:SIZE)"
        )));
    }
    let current = existing.map(|m| m.len());
    let capacity = match (current, size) {
        (None, None) => return Err(TargetError::FileMissingSize { path: shown }),
        (_, Some(s)) => s,
        (Some(len), None) => len / BLOCK * BLOCK,
    };
    if capacity == 0 {
        return Err(TargetError::FileTooSmall {
            path: shown,
            actual: current.unwrap_or(0),
        });
    }
    if req.write && current.is_some() {
        safety::check_backing_file(path, req.destroy_data.as_deref())?;
        safety::check_existing_file(path, req.destroy_data.as_deref())?;
    }
    let open = |direct: bool| {
        OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .custom_flags(if direct { libc::O_DIRECT } else { 0 })
            .open(path)
    };
    // A file this call creates is removed again if the target cannot be set up.
    let created = current.is_none();
    let undo = |e: TargetError| {
        if created {
            let _ = std::fs::remove_file(path);
        }
        e
    };
    // O_DIRECT bypasses the page cache; filesystems without it (tmpfs) get buffered IO,
    // and the identity says so.
    let (file, direct) = match open(true) {
        Ok(f) => (f, true),
        Err(e) if e.raw_os_error() == Some(libc::EINVAL) => {
            (open(false).map_err(|e| undo(io_err(e)))?, false)
        }
        Err(e) => return Err(undo(io_err(e))),
    };
    lock::exclusive(&file, &shown).map_err(undo)?;
    // Created, or confirmed with --destroy-data: from now on it holds only ssdlab's data.
    if created || req.write {
        mark::mark(&file);
    }
    // Reserve the space so a test never fills the filesystem half-way: a new file, a file
    // grown to SIZE, or one with holes that a write test will fill. Refused up front when the
    // filesystem has not the room.
    if created || req.write {
        reserve(&file, &shown, capacity).map_err(undo)?;
    }
    let mut identity = Identity {
        capacity_bytes: capacity,
        logical_block_bytes: 4096,
        physical_block_bytes: 4096,
        ..Identity::new(TargetKind::File, shown)
    };
    sysfs::describe_file(path, &mut identity);
    identity
        .details
        .insert("direct_io".into(), direct.to_string());
    let geometry = Geometry {
        capacity_bytes: capacity,
        // 4 KiB: safe for O_DIRECT on every filesystem and device we meet.
        logical_block_bytes: if direct { 4096 } else { 512 },
        physical_block_bytes: 4096,
    };
    identity.logical_block_bytes = geometry.logical_block_bytes;
    Ok((file, false, geometry, identity))
}

/// Allocate every byte of `file` up to `capacity` (fallocate), after checking the
/// filesystem has room for what is not allocated yet. A filesystem without fallocate gets
/// a file of the right length, sparse, once the free space has been checked.
fn reserve(file: &File, shown: &str, capacity: u64) -> Result<(), TargetError> {
    use std::os::fd::AsRawFd;
    use std::os::unix::fs::MetadataExt;
    let io_err = TargetError::io_at(shown);
    let meta = file.metadata().map_err(io_err)?;
    let allocated = (meta.blocks() * 512).min(meta.len());
    if allocated >= capacity {
        return Ok(());
    }
    let needed = capacity - allocated;
    let free = free_bytes(file).map_err(io_err)?;
    let no_space = || TargetError::NoSpace {
        path: shown.to_string(),
        capacity,
        needed,
        free,
        most: (allocated + free) / (1 << 20) * (1 << 20),
    };
    if needed > free {
        return Err(no_space());
    }
    // SAFETY: plain syscall on an owned fd.
    let r = unsafe { libc::fallocate(file.as_raw_fd(), 0, 0, capacity as i64) };
    if r == 0 {
        return Ok(());
    }
    let e = io::Error::last_os_error();
    match e.raw_os_error() {
        Some(libc::ENOSPC) | Some(libc::EDQUOT) => Err(no_space()),
        Some(libc::EOPNOTSUPP) | Some(libc::ENOSYS) => {
            if meta.len() < capacity {
                file.set_len(capacity).map_err(io_err)?;
            }
            Ok(())
        }
        _ => Err(io_err(e)),
    }
}

/// Bytes an unprivileged user may still allocate on the filesystem holding `file` (a file or
/// a directory).
pub fn free_bytes(file: &File) -> io::Result<u64> {
    use std::os::fd::AsRawFd;
    // SAFETY: fstatvfs fills the struct we hand it.
    let mut st: libc::statvfs = unsafe { std::mem::zeroed() };
    if unsafe { libc::fstatvfs(file.as_raw_fd(), &mut st) } != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(st.f_bavail as u64 * st.f_frsize as u64)
}
