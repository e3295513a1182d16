//! Reading a whole file a user points ssdlab at (a result, a simulator TOML, a sensor's
//! sysfs value): a regular file only, of at most a known size. A symlink to /dev/zero never
//! ends and a FIFO waits for a writer forever; both, and a file too long to be what it
//! should be, are refused with what is wrong instead of exhausting memory or hanging.

use std::io::{self, Read};
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

    /// The whole file, or why it is not one of these.
    pub fn read(&self, path: &Path) -> io::Result<Vec<u8>> {
        use std::os::unix::fs::OpenOptionsExt;
        // Non-blocking, so that opening a FIFO does not wait for a writer; the checks below
        // are on what was opened, not on a name that could be swapped in between.
        let file = std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_NONBLOCK)
            .open(path)?;
        let meta = file.metadata()?;
        if !meta.is_file() {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!(
                    "not a regular file (a FIFO, device, socket or directory), so not {}: \
                     give the path of the file itself",
                    self.what
                ),
            ));
        }
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
