//! What trimmed blocks read back as, against what the drive claims (NVMe DLFEAT, ATA
//! RZAT/DRAT; `trim_reads` on a simulated drive): the TRIM test reads sample blocks before the
//! TRIM and twice after it, and sorts each into zeroes, ones, the old data, or other. A claim
//! of zeroes (or ones) that reads back otherwise, or of deterministic data that reads back
//! differently twice, is a violation.

use serde::{Deserialize, Serialize};

use engine::driver::{describe_failure, DriverError};
use engine::{Completion, DataNeed, Device, DeviceError, Io, Op, TrimmedReads};

use crate::Result;
use crate::SuiteError;

/// Sample blocks spread over the trimmed span.
pub const SAMPLES: u64 = 64;
const SAMPLE_BYTES: u32 = 4096;
/// The bad samples a result lists one by one.
const LISTED: usize = 16;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ReadAs {
    Zeroes,
    Ones,
    /// The data the block held before the TRIM.
    OldData,
    Other,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BadSample {
    pub lba: u64,
    pub offset: u64,
    pub read_as: ReadAs,
    /// Whether the second read differed from the first.
    pub changed: bool,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TrimmedReadCheck {
    /// What the drive claims; `None` when it does not say.
    pub claim: Option<TrimmedReads>,
    pub samples: u64,
    pub zeroes: u64,
    pub ones: u64,
    pub old_data: u64,
    pub other: u64,
    /// Samples that read differently the second time.
    pub changed: u64,
    pub violation: bool,
    pub verdict: String,
    /// The samples that break the claim (the first few).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub bad: Vec<BadSample>,
}

/// The blocks sampled in `span` bytes from LBA 0.
pub fn sample_offsets(span: u64) -> Vec<u64> {
    let blocks = span / SAMPLE_BYTES as u64;
    let n = SAMPLES.min(blocks);
    (0..n)
        .map(|i| blocks * i / n * SAMPLE_BYTES as u64)
        .collect()
}

/// What one sample read as: zeroes, ones, or its data's crc32c.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sample {
    Zeroes,
    Ones,
    Data(u32),
}

/// Read the samples, one at a time. `None` when the device returns no data.
pub fn read(dev: &mut dyn Device, offsets: &[u64]) -> Result<Option<Vec<Sample>>, SuiteError> {
    if dev.need_data(DataNeed::Mapping).is_err() {
        return Ok(None);
    }
    dev.prepare(1, SAMPLE_BYTES as usize)
        .map_err(DriverError::from)?;
    let mut out = Vec::with_capacity(offsets.len());
    let mut done: Vec<Completion> = Vec::with_capacity(1);
    for &offset in offsets {
        let io = Io {
            slot: 0,
            op: Op::Read,
            offset,
            len: SAMPLE_BYTES,
        };
        dev.submit(io).map_err(DriverError::from)?;
        done.clear();
        while done.is_empty() {
            dev.reap(1, None, &mut done).map_err(DriverError::from)?;
        }
        if done[0].result != SAMPLE_BYTES as i64 {
            let why = describe_failure(Op::Read, offset, SAMPLE_BYTES, done[0].result);
            return Err(DriverError::from(DeviceError::Other(why)).into());
        }
        let Some(buf) = dev.buffer(0) else {
            return Ok(None);
        };
        let buf = &buf[..SAMPLE_BYTES as usize];
        out.push(if buf.iter().all(|&b| b == 0) {
            Sample::Zeroes
        } else if buf.iter().all(|&b| b == 0xFF) {
            Sample::Ones
        } else {
            Sample::Data(crc32c::crc32c(buf))
        });
    }
    dev.need_data(DataNeed::Nothing)
        .map_err(DriverError::from)?;
    Ok(Some(out))
}

/// Sort the samples read after the TRIM (twice) against those read before it and the claim.
pub fn check(
    claim: Option<TrimmedReads>,
    offsets: &[u64],
    before: &[Sample],
    first: &[Sample],
    second: &[Sample],
    logical: u32,
) -> TrimmedReadCheck {
    let mut c = TrimmedReadCheck {
        claim,
        samples: offsets.len() as u64,
        zeroes: 0,
        ones: 0,
        old_data: 0,
        other: 0,
        changed: 0,
        violation: false,
        verdict: String::new(),
        bad: Vec::new(),
    };
    let mut bad = 0u64;
    for (i, &offset) in offsets.iter().enumerate() {
        let read_as = match first[i] {
            Sample::Zeroes => ReadAs::Zeroes,
            Sample::Ones => ReadAs::Ones,
            s if s == before[i] => ReadAs::OldData,
            Sample::Data(_) => ReadAs::Other,
        };
        let changed = first[i] != second[i];
        *match read_as {
            ReadAs::Zeroes => &mut c.zeroes,
            ReadAs::Ones => &mut c.ones,
            ReadAs::OldData => &mut c.old_data,
            ReadAs::Other => &mut c.other,
        } += 1;
        c.changed += changed as u64;
        let breaks = match claim {
            Some(TrimmedReads::Zeroes) => read_as != ReadAs::Zeroes || changed,
            Some(TrimmedReads::Ones) => read_as != ReadAs::Ones || changed,
            Some(TrimmedReads::Deterministic) => changed,
            Some(TrimmedReads::Unspecified) | None => false,
        };
        if breaks {
            bad += 1;
            if c.bad.len() < LISTED {
                c.bad.push(BadSample {
                    lba: offset / logical.max(1) as u64,
                    offset,
                    read_as,
                    changed,
                });
            }
        }
    }
    c.violation = bad > 0;
    let found = format!(
        "{} of {} trimmed blocks read as zeroes, {} as ones, {} as their old data, {} as other data{}",
        c.zeroes,
        c.samples,
        c.ones,
        c.old_data,
        c.other,
        if c.changed > 0 {
            format!("; {} read differently twice", c.changed)
        } else {
            String::new()
        }
    );
    c.verdict = match claim {
        None => format!("{found}; the drive makes no claim"),
        Some(claim) if c.violation => format!(
            "VIOLATION: the drive claims trimmed blocks read as {}, but {bad} of {} did not (first at LBA {}): {found}",
            claim.name(),
            c.samples,
            c.bad[0].lba
        ),
        Some(claim) => format!("{found}, as the drive claims ({})", claim.name()),
    };
    c
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_claim_of_zeroes_that_reads_back_old_data_is_a_violation() {
        let offsets = sample_offsets(1 << 20);
        assert_eq!(offsets.len(), 64);
        let n = offsets.len();
        let before: Vec<Sample> = (0..n as u32).map(Sample::Data).collect();
        let zeroes = vec![Sample::Zeroes; n];
        let ok = check(
            Some(TrimmedReads::Zeroes),
            &offsets,
            &before,
            &zeroes,
            &zeroes,
            512,
        );
        assert!(!ok.violation && ok.zeroes == 64, "{}", ok.verdict);
        let mut partly = zeroes.clone();
        partly[3] = before[3];
        let bad = check(
            Some(TrimmedReads::Zeroes),
            &offsets,
            &before,
            &partly,
            &partly,
            512,
        );
        assert!(bad.violation, "{}", bad.verdict);
        assert_eq!((bad.zeroes, bad.old_data), (63, 1));
        assert_eq!(bad.bad[0].lba, offsets[3] / 512);
        assert!(bad.verdict.starts_with("VIOLATION"), "{}", bad.verdict);
        // No claim: reported, never a violation.
        let none = check(None, &offsets, &before, &partly, &partly, 512);
        assert!(!none.violation && none.verdict.contains("no claim"));
        // Deterministic: the same twice is fine, a change is not.
        let mut again = partly.clone();
        again[5] = Sample::Data(999);
        let det = check(
            Some(TrimmedReads::Deterministic),
            &offsets,
            &before,
            &partly,
            &again,
            512,
        );
        assert!(det.violation && det.changed == 1, "{}", det.verdict);
    }
}
