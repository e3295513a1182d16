//! DiskSim / MQSim ASCII traces: `time devno lba_sectors size_sectors type`, one IO a line.
//!
//! MQSim's form (the samples in its `traces/` folder) has an integer arrival time in
//! nanoseconds and type 1 = read, 0 = write. Classic DiskSim writes the arrival time in
//! milliseconds with a fraction and a flags word whose bit 0 means read; a time with a
//! decimal point is read as DiskSim milliseconds. Sectors are 512 bytes.

use std::collections::VecDeque;
use std::io::Write;

use crate::text::{decimal_nano, field, is_blank_or_comment, uint, ws_fields, BadLine, LineParser};
use crate::{Op, Record, TraceError};

pub(crate) struct Parser;

impl LineParser for Parser {
    fn parse(&mut self, line: &[u8], out: &mut VecDeque<Record>) -> Result<(), BadLine> {
        if is_blank_or_comment(line) {
            return Ok(());
        }
        let mut f = ws_fields(line);
        let t = field(&mut f, "arrival time (ns)")?;
        let time_ns = if t.contains(&b'.') {
            // DiskSim milliseconds: decimal_nano gives 10^-9 ms units; scale to ns.
            decimal_nano(t, "arrival time (ms)")? / 1_000_000
        } else {
            uint(t, "arrival time (ns)")?
        };
        let dev = uint(field(&mut f, "device number")?, "device number")?;
        let lba = uint(field(&mut f, "start LBA (sectors)")?, "start LBA (sectors)")?;
        let size = uint(field(&mut f, "size (sectors)")?, "size (sectors)")?;
        let ty = uint(
            field(&mut f, "type (1 = read, 0 = write)")?,
            "type (1 = read, 0 = write)",
        )?;
        if let Some(extra) = f.next() {
            return Err(format!(
                "expected 5 fields (time devno lba size type), found more: {}",
                crate::text::show(extra)
            )
            .into());
        }
        let op = if ty & 1 == 1 { Op::Read } else { Op::Write };
        let mut r = Record::new(
            op,
            lba.checked_mul(512).ok_or("LBA too large")?,
            crate::text::sectors_len(size, "size")?,
            Some(time_ns),
        );
        r.stream = u32::try_from(dev).map_err(|_| format!("device number {dev} too large"))?;
        out.push_back(r);
        Ok(())
    }
}

/// Writes MQSim's form (ns, type 1 = read / 0 = write). Only reads and writes exist in this
/// format: discards and flushes are counted in [`DiskSimWriter::dropped`] and left out.
/// Offsets and lengths are rounded to 512-byte sectors (down and up).
pub struct DiskSimWriter<W: Write> {
    out: W,
    pub dropped: u64,
}

impl<W: Write> DiskSimWriter<W> {
    pub fn new(out: W) -> Self {
        DiskSimWriter { out, dropped: 0 }
    }
}

impl<W: Write> crate::TraceWriter for DiskSimWriter<W> {
    fn write(&mut self, r: &Record) -> Result<(), TraceError> {
        let ty = match r.op {
            Op::Read => 1,
            Op::Write => 0,
            _ => {
                self.dropped += 1;
                return Ok(());
            }
        };
        let lba = r.offset_bytes / 512;
        let sectors = r.end_bytes().div_ceil(512) - lba;
        writeln!(
            self.out,
            "{} {} {} {} {}",
            r.start_ns().unwrap_or(0),
            r.stream,
            lba,
            sectors,
            ty
        )
        .map_err(|e| TraceError::Io {
            file: "disksim output".into(),
            error: e,
        })
    }

    fn finish(&mut self) -> Result<(), TraceError> {
        self.out.flush().map_err(|e| TraceError::Io {
            file: "disksim output".into(),
            error: e,
        })
    }
}
