//! Targets: what `--target` names, and opening the real ones (block devices and files).
//! `sim:` targets are opened by the suite, which knows the simulator.

use std::fs::{File, OpenOptions};
use std::io;
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

use crate::blockdev;
use crate::device::{Device, Geometry};
use crate::identity::Identity;
use crate::safety::{self, SafetyError};
use crate::size::{format_size, parse_size};
use crate::sync::SyncDevice;
use crate::sysfs::{self, BlockNode};
use crate::uring::UringDevice;

#[derive(Clone, Debug, PartialEq)]
pub enum TargetSpec {
    /// A raw block device, `/dev/...`.
    Block(PathBuf),
    /// `file:PATH[:SIZE]`: created at SIZE if absent, never written beyond it.
    File { path: PathBuf, size: Option<u64> },
    /// `sim:PRESET[,key=value...]`.
    Sim(String),
}

#[derive(Debug, thiserror::Error)]
pub enum TargetError {
    #[error("'{0}' is not a target: use a block device (/dev/sdX, /dev/nvme0n1), file:PATH[:SIZE] or sim:PRESET")]
    Unknown(String),
    #[error("bad size in '{spec}': {reason}")]
    Size { spec: String, reason: String },
    #[error("{path} does not exist; give a size to create it, e.g. file:{path}:4G")]
    FileMissingSize { path: String },
    #[error(
        "{path} is {actual} bytes, smaller than one 4 KiB block: give a size, e.g. file:{path}:4G"
    )]
    FileTooSmall { path: String, actual: u64 },
    /// The OS error is in the message, not the source chain: `{:#}` would print it twice.
    #[error("{path}: {error}")]
    Io { path: String, error: io::Error },
    #[error(
        "{path}: a {size} target needs {needed} more space, but its filesystem has only {free} \
         free: give a smaller SIZE (at most {most}: file:{path}:{most_spec}) or a path on a \
         filesystem with room",
        size = format_size(*capacity),
        needed = format_size(*needed),
        free = format_size(*free),
        most = format_size(*most),
        most_spec = size_spec(*most)
    )]
    NoSpace {
        path: String,
        capacity: u64,
        needed: u64,
        free: u64,
        /// The largest target that fits: what the file holds already plus the free space.
        most: u64,
    },
    #[error("{path} is read-only (a read-only loop device, a write-protected drive or a read-only mapping): a write test cannot run on it; use a writable device, or a test that only reads (run custom --read-pct 100)")]
    ReadOnly { path: String },
    #[error("{0} is not a block device; for a regular file use file:{0}")]
    NotBlock(String),
    #[error("{path} is opened exclusively by another program (mounted, or in use by LVM/md or another ssdlab)")]
    Busy { path: String },
    #[error(transparent)]
    Safety(#[from] SafetyError),
    #[error("{0} targets are opened by the suite, not the engine")]
    Sim(String),
}

/// A size as a target spec takes it: whole MiB (rounded down) where possible.
fn size_spec(bytes: u64) -> String {
    if bytes >= 1 << 20 {
        format!("{}M", bytes >> 20)
    } else {
        format!("{}K", bytes >> 10)
    }
}

impl TargetSpec {
    pub fn parse(text: &str) -> Result<TargetSpec, TargetError> {
        if let Some(rest) = text.strip_prefix("sim:") {
            return Ok(TargetSpec::Sim(rest.to_string()));
        }
        if let Some(rest) = text.strip_prefix("file:") {
            // The size is the part after the last ':', when that parses as a size.
            if let Some((path, size)) = rest.rsplit_once(':') {
                if size.starts_with(|c: char| c.is_ascii_digit()) {
                    let size = parse_size(size).map_err(|reason| TargetError::Size {
                        spec: text.to_string(),
                        reason,
                    })?;
                    return Ok(TargetSpec::File {
                        path: PathBuf::from(path),
                        size: Some(size),
                    });
                }
            }
            if rest.is_empty() {
                return Err(TargetError::Unknown(text.to_string()));
            }
            return Ok(TargetSpec::File {
                path: PathBuf::from(rest),
                size: None,
            });
        }
        if text.starts_with("/dev/") {
            return Ok(TargetSpec::Block(PathBuf::from(text)));
        }
        Err(TargetError::Unknown(text.to_string()))
    }
}

/// Which backend drives a real target.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Backend {
    /// io_uring, or the sync backend where io_uring is unavailable.
    #[default]
    Auto,
    Uring,
    Sync,
}

impl Backend {
    pub fn parse(text: &str) -> Result<Backend, String> {
        match text {
            "auto" => Ok(Backend::Auto),
            "io_uring" | "uring" => Ok(Backend::Uring),
            "sync" | "psync" => Ok(Backend::Sync),
            other => Err(format!(
                "unknown backend '{other}': use auto, io_uring or sync"
            )),
        }
    }
}

#[derive(Clone, Debug, Default)]
pub struct OpenRequest {
    /// Whether the test writes (and so must pass the safety checks on a block device).
    pub write: bool,
    pub backend: Backend,
    /// The device the user named with `--destroy-data`.
    pub destroy_data: Option<String>,
}

/// Open a block device or file target.
pub fn open_real(spec: &TargetSpec, req: &OpenRequest) -> Result<Box<dyn Device>, TargetError> {
    let (file, is_block, geometry, identity) = match spec {
        TargetSpec::Sim(s) => return Err(TargetError::Sim(format!("sim:{s}"))),
        TargetSpec::Block(path) => open_block(path, req)?,
        TargetSpec::File { path, size } => open_file(path, *size, req)?,
    };
    let io_err = |error| TargetError::Io {
        path: identity.path.clone(),
        error,
    };
    Ok(match req.backend {
        Backend::Sync => Box::new(SyncDevice::new(file, is_block, geometry, identity)),
        Backend::Uring => {
            let id = identity.clone();
            Box::new(UringDevice::new(file, is_block, geometry, id).map_err(io_err)?)
        }
        Backend::Auto => {
            // Keep a second handle so the sync backend can take over if io_uring is refused.
            let spare = file.try_clone().map_err(io_err)?;
            match UringDevice::new(file, is_block, geometry, identity.clone()) {
                Ok(dev) => Box::new(dev),
                Err(_) => Box::new(SyncDevice::new(spare, is_block, geometry, identity)),
            }
        }
    })
}

fn open_block(
    path: &Path,
    req: &OpenRequest,
) -> Result<(File, bool, Geometry, Identity), TargetError> {
    let shown = path.display().to_string();
    let io_err = |error| TargetError::Io {
        path: shown.clone(),
        error,
    };
    let meta = std::fs::metadata(path).map_err(io_err)?;
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
        kind: "block".into(),
        path: shown.clone(),
        capacity_bytes: capacity,
        logical_block_bytes: logical,
        physical_block_bytes: physical,
        ..Identity::default()
    };
    let node = BlockNode::of_device(path).map_err(io_err)?;
    sysfs::describe_block(&node, &mut identity);
    Ok((file, true, geometry, identity))
}

fn open_file(
    path: &Path,
    size: Option<u64>,
    req: &OpenRequest,
) -> Result<(File, bool, Geometry, Identity), TargetError> {
    let shown = path.display().to_string();
    let io_err = |error| TargetError::Io {
        path: shown.clone(),
        error,
    };
    let existing = std::fs::metadata(path).ok();
    if existing
        .as_ref()
        .is_some_and(|m| m.file_type().is_block_device())
    {
        return Err(TargetError::Unknown(format!(
            "file:{shown} (a block device: use --target {shown})"
        )));
    }
    let current = existing.map(|m| m.len());
    let capacity = match (current, size) {
        (None, None) => return Err(TargetError::FileMissingSize { path: shown }),
        (_, Some(s)) => s,
        (Some(len), None) => len,
    } / 4096
        * 4096;
    if capacity == 0 {
        return Err(TargetError::FileTooSmall {
            path: shown,
            actual: current.unwrap_or(0),
        });
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
    // Reserve the space so a test never fills the filesystem half-way: a new file, a file
    // grown to SIZE, or one with holes that a write test will fill. Refused up front when the
    // filesystem has not the room.
    if created || req.write {
        reserve(&file, &shown, capacity).map_err(undo)?;
    }
    let mut identity = Identity {
        kind: "file".into(),
        path: shown,
        capacity_bytes: capacity,
        logical_block_bytes: 4096,
        physical_block_bytes: 4096,
        ..Identity::default()
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
    let io_err = |error| TargetError::Io {
        path: shown.to_string(),
        error,
    };
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

/// Bytes an unprivileged user may still allocate on the filesystem holding `file`.
fn free_bytes(file: &File) -> io::Result<u64> {
    use std::os::fd::AsRawFd;
    // SAFETY: fstatvfs fills the struct we hand it.
    let mut st: libc::statvfs = unsafe { std::mem::zeroed() };
    if unsafe { libc::fstatvfs(file.as_raw_fd(), &mut st) } != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(st.f_bavail as u64 * st.f_frsize as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specs() {
        assert_eq!(
            TargetSpec::parse("file:/tmp/x.img:4G").unwrap(),
            TargetSpec::File {
                path: "/tmp/x.img".into(),
                size: Some(4 << 30)
            }
        );
        assert_eq!(
            TargetSpec::parse("file:/tmp/x.img").unwrap(),
            TargetSpec::File {
                path: "/tmp/x.img".into(),
                size: None
            }
        );
        assert_eq!(
            TargetSpec::parse("/dev/sdb").unwrap(),
            TargetSpec::Block("/dev/sdb".into())
        );
        assert_eq!(
            TargetSpec::parse("sim:default,op=25%").unwrap(),
            TargetSpec::Sim("default,op=25%".into())
        );
        let e = TargetSpec::parse("/tmp/x.img").unwrap_err().to_string();
        assert!(e.contains("file:PATH"), "{e}");
        let e = TargetSpec::parse("file:/tmp/x:4Q").unwrap_err().to_string();
        assert!(e.contains("unknown unit"), "{e}");
    }

    #[test]
    fn missing_file_needs_a_size() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("nope.img");
        let spec = TargetSpec::File {
            path: p,
            size: None,
        };
        let e = open_real(&spec, &OpenRequest::default())
            .err()
            .unwrap()
            .to_string();
        assert!(e.contains("give a size"), "{e}");
    }
}
