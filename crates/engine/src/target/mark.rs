//! Files ssdlab made its own: created as a target, or written once the user named them with
//! `--destroy-data`. They carry an extended attribute on the inode, so a hard link, a symlink
//! or a rename keeps it and a copy of the file (which may hold anything) does not. A later
//! write test on a marked file needs no confirmation; on any other file holding data it does.
//! A filesystem without user xattrs keeps no mark: its files are asked about every time.

use std::fs::File;
use std::os::fd::AsRawFd;

const NAME: &std::ffi::CStr = c"user.ssdlab.target";
const VALUE: &[u8] = b"ssdlab test target: its contents are ssdlab's";

/// Mark `file` as ssdlab's own test target; a filesystem that cannot keep the mark is no
/// error (the file is then asked about next time).
pub(crate) fn mark(file: &File) {
    // SAFETY: fsetxattr(2) on an owned fd with a NUL-terminated name and a valid buffer.
    unsafe {
        libc::fsetxattr(
            file.as_raw_fd(),
            NAME.as_ptr(),
            VALUE.as_ptr().cast(),
            VALUE.len(),
            0,
        );
    }
}

/// Whether `file` carries ssdlab's mark.
pub(crate) fn is_marked(file: &File) -> bool {
    let mut buf = [0u8; 64];
    // SAFETY: fgetxattr(2) into a buffer of the length given.
    let n = unsafe {
        libc::fgetxattr(
            file.as_raw_fd(),
            NAME.as_ptr(),
            buf.as_mut_ptr().cast(),
            buf.len(),
        )
    };
    n >= 0 && &buf[..n as usize] == VALUE
}
