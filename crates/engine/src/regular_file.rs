//! Reading a whole file a user points ssdlab at (a result, a simulator TOML, a sensor's
//! sysfs value): a regular file only, of at most a known size. A symlink to /dev/zero never
//! ends and a FIFO waits for a writer forever; both, and a file too long to be what it
//! should be, are refused with what is wrong instead of exhausting memory or hanging.

use std::fs::File;
use std::io::{self, Read};
use std::os::fd::AsRawFd;
use std::path::Path;

/// A kind of file ssdlab reads whole: what it is, in words, and the most it can hold.
#[derive(Clone, Copy, Debug)]
pub struct RegularFile {
    what: &'static str,
    max_bytes: u64,
}

impl RegularFile {
    /// `what` names such a file with its article ("a simulator TOML file").
    pub const fn new(what: &'static str, max_bytes: u64) -> RegularFile {
        RegularFile { what, max_bytes }
    }

    /// The most such a file holds.
    pub fn max_bytes(&self) -> u64 {
        self.max_bytes
    }

    /// The file opened to be read as a stream (of any length: a trace, a log), or why it is
    /// not one of these.
    pub fn open(&self, path: &Path) -> io::Result<File> {
        use std::os::unix::fs::OpenOptionsExt;
        // Non-blocking, so that opening a FIFO does not wait for a writer; the check is on
        // what was opened, not on a name that could be swapped in between.
        let file = std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_NONBLOCK)
            .open(path)?;
        if !file.metadata()?.is_file() {
            return Err(self.not_regular());
        }
        // SAFETY: fcntl(2) on an owned fd: back to blocking reads.
        unsafe { libc::fcntl(file.as_raw_fd(), libc::F_SETFL, 0) };
        Ok(file)
    }

    /// Check, before any work whose output it is, that `path` can be written as one of these:
    /// absent (to be created) or a regular file, never a FIFO that would block the writer or
    /// a device it would fill.
    pub fn check_output(&self, path: &Path) -> io::Result<()> {
        match std::fs::metadata(path) {
            Ok(meta) if !meta.is_file() => Err(self.not_regular()),
            _ => Ok(()),
        }
    }

    fn not_regular(&self) -> io::Error {
        io::Error::new(
            io::ErrorKind::InvalidInput,
            format!(
                "not a regular file (a FIFO, device, socket or directory), so not {}: \
                 give the path of the file itself",
                self.what
            ),
        )
    }

    /// The whole file, or why it is not one of these.
    pub fn read(&self, path: &Path) -> io::Result<Vec<u8>> {
        let file = self.open(path)?;
        let meta = file.metadata()?;
        let too_long = || {
            io::Error::new(
                io::ErrorKind::FileTooLarge,
                format!(
                    "longer than {}, the most {} can be",
                    crate::units::format_size(self.max_bytes),
                    self.what
                ),
            )
        };
        // What a file says of its length is only a hint (sysfs says a page, /proc 0).
        if meta.len() > self.max_bytes {
            return Err(too_long());
        }
        let mut bytes = Vec::with_capacity(meta.len() as usize);
        file.take(self.max_bytes + 1).read_to_end(&mut bytes)?;
        if bytes.len() as u64 > self.max_bytes {
            return Err(too_long());
        }
        Ok(bytes)
    }

    /// The whole file as text.
    pub fn read_to_string(&self, path: &Path) -> io::Result<String> {
        String::from_utf8(self.read(path)?).map_err(|_| {
            io::Error::new(
                io::ErrorKind::InvalidData,
                format!("not text (UTF-8), so not {}", self.what),
            )
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SMALL: RegularFile = RegularFile::new("a small file", 16);

    fn refusal(path: &Path) -> String {
        SMALL.read(path).unwrap_err().to_string()
    }

    #[test]
    fn reads_a_regular_file_up_to_its_cap() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        std::fs::write(&path, "0123456789abcdef").unwrap();
        assert_eq!(SMALL.read_to_string(&path).unwrap(), "0123456789abcdef");
        std::fs::write(&path, "0123456789abcdefg").unwrap();
        let e = refusal(&path);
        assert!(
            e.contains("longer than 16 B") && e.contains("a small file"),
            "{e}"
        );
        std::fs::write(&path, [0xff, 0xfe]).unwrap();
        let e = SMALL.read_to_string(&path).unwrap_err().to_string();
        assert!(e.contains("not text"), "{e}");
    }

    /// A FIFO given as a trace or a log is refused at once, as input and as output (issue
    /// #66, item 13).
    #[test]
    fn streams_and_outputs_are_regular_files_only() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("fifo");
        let name = std::ffi::CString::new(fifo.as_os_str().as_encoded_bytes()).unwrap();
        // SAFETY: mkfifo(3) with a NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(name.as_ptr(), 0o600) }, 0);
        for path in [fifo.as_path(), Path::new("/dev/zero")] {
            let e = SMALL.open(path).unwrap_err().to_string();
            assert!(e.contains("not a regular file"), "{e}");
            let e = SMALL.check_output(path).unwrap_err().to_string();
            assert!(e.contains("not a regular file"), "{e}");
        }
        let file = dir.path().join("f");
        assert!(SMALL.check_output(&file).is_ok(), "absent: to be created");
        std::fs::write(&file, "line\n").unwrap();
        let mut text = String::new();
        SMALL
            .open(&file)
            .unwrap()
            .read_to_string(&mut text)
            .unwrap();
        assert_eq!(text, "line\n");
        assert!(SMALL.check_output(&file).is_ok());
    }

    #[test]
    fn refuses_devices_fifos_and_directories_without_blocking() {
        let dir = tempfile::tempdir().unwrap();
        let zero = dir.path().join("zero");
        std::os::unix::fs::symlink("/dev/zero", &zero).unwrap();
        let fifo = dir.path().join("fifo");
        let name = std::ffi::CString::new(fifo.as_os_str().as_encoded_bytes()).unwrap();
        // SAFETY: mkfifo(3) with a NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(name.as_ptr(), 0o600) }, 0);
        for path in [zero.as_path(), fifo.as_path(), dir.path()] {
            let e = refusal(path);
            assert!(
                e.contains("not a regular file") && e.contains("a small file"),
                "{}: {e}",
                path.display()
            );
        }
    }
}
