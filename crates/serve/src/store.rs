//! The served drive's data: one anonymous mapping the size of the drive, so an IO copies
//! bytes and allocates nothing. The kernel gives it memory only where it is written, and a
//! discard gives whole pages back (they read as zeroes again): the store is as sparse as the
//! data the drive holds.

use crate::error::ServeError;

pub(crate) struct Store {
    base: *mut u8,
    len: usize,
}

// SAFETY: the store owns its mapping; every access goes through `&self`/`&mut self` of the
// one owner (the drive, behind its lock).
unsafe impl Send for Store {}

/// Memory pages, for discards.
const PAGE: u64 = 4096;

impl Store {
    /// A zeroed store of `len` bytes, refused when the drive, written whole, would take more
    /// than half of the `available` memory.
    pub(crate) fn new(len: u64, available: Option<u64>, spec: &str) -> Result<Store, ServeError> {
        if let Some(avail) = available {
            if len > avail / 2 {
                return Err(ServeError::DataMemory {
                    spec: spec.into(),
                    capacity_bytes: len,
                    available_bytes: avail,
                });
            }
        }
        let size = usize::try_from(len).map_err(|_| ServeError::DataMemory {
            spec: spec.into(),
            capacity_bytes: len,
            available_bytes: available.unwrap_or(0),
        })?;
        // SAFETY: a fresh private anonymous mapping; no other memory is touched.
        let base = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                size.max(1),
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE,
                -1,
                0,
            )
        };
        if base == libc::MAP_FAILED {
            return Err(ServeError::Os(
                "mapping memory for the drive's data".into(),
                std::io::Error::last_os_error(),
            ));
        }
        Ok(Store {
            base: base.cast(),
            len: size,
        })
    }

    /// The bytes at `offset`; `None` when they are not all inside the drive.
    fn range(&self, offset: u64, len: usize) -> Option<std::ops::Range<usize>> {
        let start = usize::try_from(offset).ok()?;
        let end = start.checked_add(len)?;
        (end <= self.len).then_some(start..end)
    }

    fn bytes(&mut self) -> &mut [u8] {
        // SAFETY: `base` maps `len` bytes for as long as `self` lives, and `&mut self` makes
        // this the only view of them.
        unsafe { std::slice::from_raw_parts_mut(self.base, self.len) }
    }

    /// Copy `offset..offset+out.len()` into `out`; false when it is outside the drive.
    pub(crate) fn read(&mut self, offset: u64, out: &mut [u8]) -> bool {
        let Some(r) = self.range(offset, out.len()) else {
            return false;
        };
        out.copy_from_slice(&self.bytes()[r]);
        true
    }

    /// Keep `data` at `offset`; false when it is outside the drive.
    pub(crate) fn write(&mut self, offset: u64, data: &[u8]) -> bool {
        let Some(r) = self.range(offset, data.len()) else {
            return false;
        };
        self.bytes()[r].copy_from_slice(data);
        true
    }

    /// Forget `offset..offset+len`: it reads as zeroes, and its whole pages go back to the
    /// kernel. False when it is outside the drive.
    pub(crate) fn discard(&mut self, offset: u64, len: u64) -> bool {
        let Some(r) = usize::try_from(len)
            .ok()
            .and_then(|l| self.range(offset, l))
        else {
            return false;
        };
        let first = offset.next_multiple_of(PAGE) as usize;
        let last = ((offset + len) / PAGE * PAGE) as usize;
        if first < last {
            // SAFETY: `first..last` is inside the mapping and page-aligned; MADV_DONTNEED on
            // a private anonymous mapping makes those pages read as zeroes.
            unsafe {
                libc::madvise(
                    self.base.add(first).cast(),
                    last - first,
                    libc::MADV_DONTNEED,
                )
            };
            self.bytes()[r.start..first].fill(0);
            self.bytes()[last..r.end].fill(0);
        } else {
            self.bytes()[r].fill(0);
        }
        true
    }
}

impl Drop for Store {
    fn drop(&mut self) {
        // SAFETY: the mapping made in `new`, unmapped once.
        unsafe { libc::munmap(self.base.cast(), self.len.max(1)) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_read_back_and_discards_read_as_zeroes() {
        let mut s = Store::new(1 << 20, None, "test").unwrap();
        let data: Vec<u8> = (0..3 * 4096 + 100).map(|i| (i % 251) as u8 + 1).collect();
        assert!(s.write(1000, &data));
        let mut back = vec![0u8; data.len()];
        assert!(s.read(1000, &mut back));
        assert_eq!(back, data);
        // Partial pages at both ends and whole pages between.
        assert!(s.discard(2000, 2 * 4096 + 500));
        assert!(s.read(1000, &mut back));
        assert!(back[1000..1000 + 2 * 4096 + 500].iter().all(|&b| b == 0));
        assert_eq!(back[..1000], data[..1000]);
        assert_eq!(back[1000 + 2 * 4096 + 500..], data[1000 + 2 * 4096 + 500..]);
        // Outside the drive.
        assert!(!s.write((1 << 20) - 10, &[1; 11]));
        assert!(!s.read(u64::MAX - 1, &mut [0; 4]));
        assert!(!s.discard(1 << 20, 1));
    }

    #[test]
    fn a_drive_larger_than_half_the_memory_is_refused() {
        let err = Store::new(8 << 30, Some(10 << 30), "sim:x").err().unwrap();
        assert!(err.to_string().contains("capacity="), "{err}");
    }
}
