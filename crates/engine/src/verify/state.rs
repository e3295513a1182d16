//! The expected state: for every verify unit of the tested span, the generation of its last
//! write, and the check of a read buffer against it.

use super::format::{self, Found};
use super::report::{Mismatch, MismatchKind, VerifyReport};
use super::VerifyError;

/// Never written under verification: not checked.
const UNWRITTEN: u32 = 0;
/// Found bad and reported: not checked again until rewritten (a unit is reported once).
const REPORTED: u32 = u32::MAX;

pub struct Expected {
    start: u64,
    unit: u32,
    /// Seed of the run: headers of other runs are stale data.
    seed: u64,
    gens: Vec<u32>,
    next_gen: u32,
    /// Scratch for one read buffer's verdicts (sized once for the largest read).
    verdicts: Vec<Verdict>,
}

#[derive(Clone, Copy, Debug)]
enum Verdict {
    Skip,
    Good,
    Bad {
        kind: MismatchKind,
        found: Option<format::Header>,
    },
}

impl Expected {
    /// The state of `span` bytes from `start` in units of `unit` bytes: 4 bytes per unit,
    /// refused when that is more than half of `available` memory.
    pub fn new(
        start: u64,
        span: u64,
        unit: u32,
        seed: u64,
        max_read: usize,
        available: Option<u64>,
    ) -> Result<Expected, VerifyError> {
        let units = span / unit as u64;
        let need = units.saturating_mul(4);
        if let Some(avail) = available.filter(|&a| need > a / 2) {
            return Err(VerifyError::TooLarge {
                span,
                need,
                available: avail,
                fits: avail / 2 / 4 * unit as u64,
            });
        }
        Ok(Expected {
            start,
            unit,
            seed,
            gens: vec![UNWRITTEN; units as usize],
            next_gen: 1,
            verdicts: Vec::with_capacity(max_read / unit as usize + 1),
        })
    }

    pub fn unit(&self) -> u32 {
        self.unit
    }

    pub fn start(&self) -> u64 {
        self.start
    }

    pub fn span(&self) -> u64 {
        self.gens.len() as u64 * self.unit as u64
    }

    #[inline]
    fn index(&self, offset: u64) -> usize {
        ((offset - self.start) / self.unit as u64) as usize
    }

    /// Stamp a write's buffer (`len` bytes for `offset`) with a new generation and expect it.
    #[inline]
    pub fn stamp_write(&mut self, buf: &mut [u8], offset: u64) -> u32 {
        let gen = self.next_gen;
        // Generations wrap, skipping the two markers.
        self.next_gen = if gen >= REPORTED - 1 { 1 } else { gen + 1 };
        let unit = self.unit as usize;
        let first = self.index(offset);
        for (i, chunk) in buf.chunks_exact_mut(unit).enumerate() {
            format::stamp(chunk, offset + (i * unit) as u64, self.seed, gen);
            self.gens[first + i] = gen;
        }
        gen
    }

    /// A write that failed leaves its units unknown: they are no longer checked.
    pub fn forget(&mut self, offset: u64, len: u32) {
        let first = self.index(offset);
        let n = len as usize / self.unit as usize;
        self.gens[first..first + n].fill(UNWRITTEN);
    }

    /// Whether any unit of `offset..offset+len` is expected to hold data.
    pub fn any_written(&self, offset: u64, len: u64) -> bool {
        let first = self.index(offset);
        let n = (len / self.unit as u64) as usize;
        self.gens[first..first + n]
            .iter()
            .any(|&g| g != UNWRITTEN && g != REPORTED)
    }

    /// Check a read of `offset..offset+buf.len()` and report what does not match. Units of
    /// one write carry one generation, so a write of which some units landed and others
    /// hold older data is torn.
    pub fn check(&mut self, buf: &[u8], offset: u64, logical: u32, report: &mut VerifyReport) {
        let unit = self.unit as usize;
        let first = self.index(offset);
        self.verdicts.clear();
        for (i, chunk) in buf.chunks_exact(unit).enumerate() {
            let want = self.gens[first + i];
            if want == UNWRITTEN || want == REPORTED {
                self.verdicts.push(Verdict::Skip);
                continue;
            }
            report.units_checked += 1;
            report.bytes_checked += unit as u64;
            let at = offset + (i * unit) as u64;
            let verdict = match format::inspect(chunk, at, self.seed) {
                Found::Intact(h) if h.offset != at => Verdict::Bad {
                    kind: MismatchKind::Misdirected,
                    found: Some(h),
                },
                Found::Intact(h) if h.seed != self.seed || h.generation != want => Verdict::Bad {
                    kind: MismatchKind::Stale,
                    found: Some(h),
                },
                Found::Intact(_) => Verdict::Good,
                Found::Corrupt(h) => Verdict::Bad {
                    kind: MismatchKind::Corrupt,
                    found: Some(h),
                },
                Found::Zeroes => Verdict::Bad {
                    kind: MismatchKind::Zeroes,
                    found: None,
                },
                Found::Garbage => Verdict::Bad {
                    kind: MismatchKind::Garbage,
                    found: None,
                },
            };
            self.verdicts.push(verdict);
        }
        for i in 0..self.verdicts.len() {
            let Verdict::Bad { kind, found } = self.verdicts[i] else {
                continue;
            };
            let want = self.gens[first + i];
            let old_data = matches!(
                kind,
                MismatchKind::Stale | MismatchKind::Zeroes | MismatchKind::Garbage
            );
            let torn = old_data
                && self
                    .verdicts
                    .iter()
                    .enumerate()
                    .any(|(j, v)| matches!(v, Verdict::Good) && self.gens[first + j] == want);
            let at = offset + (i * unit) as u64;
            let other_run = found.filter(|h| h.seed != self.seed);
            report.add(Mismatch {
                lba: at / logical as u64,
                offset: at,
                len: self.unit,
                kind: if torn { MismatchKind::Torn } else { kind },
                expected_generation: want,
                found_generation: found
                    .filter(|_| kind != MismatchKind::Corrupt)
                    .map(|h| h.generation),
                found_lba: found
                    .filter(|_| kind == MismatchKind::Misdirected)
                    .map(|h| h.offset / logical as u64),
                found_seed: other_run.map(|h| h.seed),
                read_result: None,
            });
            self.gens[first + i] = REPORTED;
        }
    }

    /// A read-back that failed: every unit it should have checked is unreadable.
    pub fn unreadable(
        &mut self,
        offset: u64,
        len: u32,
        result: i64,
        logical: u32,
        report: &mut VerifyReport,
    ) {
        let first = self.index(offset);
        for i in 0..len as usize / self.unit as usize {
            let want = self.gens[first + i];
            if want == UNWRITTEN || want == REPORTED {
                continue;
            }
            let at = offset + i as u64 * self.unit as u64;
            report.add(Mismatch {
                lba: at / logical as u64,
                offset: at,
                len: self.unit,
                kind: MismatchKind::Unreadable,
                expected_generation: want,
                found_generation: None,
                found_lba: None,
                found_seed: None,
                read_result: Some(result),
            });
            self.gens[first + i] = REPORTED;
        }
    }
}
