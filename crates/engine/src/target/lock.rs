//! One run at a time on a file: an exclusive flock(2) on the opened inode, held as long as
//! the target is open. A symlink or a hard link opens the same inode and so meets the same
//! lock; a second ssdlab (or any program that flocks it) is refused, named when /proc/locks
//! says who holds it. (Block devices are opened with O_EXCL, which the kernel enforces.)

use std::fs::File;
use std::os::fd::AsRawFd;
use std::os::unix::fs::MetadataExt;

use super::TargetError;

/// Take `file`'s exclusive lock, or say who holds it.
pub(super) fn exclusive(file: &File, shown: &str) -> Result<(), TargetError> {
    // SAFETY: flock(2) on an owned fd.
    if unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } == 0 {
        return Ok(());
    }
    let e = std::io::Error::last_os_error();
    if e.raw_os_error() != Some(libc::EWOULDBLOCK) {
        return Err(TargetError::io_at(shown)(e));
    }
    let holder = file.metadata().ok().and_then(|m| holder(m.dev(), m.ino()));
    Err(TargetError::Locked {
        path: shown.to_string(),
        holder: holder.map_or_else(String::new, |h| format!(" ({h})")),
    })
}

/// The process holding a flock on the inode `ino` of device `dev`, from /proc/locks:
/// "1: FLOCK  ADVISORY  WRITE 4242 fd:01:1234 0 EOF" (device in hex, inode in decimal).
fn holder(dev: u64, ino: u64) -> Option<String> {
    let inode = format!("{:02x}:{:02x}:{ino}", libc::major(dev), libc::minor(dev));
    let locks = std::fs::read_to_string("/proc/locks").ok()?;
    let pid: u32 = locks.lines().find_map(|line| {
        let f: Vec<&str> = line.split_whitespace().collect();
        (f.get(1) == Some(&"FLOCK") && f.get(5) == Some(&inode.as_str()))
            .then(|| f.get(4)?.parse().ok())
            .flatten()
    })?;
    let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
    let command: Vec<String> = cmdline
        .split(|&b| b == 0)
        .filter(|a| !a.is_empty())
        .map(|a| String::from_utf8_lossy(a).into_owned())
        .collect();
    Some(match command.is_empty() {
        true => format!("process {pid}"),
        false => format!("process {pid}: {}", command.join(" ")),
    })
}
