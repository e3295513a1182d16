//! Page-level address mapping at 4 KiB granularity (MQSim's address mapping unit), compact:
//! one u32 per logical unit (L2P) and one u32 per physical unit (P2L). A physical unit is
//! valid exactly when `l2p[p2l[ppa]] == ppa`, so no separate validity bitmap is kept and the
//! whole map costs 4 bytes per logical unit plus 4 per physical unit.

/// "No physical unit": an unmapped (never written or trimmed) logical unit.
pub const UNMAPPED: u32 = u32::MAX;
/// "No logical unit": a physical unit that holds padding.
const NO_LPN: u32 = u32::MAX;

/// A table of `n` entries set to `fill`, on transparent huge pages where the kernel offers
/// them: the tables are hit at random, and with 4 KiB pages every lookup of a large drive also
/// misses the TLB.
fn table(n: usize, fill: u32) -> Vec<u32> {
    let mut v: Vec<u32> = Vec::with_capacity(n);
    advise_huge_pages(v.as_mut_ptr() as usize, n * 4);
    v.resize(n, fill);
    v
}

#[cfg(target_os = "linux")]
fn advise_huge_pages(addr: usize, len: usize) {
    const HUGE: usize = 2 << 20;
    let start = addr.next_multiple_of(HUGE);
    let end = (addr + len) / HUGE * HUGE;
    if end > start {
        // SAFETY: madvise only advises the kernel about a range inside an allocation we own
        // (not yet initialised, not yet touched); it changes no memory contents, and a
        // failure is harmless, so its result is ignored.
        unsafe {
            libc::madvise(start as *mut libc::c_void, end - start, libc::MADV_HUGEPAGE);
        }
    }
}

#[cfg(not(target_os = "linux"))]
fn advise_huge_pages(_addr: usize, _len: usize) {}

pub struct Mapping {
    l2p: Vec<u32>,
    p2l: Vec<u32>,
    /// Logical units mapped now.
    mapped: u64,
}

impl Mapping {
    pub fn new(logical_units: u64, physical_units: u64) -> Mapping {
        Mapping {
            l2p: table(logical_units as usize, UNMAPPED),
            p2l: table(physical_units as usize, NO_LPN),
            mapped: 0,
        }
    }

    #[inline]
    pub fn lookup(&self, lpn: u32) -> u32 {
        self.l2p[lpn as usize]
    }

    #[inline]
    pub fn map(&mut self, lpn: u32, ppa: u32) {
        let e = &mut self.l2p[lpn as usize];
        self.mapped += (*e == UNMAPPED) as u64;
        *e = ppa;
        self.p2l[ppa as usize] = lpn;
    }

    #[inline]
    pub fn unmap(&mut self, lpn: u32) {
        let e = &mut self.l2p[lpn as usize];
        self.mapped -= (*e != UNMAPPED) as u64;
        *e = UNMAPPED;
    }

    /// Mark a physical unit as padding (written, but holding no user data).
    #[inline]
    pub fn pad(&mut self, ppa: u32) {
        self.p2l[ppa as usize] = NO_LPN;
    }

    /// The logical unit stored at `ppa` if that copy is still the current one.
    #[inline]
    pub fn owner(&self, ppa: u32) -> Option<u32> {
        let lpn = self.p2l[ppa as usize];
        (lpn != NO_LPN && self.l2p[lpn as usize] == ppa).then_some(lpn)
    }

    /// Append (unit index, logical unit) for the valid units among `base..base+units`, stopping
    /// once `want` are found. Branch-light so the random L2P loads overlap (this is GC's
    /// hottest loop).
    pub fn collect_valid(&self, base: u32, units: u32, want: u32, out: &mut Vec<(u32, u32)>) {
        let start = out.len();
        out.resize(start + units as usize, (0, 0));
        let mut n = start;
        let end = start + want as usize;
        let p2l = &self.p2l[base as usize..(base + units) as usize];
        for (u, &lpn) in p2l.iter().enumerate() {
            if n >= end {
                break;
            }
            let ppa = base + u as u32;
            let ok = self.l2p.get(lpn as usize).copied() == Some(ppa);
            out[n] = (u as u32, lpn);
            n += ok as usize;
        }
        out.truncate(n);
    }

    /// Forget every mapping (a secure erase).
    pub fn reset(&mut self) {
        self.l2p.fill(UNMAPPED);
        self.p2l.fill(NO_LPN);
        self.mapped = 0;
    }

    /// Bytes of RAM the tables take.
    pub fn ram_bytes(&self) -> u64 {
        (self.l2p.capacity() + self.p2l.capacity()) as u64 * 4
    }

    pub fn mapped_units(&self) -> u64 {
        self.mapped
    }

    /// The map and its reverse agree: every mapped logical unit's physical unit names it back
    /// (so no two logical units share one), and `mapped` counts them. O(logical units).
    pub fn assert_consistent(&self) {
        let mut mapped = 0;
        for (lpn, &ppa) in self.l2p.iter().enumerate() {
            if ppa == UNMAPPED {
                continue;
            }
            mapped += 1;
            let back = self.p2l.get(ppa as usize).copied();
            assert_eq!(
                back,
                Some(lpn as u32),
                "L2P maps unit {lpn} to {ppa}, whose reverse entry is {back:?}"
            );
        }
        assert_eq!(mapped, self.mapped, "units mapped: counted {}", self.mapped);
    }

    /// How many of the physical units `base..base + units` hold a current copy.
    pub fn owned_in(&self, base: u32, units: u32) -> u32 {
        (base..base + units)
            .filter(|&p| self.owner(p).is_some())
            .count() as u32
    }
}
