//! Data verification, after fio's `verify=crc32c` with `verify_backlog`: every verified write
//! carries, per unit, its LBA, a write generation and a checksum ([`format`]); the expected
//! generation of every unit is kept ([`state`]); written units are read back every
//! `backlog_units` and all of them once more at the end, and whatever does not match is
//! reported by LBA with what was expected and what was found ([`report`]).
//!
//! Read-backs run with nothing else in flight and are never counted as the test's IOs. The
//! driver never has two overlapping writes in flight while verifying (their order on the
//! device would be undefined), as fio's `serialize_overlap`.

pub mod format;
pub mod report;
pub mod state;

use std::sync::atomic::{AtomicBool, Ordering};

use serde::{Deserialize, Serialize};

use crate::device::{Completion, DataNeed, Device, DeviceError, Io, Op};
use crate::units::format_size;
pub use report::{Mismatch, MismatchKind, VerifyReport};
use state::Expected;

/// How to verify.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct VerifyOptions {
    /// Read back what was written every this many written units (0: only at the end).
    pub backlog_units: u64,
}

/// The verify unit's largest size: a header and checksum per 4 KiB (or per IO when smaller).
pub const MAX_UNIT: u32 = 4096;
/// The final pass reads at least this much at a time.
const FINAL_READ: u64 = 128 << 10;

#[derive(Debug, thiserror::Error)]
pub enum VerifyError {
    #[error(
        "verifying a span of {} needs {} of memory for its expected state, but only {} is \
         available: verify a smaller --span (at most {})",
        format_size(*span), format_size(*need), format_size(*available), format_size(*fits)
    )]
    TooLarge {
        span: u64,
        need: u64,
        available: u64,
        fits: u64,
    },
    #[error(
        "the target returns no data, so nothing can be verified (a sim: target keeps data \
         with data=on)"
    )]
    NoData,
    #[error("--verify checks workloads of one block size: drop the block-size mix or --verify")]
    BlockMix,
    #[error("--verify checks a run of one thread: drop --threads (use the total --qd)")]
    Threads,
    #[error(transparent)]
    Device(#[from] DeviceError),
}

/// One verification: the expected state of a span and what its checks found so far.
pub struct Verification {
    expected: Expected,
    opts: VerifyOptions,
    logical: u32,
    /// Completed writes not yet read back, in the order they completed.
    backlog: Vec<(u64, u32)>,
    backlog_pending: u64,
    largest_write: u32,
    report: VerifyReport,
}

/// The verify unit for IOs of `block` bytes: 4 KiB, or the largest size dividing both.
pub fn unit_for(block: u32) -> u32 {
    let (mut a, mut b) = (block.max(1), MAX_UNIT);
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

impl Verification {
    /// Verify writes of `block`-byte multiples inside `start..start+span` on `dev`, which is
    /// asked to return exactly what was written.
    pub fn new(
        dev: &mut dyn Device,
        start: u64,
        span: u64,
        block: u32,
        seed: u64,
        opts: VerifyOptions,
    ) -> Result<Verification, VerifyError> {
        let unit = unit_for(block);
        let logical = dev.geometry().logical_block_bytes.max(1);
        let expected = Expected::new(
            start,
            span,
            unit,
            seed,
            FINAL_READ.max(block as u64) as usize,
            crate::system::available_memory(),
        )?;
        dev.need_data(DataNeed::Exact)?;
        Ok(Verification {
            expected,
            opts,
            logical,
            backlog: Vec::with_capacity(opts.backlog_units.min(1 << 20) as usize),
            backlog_pending: 0,
            largest_write: 0,
            report: VerifyReport {
                unit_bytes: unit,
                backlog_units: opts.backlog_units,
                complete: true,
                ..VerifyReport::default()
            },
        })
    }

    pub fn unit_bytes(&self) -> u32 {
        self.expected.unit()
    }

    /// Stamp a write's data (`buf`, for `offset`) before it is submitted.
    #[inline]
    pub fn stamp_write(&mut self, buf: &mut [u8], offset: u64) {
        self.expected.stamp_write(buf, offset);
        self.largest_write = self.largest_write.max(buf.len() as u32);
        self.report.units_written += (buf.len() / self.expected.unit() as usize) as u64;
    }

    /// A write completed: queue it for the backlog, or forget it if it failed.
    #[inline]
    pub fn write_done(&mut self, offset: u64, len: u32, ok: bool) {
        if !ok {
            self.expected.forget(offset, len);
            return;
        }
        if self.opts.backlog_units > 0 {
            self.backlog.push((offset, len));
            self.backlog_pending += (len / self.expected.unit()) as u64;
        }
    }

    /// Whether the backlog is full: the driver drains its queue and calls
    /// [`Verification::check_backlog`].
    #[inline]
    pub fn backlog_due(&self) -> bool {
        self.opts.backlog_units > 0 && self.backlog_pending >= self.opts.backlog_units
    }

    /// Whether written units wait in the backlog.
    pub fn backlog_pending(&self) -> bool {
        !self.backlog.is_empty()
    }

    /// Read back every write in the backlog (nothing may be in flight), `qd` at a time on
    /// slots `0..qd` of `max_len` bytes (a larger write is read in pieces).
    pub fn check_backlog(
        &mut self,
        dev: &mut dyn Device,
        qd: u32,
        max_len: u32,
    ) -> Result<(), DeviceError> {
        let start = dev.now_ns();
        let backlog = std::mem::take(&mut self.backlog);
        let max_len =
            max_len.max(self.expected.unit()) / self.expected.unit() * self.expected.unit();
        let pieces = backlog.iter().flat_map(|&(offset, len)| {
            (0..len.div_ceil(max_len)).map(move |i| {
                let at = i * max_len;
                (offset + at as u64, (len - at).min(max_len))
            })
        });
        let r = self.read_back(dev, qd, pieces, None);
        self.backlog = backlog;
        self.backlog.clear();
        self.backlog_pending = 0;
        self.report.backlog_checks += 1;
        self.report.backlog_pause_s += (dev.now_ns() - start) as f64 / 1e9;
        r.map(|_| ())
    }

    /// The final pass: read back every unit written, in reads aligned to whole writes where
    /// the writes were aligned to their size (so a torn write is seen whole). Stops early
    /// (incomplete) when `stop` is set.
    pub fn read_back_all(
        &mut self,
        dev: &mut dyn Device,
        qd: u32,
        stop: Option<&AtomicBool>,
    ) -> Result<(), DeviceError> {
        self.backlog.clear();
        self.backlog_pending = 0;
        let largest = (self.largest_write.max(self.expected.unit())) as u64;
        let chunk = FINAL_READ.div_ceil(largest) * largest;
        dev.prepare(qd, chunk as usize)?;
        let (start, span) = (self.expected.start(), self.expected.span());
        let end = start + span;
        let reads = (0..span.div_ceil(chunk))
            .map(|i| {
                let at = start + i * chunk;
                (at, (end - at).min(chunk) as u32)
            })
            .filter(|&(at, len)| self.expected.any_written(at, len as u64))
            .collect::<Vec<_>>();
        let finished = self.read_back(dev, qd, reads.into_iter(), stop)?;
        self.report.final_pass = finished;
        self.report.complete &= finished;
        Ok(())
    }

    /// Verification was cut short (the run stopped before the final pass).
    pub fn incomplete(&mut self) {
        self.report.complete = false;
    }

    pub fn report(&self) -> VerifyReport {
        let mut r = self.report.clone();
        r.sort();
        r
    }

    /// Read `reads` back at up to `qd` in flight and check each. Returns whether all were
    /// read (false when stopped).
    fn read_back(
        &mut self,
        dev: &mut dyn Device,
        qd: u32,
        mut reads: impl Iterator<Item = (u64, u32)>,
        stop: Option<&AtomicBool>,
    ) -> Result<bool, DeviceError> {
        let qd = qd.max(1);
        let mut slots: Vec<(u64, u32)> = vec![(0, 0); qd as usize];
        let mut free: Vec<u32> = (0..qd).rev().collect();
        let mut done: Vec<Completion> = Vec::with_capacity(qd as usize);
        let (mut in_flight, mut more) = (0u32, true);
        while more || in_flight > 0 {
            if stop.is_some_and(|s| s.load(Ordering::Relaxed)) {
                more = false;
            }
            while more && !free.is_empty() {
                let Some((offset, len)) = reads.next() else {
                    more = false;
                    break;
                };
                let slot = free.pop().expect("a free slot");
                dev.submit(Io {
                    slot,
                    op: Op::Read,
                    offset,
                    len,
                })?;
                slots[slot as usize] = (offset, len);
                in_flight += 1;
            }
            if in_flight == 0 {
                break;
            }
            done.clear();
            dev.reap(1, None, &mut done)?;
            for c in &done {
                let (offset, len) = slots[c.slot as usize];
                in_flight -= 1;
                free.push(c.slot);
                if c.result != len as i64 {
                    self.expected
                        .unreadable(offset, len, c.result, self.logical, &mut self.report);
                    continue;
                }
                let buf = dev
                    .buffer(c.slot)
                    .ok_or_else(|| DeviceError::Invalid(VerifyError::NoData.to_string()))?;
                self.expected
                    .check(&buf[..len as usize], offset, self.logical, &mut self.report);
            }
        }
        Ok(reads.next().is_none() && !stop.is_some_and(|s| s.load(Ordering::Relaxed)))
    }
}
