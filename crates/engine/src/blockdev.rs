//! The few Linux calls real targets need beyond read and write: sizes of block devices and
//! discard (BLKDISCARD on devices, hole punching on files).

use std::fs::File;
use std::io;
use std::os::fd::AsRawFd;

// From <linux/fs.h>.
const BLKSSZGET: libc::c_ulong = 0x1268;
const BLKPBSZGET: libc::c_ulong = 0x127B;
const BLKGETSIZE64: libc::c_ulong = 0x8008_1272;
const BLKDISCARD: libc::c_ulong = 0x1277;
const BLKROGET: libc::c_ulong = 0x125E;

fn check(ret: libc::c_int) -> io::Result<()> {
    if ret < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(())
    }
}

/// Capacity, logical and physical block size of a block device.
pub fn block_sizes(file: &File) -> io::Result<(u64, u32, u32)> {
    let fd = file.as_raw_fd();
    let mut size: u64 = 0;
    let mut logical: libc::c_int = 0;
    let mut physical: libc::c_uint = 0;
    // SAFETY: each ioctl writes one integer of the type given.
    unsafe {
        check(libc::ioctl(fd, BLKGETSIZE64 as _, &mut size))?;
        check(libc::ioctl(fd, BLKSSZGET as _, &mut logical))?;
        check(libc::ioctl(fd, BLKPBSZGET as _, &mut physical))?;
    }
    Ok((size, logical as u32, physical))
}

/// Whether the block device at `path` is read-only (BLKROGET: `losetup -r`, a write-protect
/// switch, a read-only mapping).
pub fn read_only(path: &std::path::Path) -> io::Result<bool> {
    let file = File::open(path)?;
    let mut ro: libc::c_int = 0;
    // SAFETY: BLKROGET writes one int.
    check(unsafe { libc::ioctl(file.as_raw_fd(), BLKROGET as _, &mut ro) })?;
    Ok(ro != 0)
}

/// Unmap a range: BLKDISCARD on a block device, a hole punch on a file.
pub fn discard(file: &File, is_block: bool, offset: u64, len: u64) -> io::Result<()> {
    let fd = file.as_raw_fd();
    if is_block {
        let range: [u64; 2] = [offset, len];
        // SAFETY: BLKDISCARD reads two u64s.
        check(unsafe { libc::ioctl(fd, BLKDISCARD as _, &range) })
    } else {
        // SAFETY: plain syscall on an owned fd.
        check(unsafe {
            libc::fallocate(
                fd,
                libc::FALLOC_FL_PUNCH_HOLE | libc::FALLOC_FL_KEEP_SIZE,
                offset as libc::off_t,
                len as libc::off_t,
            )
        })
    }
}

/// Nanoseconds on the monotonic clock since `epoch`.
#[inline]
pub fn since(epoch: std::time::Instant) -> u64 {
    epoch.elapsed().as_nanos() as u64
}
